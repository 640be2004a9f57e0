"""The blind review kit: anonymous pairs, never inside the published site, choices in the public pairs format."""

from __future__ import annotations

import json
import subprocess
import sys

from helpers import ROOT, load

from site_src.review_kit import draw_pairs, write_review_kit
from site_src.validate import validator


def test_kit_pages_carry_no_entrant_label_transcript_id_or_provider_metadata(demo, tmp_path):
    out = tmp_path / "_review"
    assert write_review_kit(demo, out, tmp_path / "_site") == 0
    run = demo.benchmark("tuckerbench").versions[0].runs[0]
    forbidden = (
        [e.label for e in run.entrants] + [e.selector for e in run.entrants] + [e.provider for e in run.entrants]
    )
    forbidden += [e.id + "--" for e in run.entrants] + [j.label for j in run.judges] + ["family", "score"]
    pages = sorted(out.rglob("*.html"))
    assert len(pages) == 13  # index and 12 pairs
    for page in pages:
        text = page.read_text(encoding="utf-8")
        for word in forbidden:
            assert word not in text, (page.name, word)
    assert not (out / "private").exists()  # the run has its own key: none is drawn
    assert all("Demo data." in page.read_text(encoding="utf-8") for page in pages)  # built from invented runs


def test_kit_refuses_to_write_inside_the_site_or_a_runs_folder(demo, tmp_path):
    assert write_review_kit(demo, tmp_path / "_site" / "review", tmp_path / "_site") == 1
    assert write_review_kit(demo, ROOT / "runs" / "kit", tmp_path / "_site") == 1
    assert not (tmp_path / "_site").exists() and not (ROOT / "runs" / "kit").exists()


def test_pairs_are_drawn_matched_when_a_run_has_no_key(runs_copy, tmp_path):
    (runs_copy / "tuckerbench/demo-pilot-run1/private/answer-key.json").unlink()
    project = load(runs_copy)
    run = project.benchmark("tuckerbench").versions[0].runs[0]
    pairs = draw_pairs(run, 12, seed=3)
    assert len(pairs) == 12 and pairs == draw_pairs(run, 12, seed=3)
    by_id = {t.id: t for t in run.transcripts}
    for sides in pairs.values():
        a, b = by_id[sides["A"]], by_id[sides["B"]]
        assert (a.item_id, a.attempt) == (b.item_id, b.attempt) and a.entrant_id != b.entrant_id
        assert a.status == b.status == "completed"
    out = tmp_path / "_review"
    assert write_review_kit(project, out, tmp_path / "_site", 12, 3) == 0
    key = json.loads((out / "private/demo-pilot-run1/answer-key.json").read_text())
    assert list(validator("tucker-answer-key").iter_errors(key)) == []


def test_review_kit_command(tmp_path):
    result = subprocess.run(
        [
            sys.executable,
            str(ROOT / "build.py"),
            "review-kit",
            "--out",
            str(tmp_path / "kit"),
            "--site",
            str(tmp_path / "_site"),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
    assert "12 pairs" in result.stdout and "never published" in result.stdout
