"""The manifest phase: publish-manifest.json lists every published file with its SHA-256 and the run files it was
made from, and every redaction made (located, never quoted). The output folder's own checks read it back
(outdir.py): a folder is replaced only when its manifest lists every file in it."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator, MutableMapping
from itertools import islice
from pathlib import Path
from typing import Any, BinaryIO

import orjson

from .. import GENERATOR
from ..jsonio import object_pieces
from ..outdir import MANIFEST, PARTS
from ..release import Release, VersionView
from ..secretrules import masked
from ..secretscan import Finding
from ..site.downloads import run_parts
from ..site.urls import LAYOUT, run_download
from .scanning import ScannedWrites
from .shard_files import MergedFiles, ShardFile

PART_FILES = 10_000  # files a part of a large manifest lists (about 3.5 MB), as a part of the transcript list
PART_BYTES = 10 * 2**20  # and at most this much of their entries: a lean download names many run files
PART_SOURCES = 100_000  # run files a part names of a version's sources (about 5 MB)

Entry = tuple[str, dict[str, Any]]  # a file's site path and its entry: its SHA-256 and its sources


def write_manifest(
    site: Path,
    listed: list[str] | MergedFiles,
    release: Release,
    redactions: list[dict[str, Any]],
    known: MutableMapping[str, bytes] | None = None,
    shard: dict[str, Any] | None = None,
) -> tuple[list[Finding], list[str]]:
    """Every published file (listed, site paths) with its SHA-256 and the run files it came from, and every
    redaction made (redaction_entries). A merge's listing (shard_files.MergedFiles) gives each file it took from a
    shard with the SHA-256 and sources its shard's manifest names. known holds the SHA-256 of files whose bytes are
    known (kept from the last build and checked, or hashed by the render workers as they wrote them); any other is
    read from site, and its SHA-256 is added to known (so known then holds every listed file's, without a dict made
    of them all). A file kept from the last build names its sources as a full build would (they take about 2
    microseconds a file to work out). A shard's manifest also names the versions it holds, each with the key of the
    inputs it was built from and its summary (summary.py).

    A site of more than PART_FILES files (or PART_SOURCES run files, or PART_BYTES of entries) gets its manifest in
    parts, so that no file of it grows with the release past what hosts take (Cloudflare: 25 MiB a file): the
    manifest names each part with its SHA-256, and the parts list the files and the versions' sources in order.
    Returns what the backstop found in the manifest and its parts, and the parts' site paths (their SHA-256 and the
    manifest's are added to known).
    """
    known = {} if known is None else known

    def entries(described: Iterable[tuple[str, ShardFile | None]]) -> Iterator[Entry]:  # made as they are needed
        for rel, shard_file in described:
            sources = shard_file.sources if shard_file else sources_for(release, rel)
            digest = shard_file.sha256 if shard_file else known.get(rel)
            if digest is None:
                digest = known[rel] = hashlib.sha256((site / rel).read_bytes()).digest()
            yield (
                rel,
                {"sha256": digest.hex(), "sources_of_version" if isinstance(sources, str) else "sources": sources},
            )

    # in order, each once, as a build lists them (NewSite.listed): not copied (a merge lists two million)
    merged = isinstance(listed, MergedFiles)  # in order by how it is made
    files = listed if merged or all(map(str.__lt__, listed, islice(listed, 1, None))) else sorted(set(listed))
    sources = {view.folder: _Sources(view) for view in release.views}
    rest = {
        "generator": GENERATOR,
        "manifest_version": 3,
        "site_layout": LAYOUT,
        **({"shard": shard} if shard else {}),
        "redactions": redactions,
    }
    stream = entries(listed.described() if merged else ((rel, None) for rel in files))
    if len(files) <= PART_FILES and sum(map(len, sources.values())) <= PART_SOURCES:
        whole = list(stream)
        if sum(map(entry_bytes, whole)) <= PART_BYTES:
            named = {version: list(names) for version, names in sources.items()}
            return _write(site, MANIFEST, whole, {**rest, "parts": [], "version_sources": named}, known), []
        stream = iter(whole)
    findings, parts = [], []
    for k, (chunk, named) in enumerate(_chunks(stream, sources), 1):
        rel = f"{PARTS}/{k}.json"
        findings += _write(site, rel, chunk, {"generator": GENERATOR, "part": k, **named}, known)
        parts.append(rel)
    listing = [{"path": rel, "sha256": known[rel].hex()} for rel in parts]
    findings += _write(site, MANIFEST, (), {**rest, "parts": listing, "version_sources": {}}, known)
    return findings, parts


def _chunks(entries: Iterator[Entry], sources: dict[str, _Sources]) -> Iterator[tuple[list[Entry], dict[str, Any]]]:
    """The parts of a large manifest: (the files' entries it lists, its other members): the files PART_FILES at a
    time, or fewer when their entries would pass PART_BYTES (a part holds at least one), then each version's sources
    PART_SOURCES at a time."""
    chunk: list[Entry] = []
    size = 0
    for entry in entries:
        weight = entry_bytes(entry)
        if chunk and (len(chunk) == PART_FILES or size + weight > PART_BYTES):
            yield chunk, {}
            chunk, size = [], 0
        chunk.append(entry)
        size += weight
    if chunk:
        yield chunk, {}
    for version, names in sources.items():
        each = iter(names)
        while part := list(islice(each, PART_SOURCES)):
            yield [], {"version_sources": {version: part}}


def entry_bytes(entry: Entry) -> int:
    """The bytes a file's entry takes in the manifest, indented under "files" (dump_manifest), or a few more; never
    fewer unless a name holds a character JSON escapes (a quote, a backslash, a control character). Its path's line,
    the sha256 line and the closing lines take 110 bytes beside the path; a sources line 20; each source 12 beside
    its name."""
    rel, fields = entry
    sources = fields.get("sources")
    if sources is None:
        return len(rel.encode()) + 140 + len(fields["sources_of_version"].encode())
    return len(rel.encode()) + 130 + sum(len(name.encode()) + 12 for name in sources)


def _write(
    site: Path, rel: str, files: Iterable[tuple[str, Any]], rest: dict[str, Any], known: MutableMapping[str, bytes]
) -> list[Finding]:
    """Write the manifest (or a part of it) at rel, scanned by the backstop as it is written; add its SHA-256 to
    known and return what the scan found."""
    path = site / rel
    path.parent.mkdir(exist_ok=True)
    with open(path, "wb") as f:
        written = ScannedWrites(f, rel)
        dump_manifest(written, files, rest)
        written.flush()
    known[rel] = written.sha256.digest()
    return written.findings


def redaction_entries(findings: list[Finding]) -> list[dict[str, Any]]:
    """The manifest's list of what was redacted: located, never quoted. A location can itself hold the secret (a file
    name), so it is masked."""
    return [
        {"file": masked(f.file), "record": f.record and masked(f.record), "field": masked(f.field), "rule": f.rule}
        for f in findings
    ]


def dump_manifest(out: BinaryIO | ScannedWrites, files: Iterable[tuple[str, Any]], rest: dict[str, Any]) -> None:
    """Write {"files": dict(files), **rest} as orjson writes it indented with sorted keys, and a newline, a thousand
    files' entries at a time (files: (site path, entry) in sorted order, each path once). The manifest of 10,000
    transcripts lists 30,000 files (11 MB): made whole, its entries, its bytes and the buffer orjson grows them in
    were the build's peak of memory; written one entry at a time, it took twice as long. "files" sorts first of the
    manifest's keys."""
    option = orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS
    assert all(key > "files" for key in rest)
    out.write(b'{\n  "files": {')
    count = 0
    for count, piece in enumerate(object_pieces(files, option), 1):
        out.write((b"," if count > 1 else b"") + piece.replace(b"\n", b"\n  "))  # one level deeper, under "files"
    tail = orjson.dumps(rest, option=option)  # b'{' and the other keys, or b'{}' when there are none
    out.write((b"\n  }" if count else b"}") + (b"," + tail[1:] if rest else b"\n}") + b"\n")


def sources_for(release: Release, rel: str) -> list[str] | str:
    """The run files an output file was made from: a list for one transcript's files, or the "bench/version" key
    of the version's whole list (pages drawn from every run of a version name it once, not once per page)."""
    parts = rel.split("/")
    if len(parts) < 3:
        return []
    view = release.view(parts[0], parts[1])
    if view is None:
        return []
    download = run_download(rel)
    if download:
        tids = run_parts(view).get((download[3], download[2]), [])
        return sorted({name for tid in tids for name in _transcript_sources(view, tid)})
    if (parts[2] == "t" and len(parts) > 4) or (parts[2] == "data" and len(parts) > 5 and parts[3] == "t"):
        # after the folder of 256 (urls.fold): its page's folder (full layout) or file (lean), or its own download
        if parts[2] == "t":
            tid = parts[4] if len(parts) > 5 else parts[4].removesuffix(".html")
        else:
            tid = parts[5].removesuffix(".json")
        return sorted(_transcript_sources(view, tid))
    return f"{parts[0]}/{parts[1]}"


def _transcript_sources(view: VersionView, tid: str) -> set[str]:
    """The run files one transcript's page and download are made from (none for an id the version lacks)."""
    t = view.transcripts.get(tid)
    if t is None:
        return set()
    out = {t.source_file, *view.judgment_files(tid)}
    for it in t.iterations:
        out.update((it.output_file, it.grading_file) if it.grading_file else (it.output_file,))
    return out


class _Sources:
    """Every public run file of a version, in sorted order, made as they are read: a version of a million
    transcripts has a million run files, and they were a list of a million new strings sorted as the manifest was
    written. A run's files are prefixed with its path: taken run by run in the order of "<path>/" (runs are never
    one inside another), each run's files sorted, they come out in the order of the whole list sorted."""

    def __init__(self, view: VersionView) -> None:
        self.runs = sorted(view.runs.values(), key=lambda run: f"{run.path}/")

    def __len__(self) -> int:
        return sum(len(run.public_files) for run in self.runs)

    def __iter__(self) -> Iterator[str]:
        for run in self.runs:
            yield from (f"{run.path}/{name}" for name in sorted(run.public_files))
