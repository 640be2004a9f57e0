"""Charts: Vega-Lite specs made by Altair, drawn to SVG at build time (drawing.py), so they show without JavaScript
and load nothing.

A chart's spec is made in two parts: its shape (marks, scales, sort orders, titles), which Altair makes, and its
rows, which the spec names (ROWS) and carries inline as a dataset. The shape is made by a function of the shape's
parameters alone (spec_of), so a spec whose shape is unchanged is taken from the last build (the build cache keeps
SPECS) and only the rows are new: a rebuild after a run was judged again neither imports Altair nor makes a spec.

Each chart also offers its Vega-Lite spec (data inline) and its data as CSV for download.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from importlib.metadata import version
from typing import Any

import orjson

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
    # the marks are left out of the accessibility tree: the SVG is one image named by its title, described by its
    # caption and its data download. Exposed, an empty layer (a whisker layer without intervals) is a graphics
    # symbol without a name, which axe reports (svg-img-alt)
    "mark": {"aria": False},
}
ROWS = "rows"  # the name a spec gives its rows: alt.Data(name=ROWS)
ORDER = "\x00order"  # the stand-in for a sort order (spec_of)
SPECS: dict[str, dict[str, Any]] = {}  # spec_key -> the shape as Altair made it (a build fills it from its cache)
ASKED: set[str] = set()  # the keys this process asked for: the shapes a build keeps for the next


def _cell(value: Any) -> Any:
    """A chart's data value as a CSV cell: a label of several lines as its lines joined by "; ", never as Python's
    list text."""
    if value is None:
        return ""
    return "; ".join(map(str, value)) if isinstance(value, list | tuple) else value


@dataclass
class Chart:
    name: str
    title: str
    description: str  # the text alternative: what the chart shows, in words
    rows: list[dict[str, Any]]
    spec: dict[str, Any]  # the Vega-Lite spec, from spec_of

    def csv(self) -> str:
        if not self.rows:
            return ""
        header = list(self.rows[0])
        return write_csv(header, [[_cell(r[k]) for k in header] for r in self.rows])

    def spec_json(self) -> str:
        return dumps_canonical(self.spec)


def spec_of(
    make: Callable[..., Any], rows: list[dict[str, Any]], order: list[str] | None = None, **shape: Any
) -> dict[str, Any]:
    """The Vega-Lite spec of make(alt, **shape), an Altair chart that reads its rows by name (alt.Data(name=ROWS)),
    with these rows as that dataset. make must depend on nothing but its parameters (JSON values), which key the
    shape it returns; it is called only when no shape is kept under that key. A chart whose rows are sorted (the
    leaderboard's order, which a run judged again changes) takes the order as make's parameter `order`: make is
    given a stand-in, which the spec then holds wherever it held the order (a sort), and which is replaced here."""
    if order is not None:
        shape["order"] = [ORDER]
    key = spec_key(make, shape)
    ASKED.add(key)
    made = SPECS.get(key)
    if made is None:
        made = SPECS[key] = _made(make, shape)
    spec = made if order is None else _in_order(made, order)
    return {**spec, "datasets": {**spec.get("datasets", {}), ROWS: rows}}


def _in_order(value: Any, order: list[str]) -> Any:
    """value (a spec) copied, with every stand-in for the order replaced by it."""
    if isinstance(value, dict):
        return {k: _in_order(v, order) for k, v in value.items()}
    if isinstance(value, list):
        return order if value == [ORDER] else [_in_order(v, order) for v in value]
    return value


def spec_key(make: Callable[..., Any], shape: dict[str, Any]) -> str:
    """What a shape is made from: the function that makes it, its parameters and Altair's version (the code's own
    key is the build cache's: it keeps no shape made by other code)."""
    parts = [_altair_version(), make.__module__, make.__qualname__, shape]
    return hashlib.sha256(orjson.dumps(parts, option=orjson.OPT_SORT_KEYS)).hexdigest()


@cache
def _altair_version() -> str:
    return version("altair")


def _made(make: Callable[..., Any], shape: dict[str, Any]) -> dict[str, Any]:
    import altair as alt  # only here: a build that finds every shape kept never loads it (about 0.3 s)

    # Altair checks each part it is given against the Vega-Lite schema otherwise, and to_dict the whole: that took
    # most of the charts' time in every build; tests check every chart of every system against that schema instead
    with alt.utils.schemapi.debug_mode(False):
        spec = make(alt, **shape).to_dict(validate=False)
    spec.setdefault("config", {})
    for key, value in CONFIG.items():
        merged = {**value, **spec["config"].get(key, {})} if isinstance(value, dict) else value
        spec["config"][key] = merged
    return spec


def entrant_colours(view: VersionView) -> dict[str, list[str]]:
    """The entrants' colours as a scale's domain (labels, sorted) and range: a shape parameter."""
    labels = {e.id: e.label for e in view.entrants.values()}
    domain = sorted(labels.values())
    by_label = {labels[e]: c for e, c in view.colours.items()}
    return {"domain": domain, "range": [by_label[d] for d in domain]}


def colour_scale(alt: Any, colours: dict[str, list[str]], field: str = "entrant") -> Any:
    return alt.Color(f"{field}:N", title="Entrant", scale=alt.Scale(**colours))


def base_chart(alt: Any) -> Any:
    return alt.Chart(alt.Data(name=ROWS)).properties(width=alt.Step(18))


def charts_for(view: VersionView) -> list[Chart]:
    """The charts of a version: the overall scores sorted by rank, then the system's own (systems/<system>/
    charts.py). A system that draws its own overall chart says so with OWN_OVERALL = True."""
    part = system_part(view.bench.system, "charts")
    own = part.charts(view)
    return own if part.OWN_OVERALL else [overall_chart(view), *own]


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
                "name": f"{row.rank}. {row.label}" if row.rank else row.label,
                # the score's label sits right of its whisker, or of its dot where there is no interval
                "label_at": None if score is None else round(interval.hi if interval else score, 3),
            }
        )
    x_title = view.scored.leaderboard.score_label
    level = round(view.stats.params["level"] * 100) if view.stats and "level" in view.stats.params else None
    whiskers = f" with {level}% interval whiskers" if level else ""
    ranked = view.scored.leaderboard.ranked
    declared = view.scored.leaderboard.score_range
    domain = [display_score(view, declared[0]), display_score(view, declared[1])] if declared else None
    axis = (
        f"; the axis spans the score's declared range, {domain[0]:g}–{domain[1]:g}"
        if domain
        else "; nothing declares the score's range, so the axis spans the figures shown"
    )
    return Chart(
        "overall",
        f"{x_title} by rank" if ranked else f"{x_title}, as listed (not ranked)",
        f"Dot chart of each leaderboard row's {x_title.lower()}{whiskers}, sorted by rank and labelled with the "
        f"score; rows without a full score are listed with the reason and drawn without a dot, never as zero{axis}.",
        data,
        spec_of(_overall, data, order=row_order(view), domain=domain, x_title=x_title),
    )


OVERALL_WIDTH = 320  # with its padding the chart fits a 375 px screen: the leaders are never off to the side


def _overall(alt: Any, order: list[str], domain: list[float] | None, x_title: str) -> Any:
    # each row's name sits above its dot, not in an axis to the left of the plot, so the plot keeps the whole
    # width of a phone's screen and long names (cut with an ellipsis past the plot's width) cost no plot width
    y = alt.Y("entrant:N", title=None, sort=order, axis=None)
    x_scale = alt.Scale(domain=domain) if domain else alt.Scale(zero=False, nice=True)
    base = alt.Chart(alt.Data(name=ROWS)).properties(width=OVERALL_WIDTH, height=alt.Step(38))
    at_zero = alt.value(0)  # the plot's left edge, whatever its scale
    return alt.layer(
        base.mark_text(align="left", baseline="bottom", dy=-5, color="#1b1b1b", limit=OVERALL_WIDTH).encode(
            y=y, x=at_zero, text="name:N"
        ),
        base.transform_filter("datum.interval_low != null")
        .mark_rule(strokeWidth=2, color="#555")
        .encode(y=y, x=alt.X("interval_low:Q", scale=x_scale, title=x_title), x2="interval_high:Q"),
        base.transform_filter("datum.score != null")
        .mark_point(filled=True, size=70, color="#1b1b1b")
        .encode(y=y, x=alt.X("score:Q", scale=x_scale, title=x_title), tooltip=["entrant:N", "rank:Q", "score:Q"]),
        base.transform_filter("datum.score != null")
        .mark_text(align="left", baseline="middle", dx=8, color="#1b1b1b")
        .encode(y=y, x=alt.X("label_at:Q", scale=x_scale, title=x_title), text="label:N"),
        base.transform_filter("datum.note != ''")
        .mark_text(align="left", baseline="middle", color="#555", fontStyle="italic")
        .encode(y=y, x=at_zero, text="note:N"),
    )


def profile_chart(
    view: VersionView, data: list[dict[str, Any]], dimensions: list[str], x_title: str, top: float
) -> dict[str, Any]:
    """Small multiples, one per dimension: each row's value as a dot with its interval whisker, rows in leaderboard
    order and labelled on the left, so no colour has to tell twenty entrants apart. data rows hold entrant,
    dimension, value, complete (a partial mean is drawn hollow), interval_low, interval_high and note (shown where
    value is None: ungraded is not zero)."""
    return spec_of(_profile, data, order=row_order(view), dimensions=dimensions, x_title=x_title, top=top)


def _profile(alt: Any, order: list[str], dimensions: list[str], x_title: str, top: float) -> Any:
    y = alt.Y("entrant:N", title=None, sort=order)
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
        data=alt.Data(name=ROWS),
    )
    return layer.facet(
        column=alt.Column("dimension:N", sort=dimensions, title=None, header=alt.Header(labelFontSize=12))
    )


def grid_chart(view: VersionView, data: list[dict[str, Any]], columns: list[str], top: float) -> dict[str, Any]:
    """A table drawn as a chart: rows in leaderboard order, one column per category, each cell shaded by value and
    labelled with its text (data rows: entrant, column, value, text; a text may be a list of lines), so it reads
    without a legend at any number of entrants. A cell without a value is grey and says why. Cells are shaded by
    value as a fraction of top (which may depend on the rows, as a largest count does: the shape does not)."""
    for d in data:  # Vega-Lite drops marks whose colour is null
        d["shade"] = round(d["value"] / top, 4) if d["value"] is not None and top else 0
    lines = max((len(d["text"]) for d in data if isinstance(d["text"], list)), default=1)
    return spec_of(_grid, data, order=row_order(view), columns=columns, lines=lines)


def _grid(alt: Any, order: list[str], columns: list[str], lines: int) -> Any:
    y = alt.Y("entrant:N", title=None, sort=order)
    x = alt.X("column:N", title=None, sort=columns, axis=alt.Axis(labelAngle=-30, orient="top"))
    base = alt.Chart(alt.Data(name=ROWS)).properties(width=alt.Step(84), height=alt.Step(16 + 13 * lines))
    cells = base.mark_rect(stroke="#ffffff").encode(
        y=y,
        x=x,
        color=alt.condition(
            "datum.value != null",
            alt.Color("shade:Q", scale=alt.Scale(domain=[0, 1], scheme="blues"), legend=None),
            alt.value("#e6e6e6"),
        ),
        tooltip=["entrant:N", "column:N", "text:N"],
    )
    labels = base.mark_text(lineHeight=13).encode(
        y=y,
        x=x,
        text="text:N",
        color=alt.condition("datum.shade > 0.6", alt.value("#ffffff"), alt.value("#1b1b1b")),
    )
    return alt.layer(cells, labels)
