"""Machine-readable downloads: every table as CSV and JSON, every transcript as JSON with its judgments (in the
lean layout, the transcripts of a run that share a folder of 256 as one JSON Lines file compressed by gzip, a
transcript a line).

Strings are written exactly as read (ensure_ascii off, no normalisation), so downloads keep every code point.
"""

from __future__ import annotations

import csv
import dataclasses
import gzip
import io
import itertools
import re
from collections.abc import Sequence
from functools import cache
from typing import Any

from .. import GENERATOR
from ..jsonio import dumps_canonical, dumps_line
from ..release import Release, VersionView
from ..results import Cell
from .urls import fold, page_url

_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value: Any) -> Any:
    """Numbers stay numbers; text that a spreadsheet would run as a formula (=, +, -, @, tab, CR first) gets a
    leading apostrophe, so an entrant label or model output can never become a formula."""
    if isinstance(value, str) and value.startswith(_FORMULA_START) and not _NUMBER.fullmatch(value):
        return "'" + value
    return value


def write_csv(header: list[str], rows: list[list[Any]]) -> str:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\r\n")  # RFC 4180; it also makes a bare CR in a field get quoted
    writer.writerow([csv_cell(h) for h in header])
    writer.writerows([csv_cell(v) for v in row] for row in rows)
    return buf.getvalue()


def leaderboard_rows(view: VersionView) -> list[dict[str, Any]]:
    out = []
    for row in view.rows:
        cov = row.coverage
        out.append(
            {
                "rank": row.rank,
                "entrant": row.entrant_id,
                "label": row.label,
                "runs": row.run_ids,
                "complete": row.complete,
                "score": row.score,
                "score_text": view.score_text(row),
                "coverage": {
                    "expected": cov.expected,
                    "collected": cov.collected,
                    "errored": cov.errored,
                    "missing": cov.missing,
                    "ungraded": cov.ungraded,
                    "under_review": cov.under_review,
                    "judgments_expected": cov.judgments_expected,
                    "judgments_missing": cov.judgments_missing,
                },
                "flags": [{"code": f.code, "label": f.label, "detail": f.detail} for f in row.flags],
                "breakdown": {k: {"text": view.cell_text(k, c), "value": c.value} for k, c in row.cells.items()},
                "figures": dict(row.figures),  # the system's further figures, at full precision
                "ranked_over_present": row.over_present,
            }
        )
    return out


def leaderboard_json(view: VersionView) -> str:
    board = view.scored.leaderboard
    return dumps_canonical(
        {
            "benchmark": view.bench.id,
            "version": view.version.id,
            "content_hash": view.version.content_hash,
            "demo": view.version.demo,
            "score_label": board.score_label,
            "ranked": board.ranked,
            "rows": leaderboard_rows(view),
            "discrepancies": [_plain(d) for d in board.discrepancies],
            "notes": board.notes,
        }
    )


def leaderboard_csv(view: VersionView) -> str:
    """One row per leaderboard row, numbers only where there are numbers: each figure with its count and, where
    the benchmark declares intervals, its interval bounds in the figure's own unit (a proportion's interval as a
    proportion). A column whose figures are not all final (a task in progress, a category with an errored case) gets
    a status column saying why. Display text (such as "6.38 (n = 12)") stays on the pages and in the JSON."""
    cols = view.scored.leaderboard.columns
    stats = view.stats.rows if view.stats else {}
    per = view.stats.interval_scale if view.stats else 1.0
    status = {key for key, _ in cols if any((r.cells.get(key) or Cell()).note or (r.cells.get(key) or Cell()).label
                                             for r in view.rows)}  # fmt: skip
    header = ["rank", "entrant", "label", "runs", "attempt", "complete", "score", "score_count", "score_low"]
    header += ["score_high", "expected", "collected", "errored", "missing", "ungraded", "under_review"]
    header += ["judgments_expected", "judgments_missing", "flags"]
    figures = _figure_keys(view)
    header += figures
    for key, _ in cols:
        header += [key, f"{key} n", f"{key} of", f"{key} low", f"{key} high"] + (
            [f"{key} status"] if key in status else []
        )
    rows = []
    for row in view.rows:
        c = row.coverage
        ci = _in_unit(stats[row.key].score if row.key in stats else None, per)
        line = [row.rank, row.entrant_id, row.label, " ".join(row.run_ids), row.attempt, row.complete, row.score]
        line += [row.count, ci[0], ci[1], c.expected, c.collected, c.errored, c.missing, c.ungraded]
        line += [c.under_review, c.judgments_expected, c.judgments_missing, " ".join(f.code for f in row.flags)]
        line += [row.figures.get(k) for k in figures]
        for key, _ in cols:
            cell = row.cells.get(key) or Cell()
            low, high = _in_unit(stats[row.key].cells.get(key) if row.key in stats else None, per)
            line += [cell.value, cell.n, cell.of, low, high] + ([cell.label or cell.note] if key in status else [])
        rows.append(["" if v is None else v for v in line])
    return write_csv(header, rows)


def _figure_keys(view: VersionView) -> list[str]:
    """The systems' further figures (a standard error, a token count) as columns at full precision, in the order the
    rows give them; those already a breakdown column, or marking a row's kind (the baseline), are left out."""
    shown = {key for key, _ in view.scored.leaderboard.columns} | {"baseline"}
    keys: dict[str, None] = {}
    for row in view.rows:
        keys.update((k, None) for k, v in row.figures.items() if k not in shown and not isinstance(v, str | None))
    return list(keys)


def _in_unit(interval: Any, per: float) -> tuple[float | None, float | None]:
    # rounded to 12 significant digits: 95.8333 / 100 written as 0.958333333333, not 0.9583333333333335
    return (float(f"{interval.lo / per:.12g}"), float(f"{interval.hi / per:.12g}")) if interval else (None, None)


LIST_PART = 10_000  # transcripts a part of a version's list holds: about 4 MB, whatever the version's size


def list_parts(view: VersionView) -> int:
    """How many parts the version's transcript list is written in (at least one)."""
    return max(1, -(-len(view.transcripts) // LIST_PART))


def transcripts_list_json(view: VersionView) -> str:
    """The version's transcript list (what the Transcripts pages show, page by page, so the list can be filtered
    and sorted as a whole): how many transcripts, and the parts that list them, LIST_PART to a part, in the order of
    the pages. Paths are relative to the site root."""
    folder = f"{view.bench.id}/{view.version.id}/data/transcripts"
    parts = [f"{folder}/{n}.json" for n in range(1, list_parts(view) + 1)]
    head = {"benchmark": view.bench.id, "version": view.version.id, "demo": view.version.demo}
    return dumps_canonical({**head, "count": len(view.transcripts), "parts": parts})


def transcripts_part_json(view: VersionView, number: int) -> str:
    """Part `number` (from 1) of the version's transcript list: each transcript with its page, its download and
    its result."""
    start = (number - 1) * LIST_PART
    chosen = itertools.islice(view.transcripts.values(), start, start + LIST_PART)
    rows = [_list_row(view, t) for t in chosen]
    head = {"benchmark": view.bench.id, "version": view.version.id, "demo": view.version.demo}
    return dumps_canonical({**head, "part": number, "transcripts": rows})


def transcript_rows(view: VersionView) -> list[dict[str, Any]]:
    """The whole list, as its parts hold it."""
    return [_list_row(view, t) for t in view.transcripts.values()]


def _list_row(view: VersionView, t: Any) -> dict[str, Any]:
    summary = view.summaries[t.id]
    names = {"bench": view.bench.id, "version": view.version.id, "tid": t.id}
    endpoint, values, line = transcript_download(view, t.id)
    return {
        "id": t.id,
        "path": (page_url(transcript_endpoint(view), names) or "")[1:],
        "download": (page_url(endpoint, values) or "")[1:],
        **({"line": line} if line else {}),
        "entrant": view.entrants[t.entrant_id].label,
        "item": view.version.item(t.item_id).title,
        "item_id": t.item_id,
        "run": t.run_id,
        "attempt": t.attempt,
        "result": summary.text,
        "state": summary.state,
        "value": summary.value,
    }


def items_list_json(view: VersionView, analysis: dict[str, dict[str, Any]]) -> str:
    """Every item of a version with how its responses fared (what the Items pages show, page by page), so the whole
    list can be sorted, e.g. to find the hardest items. Paths are relative to the site root."""
    rows = []
    for item in view.version.items:
        a = analysis[item.id]
        words = a["words"]
        rows.append(
            {
                "id": item.id,
                "path": f"{view.folder}/items/{item.id}/",
                "title": item.title,
                "category": item.category,
                "kind": item.kind,
                "responses": a["responses"],
                "passes": a["passes"],
                "graded": a["graded"],
                "mean": a["mean"],
                "scored": a["scored"],
                "without_a_result": a["unresolved"],
                "result": words[0] if words else None,
            }
        )
    return dumps_canonical({"benchmark": view.bench.id, "version": view.version.id, "items": rows})


def is_lean(view: VersionView) -> bool:
    """Whether the version is published in the lean layout (benchmark.yaml's layout: docs/site-layout.md)."""
    return view.bench.layout == "lean"


def transcript_endpoint(view: VersionView) -> str:
    """The app's endpoint of a transcript's page in the version's layout: t/<ff>/<tid>/ (full) or t/<ff>/<tid>.html
    (lean)."""
    return "lean_transcript" if is_lean(view) else "transcript"


def run_parts(view: VersionView) -> dict[tuple[str, str], list[str]]:
    """In the lean layout, each download of transcripts: (run id, folder of 256) -> the ids of the run's transcripts
    whose pages lie in that folder (urls.fold), in the order of the version's list. Worked out once per view."""
    return view.once(_run_parts)


def _run_parts(view: VersionView) -> dict[tuple[str, str], list[str]]:
    out: dict[tuple[str, str], list[str]] = {}
    for tid, t in view.transcripts.items():
        out.setdefault((t.run_id, fold(tid)), []).append(tid)
    return out


def _lines(view: VersionView) -> dict[str, int]:
    return {tid: n for tids in run_parts(view).values() for n, tid in enumerate(tids, 1)}


def transcript_download(view: VersionView, tid: str) -> tuple[str, dict[str, Any], int | None]:
    """(endpoint, values, line) of the download that holds a transcript: its own file (line None), or in the lean
    layout its run's file for its folder, at that line (from 1)."""
    b, v = view.bench.id, view.version.id
    if not is_lean(view):
        return "transcript_json", {"bench": b, "version": v, "tid": tid}, None
    values = {"bench": b, "version": v, "folder": fold(tid), "run": view.transcripts[tid].run_id}
    return "transcripts_jsonl", values, view.once(_lines)[tid]


def transcripts_jsonl(view: VersionView, run_id: str, folder: str) -> bytes:
    """The lean layout's download of a run's transcripts in one folder of 256: each as transcript_json gives it,
    one to a line (JSON Lines), compressed by gzip, whose header then holds no time: the bytes depend on the lines
    alone. JSON Lines of transcripts shrink 4-8 times; these were a quarter of a lean site's bytes."""
    text = "".join(dumps_line(transcript_record(view, tid)) for tid in run_parts(view)[run_id, folder])
    return gzip.compress(text.encode("utf-8"), compresslevel=6, mtime=0)


def transcript_json(view: VersionView, tid: str) -> str:
    return dumps_canonical(transcript_record(view, tid))


def transcript_record(view: VersionView, tid: str) -> dict[str, Any]:
    """A transcript with its recomputed result, its summary and (for a judged system) its judgments."""
    t = view.transcripts[tid]
    result = view.scored.transcripts.get(tid)
    out: dict[str, Any] = {
        "benchmark": view.bench.id,
        "version": view.version.id,
        "demo": view.runs[t.run_id].demo,
        "transcript": _plain(t),
        "result": _plain(result) if dataclasses.is_dataclass(result) else None,
        "summary": view.summaries[tid].text,
    }
    if view.runs[t.run_id].judges:  # a judged system: each transcript comes with its judgments
        judges = {j.id: j for j in view.runs[t.run_id].judges}
        out["judgments"] = [{**_plain(j), "judge": _plain(judges[j.judge_id])} for j in view.judgments_for(tid)]
    return out


def _plain(value: Any) -> Any:
    """Dataclasses become dicts (field by field), tuples lists and Fractions floats, so the JSON stays standard.
    Nothing is copied: dataclasses.asdict deep-copies every value, which took a third of a download's time."""
    if value is None or type(value) in _ATOMS:
        return value
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple | Sequence) and not isinstance(value, str | bytes):
        return [_plain(v) for v in value]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {name: _plain(getattr(value, name)) for name in _field_names(type(value))}
    if hasattr(value, "numerator") and not isinstance(value, int | float | bool):
        return float(value)
    return value


_ATOMS = frozenset({str, int, float, bool})


@cache
def _field_names(cls: type) -> tuple[str, ...]:
    """The fields a download shows of a dataclass: all of them, or those its PUBLISHED names (a class that keeps some
    figures compactly publishes them as they read)."""
    return getattr(cls, "PUBLISHED", None) or tuple(f.name for f in dataclasses.fields(cls))


def release_index(release: Release, benchmarks: list[dict[str, Any]]) -> str:
    return dumps_canonical({"generator": GENERATOR, "demo": release.demo, "benchmarks": benchmarks})


def statistics_json(view: VersionView) -> str:
    """Intervals, rank separation and run-to-run variation, with the parameters they were computed with."""
    stats = view.stats
    out: dict[str, Any] = {
        "benchmark": view.bench.id,
        "version": view.version.id,
        "demo": view.version.demo,
        "declared": view.bench.statistics,
        "parameters": stats.params,
        "note": stats.note,
        "rows": {k: _plain(r) for k, r in stats.rows.items()},
    }
    if stats.separation:
        out["rank_intervals"] = stats.separation.rank_intervals
        out["differences"] = [
            {"a": a, "b": b, "difference": diff, "interval": _plain(ci), "resolved": ok}
            for (a, b), (diff, ci, ok) in stats.separation.differences.items()
        ]
    return dumps_canonical(out)


def judges_json(view: VersionView) -> str:
    """The judges and calibration tables (aggregates only: no per-pair identities)."""
    reports = []
    for run_id, report in view.judge_reports:
        data = _plain(report)
        data["calibration_dims"] = [
            {"response": r, "judge": j, "scores": v} for (r, j), v in report.calibration_dims.items()
        ]
        reports.append({"run": run_id, **data})
    return dumps_canonical(
        {"benchmark": view.bench.id, "version": view.version.id, "demo": view.version.demo, "runs": reports}
    )
