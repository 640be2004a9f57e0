"""Search over a run indexed in several bundles (its parts: here the demo built with PAGES_PER_BUNDLE = 4): the
search page merges every part, and a word finds its transcripts in whichever part holds each."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import CONTENT, RUNS, fold
from test_pages import _every_result

from site_src.cli import main
from site_src.site import search_index
from site_src.site.serve_static import serve


@pytest.fixture(scope="module")
def parted_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    site = tmp_path_factory.mktemp("parted") / "site"
    limit = search_index.PAGES_PER_BUNDLE
    search_index.PAGES_PER_BUNDLE = 4
    try:
        argv = ["--content", str(CONTENT), "--runs", str(RUNS), "--out", str(site), "--base-path", "/repo/", "-q"]
        assert main(argv) == 0
    finally:
        search_index.PAGES_PER_BUNDLE = limit
    server, url = serve(site, "/repo/")
    yield url, site
    server.shutdown()


def test_a_word_is_found_in_every_part_of_a_run_that_holds_it(page, parted_url):
    url, site = parted_url
    holding = sorted(
        p.parent.name for p in site.glob("tuckerbench/v1-pilot/t/*/*/index.html") if "Louvre" in p.read_text("utf-8")
    )
    parts = {search_index.bundle_of(f"tuckerbench/v1-pilot/search/demo-pilot-run1/{n}/x") for n in range(2, 17)}
    nested = [name for name in parts if (site / name).is_dir()]
    assert len(holding) >= 4 and len(nested) >= 4  # the word is spread over several parts
    page.goto(url + "search/?q=Louvre")
    page.wait_for_selector("[data-search-results] li a")
    assert _every_result(page) == len(holding)
    hrefs = page.locator("[data-search-results] li a").evaluate_all("links => links.map(a => a.pathname)")
    found = sorted(re.search(r"/t/[0-9a-f]{2}/([^/]+)/", h).group(1) for h in hrefs)
    assert found == holding
    assert all(f"/t/{fold(tid)}/{tid}/" in " ".join(hrefs) for tid in holding)
