"""`build.py serve`: the same Flask app the freezer uses, served locally, reloaded when any input changes."""

from __future__ import annotations

import os
import socket
import sys
from pathlib import Path

from ..problems import Problems
from ..readers.project import load_project
from ..release import build_release
from .app import create_app

ROOT = Path(__file__).resolve().parent.parent.parent


def make_app(content: str, runs: list[str]):  # noqa: ANN201 - a Flask app
    project = load_project(Path(content), [Path(r) for r in runs], Problems())
    for problem in project.problems.items:
        print(problem, file=sys.stderr)
    if project.problems.errors:
        print("preview shows only the runs that loaded; fix the errors above", file=sys.stderr)
    return create_app(build_release(project))


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


def serve(content: str, runs: list[str], port: int) -> int:
    problem = port_problem(port)
    if problem:
        print(f"error: {problem}", file=sys.stderr)
        return 1
    watched = [
        p for folder in [Path(content), *map(Path, runs), ROOT / "templates"] for p in folder.rglob("*") if p.is_file()
    ]
    app = make_app(content, runs)
    print(f"preview at http://127.0.0.1:{port}/ (Ctrl-C to stop; pages reload when content, runs or templates change)")
    app.run(host="127.0.0.1", port=port, debug=False, use_reloader=True, extra_files=[str(p) for p in watched])
    return 0
