"""Dual-layer charts: mean category scores, and the global score by iteration."""

from __future__ import annotations

import altair as alt

from ...release import VersionView
from ...site.charts import Chart, base_chart, colour_scale


def charts(view: VersionView) -> list[Chart]:
    return [_rubric_categories(view), _rubric_iterations(view)]


def _rubric_categories(view: VersionView) -> Chart:
    rows = []
    for run_id, cells in view.scored.tables["category_means"].items():
        entrant = view.entrants[view.runs[run_id].entrants[0].id].label
        for cat, cell in cells.items():
            if cell.value is not None:
                rows.append({"entrant": entrant, "category": cat, "mean_score": round(cell.value, 2)})
    chart = (
        base_chart(rows)
        .mark_bar()
        .encode(
            x=alt.X("category:N", title=None, sort=view.version.definition.categories, axis=alt.Axis(labelAngle=-30)),
            xOffset="entrant:N",
            y=alt.Y("mean_score:Q", title="Mean category score (0–100)", scale=alt.Scale(domain=[0, 100])),
            color=colour_scale(view),
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
        base_chart(rows)
        .mark_line(point=True)
        .encode(
            x=alt.X("iteration:O", title="Iteration", axis=alt.Axis(labelAngle=0)),
            y=alt.Y("mean_global_score:Q", title="Mean global score", scale=alt.Scale(domain=[50, 100])),
            color=colour_scale(view),
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
