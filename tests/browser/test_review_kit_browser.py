"""Recording blind choices in the review kit, in a real browser, and downloading them in the public format."""

from __future__ import annotations

import json

from site_src.review_kit import write_review_kit
from site_src.site.serve_static import serve
from site_src.validate import validator


def test_choices_are_recorded_and_downloaded_as_human_pairs_jsonl(page, demo, tmp_path):
    out = tmp_path / "_review"
    assert write_review_kit(demo, out, tmp_path / "_site") == 0
    server, url = serve(out, "/")
    try:
        page.goto(url + "demo-pilot-run1/pair-01.html")
        assert page.get_by_role("heading", name="Transcript A").is_visible()
        page.get_by_role("radio", name="B").check()
        page.goto(url + "demo-pilot-run1/pair-02.html")
        page.get_by_role("radio", name="tie").check()
        page.goto(url + "index.html")
        page.get_by_label("Your reviewer name").fill("reviewer-1")
        assert "chosen: B" in page.locator("li").first.inner_text()
        with page.expect_download() as info:
            page.get_by_role("button", name="Download human-pairs.jsonl").click()
        lines = [json.loads(x) for x in open(info.value.path(), encoding="utf-8").read().splitlines()]
    finally:
        server.shutdown()
    assert [(x["pair_id"], x["choice"], x["reviewer"]) for x in lines] == [
        ("pair-01", "B", "reviewer-1"),
        ("pair-02", "tie", "reviewer-1"),
    ]
    for line in lines:
        assert list(validator("tucker-human-pair").iter_errors(line)) == []
