"""Dual-layer charts: mean category scores, and the global score by iteration."""

from __future__ import annotations

from typing import Any

from ...release import VersionView
from ...site.charts import Chart, base_chart, colour_scale, entrant_colours, grid_chart, spec_of


def charts(view: VersionView) -> list[Chart]:
    return [_rubric_categories(view), _rubric_iterations(view)]


def _rubric_categories(view: VersionView) -> Chart:
    label = {r.run_ids[0]: r.label for r in view.rows if r.run_ids}
    categories = view.version.definition.categories
    data = []
    for run_id, cells in view.scored.tables["category_means"].items():
        for cat in categories:
            cell = cells.get(cat)
            value = None if cell is None or cell.value is None else round(cell.value, 2)
            data.append(
                {
                    "entrant": label.get(run_id, run_id),
                    "column": cat,
                    "value": value,
                    "text": "no score" if value is None else f"{value:.0f}",
                }
            )
    return Chart(
        "dimensions",
        "Category scores per entrant",
        "A grid with one row per entrant and one column per rubric category: each cell gives the mean category "
        "score (0–100) over the finished tasks' deciding iterations, shaded by score; a category without one says "
        "so.",
        data,
        grid_chart(view, data, categories, 100),
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
    last = {r["entrant"]: r["iteration"] for r in rows}
    for r in rows:  # each line is labelled at its end, so colour never has to name the entrant alone
        r["end_label"] = r["entrant"] if last[r["entrant"]] == r["iteration"] else ""
    threshold = view.version.definition.threshold
    chart = spec_of(_iterations, rows, threshold=threshold, colours=entrant_colours(view))
    return Chart(
        "distribution",
        "Global score by iteration",
        f"Mean global score of the tasks graded at each iteration, per entrant (task counts in the data); the "
        f"dashed rule is the pass threshold ({threshold}).",
        rows,
        chart,
    )


def _iterations(alt: Any, threshold: int, colours: dict[str, list[str]]) -> Any:
    x = alt.X("iteration:O", title="Iteration", axis=alt.Axis(labelAngle=0))
    y = alt.Y("mean_global_score:Q", title="Mean global score", scale=alt.Scale(domain=[50, 100]))
    lines = (
        base_chart(alt)
        .mark_line(point=True)
        .encode(
            x=x,
            y=y,
            color=colour_scale(alt, colours),
            tooltip=["entrant:N", "iteration:O", "mean_global_score:Q", "tasks:Q"],
        )
    )
    names = (
        base_chart(alt)
        .transform_filter("datum.end_label != ''")
        .mark_text(align="left", dx=8)
        .encode(x=x, y=y, text="end_label:N")
    )
    marker = alt.Chart(alt.Data(values=[{"threshold": threshold, "text": f"pass threshold {threshold}"}]))
    rule = marker.mark_rule(strokeDash=[4, 4]).encode(y="threshold:Q")
    rule_label = marker.mark_text(align="left", x=4, dy=-7).encode(y="threshold:Q", text="text:N")
    return alt.layer(lines, names, rule, rule_label).properties(width=420, height=240)
