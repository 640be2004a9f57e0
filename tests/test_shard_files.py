"""What a merge holds of the files it takes: each shard's listing packed in path order, merged across shards as it
is read (site_src/build/shard_files.py)."""

from __future__ import annotations

import hashlib
import random
import tracemalloc
from pathlib import Path

import pytest

from site_src.build import merge, shard_files
from site_src.build.shard_files import MergedFiles, ShardFile, ShardFiles
from site_src.build.summary import pages_digest

VERSION = "tuckerbench/v1-pilot"


def rows_for(rels: list[str], sources: bool = True) -> list[shard_files.Row]:
    """A row for each file; without sources, none (as a lean transcript page names none)."""
    return [
        (rel, hashlib.sha256(rel.encode()).digest(), [f"runs/{rel[-7:]}"] if sources else [], VERSION) for rel in rels
    ]


def paths(n: int, seed: int = 0) -> list[str]:
    rng = random.Random(seed)
    return sorted({f"{VERSION}/t/{rng.randrange(256):02x}/run-{rng.randrange(10**9)}.html" for _ in range(n)})


def dealt(rels: list[str], shards: int, seed: int = 1) -> dict[Path, list[str]]:
    """rels dealt to shards at random, as a slice's transcripts are (by their search bundle) and its other files
    (by a hash of their path)."""
    rng = random.Random(seed)
    out: dict[Path, list[str]] = {Path(f"slice-{k}"): [] for k in range(1, shards + 1)}
    for rel in rels:
        out[Path(f"slice-{rng.randrange(1, shards + 1)}")].append(rel)
    return out


@pytest.mark.parametrize("shards", [1, 3, 16])
def test_the_shards_files_come_out_in_path_order_each_with_what_its_shard_lists(shards, monkeypatch):
    """Each shard's listing added a part at a time (parts in order, and a part in any order within), in blocks
    smaller than a part: in_order gives every file once, in path order, with its shard, digest and sources."""
    monkeypatch.setattr(shard_files, "BLOCK", 7)
    rels = paths(1_000)
    files = ShardFiles()
    for shard, mine in dealt(rels, shards).items():
        for start in range(0, len(mine), 50):  # a part of a shard's manifest at a time
            part = rows_for(mine[start : start + 50])
            random.Random(start).shuffle(part)
            files.add(shard, part)
    assert len(files) == len(rels)
    assert len(files.runs) == shards  # a shard's parts, each after the one before, make one run
    got = list(MergedFiles([], files).described())
    assert [rel for rel, _ in got] == rels
    owner = {rel: shard for shard, mine in dealt(rels, shards).items() for rel in mine}
    for (rel, digest, sources, _), (_, file) in zip(rows_for(rels), got, strict=True):
        assert file == ShardFile(owner[rel], digest, sources)


def test_a_part_that_does_not_follow_the_last_starts_a_run_of_its_own_and_the_order_holds(monkeypatch):
    monkeypatch.setattr(shard_files, "BLOCK", 5)
    rels = paths(200)
    files = ShardFiles()
    files.add(Path("shard"), rows_for(rels[100:]))
    files.add(Path("shard"), rows_for(rels[:100]))  # an edited manifest: its parts out of order
    assert len(files.runs) == 2
    assert [rel for rel, _, _ in files.in_order()] == rels


def gathered(listings: dict[Path, list[list[str]]]) -> merge.Gathered:
    got = merge.Gathered()
    for shard, parts in listings.items():
        for part in parts:
            got.files.add(shard, rows_for(part))
    return got


def test_a_file_listed_twice_by_one_shard_or_by_two_is_named_with_its_shards():
    rels = paths(30)
    twice = gathered({Path("a"): [rels[:20], rels[10:11]]})  # in two parts of one shard's manifest
    assert (
        merge._listed_twice(twice)
        == f"{Path('a') / 'publish-manifest.json'} lists {rels[10]} twice; rebuild that shard"
    )
    both = gathered({Path("a"): [rels[:20]], Path("b"): [rels[19:]]})
    assert merge._listed_twice(both) == f"{rels[19]} is listed by two shards, a and b; rebuild them"
    assert merge._listed_twice(gathered({Path("a"): [rels[:20]], Path("b"): [rels[20:]]})) is None


def test_the_digest_of_a_versions_pages_is_the_one_its_summary_takes_of_them_sorted():
    """A merge hashes a version's pages as its shards list them, in path order (summary.PagesDigest), and a shard
    build's summary hashes them as it writes them, in any order (summary.pages_digest): the two must agree."""
    rels = paths(500)
    got = gathered({shard: [mine] for shard, mine in dealt(rels, 4).items()})
    assert merge._listed_twice(got) is None
    assert got.pages[VERSION].result() == pages_digest(reversed(rels))


def test_the_merged_sites_listing_puts_the_merges_own_pages_among_the_shards_files_in_path_order():
    rels = paths(300)
    files = ShardFiles()
    for shard, mine in dealt(rels, 3).items():
        files.add(shard, rows_for(mine))
    rendered = sorted(["404.html", "index.html", "tuckerbench/index.html", "zz/last.html", f"{VERSION}/t/00/a"])
    listing = MergedFiles(rendered, files) + ["publish-manifest/1.json"]
    assert list(listing) == [*sorted(rels + rendered), "publish-manifest/1.json"]
    assert len(listing) == len(rels) + len(rendered) + 1
    described = dict(listing.described())
    assert described["index.html"] is None and described[rels[0]].sha256 == hashlib.sha256(rels[0].encode()).digest()


def test_a_file_with_its_path_and_sources_takes_under_a_hundred_bytes():
    """Packed, a file a merge holds costs its digest and a few bytes of compressed path and sources (its run's
    transcript file and judgments, about 180 characters here): as Python objects its path, digest and sources took
    about 700 bytes (a string for each, an object for the file, tuples of sources, entries in dicts of them all)."""
    rng = random.Random(3)
    rels = paths(40_000)
    run = "runs/tuckerbench/synthetic-e{:03d}"
    given = {
        shard: [
            (rel, hashlib.sha256(rel.encode()).digest(), [
                f"{run.format(rng.randrange(20))}/transcripts/s{rng.randrange(6)}.r{rng.randrange(800)}.json",
                f"{run.format(0)}/judgments/jk.jsonl",
                f"{run.format(0)}/judgments/jq.jsonl",
            ], VERSION)
            for rel in mine
        ]
        for shard, mine in dealt(rels, 16).items()
    }  # fmt: skip
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        files = ShardFiles()
        for shard, rows in given.items():
            files.add(shard, rows)
        held = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert len(files) == len(rels) and held / len(rels) < 100, held / len(rels)
    assert [file.sources for _, file in MergedFiles([], files).described()] == [
        row[2] for _, row in sorted((row[0], row) for rows in given.values() for row in rows)
    ]


def test_the_pages_of_hundreds_of_versions_are_told_apart():
    """A file's version is a number per file: a merge of more versions than a byte counts (a release of many
    benchmarks, each version a shard) still digests each version's pages apart."""
    got = merge.Gathered()
    names = [f"bench-{k:03d}/v1" for k in range(300)]
    for k, name in enumerate(names):
        rel = f"{name}/index.html"
        got.files.add(Path(f"shard-{k}"), [(rel, hashlib.sha256(rel.encode()).digest(), name, name)])
    assert merge._listed_twice(got) is None
    assert {name: got.pages[name].result() for name in names} == {
        name: pages_digest([f"{name}/index.html"]) for name in names
    }
