"""A release built in shards (one benchmark version each, as CI runners would) and joined by build.py merge is the
same site, byte for byte, as one build of the whole release; a merge refuses shards that cannot make it."""

from __future__ import annotations

import re
import shutil
from collections.abc import Container
from pathlib import Path

import pytest
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


def test_the_digest_of_a_versions_pages_is_that_of_their_paths_sorted_one_per_line_each_once():
    """As shard.schema.json defines it, taken a path at a time: duplicates count once, and no newline ends it."""
    import hashlib
    import random

    from site_src.build.summary import pages_digest

    assert pages_digest([]) == {"count": 0, "sha256": hashlib.sha256(b"").hexdigest()}
    assert pages_digest(iter(["b/x.html", "a/é.html", "b/x.html"])) == {
        "count": 2,
        "sha256": hashlib.sha256("a/é.html\nb/x.html".encode()).hexdigest(),
    }
    rng = random.Random(5)
    paths = [f"t/{rng.randrange(256):02x}/{rng.randrange(500)}/index.html" for _ in range(3000)]
    listed = sorted(set(paths))
    want = {"count": len(listed), "sha256": hashlib.sha256("\n".join(listed).encode()).hexdigest()}
    assert pages_digest(paths) == want and len(listed) < len(paths)


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
    assert "no shard holds the run in runs/halees-dual-layer/demo-system-x" in capsys.readouterr().err
    assert run(runs_copy, "merge", *map(str, parts), str(parts[0]), "--out", out) == 1
    assert "uzbek-pack/0.1.0 is in two shards" in capsys.readouterr().err
    assert run(runs_copy, "--out", str(tmp_path / "whole"), "--quiet") == 0
    assert run(runs_copy, "merge", str(tmp_path / "whole"), "--out", out) == 1
    assert "is not a shard" in capsys.readouterr().err
    assert run(runs_copy, "--only", "tuckerbench/v9", "--out", str(tmp_path / "x")) == 1
    assert "--only tuckerbench/v9: no benchmark version of that name" in capsys.readouterr().err
    assert not (tmp_path / "merged").exists()


# ---- shards are untrusted input: a merge takes only what a shard build writes, confined, checked and scanned
TOKEN = "ghp_" + "a1B2" * 9  # a GitHub token's shape


def relist(shard: Path, rel: str, data: bytes | None = None, drop: bool = False) -> None:
    """Change (or add) a file of a shard and its manifest entry to match, as someone editing the artifact would."""
    import hashlib
    import json

    manifest_path = shard / "publish-manifest.json"
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    if drop:
        del manifest["files"][rel]
    else:
        if data is not None:
            (shard / rel).parent.mkdir(parents=True, exist_ok=True)
            (shard / rel).write_bytes(data)
        manifest["files"][rel] = {"sha256": hashlib.sha256((shard / rel).read_bytes()).hexdigest(), "sources": []}
    manifest_path.write_text(json.dumps(manifest, indent=2), encoding="utf-8")


def refused(runs: Path, parts: list[Path], out: Path, capsys: object) -> str:
    """Merge the shards into out: refused, with nothing written there or beside it (the cache included)."""
    capsys.readouterr()  # type: ignore[attr-defined]
    assert run(runs, "merge", *map(str, parts), "--out", str(out)) == 1
    err = capsys.readouterr().err  # type: ignore[attr-defined]
    assert any(said in err for said in ("nothing was written", "nothing was published", "choose a folder of its own"))
    assert not out.exists() or not any(out.iterdir())
    assert not list(out.parent.glob(f".{out.name}.*")), list(out.parent.glob(f".{out.name}.*"))
    return err


def test_merge_refuses_a_listed_name_that_leaves_the_site_or_the_shard(runs_copy, tmp_path, capsys):
    parts = shards(runs_copy, tmp_path / "shards")
    out, outside = tmp_path / "merged", tmp_path / "outside.html"
    tucker = parts[1]
    for bad in ("tuckerbench/v1-pilot/../../../outside.html", "/tmp/outside.html", "tuckerbench/v1-pilot//x.html"):
        (tmp_path / "evil").mkdir(exist_ok=True)
        manifest = (tucker / "publish-manifest.json").read_text(encoding="utf-8")
        relist(tucker, "tuckerbench/v1-pilot/index.html")  # unchanged, listed again
        import json

        data = json.loads(manifest)
        data["files"][bad] = {"sha256": "0" * 64, "sources": []}
        (tucker / "publish-manifest.json").write_text(json.dumps(data), encoding="utf-8")
        err = refused(runs_copy, parts, out, capsys)
        assert f"lists {bad!r}, which is not a plain relative path inside the site" in err
        (tucker / "publish-manifest.json").write_text(manifest, encoding="utf-8")
    assert not outside.exists()
    # a listed page that is a link, or lies in a folder that is a link, to a file outside the shard
    secret = tmp_path / "secret.txt"
    secret.write_text("not for the site", encoding="utf-8")
    page = tucker / "tuckerbench/v1-pilot/methodology/index.html"
    page.unlink()
    page.symlink_to(secret)
    relist(tucker, "tuckerbench/v1-pilot/methodology/index.html")
    assert "is missing, a link, or differs from its shard's" in refused(runs_copy, parts, out, capsys)
    folder = tucker / "tuckerbench/v1-pilot/limitations"
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere/index.html").write_bytes((folder / "index.html").read_bytes())
    shutil.rmtree(folder)
    folder.symlink_to(tmp_path / "elsewhere")
    assert "is missing, a link, or differs" in refused(runs_copy, parts, out, capsys)


def test_merge_takes_only_the_files_a_shard_build_writes(runs_copy, tmp_path, capsys):
    parts = shards(runs_copy, tmp_path / "shards")
    out = tmp_path / "merged"
    tucker = parts[1]
    relist(tucker, "tuckerbench/v1-pilot/extra.html", b"<p>added</p>")
    assert "lists tuckerbench/v1-pilot/extra.html, which no shard build of tuckerbench/v1-pilot writes" in refused(
        runs_copy, parts, out, capsys
    )
    relist(tucker, "tuckerbench/v1-pilot/extra.html", drop=True)
    relist(tucker, "uzbek-pack/0.1.0/index.html", b"<p>another version's page</p>")
    assert "outside the versions it holds" in refused(runs_copy, parts, out, capsys)
    relist(tucker, "uzbek-pack/0.1.0/index.html", drop=True)
    relist(tucker, "tuckerbench/v1-pilot/methodology/index.html", drop=True)
    assert f"shard {tucker} lacks 1 page of the 137 tuckerbench/v1-pilot has" in refused(runs_copy, parts, out, capsys)
    relist(tucker, "tuckerbench/v1-pilot/methodology/index.html")
    engine = next(tucker.rglob("search/*/pagefind.js"))
    relist(tucker, engine.relative_to(tucker).as_posix(), engine.read_bytes() + b"\nfetch('https://example.org')")
    assert "is not the search engine this machine's Pagefind writes" in refused(runs_copy, parts, out, capsys)


@pytest.mark.parametrize("where", ["a page", "a search fragment"])
def test_merge_scans_every_shard_file_for_secrets(where, runs_copy, tmp_path, capsys):
    import gzip

    parts = shards(runs_copy, tmp_path / "shards")
    tucker = parts[1]
    if where == "a page":
        page = tucker / "tuckerbench/v1-pilot/methodology/index.html"
        data = page.read_bytes().replace(b"</main>", f"<p>{TOKEN}</p></main>".encode())
        rel = "tuckerbench/v1-pilot/methodology/index.html"
    else:
        fragment = next(tucker.rglob("search/*/fragment/*.pf_fragment"))
        text = gzip.decompress(fragment.read_bytes()).replace(b'"content":"', f'"content":"{TOKEN} '.encode(), 1)
        data, rel = gzip.compress(text), fragment.relative_to(tucker).as_posix()
    relist(tucker, rel, data)
    err = refused(runs_copy, parts, tmp_path / "merged", capsys)
    assert f"secret: {rel}, field (written file): matches rule github-token" in err
    assert TOKEN not in err


def test_merge_refuses_an_output_folder_that_is_holds_or_lies_inside_a_shard(runs_copy, tmp_path, capsys):
    parts = shards(runs_copy, tmp_path / "shards")
    before = tree_hash(tmp_path / "shards")
    for out in (parts[0], parts[0] / "inside", tmp_path / "shards"):
        capsys.readouterr()
        assert run(runs_copy, "merge", *map(str, parts), "--out", str(out)) == 1
        err = capsys.readouterr().err
        assert "a shard" in err and "choose a folder of its own" in err, err
    assert tree_hash(tmp_path / "shards") == before


def test_a_merge_reads_scores_and_scans_no_run(runs_copy, tmp_path, monkeypatch):
    """The site-wide pages come from the versions' summaries in the shards, the rest from the shards themselves: a
    merge with no reader, scorer or release scan at hand makes the one build's site, byte for byte, and lists the
    site it makes once."""
    import site_src.build.pipeline as pipeline
    import site_src.build.reading as reading
    import site_src.build.scanning as scanning
    import site_src.scoring.release as scoring

    parts = shards(runs_copy, tmp_path / "shards")
    assert run(runs_copy, "--out", str(tmp_path / "whole"), "--quiet") == 0

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("a merge read, scored or scanned a run")

    for module, name in ((reading, "read"), (scoring, "build_release"), (scanning, "scan_release")):
        monkeypatch.setattr(module, name, refuse)
    walked: list[str] = []
    listing = pipeline.files_below
    monkeypatch.setattr(pipeline, "files_below", lambda root: walked.append(Path(root).name) or listing(root))
    read_again: list[str] = []
    backstop = pipeline.scan_output

    def backstop_of(site: Path, files: list[str], skip: Container[str] = frozenset()) -> list[object]:
        read_again.extend(rel for rel in files if rel not in skip)
        return backstop(site, files, skip)

    monkeypatch.setattr(pipeline, "scan_output", backstop_of)
    assert run(runs_copy, "merge", *map(str, parts), "--out", str(tmp_path / "merged"), "--quiet") == 0
    assert tree_hash(tmp_path / "merged") == tree_hash(tmp_path / "whole")
    # it writes no search bundle: the new site is listed once, for the backstop and the manifest alike
    assert sum(name.startswith(".merged.tmp-") for name in walked) == 1
    # each file was scanned as it was taken or written, and is known by its digest: the backstop reads none again
    assert read_again == [] and len(listing(tmp_path / "merged")) > 300


def edit_summary(shard: Path, change: object) -> None:
    import json

    path = shard / "publish-manifest.json"
    manifest = json.loads(path.read_text(encoding="utf-8"))
    change(next(iter(manifest["shard"]["summaries"].values())))  # type: ignore[operator]
    path.write_text(json.dumps(manifest), encoding="utf-8")


def test_a_summary_that_is_not_one_is_refused_and_runs_nothing(runs_copy, tmp_path, capsys):
    parts = shards(runs_copy, tmp_path / "shards")
    out = tmp_path / "merged"
    kept = (parts[1] / "publish-manifest.json").read_bytes()
    ran = tmp_path / "ran"
    edit_summary(parts[1], lambda s: s["view"].__setitem__(0, {"$d": "os:system", "v": [f"touch {ran}"]}))
    err = refused(runs_copy, parts, out, capsys)
    assert f"shard {parts[1]}: the summary of tuckerbench/v1-pilot is not a version's summary" in err
    assert not ran.exists()
    (parts[1] / "publish-manifest.json").write_bytes(kept)
    edit_summary(parts[1], lambda s: s.update(bundles={"x": "many"}))
    err = refused(runs_copy, parts, out, capsys)
    assert f"{parts[1]}/publish-manifest.json, field shard.summaries.tuckerbench/v1-pilot.bundles.x: " in err
    assert "'many' is not of type 'integer'" in err


def test_the_slices_of_a_version_must_give_the_same_summary(runs_copy, tmp_path, capsys):
    """Every slice of a version is built from the same inputs, so gives the same summary: one that differs (a label
    changed on the way, say) is refused, naming both shards."""
    slices = [tmp_path / f"tucker-{k}" for k in (1, 2)]
    for k, target in enumerate(slices, start=1):
        assert run(runs_copy, "--only", "tuckerbench/v1-pilot", "--slice", f"{k}/2", "--out", str(target), "-q") == 0
    others = [p for p in shards(runs_copy, tmp_path / "shards") if "tuckerbench" not in p.name]
    edit_summary(slices[1], lambda s: s["pages"].update(count=s["pages"]["count"] + 1))
    err = refused(runs_copy, [*slices, *others], tmp_path / "merged", capsys)
    assert f"shards {slices[0]} and {slices[1]} built tuckerbench/v1-pilot from other inputs" in err


def test_a_shard_reads_only_the_runs_of_its_version(runs_copy, tmp_path, capsys):
    """A shard of one version has no use for the other versions' runs: it does not read them (so a run of another
    version that cannot be read does not stop it; that version's own shard is refused). With --redact-secrets it
    reads every run, so that every shard lists the release's redactions."""
    from site_src.problems import Problems
    from site_src.readers.project import find_runs, named_version, start_project

    project = start_project(CONTENT, [runs_copy], Problems())
    benchmarks = {b.id: b for b in project.benchmarks}
    named = {found.rel: named_version(found, benchmarks) for found in find_runs([runs_copy], Problems())}
    assert named == {
        "runs/halees-dual-layer/demo-system-x": "halees-dual-layer/halees-dual-layer-v1",
        "runs/halees-dual-layer/demo-system-y": "halees-dual-layer/halees-dual-layer-v1",
        "runs/tuckerbench/demo-pilot-run1": "tuckerbench/v1-pilot",
        "runs/uzbek-pack/demo-model-a-run1": "uzbek-pack/0.1.0",
        "runs/uzbek-pack/demo-model-a-run2": "uzbek-pack/0.1.0",
        "runs/uzbek-pack/demo-model-b-run1": "uzbek-pack/0.1.0",
    }
    before = shards(runs_copy, tmp_path / "before")
    edit_jsonl(runs_copy / "uzbek-pack/demo-model-a-run1/responses.jsonl", 1, lambda r: r.update(case_id=7))
    capsys.readouterr()
    tucker = tmp_path / "tucker"
    assert run(runs_copy, "--only", "tuckerbench/v1-pilot", "--out", str(tucker), "--quiet") == 0
    assert tree_hash(tucker) == tree_hash(before[1])
    assert run(runs_copy, "--only", "uzbek-pack/0.1.0", "--out", str(tmp_path / "pack")) == 1
    assert "runs/uzbek-pack/demo-model-a-run1/responses.jsonl" in capsys.readouterr().err
    redacting = ["--only", "tuckerbench/v1-pilot", "--redact-secrets", "--out", str(tmp_path / "r")]
    assert run(runs_copy, *redacting) == 1
    assert "runs/uzbek-pack/demo-model-a-run1/responses.jsonl" in capsys.readouterr().err


def test_a_build_into_a_merged_site_scans_every_run(runs_copy, tmp_path, monkeypatch):
    """A merge scans no run, so it records none as scanned clean: a build into its folder scans them all."""
    import site_src.build.pipeline as pipeline

    parts = shards(runs_copy, tmp_path / "shards")
    assert run(runs_copy, "merge", *map(str, parts), "--out", str(tmp_path / "merged"), "--quiet") == 0
    asked: list[set[str]] = []
    real = pipeline.scan_release

    def spy(release, **kwargs):  # noqa: ANN001, ANN003
        asked.append({r.path for v in release.views for r in v.runs.values()})
        assert not kwargs["clean"]  # none taken as scanned clean
        return real(release, **kwargs)

    monkeypatch.setattr(pipeline, "scan_release", spy)
    assert run(runs_copy, "--out", str(tmp_path / "merged"), "--quiet") == 0
    assert len(asked) == 1 and len(asked[0]) == 6


@pytest.mark.parametrize(
    "rel",
    ["a/b.html", "a/.hidden", "..a/b", "a/b..", "a~b/c-d_e.f", ".", "..", "a/./b", "a/../b", "a/..", "./a", "a//b",
     "/a", "a/", "a b", "a/b\\c", "a/\u00e9", "a/b\n", "...", "a/.../b"],
)  # fmt: skip
def test_a_merge_takes_a_listed_path_only_when_each_of_its_segments_is_a_plain_name(rel):
    from site_src.build.merge import confined

    plain = all(seg not in ("", ".", "..") and re.fullmatch(r"[A-Za-z0-9._~-]+", seg) for seg in rel.split("/"))
    assert (confined(rel) is None) == plain, rel
