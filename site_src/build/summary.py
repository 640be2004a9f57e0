"""A version's summary: what the site-wide pages show of a version, and what a merge checks its shards against.

A shard build (`--only`, whole or a slice) writes its version's summary into its publish manifest, under "shard". A
merge makes the site-wide pages (the home page, each benchmark's page, search, index.json) from the summaries and
takes every file of a version from its shards, so it reads no run and scores nothing (docs/scale.md):

    {"format": 1,
     "view": [scored, entrants, colours, runs],  the leaderboard and its statistics, the entrants and their colours,
                                                  the runs without their transcripts or judgments (as codec.py writes
                                                  records: data, never code)
     "bundles": {name: pages, ...},               the version's search bundles, and how many pages each indexes
     "pages": {"count": n, "sha256": hex}}        the version's pages and downloads (not its search files): how many,
                                                  and the SHA-256 of their site paths, sorted, one per line

A shard is untrusted input (merge.py): a summary that does not decode to these records is refused, and what the
site-wide pages show of it passes the backstop scan like every other file.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator
from dataclasses import replace
from typing import Any
from urllib.parse import unquote

import orjson
from flask import url_for

from ..model import Benchmark, Entrant, Run
from ..outdir import file_for
from ..release import Release, VersionView
from ..results import Scored
from ..site.app import create_app
from ..site.freeze import version_pages
from ..site.search_index import sizes_of
from ..site.urls import page_url
from . import codec

FORMAT = 1
KEPT_TABLES = ("statistics",)  # what the site-wide pages show besides the leaderboard (intervals, separation)


def summarise(view: VersionView, pages: Iterable[str]) -> dict[str, Any]:
    """The summary of a version, given the site paths of its pages and downloads."""
    tables = {name: table for name, table in view.scored.tables.items() if name in KEPT_TABLES}
    scored = Scored(view.scored.leaderboard, {}, tables)
    runs = {run_id: bare(run) for run_id, run in view.runs.items()}
    return {
        "format": FORMAT,
        "view": orjson.loads(codec.dumps([scored, view.entrants, view.colours, runs])),
        "bundles": view.once(sizes_of),
        "pages": pages_digest(pages),
    }


def page_files(release: Release, view: VersionView) -> Iterator[str]:
    """The site path of each page and download of a version: every file a build of it writes but its search
    bundles' (those that come in thousands by urls.page_url, the others by the app's url_for)."""
    with create_app(release).test_request_context():
        for endpoint, values in version_pages(view):
            yield file_for(unquote(page_url(endpoint, values) or url_for(endpoint, **values)))


def bare(run: Run) -> Run:
    """A run as the site-wide pages know it: its metadata, entrants, judges and public files, none of its records."""
    return replace(run, transcripts=[], judgments=[], calibration=[], human_pairs=[], stored_scores={}, read_files=[],
                   ignored_files=[])  # fmt: skip


def pages_digest(pages: Iterable[str]) -> dict[str, Any]:
    """How many site paths, each counted once, and the SHA-256 of them sorted, one per line (no newline after the
    last): hashed a path at a time, with no set or joined copy of them all (two million at a million transcripts)."""
    digest = PagesDigest()
    for rel in sorted(pages):
        digest.add(rel)
    return digest.result()


class PagesDigest:
    """pages_digest of site paths given one at a time, in sorted order (a merge's, as its shards list them)."""

    def __init__(self) -> None:
        self._digest, self._count, self._last = hashlib.sha256(), 0, None

    def add(self, rel: str) -> None:
        if rel != self._last:
            self._digest.update(f"\n{rel}".encode() if self._count else rel.encode())
            self._count, self._last = self._count + 1, rel

    def result(self) -> dict[str, Any]:
        return {"count": self._count, "sha256": self._digest.hexdigest()}


class SummaryError(ValueError):
    pass


def view_of(summary: Any, bench: Benchmark, version_id: str) -> VersionView:
    """The version as its summary gives it, with the benchmark's own definitions (read from content/); a view that
    holds no transcript, whose search bundles are those the summary names. SummaryError when it is not one."""
    try:  # its outer shape was checked with the shard entry (schemas/shard.schema.json)
        scored, entrants, colours, runs = codec.loads(orjson.dumps(summary["view"]))
        sizes = summary["bundles"]
    except (AttributeError, KeyError, TypeError, ValueError) as exc:
        raise SummaryError(f"is not a version's summary ({exc})") from None
    _check(scored, entrants, colours, runs, sizes)
    version = next((v for v in bench.versions if v.id == version_id), None)
    if version is None:
        raise SummaryError(f"names version {version_id}, which content/ does not define for {bench.id}")
    view = VersionView(bench, replace(version, runs=list(runs.values())), scored, entrants=entrants, colours=colours,
                       runs=runs)  # fmt: skip
    view.derived[sizes_of] = sizes  # what search_index would work out from its transcripts
    return view


def _check(scored: Any, entrants: Any, colours: Any, runs: Any, sizes: Any) -> None:
    shapes = {
        "its scores": isinstance(scored, Scored),
        "its entrants": isinstance(entrants, dict) and all(isinstance(e, Entrant) for e in entrants.values()),
        "its colours": isinstance(colours, dict) and all(isinstance(c, str) for c in colours.values()),
        "its runs": isinstance(runs, dict) and all(isinstance(r, Run) for r in runs.values()),
        "its search bundles": isinstance(sizes, dict) and all(type(n) is int for n in sizes.values()),
    }
    wrong = [name for name, right in shapes.items() if not right]
    if wrong:
        raise SummaryError(f"does not hold {', '.join(wrong)} as a build writes them")
