"""Pack charts: passing cases per category and run, and case outcomes per run."""

from __future__ import annotations

import altair as alt

from ...release import VersionView
from ...site.charts import Chart, base_chart, colour_scale


def charts(view: VersionView) -> list[Chart]:
    return [_pack_categories(view), _pack_outcomes(view)]


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
        base_chart(rows)
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
            color=colour_scale(view),
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
        base_chart(rows)
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
