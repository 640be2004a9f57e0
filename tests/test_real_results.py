"""Real results as their users have them (issue: every Inspect log and AlpacaEval folder in, nothing lost), on the
public logs kept under tests/fixtures/ with their licences, and on logs Inspect itself wrote (generated/, with the
script that wrote them) where no public log with a licence shows the case."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import ROOT, copy_project
from test_importers import _load, build

INSPECT = ROOT / "tests/fixtures/inspect_ai"
DICT_EVAL, DICT_JSON = INSPECT / "generated/dict-scores.eval", INSPECT / "generated/dict-scores.json"
STOPPED = INSPECT / "generated/stopped-by-error.eval"
NO_SAMPLES = INSPECT / "inspect_ai_tests/2025-05-12T20-28-13-04-00_no-samples.json"
CANCELLED = INSPECT / "inspect_ai_tests/2025-05-12T20-28-13-04-00_popularity.json"
PARTIAL = INSPECT / "inspect_ai_tests/log_tool_call_error.json"
AGENT = INSPECT / "metr/small.eval"
IMAGES = INSPECT / "inspect_ai_tests/log_images.json"
REAL_LOGS = [DICT_EVAL, DICT_JSON, STOPPED, NO_SAMPLES, CANCELLED, PARTIAL, AGENT, IMAGES, INSPECT / "log_formats.eval"]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return copy_project(tmp_path / "project")


def imported(project: Path, log: Path, bench: str = "real", *extra: str):  # noqa: ANN201
    done = build(project, "import", "inspect", str(log), "--benchmark", bench, *extra)
    assert done.returncode == 0, done.stdout + done.stderr
    version, scored = _load(project, bench)
    return done, version, scored


@pytest.mark.parametrize("log", REAL_LOGS, ids=lambda p: p.name)
def test_every_real_log_imports_and_checks_without_a_warning(project, log):
    imported(project, log)
    strict = build(project, "check", "--strict")
    assert strict.returncode == 0, strict.stdout + strict.stderr


def test_a_log_current_inspect_writes_zstandard_compressed_reads_as_its_json_form(project):
    import zipfile

    from site_src.systems.inspect_log.logfile import ZIP_ZSTANDARD, read_log

    assert {i.compress_type for i in zipfile.ZipFile(DICT_EVAL).infolist()} == {ZIP_ZSTANDARD}
    zipped, plain = read_log(DICT_EVAL.name, DICT_EVAL.read_bytes()), read_log(DICT_JSON.name, DICT_JSON.read_bytes())
    assert [s["scores"] for s in zipped.samples] == [s["scores"] for s in plain.samples]
    assert zipped.results["scores"] == plain.results["scores"]


def test_a_corrupt_zstandard_member_is_refused_naming_it(project, tmp_path):
    data = bytearray(DICT_EVAL.read_bytes())
    at = data.index(b"samples/1_epoch_1.json") + 40  # inside the first sample's compressed bytes
    data[at : at + 8] = b"\x00" * 8
    bad = tmp_path / "bad.eval"
    bad.write_bytes(bytes(data))
    done = build(project, "import", "inspect", str(bad), "--benchmark", "real")
    assert done.returncode == 1 and "samples/1_epoch_1.json in the archive is corrupt" in done.stdout, done.stdout


@pytest.mark.parametrize("log", [DICT_JSON, DICT_EVAL], ids=["json", "eval"])
def test_a_scorer_whose_value_is_a_dict_gives_each_key_its_own_recomputed_column(project, log):
    """Inspect reports each key of a dict-valued score as its own results row; here the row is recomputed from the
    samples and agrees with Inspect's (computed independently below from the sample values)."""
    _, version, scored = imported(project, log)
    samples = json.loads(DICT_JSON.read_text(encoding="utf-8"))["samples"]
    letter = {"C": 1.0, "I": 0.0}
    for key in ("main_task_success", "side_task_success"):
        values = [letter[s["scores"]["control_scorer"]["value"][key]] for s in samples]
        (row,) = scored.leaderboard.rows
        assert row.cells[f"{key}/accuracy"].value == pytest.approx(sum(values) / len(values))
    assert row.cells["length_score/mean"].value == pytest.approx(
        sum(s["scores"]["length_score"]["value"] for s in samples) / len(samples)
    )
    assert row.complete and row.rank == 1 and not scored.leaderboard.discrepancies
    assert row.score == pytest.approx(4 / 6)  # the headline: the first results row's accuracy


def test_a_dict_scored_sample_page_shows_each_key_in_words_with_its_scorer_and_the_target(project):
    imported(project, DICT_JSON)
    assert build(project, "--out", "_site", "--no-search", "-q").returncode == 0
    page = next((project / "_site/real").rglob("t/*/*--2--1/index.html")).read_text(encoding="utf-8")
    assert 'main_task_success <span class="sub">of control_scorer</span>' in page
    assert 'correct <span class="sub">(C)</span>' in page and 'incorrect <span class="sub">(I)</span>' in page
    assert "Target: <q>2</q>" in page and "sample 2: main done, side not done" in page


def test_a_log_without_samples_is_imported_with_its_figures_as_reported_and_never_ranked(project):
    done, version, scored = imported(project, NO_SAMPLES)
    assert "holds no samples (written without them)" in done.stdout
    (row,) = scored.leaderboard.rows
    assert not row.complete and row.rank is None and row.score is None
    assert row.cells["match/accuracy"].value == pytest.approx(2 / 3)
    assert row.cells["match/accuracy"].note == "reported by the log, not recomputed"
    assert any(f.label == "no samples" and "not recomputed" in f.detail for f in row.flags)
    assert [i.id for i in version.items] == ["1", "2", "3"]


def test_a_log_holding_fewer_samples_than_it_reports_is_flagged_and_never_complete(project):
    _, _, scored = imported(project, PARTIAL)
    (row,) = scored.leaderboard.rows
    assert not row.complete and row.rank is None
    assert any(f.label == "partial log" and "holds 1 of the 4 sample-epochs" in f.detail for f in row.flags)


def test_sample_ids_compare_equal_as_numbers_or_as_text(project, tmp_path):
    log = json.loads(CANCELLED.read_text(encoding="utf-8"))
    log["status"] = "success"
    log["eval"]["dataset"]["sample_ids"] = [str(i) for i in log["eval"]["dataset"]["sample_ids"]]
    path = tmp_path / "ids-as-text.json"
    path.write_text(json.dumps(log), encoding="utf-8")
    _, _, scored = imported(project, path)
    (row,) = scored.leaderboard.rows
    assert row.coverage.missing == 0 and row.coverage.collected == 3


@pytest.mark.parametrize(
    ("log", "label", "said"),
    [
        (CANCELLED, "cancelled", "the log's status is 'cancelled'"),
        (STOPPED, "stopped by an error", "Its error: ValueError('the sandbox for sample 3 could not be started')"),
    ],
    ids=["cancelled", "error"],
)
def test_a_log_that_did_not_finish_is_shown_as_such_with_its_error(project, log, label, said):
    _, _, scored = imported(project, log)
    (row,) = scored.leaderboard.rows
    assert not row.complete and row.rank is None
    flag = next(f for f in row.flags if f.code == "incomplete")
    assert flag.label == label and said in flag.detail
    assert build(project, "--out", "_site", "--no-search", "-q").returncode == 0
    page = next((project / "_site/real").glob("*/index.html")).read_text(encoding="utf-8")
    assert said.replace("'", "&#39;") in page


def test_a_stopped_log_keeps_its_scorers_from_the_eval_spec(project):
    _, version, scored = imported(project, STOPPED)
    assert version.definition.scorers == ["match"]
    (row,) = scored.leaderboard.rows
    assert "match/accuracy" in row.cells and row.cells["match/accuracy"].value is None


def test_an_import_error_names_the_log_the_user_gave_never_a_staging_file(project, tmp_path):
    log = json.loads(CANCELLED.read_text(encoding="utf-8"))
    log["samples"][0]["epoch"] = 0
    path = tmp_path / "my-run.json"
    path.write_text(json.dumps(log), encoding="utf-8")
    done = build(project, "import", "inspect", str(path), "--benchmark", "real")
    assert done.returncode == 1
    errors = [line for line in done.stdout.splitlines() if line.startswith("error:")]
    assert errors and all(str(path) in line for line in errors), done.stdout
    assert ".import-" not in done.stdout and "inspect-run.json" not in done.stdout


def test_the_fixture_logs_keep_their_licences_and_sources():
    for folder in ("inspect_ai_tests", "metr", "generated"):
        assert (INSPECT / folder).is_dir()
    source = (INSPECT / "SOURCE.md").read_text(encoding="utf-8")
    for log in REAL_LOGS:
        assert log.name in source, log.name
    assert (INSPECT / "LICENSE").is_file() and (INSPECT / "metr/LICENSE").is_file()


def _pages(project: Path, bench: str = "real") -> dict[str, str]:
    """Each transcript page by its transcript's id."""
    assert build(project, "--out", "_site", "--no-search", "-q").returncode == 0
    return {p.parent.name: p.read_text(encoding="utf-8") for p in (project / "_site" / bench).rglob("t/*/*/index.html")}


def test_an_agent_transcript_shows_tool_calls_as_structured_calls_linked_to_their_results(project):
    imported(project, AGENT)
    page = next(iter(sorted(_pages(project).items())))[1]
    calls = page.count('<div class="tool-call">')
    assert calls >= 10  # every call of the agent's run, none flattened into the assistant's text
    assert "→ tool call" not in page
    assert "Tool call <code>bash</code>" in page and '<a href="#turn-4">result in turn 4</a>' in page
    assert '<pre class="tool-args" aria-label="Arguments of bash">{\n  &#34;cmd&#34;' in page  # indented, exact
    assert page.count('<p class="tool-of" data-pagefind-ignore>Result of <code>bash</code>') == calls
    assert '<span class="role">Tool result</span>' in page


def test_reasoning_blocks_are_placeholders_unless_the_run_publishes_them_then_shown_as_reasoning(project, tmp_path):
    imported(project, AGENT)
    page = next(iter(sorted(_pages(project).items())))[1]
    assert '<details class="reasoning">' not in page
    assert "Not published: a reasoning block: this run does not publish reasoning (publish_reasoning)." in page
    other = copy_project(tmp_path / "other")
    imported(other, AGENT, "real", "--publish-reasoning")
    page = next(iter(sorted(_pages(other).items())))[1]
    assert '<details class="reasoning"><summary>Reasoning</summary>' in page
    assert "I need to run an oxDNA simulation" in page and "does not publish reasoning" not in page


def test_an_image_is_a_visible_placeholder_unless_the_run_publishes_images(project, tmp_path):
    imported(project, IMAGES)
    page = next(iter(sorted(_pages(project).items())))[1]
    assert "Not published: an image: this run does not publish images (publish_images)." in page
    assert "<img" not in page.split("<main", 1)[1]
    other = copy_project(tmp_path / "other")
    imported(other, IMAGES, "real", "--publish-images")
    page = next(iter(sorted(_pages(other).items())))[1]
    assert '<img class="turn-image" src="data:image/png;base64,iVBORw0KGgo' in page


def test_only_raster_images_held_in_the_log_are_ever_published():
    from site_src.systems.inspect_log.reader import Publish, parts_of

    allowed = Publish(images=True)
    for image in ("data:image/svg+xml;base64,PHN2Zz48L3N2Zz4=", "https://example.org/x.png", "javascript:alert(1)"):
        parts = parts_of([{"type": "image", "image": image}], {}, allowed)
        assert parts.images == [] and "only PNG, JPEG, GIF and WebP" in parts.left_out[0]
    audio = parts_of([{"type": "audio", "audio": "x", "format": "mp3"}], {}, allowed)
    assert audio.left_out == ["a part of kind 'audio': only text, reasoning and images are published"]


def test_a_tool_error_is_shown_as_the_tool_reported_it_not_as_a_missing_turn(project):
    imported(project, PARTIAL)
    page = next(p for p in _pages(project).values() if "tool-of" in p)  # the epoch the log holds
    assert "the tool reported an error: timeout: ..." in page
    assert "the tool reported an error: output_limit: The tool output limit of 10 MiB was exceeded." in page
    assert "error: missing, not zero" not in page


# ---- AlpacaEval: the real text_davinci_001 folder (CC BY-NC 4.0, see tests/fixtures/alpaca_eval/SOURCE.md)

ALPACA = ROOT / "tests/fixtures/alpaca_eval/text_davinci_001"
ALPACA_ROW = ROOT / "tests/fixtures/alpaca_eval/alpaca_eval_gpt4_leaderboard.text_davinci_001.csv"


AE1, AE2 = "alpaca_eval_gpt4", "weighted_alpaca_eval_gpt4_turbo"  # the AlpacaEval 1.0 and 2.0 judges' folders
AE2_ROW = ROOT / "tests/fixtures/alpaca_eval/weighted_alpaca_eval_gpt4_turbo_leaderboard.text_davinci_001.csv"


def _alpaca(project: Path, *extra: str, folder: Path = ALPACA, bench: str = "ae", judge: str = AE1):  # noqa: ANN202
    chosen = ["--annotator", judge] if folder == ALPACA else []
    done = build(project, "import", "alpaca-eval", str(folder), "--benchmark", bench, *chosen, *extra)
    assert done.returncode == 0, done.stdout + done.stderr
    return _load(project, bench)


def _without(tmp: Path, drop: int, name: str = "davinci_partial") -> Path:
    """The real folder as a second model that lacks the last `drop` outputs and judgments (the generator renamed,
    every other byte of every record kept)."""
    outputs = json.loads((ALPACA / "model_outputs.json").read_text(encoding="utf-8"))
    annotations = json.loads((ALPACA / "alpaca_eval_gpt4/annotations.json").read_text(encoding="utf-8"))
    for o in outputs:
        o["generator"] = name
    for a in annotations:
        a["generator_2"] = name
    folder = tmp / name
    (folder / "alpaca_eval_gpt4").mkdir(parents=True)
    (folder / "model_outputs.json").write_text(json.dumps(outputs[:-drop]), encoding="utf-8")
    (folder / "alpaca_eval_gpt4/annotations.json").write_text(json.dumps(annotations[:-drop]), encoding="utf-8")
    return folder


def test_an_entrant_missing_a_few_judgments_is_ranked_over_what_is_present_as_alpaca_eval_ranks(project, tmp_path):
    _alpaca(project)
    version, scored = _alpaca(project, folder=_without(tmp_path, 2))
    assert version.incomplete_entrants == "ranked_over_present"  # declared by the import, in benchmark.yaml
    row = next(r for r in scored.leaderboard.rows if r.label == "davinci_partial")
    assert not row.complete and row.over_present and row.rank is not None
    assert row.coverage.missing == 2 and row.figures["n_total"] == 802  # 805 - 2 missing - 1 failed judgment
    assert "incomplete" in [f.code for f in row.flags]
    assert build(project, "--out", "_site", "--no-search", "-q").returncode == 0
    board = (project / "_site/ae/v1/index.html").read_text(encoding="utf-8")
    assert f"{row.score:.2f} ± {row.figures['standard_error']:.2f} over 802 of 805 instructions" in board
    assert "ranked over the instructions present, as the source ranks" in board


def test_under_the_seeds_rule_the_incomplete_entrant_is_not_ranked_but_its_win_rate_is_still_shown(project, tmp_path):
    _alpaca(project)
    yaml_path = project / "content/ae/benchmark.yaml"
    yaml_path.write_text(
        yaml_path.read_text(encoding="utf-8").replace("incomplete_entrants: ranked_over_present", ""),
        encoding="utf-8",
    )
    version, scored = _alpaca(project, folder=_without(tmp_path, 2))
    assert version.incomplete_entrants == "not_ranked"
    partial = next(r for r in scored.leaderboard.rows if r.label == "davinci_partial")
    assert partial.rank is None and partial.score is None
    full = next(r for r in scored.leaderboard.rows if r.label == "text_davinci_001")
    assert full.rank is None  # its one failed judgment makes it incomplete too, under the stricter rule
    assert build(project, "--out", "_site", "--no-search", "-q").returncode == 0
    board = (project / "_site/ae/v1/index.html").read_text(encoding="utf-8")
    assert f"not ranked: {partial.figures['win_rate']:.2f} ± " in board  # no recomputable figure hidden
    assert "over 802 of 805 instructions" in board


def test_the_source_convention_is_refused_for_a_system_whose_rule_is_never_rank_incomplete(project):
    path = project / "content/uzbek-pack/benchmark.yaml"
    path.write_text(path.read_text(encoding="utf-8") + "incomplete_entrants: ranked_over_present\n", encoding="utf-8")
    done = build(project, "check")
    assert done.returncode == 1
    assert "content/uzbek-pack/benchmark.yaml" in done.stdout + done.stderr
    assert "incomplete_entrants: ranked_over_present is a source's convention the system 'uzbek-pack'" in (
        done.stdout + done.stderr
    )


def test_annotator_chooses_one_judge_folder_and_without_it_the_choices_are_listed(project):
    # the real text_davinci_001 folder holds the AlpacaEval 1.0 and 2.0 judges' folders, as AlpacaEval keeps them
    done = build(project, "import", "alpaca-eval", str(ALPACA), "--benchmark", "ae")
    assert done.returncode != 0
    said = done.stdout + done.stderr
    assert str(ALPACA) in said and "holds 2 annotations.json; choose one with --annotator NAME" in said
    assert f"the choices are {AE1}, {AE2}" in said
    wrong = build(project, "import", "alpaca-eval", str(ALPACA), "--benchmark", "ae", "--annotator", "gpt5")
    assert wrong.returncode != 0 and "has no annotator folder 'gpt5'" in wrong.stdout + wrong.stderr
    _, scored = _alpaca(project)
    assert scored.leaderboard.rows[0].figures["n_total"] == 804


def test_alpaca_eval_2_weighted_judgments_reproduce_the_published_row(project):
    _, scored = _alpaca(project, "--leaderboard", str(AE2_ROW), judge=AE2)
    row = scored.leaderboard.rows[0]
    import csv

    published = next(csv.DictReader(AE2_ROW.open(encoding="utf-8")))
    for key in ("win_rate", "standard_error", "discrete_win_rate"):
        assert row.figures[key] == pytest.approx(float(published[key]), abs=1e-9), key
    for key in ("n_wins", "n_wins_base", "n_draws", "n_total"):
        assert row.figures[key] == int(published[key]), key
    # the published avg_length, 296, is the mean of neither file here (297.53 over the 803 outputs, judged or not):
    # not a choice of file, so a discrepancy, shown
    found = [(d.field, d.stored, d.recomputed) for d in scored.leaderboard.discrepancies]
    assert found == [("avg_length", "296", "297")]
    # its 803 judgments define the version (the import knows no other instruction list): complete over those
    assert row.complete and row.rank == 1 and len(scored.leaderboard.rows) == 2
    lc = row.cells["reported_length_controlled_winrate"].value
    assert lc == float(published["length_controlled_winrate"])
    assert build(project, "--out", "_site", "--no-search", "-q").returncode == 0
    board = (project / "_site/ae/v1/index.html").read_text(encoding="utf-8")
    counts = "(23 wins, 777 losses, 3 draws of 803 judged)"
    assert f"{row.score:.2f} ± {row.figures['standard_error']:.2f} {counts}" in board
    assert ">9.03</td>" in board  # the length-controlled win rate, in its own column


def test_standard_errors_are_downloaded_at_full_precision_and_the_lc_win_rate_said_once(project):
    _, scored = _alpaca(project, "--leaderboard", str(ALPACA_ROW))
    row = scored.leaderboard.rows[0]
    assert build(project, "--out", "_site", "--no-search", "-q").returncode == 0
    data = json.loads((project / "_site/ae/v1/data/leaderboard.json").read_text(encoding="utf-8"))
    assert data["rows"][0]["figures"]["standard_error"] == row.figures["standard_error"]  # every digit
    import csv

    lines = list(csv.DictReader((project / "_site/ae/v1/data/leaderboard.csv").open(encoding="utf-8")))
    assert float(lines[0]["standard_error"]) == row.figures["standard_error"]
    assert lines[0]["standard_error"] == repr(row.figures["standard_error"])
    assert lines[0]["reported_length_controlled_winrate"] == repr(20.57118821914347)
    board = (project / "_site/ae/v1/index.html").read_text(encoding="utf-8")
    assert board.count("reported by the source, not recomputed") == 1
    assert ">Length-controlled win rate (reported by the source, not recomputed)</th>" in board
    assert '<td class="num" data-sort-value="20.57118821914347">20.57</td>' in board


def test_items_are_titled_by_their_instruction_a_loss_reads_lost_and_the_list_is_paged(project):
    version, _ = _alpaca(project)
    assert version.items[0].title.startswith("What are the names of some famous actors")
    assert not any(i.title.startswith("Instruction ") for i in version.items)
    assert build(project, "--out", "_site", "--no-search", "-q").returncode == 0
    items = project / "_site/ae/v1/items"
    first = (items / "index.html").read_text(encoding="utf-8")
    assert ">lost</td>" in first and "pass" not in first.split("<tbody>")[1].split("</tbody>")[0]
    assert len((items / "index.html").read_bytes()) < 60_000  # 100 of the 805 rows, not all of them
    assert (items / "page/9/index.html").is_file() and not (items / "page/10").exists()
    listed = json.loads((project / "_site/ae/v1/data/items.json").read_text(encoding="utf-8"))["items"]
    assert len(listed) == 805 and {x["result"] for x in listed} == {"won", "lost", "draw", None}
    transcripts = (project / "_site/ae/v1/transcripts/index.html").read_text(encoding="utf-8")
    assert 'name="item_text"' in transcripts and '<option value="1">' not in transcripts
