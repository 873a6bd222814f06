"""The result of :func:`biasamp.audit`: every metric of one audit, and its JSON document.

``AuditResult.to_dict()`` is the document ``biasamp measure --json`` writes
(schema ``biasamp-result`` version 3, ``biasamp/schema/result-v3.json``): the
envelope every biasamp document opens with (``schema``, ``schema_version``,
``biasamp_version``, ``metrics``, ``settings`` with ``random_state``, as the file
of ``result.save()``), the inputs with their SHA-256s, the label names, a ``results``
mapping from each metric's canonical name (:mod:`biasamp.registry`) to its
record, the skipped metrics with why, the warnings and, for a command, its
gates. :func:`biasamp.load_result` reads such a file back as an
:class:`AuditResult`; ``result.save(path)`` stores one with every field typed.
"""

from __future__ import annotations

import copy
import os
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd

from biasamp.output._targets import remember_input_files
from biasamp.registry import find_card, metric_name
from biasamp.results._base import (
    _json_safe,
    frame_records,
    group_sizes_dict,
    pair_trust_dict,
    significance_dict,
)
from biasamp.results._cli_document import results_from_cli_document
from biasamp.results._json_schema import first_schema_error, load_schema
from biasamp.results._persist import (
    SavableResult,
    envelope,
    register_result,
    registered_results,
)

__all__ = [
    "SCHEMA_FILE",
    "SCHEMA_NAME",
    "SCHEMA_VERSION",
    "AuditResult",
    "audit_document",
    "metric_record",
]

SCHEMA_NAME = "biasamp-result"
SCHEMA_VERSION = 3
SCHEMA_FILE = "result-v3.json"
#: The ``command`` of a document written by the library (the command line writes its own).
LIBRARY_COMMAND = "audit"

ERR_DOCUMENT = "document: {path}: {problem} (schema biasamp-result version 3)."
ERR_DOCUMENT_TYPE = "document: expected the mapping of an audit document, got {got}."
ERR_FILE_TYPE = "file: expected the path the document was read from, got {got}."
ERR_RESULT_KEYS = "results: the metrics {got} differ from those of the document, {expected}."


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


def _optional(result: Any) -> dict[str, Any]:
    """Keys that let :func:`biasamp.load_result` rebuild the result."""
    out: dict[str, Any] = {}
    if hasattr(result, "by_size"):  # multi-attribute
        for name in ("variance", "absolute", "n_combinations"):
            out[name] = getattr(result, name, None)
    if getattr(result, "family", None) in ("dpa", "leakage_amplification"):
        for name in ("values", "data_quality", "model_quality"):
            out[name] = getattr(result, name, None)
        out["attacker_reason"] = getattr(result, "attacker_reason", None)
    return out


def metric_record(key: str, result: Any, *, random_state: int | None) -> dict[str, Any]:
    """One metric of the document, from a result (or its view of
    :mod:`biasamp.auditing._metric_specs`)."""
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
            "family": result.family,
            "name": key,
            "direction": getattr(result, "direction", None),
            "value": result.value,
            "interval": _interval(result),
            "n_boot": n_boot,
            "random_state": random_state if n_boot else None,
            "n": result.n,
            "n_train": result.n_train,
            "n_pairs": result.n_pairs,
            "n_empty": result.n_empty,
            "params": result.params,
            "extras": result.extras,
            "pairs": pairs,
            **group_sizes_dict(result),
            **pair_trust_dict(result),
            **({"by_size": frame_records(result.by_size)} if hasattr(result, "by_size") else {}),
            **_optional(result),
            # the swap test against chance, when it ran (n_perm=)
            **(significance_dict(result) if getattr(result, "p_value", None) is not None else {}),
        }
    )


def audit_document(
    results: Mapping[str, Any],
    *,
    inputs: Sequence[Mapping[str, Any]],
    settings: Mapping[str, Any],
    labels: Mapping[str, Any],
    thresholds: Mapping[str, float] | None = None,
    skipped: Mapping[str, str] | None = None,
    warnings: Sequence[str] = (),
    sweeps: Mapping[str, Any] | None = None,
    random_state: int | None = None,
    command: str = LIBRARY_COMMAND,
    gates: Sequence[Mapping[str, Any]] = (),
) -> dict[str, Any]:
    """The JSON document of an audit (schema version 3)."""
    doc: dict[str, Any] = {
        **envelope(SCHEMA_NAME, SCHEMA_VERSION, metrics=list(results), settings=settings),
        "command": command,
        "inputs": [dict(f) for f in inputs],
        "labels": dict(labels),
        "results": {
            key: metric_record(key, r, random_state=random_state) for key, r in results.items()
        },
        "skipped": dict(skipped or {}),
        "gates": [dict(g) for g in gates],
        "warnings": list(warnings),
    }
    if thresholds:
        doc["thresholds"] = dict(thresholds)
    if sweeps:
        doc["sweeps"] = {
            key: {
                "metric": s.metric,
                "direction": s.direction,
                "mean": s.mean,
                "table": frame_records(s.table[["threshold", "value"]]),
            }
            for key, s in sweeps.items()
        }
    return _json_safe(doc)


def upgraded_document(document: Mapping[str, Any]) -> dict[str, Any]:
    """A version 2 audit document in version 3 (a version 3 document as it is): the
    envelope (``metrics``; ``settings`` with ``random_state``) first, and in each record
    the canonical name under ``metric``, the family under ``family`` and ``random_state``
    for ``seed``."""
    if document.get("schema_version") != 2:
        return dict(document)
    old = copy.deepcopy(dict(document))
    records = old.pop("results", None) or {}
    for key, record in records.items():
        family = record.get("metric")
        card = find_card(family, record.get("direction")) or find_card(key)
        record["metric"] = card.name if card is not None else key
        record["family"] = card.family if card is not None else family
        record["random_state"] = record.pop("seed", None)
    head = envelope(
        SCHEMA_NAME, SCHEMA_VERSION, metrics=list(records), settings=old.pop("settings", {})
    )
    head["biasamp_version"] = old.pop("biasamp_version", head["biasamp_version"])
    for name in ("schema", "schema_version"):
        old.pop(name, None)
    return {**head, **old, "results": records}


def _without_command(document: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in document.items() if k != "command"}


@register_result("audit", shapes=lambda r: {"metrics": len(r.results)})
@dataclass(repr=False, eq=False)
class AuditResult(SavableResult, Mapping[str, Any]):
    """Every metric of one file audit (:func:`biasamp.audit`, ``biasamp measure``).

    It is a read-only mapping from each metric's canonical name to its result:
    ``result["directional-a2t"]`` is ``result.results["directional-a2t"]``.

    Attributes
    ----------
    results : dict
        ``{canonical metric name: result}``: :class:`~biasamp.PairwiseResult`
        (``mals``, ``directional-*``), :class:`~biasamp.MultiAttributeResult`
        (``multi-*``), :class:`~biasamp.PredictabilityResult` (``dpa-*``,
        ``leakage``), :class:`~biasamp.DifferentialFairnessResult`
        (``differential-fairness``, ``df-amplification``). Read back from a
        JSON file, results have no bootstrap replicates, and differential
        fairness comes back as a :class:`~biasamp.PairwiseResult` of its pairs.
    document : dict
        The JSON document (``to_dict()``): inputs, settings, labels, one record
        per metric under ``results``, skipped metrics, warnings, gates.
    comparison : pandas.DataFrame or None
        Training versus predicted bias per (group, task) (the report's figure).
    by_size : pandas.DataFrame or None
        The multi-attribute metrics' values by combination size.
    sweeps : dict or None
        ``{metric name: ThresholdSweep}`` when asked for and predictions are scores.

    Two audits are equal (``==``) when their documents are, apart from the
    ``command`` that wrote them: ``biasamp.audit(...)`` equals what
    ``biasamp.load_result`` reads from ``biasamp measure --json`` of the same call.
    """

    results: dict[str, Any]
    document: dict[str, Any]
    comparison: pd.DataFrame | None = None
    by_size: pd.DataFrame | None = None
    sweeps: dict[str, Any] | None = None

    def __post_init__(self) -> None:
        found = first_schema_error(self.document, load_schema(SCHEMA_FILE))
        if found is not None:
            raise ValueError(ERR_DOCUMENT.format(path=found[0], problem=found[1]))
        if list(self.results) != list(self.document["results"]):
            raise ValueError(
                ERR_RESULT_KEYS.format(
                    got=list(self.results), expected=list(self.document["results"])
                )
            )
        # every result of the audit knows the files it was computed from: its save()
        # refuses to write over them, as the audit's own save() does
        for result in [*self.results.values(), *(self.sweeps or {}).values()]:
            if not isinstance(result, pd.DataFrame):
                remember_input_files(result, self.input_files)

    # --- a mapping of the results
    def __getitem__(self, name: str) -> Any:
        try:
            return self.results[name]
        except KeyError:
            pass
        try:
            key = metric_name(name, among=self.results, argument="metric")
        except ValueError:
            raise KeyError(name) from None
        return self.results[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.results)

    def __len__(self) -> int:
        return len(self.results)

    # --- the document
    def to_dict(self) -> dict[str, Any]:
        """The JSON document (what ``biasamp measure --json`` writes)."""
        return copy.deepcopy(self.document)

    @property
    def settings(self) -> dict[str, Any]:
        return dict(self.document.get("settings") or {})

    @property
    def warnings(self) -> list[str]:
        return list(self.document.get("warnings") or [])

    @property
    def skipped(self) -> dict[str, str]:
        return dict(self.document.get("skipped") or {})

    @property
    def inputs(self) -> list[dict[str, Any]]:
        return [dict(f) for f in self.document.get("inputs") or []]

    @property
    def input_files(self) -> tuple[tuple[str, str], ...]:
        """The audited files as ``(keyword, path)`` pairs (``("data", "data.csv")``):
        :meth:`save`, :func:`biasamp.write_report` and the command line refuse to
        write over any of them."""
        return tuple((str(f["role"]), str(f["path"])) for f in self.inputs)

    @property
    def labels(self) -> dict[str, list[str]]:
        return dict(self.document.get("labels") or {})

    @property
    def thresholds(self) -> dict[str, float]:
        return dict(self.document.get("thresholds") or {})

    @property
    def command(self) -> str:
        return str(self.document.get("command"))

    def with_command(self, command: str, *, gates: Sequence[Mapping[str, Any]] = ()) -> AuditResult:
        """The same audit as written by a command, with its gates (the command line's)."""
        document = self.to_dict()
        document["command"] = command
        document["gates"] = [dict(g) for g in gates]
        return replace(self, document=_json_safe(document))

    @classmethod
    def from_document(cls, document: Mapping[str, Any], *, file: str) -> AuditResult:
        """The audit a version 3 document holds (already checked against its schema); a
        version 2 document (``seed``, the family under ``metric``) is read as the same
        audit in version 3."""
        if not isinstance(document, Mapping):
            raise TypeError(ERR_DOCUMENT_TYPE.format(got=type(document).__name__))
        if not isinstance(file, (str, os.PathLike)):
            raise TypeError(ERR_FILE_TYPE.format(got=type(file).__name__))
        file = str(file)
        document = upgraded_document(document)
        records = document.get("results") or {}
        built = results_from_cli_document(
            {"metrics": list(records.values()), "sweeps": document.get("sweeps")},
            registered_results(),
            file=file,
        )
        results = {k: v for k, v in built.items() if not k.startswith("sweep:")}
        sweeps = {k[len("sweep:") :]: v for k, v in built.items() if k.startswith("sweep:")}
        by_size = [
            pd.DataFrame.from_records(r["by_size"]).assign(metric=k)
            for k, r in records.items()
            if r.get("by_size")
        ]
        return cls(
            results=results,
            document=copy.deepcopy(dict(document)),
            by_size=pd.concat(by_size, ignore_index=True) if by_size else None,
            sweeps=sweeps or None,
        )

    def same_audit(self, other: object) -> bool:
        """``==``: the same document apart from the ``command`` that wrote it."""
        if not isinstance(other, AuditResult):
            return NotImplemented
        return _without_command(self.document) == _without_command(other.document)

    # --- presentation
    def summary(self) -> str:
        """One line per metric: name, value, interval, n."""
        settings = self.settings
        how = "streamed counts" if settings.get("streamed") else "rows read in memory"
        lines = [
            f"AuditResult: {len(self.results)} metric(s), {how} (engine {settings.get('engine')})"
        ]
        width = max((len(k) for k in self.results), default=0)
        for key, record in (self.document.get("results") or {}).items():
            value = record.get("value")
            text = "nan" if value is None else f"{value:.4f}"
            interval = record.get("interval")
            if interval and interval.get("low") is not None and interval.get("high") is not None:
                text += f"  [{interval['low']:.4f}, {interval['high']:.4f}]"
            if record.get("chance"):  # the swap test ran (n_perm=)
                text += f"  ({record['chance']})"
            lines.append(f"  {key:<{width}}  {text}  n={record.get('n'):g}")
        for key, why in self.skipped.items():
            lines.append(f"  skipped {key}: {why}")
        if self.warnings:
            lines.append(f"  {len(self.warnings)} warning(s): see .warnings")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.summary()

    def __repr__(self) -> str:
        return self.summary()

    def plot(self, *, ax: Any = None) -> Any:
        """Each metric's value with its interval, one bar per metric (matplotlib ``Axes``)."""
        from biasamp.results._plotting import new_axes

        ax = new_axes(ax, figsize=(6.0, 0.5 + 0.45 * max(len(self.results), 1)))
        records = list((self.document.get("results") or {}).values())
        names = [r["key"] for r in records]
        values = np.array([np.nan if r["value"] is None else r["value"] for r in records], float)
        low = np.array(
            [(r.get("interval") or {}).get("low") or np.nan for r in records], dtype=float
        )
        high = np.array(
            [(r.get("interval") or {}).get("high") or np.nan for r in records], dtype=float
        )
        has = np.isfinite(low) & np.isfinite(high)
        errors = np.where(has, [values - low, high - values], 0.0)
        ax.barh(names, values, xerr=errors, color=np.where(values > 0, "#c0392b", "#2e86c1"))
        ax.axvline(0.0, color="black", linewidth=0.8)
        ax.invert_yaxis()
        ax.set_xlabel("value (positive: amplification)")
        return ax


# register_result gives every result type its field-by-field ``==``; an audit read back
# from the command line's JSON has no replicates, so two audits compare by their documents
AuditResult.__eq__ = AuditResult.same_audit  # type: ignore[method-assign,assignment]
