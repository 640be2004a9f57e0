"""The score step's result: the release, every version scored and every lookup its pages need gathered, before any
page is rendered (release.py holds its shape)."""

from __future__ import annotations

from collections import defaultdict

from ..model import Benchmark, BenchmarkVersion, Entrant, Project, Run, Transcript
from ..release import PALETTE, Nearby, Release, VersionView
from ..results import Diagnostics, Summary
from ..systems import system_part
from .diagnostics import diagnostics_of
from .dispatch import judges_wanted, score_version


def _item_order(transcripts: list[Transcript], entrants: dict[str, Entrant]) -> list[Transcript]:
    """An item's responses as its pages list them: every entrant's first attempt, side by side, then each entrant's
    other responses together, run by run. Kept together, one run's responses lie on a few pages, so a run judged
    again changes those pages and the first rather than every page of the item."""
    ordered = sorted(transcripts, key=lambda t: (entrants[t.entrant_id].label, t.entrant_id, t.run_id, t.attempt))
    first: dict[str, Transcript] = {}
    for t in ordered:
        first.setdefault(t.entrant_id, t)
    return [*first.values(), *(t for t in ordered if first[t.entrant_id] is not t)]


def _neighbours(by_entrant: dict[str, list[Transcript]], by_item: dict[str, list[Transcript]]) -> dict[str, Nearby]:
    near: dict[str, list[str | None]] = {}
    for offset, lists in ((0, by_entrant), (2, by_item)):
        for seq in lists.values():
            ids = [t.id for t in seq]
            for i, tid in enumerate(ids):
                slots = near.setdefault(tid, [None] * 4)
                slots[offset : offset + 2] = ids[i - 1] if i else None, ids[i + 1] if i + 1 < len(ids) else None
    return {tid: tuple(slots) for tid, slots in near.items()}  # type: ignore[misc]


def build_release(project: Project) -> Release:
    views = []
    for bench in project.benchmarks:
        for version in bench.versions:
            if version.runs:
                views.append(_view(bench, version))
    return Release(views, sorted(project.ignored), any(v.version.demo for v in views))


def _view(bench: Benchmark, version: BenchmarkVersion) -> VersionView:
    """Score one version and gather every lookup its pages need, in one step: the view is never changed after."""
    scored = score_version(bench, version)
    part = system_part(bench.system, "scoring")
    display = system_part(bench.system, "display")
    runs: dict[str, Run] = {}
    entrants: dict[str, Entrant] = {}
    transcripts: dict[str, Transcript] = {}
    summaries: dict[str, Summary] = {}
    by_item: dict[str, list[Transcript]] = defaultdict(list)
    by_entrant: dict[str, list[Transcript]] = defaultdict(list)
    # equal summaries are one object: they are few ("7.25 / 10", "pass"), and each was about 0.15 KB a transcript
    alike: dict[Summary, Summary] = {}
    for run in version.runs:
        runs[run.id] = run
        for e in run.entrants:
            entrants.setdefault(e.id, e)
        for t in run.transcripts:
            transcripts[t.id] = t
            by_item[t.item_id].append(t)
            by_entrant[t.entrant_id].append(t)
            summary = display.summarise(scored.transcripts.get(t.id), t, version.definition)
            summaries[t.id] = alike.setdefault(summary, summary)
    item_order = {i: _item_order(ts, entrants) for i, ts in by_item.items()}
    reports = part.judge_reports  # only systems with judges have them
    wanted = judges_wanted(bench)
    per_run = [diagnostics_of(run, version) for run in version.runs]
    diagnostics = {e: sum((d[e] for d in per_run if e in d), Diagnostics()) for e in entrants}
    return VersionView(
        bench,
        version,
        scored,
        entrants=entrants,
        colours={e: PALETTE[i % len(PALETTE)] for i, e in enumerate(sorted(entrants))},
        runs=runs,
        transcripts=transcripts,
        by_item=dict(by_item),
        by_entrant=dict(by_entrant),
        summaries=summaries,
        judge_reports=reports(version, scored.transcripts) if reports and wanted else [],
        diagnostics=diagnostics,
        neighbours=_neighbours(by_entrant, item_order),
        item_order=item_order,
    )
