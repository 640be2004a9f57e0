"""Plain-text tables of the recomputed scores, so the numbers can be read without the site."""

from __future__ import annotations

from .model import Benchmark
from .readers.project import Project
from .results import Leaderboard
from .scoring.dispatch import score_version


def text_report(project: Project) -> str:
    out: list[str] = []
    for bench in project.benchmarks:
        for version in bench.versions:
            if not version.runs:
                continue
            scored = score_version(bench, version)
            out.extend(_board(bench, scored.leaderboard, version.demo))
            if "variation" in scored.tables:  # repeated runs listed side by side, where the scorer compares them
                out.append("  Variation across repeated runs:")
                for entrant, v in scored.tables["variation"].items():
                    spread = v["range"] or "fewer than two complete runs"
                    out.append(f"    {entrant}: {len(v['runs'])} run(s); {spread}")
            out.append("")
    return "\n".join(out).rstrip() + "\n"


def _board(bench: Benchmark, board: Leaderboard, demo: bool) -> list[str]:
    head = f"== {bench.title} · version {board.version_id}"
    lines = [head + (" · DEMO DATA (invented, not real model results)" if demo else ""), f"  {board.score_label}:"]
    for row in board.rows:
        rank = f"#{row.rank}" if row.rank else ("–" if board.ranked else "·")
        lines.append(f"  {rank:>3} {row.label}")
        lines.append(f"      score: {row.score_text}")
        gaps = row.coverage.gaps()
        lines.append(
            f"      coverage: {row.coverage.collected} of {row.coverage.expected} collected"
            + (f"; {'; '.join(gaps)}" if gaps else "; complete")
        )
        for key, title in board.columns:
            cell = row.cells.get(key)
            if cell:
                lines.append(f"      {title}: {cell.text}")
        for flag in row.flags:
            lines.append(f"      [{flag.label}] {flag.detail}")
    if board.discrepancies:
        lines.append("  Discrepancies (stored figure vs recomputed; the recomputed value is used):")
        for d in board.discrepancies:
            lines.append(f"    {d.file}, {d.record}, {d.field}: stored {d.stored}, recomputed {d.recomputed}")
    for note in board.notes:
        lines.append(f"  Note: {note}")
    return lines
