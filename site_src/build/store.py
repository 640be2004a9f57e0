"""The runs a build keeps for the next one: each as sealed data (codec.py, sealed.py), never as code.

A kept run is two files in the cache folder's runs/: `<key>.run`, the run as read (transcripts without their turns,
its private key, what its reader said) with what was worked out from it alone (Run.once) beside it in
`../derived/<key>.run`; and `<key>.turns`, each transcript's turns and then the run's judgments, one after another.
The turns stay on disk: a transcript holds a StoredList, a sequence that reads and decodes its part of the file each
time it is used, after checking it against the digest the sealed run file lists for it.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, TypeVar, overload

from . import codec
from .sealed import Seal

T = TypeVar("T")


class ChangedCache(RuntimeError):
    """A part of a turns file that no longer holds the bytes its sealed run file lists."""


class TurnsFile:
    """A file of the build cache holding one run's turns and judgments, read a part at a time."""

    __slots__ = ("path",)

    def __init__(self, path: str) -> None:
        self.path = path

    def read(self, offset: int, length: int) -> bytes:
        fd = os.open(self.path, os.O_RDONLY)  # opened for each read (a few microseconds): no descriptor is held
        try:
            return os.pread(fd, length, offset)
        finally:
            os.close(fd)


class StoredList(Sequence[T]):
    """A list a build keeps on disk once its run is kept (a transcript's turns, a run's judgments): read, checked and
    decoded each time it is used (about 10 microseconds for a transcript's turns), never held. The text of the turns
    was the largest part of what a build held per transcript, and a run's judgments the largest part of the rest.
    Equal to a list of the same items."""

    __slots__ = ("file", "offset", "length", "digest", "count")

    def __init__(self, file: TurnsFile, offset: int, length: int, digest: bytes, count: int) -> None:
        self.file, self.offset, self.length, self.digest = file, offset, length, digest
        self.count = count  # of items: len() decodes nothing (list() asks for it before it iterates)

    def blob(self) -> bytes:
        data = self.file.read(self.offset, self.length)
        if hashlib.sha256(data).digest() != self.digest:
            raise ChangedCache(f"{self.file.path} was changed while the build ran; build again")
        return data

    def load(self) -> list[T]:
        return codec.loads(self.blob())

    @overload
    def __getitem__(self, index: int) -> T: ...
    @overload
    def __getitem__(self, index: slice) -> list[T]: ...
    def __getitem__(self, index: int | slice) -> T | list[T]:
        return self.load()[index]

    def __len__(self) -> int:
        return self.count

    def __iter__(self) -> Iterator[T]:
        return iter(self.load())

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sequence) and not isinstance(other, str) and self.load() == list(other)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return repr(self.load())


def spill(run: Any, path: Path) -> bytes:
    """Write each transcript's turns into path, one after another, then the run's judgments, and leave each pointing
    at its own part (StoredList); return the file's SHA-256. A part an earlier build wrote (a transcript a reader took
    from its last read) is copied as it is: that file goes once this build no longer uses it."""
    file, offset, whole = TurnsFile(str(path)), 0, hashlib.sha256()
    lists = [*(t.turns for t in run.transcripts), run.judgments]
    stored = []
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    with tmp.open("wb") as f:
        for items in lists:
            blob = items.blob() if isinstance(items, StoredList) else codec.dumps(items)
            f.write(blob)
            whole.update(blob)
            stored.append(StoredList(file, offset, len(blob), hashlib.sha256(blob).digest(), len(items)))
            offset += len(blob)
    tmp.replace(path)
    for t, turns in zip(run.transcripts, stored[:-1], strict=True):
        t.turns = turns
    run.judgments = stored[-1]
    return whole.digest()


def _list_data(s: StoredList[Any]) -> list[Any]:
    return [s.offset, s.length, s.digest.hex(), s.count]


def write_run(seal: Seal, path: Path, run: Any, key: Any, said: list[Any]) -> None:
    """Keep a run as read at path (its turns spilled beside it first, see spill): sealed, with the SHA-256 of the
    turns file."""
    turns = spill(run, turns_beside(path)).hex()
    data = codec.dumps({"run": run, "key": key, "said": said, "turns": turns}, {StoredList: ("$l", _list_data)})
    seal.write(path, data)


def read_run(seal: Seal, path: Path) -> tuple[Any, Any, list[Any]] | None:
    """The run, its private key and what its reader said, as write_run kept them at path; None when either file is
    missing, the run file's seal does not verify (written elsewhere, or changed since), it holds anything else, or
    the turns file is not the one it lists."""
    data = seal.read(path)
    turns = turns_beside(path)
    if data is None or not turns.is_file():
        return None
    file = TurnsFile(str(turns))  # where it lies now: the cache folder may have moved since

    def stored(value: Any) -> StoredList[Any]:
        offset, length, digest, count = value
        return StoredList(file, int(offset), int(length), bytes.fromhex(digest), int(count))

    try:
        found = codec.loads(data, {"$l": stored})
        if hashlib.sha256(turns.read_bytes()).hexdigest() != found["turns"]:
            return None
        return found["run"], found["key"], found["said"]
    except (codec.CodecError, KeyError, TypeError, ValueError, OSError):
        return None


def write_value(seal: Seal, path: Path, value: Any) -> None:
    seal.write(path, codec.dumps(value))


def read_value(seal: Seal, path: Path) -> Any:
    """What write_value kept at path, or None (missing, not sealed here, or not records)."""
    data = seal.read(path)
    if data is None:
        return None
    try:
        return codec.loads(data)
    except codec.CodecError:
        return None


def turns_beside(run_file: Path) -> Path:
    return run_file.with_suffix(".turns")
