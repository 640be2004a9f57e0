"""Inspect charts: each entrant's recomputed metrics per scorer, with the stderr whisker where the log has one."""

from __future__ import annotations

from typing import Any

from ...release import VersionView
from ...site.charts import ROWS, Chart, colour_scale, entrant_colours, spec_of


def charts(view: VersionView) -> list[Chart]:
    rows = []
    for run_id, log in view.scored.tables["logs"].items():
        row = next(r for r in view.scored.leaderboard.rows if r.key == run_id)
        entrant = view.entrants[view.runs[run_id].entrants[0].id].label
        for s in log.scorers:
            for m in ("accuracy", "mean"):
                if m in s.metrics and row.complete:
                    value, err = s.metrics[m], s.metrics.get("stderr", 0.0)
                    rows.append(
                        {
                            "bar": f"{entrant} · {s.name}",
                            "entrant": entrant,
                            "scorer": s.name,
                            "metric": m,
                            "value": round(value, 6),
                            "low": round(value - err, 6),
                            "high": round(value + err, 6),
                            "samples": len(s.reduced),
                        }
                    )
    if not rows:
        return []
    order = [r["bar"] for r in sorted(rows, key=lambda r: -r["value"])]
    chart = spec_of(_metrics, rows, order=order, colours=entrant_colours(view))
    return [
        Chart(
            "dimensions",
            "Recomputed metric per scorer",
            "Bar chart of each complete entrant's recomputed accuracy or mean per scorer, with a whisker of one "
            "standard error either side; incomplete logs are left out.",
            rows,
            chart,
        )
    ]


def _metrics(alt: Any, order: list[str], colours: dict[str, list[str]]) -> Any:
    base = alt.Chart(alt.Data(name=ROWS))
    bars = base.mark_bar().encode(
        y=alt.Y("bar:N", title=None, sort=order),
        x=alt.X("value:Q", title="Recomputed metric (± stderr)"),
        color=colour_scale(alt, colours),
        tooltip=["entrant:N", "scorer:N", "metric:N", "value:Q", "samples:Q"],
    )
    whiskers = base.mark_rule().encode(y=alt.Y("bar:N", sort=order), x="low:Q", x2="high:Q")
    return alt.layer(bars, whiskers).properties(width=420)
