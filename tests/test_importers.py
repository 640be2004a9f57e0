"""Importers: Inspect AI eval logs and AlpacaEval-style pairwise judgments, from public fixtures (tests/fixtures/).

Each test imports into a copy of the project with `build.py import`, then checks the recomputed figures against the
source's own stored or published ones, the pages, and that bad input writes nothing.
"""

from __future__ import annotations

import copy
import hashlib
import json
import math
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from helpers import ROOT, copy_project, fold, indexed_text, vega_lite_problems

FIX = ROOT / "tests/fixtures"
INSPECT_EVAL = FIX / "inspect_ai/log_formats.eval"
INSPECT_JSON = FIX / "inspect_ai/log_formats.json"
ALPACA = FIX / "alpaca_eval/text_davinci_001"  # its AlpacaEval 1.0 and 2.0 judges' folders, as AlpacaEval keeps them
AE1 = "alpaca_eval_gpt4"  # the AlpacaEval 1.0 judge
ALPACA_ROW = FIX / "alpaca_eval/alpaca_eval_gpt4_leaderboard.text_davinci_001.csv"
# the published row of text_davinci_001 in AlpacaEval's alpaca_eval_gpt4 leaderboard (the fixture CSV)
PUBLISHED = {
    "win_rate": 15.17412935323383,
    "standard_error": 1.235107892276849,
    "n_wins": 112,
    "n_wins_base": 672,
    "n_draws": 20,
    "n_total": 804,
    "discrete_win_rate": 15.17412935323383,
}


def build(project: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "build.py", *args], cwd=project, capture_output=True, text=True, timeout=600)


def tree(root: Path) -> dict[str, str]:
    return {
        p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return copy_project(tmp_path / "project")


def _load(project: Path, bench: str):
    from site_src.problems import Problems
    from site_src.readers.project import load_project
    from site_src.scoring.dispatch import score_version

    problems = Problems()
    loaded = load_project(project / "content", [project / "runs"], problems)
    assert not problems.failed(), [str(p) for p in problems.items]
    b = loaded.benchmark(bench)
    v = b.versions[0]
    return v, score_version(b, v)


# ---- Inspect AI ----


def test_inspect_value_to_float_maps_as_inspect_maps():
    from site_src.systems.inspect_log.scoring import metric, reduce, value_to_float

    assert [value_to_float(v) for v in ("C", "P", "I", "N", "yes", "FALSE", "0.25", 3, True)] == [
        1.0,
        0.5,
        0.0,
        0.0,
        1.0,
        0.0,
        0.25,
        3.0,
        1.0,
    ]
    assert value_to_float({"a": 1}) is None and value_to_float("maybe") is None
    assert reduce([1.0, 0.0, 1.0], "mean") == pytest.approx(2 / 3)
    assert reduce([1.0, 0.0, 0.0], "at_least_1") == 1.0 and reduce([0.0, 0.0], "at_least_1") == 0.0
    assert reduce([1.0, 0.0, 0.0], "pass_at_2") == pytest.approx(1 - (2 / 3) * (1 / 2))
    assert metric("stderr", [1.0]) == 0.0  # Inspect returns 0 with fewer than two values
    assert metric("stderr", [1.0, 0.0, 1.0, 1.0]) == pytest.approx(0.5 / 2)


@pytest.mark.parametrize("log", [INSPECT_EVAL, INSPECT_JSON], ids=["eval-zip", "json"])
def test_inspect_log_is_imported_read_in_place_and_recomputed(project, log):
    before = tree(FIX)
    done = build(project, "import", "inspect", str(log), "--benchmark", "popularity")
    assert done.returncode == 0, done.stdout + done.stderr
    assert tree(FIX) == before  # the source is only read
    run_dir = next((project / "runs/popularity").iterdir())
    assert (run_dir / log.name).read_bytes() == log.read_bytes()  # copied byte for byte, read in place
    version, scored = _load(project, "popularity")
    row = scored.leaderboard.rows[0]
    # the log's own results table: accuracy 0.0, stderr 0.0 over its one sample (match scored "I")
    assert row.complete and row.score == 0.0 and row.count == 1
    assert row.cells["match/accuracy"].value == 0.0 and row.cells["match/stderr"].value == 0.0
    assert scored.leaderboard.discrepancies == []
    assert [f.code for f in row.flags] == ["subset"]  # 1 of the dataset's 100 samples (limit 1)
    t = version.runs[0].transcripts[0]
    assert [turn.role for turn in t.turns] == ["system", "user", "assistant"] and t.turns[-1].content == "No"

    site = project / "_site"
    assert build(project, "--out", "_site", "--no-search", "-q").returncode == 0
    page = (site / f"popularity/v0/t/{fold(t.id)}/{t.id}/index.html").read_text(encoding="utf-8")
    assert "Sample" in page and "match" in page and 'incorrect <span class="sub">(I)</span>' in page
    assert "invented" not in (site / "popularity/v0/index.html").read_text(encoding="utf-8")  # real data
    assert "invented" not in (site / "popularity/v0/limitations/index.html").read_text(encoding="utf-8")
    assert "Some demo data" in (site / "index.html").read_text(encoding="utf-8")  # the demo runs are named there
    published = "\n".join(p.read_text(encoding="utf-8", errors="replace") for p in site.rglob("*") if p.is_file())
    # the sample's events (raw model calls) and the log file itself are never published
    assert "sample_init" not in published and "model_base_url" not in published and "localhost:11434" not in published
    assert not list(site.rglob(log.name))
    assert vega_lite_problems(site / "popularity") == []


def _inspect_json(project: Path, change) -> Path:
    log = json.loads(INSPECT_JSON.read_text(encoding="utf-8"))
    change(log)
    path = project / "changed.json"
    path.write_text(json.dumps(log), encoding="utf-8")
    return path


def test_inspect_stored_results_that_disagree_are_discrepancies(project):
    def lie(log):
        log["results"]["scores"][0]["metrics"]["accuracy"]["value"] = 0.9

    done = build(project, "import", "inspect", str(_inspect_json(project, lie)), "--benchmark", "popularity")
    assert done.returncode == 0, done.stdout
    _, scored = _load(project, "popularity")
    (d,) = scored.leaderboard.discrepancies
    assert (d.field, d.stored, d.recomputed) == ("accuracy", "0.9", "0.0")
    assert scored.leaderboard.rows[0].score == 0.0


def test_inspect_version_1_log_reads_as_version_2(project):
    def to_v1(log):
        log["version"] = 1
        scores = log["results"].pop("scores")
        log["results"]["scorer"] = {k: v for k, v in scores[0].items() if k != "metrics"}
        log["results"]["metrics"] = scores[0]["metrics"]
        for s in log["samples"]:
            s["score"] = s.pop("scores")["match"]

    done = build(project, "import", "inspect", str(_inspect_json(project, to_v1)), "--benchmark", "popularity")
    assert done.returncode == 0, done.stdout
    _, scored = _load(project, "popularity")
    assert scored.leaderboard.rows[0].cells["match/accuracy"].value == 0.0


def test_inspect_cancelled_log_is_incomplete_never_a_full_score(project):
    def cancel(log):
        log["status"] = "cancelled"

    assert build(project, "import", "inspect", str(_inspect_json(project, cancel)), "--benchmark", "p").returncode == 0
    _, scored = _load(project, "p")
    row = scored.leaderboard.rows[0]
    assert not row.complete and row.score is None and row.rank is None
    assert "cancelled" in next(f.detail for f in row.flags if f.code == "incomplete")


def test_inspect_reasoning_is_left_out_unless_opted_in(project):
    def think(log):
        log["samples"][0]["messages"][-1]["content"] = [
            {"type": "reasoning", "reasoning": "SECRET-CHAIN-OF-THOUGHT"},
            {"type": "text", "text": "No"},
        ]

    path = _inspect_json(project, think)
    assert build(project, "import", "inspect", str(path), "--benchmark", "a").returncode == 0
    v, _ = _load(project, "a")
    last = v.runs[0].transcripts[0].turns[-1]
    assert "SECRET-CHAIN-OF-THOUGHT" not in last.content and last.reasoning == []
    assert last.left_out == ["a reasoning block: this run does not publish reasoning (publish_reasoning)"]
    assert build(project, "import", "inspect", str(path), "--benchmark", "b", "--publish-reasoning").returncode == 0
    v, _ = _load(project, "b")
    assert v.runs[0].transcripts[0].turns[-1].reasoning == ["SECRET-CHAIN-OF-THOUGHT"]


@pytest.mark.parametrize(
    "name, data, message",
    [
        ("corrupt.eval", b"PK\x03\x04 not really a zip", "not a readable .eval zip archive"),
        ("v9.json", json.dumps({"version": 9, "eval": {}}).encode(), "unknown log format version 9"),
    ],
)
def test_inspect_bad_logs_are_refused_and_nothing_is_written(project, name, data, message):
    bad = project / name
    bad.write_bytes(data)
    before = tree(project / "runs"), tree(project / "content")
    done = build(project, "import", "inspect", str(bad), "--benchmark", "popularity")
    assert done.returncode == 1 and message in done.stdout and name in done.stdout
    assert "nothing was written" in done.stdout
    assert (tree(project / "runs"), tree(project / "content")) == before


def test_inspect_corrupt_member_in_eval_zip_is_refused(project):
    bad = project / "crc.eval"
    with zipfile.ZipFile(INSPECT_EVAL) as src, zipfile.ZipFile(bad, "w", zipfile.ZIP_STORED) as out:
        for info in src.infolist():
            out.writestr(info.filename, src.read(info.filename))
    raw = bytearray(bad.read_bytes())
    at = raw.find(b'"No"')  # flip bytes inside a stored member: its CRC no longer matches
    raw[at + 1 : at + 3] = b"Ye"
    bad.write_bytes(bytes(raw))
    done = build(project, "import", "inspect", str(bad), "--benchmark", "popularity")
    assert done.returncode == 1 and "corrupt" in done.stdout and not (project / "runs/popularity").exists()


# ---- AlpacaEval ----


def test_alpaca_eval_preference_encodings_as_alpaca_eval_reads_them():
    from site_src.systems.pairwise.scoring import discrete, head2head, outcome

    # 2 a win, 1 a loss, 1.5 and 0 draws; None, NaN-as-None, -1 and 3 failed judgments: out of every figure
    h = head2head([2.0, 1.0, 1.5, 0.0, None, -1.0, 3.0])
    assert (h["n_wins"], h["n_wins_base"], h["n_draws"], h["n_total"]) == (1, 1, 2, 4)
    assert h["win_rate"] == pytest.approx(50.0)
    assert [outcome(p)[0] for p in (2.0, 1.0, 1.5, 0.0, None, -1.0)] == [
        "win",
        "loss",
        "draw",
        "draw",
        "failed",
        "failed",
    ]
    assert [discrete(p) for p in (1.2, 1.7, 1.5, 2.0)] == [1.0, 2.0, 0.0, 2.0]


def test_alpaca_eval_reproduces_the_published_row(project):
    before = tree(FIX)
    done = build(
        project,
        "import",
        "alpaca-eval",
        str(ALPACA),
        "--annotator",
        AE1,
        "--benchmark",
        "alpaca-eval-1",
        "--leaderboard",
        str(ALPACA_ROW),
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert tree(FIX) == before
    version, scored = _load(project, "alpaca-eval-1")
    row, baseline = scored.leaderboard.rows
    for key, value in PUBLISHED.items():
        if isinstance(value, int):
            assert row.figures[key] == value, key
        else:
            assert math.isclose(row.figures[key], value, rel_tol=0, abs_tol=1e-9), key
    assert row.score == row.figures["win_rate"] and row.rank == 1
    # the failed judgment (instruction 794, preference null) is missing, not a loss
    assert row.coverage.judgments_missing == 1 and "failed_judgment" in [f.code for f in row.flags]
    # avg_length: computed from model_outputs.json as AlpacaEval computes it, 297; the published 296 is the mean
    # of the 805 judged outputs (model_outputs.json at that commit holds two of them otherwise): a choice of file,
    # said in the "outputs differ" flag, not a discrepancy
    assert row.figures["avg_length"] == 297
    assert scored.leaderboard.discrepancies == []
    outputs = next(f for f in row.flags if f.code == "outputs")
    assert "the source's avg_length 296 is the mean over the judged outputs in annotations.json" in outputs.detail
    assert row.cells["reported_length_controlled_winrate"].value == pytest.approx(20.57118821914347)
    assert baseline.label == "text_davinci_003" and baseline.rank is None and baseline.score is None

    site = project / "_site"
    assert build(project, "--out", "_site", "--no-search", "-q").returncode == 0
    board = (site / "alpaca-eval-1/v1/index.html").read_text(encoding="utf-8")
    assert "15.17 ± 1.24 over 804 of 805 instructions (112 wins, 672 losses, 20 draws)" in board
    assert board.count("reported by the source, not recomputed") == 1 and "not ranked: baseline" in board
    failed = (site / "alpaca-eval-1/v1/t/70/text-davinci-001--794/index.html").read_text(encoding="utf-8")
    assert "judgment failed: not counted" in failed and "x = 9" in failed and "x = 8" in failed
    assert not list(site.rglob("annotations.json")) and not list(site.rglob("model_outputs.json"))
    assert vega_lite_problems(site / "alpaca-eval-1") == []


def test_alpaca_eval_raw_completions_stay_private_unless_allowed(project, tmp_path):
    folder = tmp_path / "m"
    (folder / "judge").mkdir(parents=True)
    rows = json.loads((ALPACA / "alpaca_eval_gpt4/annotations.json").read_text(encoding="utf-8"))
    for r in rows:
        r["alpaca_eval_gpt4_raw_completion"] = "PRIVATE-RAW-COMPLETION"
    (folder / "judge/annotations.json").write_text(json.dumps(rows), encoding="utf-8")
    (folder / "model_outputs.json").write_bytes((ALPACA / "model_outputs.json").read_bytes())
    assert build(project, "import", "alpaca-eval", str(folder), "--benchmark", "a").returncode == 0
    assert build(project, "--out", "_site", "--no-search", "-q").returncode == 0
    text = "".join(p.read_text(encoding="utf-8") for p in (project / "_site/a").rglob("*.html"))
    assert "PRIVATE-RAW-COMPLETION" not in text
    assert (
        build(project, "import", "alpaca-eval", str(folder), "--benchmark", "b", "--publish-raw-completions").returncode
        == 0
    )
    v, _ = _load(project, "b")
    assert v.runs[0].judgments[0].rationale == "PRIVATE-RAW-COMPLETION"


def test_alpaca_eval_missing_baseline_is_refused_and_nothing_is_written(project, tmp_path):
    folder = tmp_path / "m"
    folder.mkdir()
    rows = json.loads((ALPACA / "alpaca_eval_gpt4/annotations.json").read_text(encoding="utf-8"))
    broken = copy.deepcopy(rows)
    del broken[3]["output_1"]
    (folder / "annotations.json").write_text(json.dumps(broken), encoding="utf-8")
    (folder / "model_outputs.json").write_bytes((ALPACA / "model_outputs.json").read_bytes())
    before = tree(project / "runs"), tree(project / "content")
    done = build(project, "import", "alpaca-eval", str(folder), "--benchmark", "a")
    assert done.returncode == 1 and "the baseline is missing" in done.stdout and "nothing was written" in done.stdout
    assert (tree(project / "runs"), tree(project / "content")) == before


def test_alpaca_eval_second_model_against_another_baseline_is_refused(project, tmp_path):
    assert build(project, "import", "alpaca-eval", str(ALPACA), "--annotator", AE1, "--benchmark", "a").returncode == 0
    folder = tmp_path / "other"
    folder.mkdir()
    rows = json.loads((ALPACA / "alpaca_eval_gpt4/annotations.json").read_text(encoding="utf-8"))
    for r in rows:
        r["generator_1"], r["generator_2"] = "some_other_baseline", "model_b"
    (folder / "annotations.json").write_text(json.dumps(rows), encoding="utf-8")
    (folder / "model_outputs.json").write_text("[]", encoding="utf-8")
    done = build(project, "import", "alpaca-eval", str(folder), "--benchmark", "a")
    assert done.returncode == 1 and "not the benchmark's baseline" in done.stdout
    assert not (project / "runs/a/model-b").exists()


def test_an_import_never_replaces_a_run_directory(project):
    assert build(project, "import", "alpaca-eval", str(ALPACA), "--annotator", AE1, "--benchmark", "a").returncode == 0
    again = build(project, "import", "alpaca-eval", str(ALPACA), "--annotator", AE1, "--benchmark", "a")
    assert again.returncode == 1 and "already exists" in again.stdout


def test_inspect_metrics_it_cannot_recompute_are_shown_as_reported(project):
    def add_bootstrap(log):
        metrics = log["results"]["scores"][0]["metrics"]
        metrics["bootstrap_stderr"] = {"name": "bootstrap_stderr", "value": 0.125, "options": {}}

    path = _inspect_json(project, add_bootstrap)
    assert build(project, "import", "inspect", str(path), "--benchmark", "popularity").returncode == 0
    _, scored = _load(project, "popularity")
    cell = scored.leaderboard.rows[0].cells["match/bootstrap_stderr"]
    assert (cell.value, cell.note) == (0.125, "reported by the log, not recomputed")
    assert scored.leaderboard.discrepancies == []  # a reported figure is never compared
    assert build(project, "scores").stdout.count("0.125 (reported by the log, not recomputed)") == 1


def test_alpaca_eval_definition_with_an_instruction_id_twice_is_refused(project):
    assert build(project, "import", "alpaca-eval", str(ALPACA), "--annotator", AE1, "--benchmark", "a").returncode == 0
    path = project / "content/a/versions/v1/instructions.json"
    spec = json.loads(path.read_text(encoding="utf-8"))
    spec["instructions"][5]["id"] = spec["instructions"][0]["id"]  # not adjacent: every earlier id counts
    path.write_text(json.dumps(spec), encoding="utf-8")
    done = build(project, "check")
    assert done.returncode == 1 and "instructions[5]" in done.stderr and "given twice" in done.stderr


def test_search_indexes_what_a_transcript_says_never_its_grading(project):
    """A run judged again keeps its search bundle: a bundle's key covers the transcripts as read and their labels,
    not their judgments (page_keys.search_keys). So in every system, what Pagefind indexes of a transcript page
    (tests/helpers.indexed_text) must be the same with every judgment of the release and with none."""
    from site_src import worked_out
    from site_src.problems import Problems
    from site_src.readers.project import load_project
    from site_src.scoring.release import build_release
    from site_src.site.app import create_app

    for args in (
        ("inspect", str(INSPECT_EVAL), "--benchmark", "popularity"),
        ("alpaca-eval", str(ALPACA), "--annotator", AE1),
    ):
        done = build(project, "import", *args, *(("--benchmark", "alpaca-eval-1") if args[0] == "alpaca-eval" else ()))
        assert done.returncode == 0, done.stdout + done.stderr
    loaded = load_project(project / "content", [project / "runs"], Problems())

    def pages() -> dict[str, str]:
        release = build_release(loaded)
        client = create_app(release).test_client()
        return {
            url: client.get(url).text
            for view in release.views
            for tid in list(view.transcripts)[:60]
            for url in [f"/{view.folder}/t/{fold(tid)}/{tid}/"]
        }

    judged = pages()
    judgments = 0
    for bench in loaded.benchmarks:
        for version in bench.versions:
            for run in version.runs:
                judgments += len(run.judgments)
                run.judgments = []
                worked_out.of(run).clear()
    unjudged = pages()
    assert {b.id for b in loaded.benchmarks} >= {"tuckerbench", "alpaca-eval-1", "popularity", "uzbek-pack"}
    assert judgments > 800 and judged.keys() == unjudged.keys()
    shown = {url.split("/")[1] for url in judged if judged[url] != unjudged[url]}
    assert shown >= {"tuckerbench", "alpaca-eval-1"}  # the judgments were on those pages, and are gone
    assert all(indexed_text(judged[url]) == indexed_text(unjudged[url]) for url in judged)
