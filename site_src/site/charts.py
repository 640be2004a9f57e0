"""Charts: Altair specs rendered to SVG at build time, so they show without JavaScript and load nothing.

Each chart also offers its Vega-Lite spec (data inline) and its data as CSV for download.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import altair as alt
import vl_convert

from ..jsonio import dumps_canonical
from ..release import VersionView
from .downloads import write_csv


@dataclass
class Chart:
    name: str
    title: str
    description: str  # the text alternative: what the chart shows, in words
    rows: list[dict[str, Any]]
    spec: dict[str, Any]

    def csv(self) -> str:
        if not self.rows:
            return ""
        header = list(self.rows[0])
        return write_csv(header, [["" if r[k] is None else r[k] for k in header] for r in self.rows])

    def spec_json(self) -> str:
        return dumps_canonical(self.spec)


def _colour(view: VersionView, field: str = "entrant") -> alt.Color:
    labels = {e.id: e.label for e in view.entrants.values()}
    domain = sorted(labels.values())
    by_label = {labels[e]: c for e, c in view.colours.items()}
    return alt.Color(f"{field}:N", title="Entrant", scale=alt.Scale(domain=domain, range=[by_label[d] for d in domain]))


def _base(rows: list[dict[str, Any]]) -> alt.Chart:
    return alt.Chart(alt.Data(values=rows)).properties(width=alt.Step(18))


def charts_for(view: VersionView) -> list[Chart]:
    system = view.bench.system
    if system == "tuckerbench":
        return [_tucker_dimensions(view), _tucker_distribution(view)]
    if system == "dual-layer":
        return [_rubric_categories(view), _rubric_iterations(view)]
    return [_pack_categories(view), _pack_outcomes(view)]


def _tucker_dimensions(view: VersionView) -> Chart:
    stats = view.stats
    top = view.version.definition.scale_max
    rows = []
    for row in view.rows:
        for dim in view.version.definition.dimensions:
            cell = row.cells[dim.id]
            if cell.value is not None:
                ci = stats.rows[row.key].cells.get(dim.id) if stats and row.key in stats.rows else None
                rows.append(
                    {
                        "entrant": view.entrants[row.entrant_id].label,
                        "dimension": dim.title,
                        "mean_score": round(cell.value, 3),
                        "complete": row.complete,
                        "interval_low": round(ci.lo, 3) if ci else None,
                        "interval_high": round(ci.hi, 3) if ci else None,
                    }
                )
    x = alt.X(
        "dimension:N",
        title=None,
        sort=[d.title for d in view.version.definition.dimensions],
        axis=alt.Axis(labelAngle=0),
    )
    bars = (
        _base(rows)
        .mark_bar()
        .encode(
            x=x,
            xOffset="entrant:N",
            y=alt.Y(
                "mean_score:Q",
                title=f"Mean judge score (0–{top:g})",
                scale=alt.Scale(domain=[0, top]),
            ),
            color=_colour(view),
            tooltip=["entrant:N", "dimension:N", "mean_score:Q", "interval_low:Q", "interval_high:Q"],
        )
    )
    whiskers = (
        _base(rows)
        .transform_filter("datum.interval_low != null")
        .mark_rule(color="black")
        .encode(
            x=x,
            xOffset="entrant:N",
            y="interval_low:Q",
            y2="interval_high:Q",
        )
    )
    chart = alt.layer(bars, whiskers).properties(width=520, height=240)
    return Chart(
        "dimensions",
        "Per-dimension scores per entrant",
        f"Bar chart of each entrant's mean judge score per dimension on the 0–{top:g} scale, with black lines "
        "spanning the bootstrap intervals of complete entrants; incomplete entrants' means cover only their "
        "fully judged transcripts and have no interval.",
        rows,
        chart.to_dict(),
    )


def _tucker_distribution(view: VersionView) -> Chart:
    """A histogram per entrant (one-point bins), so the chart stays small however many transcripts there are."""
    top = view.version.definition.scale_max
    bins = max(1, int(top))
    width = top / bins
    counts: dict[tuple[str, int], int] = {}
    for tid, t in view.transcripts.items():
        r = view.scored.transcripts[tid]
        if r.score is not None:
            key = (view.entrants[t.entrant_id].label, min(int(r.score / width), bins - 1))
            counts[key] = counts.get(key, 0) + 1
    labels = sorted({e for e, _ in counts})
    names = [f"{b * width:g}–{(b + 1) * width:g}" for b in range(bins)]
    rows = [
        {"entrant": e, "score_bin": names[b], "transcripts": counts.get((e, b), 0)} for e in labels for b in range(bins)
    ]
    chart = (
        _base(rows)
        .mark_bar()
        .encode(
            x=alt.X(
                "score_bin:O",
                title=f"Transcript score (0–{top:g}, judges averaged)",
                sort=names,
                axis=alt.Axis(labelAngle=0),
            ),
            xOffset="entrant:N",
            y=alt.Y("transcripts:Q", title="Transcripts"),
            color=_colour(view),
            tooltip=["entrant:N", "score_bin:O", "transcripts:Q"],
        )
        .properties(width=520, height=220)
    )
    return Chart(
        "distribution",
        "Score distribution per entrant",
        "Number of fully judged transcripts per one-point score band, for each entrant; missing transcripts "
        "are absent, not zero.",
        rows,
        chart.to_dict(),
    )


def _rubric_categories(view: VersionView) -> Chart:
    rows = []
    for run_id, cells in view.scored.tables["category_means"].items():
        entrant = view.entrants[view.runs[run_id].entrants[0].id].label
        for cat, cell in cells.items():
            if cell.value is not None:
                rows.append({"entrant": entrant, "category": cat, "mean_score": round(cell.value, 2)})
    chart = (
        _base(rows)
        .mark_bar()
        .encode(
            x=alt.X("category:N", title=None, sort=view.version.definition.categories, axis=alt.Axis(labelAngle=-30)),
            xOffset="entrant:N",
            y=alt.Y("mean_score:Q", title="Mean category score (0–100)", scale=alt.Scale(domain=[0, 100])),
            color=_colour(view),
            tooltip=["entrant:N", "category:N", "mean_score:Q"],
        )
        .properties(width=520, height=240)
    )
    return Chart(
        "dimensions",
        "Category scores per entrant",
        "Bar chart of each entrant's mean score per rubric category, taken from each finished task's "
        "deciding iteration.",
        rows,
        chart.to_dict(),
    )


def _rubric_iterations(view: VersionView) -> Chart:
    """Mean global score at each iteration number per entrant, with the number of tasks behind each point."""
    acc: dict[tuple[str, int], list[int]] = {}
    for tid, t in view.transcripts.items():
        for it in view.scored.transcripts[tid].iterations:
            if it.global_score is not None:
                acc.setdefault((view.entrants[t.entrant_id].label, it.number), []).append(it.global_score)
    rows = [
        {"entrant": e, "iteration": k, "mean_global_score": round(sum(v) / len(v), 2), "tasks": len(v)}
        for (e, k), v in sorted(acc.items())
    ]
    threshold = view.version.definition.threshold
    lines = (
        _base(rows)
        .mark_line(point=True)
        .encode(
            x=alt.X("iteration:O", title="Iteration", axis=alt.Axis(labelAngle=0)),
            y=alt.Y("mean_global_score:Q", title="Mean global score", scale=alt.Scale(domain=[50, 100])),
            color=_colour(view),
            tooltip=["entrant:N", "iteration:O", "mean_global_score:Q", "tasks:Q"],
        )
    )
    rule = alt.Chart(alt.Data(values=[{"threshold": threshold}])).mark_rule(strokeDash=[4, 4]).encode(y="threshold:Q")
    chart = alt.layer(lines, rule).properties(width=420, height=240)
    return Chart(
        "distribution",
        "Global score by iteration",
        f"Mean global score of the tasks graded at each iteration, per entrant (task counts in the data); the "
        f"dashed rule is the pass threshold ({threshold}).",
        rows,
        chart.to_dict(),
    )


def _pack_categories(view: VersionView) -> Chart:
    rows = []
    d = view.version.definition
    titles = dict(d.categories)
    per_category = d.cases_per_category
    for row in view.rows:
        for cat, cell in row.cells.items():
            rows.append(
                {
                    "entrant": view.entrants[row.entrant_id].label,
                    "run": row.key,
                    "category": titles[cat],
                    "passes": cell.n,
                    f"all_{per_category}_graded": cell.value is not None,
                }
            )
    chart = (
        _base(rows)
        .mark_bar()
        .encode(
            x=alt.X("category:N", title=None, sort=list(titles.values())),
            xOffset="run:N",
            y=alt.Y(
                "passes:Q",
                title=f"Passing cases (of {per_category})",
                scale=alt.Scale(domain=[0, per_category]),
                axis=alt.Axis(tickCount=min(per_category, 10)),
            ),
            color=_colour(view),
            tooltip=["run:N", "category:N", "passes:Q"],
        )
        .properties(width=560, height=200)
    )
    return Chart(
        "dimensions",
        "Passing cases per category and run",
        f"Bar chart of passing cases out of {per_category} per category, one bar per run directory; a category with "
        "ungraded cases shows only the passes observed.",
        rows,
        chart.to_dict(),
    )


def _pack_outcomes(view: VersionView) -> Chart:
    rows = []
    cases = view.version.definition.case_count
    for row in view.rows:  # one row per run directory and attempt: never merged, never counted twice
        counts: dict[str, int] = {}
        for t in view.runs[row.run_ids[0]].transcripts:
            if t.attempt != row.attempt:
                continue
            outcome = view.scored.transcripts[t.id].outcome
            counts[outcome] = counts.get(outcome, 0) + 1
        for outcome in ("pass", "fail", "needs_review", "ungraded"):
            rows.append({"run": row.key, "outcome": outcome, "cases": counts.get(outcome, 0)})
    chart = (
        _base(rows)
        .mark_bar()
        .encode(
            y=alt.Y("run:N", title=None),
            x=alt.X("cases:Q", title=f"Cases (of {cases})", scale=alt.Scale(domain=[0, cases])),
            color=alt.Color(
                "outcome:N",
                scale=alt.Scale(
                    domain=["pass", "fail", "needs_review", "ungraded"],
                    range=["#009E73", "#D55E00", "#E69F00", "#999999"],
                ),
            ),
            order=alt.Order("outcome:N"),
            tooltip=["run:N", "outcome:N", "cases:Q"],
        )
        .properties(width=480, height=alt.Step(28))
    )
    return Chart(
        "distribution",
        "Case outcomes per run",
        "Stacked bars of pass, fail, needs-review and ungraded cases for each run directory.",
        rows,
        chart.to_dict(),
    )


@lru_cache(maxsize=256)
def _svg(spec_json: str) -> str:
    return vl_convert.vegalite_to_svg(json.loads(spec_json), allowed_base_urls=[])


def svg_for(chart: Chart) -> str:
    """The chart as inline SVG with an accessible name; rendered once per spec."""
    svg = _svg(chart.spec_json())
    label = chart.title.replace('"', "'")
    return svg.replace("<svg ", f'<svg role="img" aria-label="{label}" focusable="false" ', 1)
