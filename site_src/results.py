"""What a scorer returns: one leaderboard shape for every system, plus system-specific detail per transcript."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any


def pct(n: int | float, d: int | float) -> str:
    return f"{round(100 * n / d)}%" if d else "–"


def plural(n: int, word: str, words: str | None = None) -> str:
    """ "1 case", "2 cases": a count with its noun in the right number."""
    return f"{n} {word if n == 1 else (words or word + 's')}"


def named(word: str, names: list[str], words: str | None = None) -> str:
    """ "check a", "checks a, b": a noun in the number of the names that follow it."""
    return f"{word if len(names) == 1 else (words or word + 's')} {', '.join(names)}"


def disagree(n: int) -> str:
    """The verb after a count of figures: "1 stored figure disagrees", "2 ... disagree"."""
    return "disagrees" if n == 1 else "disagree"


def count_pct(n: int, d: int) -> str:
    """Counts always beside the percentage: "7 / 24 · 29%"."""
    return f"{n} / {d} · {pct(n, d)}"


@dataclass(frozen=True)
class Flag:
    # incomplete | discrepancy | same_family_judge | truncated | empty | needs_review | low_confidence | transport
    code: str
    label: str  # the word shown (colour never carries it alone)
    detail: str


@dataclass(frozen=True)
class Discrepancy:
    file: str
    record: str
    field: str
    stored: str
    recomputed: str


@dataclass
class Coverage:
    expected: int
    collected: int = 0
    errored: int = 0
    missing: int = 0
    ungraded: int = 0
    under_review: int = 0
    graded: int = 0
    judgments_expected: int = 0
    judgments_missing: int = 0  # parse failures and absent judgments

    @property
    def complete(self) -> bool:
        return (
            self.collected == self.expected
            and not self.ungraded
            and not self.under_review
            and not self.judgments_missing
        )

    def gaps(self) -> list[str]:
        parts = []
        if self.missing:
            parts.append(f"{self.missing} missing")
        if self.errored:
            parts.append(f"{self.errored} errored")
        if self.ungraded:
            parts.append(f"{self.ungraded} ungraded")
        if self.under_review:
            parts.append(f"{self.under_review} under review")
        if self.judgments_missing:
            parts.append(f"{self.judgments_missing} of {self.judgments_expected} judgments missing")
        return parts


@dataclass
class Cell:
    """One breakdown figure, as numbers: the system's display module writes it out (display.cell_text)."""

    value: float | None = None  # the figure; None where no full figure exists
    note: str = ""  # why a figure is missing or partial, in words
    n: int | None = None  # the count behind the figure: passes of a proportion, observations of a mean
    of: int | None = None  # the denominator of a proportion (cases in the category)
    graded: int | None = None  # of those, how many were graded (for a partial proportion)
    label: str | None = None  # where the figure is an outcome rather than a number (a task's result)
    stderr: float | None = None  # the figure's standard error, where the system computes one


@dataclass
class Row:
    key: str  # unique within the leaderboard
    entrant_id: str
    label: str
    run_ids: list[str]
    complete: bool
    score: float | None  # only for a complete row; an incomplete row never has a full score
    coverage: Coverage
    cells: dict[str, Cell] = field(default_factory=dict)
    flags: list[Flag] = field(default_factory=list)
    rank: int | None = None
    attempt: int | None = None  # the attempt a row stands for, where a run holds several
    count: int | None = None  # whole items behind a proportion score (passing cases), never parsed from text
    figures: dict[str, float | int | None] = field(default_factory=dict)  # further numbers a system shows
    # ranked over the items present, though incomplete: only where the benchmark declares its source's convention
    # (benchmark.yaml incomplete_entrants: ranked_over_present); its score text always says over how many
    over_present: bool = False

    @property
    def rankable(self) -> bool:
        return self.score is not None and (self.complete or self.over_present)


@dataclass
class Leaderboard:
    benchmark_id: str
    version_id: str
    score_label: str
    columns: list[tuple[str, str]]  # breakdown column key -> title
    rows: list[Row]
    ranked: bool
    discrepancies: list[Discrepancy] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    # keys of columns whose figures the source reports and the site does not recompute; the leaderboard shows each
    # in its own column, its title saying so once
    reported: list[str] = field(default_factory=list)
    # the score's declared range, as scored (a proportion 0–1 that the pages show as a percentage): charts take
    # their axis from it; None where nothing declares one (the axis then spans the figures shown, and says so)
    score_range: tuple[float, float] | None = None


@dataclass
class Scored:
    leaderboard: Leaderboard
    transcripts: dict[str, Any]  # transcript id -> system-specific result
    tables: dict[str, Any] = field(default_factory=dict)  # extra breakdowns (per dimension, variation, ...)


def assign_ranks(rows: list[Row]) -> None:
    """Standard competition ranking (1, 2, 2, 4) over complete rows only; incomplete rows are never ranked, unless the
    benchmark declares its source ranks them over what is present (Row.over_present)."""
    ranked = sorted((r for r in rows if r.rankable), key=lambda r: -(r.score or 0))
    previous, rank = None, 0
    for i, row in enumerate(ranked, start=1):
        if row.score != previous:
            rank, previous = i, row.score
        row.rank = rank


def order_rows(rows: list[Row]) -> list[Row]:
    """Complete rows by score, then incomplete rows by label: an incomplete row never sits among ranked ones."""
    return sorted(rows, key=lambda r: (not (r.complete or r.rankable), -(r.score or 0), r.label))


@dataclass(frozen=True, slots=True)
class Summary:
    text: str  # e.g. "pass", "6.4 / 10", "missing: quota exhausted"
    state: str  # pass | fail | review | missing | score | partial (a CSS hook; the text always says it too)
    value: float | None = None


def result_number(value: float | None, state: str) -> float | None:
    """A response's result as a number: its value, else 1 for a pass and 0 for a fail; None where it has no result
    (missing, ungraded, under review). Shared by the head-to-head pages and build.py diff, which reads the same
    summaries from a site's transcripts.json."""
    return value if value is not None else {"pass": 1.0, "fail": 0.0}.get(state)


@dataclass
class Diagnostics:
    """Figures kept apart from scores (scoring/diagnostics.py): length, profanity, states, token usage."""

    transcripts: int = 0
    assistant_turns: int = 0
    characters: int = 0
    words: int = 0
    profanity: int = 0
    profanity_forms: set[str] = field(default_factory=set)
    truncated: int = 0
    empty: int = 0
    errors: int = 0
    refusal_turns: int = 0
    refusal_transcripts: int = 0  # every assistant turn refuses ("an outright refusal throughout")
    input_tokens: int = 0
    output_tokens: int = 0
    judge_input_tokens: int = 0
    judge_output_tokens: int = 0

    @property
    def mean_characters(self) -> float | None:
        return self.characters / self.assistant_turns if self.assistant_turns else None

    def __add__(self, other: Diagnostics) -> Diagnostics:
        """Both together (an entrant's runs): counts add up, forms are joined; neither side is changed."""
        return Diagnostics(
            **{
                f.name: getattr(self, f.name) | getattr(other, f.name)
                if f.name == "profanity_forms"
                else getattr(self, f.name) + getattr(other, f.name)
                for f in fields(self)
            }
        )
