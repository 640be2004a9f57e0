"""How pairwise figures read: win rate with its standard error and the counts behind it."""

from __future__ import annotations

from typing import Any

from ...model import BenchmarkVersion, Transcript
from ...results import Cell, Row, Summary


def score_text(row: Row, version: BenchmarkVersion) -> str:
    f = row.figures
    if f.get("baseline"):
        return "baseline: not ranked (50 by definition)"
    counts = (
        f"{f.get('n_wins')} wins, {f.get('n_wins_base')} losses, {f.get('n_draws')} draws of {f.get('n_total')} judged"
    )
    lc = f.get("reported_length_controlled_winrate")
    if lc is not None:
        counts += f"; length-controlled {lc:.2f}, reported by the source, not recomputed"
    if row.complete and row.score is not None:
        return f"{row.score:.2f} ± {f['standard_error']:.2f} ({counts})"
    return f"no full win rate: {', '.join(row.coverage.gaps())}; {counts}"


def cell_text(key: str, cell: Cell, version: BenchmarkVersion) -> str:
    if cell.value is None:
        return cell.note or "–"
    if cell.note:  # reported by the source
        return f"{cell.value:.2f} ({cell.note})"
    if cell.of is not None:
        return f"{int(cell.value)} / {cell.of}"
    if key == "avg_length":
        return f"{int(cell.value)} (n = {cell.n})"
    return f"{cell.value:.2f} (n = {cell.n})"


def summarise(result: Any, t: Transcript, definition: Any) -> Summary:
    words = {
        "win": "entrant preferred",
        "loss": "baseline preferred",
        "draw": "draw",
        "failed": "judgment failed: not counted",
        "missing": "missing",
    }
    state = {"win": "pass", "loss": "fail", "draw": "score", "failed": "review", "missing": "missing"}
    shown = f" (preference {result.preference})" if result.preference is not None else ""
    return Summary(words[result.outcome] + shown, state[result.outcome], result.value)
