"""MT-Bench charts: each entrant's mean grade per category (FastChat shows them on a radar), on the 1-10 scale."""

from __future__ import annotations

from typing import Any

from site_src.release import VersionView
from site_src.site.charts import ROWS, Chart, spec_of


def charts(view: VersionView) -> list[Chart]:
    rows = []
    for row in view.scored.leaderboard.rows:
        for key, cell in row.cells.items():
            if key.startswith("category:") and cell.value is not None:
                rows.append({"entrant": row.label, "category": key.split(":", 1)[1], "grade": round(cell.value, 4),
                             "grades": cell.n})  # fmt: skip
    if not rows:
        return []
    return [
        Chart(
            "categories",
            "Mean grade per category",
            "Each entrant's mean grade (1 to 10) in each of the question categories, over the turns graded; the "
            "count of grades is in each point's tooltip and in the table.",
            rows,
            spec_of(_per_category, rows),
        )
    ]


def _per_category(alt: Any) -> Any:
    return (
        alt.Chart(alt.Data(name=ROWS))
        .mark_point(size=60, filled=True)
        .encode(
            y=alt.Y("category:N", title=None),
            x=alt.X("grade:Q", title="Mean grade", scale=alt.Scale(domain=[1, 10])),
            color=alt.Color("entrant:N", title="Entrant"),
            shape=alt.Shape("entrant:N", title="Entrant"),
            tooltip=["entrant:N", "category:N", "grade:Q", "grades:Q"],
        )
        .properties(width=420)
    )
