"""A long list's pager (the transcript list, an item's responses, an entrant's transcripts, the items list) links a
few pages each side, the first and the last, and jumps of 10, 100, 1,000 … each way: never every page. Listing every
page made each of a list's n pages hold n links, n² in all: at a million transcripts, about 8 GB of the site's
pages were page numbers."""

from __future__ import annotations

import math
import re
from collections import deque
from urllib.parse import urljoin

import pytest

from site_src.release import pages_linked, paginate

SIZES = (1, 2, 5, 6, 9, 11, 95, 1_000, 10_000, 123_457)


def most_links(pages: int) -> int:
    """The ends, five around the page, two jumps for each power of ten below the count, and a gap between each."""
    jumps = 2 * max(0, math.ceil(math.log10(pages)) - 1)
    return 2 * (2 + 5 + jumps)


def clicks(pages: int) -> list[int]:
    """How many clicks each page is from page 1, following the pagers' links."""
    seen = {1: 0}
    queue = deque([1])
    while queue:
        page = queue.popleft()
        for n in pages_linked(page, pages):
            if n is not None and n not in seen:
                seen[n] = seen[page] + 1
                queue.append(n)
    return [seen.get(n, -1) for n in range(1, pages + 1)]


@pytest.mark.parametrize("pages", SIZES)
def test_a_pager_shows_its_page_the_ends_and_its_neighbours_in_order_with_a_gap_only_where_two_or_more_are_left_out(
    pages,
):
    for number in sorted({1, 2, 3, pages // 2, pages - 1, pages} & set(range(1, pages + 1))):
        linked = pages_linked(number, pages)
        numbers = [n for n in linked if n is not None]
        assert numbers == sorted(set(numbers)) and numbers[0] == 1 and numbers[-1] == pages
        assert {n for n in range(number - 2, number + 3) if 1 <= n <= pages} <= set(numbers)
        assert linked[0] is not None and linked[-1] is not None
        for before, gap, after in zip(linked, linked[1:], linked[2:], strict=False):
            if gap is None:
                assert after - before > 2  # a gap of one page would show the page instead
        for a, b in zip(numbers, numbers[1:], strict=False):
            assert b - a == 1 or None in linked[linked.index(a) : linked.index(b)]
        assert len(linked) <= most_links(pages)


@pytest.mark.parametrize("pages", SIZES)
def test_every_page_of_a_list_is_reached_from_its_first_in_a_few_clicks(pages):
    far = clicks(pages)
    assert -1 not in far
    assert max(far) <= 9 * max(1, math.ceil(math.log10(pages)))


def test_a_lists_pagers_grow_by_two_jumps_and_their_gaps_each_time_its_pages_grow_tenfold():
    assert [len(pages_linked(5 * 10**k, 10 ** (k + 1))) for k in range(1, 6)] == [13, 17, 21, 25, 29]


@pytest.fixture(scope="module")
def one_row_pages(demo):  # noqa: ANN001, ANN201
    """The demo's app with one row or card to a page, so its lists have as many pages as rows."""
    from site_src.scoring.release import build_release
    from site_src.site import app

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(app, "paginate", lambda items, page, size=1: paginate(items, page, 1))
        patch.setattr(app, "CARDS_PER_PAGE", 1)
        release = build_release(demo)
        yield release, app.create_app(release).test_client()


def pager_links(html: str) -> tuple[list[str], str, dict[str, str]]:
    """The pager's links (their hrefs), its current page and its rel links."""
    nav = re.search(r'<nav aria-label="[^"]*" class="pager">(.*?)</nav>', html, re.S).group(1)
    current = re.search(r'<span aria-current="page">(\d+)</span>', nav).group(1)
    rels = dict((rel, href) for href, rel in re.findall(r'<a href="([^"]+)" rel="(prev|next)"', nav))
    return re.findall(r'<a href="([^"]+)"', nav), current, rels


def test_the_transcript_lists_pages_link_existing_pages_and_each_is_reached_from_the_first(one_row_pages):
    release, client = one_row_pages
    view = max(release.views, key=lambda v: len(v.transcripts))
    pages = len(view.transcripts)
    assert pages >= 12  # enough for gaps
    base = f"/{view.folder}/transcripts/"
    address = {1: base, **{n: f"{base}page/{n}/" for n in range(2, pages + 1)}}
    found: dict[int, set[int]] = {}
    for n, url in address.items():
        response = client.get(url)
        assert response.status_code == 200, url
        links, current, rels = pager_links(response.get_data(as_text=True))
        assert current == str(n)
        targets = set()
        for href in links:
            target = urljoin(url, href)
            assert target in address.values(), (url, href)
            targets.add(next(k for k, v in address.items() if v == target))
        assert len(links) < most_links(pages)
        assert (urljoin(url, rels["prev"]) if "prev" in rels else None) == address.get(n - 1)
        assert (urljoin(url, rels["next"]) if "next" in rels else None) == address.get(n + 1)
        found[n] = targets
    reached, queue = {1}, deque([1])
    while queue:
        for m in found[queue.popleft()] - reached:
            reached.add(m)
            queue.append(m)
    assert reached == set(address)


def test_an_items_pages_of_one_response_each_have_a_pager_of_a_few_links(one_row_pages):
    release, client = one_row_pages
    view = max(release.views, key=lambda v: len(v.transcripts))
    item = max(view.version.items, key=lambda i: sum(t.item_id == i.id for t in view.transcripts.values()))
    responses = sum(t.item_id == item.id for t in view.transcripts.values())
    assert responses >= 3
    from site_src.site.urls import fold

    url = f"/{view.folder}/items/{fold(item.id)}/{item.id}/page/2/"
    links, current, rels = pager_links(client.get(url).get_data(as_text=True))
    assert current == "2" and len(links) < most_links(responses)
    assert urljoin(url, rels["prev"]) == f"/{view.folder}/items/{fold(item.id)}/{item.id}/"
