"""``--json FILE``: the audit as a stable, versioned JSON document.

The document is exactly :meth:`biasamp.AuditResult.to_dict` of the audit the
command ran (with the command's name and its ``--fail-above`` gates), following
the JSON Schema shipped with the package, ``biasamp/schema/result-v2.json``
(:func:`load_schema`). Version 2 only grows: new optional keys may appear, no key
is removed or changes meaning. :func:`biasamp.load_result` reads it back as an
``AuditResult`` (and still reads version 1 files).
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any

from biasamp.auditing._result import SCHEMA_FILE, SCHEMA_NAME, SCHEMA_VERSION
from biasamp.output._atomic import atomic_output
from biasamp.output._targets import OutputTarget

from .audit import Audit

__all__ = [
    "SCHEMA_NAME",
    "SCHEMA_VERSION",
    "audit_document",
    "json_text",
    "load_schema",
    "write_json",
]


def load_schema() -> dict[str, Any]:
    """The JSON Schema of the document (version 2)."""
    text = (resources.files("biasamp") / "schema" / SCHEMA_FILE).read_text(encoding="utf-8")
    return json.loads(text)


def audit_document(audit: Audit, *, command: str) -> dict[str, Any]:
    """The JSON document of an audit: ``AuditResult.to_dict()`` as ``command`` wrote it."""
    return audit.document(command)


def json_text(document: dict[str, Any]) -> str:
    """The document as text (UTF-8 characters kept, 2-space indent, no NaN)."""
    return json.dumps(document, indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def write_json(path: str | Path | OutputTarget, document: dict[str, Any]) -> str | Path:
    """Write the document atomically (``-``: standard output); return the path."""
    text = json_text(document)
    with atomic_output(path, "w", encoding="utf-8") as handle:
        handle.write(text)
    return path.path if isinstance(path, OutputTarget) else path
