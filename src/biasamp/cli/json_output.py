"""``--json FILE``: the results as a stable, versioned JSON document.

The document follows the JSON Schema shipped with the package,
``biasamp/schema/result-v1.json`` (:func:`load_schema`). Version 1 only grows:
new optional keys may appear, no key is removed or changes meaning.
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any

from biasamp._version import __version__
from biasamp.auditing._metric_specs import REGISTRY
from biasamp.output._atomic import atomic_output
from biasamp.output._targets import OutputTarget
from biasamp.results._base import _json_safe, frame_records, group_sizes_dict

from .audit import Audit

__all__ = [
    "SCHEMA_NAME",
    "SCHEMA_VERSION",
    "audit_document",
    "json_text",
    "load_schema",
    "write_json",
]

SCHEMA_NAME = "biasamp-result"
SCHEMA_VERSION = 1
SCHEMA_FILE = "result-v1.json"


def load_schema() -> dict[str, Any]:
    """The JSON Schema of the document (version 1)."""
    text = (resources.files("biasamp") / "schema" / SCHEMA_FILE).read_text(encoding="utf-8")
    return json.loads(text)


def _interval(result: Any) -> dict[str, Any] | None:
    ci = getattr(result, "ci", None)
    if ci is None:
        return None
    return {
        "low": ci[0],
        "high": ci[1],
        "level": getattr(result, "ci_level", None),
        "se": getattr(result, "se", None),
    }


def metric_record(key: str, result: Any, *, seed: int | None) -> dict[str, Any]:
    """One metric of the document, from a result object."""
    replicates = getattr(result, "replicates", None)
    n_boot = 0 if replicates is None else int(len(replicates))
    pairs = frame_records(result.by_pair)
    for row in pairs:
        row["group"] = str(row["group"])
        row["task"] = str(row["task"])
    return _json_safe(
        {
            "key": key,
            "metric": result.metric,
            "name": getattr(result, "name", REGISTRY[key].title if key in REGISTRY else key),
            "direction": getattr(result, "direction", None),
            "value": result.value,
            "interval": _interval(result),
            "n_boot": n_boot,
            "seed": seed if n_boot else None,
            "n": result.n,
            "n_train": result.n_train,
            "n_pairs": result.n_pairs,
            "n_empty": result.n_empty,
            "params": result.params,
            "extras": result.extras,
            "pairs": pairs,
            **group_sizes_dict(result),
            **({"by_size": frame_records(result.by_size)} if hasattr(result, "by_size") else {}),
            **_optional(result),
        }
    )


def _optional(result: Any) -> dict[str, Any]:
    """Keys that let :func:`biasamp.load_result` rebuild the result (schema v1 grows only)."""
    out: dict[str, Any] = {}
    if hasattr(result, "by_size"):  # multi-attribute
        for name in ("variance", "absolute", "n_combinations"):
            out[name] = getattr(result, name, None)
    if getattr(result, "metric", None) in ("dpa", "leakage_amplification"):
        for name in ("values", "data_quality", "model_quality"):
            out[name] = getattr(result, name, None)
        out["attacker_reason"] = getattr(result, "attacker_reason", None)
    return out


def audit_document(audit: Audit, *, command: str) -> dict[str, Any]:
    """The JSON document of an audit."""
    data = audit.data
    doc: dict[str, Any] = {
        "schema": SCHEMA_NAME,
        "schema_version": SCHEMA_VERSION,
        "biasamp_version": __version__,
        "command": command,
        "inputs": [f.to_dict() for f in data.files],
        "settings": audit.settings,
        "labels": {
            "groups": [str(g) for g in data.group_names],
            "tasks": [str(t) for t in data.task_names],
        },
        "metrics": [
            metric_record(key, result, seed=audit.settings.get("seed"))
            for key, result in audit.results.items()
        ],
        "skipped": dict(audit.skipped),
        "gates": [g.to_dict() for g in audit.gates],
        "warnings": list(audit.warnings),
    }
    if data.thresholds:
        doc["thresholds"] = dict(data.thresholds)
    if audit.sweep:
        doc["sweeps"] = {
            key: {
                "metric": s.metric,
                "direction": s.direction,
                "mean": s.mean,
                "table": frame_records(s.table[["threshold", "value"]]),
            }
            for key, s in audit.sweep.items()
        }
    return _json_safe(doc)


def json_text(document: dict[str, Any]) -> str:
    """The document as text (UTF-8 characters kept, 2-space indent, no NaN)."""
    return json.dumps(document, indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def write_json(path: str | Path | OutputTarget, document: dict[str, Any]) -> str | Path:
    """Write the document atomically (``-``: standard output); return the path."""
    text = json_text(document)
    with atomic_output(path, "w", encoding="utf-8") as handle:
        handle.write(text)
    return path.path if isinstance(path, OutputTarget) else path
