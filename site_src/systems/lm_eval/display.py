"""How lm-eval figures read: each says whether it is recomputed from the samples, over how many, or as reported."""

from __future__ import annotations

from typing import Any

from ...model import BenchmarkVersion, Transcript
from ...results import Cell, Row, Summary


def score_text(row: Row, version: BenchmarkVersion) -> str:
    f = row.figures
    logged = f"{f['samples']:,} of {f['documents']:,} documents' samples logged"
    if row.complete and row.score is not None:
        return f"{row.score:.4f} ({f['tasks']} task{'s' if f['tasks'] != 1 else ''}; {logged})"
    return f"no recomputed score: {logged}; each figure is in the breakdown, recomputed or as reported"


def cell_text(key: str, cell: Cell, version: BenchmarkVersion) -> str:
    if cell.note == "reported":
        shown = f"{cell.value:.4f}" if cell.value is not None else str(cell.label)
        shown += f" ± {cell.stderr:.4f}" if cell.stderr is not None else ""
        return f"{shown} (as reported by the harness, not recomputed)"
    if cell.value is None:
        return "–"
    shown = f"{cell.value:.4f}" + (f" ± {cell.stderr:.4f}" if cell.stderr is not None else "")
    if cell.note == "partial":
        return f"{shown} over {cell.n} of {cell.of} samples (the harness reports {cell.label} over {cell.of})"
    return f"{shown} (n = {cell.n})"


def summarise(result: Any, t: Transcript, definition: Any) -> Summary:
    if result is None or result.status != "completed":
        return Summary("missing: no sample logged", "missing")
    shown = result.values
    if len(shown) == 1:
        ((key, value),) = shown.items()
        if value in (0, 1, 0.0, 1.0, True, False):
            return Summary(f"{key}: {'pass' if value else 'fail'}", "pass" if value else "fail", float(value))
    text = ", ".join(f"{k}: {v}" for k, v in shown.items()) or "no metric logged"
    return Summary(text, "score", None)
