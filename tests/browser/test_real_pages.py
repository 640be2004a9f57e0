"""The browser checks on pages built from the real fixtures, not only the demo: Inspect logs (an agent evaluation,
dict scores, a cancelled log, a log without samples, images) and AlpacaEval's text_davinci_001 folder, imported as
a user imports them, beside the demo runs, and served from a sub-path. Search runs over every run's bundle, one of
which holds words that start like a word of another bundle."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import ROOT, copy_project, wcag_violations
from playwright.sync_api import expect
from test_importers import build

from site_src.site.serve_static import serve

INSPECT = ROOT / "tests/fixtures/inspect_ai"
ALPACA = ROOT / "tests/fixtures/alpaca_eval"
IMPORTS = [
    ("inspect", "agent", INSPECT / "metr/small.eval", "--publish-reasoning"),
    ("inspect", "dict", INSPECT / "generated/dict-scores.eval", None),
    ("inspect", "formats", INSPECT / "log_formats.eval", None),
    ("inspect", "cancelled", INSPECT / "inspect_ai_tests/2025-05-12T20-28-13-04-00_popularity.json", None),
    ("inspect", "images", INSPECT / "inspect_ai_tests/log_images.json", "--publish-images"),
    ("alpaca-eval", "alpaca", ALPACA / "text_davinci_001", "--annotator=alpaca_eval_gpt4"),
]
PAGES = {
    "inspect leaderboard": "formats/v0/",
    "inspect breakdown": "formats/v0/breakdown/",
    "agent leaderboard": "agent/v0.1.8/",
    "agent transcript": "agent/v0.1.8/t/",  # the first transcript, found below
    "dict breakdown": "dict/v0/breakdown/",
    "cancelled leaderboard": "cancelled/v0/",
    "image transcript": "images/v0/t/",
    "alpaca leaderboard": "alpaca/v1/",
    "alpaca breakdown": "alpaca/v1/breakdown/",
    "alpaca items": "alpaca/v1/items/",
    "alpaca item": "alpaca/v1/items/7a/001/",
    "alpaca transcripts": "alpaca/v1/transcripts/",
    "alpaca transcript": "alpaca/v1/t/70/text-davinci-001--794/",
}


@pytest.fixture(scope="module")
def real_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    project = copy_project(tmp_path_factory.mktemp("real") / "project")
    for source, bench, path, option in IMPORTS:
        extra = [option] if option else []
        extra += ["--leaderboard", str(ALPACA / "alpaca_eval_gpt4_leaderboard.text_davinci_001.csv")] * (
            source == "alpaca-eval"
        )
        done = build(project, "import", source, str(path), "--benchmark", bench, *extra)
        assert done.returncode == 0, done.stdout + done.stderr
    # words that start like "kettle" (in TuckerBench's demo transcripts only), in another run's bundle
    note = project / "runs/halees-dual-layer/demo-system-x/tasks/T1/iteration-1.output.txt"
    note.write_text(note.read_text(encoding="utf-8") + "\nA note: k ke ket kett.\n", encoding="utf-8")
    done = build(project, "--out", "_site", "--base-path", "/repo/", "-q")
    assert done.returncode == 0, done.stdout + done.stderr
    site = project / "_site"
    server, url = serve(site, "/repo/")
    yield url, site
    server.shutdown()


def _path(site: Path, name: str) -> str:
    path = PAGES[name]
    if path.endswith("/t/"):  # the version's first transcript
        first = sorted((p.parent.name, p.parent.parent.name) for p in (site / path).glob("*/*/index.html"))[0]
        path += f"{first[1]}/{first[0]}/"
    return path


@pytest.mark.parametrize("name", list(PAGES))
def test_axe_finds_no_wcag_aa_violations_on_pages_of_real_results(page, real_site, name):
    url, site = real_site
    page.goto(url + _path(site, name))
    violations = wcag_violations(page)
    assert not violations, violations


@pytest.mark.parametrize("name", list(PAGES))
def test_pages_of_real_results_are_usable_at_375_px(chromium_browser, real_site, name):
    url, site = real_site
    context = chromium_browser.new_context(viewport={"width": 375, "height": 800})
    page = context.new_page()
    page.goto(url + _path(site, name))
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    context.close()


@pytest.mark.parametrize("name", [n for n in PAGES if "breakdown" in n or "leaderboard" in n])
def test_chart_text_of_real_results_is_never_below_11_px_on_a_phone(chromium_browser, real_site, name):
    url, site = real_site
    context = chromium_browser.new_context(viewport={"width": 375, "height": 800})
    page = context.new_page()
    page.goto(url + _path(site, name))
    sizes = page.evaluate(
        "Array.from(document.querySelectorAll('figure.chart svg text'))"
        ".filter(t => t.textContent.trim()).map(t => t.getBoundingClientRect().height)"
    )
    assert not sizes or min(sizes) >= 11, (name, min(sizes))
    context.close()


def test_pages_of_real_results_stay_small(real_site):
    url, site = real_site
    sizes = {name: len((site / _path(site, name) / "index.html").read_bytes()) for name in PAGES}
    print("\npage sizes (bytes):", sizes)
    assert sizes["alpaca items"] < 60_000 and sizes["alpaca transcripts"] < 80_000, sizes
    assert max(sizes.values()) < 400_000, sizes


def test_an_inspect_accuracy_chart_spans_0_to_1_so_no_dot_sits_on_the_zero_line(page, real_site):
    url, site = real_site
    page.goto(url + "formats/v0/breakdown/")
    caption = page.locator("figure.chart figcaption").first.inner_text()
    assert "declared range, 0–1" in caption, caption
    axis = page.locator("figure.chart svg").first.locator(".role-axis-label text").all_text_contents()
    assert axis[0] == "0.0" and axis[-1] == "1.0", axis


def test_search_over_real_and_demo_bundles_never_shows_a_result_without_the_word(page, real_site):
    url, _ = real_site
    page.goto(url + "search/?q=kettle")
    page.wait_for_selector("[data-search-results] li")
    status = page.locator("[data-search-status]")
    while page.locator("[data-search-more]").is_visible():
        page.click("[data-search-more]")
        expect(status).not_to_have_text("Loading more…")
    excerpts = page.locator("[data-search-results] li > p:not(.result-meta)").all_inner_texts()
    metas = page.locator("[data-search-results] .result-meta").all_inner_texts()
    assert excerpts and all("kettle" in e.lower() for e in excerpts), [e[:80] for e in excerpts]
    assert all(m.startswith("TuckerBench") for m in metas), metas
    page.goto(url + "search/?q=kettlebells")  # in no page: the bundles' prefixes of it (kettle, kett) are not it
    expect(status).to_have_text("No results for “kettlebells”.")


def test_the_real_transcript_lists_pager_links_a_few_pages_and_walks_to_every_one(page, real_site):
    """AlpacaEval's 803 outputs make a list of 9 pages: page 1 links pages 2 and 3, a gap and the last; following
    "next" from page 1 reaches every page in order, each marking itself current; the last page is one click away."""
    url, _ = real_site
    page.goto(url + "alpaca/v1/transcripts/")
    pager = page.get_by_role("navigation", name="Pages")
    assert " ".join(pager.inner_text().split()) == "1 2 3 … 9"
    expect(pager.locator('[aria-current="page"]')).to_have_text("1")
    seen = ["1"]
    while pager.locator('a[rel="next"]').count():
        pager.locator('a[rel="next"]').click()
        seen.append(pager.locator('[aria-current="page"]').inner_text())
        assert pager.locator("a").count() <= 9
    assert seen == [str(n) for n in range(1, 10)] and page.url.endswith("/alpaca/v1/transcripts/page/9/")
    assert " ".join(pager.inner_text().split()) == "1 … 7 8 9"
    pager.get_by_role("link", name="1", exact=True).click()
    expect(pager.locator('[aria-current="page"]')).to_have_text("1")
    pager.get_by_role("link", name="9", exact=True).click()
    expect(pager.locator('[aria-current="page"]')).to_have_text("9")
    assert not wcag_violations(page)
