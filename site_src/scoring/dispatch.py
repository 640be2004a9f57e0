"""Score a benchmark version with its system's scorer, then attach the statistics the benchmark declares."""

from __future__ import annotations

from ..model import Benchmark, BenchmarkVersion
from ..results import Scored
from ..systems import system_part
from .statistics import add_statistics


def score_version(bench: Benchmark, version: BenchmarkVersion) -> Scored:
    scored = system_part(bench.system, "scoring").score(version)
    if not bench.rank_claims:
        for row in scored.leaderboard.rows:
            row.rank = None
        scored.leaderboard.ranked = False
    scored.tables["statistics"] = add_statistics(bench, version, scored)
    return scored
