"""Pack charts: passing cases per category and run, and case outcomes per run."""

from __future__ import annotations

from typing import Any

from ...release import VersionView
from ...site.charts import Chart, base_chart, grid_chart, row_order, spec_of


def charts(view: VersionView) -> list[Chart]:
    return [_pack_categories(view), _pack_outcomes(view)]


def _pack_categories(view: VersionView) -> Chart:
    d = view.version.definition
    titles = dict(d.categories)
    per_category = d.cases_per_category
    data = []
    for row in view.rows:  # one row per run directory (and attempt): repeated runs stay apart
        for cat, cell in row.cells.items():
            ungraded = (cell.of or per_category) - (cell.graded if cell.graded is not None else per_category)
            text = [f"{cell.n}/{cell.of or per_category}"] + ([f"{ungraded} ungraded"] if cell.value is None else [])
            data.append(
                {
                    "entrant": row.label,
                    "column": titles[cat],
                    "value": cell.n if cell.value is not None else None,
                    "text": text,
                    "passes": cell.n,
                    f"all_{per_category}_graded": cell.value is not None,
                }
            )
    return Chart(
        "dimensions",
        "Passing cases per category and run",
        f"A grid with one row per run directory and one column per category: each cell gives the passing cases out "
        f"of {per_category}, shaded by passes; a category with ungraded cases is grey and says how many are "
        "ungraded, never counted as failures.",
        data,
        grid_chart(view, data, list(titles.values()), per_category),
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
            rows.append({"run": row.label, "outcome": outcome, "cases": counts.get(outcome, 0)})
    chart = spec_of(_outcomes, rows, order=row_order(view), cases=cases)
    return Chart(
        "distribution",
        "Case outcomes per run",
        "Stacked bars of pass, fail, needs-review and ungraded cases for each run directory.",
        rows,
        chart,
    )


def _outcomes(alt: Any, order: list[str], cases: int) -> Any:
    return (
        base_chart(alt)
        .mark_bar()
        .encode(
            y=alt.Y("run:N", title=None, sort=order),
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
