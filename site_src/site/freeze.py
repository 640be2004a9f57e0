"""Freezing: the Flask app's pages written into a folder, in worker processes forked from the process that holds
the scored release. What is rendered where, and what becomes of the folder, the build room decides
(site_src/build/)."""

from __future__ import annotations

import gc
import hashlib
import os
from collections.abc import Callable, Container, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from flask import url_for
from flask_frozen import Freezer
from jinja2 import BytecodeCache

from ..outdir import file_for, make_parent, site_path
from ..progress import SILENT, Progress
from ..release import Release, VersionView, paginate
from ..workers import forked
from .app import create_app, responses_per_page
from .charts import charts_for
from .downloads import is_lean, list_parts, run_parts, transcript_endpoint
from .headtohead import pair_keys
from .urls import page_url


def freeze(
    release: Release,
    dest: Path,
    *,
    base_path: str = "/",
    build_date: str | None = None,
    progress: Progress = SILENT,
    jobs: int | None = None,
    skip: Container[str] = frozenset(),
    versions: set[str] | None = None,
    site_pages: bool = True,
    in_slice: Callable[[str], bool] | None = None,
    bytecode_cache: BytecodeCache | None = None,
    scan: Scan | None = None,
    sums: dict[str, bytes] | None = None,
) -> list[str]:
    """Write every page the app answers into dest, in `jobs` worker processes (default: one per CPU), and return the
    URLs of the pages it chose (those it wrote, and those in skip).

    Frozen-Flask lists the pages (the generator below, every rule without arguments and every static file). The
    workers are forked from this process after the release is scored, so each inherits it without copying, and
    each asks the same app for its share of the pages, as the preview server asks it: the preview and the site
    cannot disagree. A page linked from another but not listed is built too, as Frozen-Flask would. A page whose
    URL is in skip is not rendered (the caller has its bytes).

    versions ("bench/version" names, default all) and site_pages choose the pages: a shard renders one version's
    pages and no site-wide ones; a merge renders the site-wide pages only (see docs/scale.md). in_slice, given a
    page's site path: of those version pages, only the slice's (slicing.Slicer.within).

    Given scan, each worker calls it on each file it writes, while it holds the bytes, and what it finds is added to
    scan's list (scan.found). Given a sums dict, each worker adds the SHA-256 of each file it writes (by site path).

    Every template is compiled here, before the workers fork, so none of them compiles it again; with
    bytecode_cache, compiled templates are kept there for the next build (Jinja2 checks their source).
    """
    app = create_app(release, base_path=base_path, build_date=build_date)
    app.config.update(FREEZER_DESTINATION=str(dest), FREEZER_STATIC_IGNORE=[])
    if bytecode_cache is not None:
        app.jinja_env.bytecode_cache = bytecode_cache
    for name in app.jinja_env.list_templates(filter_func=lambda name: name.endswith(".html")):
        app.jinja_env.get_template(name)
    freezer = Freezer(app, with_no_argument_rules=site_pages, with_static_files=site_pages, log_url_for=False)
    chosen = chosen_views(release, versions)
    prefixes = tuple(f"/{v.folder}/" for v in release.views)
    mine = tuple(f"/{v.folder}/" for v in chosen)

    def in_scope(url: str) -> bool:
        if not url.startswith(prefixes):
            return site_pages
        return url.startswith(mine) and (in_slice is None or in_slice(file_for(unquote(url))))

    # a page skipped is not listed at all: Frozen-Flask would spend as long on its URL as on those of the few pages a
    # rebuild renders
    built = {url for url in skip if in_scope(url)}  # type: ignore[attr-defined]

    @freezer.register_generator
    def pages():  # every page is listed explicitly, linked or not
        if site_pages:
            yield "not_found", {}
            yield "index_json", {}
            yield "search", {}
            for bench, _ in release.benchmarks():
                yield "benchmark", {"bench": bench.id}
                if release.changes:
                    yield "changes", {"bench": bench.id}
        for view in chosen:
            yield from version_pages(view, built)

    urls = [site_path(u) for u in dict.fromkeys(freezer.all_urls()) if in_scope(u) and u not in built]
    progress.reset(total=len(urls))
    while urls:
        built.update(urls)
        linked = render_urls(app, dest, urls, jobs, progress.update, scan, sums, listed=built)
        urls = sorted(u for u in linked if in_scope(u))  # linked but not listed: build those too
    return sorted(built)


class Scan:
    """What a build runs on every file as it is written (its backstop secret scan): call(rel, data) -> findings,
    which are gathered in found."""

    def __init__(self, call: Callable[[str, bytes], list[Any]]) -> None:
        self.call = call
        self.found: list[Any] = []


def chosen_views(release: Release, versions: set[str] | None) -> list[VersionView]:
    """The versions whose pages a build renders: those named ("bench/version"), or all."""
    return [v for v in release.views if versions is None or v.folder in versions]


def render_urls(
    app: Any,
    dest: Path,
    urls: list[str],
    jobs: int | None = None,
    done: Callable[[int], Any] = lambda n: None,
    scan: Scan | None = None,
    sums: dict[str, bytes] | None = None,
    listed: Container[str] = frozenset(),
) -> set[str]:
    """Fetch each URL from the app and write it under dest, in forked workers; return the URLs pages linked to,
    but for those in listed (the workers leave them out: a site's pages link to nearly every page of it).
    Given a scan, each written file is scanned too, and what it finds is added to scan.found; given a sums dict,
    the SHA-256 of each file written is added to it, by site path (as its 32 bytes, like every digest a build holds:
    as hex, each took 48 bytes more, three files a transcript)."""
    jobs = jobs or os.cpu_count() or 1
    size = max(1, min(CHUNK, -(-len(urls) // (2 * jobs))))  # a few pages (a rebuild) are still shared out
    chunks = [urls[i : i + size] for i in range(0, len(urls), size)]
    jobs = min(jobs, len(chunks))
    linked: set[str] = set()
    global _WORK
    # inherited by the forked workers; the set: folders made or found (a lean version's pages share 256 folders,
    # and a page in one made before needs no mkdir call), each worker's its own
    _WORK = (app, dest, scan.call if scan else None, sums is not None, listed, set())
    sums = {} if sums is None else sums
    collecting = gc.isenabled()
    gc.freeze()  # the release is read-only from here: keep the collector from touching (and so copying) it
    gc.enable()  # rendering makes and drops objects page after page: collected, in each worker, as usual
    try:
        # one job renders here, in this process; more, in a pool of forked workers
        with forked(jobs) as pool:
            results = pool.imap_unordered(_render_chunk, chunks) if pool else map(_render_chunk, chunks)
            for count, seen, found, hashed in results:
                linked |= seen
                if scan:
                    scan.found += found
                sums.update((site_path(rel), digest) for rel, digest in hashed.items())  # unshared by the pipe
                done(count)
    finally:
        _WORK = None
        gc.unfreeze()
        if not collecting:
            gc.disable()
    return linked


CHUNK = 100  # pages per task: small enough to balance two workers, large enough to keep the queue cheap
_WORK: tuple[Any, Path, Callable[[str, bytes], list[Any]] | None, bool, Container[str], set[Path]] | None = None


def _render_chunk(urls: list[str]) -> tuple[int, set[str], list[Any], dict[str, bytes]]:
    """In a worker: fetch each page from the app, write it where a static server will find it, scan what it wrote
    and hash it while the bytes are at hand, and return the site-internal links the pages asked url_for for."""
    assert _WORK is not None
    app, dest, scan, hash_them, listed, made = _WORK
    found: list[Any] = []
    hashed: dict[str, bytes] = {}
    seen: list[tuple[str, dict[str, Any]]] = []
    app.config["LINK_LOG"] = seen
    for url in urls:
        # the request a browser would make, dispatched by the app as the preview server dispatches it (routing,
        # view, error handlers, after-request hooks), without the test client's WSGI round trip
        with app.test_request_context(url):
            response = app.full_dispatch_request()
        if response.status_code != 200:
            raise ValueError(f"Unexpected status {response.status!r} on URL {url}")
        rel = file_for(url)
        path = dest / rel
        make_parent(path, made)
        response.direct_passthrough = False  # a static file's response streams it: read it whole
        data = response.get_data()
        path.write_bytes(data)
        response.close()
        if scan:
            found += scan(rel, data)
        if hash_them:
            hashed[rel] = hashlib.sha256(data).digest()
    app.config["LINK_LOG"] = None
    with app.test_request_context():
        linked = {unquote(url_for(endpoint, **values)) for endpoint, values in seen}
    return len(urls), {url for url in linked if url not in listed}, found, hashed


def version_pages(view: VersionView, skip: Container[str] = frozenset()) -> Iterator[tuple[str, dict[str, Any]]]:
    """(endpoint, values) of every page of one benchmark version, but those with a key whose URL is in skip."""
    for endpoint, values in _version_pages(view):
        if not skip or page_url(endpoint, values) not in skip:
            yield endpoint, values


def _version_pages(view: VersionView) -> Iterator[tuple[str, dict[str, Any]]]:
    b, v = view.bench.id, view.version.id
    for endpoint in (
        "leaderboard",
        "breakdown",
        "methodology",
        "limitations",
        "leaderboard_json",
        "leaderboard_csv",
        "statistics_json",
        "transcripts_json",
        "items_json",
    ):
        yield endpoint, {"bench": b, "version": v}
    _, item_list_pages = paginate(view.version.items, 1)
    for n in range(1, item_list_pages + 1):
        yield "items", {"bench": b, "version": v, "number": n}
    for endpoint in ("judges", "calibration"):
        if view.declares(endpoint) and view.judge_reports:
            yield endpoint, {"bench": b, "version": v}
    if view.stats and view.stats.separation:
        yield "pairs", {"bench": b, "version": v}
    for a_key, b_key in view.once(pair_keys):
        yield "versus", {"bench": b, "version": v, "a": a_key, "b": b_key}
    if view.judge_reports:
        yield "judges_json", {"bench": b, "version": v}
    for n in range(1, list_parts(view) + 1):
        yield "transcripts_part_json", {"bench": b, "version": v, "number": n}
    _, pages_count = paginate(list(view.transcripts), 1)
    for n in range(1, pages_count + 1):
        yield "transcripts", {"bench": b, "version": v, "number": n}
    for entrant_id in view.entrants:
        _, entrant_pages = paginate(view.by_entrant.get(entrant_id, []), 1)
        for n in range(1, entrant_pages + 1):
            yield "entrant", {"bench": b, "version": v, "entrant_id": entrant_id, "number": n}
    for item_id, cards in view.by_item.items():
        _, item_pages = paginate(cards, 1, responses_per_page(view))
        for n in range(1, item_pages + 1):
            yield "item", {"bench": b, "version": v, "item_id": item_id, "number": n}
    lean, page = is_lean(view), transcript_endpoint(view)
    for tid in view.transcripts:
        yield page, {"bench": b, "version": v, "tid": tid}
        if not lean:
            yield "transcript_json", {"bench": b, "version": v, "tid": tid}
    for run_id, folder in run_parts(view) if lean else ():
        yield "transcripts_jsonl", {"bench": b, "version": v, "folder": folder, "run": run_id}
    for chart in view.once(charts_for):  # whatever charts the version's system draws
        for endpoint in ("chart_svg", "chart_spec", "chart_csv"):
            yield endpoint, {"bench": b, "version": v, "name": chart.name}
