"""The files a merge takes from its shards, held packed: each shard's listing in path order, in blocks of a few
thousand files (a block's paths and their sources compressed, their SHA-256 digests as one bytes).

A merge of a million transcripts in one version takes about two million files. As Python objects (a string for each
path, an object and a bytes for each file, an entry in a dict of them all) they took about 400 bytes a file, 0.8 GB;
packed, about 50 bytes with its sources: the digest, and a few bytes of compressed path and sources (the paths of
a block share their folders, the sources their run's folder). What needs them in path order across shards (the
files two shards both list, the digest of a version's pages, the publish manifest, the new site's listing) merges
the shards' blocks as they are read (ShardFiles.in_order), as a sort merges its runs: a block's paths are unpacked
when it is reached, a few thousand at a time, never every path at once.
"""

from __future__ import annotations

import functools
import zlib
from array import array
from bisect import bisect_right
from collections.abc import Iterator
from dataclasses import dataclass
from operator import itemgetter
from pathlib import Path

import orjson

BLOCK = 2_000  # files in a block
SHA = 32  # bytes of a SHA-256
LEVEL = 1  # zlib's fastest: a block's paths and sources shrink 5-10 times all the same

Sources = list[str] | str  # as a shard's manifest names them: run files, or a version ("bench/version")
Row = tuple[str, bytes, Sources, str | None]  # site path, SHA-256, sources, the version of a page (None: search)


@dataclass(frozen=True, slots=True)
class ShardFile:
    """One file a shard lists, as its shard's manifest gives it."""

    shard: Path
    sha256: bytes
    sources: Sources


@dataclass(frozen=True, slots=True)
class Block:
    """Up to BLOCK files of one shard, in path order. A site path a merge takes is plain ASCII (merge.confined), so
    the joined paths take one byte a character before they are compressed."""

    shard: int  # in ShardFiles.shards
    last: str  # the last path: where the block ends
    paths: bytes  # joined by newlines (a site path holds none), compressed
    digests: bytes  # SHA * len
    sources: bytes  # each file's, as a JSON list (a run file's name may hold any character but NUL), compressed
    versions: array  # each file's: 0 for a search bundle's file, else 1 + its version's index in ShardFiles.versions

    @classmethod
    def of(cls, shard: int, rows: list[Row], version: functools.partial) -> Block:
        paths = "\n".join(row[0] for row in rows).encode("ascii")
        sources = orjson.dumps([row[2] for row in rows])
        versions = array("I", (0 if row[3] is None else 1 + version(row[3]) for row in rows))
        digests = b"".join(row[1] for row in rows)
        return cls(shard, rows[-1][0], zlib.compress(paths, LEVEL), digests, zlib.compress(sources, LEVEL), versions)

    def __len__(self) -> int:
        return len(self.versions)

    def rels(self) -> list[str]:
        return zlib.decompress(self.paths).decode("ascii").split("\n")

    def sources_each(self) -> list[Sources]:
        return orjson.loads(zlib.decompress(self.sources))

    def sha256(self, i: int) -> bytes:
        return self.digests[SHA * i : SHA * (i + 1)]


class ShardFiles:
    """Every file a merge takes from its shards: added a part of a shard's listing at a time (add), each part kept
    in path order. Runs of blocks in path order: a shard's parts make one run when each begins after the one before
    it ends, as a shard build writes them."""

    def __init__(self) -> None:
        self.shards: list[Path] = []
        self.runs: list[list[Block]] = []
        self.versions: list[str] = []
        self._version_at: dict[str, int] = {}
        self._count = 0

    def __len__(self) -> int:
        return self._count

    def add(self, shard: Path, rows: list[Row]) -> None:
        """A part of a shard's listing (its rows in any order; the shard's parts one after another)."""
        if not rows:
            return
        rows.sort(key=itemgetter(0))
        if not self.shards or self.shards[-1] != shard:
            self.shards.append(shard)
        number = len(self.shards) - 1
        version = functools.partial(_number, self.versions, self._version_at)
        blocks = [Block.of(number, rows[i : i + BLOCK], version) for i in range(0, len(rows), BLOCK)]
        last = self.runs[-1][-1] if self.runs else None
        if last is not None and last.shard == number and last.last < rows[0][0]:
            self.runs[-1] += blocks
        else:
            self.runs.append(blocks)
        self._count += len(rows)

    def by_shard(self) -> dict[Path, list[Block]]:
        """Each shard's blocks, in the order the shards were added."""
        out: dict[Path, list[Block]] = {shard: [] for shard in self.shards}
        for run in self.runs:
            out[self.shards[run[0].shard]] += run
        return out

    def in_order(self) -> Iterator[tuple[str, Block, int]]:
        """Every file (site path, its block, its place there) in path order across the shards, a file listed twice
        as often as it is listed, the earlier shard's first. Each step takes, from every run, the paths up to the
        least of the last paths of their current blocks, and sorts them together."""
        cursors = [_Cursor(run) for run in self.runs]
        cursors = [cursor for cursor in cursors if cursor.rels]
        while cursors:
            bound = min(cursor.rels[-1] for cursor in cursors)
            batch: list[tuple[str, Block, int]] = []
            for cursor in cursors:
                batch += cursor.up_to(bound)
            batch.sort(key=itemgetter(0))  # stable: equal paths stay in the order of their runs
            yield from batch
            cursors = [cursor for cursor in cursors if cursor.rels]


def _number(values: list, at: dict, value: object) -> int:
    """value's index in values, appended the first time it is met."""
    if value not in at:
        at[value] = len(values)
        values.append(value)
    return at[value]


class _Cursor:
    """Where in_order stands in one run: its current block's paths, and the next of them to give."""

    def __init__(self, run: list[Block]) -> None:
        self._blocks = iter(run)
        self.rels: list[str] = []
        self._next()

    def _next(self) -> None:
        self.block = next(self._blocks, None)
        self.rels, self.at = (self.block.rels(), 0) if self.block else ([], 0)

    def up_to(self, bound: str) -> list[tuple[str, Block, int]]:
        end = bisect_right(self.rels, bound, self.at)
        taken = [(self.rels[i], self.block, i) for i in range(self.at, end)]
        self.at = end
        if end == len(self.rels):
            self._next()
        return taken  # type: ignore[return-value]


class MergedFiles:
    """The files of a merged site in path order, without a list of them: those the merge rendered (a few hundred
    site-wide pages, a list) and those it took from its shards, then any added after (a large manifest's parts)."""

    def __init__(self, rendered: list[str], taken: ShardFiles, added: tuple[str, ...] = ()) -> None:
        self.rendered, self.taken, self.added = rendered, taken, added

    def __len__(self) -> int:
        return len(self.rendered) + len(self.taken) + len(self.added)

    def __add__(self, more: list[str]) -> MergedFiles:
        return MergedFiles(self.rendered, self.taken, (*self.added, *more))

    def __iter__(self) -> Iterator[str]:
        return (rel for rel, _, _ in self._merged())

    def described(self) -> Iterator[tuple[str, ShardFile | None]]:
        """Each file with what its shard lists of it (None for a file the merge wrote). A block's sources are unpacked
        when its first file is reached and let go after its last (in_order gives a block's files in their order)."""
        shards, unpacked = self.taken.shards, {}
        for rel, block, i in self._merged():
            if block is None:
                yield rel, None
                continue
            if id(block) not in unpacked:
                unpacked[id(block)] = block.sources_each()
            sources = unpacked[id(block)]
            if i == len(sources) - 1:
                del unpacked[id(block)]
            yield rel, ShardFile(shards[block.shard], block.sha256(i), sources[i])

    def _merged(self) -> Iterator[tuple[str, Block | None, int]]:
        rendered = iter(self.rendered)
        ahead = next(rendered, None)
        for rel, block, i in self.taken.in_order():
            while ahead is not None and ahead < rel:
                yield ahead, None, 0
                ahead = next(rendered, None)
            yield rel, block, i
        if ahead is not None:
            yield ahead, None, 0
        yield from ((rel, None, 0) for rel in rendered)
        yield from ((rel, None, 0) for rel in self.added)
