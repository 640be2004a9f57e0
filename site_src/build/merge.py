"""`build.py merge`: shards are untrusted input, and a merge reads no run.

A shard is a folder another build wrote with --only (on another runner, say) and that reached this one as an
artifact: anything in it may have been changed on the way. So a merge takes from a shard only what a shard build
of that version writes, under names it checks (here), each file read through no link, checked against the shard's
manifest, and scanned for secrets by the same backstop as a build's own files (taking.py). Pagefind's engine (its
script, its worker and its WebAssembly) must be byte for byte what this machine's Pagefind writes.

What a merge knows of each version comes from its shards' summaries (summary.py), which every slice of a version
must give alike: the site-wide pages are made from them, and they say which pages the version has. The merge checks
that the shards were built from its own inputs by the keys of their files (build/cache.py), not by reading them.
"""

from __future__ import annotations

import functools
import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson
from werkzeug.exceptions import HTTPException
from werkzeug.routing import MapAdapter

from ..model import Benchmark
from ..outdir import MANIFEST, manifest_parts, read_part, url_of
from ..problems import Problems
from ..release import Release, VersionView
from ..results import plural
from ..site.app import create_app
from ..site.downloads import is_lean
from ..site.search_index import bundle_of, sizes_of
from ..site.slicing import Slicer
from ..site.urls import fold, run_download
from ..validate import check
from .shard_files import Row, ShardFiles
from .summary import PagesDigest, SummaryError, view_of

NAME = r"[A-Za-z0-9._~-]+"  # one segment of a site path a build writes
# a relative path of such segments, none of them "." or "..": one match a file (a merge checks every file it lists)
PLAIN_PATH = re.compile(rf"(?!(?:.*/)?\.\.?(?:/|\Z)){NAME}(?:/{NAME})*")
SEARCH_FILE = re.compile(  # what Pagefind writes into a bundle, less the interfaces a build deletes
    r"pagefind-entry\.json|pagefind\.js|pagefind-worker\.js|pagefind\.[a-z0-9_-]+\.pf_meta|wasm\.[a-z0-9_-]+\.pagefind"
    r"|(?:fragment|index|filter)/[a-z0-9_-]+\.pf_(?:fragment|index|filter)"
)
PART = re.compile(r"(?:[2-9]|[1-9][0-9]{1,2})/")  # a later part's folder within a run's bundle (search_index.parts_of)
MAX_MANIFEST = 1 << 30
HEX64 = re.compile(r"[0-9a-f]{64}")
# a transcript's page (full layout: a folder's index; lean: a file) or own download, in a version's folder
TRANSCRIPT_FILE = re.compile(r"t/[0-9a-f]{2}/(?:[^/]+/index|(?P<lean>[^/]+))\.html|data/t/[0-9a-f]{2}/[^/]+\.json")


@dataclass
class Held:
    """One version as the shards hold it: whole (slice 0 of 1) or in slices of one count."""

    count: int
    key: str  # of the inputs its shards were built from
    summary: bytes  # the SHA-256 of its summary (sorted keys), which every shard of it must give alike
    pages: Any  # what its summary says of its pages: their count and digest (summary.pages_digest)
    shards: dict[int, Path] = field(default_factory=dict)  # slice -> shard (0: the version whole)


@dataclass
class Gathered:
    """What the shards give a merge: their files, each version as its summary gives it, and the redactions they
    list; or why they cannot make the release."""

    files: ShardFiles = field(default_factory=ShardFiles)
    pages: dict[str, PagesDigest] = field(default_factory=dict)  # version -> the digest of its pages listed
    views: dict[str, VersionView] = field(default_factory=dict)
    held: dict[str, Held] = field(default_factory=dict)
    redactions: list[Any] | None = None
    problem: str | None = None


def confined(rel: object) -> str | None:
    """Why a site path listed by a shard is not one a build writes, or None: a relative POSIX path of plain names,
    with no empty, "." or ".." segment."""
    if not isinstance(rel, str) or not rel or len(rel) > 1024:
        return "is not a file name"
    return None if PLAIN_PATH.fullmatch(rel) else "is not a plain relative path inside the site"


def gather(shards: list[Path], benchmarks: list[Benchmark]) -> Gathered:
    """Each version's files from the shard that holds it, or from every slice of one count, with its summary
    (summary.py); the benchmarks are content/'s. A shard lists nothing but its version's pages and search bundles
    (of its slice), and the shards of a version list every page of it once."""
    got = Gathered()
    for folder in shards:
        got.problem = _take_listing(folder, {b.id: b for b in benchmarks}, got)
        if got.problem:
            return got
    got.problem = _listed_twice(got) or _uncovered(got.held) or _every_page(got)
    return got


def _take_listing(folder: Path, benchmarks: dict[str, Benchmark], got: Gathered) -> str | None:
    manifest, parts, problem = _manifest(folder)
    if problem:
        return problem
    part = _part(manifest)
    for name, key in manifest["shard"]["versions"].items():
        summary = manifest["shard"]["summaries"].get(name)
        problem = _claim(got.held, name, folder, part, key, summary) or _summary(folder, name, summary, benchmarks, got)
        if problem:
            return problem
    if got.redactions is None:
        got.redactions = manifest["redactions"]
    elif manifest["redactions"] != got.redactions:
        return f"shard {folder} lists other redactions than {next(iter(got.held.values())).shards}; rebuild the shards"
    # a part at a time, none held past its turn: a slice of a million transcripts lists about 140,000 files, and
    # a part of 10,000 entries takes about 44 MB as it is parsed
    for piece in [None, *parts]:
        problem = _take_piece(folder, manifest, piece, got, part)
        if problem:
            return problem
    return None


def _take_piece(
    folder: Path, manifest: dict[str, Any], piece: tuple[str, bytes] | None, got: Gathered, part: tuple[int, int] | None
) -> str | None:
    """Take the files a shard's manifest lists itself (piece None) or in one of its parts (_files_in), or say why
    not. What was parsed is let go on return, before the next part is read."""
    files = _files_in(folder, manifest, piece)
    return files if isinstance(files, str) else _listed(folder, manifest["shard"]["versions"], files, got, part)


def _part(manifest: dict[str, Any]) -> tuple[int, int] | None:
    part = manifest["shard"].get("slice")
    return (part[0], part[1]) if part else None


def _claim(
    held: dict[str, Held], name: str, folder: Path, part: tuple[int, int] | None, key: str, summary: Any
) -> str | None:
    """Note that folder holds name (or one slice of it), or say why two shards cannot both hold it, or why its slices
    do not agree."""
    k, n = part or (0, 1)
    # its digest, not the dump: a summary takes about 8 MB at 100,000 transcripts
    digest = hashlib.sha256(orjson.dumps(summary, option=orjson.OPT_SORT_KEYS)).digest()
    version = held.setdefault(name, Held(n, key, digest, summary.get("pages") if isinstance(summary, dict) else None))
    if version.shards and (0 in version.shards or not k or version.count != n or k in version.shards):
        other = next(iter(version.shards.values()))
        counted = " (not slices of one count)" if k and version.count != n else ""
        return f"{name} is in two shards, {other} and {folder}{counted}"
    if (version.key, version.summary) != (key, digest):
        other = next(iter(version.shards.values()))
        return f"shards {other} and {folder} built {name} from other inputs, code or options; rebuild them"
    version.shards[k] = folder
    return None


def _summary(folder: Path, name: str, summary: Any, benchmarks: dict[str, Benchmark], got: Gathered) -> str | None:
    """The version as the shard's summary gives it (once per version: its slices give the same), or why not."""
    if name in got.views:
        return None
    bench_id, _, version_id = name.partition("/")
    if bench_id not in benchmarks:
        return f"shard {folder} holds {name}, whose benchmark content/ does not define"
    try:
        got.views[name] = view_of(summary, benchmarks[bench_id], version_id)
    except SummaryError as exc:
        return f"shard {folder}: the summary of {name} {exc}; rebuild that shard"
    return None


def _uncovered(held: dict[str, Held]) -> str | None:
    """Why the shards do not hold every slice of each version they hold, or None."""
    for name, version in sorted(held.items()):
        lacking = [k for k in range(1, version.count + 1) if k not in version.shards] if 0 not in version.shards else []
        if lacking:
            return f"no shard holds slice {lacking[0]}/{version.count} of {name}"
    return None


def inputs_problem(got: Gathered, keys: dict[str, str], runs: list[str]) -> str | None:
    """Why the shards were not built from this merge's inputs: keys ("bench/version" -> the key of the inputs this
    merge reads, for the runs the summaries name) and runs (every run folder among its inputs), or None."""
    for name, version in got.held.items():
        if keys.get(name) != version.key:
            return (
                f"shard {next(iter(version.shards.values()))} built {name} from other inputs, code or options than "
                "this merge reads; rebuild that shard"
            )
    named = {run.path for view in got.views.values() for run in view.runs.values()}
    missing = [rel for rel in runs if rel not in named]
    if missing:
        return f"no shard holds the run in {missing[0]}: merge the shards of every version that has runs"
    return None


def _manifest(folder: Path) -> tuple[dict[str, Any], list[tuple[str, bytes]], str | None]:
    """A shard's manifest, in the shape a shard build writes (its shard entry: schemas/shard.schema.json), with the
    parts it names (site path, SHA-256), or why it is not one. The files it lists in its parts are read later, a part
    at a time (_files_in)."""
    not_shard = _not_a_shard(folder)
    path = folder / MANIFEST
    try:
        if path.is_symlink() or not path.is_file() or path.stat().st_size > MAX_MANIFEST:
            return {}, [], not_shard
        manifest = orjson.loads(path.read_bytes())
        shard, listed, redactions = manifest["shard"], manifest["files"], manifest["redactions"]
    except (OSError, ValueError, KeyError, TypeError):
        return {}, [], not_shard
    parts = manifest_parts(manifest)
    if parts is None:
        return {}, [], _bad_part(folder)
    problems = Problems()
    if not check(shard, "shard", str(path), None, problems):
        wrong = problems.errors[0]
        return {}, [], f"{path}, field shard.{wrong.field or ''}: {wrong.message}; rebuild that shard"
    versions_summarised = set(shard["summaries"]) == set(shard["versions"])
    if not isinstance(listed, dict) or not isinstance(redactions, list) or not versions_summarised:
        return {}, [], not_shard
    return manifest, parts, None


def _not_a_shard(folder: Path) -> str:
    return f"{folder} is not a shard (its {MANIFEST} names no shard versions; build one with --only)"


def _bad_part(folder: Path) -> str:
    return f"{folder / MANIFEST} names a part of it that is missing or not the bytes it names; rebuild that shard"


def _files_in(folder: Path, manifest: dict[str, Any], part: tuple[str, bytes] | None) -> dict[str, Any] | str:
    """The files a shard's manifest lists itself (part None) or in one of its parts (its site path and SHA-256:
    manifest.write_manifest), site path -> entry, each entry shaped as a build writes it; or why not. A part is read
    through no link and checked against the SHA-256 the manifest gives it."""
    files: Any = manifest["files"]
    if part:
        data = read_part(folder, *part)
        if data is None:
            return _bad_part(folder)
        try:
            files = orjson.loads(data)["files"]
        except (ValueError, KeyError, TypeError):
            files = None
    if not isinstance(files, dict) or not all(_entry(e) for e in files.values()):
        return _not_a_shard(folder)
    return files


def _entry(entry: Any) -> bool:
    """Whether a manifest's entry for a file is shaped as a build writes it: its SHA-256 and its sources."""
    if not isinstance(entry, dict) or not isinstance(entry.get("sha256"), str) or not HEX64.fullmatch(entry["sha256"]):
        return False
    sources = entry.get("sources", entry.get("sources_of_version"))
    return isinstance(sources, str) or (isinstance(sources, list) and all(isinstance(s, str) for s in sources))


def _listed(
    folder: Path, versions: dict[str, str], files: dict[str, Any], got: Gathered, part: tuple[int, int] | None
) -> str | None:
    """Add files a shard lists (site path -> entry) to got.files, or say which one no shard build of its versions
    writes (or no build of its slice). Which are listed twice, _listed_twice says once every shard is read."""
    held = tuple(f"{name}/" for name in versions)
    rows: list[Row] = []
    for rel, entry in files.items():
        why = confined(rel)
        if why:
            return f"shard {folder} lists {rel!r}, which {why}; nothing was taken from it"
        if not rel.startswith(held):
            return f"shard {folder} lists {rel}, outside the versions it holds; nothing was taken from it"
        name, bundle = "/".join(rel.split("/", 2)[:2]), bundle_of(rel)
        if not _written(rel, bundle, got.views[name], part):
            whose = f"slice {part[0]}/{part[1]} of {name}" if part else f"shard build of {name}"
            return f"shard {folder} lists {rel}, which no {whose} writes; nothing was taken from it"
        sources = entry.get("sources", entry.get("sources_of_version"))
        rows.append((rel, bytes.fromhex(entry["sha256"]), sources, name if bundle is None else None))
    got.files.add(folder, rows)
    return None


def _listed_twice(got: Gathered) -> str | None:
    """Which file a shard lists twice, or two shards both list, or None; meanwhile, the digest of each version's
    pages listed (got.pages), which needs them in path order too."""
    last, last_shard = None, -1
    for rel, block, i in got.files.in_order():
        if rel == last:
            first, second = got.files.shards[last_shard], got.files.shards[block.shard]
            if first == second:
                return f"{first / MANIFEST} lists {rel} twice; rebuild that shard"
            return f"{rel} is listed by two shards, {first} and {second}; rebuild them"
        last, last_shard = rel, block.shard
        if block.versions[i]:
            name = got.files.versions[block.versions[i] - 1]
            got.pages.setdefault(name, PagesDigest()).add(rel)
    return None


def _written(rel: str, bundle: str | None, view: VersionView, part: tuple[int, int] | None) -> bool:
    """Whether a build of the version (of that slice) writes a file at rel (of that search bundle, or None): one of
    its search bundles' files, or one of its pages. A transcript's page and download (or the lean layout's download
    of a run's transcripts in one folder) may lie in any slice: its bundle is not known here."""
    inside = rel[len(view.folder) + 1 :]
    if bundle is not None:
        sizes = view.once(sizes_of)
        return _search_file(inside, bundle, sizes) and (part is None or _slicer(view).of(bundle, part[1]) == part[0])
    lean = is_lean(view)
    download = run_download(rel)
    if download:  # its folder is not checked: the merge has no transcripts to tell which folders a run has
        return lean and download[3] in view.runs
    transcript = TRANSCRIPT_FILE.fullmatch(inside)
    if transcript:
        if inside.startswith("t/"):  # its page: a file in the lean layout, a folder's index in the full one
            tid, folder = transcript["lean"] or inside.split("/")[-2], inside.split("/")[1]
            return lean == bool(transcript["lean"]) and folder == fold(tid)
        tid, folder = inside.rsplit("/", 1)[-1].removesuffix(".json"), inside.split("/")[2]  # its own download
        return not lean and folder == fold(tid)
    return _routed(rel, view) and (part is None or _slicer(view).of(rel, part[1]) == part[0])


def _search_file(inside: str, bundle: str, sizes: dict[str, int]) -> bool:
    """Whether a file of a bundle (inside: its path in the version's folder) is one Pagefind writes, in one of the
    version's bundles (search/<run>/ or search/<run>/<n>/ for a later part of a large run's)."""
    rest = inside.split("/", 2)[2]
    part = PART.match(rest)
    return bundle in sizes and bool(SEARCH_FILE.fullmatch(rest[part.end() :] if part else rest))


def _routed(rel: str, view: VersionView) -> bool:
    """Whether the app answers the URL of a file at rel with one of the version's pages."""
    try:
        endpoint, values = _routes().match(url_of(rel))
    except HTTPException:
        return False
    return endpoint != "static" and (values.get("bench"), values.get("version")) == view.key


@functools.cache
def _routes() -> MapAdapter:
    return create_app(Release([], [], False)).url_map.bind("site")


def _slicer(view: VersionView) -> Slicer:
    return view.once(_slicer_of)


def _slicer_of(view: VersionView) -> Slicer:
    return Slicer(Release([view], [], False))  # each version's bundles are dealt on their own


def _every_page(got: Gathered) -> str | None:
    """Why the shards of a version do not list every page and download of it (those its summary counts), or None."""
    for name, version in got.held.items():
        made, want = got.pages.get(name, PagesDigest()).result(), version.pages
        if made != want:
            shards = sorted(version.shards.values())
            one = len(shards) == 1
            whose = f"shard {shards[0]}" if one else f"the {len(shards)} slices of {name}"
            count = want.get("count") if isinstance(want, dict) else None
            if isinstance(count, int) and made["count"] < count:
                lacking = plural(count - made["count"], "page")
                return f"{whose} {'lacks' if one else 'lack'} {lacking} of the {count:,} {name} has; rebuild them"
            return f"{whose} {'lists' if one else 'list'} pages other than those of {name}; rebuild them"
    return None


def release_of(got: Gathered, benchmarks: list[Benchmark]) -> Release:
    """The release as the shards' summaries give it: its versions in content/'s order, as a build orders them
    (scoring/release.py), none holding a transcript."""
    order = [f"{bench.id}/{version.id}" for bench in benchmarks for version in bench.versions]
    views = [got.views[name] for name in order if name in got.views]
    return Release(views, [], any(view.version.demo for view in views))
