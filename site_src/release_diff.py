"""`build.py diff OLD NEW`: what changed between two builds, read from their published data only (see
site_src/changes.py and scoring/changes.py), written as text for a terminal, Markdown for a pull-request comment, or
JSON.
"""

from __future__ import annotations

import json
import tempfile
from dataclasses import asdict
from pathlib import Path

from .changes import LEVEL, DiffError, Published, RowChange, VersionChange, read_published
from .published import fetch_published, is_url
from .scoring.changes import compare

__all__ = ["DiffError", "diff", "render"]


def diff(old_site: Path | str, new_site: Path | str) -> list[VersionChange]:
    """Compare two built sites, each a folder or the URL of a published site (its data fetched first)."""
    return compare(_published(old_site), _published(new_site))


def _published(site: Path | str) -> Published:
    if isinstance(site, str) and is_url(site):
        with tempfile.TemporaryDirectory(prefix="evalboard-published-") as folder:
            return read_published(fetch_published(site, Path(folder)))
    return read_published(Path(site))


def _num(x: float | None, fmt: str = "{:.2f}") -> str:
    return "–" if x is None else fmt.format(x)


def _move(c: RowChange) -> str:
    rank = "" if c.old_rank == c.new_rank else f"rank {c.old_rank or '–'} -> {c.new_rank or '–'}; "
    score = f"score {_num(c.old_score)} -> {_num(c.new_score)}"
    if c.item_move is None:
        return f"{rank}{score}; no item answered in both"
    if c.interval is None:
        paired = f"mean item result {c.item_move:+.3f} over {c.items} items (no interval: too few items)"
    else:
        low, high = c.interval
        paired = f"mean item result {c.item_move:+.3f} [{low:+.3f}, {high:+.3f}] over {c.items} items, {c.verdict}"
    return f"{rank}{score}; {paired}"


def _lines(v: VersionChange, bullet: str) -> list[str]:
    out = [f"{bullet}added: {r}" for r in v.added] + [f"{bullet}removed: {r}" for r in v.removed]
    out += [f"{bullet}{c.label}: {_move(c)}" for c in v.rows if c.moved]
    out += [f"{bullet}flipped: {tid}: {old} -> {new}" for tid, old, new in v.flipped]
    out += [f"{bullet}discrepancy appeared: {d}" for d in v.discrepancies_new]
    out += [f"{bullet}discrepancy resolved: {d}" for d in v.discrepancies_resolved]
    return out or [f"{bullet}no change"]


def _inert(line: str) -> str:
    """A line of a pull-request comment whose entrant labels and file names cannot act there: no @mention (a zero-width
    space after each @) and no HTML tag (< as its entity); the terminal and JSON forms keep every character."""
    return line.replace("@", "@\u200b").replace("<", "&lt;")


def render(changes: list[VersionChange], fmt: str) -> str:
    """The changes as text (a terminal), markdown (a pull-request comment) or json."""
    if fmt == "json":
        return json.dumps([asdict(v) for v in changes], indent=2, ensure_ascii=False) + "\n"
    level = f"{int(LEVEL * 100)}%"
    if fmt == "markdown":
        out = ["## evalboard: what changed", "", f"Moves carry the {level} paired interval of the mean item result."]
        for v in changes:
            out += ["", f"### {v.version}: {v.status}"]
            out += [_inert(line) for line in _lines(v, "- ")] if v.status == "compared" else []
        return "\n".join(out) + "\n"
    out = [f"What changed (moves with the {level} paired interval of the mean item result):"]
    for v in changes:
        out.append(f"{v.version}: {v.status}")
        out += _lines(v, "  ") if v.status == "compared" else []
    return "\n".join(out) + "\n"
