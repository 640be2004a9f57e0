"""How the judges behave, kept apart from sampling uncertainty: agreement, offsets, self-preference, parse
failures, length preference, token usage, calibration responses and blind human pairs (aggregates only)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from statistics import correlation, fmean, linear_regression
from typing import Any

import krippendorff
import numpy as np

from ... import worked_out
from ...model import BenchmarkVersion, Judgment, PrivateKey, Run, Turn
from .definition import TuckerDefinition
from .scoring import TranscriptScore, weighted_score


@dataclass
class Agreement:
    dimension: str
    n: int  # transcripts both judges scored
    alpha: float | None  # Krippendorff's alpha, interval level
    mean_difference: float | None  # first judge minus second, on the 0–10 scale
    sd_difference: float | None


@dataclass
class SelfPreference:
    judge_id: str
    entrant_id: str
    n: int
    own_difference: float  # this judge minus the other judge(s), on the entrant's own transcripts
    baseline_difference: float  # the same difference on every other entrant's transcripts
    gap: float  # own minus baseline: what the entrant gains from a same-family judge beyond that judge's offset


@dataclass
class LengthRelation:
    judge_id: str
    n: int
    spearman: float | None
    slope_per_100_chars: float | None


@dataclass
class PairAgreement:
    rater: str  # a judge id, or "judges (mean)"
    n: int
    agree: int
    human_ties: int
    rater_ties: int
    disagreements: int


@dataclass
class JudgeReport:
    judges: list[str]
    agreement: list[Agreement]
    self_preference: list[SelfPreference]
    # judge -> (failed, judgments, of them of transcripts, of calibration responses)
    parse_failures: dict[str, tuple[int, int, int, int]]
    length: list[LengthRelation]
    tokens: dict[str, dict[str, int]]  # judge or entrant -> token totals
    calibration: list[tuple[str, str, dict[str, float | None]]]  # (response id, title, judge -> weighted score)
    calibration_dims: dict[tuple[str, str], dict[str, float]] = field(default_factory=dict)
    pairs: list[PairAgreement] = field(default_factory=list)
    pair_count: int = 0


def _alpha(a: list[float], b: list[float]) -> float | None:
    """Krippendorff's alpha, interval level, two raters, every unit rated by both."""
    values = set(a) | set(b)
    if len(a) < 2 or len(values) < 2:
        return None
    if len(values) <= 50:
        return float(
            krippendorff.alpha(reliability_data=np.array([a, b], dtype=float), level_of_measurement="interval")
        )
    # Continuous scores: the library's cost grows with units x distinct values squared, so use the closed form for
    # complete two-rater data (tested against the library): D_o = mean (a - b)^2, D_e = 2 x sample variance.
    pooled = np.concatenate([a, b])
    observed = float(np.mean((np.asarray(a) - np.asarray(b)) ** 2))
    expected = 2 * float(np.var(pooled, ddof=1))
    return 1 - observed / expected


def agreement(
    run: Run, d: TuckerDefinition, kinds: dict[str, str], judged: list[Judgment] | None = None
) -> list[Agreement]:
    """The two judges' agreement, per kind of item (judged: the run's judgments, when the caller has them decoded)."""
    if len(run.judges) != 2:
        return []
    j1, j2 = (j.id for j in run.judges)
    ok = {(j.judge_id, j.target_id): j for j in (run.judgments if judged is None else judged) if j.parse_status == "ok"}
    targets = sorted({t for (_, t) in ok if (j1, t) in ok and (j2, t) in ok})
    item_of = {t.id: t.item_id for t in run.transcripts}
    out = []
    for dim in [*(x.id for x in d.dimensions), "weighted"]:
        a, b = [], []
        for t in targets:
            kind = kinds[item_of[t]]
            if dim == "weighted":
                a.append(weighted_score(ok[(j1, t)].scores, kind, d))
                b.append(weighted_score(ok[(j2, t)].scores, kind, d))
            elif dim in ok[(j1, t)].scores:
                a.append(ok[(j1, t)].scores[dim])
                b.append(ok[(j2, t)].scores[dim])
        diffs = np.array(a) - np.array(b)
        out.append(
            Agreement(
                dim,
                len(a),
                _alpha(a, b),
                float(diffs.mean()) if len(a) else None,
                float(diffs.std(ddof=1)) if len(a) > 1 else None,
            )
        )
    return out


def self_preference(run: Run, results: dict[str, TranscriptScore]) -> list[SelfPreference]:
    out = []
    entrant_of = {t.id: t.entrant_id for t in run.transcripts}
    for judge in run.judges:
        others = [j.id for j in run.judges if j.id != judge.id]
        diffs: dict[str, list[float]] = defaultdict(list)
        for tid, r in results.items():
            if tid not in entrant_of or r.score is None:
                continue
            diffs[entrant_of[tid]].append(r.by_judge[judge.id] - fmean(r.by_judge[o] for o in others))
        for entrant in run.entrants:
            if not (judge.family and judge.family == entrant.family) or not diffs.get(entrant.id):
                continue
            rest = [v for e, vs in diffs.items() if e != entrant.id for v in vs]
            if not rest:
                continue
            own, base = fmean(diffs[entrant.id]), fmean(rest)
            out.append(SelfPreference(judge.id, entrant.id, len(diffs[entrant.id]), own, base, own - base))
    return out


def assistant_chars(run: Run) -> dict[str, int]:
    """Each transcript's assistant characters."""
    return {t.id: chars_answered(t.turns) for t in run.transcripts}


def chars_answered(turns: Iterable[Turn]) -> int:
    """The characters of a transcript's assistant turns."""
    return sum(len(x.content or "") for x in turns if x.role == "assistant")


def length_relation(
    run: Run, results: dict[str, TranscriptScore], chars: dict[str, int] | None = None
) -> list[LengthRelation]:
    """Each judge's score against the length of what was judged (chars: each transcript's assistant characters, when
    the caller has them)."""
    chars = assistant_chars(run) if chars is None else chars
    out = []
    for judge in run.judges:
        xs, ys = [], []
        for t in run.transcripts:
            value = results[t.id].by_judge.get(judge.id) if t.id in results else None
            if value is not None and t.status == "completed":
                xs.append(chars[t.id])
                ys.append(value)
        if len(xs) < 3 or len(set(xs)) < 2:
            out.append(LengthRelation(judge.id, len(xs), None, None))
            continue
        # Spearman's rho is Pearson's r over tie-averaged ranks; it is undefined when every score is the same
        rho = correlation(average_ranks(xs), average_ranks(ys)) if len(set(ys)) > 1 else None
        slope = linear_regression(xs, ys).slope * 100
        out.append(LengthRelation(judge.id, len(xs), rho, float(slope)))
    return out


def average_ranks(values: list[float]) -> list[float]:
    """Ranks from 1, lowest value first, tied values sharing the mean of their ranks (scipy's rankdata)."""
    order = sorted(range(len(values)), key=values.__getitem__)
    ranks = [0.0] * len(values)
    start = 0
    while start < len(order):
        end = start
        while end + 1 < len(order) and values[order[end + 1]] == values[order[start]]:
            end += 1
        for i in order[start : end + 1]:
            ranks[i] = (start + end) / 2 + 1
        start = end + 1
    return ranks


def preference(a: float | None, b: float | None) -> str | None:
    if a is None or b is None:
        return None
    return "tie" if abs(a - b) < 1e-9 else ("A" if a > b else "B")


def pair_agreement(run: Run, key: PrivateKey | None, results: dict[str, TranscriptScore]) -> list[PairAgreement]:
    """Human choices against each judge's implied preference; only counts leave this function."""
    if key is None:
        return []
    raters = [j.id for j in run.judges] + ["judges (mean)"]
    out = []
    for rater in raters:
        agg = PairAgreement(rater, 0, 0, 0, 0, 0)
        for pair in run.human_pairs:
            sides = key.sides.get(pair.pair_id)
            if not sides:
                continue
            a, b = results.get(sides["A"]), results.get(sides["B"])
            if a is None or b is None:
                continue
            if rater == "judges (mean)":
                pref = preference(a.score, b.score)
            else:
                pref = preference(a.by_judge.get(rater), b.by_judge.get(rater))
            if pref is None:
                continue
            agg.n += 1
            agg.agree += pref == pair.choice
            agg.human_ties += pair.choice == "tie"
            agg.rater_ties += pref == "tie"
            agg.disagreements += pref != pair.choice
        out.append(agg)
    return out


def judge_report(version: BenchmarkVersion, results: dict[str, TranscriptScore]) -> list[tuple[str, JudgeReport]]:
    """Each run's report, worked out from that run alone: a rebuild takes it from the build cache for every run
    whose files did not change (worked_out.once)."""
    return [(run.id, report_of(run, version, results, version.private_keys.get(run.id))) for run in version.runs]


def report_of(run: Run, version: BenchmarkVersion, results: dict[str, TranscriptScore], key: Any) -> JudgeReport:
    """A run's report (run_report), worked out once (worked_out.once); key: the run's private key, if it has one."""
    kinds = {i.id: i.kind for i in version.items}
    return worked_out.once(run, "judge_report", lambda: run_report(run, version, kinds, results, key))


def run_report(
    run: Run, version: BenchmarkVersion, kinds: dict[str, str], results: dict[str, TranscriptScore], key: Any
) -> JudgeReport:
    d: TuckerDefinition = version.definition
    judged = list(run.judgments)  # decoded once: a stored run keeps its judgments on disk (build/store.StoredList)
    failures, tokens = _judging(run, judged)
    chars = _answering(run, tokens)
    cal, cal_dims = _calibration(run, d)
    mine = {t.id: results[t.id] for t in run.transcripts}
    return JudgeReport(
        judges=[j.id for j in run.judges],
        agreement=agreement(run, d, kinds, judged),
        self_preference=self_preference(run, mine),
        parse_failures={k: tuple(v) for k, v in failures.items()},
        length=length_relation(run, mine, chars),
        tokens=dict(tokens),
        calibration=cal,
        calibration_dims=cal_dims,
        pairs=pair_agreement(run, key, mine),  # the run's own key, from its files
        pair_count=len(run.human_pairs),
    )


Tokens = dict[str, dict[str, int]]  # who (a judge, an entrant) -> input and output tokens


def _judging(run: Run, judged: list[Judgment]) -> tuple[dict[str, list[int]], Tokens]:
    """Each judge's parse failures, judgments, transcripts and calibration responses judged, and tokens."""
    tokens: Tokens = defaultdict(lambda: {"input_tokens": 0, "output_tokens": 0})
    failures = {j.id: [0, 0, 0, 0] for j in run.judges}
    for n, j in enumerate([*judged, *run.calibration]):
        failures[j.judge_id][1] += 1
        failures[j.judge_id][0] += j.parse_status != "ok"
        failures[j.judge_id][2 if n < len(judged) else 3] += 1
        for k in ("input_tokens", "output_tokens"):
            tokens[j.judge_id][k] += j.usage.get(k, 0)
    return failures, tokens


def _answering(run: Run, tokens: Tokens) -> dict[str, int]:
    """Add each entrant's tokens to tokens; each transcript's assistant characters (for the length relation)."""
    chars: dict[str, int] = {}
    for t in run.transcripts:
        turns = list(t.turns)  # decoded once for the tokens and the lengths: a stored run keeps its turns on disk
        for turn in turns:
            for k in ("input_tokens", "output_tokens"):
                tokens[t.entrant_id][k] += turn.usage.get(k, 0)
        chars[t.id] = chars_answered(turns)
    return chars


def _calibration(run: Run, d: TuckerDefinition) -> tuple[list[Any], dict[tuple[str, str], dict[str, Any]]]:
    """Each calibration response's weighted score by each judge, and its dimension scores."""
    cal = []
    cal_dims = {}
    by_key = {(c.judge_id, c.target_id): c for c in run.calibration}
    for response in d.calibration:
        row = {}
        for judge in run.judges:
            c = by_key.get((judge.id, response.id))
            ok = c is not None and c.parse_status == "ok"
            row[judge.id] = weighted_score(c.scores, "single", d) if ok else None
            if ok:
                cal_dims[(response.id, judge.id)] = dict(c.scores)
        cal.append((response.id, response.title, row))
    return cal, cal_dims
