"""`build.py import inspect LOG… --benchmark ID`: each Inspect log becomes a run directory read in place.

The log is copied byte for byte beside an inspect-run.json naming it (with its sha256). A benchmark not yet under
content/ gets its definition from the logs: benchmark.yaml, methodology and limitations pages saying where the
results come from, and versions/<version>/task.json listing the samples (the items). An existing definition is
never changed: a log with a sample it does not hold is refused (import it into a new version).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from ...jsonio import loads_strict, read_bytes
from ...problems import InputError
from ...readers.content import sha256_bytes
from ...readers.importplan import ImportFailed, ImportPlan
from .definition import LETTERS
from .logfile import MAX_LOG_BYTES, InspectLog, LogError, read_log
from .reader import _input_text, _target_text, item_id

_SAFE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,200}\.(eval|json)$")

BENCHMARK_YAML = """id: {id}
title: {title}
system: inspect
summary: >-
  Results of the Inspect AI task {task}, read from its eval logs and recomputed from their samples.
rank_claims: true
statistics: {{intervals: false, rank_separation: false, run_variation: false, judges: false, calibration: false}}
methodology: methodology.md
limitations: limitations.md
discrepancy_tolerance: 1.0e-9
display:
  attempt: epoch
  item_spec: Sample
  breakdown: Per-scorer metrics
  score_unit: ""
  result_files: scores
  missing_item: sample
"""

METHODOLOGY = """Each entrant is one Inspect AI eval log of the task `{task}`, imported unchanged.

The site recomputes each log's results table from its samples, as Inspect computes it: each score value is mapped
to a number (C 1, P 0.5, I 0, N 0; "yes"/"true" 1, "no"/"false" 0; numbers as themselves), a sample's epochs are
reduced with the log's reducer (mean unless the log names another), then each metric is computed over the reduced
values. accuracy, mean, stderr, std and var are recomputed and compared with the log's stored table; a stored figure
that differs by more than 1e-9 is listed as a discrepancy. Other metrics (such as bootstrap_stderr, which draws
random resamples) are shown as reported by the log, not recomputed.

Messages are shown as recorded: system, user, assistant (with its tool calls) and tool results. The model's
reasoning is shown only where the run opts in; raw model requests and responses are never published.
"""

LIMITATIONS = """A log that did not finish (status cancelled, error or started), or lacks a sample, an epoch or a
score, is shown as incomplete and has no score. A log run with a sample limit covers only part of the dataset; its
row says how much. Scores are only as good as the task's scorers, which this site does not re-run.
"""


def plan(
    paths: list[Path], bench_id: str, version: str | None, bench_dir: Path | None, options: dict[str, Any]
) -> ImportPlan:
    logs: list[tuple[Path, bytes, InspectLog]] = []
    for path in paths:
        try:
            data = read_bytes(path, str(path), MAX_LOG_BYTES)
            logs.append((path, data, read_log(path.name, data)))
        except InputError as exc:
            raise ImportFailed(str(exc.problem)) from None
        except LogError as exc:
            raise ImportFailed(f"{path}: {exc}") from None
    if not logs:
        raise ImportFailed("no log given")
    tasks = {log.eval.get("task") for _, _, log in logs}
    if len(tasks) != 1:
        raise ImportFailed(
            f"the logs are of different tasks ({', '.join(sorted(map(str, tasks)))}); import each task "
            "into its own benchmark"
        )
    task = tasks.pop()
    version = version or f"v{logs[0][2].eval.get('task_version', 0)}"
    out = ImportPlan(bench_id)
    existing = _existing_samples(bench_dir, version)
    samples = dict(existing or {})
    for path, _, log in logs:
        for s in log.samples or _ids_only(log):
            iid = item_id(s.get("id"))
            recorded = "input" in s  # a log without samples gives ids only: their inputs are not known
            entry = {
                "id": iid,
                "sample_id": s.get("id"),
                "input": _input_text(s.get("input")) if recorded else None,
                "target": _target_text(s.get("target")) if recorded else None,
            }
            known = samples.get(iid)
            if known is None and existing is not None:
                raise ImportFailed(
                    f"{path}: sample {s.get('id')!r} is not in {bench_id} {version}; import the log "
                    "into a new version (--version)"
                )
            if known is not None and entry["input"] is not None and known["input"] is None:
                entry["sample_id"] = known["sample_id"]  # a log with samples completes ids known from one without
            elif known is not None and (str(known["sample_id"]), known["input"]) != (
                str(entry["sample_id"]),
                entry["input"] if entry["input"] is not None else known["input"],
            ):
                raise ImportFailed(
                    f"{path}: sample {s.get('id')!r} differs from the same sample of another log "
                    f"or of {bench_id} {version}"
                )
            samples[iid] = entry
    if existing is None:
        if bench_dir is not None:
            raise ImportFailed(
                f"{bench_dir} exists but has no version {version}; an import never changes a "
                "definition (choose a new benchmark id)"
            )
        scorers = _scorers(logs[0][2])
        dataset = logs[0][2].eval.get("dataset") or {}
        task_json = {
            "format": "inspect-task",
            "format_version": 1,
            "task": task,
            "task_version": logs[0][2].eval.get("task_version", 0),
            "dataset": {k: dataset.get(k) for k in ("name", "location", "samples")},
            "scorers": scorers,
            "score_ranges": _score_ranges([log for _, _, log in logs]),
            "samples": sorted(samples.values(), key=lambda s: _natural(s["id"])),
        }
        out.content = {
            "benchmark.yaml": BENCHMARK_YAML.format(id=bench_id, title=f"{task} (Inspect AI)", task=task).encode(),
            "methodology.md": METHODOLOGY.format(task=task).encode(),
            "limitations.md": LIMITATIONS.encode(),
            f"versions/{version}/task.json": (json.dumps(task_json, indent=2, ensure_ascii=False) + "\n").encode(),
        }
    for path, data, log in logs:
        name = path.name if _SAFE.match(path.name) else f"log{path.suffix}"
        model = str(log.eval.get("model") or "unknown-model")
        run_id = item_id(f"{model}-{log.eval.get('run_id') or path.stem}").lower()[:80].strip("-.")
        if run_id in out.runs:
            raise ImportFailed(f"{path}: the same log (eval run {log.eval.get('run_id')!r}) is given twice")
        meta = {
            "format": "inspect-run",
            "format_version": 1,
            "benchmark": bench_id,
            "version": version,
            "run_id": run_id,
            "log": name,
            "log_sha256": sha256_bytes(data),
            "demo": False,
            "entrant": {"id": item_id(model).lower(), "label": model},
            "publish_reasoning": bool(options.get("publish_reasoning")),
            "publish_images": bool(options.get("publish_images")),
            "source": f"Inspect AI log {path.name}, imported unchanged",
        }
        out.runs[run_id] = {"inspect-run.json": (json.dumps(meta, indent=2) + "\n").encode(), name: data}
        out.sources[run_id] = str(path)
        if log.status != "success":
            out.notes.append(f"{path.name}: status {log.status!r}: shown as incomplete, without a score")
        if not log.samples:
            out.notes.append(
                f"{path.name}: the log holds no samples (written without them): its results are shown as the log "
                "reports them, not recomputed"
            )
    return out


def _score_ranges(logs: list[InspectLog]) -> dict[str, list[float]]:
    """The range of each score column whose every value is one of Inspect's letters (C, P, I, N) or a boolean:
    0–1, as Inspect maps them. Numeric values declare no range (the import does not guess one from the data);
    task.json may declare it by hand."""
    kinds: dict[str, bool] = {}
    for log in logs:
        for sample in log.samples or []:
            for name, score in (sample.get("scores") or {}).items():
                value = score.get("value") if isinstance(score, dict) else None
                for column, v in (value if isinstance(value, dict) else {name: value}).items():
                    letter = (isinstance(v, str) and v in LETTERS) or isinstance(v, bool)
                    kinds[str(column)] = kinds.get(str(column), True) and letter
    return {column: [0.0, 1.0] for column, letter in kinds.items() if letter}


def _scorers(log: InspectLog) -> list[str]:
    """The log's scorers: as its results table names them (a dict scorer's keys stay under their scorer), or, for a
    log that stopped before its results were written, as its eval spec lists them."""
    named = [s.get("scorer") or s.get("name") for s in (log.results or {}).get("scores", []) if isinstance(s, dict)]
    named = named or [s.get("name") for s in log.eval.get("scorers") or [] if isinstance(s, dict)]
    return list(dict.fromkeys(n for n in named if isinstance(n, str) and n))


def _ids_only(log: InspectLog) -> list[dict[str, Any]]:
    """The samples of a log written without them (`--no-log-samples`), known by their ids alone."""
    ids = (log.eval.get("dataset") or {}).get("sample_ids")
    return [{"id": i} for i in ids] if isinstance(ids, list) else []


def _natural(text: str) -> tuple[int, str]:
    return (int(text), "") if text.isdigit() else (1 << 62, text)


def _existing_samples(bench_dir: Path | None, version: str) -> dict[str, dict[str, Any]] | None:
    path = bench_dir / "versions" / version / "task.json" if bench_dir else None
    if path is None or not path.is_file():
        return None
    try:
        spec = loads_strict(read_bytes(path, str(path)).decode("utf-8"))
        return {s["id"]: s for s in spec["samples"]}
    except InputError as exc:
        raise ImportFailed(str(exc.problem)) from None
    except (ValueError, KeyError, TypeError) as exc:
        raise ImportFailed(f"{path}: cannot be read ({exc})") from None
