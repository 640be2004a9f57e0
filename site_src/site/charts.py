"""Charts: Altair specs rendered to SVG at build time, so they show without JavaScript and load nothing.

Each chart also offers its Vega-Lite spec (data inline) and its data as CSV for download.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import altair as alt
import vl_convert

from ..jsonio import dumps_canonical
from ..release import VersionView
from ..systems import system_part
from .downloads import write_csv


@dataclass
class Chart:
    name: str
    title: str
    description: str  # the text alternative: what the chart shows, in words
    rows: list[dict[str, Any]]
    spec: dict[str, Any]

    def csv(self) -> str:
        if not self.rows:
            return ""
        header = list(self.rows[0])
        return write_csv(header, [["" if r[k] is None else r[k] for k in header] for r in self.rows])

    def spec_json(self) -> str:
        return dumps_canonical(self.spec)


def colour_scale(view: VersionView, field: str = "entrant") -> alt.Color:
    labels = {e.id: e.label for e in view.entrants.values()}
    domain = sorted(labels.values())
    by_label = {labels[e]: c for e, c in view.colours.items()}
    return alt.Color(f"{field}:N", title="Entrant", scale=alt.Scale(domain=domain, range=[by_label[d] for d in domain]))


def base_chart(rows: list[dict[str, Any]]) -> alt.Chart:
    return alt.Chart(alt.Data(values=rows)).properties(width=alt.Step(18))


def charts_for(view: VersionView) -> list[Chart]:
    """The charts of a version's breakdown page, drawn by its system (systems/<system>/charts.py)."""
    return system_part(view.bench.system, "charts").charts(view)


@lru_cache(maxsize=256)
def _svg(spec_json: str) -> str:
    return vl_convert.vegalite_to_svg(json.loads(spec_json), allowed_base_urls=[])


def svg_for(chart: Chart) -> str:
    """The chart as inline SVG with an accessible name; rendered once per spec."""
    svg = _svg(chart.spec_json())
    label = chart.title.replace('"', "'")
    return svg.replace("<svg ", f'<svg role="img" aria-label="{label}" focusable="false" ', 1)
