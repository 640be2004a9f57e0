"""Head-to-head: two leaderboard rows of a version compared overall, per breakdown column and item by item.

The overall difference carries the interval the version's statistics give the pair (paired over the items both
answered, clustered as the benchmark declares: scoring/uncertainty.py), labelled resolved or unresolved as on the
leaderboard. Item by item, each row's result on an item is the mean of its responses' results (a pass 1, a fail 0, a
score as scored); an item either row has no result on is counted apart, never as a loss.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..release import VersionView
from ..results import Row, result_number

PAIR_PAGES_UP_TO = 30  # entrants: n(n-1)/2 pages, 435 at 30; past it no head-to-head pages are built (docs/scale.md)


@dataclass
class ItemGap:
    item_id: str
    title: str
    a: float
    b: float

    @property
    def gap(self) -> float:
        return self.a - self.b


@dataclass
class HeadToHead:
    a: Row
    b: Row
    difference: float | None  # a's score minus b's, in the score's display unit
    interval: Any | None  # the pair's interval (in the same unit), where the statistics give one
    resolved: bool | None
    columns: list[tuple[str, str, Any, Any, float | None]]  # key, title, a's cell, b's cell, a - b
    a_better: list[ItemGap] = field(default_factory=list)
    b_better: list[ItemGap] = field(default_factory=list)
    tied: list[ItemGap] = field(default_factory=list)
    without: int = 0  # items either row has no result on


def comparable_rows(view: VersionView) -> list[Row]:
    """The rows a head-to-head page compares: every entrant's row, not a baseline's."""
    return [r for r in view.rows if r.entrant_id in view.entrants and not r.figures.get("baseline")]


def pair_keys(view: VersionView) -> list[tuple[str, str]]:
    """Every pair of comparable rows, each once, in the leaderboard's order; none past PAIR_PAGES_UP_TO."""
    rows = comparable_rows(view)
    if len(rows) > PAIR_PAGES_UP_TO:
        return []
    return [(a.key, b.key) for i, a in enumerate(rows) for b in rows[i + 1 :]]


def item_results(view: VersionView, row: Row) -> dict[str, float]:
    """Item id -> the row's mean result over its responses to the item that have one."""
    per: dict[str, list[float]] = {}
    for t in view.by_entrant.get(row.entrant_id, []):
        if t.run_id not in row.run_ids or (row.attempt is not None and t.attempt != row.attempt):
            continue
        s = view.summaries[t.id]
        value = result_number(s.value, s.state)
        if value is not None:
            per.setdefault(t.item_id, []).append(value)
    return {item: sum(v) / len(v) for item, v in per.items()}


def head_to_head(view: VersionView, a_key: str, b_key: str) -> HeadToHead:
    """The comparison, figures in the score's display unit (a proportion as a percentage)."""
    rows = {r.key: r for r in comparable_rows(view)}
    a, b = rows[a_key], rows[b_key]
    scale = 100.0 if view.bench.display.get("score_unit") == "%" else 1.0
    difference = (a.score - b.score) * scale if a.score is not None and b.score is not None else None
    interval, resolved = _pair_interval(view, a_key, b_key)
    columns = []
    for key, title in view.scored.leaderboard.columns:
        ca, cb = a.cells.get(key), b.cells.get(key)
        both = ca is not None and cb is not None and ca.value is not None and cb.value is not None
        columns.append((key, title, ca, cb, ca.value - cb.value if both else None))
    out = HeadToHead(a, b, difference, interval, resolved, columns)
    ra, rb = item_results(view, a), item_results(view, b)
    for item in view.version.items:
        if item.id not in ra or item.id not in rb:
            out.without += 1
            continue
        gap = ItemGap(item.id, item.title, ra[item.id], rb[item.id])
        (out.a_better if gap.gap > 0 else out.b_better if gap.gap < 0 else out.tied).append(gap)
    out.a_better.sort(key=lambda g: -g.gap)
    out.b_better.sort(key=lambda g: g.gap)
    return out


def _pair_interval(view: VersionView, a_key: str, b_key: str) -> tuple[Any | None, bool | None]:
    sep = view.stats.separation if view.stats else None
    if sep is None:
        return None, None
    k = view.stats.scale  # the statistics' unit to the score's display unit
    if (a_key, b_key) in sep.differences:
        _, i, resolved = sep.differences[(a_key, b_key)]
        return type(i)(i.lo * k, i.hi * k, i.level), resolved
    if (b_key, a_key) in sep.differences:
        _, i, resolved = sep.differences[(b_key, a_key)]
        return type(i)(-i.hi * k, -i.lo * k, i.level), resolved
    return None, None
