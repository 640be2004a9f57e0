"""lm-evaluation-harness results on a real public results file and its logged samples (tests/fixtures/lm_eval/
SOURCE.md): the harness evaluated 5,000 documents per task but the file logs 10 samples of one task and none of the
other, so one figure is recomputed over the samples present and the other is shown as reported, and said to be. A
copy of the results file as --limit 10 would write it lets the same samples be recomputed in full."""

from __future__ import annotations

import html
import json
import shutil
from pathlib import Path
from statistics import fmean, stdev

import pytest
from helpers import fold

import site_src.cli as cli
from site_src.problems import Problems
from site_src.readers.project import load_project
from site_src.scoring.release import build_release

FIXTURE = Path(__file__).parent / "fixtures/lm_eval"
RESULTS = FIXTURE / "results_2026-01-21T03-44-18.458309.json"
SAMPLES = FIXTURE / "samples_math_perturbed_full_2026-01-21T03-44-18.458309.jsonl"
MODEL = "RylanSchaeffer/mem_Qwen3-93M_minerva_math_rep_0_sbst_1.0000_epch_1_ot_1"


def _import_and_build(root: Path, results: Path) -> object:
    argv = ["--content", str(root / "content"), "--runs", str(root / "runs")]
    (root / "content").mkdir(parents=True)
    assert cli.main(["import", "lm-eval", str(results), "--benchmark", "math", *argv]) == 0
    assert cli.main([*argv, "--out", str(root / "site"), "--no-search", "-q"]) == 0
    return build_release(load_project(root / "content", [root / "runs"], Problems())).view("math", "v1")


@pytest.fixture(scope="module")
def real(tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("lm-eval")
    return root, _import_and_build(root, RESULTS)


def _samples() -> list[dict]:
    return [json.loads(line) for line in SAMPLES.read_text(encoding="utf-8").splitlines() if line.strip()]


def test_a_metric_over_fewer_samples_than_documents_is_recomputed_over_those_present_and_never_ranked(real):
    _, view = real
    row = view.rows[0]
    reported = json.loads(RESULTS.read_text(encoding="utf-8"))["results"]
    perturbed = row.cells["math_perturbed_full|exact_match,none"]
    values = [s["exact_match"] for s in _samples()]
    assert perturbed.note == "partial" and perturbed.n == len(values) == 10 and perturbed.of == 5000
    assert perturbed.value == pytest.approx(fmean(values))
    assert perturbed.label == str(reported["math_perturbed_full"]["exact_match,none"])  # the harness's, beside it
    rephrased = row.cells["math_rephrased_full|exact_match,none"]  # no samples file: as reported, and said
    assert rephrased.note == "reported" and rephrased.value == reported["math_rephrased_full"]["exact_match,none"]
    assert "as reported by the harness, not recomputed" in view.cell_text(
        "math_rephrased_full|exact_match,none", rephrased
    )
    assert row.score is None and row.rank is None and not row.complete
    assert {f.code for f in row.flags} == {"incomplete", "reported"}
    assert view.score_text(row).startswith(
        "no recomputed score: 10 of 10,000 documents' samples logged"
    )  # two tasks of 5,000


def test_every_logged_sample_is_browsable_with_its_arguments_response_and_per_metric_result(real):
    root, view = real
    assert len(view.transcripts) == 10 and view.rows[0].label == MODEL
    sample = _samples()[3]
    tid = f"{view.rows[0].run_ids[0]}--math_perturbed_full--{sample['doc_id']}"
    page = html.unescape((root / f"site/math/v1/t/{fold(tid)}/{tid}/index.html").read_text("utf-8"))
    assert sample["arguments"]["gen_args_0"]["arg_0"] in page  # the prompt, exact characters
    assert sample["filtered_resps"][0] in page and sample["target"] in page
    assert "<code>exact_match</code>: 0.0" in page
    assert '"max_gen_toks": 512' in page  # the request's arguments, generation settings included


def test_recomputed_in_full_when_every_document_was_logged_and_a_differing_report_is_a_discrepancy(tmp_path):
    """The same samples with the results file as `--limit 10` writes it (10 documents evaluated): the figure is
    recomputed in full and ranked; a reported figure that differs from the samples' mean is a discrepancy."""
    for case, reported in (("agrees", 0.0), ("differs", 0.5)):
        folder = tmp_path / case / "out"
        folder.mkdir(parents=True)
        data = json.loads(RESULTS.read_text(encoding="utf-8"))
        del data["results"]["math_rephrased_full"], data["configs"]["math_rephrased_full"]
        data["n-samples"] = {"math_perturbed_full": {"original": 5000, "effective": 10}}
        data["results"]["math_perturbed_full"]["exact_match,none"] = reported
        (folder / RESULTS.name).write_text(json.dumps(data), encoding="utf-8")
        shutil.copy(SAMPLES, folder / SAMPLES.name)
        view = _import_and_build(tmp_path / case, folder / RESULTS.name)
        row = view.rows[0]
        assert row.cells["math_perturbed_full|exact_match,none"].note == "recomputed"
        assert row.complete and row.rank == 1 and row.score == pytest.approx(0.0)
        found = view.scored.leaderboard.discrepancies
        assert (len(found) == 1 and found[0].field == "exact_match,none") if case == "differs" else not found


def test_an_import_names_the_file_and_what_is_wrong(tmp_path, capsys):
    argv = ["--content", str(tmp_path / "content"), "--runs", str(tmp_path / "runs")]
    (tmp_path / "content").mkdir()
    assert cli.main(["import", "lm-eval", str(SAMPLES), "--benchmark", "x", *argv]) == 1
    assert f"{SAMPLES}: not a results_<time>.json file of the harness" in capsys.readouterr().out
    broken = tmp_path / "results_x.json"
    broken.write_text('{"results": {"t": {}}, "configs": {}}', encoding="utf-8")
    assert cli.main(["import", "lm-eval", str(broken), "--benchmark", "x", *argv]) == 1
    assert f"{broken}: task 't' has no config with a metric_list" in capsys.readouterr().out
    assert not (tmp_path / "runs").exists()


def test_a_group_is_the_size_weighted_mean_of_its_tasks_where_each_is_recomputed(tmp_path):
    """The real results file with its two tasks as one group, as the harness writes a group (group_subtasks and the
    group's own row), both tasks evaluated on their logged samples only: the group is recomputed as the harness
    aggregates it by default (weighted by each task's size) and compared with the group's reported figure."""
    folder = tmp_path / "out"
    folder.mkdir()
    data = json.loads(RESULTS.read_text(encoding="utf-8"))
    samples = _samples()
    rephrased = [{**s, "exact_match": 1.0 if n < 2 else 0.0} for n, s in enumerate(samples[:4])]  # a task of 4
    data["n-samples"] = {"math_perturbed_full": {"effective": 10}, "math_rephrased_full": {"effective": 4}}
    data["group_subtasks"] = {"math": ["math_perturbed_full", "math_rephrased_full"], **data["group_subtasks"]}
    data["results"]["math_rephrased_full"]["exact_match,none"] = 0.5
    data["results"]["math"] = {"alias": "math", "exact_match,none": 2 / 14, "exact_match_stderr,none": "N/A"}
    (folder / RESULTS.name).write_text(json.dumps(data), encoding="utf-8")
    shutil.copy(SAMPLES, folder / SAMPLES.name)
    lines = "".join(json.dumps(s) + "\n" for s in rephrased)
    (folder / SAMPLES.name.replace("perturbed", "rephrased")).write_text(lines, encoding="utf-8")
    view = _import_and_build(tmp_path / "project", folder / RESULTS.name)
    group = view.rows[0].cells["math|exact_match,none"]
    expected = (fmean(s["exact_match"] for s in samples) * 10 + 0.5 * 4) / 14
    assert group.note == "recomputed" and group.value == pytest.approx(expected) and group.n == 14
    four = view.rows[0].cells["math_rephrased_full|exact_match,none"]  # its standard error, as the harness's
    assert four.stderr == pytest.approx(stdev([1.0, 1.0, 0.0, 0.0]) / 2)  # mean_stderr: sample deviation / sqrt(n)
    assert view.cell_text("math_rephrased_full|exact_match,none", four) == "0.5000 ± 0.2887 (n = 4)"
    assert not view.scored.leaderboard.discrepancies  # the reported 2/14 agrees


def test_real_results_built_in_slices_and_merged_are_the_one_build_and_fit_every_host(real):
    """The real lm-eval log's site, rendered as 3 slices (search in parts of 4 pages, so its one run has several
    bundles to deal) and merged, is byte for byte the one build's, and within every host preset's limits."""
    from helpers import tree_hash

    from site_src.hosts import HOSTS, Measure, exceeded
    from site_src.site import search_index

    root, _ = real
    argv = ["--content", str(root / "content"), "--runs", str(root / "runs"), "-q"]
    limit, search_index.PAGES_PER_BUNDLE = search_index.PAGES_PER_BUNDLE, 4
    try:
        assert cli.main([*argv, "--out", str(root / "whole")]) == 0
        slices = [str(root / f"slice-{k}") for k in (1, 2, 3)]
        for k, out in enumerate(slices, start=1):
            assert cli.main([*argv, "--only", "math/v1", "--slice", f"{k}/3", "--out", out]) == 0
        assert cli.main([*argv, "merge", *reversed(slices), "--out", str(root / "merged"), "--host", "netlify"]) == 0
    finally:
        search_index.PAGES_PER_BUNDLE = limit
    assert len(list((root / "whole/math/v1/search").glob("*/*/pagefind-entry.json"))) >= 1  # later parts exist
    assert tree_hash(root / "merged") == tree_hash(root / "whole")
    measure = Measure.of_folder(root / "merged")
    assert all(not exceeded(host, measure) for host in HOSTS.values())
