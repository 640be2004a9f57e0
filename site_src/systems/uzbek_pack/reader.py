"""Reader for Uzbek instruction pack runs: <run>/metadata.json and <run>/responses.jsonl (format uzbek-pack-run/1)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ...jsonio import read_bytes, read_jsonl, read_yaml
from ...model import Benchmark, BenchmarkVersion, Entrant, Item, Run, Transcript, Turn
from ...problems import Problems
from ...readers.content import content_rel, definition_file, sha256_bytes, version_named
from ...results import named
from ...validate import check, prune
from . import SYSTEM
from .definition import PackDefinition
from .records import GradingRevision, PackGrading

PUBLIC_FILES = ("metadata.json", "responses.jsonl")


def plain(value: Any) -> Any:
    """A metadata value, or None where the run records why it has none."""
    return None if isinstance(value, dict) and "unavailable" in value else value


def _grading(raw: dict[str, Any]) -> PackGrading:
    return PackGrading(raw["outcome"], raw["reviewer"], dict(raw["checks"]), raw["notes"], raw.get("graded_at"))


def read_run(
    run_dir: Path, rel: str, files: list[str], meta: dict[str, Any], bench: Benchmark, problems: Problems
) -> Run | None:
    meta_rel = f"{rel}/metadata.json"
    if not check(meta, "pack-metadata", meta_rel, None, problems):
        return None
    meta = prune(meta, "pack-metadata")  # unknown fields were warned about; they are never published
    version = version_named(bench, meta, SYSTEM.version_field, meta_rel, problems, "pack version")
    if version is None:
        return None
    if meta["corpus_hash"] != version.content_hash:
        problems.error(
            meta_rel,
            f"corpus_hash differs from pack version {version.id} ({version.content_hash}): the run "
            "used a different prompts.jsonl; add that pack as its own version",
            None,
            "corpus_hash",
        )
        return None
    model = meta["model"]
    entrant = Entrant(
        id=model["id"],
        label=model["name"],
        selector=plain(model.get("version")),
        provider=plain(model.get("provider")),
        family=plain(model.get("family")),
        settings=dict(meta["settings"]),
    )
    run = Run(
        id=meta["run_id"],
        benchmark_id=bench.id,
        version_id=version.id,
        path=rel,
        format="uzbek-pack-run/1",
        demo=meta["demo"],
        demo_note=meta.get("demo_note", ""),
        metadata=meta,
        entrants=[entrant],
    )
    resp_rel = f"{rel}/responses.jsonl"
    if "responses.jsonl" not in files:
        problems.error(rel, "run has no responses.jsonl")
        return None
    cases = {i.id: i for i in version.items}
    attempts = meta["attempts_per_case"]
    seen: dict[tuple[str, int], int] = {}
    lines = 0
    for line, rec in read_jsonl(run_dir / "responses.jsonl", resp_rel, problems):
        lines += 1
        record = f"line {line}"
        if not check(rec, "pack-response", resp_rel, record, problems):
            continue
        key = (rec["case_id"], rec["attempt"])
        record = f"line {line} (case_id {key[0]}, attempt {key[1]})"
        if key in seen:
            problems.error(
                resp_rel, f"duplicate record for case {key[0]} attempt {key[1]} (first on line {seen[key]})", record
            )
            continue
        seen[key] = line
        case = cases.get(rec["case_id"])
        if case is None:
            problems.error(resp_rel, f"case_id {rec['case_id']} is not in pack version {version.id}", record, "case_id")
            continue
        if rec["attempt"] > attempts:
            problems.error(
                resp_rel, f"attempt {rec['attempt']} exceeds attempts_per_case {attempts}", record, "attempt"
            )
            continue
        if not _consistent(rec, case.kind, list(case.spec.get("checks", {})), resp_rel, record, problems):
            continue
        content = rec["raw_output"]
        turn_state = (
            "error"
            if rec["status"] == "error"
            else ("empty" if content == "" else ("truncated" if rec["truncated"] else "ok"))
        )
        turns = [Turn("user", case.prompt)]
        if rec["status"] != "not_run":
            turns.append(
                Turn(
                    "assistant",
                    content,
                    state=turn_state,
                    completed_at=rec["collected_at"],
                    error=rec["error"],
                    truncated=rec["truncated"],
                )
            )
        run.transcripts.append(
            Transcript(
                id=f"{run.id}--{case.id}--a{rec['attempt']}",
                run_id=run.id,
                entrant_id=entrant.id,
                item_id=case.id,
                attempt=rec["attempt"],
                status=rec["status"],
                source_file=resp_rel,
                source_record=record,
                turns=turns,
                collected_at=rec["collected_at"],
                error=rec["error"],
                truncated=rec["truncated"],
                grading=_grading(rec["grading"]) if rec["grading"] else None,
                grading_history=[
                    GradingRevision(_grading(h["grading"]), h["replaced_at"], h["reason"])
                    for h in rec.get("grading_history", [])
                ],
            )
        )
    if not lines:
        problems.error(
            resp_rel,
            f"holds no response: one line per case and attempt is expected ({len(cases) * attempts} here); a case "
            "not yet run is a line with status not_run",
        )
    for case in version.items:  # a case with no record at all is missing: it reduces coverage
        for attempt in range(1, attempts + 1):
            if (case.id, attempt) not in seen:
                run.transcripts.append(
                    Transcript(
                        id=f"{run.id}--{case.id}--a{attempt}",
                        run_id=run.id,
                        entrant_id=entrant.id,
                        item_id=case.id,
                        attempt=attempt,
                        status="missing",
                        source_file=resp_rel,
                        source_record="(no record)",
                        turns=[Turn("user", case.prompt)],
                    )
                )
    run.transcripts.sort(key=lambda t: (t.attempt, t.item_id))
    run.public_files = [f for f in files if f in PUBLIC_FILES]
    return run


def _consistent(
    rec: dict[str, Any], kind: str, check_ids: list[str], file: str, record: str, problems: Problems
) -> bool:
    ok = True
    status, output, grading = rec["status"], rec["raw_output"], rec["grading"]
    if status == "completed" and output is None:
        problems.error(
            file, "a completed response needs raw_output (use status error or not_run)", record, "raw_output"
        )
        ok = False
    if status != "completed" and output is not None:
        problems.error(file, f"status {status} must have raw_output null", record, "raw_output")
        ok = False
    if status == "error" and not rec["error"]:
        problems.error(file, "an error response needs a short error text", record, "error")
        ok = False
    for where, g in [("grading", grading)] + [
        (f"grading_history[{i}].grading", h["grading"]) for i, h in enumerate(rec.get("grading_history", []))
    ]:
        if g is None:
            continue
        if status != "completed" and g["outcome"] != "ungraded":
            problems.error(
                file, f"outcome {g['outcome']} given to a response with status {status}", record, f"{where}.outcome"
            )
            ok = False
        expected = set(check_ids) if kind == "checklist" else {"comparison"}
        marks = set(g["checks"])
        if marks - expected:
            problems.error(
                file,
                f"unknown {named('check', sorted(marks - expected))}; this case has {', '.join(sorted(expected))}",
                record,
                f"{where}.checks",
            )
            ok = False
        elif g["outcome"] != "ungraded" and kind == "checklist" and marks != expected:
            problems.error(file, f"{named('check', sorted(expected - marks))} not marked", record, f"{where}.checks")
            ok = False
    return ok


def load_version(content_dir: Path, bench_id: str, vdir: Path, problems: Problems) -> BenchmarkVersion | None:
    rel = content_rel(content_dir, vdir / "pack.yaml")
    spec = read_yaml(definition_file(content_dir, vdir, "pack.yaml"), rel, problems)
    if not check(spec, "pack", rel, None, problems):
        return None
    if spec["pack_version"] != vdir.name:
        problems.error(
            rel, f"pack_version {spec['pack_version']!r} differs from its folder {vdir.name!r}", None, "pack_version"
        )
        return None
    prompts_path = definition_file(content_dir, vdir, spec["prompts"], rel, "prompts")
    prel = content_rel(content_dir, vdir / spec["prompts"])
    categories = [(c["id"], c["title"]) for c in spec["categories"]]
    items: list[Item] = []
    seen: set[str] = set()
    for line, case in read_jsonl(prompts_path, prel, problems):
        record = f"line {line}"
        if not check(case, "pack-case", prel, record, problems):
            continue
        if case["case_id"] in seen:
            problems.error(prel, f"duplicate case_id {case['case_id']}", record, "case_id")
            continue
        if case["category"] not in dict(categories):
            problems.error(prel, f"category {case['category']!r} is not declared in pack.yaml", record, "category")
            continue
        seen.add(case["case_id"])
        items.append(
            Item(
                id=case["case_id"],
                title=f"Case {case['case_id']}",
                category=case["category"],
                kind=case["type"],
                prompt=case["prompt"],
                spec=case["specification"],
                notes=case.get("notes", ""),
            )
        )
    if len(items) != spec["cases"]:
        problems.error(prel, f"pack declares {spec['cases']} cases but {len(items)} valid cases were read")
    for cat_id, _ in categories:
        n = sum(1 for i in items if i.category == cat_id)
        if n != spec["cases_per_category"]:
            problems.error(prel, f"category {cat_id} has {n} cases, pack.yaml declares {spec['cases_per_category']}")
    definition = PackDefinition(
        pack_version=spec["pack_version"],
        corpus_hash=sha256_bytes(read_bytes(prompts_path, prel)),
        glyphs=tuple(spec["apostrophe_glyphs"]),
        categories=categories,
        cases_per_category=spec["cases_per_category"],
        case_count=spec["cases"],
        prompts_file=prel,
        uncertainty=dict(spec["uncertainty"]),
    )
    return BenchmarkVersion(bench_id, spec["pack_version"], definition.corpus_hash, definition, items)
