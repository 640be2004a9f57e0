"""Read benchmark definitions from content/<benchmark>/: benchmark.yaml plus one folder per frozen version."""

from __future__ import annotations

import hashlib
import json
from fractions import Fraction
from pathlib import Path

from ..definitions import (
    CalibrationResponse,
    Dimension,
    PackDefinition,
    RubricDefinition,
    TuckerDefinition,
)
from ..jsonio import confined, read_bytes, read_json, read_jsonl, read_text, read_yaml
from ..model import Benchmark, BenchmarkVersion, Item
from ..problems import InputError, Problems
from ..validate import check


def sha256_bytes(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def files_hash(files: dict[str, str]) -> str:
    """Content hash of a set of frozen inputs: sha256 of the canonical JSON of {path: file hash}."""
    canonical = json.dumps(files, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return sha256_bytes(canonical.encode("utf-8"))


def load_benchmarks(content_dir: Path, problems: Problems) -> list[Benchmark]:
    benchmarks = []
    if not content_dir.is_dir():
        why = "is not a folder" if content_dir.exists() else "does not exist"
        problems.error(str(content_dir), f"content folder {why} (benchmark definitions live in content/<benchmark>/)")
        return []
    for bench_dir in sorted(p for p in content_dir.iterdir() if p.is_dir()):
        try:
            bench = _load_benchmark(content_dir, bench_dir, problems)
        except InputError as exc:
            problems.items.append(exc.problem)
            continue
        if bench:
            benchmarks.append(bench)
    return benchmarks


def _rel(content_dir: Path, path: Path) -> str:
    return f"content/{path.relative_to(content_dir).as_posix()}"


def _file(content_dir: Path, folder: Path, name: str, ref: str | None = None, field: str | None = None) -> Path:
    """A definition file, confined to the content folder. ref names the file that gave the path, if any."""
    return confined(folder, content_dir, name, ref or _rel(content_dir, folder / name), field)


def _load_benchmark(content_dir: Path, bench_dir: Path, problems: Problems) -> Benchmark | None:
    meta_path = bench_dir / "benchmark.yaml"
    rel = _rel(content_dir, meta_path)
    if not meta_path.is_file():
        problems.error(_rel(content_dir, bench_dir), "benchmark folder has no benchmark.yaml")
        return None
    meta = read_yaml(_file(content_dir, bench_dir, "benchmark.yaml"), rel, problems)
    if not check(meta, "benchmark", rel, None, problems):
        return None
    if meta["id"] != bench_dir.name:
        problems.error(rel, f"id {meta['id']!r} differs from the folder name {bench_dir.name!r}", None, "id")
        return None
    bench = Benchmark(
        id=meta["id"],
        title=meta["title"],
        system=meta["system"],
        summary=meta["summary"],
        methodology_md=read_text(
            _file(content_dir, bench_dir, meta["methodology"], rel, "methodology"),
            _rel(content_dir, bench_dir / meta["methodology"]),
            problems,
        ),
        limitations_md=read_text(
            _file(content_dir, bench_dir, meta["limitations"], rel, "limitations"),
            _rel(content_dir, bench_dir / meta["limitations"]),
            problems,
        ),
        rank_claims=meta["rank_claims"],
        definition_demo_note=meta.get("definition_demo_note", ""),
        statistics=dict(meta["statistics"]),
    )
    versions_dir = bench_dir / "versions"
    loader = {"uzbek-pack": _load_pack, "dual-layer": _load_rubric, "tuckerbench": _load_tucker}[bench.system]
    for vdir in sorted(p for p in versions_dir.iterdir() if p.is_dir()) if versions_dir.is_dir() else []:
        try:
            version = loader(content_dir, bench.id, vdir, problems)
        except InputError as exc:
            problems.items.append(exc.problem)
            continue
        if version:
            bench.versions.append(version)
    if not bench.versions:
        problems.error(_rel(content_dir, bench_dir), "benchmark has no valid version under versions/")
    return bench


def _load_pack(content_dir: Path, bench_id: str, vdir: Path, problems: Problems) -> BenchmarkVersion | None:
    rel = _rel(content_dir, vdir / "pack.yaml")
    spec = read_yaml(_file(content_dir, vdir, "pack.yaml"), rel, problems)
    if not check(spec, "pack", rel, None, problems):
        return None
    if spec["pack_version"] != vdir.name:
        problems.error(
            rel, f"pack_version {spec['pack_version']!r} differs from its folder {vdir.name!r}", None, "pack_version"
        )
        return None
    prompts_path = _file(content_dir, vdir, spec["prompts"], rel, "prompts")
    prel = _rel(content_dir, vdir / spec["prompts"])
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


def _load_rubric(content_dir: Path, bench_id: str, vdir: Path, problems: Problems) -> BenchmarkVersion | None:
    rel = _rel(content_dir, vdir / "rubric.yaml")
    spec = read_yaml(_file(content_dir, vdir, "rubric.yaml"), rel, problems)
    if not check(spec, "rubric", rel, None, problems):
        return None
    trel = _rel(content_dir, vdir / spec["tasks"])
    tasks_path = _file(content_dir, vdir, spec["tasks"], rel, "tasks")
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
            "rubric.yaml": sha256_bytes(read_bytes(_file(content_dir, vdir, "rubric.yaml"), rel)),
            tasks_path.name: sha256_bytes(read_bytes(tasks_path, trel)),
        }
    )
    return BenchmarkVersion(bench_id, spec["rubric_version"], digest, definition, items)


TUCKER_FILES = (
    "config/pilot.json",
    "config/scenarios.json",
    "config/calibration.json",
    "prompts/persona.md",
    "prompts/judge.md",
)


def _load_tucker(content_dir: Path, bench_id: str, vdir: Path, problems: Problems) -> BenchmarkVersion | None:
    def rel(name: str) -> str:
        return _rel(content_dir, vdir / name)

    missing = [n for n in TUCKER_FILES if not (vdir / n).is_file()]
    if missing:
        problems.error(_rel(content_dir, vdir), f"frozen input(s) missing: {', '.join(missing)}")
        return None
    paths = {n: _file(content_dir, vdir, n) for n in TUCKER_FILES}
    files = {n: sha256_bytes(read_bytes(paths[n], rel(n))) for n in TUCKER_FILES}
    pilot = read_json(paths["config/pilot.json"], rel("config/pilot.json"), problems)
    scen = read_json(paths["config/scenarios.json"], rel("config/scenarios.json"), problems)
    cal = read_json(paths["config/calibration.json"], rel("config/calibration.json"), problems)
    ok = check(pilot, "tucker-pilot", rel("config/pilot.json"), None, problems)
    ok &= check(scen, "tucker-scenarios", rel("config/scenarios.json"), None, problems)
    ok &= check(cal, "tucker-calibration", rel("config/calibration.json"), None, problems)
    if not ok:
        return None
    if pilot["version"] != vdir.name:
        problems.error(
            rel("config/pilot.json"), f"version {pilot['version']!r} differs from its folder", None, "version"
        )
        return None
    groups = {g["id"]: Fraction(g["weight"]) / Fraction(g["weight_denominator"]) for g in pilot["groups"]}
    if sum(groups.values()) != 1:
        problems.error(rel("config/pilot.json"), "group weights must add up to 1", None, "groups")
        return None
    items = [
        Item(
            id=s["id"],
            title=s["title"],
            category=s["context"],
            kind=s["kind"],
            prompt=s["situation"],
            user_turns=list(s["user_turns"]),
        )
        for s in scen["scenarios"]
    ]
    for item in items:
        if item.kind == "single" and len(item.user_turns) != 1:
            problems.error(
                rel("config/scenarios.json"),
                "a single-response scenario has exactly one user turn",
                f"scenario {item.id}",
                "user_turns",
            )
    definition = TuckerDefinition(
        version=pilot["version"],
        content_hash=files_hash(files),
        files=files,
        status=pilot.get("status", ""),
        repetitions=pilot["repetitions"],
        judges_required=pilot["judges_required"],
        dimensions=[
            Dimension(d["id"], d["title"], float(d["weight"]), tuple(d["applies_to"])) for d in pilot["dimensions"]
        ],
        group_weights={k: float(v) for k, v in groups.items()},
        scale_max=float(pilot["scale"]["max"]),
        calibration=[
            CalibrationResponse(r["id"], r["title"], r["scenario_id"], r["response"]) for r in cal["responses"]
        ],
        profanity_lexicon=list(pilot.get("profanity_lexicon", [])),
        uncertainty=dict(pilot["uncertainty"]),
        refusal_patterns=list(pilot.get("refusal_patterns", [])),
        settings={"entrants": pilot.get("entrant_settings", {}), "judges": pilot.get("judge_settings", {})},
        documents={
            "persona.md": read_text(paths["prompts/persona.md"], rel("prompts/persona.md"), problems),
            "judge.md": read_text(paths["prompts/judge.md"], rel("prompts/judge.md"), problems),
        },
    )
    return BenchmarkVersion(bench_id, pilot["version"], definition.content_hash, definition, items)
