"""`build.py import SOURCE PATH…`: turn another tool's result files into run directories, all or nothing.

A system that can import (its System names an `importer`) has an importer.py whose plan() reads the source files
and returns an ImportPlan: the files of each new run directory (the source files byte for byte, beside a small
metadata file naming them) and, for a benchmark not yet under content/, its definition. Nothing is written until
the whole plan has been read back by the same readers a build uses, from a staging folder, without a problem:
then each run directory is moved into place in one rename. Sources are only read; an existing run directory or
benchmark definition is never replaced.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import replace
from pathlib import Path

from .problems import Problems
from .readers.importplan import ImportFailed, ImportPlan
from .readers.project import load_project
from .scoring.dispatch import score_version
from .systems import system_part, systems


def importers() -> dict[str, str]:
    """Command-line source name -> system id."""
    return {s.importer: s.id for s in systems() if s.importer}


def run_import(
    source: str,
    paths: list[Path],
    bench_id: str,
    version: str | None,
    content_dir: Path,
    runs_root: Path,
    options: dict[str, object],
) -> int:
    known = importers()
    if source not in known:
        print(f"error: unknown source {source!r}; this build imports {', '.join(sorted(known))}")
        return 1
    bench_dir = content_dir / bench_id
    try:
        plan = system_part(known[source], "importer").plan(
            paths, bench_id, version, bench_dir if bench_dir.exists() else None, options
        )
    except ImportFailed as exc:
        print(f"error: {exc}\nnothing was written")
        return 1
    targets = [runs_root / bench_id / run_id for run_id in plan.runs]
    taken = [t for t in targets if os.path.lexists(t)]
    if taken:
        print(f"error: {taken[0]} already exists; an import never replaces a run directory\nnothing was written")
        return 1
    runs_root.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".import-", dir=runs_root))  # hidden: no build reads it
    try:
        problems = _stage_and_check(plan, staging, content_dir)
        if problems.failed():
            for p in problems.items:
                print(replace(p, file=plan.named_for_user(p.file)))
            print("nothing was written")
            return 1
        if plan.content:
            shutil.copytree(staging / "content" / bench_id, bench_dir)
        for run_id, target in zip(plan.runs, targets, strict=True):
            target.parent.mkdir(parents=True, exist_ok=True)
            os.rename(staging / "runs" / run_id, target)
            print(f"imported {target}")
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    for note in plan.notes:
        print(f"note: {note}")
    return 0


def _stage_and_check(plan: ImportPlan, staging: Path, content_dir: Path) -> Problems:
    """Write the plan under staging/ and read it back as a build would, scores included."""
    content = staging / "content"
    bench = content / plan.benchmark
    if plan.content:
        for rel, data in plan.content.items():
            (bench / rel).parent.mkdir(parents=True, exist_ok=True)
            (bench / rel).write_bytes(data)
    else:
        shutil.copytree(content_dir / plan.benchmark, bench)
    for run_id, files in plan.runs.items():
        for name, data in files.items():
            (staging / "runs" / run_id).mkdir(parents=True, exist_ok=True)
            (staging / "runs" / run_id / name).write_bytes(data)
    problems = Problems()
    project = load_project(content, [staging / "runs"], problems)
    for b in project.benchmarks:
        for v in b.versions:
            if v.runs:
                score_version(b, v)
    return problems
