"""MT-Bench, added as a plugin (plugins/evalboard-mtbench), on real public files: FastChat's llm_judge layout from a
public fork (tests/fixtures/mt_bench/SOURCE.md). Every figure is checked against a plain computation from the raw
files following FastChat's show_result.py; the real data's gaps (a model never single-graded, pairwise verdicts with
an error, questions without a verdict) are each shown for what they are."""

from __future__ import annotations

import html
import json
import shutil
from collections import defaultdict
from pathlib import Path
from statistics import fmean

import pytest
from helpers import MT_BENCH_PLUGIN, plugin_installed

import site_src.cli as cli

FIXTURE = Path(__file__).parent / "fixtures/mt_bench/mt_bench"


def _jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.fixture(scope="module")
def mt_bench(tmp_path_factory: pytest.TempPathFactory):
    """The fixture imported as a user imports it (evalboard import mt-bench FOLDER), then built."""
    root = tmp_path_factory.mktemp("mt-bench")
    argv = ["--content", str(root / "content"), "--runs", str(root / "runs")]
    with plugin_installed(MT_BENCH_PLUGIN, "mt-bench", "evalboard_mtbench"):
        (root / "content").mkdir()
        assert cli.main(["import", "mt-bench", str(FIXTURE), "--benchmark", "mt-bench", *argv]) == 0
        assert cli.main([*argv, "--out", str(root / "site"), "--no-search", "-q"]) == 0
        from site_src.problems import Problems
        from site_src.readers.project import load_project
        from site_src.scoring.release import build_release

        project = load_project(root / "content", [root / "runs"], Problems())
        yield root, build_release(project).view("mt-bench", "v1")


def test_single_grades_are_recomputed_as_fastchat_shows_them(mt_bench):
    _, view = mt_bench
    grades = [g for g in _jsonl(FIXTURE / "model_judgment/gpt-4_single.jsonl") if g["score"] != -1]
    category = {str(q["question_id"]): q["category"] for q in _jsonl(FIXTURE / "question.jsonl")}
    row = next(r for r in view.rows if r.label == "phi-3-dpo")
    mine = [g["score"] for g in grades if g["model"] == "phi-3-dpo"]
    assert row.rank == 1 and row.complete and row.score == pytest.approx(fmean(mine)) and len(mine) == 160
    for turn in (1, 2):
        of_turn = [g["score"] for g in grades if g["model"] == "phi-3-dpo" and g["turn"] == turn]
        assert row.cells[f"turn_{turn}"].value == pytest.approx(fmean(of_turn)) and row.cells[f"turn_{turn}"].n == 80
    by_category = defaultdict(list)
    for g in grades:
        by_category[category[str(g["question_id"])]].append(g["score"])
    for name, scores in by_category.items():
        assert row.cells[f"category:{name}"].value == pytest.approx(fmean(scores))
    assert view.score_text(row) == "8.20 / 10 (160 of 160 turns graded)"


def test_pairwise_verdicts_are_counted_as_fastchat_counts_them_against_the_baseline(mt_bench):
    _, view = mt_bench
    assert view.version.definition.baseline == "phi-3-dpo"  # model_2 of every verdict: FastChat's baseline mode
    counts = {"win": 0, "loss": 0, "tie": 0}
    for v in _jsonl(FIXTURE / "model_judgment/gpt-4_pair.jsonl"):
        if "error" in (v["g1_winner"], v["g2_winner"]):
            continue
        if v["g1_winner"] == "tie" or v["g1_winner"] != v["g2_winner"]:
            counts["tie"] += 1
        else:
            counts["win" if v["g1_winner"] == "model_1" else "loss"] += 1
    total = sum(counts.values())
    row = next(r for r in view.rows if r.label == "phi-3")
    assert row.cells["win_rate"].value == pytest.approx(counts["win"] / total) and row.cells["win_rate"].of == total
    assert row.cells["loss_rate"].value == pytest.approx(counts["loss"] / total)
    adjusted = (counts["win"] + 0.5 * counts["tie"]) / total
    assert row.cells["win_rate_adjusted"].value == pytest.approx(adjusted) and total == 73


def test_a_model_never_single_graded_is_shown_with_its_answers_and_not_ranked(mt_bench):
    _, view = mt_bench
    row = next(r for r in view.rows if r.label == "phi-3")
    assert row.score is None and row.rank is None and not row.complete
    assert row.coverage.collected == 80 and row.coverage.judgments_missing == 160
    assert {f.code for f in row.flags} == {"ungraded", "failed_judgment"}  # two verdicts with an error
    assert view.score_text(row) == "no score: 0 of 160 turns graded"


def test_every_answer_is_browsable_with_both_turns_and_the_judges_explanation_beside_each(mt_bench):
    root, view = mt_bench
    assert len(view.transcripts) == 160  # 80 questions, two models
    answer = next(a for a in _jsonl(FIXTURE / "model_answer/phi-3-dpo.jsonl") if a["question_id"] == 101)
    grade = next(g for g in _jsonl(FIXTURE / "model_judgment/gpt-4_single.jsonl")
                 if g["question_id"] == 101 and g["turn"] == 2)  # fmt: skip
    page = html.unescape((root / "site/mt-bench/v1/t/2a/phi-3-dpo--101/index.html").read_text(encoding="utf-8"))
    for text in answer["choices"][0]["turns"]:
        assert text.splitlines()[0] in page
    assert grade["judgment"].splitlines()[0] in page and "Grade of answer 2" in page
    assert "Reference answer the judge was shown" in page  # a reasoning question: the judge had a reference
    phi3 = (root / "site/mt-bench/v1/t/34/phi-3--126/index.html").read_text(encoding="utf-8")
    assert "No grade of this turn was recorded" in phi3 and "Against phi-3-dpo" not in phi3  # no verdict for 126


def test_the_import_copies_the_files_byte_for_byte_and_refuses_by_name(mt_bench, tmp_path, capsys):
    root, _ = mt_bench
    run = root / "runs/mt-bench/phi-3-dpo"
    assert (run / "model_answer.jsonl").read_bytes() == (FIXTURE / "model_answer/phi-3-dpo.jsonl").read_bytes()
    single = (FIXTURE / "model_judgment/gpt-4_single.jsonl").read_bytes()
    assert (run / "single.jsonl").read_bytes() == single  # every grade in the file is this model's
    assert (root / "content/mt-bench/versions/v1/questions.jsonl").read_bytes() == (
        FIXTURE / "question.jsonl"
    ).read_bytes()
    with plugin_installed(MT_BENCH_PLUGIN, "mt-bench", "evalboard_mtbench"):
        two = tmp_path / "two-judges"
        shutil.copytree(FIXTURE, two)
        shutil.copy(two / "model_judgment/gpt-4_single.jsonl", two / "model_judgment/claude_single.jsonl")
        argv = ["--content", str(tmp_path / "content"), "--runs", str(tmp_path / "runs")]
        assert cli.main(["import", "mt-bench", str(two), "--benchmark", "x", *argv]) == 1
        assert "holds judgments by claude, gpt-4; choose one with --annotator JUDGE" in capsys.readouterr().out
        assert cli.main(["import", "mt-bench", str(tmp_path), "--benchmark", "x", *argv]) == 1
        assert f"{tmp_path}: has no question.jsonl" in capsys.readouterr().out
    assert not (tmp_path / "runs").exists()
