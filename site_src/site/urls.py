"""The URLs of the pages that have keys (see build/page_keys.py), from one formula: the app's routes make the same
(a test checks each against url_for), and what is done per page at 10,000 transcripts cannot afford url_for for
each."""

from __future__ import annotations

from typing import Any

from ..outdir import site_path


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
        return f"/{b}/{v}/t/{values['tid']}/"
    if endpoint == "transcript_json":
        return f"/{b}/{v}/data/t/{values['tid']}.json"
    if endpoint == "versus":
        return f"/{b}/{v}/vs/{values['a']}/{values['b']}/"
    if endpoint == "entrant":
        first = f"/{b}/{v}/entrants/{values['entrant_id']}/"
    elif endpoint == "item":
        first = f"/{b}/{v}/items/{values['item_id']}/"
    elif endpoint == "transcripts":
        first = f"/{b}/{v}/transcripts/"
    else:
        return None
    return first if values["number"] == 1 else f"{first}page/{values['number']}/"
