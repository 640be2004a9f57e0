"""Attach the statistics a benchmark declares to its recomputed results: intervals, rank separation and
run-to-run variation. Pure: works on the typed records and the scorer's results only."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..model import Benchmark, BenchmarkVersion
from ..results import Scored
from ..systems import system_part
from .uncertainty import (
    Interval,
    Separation,
    draw_counts,
    percentile,
    resampled_means,
    separation,
    separation_t,
    wilson,
)

FEW_CLUSTERS = 30  # below this, simulated coverage of percentile bootstrap intervals falls short of nominal


@dataclass
class RowStats:
    score: Interval | None = None
    cells: dict[str, Interval] = field(default_factory=dict)
    # pass/fail systems: the Wilson interval of the same proportions, honest where counts are small
    wilson: Interval | None = None
    wilson_cells: dict[str, Interval] = field(default_factory=dict)
    variation: str = ""  # run-to-run (repetition or run directory) variation, in words, short enough for a table
    variation_detail: str = ""  # the same with every value, where the short form summarises them
    df: float | None = None  # the stratified t interval's degrees of freedom (Welch–Satterthwaite), where used


@dataclass
class VersionStats:
    rows: dict[str, RowStats]
    separation: Separation | None
    params: dict[str, Any]  # resamples, seed, level, clusters: shown with the figures
    note: str
    scale: float = 1.0  # multiply score differences by this to show them in the score's display unit
    # intervals are in display units: divide by this to have them in the unit of the figures (100 for proportions
    # shown as percentages), as the downloads give them
    interval_scale: float = 1.0


def add_statistics(bench: Benchmark, version: BenchmarkVersion, scored: Scored) -> VersionStats:
    declared = bench.statistics
    params = dict(version.definition.uncertainty)
    part = system_part(bench.system, "scoring")
    rows, boot, note = part.statistics(version, scored, params, declared)
    sep = None
    if declared.get("rank_separation") and bench.rank_claims and len(boot) > 1:
        observed = {r.key: r.score for r in scored.leaderboard.rows if r.key in boot}
        by_t = params.get("method") == "stratified-t"
        sep = (separation_t if by_t else separation)(observed, boot, params["level"])
    params["clusters"] = len(version.items)
    if declared.get("intervals") and len(version.items) < FEW_CLUSTERS and params.get("method") != "stratified-t":
        note += (
            f" With only {len(version.items)} clusters these intervals are too narrow: in simulation "
            "(scripts/coverage.py) nominal 95% intervals covered the truth about 80% of the time with 6 clusters and "
            "about 93% with 30. Read them as a lower bound on the uncertainty."
        )
    return VersionStats(rows, sep, params, note, scale=part.DIFFERENCE_SCALE, interval_scale=part.INTERVAL_SCALE)


def cluster_draws(strata: list[str], params: dict[str, Any]) -> np.ndarray:
    return draw_counts(strata, params["resamples"], params["seed"])


def no_intervals(scored, note: str):  # noqa: ANN001, ANN201
    """For systems whose source reports its own uncertainty (shown with the score): no interval per row, one note."""
    return {row.key: RowStats() for row in scored.leaderboard.rows}, {}, note


def binary_intervals(version, scored, params, declared, strata, outcome_of, cell_of):  # noqa: ANN001, ANN202
    """Pack cases and rubric tasks: pass (1) or fail (0) per cluster; intervals for complete rows only, in percent
    (a system using them declares INTERVAL_SCALE = 100)."""
    ids = [i.id for i in version.items]
    draws = cluster_draws(strata, params)
    level = params["level"]
    rows: dict[str, RowStats] = {}
    boot: dict[str, np.ndarray] = {}
    for row in scored.leaderboard.rows:
        stats = RowStats()
        rows[row.key] = stats
        if not (declared.get("intervals") and row.complete):
            continue
        outcomes = outcome_of(row)
        sums = np.array([1.0 if outcomes.get(i) == "pass" else 0.0 for i in ids])
        counts = np.ones(len(ids))
        rate = resampled_means(draws, sums, counts)
        boot[row.key] = rate
        stats.score = percentile(100 * rate, level)
        stats.wilson = wilson(int(sums.sum()), len(ids), level)
        for cell, mask in cell_of(ids).items():
            stats.cells[cell] = percentile(100 * resampled_means(draws, sums, counts, mask), level)
            stats.wilson_cells[cell] = wilson(int(sums @ mask), int(mask.sum()), level)
    return rows, boot
