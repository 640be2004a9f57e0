"""Strict reading of JSON, JSONL, YAML and text files.

Python's json module silently keeps the last of two duplicate keys and accepts NaN and Infinity; both would hide a
broken record, so both are refused here. Files are read as bytes and decoded as strict UTF-8, so invalid bytes are
named instead of replaced.
"""

from __future__ import annotations

import json
import re
from decimal import Decimal
from pathlib import Path
from typing import Any

import yaml

from .problems import InputError, Problem, Problems

_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
MAX_FILE_BYTES = 20 * 1024 * 1024  # a single run file larger than this is refused, not read into memory
BOM = b"\xef\xbb\xbf"


class StrictJSONError(ValueError):
    pass


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise StrictJSONError(f"duplicate key {key!r}")
        out[key] = value
    return out


def _no_constant(name: str) -> Any:
    raise StrictJSONError(f"non-standard number {name} is not valid JSON")


def loads_strict(text: str, *, exact_numbers: bool = False) -> Any:
    """Parse one JSON value: duplicate keys and NaN/Infinity are errors.

    With exact_numbers, decimals become Decimal so an integer token (``3``) and a decimal token (``3.0``) stay
    distinguishable: ints stay int, everything with a fraction or exponent becomes Decimal.
    """
    try:
        value = json.loads(
            text,
            object_pairs_hook=_no_duplicates,
            parse_constant=_no_constant,
            parse_float=Decimal if exact_numbers else float,
        )
    except StrictJSONError:
        raise
    except json.JSONDecodeError as exc:
        raise StrictJSONError(f"invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}") from None
    if _SURROGATE_ESCAPE.search(text):  # a pair is fine; a lone half is not text and cannot be written as UTF-8
        try:
            json.dumps(value, ensure_ascii=False, default=str).encode("utf-8")
        except UnicodeEncodeError:
            raise StrictJSONError("a string holds a lone UTF-16 surrogate escape (\\uD800-\\uDFFF)") from None
    return value


def read_text(path: Path, rel: str, problems: Problems) -> str:
    """Read a UTF-8 text file exactly (no newline translation). A BOM is a warning and is dropped."""
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise InputError(Problem("error", rel, f"cannot read file: {exc.strerror}")) from None
    if size > MAX_FILE_BYTES:
        raise InputError(Problem("error", rel, f"file is {size} bytes, over the {MAX_FILE_BYTES}-byte limit"))
    data = path.read_bytes()
    if data.startswith(BOM):
        problems.warning(rel, "file starts with a UTF-8 byte-order mark; it was ignored")
        data = data[len(BOM) :]
    try:
        return data.decode("utf-8", errors="strict")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise InputError(
            Problem("error", rel, f"invalid UTF-8 byte 0x{data[exc.start]:02x} at byte {exc.start}", f"line {line}")
        ) from None


def read_json(path: Path, rel: str, problems: Problems) -> Any:
    text = read_text(path, rel, problems)
    if not text.strip():
        raise InputError(Problem("error", rel, "file is empty"))
    try:
        return loads_strict(text)
    except StrictJSONError as exc:
        raise InputError(Problem("error", rel, str(exc))) from None


def read_jsonl(path: Path, rel: str, problems: Problems) -> list[tuple[int, Any]]:
    """Return (line number, value) for every non-blank line; a bad line is an error naming it, others still load."""
    text = read_text(path, rel, problems)
    out: list[tuple[int, Any]] = []
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            out.append((number, loads_strict(line)))
        except StrictJSONError as exc:
            problems.error(rel, str(exc), f"line {number}")
    return out


class _StrictLoader(yaml.SafeLoader):
    pass


def _mapping_no_duplicates(loader: yaml.SafeLoader, node: yaml.MappingNode) -> dict[Any, Any]:
    loader.flatten_mapping(node)
    out: dict[Any, Any] = {}
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        if key in out:
            raise yaml.constructor.ConstructorError(None, None, f"duplicate key {key!r}", key_node.start_mark)
        out[key] = loader.construct_object(value_node, deep=True)
    return out


_StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _mapping_no_duplicates)


def read_yaml(path: Path, rel: str, problems: Problems) -> Any:
    text = read_text(path, rel, problems)
    try:
        return yaml.load(text, Loader=_StrictLoader)  # noqa: S506 - a SafeLoader subclass
    except yaml.YAMLError as exc:
        raise InputError(Problem("error", rel, f"invalid YAML: {exc}".replace("\n", " "))) from None


def dumps_canonical(value: Any) -> str:
    """Stable JSON for downloads and manifests: sorted keys, no ASCII escaping, so characters stay exact."""
    return json.dumps(value, ensure_ascii=False, sort_keys=True, indent=1, default=str) + "\n"
