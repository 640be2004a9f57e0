"""`build.py diff OLD NEW` on the demo and a copy of it with one judge's scores of one entrant raised (a rejudge):
what moved, with the paired interval of the move checked against a plain computation, in text, Markdown and JSON."""

from __future__ import annotations

import html
import json
import re
import shutil
from pathlib import Path
from statistics import fmean, stdev

import pytest
from helpers import CONTENT, ROOT, edit_jsonl, load
from scipy import stats as scipy_stats

from site_src.build import build_site
from site_src.release_diff import DiffError, diff, render


@pytest.fixture(scope="module")
def sites(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("diff")
    old = root / "old"
    assert build_site(load(ROOT / "runs"), old, search=False) == 0
    shutil.copytree(ROOT / "runs", root / "runs")
    judged = root / "runs/tuckerbench/demo-pilot-run1/judgments/judge-k.jsonl"
    lines = []
    for line in judged.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        if record.get("entrant") == "beta" and record.get("scores"):  # judged again: two points more, up to 10
            record["scores"] = {k: min(10, v + 2) for k, v in record["scores"].items()}
        lines.append(json.dumps(record))
    judged.write_text("\n".join(lines) + "\n", encoding="utf-8")
    new = root / "new"
    assert build_site(load(root / "runs"), new, search=False) == 0
    return old, new


def test_a_rejudged_entrant_moves_with_a_paired_interval_and_the_others_stay(sites):
    old, new = sites
    tucker = next(v for v in diff(old, new) if v.version == "tuckerbench/v1-pilot")
    assert tucker.status == "compared" and not tucker.added and not tucker.removed
    beta = next(c for c in tucker.rows if c.label == "Demo Entrant Beta")
    alpha = next(c for c in tucker.rows if c.label == "Demo Entrant Alpha")
    assert beta.new_score > beta.old_score and alpha.item_move == pytest.approx(0)

    def means(site: Path) -> dict[str, float]:  # a plain computation from the published transcript list
        listed = json.loads((site / "tuckerbench/v1-pilot/data/transcripts/1.json").read_text())["transcripts"]
        per: dict[str, list[float]] = {}
        for t in listed:
            if t["entrant"] == "Demo Entrant Beta" and t["value"] is not None:
                per.setdefault(t["item_id"], []).append(t["value"])
        return {k: fmean(v) for k, v in per.items()}

    a, b = means(old), means(new)
    d = [b[k] - a[k] for k in sorted(set(a) & set(b))]
    half = scipy_stats.t.ppf(0.975, len(d) - 1) * stdev(d) / len(d) ** 0.5
    assert beta.item_move == pytest.approx(fmean(d)) and beta.items == len(d)
    assert beta.interval == pytest.approx((fmean(d) - half, fmean(d) + half))
    assert beta.interval[0] > 0  # a real move, not noise


def test_the_diff_reads_as_text_markdown_and_json(sites):
    old, new = sites
    changes = diff(old, new)
    text = render(changes, "text")
    assert "tuckerbench/v1-pilot: compared" in text and "Demo Entrant Beta: " in text and "a real move" in text
    assert "uzbek-pack/0.1.0: compared\n  no change" in text
    markdown = render(changes, "markdown")
    assert markdown.startswith("## evalboard: what changed") and "### tuckerbench/v1-pilot: compared" in markdown
    data = json.loads(render(changes, "json"))
    assert {v["version"] for v in data} == {
        "tuckerbench/v1-pilot",
        "uzbek-pack/0.1.0",
        "halees-dual-layer/halees-dual-layer-v1",
    }


def test_versions_never_mix_and_a_folder_that_is_no_site_is_refused(sites, tmp_path):
    old, new = sites
    changed = tmp_path / "changed"
    shutil.copytree(new, changed)
    board = changed / "tuckerbench/v1-pilot/data/leaderboard.json"
    data = json.loads(board.read_text(encoding="utf-8"))
    data["content_hash"] = "sha256:another"
    board.write_text(json.dumps(data), encoding="utf-8")
    tucker = next(v for v in diff(old, changed) if v.version == "tuckerbench/v1-pilot")
    assert tucker.status == "not comparable: different definition" and not tucker.rows
    with pytest.raises(DiffError, match="not a site built by build.py"):
        diff(old, tmp_path)


@pytest.fixture(scope="module")
def changed(sites: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The rejudged runs with one more change, a response whose exact text no longer matches (its stored outcome,
    pass, now a discrepancy), built with --changes-since the demo's site as the command line builds it."""
    import site_src.cli as cli

    old, _ = sites
    root = tmp_path_factory.mktemp("changed")
    shutil.copytree(old.parent / "runs", root / "runs")
    edit_jsonl(root / "runs/uzbek-pack/demo-model-a-run1/responses.jsonl", 2, lambda r: r.update(raw_output="Йўқ."))
    out = root / "_site"
    argv = ["--content", str(CONTENT), "--runs", str(root / "runs"), "--out", str(out), "--changes-since", str(old)]
    assert cli.main([*argv, "--no-search", "-q"]) == 0
    return old, out


def _text(page: Path) -> str:
    body = page.read_text(encoding="utf-8").replace("<wbr>", "")  # where a long path may wrap
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", body[body.index("<main") :])))


def test_a_build_given_an_earlier_site_shows_each_benchmarks_changes_as_build_py_diff_does(changed):
    old, new = changed
    said = {v.version: v for v in diff(old, new)}  # the same two folders, compared by `build.py diff`
    beta = next(c for c in said["tuckerbench/v1-pilot"].rows if c.label == "Demo Entrant Beta")
    tucker = _text(new / "tuckerbench/changes/index.html")
    low, high = beta.interval
    assert f"Demo Entrant Beta beta (demo-pilot-run1) {beta.old_rank} → {beta.new_rank}" in tucker
    assert f"{beta.old_score:.2f} → {beta.new_score:.2f} {beta.item_move:+.3f} [{low:+.3f}, {high:+.3f}]" in tucker
    assert beta.new_rank == 1 and beta.old_rank == 2 and "a real move" in tucker

    uzbek = new / "uzbek-pack/changes/index.html"
    assert said["uzbek-pack/0.1.0"].flipped == [("demo-model-a-run1--002--a1", "pass", "fail")]
    assert 'href="../0.1.0/t/f7/demo-model-a-run1--002--a1/"' in uzbek.read_text(encoding="utf-8")
    text = _text(uzbek)
    assert "Results that flipped (1) demo-model-a-run1--002--a1 : pass → fail" in text
    assert "Appeared:" in text and "line 2 (case_id 002, attempt 1)" in text
    assert "Resolved:" not in text  # the runs folder moved: the discrepancies it had are the same ones
    assert "No row moved" in _text(new / "halees-dual-layer/changes/index.html")
    for bench in ("tuckerbench", "uzbek-pack"):  # linked from the benchmark page, which then no longer forwards
        page = (new / bench / "index.html").read_text(encoding="utf-8")
        assert 'href="changes/"' in page and 'http-equiv="refresh"' not in page
    assert 'href="../changes/#version-v1-pilot"' in (new / "tuckerbench/v1-pilot/index.html").read_text("utf-8")
    assert not (old / "tuckerbench/changes").exists()  # a build given no earlier site has no Changes page


def test_an_earlier_site_that_cannot_be_read_refuses_the_build_by_name(tmp_path, capsys):
    import site_src.cli as cli

    argv = ["--content", str(CONTENT), "--runs", str(ROOT / "runs"), "--out", str(tmp_path / "out"), "-q"]
    assert cli.main([*argv, "--changes-since", str(tmp_path / "nowhere")]) == 1
    assert f"--changes-since {tmp_path / 'nowhere'}: not a folder" in capsys.readouterr().err
    (tmp_path / "empty").mkdir()
    assert cli.main([*argv, "--changes-since", str(tmp_path / "empty")]) == 1
    assert "not a site built by build.py" in capsys.readouterr().err
    assert cli.main([*argv, "--changes-since", str(tmp_path / "empty"), "--only", "uzbek-pack/0.1.0"]) == 1
    assert "does not apply to --only or merge" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()  # refused before anything was written


def test_in_a_pull_request_comment_a_label_can_neither_mention_anyone_nor_open_a_tag(sites, tmp_path):
    """Entrant labels come from run files: in the Markdown form (a pull-request comment) an @ cannot mention anyone
    and a < cannot start HTML; the text and JSON forms keep the label's exact characters."""
    from site_src.changes import RowChange, VersionChange

    label = "@maintainers <img src=x onerror=alert(1)>"
    change = VersionChange("b/v", "compared", rows=[RowChange("r", label, 1, 2, 50.0, 40.0, -1.0, (-1.0, -1.0), 3)])
    markdown = render([change], "markdown")
    assert "@\u200bmaintainers &lt;img src=x onerror=alert(1)>" in markdown and "<img" not in markdown
    assert label in render([change], "text") and json.loads(render([change], "json"))[0]["rows"][0]["label"] == label
