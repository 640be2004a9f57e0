"""The rules that find credentials in text, and what is done with what they find: redacted or masked.

The rules follow the shapes used by the well-known open rule sets (gitleaks' default configuration and Yelp's
detect-secrets plugins): provider keys with fixed prefixes, private key blocks, JWTs, credentials in URLs, bearer
headers and long secrets assigned to key-like names. They run on RE2, whose matching time is linear in the text
whatever the pattern, so no input can make the scan slow. Every default-ignorable code point and every format
character (Unicode category Cf) is removed before matching, so a key split by an invisible character is still
found. Inline "allow" markers are not honoured: transcripts are written by models and may say anything.

Text in, spans out: walking records and the files written is the scanner's (secretscan.py).
"""

from __future__ import annotations

import bisect
import json
import math
import re
import unicodedata
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache, cached_property, lru_cache
from pathlib import Path
from typing import Any

import re2

# Default_Ignorable_Code_Point, from the Unicode Character Database (DerivedCoreProperties.txt, Unicode 15.1).
DEFAULT_IGNORABLE = (
    (0x00AD, 0x00AD),
    (0x034F, 0x034F),
    (0x061C, 0x061C),
    (0x115F, 0x1160),
    (0x17B4, 0x17B5),
    (0x180B, 0x180F),
    (0x200B, 0x200F),
    (0x202A, 0x202E),
    (0x2060, 0x206F),
    (0x3164, 0x3164),
    (0xFE00, 0xFE0F),
    (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0),
    (0xFFF0, 0xFFF8),
    (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A),
    (0xE0000, 0xE0FFF),
)

# The rules of our own: the shapes transcripts and run files have shown, named as builds have always named them.
# gitleaks' rules follow (secret_rules/gitleaks.json); where two rules find the same text, the first listed names it.
PATTERNS: dict[str, str] = {
    # the whole block: to its END line, or to the end of the text when the END line is missing
    "private-key-block": r"-----BEGIN[ A-Z0-9_-]{0,40}PRIVATE KEY(?: BLOCK)?-----[\s\S]*?"
    r"(?:-----END[ A-Z0-9_-]{0,40}PRIVATE KEY(?: BLOCK)?-----|\z)",
    "aws-access-key-id": r"\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|ANPA|ANVA|AROA|APKA)[A-Z0-9]{16}\b",
    "aws-secret-access-key": r"(?i)aws.{0,20}(?:secret|private).{0,20}[\"'=:\s]+[A-Za-z0-9/+=]{40}\b",
    "github-token": r"\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,255}\b",
    "github-fine-grained-token": r"\bgithub_pat_[A-Za-z0-9_]{60,255}\b",
    "gitlab-token": r"\bglpat-[A-Za-z0-9_-]{20,}\b",
    "anthropic-api-key": r"\bsk-ant-(?:api|admin)\d{2}-[A-Za-z0-9_-]{40,}",
    "openrouter-api-key": r"\bsk-or-v1-[a-f0-9]{64}\b",
    "openai-api-key": r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}T3BlbkFJ[A-Za-z0-9_-]{20,}"
    r"|\bsk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{40,}",
    "generic-sk-api-key": r"\bsk-[A-Za-z0-9]{32,}\b",
    "google-api-key": r"\bAIza[0-9A-Za-z_-]{35}\b",
    "huggingface-token": r"\bhf_[A-Za-z0-9]{34,}\b",
    "groq-api-key": r"\bgsk_[A-Za-z0-9]{48,}\b",
    "xai-api-key": r"\bxai-[A-Za-z0-9]{60,}\b",
    "replicate-token": r"\br8_[A-Za-z0-9]{37}\b",
    "stripe-key": r"\b(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{24,}\b",
    "slack-token": r"\bxox[abposr]-[0-9A-Za-z-]{10,}\b",
    "slack-webhook": r"https://hooks\.slack\.com/services/T[A-Z0-9]+/B[A-Z0-9]+/[A-Za-z0-9]+",
    "discord-bot-token": r"\b[MNO][A-Za-z\d_-]{23,25}\.[A-Za-z\d_-]{6}\.[A-Za-z\d_-]{27,}\b",
    "telegram-bot-token": r"\b\d{8,10}:AA[A-Za-z0-9_-]{33}\b",
    "npm-token": r"\bnpm_[A-Za-z0-9]{36}\b",
    "pypi-token": r"\bpypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}",
    "jwt": r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}",
    # any scheme, a user (possibly empty: redis://:pass@host) and a password
    "credentials-in-url": r"\b[a-z][a-z0-9+.-]{1,20}://[^\s/:@\"'<>]{0,64}:[^\s/@\"'<>]{3,128}@[^\s/\"'<>]+",
    "bearer-token": r"(?i)\bauthorization\s*[:=]\s*\"?bearer\s+[A-Za-z0-9._~+/-]{20,}=*",
    # the name may end a longer one: AZURE_OPENAI_API_KEY=…, DB_PASSWORD=…, "openai_api_key": …
    "secret-assignment": (
        r"(?i)(?:\b|_)(?:api[_-]?key|access[_-]?token|auth[_-]?token|secret[_-]?key|client[_-]?secret|password"
        r"|passwd)\b[\"']?\s*[:=]\s*[\"']?(?P<value>[A-Za-z0-9_+/=-]{20,})"
    ),
    # configuration files as they get pasted into a conversation
    "basic-auth-header": r"(?i)\bauthorization\s*[:=]\s*\"?basic\s+(?P<value>[A-Za-z0-9+/]{8,}={0,2})",
    "netrc-password": r"(?i)\bmachine\s+\S+\s+login\s+\S+\s+password\s+(?P<value>\S{4,})",
    "npmrc-auth": r"(?i)(?:^|[\s:])_(?:auth|authToken|password)\s*=\s*\"?(?P<value>[A-Za-z0-9+/=._-]{8,})",
    "docker-config-auth": r"\"(?:auth|identitytoken)\"\s*:\s*\"(?P<value>[A-Za-z0-9+/]{12,}={0,2})\"",
    "kubeconfig-credential": r"(?i)\b(?:client-key-data|token)\s*:\s*[\"']?(?P<value>[A-Za-z0-9+/=._-]{24,})",
    "azure-storage-account-key": r"(?i)\bAccountKey\s*=\s*(?P<value>[A-Za-z0-9+/]{40,}={0,2})",
    "connection-string-password": r"(?i);\s*(?:password|pwd)\s*=\s*(?P<value>[^;\s\"'<>(){}$]{4,})(?:;|\s|$)",
    "sendgrid-api-key": r"\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}\b",
    "twilio-credential": r"\b(?:SK|AC)[0-9a-f]{32}\b",
    "stripe-webhook-secret": r"\bwhsec_[A-Za-z0-9]{24,}\b",
    # a short value given to a secret-like name (DB_PASSWORD=hunter2x, secret: s3cr3t!, "token": "9f86d08…"):
    # kept only when it holds a digit and a letter and its entropy is over SHORT_ENTROPY (see _value_ok)
    "short-secret-assignment": (
        r"(?i)(?:\b|_)(?:password|passwd|pwd|secret|token|api[_-]?key|passphrase)\b[\"']?\s*(?:=|:)\s*"
        r"(?P<quote>[\"']?)(?P<value>[^\s\"'`,;(){}\[\]<>]{6,19})(?:[\"'`,;\s]|$)"
    ),
}
Span = tuple[str, int, int]  # (rule, start, end)
LINE_REACH = 1000  # a line-wide allowlist looks this far either side of a match (a 1 MB line is not read per match)
# past this many matches of one rule in one text, the rest are findings without their checks (entropy, allowlists):
# what a megabyte of secret-shaped assignments costs stays under a second, and more findings never fewer
MAX_CHECKED = 5000
MIN_LENGTH = 8  # no rule finds anything in fewer characters
GATED = 8  # rules that may match a text, at most, for one pass of them all to ask first (_gate)
SHORT_ENTROPY = 2.5  # bits per character: "hunter2x" has 3.0, "aaaaaa11" 0.8 (documented in publishing-safely.md)


# Unicode puts format characters in planes 0, 1 and 14 only (2 and 3 hold ideographs, 4 to 13 are unassigned, 15
# and 16 are for private use): asking for the category of these 196,608 code points instead of all 1,114,112 takes
# a tenth of a second less on every build. A test checks the class against every code point.
FORMAT_PLANES = ((0x00000, 0x20000), (0xE0000, 0xF0000))


@cache
def _invisible() -> frozenset[int]:
    """Every default-ignorable code point and every format character (category Cf)."""
    points = {cp for lo, hi in DEFAULT_IGNORABLE for cp in range(lo, hi + 1)}
    points |= {cp for lo, hi in FORMAT_PLANES for cp in range(lo, hi) if unicodedata.category(chr(cp)) == "Cf"}
    return frozenset(points)


@cache
def _removal() -> dict[int, None]:
    """str.translate's table that removes every invisible character: one pass over the text, in C."""
    return dict.fromkeys(_invisible())


@cache
def _invisible_runs() -> Any:
    """RE2 of a run of invisible characters, read in UTF-8: a text's runs are found in one pass over its bytes."""
    return re2.compile(_ignorable().pattern + "+")


MANY_RUNS = 4096  # runs of invisible characters past which a text is stripped by str.translate instead (_stripped)


def _stripped(text: str, encoded: bytes) -> tuple[str, bytes]:
    """text without its invisible characters, and that as UTF-8 (encoded: text's). Where they are few, as in most
    texts that hold any (a zero-width space, or what a binary search index decodes to), their runs are cut out of
    the bytes: str.translate reads every character through a table, which took about 2.6 ms for a 40 KB index file
    and RE2 0.15. Past MANY_RUNS runs, RE2's binding spends more per run than translate spends per character."""
    kept, start = [], 0
    for n, m in enumerate(_invisible_runs().finditer(encoded)):
        if n == MANY_RUNS:
            stripped = text.translate(_removal())
            return stripped, stripped.encode("utf-8", "surrogatepass")
        kept.append(encoded[start : m.start()])
        start = m.end()
    kept.append(encoded[start:])
    out = b"".join(kept)
    return out.decode("utf-8", "surrogatepass"), out


@cache
def _ignorable() -> re.Pattern[str]:
    """The invisible characters as one character class, to find where each one was (Python's re: finding the
    positions of half a million matches took RE2's binding over a second, re a twentieth of that)."""
    ranges: list[list[int]] = []
    for cp in sorted(_invisible()):
        if ranges and cp == ranges[-1][1] + 1:
            ranges[-1][1] = cp
        else:
            ranges.append([cp, cp])
    return re.compile("[" + "".join(f"{re.escape(chr(lo))}-{re.escape(chr(hi))}" for lo, hi in ranges) + "]")


@dataclass(frozen=True)
class LetBe:
    """What a rule lets be: gitleaks' allowlists, its global one and the rule's own, merged into one RE2 per target
    (one search each, not one per regex and stop word: a megabyte of generic assignments made 300,000 searches). A
    finding is let be when `secret` matches its secret (the allowlists' regexes for the secret, and every stop word,
    ignoring case), `match` the whole match, or `line` its line. Compiled when first used."""

    secret: str | None = None
    match: str | None = None
    line: str | None = None

    @cached_property
    def compiled(self) -> tuple[Any, Any, Any]:
        return tuple(re2.compile(p) if p else None for p in (self.secret, self.match, self.line))  # type: ignore[return-value]

    def lets_be(self, secret: str, match: str, line: Callable[[], str]) -> bool:
        by_secret, by_match, by_line = self.compiled
        return bool(
            (by_secret is not None and by_secret.search(secret))
            or (by_match is not None and by_match.search(match))
            or (by_line is not None and by_line.search(line()))
        )


def _let_be(allowlists: list[dict[str, Any]]) -> LetBe:
    """The allowlists (OR: every one scripts/gitleaks_rules.py keeps) merged by target."""
    parts: dict[str, list[str]] = {"secret": [], "match": [], "line": []}
    for a in allowlists:
        parts[a["target"]] += [f"(?:{r})" for r in a["regexes"]]
        if a["stopwords"]:  # a stop word is sought in the secret, whatever the allowlist's target
            parts["secret"].append("(?i:" + "|".join(re2.escape(w) for w in a["stopwords"]) + ")")
    return LetBe(**{target: "|".join(p) if p else None for target, p in parts.items()})


@dataclass(frozen=True)
class Rule:
    id: str
    regex: str  # RE2's syntax; compiled when the rule first runs (pattern): most never do in a build
    source: str  # "evalboard", or the gitleaks release it comes from
    secret_group: int = 0  # the group that is the secret (0: the first non-empty one, or the whole match)
    entropy: float = 0.0  # the secret's Shannon entropy (bits per character) must be over this
    let_be: LetBe = LetBe()
    whole_match: bool = True  # redact the whole match (the rules of our own) or the secret alone
    keywords: tuple[str, ...] = ()  # lower case: the rule runs only on text that holds one (gitleaks' keywords)

    def secret(self, m: Any) -> tuple[str, int, int]:
        """The secret a match holds, and where it lies."""
        for g in self.secret_groups:
            value = m.group(g)
            if value:
                start, end = m.span(g)
                return value, start, end
        start, end = m.span()
        return m.group(0), start, end

    @cached_property
    def pattern(self) -> Any:
        return re2.compile(self.regex)

    @cached_property
    def secret_groups(self) -> tuple[int, ...]:
        """The groups the secret is sought in, in turn (none: the whole match)."""
        count = self.pattern.groups
        return (self.secret_group,) if self.secret_group else tuple(range(1, count + 1))


@cache
def _gitleaks() -> tuple[dict[str, Any], list[Rule]]:
    """gitleaks' default rules, as scripts/gitleaks_rules.py derived them: its generic rule goes last, so a
    provider's own rule names what both find."""
    data = json.loads((Path(__file__).parent / "secret_rules/gitleaks.json").read_text(encoding="utf-8"))
    source = f"gitleaks {data['version']}"
    ours = set(PATTERNS)
    rules = [
        Rule(
            r["id"] if r["id"] not in ours else f"{r['id']}-gitleaks",
            r["regex"],
            source,
            r["secret_group"],
            r["entropy"],
            _let_be([*([data["allowlist"]] if data["allowlist"] else []), *r["allowlists"]]),
            whole_match=False,
            keywords=tuple(r["keywords"]),
        )
        for r in data["rules"]
    ]
    rules.sort(key=lambda r: r.id == "generic-api-key")
    return data, rules


# what the rules of our own let be: the example keys AWS's documentation shows (AKIAIOSFODNN7EXAMPLE and its secret)
OWN_ALLOWED = {"aws-access-key-id": r"EXAMPLE$", "aws-secret-access-key": r"EXAMPLEKEY\b"}


def _own_let_be(name: str) -> LetBe:
    pattern = OWN_ALLOWED.get(name)
    return LetBe(match=pattern) if pattern else LetBe()


@dataclass(frozen=True)
class RuleSet:
    """Every rule, in the order that names a finding, and one RE2 set that says which to run on a text, in one pass:
    the rules without keywords (our own), the class of the invisible characters, and every keyword of gitleaks'
    rules, ignoring case (theirs run only where one of their keywords stands, as gitleaks runs them). One set of all
    258 patterns took RE2 over a second to build its automaton for each new kind of text; this one takes a
    millisecond, and reads a page in three quarters of the time the two sets it replaced took together."""

    rules: list[Rule]
    gates: Any  # RE2 set: index i < invisible -> rules[i]; invisible -> an invisible character; past it, a keyword
    keyword_rules: list[list[int]]  # for keyword k (set index invisible + 1 + k): the rules (indices) that have it
    invisible: int  # the set's index of the invisible characters' class (no rule's)

    def candidates(self, data: bytes) -> tuple[list[int], bool]:
        """The indices of the rules that may match a text (nearly always none), in order, and whether it holds an
        invisible character, given the text as UTF-8 (the set reads that, and gives no positions): a text with no
        invisible character, nearly every one, is read once."""
        found: set[int] = set()
        invisible = False
        for i in self.gates.Match(data) or ():
            if i < self.invisible:
                found.add(i)
            elif i == self.invisible:
                invisible = True
            else:
                found.update(self.keyword_rules[i - self.invisible - 1])
        return sorted(found), invisible


@lru_cache(maxsize=64)
def _gate(hits: tuple[int, ...]) -> Any:
    """One RE2 of the rules at these indices, each as an alternative: it matches a text where any of them does, so a
    text it finds nothing in is let go after one pass instead of one per rule. Most texts are let go: three of
    gitleaks' rules run on nearly every page (their keywords are "s.", "sk", "token", "key"), and a page took a
    pass of each. Captures are off (rules share group names); each rule's flags stay within its alternative. Unlike
    a set, a single RE2 that runs out of memory for its automaton falls back to a slower search, never to no match;
    but it says so on stderr, so a text that many rules may match (GATED at most) is asked rule by rule."""
    options = re2.Options()
    options.never_capture = True
    rules = _rules().rules
    return re2.compile("|".join(f"(?:{rules[i].regex})" for i in hits), options)


@cache
def _rules() -> RuleSet:
    own = [Rule(name, p, "evalboard", let_be=_own_let_be(name)) for name, p in PATTERNS.items()]
    rules = own + _gitleaks()[1]
    options = re2.Options()
    options.max_mem = 64 << 20
    gates = re2.Set.SearchSet(options)
    for rule in own:
        gates.Add(rule.regex)
    gates.Add(_ignorable().pattern)  # index len(own): whether a text holds an invisible character
    words = sorted({word for rule in rules for word in rule.keywords})
    for word in words:  # a keyword as gitleaks asks for it: the very characters, ignoring case
        gates.Add(f"(?i){re2.escape(word)}")
    gates.Compile()
    by_word = [[i for i, rule in enumerate(rules) if word in rule.keywords] for word in words]
    return RuleSet(rules, gates, by_word, len(own))


def __getattr__(name: str) -> Any:
    """RULES (rule id -> its RE2 pattern), made when first asked for: compiling every rule takes a tenth of a second,
    which a build never spends (it compiles a rule when the rule first runs)."""
    if name == "RULES":
        return {rule.id: rule.pattern for rule in _rules().rules}
    raise AttributeError(name)


def entropy(text: str) -> float:
    """Shannon entropy in bits per character: log2 n - (sum of c log2 c) / n over each character's count c."""
    n = len(text)
    return math.log2(n) - sum(c * math.log2(c) for c in Counter(text).values()) / n if n else 0.0


def _value_ok(rule: Rule, m: Any) -> bool:
    """The checks of our own rules that RE2 cannot say (it has no look-ahead): an assigned value counts when it
    holds a digit and a letter, so "password: correcthorsebatterystaple" is prose and "password=hunter2hunter2…" is a
    finding; a short one only when its entropy is over SHORT_ENTROPY too."""
    if rule.id not in (
        "secret-assignment",
        "short-secret-assignment",
        "kubeconfig-credential",
        "connection-string-password",
    ):
        return True
    value = m.group("value")
    mixed = any(c.isdigit() for c in value) and any(c.isalpha() for c in value)
    return mixed and (rule.id != "short-secret-assignment" or entropy(value) > SHORT_ENTROPY)


def _kept(rule: Rule, m: Any, stripped: str) -> tuple[int, int] | None:
    """Where a match is to be redacted, or None when its rule's checks or allowlists let it be."""
    secret, start, end = rule.secret(m)
    if end <= start or not _value_ok(rule, m):
        return None
    if rule.entropy and entropy(secret) <= rule.entropy:
        return None

    def line() -> str:  # asked for by the few allowlists that look at the line: at most LINE_REACH either side
        lo, hi = max(0, m.start() - LINE_REACH), min(len(stripped), m.end() + LINE_REACH)
        line_start, line_end = stripped.rfind("\n", lo, m.start()) + 1, stripped.find("\n", m.end(), hi)
        return stripped[max(line_start, lo) : line_end if line_end >= 0 else hi]

    if rule.let_be.lets_be(secret, m.group(0), line):
        return None
    return (m.start(), m.end()) if rule.whole_match else (start, end)


def find(text: str, data: bytes | None = None) -> list[tuple[str, int, int]]:
    """(rule, start, end) spans in the original text, after matching on the text without invisible characters; where
    several rules find overlapping text, the first listed names it. Its time is linear in the text: one RE2 set says
    which rules to run and whether the text holds an invisible character (RuleSet), those characters are removed in
    one pass when it does, a few rules are asked together first (_gate), and where each invisible character was is
    looked up only when something is found. data: the text's
    UTF-8 bytes, when the caller has them (a written file's), so that the text is not encoded again."""
    if len(text) < MIN_LENGTH:
        return []
    # RE2 reads UTF-8: searched as str, a text is encoded on every search, and each match's offsets converted back
    encoded = data if data is not None else text.encode("utf-8", "surrogatepass")
    ruleset = _rules()
    hits, invisible = ruleset.candidates(encoded)
    stripped = text
    if invisible:  # stripped and asked again; most text holds none, and is not looked at character by character
        stripped, encoded = _stripped(text, encoded)
        if len(stripped) < MIN_LENGTH:
            return []
        hits, _ = ruleset.candidates(encoded)
    if not hits or (1 < len(hits) <= GATED and _gate(tuple(hits)).search(encoded) is None):
        return []
    rules = ruleset.rules
    found = []
    for i in hits:
        rule = rules[i]
        if rule.pattern.search(encoded) is None:  # a keyword's rule runs on every text with the keyword: most match
            continue  # nothing, which the bytes tell without the positions in the text the matches below need
        for n, m in enumerate(rule.pattern.finditer(stripped)):
            where = _kept(rule, m, stripped) if n < MAX_CHECKED else m.span()
            if where:
                found.append((where[0], i, where[1]))
    return _named(found, rules, text, len(stripped) < len(text))


def _named(
    found: list[tuple[int, int, int]], rules: list[Rule], text: str, shifted: bool
) -> list[tuple[str, int, int]]:
    """One finding for each run of overlapping spans, named by the first-listed rule among them, in the original
    text's positions."""
    removed = [m.start() for m in _ignorable().finditer(text)] if shifted else []
    moved = [r - k for k, r in enumerate(removed)]  # where each removed character would sit in the stripped text

    def original(i: int) -> int:
        return i + bisect.bisect_right(moved, i)

    spans: list[tuple[str, int, int]] = []
    run: list[int] = []  # [start, end, rule index] of the run being gathered
    for start, i, end in sorted(found):
        if run and start < run[1]:
            run[1], run[2] = max(run[1], end), min(run[2], i)
            continue
        if run:
            spans.append((rules[run[2]].id, original(run[0]), original(run[1] - 1) + 1))
        run = [start, end, i]
    if run:
        spans.append((rules[run[2]].id, original(run[0]), original(run[1] - 1) + 1))
    return spans


def masked(text: str) -> str:
    """text with every finding replaced by its marker: for log lines, which must never print a secret."""
    spans = find(text)
    return redact(text, spans) if spans else text


def redact(text: str, spans: list[tuple[str, int, int]]) -> str:
    """Replace each span with a visible marker naming its rule; overlapping spans merge."""
    out, pos = [], 0
    for rule, start, end in sorted(spans, key=lambda s: (s[1], -s[2])):
        if start < pos:
            continue
        out.append(text[pos:start])
        out.append(f"[REDACTED: {rule}]")
        pos = end
    out.append(text[pos:])
    return "".join(out)


# fields that name things rather than say things: pages, links and downloads are built from them
