"""The progress display: every long step of a build shows a bar while standard error is a terminal, and nothing
with --quiet. (Off a terminal nothing is shown either: tests/test_site.py runs the build with its output piped.)"""

from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import struct
import subprocess
import sys
import termios

from helpers import ROOT


def _build_on_a_terminal(out: str) -> tuple[str, str]:
    """Run build.py with standard error on a pseudo-terminal 120 columns wide: (what the terminal got, stdout)."""
    ours, theirs = pty.openpty()
    fcntl.ioctl(theirs, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    proc = subprocess.Popen(
        [sys.executable, str(ROOT / "build.py"), "--out", out],
        stdout=subprocess.PIPE,
        stderr=theirs,
        cwd=ROOT,
    )
    os.close(theirs)
    shown = b""
    while True:  # read as it comes: a pseudo-terminal's buffer is small, and a full one would stop the build
        ready, _, _ = select.select([ours], [], [], 300)
        if not ready:
            proc.kill()
            raise TimeoutError("the build showed nothing for 300 s")
        try:
            chunk = os.read(ours, 65536)
        except OSError:  # the build ended and closed its end
            break
        if not chunk:
            break
        shown += chunk
    os.close(ours)
    stdout = proc.stdout.read().decode() if proc.stdout else ""
    assert proc.wait(timeout=300) == 0, shown.decode(errors="replace")
    return shown.decode(errors="replace"), stdout


def test_each_long_step_shows_its_progress_on_a_terminal(tmp_path):
    shown, stdout = _build_on_a_terminal(str(tmp_path / "site"))
    for step, unit in (("reading", "runs"), ("secret scan", "runs"), ("rendering", "files"), ("search index", "runs")):
        assert f"{step}: " in shown and f" {unit}/s]" in shown, step
    for step in ("reading", "secret scan", "search index"):  # the demo's six run directories
        assert re.search(rf"{step}: +\d+%\|[^|]*\| \d/6 \[", shown), step
    assert stdout.startswith("built site/: ") and "  total " in stdout  # the totals follow on standard output


def test_quiet_shows_no_progress_even_on_a_terminal(tmp_path):
    ours, theirs = pty.openpty()
    done = subprocess.run(
        [sys.executable, str(ROOT / "build.py"), "--quiet", "--out", str(tmp_path / "site")],
        stdout=subprocess.PIPE,
        stderr=theirs,
        cwd=ROOT,
        timeout=300,
    )
    os.close(theirs)
    try:
        shown = os.read(ours, 65536)  # the build wrote nothing there: the closed terminal's end reads as an error
    except OSError:
        shown = b""
    os.close(ours)
    assert done.returncode == 0 and done.stdout == b"" and shown == b""
