"""Find credentials in everything about to be published, and optionally redact them (the rules: secretrules.py).

Identifiers, file names and object keys cannot be redacted (pages, links and downloads are built from them): a
finding in one always stops the build, with or without --redact-secrets. No finding ever prints the matched value.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Container, Sequence
from dataclasses import dataclass
from typing import Any

from .secretrules import find, masked, redact


@dataclass(frozen=True)
class Finding:
    file: str
    record: str | None
    field: str
    rule: str
    blocking: bool = False  # in an identifier, a file name or an object key: it cannot be redacted

    def __str__(self) -> str:
        where = self.file + (f", {self.record}" if self.record else "")
        why = "; it cannot be redacted (an identifier, file name or key): rename it" if self.blocking else ""
        return masked(f"secret: {where}, field {self.field}: matches rule {self.rule}{why}")


IDENTIFIER_FIELDS = frozenset(
    {
        "id",
        "key",
        "run_id",
        "run_ids",
        "entrant_id",
        "item_id",
        "judge_id",
        "target_id",
        "benchmark_id",
        "version_id",
        "pair_id",
        "scenario_id",
        "path",
        "format",
        "public_files",
        "read_files",
        "ignored_files",
        "output_file",
        "grading_file",
    }
)


SHORT = 256  # the longest string Scanner remembers as clean
NUMBERS = frozenset({int, float, bool})


class Scanner:
    """Walks model objects, recording (and with redact=True replacing) every finding, with its location."""

    def __init__(self, redact: bool):
        self.redact = redact
        self.findings: list[Finding] = []
        # short strings found clean: a run repeats the same few (ids, roles, states, dimension names, timestamps),
        # so a run of 500 transcripts and 1,000 judgments asks about 44,000 strings and 3,600 distinct ones
        self.clean: set[str] = set()
        self.skip_files: Container[str] = frozenset()  # records from these files are not walked (found clean before)

    def text(self, value: str, file: str, record: str | None, field: str, blocking: bool = False) -> str:
        if value in self.clean:
            return value
        spans = find(value)
        if not spans:
            if len(value) <= SHORT:
                self.clean.add(value)
            return value
        for rule in sorted({s[0] for s in spans}):
            self.findings.append(Finding(file, record, field, rule, blocking))
        return redact(value, spans) if self.redact and not blocking else value

    def walk(
        self,
        value: Any,
        file: str,
        record: str | None,
        field: str,
        skip: tuple[str, ...] = (),
        blocking: bool = False,
    ) -> Any:
        if value is None or type(value) in NUMBERS:  # most of what a record holds besides text: nothing to scan
            return value
        if isinstance(value, str):
            return self.text(value, file, record, field, blocking)
        if isinstance(value, Sequence) and not isinstance(value, list | tuple | bytes):
            # a sequence that reads its items when used (turns or judgments a build keeps on disk): scanned as a
            # list, and kept as it is unless something in it was redacted
            before = len(self.findings)
            items = self.walk(list(value), file, record, field, blocking=blocking)
            return value if len(self.findings) == before or not self.redact or blocking else items
        if isinstance(value, list):
            for i, item in enumerate(value):
                value[i] = self.walk(item, file, record, f"{field}[{i}]", blocking=blocking)
            return value
        if isinstance(value, tuple):
            new = tuple(self.walk(v, file, record, f"{field}[{i}]", blocking=blocking) for i, v in enumerate(value))
            # the very tuple when nothing in it was replaced: a tuple can be shared (a run's dimension ids), and a
            # copy of each took about 0.1 KB a transcript
            return value if all(a is b for a, b in zip(new, value, strict=True)) else new
        if isinstance(value, set):
            return {self.walk(item, file, record, field, blocking=True) for item in value}
        if isinstance(value, dict):
            for key in list(value):
                sub = f"{field}.{key}" if field else str(key)
                self.text(str(key), file, record, sub, blocking=True)  # keys are looked up: never rewritten
                value[key] = self.walk(value[key], file, record, sub, blocking=blocking)
            return value
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            source = getattr(value, "source_file", None)
            if source:  # a record with its own place: fields are named from it
                if source in self.skip_files:
                    return value
                file, record, field = source, getattr(value, "source_record", None), ""
            for f in dataclasses.fields(value):
                if f.name in skip or f.name in ("source_file", "source_record"):
                    continue
                sub = f"{field}.{f.name}" if field else f.name
                new = self.walk(
                    getattr(value, f.name), file, record, sub, blocking=blocking or f.name in IDENTIFIER_FIELDS
                )
                if not type(value).__dataclass_params__.frozen:
                    setattr(value, f.name, new)
            return value
        return value
