"""What a page shows, as a key: two builds that give a page the same key write the same bytes for it.

A key is a SHA-256 over the data a page's template reads, in a canonical form (dataclasses field by field, sets
sorted, numbers exact), together with `base`, the key of the code, templates, options and content. A transcript
edited in one run changes the key of its own page, its download, its entrant's page and the item and list pages
that show it; the other 10,000 pages keep theirs, so a rebuild keeps them instead of rendering (see cache.py).

Keys are given only to the pages that come in thousands, and to entrant pages, which list an entrant's transcripts:
transcript pages and downloads, item pages, the transcript list's pages and entrant pages.
The other pages drawn from the whole version (leaderboard, breakdown, items, charts, downloads) are rendered on every
build that reads a changed run.

The canonical text is written by orjson, several times faster than json at 20,000 keys. orjson writes NaN and
infinities as null; that cannot keep a key while its page changes, because no input holds them (the JSON reader
refuses them, see jsonio.py) and what is computed from the inputs is covered by the inputs and the code.

What a transcript's pages show of it (the record, its result, summary and judgments) is keyed once per run and
kept with the run between builds (worked_out.once), so a rebuild keys again only the transcripts of the runs that
changed.

When a template comes to show more, its key must cover it: tests/test_incremental_build.py edits each kind of
input (text, judgment, grading, metadata) and checks the rebuild byte for byte against a full build.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Container, Iterator, Sequence
from fractions import Fraction
from typing import Any

import orjson

from .. import worked_out
from ..outdir import file_for
from ..release import Release, VersionView, paginate
from ..site.app import item_analysis, item_entrants, responses_per_page, result_states
from ..site.downloads import is_lean, run_parts, transcript_endpoint
from ..site.headtohead import pair_keys
from ..site.urls import page_url

# a run's own fields a page can show are all but these: its records are covered record by record, and what is
# derived from them is covered by them
NOT_RUN_FACTS = {"transcripts", "judgments", "calibration", "human_pairs"}


_FIELDS: dict[type, tuple[str, ...]] = {}


def _plain(value: Any) -> Any:
    """orjson's hook for what it does not write itself (dataclasses are passed here, to be written with their type's
    name). Anything unforeseen is an error, never a key that could stay
    the same while the page changes."""
    kind = type(value)
    names = _FIELDS.get(kind)
    if names is None and dataclasses.is_dataclass(value) and not isinstance(value, type):
        names = _FIELDS[kind] = tuple(f.name for f in dataclasses.fields(value))
    if names is not None:
        return [kind.__name__, [_pairs(getattr(value, name)) for name in names]]
    if isinstance(value, bytes):  # a record key (_record_keys): written as its hex, as key_of returns a key
        return value.hex()
    if isinstance(value, Sequence):  # a sequence that reads its items when used: as the list it stands for
        return list(value)
    if isinstance(value, set | frozenset):
        return sorted(value, key=repr)
    if isinstance(value, Fraction):
        return ["Fraction", value.numerator, value.denominator]
    if hasattr(value, "tolist"):  # numpy arrays and scalars
        return value.tolist()
    raise TypeError(f"no canonical form for {type(value).__name__} in a page key")


def _pairs(value: Any) -> Any:
    """A dict keyed by tuples (orjson writes only str, int and the like as keys) as its sorted pairs. Only a
    dataclass field is looked at: a tuple-keyed dict anywhere else makes orjson refuse the key."""
    if isinstance(value, dict) and any(isinstance(k, tuple) for k in value):
        return ["pairs", sorted(value.items())]
    return value


_CANONICAL = orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS | orjson.OPT_PASSTHROUGH_DATACLASS


def key_of(*parts: Any) -> str:
    return _digest_of(*parts).hex()


def _digest_of(*parts: Any) -> bytes:
    return hashlib.sha256(orjson.dumps(parts, default=_plain, option=_CANONICAL)).digest()


def _run_facts(run: Any) -> dict[str, Any]:
    return {f.name: getattr(run, f.name) for f in dataclasses.fields(run) if f.name not in NOT_RUN_FACTS}


# where each of a transcript's record keys lies in the 96 bytes _record_keys keeps for it
TEXT, SHOWN, SUMMARY = slice(0, 32), slice(32, 64), slice(64, 96)


def _record_keys(view: VersionView, run: Any) -> dict[str, bytes]:
    """Transcript id -> three keys: of the transcript as read (TEXT), of that with its recomputed result, its summary
    and its judgments (SHOWN), and of its summary (SUMMARY). Each is worked out from the run alone (a scorer reads
    one run's records for a transcript's result). The first is what search indexes of its page; the second what the
    page shows of it; the third what a page of the transcript list shows of it. They are kept as one bytes object of
    their 3 x 32 bytes (as three, in a tuple, they took 0.13 KB a transcript more; as hex, 0.14 KB more again), and
    each is written into a key as its hex: the keys are the same either way."""
    keys = {}
    for t in run.transcripts:
        text, summary = _digest_of(t), _digest_of(view.summaries[t.id])
        shown = _digest_of(text, view.scored.transcripts.get(t.id), summary, view.judgments_for(t.id))
        keys[t.id] = text + shown + summary
    return keys


def page_keys(release: Release, base: str) -> dict[str, str]:
    """URL -> key of every transcript page and download, item page, transcript list page and entrant page."""
    return dict(each_page_key(release, base))


def each_page_key(release: Release, base: str) -> Iterator[tuple[str, str]]:
    """(URL, key) of each of those pages, as page_keys gives them, each worked out as it is asked for."""
    for view in release.views:
        yield from _version_keys(view, base)


def search_keys(release: Release, base: str, pages: Container[str]) -> dict[str, str]:
    """Transcript page (path in the site) -> key of what search indexes of it, for the pages given (a slice's, not
    every page of its version): the transcript as read, its labels and its run, never its grading (the templates
    mark every grading data-pagefind-ignore), so a run judged again keeps its search bundle."""
    keys: dict[str, str] = {}
    for view in release.views:
        frame, entrants, runs, records = _shared(view, base)
        page = transcript_endpoint(view)
        for tid, t in view.transcripts.items():
            rel = file_for(page_url(page, {"bench": view.bench.id, "version": view.version.id, "tid": tid}))
            if rel in pages:
                keys[rel] = key_of(frame, entrants, tid, records[tid][TEXT], runs[t.run_id])
    return keys


def _shared(view: VersionView, base: str) -> tuple[str, str, dict[str, str], dict[str, bytes]]:
    """The keys of what every page of a version shows around its content (navigation, the demo banner, the footer),
    of its entrants' labels and colours, of each run's own facts, and each transcript's record keys."""
    version = view.version
    frame = key_of(base, view.bench.id, version.id, version.demo, version.content_hash, bool(view.judge_reports))
    entrants = key_of(view.entrants, view.colours)
    runs = {run_id: key_of(_run_facts(run)) for run_id, run in view.runs.items()}
    records: dict[str, bytes] = {}
    for run in view.runs.values():  # what a transcript's pages show of it, worked out once per run and base
        records |= worked_out.once(run, "record keys", lambda run=run: _record_keys(view, run), depends_on=base)
    return frame, entrants, runs, records


def _version_keys(view: VersionView, base: str) -> Iterator[tuple[str, str]]:
    b, v = view.bench.id, view.version.id
    frame, entrants, runs, records = _shared(view, base)
    lean = is_lean(view)
    for tid, t in view.transcripts.items():
        key = key_of(frame, entrants, tid, records[tid][SHOWN], runs[t.run_id], view.neighbours.get(tid))
        for endpoint in (transcript_endpoint(view),) if lean else ("transcript", "transcript_json"):
            yield page_url(endpoint, {"bench": b, "version": v, "tid": tid}), key
    for (run_id, folder), tids in run_parts(view).items() if lean else ():
        key = key_of(frame, run_id, runs[run_id], [(tid, records[tid][SHOWN]) for tid in tids])
        yield page_url("transcripts_jsonl", {"bench": b, "version": v, "folder": folder, "run": run_id}), key

    analysis, responded, per_page = view.once(item_analysis), view.once(item_entrants), responses_per_page(view)
    for item_id in view.by_item:
        ordered = view.item_transcripts(item_id)
        _, pages = paginate(ordered, 1, per_page)
        shared = key_of(frame, entrants, view.judge_labels, item_id, len(ordered), responded[item_id], pages)
        for n in range(1, pages + 1):
            cards, _ = paginate(ordered, n, per_page)
            url = page_url("item", {"bench": b, "version": v, "item_id": item_id, "number": n})
            shown = analysis.get(item_id) if n == 1 else None  # only the first page shows the item's analysis
            yield url, key_of(shared, n, shown, [records[t.id][SHOWN] for t in cards])

    # an entrant's first page also shows its standing among all rows and their statistics: a run judged again
    # changes every entrant's first page, a transcript's text only its own entrant's (its diagnostics); the later
    # pages list the rest of its transcripts, and change only with those
    standing = key_of(view.scored.leaderboard, view.scored.tables)
    for entrant_id in view.entrants:
        listed = view.by_entrant.get(entrant_id, [])
        _, pages = paginate(listed, 1)
        shared = key_of(frame, entrants, entrant_id, len(listed), pages)
        for n in range(1, pages + 1):
            rows, _ = paginate(listed, n)
            shown = [records[t.id][SHOWN] for t in rows]
            if n == 1:
                their_runs = [runs[run.id] for run in view.runs_of(entrant_id)]
                key = key_of(shared, n, standing, view.diagnostics[entrant_id], their_runs, shown)
            else:
                key = key_of(shared, n, shown)
            yield page_url("entrant", {"bench": b, "version": v, "entrant_id": entrant_id, "number": n}), key

    listed = list(view.transcripts.values())
    _, pages = paginate(listed, 1)
    shared = key_of(frame, entrants, len(listed), pages, view.once(result_states))
    for n in range(1, pages + 1):
        rows, _ = paginate(listed, n)
        shown = [(t.id, t.entrant_id, t.item_id, t.run_id, t.attempt, records[t.id][SUMMARY]) for t in rows]
        yield page_url("transcripts", {"bench": b, "version": v, "number": n}), key_of(shared, n, shown)

    # a head-to-head page shows the two rows' standing (and the pair's interval) and their transcripts' results
    rows_by_key = {r.key: r for r in view.rows}
    results = {
        e: key_of([(t.id, t.item_id, t.run_id, t.attempt, records[t.id][SUMMARY]) for t in view.by_entrant.get(e, [])])
        for e in view.entrants
    }
    for a, b_key in view.once(pair_keys):
        ea, eb = rows_by_key[a].entrant_id, rows_by_key[b_key].entrant_id
        key = key_of(frame, entrants, standing, a, b_key, results[ea], results[eb])
        yield page_url("versus", {"bench": b, "version": v, "a": a, "b": b_key}), key
