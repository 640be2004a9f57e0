"""Titles made from the start of a text (an instruction, a prompt), for lists and page titles.

A title is a label, not the record: the record's exact characters stay on its own page. So a title keeps only the
first line, drops control and format characters (which could reorder or hide what a reader sees) and is cut at a
word boundary with an ellipsis.
"""

from __future__ import annotations

import unicodedata

TITLE_LENGTH = 70


def opening(text: str, limit: int = TITLE_LENGTH) -> str:
    """The start of a text as a one-line title of at most `limit` characters (ellipsis included)."""
    visible = "".join(ch for ch in text if unicodedata.category(ch) not in ("Cc", "Cf") or ch in "\n\t")
    line = " ".join(next((ln for ln in visible.splitlines() if ln.strip()), "").split())
    if len(line) <= limit:
        return line
    cut = line[: limit - 1]
    space = cut.rfind(" ")
    return (cut[:space] if space > limit // 2 else cut).rstrip(" ,;:.") + "…"
