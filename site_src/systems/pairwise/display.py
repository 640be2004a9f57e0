"""How pairwise figures read: win rate with its standard error and the counts behind it."""

from __future__ import annotations

from typing import Any

from ...model import BenchmarkVersion, Transcript
from ...results import Cell, Row, Summary


def score_text(row: Row, version: BenchmarkVersion) -> str:
    f = row.figures
    if f.get("baseline"):
        return "baseline: not ranked (50 by definition)"
    judged, of = f.get("n_total"), f.get("instructions")
    counts = f"{f.get('n_wins')} wins, {f.get('n_wins_base')} losses, {f.get('n_draws')} draws"
    if row.complete and row.score is not None:
        return f"{row.score:.2f} ± {f['standard_error']:.2f} ({counts} of {judged} judged)"
    over = f"over {judged} of {of} instructions"
    if judged and judged > 1:
        figure = f"{f['win_rate']:.2f} ± {f['standard_error']:.2f} {over}"
        return f"{figure} ({counts})" if row.over_present else f"not ranked: {figure} ({counts})"
    return f"no win rate: {over}"


def cell_text(key: str, cell: Cell, version: BenchmarkVersion) -> str:
    if cell.value is None:
        return cell.note or "–"
    if key.startswith("reported_"):  # its column's title says it is reported by the source, not recomputed
        return f"{cell.value:.2f}"
    if cell.of is not None:
        return f"{int(cell.value)} / {cell.of}"
    if key == "avg_length":
        return f"{int(cell.value)} (n = {cell.n})"
    return f"{cell.value:.2f} (n = {cell.n})"


def summarise(result: Any, t: Transcript, definition: Any) -> Summary:
    words = {
        "win": "won: the judge preferred the entrant",
        "loss": "lost: the judge preferred the baseline",
        "draw": "draw",
        "failed": "judgment failed: not counted",
        "missing": "missing",
    }
    state = {"win": "pass", "loss": "fail", "draw": "score", "failed": "review", "missing": "missing"}
    shown = f" (preference {result.preference})" if result.preference is not None else ""
    return Summary(words[result.outcome] + shown, state[result.outcome], result.value)


def item_result(summaries: list[Summary]) -> tuple[str, float] | None:
    """An instruction's outcome in the pairwise words: "lost" for one entrant, or the wins, losses and draws of
    several, sorted by the entrants' share of wins (a draw half)."""
    judged = [s for s in summaries if s.state in ("pass", "fail", "score")]
    if not judged:
        return None
    won, lost = sum(s.state == "pass" for s in judged), sum(s.state == "fail" for s in judged)
    drawn = len(judged) - won - lost
    share = (won + drawn / 2) / len(judged)
    if len(judged) == 1:
        return ("won" if won else "lost" if lost else "draw"), share
    return f"{won} won, {lost} lost, {drawn} drawn of {len(judged)} judged", share
