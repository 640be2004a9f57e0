"""TuckerBench charts: per-dimension means with intervals, and the score distribution."""

from __future__ import annotations

import altair as alt

from ...release import VersionView
from ...site.charts import Chart, base_chart, colour_scale


def charts(view: VersionView) -> list[Chart]:
    return [_tucker_dimensions(view), _tucker_distribution(view)]


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
        base_chart(rows)
        .mark_bar()
        .encode(
            x=x,
            xOffset="entrant:N",
            y=alt.Y(
                "mean_score:Q",
                title=f"Mean judge score (0–{top:g})",
                scale=alt.Scale(domain=[0, top]),
            ),
            color=colour_scale(view),
            tooltip=["entrant:N", "dimension:N", "mean_score:Q", "interval_low:Q", "interval_high:Q"],
        )
    )
    whiskers = (
        base_chart(rows)
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
        base_chart(rows)
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
            color=colour_scale(view),
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
