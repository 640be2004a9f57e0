"""A merge takes its shards' files on every core: in chunks, in worker processes, with the same checks and the same
result as one process taking them one by one."""

from __future__ import annotations

import errno
import hashlib
import json
import shutil
import stat
from pathlib import Path

import pytest
from helpers import CONTENT

from site_src.build import taking
from site_src.build.shard_files import ShardFile, ShardFiles
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


def packed(files: dict[str, ShardFile]) -> ShardFiles:
    """files as a merge holds them: each shard's, packed (the shards in the order they first appear)."""
    out = ShardFiles()
    for shard in dict.fromkeys(f.shard for f in files.values()):
        out.add(shard, [(rel, f.sha256, f.sources, None) for rel, f in files.items() if f.shard == shard])
    return out


@pytest.mark.parametrize("jobs", [1, 2])
def test_every_file_is_linked_and_checked_by_its_digest_in_one_process_or_several(jobs, shard, tmp_path, monkeypatch):
    monkeypatch.setattr(taking, "CHUNK", 7)  # many chunks: the demo shard has a few hundred files
    files = listed(shard)
    findings, problem = taking.take(packed(files), tmp_path / "site", jobs=jobs)
    assert (findings, problem) == ([], None)
    for rel in files:
        data = (tmp_path / "site" / rel).read_bytes()
        assert hashlib.sha256(data).digest() == files[rel].sha256
        assert not (tmp_path / "site" / rel).is_symlink()
        assert (tmp_path / "site" / rel).stat().st_ino == (shard / rel).stat().st_ino  # the very file checked


def test_a_file_is_copied_when_it_cannot_be_linked_or_has_another_mode(shard, tmp_path, monkeypatch):
    files = listed(shard)
    odd = sorted(files)[0]
    copy = tmp_path / "shard"
    shutil.copytree(shard, copy)
    (copy / odd).chmod(0o755)  # a build gives its files 0o666 less the umask: the site keeps that
    files = {rel: ShardFile(copy, f.sha256, "") for rel, f in files.items()}
    assert taking.take(packed(files), tmp_path / "site", jobs=1) == ([], None)
    site = tmp_path / "site"
    assert (site / odd).stat().st_ino != (copy / odd).stat().st_ino
    assert stat.S_IMODE((site / odd).stat().st_mode) == stat.S_IMODE((copy / sorted(files)[1]).stat().st_mode)
    assert (site / odd).read_bytes() == (copy / odd).read_bytes()

    def cross_device(src, dst):
        raise OSError(errno.EXDEV, "Invalid cross-device link")

    monkeypatch.setattr(taking.os, "link", cross_device)  # the shard on another file system
    assert taking.take(packed(files), tmp_path / "site2", jobs=1) == ([], None)
    for rel in files:
        assert (tmp_path / "site2" / rel).read_bytes() == (copy / rel).read_bytes()
        assert (tmp_path / "site2" / rel).stat().st_nlink == 1


def test_a_link_is_kept_only_if_it_names_the_file_that_was_read(tmp_path):
    """A path swapped between the read and the link: the new link names another file, so the checked bytes are
    written instead."""
    checked, swapped = tmp_path / "checked", tmp_path / "swapped"
    checked.write_bytes(b"checked")
    swapped.write_bytes(b"swapped in")
    mode = stat.S_IMODE(checked.stat().st_mode)
    target = tmp_path / "site.html"
    taking._place(str(swapped), checked.stat(), b"checked", str(target), mode)
    assert target.read_bytes() == b"checked"
    assert target.stat().st_ino not in (checked.stat().st_ino, swapped.stat().st_ino)
    taking._place(str(checked), checked.stat(), b"checked", str(tmp_path / "linked.html"), mode)
    assert (tmp_path / "linked.html").stat().st_ino == checked.stat().st_ino


def test_a_file_is_read_whole_and_a_pipe_or_link_put_in_its_place_since_the_walk_is_not_read(tmp_path):
    """Each file is read by its descriptor: whole, but never through a link, and a pipe put where the walk saw a file
    is refused at once (opening it for reading would otherwise wait for a writer)."""
    import os

    big = tmp_path / "big.html"
    big.write_bytes(b"x" * (3 << 20))  # more than one read of the reader's step
    data, read = taking._read(str(big))
    assert data == big.read_bytes() and read.st_size == len(data)
    os.mkfifo(tmp_path / "pipe.html")
    assert taking._read(str(tmp_path / "pipe.html")) is None
    (tmp_path / "link.html").symlink_to(big)
    assert taking._read(str(tmp_path / "link.html")) is None
    assert taking._read(str(tmp_path / "gone.html")) is None


def test_a_file_that_grew_since_its_stat_is_read_to_its_end(tmp_path, monkeypatch):
    """A file is read in one read of its size and one byte more; one that has grown past the size its stat gave is
    read on to its end (its digest then tells the merge it is not the file its shard listed)."""
    import os

    grown = tmp_path / "grown.html"
    grown.write_bytes(bytes(range(256)) * 1200)  # several of the reader's steps past the size it was told
    real = os.fstat

    def stale(fd: int) -> os.stat_result:
        st = real(fd)
        return os.stat_result((st.st_mode, st.st_ino, st.st_dev, st.st_nlink, st.st_uid, st.st_gid, 1000,
                               st.st_atime, st.st_mtime, st.st_ctime))  # fmt: skip

    monkeypatch.setattr(taking.os, "fstat", stale)
    data, read = taking._read(str(grown))
    assert read.st_size == 1000 and data == grown.read_bytes()


def test_a_worker_stops_at_a_file_that_differs_and_says_which(shard, tmp_path, monkeypatch):
    monkeypatch.setattr(taking, "CHUNK", 7)
    files = listed(shard)
    late = sorted(files)[-3]  # in the last chunk, taken by a worker
    files[late] = ShardFile(shard, b"\0" * 32, "")
    _, problem = taking.take(packed(files), tmp_path / "site", jobs=2)
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
    findings, problem = taking.take(packed({**files, **planted}), tmp_path / "site", jobs=2)
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
    _, problem = taking.take(packed({rel: ShardFile(copy, digest, "")}), tmp_path / "site")
    assert problem and "is missing, a link, or differs" in problem
    assert not (tmp_path / "site" / rel).exists()


def test_a_shards_compressed_download_is_scanned_unpacked_and_one_not_read_whole_fails(tmp_path):
    """The lean layout's downloads are gzip: a merge unpacks each and scans its text, and a file it cannot unpack
    whole (here cut short) fails the scan instead of passing unread."""
    import gzip

    from helpers import RUNS, lean_content

    content = lean_content(tmp_path / "content", ("tuckerbench",))
    out = tmp_path / "shard"
    assert main(["--content", str(content), "--runs", str(RUNS), "--only", TUCKER, "--out", str(out), "-q"]) == 0
    files = listed(out)
    download = next(rel for rel in sorted(files) if rel.endswith(".jsonl.gz"))
    zipped = (out / download).read_bytes()
    lines = gzip.decompress(zipped)
    assert TOKEN.encode() not in lines and taking.take(packed(files), tmp_path / "site", jobs=1) == ([], None)
    forged = {
        "secret": gzip.compress(lines.replace(b'"summary":', f'"note":"{TOKEN}","summary":'.encode(), 1), mtime=0),
        "cut": zipped[:-9],
    }
    for name, data in forged.items():
        assert TOKEN.encode() not in data  # not to be found in the bytes as they lie: only unpacked
        root = tmp_path / name
        (root / download).parent.mkdir(parents=True)
        (root / download).write_bytes(data)
        shard_file = ShardFile(root, hashlib.sha256(data).digest(), "")
        findings, problem = taking.take(packed({**files, download: shard_file}), tmp_path / f"site-{name}", jobs=1)
        assert problem is None and [f.file for f in findings] == [download]
        rule = findings[0].rule
        assert rule == "github-token" if name == "secret" else rule.startswith("(not one gzip stream"), rule
