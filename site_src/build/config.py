"""What a build is asked for: its inputs, its output folder and its options, as the command line checked them."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from ..changes import Published, read_published


def build_date() -> str | None:
    """Shown only when SOURCE_DATE_EPOCH is set, so two builds of the same inputs are byte-identical."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    return time.strftime("%Y-%m-%d", time.gmtime(int(epoch))) if epoch else None


@dataclass(frozen=True)
class BuildConfig:
    out: Path
    content: Path = Path("content")
    runs: list[Path] = field(default_factory=lambda: [Path("runs")])
    base_path: str = "/"  # the site's path on its host (the 404 page needs it)
    search: bool = True
    redact_secrets: bool = False  # publish possible secrets as visible markers instead of refusing
    strict: bool = False  # warnings fail the build
    quiet: bool = False  # no progress, no totals, no notices
    only: str | None = None  # "bench/version": build one shard
    part: tuple[int, int] | None = None  # (k, n): of that shard, only slice k of n (urls.slice_of)
    fresh: bool = False  # render everything, as if no build had been made into out before
    shards: list[Path] = field(default_factory=list)  # merge these shards (built with only) instead of rendering
    reads: list[Path] = field(default_factory=list)  # runs read by read jobs (reads.py): taken, not read again
    build_date: str | None = field(default_factory=build_date)
    changes_since: Path | None = None  # an earlier built site: each benchmark gets a page of what changed since
    host: str | None = None  # hosts.HOSTS: the site must fit that host's limits to be put in place

    @cached_property
    def previous(self) -> Published | None:
        """The published data of the site changes_since names, read once (DiffError if it is no built site)."""
        return read_published(self.changes_since) if self.changes_since else None

    @property
    def options(self) -> dict[str, Any]:
        """What a page's bytes depend on besides the inputs (only and shards change which pages, not how)."""
        return {
            "base_path": self.base_path,
            "search": self.search,
            "redact_secrets": self.redact_secrets,
            "strict": self.strict,
            "build_date": self.build_date,
            "changes_since": self.previous.digest if self.previous else None,  # the data compared with, not its path
        }

    @property
    def scope(self) -> str:
        """Which pages the build writes: all, one shard's, or a merge's."""
        sliced = f" slice {self.part[0]}/{self.part[1]}" if self.part else ""
        return "merge" if self.shards else (f"only {self.only}{sliced}" if self.only else "all")

    def inputs(self) -> list[tuple[str, Path]]:
        """What the build reads, which no output folder may be, hold or lie inside."""
        return [
            ("the content folder", self.content),
            *(("a runs folder", root) for root in self.runs),
            *(("a shard", shard) for shard in self.shards),  # read, never written
            *(("a reads folder", folder) for folder in self.reads),
        ]
