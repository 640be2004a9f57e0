"""The Changes page in a browser: a demo build given an earlier site (the demo's runs with one response changed and
one entrant judged lower), served from a sub-path. Readable at 375 px and 1280 px without sideways scrolling, with
no WCAG AA violation, and whole with JavaScript off."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator

import pytest
from helpers import CONTENT, ROOT, edit_jsonl, wcag_violations

import site_src.cli as cli
from site_src.site.serve_static import serve

PREFIX = "/repo/"
PAGES = ["tuckerbench/changes/", "uzbek-pack/changes/"]


@pytest.fixture(scope="module")
def changes_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    root = tmp_path_factory.mktemp("changes")
    shutil.copytree(ROOT / "runs", root / "runs")
    edit_jsonl(root / "runs/uzbek-pack/demo-model-a-run1/responses.jsonl", 2, lambda r: r.update(raw_output="Йўқ."))
    judged = root / "runs/tuckerbench/demo-pilot-run1/judgments/judge-k.jsonl"
    records = [json.loads(line) for line in judged.read_text(encoding="utf-8").splitlines()]
    for r in records:
        if r.get("entrant") == "beta" and r.get("scores"):
            r["scores"] = {k: max(0, v - 2) for k, v in r["scores"].items()}
    judged.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    common = ["--content", str(CONTENT), "--no-search", "-q", "--base-path", PREFIX]
    assert cli.main([*common, "--runs", str(root / "runs"), "--out", str(root / "earlier")]) == 0
    site = root / "_site"
    since = ["--changes-since", str(root / "earlier")]
    assert cli.main([*common, "--runs", str(ROOT / "runs"), "--out", str(site), *since]) == 0
    server, url = serve(site, PREFIX)
    yield url
    server.shutdown()


@pytest.mark.parametrize("width", [375, 1280])
@pytest.mark.parametrize("path", PAGES)
def test_the_changes_page_fits_the_screen_and_passes_axe(chromium_browser, changes_url, path, width):
    context = chromium_browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    page.goto(changes_url + path)
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    assert not wcag_violations(page)
    context.close()


def test_the_changes_page_reads_whole_without_javascript_and_links_the_flipped_response(chromium_browser, changes_url):
    context = chromium_browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(changes_url + "tuckerbench/changes/")
    row = page.get_by_role("row").filter(has_text="Demo Entrant Beta")
    assert "a real move" in row.inner_text()  # judged two points higher than in the earlier build, item by item
    page.goto(changes_url + "uzbek-pack/changes/")
    assert "fail → pass" in page.get_by_role("listitem").filter(has_text="demo-model-a-run1--002--a1:").inner_text()
    page.get_by_role("link", name="demo-model-a-run1--002--a1").click()
    assert page.url.endswith("/uzbek-pack/0.1.0/t/f7/demo-model-a-run1--002--a1/")
    context.close()
