"""The leaderboard at 20 entrants, on a 1280 px window and on a 375 px phone, in Chromium: the table and the overall
chart lead, separation is a short list per row with the 190 pairs on their own page, the chart's leaders are on
screen without scrolling sideways, and each flag's detail opens without hover."""

from __future__ import annotations

import sys
from collections.abc import Iterator

import pytest
from helpers import ROOT, load, wcag_violations

from site_src.build import build_site
from site_src.site.serve_static import serve

ENTRANTS = 20
BOARD = "tuckerbench/v1-pilot/"


@pytest.fixture(scope="module")
def many_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    sys.path.insert(0, str(ROOT / "scripts"))
    from benchmark import synthesise

    root = tmp_path_factory.mktemp("many")
    synthesise(root / "runs", entrants=ENTRANTS, repetitions=2)
    out = root / "_site"
    assert build_site(load(root / "runs", root / "content"), out, base_path="/repo/", search=False) == 0
    server, url = serve(out, "/repo/")
    yield url
    server.shutdown()


def _open(browser, url: str, width: int):  # noqa: ANN001, ANN202
    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    page.goto(url)
    return context, page


@pytest.mark.parametrize("width", [1280, 375])
def test_the_table_and_the_chart_lead_and_the_pairs_have_their_own_page(chromium_browser, many_url, width):
    context, page = _open(chromium_browser, many_url + BOARD, width)
    order = page.evaluate("[...document.querySelectorAll('main > *')].map(e => e.tagName + '.' + e.className)")
    table = order.index("DIV.table-wrap")
    assert order[table + 2] == "FIGURE.chart", order  # the table, the chart's heading, the chart
    assert page.locator("main table").count() == 1  # no table of 190 pairs under the leaderboard
    rows = page.locator("table.leaderboard tbody tr")
    assert rows.count() == ENTRANTS
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    # each row names who it is not separated from, in a line or a disclosure, never a list of every pair
    for i in range(ENTRANTS):
        assert rows.nth(i).bounding_box()["height"] < 260
    page.click("#pairs a")
    assert page.locator("table tbody tr").count() == ENTRANTS * (ENTRANTS - 1) // 2
    context.close()


def test_on_a_phone_the_charts_leaders_are_on_screen_without_scrolling_sideways(chromium_browser, many_url):
    context, page = _open(chromium_browser, many_url + BOARD, 375)
    figure = page.locator("figure.chart").first
    figure.scroll_into_view_if_needed()
    svg = figure.locator("svg").bounding_box()
    assert svg["x"] >= 0 and svg["x"] + svg["width"] <= 375
    top_name = figure.locator("svg text", has_text="1. Synthetic").first.bounding_box()
    assert top_name["x"] + top_name["width"] <= 375
    context.close()


def test_a_flags_detail_opens_by_click_or_keyboard_not_by_hover(chromium_browser, many_url):
    context, page = _open(chromium_browser, many_url + BOARD, 1280)
    flags = page.locator("details.flags").first
    detail = flags.locator(".flag-details")
    assert not detail.is_visible()
    flags.locator("summary").focus()
    page.keyboard.press("Enter")
    assert detail.is_visible() and "what it means" in detail.inner_text()
    context.close()


@pytest.mark.parametrize("page_path", [BOARD, BOARD + "pairs/"])
def test_axe_finds_no_violation_on_the_twenty_entrant_pages(chromium_browser, many_url, page_path):
    context, page = _open(chromium_browser, many_url + page_path, 1280)
    violations = wcag_violations(page)
    assert not violations, violations
    context.close()
