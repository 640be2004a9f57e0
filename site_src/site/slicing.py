"""Which slice of a version renders each of its files (`build.py --only BENCH/VERSION --slice K/N`).

A transcript's page and its download (in the lean layout, a run's download of its transcripts in one folder of
256) go with the search bundle that indexes the page, since a slice indexes its bundles from the pages it rendered;
and the bundles, which carry nearly all of a version's pages, are dealt to the slices so that each gets about as
many pages: largest first, each to the slice that has the fewest so far (ties to the first). Every other file goes
by the stable hash of its own path (urls.slice_of). Every slice build and the merge agree on all of it without a
list: the slices read the same release, and the merge is given each bundle's size by the version's summary
(build/summary.py). The merge has no transcripts, so it cannot tell a transcript's
bundle: it checks that the slices list every transcript's files once, not which slice lists them."""

from __future__ import annotations

from collections.abc import Callable

from ..release import Release
from .search_index import bundle_dir, bundle_part, bundle_sizes, page_of, parts_of
from .urls import run_download, slice_of


class Slicer:
    def __init__(self, release: Release) -> None:
        self._views = {(view.bench.id, view.version.id): (view, page_of(view)) for view in release.views}
        # a merge's release holds no transcripts: its versions' summaries give their bundles' sizes
        self._pages = bundle_sizes(release)
        self._dealt: dict[int, dict[str, int]] = {}
        self._runs: dict[str, int] | None = None  # a run's first bundle -> the pages of all its bundles

    def within(self, k: int, count: int) -> Callable[[str], bool]:
        """Whether a file's site path (or a search bundle's folder) falls in slice k of count."""
        return lambda rel: self.of(rel, count) == k

    def of(self, rel: str, count: int) -> int:
        """Which of count slices (from 1) renders a file of the site (its site path) or a search bundle (its
        folder)."""
        download = run_download(rel)  # the lean layout's: with the bundle of its transcripts' pages
        parts = rel.split("/")
        if not download and len(parts) == 6 and parts[2] == "data" and parts[3] == "t":  # one transcript's download
            rel = f"{parts[0]}/{parts[1]}/t/{parts[4]}/{parts[5].removesuffix('.json')}/index.html"  # with its page
        bundle = self._run_bundle(*download) if download else self._page_bundle(rel) or rel
        return self._deal(count)[bundle] if bundle in self._pages else slice_of(rel, count)

    def _page_bundle(self, rel: str) -> str | None:
        """The bundle that indexes rel, when rel is a transcript's page (worked out from its transcript's run and
        folder of 256, with no map of every page to its bundle); else None."""
        parts = rel.split("/")
        if len(parts) < 5 or parts[2] != "t" or (found := self._views.get((parts[0], parts[1]))) is None:
            return None
        view, page = found
        tid = parts[4].removesuffix(".html") if len(parts) == 5 else parts[4]
        t = view.transcripts.get(tid)
        if t is None or page(tid) != rel:  # a transcript's page is at the one path its layout gives it
            return None
        return self._run_bundle(parts[0], parts[1], parts[3], t.run_id)

    def _run_bundle(self, bench: str, version: str, folder: str, run_id: str) -> str:
        """The bundle that indexes the pages of a run's transcripts in one folder of 256 (search_index._bundles_of),
        with which the lean layout's download of them goes."""
        if self._runs is None:
            self._runs = {}
            for name, pages in self._pages.items():
                run = "/".join(name.split("/")[:4])  # a later part's bundle is a folder of the run's first
                self._runs[run] = self._runs.get(run, 0) + pages
        count = parts_of(self._runs.get(f"{bench}/{version}/search/{run_id}", 0))
        return bundle_dir(bench, version, run_id, bundle_part(folder, count))

    def _deal(self, count: int) -> dict[str, int]:
        """Each bundle's slice: each version's bundles dealt to count slices, largest first, to the least loaded."""
        if count not in self._dealt:
            loads: dict[str, list[int]] = {}  # version -> pages dealt to each slice so far
            dealt = {}
            for name in sorted(self._pages, key=lambda n: (-self._pages[n], n)):
                load = loads.setdefault("/".join(name.split("/")[:2]), [0] * count)
                k = min(range(count), key=lambda i: (load[i], i))
                load[k] += self._pages[name]
                dealt[name] = k + 1
            self._dealt[count] = dealt
        return self._dealt[count]
