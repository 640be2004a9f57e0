"""Drawing charts: Vega-Lite specs to SVG with vl-convert, by a build in a process of its own (the preview server
draws each chart in its own process when a page first asks for it).

Apart from the specs (charts.py) so that the drawing process, which a build starts before it reads the runs, does
not import Altair, nor carry it.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import threading
import traceback
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, TYPE_CHECKING

import vl_convert

if TYPE_CHECKING:
    from .charts import Chart

# drawing key -> SVG: drawn in this process, or by an earlier build and kept in its cache (see build/cache.py)
DRAWN: dict[str, str] = {}
_RUNTIME = False  # whether vl-convert's runtime runs in this process (then it draws here: see draw_all)
_DRAWER: Drawer | None = None  # the process started by drawer_ahead, until draw_all uses it


def drawing_key(chart: Chart) -> str:
    """What a drawing is made from: the spec, the drawing library's version and its fonts (own_fonts_only)."""
    return hashlib.sha256(f"{vl_convert.__version__} own fonts\n{chart.spec_json()}".encode()).hexdigest()


def svg_for(chart: Chart) -> str:
    """The chart as inline SVG with an accessible name; drawn once per spec."""
    key = drawing_key(chart)
    if key not in DRAWN:
        DRAWN[key] = _draw(chart.spec_json())
    label = chart.title.replace('"', "'")
    return DRAWN[key].replace("<svg ", f'<svg role="img" aria-label="{label}" focusable="false" ', 1)


def _draw(spec_json: str) -> str:
    global _RUNTIME
    _RUNTIME = True
    with own_fonts_only():
        return vl_convert.vegalite_to_svg(json.loads(spec_json), allowed_base_urls=[])


OWN_FONTS_ONLY = Path(__file__).with_name("own-fonts-only.conf")
_ENVIRONMENT = threading.Lock()  # the preview server draws in its request threads


@contextmanager
def own_fonts_only() -> Iterator[None]:
    """vl-convert measures chart text (to lay a chart out) with the fonts it bundles and the system's. Its font
    database is made at its first use in a process, from the fontconfig configuration FONTCONFIG_FILE names; ours
    names no font folder that exists, so it has only the fonts it bundles (Liberation Sans). The drawings are then
    the same on every machine, whatever fonts it has, and vl-convert no longer opens a system font file for each
    text it measures (10,000 times for the three TuckerBench charts at 20 entrants: half of their drawing time).
    The variable is set while vl-convert draws only: a program this process starts later finds its own fonts."""
    with _ENVIRONMENT:
        before = os.environ.get("FONTCONFIG_FILE")
        os.environ["FONTCONFIG_FILE"] = str(OWN_FONTS_ONLY)
        try:
            yield
        finally:
            if before is None:
                del os.environ["FONTCONFIG_FILE"]
            else:
                os.environ["FONTCONFIG_FILE"] = before


class Drawer:
    """A process started to draw charts: it starts vl-convert's runtime at once (half a second), then draws each
    batch of specs it is sent. A plain process and two pipes, so this process starts no thread, and the processes it
    forks later (render workers, the release scan) inherit none.

    The process is a fresh interpreter running this module (`python -m site_src.site.drawing`), not a fork: a fork
    of a process whose runtime already runs (the preview server's, a test's) would lack the runtime's threads and
    wait for them for ever at its first drawing; and unlike multiprocessing's spawn it imports nothing of the
    program that started it. Each batch is one JSON line each way."""

    def __init__(self) -> None:
        self._process = subprocess.Popen(
            [sys.executable, "-m", __name__], stdin=subprocess.PIPE, stdout=subprocess.PIPE, close_fds=True
        )
        self.asked: list[str] | None = None  # drawing keys of the batch sent, until collected

    def ask(self, specs: dict[str, str]) -> None:
        assert self._process.stdin is not None
        self._process.stdin.write(json.dumps(list(specs.values())).encode() + b"\n")
        self._process.stdin.flush()
        self.asked = list(specs)

    def collect(self) -> dict[str, str]:
        assert self._process.stdout is not None
        line = self._process.stdout.readline()
        answer = json.loads(line) if line else {"error": "the drawing process ended without an answer"}
        if "ok" not in answer:
            raise RuntimeError(f"drawing the charts failed: {answer['error']}")
        keys, self.asked = self.asked or [], None
        return dict(zip(keys, answer["ok"], strict=True))

    def stop(self) -> None:
        self._process.kill()
        self._process.wait()
        for pipe in (self._process.stdin, self._process.stdout):
            if pipe is not None:
                pipe.close()


def _drawing(requests: IO[bytes], answers: IO[bytes]) -> None:
    """The drawing process: a batch of specs per line in, their drawings (or the error) as one line out."""
    with own_fonts_only():
        vl_convert.vegalite_to_svg({"mark": "point", "data": {"values": []}})  # start the runtime
    for line in requests:
        try:
            answer = {"ok": [_draw(spec) for spec in json.loads(line)]}
        except Exception:  # noqa: BLE001 - reported by the build, which stops
            answer = {"error": traceback.format_exc(limit=3)}
        answers.write(json.dumps(answer).encode() + b"\n")
        answers.flush()


@contextmanager
def drawer_ahead() -> Iterator[None]:
    """Start the process draw_all will draw in now, while this process reads and scores on the other core: the
    start takes half a second, every build that draws paid it before rendering. The process is stopped by
    draw_all, or on leaving if the build ends before it draws."""
    global _DRAWER
    if _RUNTIME or _DRAWER is not None:  # drawing here already (the preview server), or started by a caller
        yield
        return
    _DRAWER = Drawer()
    try:
        yield
    finally:
        if _DRAWER is not None:
            _DRAWER.stop()
            _DRAWER = None


def draw_soon(charts: list[Chart]) -> None:
    """Hand the charts not drawn yet to the process started by drawer_ahead, if any, so they are drawn while this
    process goes on; draw_all collects the drawings."""
    if _DRAWER is None or _DRAWER.asked is not None:
        return
    _DRAWER.ask({key: spec for key, spec in _specs(charts).items() if key not in DRAWN})


def _specs(charts: list[Chart]) -> dict[str, str]:
    return {drawing_key(c): c.spec_json() for c in charts}


def draw_all(charts: list[Chart]) -> dict[str, str]:
    """Draw every chart not drawn yet, before render workers are forked: they then find each one in DRAWN. Returns
    the drawing of each chart given, by drawing key.

    Unless the runtime already runs here (the preview server draws on demand), the drawing is done in a process
    started for it (by drawer_ahead, or now), so neither this process nor the workers forked from it carry the
    runtime's memory. That process is stopped before this returns."""
    global _DRAWER
    ahead, _DRAWER = _DRAWER, None  # this build's drawer, if it has one: stopped below
    try:
        if ahead is not None and ahead.asked is not None:  # asked for by draw_soon
            DRAWN.update(ahead.collect())
        specs = _specs(charts)
        todo = {key: spec for key, spec in specs.items() if key not in DRAWN}
        if todo and _RUNTIME:
            DRAWN.update({key: _draw(spec) for key, spec in todo.items()})
        elif todo:
            drawer = ahead = ahead or Drawer()
            drawer.ask(todo)
            DRAWN.update(drawer.collect())
    finally:
        if ahead is not None:
            ahead.stop()
    return {key: DRAWN[key] for key in specs}


if __name__ == "__main__":  # a Drawer's process
    answers, sys.stdout = sys.stdout.buffer, sys.stderr  # only answers go to the build; anything else is shown
    _drawing(sys.stdin.buffer, answers)
