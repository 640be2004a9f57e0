"""Browser fixtures: the frozen demo site served from a sub-path on 127.0.0.1, and Debian's Chromium."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, sync_playwright

from site_src.site.serve_static import serve

CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
PREFIX = "/repo/"


@pytest.fixture(scope="session")
def site_url(built_site: Path) -> Iterator[str]:
    server, url = serve(built_site, PREFIX)
    yield url
    server.shutdown()


@pytest.fixture(scope="session")
def chromium_browser() -> Iterator[Browser]:
    if not Path(CHROMIUM).exists():
        pytest.fail("Chromium is missing: run sh tests/install-debian-tools.sh")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


@pytest.fixture
def page(chromium_browser: Browser):
    context = chromium_browser.new_context()
    pg = context.new_page()
    yield pg
    context.close()
