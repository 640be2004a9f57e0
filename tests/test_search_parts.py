"""A run of more than PAGES_PER_BUNDLE transcripts is indexed for search in several Pagefind bundles (its parts),
so no bundle's folder of fragments holds more than about 10,000 files; a transcript's part is fixed by its id's
folder of 256. Here the demo's runs are split by a PAGES_PER_BUNDLE of 4."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from helpers import CONTENT, fold, tree_hash

from site_src.cli import main
from site_src.scoring.release import build_release
from site_src.site import search_index
from site_src.site.search_index import bundle_of, bundles, parts_of

VERSIONS = ("uzbek-pack/0.1.0", "tuckerbench/v1-pilot", "halees-dual-layer/halees-dual-layer-v1")


@pytest.fixture
def small_bundles(monkeypatch):
    monkeypatch.setattr(search_index, "PAGES_PER_BUNDLE", 4)


def run(runs: Path, *args: str) -> int:
    return main(["--content", str(CONTENT), "--runs", str(runs), "--quiet", *args])


def test_a_run_has_one_bundle_up_to_the_limit_then_a_power_of_two_bringing_the_mean_under_it():
    limit = search_index.PAGES_PER_BUNDLE
    assert [parts_of(n) for n in (1, limit, limit + 1, 2 * limit, 2 * limit + 1, 5 * limit)] == [1, 1, 2, 2, 4, 8]
    assert parts_of(10**9) == 256  # one part per folder of 256 at most


def test_each_transcript_page_is_in_exactly_one_bundle_of_its_run_and_the_part_of_its_folder(demo, small_bundles):
    release = build_release(demo)
    found = bundles(release)
    for view in release.views:
        runs: dict[str, int] = {}
        for t in view.transcripts.values():
            runs[t.run_id] = runs.get(t.run_id, 0) + 1
        for tid, t in view.transcripts.items():
            count = parts_of(runs[t.run_id])
            part = int(fold(tid), 16) * count // 256 + 1
            name = f"{view.folder}/search/{t.run_id}" + (f"/{part}" if part > 1 else "")
            page = f"{view.folder}/t/{fold(tid)}/{tid}/index.html"
            assert [n for n, pages in found.items() if page in pages] == [name]
    assert any(name.count("/") == 4 for name in found)  # some later part, nested in its run's bundle
    assert all(len(pages) <= 12 for pages in found.values())  # 4 on average, a few more by chance


def test_the_site_holds_every_part_and_the_search_page_merges_them_all(runs_copy, tmp_path, small_bundles, demo):
    out = tmp_path / "site"
    assert run(runs_copy, "--out", str(out)) == 0
    names = sorted(bundles(build_release(demo)))
    for name in names:
        assert (out / name / "pagefind-entry.json").is_file(), name
    listed = re.search(r'data-bundles="([^"]*)"', (out / "search/index.html").read_text(encoding="utf-8")).group(1)
    assert sorted(b.removeprefix("../").rstrip("/") for b in listed.split()) == names
    manifest = json.loads((out / "publish-manifest.json").read_text(encoding="utf-8"))
    held = {bundle_of(rel) for rel in manifest["files"]} - {None}
    assert held == set(names)


def test_parts_are_kept_by_a_rebuild_and_taken_by_a_merge_byte_for_byte(runs_copy, tmp_path, small_bundles):
    whole = tmp_path / "whole"
    assert run(runs_copy, "--out", str(whole)) == 0
    shards = []
    for version in VERSIONS:
        shard = tmp_path / version.replace("/", "_")
        assert run(runs_copy, "--only", version, "--out", str(shard)) == 0
        shards.append(str(shard))
    assert run(runs_copy, "merge", *shards, "--out", str(tmp_path / "merged")) == 0
    assert tree_hash(tmp_path / "merged") == tree_hash(whole)
    path = runs_copy / "uzbek-pack/demo-model-a-run1/responses.jsonl"
    path.write_text(path.read_text(encoding="utf-8").replace("Буюртмангиз", "Буюртма", 1), encoding="utf-8")
    assert run(runs_copy, "--out", str(whole)) == 0
    assert run(runs_copy, "--out", str(tmp_path / "fresh"), "--fresh") == 0
    assert tree_hash(whole) == tree_hash(tmp_path / "fresh")
