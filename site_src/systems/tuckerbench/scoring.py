"""Recompute TuckerBench (seed 004): weighted dimensions, renormalised for single responses, two judges averaged,
group means, overall = 1/3 single + 2/3 conversation out of 100, complete only when nothing is missing."""

from __future__ import annotations

from array import array
from collections import defaultdict
from dataclasses import dataclass, field
from fractions import Fraction
from statistics import fmean
from typing import Any

import numpy as np

from ... import worked_out
from ...model import BenchmarkVersion, Entrant, Judge, Judgment, Run, Transcript
from ...results import Cell, Coverage, Discrepancy, Flag, Leaderboard, Row, Scored, assign_ranks, order_rows, plural
from ...scoring.discrepancy import agrees, compared
from ...scoring.statistics import RowStats, cluster_draws
from ...scoring.uncertainty import TParts, linearized, percentile, resampled_means, stratified_t
from .definition import TuckerDefinition


def weighted_score(scores: dict[str, float], kind: str, d: TuckerDefinition) -> float:
    """0–10: the dimensions that apply to this kind, weights renormalised to sum to one."""
    dims = d.dimensions_for(kind)
    total = sum(dim.weight for dim in dims)
    return sum(dim.weight * scores[dim.id] for dim in dims) / total


@dataclass(slots=True)
class TranscriptScore:
    """One transcript's recomputed score. Its per-judge and per-dimension figures are kept as one array of numbers,
    in the order of the judge and dimension ids they belong to, ids shared with every other transcript of its run:
    as two dicts of their own they took about 0.15 KB a transcript more, and as two tuples of floats 0.17 KB more.
    by_judge and dimensions give them as dicts."""

    kind: str
    status: str  # the transcript's own status (completed | error | missing | in_progress)
    judge_state: dict[str, str]  # judge id -> ok | parse_failed | missing, in the run's order of judges
    # per judge, in judge_state's order, its weighted 0–10 (0 where not scored: see by_judge), then per dimension, in
    # dimension_ids' order, the mean of the judges
    figures: array[float]
    score: float | None  # mean of the judges, only when every judge scored it
    dimension_ids: tuple[str, ...]  # the dimensions the judges scored (complete transcripts only)
    same_family: list[str]  # judges of the entrant's own family
    empty: bool
    truncated: bool
    # what a transcript's download shows of it (site/downloads.py), by_judge and dimensions as dicts, as ever
    PUBLISHED = (
        *("kind", "status", "by_judge", "judge_state", "score"),
        *("dimensions", "same_family", "empty", "truncated"),
    )

    @property
    def by_judge(self) -> dict[str, float | None]:
        """Judge id -> weighted 0–10, None where missing or unparseable (its state says so, not its number)."""
        judged = zip(self.judge_state.items(), self.figures[: len(self.judge_state)], strict=True)
        return {judge: v if state == "ok" else None for (judge, state), v in judged}

    @property
    def dimensions(self) -> dict[str, float]:
        """Dimension id -> mean of the judges (complete transcripts only)."""
        return dict(zip(self.dimension_ids, self.figures[len(self.judge_state) :], strict=True))


@dataclass
class EntrantScore:
    entrant: Entrant
    complete: bool
    overall: float | None  # out of 100, only when complete
    partial: float | None  # the same formula over what exists, labelled as partial
    groups: dict[str, tuple[float | None, int, int]]  # group -> (mean 0–10, scored, expected)
    dimensions: dict[str, tuple[float | None, int]]  # dimension -> (mean 0–10, transcripts)
    coverage: Coverage
    flags: list[Flag] = field(default_factory=list)


def score_transcript(
    t: Transcript,
    kind: str,
    judges: list[Judge],
    judgments: dict[tuple[str, str], Judgment],
    entrant: Entrant,
    d: TuckerDefinition,
    shared: dict[tuple[Any, ...], Any] | None = None,
) -> TranscriptScore:
    """One transcript's score. Given shared, its judges' states, same-family judges and dimension ids are the very
    dict, list and tuple of every other transcript's with the same ones (nearly all are alike): they are never
    changed once made."""
    shared = {} if shared is None else shared
    by_judge: dict[str, float | None] = {}
    state: dict[str, str] = {}
    per_dim: dict[str, list[float]] = defaultdict(list)
    for judge in judges:
        j = judgments.get((judge.id, t.id))
        if j is None:
            by_judge[judge.id], state[judge.id] = None, "missing"
        elif j.parse_status != "ok":
            by_judge[judge.id], state[judge.id] = None, "parse_failed"  # missing, never retried, never zero
        else:
            by_judge[judge.id], state[judge.id] = weighted_score(j.scores, kind, d), "ok"
            for dim, value in j.scores.items():
                per_dim[dim].append(value)
    usable = t.status == "completed" and all(s == "ok" for s in state.values())
    same = [j.id for j in judges if j.family and entrant.family and j.family == entrant.family]
    state = shared.setdefault(("state", *state.items()), state)
    same = shared.setdefault(("same", *same), same)
    dims = tuple(per_dim) if usable else ()
    return TranscriptScore(
        kind=kind,
        status=t.status,
        judge_state=state,
        figures=array("d", [*(v or 0.0 for v in by_judge.values()), *(fmean(per_dim[k]) for k in dims)]),
        score=fmean(v for v in by_judge.values() if v is not None) if usable else None,
        dimension_ids=shared.setdefault(("dimensions", *dims), dims),
        same_family=same,
        empty=any(x.state == "empty" for x in t.turns if x.role == "assistant"),
        truncated=t.truncated,
    )


def score_run(run: Run, kinds: dict[str, str], d: TuckerDefinition) -> dict[str, TranscriptScore]:
    """Transcript id -> its score, for each transcript of one run: worked out from that run alone (and the
    version's definition), so a rebuild takes it from the last build for every run that did not change. Its strings
    are identifiers and states, which the secret scan never rewrites (a secret in one stops the build)."""
    judgments = {(j.judge_id, j.target_id): j for j in run.judgments}
    by_id = {e.id: e for e in run.entrants}
    shared: dict[tuple[Any, ...], Any] = {}  # about 0.3 KB a transcript less, at 10,000 transcripts
    return {
        t.id: score_transcript(t, kinds[t.item_id], run.judges, judgments, by_id[t.entrant_id], d, shared)
        for t in run.transcripts
    }


def overall(groups: dict[str, float | None], d: TuckerDefinition) -> float | None:
    if any(groups.get(g) is None for g in d.group_weights):
        return None
    return d.to_100 * sum(d.group_weights[g] * groups[g] for g in d.group_weights)  # judge scale -> out of 100


def score_entrant(run: Run, entrant: Entrant, results: dict[str, TranscriptScore], d: TuckerDefinition) -> EntrantScore:
    mine = [t for t in run.transcripts if t.entrant_id == entrant.id]
    cov = Coverage(expected=len(mine), judgments_expected=len(mine) * len(run.judges))
    by_group: dict[str, list[float]] = defaultdict(list)
    expected_group: dict[str, int] = defaultdict(int)
    dims: dict[str, list[float]] = defaultdict(list)
    same = empty = truncated = 0
    for t in mine:
        r = results[t.id]
        expected_group[r.kind] += 1
        if t.status == "completed":
            cov.collected += 1
            missing = sum(s != "ok" for s in r.judge_state.values())
            cov.judgments_missing += missing
            cov.graded += not missing
        elif t.status == "error":
            cov.errored += 1  # provider errors and exhausted quotas are missing results, not zeroes
        else:
            cov.missing += 1
        if r.score is not None:
            by_group[r.kind].append(r.score)  # one transcript, one weight, whatever its number of turns
            for dim, v in r.dimensions.items():
                dims[dim].append(v)
        same += bool(r.same_family) and t.status == "completed"
        empty += r.empty
        truncated += r.truncated
    if cov.errored or cov.missing:
        cov.judgments_missing += (cov.errored + cov.missing) * len(run.judges)
    groups = {
        g: (fmean(by_group[g]) if by_group[g] else None, len(by_group[g]), expected_group[g]) for g in d.group_weights
    }
    partial = overall({g: v[0] for g, v in groups.items()}, d)
    complete = cov.collected == cov.expected and cov.judgments_missing == 0
    flags = []
    if not complete:
        flags.append(Flag("incomplete", "incomplete", "; ".join(cov.gaps()) + ": no complete score, not ranked"))
    if same:
        fam = ", ".join(j.label for j in run.judges if j.family == entrant.family)
        flags.append(
            Flag(
                "same_family_judge",
                "same-family judge",
                f"{fam} is of the entrant's own family ({entrant.family}); its judgments are included",
            )
        )
    if truncated:
        flags.append(
            Flag("truncated", "truncated", f"{plural(truncated, 'transcript')} hit the token limit; kept and judged")
        )
    if empty:
        flags.append(
            Flag(
                "empty",
                "empty output",
                f"{plural(empty, 'transcript')} {'contains' if empty == 1 else 'contain'} an empty completion, "
                "judged as empty",
            )
        )
    if entrant.notes:
        flags.append(Flag("transport", "settings not honoured", "; ".join(entrant.notes)))
    return EntrantScore(
        entrant,
        complete,
        partial if complete else None,
        partial,
        groups,
        {dim.id: (fmean(dims[dim.id]) if dims[dim.id] else None, len(dims[dim.id])) for dim in d.dimensions},
        cov,
        flags,
    )


def transcript_scores(run: Run, version: BenchmarkVersion) -> dict[str, TranscriptScore]:
    """A run's transcripts' scores, worked out from the run alone (worked_out.once)."""
    kinds = {i.id: i.kind for i in version.items}
    return worked_out.once(run, "transcript scores", lambda: score_run(run, kinds, version.definition))


def work_out_run(version: BenchmarkVersion, run: Run, key: Any, judges: bool) -> None:
    """What score() and judge_reports() work out from one run alone, worked out ahead (scoring/dispatch.py)."""
    from .judges import report_of  # judges.py builds on this module's transcript scores

    results = transcript_scores(run, version)
    if judges:
        report_of(run, version, results, key)


def score(version: BenchmarkVersion) -> Scored:
    d: TuckerDefinition = version.definition
    results: dict[str, TranscriptScore] = {}
    entrants: dict[str, EntrantScore] = {}
    rows: list[Row] = []
    discrepancies: list[Discrepancy] = []
    for run in version.runs:
        results |= transcript_scores(run, version)
        for entrant in run.entrants:
            es = score_entrant(run, entrant, results, d)
            key = f"{run.id}--{entrant.id}"
            entrants[key] = es
            stored = run.stored_scores.get(entrant.id, {})
            for name, value in (
                ("overall", es.overall if es.complete else es.partial),
                *((g, _g(es, g, d)) for g in d.group_weights),
            ):
                tolerance = version.discrepancy_tolerance
                if name in stored and value is not None and not agrees(stored[name], value, tolerance):
                    theirs, mine = compared(stored[name], value, tolerance)
                    discrepancies.append(
                        Discrepancy(run.stored_scores_file or "", f"entrant {entrant.id}", name, theirs, mine)
                    )
                    es.flags.append(
                        Flag("discrepancy", "discrepancy", f"stored {name} {theirs} differs from the recomputed {mine}")
                    )
            if "complete" in stored and stored["complete"] != es.complete:
                discrepancies.append(
                    Discrepancy(
                        run.stored_scores_file or "",
                        f"entrant {entrant.id}",
                        "complete",
                        str(stored["complete"]).lower(),
                        str(es.complete).lower(),
                    )
                )
                es.flags.append(
                    Flag("discrepancy", "discrepancy", "stored completeness differs from the recomputation")
                )
            cov = es.coverage
            cells = {}
            for dim in d.dimensions:
                mean, n = es.dimensions[dim.id]
                cells[dim.id] = Cell(mean, n=n)
            for g, (mean, n, expected) in es.groups.items():
                cells[f"group:{g}"] = Cell(mean * d.to_100 if mean is not None else None, n=n, of=expected)
            rows.append(
                Row(
                    key=key,
                    entrant_id=entrant.id,
                    label=entrant.label,
                    run_ids=[run.id],
                    complete=es.complete,
                    score=es.overall,
                    figures={"partial": es.partial, "judges": len(run.judges)},
                    coverage=cov,
                    cells=cells,
                    flags=es.flags,
                )
            )
    assign_ranks(rows)
    columns = [(f"group:{g}", d.group_titles[g]) for g in d.group_weights]
    columns += [(dim.id, f"{dim.title} ({dim.weight:g}%)") for dim in d.dimensions]
    board = Leaderboard(
        version.benchmark_id,
        version.id,
        "Overall (out of 100)",
        columns,
        order_rows(rows),
        ranked=True,
        discrepancies=discrepancies,
        score_range=(0.0, 100.0),
        notes=[
            "Overall = "
            + " + ".join(f"{Fraction(w).limit_denominator(1000)} {g} mean" for g, w in d.group_weights.items())
            + f", on the judges' 0–{d.scale_max:g} scale expressed out of 100.",
            f"Dimension means are on the judges' 0–{d.scale_max:g} scale; "
            + "; ".join(
                f"{dim.title.lower()} applies to {' and '.join(dim.applies_to)} items only"
                for dim in d.dimensions
                if set(dim.applies_to) != set(d.group_weights)
            )
            + ".",
            "Pilot scores are development diagnostics: intervals and separation describe sampling over these "
            "scenarios only, not judge bias or disagreement.",
        ],
    )
    return Scored(board, results, {"entrants": entrants})


def _g(es: EntrantScore, group: str, d: TuckerDefinition) -> float | None:
    mean = es.groups.get(group, (None, 0, 0))[0]
    return mean * d.to_100 if mean is not None else None


# ---- statistics: intervals, run-to-run variation (called by scoring/statistics.py) ----


DIFFERENCE_SCALE = 1.0  # multiply a difference of scores by this to show it in the score's unit
SHORT_VARIATION = 4  # up to this many repetitions the leaderboard lists each; past it, their range


def statistics(version, scored, params, declared):  # noqa: ANN001, ANN202 - internal adapter
    d = version.definition
    ids = [i.id for i in version.items]
    strata = [i.kind for i in version.items]
    by_t = params.get("method") == "stratified-t"
    draws = None if by_t else cluster_draws(strata, params)  # the bootstrap's resamples, only where it is the method
    masks = {g: np.array([s == g for s in strata], dtype=float) for g in d.group_weights}
    level = params["level"]
    rows: dict[str, RowStats] = {}
    boot: dict[str, Any] = {}  # row -> its resampled overall (bootstrap) or its TParts (stratified t): for separation
    for row in scored.leaderboard.rows:
        run = next(r for r in version.runs if r.id == row.run_ids[0])
        mine = [t for t in run.transcripts if t.entrant_id == row.entrant_id]
        stats = RowStats()
        rows[row.key] = stats
        if declared.get("run_variation") and row.complete:
            _run_variation(d, mine, scored, stats)
        if not (declared.get("intervals") and row.complete):
            continue
        sums, counts, dim_sums, dim_counts = _cluster_sums(d, ids, mine, scored)
        if by_t:
            boot[row.key] = _t_intervals(d, sums, counts, dim_sums, dim_counts, masks, level, stats)
        else:
            boot[row.key] = _bootstrap_intervals(d, draws, sums, counts, dim_sums, dim_counts, masks, level, stats)
    return rows, boot, _note(params, strata)


def _run_variation(d, mine, scored, stats) -> None:  # noqa: ANN001
    """The overall score of each repetition alone, and their spread."""
    by_rep: dict[int, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for t in mine:  # one pass, not one per repetition: 84 repetitions made it most of the statistics' time
        r = scored.transcripts[t.id]
        by_rep[t.attempt][r.kind].append(r.score)
    per_rep = {
        rep: d.to_100 * sum(w * float(np.mean(groups[g])) for g, w in d.group_weights.items())
        for rep, groups in sorted(by_rep.items())
    }
    values = list(per_rep.values())
    spread = f"(spread {max(values) - min(values):.1f})"
    stats.variation_detail = " · ".join(f"repetition {r}: {v:.1f}" for r, v in per_rep.items()) + f" {spread}"
    stats.variation = (
        stats.variation_detail
        if len(values) <= SHORT_VARIATION
        else f"{len(values)} repetitions from {min(values):.1f} to {max(values):.1f} {spread}"
    )


def _bootstrap_intervals(d, draws, sums, counts, dim_sums, dim_counts, masks, level, stats) -> np.ndarray:  # noqa: ANN001
    """The percentile intervals of the scenario-clustered bootstrap; the resampled overall, for separation."""
    overall = d.to_100 * sum(w * resampled_means(draws, sums, counts, masks[g]) for g, w in d.group_weights.items())
    stats.score = percentile(overall, level)
    for g in d.group_weights:
        stats.cells[f"group:{g}"] = percentile(d.to_100 * resampled_means(draws, sums, counts, masks[g]), level)
    for dim in d.dimensions:
        stats.cells[dim.id] = percentile(resampled_means(draws, dim_sums[dim.id], dim_counts[dim.id]), level)
    return overall


def _cluster_sums(d, ids, mine, scored):  # noqa: ANN001, ANN202
    """Per scenario (the cluster): the sum and count of an entrant's transcript scores, overall and per dimension."""
    sums, counts = np.zeros(len(ids)), np.zeros(len(ids))
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
    return sums, counts, dim_sums, dim_counts


def _t_intervals(d, sums, counts, dim_sums, dim_counts, masks, level, stats) -> TParts:  # noqa: ANN001
    """The stratified t intervals of an entrant's overall score, group means and dimension means (docs/statistics.md),
    and its overall as TParts, for the paired differences of rank separation."""
    estimate, parts = 0.0, []
    for g, w in d.group_weights.items():
        mean, z = linearized(sums, counts, masks[g])
        estimate += d.to_100 * w * mean
        parts.append((d.to_100 * w, z))
        group = stratified_t(d.to_100 * mean, [(d.to_100, z)], level)
        if group:
            stats.cells[f"group:{g}"] = group.within(0, 100)
    overall = stratified_t(estimate, parts, level)
    if overall:
        stats.score, stats.df = overall.within(0, 100), overall.df
    for dim in d.dimensions:
        scored_here = (dim_counts[dim.id] > 0).astype(float)  # a dimension some scenarios are not scored on
        if scored_here.sum() >= 2:
            mean, z = linearized(dim_sums[dim.id], dim_counts[dim.id], scored_here)
            t = stratified_t(mean, [(1.0, z)], level)
            if t:
                stats.cells[dim.id] = t.within(0, d.scale_max)
    return TParts(estimate, parts)


def _note(params: dict[str, Any], strata: list[str]) -> str:
    level = params["level"]
    groups = ", ".join(f"{strata.count(g)} {g}" for g in dict.fromkeys(strata))
    if params.get("method") == "stratified-t":
        simulated = params.get("simulated_coverage") or {}
        said = (
            f" At this design, simulated coverage of nominal {int(level * 100)}% was {simulated['coverage']:.1%} "
            f"({simulated['simulations']} simulated releases, scripts/coverage.py)."
            if "coverage" in simulated
            else ""
        )
        return (
            f"{int(level * 100)}% intervals: stratified t over the {len(strata)} scenarios ({groups}): the estimate ± "
            "t × its standard error from the scenarios' spread (all turns and repetitions of a scenario together), "
            "degrees of freedom by Welch–Satterthwaite across the groups, shown beside each interval, and cut at the "
            f"ends of the scale.{said} "
            "Separation compares two entrants on the same scenarios (paired)."
        )
    return (
        f"{int(level * 100)}% intervals: scenario-clustered bootstrap (all turns and repetitions of a scenario "
        f"resampled together, within the single and conversation groups), {params['resamples']} resamples, "
        f"seed {params['seed']}, {len(strata)} scenarios."
    )


def judge_reports(version: BenchmarkVersion, results: dict[str, TranscriptScore]) -> list[Any]:
    """Agreement, offsets, self-preference, length relation and calibration, per run (see judges.py)."""
    from .judges import judge_report  # judges.py builds on this module's transcript scores

    return judge_report(version, results)
