"""The lean layout in a browser, on the demo built with TuckerBench lean and served from a sub-path: a transcript's
page links to the JSON Lines file that holds it, at the line it names; a link to its own download (which the lean
layout does not write) is forwarded by the 404 page to its page."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from urllib.parse import urljoin

import pytest
from helpers import CONTENT, RUNS, fold

from site_src.cli import main
from site_src.site.serve_static import serve

TID = "demo-pilot-run1--beta--s4-kettle--r1"
VERSION = "tuckerbench/v1-pilot/"


@pytest.fixture(scope="module")
def lean_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    root = tmp_path_factory.mktemp("lean-site")
    shutil.copytree(CONTENT, root / "content")
    described = root / "content/tuckerbench/benchmark.yaml"
    described.write_text("layout: lean\n" + described.read_text(encoding="utf-8"), encoding="utf-8")
    args = ["--content", str(root / "content"), "--runs", str(RUNS), "--base-path", "/repo/", "--quiet"]
    assert main([*args, "--out", str(root / "site")]) == 0
    server, url = serve(root / "site", "/repo/")
    yield url
    server.shutdown()


def test_a_transcript_page_links_to_the_line_of_the_file_that_holds_it(page, lean_url):
    page.goto(lean_url + f"{VERSION}t/{fold(TID)}/{TID}/")
    link = page.get_by_role("link", name="Download this transcript with its judgments")
    said = link.locator("xpath=..").inner_text()
    line = int(said.split(": line ")[1].split(" ")[0])
    href = link.get_attribute("href")
    assert href.endswith(f"data/t/{fold(TID)}/demo-pilot-run1.jsonl")
    response = page.request.get(urljoin(page.url, href))  # the file as the server gives it, by the relative link
    assert response.ok
    record = json.loads(response.text().splitlines()[line - 1])
    assert record["transcript"]["id"] == TID and record["judgments"]


def test_a_link_to_a_transcripts_own_download_is_forwarded_to_its_page(page, lean_url):
    response = page.goto(lean_url + f"{VERSION}data/t/{fold(TID)}/{TID}.json")
    assert response.status == 404
    page.wait_for_url(f"**/t/{fold(TID)}/{TID}/")
    assert page.get_by_role("heading", level=1).inner_text().startswith("The office kettle")
    assert page.get_by_role("link", name="Download this transcript with its judgments").is_visible()
