"""The manifest phase: publish-manifest.json lists every published file with its SHA-256 and the run files it was
made from, and every redaction made (located, never quoted). The output folder's own checks read it back
(outdir.py): a folder is replaced only when its manifest lists every file in it."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator, Mapping, MutableMapping
from pathlib import Path
from typing import Any, BinaryIO

import orjson

from .. import GENERATOR
from ..jsonio import object_pieces
from ..outdir import MANIFEST
from ..release import Release
from ..secretrules import masked
from ..secretscan import Finding
from ..site.urls import LAYOUT
from .scanning import ScannedWrites


def write_manifest(
    site: Path,
    listed: list[str],
    release: Release,
    redactions: list[dict[str, Any]],
    known: MutableMapping[str, bytes] | None = None,
    shard: dict[str, Any] | None = None,
    taken: Mapping[str, Any] | None = None,
) -> list[Finding]:
    """Every published file (listed, site paths) with its SHA-256 and the run files it came from, and every
    redaction made (redaction_entries). A file a merge took from a shard (taken: site path -> merge.ShardFile) names
    the sources its shard's manifest names. known holds the SHA-256 of files whose bytes are known (kept from the
    last build and checked, or hashed by the render workers as they wrote them); any other is read from site, and
    its SHA-256 is added to known (so known then holds every listed file's, without a dict made of them all). A file
    kept from the last build names its sources as a full build would (they take about 2 microseconds a file to work
    out). A shard's manifest also names the versions it holds, each with the key of the inputs it was built from and
    its summary (summary.py). The manifest's own SHA-256 is added to known too. Returns what the backstop found in
    the manifest."""
    known = {} if known is None else known

    def entries() -> Iterator[tuple[str, dict[str, Any]]]:  # made as they are written: none is kept
        for rel in sorted(set(listed)):
            sources = taken[rel].sources if taken and rel in taken else sources_for(release, rel)
            digest = known.get(rel)
            if digest is None:
                digest = known[rel] = hashlib.sha256((site / rel).read_bytes()).digest()
            yield (
                rel,
                {"sha256": digest.hex(), "sources_of_version" if isinstance(sources, str) else "sources": sources},
            )

    rest = {
        "generator": GENERATOR,
        "manifest_version": 2,
        "site_layout": LAYOUT,
        "version_sources": version_sources(release),
        **({"shard": shard} if shard else {}),
        "redactions": redactions,
    }
    with open(site / MANIFEST, "wb") as f:
        written = ScannedWrites(f, MANIFEST)  # the backstop scans it as it is written
        dump_manifest(written, entries(), rest)
        written.flush()
    known[MANIFEST] = written.sha256.digest()
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
    if (parts[2] == "t" and len(parts) > 4) or (parts[2] == "data" and len(parts) > 5 and parts[3] == "t"):
        tid = parts[4] if parts[2] == "t" else parts[5].removesuffix(".json")  # after the folder of 256 (urls.fold)
        t = view.transcripts.get(tid)
        if t is None:
            return []
        out = {t.source_file, *view.judgment_files(tid)}
        for it in t.iterations:
            out.update((it.output_file, it.grading_file) if it.grading_file else (it.output_file,))
        return sorted(out)
    return f"{parts[0]}/{parts[1]}"


def version_sources(release: Release) -> dict[str, list[str]]:
    """Every public run file of each version, by "bench/version"."""
    return {
        view.folder: sorted(f"{run.path}/{f}" for run in view.runs.values() for f in run.public_files)
        for view in release.views
    }
