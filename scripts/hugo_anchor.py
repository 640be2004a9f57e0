"""The whole publish against the static-site anchor: `benchmark.py --against-hugo ROUNDS`.

The same transcripts are published two ways, in rounds that alternate who goes first, on this machine in one run:

- `build.py --fresh`: read, validate, score, scan, render every page, index for search, write the manifest;
- Hugo (from apt) over the transcripts as light Markdown pages (a title, then each turn as a paragraph under its
  role), then Pagefind over Hugo's output: the publish of a plain static site with search.

What is timed is each command's wall time, and its CPU (user and system, with every process it waited for)."""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from pagefind_bin import get_executable

HUGO_CONFIG = """baseURL = "/"
disableKinds = ["taxonomy", "term", "RSS", "sitemap", "robotsTXT"]
[markup.goldmark.renderer]
unsafe = false
"""
PAGE = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{{ .Title }}</title></head>
<body><main data-pagefind-body><h1>{{ .Title }}</h1>{{ .Content }}</main></body></html>
"""
LIST = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{{ .Title }}</title></head>
<body><ul>{{ range .Pages }}<li><a href="{{ .RelPermalink }}">{{ .Title }}</a></li>{{ end }}</ul></body></html>
"""


def hugo_site(release, folder: Path) -> int:  # noqa: ANN001 - a Release
    """Write a Hugo site holding each transcript of the release as a Markdown page; return how many."""
    (folder / "layouts/_default").mkdir(parents=True)
    (folder / "config.toml").write_text(HUGO_CONFIG, encoding="utf-8")
    (folder / "layouts/_default/single.html").write_text(PAGE, encoding="utf-8")
    (folder / "layouts/_default/list.html").write_text(LIST, encoding="utf-8")
    (folder / "layouts/index.html").write_text(LIST, encoding="utf-8")
    count = 0
    for view in release.views:
        for tid, t in view.transcripts.items():
            page = folder / "content" / view.bench.id / view.version.id / "t" / f"{tid}.md"
            page.parent.mkdir(parents=True, exist_ok=True)
            title = f"{view.entrants[t.entrant_id].label}: {view.version.item(t.item_id).title}".replace('"', "'")
            turns = "\n\n".join(f"**{turn.role}**\n\n{turn.content}" for turn in t.turns)
            page.write_text(f'---\ntitle: "{title}"\n---\n\n{turns}\n', encoding="utf-8")
            count += 1
    return count


def against_hugo(release, tmp: Path, build: list[str], rounds: int, timed: Callable) -> None:  # noqa: ANN001
    """Time build (a build.py command line without --out) and Hugo + Pagefind over the same transcripts, in rounds
    that alternate who goes first; print each round and the medians."""
    hugo = shutil.which("hugo")
    if hugo is None:
        raise SystemExit("Hugo is not installed: apt-get install hugo (Debian's, as the comparison was set with)")
    pages = hugo_site(release, tmp / "hugo")
    version = subprocess.run([hugo, "version"], capture_output=True, text=True, check=True).stdout.split()[1]
    print(f"the whole publish of {pages:,} transcripts: build.py against {version} + Pagefind, {rounds} rounds")
    ours, theirs = [], []
    for n in range(rounds):
        sides = [
            ("build.py", ours, lambda: _ours(build, tmp, timed)),
            ("Hugo", theirs, lambda: _hugo(hugo, tmp, pages)),
        ]
        for name, kept, run in sides if n % 2 == 0 else sides[::-1]:
            kept.append(run())
            print(f"  round {n + 1}: {name:<8} {kept[-1][0]:6.1f} s wall, {kept[-1][1]:6.1f} s CPU")
    wall = statistics.median(w for w, _ in ours) / statistics.median(w for w, _ in theirs)
    print(f"  median: build.py {statistics.median(w for w, _ in ours):.1f} s, Hugo + Pagefind "
          f"{statistics.median(w for w, _ in theirs):.1f} s: build.py / Hugo + Pagefind = {wall:.2f}")  # fmt: skip


def _ours(build: list[str], tmp: Path, timed: Callable) -> tuple[float, float]:
    seconds, _, _, cpu = timed([*build, "--fresh", "--quiet", "--out", str(tmp / "ours")])
    return seconds, cpu


def _hugo(hugo: str, tmp: Path, pages: int) -> tuple[float, float]:
    """Hugo's build, then Pagefind's index of its output, from nothing (as --fresh is for build.py)."""
    shutil.rmtree(tmp / "hugo-out", ignore_errors=True)
    start, cpu = time.perf_counter(), 0.0
    for command in (
        [hugo, "--source", str(tmp / "hugo"), "--destination", str(tmp / "hugo-out"), "--quiet"],
        [str(get_executable()), "--site", str(tmp / "hugo-out"), "--silent"],
    ):
        proc = subprocess.Popen(command, stdout=subprocess.DEVNULL)
        _, status, usage = os.wait4(proc.pid, 0)
        if status != 0:
            sys.exit(f"{' '.join(command)} failed")
        cpu += usage.ru_utime + usage.ru_stime
    seconds = time.perf_counter() - start
    written = sum(1 for _ in (tmp / "hugo-out").rglob("*.html"))
    if written < pages or not (tmp / "hugo-out/pagefind/pagefind.js").is_file():
        sys.exit(f"Hugo + Pagefind published {written} pages of {pages}, or no search index")
    return seconds, cpu
