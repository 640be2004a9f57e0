"""Rebuilds into the same folder redo only what changed, and write exactly what a full build writes."""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers import CONTENT, ROOT, edit_json, edit_jsonl, tree_hash

from site_src.build.cache import last_state
from site_src.cli import main

PAGE = "uzbek-pack/0.1.0/t/db/demo-model-a-run1--001--a1/index.html"


def build(runs: Path, out: Path, *extra: str) -> int:
    return main(["--content", str(CONTENT), "--runs", str(runs), "--out", str(out), *extra])


def test_rebuild_with_nothing_changed_returns_at_once_and_touches_nothing(runs_copy, tmp_path, capsys):
    out = tmp_path / "site"
    assert build(runs_copy, out) == 0
    before = (out / PAGE).stat()
    capsys.readouterr()
    assert build(runs_copy, out) == 0
    assert "is up to date" in capsys.readouterr().out
    after = (out / PAGE).stat()
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)


def test_rebuild_after_one_run_changed_is_byte_identical_to_a_full_build(runs_copy, tmp_path, capsys):
    out, full = tmp_path / "site", tmp_path / "full"
    assert build(runs_copy, out) == 0
    edit_jsonl(
        runs_copy / "uzbek-pack/demo-model-a-run1/responses.jsonl",
        1,
        lambda r: r.update(raw_output=r["raw_output"] + " (changed)"),
    )
    capsys.readouterr()
    assert build(runs_copy, out) == 0
    said = capsys.readouterr().out
    kept = int(said.split(" unchanged files were kept")[0].rsplit(" ", 1)[-1])
    assert kept > 100  # the other runs' transcript pages, downloads and search bundles
    assert "(changed)" in (out / PAGE).read_text(encoding="utf-8")
    assert build(runs_copy, full, "--fresh") == 0
    assert tree_hash(out) == tree_hash(full)
    # every run read is kept for the next build (unchanged runs were loaded from there); the changed run's old
    # copy is gone
    kept = list((tmp_path / ".site.cache/runs").glob("*.run"))
    assert len(kept) == sum(1 for _ in runs_copy.glob("*/*/"))


def test_a_full_build_writes_the_page_keys_a_rebuild_holds_without_holding_them(runs_copy, tmp_path, monkeypatch):
    """A first or --fresh build has no page keys to compare with: it works them out as it saves them, and never
    holds a map of them. What it records is what a rebuild works out and holds, key for key, so the rebuild keeps
    every page whose key did not change."""
    from site_src.build import cache as cache_module

    held: list[Any] = []  # what each build's page keys were before it rendered
    page_keys = cache_module.BuildCache.page_keys

    def spied(self: Any, release: Any) -> Any:
        held.append(page_keys(self, release))
        return held[-1]

    monkeypatch.setattr(cache_module.BuildCache, "page_keys", spied)
    out, full = tmp_path / "site", tmp_path / "full"
    assert build(runs_copy, out) == 0 and held == [None]

    def recorded(site: Path) -> dict[str, str]:
        return last_state(site)["pages"]

    EDITS["tuckerbench transcript text"](runs_copy)
    assert build(runs_copy, out) == 0 and isinstance(held[-1], dict)  # a rebuild compares, so holds them
    assert build(runs_copy, full, "--fresh") == 0 and held[-1] is None
    assert len(recorded(full)) > 100 and recorded(full) == recorded(out) == held[1]


def test_an_output_file_edited_by_hand_is_written_again(runs_copy, tmp_path, capsys):
    out, full = tmp_path / "site", tmp_path / "full"
    assert build(runs_copy, out) == 0
    other = out / "tuckerbench/v1-pilot/t/ca/demo-pilot-run1--gamma--s5-bad-day--r2/index.html"
    other.write_text("edited by hand", encoding="utf-8")
    capsys.readouterr()
    assert build(runs_copy, out) == 0
    assert "up to date" not in capsys.readouterr().out
    assert build(runs_copy, full, "--fresh") == 0
    assert tree_hash(out) == tree_hash(full)


def test_a_secret_added_to_a_run_after_a_clean_build_is_still_found(runs_copy, tmp_path, capsys):
    """Runs scanned clean before are not walked again; a changed run always is."""
    out = tmp_path / "site"
    assert build(runs_copy, out) == 0
    state = (tmp_path / ".site.cache/state.jsonl").read_text(encoding="utf-8")
    assert '"uzbek-pack/0.1.0/demo-model-a-run1"' in state  # recorded as scanned clean
    token = "AKIA" + "Q" * 16
    edit_jsonl(
        runs_copy / "uzbek-pack/demo-model-a-run1/responses.jsonl",
        3,
        lambda r: r.update(raw_output=r["raw_output"] + " " + token),
    )
    capsys.readouterr()
    assert build(runs_copy, out) == 1
    err = capsys.readouterr().err
    assert "runs/uzbek-pack/demo-model-a-run1/responses.jsonl, line 3" in err and "aws-access-key-id" in err
    assert "(changed)" not in (out / PAGE).read_text(encoding="utf-8")  # the previous site is as it was


def _append(path: Path, text: str) -> None:
    path.write_text(path.read_text(encoding="utf-8") + text, encoding="utf-8")


TUCKER = "tuckerbench/demo-pilot-run1"
EDITS = {  # one edit of each kind of input, in each system: the pages that show it must change, and only those
    "pack response text": lambda runs: edit_jsonl(
        runs / "uzbek-pack/demo-model-a-run1/responses.jsonl", 2, lambda r: r.update(raw_output="edited")
    ),
    "pack grading": lambda runs: edit_jsonl(
        runs / "uzbek-pack/demo-model-b-run1/responses.jsonl",
        2,
        lambda r: r["grading"].update(outcome="fail", checks={"comparison": "fail"}),
    ),
    "tuckerbench judgment": lambda runs: edit_jsonl(
        runs / TUCKER / "judgments/judge-k.jsonl", 1, lambda r: r["scores"].update(fidelity=1)
    ),
    "tuckerbench entrant label": lambda runs: edit_json(
        runs / TUCKER / "manifest.json", lambda m: m["entrants"][0].update(label="Renamed Alpha")
    ),
    "tuckerbench transcript text": lambda runs: edit_json(
        runs / TUCKER / "transcripts/beta/s2-meeting-invite.r1.json",
        lambda t: t["turns"][-1].update(content=t["turns"][-1]["content"] + " (edited)"),
    ),
    "rubric output text": lambda runs: _append(
        runs / "halees-dual-layer/demo-system-y/tasks/T2/iteration-1.output.txt", "\nedited"
    ),
    "rubric grading": lambda runs: edit_json(
        runs / "halees-dual-layer/demo-system-y/tasks/T2/iteration-1.grading.json",
        lambda g: g["category_scores"].update(accuracy=40),
    ),
}


@pytest.mark.parametrize("edit", sorted(EDITS))
def test_page_keys_cover_what_each_kind_of_edit_changes(edit, runs_copy, tmp_path, capsys):
    """Item and list pages, transcript pages and downloads are kept by key (page_keys.py): after any edit, the
    rebuild is byte for byte a full build, and most pages were kept, not rendered."""
    out, full = tmp_path / "site", tmp_path / "full"
    assert build(runs_copy, out) == 0
    EDITS[edit](runs_copy)
    capsys.readouterr()
    assert build(runs_copy, out) == 0
    said = capsys.readouterr().out
    assert "up to date" not in said  # the edit changed a file
    kept = int(said.split(" unchanged files were kept")[0].rsplit(" ", 1)[-1])
    assert build(runs_copy, full, "--fresh") == 0
    assert tree_hash(out) == tree_hash(full)
    assert kept > 150


def test_runs_and_their_scores_come_back_from_the_cache_equal(demo):
    """Transcripts, turns, judgments and TuckerBench transcript scores are kept as data (build/codec.py): each demo
    run, and what scoring worked out of it, is equal after a round trip, field by field, with its dicts and lists its
    own copies."""
    from site_src.build import codec
    from site_src.scoring.release import build_release

    runs = [run for bench in demo.benchmarks for version in bench.versions for run in version.runs]
    assert {type(t.turns[0]).__name__ for run in runs for t in run.transcripts if t.turns} == {"Turn"}
    assert sum(len(run.judgments) for run in runs) > 0
    for run in runs:
        back = codec.loads(codec.dumps(run))
        assert back == run and back.transcripts[0] is not run.transcripts[0]
    scores = [r for view in build_release(demo).views for r in view.scored.transcripts.values()]
    tucker = [r for r in scores if type(r).__name__ == "TranscriptScore"]
    assert tucker and codec.loads(codec.dumps(tucker)) == tucker


def test_cached_runs_keep_their_turns_and_judgments_on_disk_and_read_them_where_used(runs_copy, tmp_path, demo):
    """A run in the build cache keeps its transcripts' turns and its judgments in a file beside it
    (build.store.StoredList), in the build that read it too: they stand for their lists everywhere (equal to them,
    indexed, sliced, keyed, written as a download, scanned for secrets), are found again when the cache folder
    moved, and a run whose turns file is gone is read again, not loaded."""
    import shutil

    from site_src.build import BuildConfig
    from site_src.build.cache import BuildCache
    from site_src.build.reading import read as read_runs
    from site_src.build.store import StoredList as SpilledList
    from site_src.build.store import TurnsFile, read_run
    from site_src.build.store import spill as _spill
    from site_src.model import Judgment, Run, Transcript, Turn
    from site_src.secretscan import Scanner

    def load_run(path):  # noqa: ANN001, ANN202
        return read_run(cache.seal, path)

    from site_src.build.page_keys import key_of
    from site_src.site.downloads import _plain

    out = tmp_path / "site"
    cache = BuildCache.open(out, CONTENT, [runs_copy], {})
    fresh = read_runs(BuildConfig(out=out, content=CONTENT, runs=[runs_copy]), cache).project  # stored as read
    spilled = [t for b in fresh.benchmarks for v in b.versions for r in v.runs for t in r.transcripts]
    assert spilled and all(type(t.turns) is SpilledList for t in spilled)
    read = {t.id: t for b in demo.benchmarks for v in b.versions for r in v.runs for t in r.transcripts}
    assert {t.id: t for t in spilled} == read
    runs = {r.path: r for b in fresh.benchmarks for v in b.versions for r in v.runs}
    judged = {r.path: r.judgments for b in demo.benchmarks for v in b.versions for r in v.runs}
    assert all(type(r.judgments) is SpilledList for r in runs.values()) and any(judged.values())
    assert {path: list(r.judgments) for path, r in runs.items()} == judged
    assert build(runs_copy, out) == 0
    moved = tmp_path / "moved"
    shutil.move(tmp_path / ".site.cache/runs", moved)
    loaded = [load_run(f)[0] for f in moved.glob("*.run")]
    cached = {t.id: t for run in loaded for t in run.transcripts}
    assert cached.keys() == read.keys()
    assert {r.path: r.judgments for r in loaded} == judged and all(type(r.judgments) is SpilledList for r in loaded)
    for tid, t in cached.items():
        assert type(t.turns) is SpilledList and t.turns.file.path.startswith(str(moved))
        assert t == read[tid] and t.turns == read[tid].turns and read[tid].turns == t.turns
        assert key_of(t) == key_of(read[tid]) and _plain(t) == _plain(read[tid])
    many = next(t for t in cached.values() if len(t.turns) > 2)
    turns = read[many.id].turns
    shown = (many.turns[-1], many.turns[1:], len(many.turns), list(many.turns))
    assert shown == (turns[-1], turns[1:], len(turns), turns)
    reads = []
    real_read = TurnsFile.read
    TurnsFile.read = lambda self, offset, length: reads.append(offset) or real_read(self, offset, length)  # type: ignore[method-assign]
    try:  # its length decodes nothing, so list() (which asks for it first) decodes the turns once
        assert (len(many.turns), len(reads)) == (len(turns), 0)
        assert (list(many.turns), len(reads)) == (turns, 1)
    finally:
        TurnsFile.read = real_read  # type: ignore[method-assign]
    one = next(moved.glob("*.run"))
    one.with_suffix(".turns").unlink()
    assert load_run(one) is None

    secret = "ghp_" + "a1B2" * 9  # a GitHub token's shape
    holder = [
        Transcript(
            f"t{i}", "r", "e", "i", 1, "completed", "runs/x/t.json", "", [Turn("user", "hi"), Turn("assistant", said)]
        )
        for i, said in enumerate((f"the token is {secret}", "nothing to see"))
    ]
    judgment = Judgment("j", "t0", "ok", {"d": 1}, f"it quoted {secret}", "runs/x/j.jsonl", "line 1")
    run = Run("r", "b", "v", "runs/x", "f", True, "", {}, transcripts=holder, judgments=[judgment])
    digest = _spill(run, tmp_path / "x.turns")
    assert digest == hashlib.sha256((tmp_path / "x.turns").read_bytes()).digest()
    assert all(type(h.turns) is SpilledList and type(h.turns.file) is TurnsFile for h in holder)
    assert type(run.judgments) is SpilledList and run.judgments == [judgment] and run.judgments[0] == judgment
    redacted = Scanner(redact=True).walk(run.judgments, "runs/x/j.jsonl", None, "judgments")
    assert [j.rationale for j in redacted] == ["it quoted [REDACTED: github-token]"]
    found = Scanner(redact=True)
    assert found.walk(holder[1].turns, "runs/x/t.json", None, "turns") is holder[1].turns  # clean: stays on disk
    assert found.walk(holder[0].turns, "runs/x/t.json", None, "turns")[1].content == (
        "the token is [REDACTED: github-token]"
    )
    assert [(f.field, f.rule) for f in found.findings] == [("turns[1].content", "github-token")]
    assert Scanner(redact=False).walk(holder[0].turns, "runs/x/t.json", None, "turns") is holder[0].turns


def test_page_keys_are_the_same_in_every_process(tmp_path):
    """Keys are canonical (no set order, no object address): two processes with different hash seeds agree, so a
    rebuild does not render pages for nothing."""
    script = (
        "import json, sys; sys.path.insert(0, 'tests'); from helpers import load, RUNS; "
        "from site_src.scoring.release import build_release; from site_src.build.page_keys import page_keys; "
        "print(json.dumps(page_keys(build_release(load(RUNS)), 'base'), sort_keys=True))"
    )
    outputs = []
    for seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        outputs.append(json.loads(done.stdout))
    assert outputs[0] == outputs[1]
    assert any("/items/" in url for url in outputs[0]) and any("/transcripts/" in url for url in outputs[0])


def test_a_chart_whose_spec_is_unchanged_is_not_drawn_again(runs_copy, tmp_path, monkeypatch):
    """A transcript's text does not move a TuckerBench score, so no chart changes: the rebuild takes every drawing
    from the last build and draws none (the drawer's runtime is started ahead all the same)."""
    out, full = tmp_path / "site", tmp_path / "full"
    assert build(runs_copy, out) == 0
    EDITS["tuckerbench transcript text"](runs_copy)
    assert build(runs_copy, full, "--fresh") == 0
    import site_src.site.drawing as drawing

    _refuse(monkeypatch, drawing, "_draw", "DRAWN", "a chart was drawn again")
    assert build(runs_copy, out) == 0
    assert tree_hash(out) == tree_hash(full)


def _refuse(monkeypatch: pytest.MonkeyPatch, module: Any, name: str, memo: str, what: str) -> None:
    """Make module.name fail the test, and empty module.memo: nothing is left in it from the builds before in this
    process (the build looks it up in the module)."""

    def refuse(*args: Any, **kwargs: Any) -> None:
        raise AssertionError(what)

    monkeypatch.setattr(module, name, refuse)
    monkeypatch.setattr(module, memo, {})


def test_a_chart_whose_rows_and_order_change_takes_its_shape_from_the_last_build(runs_copy, tmp_path, monkeypatch):
    """A run judged again moves the standings: the charts' rows and their order change, not their shapes (marks,
    scales, titles). The rebuild makes no shape with Altair: it takes each from the last build, puts the new order
    in, and writes what a full build, which makes every shape, writes."""
    out, full = tmp_path / "site", tmp_path / "full"
    overall = "tuckerbench/v1-pilot/charts/overall.vl.json"
    assert build(runs_copy, out) == 0
    before = json.loads((out / overall).read_text(encoding="utf-8"))["layer"][0]["encoding"]["y"]["sort"]
    for judge in ("judge-k", "judge-q"):  # the leader's every judgment, at the bottom of the scale
        path = runs_copy / TUCKER / f"judgments/{judge}.jsonl"
        records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
        for r in records:
            if r["entrant"] == before[0].split()[-1].lower():
                r["scores"] = {d: 0 for d in r["scores"]}
        path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    assert build(runs_copy, full, "--fresh") == 0
    import site_src.site.charts as charts

    _refuse(monkeypatch, charts, "_made", "SPECS", "a chart's shape was made again")
    assert build(runs_copy, out) == 0
    assert tree_hash(out) == tree_hash(full)
    after = json.loads((out / overall).read_text(encoding="utf-8"))["layer"][0]["encoding"]["y"]["sort"]
    assert sorted(after) == sorted(before) and after[0] != before[0]


# ---- putting a rebuild in place: a few new files are moved into the old folder, under a journal
def _leftovers(tmp_path: Path) -> list[str]:
    """Work folders of a build still beside the site (the old folder a swap deletes in the background aside)."""
    return sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".site.") and ".old-" not in p.name)


@pytest.mark.parametrize("in_place", [True, False], ids=["new files moved in", "kept files linked into a new folder"])
def test_both_ways_of_putting_a_rebuild_in_place_write_what_a_full_build_writes(
    in_place, runs_copy, tmp_path, monkeypatch
):
    import site_src.build.output as b

    out, full = tmp_path / "site", tmp_path / "full"
    assert build(runs_copy, out) == 0
    folder = out.stat().st_ino
    monkeypatch.setattr(b, "in_place_pays", lambda kept, new: in_place)
    EDITS["tuckerbench judgment"](runs_copy)
    assert build(runs_copy, out) == 0
    assert (out.stat().st_ino == folder) is in_place  # the same folder, or a new one swapped in
    assert build(runs_copy, full, "--fresh") == 0
    assert tree_hash(out) == tree_hash(full)
    assert _leftovers(tmp_path) == [".site.cache"]


def _fail_the_fifth_move_into(out: Path, monkeypatch: pytest.MonkeyPatch, error: BaseException) -> None:
    real, moves = os.replace, []

    def replace(source, target):  # noqa: ANN001, ANN202
        if str(target).startswith(str(out.resolve()) + os.sep):
            moves.append(target)
            if len(moves) == 5:
                raise error
        return real(source, target)

    monkeypatch.setattr(os, "replace", replace)


def test_an_update_in_place_that_fails_half_way_is_undone_before_the_error_is_raised(runs_copy, tmp_path, monkeypatch):
    out = tmp_path / "site"
    assert build(runs_copy, out) == 0
    before = tree_hash(out)
    EDITS["tuckerbench judgment"](runs_copy)
    _fail_the_fifth_move_into(out, monkeypatch, OSError(28, "No space left on device"))
    with pytest.raises(OSError, match="No space left"):
        build(runs_copy, out)
    assert tree_hash(out) == before
    assert _leftovers(tmp_path) == [".site.cache"]


def test_an_update_in_place_cut_short_by_a_kill_is_undone_by_the_next_build(runs_copy, tmp_path, monkeypatch, capsys):
    """A kill runs no handler: the half-updated site, its journal and the old versions stay. The journal lists
    every change, so recover() puts back exactly the previous site, and the next build does so before anything."""
    import site_src.outdir as outdir

    out, full = tmp_path / "site", tmp_path / "full"
    assert build(runs_copy, out) == 0
    before = tree_hash(out)
    EDITS["tuckerbench judgment"](runs_copy)
    for then in ("recover", "build"):
        with monkeypatch.context() as killed:
            killed.setattr(outdir, "recover", lambda out: False)  # as if the process died: nothing is undone
            _fail_the_fifth_move_into(out, killed, KeyboardInterrupt())
            with pytest.raises(KeyboardInterrupt):
                build(runs_copy, out)
        assert tree_hash(out) != before, then  # half written
        assert (tmp_path / ".site.undo/journal.json").is_file()
        assert not [p for p in (tmp_path / ".site.undo").iterdir() if p.is_dir()]  # old versions kept flat
        if then == "recover":
            assert outdir.recover(out)
            assert tree_hash(out) == before
            assert _leftovers(tmp_path) == [".site.cache"]
    capsys.readouterr()
    assert build(runs_copy, out) == 0
    assert "an update cut short by an earlier build was undone" in capsys.readouterr().out
    assert build(runs_copy, full, "--fresh") == 0
    assert tree_hash(out) == tree_hash(full)
    assert _leftovers(tmp_path) == [".site.cache"]


# ---- what is worked out from one run alone (Run.once) is kept with it for the next build
def test_what_is_worked_out_from_one_run_is_kept_for_the_runs_that_did_not_change(runs_copy, tmp_path, monkeypatch):
    """Transcript scores, judge reports, diagnostics and the keys of a transcript's pages are worked out per run. A
    rebuild takes them from the last build for every unchanged run, works them out for the changed one only, and
    still writes what a full build writes."""
    import shutil

    import site_src.build.page_keys as page_keys
    import site_src.scoring.diagnostics as diagnostics
    import site_src.systems.tuckerbench.judges as judges
    import site_src.systems.tuckerbench.scoring as scoring

    second = runs_copy / TUCKER.replace("run1", "run2")  # a second TuckerBench run: its version has two
    shutil.copytree(runs_copy / TUCKER, second)
    edit_json(second / "manifest.json", lambda m: m.update(run_id="demo-pilot-run2", repeat_of="demo-pilot-run1"))
    out, full = tmp_path / "site", tmp_path / "full"
    assert build(runs_copy, out) == 0

    log = tmp_path / "worked-out.log"  # the read workers work a run out where they read it: a list would stay there
    parts = (judges, "run_report"), (diagnostics, "diagnose"), (page_keys, "_record_keys"), (scoring, "score_run")
    for module, name in parts:
        original = getattr(module, name)

        def counted(*args, _original=original, _name=name, **kwargs):
            with log.open("a", encoding="utf-8") as f:
                f.write(f"{_name}\n")
            return _original(*args, **kwargs)

        monkeypatch.setattr(module, name, counted)
    edit_jsonl(second / "judgments/judge-k.jsonl", 1, lambda r: r["scores"].update(fidelity=1))
    assert build(runs_copy, out) == 0
    entrants = len(json.loads((second / "manifest.json").read_text(encoding="utf-8"))["entrants"])
    worked_out = log.read_text(encoding="utf-8").split()
    assert sorted(worked_out) == sorted(["run_report", "_record_keys", "score_run"] + ["diagnose"] * entrants)
    monkeypatch.undo()
    assert build(runs_copy, full, "--fresh") == 0
    assert tree_hash(out) == tree_hash(full)
    runs = sum(1 for _ in runs_copy.glob("*/*/"))
    assert len(list((tmp_path / ".site.cache/derived").glob("*.run"))) == runs  # one per run, none left over


def test_what_is_kept_from_a_run_is_worked_out_again_when_the_content_changes(runs_copy, tmp_path, monkeypatch):
    """The kept results belong to the run's files, the code and the whole content folder (where the definitions
    are): after any content edit, every run is diagnosed again, and the rebuild matches a full build."""
    import shutil

    import site_src.scoring.diagnostics as diagnostics

    content = tmp_path / "content"
    shutil.copytree(CONTENT, content)
    out, full = tmp_path / "site", tmp_path / "full"
    args = ["--content", str(content), "--runs", str(runs_copy)]
    assert main([*args, "--out", str(out)]) == 0
    _append(content / "tuckerbench/methodology.md", "\nOne more sentence.\n")
    log = tmp_path / "diagnosed.log"  # the read workers diagnose a run where they read it
    original = diagnostics.diagnose

    def diagnose(ts, *a):
        with log.open("a", encoding="utf-8") as f:
            f.write(f"{ts[0].run_id}\n")
        return original(ts, *a)

    monkeypatch.setattr(diagnostics, "diagnose", diagnose)
    assert main([*args, "--out", str(out)]) == 0
    diagnosed = log.read_text(encoding="utf-8").split()
    assert set(diagnosed) == {p.name for p in runs_copy.glob("*/*/")}  # every run, not only TuckerBench's
    monkeypatch.undo()
    assert main([*args, "--out", str(full), "--fresh"]) == 0
    assert tree_hash(out) == tree_hash(full)


def test_kept_page_keys_are_worked_out_again_under_other_options(runs_copy, tmp_path, monkeypatch):
    """The keys of what a run's transcript pages show depend on the options too (a redacted summary differs): with
    another option each run's keys are worked out again and replace the kept ones, and the rebuild is a full
    build's byte for byte."""
    import site_src.build.page_keys as page_keys

    out, full = tmp_path / "site", tmp_path / "full"
    assert build(runs_copy, out) == 0
    keyed: list[str] = []
    original = page_keys._record_keys
    monkeypatch.setattr(page_keys, "_record_keys", lambda view, run: keyed.append(run.id) or original(view, run))
    assert build(runs_copy, out, "--base-path", "/sub/") == 0
    assert sorted(keyed) == sorted(p.name for p in runs_copy.glob("*/*/"))
    keyed.clear()  # the new keys were kept: the next rebuild under the same options keys the changed run only
    EDITS["pack response text"](runs_copy)
    assert build(runs_copy, out, "--base-path", "/sub/") == 0
    assert keyed == ["demo-model-a-run1"]
    monkeypatch.undo()
    assert build(runs_copy, full, "--base-path", "/sub/", "--fresh") == 0
    assert tree_hash(out) == tree_hash(full)


def test_the_url_a_page_is_kept_by_is_the_one_its_route_makes(demo):
    """A rebuild leaves pages whose key is unchanged out of the pages Frozen-Flask lists, by URL: each keyed page's
    URL (urls.page_url) must be the one url_for makes, or the page would be rendered on every build; and every
    key belongs to a page the version lists."""
    from helpers import keyed_urls

    from site_src.build.page_keys import page_keys
    from site_src.scoring.release import build_release
    from site_src.site.freeze import version_pages
    from site_src.site.urls import page_url

    release = build_release(demo)
    keyed = keyed_urls(release)
    for view in release.views:
        assert not [e for e, v in version_pages(view, keyed) if page_url(e, v) is not None]  # skipped: all
    assert set(page_keys(release, "base")) == keyed
    kinds = {url.split("/")[3] for url in keyed}
    assert {"t", "data", "items", "transcripts", "entrants"} <= kinds


def test_fresh_uses_nothing_an_earlier_build_kept(runs_copy, tmp_path):
    """--fresh reads every run and works everything out again: a cached run that no longer says what its files
    say (here, changed as a build on this machine would write it, sealed with its key) is used by a rebuild, and
    ignored by --fresh."""
    from site_src.build.sealed import Seal, machine_key
    from site_src.build.store import read_run, write_run

    out = tmp_path / "site"
    assert build(runs_copy, out) == 0
    seal = Seal(machine_key()[0], tmp_path / ".site.cache")

    def tamper() -> None:
        for cached in (tmp_path / ".site.cache/runs").glob("*.run"):
            run, key, warnings = read_run(seal, cached)
            if run.id == "demo-pilot-run1":
                run.entrants[0].label = "Label From The Cache"
                write_run(seal, cached, run, key, warnings)

    leaderboard = out / "tuckerbench/v1-pilot/index.html"
    tamper()
    assert build(runs_copy, out, "--base-path", "/sub/") == 0  # another option, so not up to date
    assert "Label From The Cache" in leaderboard.read_text(encoding="utf-8")
    tamper()
    assert build(runs_copy, out, "--base-path", "/sub/", "--fresh") == 0
    assert "Label From The Cache" not in leaderboard.read_text(encoding="utf-8")
    assert "Demo Entrant Alpha" in leaderboard.read_text(encoding="utf-8")


def test_an_items_pages_keep_each_entrants_responses_together_after_every_first_attempt():
    """An item's first page shows every entrant's first attempt side by side; each entrant's other responses follow
    together, run by run, so one run's responses lie on a few consecutive pages."""
    from types import SimpleNamespace

    from site_src.scoring.release import _item_order

    entrants = {"b": SimpleNamespace(label="Able"), "a": SimpleNamespace(label="Baker")}  # listed by label, not id
    made = [
        SimpleNamespace(entrant_id=e, run_id=r, attempt=n, name=f"{e}-{r}-{n}")
        for e, r, n in [("a", "r2", 1), ("b", "r1", 2), ("a", "r1", 2), ("b", "r1", 1), ("a", "r1", 1), ("b", "r1", 3)]
    ]
    order = [t.name for t in _item_order(made, entrants)]
    assert order == ["b-r1-1", "a-r1-1", "b-r1-2", "b-r1-3", "a-r1-2", "a-r2-1"]


def test_a_run_judged_again_changes_only_an_items_first_page_and_the_pages_showing_its_responses(
    runs_copy, monkeypatch
):
    """Only an item's first page shows its analysis (later pages link to it), so a changed judgment changes that
    page and the one showing the response, not every page of the item."""
    from helpers import load

    from site_src.build import page_keys as keys_module
    from site_src.scoring.release import build_release
    from site_src.site import app as app_module
    from site_src.site.app import create_app

    monkeypatch.setattr(app_module, "CARDS_PER_PAGE", 1)  # one response per page (the keys' too): eight pages an item
    release = build_release(load(runs_copy))
    before = keys_module.page_keys(release, "base")
    edit_jsonl(runs_copy / TUCKER / "judgments/judge-k.jsonl", 2, lambda r: r["scores"].update(fidelity=1))
    after = keys_module.page_keys(build_release(load(runs_copy)), "base")

    view = release.view("tuckerbench", "v1-pilot")
    order = [t.id for t in view.item_transcripts("s1-code-review")]
    judged = next(t for t in view.item_transcripts("s1-code-review") if (t.entrant_id, t.attempt) == ("alpha", 2))
    item = "/tuckerbench/v1-pilot/items/aa/s1-code-review/"
    changed = sorted(url for url in before if "/items/" in url and before[url] != after[url])
    assert len(order) == 8 and changed == sorted([item, f"{item}page/{order.index(judged.id) + 1}/"])

    with create_app(release).test_client() as client:
        first, later = (client.get(url).get_data(as_text=True) for url in (item, f"{item}page/2/"))
    assert "graded responses pass" in first or "mean score" in first
    assert "graded responses pass" not in later and "mean score" not in later
    assert "Counted over all 8 responses on" in later and 'href="../../">the item\'s first page</a>' in later


def test_an_entrant_page_is_kept_unless_its_transcripts_or_the_versions_standings_change(runs_copy):
    """An entrant page lists all of an entrant's transcripts beside its standing among every row: a transcript's
    text changes its own entrant's page (the diagnostics count its words), a judgment changes every entrant page
    (it moves a score, so the standings)."""
    from helpers import load

    from site_src.build.page_keys import page_keys
    from site_src.scoring.release import build_release

    def entrant_keys() -> dict[str, str]:
        keys = page_keys(build_release(load(runs_copy)), "base")
        return {url.split("/")[-2]: key for url, key in keys.items() if "/tuckerbench/v1-pilot/entrants/" in url}

    before = entrant_keys()
    assert sorted(before) == ["alpha", "beta", "delta", "gamma"]
    edit_json(  # a word more in one of gamma's answers: no flag (empty, truncated) comes or goes
        runs_copy / TUCKER / "transcripts/gamma/s1-code-review.r2.json",
        lambda t: t["turns"][-1].update(content=t["turns"][-1]["content"] + " (edited)"),
    )
    after_text = entrant_keys()
    assert [e for e in before if before[e] != after_text[e]] == ["gamma"]
    EDITS["tuckerbench judgment"](runs_copy)
    after_judgment = entrant_keys()
    assert all(after_text[e] != after_judgment[e] for e in before)


def test_a_page_key_covers_a_dict_keyed_by_tuples_inside_a_record():
    """Paired differences are kept by (entrant, entrant): such a dict is keyed as its sorted pairs."""
    from site_src.build.page_keys import key_of
    from site_src.scoring.uncertainty import Interval, Separation

    def separation(difference: float) -> Separation:
        return Separation({"a": (1, 1), "b": (2, 2)}, {("a", "b"): (difference, Interval(0.5, 1.5, 0.95), True)})

    assert key_of(separation(1.0)) == key_of(separation(1.0)) != key_of(separation(1.25))


def test_a_run_judged_again_keeps_its_search_bundle_and_a_changed_text_is_indexed_again(runs_copy, tmp_path):
    """Search indexes what transcripts say, never their grading (page_keys.search_keys): a run judged again keeps
    its bundle as the last build wrote it; a transcript whose words changed has its run indexed again."""
    out, full = tmp_path / "site", tmp_path / "full"
    entry = out / "tuckerbench/v1-pilot/search/demo-pilot-run1/pagefind-entry.json"
    assert build(runs_copy, out) == 0

    def stamp() -> tuple[int, int]:
        st = entry.stat()
        return st.st_ino, st.st_mtime_ns

    before = stamp()
    EDITS["tuckerbench judgment"](runs_copy)
    assert build(runs_copy, out) == 0
    assert stamp() == before
    EDITS["tuckerbench transcript text"](runs_copy)
    assert build(runs_copy, out) == 0
    assert stamp() != before
    assert build(runs_copy, full, "--fresh") == 0
    assert tree_hash(out) == tree_hash(full)


def test_the_output_folder_is_listed_with_its_stats_by_a_process_of_its_own(tmp_path):
    """A build lists its output folder (every file with its lstat) in another process while it reads the runs;
    what it hands back is the listing made here, and the process is gone once it has."""
    import multiprocessing

    from site_src.outdir import STAT, Listing, is_file, list_files

    (tmp_path / "a/b").mkdir(parents=True)
    (tmp_path / "a/b/index.html").write_text("page", encoding="utf-8")
    (tmp_path / "top.json").write_text("{}", encoding="utf-8")
    (tmp_path / "link").symlink_to("top.json")
    listing = Listing(tmp_path)
    assert [p.pid for p in multiprocessing.active_children()] == [listing._process.pid]
    files = listing.files()
    assert files == list_files(tmp_path) and sorted(files) == ["a/b/index.html", "link", "top.json"]
    st = os.lstat(tmp_path / "link")
    assert STAT.unpack(files["link"]) == (st.st_mode, st.st_size, st.st_mtime_ns, st.st_ino)
    assert not is_file(files["link"]) and is_file(files["top.json"])
    assert multiprocessing.active_children() == []
    assert Listing(tmp_path / "missing").files() == {}


def test_a_rebuild_names_each_kept_files_sources_again_and_keeps_only_the_last_manifests_digests(runs_copy, tmp_path):
    """Of the last manifest a rebuild keeps each file's digest only (its entries as read were about 23 MB of a
    rebuild's memory at 10,000 transcripts): a kept file's sources are worked out again, as a full build would, so
    the sources the last manifest names are never carried over on trust, and the manifest is a full build's."""
    from site_src.outdir import listed_in

    out, full = tmp_path / "site", tmp_path / "full"
    assert build(runs_copy, out) == 0
    manifest_path = out / "publish-manifest.json"
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    kept = "tuckerbench/v1-pilot/t/30/demo-pilot-run1--alpha--s1-code-review--r1/index.html"
    assert manifest["files"][kept]["sources"]
    assert listed_in(manifest_path) == {rel: bytes.fromhex(entry["sha256"]) for rel, entry in manifest["files"].items()}
    manifest["files"][kept]["sources"] = ["runs/tuckerbench/not-a-run/transcript.json"]  # stale, by hand
    manifest_path.write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    EDITS["tuckerbench transcript text"](runs_copy)  # another transcript of the same run
    assert build(runs_copy, out) == 0
    rebuilt = json.loads(manifest_path.read_text(encoding="utf-8"))
    assert "runs/tuckerbench/not-a-run/transcript.json" not in rebuilt["files"][kept]["sources"]
    assert build(runs_copy, full, "--fresh") == 0
    assert tree_hash(out) == tree_hash(full)


def test_the_last_manifest_is_read_once_however_its_path_is_spelled(runs_copy, tmp_path, monkeypatch):
    """The output check is given the folder as typed (often relative) and the build cache its resolved path: both
    get the one reading of the manifest (each read of a 10,000-transcript manifest took 0.05 s and about 60 MB at
    once), and a manifest changed since is read again."""
    from site_src import outdir

    out = tmp_path / "site"
    assert build(runs_copy, out) == 0
    monkeypatch.chdir(tmp_path)
    relative, absolute = Path("site/publish-manifest.json"), (out / "publish-manifest.json").resolve()
    first = outdir.listed_in(relative)
    assert first and outdir.listed_in(absolute) is first
    manifest = json.loads(absolute.read_text(encoding="utf-8"))
    some = sorted(manifest["files"])[0]
    manifest["files"][some]["sha256"] = "0" * 64
    absolute.write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    again = outdir.listed_in(relative)
    assert again is not first and again[some] == bytes(32)


def test_the_last_manifest_is_read_in_pieces_as_it_reads_whole(runs_copy, tmp_path):
    """A manifest laid out as a build writes it is read a stretch of entries at a time (read whole, the manifest of
    10,000 transcripts made about 60 MB of objects at once); the pieces give what reading it whole gives, wherever
    they are cut. Laid out otherwise (edited by hand), or not ours, it is read whole."""
    from site_src import outdir

    out = tmp_path / "site"
    assert build(runs_copy, out) == 0
    data = (out / "publish-manifest.json").read_bytes()
    read = outdir._listed_whole(data)  # (files, the manifest's other members)
    assert read and read[1]["manifest_version"] == 3 and "files" not in read[1]
    whole = read[0]
    assert len(whole) > 100 and all(len(d) == 32 for d in whole.values())
    for piece in (1, 5_000, 1 << 20):  # every entry a piece of its own, a few dozen pieces, one piece
        assert outdir._listed_in_pieces(data, piece) == read
    manifest = json.loads(data)
    compact = tmp_path / "compact.json"
    compact.write_text(json.dumps(manifest), encoding="utf-8")
    with pytest.raises(ValueError):
        outdir._listed_in_pieces(compact.read_bytes())
    assert outdir.listed_in(compact) == whole
    manifest["generator"] = "another-tool 1.0"
    (tmp_path / "theirs.json").write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    assert outdir.listed_in(tmp_path / "theirs.json") is None


def test_an_entrants_transcripts_beyond_a_page_continue_on_later_pages_kept_unless_theirs_change(tmp_path):
    """An entrant's page lists its first 100 transcripts under its standing, profile and diagnostics; the rest
    are on later pages, which link to the first. A run judged again changes every entrant's first page (the
    standings) and all pages of its own entrant, and no other entrant's later pages."""
    sys.path.insert(0, str(ROOT / "scripts"))
    from benchmark import synthesise

    from site_src.build.page_keys import page_keys
    from site_src.scoring.release import build_release
    from site_src.site.app import create_app

    runs = tmp_path / "runs"
    assert synthesise(runs, entrants=2, repetitions=20) == 240  # 120 transcripts each: two pages

    def release():  # noqa: ANN202
        from helpers import load

        return build_release(load(runs, tmp_path / "content"))

    before = release()
    entrant = "/tuckerbench/v1-pilot/entrants/e000/"
    with create_app(before).test_client() as client:
        first, second = (client.get(url).get_data(as_text=True) for url in (entrant, f"{entrant}page/2/"))
        assert client.get(f"{entrant}page/3/").status_code == 404
    assert "<h2>Standing</h2>" in first and 'href="page/2/"' in first and "120 transcripts, on 2 pages" in first
    assert "<h2>Standing</h2>" not in second and 'href="../../">its first page</a>' in second
    shown = [re.findall(r'href="(?:\.\./)+t/[0-9a-f]{2}/([^/"]+)/"', page) for page in (first, second)]
    assert [len(s) for s in shown] == [100, 20] and sorted(shown[0] + shown[1]) == sorted(
        t.id for t in before.view("tuckerbench", "v1-pilot").by_entrant["e000"]
    )

    keys = page_keys(before, "base")
    for judgments in (runs / "tuckerbench/synthetic-e000/judgments").glob("*.jsonl"):
        lines = [json.loads(line) for line in judgments.read_text(encoding="utf-8").splitlines()]
        for judgment in lines:
            judgment["scores"] = {d: max(0, v - 1) for d, v in judgment["scores"].items()}
        judgments.write_text("".join(json.dumps(j) + "\n" for j in lines), encoding="utf-8")
    after = page_keys(release(), "base")
    changed = sorted(url for url in keys if "/entrants/" in url and keys[url] != after[url])
    other = "/tuckerbench/v1-pilot/entrants/e001/"
    assert changed == sorted([entrant, f"{entrant}page/2/", other])


def test_the_build_state_written_a_thousand_entries_at_a_time_reads_back_as_the_whole(tmp_path):
    """The build state is written as JSON lines, its long lists of files and keys a thousand entries a line
    (cache._dump_state), and read back a line at a time (read_state): as the document made whole, for members of
    every length. A state of another format, or not made of such lines, or not sealed with this machine's key for
    this cache folder, reads as none."""
    import orjson

    from site_src.build.cache import STATE_FORMAT, _dump_state, read_state
    from site_src.build.sealed import Seal

    seal = Seal(b"k" * 32, tmp_path)

    members = {
        "format": STATE_FORMAT,
        "plain": {"a": [1, 2, 3]},
        "none": {},
        "one": {"a": [1, 2, 3]},
        "many": {f'p/{i}\u00e9"x\n': [i, i * 2, str(i)] for i in range(2500)},
        "thousand": {str(i): i for i in range(1000)},
    }
    plain = ("format", "plain")
    streamed = {name: value if name in plain else iter(value.items()) for name, value in members.items()}
    path = tmp_path / "state.jsonl"
    _dump_state(seal, path, streamed)
    assert read_state(seal, path) == members
    assert read_state(Seal(b"o" * 32, tmp_path), path) == read_state(Seal(b"k" * 32, tmp_path / "x"), path) == {}
    lines = path.read_bytes().splitlines()
    assert len(lines) == 1 + 1 + 1 + 3 + 1 + 1 and max(map(len, lines)) < 40_000  # never a member made whole
    assert [p.name for p in tmp_path.iterdir()] == ["state.jsonl"]
    path.write_bytes(b"\n".join([*lines[:-2], lines[-1], b""]))  # a line left out
    assert read_state(seal, path) == {}
    path.write_bytes(orjson.dumps({**members, "format": STATE_FORMAT - 1}))
    assert read_state(seal, path) == {}
    path.write_bytes(lines[0] + b"\n" + b'["format", {"a": 1}]\n')
    assert read_state(seal, path) == {}


def test_a_transcripts_judgments_are_found_whichever_order_pages_ask_for_them(runs_copy, tmp_path, demo):
    """A cached run's judgments stay on disk; VersionView.judgments_for groups them by transcript for the last few
    runs asked about only. Asked about every transcript in a shuffled order, it gives each one's judgments as a
    release read without a cache holds them (every judgment of its run that targets it, in the run's order), and
    never keeps more runs grouped than it says."""
    import random

    from site_src.build import BuildConfig
    from site_src.build.cache import BuildCache
    from site_src.build.reading import read as read_runs
    from site_src.release import RUNS_GROUPED
    from site_src.scoring.diagnostics import judgments_by_target
    from site_src.scoring.release import build_release

    cache = BuildCache.open(tmp_path / "site", CONTENT, [runs_copy], {})
    config = BuildConfig(out=tmp_path / "site", content=CONTENT, runs=[runs_copy])
    spilled = build_release(read_runs(config, cache).project)
    expected = {
        (f"{b.id}/{v.id}", tid): js for b in demo.benchmarks for v in b.versions for r in v.runs
        for tid, js in judgments_by_target(r).items()
    }  # fmt: skip
    asked = [(view, tid) for view in spilled.views for tid in view.transcripts]
    random.Random(4).shuffle(asked)
    judged = 0
    for view, tid in asked:
        found = view.judgments_for(tid)
        assert found == expected.get((view.folder, tid), []), tid
        assert all(j.target_id == tid for j in found)
        judged += bool(found)
        assert len(view.derived[judgments_by_target]) <= RUNS_GROUPED
    assert judged > 0 and spilled.views[0].judgments_for("no such transcript") == []


def test_a_secret_in_a_judgment_kept_on_disk_is_redacted_on_its_pages_in_every_build(runs_copy, tmp_path):
    """With --redact-secrets, a secret in a judgment's rationale is replaced by its marker on the transcript's page
    and in its download, although the run's judgments stay on disk as read: in the build that reads the run and in
    the rebuild that loads it from the cache (a run with a finding is scanned again)."""
    token = "ghp_" + "P1anted" * 5 + "x"  # a GitHub token's shape
    edit_jsonl(
        runs_copy / "tuckerbench/demo-pilot-run1/judgments/judge-k.jsonl",
        1,
        lambda r: r.update(rationale=f"the reply pasted {token} in its second turn"),
    )
    page = tmp_path / "site/tuckerbench/v1-pilot/t/30/demo-pilot-run1--alpha--s1-code-review--r1/index.html"
    download = tmp_path / "site/tuckerbench/v1-pilot/data/t/30/demo-pilot-run1--alpha--s1-code-review--r1.json"
    for extra in ((), ("--base-path", "/sub/")):  # the second build loads the run from the cache
        assert build(runs_copy, tmp_path / "site", "--redact-secrets", *extra) == 0
        for shown in (page, download):
            text = shown.read_text(encoding="utf-8")
            assert token not in text and "the reply pasted [REDACTED: github-token] in its second turn" in text


def test_a_run_judged_again_is_scanned_again_but_for_the_transcripts_taken_from_a_read_found_clean(
    runs_copy, tmp_path, monkeypatch
):
    """A changed run is scanned again: its judgments and results are walked, and so is every transcript it read
    anew. The transcripts it took unchanged from the last build's read are walked again only when that build's scan
    found something in the run (with --redact-secrets, the page of a transcript holding a secret stays redacted)."""
    from site_src.build import pipeline as build_module

    asked: list[set[str]] = []
    scan = build_module.scan_release
    monkeypatch.setattr(
        build_module, "scan_release", lambda *a, **k: asked.append(set(k["clean_files"])) or scan(*a, **k)
    )
    transcripts = sorted(f"runs/{TUCKER}/{p.relative_to(runs_copy / TUCKER).as_posix()}"
                         for p in (runs_copy / TUCKER / "transcripts").rglob("*.json"))  # fmt: skip
    out = tmp_path / "site"
    assert build(runs_copy, out, "--quiet") == 0
    EDITS["tuckerbench judgment"](runs_copy)
    assert build(runs_copy, out, "--quiet") == 0
    assert asked[-1] == set(transcripts)
    EDITS["tuckerbench transcript text"](runs_copy)  # that one file is read anew, and walked
    assert build(runs_copy, out, "--quiet") == 0
    assert asked[-1] == set(transcripts) - {f"runs/{TUCKER}/transcripts/beta/s2-meeting-invite.r1.json"}

    token = "ghp_" + "P1anted" * 5 + "x"  # a GitHub token's shape, in a transcript's text
    edit_json(runs_copy / TUCKER / "transcripts/alpha/s1-code-review.r1.json",
              lambda t: t["turns"][-1].update(content=f"pasted {token} here"))  # fmt: skip
    page = out / "tuckerbench/v1-pilot/t/30/demo-pilot-run1--alpha--s1-code-review--r1/index.html"
    for score in (1, 2):  # the build that finds it, then a rejudge of the run: found again, from the kept read
        edit_jsonl(runs_copy / TUCKER / "judgments/judge-k.jsonl", 1, lambda r, s=score: r["scores"].update(fidelity=s))
        assert build(runs_copy, out, "--quiet", "--redact-secrets") == 0
        assert token not in page.read_text(encoding="utf-8") and "[REDACTED: github-token]" in page.read_text("utf-8")
    assert asked[-1] == set()
