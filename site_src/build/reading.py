"""The read phase: every run directory, each taken from the build cache when its files did not change, the others
read in worker processes while the build loads those.

The readers know nothing of this: each run directory is opened and read by readers/project.py (open_run_dir,
read_opened), and the cache is asked only here, at the edge. A full build reads as many runs at once as there are
cores (at 10,000 transcripts its read took 9.4 s in one process, 4.3-5.7 s in two); a rebuild reads the changed runs
while it loads the others. Whichever process read each, the runs are added in the order they were found, so the
problems come out the same.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from .. import worked_out
from ..model import Benchmark, Project
from ..problems import Problems
from ..progress import SILENT, Progress
from ..readers.project import (
    RunDir,
    RunRead,
    add_run,
    find_runs,
    finish,
    named_version,
    open_run_dir,
    read_opened,
    start_project,
)
from .cache import BuildCache
from .config import BuildConfig
from .reads import in_batch, take_reads


@dataclass
class Read:
    """What the read phase gives: the project, and the run files whose records were taken unchanged from a read the
    last build's secret scan found clean (the scan does not walk those records again)."""

    project: Project
    scanned_clean: set[str]
    found: int = 0  # run directories read or taken


def read(
    config: BuildConfig, cache: BuildCache | None, progress: Progress = SILENT, batch: tuple[int, int] | None = None
) -> Read:
    """The project, every run directory read or taken from the cache, in the order found. A build of one version
    (--only) reads only the runs whose metadata names that version (and those that name none content/ defines, so
    their problems are said); with --redact-secrets it reads them all, so that every shard lists the release's
    redactions (the merge checks that they are the same). A read job (reads.py) reads only its batch of those; a
    build given --reads takes from them the runs they hold (reads.ReadsError when one cannot be taken)."""
    project = start_project(config.content, config.runs, Problems())
    found = runs_to_read(config, project, batch)
    benchmarks = {b.id: b for b in project.benchmarks}
    if config.reads and cache:
        take_reads(config.reads, found, cache)
    scanned_clean: set[str] = set()
    progress.reset(total=len(found))
    with _ReadAhead(found, benchmarks, cache) as ahead:
        for run_dir in found:
            got = ahead.outcome(run_dir)
            if got.derived:
                worked_out.of(got.run).update(got.derived)
            elif batch and got.run is not None and not got.loaded and not _failed(got.read):
                _worked_out(got.read, benchmarks)  # a read job's run read here: worked out before it is stored
            if cache and got.run is not None:
                _keep(got, cache)
                if got.taken and cache.prior_scanned_clean(got.rel):
                    scanned_clean |= {f"{got.rel}/{name}" for name in got.taken}
            add_run(project, got.read)
            progress.update(1)
    finish(project)
    return Read(project, scanned_clean, len(found))


def runs_to_read(config: BuildConfig, project: Project, batch: tuple[int, int] | None = None) -> list[RunDir]:
    """The run directories a build reads (see read), in the order found; with batch, a read job's of them."""
    found = find_runs(config.runs, project.problems) if config.content.is_dir() else []  # one error, not one a run
    if config.only and not config.redact_secrets:
        benchmarks = {b.id: b for b in project.benchmarks}
        found = [d for d in found if named_version(d, benchmarks) in (None, config.only)]
    return in_batch(found, batch) if batch else found


@dataclass
class _Got:
    """One run directory as the read phase got it: read here or in a worker (and then stored there), or loaded."""

    read: RunRead
    stored: bool = False  # stored in the cache by the worker process that read it
    loaded: bool = False  # taken from the cache
    derived: dict[str, Any] | None = None  # what that worker worked out from the run alone (worked_out)

    @property
    def run(self) -> Any:
        return self.read.run

    @property
    def rel(self) -> str:
        return self.read.rel

    @property
    def taken(self) -> frozenset[str]:
        return self.read.taken


def read_one(run_dir: RunDir, benchmarks: dict[str, Benchmark], cache: BuildCache | None) -> _Got:
    """Open a run directory and read it, or take it from the cache when it holds these very files."""
    opened = open_run_dir(run_dir, benchmarks)
    if not opened.bench_id:
        return _Got(opened)
    cached = cache.load(run_dir.rel) if cache else None
    if cached:  # the same files read by the same code before: its warnings are said again, as a read would
        opened.run, opened.key, opened.said = cached
        opened.problems.items.extend(cached[2])
        return _Got(opened, loaded=True)
    return _Got(read_opened(opened, benchmarks, cache.prior(run_dir.rel) if cache else None))


def _keep(got: _Got, cache: BuildCache) -> None:
    """Keep a run read in this build for the next one, unless its reader found an error: the worker that read it
    stored it already (the build adopts it, to keep what is worked out from it), or it is stored here."""
    if got.stored:
        cache.adopt(got.rel, got.run)
    elif not got.loaded and not _failed(got.read):
        cache.store(got.rel, got.run, got.read.key, got.read.said)


class _ReadAhead:
    """Reads in worker processes the run directories the cache does not hold, while this process takes the others
    from the cache, in order. Without a cache (a build of a project with nothing kept) this process reads every
    run."""

    def __init__(self, found: list[RunDir], benchmarks: dict[str, Benchmark], cache: BuildCache | None) -> None:
        self.benchmarks, self.cache = benchmarks, cache
        todo = [d for d in found if cache and not cache.has(d.rel)]
        self.ahead = {d.rel for d in todo}
        self.pool: Any = None
        self.results: Iterator[_Got] = iter(())
        jobs = min(os.cpu_count() or 1, len(todo))
        if cache and jobs and (jobs > 1 or len(todo) < len(found)):  # two cores busy, or one read beside the loads
            from ..scoring import dispatch  # noqa: F401 - for _worked_out, imported once, not in each worker

            global _WORK
            _WORK = (benchmarks, cache)  # inherited by the forked workers
            self.pool = multiprocessing.get_context("fork").Pool(jobs)
            self.results = self.pool.imap(_read_ahead, todo)  # in order: outcome() takes them as found
        else:
            self.ahead = set()

    def outcome(self, run_dir: RunDir) -> _Got:
        if run_dir.rel in self.ahead:
            return next(self.results)
        return read_one(run_dir, self.benchmarks, self.cache)

    def __enter__(self) -> _ReadAhead:
        return self

    def __exit__(self, *exc: object) -> None:
        global _WORK
        _WORK = None
        if self.pool is not None:
            self.pool.terminate()  # every result was taken, or the build is failing: nothing to wait for
            self.pool.join()


_WORK: tuple[dict[str, Benchmark], BuildCache] | None = None


def _read_ahead(run_dir: RunDir) -> _Got:
    """In a worker: read one run directory (never from the cache: the build sends only those it does not hold), with
    what an earlier build read from it, if there is that, and store it in the cache here. So its transcripts' turns
    and its judgments are written to disk where they were read, and go to the build as where they lie: the build
    never holds them (decoded there only to be written and dropped, turns left the build's memory fragmented: at
    10,000 transcripts its peak was 15 MB higher)."""
    assert _WORK is not None
    benchmarks, cache = _WORK
    opened = open_run_dir(run_dir, benchmarks)
    got = _Got(read_opened(opened, benchmarks, cache.prior(run_dir.rel)) if opened.bench_id else opened)
    if got.run is not None and not _failed(got.read):
        got.derived = _worked_out(got.read, benchmarks)
        cache.store(got.rel, got.run, got.read.key, got.read.said)
        got.stored = True
    return got


def _failed(read: RunRead) -> bool:
    """Whether its reader found an error in the run (then it is neither kept nor worked out)."""
    return any(p.severity == "error" for p in read.said)


def _worked_out(read: RunRead, benchmarks: dict[str, Benchmark]) -> dict[str, Any]:
    """In a worker (or in a read job, for a run it read itself): what scoring works out from the run alone
    (scoring/dispatch.py, work_out_run), worked out while its turns and judgments are in memory, before it is
    stored: the score phase then decodes none of them, and this work is spread over the cores. The build takes it
    with the run, as it would have worked it out."""
    from ..scoring.dispatch import work_out_run  # imported before the workers fork (_ReadAhead)

    bench = benchmarks[read.bench_id]
    version = next(v for v in bench.versions if v.id == read.run.version_id)
    work_out_run(bench, version, read.run, read.key)
    return dict(worked_out.of(read.run))
