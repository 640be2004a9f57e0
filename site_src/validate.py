"""Schema validation that reports every problem with file, record and field.

The schemas in site_src/schemas/ are the machine-checkable definition of each format (documented in docs/).
A field the format does not define is a warning, not an error: it is never read, so it is never published
(provider reasoning, billing data and the like stay out), and --strict turns the warning into an error.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING, Any

import fastjsonschema

from .problems import Problems

if TYPE_CHECKING:
    from jsonschema import Draft202012Validator


@cache
def schema_of(name: str) -> dict[str, Any]:
    """One of our schemas. Each is checked against the JSON Schema meta-schema by a test, not here: the check took
    a tenth of a second of every build."""
    text = resources.files("site_src").joinpath(f"schemas/{name}.schema.json").read_text(encoding="utf-8")
    schema = json.loads(text)
    if name == "benchmark":  # a benchmark may name any system installed, plugins' included
        from .systems import systems

        known = schema["properties"]["system"]["enum"]
        known += [s.id for s in systems() if s.id not in known]
    return schema


@cache
def validator(name: str) -> Draft202012Validator:
    """jsonschema's validator of one of our schemas. It is imported on first use, when a record fails the fast
    check: a build of valid runs never needs it, and its import took 60 ms of every build."""
    from jsonschema import Draft202012Validator

    return Draft202012Validator(schema_of(name))


@cache
def _fast(name: str) -> Callable[[Any], Any]:
    """The same schema compiled to Python code: about 20x faster on the (usual) valid record. Formats are not
    checked, as jsonschema does not check them either."""
    return fastjsonschema.compile(schema_of(name), use_formats=False)


def _valid_fast(value: Any, schema: str) -> bool:
    try:
        _fast(schema)(value)
    except fastjsonschema.JsonSchemaException:
        return False
    return True


def _path(parts: Any) -> str:
    out = ""
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def check(value: Any, schema: str, file: str, record: str | None, problems: Problems) -> bool:
    """Validate one value; add a problem per violation. Returns False when there was any error."""
    if _valid_fast(value, schema):
        return True
    # jsonschema stays the authority: it reports every violation, and an unknown field is only a warning
    ok = True
    errors = [e for err in validator(schema).iter_errors(value) for e in _within(err)]
    for err in sorted(errors, key=lambda e: list(map(str, e.absolute_path))):
        where = _path(err.absolute_path) or None
        if err.validator == "additionalProperties":
            extra = sorted(set(err.instance) - set(err.schema.get("properties", {})))
            for name in extra:
                field = f"{where}.{name}" if where else name
                problems.warning(
                    file, "field is not part of the format; it is neither read nor published", record, field
                )
            continue
        ok = False
        problems.error(file, _message(err), record, where)
    return ok


def _within(err: Any) -> list[Any]:
    """An error of "any of these shapes" as the errors inside the shape the value has: a score of 11 in an object
    of scores is "scores.fidelity: 11 is above the maximum", not "scores has the wrong shape"."""
    if err.validator not in ("anyOf", "oneOf") or not err.context:
        return [err]
    branches: dict[Any, list[Any]] = {}
    for e in err.context:
        branches.setdefault(e.relative_schema_path[0], []).append(e)
    fitting = [b for b in branches.values() if not any(e.validator == "type" and not e.relative_path for e in b)]
    # only where the value has the type of exactly one shape is it clear which shape was meant
    return [e for sub in fitting[0] for e in _within(sub)] if len(fitting) == 1 else [err]


def _message(err: Any) -> str:
    if err.validator in ("minimum", "maximum") and isinstance(err.instance, int | float):
        low, high = err.schema.get("minimum"), err.schema.get("maximum")
        bound = "at least" if err.validator == "minimum" else "at most"
        scale = f" (the scale runs {low:g}–{high:g})" if low is not None and high is not None else ""
        return f"{err.instance:g} is out of range: {bound} {err.validator_value:g}{scale}"
    if err.validator == "required":
        return err.message.replace("is a required property", "is required but missing")
    if err.validator in ("enum", "const"):
        allowed = err.validator_value if err.validator == "enum" else [err.validator_value]
        return (
            f"{json.dumps(err.instance, ensure_ascii=False)[:80]} is not one of {', '.join(map(json.dumps, allowed))}"
        )
    if err.validator == "anyOf" and isinstance(err.instance, dict) and "unavailable" not in err.instance:
        return f"has the wrong shape: {err.message[:160]}"
    return err.message[:300]


def prune(value: Any, schema: str) -> Any:
    """A copy of value keeping only the fields its schema defines, wherever the schema closes an object."""
    root = schema_of(schema)
    return _prune(value, root, root)


def _prune(value: Any, node: dict[str, Any], root: dict[str, Any]) -> Any:
    if "$ref" in node and node["$ref"].startswith("#/$defs/"):
        node = root["$defs"][node["$ref"].split("/")[-1]]
    if isinstance(value, dict) and "properties" in node:
        props = node["properties"]
        closed = node.get("additionalProperties") is False
        return {k: _prune(v, props[k], root) if k in props else v for k, v in value.items() if k in props or not closed}
    if isinstance(value, list) and isinstance(node.get("items"), dict):
        return [_prune(v, node["items"], root) for v in value]
    return value
