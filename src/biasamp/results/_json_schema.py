"""Checking a JSON document against a JSON Schema, naming the path of the first problem.

biasamp reads the command line's JSON (schema ``biasamp/schema/result-v2.json``, and
``result-v1.json`` of earlier releases)
back with :func:`biasamp.load_result`; this module checks such a file against the
schema before any value is used, with no dependency: it implements the part of
JSON Schema (draft 2020-12) that biasamp's schemas use (``type``, ``const``,
``enum``, ``required``, ``properties``, ``additionalProperties``, ``items``,
``minItems``, ``minimum``, ``exclusiveMinimum``, ``exclusiveMaximum``,
``minLength``, ``pattern``, ``oneOf``, local ``$ref``). Other keywords are not
used by the schemas and are ignored. The tests check that it agrees with the
``jsonschema`` package on the schema's documents and on random edits of them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from functools import cache
from importlib import resources
from typing import Any

__all__ = ["first_schema_error", "load_schema"]

_TYPES: dict[str, Any] = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: (
        (isinstance(v, int) and not isinstance(v, bool))
        or (isinstance(v, float) and v.is_integer())
    ),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
}


@cache
def _schema_text(name: str) -> str:
    return (resources.files("biasamp") / "schema" / name).read_text(encoding="utf-8")


def load_schema(name: str) -> dict[str, Any]:
    """The JSON Schema ``biasamp/schema/<name>`` (a fresh copy)."""
    schema: dict[str, Any] = json.loads(_schema_text(name))
    return schema


def _same(a: Any, b: Any) -> bool:
    """JSON equality (``1 == True`` is not, as in JSON Schema)."""
    return (
        type(a) is type(b)
        and a == b
        or (
            isinstance(a, (int, float))
            and isinstance(b, (int, float))
            and not isinstance(a, bool)
            and not isinstance(b, bool)
            and a == b
        )
    )


def _resolve(root: Mapping[str, Any], ref: str) -> Mapping[str, Any]:
    node: Any = root
    for part in ref.removeprefix("#/").split("/"):
        node = node[part]
    return node


def first_schema_error(
    value: Any, schema: Mapping[str, Any], *, root: Mapping[str, Any] | None = None, path: str = "$"
) -> tuple[str, str] | None:
    """``(json path, problem)`` of the first place ``value`` breaks ``schema``, or ``None``.

    Examples
    --------
    >>> from biasamp.results._json_schema import first_schema_error
    >>> schema = {"type": "object", "properties": {"n": {"type": "integer", "minimum": 0}}}
    >>> first_schema_error({"n": -1}, schema)
    ('$.n', 'expected at least 0, got -1')
    """
    root = schema if root is None else root
    if "$ref" in schema:
        found = first_schema_error(value, _resolve(root, schema["$ref"]), root=root, path=path)
        if found:
            return found
    if "const" in schema and not _same(value, schema["const"]):
        return path, f"expected {schema['const']!r}, got {value!r}"
    if "enum" in schema and not any(_same(value, v) for v in schema["enum"]):
        return path, f"expected one of {schema['enum']!r}, got {value!r}"
    kinds = schema.get("type")
    if kinds is not None:
        kinds = [kinds] if isinstance(kinds, str) else kinds
        if not any(_TYPES[k](value) for k in kinds):
            shown = repr(value) if len(repr(value)) <= 60 else repr(value)[:57] + "..."
            return path, f"expected {' or '.join(kinds)}, got {type(value).__name__} {shown}"
    if "oneOf" in schema:
        matches = [first_schema_error(value, s, root=root, path=path) for s in schema["oneOf"]]
        if sum(m is None for m in matches) != 1:
            first = next((m for m in matches if m is not None), None)
            return first or (path, "matches more than one of the allowed forms")
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if "minimum" in schema and value < schema["minimum"]:
            return path, f"expected at least {schema['minimum']}, got {value!r}"
        if "exclusiveMinimum" in schema and value <= schema["exclusiveMinimum"]:
            return path, f"expected more than {schema['exclusiveMinimum']}, got {value!r}"
        if "exclusiveMaximum" in schema and value >= schema["exclusiveMaximum"]:
            return path, f"expected less than {schema['exclusiveMaximum']}, got {value!r}"
    if isinstance(value, str):
        if "minLength" in schema and len(value) < schema["minLength"]:
            return path, f"expected at least {schema['minLength']} characters"
        if "pattern" in schema and not re.search(schema["pattern"], value):
            return path, f"does not match {schema['pattern']!r}"
    if isinstance(value, list):
        if "minItems" in schema and len(value) < schema["minItems"]:
            return path, f"expected at least {schema['minItems']} items, got {len(value)}"
        if "items" in schema:
            for i, item in enumerate(value):
                found = first_schema_error(item, schema["items"], root=root, path=f"{path}[{i}]")
                if found:
                    return found
    if isinstance(value, dict):
        for key in schema.get("required", []):
            if key not in value:
                return path, f"missing key {key!r}"
        properties = schema.get("properties", {})
        extra = schema.get("additionalProperties", True)
        for key, item in value.items():
            where = f"{path}.{key}"
            if key in properties:
                found = first_schema_error(item, properties[key], root=root, path=where)
            elif extra is False:
                found = (where, "unexpected key")
            elif isinstance(extra, Mapping):
                found = first_schema_error(item, extra, root=root, path=where)
            else:
                found = None
            if found:
                return found
    return None
