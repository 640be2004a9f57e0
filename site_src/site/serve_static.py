"""Serve a built site folder over HTTP, optionally under a sub-path, as a static host would (used by tests)."""

from __future__ import annotations

import functools
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path


class _Handler(SimpleHTTPRequestHandler):
    prefix = "/"

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - quiet in tests
        pass

    def translate_path(self, path: str) -> str:
        if not path.startswith(self.prefix):
            return str(Path(self.directory) / "__outside_prefix__")
        return super().translate_path("/" + path[len(self.prefix) :])

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        page = Path(self.directory) / "404.html"
        if code == 404 and page.exists():  # what Netlify and GitHub Pages do
            body = page.read_bytes()
            self.send_response(404)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        super().send_error(code, message, explain)


def serve(site: Path, prefix: str = "/", port: int = 0) -> tuple[ThreadingHTTPServer, str]:
    """Start a server in a daemon thread; returns it and the site's base URL (ending in '/')."""
    handler = type("Handler", (_Handler,), {"prefix": prefix})
    server = ThreadingHTTPServer(("127.0.0.1", port), functools.partial(handler, directory=str(site)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}{prefix}"
