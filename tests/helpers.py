"""Helpers shared by the tests: paths, loading, and editing copies of run files."""

from __future__ import annotations

import hashlib
import json
import shutil
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from site_src.model import Project  # noqa: E402
from site_src.problems import Problems  # noqa: E402
from site_src.readers.project import load_project  # noqa: E402

CONTENT = ROOT / "content"
RUNS = ROOT / "runs"


def fold(name: str) -> str:
    """The folder of 256 a transcript's or an item's pages lie in (site layout 2): the first two hex digits of the
    SHA-256 of its id, worked out here apart from the site's own code."""
    return hashlib.sha256(name.encode("utf-8")).hexdigest()[:2]


def manifest_and_parts(site: Path) -> tuple[dict, list[dict]]:
    """A site's publish manifest and each of its parts, in the order it names them."""
    root = json.loads((site / "publish-manifest.json").read_text(encoding="utf-8"))
    return root, [json.loads((site / p["path"]).read_text(encoding="utf-8")) for p in root["parts"]]


def manifest_files(site: Path) -> dict[str, dict]:
    """Every file's entry in a site's publish manifest, from the manifest itself and each of its parts."""
    root, parts = manifest_and_parts(site)
    files = dict(root["files"])
    for part in parts:
        files.update(part["files"])
    return files


def load(runs: Path, content: Path = CONTENT) -> Project:
    return load_project(content, [runs], Problems())


def edit_jsonl(path: Path, line: int, change: Callable[[dict[str, Any]], None]) -> None:
    """Apply change() to the record on a 1-based line of a JSONL file."""
    lines = path.read_text(encoding="utf-8").split("\n")
    record = json.loads(lines[line - 1])
    change(record)
    lines[line - 1] = json.dumps(record, ensure_ascii=False)
    path.write_text("\n".join(lines), encoding="utf-8")


def edit_json(path: Path, change: Callable[[Any], None]) -> None:
    value = json.loads(path.read_text(encoding="utf-8"))
    change(value)
    path.write_text(json.dumps(value, ensure_ascii=False, indent=1), encoding="utf-8")


def messages(project: Project, severity: str = "error") -> list[str]:
    return [str(p) for p in project.problems.items if p.severity == severity]


def copy_project(dest: Path, folders: tuple[str, ...] = ("site_src", "templates", "content", "runs")) -> Path:
    """A checkout-like copy of the project at dest: build.py finds the project from its own folder, so the code comes
    along with the content and runs."""
    dest.mkdir()
    shutil.copy(ROOT / "build.py", dest / "build.py")
    for name in folders:
        shutil.copytree(ROOT / name, dest / name, ignore=shutil.ignore_patterns("__pycache__"))
    return dest


def set_layout(content: Path, benches: tuple[str, ...], layout: str = "lean") -> None:
    """Make the benches of a content folder say `layout: <layout>` in their benchmark.yaml."""
    for bench in benches:
        path = content / bench / "benchmark.yaml"
        path.write_text(f"layout: {layout}\n" + path.read_text(encoding="utf-8"), encoding="utf-8")


def unpacked(path: Path) -> str:
    """A lean download's text: JSON Lines compressed by gzip (one stream, its header without a time)."""
    import gzip

    data = path.read_bytes()
    assert data[:2] == b"\x1f\x8b" and data[4:8] == bytes(4), path  # gzip, and no time in its header
    return gzip.decompress(data).decode("utf-8")


def lean_content(dest: Path, benches: tuple[str, ...], layout: str = "lean") -> Path:
    """A copy of the demo content at dest whose benches say `layout: <layout>` in their benchmark.yaml."""
    shutil.copytree(CONTENT, dest)
    set_layout(dest, benches, layout)
    return dest


def keyed_urls(release: Any) -> set[str]:
    """The URL of each page with a key (urls.page_url) that the release's versions list, each checked to be the URL
    url_for makes (a rebuild keeps a page by it)."""
    from flask import url_for

    from site_src.site.app import create_app
    from site_src.site.freeze import version_pages
    from site_src.site.urls import page_url

    keyed = set()
    with create_app(release).test_request_context():
        for view in release.views:
            for endpoint, values in version_pages(view):
                url = page_url(endpoint, values)
                if url is not None:
                    assert url == url_for(endpoint, **values)
                    keyed.add(url)
    return keyed


def tree_hash(root: Path) -> str:
    """One hash over every path and file's bytes below root (symbolic links are hashed by name only)."""
    h = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        h.update(path.relative_to(root).as_posix().encode())
        if path.is_file() and not path.is_symlink():
            h.update(path.read_bytes())
    return h.hexdigest()


def vega_lite_problems(site: Path) -> list[str]:
    """Every chart spec a built site offers (charts/*.vl.json), checked against the Vega-Lite schema Altair ships:
    the build writes the specs without that check (site_src/site/charts.py)."""
    from altair.vegalite.v6.schema.core import load_schema
    from jsonschema import Draft7Validator

    validator = Draft7Validator(load_schema())
    specs = sorted(site.rglob("charts/*.vl.json"))
    assert specs, f"no chart spec under {site}"
    return [
        f"{path.relative_to(site)}: {error.message[:200]}"
        for path in specs
        for error in validator.iter_errors(json.loads(path.read_text(encoding="utf-8")))
    ]


def indexed_text(html: str) -> list[str]:
    """What Pagefind indexes of a page: its data-pagefind-* meta tags, and the text inside the data-pagefind-body
    element that no data-pagefind-ignore element holds."""
    from html.parser import HTMLParser

    void = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
    found: list[str] = []
    open_tags: list[tuple[str, bool, bool]] = []  # tag, opens the body, opens an ignored part

    class Indexed(HTMLParser):
        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            names = dict(attrs)
            if any(name.startswith("data-pagefind-") for name in names) and tag == "meta":
                found.append(repr(sorted(names.items())))
            if tag not in void:
                open_tags.append((tag, "data-pagefind-body" in names, "data-pagefind-ignore" in names))

        def handle_endtag(self, tag: str) -> None:
            while open_tags and open_tags.pop()[0] != tag:
                pass

        def handle_data(self, data: str) -> None:
            in_body = any(body for _, body, _ in open_tags)
            if in_body and not any(ignored for _, _, ignored in open_tags) and data.strip():
                found.append(data.strip())

    Indexed(convert_charrefs=True).feed(html)
    return found


def wcag_violations(page: Any) -> list[tuple[str, str, list[Any]]]:
    """axe's WCAG 2.1 A and AA violations on a Playwright page: (rule, help, the first three nodes' targets) each."""
    from axe_playwright_python.sync_playwright import Axe

    wcag = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
    results = Axe().run(page, options={"runOnly": {"type": "tag", "values": wcag}})
    return [(v["id"], v["help"], [n["target"] for n in v["nodes"]][:3]) for v in results.response["violations"]]


MT_BENCH_PLUGIN = ROOT / "plugins/evalboard-mtbench"  # the MT-Bench system, a plugin package of this repository


@contextmanager
def plugin_installed(package_dir: Path, name: str, package: str) -> Iterator[None]:
    """A plugin as if installed beside evalboard: its package importable and named in the evalboard.systems entry
    point group (tests/test_packaging.py installs plugins for real, in a fresh virtual environment)."""
    from importlib.metadata import EntryPoint

    from site_src import systems as registry
    from site_src import validate

    with pytest.MonkeyPatch.context() as mp:
        mp.syspath_prepend(str(package_dir))
        found = [EntryPoint(name, package, registry.ENTRY_POINTS)]
        mp.setattr(registry, "entry_points", lambda group: found if group == registry.ENTRY_POINTS else [])
        registry.systems.cache_clear()
        validate.schema_of.cache_clear()
        try:
            yield
        finally:
            registry.systems.cache_clear()
            validate.schema_of.cache_clear()
