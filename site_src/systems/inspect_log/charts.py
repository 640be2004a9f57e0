"""Inspect charts: each entrant's recomputed accuracy or mean per scorer, as a dot with its 95% interval.

The interval is worked out in scoring.py (interval): Wilson's where the figure is a proportion of whole samples,
from the counts; otherwise 1.96 standard errors either side, from the recomputed stderr. The axis is the metric's
declared range (definition.metric_range), never guessed from the figures; without one it spans the figures and says so.
"""

from __future__ import annotations

from typing import Any

from ...release import VersionView
from ...site.charts import ROWS, Chart, spec_of
from .definition import metric_range


def charts(view: VersionView) -> list[Chart]:
    d = view.version.definition
    rows, ranges = [], set()
    for run_id, log in view.scored.tables["logs"].items():
        row = next(r for r in view.scored.leaderboard.rows if r.key == run_id)
        if not row.complete:
            continue
        entrant = view.entrants[view.runs[run_id].entrants[0].id].label
        for s in log.scorers:
            for m in ("accuracy", "mean"):
                if m in s.metrics:
                    ranges.add(metric_range(d, s.name, m))
                    rows.append(_point(entrant, s, m))
    if not rows:
        return []
    domain = list(ranges.pop()) if len(ranges) == 1 and None not in ranges else None
    axis = (
        f"the axis is the metrics' declared range, {domain[0]:g}–{domain[1]:g}"
        if domain
        else ("the metrics declare no one range, so the axis spans the figures shown")
    )
    order = [r["bar"] for r in sorted(rows, key=lambda r: -r["value"])]
    return [
        Chart(
            "dimensions",
            "Recomputed metric per scorer",
            "Dot chart of each complete entrant's recomputed accuracy or mean per scorer, with its 95% interval "
            f"(Wilson's from the counts where the scores are whole samples right or wrong, else 1.96 standard errors "
            f"either side); incomplete logs are left out; {axis}.",
            rows,
            spec_of(_metrics, rows, order=order, domain=domain),
        )
    ]


def _point(entrant: str, s: Any, m: str) -> dict[str, Any]:
    value, ci = s.metrics[m], s.interval  # a ScorerResult of scoring.py, with its interval worked out there
    return {
        "bar": f"{entrant} · {s.name}",
        "entrant": entrant,
        "scorer": s.name,
        "metric": m,
        "value": round(value, 6),
        "low": round(ci[0], 6) if ci else None,
        "high": round(ci[1], 6) if ci else None,
        "interval": ci[2] if ci else "none",
        "samples": len(s.reduced),
    }


def _metrics(alt: Any, order: list[str], domain: list[float] | None) -> Any:
    scale = alt.Scale(domain=domain) if domain else alt.Scale(zero=False, nice=True)
    title = "Recomputed metric (95% interval)"
    x = alt.X("value:Q", title=title, scale=scale)
    y = alt.Y("bar:N", title=None, sort=order, axis=alt.Axis(labelLimit=200))
    base = alt.Chart(alt.Data(name=ROWS))
    whiskers = (
        base.transform_filter("datum.low != null")
        .mark_rule(strokeWidth=2, color="#555")
        .encode(y=y, x=alt.X("low:Q", scale=scale, title=title), x2="high:Q")
    )
    dots = base.mark_point(filled=True, size=60, color="#1b1b1b").encode(
        y=y, x=x, tooltip=["entrant:N", "scorer:N", "metric:N", "value:Q", "low:Q", "high:Q", "interval:N"]
    )
    return alt.layer(whiskers, dots).properties(width=300)
