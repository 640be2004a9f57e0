"""Attach the statistics a benchmark declares to its recomputed results: intervals, rank separation and
run-to-run variation. Pure: works on the typed records and the scorer's results only."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..model import Benchmark, BenchmarkVersion
from ..results import Row, Scored
from .uncertainty import Interval, Separation, draw_counts, percentile, resampled_means, separation

FEW_CLUSTERS = 30  # below this, simulated coverage of percentile bootstrap intervals falls short of nominal


@dataclass
class RowStats:
    score: Interval | None = None
    cells: dict[str, Interval] = field(default_factory=dict)
    variation: str = ""  # run-to-run (repetition or run directory) variation, in words with the values


@dataclass
class VersionStats:
    rows: dict[str, RowStats]
    separation: Separation | None
    params: dict[str, Any]  # resamples, seed, level, clusters: shown with the figures
    note: str
    scale: float = 1.0  # multiply score differences by this to show them in the score's display unit


def add_statistics(bench: Benchmark, version: BenchmarkVersion, scored: Scored) -> VersionStats:
    declared = bench.statistics
    params = dict(version.definition.uncertainty)
    builder = {"tuckerbench": _tucker, "uzbek-pack": _pack, "dual-layer": _rubric}[bench.system]
    rows, boot, note = builder(version, scored, params, declared)
    sep = None
    if declared.get("rank_separation") and bench.rank_claims and len(boot) > 1:
        observed = {r.key: r.score for r in scored.leaderboard.rows if r.key in boot}
        sep = separation(observed, boot, params["level"])
    params["clusters"] = len(version.items)
    if declared.get("intervals") and len(version.items) < FEW_CLUSTERS:
        note += (
            f" With only {len(version.items)} clusters these intervals are too narrow: in simulation "
            "(scripts/coverage.py) nominal 95% intervals covered the truth about 80% of the time with 6 clusters and "
            "about 93% with 30. Read them as a lower bound on the uncertainty."
        )
    return VersionStats(rows, sep, params, note, scale=100.0 if bench.system == "dual-layer" else 1.0)


def _draws(strata: list[str], params: dict[str, Any]) -> np.ndarray:
    return draw_counts(strata, params["resamples"], params["seed"])


def _tucker(version, scored, params, declared):  # noqa: ANN001, ANN202 - internal adapter
    d = version.definition
    ids = [i.id for i in version.items]
    strata = [i.kind for i in version.items]
    draws = _draws(strata, params)
    masks = {g: np.array([s == g for s in strata], dtype=float) for g in d.group_weights}
    level = params["level"]
    rows: dict[str, RowStats] = {}
    boot: dict[str, np.ndarray] = {}
    for row in scored.leaderboard.rows:
        run = next(r for r in version.runs if r.id == row.run_ids[0])
        mine = [t for t in run.transcripts if t.entrant_id == row.entrant_id]
        stats = RowStats()
        rows[row.key] = stats
        if declared.get("run_variation") and row.complete:
            per_rep = {}
            for rep in sorted({t.attempt for t in mine}):
                groups = defaultdict(list)
                for t in mine:
                    if t.attempt == rep:
                        groups[scored.transcripts[t.id].kind].append(scored.transcripts[t.id].score)
                per_rep[rep] = d.to_100 * sum(w * float(np.mean(groups[g])) for g, w in d.group_weights.items())
            values = list(per_rep.values())
            stats.variation = " · ".join(f"repetition {r}: {v:.1f}" for r, v in per_rep.items())
            stats.variation += f" (spread {max(values) - min(values):.1f})"
        if not (declared.get("intervals") and row.complete):
            continue
        sums = np.zeros(len(ids))
        counts = np.zeros(len(ids))
        dim_sums = {dim.id: np.zeros(len(ids)) for dim in d.dimensions}
        dim_counts = {dim.id: np.zeros(len(ids)) for dim in d.dimensions}
        for t in mine:
            r = scored.transcripts[t.id]
            k = ids.index(t.item_id)
            sums[k] += r.score
            counts[k] += 1
            for dim, v in r.dimensions.items():
                dim_sums[dim][k] += v
                dim_counts[dim][k] += 1
        overall = d.to_100 * sum(w * resampled_means(draws, sums, counts, masks[g]) for g, w in d.group_weights.items())
        boot[row.key] = overall
        stats.score = percentile(overall, level)
        for g in d.group_weights:
            stats.cells[f"group:{g}"] = percentile(d.to_100 * resampled_means(draws, sums, counts, masks[g]), level)
        for dim in d.dimensions:
            stats.cells[dim.id] = percentile(resampled_means(draws, dim_sums[dim.id], dim_counts[dim.id]), level)
    note = (
        f"{int(level * 100)}% intervals: scenario-clustered bootstrap (all turns and repetitions of a scenario "
        f"resampled together, within the single and conversation groups), {params['resamples']} resamples, "
        f"seed {params['seed']}, {len(ids)} scenarios."
    )
    return rows, boot, note


def _binary(version, scored, params, declared, strata, outcome_of, cell_of):  # noqa: ANN001, ANN202
    """Pack cases and rubric tasks: pass (1) or fail (0) per cluster; intervals for complete rows only."""
    ids = [i.id for i in version.items]
    draws = _draws(strata, params)
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
        for cell, mask in cell_of(ids).items():
            stats.cells[cell] = percentile(100 * resampled_means(draws, sums, counts, mask), level)
    return rows, boot


def _pack(version, scored, params, declared):  # noqa: ANN001, ANN202
    strata = [i.category for i in version.items]

    def outcome_of(row: Row) -> dict[str, str]:
        run = next(r for r in version.runs if r.id == row.run_ids[0])
        return {t.item_id: scored.transcripts[t.id].outcome for t in run.transcripts if t.attempt == row.attempt}

    def cell_of(ids: list[str]) -> dict[str, np.ndarray]:
        return {c: np.array([s == c for s in strata], dtype=float) for c in dict.fromkeys(strata)}

    rows, boot = _binary(version, scored, params, declared, strata, outcome_of, cell_of)
    if declared.get("run_variation"):  # each run of a model side by side, never merged, never best-of
        by_entrant: dict[str, list[Row]] = defaultdict(list)
        for row in scored.leaderboard.rows:
            by_entrant[row.entrant_id].append(row)
        for row in scored.leaderboard.rows:
            runs = sorted(by_entrant[row.entrant_id], key=lambda r: (r.run_ids[0], r.attempt or 0))
            if len(runs) > 1:
                parts = [
                    f"{r.key}: {f'{r.count} / {r.coverage.expected}' if r.complete else 'incomplete'}" for r in runs
                ]
                rows[row.key].variation = f"{len(runs)} runs of this model — " + "; ".join(parts)
    per_category = version.definition.cases_per_category
    note = (
        f"{int(params['level'] * 100)}% intervals: case-clustered bootstrap within categories, "
        f"{params['resamples']} resamples, seed {params['seed']}, {len(version.items)} cases. With "
        f"{per_category} case{'s' if per_category != 1 else ''} per category a category interval spans much of the "
        f"range: it shows how little {per_category} case{'s' if per_category != 1 else ''} can say."
    )
    return rows, boot, note


def _rubric(version, scored, params, declared):  # noqa: ANN001, ANN202
    strata = ["task"] * len(version.items)

    def outcome_of(row: Row) -> dict[str, str]:
        return {i.id: scored.transcripts[f"{row.run_ids[0]}--{i.id}"].status for i in version.items}

    rows, boot = _binary(version, scored, params, declared, strata, outcome_of, lambda ids: {})
    note = (
        f"{int(params['level'] * 100)}% intervals of the pass rate: task-clustered bootstrap, "
        f"{params['resamples']} resamples, seed {params['seed']}, {len(version.items)} tasks."
    )
    return rows, boot, note
