"""`build.py merge`: shards are untrusted input.

A shard is a folder another build wrote with --only (on another runner, say) and that reached this one as an
artifact: anything in it may have been changed on the way. So a merge takes from a shard only what a shard build
of that version writes, under names it checks, each file read through no link, checked against the shard's
manifest, and scanned for secrets by the same backstop as a build's own files. Pagefind's engine (its script, its
worker and its WebAssembly) must be byte for byte what this machine's Pagefind writes.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import unquote

from flask import url_for

from ..outdir import MANIFEST, file_for
from ..release import Release
from ..results import plural
from ..secretscan import Finding
from ..site.app import create_app
from ..site.freeze import version_pages
from ..site.search_index import bundle_of, engine_files
from ..site.slicing import Slicer
from .scanning import scan_text, scan_written

NAME = re.compile(r"[A-Za-z0-9._~-]+")  # one segment of a site path a build writes
SEARCH_FILE = re.compile(  # what Pagefind writes into a bundle, less the interfaces a build deletes
    r"pagefind-entry\.json|pagefind\.js|pagefind-worker\.js|pagefind\.[a-z0-9_-]+\.pf_meta|wasm\.[a-z0-9_-]+\.pagefind"
    r"|(?:fragment|index|filter)/[a-z0-9_-]+\.pf_(?:fragment|index|filter)"
)
ENGINE = re.compile(r"pagefind\.js|pagefind-worker\.js|wasm\.([a-z0-9_-]+)\.pagefind")  # code a browser runs
PART = re.compile(r"(?:[2-9]|[1-9][0-9]{1,2})/")  # a later part's folder within a run's bundle (search_index.parts_of)
MAX_MANIFEST = 1 << 30
MAX_UNPACKED = 256 << 20  # what a Pagefind file may unpack to, for the scan


@dataclass(frozen=True)
class ShardFile:
    shard: Path
    rel: str
    sha256: str


def confined(rel: object) -> str | None:
    """Why a site path listed by a shard is not one a build writes, or None: a relative POSIX path of plain names,
    with no empty, "." or ".." segment."""
    if not isinstance(rel, str) or not rel or len(rel) > 1024:
        return "is not a file name"
    parts = rel.split("/")
    if any(part in ("", ".", "..") or not NAME.fullmatch(part) for part in parts):
        return "is not a plain relative path inside the site"
    return None


def gather(shards: list[Path], keys: dict[str, str], expected: Expected) -> tuple[dict[str, ShardFile], str | None]:
    """Each version's files from the shard that holds it (site path -> file), or why the shards cannot make this
    release. keys: "bench/version" -> the key of the inputs this merge reads; expected(name) -> (the site paths of
    that version's pages, its runs' ids, which slice writes each file): a shard must list every page (of its slice),
    and nothing but pages and search bundles (of its slice). A version comes whole from one shard, or from every
    slice of one count."""
    files: dict[str, ShardFile] = {}
    owners: dict[str, dict[int, Path]] = {}  # version -> its slices' shards, by slice (0: the version whole)
    counts: dict[str, int] = {}  # version -> how many slices it was built in (1: whole)
    for folder in shards:
        manifest, problem = _manifest(folder)
        if problem:
            return files, problem
        part = _part(manifest)
        for name, key in manifest["shard"]["versions"].items():
            problem = _claim(owners, counts, name, folder, part) or _same_inputs(folder, name, key, keys)
            if problem:
                return files, problem
        problem = _listed(folder, manifest, expected, files, part)
        if problem:
            return files, problem
    return files, _uncovered(keys, owners, counts)


def _part(manifest: dict[str, Any]) -> tuple[int, int] | None:
    part = manifest["shard"].get("slice")
    return (part[0], part[1]) if part else None


def _claim(
    owners: dict[str, dict[int, Path]], counts: dict[str, int], name: str, folder: Path, part: tuple[int, int] | None
) -> str | None:
    """Note that folder holds name (or one slice of it), or say why two shards cannot both hold it."""
    k, n = part or (0, 1)
    held = owners.setdefault(name, {})
    if held and (0 in held or not k or counts[name] != n or k in held):
        other = next(iter(held.values()))
        counted = " (not slices of one count)" if k and counts[name] != n else ""
        return f"{name} is in two shards, {other} and {folder}{counted}"
    held[k], counts[name] = folder, n
    return None


def _same_inputs(folder: Path, name: str, key: str, keys: dict[str, str]) -> str | None:
    if name not in keys:
        return f"shard {folder} holds {name}, which has no runs among this merge's inputs"
    if key != keys[name]:
        return (
            f"shard {folder} built {name} from other inputs, code or options than this merge reads; rebuild that shard"
        )
    return None


def _uncovered(keys: dict[str, str], owners: dict[str, dict[int, Path]], counts: dict[str, int]) -> str | None:
    """Why the shards do not hold every version whole (or every slice of it), or None."""
    missing = sorted(set(keys) - set(owners))
    if missing:
        return f"no shard holds {', '.join(missing)}"
    for name, held in sorted(owners.items()):
        lacking = [k for k in range(1, counts[name] + 1) if k not in held] if 0 not in held else []
        if lacking:
            return f"no shard holds slice {lacking[0]}/{counts[name]} of {name}"
    return None


def _manifest(folder: Path) -> tuple[dict[str, Any], str | None]:
    """A shard's manifest, in the shape a shard build writes, or why it is not one."""
    not_shard = f"{folder} is not a shard (its {MANIFEST} names no shard versions; build one with --only)"
    path = folder / MANIFEST
    try:
        if path.is_symlink() or not path.is_file() or path.stat().st_size > MAX_MANIFEST:
            return {}, not_shard
        manifest = json.loads(path.read_bytes())
        versions, listed = manifest["shard"]["versions"], manifest["files"]
    except (OSError, ValueError, KeyError, TypeError):
        return {}, not_shard
    part = manifest["shard"].get("slice")
    shapes = [
        isinstance(versions, dict) and all(isinstance(k, str) and isinstance(v, str) for k, v in versions.items()),
        part is None
        or (
            isinstance(part, list) and len(part) == 2 and all(type(x) is int for x in part) and 1 <= part[0] <= part[1]
        ),
        isinstance(listed, dict)
        and all(isinstance(e, dict) and isinstance(e.get("sha256"), str) for e in listed.values()),
    ]
    return (manifest, None) if all(shapes) else ({}, not_shard)


def _listed(
    folder: Path,
    manifest: dict[str, Any],
    expected: Expected,
    files: dict[str, ShardFile],
    part: tuple[int, int] | None,
) -> str | None:
    """Add the files a shard lists to files, or say which one no shard build writes, or which page it lacks: the
    pages of a slice are those that fall in it, and its search bundles likewise (slicing.Slicer)."""
    held = manifest["shard"]["versions"]
    for name in held:
        pages, runs, slicer = expected(name)
        if part:
            pages = {p for p in pages if slicer.of(p, part[1]) == part[0]}
        for rel, entry in manifest["files"].items():
            why = confined(rel)
            if why:
                return f"shard {folder} lists {rel!r}, which {why}; nothing was taken from it"
            if not rel.startswith(name + "/"):
                continue
            if rel not in pages and not (_search_file(rel[len(name) + 1 :], runs) and _in_part(rel, part, slicer)):
                return f"shard {folder} lists {rel}, which no shard build of {name} writes; nothing was taken from it"
            files[rel] = ShardFile(folder, rel, entry["sha256"])
        missing = sorted(pages - files.keys())
        if missing:
            return (
                f"shard {folder} lacks {plural(len(missing), 'page')} of {name}, first {missing[0]}; rebuild that shard"
            )
    outside = sorted(rel for rel in manifest["files"] if not any(rel.startswith(n + "/") for n in held))
    if outside:
        return f"shard {folder} lists {outside[0]}, outside the versions it holds; nothing was taken from it"
    return None


def _in_part(rel: str, part: tuple[int, int] | None, slicer: Slicer) -> bool:
    """Whether a search bundle's file lies in the slice a shard was built as (any, for a shard of a whole version)."""
    bundle = bundle_of(rel)
    return part is None or (bundle is not None and slicer.of(bundle, part[1]) == part[0])


def _search_file(rel: str, runs: set[str]) -> bool:
    """Whether rel (inside a version's folder) is a file of one of its runs' search bundles (search/<run>/<file>,
    or search/<run>/<n>/<file> for a later part of a large run's)."""
    parts = rel.split("/", 2)
    if len(parts) != 3 or parts[0] != "search" or parts[1] not in runs:
        return False
    part = PART.match(parts[2])
    return bool(SEARCH_FILE.fullmatch(parts[2][part.end() :] if part else parts[2]))


def read_confined(shard: Path, rel: str) -> bytes | None:
    """The bytes of rel in shard, read only if every part of its path is a plain folder or file (no link)."""
    root = os.path.realpath(shard)
    path = os.path.join(root, *rel.split("/"))
    if os.path.realpath(path) != path or not os.path.isfile(path) or os.path.islink(path):
        return None
    with open(path, "rb") as f:
        return f.read()


def engine_problem(rel: str, data: bytes) -> str | None:
    """Why a search bundle's script or WebAssembly is not the one this machine's Pagefind writes, or None."""
    name = PurePosixPath(rel).name
    match = ENGINE.fullmatch(name)
    if not match:
        return None
    languages = frozenset([match.group(1)] if match.group(1) else [])
    if engine_files(languages).get(name) != data:
        return f"{rel} is not the search engine this machine's Pagefind writes; rebuild that shard"
    return None


def take(files: dict[str, ShardFile], dest: Path, known: dict[str, bytes]) -> tuple[list[Finding], str | None]:
    """Copy each shard file into dest once it is read through no link and checked against its shard's manifest
    (and Pagefind's engine against this machine's), adding its SHA-256 to known. Returns what the backstop found in
    the files, and why a file cannot be taken, if one cannot."""
    findings: list[Finding] = []
    for rel, file in sorted(files.items()):
        data = read_confined(file.shard, rel)
        digest = hashlib.sha256(data).digest() if data is not None else None
        if digest is None or digest.hex() != file.sha256:
            return findings, f"{file.shard / rel} is missing, a link, or differs from its shard's {MANIFEST}"
        problem = engine_problem(rel, data)  # type: ignore[arg-type]
        if problem:
            return findings, problem
        findings += scan_shard_file(rel, data)  # type: ignore[arg-type]
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)  # type: ignore[arg-type]  # a copy: the site shares no file with a shard
        known[rel] = digest
    return findings, None


PAGEFIND_DATA = (".pf_fragment", ".pf_meta", ".pf_index", ".pf_filter")  # gzip: the text of the pages indexed


def scan_shard_file(rel: str, data: bytes) -> list[Finding]:
    """The backstop's findings in a shard's file: a written file's, as in a build, or for a Pagefind data file what
    it holds unpacked (at most MAX_UNPACKED bytes of it)."""
    if not rel.endswith(PAGEFIND_DATA):
        return scan_written(rel, data)
    try:
        return scan_text(rel, zlib.decompressobj(wbits=31).decompress(data, MAX_UNPACKED))
    except zlib.error:
        return scan_text(rel, data)


Expected = Callable[[str], tuple[set[str], set[str], Slicer]]


def shard_pages(release: Release) -> Expected:
    """ "bench/version" -> (the site paths of the pages a shard build of that version writes, its runs' ids, and
    which slice of it writes each file)."""
    app = create_app(release)
    by_name = {view.folder: view for view in release.views}
    slicer = Slicer(release)

    def expected(name: str) -> tuple[set[str], set[str], Slicer]:
        view = by_name[name]
        with app.test_request_context():
            pages = {file_for(unquote(url_for(endpoint, **values))) for endpoint, values in version_pages(view)}
        return pages, set(view.runs), slicer

    return expected
