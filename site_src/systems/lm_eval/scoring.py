"""Recompute lm-evaluation-harness figures from the logged samples, where they can be.

A metric the task aggregates by its mean (acc, acc_norm, exact_match, ...) is recomputed from the per-sample values
of each filter: the mean and its standard error (sample standard deviation over the square root of the count, as
the harness's mean_stderr computes it), compared with the figure results.json reports. Only when every document
the harness evaluated was logged is the figure recomputed in full; with fewer (a --limit, a truncated file) it is
shown over the samples present, with their count, beside the reported figure. A metric aggregated otherwise
(a corpus-level BLEU or F1, a perplexity) and a task without samples are shown as the harness reported them, and
said to be. A group is the size-weighted mean of its tasks, where each is recomputed in full.

The row's score is the mean over the tasks of each task's first metric (its metric_list's first, first filter),
when every one is recomputed in full: a run missing samples is shown, never ranked.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from statistics import fmean, stdev
from typing import Any

from ...model import BenchmarkVersion, Run
from ...results import Cell, Coverage, Discrepancy, Flag, Leaderboard, Row, Scored, assign_ranks, order_rows, plural
from ...scoring.discrepancy import agrees, compared
from ...scoring.statistics import no_intervals
from .definition import LmEvalDefinition

DIFFERENCE_SCALE = 1.0
PROPORTIONS = {"acc", "acc_norm", "exact_match", "mc1", "mc2", "pass@1", "em", "contains"}  # each between 0 and 1


@dataclass
class SampleResult:
    status: str  # completed | missing
    task: str
    values: dict[str, Any] = field(default_factory=dict)  # "metric,filter" -> the sample's value as logged


def number(value: Any) -> float | None:
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, int | float) and math.isfinite(value):
        return float(value)
    return None


@dataclass
class Figure:
    """One task's metric under one filter: recomputed in full, over the samples present, or as reported."""

    kind: str  # recomputed | partial | reported
    value: float | None
    stderr: float | None
    n: int
    documents: int
    reported: Any


def _figure(agg: str, values: list[float], documents: int, reported: Any, reported_se: Any) -> Figure:
    n = len(values)
    if agg != "mean" or not values:
        return Figure("reported", number(reported), number(reported_se), n, documents, reported)
    se = stdev(values) / math.sqrt(n) if n > 1 else None
    return Figure("recomputed" if n == documents else "partial", fmean(values), se, n, documents, reported)


def _figures(d: LmEvalDefinition, run: Run, results: dict[str, SampleResult]) -> dict[str, Figure]:
    """Every (task, metric, filter) results.json reports, as "task|metric,filter" -> its figure."""
    reported: dict[str, Any] = run.stored_scores.get("results") or {}
    samples = run.stored_scores.get("n-samples") or {}
    out = {}
    for task, t in d.tasks.items():
        for metric, agg, _ in t.metrics:
            for key, value in (reported.get(task) or {}).items():
                name, _, filt = key.partition(",")
                if name != metric:
                    continue
                values = [v for r in results.values() if r.status == "completed" and r.task == task
                          and (v := number(r.values.get(key))) is not None]  # fmt: skip
                documents = (samples.get(task) or {}).get("effective", t.documents)
                se = (reported.get(task) or {}).get(f"{metric}_stderr,{filt}")
                out[f"{task}|{key}"] = _figure(agg, values, documents, value, se)
    return out


def _groups(d: LmEvalDefinition, run: Run, figures: dict[str, Figure]) -> dict[str, Figure]:
    """Each group's figure per metric its tasks share: the size-weighted mean of its tasks' figures where each is
    recomputed in full (the harness's default for a group, weight_by_size), else the group's figure as reported."""
    reported: dict[str, Any] = run.stored_scores.get("results") or {}
    out = {}
    for group, tasks in d.groups.items():
        for key, value in (reported.get(group) or {}).items():
            if "," not in key or "_stderr," in key:
                continue
            parts = [figures.get(f"{task}|{key}") for task in tasks]
            documents = sum(f.documents for f in parts if f)
            if parts and all(f is not None and f.kind == "recomputed" for f in parts):
                mean = sum(f.value * f.documents for f in parts) / documents  # type: ignore[operator, union-attr]
                out[f"{group}|{key}"] = Figure("recomputed", mean, None, documents, documents, value)
            else:
                out[f"{group}|{key}"] = Figure("reported", number(value), None, 0, documents, value)
    return out


def _results(run: Run) -> dict[str, SampleResult]:
    out = {}
    for t in run.transcripts:
        values: dict[str, Any] = {}
        for filt, metrics in (t.record.get("filters") or {}).items():
            values.update({f"{m},{filt}": v for m, v in metrics.items()})
        out[t.id] = SampleResult(t.status, t.item_id.rpartition("--")[0], values)  # item ids are <task>--<doc_id>
    return out


def _discrepancies(run: Run, figures: dict[str, Figure], tolerance: float | None) -> list[Discrepancy]:
    found = []
    for key, f in figures.items():
        stored = number(f.reported)
        if f.kind == "recomputed" and stored is not None and not agrees(str(f.reported), f.value, tolerance):
            theirs, ours = compared(str(f.reported), f.value, tolerance)
            found.append(Discrepancy(run.stored_scores_file or run.path, key.split("|")[0], key.split("|")[1],
                                     theirs, ours))  # fmt: skip
    return found


def _row(version: BenchmarkVersion, run: Run, results: dict[str, SampleResult]) -> tuple[Row, list[Discrepancy]]:
    d: LmEvalDefinition = version.definition
    figures = _figures(d, run, results)
    figures |= _groups(d, run, figures)
    found = _discrepancies(run, figures, version.discrepancy_tolerance)
    primaries = _primaries(d, figures)
    expected = sum(f.documents for f in primaries.values())
    logged = sum(f.n for f in primaries.values())
    cov = Coverage(expected=expected, collected=logged, graded=logged, missing=expected - logged)
    full = bool(primaries) and all(f.kind == "recomputed" for f in primaries.values())
    score = fmean(f.value for f in primaries.values()) if full else None  # type: ignore[misc]
    cells = {k: Cell(f.value, note=f.kind, n=f.n, of=f.documents, label=str(f.reported), stderr=f.stderr)
             for k, f in figures.items()}  # fmt: skip
    e = run.entrants[0]
    figures_out = {"tasks": len(d.tasks), "samples": logged, "documents": expected,
                   "reported_only": sum(f.kind == "reported" for f in figures.values())}  # fmt: skip
    row = Row(run.id, e.id, e.label, [run.id], full and cov.complete, score, cov, cells,
              _flags(figures, cov, found), figures=figures_out)  # fmt: skip
    return row, found


def _primaries(d: LmEvalDefinition, figures: dict[str, Figure]) -> dict[str, Figure]:
    """Each task's first metric under the first filter reported."""
    out = {}
    for task, t in d.tasks.items():
        metric = t.metrics[0][0]
        key = next((k for k in figures if k.startswith(f"{task}|{metric},")), None)
        if key:
            out[task] = figures[key]
    return out


def _flags(figures: dict[str, Figure], cov: Coverage, found: list[Discrepancy]) -> list[Flag]:
    flags = []
    if cov.missing:
        detail = f"{cov.collected} of {cov.expected} documents' samples logged: recomputed over those present, "
        detail += "never ranked; the harness's own figures are shown beside them"
        flags.append(Flag("incomplete", "partial samples", detail))
    reported = [k.replace("|", ": ") for k, f in figures.items() if f.kind == "reported"]
    if reported:
        detail = f"{plural(len(reported), 'figure')} shown as results.json reports, not recomputed (no samples, or "
        flags.append(Flag("reported", "as reported", detail + "not a mean of samples): " + ", ".join(reported)))
    if found:
        detail = f"{plural(len(found), 'reported figure')} differ from the recomputation"
        flags.append(Flag("discrepancy", "discrepancy", detail))
    return flags


def score(version: BenchmarkVersion) -> Scored:
    d: LmEvalDefinition = version.definition
    rows, discrepancies, results = [], [], {}
    columns: dict[str, str] = {}
    for run in version.runs:
        mine = _results(run)
        results.update(mine)
        row, found = _row(version, run, mine)
        rows.append(row)
        discrepancies += found
        columns.update({k: k.replace("|", ": ") for k in row.cells})
    assign_ranks(rows)
    first = {t.metrics[0][0] for t in d.tasks.values()}
    only = next(iter(d.tasks.values()))
    label = "Mean of each task's first metric" if len(d.tasks) > 1 else f"{only.name}: {only.metrics[0][0]}"
    declared = (0.0, 1.0) if first <= PROPORTIONS else None  # a proportion's range; another metric declares none
    board = Leaderboard(version.benchmark_id, version.id, f"{label} (recomputed from the samples)",
                        sorted(columns.items()), order_rows(rows), ranked=True, discrepancies=discrepancies,
                        score_range=declared, notes=_notes())  # fmt: skip
    return Scored(board, results, {})


def _notes() -> list[str]:
    return [
        "A metric the task aggregates by its mean is recomputed from the logged samples: the mean and its standard "
        "error (sample deviation over the square root of the count, as the harness computes it), and compared with "
        "results.json.",
        "With fewer samples logged than documents evaluated, the figure is over those present, with the count, and "
        "the run is never ranked. Other metrics (corpus-level, perplexity) and tasks without samples are shown as "
        "the harness reported them.",
    ]


def statistics(version, scored, params, declared):  # noqa: ANN001, ANN202
    return no_intervals(scored, "Each recomputed figure stands with its standard error and its count of samples.")
