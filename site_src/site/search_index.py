"""The search index: one Pagefind bundle per run, at /<benchmark>/<version>/search/<run_id>/ (a run of more than
PAGES_PER_BUNDLE transcripts: one per part, the later parts at .../<run_id>/<n>/), merged in the reader's browser
(Pagefind's mergeIndex) by the search page, which lists every bundle.

One bundle per run rather than one for the site keeps Pagefind's memory bounded by the largest run instead of
growing with the release (one index over 10,000 transcript pages takes over 1 GB), lets a rebuild re-index only
the runs that changed, and lets a release built in shards keep each shard's bundles as they are.
"""

from __future__ import annotations

import functools
import os
import subprocess
import tempfile
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from pagefind_bin import get_executable

from ..outdir import file_for, make_parent
from ..progress import SILENT, Progress
from ..release import Release, VersionView
from .downloads import transcript_endpoint
from .urls import fold, page_url

# the reader's search page loads Pagefind's engine and index only; its ready-made interfaces are not published
UNUSED = (
    "pagefind-ui.js",
    "pagefind-ui.css",
    "pagefind-component-ui.js",
    "pagefind-component-ui.css",
    "pagefind-modular-ui.js",
    "pagefind-modular-ui.css",
    "pagefind-highlight.js",
)


PAGES_PER_BUNDLE = 6_000  # a bundle's pages, on average: its fragment/ folder holds a file per page


def bundle_dir(bench: str, version: str, run_id: str, part: int = 1) -> str:
    """A run's bundle; a large run's later parts are folders of the first, named by their number."""
    first = f"{bench}/{version}/search/{run_id}"
    return first if part == 1 else f"{first}/{part}"


def bundle_of(rel: str) -> str | None:
    """The bundle (as bundle_dir names it) a file of the site belongs to, or None."""
    parts = rel.split("/")
    if len(parts) < 5 or parts[2] != "search":
        return None
    return "/".join(parts[:5] if len(parts) > 5 and parts[4].isdigit() else parts[:4])


def parts_of(pages: int) -> int:
    """How many bundles a run of that many transcript pages is indexed in: one up to PAGES_PER_BUNDLE, else the
    power of two that brings their mean to at most that (and at most 256). A transcript's part is then fixed by its
    id's folder of 256 (urls.fold), so it moves only when its run's number of parts doubles."""
    count = 1
    while pages > count * PAGES_PER_BUNDLE and count < 256:
        count *= 2
    return count


def bundles(release: Release, keep: Callable[[str], bool] | None = None) -> dict[str, list[str]]:
    """Bundle folder -> the transcript pages it indexes (paths in the site), for every run with transcripts (or for
    the bundles keep keeps): a bundle per run, or per part of a run of more than PAGES_PER_BUNDLE (so no bundle's
    folder of fragments holds more than about 10,000 files). The paths are made as they are asked for: a slice asks
    only for its own bundles'."""
    out = {}
    for view in release.views:
        page = page_of(view)
        for name, tids in view_bundles(view).items():
            if keep is None or keep(name):
                out[name] = [page(tid) for tid in tids]
    return dict(sorted(out.items()))


def view_bundles(view: VersionView) -> dict[str, list[str]]:
    """One version's bundles (see bundles), each with the ids of the transcripts it indexes, in the order of their
    pages' paths: worked out once per view (a build asks for them to index and to summarise the version). Ids, not
    paths: the ids are the records' own strings, where a path a transcript took about 0.13 KB of every slice."""
    return view.once(_bundles_of)


def page_of(view: VersionView) -> Callable[[str], str]:
    """A transcript's page (its path in the site) by its id."""
    endpoint, values = transcript_endpoint(view), {"bench": view.bench.id, "version": view.version.id}
    return lambda tid: file_for(page_url(endpoint, values | {"tid": tid}))


def bundle_part(folder: str, parts: int) -> int:
    """Which of its run's bundles (from 1) indexes a transcript's page, when the run is indexed in that many parts:
    fixed by the transcript's folder of 256 (urls.fold)."""
    return int(folder, 16) * parts // 256 + 1


def _bundles_of(view: VersionView) -> dict[str, list[str]]:
    b, v = view.bench.id, view.version.id
    by_run: dict[str, list[str]] = {}
    for tid, t in view.transcripts.items():
        by_run.setdefault(t.run_id, []).append(tid)
    out: dict[str, list[str]] = {}
    for run_id, tids in by_run.items():
        count = parts_of(len(tids))
        for tid in tids:
            out.setdefault(bundle_dir(b, v, run_id, bundle_part(fold(tid), count)), []).append(tid)
    page = page_of(view)
    return {name: sorted(tids, key=page) for name, tids in out.items()}


def sizes_of(view: VersionView) -> dict[str, int]:
    """A version's bundles, each with the number of pages it indexes. Worked out once per view (VersionView.once);
    a merge's views hold no transcripts: each is given its sizes by its version's summary (build/summary.py)."""
    return {name: len(pages) for name, pages in view_bundles(view).items()}


def bundle_sizes(release: Release) -> dict[str, int]:
    """Every bundle of the release (as bundles names them, in their order), with the number of pages it indexes."""
    return dict(sorted(item for view in release.views for item in view.once(sizes_of).items()))


def index_bundle(site: Path, name: str, pages: list[str], kept: Path | None = None) -> None:
    """Index pages into site/name: Pagefind reads a mirror holding only those pages (hard links, at the same
    paths, so result URLs are the site's own). A page not in site is one kept from the last build, in kept."""
    with tempfile.TemporaryDirectory(prefix=".search-", dir=site.parent) as mirror:
        made: set[Path] = set()
        for page in pages:
            target = Path(mirror) / page
            make_parent(target, made)
            os.link(site / page if kept is None or (site / page).exists() else kept / page, target)
        result = subprocess.run(  # the binary itself: no Python started to find it for each bundle
            [str(get_executable()), "--site", mirror, "--output-path", str(site / name), "--silent"],
            capture_output=True,
            text=True,
        )
    if result.returncode != 0:
        raise RuntimeError(f"search indexing of {name} failed: {result.stderr.strip() or result.stdout.strip()}")
    for unused in UNUSED:
        (site / name / unused).unlink(missing_ok=True)


@functools.cache
def engine_files(languages: frozenset[str]) -> dict[str, bytes]:
    """The script, worker and WebAssembly this machine's Pagefind writes into a bundle of pages in these languages
    (BCP 47 tags): what a shard's bundles must hold, byte for byte."""
    with tempfile.TemporaryDirectory(prefix="evalboard-pagefind-") as folder:
        site = Path(folder) / "site"
        for n, language in enumerate(sorted(languages | {"en"})):
            page = site / str(n) / "index.html"
            page.parent.mkdir(parents=True)
            page.write_text(f'<html lang="{language}"><body data-pagefind-body><p>word</p></body></html>')
        out = Path(folder) / "out"
        command = [str(get_executable()), "--site", str(site), "--output-path", str(out), "--silent"]
        subprocess.run(command, capture_output=True, check=True)
        return {p.name: p.read_bytes() for p in out.iterdir() if p.name.endswith((".js", ".pagefind"))}


def index_for_search(
    site: Path,
    todo: dict[str, list[str]],
    jobs: int | None = None,
    kept: Path | None = None,
    progress: Progress = SILENT,
) -> None:
    """Build each bundle in todo, several at once (pages not in site are read from kept, the last build); progress,
    when given, counts the bundles as they are done."""
    with ThreadPoolExecutor(max_workers=jobs or os.cpu_count() or 1) as pool:
        for future in [pool.submit(index_bundle, site, name, pages, kept) for name, pages in todo.items()]:
            future.result()
            progress.update(1)
