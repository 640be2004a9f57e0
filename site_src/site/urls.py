"""The URLs of the pages that have keys (see build/page_keys.py), from one formula: the app's routes make the same
(a test checks each against url_for), and what is done per page at 10,000 transcripts cannot afford url_for for
each."""

from __future__ import annotations

import hashlib
import re
from functools import lru_cache
from typing import Any

from ..outdir import site_path

# the site's URL layout (docs/site-layout.md): 2 put each transcript and item in a folder of 256, 3 a lean layout's
# transcript page in a file of that folder (t/<ff>/<tid>.html) rather than a folder of its own
LAYOUT = 3
# endpoint -> the id its folder is of
FOLDED = {"transcript": "tid", "lean_transcript": "tid", "transcript_json": "tid", "item": "item_id"}
RUN_DOWNLOAD = re.compile(r"([^/]+)/([^/]+)/data/t/([0-9a-f]{2})/([^/]+)\.jsonl\.gz")  # the lean layout's


@lru_cache(maxsize=1 << 16)
def fold(name: str) -> str:
    """The folder of 256 that a transcript's or an item's pages lie in: the first two hex digits of the SHA-256 of
    its id (UTF-8). A version's t/, data/t/ and items/ then hold at most 256 folders each, and each of those about
    one 256th of its transcripts or items: about 3,900 at a million, under 10,000 up to about 2.5 million."""
    return hashlib.sha256(name.encode()).hexdigest()[:2]


def slice_of(rel: str, count: int) -> int:
    """Which of `count` slices (from 1) renders rel, a file of a version's pages (its site path) or one of its
    search bundles (its folder): a stable hash, so every slice build and the merge agree without a list."""
    return int(hashlib.sha256(rel.encode()).hexdigest()[:8], 16) % count + 1


def run_download(rel: str) -> tuple[str, str, str, str] | None:
    """(bench, version, folder of 256, run id) of the lean layout's download of a run's transcripts in one folder,
    from its site path (as the transcripts_jsonl route makes it); None for any other path."""
    found = RUN_DOWNLOAD.fullmatch(rel)
    return (found[1], found[2], found[3], found[4]) if found else None


def page_url(endpoint: str, values: dict[str, Any]) -> str | None:
    """The site-absolute URL the app's route makes from (endpoint, values) for a transcript page or download, an
    item page, a page of the transcript list, a page of an entrant or a head-to-head page; None for any other page.
    Page keys are recorded by these URLs, and a rebuild leaves a page whose key is unchanged out of the pages
    Frozen-Flask lists (see freeze.freeze)."""
    url = _page_url(endpoint, values)
    return url and site_path(url)  # one string with the URLs Frozen-Flask lists (freeze.freeze) and those recorded


def _page_url(endpoint: str, values: dict[str, Any]) -> str | None:
    """The URL as the app's routes make it; page_url makes it the one string for it."""
    b, v = values["bench"], values["version"]
    if endpoint == "transcript":
        return f"/{b}/{v}/t/{fold(values['tid'])}/{values['tid']}/"
    if endpoint == "lean_transcript":  # the lean layout's: a file, where a folder of its own costs a million folders
        return f"/{b}/{v}/t/{fold(values['tid'])}/{values['tid']}.html"
    if endpoint == "transcript_json":
        return f"/{b}/{v}/data/t/{fold(values['tid'])}/{values['tid']}.json"
    if endpoint == "transcripts_jsonl":  # the lean layout's download of a run's transcripts in one folder
        return f"/{b}/{v}/data/t/{values['folder']}/{values['run']}.jsonl.gz"
    if endpoint == "versus":
        return f"/{b}/{v}/vs/{values['a']}/{values['b']}/"
    if endpoint == "entrant":
        first = f"/{b}/{v}/entrants/{values['entrant_id']}/"
    elif endpoint == "item":
        first = f"/{b}/{v}/items/{fold(values['item_id'])}/{values['item_id']}/"
    elif endpoint == "transcripts":
        first = f"/{b}/{v}/transcripts/"
    else:
        return None
    return first if values["number"] == 1 else f"{first}page/{values['number']}/"
