"""A merge takes its shards' files: each read through no link, checked against its shard's manifest (and Pagefind's
engine against this machine's), scanned by the backstop and linked (or copied) into the new site, on every core.

A shard is untrusted (merge.py). Which of its files may be read is settled by one walk of its folder that follows no
link (a file that is a link, or lies in a folder that is one, is not among them), and each is then opened without
following a link: at 300,000 files, resolving every path's parts one by one took longer than reading the files.
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
from collections.abc import Iterator
from pathlib import Path

from ..allocator import READ_STEP
from ..outdir import MANIFEST
from ..secretscan import Finding
from ..site.search_index import engine_files
from ..workers import forked
from .scanning import scan_packed, scan_written
from .shard_files import Block, ShardFiles

ENGINE = re.compile(r"pagefind\.js|pagefind-worker\.js|wasm\.([a-z0-9_-]+)\.pagefind")  # code a browser runs
PAGEFIND_DATA = (".pf_fragment", ".pf_meta", ".pf_index", ".pf_filter")  # gzip: the text of the pages indexed
CHUNK = 2_000  # files a worker takes at a time

Taken = tuple[list[Finding], str | None]  # findings, problem


def take(files: ShardFiles, dest: Path, jobs: int | None = None) -> tuple[list[Finding], str | None]:
    """Copy each shard file into dest. Returns what the backstop found in the files (by site path), and why a file
    cannot be taken, if one cannot. Every shard is walked (plain_files) before any file is read, the shards at once,
    on the same workers as the files after. Once every file is taken, each has the SHA-256 its shard lists."""
    by_shard = files.by_shard()
    for blocks in by_shard.values():
        _engines_ahead(blocks)
    count = sum(-(-len(block) // CHUNK) for blocks in by_shard.values() for block in blocks)
    findings: list[Finding] = []
    with forked(min(jobs or os.cpu_count() or 1, max(count, len(by_shard)))) as pool:
        each = pool.imap if pool else map
        for shard, plain in zip(by_shard, each(plain_files, by_shard), strict=True):
            lacking = next((rel for block in by_shard[shard] for rel in block.rels() if rel not in plain), None)
            if lacking:
                return findings, _not_as_listed(shard, lacking)
        for found, problem in each(_take_chunk, _chunks(by_shard, dest)):
            findings += found
            if problem:
                return sorted(findings, key=lambda f: f.file), problem
    return sorted(findings, key=lambda f: f.file), None


def _chunks(by_shard: dict[Path, list[Block]], dest: Path) -> Iterator[tuple[Path, list[tuple[str, bytes]], Path, int]]:
    """The workers' jobs: CHUNK files of one shard at a time with their digests, made as the workers take them."""
    mode = 0o666 & ~_umask()  # what a build's own files get
    for shard, blocks in by_shard.items():
        for block in blocks:
            listed = [(rel, block.sha256(i)) for i, rel in enumerate(block.rels())]
            for i in range(0, len(listed), CHUNK):
                yield shard, listed[i : i + CHUNK], dest, mode


def plain_files(root: Path) -> set[str]:
    """The site paths of the regular files below root reached through no link."""
    out: set[str] = set()
    todo = [(os.path.realpath(root), "")]
    while todo:
        folder, prefix = todo.pop()
        with os.scandir(folder) as entries:
            for entry in entries:
                if entry.is_dir(follow_symlinks=False):
                    todo.append((entry.path, f"{prefix}{entry.name}/"))
                elif entry.is_file(follow_symlinks=False):
                    out.add(prefix + entry.name)
    return out


def _not_as_listed(shard: Path, rel: str) -> str:
    return f"{shard / rel} is missing, a link, or differs from its shard's {MANIFEST}"


def _engines_ahead(blocks: list[Block]) -> None:
    """Pagefind's engine for each language a shard's bundles name, made before the workers fork (each would run
    Pagefind to make it again)."""
    for block in blocks:
        for rel in block.rels():
            match = ENGINE.fullmatch(rel.rpartition("/")[2])
            if match:
                engine_files(frozenset([match.group(1)] if match.group(1) else []))


def _umask() -> int:
    mask = os.umask(0o022)  # read by setting it: there is no other way
    os.umask(mask)
    return mask


def _take_chunk(job: tuple[Path, list[tuple[str, bytes]], Path, int]) -> Taken:
    """In a worker: take a run of one shard's files, in order, until one cannot be taken."""
    shard, listed, dest, mode = job
    root, made = os.path.realpath(shard), set[str]()
    findings: list[Finding] = []
    for rel, sha256 in listed:
        source = f"{root}/{rel}"  # rel is a plain relative path (merge.confined); no join or pathlib: 2M files
        got = _read(source)
        if got is None:
            return findings, _not_as_listed(shard, rel)
        data, read = got
        if hashlib.sha256(data).digest() != sha256:
            return findings, _not_as_listed(shard, rel)
        problem = engine_problem(rel, data)
        if problem:
            return findings, problem
        findings += scan_shard_file(rel, data)
        target = f"{dest}/{rel}"
        folder = target.rpartition("/")[0]
        if folder not in made:
            _make_folder(folder)
            made.add(folder)
        _place(source, read, data, target, mode)
    return findings, None


def _read(path: str) -> tuple[bytes, os.stat_result] | None:
    """A regular file's bytes and its stat, read without following a link (or opening a pipe put in its place since
    the walk); None if it cannot be. Read by its descriptor, with no file object: a merge reads two million."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        read = os.fstat(fd)
        if not stat.S_ISREG(read.st_mode):
            return None
        data = os.read(fd, read.st_size + 1)
        # a regular file's read that comes short has reached the file's end: most files take this one read. One that
        # grew since the stat is read to its end (the manifest's digest will tell), in heap-sized steps
        if len(data) > read.st_size:
            while more := os.read(fd, READ_STEP):
                data += more
        return data, read
    except OSError:
        return None
    finally:
        os.close(fd)


def _make_folder(folder: str) -> None:
    """A folder of the new site, and its parents if they are missing: one mkdir call for most (a transcript's page in
    the full layout has a folder of its own)."""
    try:
        os.mkdir(folder)
    except FileNotFoundError:
        os.makedirs(folder, exist_ok=True)
    except FileExistsError:
        pass


def _place(source: str, read: os.stat_result, data: bytes, target: str, mode: int) -> None:
    """Put a checked file into the new site: a hard link to the very file that was read and checked, when the shard
    lies on the same file system and the file has the mode a build gives its files; else a copy. Linking takes a
    tenth of the time writing does (nearly all of it the kernel's), and the merge is bound by its files. The link is
    made by path, so it is kept only if it names the file that was read (a path swapped since cannot slip in)."""
    if stat.S_IMODE(read.st_mode) == mode:
        try:
            os.link(source, target)
        except OSError:  # another file system, or one without hard links
            pass
        else:
            linked = os.lstat(target)
            if (linked.st_dev, linked.st_ino) == (read.st_dev, read.st_ino):
                return
            os.unlink(target)
    with open(target, "wb") as out:
        out.write(data)


def engine_problem(rel: str, data: bytes) -> str | None:
    """Why a search bundle's script or WebAssembly is not the one this machine's Pagefind writes, or None."""
    name = rel.rpartition("/")[2]
    match = ENGINE.fullmatch(name)
    if not match:
        return None
    languages = frozenset([match.group(1)] if match.group(1) else [])
    if engine_files(languages).get(name) != data:
        return f"{rel} is not the search engine this machine's Pagefind writes; rebuild that shard"
    return None


def scan_shard_file(rel: str, data: bytes) -> list[Finding]:
    """The backstop's findings in a shard's file: a written file's, as in a build, or for a Pagefind data file what
    it holds unpacked (scanning.scan_packed)."""
    if not rel.endswith(PAGEFIND_DATA):
        return scan_written(rel, data)
    return scan_packed(rel, data, whole=False)
