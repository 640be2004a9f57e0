"""Recompute an Inspect log's results table from its samples, as Inspect computes it.

Per scorer: each sample's values across epochs are reduced with the log's reducer (mean unless the log names
another), then the metrics are computed over the reduced values. Values map to numbers as Inspect's
value_to_float() maps them: C 1, P 0.5, I 0, N 0, "yes"/"true" 1, "no"/"false" 0, numeric strings and numbers as
themselves. Metrics Inspect computes deterministically (accuracy, mean, stderr, std, var) are recomputed and
compared with the stored table; any other (bootstrap_stderr draws random resamples) is shown as reported by the
log, not recomputed. A log that did not finish (cancelled, error, started), or lacks a sample, an epoch or a score,
is incomplete: its row has no score.
"""

from __future__ import annotations

import math
import statistics as stats
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from ...model import BenchmarkVersion, Run
from ...results import (
    Cell,
    Coverage,
    Discrepancy,
    Flag,
    Leaderboard,
    Row,
    Scored,
    assign_ranks,
    disagree,
    order_rows,
    plural,
)
from ...scoring.discrepancy import agrees, compared
from ...scoring.statistics import no_intervals
from ...scoring.uncertainty import wilson
from .definition import InspectDefinition, metric_range

DIFFERENCE_SCALE = 1.0
RECOMPUTED = ("accuracy", "mean", "stderr", "std", "var")
PRIMARY = ("accuracy", "mean")


def value_to_float(value: Any) -> float | None:
    """Inspect's default value_to_float; None for a value it cannot map (a list or a dict)."""
    if isinstance(value, bool | int | float):
        return float(value)
    if value == "C":
        return 1.0
    if value == "P":
        return 0.5
    if value in ("I", "N"):
        return 0.0
    if isinstance(value, str):
        low = value.lower()
        if low in ("yes", "true"):
            return 1.0
        if low in ("no", "false"):
            return 0.0
        try:
            number = float(value)
        except ValueError:
            return None
        return number if math.isfinite(number) else None
    return None


def reduce(values: list[float], reducer: str) -> float:
    """One sample's epochs reduced as Inspect's reducer of that name reduces scalar values."""
    if reducer == "mean":
        return stats.mean(values)
    if reducer == "median":
        return stats.median(values)
    if reducer == "max":
        return max(values)
    if reducer == "mode":
        return Counter(values).most_common(1)[0][0]
    if reducer.startswith("pass_at_"):
        k = int(reducer.removeprefix("pass_at_"))
        total, correct = len(values), sum(v >= 1.0 for v in values)
        if total < k:
            return math.nan
        if total - correct < k:
            return 1.0
        prod = 1.0
        for x in range(total - correct + 1, total + 1):
            prod *= 1.0 - k / x
        return 1.0 - prod
    if reducer.startswith("at_least_"):
        k = int(reducer.removeprefix("at_least_"))
        return 1.0 if sum(v >= 1.0 for v in values) >= k else 0.0
    raise ValueError(f"reducer {reducer!r} is not one this build recomputes")


def metric(name: str, values: list[float]) -> float:
    n = len(values)
    if name in ("accuracy", "mean"):
        return sum(values) / n if n else 0.0
    if n < 2:  # Inspect returns 0 where the sample deviation is undefined
        return 0.0
    var = stats.variance(values)  # ddof = 1, as numpy's std(ddof=1)
    if name == "var":
        return var
    if name == "std":
        return math.sqrt(var)
    return math.sqrt(var) / math.sqrt(n)  # stderr


@dataclass
class ScorerResult:
    name: str
    reducer: str
    reduced: dict[str, float]  # item id -> reduced value
    metrics: dict[str, float]  # recomputed
    reported: dict[str, float]  # stored in the log and not recomputable here: shown as the log reports them
    interval: tuple[float, float, str] | None = None  # 95% (low, high, method) of its accuracy or mean


@dataclass
class LogResult:
    status: str
    scorers: list[ScorerResult] = field(default_factory=list)


@dataclass
class SampleResult:
    status: str
    # column -> (value as recorded, as a number). A column is a scorer, or one key of a scorer whose value is a
    # dict: Inspect reports each key as its own results row, named by the key
    values: dict[str, tuple[Any, float | None]]
    answers: dict[str, str]  # scorer -> the answer it extracted
    explanations: dict[str, str]  # scorer -> its explanation
    scorer_of: dict[str, str] = field(default_factory=dict)  # column -> the scorer that gave it


def _sample_result(t: Any) -> SampleResult:
    out = SampleResult(t.status, {}, {}, {})
    for name, s in (t.record.get("scores") or {}).items():
        if not isinstance(s, dict):
            continue
        value = s.get("value")
        columns = value if isinstance(value, dict) else {name: value}
        for column, v in columns.items():
            out.values[str(column)] = (v, value_to_float(v))
            out.scorer_of[str(column)] = name
        if s.get("answer") is not None:
            out.answers[name] = str(s["answer"])
        if s.get("explanation") is not None:
            out.explanations[name] = str(s["explanation"])
    return out


def _entries_from_samples(run: Run, d: InspectDefinition, samples: dict[str, SampleResult]) -> list[dict[str, Any]]:
    """The results rows of a log that stopped before writing its results table: one per scorer, or per key of a
    scorer whose values are dicts (in the order the samples give them), each with the metrics its eval spec names."""
    specs = {s.get("name"): s for s in run.stored_scores.get("scorer_specs") or [] if isinstance(s, dict)}
    columns: dict[str, str] = {}
    for sample in samples.values():
        for column, scorer in sample.scorer_of.items():
            columns.setdefault(column, scorer)
    out = []
    for scorer in d.scorers:
        metrics = (specs.get(scorer) or {}).get("metrics")
        keys = [c for c, s in columns.items() if s == scorer] or (
            list(metrics) if isinstance(metrics, dict) else [scorer]
        )
        for key in keys:
            named = metrics.get(key) if isinstance(metrics, dict) else metrics
            names = [m["name"].split("/")[-1] for m in named or [] if isinstance(m, dict) and m.get("name")]
            out.append({"name": key, "scorer": scorer, "metrics": {m: {} for m in names}})
    return out


def score_run(
    run: Run, d: InspectDefinition, samples: dict[str, SampleResult], tolerance: float | None
) -> tuple[LogResult, list[Discrepancy]]:
    results = run.stored_scores.get("results") or {}
    stored_scores = results.get("scores") or _entries_from_samples(run, d, samples)
    stored_reductions = {r.get("scorer"): r for r in run.stored_scores.get("reductions") or [] if isinstance(r, dict)}
    out = LogResult(run.metadata.get("status") or "started")
    discrepancies: list[Discrepancy] = []
    file = run.stored_scores_file or run.path
    item_of = {sample_id: item for item, sample_id in d.sample_ids.items()}
    for entry in stored_scores:
        name = entry.get("name") or entry.get("scorer")
        reducer = entry.get("reducer") or "mean"
        per_item: dict[str, list[float]] = {}
        for t in run.transcripts:
            value = samples[t.id].values.get(name, (None, None))[1]
            if t.status == "completed" and value is not None:
                per_item.setdefault(t.item_id, []).append(value)
        try:
            reduced = {i: reduce(v, reducer) for i, v in sorted(per_item.items())}
        except ValueError:
            reduced = {}
        values = [v for v in reduced.values() if not math.isnan(v)]
        metrics, reported = {}, {}
        for mname, m in (entry.get("metrics") or {}).items():
            value = m.get("value") if isinstance(m, dict) else None
            if mname in RECOMPUTED and reduced:
                metrics[mname] = metric(mname, values)
                if isinstance(value, int | float) and not agrees(value, metrics[mname], tolerance):
                    theirs, mine = compared(value, metrics[mname], tolerance)
                    discrepancies.append(Discrepancy(file, f"results, scorer {name}", mname, theirs, mine))
            elif isinstance(value, int | float):
                reported[mname] = float(value)
        if not entry.get("metrics") and reduced:
            metrics["mean"] = metric("mean", values)
        for s in (stored_reductions.get(name) or {}).get("samples") or []:
            iid = item_of.get(s.get("sample_id"))
            mine = reduced.get(iid) if iid else None
            theirs = value_to_float(s.get("value"))
            if mine is not None and theirs is not None and not agrees(theirs, mine, tolerance):
                discrepancies.append(
                    Discrepancy(
                        file,
                        f"reductions, scorer {name}, sample {s.get('sample_id')!r}",
                        "value",
                        repr(s.get("value")),
                        repr(mine),
                    )
                )
        result = ScorerResult(name, reducer, reduced, metrics, reported)
        result.interval = interval(result)
        out.scorers.append(result)
    return out, discrepancies


LEVEL = 0.95


def interval(s: ScorerResult) -> tuple[float, float, str] | None:
    """(low, high, method) of a scorer's accuracy or mean at 95%: Wilson's from the counts where the figure is a
    proportion of whole samples (every reduced value 0 or 1), else 1.96 standard errors either side; None where
    there is nothing to draw it from."""
    values = list(s.reduced.values())
    metric = next((m for m in ("accuracy", "mean") if m in s.metrics), None)
    if metric is None or not values:
        return None
    if metric == "accuracy" and all(v in (0.0, 1.0) for v in values):
        w = wilson(int(sum(values)), len(values), LEVEL)
        return w.lo / 100, w.hi / 100, "Wilson"
    if "stderr" in s.metrics and len(values) > 1:
        value, half = s.metrics[metric], 1.96 * s.metrics["stderr"]
        return value - half, value + half, "1.96 × stderr"
    return None


STATUS_LABEL = {"cancelled": "cancelled", "error": "stopped by an error", "started": "unfinished"}


def _status_flags(run: Run, status: str) -> list[Flag]:
    """A log that did not finish, shown as such with its error message (the pages' scan reads it like all text)."""
    if status == "success":
        return []
    error = run.stored_scores.get("error")
    message = str(error.get("message") or "") if isinstance(error, dict) else ""
    first = message.strip().splitlines()[0][:300] if message.strip() else ""
    detail = f"the log's status is {status!r}: the run did not finish" + (f". Its error: {first}" if first else "")
    return [Flag("incomplete", STATUS_LABEL.get(status, "incomplete"), detail)]


def _partial_flags(run: Run, cov: Coverage, flags: list[Flag]) -> bool:
    """Compare the samples the log holds with the log's own count of what it ran (results.total_samples, the
    samples × epochs it reports). A log holding fewer (truncated, or written without samples) is flagged and never
    complete. Returns whether it holds them all."""
    reported = ((run.stored_scores.get("results") or {}).get("total_samples")) if run.stored_scores else None
    held = run.metadata.get("samples_in_log", cov.collected)
    if not isinstance(reported, int) or held >= reported:
        return True
    if held == 0:
        detail = (
            f"the log holds none of the {reported} sample-epochs it reports (it was written without its samples): "
            "its figures are shown as the log reports them, not recomputed"
        )
        flags.append(Flag("partial", "no samples", detail))
    else:
        detail = f"the log holds {held} of the {reported} sample-epochs it reports running: it is truncated or partial"
        flags.append(Flag("partial", "partial log", detail))
    return False


def primary(result: LogResult) -> tuple[str, str, float] | None:
    """The first scorer's accuracy (or mean): the figure the row is ranked by, as Inspect lists it first."""
    for s in result.scorers:
        for m in PRIMARY:
            if m in s.metrics:
                return s.name, m, s.metrics[m]
    return None


def score(version: BenchmarkVersion) -> Scored:
    d: InspectDefinition = version.definition
    tolerance = version.discrepancy_tolerance
    rows: list[Row] = []
    transcripts: dict[str, Any] = {}
    logs: dict[str, LogResult] = {}
    discrepancies: list[Discrepancy] = []
    columns: dict[str, str] = {}
    for run in version.runs:
        samples = {t.id: _sample_result(t) for t in run.transcripts}
        transcripts.update(samples)
        result, found = score_run(run, d, samples, tolerance)
        logs[run.id] = result
        discrepancies += found
        cov = Coverage(expected=len(run.transcripts))
        for t in run.transcripts:
            if t.status == "missing":
                cov.missing += 1
                continue
            cov.collected += 1
            if t.status == "error":
                cov.errored += 1
                continue
            if any(
                name not in samples[t.id].values or samples[t.id].values[name][1] is None
                for name in [s.name for s in result.scorers]
            ):
                cov.ungraded += 1
            else:
                cov.graded += 1
        flags = _status_flags(run, result.status)
        held = _partial_flags(run, cov, flags)
        complete = cov.complete and not cov.errored and not flags and held
        if not flags and not complete:
            flags.append(Flag("incomplete", "incomplete", "; ".join(cov.gaps())))
        total = (d.dataset or {}).get("samples")
        expected_samples = run.metadata.get("expected_samples", 0)
        if isinstance(total, int) and expected_samples < total:
            flags.append(
                Flag("subset", "subset", f"{expected_samples} of the dataset's {total} samples were evaluated")
            )
        if found:
            flags.append(
                Flag(
                    "discrepancy",
                    "discrepancy",
                    f"{plural(len(found), 'stored figure')} {disagree(len(found))} with the recomputation",
                )
            )
        if any(t.truncated for t in run.transcripts):
            flags.append(Flag("truncated", "truncated", "at least one response stopped at the token limit"))
        main = primary(result)
        cells = {}
        for s in result.scorers:
            for m, value in s.metrics.items():
                key = f"{s.name}/{m}"
                columns.setdefault(key, f"{s.name} · {m}")
                cells[key] = Cell(value if complete else None, "" if complete else "incomplete", n=len(s.reduced))
            for m, value in s.reported.items():  # e.g. bootstrap_stderr: random resamples, not recomputable
                key = f"{s.name}/{m}"
                columns.setdefault(key, f"{s.name} · {m} (reported)")
                cells[key] = Cell(value, "reported by the log, not recomputed")
        usage = run.stored_scores.get("model_usage") or {}
        tokens = sum(int(u.get("total_tokens") or 0) for u in usage.values() if isinstance(u, dict))
        entrant = run.entrants[0]
        rows.append(
            Row(
                key=run.id,
                entrant_id=entrant.id,
                label=entrant.label,
                run_ids=[run.id],
                complete=complete,
                score=main[2] if complete and main else None,
                coverage=cov,
                cells=cells,
                flags=flags,
                count=len(result.scorers[0].reduced) if result.scorers else 0,
                figures={"total_tokens": tokens, "epochs": run.metadata.get("epochs", 1)},
            )
        )
    assign_ranks(rows)
    first = next(filter(None, map(primary, logs.values())), None)
    label = f"{first[0]} · {first[1]} (recomputed)" if first else "Score (recomputed)"
    board = Leaderboard(
        version.benchmark_id,
        version.id,
        label,
        list(columns.items()),
        order_rows(rows),
        ranked=True,
        discrepancies=discrepancies,
        score_range=metric_range(d, first[0], first[1]) if first else None,
        notes=[
            "Each log's results table is recomputed from its samples: values mapped as Inspect maps them "
            "(C 1, P 0.5, I 0, N 0), epochs reduced with the log's reducer, then the metrics.",
            "A log that did not finish, or lacks a sample, an epoch or a score, has no score.",
        ],
    )
    return Scored(board, transcripts, {"logs": logs})


def statistics(version, scored, params, declared):  # noqa: ANN001, ANN202
    return no_intervals(
        scored,
        "Intervals: each log's own stderr metric, recomputed from its samples, stands beside its score.",
    )
