"""How an Inspect log's figures read: the recomputed metric with its sample count, or what is missing."""

from __future__ import annotations

from typing import Any

from ...model import BenchmarkVersion, Transcript
from ...results import Cell, Row, Summary
from .definition import in_words


def score_text(row: Row, version: BenchmarkVersion) -> str:
    cov = row.coverage
    if row.complete and row.score is not None:
        key = next((k for k in row.cells if k.endswith(("/accuracy", "/mean"))), "score")
        text = f"{key.replace('/', ' · ')} {row.score:.3f} over {row.count} sample{'s' if row.count != 1 else ''}"
        epochs = row.figures.get("epochs", 1)
        return text + (f", {epochs} epochs reduced" if epochs and epochs > 1 else "")
    gaps = ", ".join(cov.gaps()) or next((f.detail for f in row.flags if f.code == "incomplete"), "incomplete")
    return f"no score: {cov.collected} of {cov.expected} sample-epochs recorded; {gaps}"


def cell_text(key: str, cell: Cell, version: BenchmarkVersion) -> str:
    if cell.value is None:
        return cell.note or "–"
    if cell.note:  # a figure the log reports and this build does not recompute
        return f"{cell.value:.3f} ({cell.note})"
    return f"{cell.value:.3f} (n = {cell.n})"


def summarise(result: Any, t: Transcript, definition: Any) -> Summary:
    if t.status == "missing":
        return Summary("missing", "missing")
    if t.status == "error":
        return Summary(f"error: {t.error or 'no message'}", "missing")
    if not result.values:
        return Summary("ungraded", "review")
    parts = [f"{name}: {in_words(raw)}" for name, (raw, _number) in result.values.items()]
    numbers = [n for _, n in result.values.values() if n is not None]
    first = next(iter(result.values.values()))[1]
    state = "pass" if first == 1.0 else "fail" if first == 0.0 else "score"
    return Summary("; ".join(parts), state, numbers[0] if numbers else None)
