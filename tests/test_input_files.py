"""What a build holds of its content and run files: each one's stat and SHA-256, packed in name order
(site_src/build/input_files.py), as every slice and the merge of a version hold every run file of it."""

from __future__ import annotations

import hashlib
import os
import random
import tracemalloc
from pathlib import Path

import pytest

from site_src.build import cache, input_files
from site_src.build.input_files import InputFiles

RECORD = 56  # the size, mtime and inode (24 bytes) and the SHA-256 (32)


def record(name: str) -> bytes:
    return hashlib.sha256(name.encode("utf-8", "surrogateescape")).digest() + bytes(24)


def files_of(names: list[str]) -> dict[str, bytes]:
    return {name: record(name) for name in sorted(names)}


# runs whose names begin alike: a run's files must not take its neighbours' (a-b, a.b and a0 sort around a/)
NAMES = [
    f"runs/{run}/{leaf}"
    for run in ("a", "a-b", "a.b", "a0", "ab", "b")
    for leaf in ("manifest.json", "judgments/jk.jsonl", "transcripts/e1/s1.r1.json", "transcripts/e1/s1.r2.json")
] + ["content/tb/benchmark.yaml", "runs/a/caf\u00e9.json", "runs/a/raw-\udcff.json"]  # a name os could not decode


@pytest.mark.parametrize("block", [1, 3, 2_000])
def test_packed_files_read_back_as_the_dict_they_were_made_from(block, monkeypatch):
    monkeypatch.setattr(input_files, "BLOCK", block)
    given = files_of(NAMES)
    packed = InputFiles(given.items())
    assert len(packed) == len(given) and list(packed) == list(given) and dict(packed.items()) == given
    assert packed == given and all(packed[name] == value for name, value in given.items())
    for missing in ("runs/a", "runs/a/", "runs/zz", "", "content/tb/benchmark.yaml0"):
        assert missing not in packed
        with pytest.raises(KeyError):
            packed[missing]


@pytest.mark.parametrize("block", [1, 3, 2_000])
def test_a_runs_files_are_those_below_its_folder_and_no_neighbours(block, monkeypatch):
    monkeypatch.setattr(input_files, "BLOCK", block)
    given = files_of(NAMES)
    packed = InputFiles(given.items())
    for prefix in ("runs/a/", "runs/a-b/", "runs/a.b/", "runs/a0/", "runs/b/", "content/", "runs/", "runs/c/", "z"):
        assert list(packed.below(prefix)) == [(n, v) for n, v in given.items() if n.startswith(prefix)], prefix


@pytest.mark.parametrize("block", [1, 4, 2_000])
def test_two_sets_of_files_join_in_name_order_the_second_winning_a_name_in_both(block, monkeypatch):
    monkeypatch.setattr(input_files, "BLOCK", block)
    rng = random.Random(2)
    names = sorted(NAMES)
    first = files_of(rng.sample(names, 15))
    second = {name: b"x" * RECORD for name in sorted(rng.sample(names, 15))}
    joined = InputFiles(first.items()) | InputFiles(second.items())
    assert list(joined.items()) == sorted({**first, **second}.items())
    apart = InputFiles(files_of(["content/a", "content/b"]).items()) | InputFiles(files_of(["runs/a/x"]).items())
    assert list(apart) == ["content/a", "content/b", "runs/a/x"]  # joined block by block
    assert list(InputFiles() | apart) == list(apart) == list(apart | InputFiles())


def test_the_files_a_build_digests_come_packed_and_the_run_keys_see_each_runs_own(tmp_path: Path):
    """cache._digests walks a folder into packed files, each the stat and SHA-256 of the file; a run's key takes
    the files below its folder and none of a run whose name begins alike."""
    for name in NAMES:
        if name.startswith("runs/") and "\udcff" not in name:
            (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / name).write_text(name, encoding="utf-8")
    raw = os.fsencode(tmp_path / "runs" / "a") + b"/raw-\xff.json"  # a name that is not UTF-8
    with open(raw, "wb") as f:
        f.write(b"raw")
    packed = cache._digests(tmp_path / "runs", "runs")
    assert isinstance(packed, InputFiles)
    assert list(packed) == sorted(n for n in NAMES if n.startswith("runs/"))
    assert cache._hex_of(packed["runs/a/raw-\udcff.json"]) == hashlib.sha256(b"raw").hexdigest()
    assert cache._hex_of(packed["runs/a-b/manifest.json"]) == hashlib.sha256(b"runs/a-b/manifest.json").hexdigest()
    assert [n for n, _ in packed.below("runs/a/")] == sorted(n for n in NAMES if n.startswith("runs/a/"))


def test_a_run_file_takes_under_a_hundred_bytes():
    """Packed, a run file costs its 56 bytes and a few of compressed name: in a dict it took about 300 (its name,
    its bytes, its entry), and every slice and the merge of a version hold every run file of it."""
    rng = random.Random(5)
    names = sorted(
        f"runs/tuckerbench/synthetic-e{run:03d}/transcripts/e{run:03d}/s{s}-{rng.choice(['bad-day', 'landlord'])}"
        f".r{rep}.json"
        for run in range(20)
        for s in range(6)
        for rep in range(200)
    )
    given = [(name, rng.randbytes(RECORD)) for name in names]
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        packed = InputFiles(iter(given))
        held = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert len(packed) == len(names) and held / len(names) < 100, held / len(names)
    assert list(packed.items()) == given
