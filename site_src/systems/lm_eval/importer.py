"""`build.py import lm-eval RESULTS.json… --benchmark ID`: lm-evaluation-harness output, as `--output_path` with
`--log_samples` writes it: <model>/results_<time>.json and, beside it, samples_<task>_<time>.jsonl per task.

Each results file becomes a run directory: results.json and each task's samples_<task>.jsonl, byte for byte, beside
an lm-eval-run.json naming them with their sha256. A benchmark not yet under content/ gets its definition from the
first file: each task's metrics and their aggregation (its config's metric_list), the number of documents evaluated
(n-samples), the groups (group_subtasks), and the documents whose samples were logged (prompt and target). A later
run must have the same tasks and log no document the definition lacks (else it is a new version).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from ...jsonio import read_bytes
from ...problems import InputError
from ...readers.importplan import ImportFailed, ImportPlan
from .reader import MAX_FILE_BYTES, parse_json, prompt_of

BENCHMARK_YAML = """id: {id}
title: {id}
system: lm-eval
summary: >-
  lm-evaluation-harness results ({tasks}), imported with their logged samples; every figure a mean of the samples
  is recomputed from them, the others are shown as the harness reported them.
rank_claims: true
statistics: {{intervals: false, rank_separation: false, run_variation: false, judges: false, calibration: false}}
methodology: methodology.md
limitations: limitations.md
display:
  attempt: sample
  item_spec: Document
  breakdown: Per task and metric
  score_unit: ""
  result_files: samples
  missing_item: document
"""

METHODOLOGY = """Each model was evaluated by EleutherAI's lm-evaluation-harness on {tasks}; its results file and the
samples it logged (--log_samples) were imported unchanged. A metric a task aggregates by its mean (accuracy, exact
match) is recomputed here from the per-sample values, with its standard error, and compared with the figure the
harness reported; with fewer samples logged than documents evaluated it is shown over those present. Other
metrics are shown as reported.
"""

LIMITATIONS = """Only the documents whose samples were logged can be browsed or recomputed. Scores of different
tasks are not comparable with one another; the leaderboard's score is a plain mean of each task's first metric.
"""


def _load(path: Path) -> tuple[bytes, Any]:
    try:
        data = read_bytes(path, str(path), MAX_FILE_BYTES)
        return data, parse_json(data, str(path))
    except InputError as exc:
        raise ImportFailed(str(exc.problem)) from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise ImportFailed(f"{path}: not valid JSON ({exc})") from None


def _samples(path: Path) -> tuple[bytes, list[dict[str, Any]]]:
    try:
        data = read_bytes(path, str(path), MAX_FILE_BYTES)
    except InputError as exc:
        raise ImportFailed(str(exc.problem)) from None
    out = []
    for n, line in enumerate(data.split(b"\n"), start=1):
        if line.strip():
            try:
                out.append(parse_json(line, f"line {n}"))
            except (ValueError, UnicodeDecodeError) as exc:
                raise ImportFailed(f"{path}: line {n} is not valid JSON ({exc})") from None
    return data, out


def _tasks(results: dict[str, Any], path: Path) -> tuple[dict[str, Any], dict[str, list[str]]]:
    """The leaf tasks (those with a config) with their metrics and document counts, and the groups."""
    groups = {g: list(ts) for g, ts in (results.get("group_subtasks") or {}).items() if ts}
    configs = results.get("configs") or {}
    tasks = {}
    for name in results.get("results", {}):
        if name in groups:
            continue
        config = configs.get(name)
        if not isinstance(config, dict) or not isinstance(config.get("metric_list"), list):
            raise ImportFailed(f"{path}: task {name!r} has no config with a metric_list")
        counts = (results.get("n-samples") or {}).get(name) or {}
        tasks[name] = {
            "metrics": [{"metric": str(m.get("metric")), "aggregation": str(m.get("aggregation", "mean")),
                         "higher_is_better": bool(m.get("higher_is_better", True))} for m in config["metric_list"]],
            "documents": int(counts.get("effective", counts.get("original", 0))),
            "output_type": str(config.get("output_type", "")),
            "num_fewshot": config.get("num_fewshot"),
        }  # fmt: skip
    if not tasks:
        raise ImportFailed(f"{path}: reports no task")
    return tasks, groups


def _documents(logged: dict[str, list[dict[str, Any]]]) -> list[dict[str, Any]]:
    docs, seen = [], set()
    for task, samples in sorted(logged.items()):
        for s in samples:
            key = (task, s.get("doc_id"))
            if key in seen or not isinstance(s.get("doc_id"), int):
                continue
            seen.add(key)
            docs.append({"task": task, "doc_id": s["doc_id"], "prompt": prompt_of(s.get("arguments")),
                         "target": str(s.get("target", "")), "doc_hash": str(s.get("doc_hash", ""))})  # fmt: skip
    return sorted(docs, key=lambda d: (d["task"], d["doc_id"]))


def plan(
    paths: list[Path], bench_id: str, version: str | None, bench_dir: Path | None, options: dict[str, Any]
) -> ImportPlan:
    version, out = version or "v1", ImportPlan(bench_id)
    spec: dict[str, Any] | None = _existing(bench_dir, version)
    if bench_dir is not None and spec is None:
        raise ImportFailed(f"{bench_dir} exists but has no version {version}; an import never changes a definition")
    known_docs = {(d["task"], d["doc_id"]) for d in spec["documents"]} if spec else None
    all_docs: dict[tuple[str, int], dict[str, Any]] = {}  # every document logged, by (task, doc_id)
    for path in paths:
        match = re.fullmatch(r"results_(.+)\.json", path.name)
        if not match:
            raise ImportFailed(f"{path}: not a results_<time>.json file of the harness")
        data, results = _load(path)
        if not isinstance(results, dict) or not isinstance(results.get("results"), dict):
            raise ImportFailed(f"{path}: has no results object: not an lm-evaluation-harness results file")
        tasks, groups = _tasks(results, path)
        if spec is not None and (tasks != spec["tasks"] or groups != spec["groups"]):
            raise ImportFailed(f"{path}: its tasks differ from {bench_id} {version}'s (a new version?)")
        spec = spec or {"format": "lm-eval-tasks", "format_version": 1, "tasks": tasks, "groups": groups}
        files, logged = {"results.json": data}, {}
        for task in tasks:
            samples_path = path.with_name(f"samples_{task}_{match.group(1)}.jsonl")
            if samples_path.is_file():
                files[f"samples_{task}.jsonl"], logged[task] = _samples(samples_path)
        docs = _documents(logged)
        if known_docs is not None and any((d["task"], d["doc_id"]) not in known_docs for d in docs):
            raise ImportFailed(f"{path}: logs documents {bench_id} {version} does not list (a new version?)")
        for d in docs:
            all_docs.setdefault((d["task"], d["doc_id"]), d)
        model = str(results.get("model_name") or path.parent.name)
        source = f"lm-evaluation-harness output: {path.name}, {len(files) - 1} samples file(s)"
        out.add_model_run(path, "lm-eval-run", version, model, files, source)
    if bench_dir is None and spec is not None:
        names = ", ".join(spec["tasks"])
        out.content = {
            "benchmark.yaml": BENCHMARK_YAML.format(id=bench_id, tasks=names).encode(),
            "methodology.md": METHODOLOGY.format(tasks=names).encode(),
            "limitations.md": LIMITATIONS.encode(),
            f"versions/{version}/lm-eval.json": (json.dumps(spec, indent=1) + "\n").encode(),
            f"versions/{version}/documents.jsonl": "".join(
                json.dumps(d, ensure_ascii=False) + "\n" for _, d in sorted(all_docs.items())
            ).encode(),  # fmt: skip
        }
    return out


def _existing(bench_dir: Path | None, version: str) -> dict[str, Any] | None:
    vdir = bench_dir / "versions" / version if bench_dir else None
    if vdir is None or not (vdir / "lm-eval.json").is_file():
        return None
    try:
        spec = json.loads((vdir / "lm-eval.json").read_text(encoding="utf-8"))
        docs = [
            json.loads(line) for line in (vdir / "documents.jsonl").read_text(encoding="utf-8").splitlines() if line
        ]
    except (OSError, ValueError) as exc:
        raise ImportFailed(f"{vdir}: cannot be read ({exc})") from None
    return {**spec, "documents": docs}
