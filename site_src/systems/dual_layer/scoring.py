"""Recompute the dual-layer rubric (seed 001): global score, decision, confidence kept apart, iterations."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction

from ...model import BenchmarkVersion, Transcript
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
from ...scoring.statistics import binary_intervals
from .definition import RubricDefinition
from .records import RubricGrading


def round_half_up(x: Fraction) -> int:
    """Nearest integer, halves up (87.5 -> 88); exact, since the mean is kept as a fraction."""
    return math.floor(x + Fraction(1, 2))


@dataclass
class IterationResult:
    number: int
    valid: bool
    missing_categories: list[str]
    global_score: int | None
    mean: Fraction | None
    binary_decision: int | None
    result: str | None  # PASS | FAIL
    confidence: float | None
    low_confidence: bool
    band: str
    category_scores: dict[str, int] = field(default_factory=dict)
    discrepancies: list[Discrepancy] = field(default_factory=list)


@dataclass
class TaskResult:
    status: str  # pass | fail | in_progress | invalid | missing
    iterations: list[IterationResult]
    passed_at: int | None
    final_global: int | None
    after_pass: int  # iterations recorded after the passing one (the rubric says stop at a pass)
    summary: str


def grade(g: RubricGrading, d: RubricDefinition, file: str, number: int) -> IterationResult:
    missing = [c for c in d.categories if c not in g.category_scores]
    low = g.confidence is not None and g.confidence < d.low_confidence_below
    if missing:  # all five categories must be present for a valid grading result
        return IterationResult(number, False, missing, None, None, None, None, g.confidence, low, "")
    mean = Fraction(sum(g.category_scores[c] for c in d.categories), len(d.categories))
    score = round_half_up(mean)
    decision = 1 if score >= d.threshold else 0  # confidence never enters the decision
    result = "PASS" if decision else "FAIL"
    band = next((label for floor, label in sorted(d.bands, reverse=True) if score >= floor), "")
    r = IterationResult(
        number, True, [], score, mean, decision, result, g.confidence, low, band, dict(g.category_scores)
    )
    record = f"iteration {number}"
    for name, stored, computed in (
        ("global_score", g.global_score, score),
        ("binary_decision", g.binary_decision, decision),
        ("result", g.result, result),
        ("threshold", g.threshold, d.threshold),
    ):
        if stored is not None and stored != computed:
            r.discrepancies.append(Discrepancy(file, record, name, str(stored), str(computed)))
    return r


def score_task(t: Transcript, d: RubricDefinition, max_iterations: int) -> TaskResult:
    if t.status == "missing":
        return TaskResult("missing", [], None, None, 0, "no iterations recorded")
    results: list[IterationResult] = []
    for it in t.iterations:
        if it.grading is None:
            results.append(IterationResult(it.number, False, [], None, None, None, None, None, False, ""))
        else:
            results.append(grade(it.grading, d, it.grading_file or it.output_file, it.number))
    if t.status == "invalid":
        return TaskResult("invalid", results, None, None, 0, "an iteration could not be read")
    passed = next((r for r in results if r.valid and r.binary_decision == 1), None)
    if passed:
        before = results[: passed.number - 1]
        if all(r.valid for r in before):
            after = len(results) - passed.number
            return TaskResult(
                "pass",
                results,
                passed.number,
                passed.global_score,
                after,
                f"PASS at iteration {passed.number} ({passed.global_score})",
            )
    bad = next((r for r in results if not r.valid), None)
    if bad:
        why = f"missing {', '.join(bad.missing_categories)}" if bad.missing_categories else "no grading result"
        return TaskResult(
            "invalid" if bad.missing_categories else "in_progress",
            results,
            None,
            None,
            0,
            f"iteration {bad.number}: {why}",
        )
    last = results[-1]
    if len(results) >= max_iterations:
        return TaskResult(
            "fail", results, None, last.global_score, 0, f"FAIL after {len(results)} iterations ({last.global_score})"
        )
    return TaskResult(
        "in_progress",
        results,
        None,
        last.global_score,
        0,
        f"not passed after {len(results)} of {max_iterations} iterations",
    )


def score(version: BenchmarkVersion) -> Scored:
    d: RubricDefinition = version.definition
    results: dict[str, TaskResult] = {}
    rows: list[Row] = []
    discrepancies: list[Discrepancy] = []
    category_means: dict[str, dict[str, Cell]] = {}
    n_tasks = len(version.items)
    for run in version.runs:
        entrant = run.entrants[0]
        max_iter = run.metadata.get("max_iterations", d.max_iterations)
        cov = Coverage(expected=n_tasks)
        cells: dict[str, Cell] = {}
        flags: list[Flag] = []
        passes = row_disc = low = 0
        finals: list[IterationResult] = []
        for t in run.transcripts:
            r = score_task(t, d, max_iter)
            results[t.id] = r
            for it in r.iterations:
                discrepancies.extend(it.discrepancies)
                row_disc += len(it.discrepancies)
                low += it.low_confidence
            if r.status in ("pass", "fail"):
                cov.collected += 1
                cov.graded += 1
                passes += r.status == "pass"
                finals.append(next(i for i in r.iterations if i.number == (r.passed_at or len(r.iterations))))
            elif r.status == "missing":
                cov.missing += 1
            else:
                cov.collected += 1
                cov.ungraded += 1
            cells[t.item_id] = Cell(float(r.final_global) if r.final_global is not None else None, label=r.summary)
        complete = cov.complete
        mean_final = sum(f.global_score for f in finals) / len(finals) if finals else None
        if not complete:
            flags.append(Flag("incomplete", "incomplete", "; ".join(cov.gaps() or ["tasks unfinished"])))
        if row_disc:
            flags.append(
                Flag(
                    "discrepancy",
                    "discrepancy",
                    f"{plural(row_disc, 'stored figure')} {disagree(row_disc)} with the recomputation",
                )
            )
        if low:
            flags.append(
                Flag(
                    "low_confidence",
                    "review",
                    f"{plural(low, 'grading')} below confidence {d.low_confidence_below}: "
                    "flagged for human review; the decision is unchanged",
                )
            )
        category_means[run.id] = {c: _category_mean(finals, c) for c in d.categories}
        rows.append(
            Row(
                key=run.id,
                entrant_id=entrant.id,
                label=entrant.label,
                run_ids=[run.id],
                complete=complete,
                score=passes / n_tasks if complete else None,
                count=passes,
                figures={"mean_final_global": mean_final},
                coverage=cov,
                cells=cells,
                flags=flags,
            )
        )
    assign_ranks(rows)
    board = Leaderboard(
        version.benchmark_id,
        version.id,
        f"Tasks passed (threshold {d.threshold})",
        [(i.id, i.title) for i in version.items],
        order_rows(rows),
        ranked=True,
        discrepancies=discrepancies,
        score_range=(0.0, 1.0),  # a proportion of the tasks
        notes=[
            "Entrants with the same number of tasks passed share a rank.",
            f"global_score = round(mean of {len(d.categories)} categories), halves up; "
            f"pass at global_score >= {d.threshold}; at most {d.max_iterations} iterations.",
        ],
    )
    return Scored(board, results, {"category_means": category_means})


def _category_mean(finals: list[IterationResult], category: str) -> Cell:
    """Mean of one category over each finished task's deciding iteration, with its count."""
    if not finals:
        return Cell(None, "no finished task")
    mean = sum(f.category_scores[category] for f in finals) / len(finals)
    return Cell(mean, n=len(finals))


# ---- statistics: intervals, run-to-run variation (called by scoring/statistics.py) ----


DIFFERENCE_SCALE = 100.0  # multiply a difference of scores by this to show it in the score's unit
INTERVAL_SCALE = 100.0  # binary_intervals gives percentages of a proportion


def statistics(version, scored, params, declared):  # noqa: ANN001, ANN202
    strata = ["task"] * len(version.items)

    def outcome_of(row: Row) -> dict[str, str]:
        return {i.id: scored.transcripts[f"{row.run_ids[0]}--{i.id}"].status for i in version.items}

    rows, boot = binary_intervals(version, scored, params, declared, strata, outcome_of, lambda ids: {})
    note = (
        f"{int(params['level'] * 100)}% intervals of the pass rate: task-clustered bootstrap, "
        f"{params['resamples']} resamples, seed {params['seed']}, {len(version.items)} tasks. Beside each stands "
        "the Wilson score interval of the same pass rate, which stays wide for a handful of tasks where the "
        "bootstrap cannot."
    )
    return rows, boot, note
