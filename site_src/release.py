"""The release: everything the pages show, computed once from the project before any page is rendered.

The pipeline's middle step: read (readers/) -> score (scoring/, whose release.py makes this) -> render (site/).
The release arrives scored: the site only looks things up in it and imports nothing that scores, so pages render
independently of one another (and in parallel); no page receives the whole data set.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from . import worked_out
from .changes import VersionChange
from .model import Benchmark, BenchmarkVersion, Entrant, Run, Transcript, judgments_by_target
from .results import Cell, Diagnostics, Row, Scored, Summary
from .systems import system_part

# Okabe–Ito: colour-blind-safe; an entrant keeps its colour on every page and chart of a version.
PALETTE = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000"]
PAGE_SIZE = 100  # rows per page of long tables
Nearby = tuple[str | None, str | None, str | None, str | None]  # see VersionView.neighbours
RUNS_GROUPED = 2  # runs whose judgments VersionView.judgments_for keeps grouped by transcript


@dataclass(frozen=True)
class VersionView:
    bench: Benchmark
    version: BenchmarkVersion
    scored: Scored
    entrants: dict[str, Entrant] = field(default_factory=dict)
    colours: dict[str, str] = field(default_factory=dict)
    runs: dict[str, Run] = field(default_factory=dict)
    transcripts: dict[str, Transcript] = field(default_factory=dict)
    by_item: dict[str, list[Transcript]] = field(default_factory=dict)
    by_entrant: dict[str, list[Transcript]] = field(default_factory=dict)
    summaries: dict[str, Summary] = field(default_factory=dict)
    judge_reports: list[Any] = field(default_factory=list)  # (run id, JudgeReport) for TuckerBench
    diagnostics: dict[str, Diagnostics] = field(default_factory=dict)  # entrant id -> length, profanity, usage…
    # transcript id -> (previous, next) in its entrant's list, then (previous, next) on its item's pages: the ids
    # next to it, None at either end. One flat tuple each: as a dict of pairs it was 0.3 KB a transcript
    neighbours: dict[str, Nearby] = field(default_factory=dict)
    item_order: dict[str, list[Transcript]] = field(default_factory=dict)  # item id -> responses as its pages show them
    # what the site derives from the view (charts, item analysis), worked out once per process by once(): workers
    # forked to render pages inherit what was worked out before the fork. judgments_for keeps its last runs here too
    derived: dict[Any, Any] = field(default_factory=dict, compare=False, repr=False)

    def once(self, compute: Callable[[VersionView], Any]) -> Any:
        """compute(self), worked out on first use only."""
        if compute not in self.derived:
            self.derived[compute] = compute(self)
        return self.derived[compute]

    @property
    def stats(self) -> Any:
        return self.scored.tables.get("statistics")

    def declares(self, name: str) -> bool:
        return bool(self.bench.statistics.get(name))

    @property
    def key(self) -> tuple[str, str]:
        return (self.bench.id, self.version.id)

    @property
    def folder(self) -> str:
        """ "benchmark/version": the version's folder in the site, and its name in manifests and shards."""
        return f"{self.bench.id}/{self.version.id}"

    @property
    def rows(self) -> list[Row]:
        return self.scored.leaderboard.rows

    @property
    def colour_class(self) -> dict[str, str]:
        """CSS class per entrant (no inline styles: the pages run under a strict Content-Security-Policy)."""
        return self.once(_colour_classes)  # every card of an item page asks

    def score_text(self, row: Row) -> str:
        """A row's score as it reads, with its counts (the system's display module writes it)."""
        return system_part(self.bench.system, "display").score_text(row, self.version)

    def cell_text(self, key: str, cell: Cell) -> str:
        return system_part(self.bench.system, "display").cell_text(key, cell, self.version)

    def category_title(self, category: str) -> str:
        """A category as readers read it: the definition's title where it gives one, else the id in words."""
        titles = getattr(self.version.definition, "categories", None)
        if isinstance(titles, list) and titles and isinstance(titles[0], (tuple, list)):
            return dict(titles).get(category, category.replace("_", " "))
        return category.replace("_", " ")

    @property
    def judge_labels(self) -> dict[str, str]:
        """Judge id -> label, over every run of the version (item pages name each judge's score)."""
        return {j.id: j.label for r in self.runs.values() for j in r.judges}

    def rows_for(self, entrant_id: str) -> list[Row]:
        return [r for r in self.rows if r.entrant_id == entrant_id]

    def runs_of(self, entrant_id: str) -> list[Run]:
        return [r for r in self.runs.values() if any(e.id == entrant_id for e in r.entrants)]

    def item_transcripts(self, item_id: str) -> list[Transcript]:
        return self.item_order.get(item_id, [])

    def judgments_for(self, transcript_id: str) -> list[Any]:
        """The judgments of one transcript, in its run's order. A run's judgments stay on disk once the run is in the
        build cache (build/store.py): they are grouped by transcript for the last few runs asked about only, and
        pages, keys and the manifest ask about one run's transcripts after another."""
        t = self.transcripts.get(transcript_id)
        if t is None:
            return []
        run = self.runs[t.run_id]
        recent: dict[tuple[str, int], dict[str, list[Any]]] = self.derived.setdefault(judgments_by_target, {})
        key = (run.id, id(run.judgments))  # a redacted run's judgments are a new list: grouped anew
        grouped = recent.pop(key, None)
        if grouped is None:
            grouped = judgments_by_target(run)
            if len(recent) >= RUNS_GROUPED:
                del recent[next(iter(recent))]  # the least recently asked about
        recent[key] = grouped  # last: the most recently asked about
        return grouped.get(transcript_id, [])

    def judgment_files(self, transcript_id: str) -> tuple[str, ...]:
        """The files of a transcript's judgments (what its pages are made from besides its own file), worked out once
        per run (worked_out.once): the publish manifest names them for two files of every transcript, and a run's
        judgments stay on disk."""
        t = self.transcripts.get(transcript_id)
        if t is None:
            return ()
        run = self.runs[t.run_id]
        return worked_out.once(run, "judgment files", lambda: _judgment_files(run)).get(transcript_id, ())

    def coverage_text(self) -> str:
        complete = sum(r.complete for r in self.rows)
        return f"{complete} of {len(self.rows)} leaderboard rows complete"


@dataclass(frozen=True)
class Release:
    views: list[VersionView]
    ignored: list[tuple[str, str]]
    demo: bool
    # what changed since an earlier build (build.py --changes-since): one entry per version of either build, filled
    # in by the build room once the release is scanned; empty when no earlier build was given
    changes: list[VersionChange] = field(default_factory=list)

    def changes_of(self, bench_id: str) -> list[VersionChange]:
        return [c for c in self.changes if c.benchmark == bench_id]

    def view(self, bench_id: str, version_id: str) -> VersionView | None:
        return self._by_key.get((bench_id, version_id))

    @cached_property
    def _by_key(self) -> dict[tuple[str, str], VersionView]:  # the manifest looks up a view for each of 30,000 files
        return {v.key: v for v in reversed(self.views)}  # the first of a key wins, as a search in order would

    def latest(self, bench_id: str) -> VersionView | None:
        """A benchmark's newest version with runs, by natural order of version ids (0.10.0 after 0.9.0)."""
        views = [v for v in self.views if v.bench.id == bench_id]
        return max(views, key=lambda v: _natural(v.version.id), default=None)

    def benchmarks(self) -> list[tuple[Benchmark, list[VersionView]]]:
        out: dict[str, tuple[Benchmark, list[VersionView]]] = {}
        for v in self.views:
            out.setdefault(v.bench.id, (v.bench, []))[1].append(v)
        return list(out.values())


def _natural(text: str) -> list[tuple[int, int | str]]:
    """Sort key reading digit runs as numbers: v2 < v10, 0.9.0 < 0.10.0."""
    return [(0, int(part)) if part.isdigit() else (1, part) for part in re.split(r"(\d+)", text) if part]


def _judgment_files(run: Run) -> dict[str, tuple[str, ...]]:
    """Transcript id -> the files its judgments lie in, sorted; transcripts judged from the same files share one
    tuple."""
    files: dict[str, set[str]] = defaultdict(set)
    for j in run.judgments:
        files[j.target_id].add(j.source_file)
    alike: dict[tuple[str, ...], tuple[str, ...]] = {}
    return {tid: alike.setdefault(key, key) for tid, found in files.items() for key in [tuple(sorted(found))]}


def _colour_classes(view: VersionView) -> dict[str, str]:
    return {e: f"c{PALETTE.index(c)}" for e, c in view.colours.items()}


def paginate(items: list[Any], page: int, size: int = PAGE_SIZE) -> tuple[list[Any], int]:
    pages = max(1, -(-len(items) // size))
    return items[(page - 1) * size : page * size], pages


def pages_linked(number: int, pages: int) -> list[int | None]:
    """The page numbers a pager shows on page `number` of `pages`, ascending, with None where it skips some.

    The first and the last page, the two on each side, and jumps of 10, 100, 1,000 … each way: a few dozen links
    at most, so a list's pages do not each grow with their count (listing every page made a list of n pages
    hold n² links), and any page is reached in a few clicks."""
    shown = {1, pages, *range(number - 2, number + 3)}
    step = 10
    while step < pages:
        shown.update((number - step, number + step))
        step *= 10
    linked: list[int | None] = []
    last = 0  # page 1 is always shown, so it comes first
    for n in sorted(n for n in shown if 1 <= n <= pages):
        if n - last == 2:  # a gap of one page shows that page
            linked.append(n - 1)
        elif n - last > 2:
            linked.append(None)
        linked.append(n)
        last = n
    return linked
