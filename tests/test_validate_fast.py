"""The compiled fast path of schema validation must never accept what jsonschema, the authority, rejects."""

from __future__ import annotations

import copy
import sys
from pathlib import Path
from typing import Any

import pytest

from site_src import validate
from site_src.problems import Problems
from site_src.readers.project import load_project

ROOT = Path(__file__).resolve().parent.parent


def _records(monkeypatch: pytest.MonkeyPatch) -> list[tuple[Any, str]]:
    seen: list[tuple[Any, str]] = []
    real = validate.check

    def spy(value: Any, schema: str, *args: Any) -> bool:
        seen.append((copy.deepcopy(value), schema))
        return real(value, schema, *args)

    for name, module in list(sys.modules.items()):  # every reader that imported check by name
        if name.startswith("site_src") and getattr(module, "check", None) is real:
            monkeypatch.setattr(module, "check", spy)
    load_project(ROOT / "content", [ROOT / "runs"], Problems())
    return seen


def _mutations(value: Any) -> list[Any]:
    """Each required-looking field dropped, nulled or given the wrong type, one at a time, one level deep."""
    out = []
    if isinstance(value, dict):
        for key in value:
            for replacement in (None, [], "x", -1, {"?": 1}):
                changed = dict(value)
                changed[key] = replacement
                out.append(changed)
            out.append({k: v for k, v in value.items() if k != key})
    return out


def _authority_rejects(value: Any, schema: str) -> bool:
    return any(e.validator != "additionalProperties" for e in validate.validator(schema).iter_errors(value))


def test_fast_validation_agrees_with_jsonschema_on_the_demo_records_and_their_mutations(monkeypatch):
    records = _records(monkeypatch)
    assert len({schema for _, schema in records}) >= 8, "the demo runs should exercise most schemas"
    checked = rejected = 0
    for value, schema in records[:400]:
        for candidate in [value, *_mutations(value)]:
            if _authority_rejects(candidate, schema):
                rejected += 1
                assert not validate._valid_fast(candidate, schema), (schema, candidate)
            checked += 1
    assert rejected > 100, "the mutations should include many invalid records"
    assert checked > rejected


def test_every_schema_is_a_valid_json_schema():
    """Builds do not check the schemas against the meta-schema (it took a tenth of a second each time): this does."""
    from jsonschema import Draft202012Validator

    names = sorted(p.name.removesuffix(".schema.json") for p in (ROOT / "site_src/schemas").glob("*.schema.json"))
    assert len(names) > 20
    for name in names:
        Draft202012Validator.check_schema(validate.validator(name).schema)
