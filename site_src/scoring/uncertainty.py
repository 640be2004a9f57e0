"""How sure is each number: a stratified cluster bootstrap, shared by all three systems.

Items are clusters (a TuckerBench scenario with all its turns and repetitions, a pack case, a rubric task): a
resample draws whole clusters with replacement, within each stratum (TuckerBench's single/conversation groups, the
pack's categories), so a resample keeps the benchmark's design. The same resampled cluster draws are applied to every
entrant of a version, which makes pairwise differences paired over shared items and gives rank intervals for free.
Intervals are percentile intervals at the level the definition declares, with its number of resamples and seed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from math import exp, lgamma, log, sqrt
from statistics import NormalDist

import numpy as np


@dataclass(frozen=True)
class Interval:
    lo: float
    hi: float
    level: float

    def text(self, fmt: str = "{:.1f}") -> str:
        return f"[{fmt.format(self.lo)}, {fmt.format(self.hi)}]"


@dataclass
class Clusters:
    """One entrant's data per cluster: sums and counts of unit values, per named statistic."""

    ids: list[str]  # cluster ids, in the version's order (the same for every entrant)
    strata: list[str]
    sums: dict[str, np.ndarray] = field(default_factory=dict)  # statistic -> (K,) sum of unit values
    counts: dict[str, np.ndarray] = field(default_factory=dict)  # statistic -> (K,) number of units


def draw_counts(strata: list[str], resamples: int, seed: int) -> np.ndarray:
    """(resamples, K): how often each cluster is drawn, resampling within each stratum with replacement."""
    rng = np.random.default_rng(seed)
    k = len(strata)
    out = np.zeros((resamples, k))
    for stratum in dict.fromkeys(strata):  # stable order, so a seed gives the same draws everywhere
        idx = np.array([i for i, s in enumerate(strata) if s == stratum])
        draws = rng.integers(0, len(idx), size=(resamples, len(idx)))
        counts = np.zeros((resamples, len(idx)))
        np.add.at(counts, (np.arange(resamples)[:, None], draws), 1)
        out[:, idx] = counts
    return out


def resampled_means(
    draws: np.ndarray, sums: np.ndarray, counts: np.ndarray, mask: np.ndarray | None = None
) -> np.ndarray:
    """Per resample, the mean over units of the drawn clusters (optionally only clusters in mask)."""
    d = draws if mask is None else draws * mask
    with np.errstate(invalid="ignore", divide="ignore"):
        return (d @ sums) / (d @ counts)


def percentile(values: np.ndarray, level: float) -> Interval:
    values = values[~np.isnan(values)]
    alpha = (1 - level) / 2
    lo, hi = np.quantile(values, [alpha, 1 - alpha])
    return Interval(float(lo), float(hi), level)


@dataclass
class Separation:
    """Which complete entrants can be told apart: rank intervals and paired differences."""

    rank_intervals: dict[str, tuple[int, int]]
    differences: dict[tuple[str, str], tuple[float, Interval, bool]]  # (a, b) -> (a - b, interval, resolved)

    @property
    def resolved(self) -> int:
        """How many of the pairs are told apart."""
        return sum(1 for _, _, ok in self.differences.values() if ok)

    def unresolved_with(self, key: str) -> list[str]:
        return sorted(
            {b if a == key else a for (a, b), (_, _, ok) in self.differences.items() if key in (a, b) and not ok}
        )


def wilson(passes: int, total: int, level: float) -> Interval:
    """The Wilson score interval of a proportion, in percent: unlike a bootstrap it stays wide for small counts
    (3 of 3 passes gives about [44%, 100%] at 95%, where every resample of three passing cases gives 100%).
    The closed form, without continuity correction (scipy's binomtest(...).proportion_ci(method="wilson"), which
    tests/test_statistics.py checks it against; scipy.stats alone took over half a second to import)."""
    z = NormalDist().inv_cdf(0.5 + level / 2)
    p = passes / total
    denominator = 2 * (total + z**2)
    centre = (2 * total * p + z**2) / denominator
    half = z / denominator * sqrt(4 * total * p * (1 - p) + z**2)
    low = 0.0 if passes == 0 else centre - half
    high = 1.0 if passes == total else centre + half
    return Interval(100 * low, 100 * high, level)


def min_ranks(matrix: np.ndarray) -> np.ndarray:
    """Rank of each row within each column, highest value first, ties sharing the best rank: 1 + how many rows
    are strictly higher (scipy's rankdata(-column, method="min") for every column at once)."""
    return 1 + (matrix[None, :, :] > matrix[:, None, :]).sum(axis=1)


def separation(observed: dict[str, float], stats: dict[str, np.ndarray], level: float) -> Separation:
    """From each entrant's resampled statistic (same draws for all): rank intervals and pairwise differences."""
    keys = sorted(stats)
    matrix = np.vstack([stats[k] for k in keys])  # (E, B)
    ranks = min_ranks(matrix)
    alpha = (1 - level) / 2
    rank_intervals = {
        k: (int(np.quantile(ranks[i], alpha, method="lower")), int(np.quantile(ranks[i], 1 - alpha, method="higher")))
        for i, k in enumerate(keys)
    }
    differences = {}
    for i, a in enumerate(keys):
        for b in keys[i + 1 :]:
            diff = stats[a] - stats[b]
            interval = percentile(diff, level)
            resolved = interval.lo > 0 or interval.hi < 0
            differences[(a, b)] = (observed[a] - observed[b], interval, resolved)
    return Separation(rank_intervals, differences)


# ---- the stratified t interval: few clusters, honest coverage (docs/statistics.md compares it with the bootstrap)


def t_cdf(x: float, df: float) -> float:
    """Student's t distribution function, through the regularized incomplete beta function (scipy.stats.t.cdf;
    tests/test_statistics.py checks it against scipy, which takes half a second to import)."""
    if df <= 0:
        raise ValueError("degrees of freedom must be positive")
    if x * x < df:  # near the centre, through the small argument: df / (df + x²) would round to 1
        tail = 0.5 * (1 - _incomplete_beta(0.5, df / 2, x * x / (df + x * x)))
    else:
        tail = 0.5 * _incomplete_beta(df / 2, 0.5, df / (df + x * x))
    return 1 - tail if x > 0 else tail


def t_quantile(p: float, df: float) -> float:
    """The p quantile of Student's t with df degrees of freedom (df may be fractional), by bisection on t_cdf."""
    if p == 0.5:
        return 0.0
    if p < 0.5:
        return -t_quantile(1 - p, df)
    lo, hi = 0.0, 1e6
    for _ in range(200):
        mid = (lo + hi) / 2
        if t_cdf(mid, df) < p:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-12 * max(1.0, abs(mid)):
            break
    return (lo + hi) / 2


def _incomplete_beta(a: float, b: float, x: float) -> float:
    """I_x(a, b) by its continued fraction (modified Lentz), using the symmetry where it converges faster."""
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log(1 - x))
    if x > (a + 1) / (a + b + 2):
        return 1 - front * _beta_fraction(b, a, 1 - x) / b
    return front * _beta_fraction(a, b, x) / a


def _beta_fraction(a: float, b: float, x: float) -> float:
    tiny = 1e-300
    c, d = 1.0, 1 - (a + b) * x / (a + 1)
    d = 1 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 500):
        for numerator in (m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
                          -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))):  # fmt: skip
            d = 1 + numerator * d
            d = 1 / (d if abs(d) > tiny else tiny)
            c = 1 + numerator / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1) < 1e-15:
            break
    return h


def linearized(sums: np.ndarray, counts: np.ndarray, mask: np.ndarray) -> tuple[float, np.ndarray]:
    """A stratum's mean over units (the ratio of its clusters' sums to their counts) and each of its clusters'
    linearized value, (sum - mean * count) / mean count: their spread is the mean's sampling spread, clusters of
    unequal size included (the ratio estimator's usual variance)."""
    inside = mask > 0
    s, c = sums[inside], counts[inside]
    mean = float(s.sum() / c.sum())
    return mean, (s - mean * c) / c.mean()


@dataclass(frozen=True)
class TInterval:
    interval: Interval
    df: float  # Welch–Satterthwaite degrees of freedom across the strata (0 where nothing varies)
    se: float

    def within(self, low: float, high: float) -> Interval:
        """The interval cut at the ends of the figure's scale: the truth lies within them, so coverage is kept."""
        return Interval(max(low, self.interval.lo), min(high, self.interval.hi), self.interval.level)


def stratified_t(estimate: float, parts: list[tuple[float, np.ndarray]], level: float) -> TInterval | None:
    """The interval estimate ± t(df) × se of a weighted sum of stratum means, from each stratum's weight and its
    clusters' linearized values: se² = Σ w² s² / n, df by Welch–Satterthwaite. None where a stratum has fewer than
    two clusters (no spread to estimate); a zero-width interval (df 0) where the clusters do not vary at all."""
    terms = []
    for weight, z in parts:
        n = len(z)
        if n < 2:
            return None
        terms.append((weight * weight * float(np.sum(z * z)) / (n * (n - 1)), n))
    var = sum(t for t, _ in terms)
    if var <= 0:
        return TInterval(Interval(estimate, estimate, level), 0.0, 0.0)
    df = var * var / sum(t * t / (n - 1) for t, n in terms)
    half = t_quantile(0.5 + level / 2, df) * sqrt(var)
    return TInterval(Interval(estimate - half, estimate + half, level), df, sqrt(var))


@dataclass(frozen=True)
class TParts:
    """An entrant's overall figure as a weighted sum of stratum means, with each stratum's weight and its clusters'
    linearized values (in the version's cluster order): what the stratified t needs, for one entrant or for the
    paired difference of two."""

    estimate: float
    parts: list[tuple[float, np.ndarray]]


def separation_t(observed: dict[str, float], stats: dict[str, TParts], level: float) -> Separation:
    """Pairwise differences by the stratified t on paired cluster values (two entrants answered the same scenarios),
    and rank intervals from them: an entrant's best rank is 1 + those resolved above it, its worst the count of
    entrants less those resolved below it."""
    keys = sorted(stats)
    differences = {}
    for i, a in enumerate(keys):
        for b in keys[i + 1 :]:
            pa, pb = stats[a], stats[b]
            parts = [(w, za - zb) for (w, za), (_, zb) in zip(pa.parts, pb.parts, strict=True)]
            t = stratified_t(pa.estimate - pb.estimate, parts, level)
            interval = t.interval if t else Interval(float("-inf"), float("inf"), level)
            resolved = interval.lo > 0 or interval.hi < 0
            differences[(a, b)] = (observed[a] - observed[b], interval, resolved)
    rank_intervals = {}
    for k in keys:
        above = below = 0
        for (a, b), (diff, _, resolved) in differences.items():
            if resolved and k in (a, b):
                k_higher = (diff > 0) == (k == a)
                above += not k_higher
                below += k_higher
        rank_intervals[k] = (1 + above, len(keys) - below)
    return Separation(rank_intervals, differences)
