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
        if f.get("baseline") or not f.get("n_total", 0) > 1:
            continue  # the baseline, and an entrant with fewer than two judgments: no win rate with an error
        se, rate = f["standard_error"], f["win_rate"]
        rows.append(
            {
                "entrant": row.label,
                "win_rate": round(rate, 4),
                "low": round(rate - 1.96 * se, 4),
                "high": round(rate + 1.96 * se, 4),
                "judged": f"{f['n_total']} of {f['instructions']} instructions",
                "ranked": row.rankable,
            }
        )
    if not rows:
        return []
    order = [r["entrant"] for r in sorted(rows, key=lambda r: -r["win_rate"])]
    return [
        Chart(
            "dimensions",
            "Win rate against the baseline",
            "Each entrant's win rate against the baseline over the instructions judged, with a whisker of 1.96 "
            "standard errors either side, sorted from highest; a hollow point is not ranked (incomplete). The dashed "
            "line at 50 is parity with the baseline.",
            rows,
            spec_of(_win_rates, rows, order=order),
        )
    ]


def _win_rates(alt: Any, order: list[str]) -> Any:
    base = alt.Chart(alt.Data(name=ROWS))
    points = base.mark_point(size=60, color="#1b1b1b").encode(
        y=alt.Y("entrant:N", title=None, sort=order),
        x=alt.X("win_rate:Q", title="Win rate against the baseline", scale=alt.Scale(domain=[0, 100])),
        fill=alt.condition("datum.ranked", alt.value("#1b1b1b"), alt.value("transparent")),
        tooltip=["entrant:N", "win_rate:Q", "judged:N"],
    )
    whiskers = base.mark_rule().encode(y=alt.Y("entrant:N", sort=order), x="low:Q", x2="high:Q")
    half = alt.Chart(alt.Data(values=[{"x": 50}])).mark_rule(strokeDash=[4, 4]).encode(x="x:Q")
    return alt.layer(points, whiskers, half).properties(width=420)
