"""Pairwise charts: win rate per entrant with ±1.96 standard-error whiskers, sorted, with the 50 line."""

from __future__ import annotations

from typing import Any

from ...release import VersionView
from ...site.charts import ROWS, Chart, spec_of

OWN_OVERALL = True  # the win-rate chart below is this system's overall chart (with the source's own errors)


def charts(view: VersionView) -> list[Chart]:
    rows = []
    for row in view.scored.leaderboard.rows:
        f = row.figures
        if row.complete and row.score is not None:
            se = f["standard_error"]
            rows.append(
                {
                    "entrant": row.label,
                    "win_rate": round(row.score, 4),
                    "low": round(row.score - 1.96 * se, 4),
                    "high": round(row.score + 1.96 * se, 4),
                    "judged": f["n_total"],
                }
            )
    if not rows:
        return []
    order = [r["entrant"] for r in sorted(rows, key=lambda r: -r["win_rate"])]
    return [
        Chart(
            "dimensions",
            "Win rate against the baseline",
            "Each complete entrant's win rate against the baseline with a whisker of 1.96 standard errors either "
            "side, sorted from highest; the dashed line at 50 is parity with the baseline.",
            rows,
            spec_of(_win_rates, rows, order=order),
        )
    ]


def _win_rates(alt: Any, order: list[str]) -> Any:
    base = alt.Chart(alt.Data(name=ROWS))
    points = base.mark_point(filled=True, size=60).encode(
        y=alt.Y("entrant:N", title=None, sort=order),
        x=alt.X("win_rate:Q", title="Win rate against the baseline", scale=alt.Scale(domain=[0, 100])),
        tooltip=["entrant:N", "win_rate:Q", "judged:Q"],
    )
    whiskers = base.mark_rule().encode(y=alt.Y("entrant:N", sort=order), x="low:Q", x2="high:Q")
    half = alt.Chart(alt.Data(values=[{"x": 50}])).mark_rule(strokeDash=[4, 4]).encode(x="x:Q")
    return alt.layer(points, whiskers, half).properties(width=420)
