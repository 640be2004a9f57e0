"""`build.py diff OLD NEW`: what changed between two builds, read from their published data only.

Each build's versions are found by their `data/leaderboard.json`; a version is compared only with the same
benchmark version of the other build, and only when its definition is the same (its content hash): versions never
mix. Per leaderboard row (its entrant and runs): added or removed, the rank and the score moved, and, where the same
items were answered in both builds, the paired interval of the move in the mean item result (each item's mean over
the row's transcripts in `data/transcripts.json`, differences paired by item, a t interval over the items). Then the
transcripts whose result flipped between pass and fail, and the discrepancies that appeared or were resolved.
Written as text for a terminal, Markdown for a pull-request comment, or JSON.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .results import result_number
from .scoring.uncertainty import stratified_t

LEVEL = 0.95


@dataclass
class RowChange:
    row: str  # the entrant and its runs
    label: str
    old_rank: int | None
    new_rank: int | None
    old_score: float | None
    new_score: float | None
    item_move: float | None = None  # mean item result, new minus old, over the items answered in both
    interval: tuple[float, float] | None = None
    items: int = 0


@dataclass
class VersionChange:
    version: str  # benchmark/version
    status: str  # compared | added | removed | not comparable: different definition
    rows: list[RowChange] = field(default_factory=list)
    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    flipped: list[str] = field(default_factory=list)  # "transcript: fail -> pass"
    discrepancies_new: list[str] = field(default_factory=list)
    discrepancies_resolved: list[str] = field(default_factory=list)


class DiffError(ValueError):
    pass


def versions(site: Path) -> dict[str, Path]:
    """benchmark/version -> its data folder, for every version the build published."""
    if not site.is_dir():
        raise DiffError(f"{site}: not a folder (give two built sites, e.g. _site folders)")
    found = {
        f"{p.parent.parent.parent.name}/{p.parent.parent.name}": p.parent
        for p in site.glob("*/*/data/leaderboard.json")
    }
    if not found:
        raise DiffError(f"{site}: holds no */*/data/leaderboard.json: not a site built by build.py")
    return found


def _load(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise DiffError(f"{path}: cannot be read ({exc})") from None


def _row_id(row: dict[str, Any]) -> str:
    return f"{row['entrant']} ({' '.join(row['runs'])})" if row.get("runs") else str(row["entrant"])


def _item_means(transcripts: list[dict[str, Any]], row: dict[str, Any]) -> dict[str, float]:
    per: dict[str, list[float]] = {}
    for t in transcripts:
        if t["entrant"] != row["label"] or (row.get("runs") and t["run"] not in row["runs"]):
            continue
        value = result_number(t["value"], t["state"])
        if value is not None:
            per.setdefault(t["item_id"], []).append(float(value))
    return {k: sum(v) / len(v) for k, v in per.items()}


def _row_change(old: dict[str, Any], new: dict[str, Any], old_t: list[Any], new_t: list[Any]) -> RowChange:
    change = RowChange(_row_id(new), new["label"], old["rank"], new["rank"], old["score"], new["score"])
    a, b = _item_means(old_t, old), _item_means(new_t, new)
    shared = sorted(set(a) & set(b))
    change.items = len(shared)
    if shared:
        d = np.array([b[i] - a[i] for i in shared])
        change.item_move = float(d.mean())
        t = stratified_t(change.item_move, [(1.0, d - d.mean())], LEVEL)
        change.interval = (t.interval.lo, t.interval.hi) if t else None
    return change


def compare_version(name: str, old: Path, new: Path) -> VersionChange:
    ob, nb = _load(old / "leaderboard.json"), _load(new / "leaderboard.json")
    if ob.get("content_hash") != nb.get("content_hash"):
        return VersionChange(name, "not comparable: different definition")
    ot, nt = _load(old / "transcripts.json")["transcripts"], _load(new / "transcripts.json")["transcripts"]
    out = VersionChange(name, "compared")
    old_rows, new_rows = {_row_id(r): r for r in ob["rows"]}, {_row_id(r): r for r in nb["rows"]}
    out.added = sorted(set(new_rows) - set(old_rows))
    out.removed = sorted(set(old_rows) - set(new_rows))
    for key in [k for k in new_rows if k in old_rows]:
        out.rows.append(_row_change(old_rows[key], new_rows[key], ot, nt))
    states = {t["id"]: t["state"] for t in ot}
    out.flipped = [
        f"{t['id']}: {states[t['id']]} -> {t['state']}"
        for t in nt
        if t["id"] in states and {states[t["id"]], t["state"]} == {"pass", "fail"}
    ]
    said = [{_discrepancy(d) for d in b.get("discrepancies", [])} for b in (ob, nb)]
    out.discrepancies_new, out.discrepancies_resolved = sorted(said[1] - said[0]), sorted(said[0] - said[1])
    return out


def _discrepancy(d: dict[str, Any]) -> str:
    where = f"{d.get('file')} {d.get('record')} {d.get('field')}"
    return f"{where}: stored {d.get('stored')}, recomputed {d.get('recomputed')}"


def diff(old_site: Path, new_site: Path) -> list[VersionChange]:
    old, new = versions(old_site), versions(new_site)
    out = [compare_version(v, old[v], new[v]) for v in sorted(set(old) & set(new))]
    out += [VersionChange(v, "added") for v in sorted(set(new) - set(old))]
    out += [VersionChange(v, "removed") for v in sorted(set(old) - set(new))]
    return out


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
        verdict = "a real move" if c.interval[0] > 0 or c.interval[1] < 0 else "within the noise"
        low, high = c.interval
        paired = f"mean item result {c.item_move:+.3f} [{low:+.3f}, {high:+.3f}] over {c.items} items, {verdict}"
    return f"{rank}{score}; {paired}"


def _lines(v: VersionChange, bullet: str) -> list[str]:
    out = [f"{bullet}added: {r}" for r in v.added] + [f"{bullet}removed: {r}" for r in v.removed]
    moved = [c for c in v.rows if (c.old_rank, c.old_score) != (c.new_rank, c.new_score) or c.item_move]
    out += [f"{bullet}{c.label}: {_move(c)}" for c in moved]
    out += [f"{bullet}flipped: {f}" for f in v.flipped]
    out += [f"{bullet}discrepancy appeared: {d}" for d in v.discrepancies_new]
    out += [f"{bullet}discrepancy resolved: {d}" for d in v.discrepancies_resolved]
    return out or [f"{bullet}no change"]


def render(changes: list[VersionChange], fmt: str) -> str:
    """The changes as text (a terminal), markdown (a pull-request comment) or json."""
    if fmt == "json":
        return json.dumps([asdict(v) for v in changes], indent=2, ensure_ascii=False) + "\n"
    level = f"{int(LEVEL * 100)}%"
    if fmt == "markdown":
        out = ["## evalboard: what changed", "", f"Moves carry the {level} paired interval of the mean item result."]
        for v in changes:
            out += ["", f"### {v.version}: {v.status}"]
            out += _lines(v, "- ") if v.status == "compared" else []
        return "\n".join(out) + "\n"
    out = [f"What changed (moves with the {level} paired interval of the mean item result):"]
    for v in changes:
        out.append(f"{v.version}: {v.status}")
        out += _lines(v, "  ") if v.status == "compared" else []
    return "\n".join(out) + "\n"
