"""Recompute the Uzbek instruction pack (seed 000): case outcomes, strict case success, categories, coverage."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

import numpy as np

from ...model import BenchmarkVersion, Item, Transcript
from ...results import Cell, Coverage, Discrepancy, Flag, Leaderboard, Row, Scored, disagree, order_rows, pct, plural
from ...scoring.statistics import binary_intervals
from .compare import compare_exact, compare_json
from .definition import PackDefinition

OUTCOMES = ("pass", "fail", "needs_review", "ungraded")


@dataclass
class CaseResult:
    outcome: str  # recomputed: pass | fail | needs_review | ungraded
    basis: str  # how the outcome was reached, in one line
    stored_outcome: str | None
    discrepancies: list[Discrepancy] = field(default_factory=list)
    check_marks: dict[str, str] = field(default_factory=dict)


def checklist_outcome(marks: dict[str, str]) -> str:
    """Strict: any unambiguous failing check fails the case; otherwise any open question leaves it under review."""
    if "fail" in marks.values():
        return "fail"
    if "needs_review" in marks.values():
        return "needs_review"
    return "pass"


def score_case(item: Item, t: Transcript, definition: PackDefinition) -> CaseResult:
    g = t.grading
    stored = g.outcome if g else None
    if t.status != "completed":
        return CaseResult("ungraded", f"no completed output ({t.status})", stored)
    output = t.turns[-1].content or ""
    if item.kind in ("exact_text", "json"):
        if item.kind == "exact_text":
            cmp = compare_exact(output, item.spec["expected"], item.spec["normalization"], definition.glyphs)
        else:
            cmp = compare_json(output, item.spec["expected"], item.spec["string_normalization"], definition.glyphs)
        computed = "pass" if cmp.passed else "fail"
        result = CaseResult(computed, cmp.reason, stored, check_marks={"comparison": computed})
        if g and g.outcome == "needs_review":
            # a grader may flag an answer-key ambiguity: that stays open until resolved for every model
            result.outcome, result.basis = "needs_review", f"flagged for review by the grader; comparator: {cmp.reason}"
            return result
        if g and g.outcome in ("pass", "fail") and g.outcome != computed:
            result.discrepancies.append(
                Discrepancy(t.source_file, t.source_record, "grading.outcome", g.outcome, computed)
            )
        mark = g.checks.get("comparison") if g else None
        if mark in ("pass", "fail") and mark != computed:
            result.discrepancies.append(
                Discrepancy(t.source_file, t.source_record, "grading.checks.comparison", mark, computed)
            )
        return result
    if g is None or g.outcome == "ungraded":
        return CaseResult("ungraded", "checklist not graded", stored, check_marks=dict(g.checks) if g else {})
    computed = checklist_outcome(g.checks)
    marks = ", ".join(f"{k} {v}" for k, v in sorted(g.checks.items(), key=lambda kv: int(kv[0][1:])))
    result = CaseResult(computed, f"from check marks: {marks}", stored, check_marks=dict(g.checks))
    if g.outcome != computed:
        result.discrepancies.append(Discrepancy(t.source_file, t.source_record, "grading.outcome", g.outcome, computed))
    return result


def _gap(status: str, outcome: str) -> str | None:
    """The kind of coverage gap a case is, or None when it is graded pass or fail."""
    if status == "error":
        return "errored"
    if status in ("missing", "not_run"):
        return "missing"
    return {"needs_review": "under review", "ungraded": "ungraded"}.get(outcome)


def _gap_note(gaps: list[str | None]) -> str:
    kinds = ("missing", "errored", "ungraded", "under review")
    return "; ".join(f"{gaps.count(k)} {k}" for k in kinds if gaps.count(k))


def score(version: BenchmarkVersion) -> Scored:
    d: PackDefinition = version.definition
    items = {i.id: i for i in version.items}
    results: dict[str, CaseResult] = {}
    rows: list[Row] = []
    discrepancies: list[Discrepancy] = []
    check_stats: dict[str, dict[str, int]] = {}
    for run in version.runs:
        entrant = run.entrants[0]
        by_attempt: dict[int, list[Transcript]] = defaultdict(list)
        for t in run.transcripts:
            by_attempt[t.attempt].append(t)
        for attempt, transcripts in sorted(by_attempt.items()):
            cov = Coverage(expected=d.case_count)
            per_cat: dict[str, list[str]] = defaultdict(list)
            gaps_by_cat: dict[str, list[str | None]] = defaultdict(list)
            flags: list[Flag] = []
            row_disc = truncated = 0
            checks = {"pass": 0, "fail": 0, "needs_review": 0}
            for t in transcripts:
                r = score_case(items[t.item_id], t, d)
                results[t.id] = r
                discrepancies.extend(r.discrepancies)
                row_disc += len(r.discrepancies)
                truncated += t.truncated
                gap = _gap(t.status, r.outcome)  # one classification serves the row and its categories
                per_cat[items[t.item_id].category].append(r.outcome)
                gaps_by_cat[items[t.item_id].category].append(gap)
                if items[t.item_id].kind == "checklist":
                    for mark in r.check_marks.values():
                        checks[mark] += 1
                cov.collected += t.status == "completed"
                if gap is None:
                    cov.graded += 1
                elif gap == "missing":
                    cov.missing += 1
                elif gap == "errored":
                    cov.errored += 1
                elif gap == "ungraded":
                    cov.ungraded += 1
                else:
                    cov.under_review += 1
            passes = sum(o == "pass" for outs in per_cat.values() for o in outs)
            complete = cov.complete
            key = run.id if len(by_attempt) == 1 else f"{run.id}--a{attempt}"
            label = f"{entrant.label} · {run.id}" + (f" · attempt {attempt}" if len(by_attempt) > 1 else "")
            if not complete:
                flags.append(Flag("incomplete", "incomplete", "; ".join(cov.gaps()) + ": no full-pack rate is shown"))
            if cov.under_review:
                flags.append(Flag("needs_review", "under review", f"{plural(cov.under_review, 'case')} under review"))
            if row_disc:
                flags.append(
                    Flag(
                        "discrepancy",
                        "discrepancy",
                        f"{plural(row_disc, 'stored figure')} {disagree(row_disc)} with the recomputation",
                    )
                )
            if truncated:
                flags.append(
                    Flag("truncated", "truncated", f"{plural(truncated, 'truncated output')}, graded as delivered")
                )
            cells = {}
            for cat_id, _title in d.categories:
                outs = per_cat.get(cat_id, [])
                p = outs.count("pass")
                g = sum(o in ("pass", "fail") for o in outs)
                if g == d.cases_per_category:
                    cells[cat_id] = Cell(p / d.cases_per_category, n=p, of=d.cases_per_category, graded=g)
                else:
                    cells[cat_id] = Cell(None, _gap_note(gaps_by_cat[cat_id]), n=p, of=d.cases_per_category, graded=g)
            check_stats[key] = checks
            rows.append(
                Row(
                    key=key,
                    entrant_id=entrant.id,
                    label=label,
                    run_ids=[run.id],
                    complete=complete,
                    score=passes / d.case_count if complete else None,
                    coverage=cov,
                    cells=cells,
                    flags=flags,
                    attempt=attempt,
                    count=passes,
                )
            )
    board = Leaderboard(
        benchmark_id=version.benchmark_id,
        version_id=version.id,
        score_label="Strict case success",
        columns=[(c, t) for c, t in d.categories],
        rows=order_rows(rows),
        ranked=False,
        discrepancies=discrepancies,
        score_range=(0.0, 1.0),  # a proportion of the cases
        notes=[
            "Each row is one run directory; repeated runs are shown side by side, never the best one.",
            "Check-level results are diagnostics and are never mixed into the case counts.",
        ],
    )
    return Scored(board, results, {"check_stats": check_stats, "variation": run_variation(rows)})


def run_variation(rows: list[Row]) -> dict[str, dict[str, object]]:
    """Across repeated runs of one entrant: each run's passes, and the range over complete runs."""
    out: dict[str, dict[str, object]] = {}
    for row in rows:
        entry = out.setdefault(row.entrant_id, {"runs": [], "range": None})
        entry["runs"].append(row)
    for entrant_id, entry in out.items():
        complete = [r.score for r in rows if r.entrant_id == entrant_id and r.complete and r.score is not None]
        if len(complete) > 1:
            entry["range"] = f"{pct(min(complete), 1)} to {pct(max(complete), 1)} over {len(complete)} complete runs"
    return out


# ---- statistics: intervals, run-to-run variation (called by scoring/statistics.py) ----


DIFFERENCE_SCALE = 1.0  # multiply a difference of scores by this to show it in the score's unit
INTERVAL_SCALE = 100.0  # binary_intervals gives percentages of a proportion


def statistics(version, scored, params, declared):  # noqa: ANN001, ANN202
    strata = [i.category for i in version.items]

    def outcome_of(row: Row) -> dict[str, str]:
        run = next(r for r in version.runs if r.id == row.run_ids[0])
        return {t.item_id: scored.transcripts[t.id].outcome for t in run.transcripts if t.attempt == row.attempt}

    def cell_of(ids: list[str]) -> dict[str, np.ndarray]:
        return {c: np.array([s == c for s in strata], dtype=float) for c in dict.fromkeys(strata)}

    rows, boot = binary_intervals(version, scored, params, declared, strata, outcome_of, cell_of)
    if declared.get("run_variation"):  # each run of a model side by side, never merged, never best-of
        by_entrant: dict[str, list[Row]] = defaultdict(list)
        for row in scored.leaderboard.rows:
            by_entrant[row.entrant_id].append(row)
        for row in scored.leaderboard.rows:
            runs = sorted(by_entrant[row.entrant_id], key=lambda r: (r.run_ids[0], r.attempt or 0))
            if len(runs) > 1:
                parts = [
                    f"{r.key}: {f'{r.count} / {r.coverage.expected}' if r.complete else 'incomplete'}" for r in runs
                ]
                rows[row.key].variation = f"{len(runs)} runs of this model — " + "; ".join(parts)
    per_category = version.definition.cases_per_category
    note = (
        f"{int(params['level'] * 100)}% intervals: case-clustered bootstrap within categories, "
        f"{params['resamples']} resamples, seed {params['seed']}, {len(version.items)} cases. With "
        f"{per_category} case{'s' if per_category != 1 else ''} per category a category interval spans much of the "
        f"range: it shows how little {per_category} case{'s' if per_category != 1 else ''} can say."
        " Beside each bootstrap interval stands the Wilson score interval of the same proportion, which stays wide "
        "for small counts: where every case of a category passed, every resample passes too and the bootstrap "
        "interval shrinks to a point, but three passes of three are still consistent with a much lower rate."
    )
    return rows, boot, note
