"""Recompute MT-Bench's figures from the judge's grades and verdicts, as FastChat's show_result.py computes them.

Single-answer grading: a model's MT-Bench score is the mean of its grades (1-10) over every graded turn; the first
and second turn means and each category's mean likewise. A grade FastChat could not read (-1) is left out of every
figure and counted as a missing judgment, never as a low grade; a model with any turn unanswered or ungraded is
incomplete and not ranked (its mean over what was graded is shown with its count).

Pairwise against the baseline: each verdict is judged in both orders; a win or a loss when both agree, a tie when
either says tie or they disagree, and a verdict with an error in either order is left out (as show_result leaves it
out). win rate = wins / verdicts, loss rate = losses / verdicts, adjusted win rate = (wins + ties / 2) / verdicts.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from statistics import fmean

from site_src.model import BenchmarkVersion, Run
from site_src.results import Cell, Coverage, Flag, Leaderboard, Row, Scored, assign_ranks, order_rows, plural
from site_src.scoring.statistics import no_intervals

from .definition import MTBenchDefinition

DIFFERENCE_SCALE = 1.0  # scores are on the judge's 1-10 scale


@dataclass
class MTResult:
    status: str  # completed | missing
    grades: dict[int, float] = field(default_factory=dict)  # turn -> the judge's grade (valid grades only)
    failed: list[int] = field(default_factory=list)  # turns whose grade could not be read
    verdict: float | None = None  # 1 a win, 0.5 a tie, 0 a loss against the baseline; None without one
    verdict_failed: bool = False

    @property
    def mean(self) -> float | None:
        return fmean(self.grades.values()) if self.grades else None


def _results(run: Run) -> dict[str, MTResult]:
    out = {t.id: MTResult(t.status) for t in run.transcripts}
    for j in run.judgments:
        r = out.get(j.target_id)
        if r is None:
            continue
        if j.scores.get("pairwise"):
            r.verdict, r.verdict_failed = j.scores.get("win"), j.parse_status != "ok"
        elif j.parse_status == "ok":
            r.grades[int(j.scores["turn"])] = j.scores["score"]
        else:
            r.failed.append(int(j.scores["turn"]))
    return out


def _coverage(version: BenchmarkVersion, run: Run, results: dict[str, MTResult]) -> Coverage:
    items = {i.id: i for i in version.items}
    cov = Coverage(expected=len(version.items))
    for t in run.transcripts:
        if t.status != "completed":
            cov.missing += 1
            continue
        cov.collected += 1
        turns = len(items[t.item_id].user_turns)
        cov.judgments_expected += turns
        cov.judgments_missing += turns - len(results[t.id].grades)
        cov.graded += 1 if len(results[t.id].grades) == turns else 0
    return cov


def _means(version: BenchmarkVersion, run: Run, results: dict[str, MTResult]) -> dict[str, Cell]:
    """Each turn's and each category's mean grade, with the count of grades behind it."""
    groups: dict[str, list[float]] = defaultdict(list)
    category = {i.id: i.category for i in version.items}
    for t in run.transcripts:
        for turn, grade in results[t.id].grades.items():
            groups[f"turn_{turn}"].append(grade)
            groups[f"category:{category[t.item_id]}"].append(grade)
    return {key: Cell(fmean(values), n=len(values)) for key, values in groups.items()}


def _pairwise(results: dict[str, MTResult]) -> dict[str, Cell]:
    verdicts = [r.verdict for r in results.values() if r.verdict is not None]
    if not verdicts:
        return {}
    n = len(verdicts)
    wins, losses = sum(v == 1.0 for v in verdicts), sum(v == 0.0 for v in verdicts)
    ties = n - wins - losses
    return {
        "win_rate": Cell(wins / n, n=wins, of=n),
        "loss_rate": Cell(losses / n, n=losses, of=n),
        "win_rate_adjusted": Cell((wins + ties / 2) / n, n=n, note=f"{wins} won, {ties} tied, {losses} lost"),
    }


def _flags(cov: Coverage, results: dict[str, MTResult], d: MTBenchDefinition) -> list[Flag]:
    flags = []
    if cov.missing:
        flags.append(Flag("incomplete", "incomplete", f"{plural(cov.missing, 'question')} not answered: not ranked"))
    if cov.judgments_missing:
        detail = f"{plural(cov.judgments_missing, 'turn')} without a grade from {d.judge} (never a zero): not ranked"
        flags.append(Flag("ungraded", "ungraded", detail))
    failed = sum(r.verdict_failed for r in results.values())
    if failed:
        detail = f"{plural(failed, 'pairwise verdict')} with an error in either order: left out, as FastChat does"
        flags.append(Flag("failed_judgment", "verdict failed", detail))
    return flags


def _row(version: BenchmarkVersion, run: Run, results: dict[str, MTResult]) -> Row:
    d: MTBenchDefinition = version.definition
    cov = _coverage(version, run, results)
    grades = [g for r in results.values() for g in r.grades.values()]
    mean = fmean(grades) if grades else None
    cells = {**_means(version, run, results), **_pairwise(results)}
    entrant = run.entrants[0]
    figures = {"mean": mean, "grades": len(grades), "turns": sum(len(i.user_turns) for i in version.items)}
    return Row(run.id, entrant.id, entrant.label, [run.id], cov.complete, mean if cov.complete else None, cov,
               cells, _flags(cov, results, d), figures=figures)  # fmt: skip


def score(version: BenchmarkVersion) -> Scored:
    d: MTBenchDefinition = version.definition
    results: dict[str, MTResult] = {}
    rows = []
    for run in version.runs:
        mine = _results(run)
        results.update(mine)
        rows.append(_row(version, run, mine))
    assign_ranks(rows)
    categories = sorted({i.category for i in version.items})
    columns = [("turn_1", "First turn"), ("turn_2", "Second turn")]
    columns += [(f"category:{c}", c.capitalize()) for c in categories]
    if d.baseline:
        against = f"against {d.baseline}"
        columns += [("win_rate", f"Win rate {against}"), ("loss_rate", f"Loss rate {against}"),
                    ("win_rate_adjusted", f"Adjusted win rate {against} (a tie half)")]  # fmt: skip
    board = Leaderboard(version.benchmark_id, version.id, f"MT-Bench score (mean grade by {d.judge}, 1–10)", columns,
                        order_rows(rows), ranked=True, score_range=(1.0, 10.0), notes=_notes(d))  # fmt: skip
    return Scored(board, results, {})


def _notes(d: MTBenchDefinition) -> list[str]:
    notes = [
        f"MT-Bench score = the mean of {d.judge}'s grades (1–10) over every turn graded, as FastChat's show_result "
        "computes it; the first and second turns and each category likewise, each with its count.",
        "A grade the judge's answer did not yield (-1 in FastChat's files) is left out and counted as a missing "
        "judgment, never as a low grade; a model with an unanswered or ungraded turn is not ranked.",
    ]
    if d.baseline:
        notes.append(
            f"Pairwise: each answer against {d.baseline}'s, judged in both orders; a win or a loss when both orders "
            "agree, a tie when either says tie or they disagree, a verdict with an error left out. The adjusted win "
            "rate counts a tie as half a win."
        )
    return notes


def statistics(version, scored, params, declared):  # noqa: ANN001, ANN202
    return no_intervals(scored, "No interval is computed for MT-Bench scores: each stands with its count of grades.")
