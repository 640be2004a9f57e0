"""Read benchmark definitions from content/<benchmark>/: benchmark.yaml plus one folder per frozen version."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from ..jsonio import confined, read_bytes, read_text, read_yaml
from ..model import Benchmark, BenchmarkVersion
from ..problems import InputError, Problems
from ..systems import system_part, systems
from ..validate import check

# top-level folders of the site: no benchmark may be one
RESERVED_IDS = frozenset({"search", "static", "pagefind", "publish-manifest"})


def sha256_bytes(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def files_hash(files: dict[str, str]) -> str:
    """Content hash of a set of frozen inputs: sha256 of the canonical JSON of {path: file hash}."""
    canonical = json.dumps(files, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return sha256_bytes(canonical.encode("utf-8"))


def named_files(
    run_dir: Path, rel: str, files: list[str], named: dict[str, str], meta_name: str, limit: int, problems: Problems
) -> dict[str, bytes]:
    """The bytes of each file a run's metadata file (meta_name) names with its sha256, read in place and checked;
    {} with an error naming the file at the first that is missing or whose bytes differ (an import copies files byte
    for byte and records their digests: a file changed since is refused, never read as something else)."""
    meta_rel, data = f"{rel}/{meta_name}", {}
    for name, digest in named.items():
        if name not in files:
            problems.error(meta_rel, f"{name} is not in the run directory", None, f"files.{name}")
            return {}
        data[name] = read_bytes(run_dir / name, f"{rel}/{name}", limit)
        if sha256_bytes(data[name]) != digest:
            problems.error(f"{rel}/{name}", f"the file's bytes differ from its sha256 in {meta_name}")
            return {}
    return data


def version_named(
    bench: Benchmark, meta: dict[str, Any], field: str, meta_rel: str, problems: Problems, noun: str = "version"
) -> BenchmarkVersion | None:
    """The version of bench a run's metadata names in field, or None with an error naming the file and the field."""
    version = next((v for v in bench.versions if v.id == meta[field]), None)
    if version is None:
        problems.error(
            meta_rel, f"no definition of {noun} {meta[field]!r} under content/{bench.id}/versions/", None, field
        )
    return version


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


def content_rel(content_dir: Path, path: Path) -> str:
    return f"content/{path.relative_to(content_dir).as_posix()}"


def definition_file(
    content_dir: Path, folder: Path, name: str, ref: str | None = None, field: str | None = None
) -> Path:
    """A definition file, confined to the content folder. ref names the file that gave the path, if any."""
    return confined(folder, content_dir, name, ref or content_rel(content_dir, folder / name), field)


def _load_benchmark(content_dir: Path, bench_dir: Path, problems: Problems) -> Benchmark | None:
    meta_path = bench_dir / "benchmark.yaml"
    rel = content_rel(content_dir, meta_path)
    if not meta_path.is_file():
        problems.error(content_rel(content_dir, bench_dir), "benchmark folder has no benchmark.yaml")
        return None
    meta = read_yaml(definition_file(content_dir, bench_dir, "benchmark.yaml"), rel, problems)
    if not check(meta, "benchmark", rel, None, problems):
        return None
    if meta["id"] in RESERVED_IDS:
        problems.error(rel, f"id {meta['id']!r} is a folder of the site itself; choose another", None, "id")
        return None
    policy = meta.get("incomplete_entrants", "not_ranked")
    if policy != "not_ranked" and not _system(meta["system"]).ranks_over_present:
        problems.error(
            rel,
            f"incomplete_entrants: {policy} is a source's convention the system {meta['system']!r} does not follow: "
            "its incomplete entrants are never ranked (remove the key)",
            None,
            "incomplete_entrants",
        )
        return None
    for key in ("judges", "calibration"):
        if meta["statistics"].get(key) and not _system(meta["system"]).judges:
            problems.warning(
                rel,
                f"statistics.{key}: true, but the system {meta['system']!r} has no judges to report on: "
                "no such page is made (set it to false)",
                None,
                f"statistics.{key}",
            )
    if meta["id"] != bench_dir.name:
        problems.error(rel, f"id {meta['id']!r} differs from the folder name {bench_dir.name!r}", None, "id")
        return None
    bench = Benchmark(
        id=meta["id"],
        title=meta["title"],
        system=meta["system"],
        summary=meta["summary"],
        methodology_md=read_text(
            definition_file(content_dir, bench_dir, meta["methodology"], rel, "methodology"),
            content_rel(content_dir, bench_dir / meta["methodology"]),
            problems,
        ),
        limitations_md=read_text(
            definition_file(content_dir, bench_dir, meta["limitations"], rel, "limitations"),
            content_rel(content_dir, bench_dir / meta["limitations"]),
            problems,
        ),
        rank_claims=meta["rank_claims"],
        definition_demo_note=meta.get("definition_demo_note", ""),
        statistics=dict(meta["statistics"]),
        display=dict(meta["display"]),
        layout=meta.get("layout", "full"),
    )
    versions_dir = bench_dir / "versions"
    loader = system_part(bench.system, "reader").load_version
    for vdir in sorted(p for p in versions_dir.iterdir() if p.is_dir()) if versions_dir.is_dir() else []:
        try:
            version = loader(content_dir, bench.id, vdir, problems)
        except InputError as exc:
            problems.items.append(exc.problem)
            continue
        if version:
            tolerance = meta.get("discrepancy_tolerance")
            version.discrepancy_tolerance = float(tolerance) if tolerance is not None else None
            version.incomplete_entrants = meta.get("incomplete_entrants", "not_ranked")
            bench.versions.append(version)
    bench.changelog = _changelog(content_dir, bench_dir, bench, problems)
    if not bench.versions:
        problems.error(content_rel(content_dir, bench_dir), "benchmark has no valid version under versions/")
    return bench


def _system(system_id: str) -> Any:
    return next(s for s in systems() if s.id == system_id)


def _changelog(content_dir: Path, bench_dir: Path, bench: Benchmark, problems: Problems) -> list[dict[str, str]]:
    """The author's changelog.yaml (format evalboard-changelog/1), newest entry first; none where there is no file.
    An entry naming a version the benchmark does not have is a warning: the entry is kept, as written."""
    path = bench_dir / "changelog.yaml"
    if not path.is_file():
        return []
    rel = content_rel(content_dir, path)
    data = read_yaml(definition_file(content_dir, bench_dir, "changelog.yaml"), rel, problems)
    if not check(data, "changelog", rel, None, problems):
        return []
    known = {v.id for v in bench.versions}
    for n, entry in enumerate(data["entries"]):
        if "version" in entry and entry["version"] not in known:
            problems.warning(rel, f"version {entry['version']!r} is not one of this benchmark's", f"entries[{n}]")
    return sorted(data["entries"], key=lambda e: e["date"], reverse=True)
