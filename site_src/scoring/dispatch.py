"""Pick the scorer for a benchmark system."""

from __future__ import annotations

from collections.abc import Callable

from ..model import Benchmark, BenchmarkVersion
from ..results import Scored
from .pack import score_pack
from .rubric import score_rubric
from .statistics import add_statistics
from .tucker import score_tucker

SCORERS: dict[str, Callable[[BenchmarkVersion], Scored]] = {
    "uzbek-pack": score_pack,
    "dual-layer": score_rubric,
    "tuckerbench": score_tucker,
}


def score_version(bench: Benchmark, version: BenchmarkVersion) -> Scored:
    scored = SCORERS[bench.system](version)
    if not bench.rank_claims:
        for row in scored.leaderboard.rows:
            row.rank = None
        scored.leaderboard.ranked = False
    scored.tables["statistics"] = add_statistics(bench, version, scored)
    return scored
