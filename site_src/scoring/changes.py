"""The comparison of two builds' published data (see site_src/changes.py): per version with the same definition,
the rows added and removed, each kept row's rank and score move with the paired interval of the move in the mean
item result (each item's mean over the row's transcripts, differences paired by item, a t interval over the
items), the transcripts whose result flipped between pass and fail, and the discrepancies that appeared or were
resolved. Versions never mix: a version whose definition changed (its content hash) is "not comparable"."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..changes import LEVEL, Published, PublishedVersion, RowChange, VersionChange
from ..results import result_number
from .uncertainty import stratified_t


def compare(old: Published, new: Published) -> list[VersionChange]:
    """Every version of either build: compared where both have it, else added or removed."""
    out = [compare_version(v, old.versions[v], new.versions[v]) for v in sorted(set(old.versions) & set(new.versions))]
    out += [VersionChange(v, "added") for v in sorted(set(new.versions) - set(old.versions))]
    out += [VersionChange(v, "removed") for v in sorted(set(old.versions) - set(new.versions))]
    return out


def compare_version(name: str, old: PublishedVersion, new: PublishedVersion) -> VersionChange:
    ob, nb = old.board, new.board
    if ob.get("content_hash") != nb.get("content_hash"):
        return VersionChange(name, "not comparable: different definition")
    out = VersionChange(name, "compared")
    old_rows, new_rows = {row_id(r): r for r in ob["rows"]}, {row_id(r): r for r in nb["rows"]}
    out.added = sorted(set(new_rows) - set(old_rows))
    out.removed = sorted(set(old_rows) - set(new_rows))
    for key in [k for k in new_rows if k in old_rows]:
        out.rows.append(_row_change(old_rows[key], new_rows[key], old.transcripts, new.transcripts))
    states = {t["id"]: t["state"] for t in old.transcripts}
    out.flipped = [
        (t["id"], states[t["id"]], t["state"])
        for t in new.transcripts
        if t["id"] in states and {states[t["id"]], t["state"]} == {"pass", "fail"}
    ]
    bench = name.split("/", 1)[0]
    was, now = _discrepancies(ob, bench), _discrepancies(nb, bench)
    out.discrepancies_new = sorted(text for key, text in now.items() if key not in was)
    out.discrepancies_resolved = sorted(text for key, text in was.items() if key not in now)
    return out


def row_id(row: dict[str, Any]) -> str:
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
    change = RowChange(row_id(new), new["label"], old["rank"], new["rank"], old["score"], new["score"])
    change.entrant = str(new["entrant"])
    a, b = _item_means(old_t, old), _item_means(new_t, new)
    shared = sorted(set(a) & set(b))
    change.items = len(shared)
    if shared:
        d = np.array([b[i] - a[i] for i in shared])
        change.item_move = float(d.mean())
        t = stratified_t(change.item_move, [(1.0, d - d.mean())], LEVEL)
        change.interval = (t.interval.lo, t.interval.hi) if t else None
    return change


def _discrepancies(board: dict[str, Any], bench: str) -> dict[tuple[str, ...], str]:
    """Each discrepancy the board lists, keyed by what it is wherever the runs folder lay: its file from the
    benchmark's folder on (runs/<benchmark>/<run>/...), its record, field and both figures."""
    out = {}
    for d in board.get("discrepancies", []):
        parts = str(d.get("file")).split("/")
        within = "/".join(parts[parts.index(bench) :] if bench in parts else parts)
        key = (within, *(str(d.get(k)) for k in ("record", "field", "stored", "recomputed")))
        where = f"{d.get('file')} {d.get('record')} {d.get('field')}"
        out[key] = f"{where}: stored {d.get('stored')}, recomputed {d.get('recomputed')}"
    return out
