"""How MT-Bench figures read: a mean grade on the judge's 1-10 scale with the count of grades behind it."""

from __future__ import annotations

from typing import Any

from site_src.model import BenchmarkVersion, Transcript
from site_src.results import Cell, Row, Summary


def score_text(row: Row, version: BenchmarkVersion) -> str:
    f = row.figures
    counted = f"{f['grades']} of {f['turns']} turns graded"
    if row.complete and row.score is not None:
        return f"{row.score:.2f} / 10 ({counted})"
    if f.get("mean") is None:
        return f"no score: {counted}"
    return f"not ranked: {f['mean']:.2f} / 10 over {counted}"


def cell_text(key: str, cell: Cell, version: BenchmarkVersion) -> str:
    if cell.value is None:
        return cell.note or "–"
    if key == "win_rate_adjusted":
        return f"{100 * cell.value:.1f}% ({cell.note} of {cell.n})"
    if cell.of is not None:
        return f"{100 * cell.value:.1f}% ({cell.n} of {cell.of})"
    return f"{cell.value:.2f} (n = {cell.n})"


def summarise(result: Any, t: Transcript, definition: Any) -> Summary:
    if result is None or result.status != "completed":
        return Summary("missing: no answer", "missing")
    grades = ", ".join(f"turn {turn}: {grade:g}" for turn, grade in sorted(result.grades.items()))
    if result.failed:
        grades += (", " if grades else "") + ", ".join(f"turn {turn}: grade unreadable" for turn in result.failed)
    verdict = {1.0: "won", 0.5: "tied", 0.0: "lost"}.get(result.verdict) if result.verdict is not None else None
    against = f"; against {definition.baseline}: {verdict}" if verdict else ""
    if not result.grades:
        return Summary(f"not graded{against}", "review")
    return Summary(f"{grades}{against}", "score", result.mean)
