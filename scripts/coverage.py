"""Simulate the coverage of the scenario-clustered bootstrap intervals on data with a known truth, and print it.

    python scripts/coverage.py

Each simulated release draws scenario effects and per-transcript noise around a known mean, in the pilot's
design (single-response and conversation groups weighted 1/3 and 2/3), computes the 95% interval exactly as the
site does, and counts how often it contains the truth.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from site_src.scoring.uncertainty import draw_counts, percentile, resampled_means  # noqa: E402


def coverage(singles: int, conversations: int, per_scenario: int, sims: int, resamples: int, seed: int) -> float:
    rng = np.random.default_rng(seed)
    strata = ["single"] * singles + ["conversation"] * conversations
    masks = {g: np.array([s == g for s in strata], dtype=float) for g in ("single", "conversation")}
    truth = 10 * (5.0 / 3 + 2 * 6.0 / 3)  # group means 5 and 6
    hits = 0
    for _ in range(sims):
        means = np.array([5.0 if s == "single" else 6.0 for s in strata])
        scenario = means + rng.normal(0, 0.8, size=len(strata))
        units = scenario[:, None] + rng.normal(0, 1.0, size=(len(strata), per_scenario))
        draws = draw_counts(strata, resamples, int(rng.integers(1 << 30)))
        sums, counts = units.sum(axis=1), np.full(len(strata), per_scenario)
        overall = 10 * (
            resampled_means(draws, sums, counts, masks["single"]) / 3
            + 2 * resampled_means(draws, sums, counts, masks["conversation"]) / 3
        )
        interval = percentile(overall, 0.95)
        hits += interval.lo <= truth <= interval.hi
    return hits / sims


def main() -> None:
    print("nominal 95% interval; scenario effect sd 0.8, transcript noise sd 1.0 (0–10 scale)")
    for singles, conversations, reps in ((2, 4, 2), (10, 20, 2), (20, 40, 2), (20, 40, 5)):
        c = coverage(singles, conversations, reps, sims=1000, resamples=1000, seed=singles * 100 + reps)
        print(
            f"  {singles:>2} single + {conversations:>2} conversation scenarios, {reps} repetitions: "
            f"coverage {c:.3f} (1000 simulations)"
        )


if __name__ == "__main__":
    main()
