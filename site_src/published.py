"""A published site's data, fetched over HTTP(S) for `build.py diff URL NEW` (the GitHub Action compares a pull
request's build with the deployed site this way).

Only what the diff reads is fetched: the site's `index.json`, then each version's `data/leaderboard.json` and
`data/transcripts.json` (and the parts it names), at the paths the index gives, below the site's own URL. Each
answer is bounded in size and time; a site that has no index yet (never deployed) is a DiffError saying so."""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any
from urllib.parse import urljoin

from .changes import DiffError, list_part_paths

TIMEOUT = 30  # seconds per request
MAX_BYTES = 512 * 1024 * 1024  # per file: a transcript list of a million transcripts is about 300 MB
_VERSION_PATH = re.compile(r"[A-Za-z0-9._~-]+/[A-Za-z0-9._~-]+/")  # "bench/version/", nothing that climbs out


def is_url(text: str) -> bool:
    return text.startswith(("https://", "http://"))


def fetch_published(url: str, dest: Path) -> Path:
    """Write the published data of the site at url under dest, laid out as in the site; return dest."""
    base = url if url.endswith("/") else url + "/"
    index = _json(base, "index.json")
    for bench in index.get("benchmarks", []) if isinstance(index, dict) else []:
        for version in bench.get("versions", []):
            folder = version.get("leaderboard", "")
            if not isinstance(folder, str) or not _VERSION_PATH.fullmatch(folder) or ".." in folder.split("/"):
                raise DiffError(f"{base}index.json: a version's path {folder!r} is not <benchmark>/<version>/")
            listed = [f"{folder}data/{name}" for name in ("leaderboard.json", "transcripts.json")]
            for rel in listed:
                _save(base, rel, dest)
            try:
                parts = list_part_paths(folder.rstrip("/"), json.loads((dest / listed[1]).read_bytes()))
            except ValueError as exc:
                raise DiffError(f"{base}{listed[1]}: not JSON ({exc})") from None
            for rel in parts:  # the list's parts (site layout 2), each at its own numbered path
                _save(base, rel, dest)
    return dest


def _save(base: str, rel: str, dest: Path) -> None:
    target = dest / rel
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(_get(base, rel))


def _json(base: str, rel: str) -> Any:
    data = _get(base, rel)
    try:
        return json.loads(data)
    except ValueError as exc:
        raise DiffError(f"{base}{rel}: not JSON ({exc})") from None


def _get(base: str, rel: str) -> bytes:
    url = urljoin(base, rel)
    try:
        with urllib.request.urlopen(url, timeout=TIMEOUT) as answer:  # noqa: S310 - http(s) only (is_url)
            data = answer.read(MAX_BYTES + 1)
    except urllib.error.HTTPError as exc:
        gone = " (no site is published there yet?)" if exc.code == 404 and rel == "index.json" else ""
        raise DiffError(f"{url}: HTTP {exc.code}{gone}") from None
    except (urllib.error.URLError, OSError) as exc:
        raise DiffError(f"{url}: cannot be fetched ({getattr(exc, 'reason', exc)})") from None
    if len(data) > MAX_BYTES:
        raise DiffError(f"{url}: larger than {MAX_BYTES // 2**20} MiB")
    return data
