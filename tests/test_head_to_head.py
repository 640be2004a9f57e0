"""Head-to-head pages: two rows of a version compared overall (with the pair's interval, as the leaderboard labels
it), per breakdown column and item by item, each figure checked against a computation of its own."""

from __future__ import annotations

from statistics import fmean

import pytest

from site_src.scoring.release import build_release
from site_src.site.app import create_app
from site_src.site.headtohead import head_to_head, pair_keys

A, B = "demo-pilot-run1--alpha", "demo-pilot-run1--beta"


@pytest.fixture(scope="module")
def release(demo):  # noqa: ANN001, ANN201
    return build_release(demo)


@pytest.fixture(scope="module")
def client(release):  # noqa: ANN001, ANN201
    return create_app(release).test_client()


def test_every_pair_of_entrants_has_one_page_in_the_leaderboards_order(release):
    view = release.view("tuckerbench", "v1-pilot")
    keys = [r.key for r in view.rows]
    assert view.once(pair_keys) == [(a, b) for i, a in enumerate(keys) for b in keys[i + 1 :]]
    assert len(view.once(pair_keys)) == len(keys) * (len(keys) - 1) // 2


def test_items_split_by_a_mean_computed_from_the_transcript_scores(release):
    view = release.view("tuckerbench", "v1-pilot")
    h = head_to_head(view, A, B)

    def means(entrant: str) -> dict[str, float]:
        per: dict[str, list[float]] = {}
        for t in view.version.runs[0].transcripts:
            score = view.scored.transcripts[t.id].score
            if t.entrant_id == entrant and score is not None:
                per.setdefault(t.item_id, []).append(score)
        return {k: fmean(v) for k, v in per.items()}

    a, b = means("alpha"), means("beta")
    assert {g.item_id for g in h.a_better} == {i for i in a if a[i] > b[i]}
    assert {g.item_id for g in h.b_better} == {i for i in a if a[i] < b[i]}
    assert all(g.a == pytest.approx(a[g.item_id]) and g.b == pytest.approx(b[g.item_id]) for g in h.a_better)
    assert [round(g.gap, 9) for g in h.a_better] == sorted((round(g.gap, 9) for g in h.a_better), reverse=True)


def test_the_overall_difference_and_its_interval_are_the_leaderboards(release):
    view = release.view("tuckerbench", "v1-pilot")
    h = head_to_head(view, A, B)
    rows = {r.key: r for r in view.rows}
    assert h.difference == pytest.approx(rows[A].score - rows[B].score)
    _, interval, resolved = view.stats.separation.differences[(A, B)]
    assert (h.interval.lo, h.interval.hi, h.resolved) == (interval.lo, interval.hi, resolved)
    reverse = head_to_head(view, B, A)
    assert (reverse.interval.lo, reverse.interval.hi) == (-interval.hi, -interval.lo)


def test_a_pass_fail_pair_counts_cases_each_passed_and_says_no_interval_is_declared(client, release):
    view = release.view("uzbek-pack", "0.1.0")
    a, b = view.once(pair_keys)[0]
    h = head_to_head(view, a, b)
    assert all(g.gap in (1.0, -1.0) for g in h.a_better + h.b_better) and all(g.gap == 0 for g in h.tied)
    rows = {r.key: r for r in view.rows}
    assert len(h.a_better) - len(h.b_better) == rows[a].count - rows[b].count  # strict case passes
    page = client.get(f"/uzbek-pack/0.1.0/vs/{a}/{b}/").get_data(as_text=True)
    assert "declares no comparisons between entrants, so no interval is shown" in page


def test_the_page_reads_as_the_leaderboard_labels_it_and_is_linked_from_both_entrants_and_the_leaderboard(client):
    page = client.get(f"/tuckerbench/v1-pilot/vs/{A}/{B}/").get_data(as_text=True)
    assert "Demo Entrant Alpha minus Demo Entrant Beta" in page and "unresolved" in page
    assert "Demo Entrant Alpha is better on 2 items, Demo Entrant Beta on 4, 0 tied" in " ".join(page.split())
    assert client.get(f"/tuckerbench/v1-pilot/vs/{B}/{A}/").status_code == 404  # each pair once
    assert client.get(f"/tuckerbench/v1-pilot/vs/{A}/nobody/").status_code == 404
    link = f'href="../../vs/{A}/{B}/"'
    for who in ("alpha", "beta"):
        assert link in client.get(f"/tuckerbench/v1-pilot/entrants/{who}/").get_data(as_text=True)
    board = client.get("/tuckerbench/v1-pilot/").get_data(as_text=True)
    assert f'href="vs/{A}/{B}/">Demo Entrant Beta</a>' in board  # "not separated from Beta" links to the pair
