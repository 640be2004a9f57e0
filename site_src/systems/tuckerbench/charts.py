"""TuckerBench charts: per-dimension means with intervals, and the score distribution."""

from __future__ import annotations

from ...release import VersionView
from ...site.charts import Chart, grid_chart, profile_chart


def charts(view: VersionView) -> list[Chart]:
    return [_tucker_dimensions(view), _tucker_distribution(view)]


def _tucker_dimensions(view: VersionView) -> Chart:
    stats = view.stats
    top = view.version.definition.scale_max
    dims = view.version.definition.dimensions
    data = []
    for row in view.rows:
        for dim in dims:
            cell = row.cells[dim.id]
            ci = stats.rows[row.key].cells.get(dim.id) if stats and row.key in stats.rows else None
            data.append(
                {
                    "entrant": row.label,
                    "dimension": dim.title,
                    "value": None if cell.value is None else round(cell.value, 3),
                    "complete": row.complete,
                    "interval_low": round(ci.lo, 3) if ci else None,
                    "interval_high": round(ci.hi, 3) if ci else None,
                    "note": cell.note or ("no score" if cell.value is None else ""),
                }
            )
    chart = profile_chart(view, data, [d.title for d in dims], f"Mean judge score (0–{top:g})", top)
    return Chart(
        "dimensions",
        "Per-dimension scores per entrant",
        f"One panel per dimension: each entrant's mean judge score on the 0–{top:g} scale as a dot, in leaderboard "
        "order, with a line spanning the interval of complete entrants (its method is in the note above); incomplete "
        "entrants' means (hollow dots) cover only their fully judged transcripts and have no interval; a dimension "
        "without a score says so.",
        data,
        chart,
    )


def _tucker_distribution(view: VersionView) -> Chart:
    """Transcripts per one-point score band and entrant, as a labelled grid: small however many transcripts there
    are, and readable at any number of entrants."""
    top = view.version.definition.scale_max
    bins = max(1, int(top))
    width = top / bins
    counts: dict[tuple[str, int], int] = {}
    labels = {t.entrant_id: view.entrants[t.entrant_id].label for t in view.transcripts.values()}
    row_of = {r.entrant_id: r.label for r in view.rows}
    for tid, t in view.transcripts.items():
        r = view.scored.transcripts[tid]
        if r.score is not None:
            key = (row_of.get(t.entrant_id, labels[t.entrant_id]), min(int(r.score / width), bins - 1))
            counts[key] = counts.get(key, 0) + 1
    names = [f"{b * width:g}–{(b + 1) * width:g}" for b in range(bins)]
    most = max(counts.values(), default=1)
    data = [
        {"entrant": e, "column": names[b], "value": counts.get((e, b), 0), "text": str(counts.get((e, b), 0))}
        for e in sorted({e for e, _ in counts})
        for b in range(bins)
    ]
    return Chart(
        "distribution",
        "Score distribution per entrant",
        f"A grid with one row per entrant and one column per one-point score band (0–{top:g}, judges averaged): each "
        "cell gives the number of fully judged transcripts in that band, shaded by count; missing transcripts are "
        "absent, not zero.",
        data,
        grid_chart(view, data, names, most),
    )
