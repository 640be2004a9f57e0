"""The lean layout (benchmark.yaml's `layout: lean`), for very large releases: a run's transcripts that share a
folder of 256 are one JSON Lines download compressed by gzip, a transcript a line, instead of a JSON file each; an
item's pages list its responses with their results and links, without their text. Every transcript keeps its page
and its exact characters in a download; slices, rebuilds and the merge give the same bytes as one build."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from helpers import CONTENT, edit_jsonl, fold, lean_content, manifest_files, tree_hash, unpacked

from site_src.build.scanning import scan_written
from site_src.cli import main
from site_src.site.urls import run_download

LEAN = ("tuckerbench", "uzbek-pack")  # lean here; the dual-layer rubric keeps the full layout beside them
TUCKER = "tuckerbench/v1-pilot"
VERSIONS = {"tuckerbench": "tuckerbench/v1-pilot", "uzbek-pack": "uzbek-pack/0.1.0"}


def run(content: Path, runs: Path, *args: str) -> int:
    return main(["--content", str(content), "--runs", str(runs), "--quiet", *args])


@pytest.fixture(scope="module")
def sites(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path, Path]:
    """(content, runs, the lean site, the full site) of the demo release."""
    from helpers import RUNS

    root = tmp_path_factory.mktemp("lean")
    runs = root / "runs"
    shutil.copytree(RUNS, runs)
    content = lean_content(root / "content", LEAN)
    assert run(content, runs, "--out", str(root / "lean")) == 0
    assert run(CONTENT, runs, "--out", str(root / "full")) == 0
    return content, runs, root / "lean", root / "full"


def listed(site: Path, version: str) -> list[dict]:
    rows = []
    for part in json.loads((site / version / "data/transcripts.json").read_text())["parts"]:
        rows += json.loads((site / part).read_text())["transcripts"]
    return rows


@pytest.mark.parametrize("bench", LEAN)
def test_each_transcript_is_one_line_of_its_runs_download_for_its_folder_as_its_own_download_gives_it(bench, sites):
    _, _, lean, full = sites
    version = VERSIONS[bench]
    assert not list((lean / version / "data/t").glob("*/*.json"))  # no download of its own
    assert not list((lean / version / "t").glob("*/*/"))  # and no folder of its own
    rows = listed(lean, version)
    assert rows and [r["id"] for r in rows] == [r["id"] for r in listed(full, version)]
    seen: dict[str, list[str]] = {}
    for row in rows:
        tid, run_id = row["id"], row["run"]
        assert row["download"] == f"{version}/data/t/{fold(tid)}/{run_id}.jsonl.gz"
        assert run_download(row["download"]) == (*version.split("/"), fold(tid), run_id)  # as merge and slices read it
        lines = unpacked(lean / row["download"]).splitlines()
        record = json.loads(lines[row["line"] - 1])
        own = json.loads((full / version / f"data/t/{fold(tid)}/{tid}.json").read_text(encoding="utf-8"))
        assert record == own  # the same record, exact characters, on one line
        assert lines[row["line"] - 1] == json.dumps(own, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
        seen.setdefault(row["download"], []).append(tid)
        assert row["path"] == f"{version}/t/{fold(tid)}/{tid}.html"  # a file of its folder of 256 (site layout 3)
        page = (lean / row["path"]).read_text(encoding="utf-8")
        link = re.search(r'<a href="([^"]+)">Download this transcript[^<]*</a>: line (\d+) ', page)
        assert link and int(link.group(2)) == row["line"]
        assert (lean / row["path"]).parent.joinpath(link.group(1)).resolve() == (lean / row["download"]).resolve()
    for other in ("data/t/0g/r.jsonl.gz", "data/t/0f/r.json", "data/t/0f/a/r.jsonl.gz", "data/t/0f/.jsonl.gz",
                  "t/0f/r.jsonl.gz", "data/t/0f/r.jsonl"):  # fmt: skip
        assert run_download(f"{version}/{other}") is None
    index = {b["id"]: b["layout"] for b in json.loads((lean / "index.json").read_text())["benchmarks"]}
    assert index[bench] == "lean" and index["halees-dual-layer"] == "full"  # the layout is named, for readers
    files = {p.relative_to(lean).as_posix() for p in (lean / version / "data/t").glob("*/*.jsonl.gz")}
    assert files == set(seen)  # a file per run and folder that has a transcript, each in the list's order
    for rel, tids in seen.items():
        assert [json.loads(line)["transcript"]["id"] for line in unpacked(lean / rel).splitlines()] == tids


ROW = re.compile(
    r'<tr><th scope="row"><span class="swatch c\d" aria-hidden="true"></span><a href="([^"]+)">([^<]+)</a></th>'
    r'<td>([^<]+)</td><td class="num">(\d+)</td><td>(<span class="badge[^"]*">[^<]*</span>)</td>'
    r"(?:<td>(.*?)</td>)?</tr>"
)
CARD = re.compile(
    r'<h3 id="card-\d+">.*?<a href="([^"]+)/">([^<]+)</a></h3>\n  <p class="sub">([^<]+) · \w+ (\d+)</p>\n'
    r"  <p>(<span[^>]*>[^<]*</span>)</p>(?:\s*<p class=\"sub judges-line\">(.*?)</p>)?",
    re.S,
)


@pytest.mark.parametrize("bench", LEAN)
def test_a_lean_transcript_page_names_in_the_manifest_the_run_files_the_full_layouts_page_names(bench, sites):
    """The publish manifest gives a file that one transcript's records make its own sources, in either layout."""
    _, _, lean, full = sites
    lean_files, full_files = manifest_files(lean), manifest_files(full)
    version = VERSIONS[bench]
    rows = listed(full, version)
    assert rows
    for row in rows:
        page = f"{version}/t/{fold(row['id'])}/{row['id']}"
        named = full_files[f"{page}/index.html"]["sources"]
        assert named and lean_files[f"{page}.html"]["sources"] == named


@pytest.mark.parametrize("bench", LEAN)
def test_an_item_page_lists_each_response_in_a_row_with_its_link_result_and_judges_but_not_its_text(bench, sites):
    """What the full layout's cards show of each response (its entrant, run, attempt, result, each judge's score),
    without the text, a row each: the same responses in the same order, each linking to its page's file."""
    _, _, lean, full = sites
    pages = sorted((lean / VERSIONS[bench] / "items").glob("*/*/index.html"))
    assert pages
    for page in pages:
        text = page.read_text(encoding="utf-8")
        whole = (full / page.relative_to(lean)).read_text(encoding="utf-8")
        rows, cards = ROW.findall(text), CARD.findall(whole)
        assert rows and len(rows) == len(cards) == whole.count('class="response-card"')
        for row, card in zip(rows, cards, strict=True):
            assert row[0] == f"{card[0]}.html" and (page.parent / row[0]).is_file()  # a file (layout 3)
            assert row[1:5] == card[1:5] and row[5] == card[5]  # entrant, run, attempt, result; judges' scores
        assert 'class="response-card"' not in text and "lean layout" in text and len(text) < len(whole)
        assert 'class="mini-turn' not in text and ('class="mini-turn' in whole or bench != "tuckerbench")  # texts
    tucker = "\n".join(p.read_text(encoding="utf-8") for p in (lean / TUCKER / "items").glob("*/*/index.html"))
    assert "Demo Judge K: " in tucker and " · gap " in tucker  # the judges' scores are in the rows
    rubric = "halees-dual-layer/halees-dual-layer-v1"  # a benchmark without the option keeps every response's text
    first = sorted((lean / rubric / "items").glob("*/*/index.html"))[0]
    assert first.read_bytes() == (full / first.relative_to(lean)).read_bytes()


def test_a_lean_items_pages_hold_a_hundred_responses_each_as_its_keys_and_the_listed_pages_say(tmp_path, monkeypatch):
    """A lean item's page shows PAGE_SIZE responses, the full layout's 24 (CARDS_PER_PAGE): the app, the pages
    listed and the page keys count its pages alike. Here with 3 and 2 to a page, so the demo's items have several."""
    from helpers import RUNS, keyed_urls, load

    from site_src.build.page_keys import page_keys
    from site_src.scoring.release import build_release
    from site_src.site import app

    monkeypatch.setattr(app, "PAGE_SIZE", 3)
    monkeypatch.setattr(app, "CARDS_PER_PAGE", 2)
    release = build_release(load(RUNS, lean_content(tmp_path / "content", ("tuckerbench",))))
    keyed = keyed_urls(release)
    assert set(page_keys(release, "base")) == keyed
    client = app.create_app(release).test_client()
    for view in release.views:
        lean = view.bench.id == "tuckerbench"
        for item_id, responses in view.by_item.items():
            base = f"/{view.folder}/items/{fold(item_id)}/{item_id}/"
            pages = -(-len(responses) // (3 if lean else 2))
            listed = sorted(url for url in keyed if url.startswith(base))
            assert listed == sorted([base, *(f"{base}page/{n}/" for n in range(2, pages + 1))])
            last = client.get(f"{base}page/{pages}/" if pages > 1 else base).get_data(as_text=True)
            shown = len(ROW.findall(last)) if lean else last.count('class="response-card"')
            assert shown == len(responses) - (pages - 1) * (3 if lean else 2)
            assert client.get(f"{base}page/{pages + 1}/").status_code == 404


@pytest.mark.parametrize("bench", LEAN)
def test_a_lean_transcript_page_links_its_item_whose_page_shows_the_item_the_full_page_folds_in(bench, sites):
    _, _, lean, full = sites
    version = VERSIONS[bench]
    pages = sorted((lean / version / "t").glob("*/*.html"))
    assert pages
    for page in pages:
        text = page.read_text(encoding="utf-8")
        whole = (full / version / "t" / page.parent.name / page.stem / "index.html").read_text(encoding="utf-8")
        folded = re.search(r'<details class="spec"[^>]*><summary>[^<]*</summary>\n(.*?)</details>', whole, re.S)
        assert folded and '<details class="spec"' not in text
        item = re.search(r'<p class="spec"[^>]*>[^<]*<a href="([^"]+)">the item\'s page</a>', text).group(1)
        shown = (page.parent / item / "index.html").resolve()
        assert shown.is_file() and folded.group(1).strip() in shown.read_text(encoding="utf-8")
        assert len(text) < len(whole)


def test_slices_of_a_lean_version_merge_into_one_builds_site(sites, tmp_path):
    content, runs, lean, _ = sites
    shards = []
    for k in (1, 2, 3):
        shards.append(tmp_path / f"tucker-{k}")
        assert run(content, runs, "--only", TUCKER, "--slice", f"{k}/3", "--out", str(shards[-1])) == 0
    for shard in shards:  # a run's downloads go with the search bundle that indexes its transcripts' pages
        for download in shard.glob(f"{TUCKER}/data/t/*/*.jsonl.gz"):
            run_id = download.name.removesuffix(".jsonl.gz")
            assert (shard / TUCKER / "search" / run_id / "pagefind-entry.json").is_file()
    assert sum(len(list(s.glob(f"{TUCKER}/data/t/*/*.jsonl.gz"))) for s in shards) == len(
        list(lean.glob(f"{TUCKER}/data/t/*/*.jsonl.gz"))
    )
    for version in ("uzbek-pack/0.1.0", "halees-dual-layer/halees-dual-layer-v1"):
        shards.append(tmp_path / version.replace("/", "_"))
        assert run(content, runs, "--only", version, "--out", str(shards[-1])) == 0
    assert run(content, runs, "merge", *map(str, shards[::-1]), "--out", str(tmp_path / "merged")) == 0
    assert tree_hash(tmp_path / "merged") == tree_hash(lean)


def test_a_merge_refuses_a_lean_download_of_a_run_the_version_lacks(sites, tmp_path, capsys):
    content, runs, _, _ = sites
    shard = tmp_path / "tucker"
    assert run(content, runs, "--only", TUCKER, "--out", str(shard)) == 0
    manifest = json.loads((shard / "publish-manifest.json").read_text())
    rel = next(r for r in manifest["files"] if r.endswith(".jsonl.gz"))
    forged = rel.rsplit("/", 1)[0] + "/no-such-run.jsonl.gz"
    manifest["files"][forged] = manifest["files"][rel]
    shutil.copy(shard / rel, shard / forged)
    (shard / "publish-manifest.json").write_text(json.dumps(manifest))
    capsys.readouterr()
    assert run(content, runs, "merge", str(shard), "--out", str(tmp_path / "merged")) == 1
    assert f"lists {forged}, which no shard build of {TUCKER} writes" in capsys.readouterr().err


def test_a_merge_refuses_a_transcript_page_where_the_versions_layout_does_not_put_it(sites, tmp_path, capsys):
    """A lean version's transcript page is the file t/<ff>/<tid>.html (site layout 3): a shard that lists it in a
    folder of its own, as the full layout has it, lists a page no build of that version writes."""
    content, runs, _, _ = sites
    shard = tmp_path / "tucker"
    assert run(content, runs, "--only", TUCKER, "--out", str(shard)) == 0
    manifest = json.loads((shard / "publish-manifest.json").read_text())
    rel = next(r for r in manifest["files"] if re.fullmatch(rf"{TUCKER}/t/[0-9a-f]{{2}}/[^/]+\.html", r))
    forged = rel.removesuffix(".html") + "/index.html"
    manifest["files"][forged] = manifest["files"][rel]
    (shard / forged).parent.mkdir()
    shutil.copy(shard / rel, shard / forged)
    (shard / "publish-manifest.json").write_text(json.dumps(manifest))
    capsys.readouterr()
    assert run(content, runs, "merge", str(shard), "--out", str(tmp_path / "merged")) == 1
    assert f"lists {forged}, which no shard build of {TUCKER} writes" in capsys.readouterr().err


def test_a_rebuild_of_a_lean_site_rewrites_the_download_holding_a_changed_transcript_and_equals_a_clean_build(
    sites, tmp_path
):
    content, runs_demo, _, _ = sites
    runs = tmp_path / "runs"
    shutil.copytree(runs_demo, runs)
    out = tmp_path / "site"
    assert run(content, runs, "--out", str(out)) == 0
    before = {p: p.read_bytes() for p in out.rglob("*.jsonl.gz")}
    transcript = sorted((runs / "tuckerbench").glob("*/transcripts/*/*.json"))[0]
    record = json.loads(transcript.read_text(encoding="utf-8"))
    record["turns"][1]["content"] = "An edited reply ✓"
    transcript.write_text(json.dumps(record, ensure_ascii=False), encoding="utf-8")
    assert run(content, runs, "--out", str(out)) == 0
    changed = [p for p, data in before.items() if p.read_bytes() != data]
    assert len(changed) == 1 and "An edited reply ✓" in unpacked(changed[0])
    edit_jsonl(next((runs / "tuckerbench").glob("*/judgments/*.jsonl")), 1, lambda r: r.update(rationale="Again."))
    assert run(content, runs, "--out", str(out)) == 0
    assert run(content, runs, "--out", str(tmp_path / "clean")) == 0
    assert tree_hash(out) == tree_hash(tmp_path / "clean")


def test_the_backstop_scans_a_json_lines_download_unpacked_and_fails_one_it_cannot_read_whole(monkeypatch):
    import gzip
    import zlib

    from site_src.build import scanning

    token, rel = "ghp_" + "a1B2" * 9, "b/v/data/t/ab/run.jsonl.gz"
    line = json.dumps({"text": token}).encode() + b"\n"
    found = scan_written(rel, gzip.compress(line, mtime=0))
    assert [f.rule for f in found] == ["github-token"] and found[0].file == rel
    assert scan_written(rel, gzip.compress(b'{"text": "nothing to see"}\n', mtime=0)) == []
    # what the scan cannot read whole fails it: not gzip, cut short, two streams, or past the limit unpacked
    monkeypatch.setattr(scanning, "MAX_UNPACKED", 1000)
    whole = gzip.compress(b"x" * 999, mtime=0)
    for bad in (line, whole[:-12], whole + whole, gzip.compress(b"x" * 1001, mtime=0), zlib.compress(line)):
        assert [f.rule.startswith("(not") for f in scan_written(rel, bad)] == [True], bad[:20]
    assert scan_written(rel, whole) == []


def test_an_unknown_layout_is_refused_naming_the_file_and_field(tmp_path, capsys):
    from helpers import RUNS

    content = lean_content(tmp_path / "content", LEAN, layout="tiny")
    assert run(content, RUNS, "--out", str(tmp_path / "site")) == 1
    err = capsys.readouterr().err
    assert "content/tuckerbench/benchmark.yaml" in err and "layout" in err and "tiny" in err
    assert not (tmp_path / "site").exists()


def test_a_lean_download_is_kept_by_the_url_its_route_makes(tmp_path):
    """A rebuild keeps a page whose key is unchanged by its URL (urls.page_url), which must be the one url_for makes;
    every key belongs to a file the version lists."""
    from helpers import RUNS, keyed_urls, load

    from site_src.build.page_keys import page_keys
    from site_src.scoring.release import build_release

    release = build_release(load(RUNS, lean_content(tmp_path / "content", LEAN)))
    keyed = keyed_urls(release)
    assert set(page_keys(release, "base")) == keyed
    assert any(url.endswith(".jsonl.gz") for url in keyed) and any(url.endswith(".json") for url in keyed)
    assert any(re.fullmatch(r"/tuckerbench/v1-pilot/t/[0-9a-f]{2}/[^/]+\.html", url) for url in keyed)  # its pages


def test_real_results_published_lean_keep_every_record_of_their_full_downloads(tmp_path):
    """On real logs (an Inspect agent log with tool calls, AlpacaEval's text_davinci_001 folder; tests/fixtures/,
    with their licences): every transcript's line in the lean layout is its download in the full layout, and its
    page names in the publish manifest the run files its full layout's page names."""
    from helpers import copy_project, set_layout
    from test_importers import build
    from test_real_results import AE1, AGENT, ALPACA

    project = copy_project(tmp_path / "project")
    imports = [
        ["inspect", str(AGENT), "--benchmark", "agent"],
        ["alpaca-eval", str(ALPACA), "--benchmark", "ae", "--annotator", AE1],
    ]
    for args in imports:
        done = build(project, "import", *args)
        assert done.returncode == 0, done.stdout + done.stderr
    assert build(project, "--out", "full", "--no-search", "-q").returncode == 0
    set_layout(project / "content", ("agent", "ae"))
    done = build(project, "--out", "lean", "--no-search", "-q")
    assert done.returncode == 0, done.stdout + done.stderr
    manifests = {site: manifest_files(project / site) for site in ("full", "lean")}
    for bench in ("agent", "ae"):
        version = next(p for p in (project / "lean" / bench).iterdir() if (p / "data/transcripts.json").is_file())
        rows = listed(project / "lean", version.relative_to(project / "lean").as_posix())
        assert rows
        for row in rows:
            line = unpacked(project / "lean" / row["download"]).splitlines()[row["line"] - 1]
            own = project / "full" / version.relative_to(project / "lean") / "data/t" / fold(row["id"])
            assert json.loads(line) == json.loads((own / f"{row['id']}.json").read_text(encoding="utf-8"))
            page = f"{version.relative_to(project / 'lean').as_posix()}/t/{fold(row['id'])}/{row['id']}"
            named = manifests["full"][f"{page}/index.html"]["sources"]
            assert named and manifests["lean"][f"{page}.html"]["sources"] == named


def test_a_site_over_its_hosts_size_or_files_names_the_benchmarks_that_could_be_lean(sites, tmp_path, capsys,
                                                                                   monkeypatch):  # fmt: skip
    import dataclasses

    from site_src.hosts import HOSTS, Measure

    content, runs, lean, _ = sites
    files = Measure.of_folder(lean).files
    monkeypatch.setitem(HOSTS, "netlify", dataclasses.replace(HOSTS["netlify"], files=files // 2))
    capsys.readouterr()
    assert run(content, runs, "--out", str(tmp_path / "site"), "--host", "netlify") == 1
    err = capsys.readouterr().err
    assert "note: halees-dual-layer could say layout: lean in benchmark.yaml" in err  # the one still in full
    assert not (tmp_path / "site").exists()


def test_a_secret_in_a_lean_transcript_is_refused_or_published_redacted_in_its_line(sites, tmp_path, capsys):
    content, runs_demo, _, _ = sites
    runs = tmp_path / "runs"
    shutil.copytree(runs_demo, runs)
    token = "ghp_" + "a1B2" * 9  # a GitHub token's shape
    transcript = sorted((runs / "tuckerbench").glob("*/transcripts/*/*.json"))[0]
    record = json.loads(transcript.read_text(encoding="utf-8"))
    record["turns"][1]["content"] = f"the token is {token}"
    transcript.write_text(json.dumps(record, ensure_ascii=False), encoding="utf-8")
    capsys.readouterr()
    assert run(content, runs, "--out", str(tmp_path / "refused")) == 1  # refused: nothing published
    assert "github-token" in capsys.readouterr().err and not (tmp_path / "refused").exists()
    out = tmp_path / "site"
    assert run(content, runs, "--out", str(out), "--redact-secrets") == 0
    held = [p for p in out.rglob("*.jsonl.gz") if "the token is" in unpacked(p)]
    assert len(held) == 1 and "the token is [REDACTED: github-token]" in unpacked(held[0])
    assert not [p for p in out.rglob("*") if p.is_file() and token.encode() in p.read_bytes()]
    assert not [p for p in out.rglob("*.gz") if token in unpacked(p)]
