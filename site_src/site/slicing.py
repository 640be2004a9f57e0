"""Which slice of a version renders each of its files (`build.py --only BENCH/VERSION --slice K/N`).

A transcript's page and its download go with the search bundle that indexes the page, since a slice indexes the
bundles from the pages it rendered; a bundle, and every other file, goes by the stable hash of its own path
(urls.slice_of). So every slice build and the merge agree on it without a list."""

from __future__ import annotations

from ..release import Release
from .search_index import bundles
from .urls import slice_of


class Slicer:
    def __init__(self, release: Release) -> None:
        self._bundle = {page: name for name, pages in bundles(release).items() for page in pages}

    def of(self, rel: str, count: int) -> int:
        """Which of count slices (from 1) renders a file of the site (its site path) or a search bundle (its
        folder)."""
        parts = rel.split("/")
        if len(parts) == 6 and parts[2] == "data" and parts[3] == "t":  # a transcript's download: with its page
            rel = f"{parts[0]}/{parts[1]}/t/{parts[4]}/{parts[5].removesuffix('.json')}/index.html"
        return slice_of(self._bundle.get(rel, rel), count)
