"""Charts: Altair specs, drawn to SVG at build time (drawing.py), so they show without JavaScript and load nothing.

Each chart also offers its Vega-Lite spec (data inline) and its data as CSV for download.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import altair as alt

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
