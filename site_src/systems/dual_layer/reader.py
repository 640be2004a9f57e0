"""Reader for dual-layer rubric runs (format dual-layer-run/1).

<run>/run.json, then per task <run>/tasks/<task_id>/iteration-<k>.output.txt with its grading result as
iteration-<k>.grading.json (the seed's JSON form) or iteration-<k>.grading.md (the seed's Markdown form).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ...jsonio import read_bytes, read_json, read_text, read_yaml
from ...model import Benchmark, BenchmarkVersion, Entrant, Item, Run, Transcript, Turn
from ...problems import InputError, Problems
from ...readers.content import content_rel, definition_file, files_hash, sha256_bytes, version_named
from ...validate import check, prune
from . import SYSTEM
from .definition import RubricDefinition
from .records import Iteration, RubricGrading

_ITER = re.compile(r"^tasks/([A-Za-z0-9._-]+)/iteration-([1-9][0-9]*)\.(output\.txt|grading\.json|grading\.md)$")
_MD_LINE = re.compile(r"^\s*[-*]\s+([A-Za-z_]+)\s*:\s*(.*?)\s*$")
_MD_INT = {"global_score", "threshold", "binary_decision", "iteration"}


def parse_markdown_grading(text: str, categories: list[str], file: str, problems: Problems) -> dict[str, Any] | None:
    """Read the seed's Markdown form ("### Grading Result" then "- key: value" lines) into the JSON form's fields."""
    if not re.search(r"^#{1,6}\s*Grading Result\s*$", text, re.M):
        problems.error(file, "Markdown grading result has no '### Grading Result' heading")
        return None
    out: dict[str, Any] = {"category_scores": {}}
    feedback: list[str] = []
    first_line: dict[str, int] = {}
    ok = True
    for number, line in enumerate(text.splitlines(), start=1):
        m = _MD_LINE.match(line)
        if not m:
            continue
        key, value = m.group(1), m.group(2)
        record = f"line {number}"
        if key != "feedback" and key in first_line:  # as the JSON form refuses a duplicate key: no last-one-wins
            problems.error(file, f"{key} is given twice (first on line {first_line[key]})", record, key)
            ok = False
            continue
        first_line.setdefault(key, number)
        try:
            if key in categories:
                out["category_scores"][key] = int(value)
            elif key in _MD_INT:
                out[key] = int(value)
            elif key == "confidence":
                out[key] = float(value)
            elif key in ("rubric_version", "result"):
                out[key] = value
            elif key == "feedback":
                feedback.append(value)
            else:
                problems.warning(
                    file, "key is not part of the grading result; it is neither read nor published", record, key
                )
        except ValueError:
            problems.error(file, f"{value!r} is not a number", record, key)
            ok = False
    if feedback:
        out["feedback"] = feedback
    return out if ok else None


def read_run(
    run_dir: Path, rel: str, files: list[str], meta: dict[str, Any], bench: Benchmark, problems: Problems
) -> Run | None:
    meta_rel = f"{rel}/run.json"
    if not check(meta, "rubric-run", meta_rel, None, problems):
        return None
    meta = prune(meta, "rubric-run")  # unknown fields were warned about; they are never published
    version = version_named(bench, meta, SYSTEM.version_field, meta_rel, problems, "rubric version")
    if version is None:
        return None
    definition: RubricDefinition = version.definition
    max_iter = meta.get("max_iterations", definition.max_iterations)
    entrant = Entrant.from_record(meta["entrant"])
    run = Run(
        id=meta["run_id"],
        benchmark_id=bench.id,
        version_id=version.id,
        path=rel,
        format="dual-layer-run/1",
        demo=meta["demo"],
        demo_note=meta.get("demo_note", ""),
        metadata=meta,
        entrants=[entrant],
    )
    found: dict[str, dict[int, dict[str, str]]] = {}
    public = ["run.json"]
    for f in files:
        m = _ITER.match(f)
        if m:
            found.setdefault(m.group(1), {}).setdefault(int(m.group(2)), {})[m.group(3)] = f
            public.append(f)
    tasks = {i.id: i for i in version.items}
    for task_id in sorted(set(found) - set(tasks)):
        problems.error(f"{rel}/tasks/{task_id}", f"task {task_id} is not in rubric version {version.id}")
    for task in version.items:
        iters = found.get(task.id, {})
        transcript = Transcript(
            id=f"{run.id}--{task.id}",
            run_id=run.id,
            entrant_id=entrant.id,
            item_id=task.id,
            attempt=1,
            status="completed" if iters else "missing",
            source_file=f"{rel}/tasks/{task.id}",
            source_record=f"task {task.id}",
            turns=[Turn("user", task.prompt)],
        )
        numbers = sorted(iters)
        if numbers and numbers != list(range(1, len(numbers) + 1)):
            problems.error(transcript.source_file, f"iterations must be numbered 1..n without gaps; found {numbers}")
            continue
        if len(numbers) > max_iter:
            problems.error(transcript.source_file, f"{len(numbers)} iterations exceed max_iterations {max_iter}")
            continue
        for k in numbers:
            it = _read_iteration(run_dir, rel, k, iters[k], definition, problems)
            if it is None:
                transcript.status = "invalid"
                continue
            transcript.iterations.append(it)
            transcript.turns.append(Turn("assistant", it.output))
        run.transcripts.append(transcript)
    run.public_files = sorted(public)
    return run


def _read_iteration(
    run_dir: Path, rel: str, k: int, paths: dict[str, str], d: RubricDefinition, problems: Problems
) -> Iteration | None:
    if "output.txt" not in paths:
        problems.error(f"{rel}/{next(iter(paths.values()))}", f"iteration {k} has a grading but no output file")
        return None
    out_rel = f"{rel}/{paths['output.txt']}"
    output = read_text(run_dir / paths["output.txt"], out_rel, problems)
    if "grading.json" in paths and "grading.md" in paths:
        problems.error(out_rel, f"iteration {k} has both a JSON and a Markdown grading result; keep one")
        return None
    gpath = paths.get("grading.json") or paths.get("grading.md")
    grading = None
    if gpath:
        g_rel = f"{rel}/{gpath}"
        form = "json" if gpath.endswith(".json") else "markdown"
        try:
            raw = (
                read_json(run_dir / gpath, g_rel, problems)
                if form == "json"
                else parse_markdown_grading(read_text(run_dir / gpath, g_rel, problems), d.categories, g_rel, problems)
            )
        except InputError as exc:
            problems.items.append(exc.problem)
            raw = None
        if raw is not None and check(raw, "rubric-grading", g_rel, None, problems):
            cats = raw["category_scores"]
            unknown = sorted(set(cats) - set(d.categories))
            if unknown:
                problems.error(
                    g_rel,
                    f"unknown categor{'y' if len(unknown) == 1 else 'ies'} {', '.join(unknown)}",
                    None,
                    "category_scores",
                )
            elif raw.get("iteration") not in (None, k):
                problems.error(
                    g_rel, f"iteration {raw['iteration']} recorded in iteration-{k}'s file", None, "iteration"
                )
            else:
                grading = RubricGrading(
                    category_scores=dict(cats),
                    global_score=raw.get("global_score"),
                    threshold=raw.get("threshold"),
                    binary_decision=raw.get("binary_decision"),
                    confidence=raw.get("confidence"),
                    result=raw.get("result"),
                    iteration=raw.get("iteration"),
                    feedback=list(raw.get("feedback", [])),
                    rubric_version=raw.get("rubric_version"),
                    source_form=form,
                )
                if grading.rubric_version != d.rubric_version:
                    problems.error(
                        g_rel,
                        f"rubric_version {grading.rubric_version!r} differs from the run's {d.rubric_version!r}",
                        None,
                        "rubric_version",
                    )
                    grading = None
        gpath = g_rel
    return Iteration(number=k, output=output, output_file=out_rel, grading=grading, grading_file=gpath)


def load_version(content_dir: Path, bench_id: str, vdir: Path, problems: Problems) -> BenchmarkVersion | None:
    rel = content_rel(content_dir, vdir / "rubric.yaml")
    spec = read_yaml(definition_file(content_dir, vdir, "rubric.yaml"), rel, problems)
    if not check(spec, "rubric", rel, None, problems):
        return None
    trel = content_rel(content_dir, vdir / spec["tasks"])
    tasks_path = definition_file(content_dir, vdir, spec["tasks"], rel, "tasks")
    tasks = read_yaml(tasks_path, trel, problems)
    if not check(tasks, "rubric-tasks", trel, None, problems):
        return None
    items = [
        Item(id=t["id"], title=t["title"], category=t["category"], kind="task", prompt=t["contract"]) for t in tasks
    ]
    definition = RubricDefinition(
        rubric_version=spec["rubric_version"],
        categories=list(spec["categories"]),
        threshold=spec["threshold"],
        max_iterations=spec["max_iterations"],
        rounding=spec["rounding"],
        low_confidence_below=float(spec["low_confidence_below"]),
        bands=[(b["min"], b["label"]) for b in spec.get("bands", [])],
        uncertainty=dict(spec["uncertainty"]),
    )
    digest = files_hash(
        {
            "rubric.yaml": sha256_bytes(read_bytes(definition_file(content_dir, vdir, "rubric.yaml"), rel)),
            tasks_path.name: sha256_bytes(read_bytes(tasks_path, trel)),
        }
    )
    return BenchmarkVersion(bench_id, spec["rubric_version"], digest, definition, items)
