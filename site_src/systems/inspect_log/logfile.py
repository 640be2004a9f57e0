"""Read one Inspect AI eval log, as Inspect writes it, into plain dicts: the `.json` form or the `.eval` zip.

Log format versions 1 and 2 are read (Inspect's own reader migrates 1 to 2 the same way: a version-1 log has
`results.scorer` + `results.metrics` and per-sample `score`; version 2 has `results.scores` and per-sample `scores`).
Nothing here decides what is published: the sample's `events` (raw model calls with their request and response,
headers included) are dropped on reading and never reach the model.
"""

from __future__ import annotations

import io
import json
import re
import struct
import zipfile
import zlib
from dataclasses import dataclass, field
from typing import Any

import zstandard

from ...jsonio import StrictJSONError, loads_strict, no_duplicate_keys, too_deep

LOG_VERSIONS = (1, 2)
SCORER_PLACEHOLDER = "88F74D2C"  # Inspect's name for a version-1 sample's unnamed score, renamed to the first scorer
# What one log may cost, whatever it holds (docs/format-inspect.md): its file, and for a .eval archive its members,
# what they inflate to in all and how many times the archive's own size that is (a zip bomb inflates thousands of
# times; the real logs in the tests' fixtures, at most 11 times, and no member more than 25 times)
MAX_LOG_BYTES = 256 * 1024 * 1024
MAX_MEMBER_BYTES = 256 * 1024 * 1024
MAX_INFLATED_BYTES = 1024 * 1024 * 1024
MAX_MEMBERS = 100_000
MAX_RATIO = 100  # inflated / archive, once the archive inflates past RATIO_FROM bytes
RATIO_FROM = 16 * 1024 * 1024
ZIP_ZSTANDARD = 93  # the zip compression method of Zstandard
_SAMPLE = re.compile(r"^samples/(.+)_epoch_([1-9][0-9]*)\.json$")


class LogError(ValueError):
    """A log that cannot be read: the message says what is wrong, the caller names the file."""


@dataclass
class InspectLog:
    version: int
    status: str  # started | success | cancelled | error
    eval: dict[str, Any]
    plan: dict[str, Any]
    results: dict[str, Any] | None
    stats: dict[str, Any]
    error: dict[str, Any] | None
    samples: list[dict[str, Any]] = field(default_factory=list)
    reductions: list[dict[str, Any]] | None = None  # the stored per-sample reduced scores, when the log has them


def read_log(name: str, data: bytes) -> InspectLog:
    """Parse a log from its bytes; name ends in .eval or .json."""
    if name.endswith(".eval"):
        return _read_eval(data)
    if name.endswith(".json"):
        return _from_dict(_json(data, "the log"), None)
    raise LogError("an Inspect log is a .eval or a .json file")


def _json(data: bytes, what: str) -> Any:
    try:
        return loads_strict(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise LogError(f"{what} is not UTF-8 (byte {exc.start})") from None
    except StrictJSONError as exc:
        # Inspect writes NaN for a sample whose score could not be reduced; nothing else of ours accepts it
        if "NaN" not in str(exc) and "Infinity" not in str(exc):
            raise LogError(f"{what}: {exc}") from None
        try:
            value = json.loads(data.decode("utf-8"), object_pairs_hook=no_duplicate_keys)
        except (ValueError, RecursionError) as exc2:
            raise LogError(f"{what}: {exc2}") from None
        if too_deep(value):
            raise LogError(f"{what}: nested too deeply") from None
        return value


def _read_eval(data: bytes) -> InspectLog:
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        names = archive.namelist()
    except (zipfile.BadZipFile, OSError) as exc:
        raise LogError(f"not a readable .eval zip archive ({exc})") from None
    _within_limits(archive, len(data))

    def member(name: str) -> Any:
        info = archive.getinfo(name)
        if info.file_size > MAX_MEMBER_BYTES:
            raise LogError(f"{name} inflates to {info.file_size} bytes, over the {MAX_MEMBER_BYTES}-byte limit")
        try:
            raw = member_bytes(archive, info, data)
        except (zipfile.BadZipFile, OSError, EOFError, RuntimeError, zstandard.ZstdError) as exc:  # CRC, truncation
            raise LogError(f"{name} in the archive is corrupt ({exc})") from None
        return _json(raw, name)

    if "header.json" in names:
        head = member("header.json")
    elif "_journal/start.json" in names:  # a run that never finished writes no header: it is incomplete
        head = {**member("_journal/start.json"), "status": "started"}
    else:
        raise LogError("the archive has neither header.json nor _journal/start.json: not an Inspect log")
    if not isinstance(head, dict):
        raise LogError("header.json is not a JSON object")
    samples = []
    for name in sorted(names, key=_sample_order):
        if _SAMPLE.match(name):
            sample = member(name)
            if not isinstance(sample, dict):
                raise LogError(f"{name} is not a JSON object")
            samples.append(sample)
    reductions = member("reductions.json") if "reductions.json" in names else None
    return _from_dict({**head, "samples": samples}, reductions)


def member_bytes(archive: zipfile.ZipFile, info: zipfile.ZipInfo, data: bytes) -> bytes:
    """One member's bytes, whichever of the methods Inspect writes it with (deflate, or Zstandard)."""
    return _zstd_member(info, data) if info.compress_type == ZIP_ZSTANDARD else archive.read(info)


def _zstd_member(info: zipfile.ZipInfo, data: bytes) -> bytes:
    """A member compressed with Zstandard, as current Inspect versions write them (zip method 93, which Python's
    zipfile reads only from 3.14): its bytes found through the member's local header, inflated across the frames
    Inspect writes one after another, never past the size the archive lists, and checked against its CRC."""
    start = info.header_offset
    if data[start : start + 4] != b"PK\x03\x04":
        raise zipfile.BadZipFile("no local header where the directory says")
    name_length, extra_length = struct.unpack("<HH", data[start + 26 : start + 30])
    begin = start + 30 + name_length + extra_length
    compressed = io.BytesIO(data[begin : begin + info.compress_size])
    reader = zstandard.ZstdDecompressor().stream_reader(compressed, read_across_frames=True)
    chunks, total = [], 0
    while chunk := reader.read(1 << 20):
        total += len(chunk)
        if total > info.file_size:
            raise zipfile.BadZipFile(f"inflates past the {info.file_size} bytes the archive lists")
        chunks.append(chunk)
    out = b"".join(chunks)
    if len(out) != info.file_size or zlib.crc32(out) != info.CRC:
        raise zipfile.BadZipFile("its size or CRC is not the one the archive lists")
    return out


def _within_limits(archive: zipfile.ZipFile, size: int) -> None:
    """Refuse an archive that holds too many members or would inflate too far, before any member is read. The
    sizes a zip lists are the most zipfile inflates each member to (more fails its check), so they bound the work."""
    infos = archive.infolist()
    if len(infos) > MAX_MEMBERS:
        raise LogError(f"the archive holds {len(infos)} members, over the limit of {MAX_MEMBERS}")
    inflated = sum(info.file_size for info in infos)
    if inflated > MAX_INFLATED_BYTES:
        raise LogError(f"the archive inflates to {inflated} bytes, over the {MAX_INFLATED_BYTES}-byte limit")
    if inflated > RATIO_FROM and inflated > MAX_RATIO * size:
        raise LogError(
            f"the archive inflates to {inflated // max(size, 1)} times its {size} bytes, over the limit of "
            f"{MAX_RATIO} times (a zip bomb?)"
        )


def _sample_order(name: str) -> tuple[int, str, int]:
    m = _SAMPLE.match(name)
    if not m:
        return (1, name, 0)
    return (0, m.group(1).rjust(20, "0") if m.group(1).isdigit() else m.group(1), int(m.group(2)))


def _from_dict(log: Any, reductions: Any) -> InspectLog:
    if not isinstance(log, dict):
        raise LogError("the log is not a JSON object")
    version = log.get("version")
    if version not in LOG_VERSIONS:
        raise LogError(
            f"unknown log format version {version!r}; this build reads Inspect log format versions "
            f"{' and '.join(map(str, LOG_VERSIONS))}"
        )
    for key in ("eval",):
        if not isinstance(log.get(key), dict):
            raise LogError(f"the log has no {key!r} object")
    results = log.get("results")
    if isinstance(results, dict) and "scorer" in results:  # version 1: one scorer, metrics beside it
        scorer = dict(results["scorer"])
        scorer.setdefault("scorer", scorer.get("name"))
        if "metrics" in results:
            scorer["metrics"] = results["metrics"]
        results = {k: v for k, v in results.items() if k not in ("scorer", "metrics")} | {"scores": [scorer]}
    first_scorer = (results or {}).get("scores", [{}])[0].get("name") if results and results.get("scores") else None
    samples = []
    for raw in log.get("samples") or []:
        if not isinstance(raw, dict):
            raise LogError("a sample is not a JSON object")
        sample = {k: v for k, v in raw.items() if k not in ("events", "transcript")}  # never read further
        scores = sample.get("scores")
        if "score" in sample and scores is None:  # version 1
            scores = {SCORER_PLACEHOLDER: sample.pop("score")}
        if scores and SCORER_PLACEHOLDER in scores and first_scorer:
            scores = {(first_scorer if k == SCORER_PLACEHOLDER else k): v for k, v in scores.items()}
        sample["scores"] = scores or {}
        samples.append(sample)
    if reductions is None and isinstance(results, dict):
        reductions = results.get("sample_reductions")
    return InspectLog(
        version=version,
        status=str(log.get("status", "started")),
        eval=log["eval"],
        plan=log.get("plan") or {},
        results=results,
        stats=log.get("stats") or {},
        error=log.get("error"),
        samples=samples,
        reductions=reductions,
    )
