"""Recompute AlpacaEval's leaderboard columns from the annotations, as AlpacaEval's get_winrate() computes them.

Preferences are encoded as AlpacaEval encodes them: 1 the baseline wins, 2 the entrant wins, 1.5 or 0 a draw, and
anything else (null, NaN, -1 for a missing annotation, a value outside [1, 2]) a failed judgment: left out of
every figure, never counted as a loss. With x = preference - 1 over the valid judgments:

    win_rate = 100 * mean(x); standard_error = 100 * sem(x) (sample deviation / sqrt(n));
    n_wins = #(x > 0.5); n_wins_base = #(x < 0.5); n_draws = #(preference in {0, 1.5}); n_total = #valid;
    discrete_win_rate: the same after rounding each preference to 1, 1.5 or 2 (ties half to even, as pandas);
    avg_length = int(mean length in characters of the outputs in model_outputs.json).

The length-controlled win rate needs AlpacaEval's fitted regression over every model and cannot be recomputed from
one model's files: it is shown as reported by the source, with where it came from.
"""

from __future__ import annotations

import math
import statistics as stats
from dataclasses import dataclass
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
from .definition import PairwiseDefinition

DIFFERENCE_SCALE = 1.0  # win rates are already in points (×100)
COLUMNS = (
    "win_rate",
    "standard_error",
    "n_wins",
    "n_wins_base",
    "n_draws",
    "n_total",
    "discrete_win_rate",
    "avg_length",
)
COUNTS = ("n_wins", "n_wins_base", "n_draws", "n_total", "avg_length")


def head2head(preferences: list[float | None]) -> dict[str, float | int]:
    """AlpacaEval's describe_head2head over raw preferences (None for a failed judgment)."""
    draws = sum(1 for p in preferences if p is not None and p in (0.0, 1.5))
    valid = [1.5 if p == 0.0 else p for p in preferences if p is not None]
    x = [p - 1 for p in valid if 1 <= p <= 2]
    n = len(x)
    return {
        "win_rate": 100 * sum(x) / n if n else math.nan,
        "standard_error": 100 * math.sqrt(stats.variance(x)) / math.sqrt(n) if n > 1 else math.nan,
        "n_wins": sum(1 for v in x if v > 0.5),
        "n_wins_base": sum(1 for v in x if v < 0.5),
        "n_draws": draws,
        "n_total": n,
    }


def discrete(p: float | None) -> float | None:
    """ZeroOneScoringRule's preprocessing: 1.5 -> 0 (a draw), then round half to even."""
    if p is None:
        return None
    return float(round(0.0 if p == 1.5 else p))


@dataclass
class PairResult:
    preference: Any  # as recorded
    outcome: str  # win | loss | draw | failed | missing
    value: float | None  # preference - 1 (1 a win, 0 a loss, 0.5 a draw), None when failed or missing


def outcome(p: float | None) -> tuple[str, float | None]:
    if p is None:
        return "failed", None
    q = 1.5 if p == 0.0 else p
    if not 1 <= q <= 2:
        return "failed", None
    x = q - 1
    return ("win" if x > 0.5 else "loss" if x < 0.5 else "draw"), x


def columns(run: Run) -> dict[str, float | int]:
    prefs = [j.scores.get("preference") for j in run.judgments]
    out = head2head(prefs)
    out["discrete_win_rate"] = head2head([discrete(p) for p in prefs])["win_rate"]
    out["avg_length"] = _mean_length(run.stored_scores.get("output_lengths") or [])
    return out


def _mean_length(lengths: list[int]) -> int:
    return int(sum(lengths) / len(lengths)) if lengths else 0


def judged_avg_length(run: Run) -> int:
    """The mean length of the judged outputs (annotations.json's output_2): what some published leaderboards report
    as avg_length where model_outputs.json holds other outputs; the site computes it from model_outputs.json."""
    return _mean_length(run.stored_scores.get("judged_lengths") or [])


def _compare(run: Run, mine: dict[str, float | int], tolerance: float | None) -> list[Discrepancy]:
    reported = run.stored_scores.get("reported") or {}
    found = []
    for key in COLUMNS:
        if key not in reported:
            continue
        try:
            stored = float(reported[key])
        except ValueError:
            found.append(Discrepancy(run.stored_scores_file or run.path, "leaderboard row", key, reported[key], "–"))
            continue
        ok = stored == mine[key] if key in COUNTS else agrees(reported[key], mine[key], tolerance)
        if key == "avg_length" and stored == judged_avg_length(run):
            ok = True  # computed from the other file: a choice of file, said in the "outputs differ" flag
        if not ok:
            theirs, ours = (
                (reported[key], repr(mine[key])) if key in COUNTS else compared(reported[key], mine[key], tolerance)
            )
            found.append(Discrepancy(run.stored_scores_file or run.path, "leaderboard row", key, theirs, ours))
    return found


def _coverage(version: BenchmarkVersion, run: Run, results: dict[str, PairResult]) -> Coverage:
    """Each instruction's outcome, and the run's coverage: an instruction without an output or a judgment is
    missing; a judgment that failed is a missing judgment, never a loss."""
    by_target = {j.target_id: j for j in run.judgments}
    cov = Coverage(expected=len(version.items), judgments_expected=len(version.items))
    for t in run.transcripts:
        j = by_target.get(t.id)
        if t.status != "completed" or j is None:
            results[t.id] = PairResult(None, "missing", None)
            cov.missing += 1
            continue
        cov.collected += 1
        kind, value = outcome(j.scores.get("preference"))
        results[t.id] = PairResult(t.record.get("preference"), kind, value)
        if kind == "failed":
            cov.judgments_missing += 1
        else:
            cov.graded += 1
    return cov


def _flags(run: Run, cov: Coverage, mine: dict[str, Any], found: list[Discrepancy], over_present: bool) -> list[Flag]:
    flags = []
    ranked = (
        "ranked over the instructions present, as the source ranks (incomplete_entrants: ranked_over_present)"
        if over_present
        else "not ranked: an incomplete entrant never is"
    )
    if cov.missing:
        have = "has" if cov.missing == 1 else "have"
        detail = f"{plural(cov.missing, 'instruction')} {have} no output or judgment; {ranked}"
        flags.append(Flag("incomplete", "incomplete", detail))
    if cov.judgments_missing:
        detail = f"{plural(cov.judgments_missing, 'judgment')} failed: left out of every figure, as AlpacaEval leaves "
        detail += f"them out, never counted as a loss; {ranked}"
        flags.append(Flag("failed_judgment", "judgment failed", detail))
    if found:
        n = len(found)
        flags.append(
            Flag("discrepancy", "discrepancy", f"{plural(n, 'published figure')} {disagree(n)} with the recomputation")
        )
    unmatched = run.metadata.get("judged_without_model_output", 0)
    if unmatched:
        verb = "is" if unmatched == 1 else "are"
        detail = f"{plural(unmatched, 'judged output')} {verb} not in model_outputs.json as judged; avg_length is "
        detail += "computed from model_outputs.json, as AlpacaEval computes it"
        stored = (run.stored_scores.get("reported") or {}).get("avg_length")
        judged = judged_avg_length(run)
        if stored not in (None, "") and float(stored) == judged != mine["avg_length"]:
            detail += (
                f"; the source's avg_length {stored} is the mean over the judged outputs in annotations.json: a "
                "choice of file, not a discrepancy"
            )
        flags.append(Flag("outputs", "outputs differ", detail))
    return flags


def _cells(run: Run, mine: dict[str, Any], reported: dict[str, Any]) -> dict[str, Cell]:
    cells = {
        "n_wins": Cell(mine["n_wins"], n=mine["n_wins"], of=mine["n_total"]),
        "n_wins_base": Cell(mine["n_wins_base"], n=mine["n_wins_base"], of=mine["n_total"]),
        "n_draws": Cell(mine["n_draws"], n=mine["n_draws"], of=mine["n_total"]),
        "discrete_win_rate": Cell(mine["discrete_win_rate"], n=mine["n_total"]),
        "avg_length": Cell(mine["avg_length"], n=len(run.stored_scores.get("output_lengths") or [])),
    }
    if reported.get("length_controlled_winrate") not in (None, ""):
        # said once, by its column's title: reported by the source, not recomputed
        cells["reported_length_controlled_winrate"] = Cell(float(reported["length_controlled_winrate"]))
    return cells


def _row(version: BenchmarkVersion, run: Run, results: dict[str, PairResult]) -> tuple[Row, list[Discrepancy]]:
    cov = _coverage(version, run, results)
    mine = columns(run)
    found = _compare(run, mine, version.discrepancy_tolerance)
    judged = mine["n_total"] > 1  # a standard error needs two judgments
    complete = cov.complete and judged
    over_present = not complete and judged and version.incomplete_entrants == "ranked_over_present"
    reported = run.stored_scores.get("reported") or {}
    figures: dict[str, Any] = dict(mine)
    figures["instructions"] = cov.expected
    if reported.get("mode") not in (None, ""):
        figures["reported_mode"] = reported["mode"]
    entrant = run.entrants[0]
    row = Row(
        run.id,
        entrant.id,
        entrant.label,
        [run.id],
        complete,
        mine["win_rate"] if complete or over_present else None,
        cov,
        _cells(run, mine, reported),
        _flags(run, cov, mine, found, over_present),
        count=mine["n_wins"],
        figures=figures,
        over_present=over_present,
    )
    return row, found


def _baseline_row(version: BenchmarkVersion, d: PairwiseDefinition) -> Row:
    detail = "every win rate is measured against this model's outputs; its own would be 50 by definition, so it is "
    return Row(
        "baseline",
        d.baseline_id,
        d.baseline_label,
        [],
        True,
        None,
        Coverage(expected=len(version.items), collected=len(version.items)),
        flags=[Flag("baseline", "baseline", detail + "shown, not ranked")],
        figures={"baseline": 1},
    )


TITLES = {
    "n_wins": "Wins",
    "n_wins_base": "Losses (baseline wins)",
    "n_draws": "Draws",
    "discrete_win_rate": "Discrete win rate",
    "avg_length": "Average length (characters)",
    "reported_length_controlled_winrate": "Length-controlled win rate (reported by the source, not recomputed)",
}


def score(version: BenchmarkVersion) -> Scored:
    d: PairwiseDefinition = version.definition
    rows: list[Row] = []
    results: dict[str, PairResult] = {}
    discrepancies: list[Discrepancy] = []
    for run in version.runs:
        row, found = _row(version, run, results)
        rows.append(row)
        discrepancies += found
    assign_ranks(rows)
    board = Leaderboard(
        version.benchmark_id,
        version.id,
        f"Win rate against {d.baseline_label} (± standard error)",
        list(TITLES.items()),
        order_rows(rows) + [_baseline_row(version, d)],
        ranked=True,
        discrepancies=discrepancies,
        score_range=(0.0, 100.0),  # a win rate in points
        notes=_notes(version, d),
        reported=[k for k in TITLES if k.startswith("reported_") and any(k in r.cells for r in rows)],
    )
    return Scored(board, results, {"figures": {r.run_ids[0]: r.figures for r in rows}})


def _notes(version: BenchmarkVersion, d: PairwiseDefinition) -> list[str]:
    incomplete = (
        "An entrant with missing outputs or failed judgments is ranked by its win rate over the instructions "
        "present, as AlpacaEval ranks (this benchmark declares incomplete_entrants: ranked_over_present); the "
        "count stands beside it and a flag says what is missing."
        if version.incomplete_entrants == "ranked_over_present"
        else "An entrant with missing outputs or failed judgments is not ranked; its win rate over the instructions "
        "present is still shown, with the count."
    )
    return [
        f"Win rate = 100 × mean of (preference − 1) over the valid judgments against the baseline "
        f"{d.baseline_label}: a win counts 1, a draw 0.5, a loss 0, as AlpacaEval computes it.",
        "A failed judgment is left out of every figure (it is missing, never a loss); the count of valid "
        "judgments stands beside each win rate.",
        incomplete,
        "The length-controlled win rate is reported by the source and not recomputed: it needs AlpacaEval's "
        "regression fitted over all its models.",
    ]


def statistics(version, scored, params, declared):  # noqa: ANN001, ANN202
    return no_intervals(
        scored,
        "Uncertainty: AlpacaEval's standard error of the win rate (sample deviation of the per-instruction outcome "
        "over the square root of the judged count), recomputed, stands beside each win rate.",
    )
