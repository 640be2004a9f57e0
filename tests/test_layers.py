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
        parts = path.relative_to(PACKAGE).parts
        layer = parts[0] if len(parts) > 1 else None
        for name in _imports(path):
            target = name.split(".")[1] if name.count(".") >= 1 else None
            if layer in FORBIDDEN and target in FORBIDDEN[layer]:
                broken.append(f"{path.relative_to(ROOT)} imports {name}")
    assert not broken, "\n".join(broken)


def test_the_import_walker_sees_relative_imports():
    found = _imports(PACKAGE / "release.py")
    assert "site_src.scoring.dispatch" in found and "site_src.model" in found
