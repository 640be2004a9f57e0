"""A large site's publish-manifest.json comes in parts, so that no file of the site grows with the release past what
hosts take (Cloudflare Pages: 25 MiB a file; GitHub: 100 MiB): the manifest names each part with its SHA-256, and
every reader of it (the output folder's checks, the rebuild, the merge) reads the parts or refuses the folder.
The part sizes are made small here, so the demo release has several parts."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from helpers import CONTENT, edit_jsonl, lean_content, manifest_and_parts, tree_hash

import site_src.build.manifest as manifest_module
from site_src import outdir
from site_src.cli import main
from site_src.validate import validator

FILES, SOURCES = 60, 150  # per part, instead of 10,000 and 100,000


def run(runs: Path, *args: str) -> int:
    return main(["--content", str(CONTENT), "--runs", str(runs), *args, "--quiet"])


@pytest.fixture
def small_parts(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(manifest_module, "PART_FILES", FILES)
    monkeypatch.setattr(manifest_module, "PART_SOURCES", SOURCES)


def every_file(site: Path) -> set[str]:
    return {p.relative_to(site).as_posix() for p in site.rglob("*") if p.is_file()}


def test_a_large_manifest_is_written_in_parts_that_list_every_file_and_every_source(runs_copy, tmp_path, monkeypatch):
    assert run(runs_copy, "--out", str(tmp_path / "one")) == 0
    whole, none = manifest_and_parts(tmp_path / "one")
    assert whole["manifest_version"] == 3 and whole["parts"] == [] and none == []  # a small site: one file
    monkeypatch.setattr(manifest_module, "PART_FILES", FILES)
    monkeypatch.setattr(manifest_module, "PART_SOURCES", SOURCES)
    assert run(runs_copy, "--out", str(tmp_path / "parted")) == 0
    root, parts = manifest_and_parts(tmp_path / "parted")
    assert root["files"] == {} and root["version_sources"] == {} and len(parts) > 3
    assert [p["path"] for p in root["parts"]] == [f"publish-manifest/{k}.json" for k in range(1, len(parts) + 1)]
    assert all(len(part["files"]) <= FILES for part in parts)
    assert all(len(names) <= SOURCES for part in parts for names in part.get("version_sources", {}).values())
    listed = [rel for part in parts for rel in part["files"]]
    assert listed == sorted(whole["files"])  # in order, each once
    assert {rel: e for part in parts for rel, e in part["files"].items()} == whole["files"]
    sources: dict[str, list[str]] = {}
    for part in parts:
        for version, names in part.get("version_sources", {}).items():
            sources.setdefault(version, []).extend(names)
    assert sources == whole["version_sources"]
    schema = validator("publish-manifest")  # site_src/schemas/publish-manifest.schema.json: the manifest and parts
    for manifest in (whole, root, *parts):
        assert not list(schema.iter_errors(manifest))
    assert list(schema.iter_errors({**root, "manifest_version": 2}))
    for entry in root["parts"]:  # each part is named with its SHA-256, and is a file the site lists
        assert outdir.read_part(tmp_path / "parted", entry["path"], bytes.fromhex(entry["sha256"])) is not None
    assert set(outdir.listed_in(tmp_path / "parted" / outdir.MANIFEST)) == every_file(tmp_path / "parted") - {
        outdir.MANIFEST
    }
    drop = {outdir.MANIFEST, *(p["path"] for p in root["parts"])}
    assert {k: v for k, v in root.items() if k not in {"files", "parts", "version_sources"}} == {
        k: v for k, v in whole.items() if k not in {"files", "parts", "version_sources"}
    }
    same = every_file(tmp_path / "one") - {outdir.MANIFEST}
    assert every_file(tmp_path / "parted") - drop == same  # the site's other files are the same files
    assert all((tmp_path / "one" / rel).read_bytes() == (tmp_path / "parted" / rel).read_bytes() for rel in same)


@pytest.mark.usefixtures("small_parts")
def test_a_rebuild_of_a_site_in_parts_is_a_clean_builds_and_leaves_no_old_part(runs_copy, tmp_path, monkeypatch):
    out = tmp_path / "site"
    assert run(runs_copy, "--out", str(out)) == 0
    first = len(manifest_and_parts(out)[1])
    edit_jsonl(runs_copy / "uzbek-pack/demo-model-a-run1/responses.jsonl", 1, lambda r: r.update(raw_output="x"))
    assert run(runs_copy, "--out", str(out)) == 0
    assert run(runs_copy, "--out", str(tmp_path / "clean")) == 0
    assert tree_hash(out) == tree_hash(tmp_path / "clean")
    monkeypatch.setattr(manifest_module, "PART_FILES", FILES * 3)  # fewer parts: the extra ones are gone
    edit_jsonl(runs_copy / "uzbek-pack/demo-model-a-run1/responses.jsonl", 2, lambda r: r.update(raw_output="y"))
    assert run(runs_copy, "--out", str(out)) == 0
    assert 0 < len(manifest_and_parts(out)[1]) < first
    assert run(runs_copy, "--out", str(tmp_path / "clean2")) == 0
    assert tree_hash(out) == tree_hash(tmp_path / "clean2")
    monkeypatch.setattr(manifest_module, "PART_FILES", 10_000)
    monkeypatch.setattr(manifest_module, "PART_SOURCES", 100_000)
    edit_jsonl(runs_copy / "uzbek-pack/demo-model-a-run1/responses.jsonl", 3, lambda r: r.update(raw_output="z"))
    assert run(runs_copy, "--out", str(out)) == 0  # back to one file: the folder of parts is gone
    assert not (out / "publish-manifest").exists() and manifest_and_parts(out)[0]["parts"] == []


@pytest.mark.usefixtures("small_parts")
def test_a_site_whose_part_was_changed_or_removed_is_not_taken_for_ours(runs_copy, tmp_path, capsys):
    out = tmp_path / "site"
    assert run(runs_copy, "--out", str(out)) == 0
    part = out / "publish-manifest" / "2.json"
    data = part.read_bytes()
    for change in (lambda: part.write_bytes(data.replace(b'"sha256": "', b'"sha256": "0', 1)), part.unlink):
        change()
        before = tree_hash(out)
        capsys.readouterr()
        assert run(runs_copy, "--out", str(out)) == 1
        assert "was not written by a build" in capsys.readouterr().err
        assert tree_hash(out) == before  # nothing was touched
        part.write_bytes(data)
    part.unlink()
    part.symlink_to(tmp_path / "elsewhere.json")
    (tmp_path / "elsewhere.json").write_bytes(data)  # the very bytes, through a link: not read
    assert outdir.listed_in(out / outdir.MANIFEST) is None
    part.unlink()
    os.mkfifo(part)  # a FIFO is refused, not opened to wait for a writer
    assert outdir.listed_in(out / outdir.MANIFEST) is None


@pytest.mark.usefixtures("small_parts")
def test_shards_with_manifests_in_parts_merge_into_one_builds_site(runs_copy, tmp_path, capsys):
    shards = []
    for version in ("uzbek-pack/0.1.0", "tuckerbench/v1-pilot", "halees-dual-layer/halees-dual-layer-v1"):
        shards.append(tmp_path / version.replace("/", "_"))
        assert run(runs_copy, "--only", version, "--out", str(shards[-1])) == 0
    assert len(manifest_and_parts(shards[1])[1]) > 1
    assert run(runs_copy, "merge", *map(str, shards), "--out", str(tmp_path / "merged")) == 0
    assert run(runs_copy, "--out", str(tmp_path / "whole")) == 0
    assert tree_hash(tmp_path / "merged") == tree_hash(tmp_path / "whole")
    slices = [tmp_path / f"slice-{k}" for k in (1, 2)]  # TuckerBench in two slices, each with its manifest in parts
    for k, folder in enumerate(slices, 1):
        assert run(runs_copy, "--only", "tuckerbench/v1-pilot", "--slice", f"{k}/2", "--out", str(folder)) == 0
    assert any(manifest_and_parts(folder)[1] for folder in slices)  # a slice of at most 60 files has its manifest whole
    mixed = [shards[0], *slices[::-1], shards[2]]
    assert run(runs_copy, "merge", *map(str, mixed), "--out", str(tmp_path / "from-slices")) == 0
    assert tree_hash(tmp_path / "from-slices") == tree_hash(tmp_path / "whole")
    part = shards[1] / "publish-manifest" / "1.json"
    entries = json.loads(part.read_text())
    entries["files"].popitem()  # a part that lists less than it did: no longer the bytes the manifest names
    part.write_text(json.dumps(entries))
    shutil.rmtree(tmp_path / "merged")
    capsys.readouterr()
    assert run(runs_copy, "merge", *map(str, shards), "--out", str(tmp_path / "merged")) == 1
    err = capsys.readouterr().err
    assert f"{shards[1] / outdir.MANIFEST} names a part of it that is missing" in err
    assert not (tmp_path / "merged").exists()


@pytest.mark.usefixtures("small_parts")
def test_a_merge_reads_a_shards_listing_a_part_at_a_time_and_refuses_a_file_listed_twice(runs_copy, tmp_path, capsys):
    """A merge takes a shard's listing one part at a time (a slice of a million transcripts lists about 140,000
    files, some 5 KB each once parsed), so a file listed in two of its parts is told by the merge itself."""
    import hashlib

    shard = tmp_path / "tucker"
    assert run(runs_copy, "--only", "tuckerbench/v1-pilot", "--out", str(shard)) == 0
    root, parts = manifest_and_parts(shard)
    assert len(parts) > 2 and all(len(part["files"]) <= FILES for part in parts)
    first, second = (shard / p["path"] for p in root["parts"][:2])
    listed = json.loads(second.read_text())
    rel, entry = next(iter(json.loads(first.read_text())["files"].items()))
    listed["files"][rel] = entry  # the very entry, in a second part too
    second.write_text(json.dumps(listed))
    root["parts"][1]["sha256"] = hashlib.sha256(second.read_bytes()).hexdigest()
    (shard / outdir.MANIFEST).write_text(json.dumps(root))
    capsys.readouterr()
    assert run(runs_copy, "merge", str(shard), "--out", str(tmp_path / "merged")) == 1
    assert f"{shard / outdir.MANIFEST} lists {rel} twice" in capsys.readouterr().err
    assert not (tmp_path / "merged").exists()


def test_a_part_ends_at_its_bytes_as_well_as_its_files_so_lean_downloads_naming_many_run_files_stay_small(
    runs_copy, tmp_path, monkeypatch
):
    """A lean download names the run files of every transcript in it, and a version's downloads lie together in
    path order: a part of 10,000 of them grew with the runs (about 80 MB at a million transcripts). A part now also
    ends before its entries pass PART_BYTES; the entries are the one-file manifest's, and a merge of slices makes
    the same parts."""
    content = lean_content(tmp_path / "content", ("tuckerbench", "uzbek-pack"))
    lean = ["--content", str(content), "--runs", str(runs_copy), "--quiet"]
    assert main([*lean, "--out", str(tmp_path / "one")]) == 0
    whole, _ = manifest_and_parts(tmp_path / "one")
    downloads = [item for item in whole["files"].items() if item[0].endswith(".jsonl.gz")]
    heavy = max(downloads, key=lambda item: len(item[1]["sources"]))
    assert len(heavy[1]["sources"]) > 2  # a download names its transcripts' run files
    bound = 12 * manifest_module.entry_bytes(heavy)
    monkeypatch.setattr(manifest_module, "PART_BYTES", bound)  # the part's count of files stays 10,000
    assert main([*lean, "--out", str(tmp_path / "parted")]) == 0
    root, parts = manifest_and_parts(tmp_path / "parted")
    listing = [part["files"] for part in parts if part["files"]]
    assert len(listing) > 3 and all(len(files) < 10_000 for files in listing)
    for entry, part in zip(root["parts"], parts, strict=True):
        if part["files"]:  # entry_bytes counts an entry's bytes or a few more; the part's own frame is 60 bytes
            counted = sum(map(manifest_module.entry_bytes, part["files"].items()))
            assert (
                counted <= bound
                and 0.9 * counted < (tmp_path / "parted" / entry["path"]).stat().st_size <= counted + 60
            )
    assert {rel: e for files in listing for rel, e in files.items()} == whole["files"]
    assert [rel for files in listing for rel in files] == sorted(whole["files"])
    slices = [tmp_path / f"slice-{k}" for k in (1, 2)]
    for k, folder in enumerate(slices, 1):
        assert main([*lean, "--only", "tuckerbench/v1-pilot", "--slice", f"{k}/2", "--out", str(folder)]) == 0
    others = [tmp_path / "uzbek", tmp_path / "dual"]
    for folder, version in zip(others, ("uzbek-pack/0.1.0", "halees-dual-layer/halees-dual-layer-v1"), strict=True):
        assert main([*lean, "--only", version, "--out", str(folder)]) == 0
    assert main([*lean, "merge", *map(str, [*slices[::-1], *others]), "--out", str(tmp_path / "merged")]) == 0
    assert tree_hash(tmp_path / "merged") == tree_hash(tmp_path / "parted")


@pytest.mark.parametrize(
    "entry",
    [
        ("b/v/data/t/0f/run-1.jsonl", {"sha256": "ab" * 32, "sources": ["runs/b/run-1/t/1.json", "runs/b/ü/ğ.json"]}),
        ("b/v/index.html", {"sha256": "cd" * 32, "sources_of_version": "b/v"}),
        ("b/v/t/0f/yozuv/index.html", {"sha256": "ef" * 32, "sources": []}),
        ("b/v/data/t/0f/run-2.jsonl", {"sha256": "01" * 32, "sources": [f"runs/b/run-2/{n}.json" for n in range(300)]}),
    ],
)
def test_an_entrys_counted_bytes_are_its_bytes_in_the_manifest_or_a_few_more(entry):
    """entry_bytes, which ends a part before PART_BYTES, never counts fewer bytes than the entry takes as written
    (here, beside another entry), and at most 10 more, however many run files it names."""
    import io

    other = ("zz", {"sha256": "00" * 32, "sources": []})
    alone, both = io.BytesIO(), io.BytesIO()
    manifest_module.dump_manifest(alone, [other], {})
    manifest_module.dump_manifest(both, [entry, other], {})
    written = len(both.getvalue()) - len(alone.getvalue())
    assert written <= manifest_module.entry_bytes(entry) <= written + 10


@pytest.mark.usefixtures("small_parts")
def test_real_fixtures_in_shards_with_manifests_in_parts_merge_into_one_builds_site(runs_copy, tmp_path):
    """Real results (an Inspect agent log with its reasoning, AlpacaEval's text_davinci_001 folder), imported as a user
    imports them beside the demo runs: their shards, AlpacaEval's in two slices, each with its manifest in parts,
    merge a part at a time into the one build's site, byte for byte."""
    from helpers import ROOT, load

    content = tmp_path / "content"
    shutil.copytree(CONTENT, content)
    fixtures = ROOT / "tests/fixtures"
    imports = [
        ["inspect", str(fixtures / "inspect_ai/metr/small.eval"), "--benchmark", "agent", "--publish-reasoning"],
        ["alpaca-eval", str(fixtures / "alpaca_eval/text_davinci_001"), "--benchmark", "alpaca",
         "--annotator=alpaca_eval_gpt4"],
    ]  # fmt: skip
    for args in imports:
        assert main(["--content", str(content), "--runs", str(runs_copy), "import", *args]) == 0

    def built(*args: str) -> int:
        return main(["--content", str(content), "--runs", str(runs_copy), *args, "--quiet"])

    assert built("--out", str(tmp_path / "whole")) == 0
    versions = [f"{b.id}/{v.id}" for b in load(runs_copy, content).benchmarks for v in b.versions]
    assert {"agent/v0.1.8", "alpaca/v1"} <= set(versions)
    shards = []
    for version in versions:
        cuts = ["1/2", "2/2"] if version == "alpaca/v1" else [None]
        for cut in cuts:
            shards.append(tmp_path / f"shard-{len(shards)}")
            assert built("--only", version, *(["--slice", cut] if cut else []), "--out", str(shards[-1])) == 0
    first_slice = shards[versions.index("alpaca/v1")]  # AlpacaEval's first slice: its manifest in parts
    assert len(manifest_and_parts(first_slice)[1]) > 1
    assert built("merge", *map(str, shards), "--out", str(tmp_path / "merged")) == 0
    assert tree_hash(tmp_path / "merged") == tree_hash(tmp_path / "whole")


def test_a_versions_run_files_come_out_sorted_run_by_run_whatever_their_runs_names_share():
    """The manifest lists a version's run files sorted (version_sources), made a run at a time rather than as one
    list of them all: runs whose paths begin alike ("a", "a-b", "a.b", "a0", "a/" sorts after "a-b/") still give
    the order of the whole list sorted."""
    from types import SimpleNamespace

    runs = {
        name: SimpleNamespace(path=f"runs/bench/{name}", public_files=files)
        for name, files in {
            "a0": ["z.json", "m/1.json"],
            "a": ["t/b.json", "t/a.json", "manifest.json"],
            "a-b": ["x.json"],
            "a.b": ["y.json", "t/c.json"],
            "b": [],
        }.items()
    }
    names = list(manifest_module._Sources(SimpleNamespace(runs=runs)))
    assert names == sorted(f"{run.path}/{f}" for run in runs.values() for f in run.public_files)
    assert len(manifest_module._Sources(SimpleNamespace(runs=runs))) == len(names) == 8
