"""A release built in shards (one benchmark version each, as CI runners would) and joined by build.py merge is the
same site, byte for byte, as one build of the whole release; a merge refuses shards that cannot make it."""

from __future__ import annotations

from pathlib import Path

from helpers import CONTENT, edit_jsonl, tree_hash

from site_src.cli import main

VERSIONS = ("uzbek-pack/0.1.0", "tuckerbench/v1-pilot", "halees-dual-layer/halees-dual-layer-v1")


def run(runs: Path, *args: str) -> int:
    return main(["--content", str(CONTENT), "--runs", str(runs), *args])


def shards(runs: Path, folder: Path) -> list[Path]:
    out = []
    for version in VERSIONS:
        target = folder / version.replace("/", "_")
        assert run(runs, "--only", version, "--out", str(target), "--quiet") == 0
        assert {p.name for p in target.iterdir()} == {version.split("/")[0], "publish-manifest.json"}
        out.append(target)
    return out


def test_shards_merged_are_byte_identical_to_one_build_of_the_whole_release(runs_copy, tmp_path):
    parts = shards(runs_copy, tmp_path / "shards")
    assert run(runs_copy, "merge", *map(str, parts), "--out", str(tmp_path / "merged"), "--quiet") == 0
    assert run(runs_copy, "--out", str(tmp_path / "whole"), "--quiet") == 0
    assert tree_hash(tmp_path / "merged") == tree_hash(tmp_path / "whole")


def test_merge_refuses_a_shard_built_from_other_inputs_and_writes_nothing(runs_copy, tmp_path, capsys):
    parts = shards(runs_copy, tmp_path / "shards")
    edit_jsonl(runs_copy / "uzbek-pack/demo-model-a-run1/responses.jsonl", 1, lambda r: r.update(raw_output="x"))
    capsys.readouterr()
    assert run(runs_copy, "merge", *map(str, parts), "--out", str(tmp_path / "merged")) == 1
    err = capsys.readouterr().err
    assert f"shard {parts[0]} built uzbek-pack/0.1.0 from other inputs" in err and "nothing was written" in err
    assert not (tmp_path / "merged").exists()


def test_merge_refuses_a_missing_version_a_repeated_one_and_a_folder_that_is_no_shard(runs_copy, tmp_path, capsys):
    parts = shards(runs_copy, tmp_path / "shards")
    out = str(tmp_path / "merged")
    assert run(runs_copy, "merge", *map(str, parts[:2]), "--out", out) == 1
    assert "no shard holds halees-dual-layer/halees-dual-layer-v1" in capsys.readouterr().err
    assert run(runs_copy, "merge", *map(str, parts), str(parts[0]), "--out", out) == 1
    assert "uzbek-pack/0.1.0 is in two shards" in capsys.readouterr().err
    assert run(runs_copy, "--out", str(tmp_path / "whole"), "--quiet") == 0
    assert run(runs_copy, "merge", str(tmp_path / "whole"), "--out", out) == 1
    assert "is not a shard" in capsys.readouterr().err
    assert run(runs_copy, "--only", "tuckerbench/v9", "--out", str(tmp_path / "x")) == 1
    assert "--only tuckerbench/v9: no benchmark version of that name" in capsys.readouterr().err
    assert not (tmp_path / "merged").exists()
