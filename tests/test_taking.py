"""A merge takes its shards' files on every core: in chunks, in worker processes, with the same checks and the same
result as one process taking them one by one."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from helpers import CONTENT

from site_src.build import taking
from site_src.build.merge import ShardFile
from site_src.cli import main

TUCKER = "tuckerbench/v1-pilot"
TOKEN = "ghp_" + "a1B2" * 9  # a GitHub token's shape


@pytest.fixture(scope="module")
def shard(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from helpers import RUNS

    out = tmp_path_factory.mktemp("taking") / "shard"
    assert main(["--content", str(CONTENT), "--runs", str(RUNS), "--only", TUCKER, "--out", str(out), "-q"]) == 0
    return out


def listed(shard: Path) -> dict[str, ShardFile]:
    manifest = json.loads((shard / "publish-manifest.json").read_text(encoding="utf-8"))
    return {rel: ShardFile(shard, bytes.fromhex(e["sha256"]), "") for rel, e in manifest["files"].items()}


@pytest.mark.parametrize("jobs", [1, 2])
def test_every_file_is_copied_and_known_by_its_digest_in_one_process_or_several(jobs, shard, tmp_path, monkeypatch):
    monkeypatch.setattr(taking, "CHUNK", 7)  # many chunks: the demo shard has a few hundred files
    files = listed(shard)
    known: dict[str, bytes] = {}
    findings, problem = taking.take(files, tmp_path / "site", known, jobs=jobs)
    assert (findings, problem) == ([], None)
    assert known == {rel: f.sha256 for rel, f in files.items()}
    for rel in files:
        data = (tmp_path / "site" / rel).read_bytes()
        assert hashlib.sha256(data).digest() == files[rel].sha256
        assert not (tmp_path / "site" / rel).is_symlink() and (tmp_path / "site" / rel).stat().st_nlink == 1


def test_a_worker_stops_at_a_file_that_differs_and_says_which(shard, tmp_path, monkeypatch):
    monkeypatch.setattr(taking, "CHUNK", 7)
    files = listed(shard)
    late = sorted(files)[-3]  # in the last chunk, taken by a worker
    files[late] = ShardFile(shard, b"\0" * 32, "")
    _, problem = taking.take(files, tmp_path / "site", {}, jobs=2)
    assert problem == f"{shard / late} is missing, a link, or differs from its shard's publish-manifest.json"


def test_what_the_workers_find_is_reported_in_path_order(shard, tmp_path, monkeypatch):
    monkeypatch.setattr(taking, "CHUNK", 7)
    files = listed(shard)
    pages = [rel for rel in sorted(files) if rel.endswith(".html")]
    for rel in (pages[-1], pages[0]):  # in the last chunk and the first
        data = (shard / rel).read_bytes().replace(b"</main>", f"<p>{TOKEN}</p></main>".encode())
        copy = tmp_path / "planted" / rel
        copy.parent.mkdir(parents=True, exist_ok=True)
        copy.write_bytes(data)
    root = tmp_path / "planted"
    planted = {
        rel: ShardFile(root, hashlib.sha256((root / rel).read_bytes()).digest(), "") for rel in (pages[-1], pages[0])
    }
    findings, problem = taking.take({**files, **planted}, tmp_path / "site", {}, jobs=2)
    assert problem is None
    assert [f.file for f in findings] == [pages[0], pages[-1]]
    assert {f.rule for f in findings} == {"github-token"}


def test_a_file_in_a_folder_that_is_a_link_is_not_read(shard, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "index.html").write_text("<p>not the shard's</p>", encoding="utf-8")
    copy = tmp_path / "copy"
    (copy / TUCKER).mkdir(parents=True)
    (copy / TUCKER / "methodology").symlink_to(outside, target_is_directory=True)
    rel = f"{TUCKER}/methodology/index.html"
    digest = hashlib.sha256((outside / "index.html").read_bytes()).digest()
    assert rel not in taking.plain_files(copy)
    _, problem = taking.take({rel: ShardFile(copy, digest, "")}, tmp_path / "site", {})
    assert problem and "is missing, a link, or differs" in problem
    assert not (tmp_path / "site" / rel).exists()
