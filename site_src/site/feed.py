"""The benchmarks' changelogs (content/<benchmark>/changelog.yaml) as one Atom feed, /feed.xml (RFC 4287).

Ids are stable: a URN made of the benchmark, the entry's date and its title, so a rebuild, or a site moved to another
host, never shows a reader an entry as new. Links are relative to the feed, so they hold under any base path."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..model import Benchmark
from .text import markdown


@dataclass(frozen=True)
class FeedEntry:
    id: str
    anchor: str  # the entry's id on its benchmark page
    bench: Benchmark
    date: str
    title: str
    version: str | None
    html: str  # the summary, rendered from Markdown with HTML off


def anchor(entry: dict[str, str]) -> str:
    return "change-" + entry["date"] + "-" + (re.sub(r"[^a-z0-9]+", "-", entry["title"].lower()).strip("-") or "entry")


def entries(benchmarks: list[Benchmark]) -> list[FeedEntry]:
    """Every benchmark's changelog entries, newest first (then by benchmark, for a stable order)."""
    out = [
        FeedEntry(
            f"urn:evalboard:{b.id}:{anchor(e)}",
            anchor(e),
            b,
            e["date"],
            e["title"],
            e.get("version"),
            str(markdown(e["summary"])),
        )  # fmt: skip
        for b in benchmarks
        for e in b.changelog
    ]
    return sorted(out, key=lambda e: (e.date, e.bench.id, e.anchor), reverse=True)


def feed_id(benchmarks: list[Benchmark]) -> str:
    return "urn:evalboard:changelog:" + ",".join(sorted(b.id for b in benchmarks if b.changelog))
