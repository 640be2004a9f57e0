"""How the pack's figures read: the scorer hands over numbers, this writes them out (pages, downloads, report)."""

from __future__ import annotations

from typing import Any

from ...model import BenchmarkVersion, Transcript
from ...results import Cell, Row, Summary, count_pct, plural


def score_text(row: Row, version: BenchmarkVersion) -> str:
    """The full-pack rate with its counts, or the rubric's coverage statement for a partial result."""
    cov = row.coverage
    if row.complete:
        return count_pct(row.count or 0, cov.expected)
    return coverage_statement(row.count or 0, cov.graded, cov.collected, cov.expected, cov.under_review)


def cell_text(key: str, cell: Cell, version: BenchmarkVersion) -> str:
    if cell.value is not None:
        return count_pct(cell.n or 0, cell.of or 0)
    return f"{cell.n} pass / {cell.graded} graded of {cell.of}"


def coverage_statement(passes: int, graded: int, collected: int, expected: int, review: int) -> str:
    """The rubric's own wording for a partial result, with the observed values (nouns in the right number)."""
    return (
        f"{plural(passes, 'pass', 'passes')} / {plural(graded, 'graded completed case')}; {collected} of {expected} "
        f"responses collected; {plural(review, 'case')} under review"
    )


def summarise(result: Any, t: Transcript, definition: Any) -> Summary:
    """One short, honest line per transcript for lists and side-by-side views."""
    if t.status in ("missing", "not_run"):
        return Summary("ungraded: no response collected", "missing")
    if t.status == "error":
        return Summary(f"ungraded: error ({t.error})", "missing")
    label = {"pass": "pass", "fail": "fail", "needs_review": "needs review", "ungraded": "ungraded"}[result.outcome]
    state = {"pass": "pass", "fail": "fail", "needs_review": "review", "ungraded": "missing"}[result.outcome]
    return Summary(label + (" (truncated)" if t.truncated else ""), state)
