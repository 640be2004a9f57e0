"""How TuckerBench's figures read: the scorer hands over numbers, this writes them out (pages, downloads, report)."""

from __future__ import annotations

from typing import Any

from ...model import BenchmarkVersion, Transcript
from ...results import Cell, Row, Summary


def score_text(row: Row, version: BenchmarkVersion) -> str:
    cov, judges, partial = row.coverage, row.figures.get("judges"), row.figures.get("partial")
    if row.complete and row.score is not None:
        return f"{row.score:.1f} / 100 from {cov.expected} transcripts × {judges} judges"
    if partial is not None:
        return f"partial {partial:.1f} over {cov.graded} of {cov.expected} fully judged transcripts"
    return f"no score: {cov.graded} of {cov.expected} transcripts fully judged"


def cell_text(key: str, cell: Cell, version: BenchmarkVersion) -> str:
    """A group's score out of 100 with transcripts scored of expected, or a dimension mean with its count."""
    if key.startswith("group:"):
        return f"{cell.value:.1f} ({cell.n} / {cell.of})" if cell.value is not None else f"– (0 / {cell.of})"
    return f"{cell.value:.2f} (n = {cell.n})" if cell.value is not None else "–"


def summarise(result: Any, t: Transcript, definition: Any) -> Summary:
    """One short, honest line per transcript for lists and side-by-side views."""
    if t.status == "error":
        return Summary(f"missing: {t.turns[-1].error}", "missing")
    if t.status in ("missing", "in_progress"):
        return Summary("missing: transcript " + ("not collected" if t.status == "missing" else "unfinished"), "missing")
    if result.score is None:
        states = ", ".join(f"{j}: {s.replace('_', ' ')}" for j, s in result.judge_state.items() if s != "ok")
        return Summary(f"not fully judged ({states})", "partial")
    extra = (" · empty output" if result.empty else "") + (" · truncated" if result.truncated else "")
    return Summary(f"{result.score:.2f} / {definition.scale_max:g}{extra}", "score", result.score)
