"""The pipeline runs one way: read (readers/) -> score (scoring/) -> release -> render (site/), and only the build
room (build/) runs it and knows the build cache and the output folder.

Checked on every import in the package, followed through every module it reaches (a module imports what the modules
it imports import), so a shortcut (the site calling a scorer while it renders, a reader computing a score, a module
outside the build room reaching the cache) fails here rather than in review. The templates and the model are held
to the same: neither names an evaluation system.
"""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

from helpers import ROOT

PACKAGE = ROOT / "site_src"
LAYERS = ("core", "readers", "scoring", "display", "site", "build", "commands")
FORBIDDEN = {  # layer -> layers it must never reach, directly or through any module it imports
    "core": {"readers", "scoring", "display", "site", "build", "commands"},
    "readers": {"scoring", "display", "site", "build", "commands"},
    "scoring": {"readers", "display", "site", "build", "commands"},
    "display": {"readers", "scoring", "site", "build", "commands"},
    "site": {"readers", "scoring", "build", "commands"},
    "build": {"commands"},
    "commands": set(),  # the command line and the commands it hands over to
}
COMMANDS = {
    "site_src.cli",
    "site_src.importing",
    "site_src.report",
    "site_src.review_kit",
    "site_src.release_diff",
    "site_src.published",
}
# a system's package holds one module per layer (site_src/systems/__init__.py): each counts as that layer
SYSTEM_MODULE_LAYER = {
    "reader": "readers",
    "logfile": "readers",
    "importer": "readers",
    "scoring": "scoring",
    "compare": "scoring",
    "judges": "scoring",
    "definition": "core",  # plain data, like model.py: every layer may use it
    "records": "core",  # its records, likewise
    "display": "display",  # how figures read: used by the release, the site and the report
    "charts": "site",
    "__init__": "core",
}


def _layer(dotted: str) -> str:
    """The layer of a module given as site_src.<...>."""
    parts = dotted.split(".")
    if dotted in COMMANDS:
        return "commands"
    if len(parts) > 3 and parts[1] == "systems":
        return SYSTEM_MODULE_LAYER[parts[3]]
    return parts[1] if len(parts) > 2 and parts[1] in LAYERS else "core"


def _modules() -> dict[str, Path]:
    """Every module of the package, by dotted name."""
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


def _imports(path: Path) -> set[str]:
    """Dotted names of the site_src modules (or names in them) a file imports, anywhere in it, relative imports
    resolved."""
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
                names = [node.module or ""] + [f"{node.module}.{alias.name}" for alias in node.names]
            out.update(n for n in names if n.startswith("site_src"))
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name.startswith("site_src"))
    return out


@cache
def _graph() -> dict[str, set[str]]:
    """Module -> the modules it imports (a package imported counts as its __init__, which Python runs)."""
    modules = _modules()
    graph = {}
    for name, path in modules.items():
        found = {n for n in _imports(path) if n in modules}
        parents = {".".join(n.split(".")[:i]) for n in found for i in range(2, n.count(".") + 1)}
        graph[name] = (found | {p for p in parents if p in modules}) - {name}
    return graph


def _reached(start: str) -> dict[str, list[str]]:
    """Every module start reaches, each with one chain of imports that reaches it."""
    graph, seen, todo = _graph(), {start: [start]}, [start]
    while todo:
        current = todo.pop()
        for nxt in graph[current]:
            if nxt not in seen:
                seen[nxt] = [*seen[current], nxt]
                todo.append(nxt)
    return seen


def test_layers_reach_only_downstream_through_every_import():
    broken = []
    for module in sorted(_graph()):
        layer = _layer(module)
        for reached, chain in _reached(module).items():
            if _layer(reached) in FORBIDDEN[layer]:
                broken.append(f"{module} ({layer}) reaches {reached} ({_layer(reached)}): {' -> '.join(chain)}")
    assert not broken, "\n".join(broken[:20])


def test_nothing_outside_the_build_room_imports_it_but_the_command_line():
    outside = [
        f"{module} imports {name}"
        for module in _graph()
        if _layer(module) != "build" and module != "site_src.cli"
        for name in _graph()[module]
        if _layer(name) == "build"
    ]
    assert not outside, outside


def test_the_problems_reach_no_scanner_and_the_model_no_cache():
    """Problems mask what they print with the rules alone (secretrules.py); the records reach nothing that keeps or
    scans them."""
    assert "site_src.secretscan" not in _reached("site_src.problems")
    for record_module in ("site_src.model", "site_src.results", "site_src.worked_out"):
        assert not {m for m in _reached(record_module) if m.startswith(("site_src.build", "site_src.secretscan"))}


def test_every_system_module_has_a_layer():
    for path in (PACKAGE / "systems").glob("*/*.py"):
        assert path.stem in SYSTEM_MODULE_LAYER, path


def _system_names() -> list[str]:
    from site_src.systems import systems

    found = []
    for s in systems():
        found += [s.id, s.package.rsplit(".", 1)[-1], s.run_format.split("-run")[0]]
    return sorted({n for n in found if n})


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


def test_the_templates_outside_each_systems_folder_name_no_system():
    """A page's vocabulary comes from the benchmark's display: declarations (benchmark.yaml); only the templates
    under templates/systems/<system>/ belong to one system."""
    names = _system_names()
    offenders = []
    for path in sorted((ROOT / "templates").rglob("*.html")):
        if "systems" in path.relative_to(ROOT / "templates").parts:
            continue
        text = path.read_text(encoding="utf-8")
        offenders += [f"{path.relative_to(ROOT)}: {n}" for n in names if re.search(rf"['\"]{re.escape(n)}['\"]", text)]
        offenders += [f"{path.relative_to(ROOT)}: .system ==" for _ in re.findall(r"\.system\s*[!=]=", text)]
    assert not offenders, offenders


def test_the_model_records_name_no_system():
    """The shared records are every system's: no system's id, package or name appears in model.py, and no record
    there belongs to one system (those lie in site_src/systems/<system>/records.py)."""
    text = (PACKAGE / "model.py").read_text(encoding="utf-8").lower()
    words = {w.lower() for w in _system_names()} | {"pack", "rubric", "tuckerbench", "alpaca", "inspect", "halees"}
    assert not [w for w in sorted(words) if re.search(rf"\b{re.escape(w)}\b", text)]


def test_the_import_walker_sees_relative_imports_and_follows_them():
    found = _imports(PACKAGE / "scoring" / "release.py")
    assert "site_src.scoring.dispatch" in found and "site_src.model" in found
    assert _layer("site_src.systems.tuckerbench.reader") == "readers"
    assert _layer("site_src.site.charts") == "site" and _layer("site_src.release") == "core"
    assert _layer("site_src.build.cache") == "build" and _layer("site_src.cli") == "commands"
    # the site reaches the model through the release, and the release nothing that scores
    assert "site_src.model" in _reached("site_src.site.app") and "site_src.scoring.dispatch" in _reached(
        "site_src.scoring.release"
    )
    assert not any(m.startswith("site_src.scoring") for m in _reached("site_src.release"))


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

    from site_src.scoring.release import build_release
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
