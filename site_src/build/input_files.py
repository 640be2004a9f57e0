"""The content and run files a build's keys are made of (name -> size, mtime, inode and SHA-256 as one bytes, see
cache._digests), held packed: in name order, in blocks of a few thousand files, a block's names compressed.

Every slice and the merge of a version hold every run file of it: a million at a million transcripts. In a dict, a
file took about 300 bytes (its name, its bytes, its entry); packed, its 56 bytes and a few of compressed name (the
names of a block share their run's folders).
"""

from __future__ import annotations

import heapq
import zlib
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from itertools import islice

BLOCK = 2_000  # files in a block
LEVEL = 1  # zlib's fastest


def _encoded(name: str) -> bytes:
    return name.encode("utf-8", "surrogateescape")  # a name os.scandir could not decode keeps its bytes


@dataclass(frozen=True, slots=True)
class _Block:
    first: str
    names: bytes  # NUL-joined (a file's name holds none), compressed
    values: bytes  # each file's, all of one length
    size: int  # bytes of a value

    def unpacked(self) -> list[str]:
        return zlib.decompress(self.names).decode("utf-8", "surrogateescape").split("\0")

    def value(self, i: int) -> bytes:
        return self.values[self.size * i : self.size * (i + 1)]


class InputFiles(Mapping[str, bytes]):
    """name -> packed bytes, read-only, iterated in name order."""

    def __init__(self, pairs: Iterable[tuple[str, bytes]] = ()) -> None:
        """From (name, value) pairs in name order, each name once, every value of one length."""
        self._blocks: list[_Block] = []
        self._firsts: list[str] = []  # each block's first name
        self._count = 0
        self._last: tuple[_Block | None, list[str]] = (None, [])  # the block a lookup unpacked last
        pairs = iter(pairs)
        while chunk := list(islice(pairs, BLOCK)):
            names = b"\0".join(_encoded(name) for name, _ in chunk)
            values = b"".join(value for _, value in chunk)
            self._add(_Block(chunk[0][0], zlib.compress(names, LEVEL), values, len(chunk[0][1])), len(chunk))

    def _add(self, block: _Block, count: int) -> None:
        self._blocks.append(block)
        self._firsts.append(block.first)
        self._count += count

    def __len__(self) -> int:
        return self._count

    def __iter__(self) -> Iterator[str]:
        return (name for name, _ in self.items())

    def items(self) -> Iterator[tuple[str, bytes]]:  # type: ignore[override]
        for block in self._blocks:
            yield from ((name, block.value(i)) for i, name in enumerate(block.unpacked()))

    def __getitem__(self, name: str) -> bytes:
        at = bisect_right(self._firsts, name) - 1
        if at < 0:
            raise KeyError(name)
        block = self._blocks[at]
        names = self._last[1] if self._last[0] is block else block.unpacked()
        self._last = (block, names)
        i = bisect_left(names, name)
        if i == len(names) or names[i] != name:
            raise KeyError(name)
        return block.value(i)

    def below(self, prefix: str) -> Iterator[tuple[str, bytes]]:
        """The files whose names begin with prefix, in name order."""
        start = max(0, bisect_right(self._firsts, prefix) - 1)
        for block in self._blocks[start:]:
            if block.first > prefix and not block.first.startswith(prefix):
                return
            for i, name in enumerate(block.unpacked()):
                if name.startswith(prefix):
                    yield name, block.value(i)
                elif name > prefix:
                    return

    def __or__(self, other: InputFiles) -> InputFiles:  # type: ignore[override]
        """Both, in name order (a name in both: other's). Folders whose names sort apart (content/, runs/) are joined
        block by block."""
        if not self or not other or self._last_name() < other._firsts[0]:
            joined = InputFiles()
            for files in (self, other):
                for block in files._blocks:
                    joined._add(block, len(block.values) // block.size)
            return joined
        merged = heapq.merge(self.items(), other.items(), key=lambda pair: pair[0])
        return InputFiles(_last_of_each(merged))

    def _last_name(self) -> str:
        return self._blocks[-1].unpacked()[-1]


def _last_of_each(pairs: Iterator[tuple[str, bytes]]) -> Iterator[tuple[str, bytes]]:
    held: tuple[str, bytes] | None = None
    for pair in pairs:
        if held is not None and held[0] != pair[0]:
            yield held
        held = pair
    if held is not None:
        yield held
