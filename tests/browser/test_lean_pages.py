"""The lean layout in a browser, served from a sub-path, on the demo built with TuckerBench lean and on real results
(an Inspect agent log with tool calls, AlpacaEval's text_davinci_001 folder; tests/fixtures/, with their licences)
imported lean: a transcript's page (a file, t/<ff>/<transcript>.html, since site layout 3) links to the JSON Lines
file (gzip) that holds it, at the line it names; a link to its own download (which the lean layout does not write) or
to its page in a folder of its own (layout 2) is forwarded by the 404 page to its page; an item's page links each
response's page and leaves its text out."""

from __future__ import annotations

import gzip
import json
import re
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urljoin

import pytest
from helpers import ROOT, RUNS, copy_project, fold, lean_content, set_layout, unpacked, wcag_violations
from playwright.sync_api import expect
from test_importers import build

from site_src.cli import main
from site_src.site.serve_static import serve

TID = "demo-pilot-run1--beta--s4-kettle--r1"
VERSION = "tuckerbench/v1-pilot/"


@pytest.fixture(scope="module")
def lean_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    root = tmp_path_factory.mktemp("lean-site")
    lean_content(root / "content", ("tuckerbench",))
    args = ["--content", str(root / "content"), "--runs", str(RUNS), "--base-path", "/repo/", "--quiet"]
    assert main([*args, "--out", str(root / "site")]) == 0
    server, url = serve(root / "site", "/repo/")
    yield url
    server.shutdown()


def test_a_transcript_page_links_to_the_line_of_the_file_that_holds_it(page, lean_url):
    page.goto(lean_url + f"{VERSION}t/{fold(TID)}/{TID}.html")
    link = page.get_by_role("link", name="Download this transcript with its judgments")
    said = link.locator("xpath=..").inner_text()
    line = int(said.split(": line ")[1].split(" ")[0])
    href = link.get_attribute("href")
    assert href.endswith(f"data/t/{fold(TID)}/demo-pilot-run1.jsonl.gz")
    response = page.request.get(urljoin(page.url, href))  # the file as the server gives it, by the relative link
    assert response.ok and response.headers["content-type"] == "application/gzip"  # saved as it is, not unpacked
    record = json.loads(gzip.decompress(response.body()).decode("utf-8").splitlines()[line - 1])
    assert record["transcript"]["id"] == TID and record["judgments"]


def test_a_link_to_a_transcripts_own_download_is_forwarded_to_its_page(page, lean_url):
    response = page.goto(lean_url + f"{VERSION}data/t/{fold(TID)}/{TID}.json")
    assert response.status == 404
    page.wait_for_url(f"**/t/{fold(TID)}/{TID}.html")
    assert page.get_by_role("heading", level=1).inner_text().startswith("The office kettle")
    assert page.get_by_role("link", name="Download this transcript with its judgments").is_visible()


def test_a_link_to_a_lean_transcripts_page_in_a_folder_of_its_own_is_forwarded_to_its_file(page, lean_url):
    """Site layout 2 gave a lean transcript's page a folder of its own; layout 3 makes it a file of its folder of
    256. An old link, with its query and fragment, reaches the page, and a link to no transcript stops on the 404
    page after one forwarding."""
    response = page.goto(lean_url + f"{VERSION}t/{fold(TID)}/{TID}/?from=old#turn-2")
    assert response.status == 404
    page.wait_for_url(f"**/t/{fold(TID)}/{TID}.html?from=old#turn-2")
    assert page.get_by_role("heading", level=1).inner_text().startswith("The office kettle")
    seen: list[str] = []
    page.on("framenavigated", lambda frame: seen.append(frame.url) if frame == page.main_frame else None)
    page.goto(lean_url + f"{VERSION}t/{fold('none')}/none/")
    page.wait_for_url(f"**/t/{fold('none')}/none.html")
    page.wait_for_timeout(300)
    assert page.get_by_role("heading", name="Page not found").is_visible()
    assert len(seen) == 2, seen

    # layout 1's address (no folder of 256): forwarded to layout 2's, then to the file
    page.goto(lean_url + f"{VERSION}t/{TID}/#turn-2")
    page.wait_for_url(f"**/t/{fold(TID)}/{TID}.html#turn-2")
    assert page.get_by_role("heading", level=1).inner_text().startswith("The office kettle")


def test_search_finds_a_lean_transcript_and_its_result_opens_its_page_file(page, lean_url):
    """Pagefind indexes a lean page by its file's own URL (t/<ff>/<transcript>.html): a result opens the page."""
    page.goto(lean_url + "search/?q=Louvre")
    page.wait_for_selector("[data-search-results] li a")
    links = page.locator("[data-search-results] li a")
    hrefs = [links.nth(i).get_attribute("href") for i in range(links.count())]
    assert hrefs and all(re.fullmatch(r"/repo/tuckerbench/v1-pilot/t/[0-9a-f]{2}/[^/]+\.html", h) for h in hrefs), hrefs
    links.first.click()
    page.wait_for_url("**/t/*/*.html")
    assert page.get_by_role("link", name="Download this transcript with its judgments").is_visible()


REAL = [  # (importer, benchmark, fixture, options)
    ("inspect", "agent", ROOT / "tests/fixtures/inspect_ai/metr/small.eval", ["--publish-reasoning"]),
    ("alpaca-eval", "alpaca", ROOT / "tests/fixtures/alpaca_eval/text_davinci_001", ["--annotator=alpaca_eval_gpt4"]),
]


@pytest.fixture(scope="module")
def real_lean(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """(its URL, its folder): the real results imported as a user imports them, both benchmarks lean."""
    project = copy_project(tmp_path_factory.mktemp("real-lean") / "project")
    for source, bench, path, options in REAL:
        done = build(project, "import", source, str(path), "--benchmark", bench, *options)
        assert done.returncode == 0, done.stdout + done.stderr
    set_layout(project / "content", tuple(bench for _, bench, _, _ in REAL))
    done = build(project, "--out", "_site", "--base-path", "/repo/", "-q")
    assert done.returncode == 0, done.stdout + done.stderr
    server, url = serve(project / "_site", "/repo/")
    yield url, project / "_site"
    server.shutdown()


def _rows(site: Path, version: str) -> list[dict]:
    rows = []
    for part in json.loads((site / version / "data/transcripts.json").read_text(encoding="utf-8"))["parts"]:
        rows += json.loads((site / part).read_text(encoding="utf-8"))["transcripts"]
    return rows


@pytest.mark.parametrize("version", ["agent/v0.1.8", "alpaca/v1"])
def test_a_real_transcripts_page_links_to_its_line_and_its_old_download_forwards_to_it(page, real_lean, version):
    url, site = real_lean
    row = _rows(site, version)[0]
    path = row["path"]
    assert path.endswith(".html")
    page.goto(url + path)
    link = page.get_by_role("link", name=re.compile("^Download this transcript"))
    said = link.locator("xpath=..").inner_text()
    assert int(said.split(": line ")[1].split(" ")[0]) == row["line"]
    response = page.request.get(urljoin(page.url, link.get_attribute("href")))
    assert response.ok and response.url.endswith(row["download"])
    line = gzip.decompress(response.body()).decode("utf-8").splitlines()[row["line"] - 1]
    assert line == unpacked(site / row["download"]).splitlines()[row["line"] - 1]
    assert json.loads(line)["transcript"]["id"] == row["id"]  # the real log's transcript, its exact characters
    assert not wcag_violations(page)
    old = f"{version}/data/t/{fold(row['id'])}/{row['id']}.json"
    assert page.goto(url + old).status == 404
    page.wait_for_url(f"**/{path}")
    assert page.get_by_role("link", name=re.compile("^Download this transcript")).is_visible()


def test_search_over_real_lean_results_opens_the_page_file_of_the_transcript_that_holds_the_word(page, real_lean):
    """A word of a real AlpacaEval output, searched on the lean site: its transcript's page file is among the results,
    and every result is a lean page file."""
    url, site = real_lean
    row = _rows(site, "alpaca/v1")[0]
    record = json.loads(unpacked(site / row["download"]).splitlines()[row["line"] - 1])
    said = next(t["content"] for t in record["transcript"]["turns"] if t["role"] == "assistant")
    word = max(re.findall(r"[a-z]{6,}", said.lower()), key=len)  # a long plain word of its text
    page.goto(url + f"search/?q={word}")
    page.wait_for_selector("[data-search-results] li a")
    links = page.locator("[data-search-results] li a")
    hrefs = [links.nth(i).get_attribute("href") for i in range(links.count())]
    assert all(h.endswith(".html") and "/t/" in h for h in hrefs), hrefs
    assert f"/repo/{row['path']}" in hrefs, (word, hrefs)


def test_a_real_items_lean_page_links_each_response_and_leaves_its_text_out(page, real_lean):
    url, site = real_lean
    rows = [row for row in _rows(site, "alpaca/v1") if row["item_id"] == "001"]
    assert rows
    page.goto(url + f"alpaca/v1/items/{fold('001')}/001/")
    expect(page.get_by_text("this benchmark is published in the lean layout")).to_be_visible()
    hrefs = {urljoin(page.url, a) for a in page.locator("main a").evaluate_all("links => links.map(a => a.href)")}
    shown = " ".join(page.locator("main").inner_text().split())
    for row in rows:
        assert url + row["path"] in hrefs
        record = json.loads(unpacked(site / row["download"]).splitlines()[row["line"] - 1])
        said = next(t["content"] for t in record["transcript"]["turns"] if t["role"] == "assistant")
        text = " ".join(said.split())[:60]
        assert text and text not in shown
    assert not wcag_violations(page)
    page.goto(url + rows[-1]["path"])  # where the last one's text is
    assert text in " ".join(page.locator("main").inner_text().split())
