"""Simulate how often each interval method covers a known truth, and how often it calls two equal entrants apart.

    python scripts/coverage.py [--sims N]

Each simulated release draws scenario effects and per-transcript scores around a known mean in a TuckerBench-like
design (single-response and conversation groups weighted 1/3 and 2/3), computes a nominal 95% interval for the
overall score with each method, and counts how often it contains the truth. The methods:

- percentile: the stratified cluster bootstrap's percentile interval (the site's method until stratified-t);
- stratified-t: estimate ± t(df) × se over the clusters' linearized values, df by Welch–Satterthwaite across the
  groups (site_src/scoring/uncertainty.py: stratified_t, what the site computes);
- wild-t: the wild cluster bootstrap-t with Webb's six-point weights, stratified, 399 draws.

Designs: the pilot's own (2 + 4 scenarios, 2 repetitions), larger ones, and one with unequal cluster sizes and
skewed, bounded 0–10 scores. "False resolved" is how often the 95% interval of the paired difference of two entrants
with equal true scores excludes zero (it should be at most 5%).
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from site_src.scoring.uncertainty import (  # noqa: E402
    draw_counts,
    linearized,
    percentile,
    resampled_means,
    stratified_t,
    t_quantile,
)

WEIGHTS = {"single": 1 / 3, "conversation": 2 / 3}
LEVEL = 0.95
WEBB = np.array([-np.sqrt(1.5), -1.0, -np.sqrt(0.5), np.sqrt(0.5), 1.0, np.sqrt(1.5)])


@dataclass(frozen=True)
class Design:
    name: str
    singles: int
    conversations: int
    repetitions: int  # per scenario; with `unequal`, the most (each scenario draws 1..repetitions)
    unequal: bool = False
    skewed: bool = False  # scores 0–10 from a beta model, piled up near the top, instead of normal noise


DESIGNS = [
    Design("pilot: 2 + 4 scenarios, 2 repetitions", 2, 4, 2),
    Design("10 + 20 scenarios, 2 repetitions", 10, 20, 2),
    Design("20 + 40 scenarios, 2 repetitions", 20, 40, 2),
    Design("20 + 40 scenarios, 5 repetitions", 20, 40, 5),
    Design("pilot, unequal sizes (1-4), skewed 0-10 scores", 2, 4, 4, unequal=True, skewed=True),
    Design("5 + 10 scenarios, unequal sizes (1-4), skewed", 5, 10, 4, unequal=True, skewed=True),
]


def release(design: Design, rng: np.random.Generator, entrants: int = 1):
    """One simulated release: per entrant, each cluster's sum and count of unit scores; and the true overall."""
    strata = ["single"] * design.singles + ["conversation"] * design.conversations
    k = len(strata)
    sizes = rng.integers(1, design.repetitions + 1, size=k) if design.unequal else np.full(k, design.repetitions)
    if design.skewed:  # a scenario's mean p ~ Beta, a unit's score 10 × Beta(p φ, (1 - p) φ): bounded, skewed
        shape = {"single": (8.0, 2.0), "conversation": (6.0, 3.0)}
        p = np.array([rng.beta(*shape[s]) for s in strata])
        truth = 10 * sum(w * shape[g][0] / sum(shape[g]) for g, w in WEIGHTS.items())
    else:
        means = {"single": 5.0, "conversation": 6.0}
        p = np.array([means[s] for s in strata]) + rng.normal(0, 0.8, size=k)
        truth = sum(w * means[g] for g, w in WEIGHTS.items())
    out = []
    for _ in range(entrants):  # equal true scores; each entrant its own scenario interaction and noise
        sums, counts = np.zeros(k), sizes.astype(float)
        for i in range(k):
            if design.skewed:
                q = np.clip(p[i] + rng.normal(0, 0.05), 0.02, 0.98)
                sums[i] = (10 * rng.beta(q * 6, (1 - q) * 6, size=sizes[i])).sum()
            else:
                sums[i] = (p[i] + rng.normal(0, 0.4) + rng.normal(0, 1.0, size=sizes[i])).sum()
        out.append((sums, counts))
    masks = {g: np.array([s == g for s in strata], dtype=float) for g in WEIGHTS}
    return strata, masks, out, truth


def overall_parts(sums, counts, masks):
    parts, estimate = [], 0.0
    for g, w in WEIGHTS.items():
        mean, z = linearized(sums, counts, masks[g])
        estimate += w * mean
        parts.append((w, z))
    return estimate, parts


def percentile_interval(strata, masks, sums, counts, rng, resamples=1000):
    draws = draw_counts(strata, resamples, int(rng.integers(1 << 30)))
    boot = sum(w * resampled_means(draws, sums, counts, masks[g]) for g, w in WEIGHTS.items())
    return boot, percentile(boot, LEVEL)


def wild_t(estimate, parts, rng, draws=399):
    """The stratified wild cluster bootstrap-t with Webb weights: (low, high) or None."""
    base = stratified_t(estimate, parts, LEVEL)
    if base is None:
        return None
    stats = np.zeros(draws)
    shifts = np.zeros(draws)
    var = np.zeros(draws)
    for w, z in parts:
        n = len(z)
        v = WEBB[rng.integers(0, 6, size=(draws, n))]
        star = v * z
        shift = star.mean(axis=1)
        resid = star - shift[:, None]
        shifts += w * shift
        var += w * w * (resid**2).sum(axis=1) / (n * (n - 1))
    with np.errstate(divide="ignore", invalid="ignore"):
        stats = shifts / np.sqrt(var)
    stats = stats[np.isfinite(stats)]
    lo_q, hi_q = np.quantile(stats, [(1 - LEVEL) / 2, (1 + LEVEL) / 2])
    return estimate - hi_q * base.se, estimate - lo_q * base.se


def simulate(design: Design, sims: int, seed: int) -> dict[str, tuple[float, float]]:
    """Per method: (coverage, mean width); and the false-resolved rate of the stratified t on paired differences."""
    rng = np.random.default_rng(seed)
    hits = {"percentile": 0, "stratified-t": 0, "wild-t": 0}
    widths = {m: [] for m in hits}
    false_t = false_p = 0
    for _ in range(sims):
        strata, masks, entrants, truth = release(design, rng, entrants=2)
        (sa, ca), (sb, cb) = entrants
        est, parts = overall_parts(sa, ca, masks)
        boot_a, p = percentile_interval(strata, masks, sa, ca, rng)
        t = stratified_t(est, parts, LEVEL)
        wild = wild_t(est, parts, rng)
        for name, lo_hi in (("percentile", (p.lo, p.hi)), ("stratified-t", t and (t.interval.lo, t.interval.hi)),
                            ("wild-t", wild)):  # fmt: skip
            if lo_hi is not None:
                hits[name] += lo_hi[0] <= truth <= lo_hi[1]
                widths[name].append(lo_hi[1] - lo_hi[0])
        # two entrants with equal truth, paired over the same scenarios
        est_b, parts_b = overall_parts(sb, cb, masks)
        diff = stratified_t(est - est_b, [(w, za - zb) for (w, za), (_, zb) in zip(parts, parts_b, strict=True)], LEVEL)
        false_t += diff is not None and (diff.interval.lo > 0 or diff.interval.hi < 0)
        draws = draw_counts(strata, 1000, int(rng.integers(1 << 30)))
        boot_diff = sum(
            w * (resampled_means(draws, sa, ca, masks[g]) - resampled_means(draws, sb, cb, masks[g]))
            for g, w in WEIGHTS.items()
        )
        pd = percentile(boot_diff, LEVEL)
        false_p += pd.lo > 0 or pd.hi < 0
    out = {m: (hits[m] / sims, float(np.mean(widths[m]))) for m in hits}
    out["false resolved: stratified-t"] = (false_t / sims, 0.0)
    out["false resolved: percentile"] = (false_p / sims, 0.0)
    return out


def coverage_at(strata_sizes: dict[str, int], repetitions: int, sims: int = 2000, seed: int = 1) -> float:
    """The stratified t's simulated coverage at a version's own design (clusters per group): for the pages."""
    design = Design("", strata_sizes.get("single", 0), strata_sizes.get("conversation", 0), repetitions)
    rng = np.random.default_rng(seed)
    hits = 0
    for _ in range(sims):
        _, masks, ((sums, counts),), truth = release(design, rng)
        t = stratified_t(*overall_parts(sums, counts, masks), LEVEL)
        hits += t is not None and t.interval.lo <= truth <= t.interval.hi
    return hits / sims


def false_resolved_at(design: Design, sims: int = 2000, seed: int = 2) -> float:
    """How often the stratified t calls two entrants with equal true scores apart (paired over the same scenarios)."""
    rng = np.random.default_rng(seed)
    hits = 0
    for _ in range(sims):
        _, masks, ((sa, ca), (sb, cb)), _ = release(design, rng, entrants=2)
        (ea, pa), (eb, pb) = overall_parts(sa, ca, masks), overall_parts(sb, cb, masks)
        diff = stratified_t(ea - eb, [(w, za - zb) for (w, za), (_, zb) in zip(pa, pb, strict=True)], LEVEL)
        hits += diff is not None and (diff.interval.lo > 0 or diff.interval.hi < 0)
    return hits / sims


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sims", type=int, default=2000)
    parser.add_argument(
        "--design",
        help="SINGLES,CONVERSATIONS,REPETITIONS: print the stratified t's coverage at a version's own design, as its "
        "definition freezes it (uncertainty.simulated_coverage), with --sims simulations and seed 1",
    )
    args = parser.parse_args()
    if args.design:
        singles, conversations, reps = (int(x) for x in args.design.split(","))
        c = coverage_at({"single": singles, "conversation": conversations}, reps, sims=args.sims, seed=1)
        print(f"stratified-t coverage at {singles} + {conversations} scenarios, {reps} repetitions: {c}")
        return
    print(f"nominal 95% intervals, {args.sims} simulated releases per design; t(0.975, 5) = {t_quantile(0.975, 5):.3f}")
    heads = ("percentile", "stratified-t", "wild-t (Webb)")
    print(f"{'design':<50} " + " ".join(f"{h:>17}" for h in heads) + f" {'false resolved t / pct':>24}")
    for n, design in enumerate(DESIGNS):
        r = simulate(design, args.sims, seed=1000 + n)
        cells = [f"{r[m][0]:.3f} (w {r[m][1]:.2f})" for m in ("percentile", "stratified-t", "wild-t")]
        false = f"{r['false resolved: stratified-t'][0]:.3f} / {r['false resolved: percentile'][0]:.3f}"
        print(f"{design.name:<50} {cells[0]:>17} {cells[1]:>17} {cells[2]:>17} {false:>24}")


if __name__ == "__main__":
    main()
