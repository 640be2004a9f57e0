"""Read everything: benchmark definitions from content/, then every run directory, attached to its version.

load_project() -> Project reads it all, one run directory after another. Its steps are there for a caller that
reads run directories its own way (the build room reads them in worker processes, and takes unchanged ones from its
cache): start_project, find_runs, then for each run directory open_run_dir and read_opened (or a run it already
has), add_run, and finish.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..jsonio import read_json
from ..model import Benchmark, PrivateKey, Project, Run
from ..problems import InputError, Problem, Problems
from ..progress import SILENT, Progress
from ..systems import by_format, by_marker, system_part, systems
from .content import load_benchmarks
from .duplicates import refuse_duplicates
from .rundir import find_run_dirs, list_files
from .unread import why_unread

FORMAT_VERSION = 1


def marker_for(run: Run) -> str:
    """The metadata file of a run's format, e.g. manifest.json for a TuckerBench run."""
    return by_format(run.format).marker


@dataclass(frozen=True)
class Prior:
    """A run directory as it was read before, from the very same code and content, and the names of its files
    unchanged since. A reader whose module sets REUSES_UNCHANGED_FILES = True is given one, when its caller has one,
    as read_run's keyword `prior`: it may take what it read from an unchanged file, with what it said about it,
    instead of reading the file again, provided what else that depended on is unchanged too (a TuckerBench
    transcript also depends on the run's manifest). load gives the earlier read when it is asked for (it may be
    asked in another process). A reader adds to taken the files whose records it took."""

    loader: Callable[[], tuple[Run, PrivateKey | None, list[Problem]] | None]  # the read then, or None if gone
    unchanged: frozenset[str]  # file names, relative to the run directory
    taken: set[str] = field(default_factory=set, compare=False)  # file names, filled in by the reader

    def load(self) -> tuple[Run, list[Problem]] | None:
        """The run as read then, and what its reader said (warnings only: a read with errors is not kept)."""
        found = self.loader()
        return None if found is None else (found[0], found[2])


@dataclass(frozen=True)
class RunDir:
    path: Path  # the folder
    rel: str  # as problems name it: the runs folder's name, then the path below it
    root: Path  # the runs folder it was found in


@dataclass
class RunRead:
    """What reading one run directory gave: its problems, and the run unless they stopped the read."""

    found: RunDir
    problems: Problems
    bench_id: str = ""
    meta_rel: str = ""  # the run's metadata file
    meta: dict[str, Any] = field(default_factory=dict)
    files: list[str] = field(default_factory=list)
    run: Run | None = None
    key: PrivateKey | None = None
    said: list[Problem] = field(default_factory=list)  # what the system's reader said (after the checks here)
    taken: frozenset[str] = frozenset()  # files whose records the reader took from a prior read

    @property
    def rel(self) -> str:
        return self.found.rel


def load_project(
    content_dir: Path, run_roots: list[Path], problems: Problems | None = None, progress: Progress = SILENT
) -> Project:
    """The definitions and every run directory below run_roots, read and attached to their versions; progress, when
    given, counts the run directories as they are read."""
    project = start_project(content_dir, run_roots, problems or Problems())
    found = find_runs(run_roots, project.problems) if content_dir.is_dir() else []
    benchmarks = {b.id: b for b in project.benchmarks}
    progress.reset(total=len(found))
    for run_dir in found:
        add_run(project, read_opened(open_run_dir(run_dir, benchmarks), benchmarks))
        progress.update(1)
    finish(project)
    return project


def start_project(content_dir: Path, run_roots: list[Path], problems: Problems) -> Project:
    """The project with its definitions read, and no runs yet."""
    return Project(load_benchmarks(content_dir, problems), problems, content_dir=content_dir, run_roots=run_roots)


def find_runs(run_roots: list[Path], problems: Problems) -> list[RunDir]:
    """Every run directory below the runs folders, in the order their problems are reported. A caller whose content
    folder is missing reads none: each run would only repeat that its benchmark is undefined."""
    found: list[RunDir] = []
    for root in run_roots:
        label = root.name or str(root)
        for run_dir in find_run_dirs(root, problems, label):
            rel = "/".join(filter(None, (label, run_dir.relative_to(root).as_posix().strip(".") or None)))
            found.append(RunDir(run_dir, rel, root))
    return found


def open_run_dir(found: RunDir, benchmarks: dict[str, Benchmark]) -> RunRead:
    """The checks before a run directory's files are read: one metadata file, of a known format and version, for a
    benchmark of its system; and the list of its files. It depends on nothing read from another run directory (so it
    can run in another process); its problems are its own until add_run adds them."""
    out = RunRead(found, Problems())
    problems, rel = out.problems, found.rel
    try:
        markers = [s.marker for s in systems() if os.path.lexists(found.path / s.marker)]  # whatever each is
        if len(markers) > 1:
            problems.error(rel, f"a run directory holds one metadata file; found {', '.join(markers)}")
            return out
        system = by_marker(markers[0])
        meta_rel = out.meta_rel = f"{rel}/{system.marker}"
        meta = read_json(found.path / system.marker, meta_rel, problems)
        problem = _metadata_problem(meta, system, benchmarks)
        if problem:
            problems.error(meta_rel, *problem)
            return out
        out.meta, out.bench_id = meta, meta["benchmark"]
        out.files = list_files(found.path, found.root, rel, problems)
    except InputError as exc:
        problems.items.append(exc.problem)
    return out


def named_version(found: RunDir, benchmarks: dict[str, Benchmark]) -> str | None:
    """The "benchmark/version" a run directory's metadata file names (its benchmark and its system's version_field),
    read before the run is: a build of one version reads only that version's runs. None when it names no version
    content/ defines, or cannot be read: the run is then read, and its reader says what is wrong."""
    markers = [s for s in systems() if os.path.lexists(found.path / s.marker)]
    if len(markers) != 1:
        return None
    problems = Problems()  # what is wrong with the file is said when the run is read
    try:
        meta = read_json(found.path / markers[0].marker, found.rel, problems)
    except InputError:
        return None
    bench = benchmarks.get(meta.get("benchmark")) if isinstance(meta, dict) else None
    version = meta.get(markers[0].version_field) if bench else None
    return f"{bench.id}/{version}" if bench and any(v.id == version for v in bench.versions) else None


def _metadata_problem(meta: Any, system: Any, benchmarks: dict[str, Benchmark]) -> tuple[str, None, str] | None:
    """What is wrong with a run's metadata file before its reader reads it: (message, record, field), or None."""
    if not isinstance(meta, dict):
        return "expected a JSON object", None, ""
    if meta.get("format") != system.run_format:
        return f"format is {meta.get('format')!r}; a {system.marker} run declares {system.run_format!r}", None, "format"
    if meta.get("format_version") != FORMAT_VERSION:
        return (
            f"unknown format_version {meta.get('format_version')!r}; this build reads {system.run_format} version "
            f"{FORMAT_VERSION}",
            None,
            "format_version",
        )
    bench = benchmarks.get(meta.get("benchmark", ""))
    if bench is None or bench.system != system.id:
        return f"benchmark {meta.get('benchmark')!r} is not a {system.id} benchmark under content/", None, "benchmark"
    return None


def read_opened(opened: RunRead, benchmarks: dict[str, Benchmark], prior: Prior | None = None) -> RunRead:
    """Read an opened run directory's files with its system's reader (given a prior read, when the reader takes
    one); opened is returned with the run and what the reader said (as it is, when opening found a problem)."""
    if not opened.bench_id:
        return opened
    found, problems = opened.found, opened.problems
    bench = benchmarks[opened.bench_id]
    module = system_part(bench.system, "reader")
    before = len(problems.items)
    try:
        reuses = module.REUSES_UNCHANGED_FILES and prior is not None
        extra = {"prior": prior} if reuses else {}
        result = module.read_run(found.path, found.rel, opened.files, opened.meta, bench, problems, **extra)
    except InputError as exc:
        problems.items.append(exc.problem)
        return opened
    if result is not None:
        opened.run, opened.key = result if isinstance(result, tuple) else (result, None)
        opened.said = problems.items[before:]
        opened.taken = frozenset(prior.taken) if reuses and prior else frozenset()
    return opened


def add_run(project: Project, read: RunRead) -> None:
    """Add one run directory's problems to the project's, and its run, if it was read, to its version."""
    problems = project.problems
    problems.items.extend(read.problems.items)
    problems.per_file.update(read.problems.per_file)  # each file belongs to one run directory
    run = read.run
    if run is None:
        return
    bench = project.benchmark(read.bench_id)
    version = next(v for v in bench.versions if v.id == run.version_id)
    other = next((r for r in version.runs if r.id == run.id), None)
    if other is not None:
        problems.error(
            read.meta_rel,
            f"run_id {run.id!r} is also the run_id of {other.path} ({bench.id} {version.id}): one of the two folders "
            "is a copy, or needs its own run_id",
            None,
            "run_id",
        )
        return
    version.runs.append(run)
    if read.key is not None:
        version.private_keys[run.id] = read.key
    accounted = set(run.public_files) | set(run.read_files)
    for f in read.files:
        if f not in accounted:
            why, warn = why_unread(f, run.public_files + run.read_files)
            run.ignored_files.append(f)
            project.ignored.append((f"{read.rel}/{f}", why))
            if warn:
                problems.warning(f"{read.rel}/{f}", why)


def finish(project: Project) -> None:
    """Once every run is added: each version's runs in order of their ids, ids that collide refused, and runs whose
    outputs are another's refused unless declared a repeat or a rejudge (a rejudge replaces its original)."""
    for bench in project.benchmarks:
        for version in bench.versions:
            version.runs.sort(key=lambda r: r.id)
            _refuse_case_collisions(version, project.problems)
            refuse_duplicates(version, project.problems, project.ignored, marker_for)


def _refuse_case_collisions(version: Any, problems: Problems) -> None:
    """Ids become folder names: two that differ only in case would overwrite each other on a case-insensitive disk
    (macOS, Windows) or host. Such runs are refused, both of them, rather than one silently winning."""
    for kind, ids in (
        ("run_id", [r.id for r in version.runs]),
        ("entrant id", sorted({e.id for r in version.runs for e in r.entrants})),
    ):
        seen: dict[str, str] = {}
        for i in ids:
            other = seen.setdefault(i.casefold(), i)
            if other != i:
                runs = [r for r in version.runs if r.id in (i, other) or {e.id for e in r.entrants} & {i, other}]
                for run in runs:
                    problems.error(
                        f"{run.path}/{marker_for(run)}",
                        f"{kind} {i!r} and {other!r} differ only in case; their pages would collide",
                    )
                version.runs = [r for r in version.runs if r not in runs]
