"""Strict reading of JSON, JSONL, YAML and text files.

Python's json module silently keeps the last of two duplicate keys and accepts NaN and Infinity; both would hide a
broken record, so both are refused here. Files are read as bytes and decoded as strict UTF-8, so invalid bytes are
named instead of replaced.
"""

from __future__ import annotations

import errno
import json
import os
import re
import stat
from collections.abc import Iterable, Iterator
from decimal import Decimal
from itertools import islice
from pathlib import Path
from typing import Any, TypeVar

import orjson
import yaml

from .problems import InputError, Problem, Problems

T = TypeVar("T")
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
MAX_FILE_BYTES = 20 * 1024 * 1024  # a single run file larger than this is refused, not read into memory
BOM = b"\xef\xbb\xbf"
MAX_DEPTH = 64  # no format nests deeper than a handful of levels; deeper input is refused before anything recurses


class StrictJSONError(ValueError):
    pass


def no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """json's object_pairs_hook that refuses an object with a key given twice (json keeps the last silently)."""
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
            object_pairs_hook=no_duplicate_keys,
            parse_constant=_no_constant,
            parse_float=Decimal if exact_numbers else float,
        )
    except StrictJSONError:
        raise
    except RecursionError:
        raise StrictJSONError(f"nested more than {MAX_DEPTH} levels deep") from None
    except json.JSONDecodeError as exc:
        raise StrictJSONError(f"invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}") from None
    # every level of nesting opens with a bracket of the text: with few of them, no walk (most records have few)
    if text.count("{") + text.count("[") > MAX_DEPTH and too_deep(value):
        raise StrictJSONError(f"nested more than {MAX_DEPTH} levels deep")
    if _SURROGATE_ESCAPE.search(text):  # a pair is fine; a lone half is not text and cannot be written as UTF-8
        try:
            json.dumps(value, ensure_ascii=False, default=str).encode("utf-8")
        except UnicodeEncodeError:
            raise StrictJSONError("a string holds a lone UTF-16 surrogate escape (\\uD800-\\uDFFF)") from None
    return value


def too_deep(value: Any, limit: int = MAX_DEPTH) -> bool:
    """Whether lists and objects nest more than limit levels; iterative, so it cannot overflow itself."""
    stack = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict):
            node = list(node.values())
        if isinstance(node, list):
            if depth > limit:
                return True
            stack.extend((child, depth + 1) for child in node if isinstance(child, (dict, list)))
    return False


def read_bytes(path: Path, rel: str, limit: int | None = None) -> bytes:
    """A regular file's bytes, at most limit (MAX_FILE_BYTES unless a format sets its own). A FIFO, device or socket
    is refused before it is opened (a FIFO would block the build), and the file is opened without following a final
    symbolic link, so what was checked is what is read."""
    limit = MAX_FILE_BYTES if limit is None else limit
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        why = "is a symbolic link" if exc.errno == errno.ELOOP else f"cannot be read: {exc.strerror}"
        raise InputError(Problem("error", rel, f"file {why}")) from None
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise InputError(Problem("error", rel, "is not a regular file (a folder, FIFO, device or socket)"))
        if info.st_size > limit:
            raise InputError(Problem("error", rel, f"file is {info.st_size} bytes, over the {limit}-byte limit"))
        # asked for its size and a byte more, not for the limit: a read of n bytes first sets aside n bytes, and
        # setting aside 20 MB for a file of a few KB took 30-60 microseconds a file, more than the read itself
        want = info.st_size + 1
        data = handle.read(want)
        if len(data) == want:  # it grew since fstat: the rest, up to a byte past the limit, as before
            data += handle.read(limit + 1 - len(data))
    if len(data) > limit:  # it grew while being read
        raise InputError(Problem("error", rel, f"file is over the {limit}-byte limit"))
    return data


def confined(base: Path, root: Path, name: str, rel: str, field: str | None = None) -> Path:
    """base / name, refused unless it is relative and resolves (symbolic links included) to a regular file inside
    root: a definition may not point the build at /proc/self/environ or ../../secrets."""
    if Path(name).is_absolute() or "\\" in name:
        raise InputError(Problem("error", rel, f"path {name!r} must be relative to its folder", None, field))
    path = base / name
    real = path.resolve()
    if not real.is_relative_to(root.resolve()):
        raise InputError(
            Problem("error", rel, f"path {name!r} leads outside {root.name}/; it is not read", None, field)
        )
    if not real.is_file():
        raise InputError(Problem("error", rel, f"path {name!r} is not a regular file", None, field))
    return real


def read_text(path: Path, rel: str, problems: Problems) -> str:
    """Read a UTF-8 text file exactly (no newline translation). A BOM is a warning and is dropped."""
    data = read_bytes(path, rel)
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


def read_jsonl(path: Path, rel: str, problems: Problems) -> Iterator[tuple[int, Any]]:
    """(line number, value) for every non-blank line, as the caller asks for them; a bad line is an error naming it,
    others still load. The file is read at once (an unreadable one raises InputError here); its lines stop coming
    once it has had more errors than are listed (Problems.capped), whoever reported them: a reader that checks each
    record stops there too, so a file of a million bad lines costs as much as one of a hundred."""
    return _records(read_text(path, rel, problems), rel, problems)


def _records(text: str, rel: str, problems: Problems) -> Iterator[tuple[int, Any]]:
    for number, line in enumerate(_lines(text), start=1):
        if problems.capped(rel):
            return
        if not line.strip():
            continue
        try:
            yield number, loads_strict(line)
        except StrictJSONError as exc:
            problems.error(rel, str(exc), f"line {number}")


def until_capped(items: Iterable[T], rel: str, problems: Problems) -> Iterator[T]:
    """items, until the file rel has had more errors than are listed: for a reader that checks the records of a
    JSON array one by one."""
    for item in items:
        if problems.capped(rel):
            return
        yield item


def _lines(text: str) -> Iterator[str]:
    """The lines of text, split on LF only, one at a time (a file of millions of lines is never copied whole)."""
    start = 0
    while start <= len(text):
        end = text.find("\n", start)
        end = len(text) if end < 0 else end
        yield text[start:end]
        start = end + 1


class _StrictLoader(yaml.SafeLoader):
    """Safe YAML without aliases (an alias bomb expands a few lines into billions of nodes) and with string keys."""

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.events.AliasEvent):
            event = self.peek_event()
            raise yaml.composer.ComposerError(
                None, None, f"alias *{event.anchor} is not allowed: write the value out", event.start_mark
            )
        return super().compose_node(parent, index)


def _mapping_no_duplicates(loader: yaml.SafeLoader, node: yaml.MappingNode) -> dict[Any, Any]:
    loader.flatten_mapping(node)
    out: dict[Any, Any] = {}
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        if not isinstance(key, str):
            raise yaml.constructor.ConstructorError(
                None, None, f"key {key_node.value!r} is not a string: quote it", key_node.start_mark
            )
        if key in out:
            raise yaml.constructor.ConstructorError(None, None, f"duplicate key {key!r}", key_node.start_mark)
        out[key] = loader.construct_object(value_node, deep=True)
    return out


_StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _mapping_no_duplicates)


def _yaml_problem(rel: str, exc: yaml.YAMLError) -> Problem:
    """The error as YAML gives it: where (line and column, counted from 1), what, and the line with YAML's caret
    under the place (the context, "while parsing a block mapping", where YAML names one)."""
    mark = getattr(exc, "problem_mark", None)
    if not isinstance(exc, yaml.MarkedYAMLError) or mark is None:
        return Problem("error", rel, f"invalid YAML: {exc}".replace("\n", " "))
    what = exc.problem or "not YAML"
    if exc.context:
        what = f"{what} ({exc.context}"
        context_mark = exc.context_mark
        what += f" started at line {context_mark.line + 1})" if context_mark else ")"
    snippet = mark.get_snippet(indent=4, max_length=100)
    where = f"line {mark.line + 1}, column {mark.column + 1}"
    return Problem("error", rel, f"invalid YAML: {what}" + (f"\n{snippet}" if snippet else ""), where)


def read_yaml(path: Path, rel: str, problems: Problems) -> Any:
    text = read_text(path, rel, problems)
    try:
        value = yaml.load(text, Loader=_StrictLoader)  # noqa: S506 - a SafeLoader subclass
    except RecursionError:
        raise InputError(Problem("error", rel, f"nested more than {MAX_DEPTH} levels deep")) from None
    except yaml.YAMLError as exc:
        raise InputError(_yaml_problem(rel, exc)) from None
    if too_deep(value):
        raise InputError(Problem("error", rel, f"nested more than {MAX_DEPTH} levels deep"))
    return value


# orjson as json.dumps(sort_keys=True, ensure_ascii=False, default=str) would write: dataclasses and dates are passed
# to str, numpy numbers are written as numbers
_CANONICAL = (
    orjson.OPT_INDENT_2
    | orjson.OPT_SORT_KEYS
    | orjson.OPT_NON_STR_KEYS
    | orjson.OPT_SERIALIZE_NUMPY
    | orjson.OPT_PASSTHROUGH_DATACLASS
    | orjson.OPT_PASSTHROUGH_DATETIME
)


def dumps_canonical(value: Any) -> str:
    """Stable JSON for downloads and chart specs: sorted keys, indented by two spaces, no ASCII escaping, so
    characters stay exact. Written by orjson: json's indenting writer is pure Python, and a version's transcript
    list is megabytes. What orjson refuses (an integer beyond 64 bits, a lone surrogate) is written by json, in the
    same layout; a number that is not finite is written as null, which JSON can read (json would write NaN)."""
    try:
        return orjson.dumps(value, default=str, option=_CANONICAL).decode() + "\n"
    except orjson.JSONEncodeError:
        return json.dumps(value, ensure_ascii=False, sort_keys=True, indent=2, default=_plain) + "\n"


def dumps_line(value: Any) -> str:
    """One line of JSON Lines, as dumps_canonical writes value but with no indenting and no space after a separator
    (a download of many records, one to a line), ending in a line break."""
    try:
        return orjson.dumps(value, default=str, option=_CANONICAL & ~orjson.OPT_INDENT_2).decode() + "\n"
    except orjson.JSONEncodeError:
        return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"), default=_plain) + "\n"


def object_pieces(pairs: Iterable[tuple[str, Any]], option: int = 0, size: int = 1000) -> Iterator[bytes]:
    """The members of the JSON object dict(pairs) as orjson writes that object with option, `size` pairs at a time
    and without the object's braces (indented, a piece begins with its line break and leaves out the last one):
    joined by commas between the braces, they are that object's text. A writer of a large object (the build state,
    the publish manifest) holds one piece at a time, never the object or all its bytes."""
    pairs = iter(pairs)
    while chunk := dict(islice(pairs, size)):
        text = orjson.dumps(chunk, option=option)
        yield text[1:-2] if text.endswith(b"\n}") else text[1:-1]


def _plain(value: Any) -> Any:
    return value.tolist() if hasattr(value, "tolist") else str(value)  # numpy numbers stay numbers
