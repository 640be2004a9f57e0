"""Links made before site layout 2 (a transcript, its download or an item straight under t/, data/t/ or items/)
reach their page: the 404 page the host serves for them forwards each to the folder of 256 its id falls in."""

from __future__ import annotations

import json

from helpers import fold

TID = "demo-pilot-run1--beta--s4-kettle--r1"
VERSION = "tuckerbench/v1-pilot/"


def test_an_old_transcript_link_is_forwarded_to_its_page_with_its_query_and_fragment(page, site_url):
    page.goto(site_url + f"{VERSION}t/{TID}/?from=old#turn-2")
    page.wait_for_url(f"**/t/{fold(TID)}/{TID}/?from=old#turn-2")
    assert page.url == site_url + f"{VERSION}t/{fold(TID)}/{TID}/?from=old#turn-2"
    assert page.get_by_role("heading", level=1).is_visible()


def test_an_old_download_and_an_old_item_link_are_forwarded(page, site_url):
    page.goto(site_url + f"{VERSION}data/t/{TID}.json")
    page.wait_for_url(f"**/data/t/{fold(TID)}/{TID}.json")
    assert json.loads(page.locator("body").inner_text())["transcript"]["id"] == TID
    page.goto(site_url + f"{VERSION}items/s4-kettle/")
    page.wait_for_url(f"**/items/{fold('s4-kettle')}/s4-kettle/")
    assert page.get_by_role("heading", level=1).inner_text().startswith("The office kettle")


def test_a_link_to_nothing_stays_on_the_404_page_without_a_loop(page, site_url):
    seen: list[str] = []
    page.on("framenavigated", lambda frame: seen.append(frame.url) if frame == page.main_frame else None)
    response = page.goto(site_url + f"{VERSION}t/no-such-transcript/")
    assert response.status == 404
    page.wait_for_url(f"**/t/{fold('no-such-transcript')}/no-such-transcript/")  # forwarded once, to nothing
    page.wait_for_timeout(300)
    assert page.get_by_role("heading", name="Page not found").is_visible()
    assert len(seen) == 2, seen


def test_without_javascript_the_404_page_says_where_old_links_went(chromium_browser, site_url):
    context = chromium_browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(site_url + f"{VERSION}t/{TID}/")
    assert page.url.endswith(f"t/{TID}/")
    said = page.locator("#moved-pages").inner_text()
    assert "When JavaScript is on, these links are forwarded to the page they meant" in said
    assert "Without JavaScript, find the transcript or item from its version's lists" in said
    context.close()
