"""`build.py serve`: the same Flask app the freezer uses, served locally. The server restarts when any input changes;
the browser is not told (a page shows the change when it is reloaded), so a preview page is byte for byte the page
the freezer writes, with no script added."""

from __future__ import annotations

import atexit
import os
import shutil
import socket
import sys
import tempfile
from pathlib import Path

from flask import Flask, Response, send_from_directory

from ..outdir import url_of
from ..paths import TEMPLATES
from ..problems import Problems
from ..readers.project import load_project
from ..release import Release
from ..results import plural
from ..scoring.release import build_release
from ..site import search_index
from ..site.app import create_app
from ..site.freeze import render_urls


def make_app(content: str, runs: list[str], search: bool = True):  # noqa: ANN201 - a Flask app
    project = load_project(Path(content), [Path(r) for r in runs], Problems())
    for problem in project.problems.items:
        print(problem, file=sys.stderr)
    if project.problems.errors:
        print("preview shows only the runs that loaded; fix the errors above", file=sys.stderr)
    release = build_release(project)
    app = create_app(release)
    if search:
        add_search(app, release)
    return app


def add_search(app: Flask, release: Release) -> None:
    """Index the transcript pages as the build does (rendered by this app, one bundle per run, into a temporary
    folder) and serve the bundles where the site has them, so the preview's search page works too."""
    folder = Path(tempfile.mkdtemp(prefix="evalboard-preview-search-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)

    @app.route("/<bench>/<version>/search/<run_id>/<path:name>")  # before the first request, as Flask requires
    def search_bundle(bench: str, version: str, run_id: str, name: str) -> Response:
        return send_from_directory(folder / search_index.bundle_dir(bench, version, run_id), name)

    bundles = search_index.bundles(release)
    pages = [page for listed in bundles.values() for page in listed]
    print(
        f"indexing {plural(len(pages), 'transcript page')} for search (serve --no-search skips this)", file=sys.stderr
    )
    render_urls(app, folder, [url_of(page) for page in pages])
    search_index.index_for_search(folder, bundles)


def port_problem(port: int) -> str | None:
    """Why the preview cannot listen on port, found by trying, so the URL is printed only when it will work."""
    if os.environ.get("WERKZEUG_RUN_MAIN"):  # the reloader's child: the parent already holds the socket
        return None
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        try:
            probe.bind(("127.0.0.1", port))
        except OSError as exc:
            return f"cannot serve on 127.0.0.1:{port}: {exc.strerror}; choose another with --port"
    return None


def serve(content: str, runs: list[str], port: int, search: bool = True) -> int:
    problem = port_problem(port)
    if problem:
        print(f"error: {problem}", file=sys.stderr)
        return 1
    watched = [p for folder in [Path(content), *map(Path, runs), TEMPLATES] for p in folder.rglob("*") if p.is_file()]
    app = make_app(content, runs, search)
    print(
        f"preview at http://127.0.0.1:{port}/ (Ctrl-C to stop; the server restarts when content, runs or templates "
        "change: reload the page to see a change)"
    )
    app.run(host="127.0.0.1", port=port, debug=False, use_reloader=True, extra_files=[str(p) for p in watched])
    return 0
