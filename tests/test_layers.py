"""The pipeline runs one way: read (readers/) -> score (scoring/) -> release -> render (site/).

Checked by walking every import in the package, so a shortcut (the site calling a scorer while it renders, a reader
computing a score) fails here rather than in review.
"""

from __future__ import annotations

import ast
from pathlib import Path

from helpers import ROOT

PACKAGE = ROOT / "site_src"
FORBIDDEN = {  # layer -> layers it must never import
    "site": {"scoring"},
    "readers": {"scoring", "site"},
    "scoring": {"site", "readers"},
}
# a system's package holds one module per layer (site_src/systems/__init__.py): each counts as that layer
SYSTEM_MODULE_LAYER = {
    "reader": "readers",
    "logfile": "readers",
    "importer": "readers",
    "scoring": "scoring",
    "compare": "scoring",
    "judges": "scoring",
}
SYSTEM_MODULE_LAYER["definition"] = None  # plain data, like model.py: every layer may use it
SYSTEM_MODULE_LAYER["display"] = "display"  # how figures read: used by the release, the site and the report
FORBIDDEN["display"] = {"scoring", "readers", "site"}
SYSTEM_MODULE_LAYER["charts"] = "site"


def _layer(dotted: str) -> str | None:
    """The layer of a module given as site_src.<...>: readers, scoring, site, or None for the core."""
    parts = dotted.split(".")
    if len(parts) > 3 and parts[1] == "systems":
        return SYSTEM_MODULE_LAYER.get(parts[3])
    return parts[1] if len(parts) > 2 and parts[1] in FORBIDDEN else None


def _imports(path: Path) -> set[str]:
    """Dotted names of the site_src modules a file imports, relative imports resolved."""
    module = path.relative_to(ROOT).with_suffix("").parts
    package = module[:-1] if path.name != "__init__.py" else module
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                name = ".".join(base + tuple(filter(None, (node.module or "").split("."))))
                names = [f"{name}.{alias.name}" for alias in node.names] + [name]
            else:
                names = [node.module or ""]
            out.update(n for n in names if n.startswith("site_src"))
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name.startswith("site_src"))
    return out


def test_layers_import_only_downstream():
    broken = []
    for path in sorted(PACKAGE.rglob("*.py")):
        layer = _layer(".".join(path.relative_to(ROOT).with_suffix("").parts))
        for name in _imports(path):
            if layer in FORBIDDEN and _layer(name) in FORBIDDEN[layer]:
                broken.append(f"{path.relative_to(ROOT)} imports {name}")
    assert not broken, "\n".join(broken)


def test_every_system_module_has_a_layer():
    for path in (PACKAGE / "systems").glob("*/*.py"):
        assert path.stem == "__init__" or path.stem in SYSTEM_MODULE_LAYER, path


def test_the_core_names_no_system():
    """Outside site_src/systems/, no module switches on a system id: the registry is the only way in."""
    from site_src.systems import systems

    ids = [s.id for s in systems()]
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if "systems" in path.relative_to(PACKAGE).parts:
            continue
        text = path.read_text(encoding="utf-8")
        offenders += [f"{path.relative_to(ROOT)}: {i}" for i in ids if f'"{i}"' in text or f"'{i}'" in text]
    assert not offenders, offenders


def test_the_import_walker_sees_relative_imports():
    found = _imports(PACKAGE / "release.py")
    assert "site_src.scoring.dispatch" in found and "site_src.model" in found
    assert _layer("site_src.systems.tuckerbench.reader") == "readers"
    assert _layer("site_src.site.charts") == "site" and _layer("site_src.release") is None


def test_seed004_dimension_and_group_weights_must_add_up_as_declared(tmp_path):
    """Weights are validated with the arithmetic that shows the mistake, naming file and field."""
    import json
    import shutil

    from helpers import CONTENT, RUNS, load, messages

    content = tmp_path / "content"
    shutil.copytree(CONTENT, content)
    pilot_path = content / "tuckerbench/versions/v1-pilot/config/pilot.json"
    pilot = json.loads(pilot_path.read_text(encoding="utf-8"))
    pilot["dimensions"][0]["weight"] = 35
    pilot["groups"][0]["weight"] = 2
    pilot_path.write_text(json.dumps(pilot), encoding="utf-8")
    errors = messages(load(RUNS, content))
    file = "content/tuckerbench/versions/v1-pilot/config/pilot.json"
    assert any(
        f"{file}, field dimensions: dimension weights add up to 95, not 100: fidelity 35 + comic_invention 25" in m
        for m in errors
    ), errors
    assert any(
        f"{file}, field groups: group weights add up to 4/3, not 1: single 2/3 + conversation 2/3" in m for m in errors
    )


def test_the_release_arrives_scored_and_is_not_changed_by_rendering(demo):
    """The site looks things up in the release: its views cannot be reassigned, and rendering every page of a
    version leaves every figure as it was."""
    import dataclasses

    import pytest

    from site_src.release import build_release
    from site_src.site.app import create_app

    release = build_release(demo)
    view = release.views[0]
    with pytest.raises(dataclasses.FrozenInstanceError):
        view.summaries = {}  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        release.views[0].summaries[next(iter(view.summaries))].text = "changed"  # type: ignore[misc]
    before = repr(
        [(r.key, r.score, r.count, r.coverage, sorted(r.cells.items())) for v in release.views for r in v.rows]
    )
    client = create_app(release).test_client()
    for v in release.views:
        for path in ("", "breakdown/", "items/", "data/leaderboard.json"):
            assert client.get(f"/{v.bench.id}/{v.version.id}/{path}").status_code == 200
    after = repr(
        [(r.key, r.score, r.count, r.coverage, sorted(r.cells.items())) for v in release.views for r in v.rows]
    )
    assert before == after
