"""Find credentials in everything about to be published, and optionally redact them.

The rules follow the shapes used by the well-known open rule sets (gitleaks' default configuration and Yelp's
detect-secrets plugins): provider keys with fixed prefixes, private key blocks, JWTs, credentials in URLs, bearer
headers and long secrets assigned to key-like names. Zero-width and other format characters (Unicode category Cf)
are removed before matching, so a key split by an invisible character is still found. Inline "allow" markers are
not honoured: transcripts are written by models and may say anything.
"""

from __future__ import annotations

import dataclasses
import re
import unicodedata
from dataclasses import dataclass
from typing import Any

RULES: dict[str, re.Pattern[str]] = {
    name: re.compile(pattern)
    for name, pattern in {
        # the whole block: to its END line, or to the end of the text when the END line is missing
        "private-key-block": r"-----BEGIN[ A-Z0-9_-]{0,40}PRIVATE KEY(?: BLOCK)?-----[\s\S]*?"
        r"(?:-----END[ A-Z0-9_-]{0,40}PRIVATE KEY(?: BLOCK)?-----|\Z)",
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
        "credentials-in-url": r"\b[a-z][a-z0-9+.-]{1,20}://[^\s/:@\"'<>]{1,64}:[^\s/@\"'<>]{3,128}@[^\s/\"'<>]+",
        "bearer-token": r"(?i)\bauthorization\s*[:=]\s*\"?bearer\s+[A-Za-z0-9._~+/-]{20,}=*",
        "secret-assignment": (
            r"(?i)\b(?:api[_-]?key|access[_-]?token|auth[_-]?token|secret[_-]?key|client[_-]?secret|password|passwd)"
            r"\b[\"']?\s*[:=]\s*[\"']?(?=[A-Za-z0-9_+/=-]*\d)(?=[A-Za-z0-9_+/=-]*[A-Za-z])[A-Za-z0-9_+/=-]{20,}"
        ),
    }.items()
}


# Every rule needs one of these (a run of 10+ token characters, a key block, a URL or a bearer header); text without
# any cannot match, so it skips the rule-by-rule search. The rule samples in the tests keep this honest.
_CANDIDATE = re.compile(r"(?i:[A-Za-z0-9_+/=-]{10,}|PRIVATE KEY|://|bearer)")


@dataclass(frozen=True)
class Finding:
    file: str
    record: str | None
    field: str
    rule: str

    def __str__(self) -> str:
        where = self.file + (f", {self.record}" if self.record else "")
        return f"secret: {where}, field {self.field}: matches rule {self.rule}"


def _strip_format_chars(text: str) -> tuple[str, list[int]]:
    """Remove Cf characters; return the stripped text and, per kept character, its index in the original."""
    kept, index = [], []
    for i, ch in enumerate(text):
        if unicodedata.category(ch) != "Cf":
            kept.append(ch)
            index.append(i)
    return "".join(kept), index


def find(text: str) -> list[tuple[str, int, int]]:
    """(rule, start, end) spans in the original text, after matching on the text without format characters."""
    if text.replace("\n", "").replace("\t", "").isprintable():  # no format characters: match the text as it is
        if not _CANDIDATE.search(text):
            return []
        stripped, index = text, range(len(text))
    else:
        stripped, index = _strip_format_chars(text)
    spans = []
    for rule, pattern in RULES.items():
        for m in pattern.finditer(stripped):
            if m.end() > m.start():
                spans.append((rule, index[m.start()], index[m.end() - 1] + 1))
    return spans


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


class Scanner:
    """Walks model objects, recording (and with redact=True replacing) every finding, with its location."""

    def __init__(self, redact: bool):
        self.redact = redact
        self.findings: list[Finding] = []

    def text(self, value: str, file: str, record: str | None, field: str) -> str:
        spans = find(value)
        if not spans:
            return value
        for rule in sorted({s[0] for s in spans}):
            self.findings.append(Finding(file, record, field, rule))
        return redact(value, spans) if self.redact else value

    def walk(self, value: Any, file: str, record: str | None, field: str, skip: tuple[str, ...] = ()) -> Any:
        if isinstance(value, str):
            return self.text(value, file, record, field)
        if isinstance(value, list):
            for i, item in enumerate(value):
                value[i] = self.walk(item, file, record, f"{field}[{i}]")
            return value
        if isinstance(value, tuple):
            return tuple(self.walk(item, file, record, f"{field}[{i}]") for i, item in enumerate(value))
        if isinstance(value, set):
            return {self.walk(item, file, record, field) for item in value}
        if isinstance(value, dict):
            for key in list(value):
                self.text(str(key), file, record, f"{field}.{key}" if field else str(key))
                value[key] = self.walk(value[key], file, record, f"{field}.{key}" if field else str(key))
            return value
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            if getattr(value, "source_file", None):  # a record with its own place: fields are named from it
                file, record, field = value.source_file, getattr(value, "source_record", None), ""
            for f in dataclasses.fields(value):
                if f.name in skip or f.name in ("source_file", "source_record"):
                    continue
                sub = f"{field}.{f.name}" if field else f.name
                new = self.walk(getattr(value, f.name), file, record, sub)
                if not type(value).__dataclass_params__.frozen:
                    setattr(value, f.name, new)
            return value
        return value
