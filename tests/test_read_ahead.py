"""Reading run directories ahead in worker processes (build/reading.py, _ReadAhead): a build reads the runs its
cache does not hold in other processes while it loads the others from the cache. What it reads must be what one
process reading every run in order reads: the same runs, the same ignored files and the same problems, in order."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from helpers import CONTENT, edit_json, edit_jsonl, load

import site_src.build.reading as reading
from site_src.build import BuildConfig
from site_src.build.cache import BuildCache
from site_src.build.store import StoredList
from site_src.cli import main
from site_src.model import Project


def _break_runs(runs: Path) -> None:
    """Problems in several runs of different systems, and two run directories with one run_id."""
    edit_jsonl(runs / "uzbek-pack/demo-model-a-run1/responses.jsonl", 2, lambda r: r.update(case_id=7))
    edit_jsonl(runs / "uzbek-pack/demo-model-b-run1/responses.jsonl", 1, lambda r: r.update(billing="x"))
    transcript = next((runs / "tuckerbench/demo-pilot-run1/transcripts").rglob("*.json"))
    transcript.write_text("{not json", encoding="utf-8")
    shutil.copytree(runs / "uzbek-pack/demo-model-a-run2", runs / "uzbek-pack/demo-model-a-run2-copy")
    edit_json(runs / "halees-dual-layer/demo-system-y/run.json", lambda m: m.update(notes_extra=True))


def _what_was_read(project: Project) -> tuple[list[str], list[tuple[str, str, list[str]]], list[tuple[str, str]]]:
    runs = [(f"{b.id}/{v.id}", r.id, [t.id for t in r.transcripts]) for b in project.benchmarks for v in b.versions
            for r in v.runs]  # fmt: skip
    return [str(p) for p in project.problems.items], runs, project.ignored


def _log_calls(monkeypatch: pytest.MonkeyPatch, module: Any, name: str, log: Path, line: Callable[..., str]) -> None:
    """Each call of module.name appends line(*its arguments) to log: the forked workers inherit the patch, and
    the file collects what every process did."""
    real = getattr(module, name)

    def logged(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        with log.open("a") as f:
            f.write(f"{line(*args)}\n")
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, logged)


def _readers_pids(monkeypatch: pytest.MonkeyPatch, log: Path) -> None:
    """Each run directory read appends the reading process's id to log."""
    _log_calls(monkeypatch, reading, "open_run_dir", log, lambda *args: str(os.getpid()))


def load_project(content: Path, runs: list[Path], cache: BuildCache) -> Project:
    """The project as a build reads it, with its cache."""
    return reading.read(BuildConfig(out=cache.out, content=content, runs=runs), cache).project


def _cache(out: Path, runs: Path, fresh: bool) -> BuildCache:
    return BuildCache.open(out, CONTENT, [runs], {"base_path": "/"}, fresh=fresh)


def test_runs_read_ahead_in_workers_give_the_same_runs_and_problems_in_the_same_order(runs_copy, tmp_path, monkeypatch):
    _break_runs(runs_copy)
    alone = _what_was_read(load(runs_copy))  # no run cache: one process reads every run, in order
    assert any("case_id" in p for p in alone[0]) and any("run_id" in p for p in alone[0])

    log = tmp_path / "pids.txt"
    _readers_pids(monkeypatch, log)
    monkeypatch.setattr(os, "cpu_count", lambda: 2)  # two workers, whatever this machine has
    cache = _cache(tmp_path / "site", runs_copy, fresh=True)  # holds nothing: every run is read ahead
    ahead = load_project(CONTENT, [runs_copy], cache)
    assert _what_was_read(ahead) == alone
    pids = set(log.read_text().split())
    assert str(os.getpid()) not in pids and len(pids) == 2


def test_a_run_read_ahead_is_stored_by_its_worker_and_reaches_the_build_with_its_turns_on_disk(
    runs_copy, tmp_path, monkeypatch
):
    """The worker that reads a run writes it into the cache, turns and all: the build receives each transcript's
    turns as where they lie (build.store.StoredList), never as objects it would unpickle and drop, and adopts the stored
    run, so what it works out from it is kept beside it as for a run it stored itself."""
    log = tmp_path / "stores.txt"
    _log_calls(monkeypatch, BuildCache, "store", log, lambda cache, rel, *rest: f"{os.getpid()} {rel}")
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    cache = _cache(tmp_path / "site", runs_copy, fresh=False)
    project = load_project(CONTENT, [runs_copy], cache)
    runs = [r for b in project.benchmarks for v in b.versions for r in v.runs]
    stores = [line.split(" ", 1) for line in log.read_text().splitlines()]
    assert len(stores) == len(runs) and str(os.getpid()) not in {pid for pid, _ in stores}
    assert all(isinstance(t.turns, StoredList) for r in runs for t in r.transcripts)
    assert {id(run) for run, _ in cache.derived_from.values()} == {id(r) for r in runs}
    # and a build that loads them from the cache, once they are put in place, finds every one, with the same turns
    read = [[(t.id, list(t.turns)) for t in r.transcripts] for r in runs]
    cache.commit()  # as a build that succeeds puts what it kept in place
    loaded = load_project(CONTENT, [runs_copy], _cache(tmp_path / "site", runs_copy, fresh=False))
    assert [[(t.id, list(t.turns)) for t in r.transcripts] for b in loaded.benchmarks for v in b.versions
            for r in v.runs] == read  # fmt: skip


def test_a_rebuild_reads_the_changed_run_ahead_and_takes_the_others_from_the_cache(runs_copy, tmp_path, monkeypatch):
    out = tmp_path / "site"
    cache = _cache(out, runs_copy, fresh=False)
    load_project(CONTENT, [runs_copy], cache)  # stores every run it read
    cache.commit()
    _break_runs(runs_copy)
    alone = _what_was_read(load(runs_copy))

    log = tmp_path / "pids.txt"
    _readers_pids(monkeypatch, log)
    again = load_project(CONTENT, [runs_copy], _cache(out, runs_copy, fresh=False))
    assert _what_was_read(again) == alone
    pids = log.read_text().split()
    # the unchanged runs come from the cache here; the changed ones (and the copy) are read in a worker
    main = str(os.getpid())
    assert pids.count(main) == 2  # uzbek-pack demo-model-a-run2 and halees-dual-layer demo-system-x
    assert len(pids) - 2 == 5 and set(pids) - {main}  # the four runs edited, and the copy


# ---- a changed run re-reads only its changed files, where its reader can take the others from the last read
TUCKER = "tuckerbench/demo-pilot-run1"


def _transcript_reads(monkeypatch: pytest.MonkeyPatch, log: Path) -> None:
    """Each TuckerBench transcript file read appends its name to log."""
    from site_src.systems.tuckerbench import reader

    _log_calls(monkeypatch, reader, "_read_transcript", log, lambda *args: args[2])


@pytest.mark.parametrize(
    ("change", "read_again"),
    [
        ("judgments", 0),  # the run judged again: no transcript is read again
        ("one transcript", 1),
        ("manifest", 48),  # a transcript's reading depends on the manifest (run id, entrants): all are read
    ],
)
def test_a_run_read_again_takes_its_unchanged_transcripts_from_the_last_read(
    change, read_again, runs_copy, tmp_path, monkeypatch
):
    """What the reader said of a kept file is said again, so the runs, problems and ignored files are what a read
    of every file gives (a transcript with a field the format lacks is kept, with its warning)."""
    run = runs_copy / TUCKER
    transcripts = sorted((run / "transcripts").rglob("*.json"))
    edit_json(transcripts[0], lambda t: t.update(provider_note="unknown field"))  # a warning, kept with the file
    out = tmp_path / "site"
    assert main(["--content", str(CONTENT), "--runs", str(runs_copy), "--out", str(out), "--quiet"]) == 0

    if change == "judgments":
        edit_jsonl(run / "judgments/judge-k.jsonl", 1, lambda r: r["scores"].update(fidelity=1))
    elif change == "one transcript":
        edit_json(transcripts[5], lambda t: t["turns"][-1].update(content="edited"))
    else:
        edit_json(run / "manifest.json", lambda m: m["entrants"][0].update(label="Renamed"))
    alone = _what_was_read(load(runs_copy))
    assert any("provider_note" in p for p in alone[0])

    log = tmp_path / "reads.txt"
    _transcript_reads(monkeypatch, log)
    again = load_project(CONTENT, [runs_copy], _cache(out, runs_copy, fresh=False))
    assert _what_was_read(again) == alone
    reads = log.read_text().split() if log.exists() else []
    assert len(reads) == read_again


def test_a_run_read_ahead_is_worked_out_by_its_worker_and_scores_as_one_process_scores_it(
    runs_copy, tmp_path, monkeypatch
):
    """The worker that reads a run also works out what scoring takes from that run alone (transcript scores, judge
    report, diagnostics), while its turns are in memory: the build's score phase then works none of it out and
    decodes no stored turn (but a missing transcript's, for its summary), and the release is the one a single
    process reading and scoring every run makes. TuckerBench's runs: the other systems' scorers work out nothing
    per run."""
    from site_src.scoring.release import build_release
    from site_src.systems.tuckerbench import judges, scoring

    runs = tmp_path / "tucker" / "runs"
    shutil.copytree(runs_copy / "tuckerbench", runs / "tuckerbench")
    second = runs / "tuckerbench/demo-pilot-run2"  # two runs: a run each for the two workers
    shutil.copytree(runs / "tuckerbench/demo-pilot-run1", second)
    edit_json(second / "manifest.json", lambda m: m.update(run_id="demo-pilot-run2", repeat_of="demo-pilot-run1"))
    alone = build_release(load(runs))  # no workers, no cache: scored here, from the runs as read

    log = tmp_path / "worked.txt"
    for module, name in (scoring, "score_run"), (judges, "run_report"):
        _log_calls(monkeypatch, module, name, log, lambda run, *rest, _n=name: f"{os.getpid()} {_n} {run.id}")
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    project = load_project(CONTENT, [runs], _cache(tmp_path / "site", runs, fresh=False))
    calls = [line.split() for line in log.read_text().splitlines()]
    tucker = [r.id for b in project.benchmarks if b.system == "tuckerbench" for v in b.versions for r in v.runs]
    assert sorted(run for _, _, run in calls) == sorted(tucker * 2) and len(tucker) == 2
    assert str(os.getpid()) not in {pid for pid, _, _ in calls}

    decoded: list[int] = []
    real = StoredList.load
    monkeypatch.setattr(StoredList, "load", lambda self: decoded.append(1) or real(self))
    ahead = build_release(project)
    monkeypatch.undo()
    assert len(log.read_text().splitlines()) == len(calls)  # nothing worked out again
    # of the turns, only a missing transcript's summary decodes them (it names its last turn's error)
    missing = sum(1 for v in ahead.views for tid in v.transcripts if v.summaries[tid].state == "missing")
    assert len(decoded) <= missing < sum(len(v.transcripts) for v in ahead.views)
    for mine, theirs in zip(alone.views, ahead.views, strict=True):
        assert mine.scored == theirs.scored and mine.judge_reports == theirs.judge_reports
        assert mine.diagnostics == theirs.diagnostics
