"""Read everything: benchmark definitions from content/, then every run directory, attached to its version.

This is the only entry point the rest of the pipeline needs: load_project() -> Project.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from ..jsonio import read_json
from ..model import Benchmark, PrivateKey, Run
from ..problems import InputError, Problem, Problems
from ..systems import by_format, by_marker, system_part, systems
from .content import load_benchmarks
from .rundir import find_run_dirs, list_files

FORMAT_VERSION = 1


def marker_for(run: Run) -> str:
    """The metadata file of a run's format, e.g. manifest.json for a TuckerBench run."""
    return by_format(run.format).marker


class RunCache(Protocol):
    """Where a build keeps the runs it read, keyed by their files, the code and the content."""

    def load(self, rel: str) -> tuple[Run, PrivateKey | None, list[Problem]] | None: ...

    def store(self, rel: str, run: Run, key: PrivateKey | None, warnings: list[Problem]) -> None: ...


@dataclass
class Project:
    benchmarks: list[Benchmark]
    problems: Problems
    ignored: list[tuple[str, str]] = field(default_factory=list)  # (file, why it is not published)
    content_dir: Path | None = None  # the inputs, which no output may overlap
    run_roots: list[Path] = field(default_factory=list)
    run_cache: RunCache | None = None  # runs read by an earlier build from the very same files (site/cache.py)

    def inputs(self) -> list[tuple[str, Path]]:
        named = [("the content folder", self.content_dir)] if self.content_dir else []
        return named + [("a runs folder", root) for root in self.run_roots]

    def benchmark(self, bench_id: str) -> Benchmark:
        return next(b for b in self.benchmarks if b.id == bench_id)


def load_project(
    content_dir: Path, run_roots: list[Path], problems: Problems | None = None, run_cache: RunCache | None = None
) -> Project:
    problems = problems or Problems()
    project = Project(load_benchmarks(content_dir, problems), problems, content_dir=content_dir, run_roots=run_roots)
    project.run_cache = run_cache
    by_id = {b.id: b for b in project.benchmarks}
    for root in run_roots:
        label = root.name or str(root)
        for run_dir in find_run_dirs(root, problems, label):
            rel = "/".join(filter(None, (label, run_dir.relative_to(root).as_posix().strip(".") or None)))
            try:
                _load_run(run_dir, rel, root, by_id, project)
            except InputError as exc:
                problems.items.append(exc.problem)
    for bench in project.benchmarks:
        for version in bench.versions:
            version.runs.sort(key=lambda r: r.id)
            _refuse_case_collisions(version, problems)
    return project


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


def _load_run(run_dir: Path, rel: str, root: Path, benchmarks: dict[str, Benchmark], project: Project) -> None:
    problems = project.problems
    # whatever each is: the read refuses odd ones
    markers = [s.marker for s in systems() if os.path.lexists(run_dir / s.marker)]
    if len(markers) > 1:
        problems.error(rel, f"a run directory holds one metadata file; found {', '.join(markers)}")
        return
    marker = markers[0]
    found = by_marker(marker)
    fmt, system, reader = found.run_format, found.id, system_part(found.id, "reader").read_run
    meta_rel = f"{rel}/{marker}"
    meta = read_json(run_dir / marker, meta_rel, problems)
    if not isinstance(meta, dict):
        problems.error(meta_rel, "expected a JSON object")
        return
    if meta.get("format") != fmt:
        problems.error(meta_rel, f"format is {meta.get('format')!r}; a {marker} run declares {fmt!r}", None, "format")
        return
    if meta.get("format_version") != FORMAT_VERSION:
        problems.error(
            meta_rel,
            f"unknown format_version {meta.get('format_version')!r}; this build reads {fmt} version {FORMAT_VERSION}",
            None,
            "format_version",
        )
        return
    bench = benchmarks.get(meta.get("benchmark", ""))
    if bench is None or bench.system != system:
        problems.error(
            meta_rel,
            f"benchmark {meta.get('benchmark')!r} is not a {system} benchmark under content/",
            None,
            "benchmark",
        )
        return
    files = list_files(run_dir, root, rel, problems)
    cached = project.run_cache.load(rel) if project.run_cache else None
    if cached:  # the same files read by the same code before: its warnings are said again, as a read would
        run, key, warnings = cached
        problems.items.extend(warnings)
    else:
        before = len(problems.items)
        result = reader(run_dir, rel, files, meta, bench, problems)
        if result is None:
            return
        run, key = result if isinstance(result, tuple) else (result, None)
        said = problems.items[before:]
        if project.run_cache and not any(p.severity == "error" for p in said):
            project.run_cache.store(rel, run, key, said)
    version = next(v for v in bench.versions if v.id == run.version_id)
    if any(r.id == run.id for r in version.runs):
        problems.error(
            meta_rel, f"run_id {run.id!r} is used by another run directory of {bench.id} {version.id}", None, "run_id"
        )
        return
    _attach(version, run, key)
    published = set(run.public_files)
    for f in files:
        if f not in published:
            why = (
                "private: fixed by the format as never published"
                if f.startswith("private/")
                else "not a file of the run format"
            )
            run.ignored_files.append(f)
            project.ignored.append((f"{rel}/{f}", why))


def _attach(version: Any, run: Run, key: PrivateKey | None) -> None:
    version.runs.append(run)
    if key is not None:
        version.private_keys[run.id] = key
