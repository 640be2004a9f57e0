"""Nothing lost, nothing silently dropped or double-counted, and no traceback for bad input or bad options.

Each test here reproduces a case found by using the tool as a new user would, or with hostile input.
"""

from __future__ import annotations

import csv
import io
import json
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import ROOT, copy_project, edit_json, load, messages, tree_hash
from hypothesis import given, settings
from hypothesis import strategies as st

from site_src.cli import parse


def run_cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(ROOT / "build.py"), *args], cwd=cwd, capture_output=True, text=True, timeout=300
    )


@pytest.fixture
def project_copy(tmp_path: Path) -> Path:
    """A checkout-like copy, docs included (a folder --out must not replace)."""
    return copy_project(tmp_path / "project", ("site_src", "templates", "content", "runs", "docs"))


# --- data loss: the output folder ---------------------------------------------------------------------------------


@pytest.mark.parametrize("out", ["runs", "runs/uzbek-pack", "content", "docs", ".", "..", "runs/site"])
def test_out_that_is_an_input_or_holds_other_files_is_refused_and_nothing_is_touched(project_copy, out):
    before = tree_hash(project_copy.parent)
    result = run_cli("--out", out, "--no-search", cwd=project_copy)
    assert result.returncode == 1, result.stdout
    assert "error: output folder" in result.stderr
    assert "Traceback" not in result.stderr
    assert tree_hash(project_copy.parent) == before


def test_out_folder_with_foreign_files_is_refused(tmp_path):
    out = tmp_path / "mine"
    out.mkdir()
    (out / "thesis.tex").write_text("years of work")
    result = run_cli("--out", str(out), "--no-search", cwd=ROOT)
    assert result.returncode == 1
    assert "is not empty and was not written by a build" in result.stderr
    assert (out / "thesis.tex").read_text() == "years of work"


def test_out_is_rebuilt_when_ours_but_not_when_a_file_was_added(tmp_path):
    out = tmp_path / "_site"
    assert run_cli("--out", str(out), "--no-search", cwd=ROOT).returncode == 0
    assert (out / "publish-manifest.json").is_file()
    assert run_cli("--out", str(out), "--no-search", cwd=ROOT).returncode == 0  # our own folder: replaced
    (out / "notes.md").write_text("added by hand")
    result = run_cli("--out", str(out), "--no-search", cwd=ROOT)
    assert result.returncode == 1
    assert "does not list, which a rebuild would delete: notes.md" in result.stderr
    assert (out / "notes.md").read_text() == "added by hand"


def test_out_that_is_a_file_is_refused(tmp_path):
    target = tmp_path / "file"
    target.write_text("keep")
    result = run_cli("--out", str(target), "--no-search", cwd=ROOT)
    assert result.returncode == 1 and "is not a folder" in result.stderr
    assert target.read_text() == "keep"


def test_review_kit_out_is_guarded_like_the_site(tmp_path):
    out = tmp_path / "docs"
    out.mkdir()
    (out / "keep.md").write_text("keep")
    result = run_cli("review-kit", "--out", str(out), "--site", str(tmp_path / "_site"), cwd=ROOT)
    assert result.returncode == 1 and "was not written by a build" in result.stderr
    assert (out / "keep.md").read_text() == "keep"
    kit = tmp_path / "_review"
    assert run_cli("review-kit", "--out", str(kit), "--site", str(tmp_path / "_site"), cwd=ROOT).returncode == 0
    assert run_cli("review-kit", "--out", str(kit), "--site", str(tmp_path / "_site"), cwd=ROOT).returncode == 0


# --- options ------------------------------------------------------------------------------------------------------


def test_options_work_before_or_after_the_command():
    for argv in (["--strict", "check"], ["check", "--strict"]):
        args = parse(argv)
        assert args.command == "check" and args.strict is True
    assert parse(["--out", "x"]).out == "x"
    assert parse(["build", "--out", "x", "--base-path", "/repo/"]).base_path == "/repo/"
    assert parse(["--out", "x", "build"]).out == "x"
    assert parse(["review-kit"]).out == "_review" and parse([]).out == "_site"


def test_check_strict_after_the_command_fails_on_warnings(runs_copy):
    (runs_copy / "uzbek-pack/demo-model-a-run1/responses.jsonl").write_bytes(
        b"\xef\xbb\xbf" + (runs_copy / "uzbek-pack/demo-model-a-run1/responses.jsonl").read_bytes()
    )
    result = run_cli("check", str(runs_copy), "--strict", cwd=ROOT)
    assert result.returncode == 1 and "(--strict)" in result.stderr


def test_an_option_that_does_not_apply_to_the_command_is_an_error(capsys):
    with pytest.raises(SystemExit) as exc:
        parse(["check", "--out", "x"])
    assert exc.value.code == 2
    assert "unrecognized arguments: --out" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        parse(["--out", "x", "check"])
    assert "--out does not apply to the check command" in capsys.readouterr().err


@pytest.mark.parametrize("bad", ["repo", "/repo", "repo/", "//", "/a//b/", "/../", "/a b/", "/a?b/"])
def test_base_path_is_validated(bad, capsys):
    with pytest.raises(SystemExit):
        parse(["--base-path", bad])
    assert "--base-path" in capsys.readouterr().err


def test_missing_content_folder_is_named_not_a_traceback(tmp_path):
    result = run_cli("check", "--content", str(tmp_path / "nosuch"), cwd=ROOT)
    assert result.returncode == 1
    assert "nosuch: content folder does not exist" in result.stderr and "Traceback" not in result.stderr


def test_serve_on_a_busy_port_says_so_before_printing_a_url():
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        result = run_cli("serve", "--port", str(port), cwd=ROOT)
    assert result.returncode == 1
    assert f"cannot serve on 127.0.0.1:{port}" in result.stderr
    assert "http://" not in result.stdout


# --- silently dropped or double-counted records -------------------------------------------------------------------


def test_run_folder_without_its_metadata_file_is_an_error_naming_folder_and_file(runs_copy):
    (runs_copy / "uzbek-pack/demo-model-b-run1/metadata.json").unlink()
    (runs_copy / "tuckerbench/demo-pilot-run1/manifest.json").unlink()
    errors = messages(load(runs_copy))
    assert any(
        "runs/uzbek-pack/demo-model-b-run1: looks like a run directory (responses.jsonl) but has no metadata.json" in m
        for m in errors
    ), errors
    assert any(
        "runs/tuckerbench/demo-pilot-run1: looks like a run directory" in m and "manifest.json" in m for m in errors
    )
    result = run_cli("check", "--strict", str(runs_copy), cwd=ROOT)
    assert result.returncode == 1 and "has no metadata.json" in result.stderr


def test_stray_files_in_a_folder_of_runs_are_an_error_but_a_readme_is_not(runs_copy):
    (runs_copy / "README.md").write_text("About these runs.")
    assert not messages(load(runs_copy))
    (runs_copy / "uzbek-pack" / "results.json").write_text("{}")
    assert any(
        "runs/uzbek-pack: holds a file but no run metadata file" in m and "results.json" in m
        for m in messages(load(runs_copy))
    )


def _append_line(path: Path, line: str) -> None:
    path.write_text(path.read_text(encoding="utf-8").rstrip("\n") + "\n" + line + "\n", encoding="utf-8")


def test_duplicate_blind_human_pair_is_an_error_naming_both_lines(runs_copy):
    path = runs_copy / "tuckerbench/demo-pilot-run1/human-pairs.jsonl"
    first = path.read_text(encoding="utf-8").split("\n")[0]
    _append_line(path, first)
    errors = messages(load(runs_copy))
    assert any(
        "human-pairs.jsonl, line 13, field pair_id: pair pair-01 is recorded twice (first on line 1)" in m
        for m in errors
    ), errors


def test_conflicting_blind_human_pair_is_an_error_and_counts_once(runs_copy):
    path = runs_copy / "tuckerbench/demo-pilot-run1/human-pairs.jsonl"
    record = json.loads(path.read_text(encoding="utf-8").split("\n")[0])
    record["choice"] = "B" if record["choice"] != "B" else "A"
    _append_line(path, json.dumps(record))
    project = load(runs_copy)
    assert any("pair pair-01 is recorded twice (first on line 1)" in m for m in messages(project))
    run = project.benchmark("tuckerbench").versions[0].runs[0]
    assert [p.pair_id for p in run.human_pairs].count("pair-01") == 1


def test_duplicate_calibration_line_is_an_error(runs_copy):
    path = runs_copy / "tuckerbench/demo-pilot-run1/calibration.jsonl"
    _append_line(path, path.read_text(encoding="utf-8").split("\n")[1])
    project = load(runs_copy)
    assert any(
        "calibration.jsonl, line 9: duplicate calibration judgment of d2-repetitive-profanity by judge-k "
        "(first on line 2)" in m
        for m in messages(project)
    ), messages(project)
    run = project.benchmark("tuckerbench").versions[0].runs[0]
    keys = [(c.judge_id, c.target_id) for c in run.calibration]
    assert len(keys) == len(set(keys))


def test_seed001_markdown_grading_naming_a_category_twice_is_an_error_like_a_duplicate_json_key(runs_copy):
    path = runs_copy / "halees-dual-layer/demo-system-x/tasks/T3/iteration-1.grading.md"
    path.write_text(path.read_text(encoding="utf-8").replace("- accuracy: 60\n", "- accuracy: 60\n- accuracy: 95\n"))
    errors = messages(load(runs_copy))
    assert any(
        "iteration-1.grading.md, line 4, field accuracy: accuracy is given twice (first on line 3)" in m for m in errors
    ), errors


def _two_attempt_pack_run(runs_copy: Path) -> None:
    """demo-model-b-run1 recorded with two attempts per case (the second a copy of the first)."""
    run = runs_copy / "uzbek-pack/demo-model-b-run1"
    edit_json(run / "metadata.json", lambda m: m.update(attempts_per_case=2))
    lines = [json.loads(x) for x in (run / "responses.jsonl").read_text(encoding="utf-8").split("\n") if x.strip()]
    seconds = [dict(r, attempt=2) for r in lines]
    (run / "responses.jsonl").write_text(
        "\n".join(json.dumps(r, ensure_ascii=False) for r in lines + seconds) + "\n", encoding="utf-8"
    )


def test_seed000_each_attempt_is_its_own_row_and_the_outcome_chart_counts_each_case_once(runs_copy):
    from site_src.scoring.release import build_release
    from site_src.site.charts import charts_for

    _two_attempt_pack_run(runs_copy)
    project = load(runs_copy)
    assert not project.problems.errors, project.problems.errors
    view = build_release(project).view("uzbek-pack", "0.1.0")
    rows = {r.key: r for r in view.rows if r.run_ids == ["demo-model-b-run1"]}
    assert sorted((r.attempt, r.coverage.expected) for r in rows.values()) == [(1, 24), (2, 24)]
    outcomes = next(c for c in charts_for(view) if c.name == "distribution")
    per_row: dict[str, int] = {}
    for point in outcomes.rows:
        per_row[point["run"]] = per_row.get(point["run"], 0) + point["cases"]
    assert per_row and all(total == 24 for total in per_row.values()), per_row


def test_seed004_an_empty_completion_at_the_token_limit_is_flagged_truncated(runs_copy):
    from site_src.scoring.diagnostics import diagnose

    path = runs_copy / "tuckerbench/demo-pilot-run1/transcripts/beta/s2-meeting-invite.r1.json"
    record = json.loads(path.read_text(encoding="utf-8"))
    turn = next(t for t in record["turns"] if t["role"] == "assistant" and t["content"] == "")
    turn["stop_reason"] = "length"
    path.write_text(json.dumps(record, ensure_ascii=False), encoding="utf-8")
    run = load(runs_copy).benchmark("tuckerbench").versions[0].runs[0]
    t = next(t for t in run.transcripts if t.id.endswith("beta--s2-meeting-invite--r1"))
    empty = [x for x in t.turns if x.role == "assistant" and x.content == ""]
    assert t.truncated and empty[0].truncated and empty[0].state == "empty"
    assert diagnose([t], [], [], []).truncated == 1


def test_statistics_note_and_charts_take_sizes_from_the_definition(demo):
    import copy
    import dataclasses

    from site_src.scoring.statistics import add_statistics
    from site_src.systems.uzbek_pack.scoring import score as score_pack

    bench = demo.benchmark("uzbek-pack")
    version = copy.deepcopy(next(v for v in bench.versions if v.id == "0.1.0"))
    first = version.items[0].category  # drop one whole category: 21 cases in 7 categories of 3
    dropped = {i.id for i in version.items if i.category == first}
    version.items = [i for i in version.items if i.id not in dropped]
    version.definition = dataclasses.replace(
        version.definition,
        case_count=len(version.items),
        categories=[c for c in version.definition.categories if c[0] != first],
    )
    for run in version.runs:
        run.transcripts = [t for t in run.transcripts if t.item_id not in dropped]
    stats = add_statistics(bench, version, score_pack(version))
    assert f"{len(version.items)} cases" in stats.note and "24 cases" not in stats.note
    assert f"{version.definition.cases_per_category} cases per category" in stats.note


def test_seed004_scale_maximum_comes_from_the_definition(demo):
    import copy
    import dataclasses

    from site_src.systems.tuckerbench.scoring import score as score_tucker

    version = copy.deepcopy(demo.benchmark("tuckerbench").versions[0])
    ten = score_tucker(version)
    version.definition = dataclasses.replace(version.definition, scale_max=5.0)
    five = score_tucker(version)
    for a, b in zip(ten.leaderboard.rows, five.leaderboard.rows, strict=True):
        if a.score is not None:
            assert b.score == pytest.approx(2 * a.score)
    assert any("0–5 scale" in note for note in five.leaderboard.notes)


# --- crashes become errors ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("open_, close", [("[", "]"), ('{"a":', "}")])
def test_json_nested_64_levels_is_read_and_65_is_refused(open_, close, monkeypatch):
    """The depth is checked by walking the value only when the text opens more than 64 brackets (each level opens
    one); brackets inside strings count too, so the walk still decides for a shallow record full of them."""
    from site_src import jsonio

    for depth in (64, 65):
        text = open_ * depth + "1" + close * depth
        if depth == 64:
            assert jsonio.loads_strict(text) is not None
        else:
            with pytest.raises(jsonio.StrictJSONError, match="nested more than 64 levels deep"):
                jsonio.loads_strict(text)
    walked: list[int] = []
    real = jsonio.too_deep
    monkeypatch.setattr(jsonio, "too_deep", lambda value: walked.append(1) or real(value))
    assert jsonio.loads_strict('{"turns": [{"content": "x"}]}') and walked == []
    assert jsonio.loads_strict(json.dumps({"text": "[" * 100})) == {"text": "[" * 100} and walked == [1]


def test_ten_thousand_deep_json_is_an_error_not_a_traceback(runs_copy):
    path = runs_copy / "uzbek-pack/demo-model-a-run1/metadata.json"
    path.write_text("[" * 10000 + "]" * 10000)
    result = run_cli("check", str(runs_copy), "--content", str(ROOT / "content"), cwd=ROOT)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert "runs/uzbek-pack/demo-model-a-run1/metadata.json: nested more than 64 levels deep" in result.stderr


@pytest.mark.parametrize("bad_id", ["demo--a2", "x--ab", "demo\n", "-demo", "de mo", "démo"])
def test_ids_follow_one_documented_pattern(runs_copy, bad_id):
    edit_json(runs_copy / "uzbek-pack/demo-model-a-run1/metadata.json", lambda m: m.update(run_id=bad_id))
    result = run_cli("check", str(runs_copy), cwd=ROOT)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert "metadata.json, field run_id: " in result.stderr and "does not match" in result.stderr


def test_an_id_may_hold_single_hyphens_and_dots(runs_copy, tmp_path):
    edit_json(runs_copy / "uzbek-pack/demo-model-a-run1/metadata.json", lambda m: m.update(run_id="a-1.b_2-a3"))
    project = load(runs_copy)
    assert not project.problems.errors, messages(project)
    from site_src.build import build_site

    assert build_site(project, tmp_path / "_site", search=False) == 0
    assert (tmp_path / "_site/uzbek-pack/0.1.0/t/a0/a-1.b_2-a3--001--a1/index.html").is_file()


def test_ids_that_differ_only_in_case_are_refused_both(runs_copy):
    edit_json(runs_copy / "uzbek-pack/demo-model-b-run1/metadata.json", lambda m: m.update(run_id="Demo-Model-A-Run1"))
    project = load(runs_copy)
    errors = messages(project)
    assert sum("differ only in case; their pages would collide" in m for m in errors) == 2, errors
    kept = {r.id for r in project.benchmark("uzbek-pack").versions[0].runs}
    assert not kept & {"demo-model-a-run1", "Demo-Model-A-Run1"}


def test_redact_secrets_with_a_token_in_an_identifier_refuses_cleanly_and_prints_no_value(runs_copy, tmp_path):
    token = "ghp_" + "a1B2" * 9
    edit_json(runs_copy / "tuckerbench/demo-pilot-run1/manifest.json", lambda m: m.update(run_id=token))
    result = run_cli(
        "--runs", str(runs_copy), "--out", str(tmp_path / "_site"), "--redact-secrets", "--no-search", cwd=ROOT
    )
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert "it cannot be redacted (an identifier, file name or key): rename it" in result.stderr
    assert token not in result.stderr + result.stdout
    assert not (tmp_path / "_site").exists()


def test_redact_secrets_with_a_token_in_a_manifest_text_field_publishes_the_marker(runs_copy, tmp_path):
    token = "ghp_" + "a1B2" * 9

    def change(m: dict) -> None:
        m["entrants"][0]["label"] = f"Alpha {token}"

    edit_json(runs_copy / "tuckerbench/demo-pilot-run1/manifest.json", change)
    out = tmp_path / "_site"
    result = run_cli("--runs", str(runs_copy), "--out", str(out), "--redact-secrets", "--no-search", cwd=ROOT)
    assert result.returncode == 0, result.stderr
    assert token not in result.stdout + result.stderr
    texts = [p.read_text(encoding="utf-8") for p in out.rglob("*") if p.suffix in (".html", ".json", ".csv")]
    assert not any(token in t for t in texts)
    assert any("[REDACTED: github-token]" in t for t in texts)


# --- downloads ----------------------------------------------------------------------------------------------------


def test_leaderboard_csv_holds_plain_numbers_with_counts_and_intervals(built_site):
    rows = list(csv.DictReader((built_site / "tuckerbench/v1-pilot/data/leaderboard.csv").open(encoding="utf-8")))
    assert rows
    for row in rows:
        for key, value in row.items():
            if key.endswith((" n", " of", " low", " high")) or key in ("score", "score_low", "score_high", "rank"):
                assert value == "" or float(value) == float(value), (key, value)
            assert "(n =" not in value
    complete = [r for r in rows if r["complete"] == "True"]
    assert complete and all(r["score_low"] and float(r["score_low"]) <= float(r["score"]) for r in complete)
    assert all(r["fidelity n"].isdigit() for r in complete)
    pack = list(csv.DictReader((built_site / "uzbek-pack/0.1.0/data/leaderboard.csv").open(encoding="utf-8")))
    assert {r["score_count"] for r in pack if r["complete"] == "True"} <= {str(n) for n in range(25)}


@pytest.mark.parametrize("text", ['=HYPERLINK("http://x")', "+1+1", "-2+3", "@SUM(A1)", "\tx", "\rx"])
def test_csv_cells_that_a_spreadsheet_would_run_are_neutralised(text):
    from site_src.site.downloads import write_csv

    rows = list(csv.reader(io.StringIO(write_csv(["label"], [[text]]), newline="")))
    assert rows[1][0] == "'" + text


def test_csv_numbers_keep_their_sign():
    from site_src.site.downloads import write_csv

    assert write_csv(["a", "b", "c"], [[-1.5, "-2", "+3e2"]]).splitlines()[1] == "-1.5,-2,+3e2"


def test_the_demo_run_generator_never_replaces_a_folder_it_was_pointed_at(tmp_path):
    keep = tmp_path / "docs"
    keep.mkdir()
    (keep / "thesis.md").write_text("keep")
    script = ROOT / "scripts/make_demo_runs.py"
    result = subprocess.run([sys.executable, str(script), str(keep)], capture_output=True, text=True, timeout=120)
    assert result.returncode == 1 and "is not an empty folder; nothing was written" in result.stderr
    assert (keep / "thesis.md").read_text() == "keep"
    helped = subprocess.run(
        [sys.executable, str(script), "--help"], capture_output=True, text=True, timeout=60, cwd=tmp_path
    )
    assert helped.returncode == 0 and "usage:" in helped.stdout and not (tmp_path / "--help").exists()


# ---- downloads are written by orjson: what it writes must read back as what json would have written
_NUMBERS = st.integers(-(2**63), 2**63 - 1) | st.floats(allow_nan=False, allow_infinity=False)
_JSONISH = st.recursive(
    st.none() | st.booleans() | _NUMBERS | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(_JSONISH)
def test_downloads_read_back_as_json_would_have_written_them(value):
    from site_src.jsonio import dumps_canonical

    written = dumps_canonical(value)
    assert json.loads(written) == json.loads(json.dumps(value, ensure_ascii=False, sort_keys=True))
    assert written == dumps_canonical(json.loads(written))  # stable: written again, the same bytes


def test_a_download_orjson_refuses_is_written_by_json_in_the_same_layout():
    import numpy as np

    from site_src.jsonio import dumps_canonical

    big = {"b": [np.int64(3), 2**70], "a": "é"}
    assert dumps_canonical(big) == '{\n  "a": "é",\n  "b": [\n    3,\n    1180591620717411303424\n  ]\n}\n'
    small = {"b": [np.int64(3), 2], "a": "é"}  # orjson's own layout is the same
    assert json.loads(dumps_canonical([float("nan"), float("inf")])) == [None, None]  # JSON has no such numbers
    assert dumps_canonical(small) == dumps_canonical(big).replace("1180591620717411303424", "2")


@pytest.mark.parametrize("command", [["check"], []])
def test_a_missing_content_folder_is_one_error_not_one_per_run(tmp_path, command):
    out = [] if command else ["--out", str(tmp_path / "site")]
    result = run_cli(*command, "--content", str(tmp_path / "nope"), *out, cwd=ROOT)
    errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert result.returncode == 1 and len(errors) == 1, result.stderr
    assert "nope: content folder does not exist" in errors[0]
    assert not (tmp_path / "site").exists()
