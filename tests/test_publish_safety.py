"""Publishing safely: allowlist, secret scanning, the private answer key, inert markup, exact characters,
failed builds that lose nothing, and reproducible output."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import ROOT, edit_json, edit_jsonl, load, tree_hash
from hypothesis import given
from hypothesis import strategies as st
from test_secret_rules import PLANTED

from site_src.build import build_site
from site_src.secretrules import RULES, find, redact

TUCKER = "tuckerbench/demo-pilot-run1"
PACK = "uzbek-pack/demo-model-a-run1"


def all_text(site: Path) -> str:
    return "\n".join(p.read_bytes().decode("utf-8", "replace") for p in sorted(site.rglob("*")) if p.is_file())


def build(runs: Path, out: Path, **kw) -> int:
    project = load(runs)
    assert not project.problems.errors, project.problems.errors
    return build_site(project, out, search=False, **kw)


# ---- publish by allowlist
def test_only_files_the_format_defines_are_published(runs_copy, tmp_path, capsys):
    run = runs_copy / PACK
    planted = {
        ".env": "OPENAI_KEY=planted-env-value-123",
        "_headers": "/*\n  X-Planted: header-value-123",
        "_redirects": "/* https://planted.example 301",
        "netlify.toml": "[build]\ncommand='planted-cmd'",
        "notes.txt": "planted private notes 123",
        "id_rsa": "planted id_rsa body 123",
    }
    for name, text in planted.items():
        (run / name).write_text(text)
    assert build(runs_copy, tmp_path / "site") == 0
    out = tmp_path / "site"
    text = all_text(out)
    for name, body in planted.items():
        assert not (out / name).exists()
        assert body not in text
    report = capsys.readouterr().out
    reasons = {".env": "a credential file", "id_rsa": "a credential file", "notes.txt": "notes or a system file"}
    for name in planted:  # each listed with why it is not published
        assert f"runs/{PACK}/{name}: {reasons.get(name, 'not a file of the run format')}" in report


def test_fields_outside_the_visible_transcript_are_not_published(runs_copy, tmp_path):
    edit_jsonl(
        runs_copy / PACK / "responses.jsonl",
        1,
        lambda r: r.update(reasoning="PLANTED-HIDDEN-REASONING", billing={"card": "PLANTED-BILLING"}),
    )
    edit_json(runs_copy / PACK / "metadata.json", lambda m: m.update(account="PLANTED-ACCOUNT-DATA"))
    path = runs_copy / TUCKER / "transcripts/alpha/s1-code-review.r1.json"
    edit_json(
        path, lambda t: t["turns"][1].update(reasoning_content="PLANTED-COT", request_headers={"x": "PLANTED-HDR"})
    )
    assert build(runs_copy, tmp_path / "site") == 0
    text = all_text(tmp_path / "site")
    for planted in (
        "PLANTED-HIDDEN-REASONING",
        "PLANTED-BILLING",
        "PLANTED-ACCOUNT-DATA",
        "PLANTED-COT",
        "PLANTED-HDR",
    ):
        assert planted not in text


# ---- secret scanning
SAMPLES = {
    "private-key-block": "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7planted\n-----END RSA PRIVATE KEY-----",
    "aws-access-key-id": "AKIAIOSFODNN7PLANTED",
    "github-token": "ghp_" + "P1anted" * 5 + "x",
    "anthropic-api-key": "sk-ant-api03-" + "Planted_key-" * 8,
    "openai-api-key": "sk-proj-" + "PlantedKey0" * 6,
    "google-api-key": "AIza" + "SyPlanted0123456789abcdefghijklmnop",
    "slack-token": "xoxb-123456789012-planted-token",
    "jwt": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJwbGFudGVkIn0.c2lnbmF0dXJlLXBsYW50ZWQ",
    "credentials-in-url": "https://planted_user:planted_pass@example.com/repo.git",
    "huggingface-token": "hf_" + "Planted0" * 5,
    "stripe-key": "sk_live_" + "Planted0" * 4,
}


@pytest.mark.parametrize("rule", sorted(SAMPLES))
def test_secret_rules_find_common_credential_shapes(rule):
    assert rule in {r for r, _, _ in find(f"look: {SAMPLES[rule]} ok")}


def test_secret_split_by_zero_width_characters_is_still_found_and_fully_redacted():
    key = SAMPLES["github-token"]
    hidden = key[:6] + "\u200b" + key[6:20] + "\u2060" + key[20:]
    spans = find(f"token {hidden} end")
    assert [s[0] for s in spans] == ["github-token"]
    out = redact(f"token {hidden} end", spans)
    assert out == "token [REDACTED: github-token] end"


def test_private_key_without_end_line_is_redacted_to_the_end():
    text = "here: -----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAA\nmore"
    assert redact(text, find(text)) == "here: [REDACTED: private-key-block]"


def test_prefilter_never_hides_a_rule_match():
    """One RE2 set says which rules may match a text, and only those run: it names every sample's rule."""
    from site_src.secretrules import _rules

    ruleset = _rules()
    for rule, sample in SAMPLES.items():
        assert [r.id for r in ruleset.rules].index(rule) in ruleset.candidates(sample.encode())[0], rule
    for text in ("xoxb-1234567890", "Authorization: Bearer a.b.c.d.e.f.g.h.i.j.k.l", "db://u:p4ss@h"):
        assert find(text) and ruleset.candidates(text.encode())[0], text


def test_one_pass_names_each_own_rule_that_matches_and_each_keyword_rule_whose_keyword_stands_in_any_case():
    """The one set's pass gives what asking each own rule, and looking for each keyword ignoring case, gives: on
    pages' words, on every planted shape, and on each keyword alone, as written and in capitals, inside words."""
    from site_src.secretrules import _rules

    ruleset = _rules()
    own = ruleset.rules[: ruleset.invisible]
    words = sorted({word for rule in ruleset.rules for word in rule.keywords})
    texts = [PAGE_WORDS, *PLANTED.values(), *(f"x{w}y" for w in words), *(f"<p>{w.upper()}</p>" for w in words)]
    for text in texts:
        data = text.encode()
        asked = {i for i, rule in enumerate(own) if rule.pattern.search(data)}
        keyed = {i for i, rule in enumerate(ruleset.rules) if any(k.lower() in text.lower() for k in rule.keywords)}
        assert ruleset.candidates(data) == (sorted(asked | keyed), False), text
    assert len(words) > 200 and ruleset.candidates(b"TOKEN")[0]  # a keyword in capitals still runs its rules


PAGE_WORDS = (  # what makes gitleaks' keyword rules run on nearly every page: "s.", "sk", "token", "key", "ey"
    "<p>Skip to results. Tokens: input tokens 200, output tokens 49. The key is the judges' rubric. "
    "They asked keys. eyes. Ask again.</p>\n"
)


def test_the_gate_asks_every_candidate_rule_in_one_pass_and_hides_no_match(monkeypatch):
    """When several rules may match a text, one RE2 of them all (each an alternative, its flags kept inside it)
    asks first: it finds every rule's planted shape among any others, finds nothing where none of them does, and
    find() gives what asking rule by rule gives."""
    from site_src import secretrules
    from site_src.secretrules import GATED, _gate, _rules

    rules = _rules().rules
    for i, rule in enumerate(rules):
        around = tuple(sorted({(i + k) % len(rules) for k in range(GATED)}))
        assert _gate(around).search(PLANTED[rule.id].encode()), rule.id
    case_blind, case_kept = (next(i for i, r in enumerate(rules) if r.id == name) for name in
                             ("aws-secret-access-key", "aws-access-key-id"))  # fmt: skip
    assert rules[case_blind].regex.startswith("(?i)") and not rules[case_kept].regex.startswith("(?i)")
    for gate in (_gate((case_kept, case_blind)), _gate((case_blind, case_kept))):
        assert gate.search(b"AKIAQ3PLANTEDKEY0123")
        assert not gate.search(b"akiaq3plantedkey0123")  # the (?i) stays in its own alternative
    hits, _ = _rules().candidates((PAGE_WORDS * 3).encode())
    assert len(hits) > 1 and not _gate(tuple(hits)).search((PAGE_WORDS * 3).encode())
    texts = [PAGE_WORDS * 3, *(f"{PAGE_WORDS}{PLANTED[r.id]}\n{PAGE_WORDS}" for r in rules)]
    gated = [find(text) for text in texts]
    monkeypatch.setattr(secretrules, "GATED", 1)  # no gate: rule by rule
    assert [find(text) for text in texts] == gated
    assert gated[0] == [] and all(gated[1:])


@pytest.mark.parametrize("invisible", ["\u200b", "\u2060", "\ufeff", "\u00ad", "\U000e0041", "\u180e"])
def test_the_prefilter_says_whether_a_text_holds_an_invisible_character_in_the_same_pass(invisible):
    """The own rules' set also holds the invisible characters' class: a text with one is stripped and asked again,
    and the class's index is never taken for a rule's."""
    from site_src.secretrules import _ignorable, _rules

    ruleset = _rules()
    assert _ignorable().fullmatch(invisible)
    for around in ("{}plain text", "naïve — text{} · ü", "<p>{}</p>"):
        hits, held = ruleset.candidates(around.format(invisible).encode("utf-8"))
        assert held and ruleset.invisible not in hits
        assert ruleset.candidates(around.format("").encode("utf-8")) == ([], False)
    key = SAMPLES["github-token"]
    assert [s[0] for s in find(f"token {key[:9]}{invisible}{key[9:]} end")] == ["github-token"]


def test_invisible_characters_are_cut_out_of_the_bytes_as_translate_removes_them(monkeypatch):
    """_stripped cuts the runs of invisible characters out of a text's UTF-8, and gives what str.translate gives,
    text and bytes: among ASCII, other scripts, a lone surrogate and replacement characters, a character alone or
    in a run, at either end; past MANY_RUNS runs it is translate's. find() names and places a key split by them
    alike on either side of that bound."""
    import site_src.secretrules as secretrules

    removal = secretrules._removal()
    texts = [
        "\u200bplain\u2060\u2060 text\ufeff",
        "naïve — \u00ad\U000e0041 ü\u180e€",
        "\ud800 lone \u200b surrogate \ufffd\ufffd",
        "a\u034f" * 300 + "\u200b\u200b",
        "no invisible character at all",
    ]
    for text in texts:
        encoded = text.encode("utf-8", "surrogatepass")
        want = text.translate(removal)
        assert secretrules._stripped(text, encoded) == (want, want.encode("utf-8", "surrogatepass")), text
    key = SAMPLES["github-token"]
    split = "x\u200b" * 40 + f"token {key[:9]}\u2060{key[9:]} end \u200b"
    for bound in (secretrules.MANY_RUNS, 3):
        monkeypatch.setattr(secretrules, "MANY_RUNS", bound)
        for text in texts:
            want = text.translate(removal)
            assert secretrules._stripped(text, text.encode("utf-8", "surrogatepass"))[0] == want
        spans = find(split)
        assert [s[0] for s in spans] == ["github-token"]
        assert split[spans[0][1] : spans[0][2]].replace("\u2060", "") == key


@pytest.mark.parametrize("around", ["plain {} text", "naïve — {} · ü", "<p>\u200b{}</p>", "€\n{}\n€"])
def test_a_written_file_is_scanned_from_its_bytes_as_its_text_is(around):
    """The backstop scans a written file's text with its UTF-8 bytes given (RE2 reads those): the same findings, at
    the same places, as scanning the text alone, for every sample, whole or split by an invisible character, among
    ASCII or other text; and a file that is not UTF-8 is scanned as its text with replacement characters."""
    from site_src.build.scanning import scan_text

    for sample in SAMPLES.values():
        for secret in (sample, sample[:6] + "\u200b" + sample[6:]):
            text = around.format(secret)
            assert find(text, text.encode()) == find(text) != [], text
    token = SAMPLES["github-token"]
    broken = b"\xff\xfe " + token.encode() + b" \xc3"
    assert [f.rule for f in scan_text("x.html", broken)] == [r for r, *_ in find(broken.decode(errors="replace"))]
    assert [f.rule for f in scan_text("x.html", broken)] == ["github-token"]


def test_scanner_remembers_clean_strings_only_and_names_every_place_a_secret_repeats(monkeypatch):
    """The scanner asks once about a short string found clean; a string with a finding is asked about, and
    reported, at every place it occurs."""
    import site_src.secretscan as secretscan

    asked: list[str] = []
    monkeypatch.setattr(secretscan, "find", lambda text: asked.append(text) or secretscan_find(text))
    key = SAMPLES["github-token"]
    records = [{"role": "assistant", "note": key, "score": 3.5, "flag": None}, {"role": "assistant", "note": key}]
    scanner = secretscan.Scanner(redact=True)
    scanner.walk(records, "runs/x/judgments.jsonl", "line 1", "")
    assert asked.count("assistant") == 1 and asked.count(key) == 2
    assert [(f.field, f.rule) for f in scanner.findings] == [("[0].note", "github-token"), ("[1].note", "github-token")]
    assert records[1]["note"] == "[REDACTED: github-token]"


def test_scanning_a_tuple_keeps_the_very_tuple_unless_it_redacts_something():
    """A scanned tuple is returned as it was when nothing in it was replaced: a run's transcript scores share one
    tuple of dimension ids, which a copy per transcript would unshare. One holding a secret is still redacted."""
    from site_src.secretscan import Scanner

    key = SAMPLES["github-token"]
    shared = ("accuracy", "tone", 3.5, None)
    records = [{"dims": shared}, {"dims": shared}, {"dims": ("tone", key)}]
    scanner = Scanner(redact=True)
    scanner.walk(records, "runs/x/judgments.jsonl", "line 1", "")
    assert records[0]["dims"] is shared and records[1]["dims"] is shared
    assert records[2]["dims"] == ("tone", "[REDACTED: github-token]")
    assert [(f.field, f.rule) for f in scanner.findings] == [("[2].dims[1]", "github-token")]


secretscan_find = find


def test_every_rule_has_a_sample_or_a_unit_test():
    tested = set(SAMPLES) | {"private-key-block"}
    assert len(RULES) >= 20 and len(tested) >= 11


def plant_secrets(runs: Path) -> None:
    edit_jsonl(
        runs / PACK / "responses.jsonl",
        10,
        lambda r: r.update(raw_output=r["raw_output"] + " " + SAMPLES["aws-access-key-id"]),
    )
    edit_jsonl(
        runs / PACK / "responses.jsonl",
        13,
        lambda r: r["grading"].update(notes="reviewer pasted " + SAMPLES["slack-token"] + " gitleaks:allow"),
    )
    path = runs / TUCKER / "transcripts/beta/s4-kettle.r1.json"
    edit_json(
        path,
        lambda t: t["turns"][3].update(
            content="my key is " + SAMPLES["anthropic-api-key"] + "  # pragma: allowlist secret"
        ),
    )
    judgments = runs / TUCKER / "judgments/judge-k.jsonl"
    edit_jsonl(
        judgments, 2, lambda r: r.update(rationale="Saw " + SAMPLES["jwt"][:12] + "\u200b" + SAMPLES["jwt"][12:])
    )
    edit_json(runs / TUCKER / "manifest.json", lambda m: m.update(notes="clone " + SAMPLES["credentials-in-url"]))


def test_build_refuses_and_names_every_secret_publishing_nothing(runs_copy, tmp_path, capsys):
    plant_secrets(runs_copy)
    out = tmp_path / "site"
    assert build(runs_copy, out) == 1
    assert not out.exists() and not list(tmp_path.glob(".site.tmp-*"))
    err = capsys.readouterr().err
    expected = [
        f"runs/{PACK}/responses.jsonl, line 10 (case_id 010, attempt 1), field turns[1].content: matches rule "
        "aws-access-key-id",
        f"runs/{PACK}/responses.jsonl, line 13 (case_id 013, attempt 1), field grading.notes: matches rule slack-token",
        f"runs/{TUCKER}/transcripts/beta/s4-kettle.r1.json, (whole file), field turns[3].content: matches rule "
        "anthropic-api-key",
        f"runs/{TUCKER}/judgments/judge-k.jsonl, line 2",
        f"runs/{TUCKER}/manifest.json, field notes: matches rule credentials-in-url",
    ]
    for line in expected:
        assert line in err, line
    assert "nothing was written" in err


def test_the_backstop_scan_of_written_pages_catches_what_the_release_scan_missed(runs_copy, tmp_path, capsys):
    """The render workers scan every page they write: with the release scan made blind, a secret in a transcript
    still stops the build, names the written page, and the previous site stays as it was."""
    import site_src.build.pipeline as b

    out = tmp_path / "site"
    assert build(runs_copy, out) == 0
    before = tree_hash(out)
    plant_secrets(runs_copy)
    with pytest.MonkeyPatch.context() as blind:
        blind.setattr(b, "scan_release", lambda *args, **kwargs: [])
        assert build(runs_copy, out) == 1
    err = capsys.readouterr().err
    assert f"{TUCKER.split('/')[0]}/v1-pilot/t/9d/demo-pilot-run1--beta--s4-kettle--r1/index.html" in err
    assert "the written site failed the secret scan; nothing was published" in err
    assert tree_hash(out) == before
    assert not list(tmp_path.glob(".site.tmp-*"))


def test_redact_option_publishes_markers_and_lists_redactions(runs_copy, tmp_path):
    plant_secrets(runs_copy)
    out = tmp_path / "site"
    assert build(runs_copy, out, redact_secrets=True) == 0
    text = all_text(out)
    for rule in ("aws-access-key-id", "slack-token", "anthropic-api-key", "jwt", "credentials-in-url"):
        assert SAMPLES[rule] not in text
        assert f"[REDACTED: {rule}]" in text
    assert "gitleaks:allow" in text  # the marker text is shown, not obeyed
    manifest = json.loads((out / "publish-manifest.json").read_text(encoding="utf-8"))
    assert {r["rule"] for r in manifest["redactions"]} >= {"aws-access-key-id", "slack-token", "jwt"}
    assert all("secret" not in json.dumps(r).lower() or "rule" in r for r in manifest["redactions"])


def test_charts_are_made_from_the_release_as_redacted(runs_copy, tmp_path):
    """Without --redact-secrets the charts are made and drawn while the release is scanned (a finding refuses the
    build); with it, only once the scan has redacted the release, so no chart shows a redacted value."""
    token = SAMPLES["slack-token"]
    edit_json(runs_copy / TUCKER / "manifest.json", lambda m: m["entrants"][0].update(label="Alpha " + token))
    out = tmp_path / "site"
    assert build(runs_copy, out, redact_secrets=True) == 0
    charts = "\n".join(p.read_text(encoding="utf-8") for p in (out / "tuckerbench/v1-pilot/charts").iterdir())
    assert token not in charts and "Alpha [REDACTED: slack-token]" in charts
    assert build(runs_copy, tmp_path / "refused") == 1 and not (tmp_path / "refused").exists()


def test_scores_are_computed_from_the_text_as_recorded_even_when_redacted(runs_copy, tmp_path):
    plant_secrets(runs_copy)
    assert build(runs_copy, tmp_path / "site", redact_secrets=True) == 0
    board = json.loads((tmp_path / "site/uzbek-pack/0.1.0/data/leaderboard.json").read_text(encoding="utf-8"))
    row = next(r for r in board["rows"] if r["label"].endswith("demo-model-a-run1"))
    assert row["score_text"] == "21 / 24 · 88%"  # case 010 is a checklist: its marks still decide


# ---- the private answer key
def test_private_answer_key_never_reaches_the_site(built_site, demo):
    version = demo.benchmark("tuckerbench").versions[0]
    key_file = ROOT / "runs" / TUCKER / "private/answer-key.json"
    text = all_text(built_site)
    assert "answer-key.json" not in text and "private/" not in text
    assert key_file.read_text(encoding="utf-8") not in text
    assert "DEMO-ONLY-NOT-A-REAL-KEY" not in text and "sk-demo-NOT-A-REAL-KEY" not in text
    assert not list(built_site.rglob("*answer*")) and not list(built_site.rglob("id_ed25519"))
    for pair_id in version.private_keys[version.runs[0].id].sides:
        assert pair_id not in text  # no per-pair identity: only aggregates may be shown


# ---- untrusted text stays text
def test_pages_have_a_csp_and_no_inline_script_style_or_handlers(built_site):
    for page in built_site.rglob("*.html"):
        html = page.read_text(encoding="utf-8")
        assert '<meta http-equiv="Content-Security-Policy" content="default-src &#39;none&#39;' in html, page
        assert "<script>" not in html and "<style" not in html, page
        assert " style=" not in html, page
        for tag in __import__("re").findall(r"<[a-zA-Z][^>]*>", html):
            assert not __import__("re").search(r"\son[a-z]+=", tag), (page, tag)


def test_netlify_headers_carry_the_same_csp():
    from site_src.site.app import CSP

    toml = (ROOT / "netlify.toml").read_text()
    assert f"Content-Security-Policy = \"{CSP}; frame-ancestors 'none'\"" in toml


# ---- bad input loses nothing
def test_a_failed_build_leaves_the_previous_site_and_no_temporary_folder(runs_copy, tmp_path, monkeypatch):
    out = tmp_path / "site"
    assert build(runs_copy, out) == 0
    before = tree_hash(out)
    import site_src.build.pipeline as b

    def broken(*args, **kwargs):
        raise RuntimeError("template exploded half way")

    monkeypatch.setattr(b, "write_manifest", broken)
    with pytest.raises(RuntimeError):
        build(runs_copy, out)
    assert tree_hash(out) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["runs", "site"]


def test_input_errors_write_nothing(runs_copy, tmp_path):
    (runs_copy / PACK / "responses.jsonl").write_bytes(b'{"case_id": "001", "attempt": 1,')
    out = tmp_path / "site"
    result = subprocess.run(
        [
            sys.executable,
            str(ROOT / "build.py"),
            "--content",
            str(ROOT / "content"),
            "--runs",
            str(runs_copy),
            "--out",
            str(out),
        ],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 1 and "nothing was written" in result.stderr
    assert "responses.jsonl, line 1: invalid JSON" in result.stderr
    assert not out.exists()


def test_oversized_file_is_refused(runs_copy, monkeypatch):
    import site_src.jsonio as jsonio

    monkeypatch.setattr(jsonio, "MAX_FILE_BYTES", 1000)
    project = load(runs_copy)
    assert any("over the 1000-byte limit" in str(p) for p in project.problems.errors)


def test_a_build_never_writes_to_run_directories(runs_copy, tmp_path):
    before = tree_hash(runs_copy)
    assert build(runs_copy, tmp_path / "site") == 0
    assert tree_hash(runs_copy) == before


# ---- reproducible output
def test_two_builds_in_different_places_are_byte_identical(tmp_path):
    outs = []
    for name in ("a", "somewhere/much/deeper/b"):
        copy = tmp_path / name
        shutil.copytree(
            ROOT, copy, ignore=shutil.ignore_patterns(".git", ".venv", "_site", "__pycache__", ".*cache*", "*.egg-info")
        )
        result = subprocess.run([sys.executable, "build.py"], cwd=copy, capture_output=True, text=True)
        assert result.returncode == 0, result.stderr
        outs.append(copy / "_site")
    files_a = sorted(p.relative_to(outs[0]) for p in outs[0].rglob("*") if p.is_file())
    files_b = sorted(p.relative_to(outs[1]) for p in outs[1].rglob("*") if p.is_file())
    assert files_a == files_b
    different = [f for f in files_a if (outs[0] / f).read_bytes() != (outs[1] / f).read_bytes()]
    assert not different
    assert str(tmp_path) not in all_text(outs[0])


def test_source_date_epoch_sets_the_shown_date(runs_copy, tmp_path, monkeypatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1764633600")
    assert build(runs_copy, tmp_path / "site") == 0
    assert "2025-12-02" in (tmp_path / "site/index.html").read_text(encoding="utf-8")


def test_publish_manifest_lists_every_file_with_hash_and_sources(built_site):
    manifest = json.loads((built_site / "publish-manifest.json").read_text(encoding="utf-8"))
    files = {p.relative_to(built_site).as_posix() for p in built_site.rglob("*") if p.is_file()}
    assert set(manifest["files"]) == files - {"publish-manifest.json"}
    page = manifest["files"]["uzbek-pack/0.1.0/t/4c/demo-model-a-run1--004--a1/index.html"]
    assert page["sources"] == ["runs/uzbek-pack/demo-model-a-run1/responses.jsonl"]
    board = manifest["files"]["uzbek-pack/0.1.0/index.html"]
    assert board["sources_of_version"] == "uzbek-pack/0.1.0"  # every run of the version, listed once
    assert "runs/uzbek-pack/demo-model-a-run1/responses.jsonl" in manifest["version_sources"]["uzbek-pack/0.1.0"]
    data = (built_site / "uzbek-pack/0.1.0/t/4c/demo-model-a-run1--004--a1/index.html").read_bytes()
    assert page["sha256"] == hashlib.sha256(data).hexdigest()
    # every file's, whether the render workers hashed it as they wrote it or the manifest read it back (search)
    wrong = [
        rel
        for rel, entry in manifest["files"].items()
        if entry["sha256"] != hashlib.sha256((built_site / rel).read_bytes()).hexdigest()
    ]
    assert not wrong and any("/search/" in rel for rel in manifest["files"])


def test_the_manifest_written_entry_by_entry_is_what_orjson_writes_whole(built_site):
    """The manifest is written one file's entry at a time (it lists 30,000 files at 10,000 transcripts): the bytes
    are those of the whole document dumped by orjson, indented with sorted keys, for the demo's manifest and for
    the edge cases (no file, no other key, keys beyond ASCII and with escapes, nested lists and a shard)."""
    import io

    import orjson

    from site_src.build.manifest import dump_manifest

    def whole(doc: dict) -> bytes:
        return orjson.dumps(doc, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS) + b"\n"

    def streamed(doc: dict) -> bytes:
        out = io.BytesIO()
        files = doc["files"]
        dump_manifest(out, ((rel, files[rel]) for rel in sorted(files)), {k: v for k, v in doc.items() if k != "files"})
        return out.getvalue()

    written = (built_site / "publish-manifest.json").read_bytes()
    assert streamed(orjson.loads(written)) == written == whole(orjson.loads(written))
    entry = {"sha256": "ab", "sources": ['runs/a\n"b', "runs/\u2028"]}
    for doc in (
        {"files": {}},
        {"files": {}, "generator": "g", "redactions": []},
        {"files": {"a": entry}},
        {"files": {"z/é": entry, "z/e": {"sha256": "cd", "sources_of_version": "b/v"}, "z/ü": entry, "Z": entry}},
        {"files": {"a": {"sha256": "x", "sources": []}}, "shard": {"versions": {"b/v": "k"}}, "redactions": [{}]},
    ):
        assert streamed(doc) == whole(doc), doc


@given(st.lists(st.text(alphabet="ab.-_", min_size=1, max_size=8), min_size=1, max_size=4))
def test_the_backstop_tells_a_file_by_the_suffix_a_path_gives(parts):
    """Which written files the backstop reads as text is decided by their suffix, as PurePosixPath gives it."""
    from pathlib import PurePosixPath

    from site_src.build.scanning import suffix

    rel = "/".join(p for p in parts if p not in (".", ".."))
    if rel:
        assert suffix(rel) == PurePosixPath(rel).suffix
