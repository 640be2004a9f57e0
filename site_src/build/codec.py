"""Records as data: the format of the build cache, which decoding can never turn into running code.

Records are written as JSON (orjson). The values JSON has no word for are tagged objects:

    {"$d": "site_src.model:Transcript", "v": [...]}   a dataclass of this package: its fields' values, in order
    {"$D": "site_src.model:Turn", "v": [[...], ...]}  a list of two or more of one class: each one's values
    {"$M": "...", "k": [...], "v": [[...], ...]}      a dict of two or more of one class, by those keys
    {"$t": [...]}  a tuple        {"$s": [...]}  a set        {"$S": [...]}  a frozenset
    {"$b": "..."}  bytes (base64) {"$a": "d", "v": [...]}  an array.array of that type code
    {"$f": "nan"}  a float JSON cannot hold (nan, inf, -inf)   {"$i": "..."}  an integer past 64 bits
    {"$m": [[key, value], ...]}  a dict whose keys are not all strings, or one with a key that starts with "$"
    {"$o": n, "v": ...}, then {"$r": n}  an object met more than once (Encoder)

so a plain JSON object never has a key that starts with "$". Decoding makes nothing but JSON values, those
containers and the dataclasses of the modules that hold this package's records (RECORD_MODULES: the model, results,
problems, scoring and the systems' modules) and of installed plugin systems' modules: a "$d" naming anything else
is refused (CodecError). Nothing is called
by name but a record's own constructor, and nothing is imported but one of those modules of this package.
Extensions add tags of the caller's own (the build cache's lazy lists).
"""

from __future__ import annotations

import base64
import dataclasses
import importlib
import math
import re
import sys
from array import array
from collections.abc import Callable
from types import ModuleType
from typing import Any

import orjson

RECORD_MODULES = re.compile(r"site_src\.(?:model|results|problems|scoring\.[a-z_]+|systems\.[a-z_]+\.[a-z_]+)")
INT_RANGE = range(-(1 << 63), 1 << 64)  # what orjson writes as a JSON number

_PLAIN = frozenset({str, int, float, bool, type(None)})  # JSON's scalars: decoded as they are, with no call each
Encoders = dict[type, tuple[str, Callable[[Any], Any]]]  # type -> (tag, its value as JSON-able data)
Decoders = dict[str, Callable[[Any], Any]]  # tag -> the value made from that data


class CodecError(ValueError):
    """Bytes that are not records this codec wrote."""


def dumps(value: Any, extensions: Encoders | None = None) -> bytes:
    encoder = Encoder(extensions or {})
    encoder.count(value)
    return orjson.dumps(encoder.encode(value))


def loads(data: bytes, extensions: Decoders | None = None) -> Any:
    try:
        return Decoder(extensions or {}).decode(orjson.loads(data))
    except orjson.JSONDecodeError as exc:
        raise CodecError(f"not JSON: {exc}") from None


_FIELDS: dict[type, tuple[str, ...]] = {}


def _field_names(cls: type) -> tuple[str, ...]:
    names = _FIELDS.get(cls)
    if names is None:
        found = dataclasses.fields(cls)
        if any(not f.init for f in found):
            raise TypeError(f"{cls.__qualname__} has a field its constructor does not take: not a record")
        names = _FIELDS[cls] = tuple(f.name for f in found)
    return names


def holds_records(module_name: str) -> bool:
    """Whether a module is one whose records may be written and read back: this package's, or a module of an
    installed plugin system's package (its code runs in every build already; see systems/__init__.py)."""
    if RECORD_MODULES.fullmatch(module_name):
        return True
    package, _, module = module_name.rpartition(".")
    return bool(re.fullmatch(r"[a-z_]+", module)) and package in _plugin_packages()


def _plugin_packages() -> set[str]:
    from ..systems import systems

    return {s.package for s in systems() if s.plugin}


def _record_name(cls: type) -> str:
    if not holds_records(cls.__module__):
        raise TypeError(f"{cls.__module__}.{cls.__qualname__} is not a record of this package")
    return f"{cls.__module__}:{cls.__qualname__}"


class Encoder:
    """Writes a value as JSON-able data. An object met more than once (by identity: a scorer shares the judges' states
    and the dimension ids between a run's transcripts) is written once, as {"$o": n, "v": ...}, and then as
    {"$r": n}: it comes back as one object, as it was, and is decoded once."""

    def __init__(self, extensions: Encoders) -> None:
        self.extensions = extensions
        self.seen: dict[int, int] = {}  # id -> how often met, for every container and record (count)
        self.numbers: dict[int, int] = {}  # id -> its number, for each met more than once, once written

    def count(self, x: Any) -> None:
        """Count how often each container and record is met in x (encode needs to know before it writes)."""
        todo = [x]
        while todo:
            v = todo.pop()
            t = type(v)
            if v is None or t in _PLAIN or t in self.extensions:
                continue
            n = self.seen[id(v)] = self.seen.get(id(v), 0) + 1
            if n > 1:
                continue
            if t is dict:
                todo.extend(v.values())
                todo.extend(k for k in v if type(k) is not str)
            elif t in (list, tuple, set, frozenset):
                todo.extend(v)
            elif dataclasses.is_dataclass(v):
                todo.extend(getattr(v, name) for name in _field_names(t))

    def encode(self, x: Any) -> Any:
        t = type(x)
        if x is None or t is str or t is bool:
            return x
        if t is int:
            return x if x in INT_RANGE else {"$i": str(x)}
        if t is float:
            return x if math.isfinite(x) else {"$f": repr(x)}
        if self.seen.get(id(x), 0) > 1:
            number = self.numbers.get(id(x))
            if number is not None:
                return {"$r": number}
            self.numbers[id(x)] = len(self.numbers)
            return {"$o": self.numbers[id(x)], "v": self._encode(x)}
        return self._encode(x)

    def _encode(self, x: Any) -> Any:
        t = type(x)
        if t is list:
            return self._records(x) or [self.encode(v) for v in x]
        if t is dict:
            return self._dict(x)
        if t is tuple:
            return {"$t": [self.encode(v) for v in x]}
        if t in self.extensions:
            tag, to_data = self.extensions[t]
            return {tag: to_data(x)}
        if dataclasses.is_dataclass(x):
            return self._record(x)
        return self._other(x)

    def _dict(self, x: dict[Any, Any]) -> Any:
        if all(type(k) is str and not k.startswith("$") for k in x):
            rows = self._records(list(x.values()))
            if rows:
                return {"$M": rows["$D"], "k": list(x), "v": rows["v"]}
            return {k: self.encode(v) for k, v in x.items()}
        return {"$m": [[self.encode(k), self.encode(v)] for k, v in x.items()]}

    def _record(self, x: Any) -> Any:
        return {"$d": _record_name(type(x)), "v": self._fields(x)}

    def _fields(self, x: Any) -> list[Any]:
        return [self.encode(getattr(x, n)) for n in _field_names(type(x))]

    def _records(self, x: list[Any]) -> dict[str, Any] | None:
        """Two or more records of one class, as {"$D": class, "v": [their fields, record by record]}: decoded a
        record at a time without a call for each (the turns and judgments of a run, its transcripts' scores)."""
        if len(x) < 2 or not dataclasses.is_dataclass(x[0]):
            return None
        cls = type(x[0])
        if any(type(v) is not cls for v in x):
            return None
        return {"$D": _record_name(cls), "v": [self._fields(v) for v in x]}

    def _other(self, x: Any) -> Any:
        if isinstance(x, (set, frozenset)):
            items = sorted((self.encode(v) for v in x), key=orjson.dumps)  # the same bytes in every process
            return {"$S" if isinstance(x, frozenset) else "$s": items}
        if isinstance(x, bytes):
            return {"$b": base64.b64encode(x).decode("ascii")}
        if isinstance(x, array):
            return {"$a": x.typecode, "v": [self.encode(v) for v in x]}
        if isinstance(x, float):  # a subclass: numpy's float64
            return self.encode(float(x))
        raise TypeError(f"a {type(x).__module__}.{type(x).__qualname__} cannot be kept in the build cache")


_ARRAY_CODES = frozenset("bBuhHiIlLqQfd")


class Decoder:
    """Makes values of what Encoder wrote. A rebuild decodes every kept run (about a hundred values a transcript):
    the JSON scalars, most of them, are taken where they stand, without a call each."""

    def __init__(self, extensions: Decoders) -> None:
        self.extensions = extensions
        self.objects: list[Any] = []  # by number: each object written once and referred to after ("$o", "$r")
        self.strings: dict[str, str] = {}  # each string of the records' rows, once: see _rows

    def decode(self, x: Any) -> Any:
        t = type(x)
        if t is list:
            return [v if type(v) in _PLAIN else self.decode(v) for v in x]
        if t is dict:
            for first in x:
                if first == "$r":
                    return self._referred(x[first])
                if first[0] == "$":
                    return self._tagged(first, x)
                return {k: v if type(v) in _PLAIN else self.decode(v) for k, v in x.items()}
            return {}
        return x

    def _referred(self, number: Any) -> Any:
        if type(number) is not int or not 0 <= number < len(self.objects):
            raise CodecError(f"$r: {number!r} refers to no object written before")
        return self.objects[number]

    def _values(self, tag: str, value: Any) -> list[Any]:
        return [v if type(v) in _PLAIN else self.decode(v) for v in _list(tag, value)]

    def _tagged(self, tag: str, x: dict[str, Any]) -> Any:  # noqa: C901 - one branch per tag
        value = x[tag]
        if tag == "$o":
            if value != len(self.objects):
                raise CodecError(f"$o: {value!r} is not the next object's number")
            self.objects.append(None)  # its place, kept while its value is decoded
            self.objects[value] = self.decode(x.get("v"))
            return self.objects[value]
        if tag == "$d":
            cls, count = _CLASSES.get(value) or _class(value)
            fields = x.get("v")
            if not isinstance(fields, list) or len(fields) != count:
                raise CodecError(f"{value}: expected the values of its {count} fields")
            return cls(*[v if type(v) in _PLAIN else self.decode(v) for v in fields])
        if tag in ("$D", "$M"):
            return self._rows(tag, value, x)
        if tag == "$t":
            return tuple(self._values(tag, value))
        if tag == "$m":
            return {self.decode(k): self.decode(v) for k, v in (_pair(p) for p in _list(tag, value))}
        if tag in ("$s", "$S"):
            return set(self._values(tag, value)) if tag == "$s" else frozenset(self._values(tag, value))
        if tag == "$b":
            return base64.b64decode(_str(tag, value), validate=True)
        if tag == "$a":
            if value not in _ARRAY_CODES:
                raise CodecError(f"$a: unknown array type code {value!r}")
            return array(value, self._values(tag, x.get("v")))
        if tag == "$f":
            if value not in ("nan", "inf", "-inf"):
                raise CodecError(f"$f: {value!r} is not nan, inf or -inf")
            return float(value)
        if tag == "$i":
            return int(_str(tag, value))
        if tag in self.extensions:
            return self.extensions[tag](value)
        raise CodecError(f"unknown tag {tag!r}")

    def _rows(self, tag: str, name: Any, x: dict[str, Any]) -> Any:
        """Records of one class, given row by row: a list ("$D"), or a dict by the keys listed under "k" ("$M")."""
        cls, count = _CLASSES.get(name) or _class(name)
        rows = _list(tag, x.get("v"))
        if any(type(row) is not list or len(row) != count for row in rows):
            raise CodecError(f"{name}: expected rows of its {count} fields")
        # JSON gives each string of each row its own object: a run's transcripts each held their run's, entrant's
        # and item's ids and state apart (about 0.3 KB a transcript), so a row's strings are shared with its run's
        one = self.strings.setdefault
        records = [
            cls(*[one(v, v) if type(v) is str else v if type(v) in _PLAIN else self.decode(v) for v in row])
            for row in rows
        ]
        if tag == "$D":
            return records
        keys = _list(tag, x.get("k"))
        if len(keys) != len(records) or any(type(k) is not str for k in keys):
            raise CodecError(f"{name}: expected a key for each record")
        return dict(zip(keys, records, strict=True))


_CLASSES: dict[str, tuple[type, int]] = {}  # "$d" name -> (record class, its field count), once found


def _class(name: Any) -> tuple[type, int]:
    """The dataclass a "$d" names, and its field count: one defined in a module that holds records."""
    module_name, _, qualname = str(name).partition(":")
    module = _record_module(module_name)
    found = module.__dict__.get(qualname) if module is not None else None
    plain = isinstance(found, type) and dataclasses.is_dataclass(found) and not hasattr(found, "__post_init__")
    if not plain or found.__module__ != module_name:  # type: ignore[union-attr]
        raise CodecError(f"{name!r} is not a record of this package")
    _CLASSES[name] = found, len(_field_names(found))  # type: ignore[arg-type]
    return _CLASSES[name]


def _record_module(name: str) -> ModuleType | None:
    """One of this package's modules that hold records (imported, if it is not yet), or None."""
    if not holds_records(name):
        return None
    module = sys.modules.get(name)
    if module is None:
        try:
            module = importlib.import_module(name)
        except ImportError:
            return None
    return module


def _list(tag: str, value: Any) -> list[Any]:
    if not isinstance(value, list):
        raise CodecError(f"{tag}: expected a list")
    return value


def _str(tag: str, value: Any) -> str:
    if not isinstance(value, str):
        raise CodecError(f"{tag}: expected a string")
    return value


def _pair(p: Any) -> tuple[Any, Any]:
    if not isinstance(p, list) or len(p) != 2:
        raise CodecError("$m: expected [key, value] pairs")
    return p[0], p[1]
