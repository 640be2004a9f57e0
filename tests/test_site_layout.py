"""Site layout 2: each transcript page, its download and each item's pages lie in a folder of 256 named by the first
two hex digits of the SHA-256 of its id, so no folder of a version holds more than a few thousand entries even at a
million transcripts; old links are forwarded by the 404 page (tests/browser/test_layout_redirects.py)."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

import pytest
from helpers import fold

from site_src.changes import DiffError, read_published
from site_src.scoring.release import build_release
from site_src.site.app import create_app
from site_src.site.urls import LAYOUT

VERSION = "tuckerbench/v1-pilot"


def test_every_transcript_page_download_and_item_page_lies_in_the_folder_of_its_ids_hash(built_site: Path):
    pages = list(built_site.glob("*/*/t/*/*/index.html"))
    downloads = list(built_site.glob("*/*/data/t/*/*.json"))
    items = list(built_site.glob("*/*/items/*/*/index.html"))
    assert len(pages) == len(downloads) > 50 and len(items) > 30
    for page in pages:
        assert page.parent.parent.name == fold(page.parent.name), page
    for download in downloads:
        assert download.parent.name == fold(download.stem), download
    for item in items:
        assert item.parent.parent.name == fold(item.parent.name), item
    assert not list(built_site.glob("*/*/t/*/index.html"))  # nothing left where layout 1 put it


def test_a_transcript_or_item_asked_for_in_another_folder_is_not_a_page(demo):
    release = build_release(demo)
    client = create_app(release).test_client()
    tid = next(iter(release.view("tuckerbench", "v1-pilot").transcripts))
    right, wrong = fold(tid), "00" if fold(tid) != "00" else "01"
    assert client.get(f"/{VERSION}/t/{right}/{tid}/").status_code == 200
    assert client.get(f"/{VERSION}/t/{wrong}/{tid}/").status_code == 404
    assert client.get(f"/{VERSION}/data/t/{wrong}/{tid}.json").status_code == 404
    assert client.get(f"/{VERSION}/t/{tid}/").status_code == 404  # layout 1's address
    assert client.get(f"/{VERSION}/items/{fold('s4-kettle')}/s4-kettle/").status_code == 200
    assert client.get(f"/{VERSION}/items/s4-kettle/").status_code == 404


def test_the_manifest_names_the_layout_and_each_transcripts_own_sources(built_site: Path):
    manifest = json.loads((built_site / "publish-manifest.json").read_text(encoding="utf-8"))
    assert manifest["site_layout"] == LAYOUT == 3
    tid = "demo-model-a-run1--004--a1"
    for rel in (f"uzbek-pack/0.1.0/t/{fold(tid)}/{tid}/index.html", f"uzbek-pack/0.1.0/data/t/{fold(tid)}/{tid}.json"):
        assert manifest["files"][rel]["sources"] == ["runs/uzbek-pack/demo-model-a-run1/responses.jsonl"]


def test_the_transcript_list_download_gives_each_transcripts_page(built_site: Path):
    data = json.loads((built_site / VERSION / "data/transcripts/1.json").read_text(encoding="utf-8"))
    for row in data["transcripts"]:
        assert row["path"] == f"{VERSION}/t/{fold(row['id'])}/{row['id']}/"
        assert (built_site / row["path"] / "index.html").is_file()


def test_a_million_ids_fill_no_folder_past_ten_thousand_entries():
    """The ids a large release has (run, item, attempt), a million of them: the fullest of the 256 folders."""
    counts = Counter(fold(f"run{r:02d}--item-{i:05d}--a{a}") for r in range(20) for i in range(25_000) for a in (1, 2))
    assert sum(counts.values()) == 1_000_000 and len(counts) == 256
    assert max(counts.values()) < 4_200 < 10_000  # about 3,906 each


def test_the_transcript_list_is_written_in_parts_that_together_hold_every_transcript_in_order(demo, monkeypatch):
    from site_src.site import downloads

    monkeypatch.setattr(downloads, "LIST_PART", 5)  # 72 transcripts: 15 parts, the last of 2
    release = build_release(demo)
    view = release.view("uzbek-pack", "0.1.0")
    client = create_app(release).test_client()
    listed = client.get("/uzbek-pack/0.1.0/data/transcripts.json").get_json()
    assert listed["count"] == 72 and listed["parts"] == [
        f"uzbek-pack/0.1.0/data/transcripts/{n}.json" for n in range(1, 16)
    ]
    parts = [client.get(f"/{rel}").get_json() for rel in listed["parts"]]
    assert [len(p["transcripts"]) for p in parts] == [5] * 14 + [2]
    assert [r["id"] for p in parts for r in p["transcripts"]] == list(view.transcripts)
    assert client.get("/uzbek-pack/0.1.0/data/transcripts/16.json").status_code == 404
    assert client.get("/uzbek-pack/0.1.0/data/transcripts/0.json").status_code == 404


def test_an_earlier_sites_list_is_read_in_either_layout_and_parts_elsewhere_are_refused(built_site, tmp_path):
    new = read_published(built_site)
    old = tmp_path / "old"  # layout 1: the list held its transcripts itself
    for board in built_site.glob("*/*/data/leaderboard.json"):
        folder = old / board.parent.relative_to(built_site)
        folder.mkdir(parents=True)
        shutil.copy(board, folder)
        listed = json.loads((board.parent / "transcripts.json").read_text(encoding="utf-8"))
        rows = [r for p in listed["parts"] for r in json.loads((built_site / p).read_text("utf-8"))["transcripts"]]
        (folder / "transcripts.json").write_text(json.dumps({"transcripts": rows}), encoding="utf-8")
    assert {k: v.transcripts for k, v in read_published(old).versions.items()} == {
        k: v.transcripts for k, v in new.versions.items()
    }
    hostile = old / "uzbek-pack/0.1.0/data/transcripts.json"
    hostile.write_text(json.dumps({"parts": ["../../../../etc/passwd"]}), encoding="utf-8")
    with pytest.raises(DiffError, match="its parts are not uzbek-pack/0.1.0/data/transcripts/1.json"):
        read_published(old)
