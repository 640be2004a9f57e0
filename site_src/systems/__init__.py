"""The registry of evaluation systems: the only place the core learns which systems exist.

Each system is a package here holding everything specific to it, one module per pipeline layer:

    <package>/__init__.py   SYSTEM: what the system is called and how its run directories are recognised (data)
    <package>/reader.py     load_version(): its frozen definition under content/; read_run(): one run directory
    <package>/scoring.py    score(): recompute a version, as numbers; statistics(): its intervals; optional
                            judge_reports()
    <package>/display.py    score_text(), cell_text(): how its figures read; summarise(): one line per transcript
    <package>/charts.py     charts(): the two charts of its breakdown page
    <package>/importer.py   optional plan(): another tool's files as run directories (site_src/importing.py)
    templates/systems/<id>/ its template partials

The core (readers/, scoring/, release, site/) calls these through system_part() and never names a system. Adding a
system is its own new files plus one line in REGISTERED below and its id in the benchmark schema's `system` enum;
see docs/adding-a-system.md.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from functools import cache
from types import ModuleType

REGISTERED = (  # one line per system: its package in this folder
    "uzbek_pack",
    "dual_layer",
    "tuckerbench",
    "inspect_log",
    "pairwise",
)
LAYERS = ("reader", "scoring", "display", "charts", "importer")


@dataclass(frozen=True)
class System:
    id: str  # as a benchmark.yaml names it under `system:`
    marker: str  # the metadata file that makes a folder one of its run directories
    run_format: str  # the `format` value that metadata file declares
    run_contents: tuple[str, ...]  # other names only its run directories hold (to name a missing metadata file)
    review_kit: bool = False  # whether its runs have blind human pairs for the review kit
    importer: str = ""  # the source name of `build.py import SOURCE`, if it imports another tool's files
    ranks_over_present: bool = False  # whether it implements benchmark.yaml `incomplete_entrants: ranked_over_present`
    package: str = ""  # filled in by the registry


@cache
def systems() -> tuple[System, ...]:
    found = []
    for name in REGISTERED:
        module = importlib.import_module(f"{__name__}.{name}")
        system: System = module.SYSTEM
        found.append(System(**{**system.__dict__, "package": module.__name__}))
    ids, markers = [s.id for s in found], [s.marker for s in found]
    if len(set(ids)) != len(ids) or len(set(markers)) != len(markers):
        raise RuntimeError(f"registered systems must have distinct ids and metadata files: {ids}, {markers}")
    return tuple(found)


def system(system_id: str) -> System:
    return next(s for s in systems() if s.id == system_id)


def by_marker(name: str) -> System | None:
    return next((s for s in systems() if s.marker == name), None)


def by_format(run_format: str) -> System:
    """The system of a run, from its format string such as "tuckerbench-run/1"."""
    return next(s for s in systems() if s.run_format == run_format.split("/")[0])


def system_part(system_id: str, layer: str) -> ModuleType:
    """One layer's module of a system, imported when first needed (so each layer imports only its own)."""
    if layer not in LAYERS:
        raise ValueError(f"unknown layer {layer!r}")
    return importlib.import_module(f"{system(system_id).package}.{layer}")
