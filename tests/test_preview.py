"""`build.py serve` over real HTTP shows the same pages the build freezes."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request

from helpers import ROOT

PAGES = [
    "",
    "tuckerbench/v1-pilot/",
    "uzbek-pack/0.1.0/t/4c/demo-model-a-run1--004--a1/",
    "halees-dual-layer/halees-dual-layer-v1/breakdown/",
    "tuckerbench/v1-pilot/judges/",
    "index.json",
    "search/",
    "tuckerbench/v1-pilot/search/demo-pilot-run1/pagefind-entry.json",  # the search index works in the preview
]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_preview_serves_the_same_bytes_as_the_frozen_site(built_site):
    port = free_port()
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    server = subprocess.Popen(
        [sys.executable, "build.py", "serve", "--port", str(port)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        base = f"http://127.0.0.1:{port}/"
        deadline = time.time() + 60
        while True:
            try:
                urllib.request.urlopen(base, timeout=2)
                break
            except OSError:
                assert time.time() < deadline, "preview did not start"
                time.sleep(0.3)
        for path in PAGES:
            with urllib.request.urlopen(base + path, timeout=10) as response:
                served = response.read()
            frozen = built_site / path / "index.html" if not path.endswith(".json") else built_site / path
            assert served == frozen.read_bytes(), path
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=10)
