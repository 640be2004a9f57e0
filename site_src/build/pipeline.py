"""The build, phase by phase. build() is the whole of it:

    read -> score -> scan -> render -> index -> manifest -> put in place

A merge (build.py merge, merged()) reads the shards instead of the runs, and renders only the site-wide pages:

    read content/ and the shards' summaries -> render -> take the shards' files -> manifest -> put in place

Each phase is a function below, given what it needs and giving what the next needs. The build cache is asked at
the edges only: as the runs are read (reading.py), as the pages to render are chosen and the search bundles to make
again (render, index), and it is written once the site is in place.
"""

from __future__ import annotations

import gc
import sys
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from itertools import chain
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..hosts import HOSTS, Measure, exceeded, summary
from ..outdir import MANIFEST, Listing, file_for, files_below, output_problem, unlisted_problem
from ..progress import bar
from ..results import plural
from . import report
from .cache import BuildCache
from .config import BuildConfig
from .manifest import write_manifest
from .output import NewSite, earlier_site_problem, put_in_place, refusal
from .reading import Read, read
from .scanning import clean_runs, scan_output, scan_release, scan_written

if TYPE_CHECKING:  # what only a build that renders loads (Flask, Altair): one with nothing changed answers before
    from ..model import Project
    from ..release import Release
    from ..secretscan import Finding
    from .shard_files import ShardFiles


def build(config: BuildConfig) -> int:
    """Build the site into config.out (with config.shards: merge those): 0 once it is in place, 1 when the build is
    refused, and then nothing is written, the cache included."""
    with collector_paused(), ExitStack() as scope:
        timer = report.Timer()
        refused = refusal(config)
        if refused:
            return report.refused(refused)
        cache = open_cache(config, scope)
        if config.shards:
            return merged(config, cache, scope, timer)
        if cache.up_to_date():
            if not config.quiet:
                print(f"{config.out} is up to date: no input, option or code changed since the last build")
            return hosted(config, Measure.of_folder(config.out)) if config.host else 0
        got, unlisted = read_phase(config, cache, scope)
        timer.done("read")
        if unlisted or got is None:
            return report.refused(unlisted or "")
        if report.problems(got.project, config.strict):
            print("nothing was written", file=sys.stderr)
            return 1
        return publish(got, config, cache, scope, timer)


def build_site(project: Project, out: Path, **options: Any) -> int:
    """Build the site of a project already read (by a test or a tool), with no cache: the phases after the read."""
    config = BuildConfig(out=out, **options)
    refused = output_problem(out, MANIFEST, project.inputs()) or earlier_site_problem(config)
    if refused:
        return report.refused(refused)
    with collector_paused(), ExitStack() as scope:
        return publish(Read(project, set()), config, None, scope, report.Timer())


def publish(got: Read, config: BuildConfig, cache: BuildCache | None, scope: ExitStack, timer: report.Timer) -> int:
    """score -> scan -> render -> index -> manifest -> put in place."""
    gc.freeze()  # what was read lives until the end: spare it the collector's full passes
    scope.callback(gc.unfreeze)
    release = score(got.project, timer)
    plan = plan_pages(release, config)
    if plan.problem:
        return report.refused(plan.problem)
    findings = scan(release, plan, config, cache, got.scanned_clean, timer)
    refused = [f for f in findings if f.blocking or not config.redact_secrets]
    if refused:
        return report.secrets_refused(refused, config.redact_secrets)
    if config.previous:  # compared as this build publishes the release: scanned, redacted
        from .changes import add_changes

        add_changes(release, config.previous)
    clean = clean_runs(release, findings) - plan.scanned_elsewhere
    return publish_scanned(release, plan, findings, clean, config, cache, scope, timer)


def merged(config: BuildConfig, cache: BuildCache, scope: ExitStack, timer: report.Timer) -> int:
    """build.py merge: the site-wide pages made from the versions' summaries in the shards, every other file taken
    from the shards. No run is read, scored or scanned: each shard's build did that (see merge.py)."""
    from ..problems import Problems
    from ..readers.project import find_runs, start_project
    from . import merge

    unlisted = unlisted_problem(config.out, MANIFEST, cache.output_files())
    if unlisted:
        return report.refused(unlisted)
    project = start_project(config.content, config.runs, Problems())  # the benchmarks' definitions, no run
    if report.problems(project, config.strict):
        print("nothing was written", file=sys.stderr)
        return 1
    got = merge.gather(config.shards, project.benchmarks)
    release = merge.release_of(got, project.benchmarks)
    if not got.problem:
        runs = [found.rel for found in find_runs(config.runs, project.problems)]
        got.problem = merge.inputs_problem(got, cache.version_keys(release), runs)
    timer.done("read")
    if got.problem:
        return report.refused(f"{got.problem}; nothing was written")
    plan = Plan(versions=set(), shard_files=got.files, redactions=got.redactions)
    return publish_scanned(release, plan, [], set(), config, cache, scope, timer)  # it scanned no run: none is clean


def publish_scanned(
    release: Release,
    plan: Plan,
    findings: list[Finding],
    clean: set[tuple[str, str, str]],
    config: BuildConfig,
    cache: BuildCache | None,
    scope: ExitStack,
    timer: report.Timer,
) -> int:
    """render -> index -> manifest -> put in place, for a release scanned (findings: what was redacted; clean: the
    runs scanned with no finding, which the next build need not scan again)."""
    site = NewSite.beside(config.out.resolve(), scope, cache.known if cache else {})
    problem = render(release, plan, config, cache, site, timer)
    if problem:
        return report.refused(f"{problem}; nothing was written")
    if config.search and not site.leaked:
        index(release, plan, config, cache, site, timer)
    if not site.leaked:
        manifest(release, plan, config, cache, site, findings, timer)
    if site.leaked:  # a backstop: the release scan should have caught these
        return site.refuse(site.leaked)
    full = [bench.id for bench, _ in release.benchmarks() if bench.layout == "full"]
    if config.host and hosted(config, Measure.of(site.sizes(config.out.resolve())), full):
        return 1
    put_in_place(site, config.out.resolve(), cache)
    if cache:
        keys = {} if config.shards else site.keys  # a merge renders none of the pages that have keys
        cache.save(keys, site.bundle_keys, release, clean, chain(site.listed, [MANIFEST]),
                   site.sums[MANIFEST], site.drawings, made_specs())  # fmt: skip
    timer.done("put in place")
    report.built(config, site, release, findings, timer)
    return 0


def hosted(config: BuildConfig, measure: Measure, full: list[str] | None = None) -> int:
    """0 when the site fits the host config.host names (or none is named), else 1, with what exceeds which limit;
    and, when the site's size or files do, which benchmarks of it (full: those in the full layout) could be lean."""
    if not config.host:
        return 0
    host = HOSTS[config.host]
    over = exceeded(host, measure)
    if over:
        for line in over:
            print(f"error: {line}", file=sys.stderr)
        print(f"the site does not fit {host.title} ({host.documented}); nothing was published", file=sys.stderr)
        if full and any(line.startswith(("site size", "files")) for line in over):
            print(f"note: {', '.join(full)} could say layout: lean in benchmark.yaml: one download per run and folder "
                  "of 256, item pages without the texts (docs/site-layout.md)", file=sys.stderr)  # fmt: skip
        return 1
    if not config.quiet:
        print(summary(host, measure))
    return 0


@contextmanager
def collector_paused() -> Iterator[None]:
    """Python's cycle collector off while a build reads and scores (the render workers turn it back on): what a
    build reads lives until it ends, and the collector's passes over it took 0.4-0.7 s of a rebuild at 10,000
    transcripts, to free about a thousand objects."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()


def open_cache(config: BuildConfig, scope: ExitStack) -> BuildCache:
    """The keys of this build and what the last one into config.out recorded. The output folder is listed by a
    process of its own while the runs are read; what this build stages for the cache goes unless it is put in place."""
    listing = Listing(config.out)
    scope.callback(listing.close)
    fresh = bool(config.shards) or config.fresh
    cache = BuildCache.open(config.out, config.content, config.runs, config.options, fresh, config.scope, listing)
    scope.callback(cache.discard)
    report.notice(config, cache.notice)
    return cache


def read_phase(config: BuildConfig, cache: BuildCache, scope: ExitStack) -> tuple[Read | None, str | None]:
    """Every run, read or taken from the cache (the chart drawer starts meanwhile), and why the build is refused:
    the output folder holds files its manifest does not list, or a reads folder cannot be taken (no Read then)."""
    from ..site.drawing import drawer_ahead
    from .reads import ReadsError

    scope.enter_context(drawer_ahead())
    with bar("reading", " runs", config.quiet) as progress:
        try:
            got = read(config, cache, progress)
        except ReadsError as exc:
            return None, f"{exc}; nothing was written"
    if config.reads:
        report.notice(
            config, f"runs taken from the reads folders: {len(cache.from_reads)} of {got.found} (the rest read here)"
        )
    if cache.broken and not cache.notice:
        again = "it was" if cache.broken == 1 else "they were"
        report.notice(
            config, f"{plural(cache.broken, 'run')} kept in the build cache did not verify; {again} read again"
        )
    unlisted = unlisted_problem(config.out, MANIFEST, cache.output_files())
    from ..site import freeze  # noqa: F401 - the rendering code (Altair, Flask): its import is timed with the read

    return got, unlisted


def score(project: Project, timer: report.Timer) -> Release:
    """Every version scored from the text exactly as recorded, and every lookup its pages need."""
    from ..scoring.release import build_release

    release = build_release(project)
    timer.done("score")
    return release


@dataclass
class Plan:
    """Which pages a build renders: every version's, one shard's, or (a merge) none but the site-wide pages, the
    versions' files then taken from the shards."""

    versions: set[str] | None = None  # "bench/version" of the versions whose pages are rendered; None: all
    site_pages: bool = True
    in_slice: Callable[[str], bool] | None = None  # of those pages and search bundles, only one slice's (--slice)
    shard_files: ShardFiles | None = None  # a merge's: the files it takes from its shards
    redactions: list[Any] | None = None  # a merge's: as its shards' manifests list them
    # (bench, version, run) of the runs another slice scans (a slice that redacts nothing scans only its own runs)
    scanned_elsewhere: set[tuple[str, str, str]] = field(default_factory=set)
    problem: str | None = None

    def charts(self, release: Release) -> list[Any]:
        """The charts of the versions rendered (made from the release as it is then: after the scan, redacted)."""
        from ..site.charts import charts_for
        from ..site.freeze import chosen_views

        return [chart for view in chosen_views(release, self.versions) for chart in view.once(charts_for)]


def plan_pages(release: Release, config: BuildConfig) -> Plan:
    names = {v.folder for v in release.views}
    plan = Plan()
    if config.only is not None:
        if config.only not in names:
            plan.problem = (
                f"--only {config.only}: no benchmark version of that name has runs here; "
                f"the versions are: {', '.join(sorted(names)) or 'none'}"
            )
        plan.versions, plan.site_pages = {config.only}, False
        if config.part:
            from ..site.slicing import Slicer

            plan.in_slice = Slicer(release).within(*config.part)
            if not config.redact_secrets:
                plan.scanned_elsewhere = scanned_elsewhere(release, plan.in_slice)
    return plan


def scanned_elsewhere(release: Release, in_slice: Callable[[str], bool]) -> set[tuple[str, str, str]]:
    """The runs a slice leaves to other slices to scan, when it redacts nothing (the scan then only refuses): each
    run is scanned by the slice its first search bundle is dealt to (a run with no transcripts, by the slice that
    bundle's name falls in by its hash). The pages a slice shows of other slices' runs (items, lists) still pass the
    backstop scan as they are written."""
    from ..site.search_index import bundle_dir

    return {
        (view.bench.id, view.version.id, run_id)
        for view in release.views
        for run_id in view.runs
        if not in_slice(bundle_dir(view.bench.id, view.version.id, run_id))
    }


def scan(
    release: Release,
    plan: Plan,
    config: BuildConfig,
    cache: BuildCache | None,
    scanned_clean: set[str],
    timer: report.Timer,
) -> list[Finding]:
    """Every string a page can show, scanned (and with --redact-secrets, redacted) before anything is rendered."""
    from ..site import charts, drawing

    drawing.DRAWN.update(cache.drawings() if cache else {})
    charts.SPECS.update(cache.specs() if cache else {})
    if not config.redact_secrets:  # the scan then changes nothing in the release: charts are drawn meanwhile
        drawing.draw_soon(plan.charts(release))
    clean = (cache.clean_before(release) if cache else set()) | plan.scanned_elsewhere
    runs = sum(len(view.runs) for view in release.views)
    with bar("secret scan", " runs", config.quiet, total=runs) as progress:
        findings = scan_release(
            release, redact=config.redact_secrets, clean=clean, clean_files=scanned_clean, progress=progress
        )
    timer.done("secret scan")
    return findings


def render(
    release: Release, plan: Plan, config: BuildConfig, cache: BuildCache | None, site: NewSite, timer: report.Timer
) -> str | None:
    """Every page chosen, into the new site's folder: those whose bytes the last build wrote are kept, a merge's
    shards are linked or copied in; the written files are scanned again (the backstop). Why a shard cannot be taken,
    if so."""
    from ..site.drawing import draw_all, draw_soon
    from ..site.freeze import Scan, freeze

    if config.redact_secrets:  # the charts are made from the release as redacted: drawn while its pages are keyed
        draw_soon(plan.charts(release))
    site.keys = cache.page_keys(release) if cache else None  # None: nothing to compare them with
    reuse = cache.reusable(site.keys) if cache and site.keys and not config.shards else set()
    site.drawings = draw_all(plan.charts(release))  # once, before the render workers fork: they find every chart drawn
    scan, options = Scan(scan_written), {"base_path": config.base_path, "build_date": config.build_date}
    with bar("rendering", " files", config.quiet) as progress:
        site.urls = freeze(release, site.folder, **options, progress=progress, skip=reuse, versions=plan.versions,
                           site_pages=plan.site_pages, in_slice=plan.in_slice,
                           bytecode_cache=cache.bytecode_cache() if cache else None, scan=scan,
                           sums=site.rendered)  # fmt: skip
    site.leaked += scan.found
    site.kept = {file_for(u) for u in site.urls if u in reuse}  # left as the last build wrote them
    timer.done("render")
    site.new = files_below(site.folder)  # listed once for the backstop and the manifest, unless index writes more
    site.leaked += scan_output(site.folder, site.new, skip=site.sums)  # any other file; kept ones passed it before
    timer.done("backstop scan")
    return take_shard_files(plan, site, timer) if plan.shard_files is not None else None


def take_shard_files(plan: Plan, site: NewSite, timer: report.Timer) -> str | None:
    """A merge's: its shards' files into the new site, once the pages it rendered are listed and scanned (taking
    scans each file as it reads it), and the new site's files then listed in path order without a list of them
    (shard_files.MergedFiles: two million at a million transcripts). Why a shard file cannot be taken, if so."""
    from .shard_files import MergedFiles
    from .taking import take

    assert plan.shard_files is not None
    site.taken = len(plan.shard_files)
    found, problem = take(plan.shard_files, site.folder)
    site.leaked += found
    if problem:
        return problem
    site.new = MergedFiles(site.new, plan.shard_files)
    timer.done("take")
    return None


def index(
    release: Release, plan: Plan, config: BuildConfig, cache: BuildCache | None, site: NewSite, timer: report.Timer
) -> None:
    """The search bundles, one per run: those whose pages did not change are kept from the last build."""
    from ..site import search_index

    def ours(name: str) -> bool:
        in_version = plan.versions is None or "/".join(name.split("/")[:2]) in plan.versions
        return in_version and (plan.in_slice is None or plan.in_slice(name))

    todo = search_index.bundles(release, keep=ours)
    site.bundle_keys = cache.bundle_keys(todo, release) if cache else {}
    for name, files in (cache.reusable_bundles(site.bundle_keys) if cache else {}).items():
        del todo[name]
        site.kept.update(files)
    with bar("search index", " runs", config.quiet, total=len(todo)) as progress:
        search_index.index_for_search(site.folder, todo, kept=config.out.resolve(), progress=progress)
    if todo:  # the bundles are new files of the site (a merge takes its shards' and writes none)
        site.new = files_below(site.folder)
    timer.done("search index")


def manifest(
    release: Release,
    plan: Plan,
    config: BuildConfig,
    cache: BuildCache | None,
    site: NewSite,
    redactions: list[Finding],
    timer: report.Timer,
) -> None:
    """The publish manifest: every file of the site with its SHA-256 and sources (a shard's also names the version it
    holds, the key of its inputs and its summary). What is not hashed yet (the search bundles) is read back and
    hashed. A merge's lists the redactions its shards list."""
    from .manifest import redaction_entries

    site.listed = sorted({*site.new, *site.kept}) if site.kept else site.new  # site.new: in order, each once
    redacted = plan.redactions if plan.redactions is not None else redaction_entries(redactions)
    shard = shard_section(release, config, cache)
    site.leaked, parts = write_manifest(site.folder, site.listed, release, redacted, site.sums, shard)
    site.new = site.new + parts  # a large manifest's parts are files of the site like any other
    site.listed = site.listed + parts
    timer.done("manifest")


def shard_section(release: Release, config: BuildConfig, cache: BuildCache | None) -> dict[str, Any] | None:
    """What a shard's manifest says of the version it holds: its key, its summary (summary.py) and its slice."""
    if not config.only or not cache:
        return None
    from .summary import page_files, summarise

    view = next(v for v in release.views if v.folder == config.only)
    shard: dict[str, Any] = {
        "versions": {config.only: cache.version_keys(release)[config.only]},
        "summaries": {config.only: summarise(view, page_files(release, view))},
    }
    if config.part:
        shard["slice"] = list(config.part)
    return shard


def made_specs() -> dict[str, Any]:
    """The chart shapes this process made or took, for the next build (charts.SPECS)."""
    from ..site.charts import ASKED, SPECS

    return {key: SPECS[key] for key in sorted(ASKED)}
