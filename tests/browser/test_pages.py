"""The built site in a real browser, served from a sub-path like GitHub Pages."""

from __future__ import annotations

import re
import urllib.request
from html.parser import HTMLParser
from urllib.error import HTTPError
from urllib.parse import urldefrag, urljoin, urlparse

import pytest
from helpers import wcag_violations
from playwright.sync_api import expect

PAGE_TYPES = {
    "home": "",
    "leaderboard": "tuckerbench/v1-pilot/",
    "pack leaderboard": "uzbek-pack/0.1.0/",
    "breakdown": "tuckerbench/v1-pilot/breakdown/",
    "entrant": "tuckerbench/v1-pilot/entrants/gamma/",
    "items": "uzbek-pack/0.1.0/items/",
    "item": "uzbek-pack/0.1.0/items/93/017/",
    "transcripts": "halees-dual-layer/halees-dual-layer-v1/transcripts/",
    "transcript": "tuckerbench/v1-pilot/t/35/demo-pilot-run1--beta--s6-explain-dns--r2/",
    "pack transcript": "uzbek-pack/0.1.0/t/55/demo-model-a-run1--020--a1/",
    "rubric transcript": "halees-dual-layer/halees-dual-layer-v1/t/98/demo-system-x--T3/",
    "methodology": "tuckerbench/v1-pilot/methodology/",
    "limitations": "uzbek-pack/0.1.0/limitations/",
    "search": "search/",
    "judges": "tuckerbench/v1-pilot/judges/",
    "calibration": "tuckerbench/v1-pilot/calibration/",
    "head to head": "tuckerbench/v1-pilot/vs/demo-pilot-run1--alpha/demo-pilot-run1--beta/",
}


class Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if name in ("href", "src") and value:
                self.links.append(value)


def fetch(url: str) -> tuple[int, str, str]:
    try:
        with urllib.request.urlopen(url, timeout=10) as r:
            return r.status, r.headers.get_content_type(), r.read().decode("utf-8", "replace")
    except HTTPError as e:
        return e.code, "", ""


def test_navigation_across_every_page_type(page, site_url):
    page.goto(site_url)
    page.get_by_role("link", name="1.0.0").count()  # the page loaded and is queryable
    page.get_by_role("link", name="v1-pilot", exact=True).click()
    assert page.url == site_url + "tuckerbench/v1-pilot/"
    page.click("text=Demo Entrant Gamma")
    assert "/entrants/gamma/" in page.url
    page.click("table >> text=Explain DNS >> nth=0")
    assert re.search(r"/t/[0-9a-f]{2}/demo-pilot-run1--gamma--s6-explain-dns", page.url), page.url
    page.click("text=all responses to this item")
    assert page.url.endswith("/items/25/s6-explain-dns/")
    for name, path in (
        ("Methodology", "methodology/"),
        ("Limitations", "limitations/"),
        ("Breakdown", "breakdown/"),
        ("Transcripts", "transcripts/"),
        ("Items", "items/"),
        ("Leaderboard", ""),
    ):
        page.get_by_role("navigation", name="TuckerBench").get_by_role("link", name=name, exact=True).click()
        assert page.url == site_url + "tuckerbench/v1-pilot/" + path
    page.click("text=Search")
    assert page.url == site_url + "search/"


def test_every_internal_link_resolves(site_url):
    """Crawl the whole site from its root over HTTP, as a visitor's browser would resolve each link."""
    seen: set[str] = set()
    queue = [site_url]
    checked = 0
    while queue:
        url = queue.pop()
        if url in seen:
            continue
        seen.add(url)
        status, ctype, body = fetch(url)
        assert status == 200, f"{url} answered {status}"
        checked += 1
        if ctype != "text/html":
            continue
        parser = Links()
        parser.feed(body)
        for link in parser.links:
            target = urldefrag(urljoin(url, link))[0]
            if urlparse(target).netloc != urlparse(site_url).netloc:
                pytest.fail(f"{url} links outside the site: {link}")
            assert target.startswith(site_url), f"{url}: {link} escapes the sub-path"
            if target not in seen:
                queue.append(target)
    assert checked > 150


def test_404_page_is_served_and_styled_from_a_deep_missing_path(page, site_url):
    failed: list[str] = []
    page.on("response", lambda r: failed.append(r.url) if r.status >= 400 and "/no/such/" not in r.url else None)
    response = page.goto(site_url + "no/such/page/")
    assert response.status == 404
    assert page.get_by_role("heading", name="Page not found").is_visible()
    assert "system-ui" in page.evaluate("getComputedStyle(document.body).fontFamily")  # the stylesheet loaded
    assert not failed
    page.click("text=list of leaderboards")
    assert page.url == site_url


def test_nothing_is_fetched_from_another_host(page, site_url):
    origin = urlparse(site_url).netloc
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    for path in PAGE_TYPES.values():
        page.goto(site_url + path)
    page.goto(site_url + "search/")
    page.fill("#q", "Louvre")
    page.click("button[type=submit]")
    page.wait_for_selector("[data-search-results] li")
    foreign = [u for u in requests if urlparse(u).netloc != origin and not u.startswith("data:")]
    assert not foreign


def test_charts_are_inline_svg_with_a_text_alternative(page, site_url):
    page.goto(site_url + "tuckerbench/v1-pilot/breakdown/")
    charts = page.locator("figure.chart svg[role=img]")
    assert charts.count() == 3  # the overall chart, then the system's two
    captions = page.locator("figure.chart figcaption").all_inner_texts()
    assert captions[0].startswith("Overall (out of 100) by rank") and captions[1].startswith("Per-dimension scores")


def test_search_returns_a_known_transcript(page, site_url):
    page.goto(site_url + "search/")
    page.fill("#q", "Louvre")
    page.click("button[type=submit]")
    page.wait_for_selector("[data-search-results] li a")
    links = page.locator("[data-search-results] li a")
    hrefs = [links.nth(i).get_attribute("href") for i in range(links.count())]
    assert any(re.search(r"/repo/tuckerbench/v1-pilot/t/[0-9a-f]{2}/demo-pilot-run1--gamma--", h) for h in hrefs), hrefs
    links.first.click()
    assert "Demo Entrant Gamma" in page.content()


def test_search_merges_every_run_index_and_says_where_each_result_is_from(page, site_url):
    page.goto(site_url + "search/?q=demo")  # the query in the URL runs the search: a search can be shared
    page.wait_for_selector("[data-search-results] li")
    metas = page.locator("[data-search-results] .result-meta").all_inner_texts()
    benchmarks = {m.split(" · ")[0] for m in metas}
    assert len(benchmarks) >= 2, metas  # results from several runs' bundles, merged
    assert all(len(m.split(" · ")) == 3 for m in metas), metas  # benchmark version · entrant · attempt
    total = _every_result(page)
    assert page.locator("[data-search-results] li").count() == total


def _every_result(page) -> int:  # noqa: ANN001
    """Show every result (pressing "more" until it goes) and return the count the status gives at the end."""
    status_line = page.locator("[data-search-status]")
    busy = re.compile(r"^(Searching|Loading)")
    expect(status_line).not_to_have_text(busy)
    while page.locator("[data-search-more]").is_visible():
        page.click("[data-search-more]")
        expect(status_line).not_to_have_text(busy)
    status = status_line.inner_text()
    assert status.endswith(".") and not status.startswith("The first"), status
    return int(status.split(" ")[0])


def test_search_shows_only_results_that_hold_the_word_though_only_one_bundle_has_it(page, site_url):
    # "kettle" is in TuckerBench's transcripts only; each other run's bundle answers it with its longest prefix
    page.goto(site_url + "search/?q=kettle")
    page.wait_for_selector("[data-search-results] li")
    total = _every_result(page)
    metas = page.locator("[data-search-results] .result-meta").all_inner_texts()
    assert total == len(metas) > 0 and all(m.startswith("TuckerBench") for m in metas), metas
    excerpts = page.locator("[data-search-results] li > p:not(.result-meta)").all_inner_texts()
    assert all("kettle" in e.lower() for e in excerpts), excerpts


def test_a_word_on_no_page_finds_nothing(page, site_url):
    page.goto(site_url + "search/?q=quokkas")
    expect(page.locator("[data-search-status]")).to_have_text(re.compile(r"^No results for .quokkas.\.$"))
    assert page.locator("[data-search-results] li").count() == 0


def test_search_filters_by_benchmark_and_keeps_the_filter_in_the_url(page, site_url):
    page.goto(site_url + "search/")
    page.fill("#q", "demo")
    page.select_option("#benchmark", "TuckerBench v1-pilot")
    page.click("button[type=submit]")
    page.wait_for_selector("[data-search-results] li")
    metas = page.locator("[data-search-results] .result-meta").all_inner_texts()
    assert metas and all(m.startswith("TuckerBench v1-pilot · ") for m in metas), metas
    assert "benchmark=TuckerBench+v1-pilot" in page.url and "q=demo" in page.url
    page.reload()
    page.wait_for_selector("[data-search-results] li")
    assert page.locator("#benchmark").input_value() == "TuckerBench v1-pilot"


def test_chart_text_is_never_below_11_px_even_on_a_phone(chromium_browser, site_url):
    context = chromium_browser.new_context(viewport={"width": 375, "height": 800})
    page = context.new_page()
    for path in ("tuckerbench/v1-pilot/", "tuckerbench/v1-pilot/breakdown/", "uzbek-pack/0.1.0/breakdown/"):
        page.goto(site_url + path)
        sizes = page.evaluate(
            "Array.from(document.querySelectorAll('figure.chart svg text'))"
            ".filter(t => t.textContent.trim()).map(t => t.getBoundingClientRect().height)"
        )
        assert sizes and min(sizes) >= 11, (path, min(sizes))
        region = page.locator(".chart-scroll").first
        assert region.get_attribute("tabindex") == "0" and region.get_attribute("role") == "region"
    context.close()


def test_items_sort_by_difficulty_and_by_judge_disagreement(page, site_url):
    page.goto(site_url + "tuckerbench/v1-pilot/items/")

    def column(n):
        return [c.get_attribute("data-sort-value") for c in page.locator(f"table tbody tr td:nth-child({n})").all()]

    page.get_by_role("button", name="Result", exact=True).click()
    results = [float(v) for v in column(5)]
    assert results == sorted(results) and results[0] < results[-1]  # the hardest item first
    page.get_by_role("button", name="Judge gap").click()
    gaps = [float(v) for v in column(6)]
    assert gaps == sorted(gaps)


def test_transcripts_filter_and_sort_cover_every_page(page, site_url):
    page.goto(site_url + "uzbek-pack/0.1.0/transcripts/")  # the filter reads every page's rows from one download
    page.select_option("form[data-list-filter] select[name=entrant]", "Demo Model B")
    # a locator wait, not wait_for_function: a predicate given as text can be evaluated in the page with eval(),
    # which the pages' Content-Security-Policy forbids (it failed that way now and then)
    expect(page.locator("[data-list-status]")).to_contain_text("match")
    entrants = page.locator("table[data-list-table] tbody tr td:first-child").all_inner_texts()
    assert len(entrants) == 24 and set(entrants) == {"Demo Model B"}
    assert not page.locator("[data-list-pager]").is_visible()
    page.select_option("form[data-list-filter] select[name=entrant]", "")
    page.select_option("form[data-list-filter] select[name=state]", "fail")
    page.wait_for_timeout(200)
    badges = page.locator("table[data-list-table] tbody .badge").all_inner_texts()
    status = page.locator("[data-list-status]").inner_text()
    assert badges and all("fail" in b for b in badges) and status.startswith(f"{len(badges)} of 72")


def test_breakdown_sorts_the_leaderboard_by_any_dimension(page, site_url):
    page.goto(site_url + "tuckerbench/v1-pilot/breakdown/")
    table = page.locator("table.sortable").first
    table.get_by_role("button", name="Comic invention (25%)").click()
    index = 1 + [h.strip() for h in table.locator("thead th").all_inner_texts()].index("Comic invention (25%)")
    values = [float(c.get_attribute("data-sort-value")) for c in table.locator(f"tbody td:nth-child({index})").all()]
    assert values == sorted(values) and len(values) == 4


def test_tables_sort_when_a_header_is_clicked(page, site_url):
    page.goto(site_url + "tuckerbench/v1-pilot/")

    def labels():
        return [t.strip() for t in page.locator("table.leaderboard tbody th a").all_inner_texts()]

    assert labels()[0] == "Demo Entrant Alpha"
    page.get_by_role("button", name="Entrant").click()
    assert labels() == sorted(labels())
    page.get_by_role("button", name="Entrant").click()
    assert labels() == sorted(labels(), reverse=True)


@pytest.mark.parametrize("name", list(PAGE_TYPES))
def test_axe_finds_no_wcag_aa_violations(page, site_url, name):
    page.goto(site_url + PAGE_TYPES[name])
    violations = wcag_violations(page)
    assert not violations, violations


@pytest.mark.parametrize("name", list(PAGE_TYPES))
def test_usable_at_375_px_without_horizontal_page_scroll(chromium_browser, site_url, name):
    context = chromium_browser.new_context(viewport={"width": 375, "height": 800})
    page = context.new_page()
    page.goto(site_url + PAGE_TYPES[name])
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    context.close()


def test_content_is_readable_with_javascript_off(chromium_browser, site_url):
    context = chromium_browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(site_url + "uzbek-pack/0.1.0/")
    assert page.locator("table.leaderboard tbody tr").count() == 3
    page.goto(site_url + "tuckerbench/v1-pilot/t/c8/demo-pilot-run1--alpha--s4-kettle--r1/")
    assert page.locator(".turn").count() == 12
    page.goto(site_url + "search/")
    assert "Search needs JavaScript" in page.content()
    context.close()


def test_print_style_hides_navigation_and_keeps_transcript(page, site_url):
    page.goto(site_url + PAGE_TYPES["transcript"])
    page.emulate_media(media="print")
    assert not page.locator(".site-header").is_visible()
    assert page.locator(".turn").first.is_visible()
    assert re.search(r"phone book", page.locator(".turn-truncated").inner_text())


def test_a_long_file_path_wraps_at_its_separators_on_a_phone(chromium_browser, site_url):
    """The discrepancy table names files such as runs/tuckerbench/demo-pilot-run1/reported-scores.json: on a 375 px
    screen each of its lines ends at a "/", "-", "_" or ".", never a few characters into a name."""
    context = chromium_browser.new_context(viewport={"width": 375, "height": 800})
    page = context.new_page()
    page.goto(site_url + "tuckerbench/v1-pilot/")
    lines = page.evaluate(
        """() => {
      const code = document.querySelector('#discrepancies ~ div table td code');
      const text = code.textContent, lines = [];
      let top = null, line = '';
      const range = document.createRange(), node = [...code.childNodes].filter(n => n.nodeType === 3);
      for (const n of node) for (let i = 0; i < n.textContent.length; i++) {
        range.setStart(n, i); range.setEnd(n, i + 1);
        const t = Math.round(range.getBoundingClientRect().top);
        if (top !== null && t > top + 2) { lines.push(line); line = ''; }
        top = t; line += n.textContent[i];
      }
      lines.push(line);
      return lines;
    }"""
    )
    assert "".join(lines).endswith("reported-scores.json")
    assert len(lines) > 1 and all(line[-1] in "/-_." for line in lines[:-1]), lines
    context.close()


def test_an_items_sort_order_is_kept_in_the_address_and_a_link_reproduces_it(page, site_url):
    page.goto(site_url + "tuckerbench/v1-pilot/items/")
    result = page.locator("thead button").filter(has_text=re.compile("^Result$"))  # its role name changes once sorted
    result.click()
    result.click()  # descending
    assert page.url.endswith("items/?sort=result&order=descending"), page.url
    shown = page.locator("table tbody tr th").all_inner_texts()
    fresh = page.context.new_page()  # the link alone, in another tab
    fresh.goto(page.url)
    assert fresh.locator("table tbody tr th").all_inner_texts() == shown
    assert fresh.locator("th[aria-sort=descending]").inner_text().strip() == "Result"
    fresh.close()


def test_a_transcript_filter_is_kept_in_the_address_and_a_link_reproduces_it(page, site_url):
    page.goto(site_url + "uzbek-pack/0.1.0/transcripts/")
    page.select_option("form[data-list-filter] select[name=entrant]", "Demo Model B")
    page.select_option("form[data-list-filter] select[name=state]", "fail")
    expect(page.locator("[data-list-status]")).to_contain_text("match")
    assert "entrant=Demo+Model+B" in page.url and "state=fail" in page.url
    rows = page.locator("table[data-list-table] tbody tr").all_inner_texts()
    fresh = page.context.new_page()
    fresh.goto(page.url)
    expect(fresh.locator("[data-list-status]")).to_contain_text("match")
    assert fresh.locator("form[data-list-filter] select[name=entrant]").input_value() == "Demo Model B"
    assert fresh.locator("table[data-list-table] tbody tr").all_inner_texts() == rows
    fresh.close()


def test_the_whole_transcript_list_is_loaded_once_however_quickly_its_filters_change(page, site_url):
    """A second filter chosen while the whole list is still loading waits for that load, which shows both filters: it
    used to start a load of its own, and two renders raced (a reader's rows could be replaced as they were read)."""
    held, asked = [], []

    def hold(route):  # the list's first file is held until both filters are chosen
        asked.append(route.request.url)
        held.append(route)

    page.route(re.compile(r".*/uzbek-pack/0\.1\.0/data/transcripts\.json$"), hold)
    page.goto(site_url + "uzbek-pack/0.1.0/transcripts/")
    page.select_option("form[data-list-filter] select[name=entrant]", "Demo Model B")
    expect(page.locator("[data-list-status]")).to_contain_text("Loading the whole list")
    page.select_option("form[data-list-filter] select[name=state]", "fail")
    page.wait_for_timeout(200)  # time for a second load to be asked for, if one were
    for route in held:
        route.continue_()
    expect(page.locator("[data-list-status]")).to_contain_text("match")
    assert len(asked) == 1, asked
    shown = page.locator("table[data-list-table] tbody tr").all_text_contents()
    assert shown and all(re.fullmatch(r"Demo Model B.*fail( .*)?", row) for row in shown), shown
