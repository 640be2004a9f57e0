"""One version rendered in slices (`--only BENCH/VERSION --slice K/N`, as the jobs of a CI matrix would) and joined
by build.py merge is the same site, byte for byte, as one build; a merge refuses slices that cannot make it."""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path

import pytest
from helpers import CONTENT, fold, tree_hash

from site_src.cli import main
from site_src.scoring.release import build_release
from site_src.site.search_index import bundles
from site_src.site.urls import slice_of

TUCKER, PACK, RUBRIC = "tuckerbench/v1-pilot", "uzbek-pack/0.1.0", "halees-dual-layer/halees-dual-layer-v1"


def run(runs: Path, *args: str) -> int:
    return main(["--content", str(CONTENT), "--runs", str(runs), "--quiet", *args])


def sliced(runs: Path, folder: Path, version: str, count: int) -> list[Path]:
    out = []
    for k in range(1, count + 1):
        target = folder / f"{version.replace('/', '_')}-{k}-of-{count}"
        assert run(runs, "--only", version, "--slice", f"{k}/{count}", "--out", str(target)) == 0
        out.append(target)
    return out


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, dict[str, list[Path]]]:
    from helpers import RUNS

    root = tmp_path_factory.mktemp("slices")
    runs = root / "runs"
    shutil.copytree(RUNS, runs)
    assert run(runs, "--out", str(root / "whole")) == 0
    parts = {
        TUCKER: sliced(runs, root, TUCKER, 3),
        PACK: sliced(runs, root, PACK, 2),
        RUBRIC: sliced(runs, root, RUBRIC, 1),
    }
    return runs, root, parts


def test_slices_merged_in_any_order_are_byte_identical_to_one_build(built, tmp_path):
    runs, root, parts = built
    every = [shard for shards in parts.values() for shard in shards]
    for seed in (1, 2):
        random.Random(seed).shuffle(every)
        out = tmp_path / f"merged-{seed}"
        assert run(runs, "merge", *map(str, every), "--out", str(out)) == 0
        assert tree_hash(out) == tree_hash(root / "whole")


def test_each_slice_holds_the_files_that_fall_in_it_and_each_transcript_with_its_search_bundle(built, demo):
    _, root, parts = built
    indexing = {page: name for name, pages in bundles(build_release(demo)).items() for page in pages}
    seen: set[str] = set()
    for k, shard in enumerate(parts[TUCKER], start=1):
        manifest = json.loads((shard / "publish-manifest.json").read_text(encoding="utf-8"))
        assert manifest["shard"]["slice"] == [k, 3]
        files = set(manifest["files"])
        assert files and not files & seen
        seen |= files
        for rel in files:
            folders = rel.split("/")
            if folders[2] == "t":
                assert indexing[rel] + "/pagefind-entry.json" in files, rel  # indexed in the slice that renders it
                tid = folders[4]
                assert f"{TUCKER}/data/t/{fold(tid)}/{tid}.json" in files
            elif folders[2:4] != ["data", "t"] and folders[2] != "search":
                assert slice_of(rel, 3) == k, rel
    whole = json.loads((root / "whole/publish-manifest.json").read_text(encoding="utf-8"))
    assert seen == {rel for rel in whole["files"] if rel.startswith(TUCKER + "/")}


def test_the_bundles_are_dealt_so_that_the_slices_render_about_as_many_transcripts(demo, monkeypatch):
    """Largest first, each to the slice with the fewest pages so far: no slice has more than the smallest one plus
    the largest bundle. The demo's runs split into parts of about 4 pages here, so there are many bundles."""
    from site_src.site import search_index
    from site_src.site.slicing import Slicer

    monkeypatch.setattr(search_index, "PAGES_PER_BUNDLE", 4)
    release = build_release(demo)
    found = {n: p for n, p in bundles(release).items() if n.startswith(TUCKER + "/")}
    slicer = Slicer(release)
    for count in (2, 3, 5):
        load = [0] * count
        for name, pages in found.items():
            load[slicer.of(name, count) - 1] += len(pages)
            assert {slicer.of(page, count) for page in pages} == {slicer.of(name, count)}
        assert sum(load) == 48 and max(load) - min(load) <= max(len(p) for p in found.values()), (count, load)


def test_a_transcript_page_goes_with_its_bundle_and_a_path_only_shaped_like_one_by_its_own_hash(demo, monkeypatch):
    """The slicer finds a page's bundle from its transcript (its run and folder of 256), with no map of every page:
    only the path the layout gives the transcript's page counts as it; the same name in another folder, or a name
    that is no transcript's, is dealt by the hash of its path like any other file."""
    from site_src.site import search_index
    from site_src.site.slicing import Slicer

    monkeypatch.setattr(search_index, "PAGES_PER_BUNDLE", 4)
    release = build_release(demo)
    slicer, count = Slicer(release), 5
    for name, pages in bundles(release).items():
        if not name.startswith(TUCKER + "/"):
            continue
        for page in pages:
            assert slicer.of(page, count) == slicer.of(name, count)
            folders = page.split("/")
            other = f"{(int(folders[3], 16) + 1) % 256:02x}"
            elsewhere = "/".join([*folders[:3], other, *folders[4:]])
            for shaped in (elsewhere, page.replace(folders[4], "no-such-transcript")):
                assert slicer.of(shaped, count) == slice_of(shaped, count), shaped


def test_a_merge_refuses_a_missing_slice_a_repeated_one_and_slices_of_two_counts(built, tmp_path, capsys):
    runs, root, parts = built
    others = [str(s) for s in parts[PACK] + parts[RUBRIC]]
    out = str(tmp_path / "merged")
    assert run(runs, "merge", *others, *map(str, parts[TUCKER][:2]), "--out", out) == 1
    assert f"no shard holds slice 3/3 of {TUCKER}" in capsys.readouterr().err
    assert run(runs, "merge", *others, *map(str, parts[TUCKER]), str(parts[TUCKER][0]), "--out", out) == 1
    assert f"{TUCKER} is in two shards" in capsys.readouterr().err
    two = sliced(runs, tmp_path, TUCKER, 2)
    assert run(runs, "merge", *others, *map(str, parts[TUCKER][:2]), str(two[1]), "--out", out) == 1
    assert "not slices of one count" in capsys.readouterr().err
    assert not Path(out).exists()


@pytest.mark.parametrize("kind", ["a page dealt by its path", "a transcript's page"])
def test_a_slice_that_lists_a_page_of_another_slice_is_refused(kind, built, tmp_path, capsys):
    """A page dealt by the hash of its path is refused in any other slice; a transcript's page goes with its search
    bundle, which a merge cannot tell without the transcripts: it is refused as listed by two shards."""
    runs, root, parts = built
    transcript = kind == "a transcript's page"
    copies = [tmp_path / str(k) for k in (1, 2, 3)]
    listed = []
    for shard, copy in zip(parts[TUCKER], copies, strict=True):
        shutil.copytree(shard, copy)
        listed.append(json.loads((copy / "publish-manifest.json").read_text(encoding="utf-8")))
    giver, page = next(
        (k, rel)
        for k, manifest in enumerate(listed)
        for rel in manifest["files"]
        if rel.endswith("index.html") and "/search/" not in rel and ("/t/" in rel) == transcript
    )
    taker = (giver + 1) % 3
    listed[taker]["files"][page] = listed[giver]["files"][page]
    (copies[taker] / page).parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(copies[giver] / page, copies[taker] / page)
    (copies[taker] / "publish-manifest.json").write_text(json.dumps(listed[taker]), encoding="utf-8")
    assert (
        run(runs, "merge", *map(str, copies), *map(str, parts[PACK] + parts[RUBRIC]), "--out", str(tmp_path / "m")) == 1
    )
    said = f"{page} is listed by two shards" if transcript else f"which no slice {taker + 1}/3 of {TUCKER} writes"
    assert said in capsys.readouterr().err


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--slice", "2/3"], "give that version with --only"),
        (["--only", TUCKER, "--slice", "4/3"], "is not K/N with 1 <= K <= N <= 256"),
        (["--only", TUCKER, "--slice", "x"], "is not K/N"),
        (["--only", TUCKER, "--slice", "1/300"], "is not K/N"),
    ],
)
def test_slice_options_are_checked(args, said, capsys, tmp_path):
    with pytest.raises(SystemExit):
        main([*args, "--out", str(tmp_path / "s")])
    assert said in capsys.readouterr().err


def test_the_matrix_lists_a_job_per_slice_of_each_version_within_a_matrixs_256(capsys, runs_copy):
    assert main(["matrix", "--slices", "3", "a/v1", "b/v2"]) == 0
    jobs = json.loads(capsys.readouterr().out)["include"]
    assert [(j["version"], j["slice"]) for j in jobs] == [(v, f"{k}/3") for v in ("a/v1", "b/v2") for k in (1, 2, 3)]
    assert len({j["name"] for j in jobs}) == 6
    assert all(
        j["folder"] == j["version"].replace("/", "--") and j["name"].startswith(f"{j['folder']}--") for j in jobs
    )
    assert main(["--content", str(CONTENT), "--runs", str(runs_copy), "matrix", "--slices", "2"]) == 0
    listed = {j["version"] for j in json.loads(capsys.readouterr().out)["include"]}
    assert listed == {TUCKER, PACK, RUBRIC}  # read from the runs
    assert main(["matrix", "--slices", "129", "a/v1", "b/v2"]) == 1
    assert "2 versions in 129 slices make 258 jobs; a matrix holds 1 to 256" in capsys.readouterr().err


def test_a_slice_that_redacts_nothing_scans_only_its_own_runs_and_records_only_those_clean(
    built, tmp_path, monkeypatch
):
    """Without --redact-secrets the release scan only refuses: each run is scanned by the one slice its first search
    bundle is dealt to (the pages a slice shows of other runs pass the backstop as they are written). A run another
    slice scanned is not recorded as scanned clean: a full build into the same folder scans it."""
    import site_src.build.pipeline as pipeline

    runs, _, _ = built
    asked: list[set[tuple[str, str, str]]] = []
    real = pipeline.scan_release

    def spy(release, **kwargs):  # noqa: ANN001, ANN003
        asked.append({(v.bench.id, v.version.id, r) for v in release.views for r in v.runs} - kwargs["clean"])
        return real(release, **kwargs)

    monkeypatch.setattr(pipeline, "scan_release", spy)
    for k in (1, 2):
        assert run(runs, "--only", PACK, "--slice", f"{k}/2", "--out", str(tmp_path / f"slice-{k}")) == 0
    every = {(*PACK.split("/"), run_id) for run_id in ("demo-model-a-run1", "demo-model-a-run2", "demo-model-b-run1")}
    assert asked[0] | asked[1] == every and not asked[0] & asked[1] and asked[0] and asked[1]
    scanned_by_second = asked[1]
    asked.clear()
    assert (
        run(runs, "--only", PACK, "--out", str(tmp_path / "slice-2")) == 0
    )  # the whole version, into slice 2's folder
    assert asked == [every - scanned_by_second]  # what slice 2 scanned is clean; what it left to slice 1 is not
