"""Rebuilds into the same folder redo only what changed, and write exactly what a full build writes."""

from __future__ import annotations

from pathlib import Path

from helpers import CONTENT, edit_jsonl, tree_hash

from site_src.cli import main

PAGE = "uzbek-pack/0.1.0/t/demo-model-a-run1--001--a1/index.html"


def build(runs: Path, out: Path, *extra: str) -> int:
    return main(["--content", str(CONTENT), "--runs", str(runs), "--out", str(out), *extra])


def test_rebuild_with_nothing_changed_returns_at_once_and_touches_nothing(runs_copy, tmp_path, capsys):
    out = tmp_path / "site"
    assert build(runs_copy, out) == 0
    before = (out / PAGE).stat()
    capsys.readouterr()
    assert build(runs_copy, out) == 0
    assert "is up to date" in capsys.readouterr().out
    after = (out / PAGE).stat()
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)


def test_rebuild_after_one_run_changed_is_byte_identical_to_a_full_build(runs_copy, tmp_path, capsys):
    out, full = tmp_path / "site", tmp_path / "full"
    assert build(runs_copy, out) == 0
    edit_jsonl(
        runs_copy / "uzbek-pack/demo-model-a-run1/responses.jsonl",
        1,
        lambda r: r.update(raw_output=r["raw_output"] + " (changed)"),
    )
    capsys.readouterr()
    assert build(runs_copy, out) == 0
    said = capsys.readouterr().out
    kept = int(said.split(" unchanged files were kept")[0].rsplit(" ", 1)[-1])
    assert kept > 100  # the other runs' transcript pages, downloads and search bundles
    assert "(changed)" in (out / PAGE).read_text(encoding="utf-8")
    assert build(runs_copy, full, "--fresh") == 0
    assert tree_hash(out) == tree_hash(full)
    # every run read is kept for the next build (unchanged runs were loaded from there); the changed run's old
    # copy is gone
    kept = list((tmp_path / ".site.cache/runs").glob("*.pickle"))
    assert len(kept) == sum(1 for _ in runs_copy.glob("*/*/"))


def test_an_output_file_edited_by_hand_is_written_again(runs_copy, tmp_path, capsys):
    out, full = tmp_path / "site", tmp_path / "full"
    assert build(runs_copy, out) == 0
    other = out / "tuckerbench/v1-pilot/t/demo-pilot-run1--gamma--s5-bad-day--r2/index.html"
    other.write_text("edited by hand", encoding="utf-8")
    capsys.readouterr()
    assert build(runs_copy, out) == 0
    assert "up to date" not in capsys.readouterr().out
    assert build(runs_copy, full, "--fresh") == 0
    assert tree_hash(out) == tree_hash(full)


def test_a_secret_added_to_a_run_after_a_clean_build_is_still_found(runs_copy, tmp_path, capsys):
    """Runs scanned clean before are not walked again; a changed run always is."""
    out = tmp_path / "site"
    assert build(runs_copy, out) == 0
    state = (tmp_path / ".site.cache/state.json").read_text(encoding="utf-8")
    assert '"uzbek-pack/0.1.0/demo-model-a-run1"' in state  # recorded as scanned clean
    token = "AKIA" + "Q" * 16
    edit_jsonl(
        runs_copy / "uzbek-pack/demo-model-a-run1/responses.jsonl",
        3,
        lambda r: r.update(raw_output=r["raw_output"] + " " + token),
    )
    capsys.readouterr()
    assert build(runs_copy, out) == 1
    err = capsys.readouterr().err
    assert "runs/uzbek-pack/demo-model-a-run1/responses.jsonl, line 3" in err and "aws-access-key-id" in err
    assert "(changed)" not in (out / PAGE).read_text(encoding="utf-8")  # the previous site is as it was
