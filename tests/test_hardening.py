"""Nothing lost, nothing silently dropped or double-counted, and no traceback for bad input or bad options.

Each test here reproduces a case found by using the tool as a new user would, or with hostile input.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import ROOT, tree_hash

from site_src.cli import parse


def run_cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(ROOT / "build.py"), *args], cwd=cwd, capture_output=True, text=True, timeout=300
    )


@pytest.fixture
def project_copy(tmp_path: Path) -> Path:
    """A checkout-like copy: build.py resolves the project from its own folder, so copy the code as well."""
    dest = tmp_path / "project"
    dest.mkdir()
    shutil.copy(ROOT / "build.py", dest / "build.py")
    for name in ("site_src", "templates", "content", "runs", "docs"):
        shutil.copytree(ROOT / name, dest / name, ignore=shutil.ignore_patterns("__pycache__"))
    return dest


# --- data loss: the output folder ---------------------------------------------------------------------------------


@pytest.mark.parametrize("out", ["runs", "runs/uzbek-pack", "content", "docs", ".", "..", "runs/site"])
def test_out_that_is_an_input_or_holds_other_files_is_refused_and_nothing_is_touched(project_copy, out):
    before = tree_hash(project_copy.parent)
    result = run_cli("--out", out, "--no-search", cwd=project_copy)
    assert result.returncode == 1, result.stdout
    assert "error: output folder" in result.stderr
    assert "Traceback" not in result.stderr
    assert tree_hash(project_copy.parent) == before


def test_out_folder_with_foreign_files_is_refused(tmp_path):
    out = tmp_path / "mine"
    out.mkdir()
    (out / "thesis.tex").write_text("years of work")
    result = run_cli("--out", str(out), "--no-search", cwd=ROOT)
    assert result.returncode == 1
    assert "is not empty and was not written by a build" in result.stderr
    assert (out / "thesis.tex").read_text() == "years of work"


def test_out_is_rebuilt_when_ours_but_not_when_a_file_was_added(tmp_path):
    out = tmp_path / "_site"
    assert run_cli("--out", str(out), "--no-search", cwd=ROOT).returncode == 0
    assert (out / "publish-manifest.json").is_file()
    assert run_cli("--out", str(out), "--no-search", cwd=ROOT).returncode == 0  # our own folder: replaced
    (out / "notes.md").write_text("added by hand")
    result = run_cli("--out", str(out), "--no-search", cwd=ROOT)
    assert result.returncode == 1
    assert "does not list, which a rebuild would delete: notes.md" in result.stderr
    assert (out / "notes.md").read_text() == "added by hand"


def test_out_that_is_a_file_is_refused(tmp_path):
    target = tmp_path / "file"
    target.write_text("keep")
    result = run_cli("--out", str(target), "--no-search", cwd=ROOT)
    assert result.returncode == 1 and "is not a folder" in result.stderr
    assert target.read_text() == "keep"


def test_review_kit_out_is_guarded_like_the_site(tmp_path):
    out = tmp_path / "docs"
    out.mkdir()
    (out / "keep.md").write_text("keep")
    result = run_cli("review-kit", "--out", str(out), "--site", str(tmp_path / "_site"), cwd=ROOT)
    assert result.returncode == 1 and "was not written by a build" in result.stderr
    assert (out / "keep.md").read_text() == "keep"
    kit = tmp_path / "_review"
    assert run_cli("review-kit", "--out", str(kit), "--site", str(tmp_path / "_site"), cwd=ROOT).returncode == 0
    assert run_cli("review-kit", "--out", str(kit), "--site", str(tmp_path / "_site"), cwd=ROOT).returncode == 0


# --- options ------------------------------------------------------------------------------------------------------


def test_options_work_before_or_after_the_command():
    for argv in (["--strict", "check"], ["check", "--strict"]):
        args = parse(argv)
        assert args.command == "check" and args.strict is True
    assert parse(["--out", "x"]).out == "x"
    assert parse(["build", "--out", "x", "--base-path", "/repo/"]).base_path == "/repo/"
    assert parse(["--out", "x", "build"]).out == "x"
    assert parse(["review-kit"]).out == "_review" and parse([]).out == "_site"


def test_check_strict_after_the_command_fails_on_warnings(runs_copy):
    (runs_copy / "uzbek-pack/demo-model-a-run1/responses.jsonl").write_bytes(
        b"\xef\xbb\xbf" + (runs_copy / "uzbek-pack/demo-model-a-run1/responses.jsonl").read_bytes()
    )
    result = run_cli("check", str(runs_copy), "--strict", cwd=ROOT)
    assert result.returncode == 1 and "(--strict)" in result.stderr


def test_an_option_that_does_not_apply_to_the_command_is_an_error(capsys):
    with pytest.raises(SystemExit) as exc:
        parse(["check", "--out", "x"])
    assert exc.value.code == 2
    assert "unrecognized arguments: --out" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        parse(["--out", "x", "check"])
    assert "--out does not apply to the check command" in capsys.readouterr().err


@pytest.mark.parametrize("bad", ["repo", "/repo", "repo/", "//", "/a//b/", "/../", "/a b/", "/a?b/"])
def test_base_path_is_validated(bad, capsys):
    with pytest.raises(SystemExit):
        parse(["--base-path", bad])
    assert "--base-path" in capsys.readouterr().err


def test_missing_content_folder_is_named_not_a_traceback(tmp_path):
    result = run_cli("check", "--content", str(tmp_path / "nosuch"), cwd=ROOT)
    assert result.returncode == 1
    assert "nosuch: content folder does not exist" in result.stderr and "Traceback" not in result.stderr


def test_serve_on_a_busy_port_says_so_before_printing_a_url():
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        result = run_cli("serve", "--port", str(port), cwd=ROOT)
    assert result.returncode == 1
    assert f"cannot serve on 127.0.0.1:{port}" in result.stderr
    assert "http://" not in result.stdout
