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
system here is its own new files plus one line in REGISTERED below and its id in the benchmark schema's `system`
enum. A package installed beside evalboard adds one with no change here: it names its system's package in the entry
point group `evalboard.systems`, and that package is laid out as above (its template partials in its own
`templates/` folder). Both are loaded the same way; see docs/adding-a-system.md.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, replace
from functools import cache
from importlib.metadata import EntryPoint, entry_points
from pathlib import Path
from types import ModuleType
from typing import Any

from .contract import ContractError, part_of

REGISTERED = (  # one line per system: its package in this folder
    "uzbek_pack",
    "dual_layer",
    "tuckerbench",
    "inspect_log",
    "pairwise",
    "lm_eval",
)
LAYERS = ("reader", "scoring", "display", "charts", "importer")
ENTRY_POINTS = "evalboard.systems"  # the group a plugin names its system's package in


class PluginError(RuntimeError):
    """An installed plugin that cannot be loaded, named with its distribution."""


@dataclass(frozen=True)
class System:
    id: str  # as a benchmark.yaml names it under `system:`
    marker: str  # the metadata file that makes a folder one of its run directories
    run_format: str  # the `format` value that metadata file declares
    run_contents: tuple[str, ...]  # other names only its run directories hold (to name a missing metadata file)
    version_field: str = "version"  # the metadata file's field that names the version of its benchmark a run is of
    review_kit: bool = False  # whether its runs have blind human pairs for the review kit
    importer: str = ""  # the source name of `build.py import SOURCE`, if it imports another tool's files
    judges: bool = False  # whether its scoring reports on judges (judge_reports): statistics.judges needs it
    ranks_over_present: bool = False  # whether it implements benchmark.yaml `incomplete_entrants: ranked_over_present`
    package: str = ""  # filled in by the registry
    origin: str = ""  # "shipped with evalboard X" or "plugin <distribution> Y": filled in by the registry

    @property
    def plugin(self) -> bool:
        """Added by an installed package through the entry point group, not shipped here."""
        return not self.origin.startswith("shipped")

    @property
    def folder(self) -> Path:
        """The folder of the system's package."""
        return Path(importlib.import_module(self.package).__file__ or "").parent

    @property
    def templates(self) -> Path | None:
        """A plugin's template partials (its package's templates/ folder), if it has any."""
        if not self.plugin:
            return None  # in the project's templates/systems/<id>/
        folder = self.folder / "templates"
        return folder if folder.is_dir() else None


@cache
def systems() -> tuple[System, ...]:
    """The systems shipped here, then those installed plugins add, each checked the same way."""
    from .. import __version__

    found = [_loaded(importlib.import_module(f"{__name__}.{name}"), f"shipped with evalboard {__version__}")
             for name in REGISTERED]  # fmt: skip
    found += [_plugin(ep) for ep in sorted(entry_points(group=ENTRY_POINTS), key=lambda ep: ep.name)]
    for i, s in enumerate(found):
        for other in found[:i]:
            if s.id == other.id or s.marker == other.marker:
                clash = "id" if s.id == other.id else "metadata file"
                raise PluginError(f"the system {s.id} ({s.origin}) has the {clash} of {other.id} ({other.origin})")
    return tuple(found)


def _loaded(module: ModuleType, origin: str) -> System:
    system = getattr(module, "SYSTEM", None)
    if not isinstance(system, System):
        raise PluginError(f"{module.__name__} ({origin}) defines no SYSTEM = System(...)")
    return replace(system, package=module.__name__, origin=origin)


def _plugin(ep: EntryPoint) -> System:
    """An entry point's system: its value names the system's package."""
    dist = f"{ep.dist.name} {ep.dist.version}" if ep.dist else "an unknown distribution"
    origin = f"plugin {dist}"
    try:
        module = ep.load()
    except Exception as exc:  # noqa: BLE001 - any failure of a plugin's import is named, not raised as is
        raise PluginError(f"the evaluation system plugin {ep.name!r} ({ep.value}, {origin}) cannot be loaded: "
                          f"{type(exc).__name__}: {exc}") from None  # fmt: skip
    if not isinstance(module, ModuleType):
        raise PluginError(f"the evaluation system plugin {ep.name!r} ({origin}) must name a package, not {ep.value}")
    return _loaded(module, origin)


def system(system_id: str) -> System:
    return next(s for s in systems() if s.id == system_id)


def by_marker(name: str) -> System | None:
    return next((s for s in systems() if s.marker == name), None)


def by_format(run_format: str) -> System:
    """The system of a run, from its format string such as "tuckerbench-run/1"."""
    return next(s for s in systems() if s.run_format == run_format.split("/")[0])


def system_part(system_id: str, layer: str) -> Any:
    """One layer of a system, typed by its contract (contract.py: what it must define, and the defaults of its
    optional hooks), from its module, imported when first needed (so each layer imports only its own)."""
    if layer not in LAYERS:
        raise ValueError(f"unknown layer {layer!r}")
    name = f"{system(system_id).package}.{layer}"
    try:
        module = importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name != name:
            raise
        raise ContractError(f"the system {system_id} has no {layer} module ({name}): a system must have one") from None
    part = part_of(module, layer)
    if layer == "scoring" and system(system_id).judges and part.judge_reports is None:
        raise ContractError(f"{name} defines no judge_reports, which its System(judges=True) promises")
    return part
