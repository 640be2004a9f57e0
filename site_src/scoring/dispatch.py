"""Score a benchmark version with its system's scorer, then attach the statistics the benchmark declares."""

from __future__ import annotations

from typing import Any

from ..model import Benchmark, BenchmarkVersion, Run
from ..results import Scored
from ..systems import system_part
from .diagnostics import diagnostics_of
from .statistics import add_statistics


def score_version(bench: Benchmark, version: BenchmarkVersion) -> Scored:
    scored = system_part(bench.system, "scoring").score(version)
    if not bench.rank_claims:
        for row in scored.leaderboard.rows:
            row.rank = None
        scored.leaderboard.ranked = False
    scored.tables["statistics"] = add_statistics(bench, version, scored)
    return scored


def judges_wanted(bench: Benchmark) -> bool:
    """Whether the benchmark's pages report on its judges (its statistics declare judges or calibration)."""
    return bool(bench.statistics.get("judges") or bench.statistics.get("calibration"))


def work_out_run(bench: Benchmark, version: BenchmarkVersion, run: Run, key: Any) -> None:
    """What scoring works out from one run alone (worked_out.once: its transcripts' scores, its judge report, its
    diagnostics), worked out ahead. A build does so in the process that read the run, while its turns and judgments
    are in memory, so the score phase adds the runs up instead of decoding each run's stored turns again, on one
    core. key: the run's private key (its reader's), which its judge report needs before the run is added."""
    part = system_part(bench.system, "scoring")
    if part.work_out_run:
        part.work_out_run(version, run, key, judges=judges_wanted(bench) and part.judge_reports is not None)
    diagnostics_of(run, version)
