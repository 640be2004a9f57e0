"""Charts: Altair specs rendered to SVG at build time, so they show without JavaScript and load nothing.

Each chart also offers its Vega-Lite spec (data inline) and its data as CSV for download.
"""

from __future__ import annotations

import hashlib
import json
import multiprocessing
import os
import threading
import traceback
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import altair as alt
import vl_convert

from ..jsonio import dumps_canonical
from ..release import VersionView
from ..systems import system_part
from .downloads import write_csv

# Text sizes in SVG pixels. Charts are shown at their own width (a narrow screen scrolls them inside a focusable
# region rather than shrinking them), so no chart text is drawn below 11 px.
CONFIG = {
    "font": "sans-serif",
    "axis": {"labelFontSize": 11, "titleFontSize": 12, "labelLimit": 240},
    "header": {"labelFontSize": 12, "titleFontSize": 12},
    "legend": {"labelFontSize": 11, "titleFontSize": 12, "labelLimit": 240},
    "text": {"fontSize": 11},
    "title": {"fontSize": 13},
    "view": {"stroke": None},
}


@dataclass
class Chart:
    name: str
    title: str
    description: str  # the text alternative: what the chart shows, in words
    rows: list[dict[str, Any]]
    spec: Any  # an Altair chart, or its Vega-Lite spec: kept as the spec (a dict)

    def __post_init__(self) -> None:
        if not isinstance(self.spec, dict):
            # not validated here (nor as it is made, see charts_for): Altair's check against the Vega-Lite schema took
            # most of the charts' time in every build; tests check every chart of every system against that schema
            self.spec = self.spec.to_dict(validate=False)
        self.spec.setdefault("config", {})
        for key, value in CONFIG.items():
            merged = {**value, **self.spec["config"].get(key, {})} if isinstance(value, dict) else value
            self.spec["config"][key] = merged

    def csv(self) -> str:
        if not self.rows:
            return ""
        header = list(self.rows[0])
        return write_csv(header, [["" if r[k] is None else r[k] for k in header] for r in self.rows])

    def spec_json(self) -> str:
        return dumps_canonical(self.spec)


def colour_scale(view: VersionView, field: str = "entrant") -> alt.Color:
    labels = {e.id: e.label for e in view.entrants.values()}
    domain = sorted(labels.values())
    by_label = {labels[e]: c for e, c in view.colours.items()}
    return alt.Color(f"{field}:N", title="Entrant", scale=alt.Scale(domain=domain, range=[by_label[d] for d in domain]))


def base_chart(rows: list[dict[str, Any]]) -> alt.Chart:
    return alt.Chart(alt.Data(values=rows)).properties(width=alt.Step(18))


def charts_for(view: VersionView) -> list[Chart]:
    """The charts of a version: the overall scores sorted by rank, then the system's own (systems/<system>/
    charts.py). A system that draws its own overall chart says so with OWN_OVERALL = True."""
    module = system_part(view.bench.system, "charts")
    with alt.utils.schemapi.debug_mode(False):  # Altair checks each part it is given against the schema otherwise
        own = module.charts(view)
        return own if getattr(module, "OWN_OVERALL", False) else [overall_chart(view), *own]


def display_score(view: VersionView, value: float | None) -> float | None:
    """A row score as the pages read it: proportions as percentages."""
    if value is None:
        return None
    return value * 100 if view.bench.display.get("score_unit") == "%" else value


def row_order(view: VersionView) -> list[str]:
    """Row labels in leaderboard order: ranked rows by rank, then the rest as the leaderboard lists them."""
    rows = view.rows
    ranked = sorted((r for r in rows if r.rank), key=lambda r: r.rank or 0)
    return [r.label for r in ranked] + [r.label for r in rows if not r.rank]


def overall_chart(view: VersionView) -> Chart:
    """Each row's overall score as a dot with its interval as a whisker, sorted by rank and labelled directly, so
    it reads the same at 3 entrants and at 20. A row without a full score says why instead of drawing a zero."""
    unit = view.bench.display.get("score_unit") or ""
    data = []
    for row in view.rows:
        rs = view.stats.rows.get(row.key) if view.stats else None
        score = display_score(view, row.score) if row.complete else None
        interval = rs.score if rs and rs.score and score is not None else None
        is_baseline = any(f.code == "baseline" for f in row.flags)
        note = "baseline (not ranked)" if is_baseline else ("" if score is not None else "incomplete: no full score")
        data.append(
            {
                "entrant": row.label,
                "rank": row.rank,
                "score": None if score is None else round(score, 3),
                "interval_low": None if interval is None else round(interval.lo, 3),
                "interval_high": None if interval is None else round(interval.hi, 3),
                "label": "" if score is None else f"{score:.1f}{unit}",
                "note": note,
            }
        )
    values = [v for d in data for v in (d["score"], d["interval_low"], d["interval_high"]) if v is not None]
    bounded = all(0 <= v <= 100 for v in values)
    y = alt.Y("entrant:N", title=None, sort=row_order(view))
    x_scale = alt.Scale(domain=[0, 100]) if bounded else alt.Scale(zero=True, nice=True)
    x_title = view.scored.leaderboard.score_label
    level = round(view.stats.params["level"] * 100) if view.stats and "level" in view.stats.params else None
    base = alt.Chart(alt.Data(values=data)).properties(width=420, height=alt.Step(24))
    layers = [
        base.transform_filter("datum.interval_low != null")
        .mark_rule(strokeWidth=2, color="#555")
        .encode(y=y, x=alt.X("interval_low:Q", scale=x_scale, title=x_title), x2="interval_high:Q"),
        base.transform_filter("datum.score != null")
        .mark_point(filled=True, size=70, color="#1b1b1b")
        .encode(y=y, x=alt.X("score:Q", scale=x_scale, title=x_title), tooltip=["entrant:N", "rank:Q", "score:Q"]),
        base.transform_filter("datum.score != null")
        .mark_text(align="left", dx=6, dy=-9, color="#1b1b1b")
        .encode(y=y, x=alt.X("score:Q", scale=x_scale, title=x_title), text="label:N"),
        base.transform_filter("datum.note != ''")
        .mark_text(align="left", dx=4, color="#555", fontStyle="italic")
        .encode(y=y, x=alt.datum(0, scale=x_scale) if bounded else alt.datum(0), text="note:N"),
    ]
    whiskers = f" with {level}% interval whiskers" if level else ""
    ranked = view.scored.leaderboard.ranked
    return Chart(
        "overall",
        f"{x_title} by rank" if ranked else f"{x_title}, as listed (not ranked)",
        f"Dot chart of each leaderboard row's {x_title.lower()}{whiskers}, sorted by rank and labelled with the "
        "score; rows without a full score are listed with the reason and drawn without a dot, never as zero.",
        data,
        alt.layer(*layers),
    )


def profile_chart(
    view: VersionView, data: list[dict[str, Any]], dimensions: list[str], x_title: str, top: float
) -> alt.FacetChart:
    """Small multiples, one per dimension: each row's value as a dot with its interval whisker, rows in leaderboard
    order and labelled on the left, so no colour has to tell twenty entrants apart. data rows hold entrant,
    dimension, value, complete (a partial mean is drawn hollow), interval_low, interval_high and note (shown where
    value is None: ungraded is not zero)."""
    y = alt.Y("entrant:N", title=None, sort=row_order(view))
    x = alt.X("value:Q", title=x_title, scale=alt.Scale(domain=[0, top]))
    base = alt.Chart().properties(width=130, height=alt.Step(22))
    layer = alt.layer(
        base.transform_filter("datum.interval_low != null")
        .mark_rule(strokeWidth=2, color="#555")
        .encode(y=y, x=alt.X("interval_low:Q", title=x_title, scale=alt.Scale(domain=[0, top])), x2="interval_high:Q"),
        base.transform_filter("datum.value != null && datum.complete")
        .mark_point(filled=True, size=50, color="#1b1b1b")
        .encode(y=y, x=x, tooltip=["entrant:N", "dimension:N", "value:Q", "interval_low:Q", "interval_high:Q"]),
        base.transform_filter("datum.value != null && !datum.complete")  # a partial mean: hollow, never solid
        .mark_point(filled=False, size=50, color="#1b1b1b")
        .encode(y=y, x=x, tooltip=["entrant:N", "dimension:N", "value:Q"]),
        base.transform_filter("datum.value == null")
        .mark_text(align="left", dx=2, color="#555", fontStyle="italic")
        .encode(y=y, x=alt.datum(0, scale=alt.Scale(domain=[0, top])), text="note:N"),
        data=alt.Data(values=data),
    )
    return layer.facet(
        column=alt.Column("dimension:N", sort=dimensions, title=None, header=alt.Header(labelFontSize=12))
    )


def grid_chart(view: VersionView, data: list[dict[str, Any]], columns: list[str], top: float) -> alt.LayerChart:
    """A table drawn as a chart: rows in leaderboard order, one column per category, each cell shaded by value and
    labelled with its text (data rows: entrant, column, value, text; a text may be a list of lines), so it reads
    without a legend at any number of entrants. A cell without a value is grey and says why."""
    for d in data:
        d["shade"] = d["value"] if d["value"] is not None else 0  # Vega-Lite drops marks whose colour is null
    y = alt.Y("entrant:N", title=None, sort=row_order(view))
    x = alt.X("column:N", title=None, sort=columns, axis=alt.Axis(labelAngle=-30, orient="top"))
    lines = max((len(d["text"]) for d in data if isinstance(d["text"], list)), default=1)
    base = alt.Chart(alt.Data(values=data)).properties(width=alt.Step(84), height=alt.Step(16 + 13 * lines))
    cells = base.mark_rect(stroke="#ffffff").encode(
        y=y,
        x=x,
        color=alt.condition(
            "datum.value != null",
            alt.Color("shade:Q", scale=alt.Scale(domain=[0, top], scheme="blues"), legend=None),
            alt.value("#e6e6e6"),
        ),
        tooltip=["entrant:N", "column:N", "text:N"],
    )
    labels = base.mark_text(lineHeight=13).encode(
        y=y,
        x=x,
        text="text:N",
        color=alt.condition(f"datum.value > {top * 0.6}", alt.value("#ffffff"), alt.value("#1b1b1b")),
    )
    return alt.layer(cells, labels)


# drawing key -> SVG: drawn in this process, or by an earlier build and kept in its cache (see cache.py)
DRAWN: dict[str, str] = {}
_RUNTIME = False  # whether vl-convert's runtime runs in this process (a forked child lacks its threads)
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
    """A process forked to draw charts: it starts vl-convert's runtime at once (half a second), then draws each
    batch of specs it is sent. A plain process and a pipe, so this process starts no thread, and the processes it
    forks later (render workers, the release scan) inherit none."""

    def __init__(self) -> None:
        context = multiprocessing.get_context("fork")
        self._conn, theirs = context.Pipe()
        self._process = context.Process(target=_drawing, args=(theirs,), daemon=True)
        self._process.start()
        theirs.close()
        self.asked: list[str] | None = None  # drawing keys of the batch sent, until collected

    def ask(self, specs: dict[str, str]) -> None:
        self._conn.send(list(specs.values()))
        self.asked = list(specs)

    def collect(self) -> dict[str, str]:
        try:
            outcome, result = self._conn.recv()
        except EOFError:
            outcome, result = "error", "the drawing process ended without an answer"
        if outcome != "ok":
            raise RuntimeError(f"drawing the charts failed: {result}")
        keys, self.asked = self.asked or [], None
        return dict(zip(keys, result, strict=True))

    def stop(self) -> None:
        self._process.terminate()
        self._process.join()
        self._conn.close()


def _drawing(conn: Any) -> None:
    with own_fonts_only():
        vl_convert.vegalite_to_svg({"mark": "point", "data": {"values": []}})  # start the runtime
    while True:
        try:
            specs = conn.recv()
        except EOFError:
            return
        try:
            conn.send(("ok", [_draw(spec) for spec in specs]))
        except Exception:  # noqa: BLE001 - reported by the build, which stops
            conn.send(("error", traceback.format_exc(limit=3)))


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
    forked for it (by drawer_ahead, or now), so neither this process nor the workers forked from it carry the
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
