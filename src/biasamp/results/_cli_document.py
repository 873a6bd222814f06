"""Result objects from the command line's JSON document (``biasamp measure/report --json``).

The document (schema ``biasamp-result``, ``biasamp/schema/result-v1.json``) holds one
record per metric and, for scored predictions, the threshold sweeps. Each record
becomes the result type the library returns for that metric:

* a record with ``by_size`` (Multi_MALS, Multi->): :class:`MultiAttributeResult`;
  the pairs' ``task`` (task names joined by `` + ``) becomes the ``combination``
  tuple again;
* ``metric`` ``"dpa"`` / ``"leakage_amplification"``: :class:`PredictabilityResult`,
  with the per-iteration arrays when the record has them (``values``,
  ``data_quality``, ``model_quality``), else one-element arrays holding the means;
* every other record: :class:`PairwiseResult`.

Replicates are not in the document, so results come back without them (their
``ci``, ``ci_level`` and ``se`` are kept). Types that live above this layer (the
sweep) are looked up in the result registry, never imported.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from biasamp.registry import find_card
from biasamp.results._base import PairwiseResult, group_sizes_from_dict
from biasamp.results._multi_attribute import MultiAttributeResult
from biasamp.results._persist import InvalidDocument, build_result, check_version
from biasamp.results._predictability import PredictabilityResult
from biasamp.results._significance import NullDistribution

__all__ = ["CAPTIONS_SCHEMA", "results_from_captions_document", "results_from_cli_document"]

#: The ``schema`` of ``biasamp captions --json`` documents.
CAPTIONS_SCHEMA = "biasamp-captions"
CAPTIONS_SCHEMA_VERSION = 1
ERR_CAPTIONS_RESULTS = (
    "no typed results (written by a biasamp older than the captions reader); "
    "rerun 'biasamp captions --json'"
)

PREDICTABILITY = ("dpa", "leakage_amplification")
COMBINATION_SEPARATOR = " + "


def _frame(records: list[dict[str, Any]]) -> pd.DataFrame:
    frame = pd.DataFrame.from_records(records) if records else pd.DataFrame()
    for column in frame.columns:
        values = frame[column]
        if values.dtype == object and values.map(lambda v: v is None or isinstance(v, float)).all():
            frame[column] = values.astype(float)  # null stands for NaN in the document
    return frame


def _interval(record: Mapping[str, Any]) -> tuple[Any, Any, Any]:
    interval = record.get("interval")
    if not interval:
        return None, None, None
    low = np.nan if interval.get("low") is None else float(interval["low"])
    high = np.nan if interval.get("high") is None else float(interval["high"])
    se = interval.get("se")
    return (low, high), interval.get("level"), None if se is None else float(se)


def _family(record: Mapping[str, Any]) -> Any:
    """The family of a record's metric: its ``family`` (version 3), or the family its
    ``metric`` names (earlier versions stored the family there)."""
    if record.get("family") is not None:
        return record["family"]
    card = find_card(record.get("metric"), record.get("direction"))
    return card.family if card is not None else record.get("metric")


def _number(value: Any) -> float:
    return np.nan if value is None else float(value)


def _common(record: Mapping[str, Any]) -> dict[str, Any]:
    ci, level, se = _interval(record)
    return {
        "metric": record["metric"],
        "value": _number(record.get("value")),
        "direction": record.get("direction"),
        "n": float(record.get("n") or 0.0),
        "n_train": None if record.get("n_train") is None else float(record["n_train"]),
        "n_pairs": int(record.get("n_pairs") or 0),
        "n_empty": int(record.get("n_empty") or 0),
        "params": dict(record.get("params") or {}),
        "extras": dict(record.get("extras") or {}),
        "ci": ci,
        "ci_level": level,
        "se": se,
        **_sizes(record),
        "min_cell": None if record.get("min_cell") is None else float(record["min_cell"]),
        **_significance(record),
    }


def _significance(record: Mapping[str, Any]) -> dict[str, Any]:
    """``p_value`` and ``null`` of a metric record (absent when no swap test ran)."""
    null = record.get("null")
    p = record.get("p_value")
    return {
        "p_value": None if p is None else float(p),
        "null": NullDistribution.from_dict(null) if isinstance(null, Mapping) else None,
    }


def _sizes(record: Mapping[str, Any]) -> dict[str, Any]:
    """The group-size fields of a metric record (absent in documents written before them)."""
    limit = record.get("min_group_size")
    return {
        "group_sizes": group_sizes_from_dict(record.get("group_sizes")),
        "small_groups": tuple(record.get("small_groups") or ()),
        "min_group_size": None if limit is None else float(limit),
        "missing_groups": {
            str(split): tuple(groups)
            for split, groups in (record.get("missing_groups") or {}).items()
        },
    }


def _pairwise(record: Mapping[str, Any]) -> PairwiseResult:
    return PairwiseResult(by_pair=_frame(list(record.get("pairs") or [])), **_common(record))


def _multi(record: Mapping[str, Any]) -> MultiAttributeResult:
    pairs = _frame(list(record.get("pairs") or []))
    if "task" in pairs.columns:
        combos = [tuple(str(t).split(COMBINATION_SEPARATOR)) for t in pairs["task"]]
        pairs = pairs.drop(columns=["task"])
        pairs.insert(0, "combination", pd.Series(combos, dtype=object))
    by_size = _frame(list(record.get("by_size") or []))
    n_combinations = record.get("n_combinations")
    if n_combinations is None:
        n_combinations = int(by_size["n_combinations"].sum()) if "n_combinations" in by_size else 0
    return MultiAttributeResult(
        by_combination=pairs,
        by_size=by_size,
        variance=_number(record.get("variance")),
        absolute=bool(record.get("absolute", True)),
        n_combinations=int(n_combinations),
        **_common(record),
    )


def _predictability(record: Mapping[str, Any]) -> PredictabilityResult:
    extras = dict(record.get("extras") or {})
    d_key, m_key = ("psi_d", "psi_m") if _family(record) == "dpa" else ("lambda_d", "lambda_m")

    def series(name: str, mean: Any) -> np.ndarray:
        values = record.get(name)
        if values is None:
            return np.array([_number(mean)])
        return np.array([_number(v) for v in values], dtype=np.float64)

    ci, level, _ = _interval(record)
    params = dict(record.get("params") or {})
    return PredictabilityResult(
        metric=record["metric"],
        value=_number(record.get("value")),
        values=series("values", record.get("value")),
        data_quality=series("data_quality", extras.get(d_key)),
        model_quality=series("model_quality", extras.get(m_key)),
        direction=record.get("direction"),
        ci=ci,
        ci_level=float(level) if level is not None else float(params.get("ci_level", 0.95)),
        std=_number(extras.get("std", np.nan)),
        attacker=str(extras.get("attacker", "")),
        attacker_reason=str(record.get("attacker_reason") or extras.get("attacker_reason", "")),
        quality=str(extras.get("quality", "")),
        perturbation=str(extras.get("perturbation", "")),
        model_accuracy=extras.get("model_accuracy"),
        n=int(record.get("n") or 0),
        n_iter=int(extras.get("n_iter") or params.get("n_iter") or 1),
        test_size=float(params.get("test_size", np.nan)),
        params=params,
        **_sizes(record),
        **_significance(record),
    )


ERR_CLI_RECORD = "the record does not make a {kind} ({error}: {detail})"


def _checked(build: Any, record: Any, path: str, file: str) -> Any:
    """``build(record)``, printed and converted once; any failure names the file and path."""
    try:
        result = build(record)
        repr(result)
        result.to_dict()
    except MemoryError:
        raise
    except Exception as exc:  # the file passed the schema; its values still must fit together
        kind = getattr(build, "__name__", "result").strip("_")
        raise InvalidDocument(
            file, path, ERR_CLI_RECORD.format(kind=kind, error=type(exc).__name__, detail=exc)
        ) from None
    return result


def results_from_cli_document(
    document: Mapping[str, Any], registry: Mapping[str, type], *, file: str
) -> dict[str, Any]:
    """``{metric key: result}`` (and ``"sweep:<key>"``: ThresholdSweep) from a CLI document
    already checked against its schema."""
    out: dict[str, Any] = {}
    for i, record in enumerate(document.get("metrics") or []):
        if _family(record) in PREDICTABILITY:
            build: Any = _predictability
        elif "by_size" in record:
            build = _multi
        else:
            build = _pairwise
        out[record["key"]] = _checked(build, record, f"$.metrics[{i}]", file)
    sweep_type = registry.get("threshold_sweep")
    for key, sweep in (document.get("sweeps") or {}).items():
        if sweep_type is None:  # pragma: no cover - registered whenever biasamp is imported
            continue

        def _sweep(sweep: Mapping[str, Any]) -> Any:
            assert sweep_type is not None
            table = _frame(list(sweep.get("table") or []))
            table["metric"] = sweep.get("metric")
            table["direction"] = sweep.get("direction")
            return sweep_type(
                table=table,
                mean=_number(sweep.get("mean")),
                metric=str(sweep.get("metric")),
                direction=sweep.get("direction"),
                params={"source": file},
            )

        out[f"sweep:{key}"] = _checked(_sweep, sweep, f"$.sweeps.{key}", file)
    return out


def results_from_captions_document(document: Mapping[str, Any], *, file: str) -> dict[str, Any]:
    """``{model: CaptionBiasResult}`` from a ``biasamp captions --json`` document.

    The document holds a human-readable ``table`` and ``models``, and under
    ``results`` each model's result with every field typed (as ``result.save``
    stores it), so that the results come back equal to the ones the command made.
    """
    if "schema_version" not in document:
        raise InvalidDocument(file, "$", ERR_CAPTIONS_RESULTS)
    check_version(document, CAPTIONS_SCHEMA_VERSION, file)
    stored = document.get("results")
    if not isinstance(stored, Mapping):
        raise InvalidDocument(file, "$.results", ERR_CAPTIONS_RESULTS)
    out: dict[str, Any] = {}
    for model, entry in stored.items():
        path = f"$.results[{model!r}]"
        fields = entry.get("result") if isinstance(entry, Mapping) else None
        if not isinstance(fields, Mapping) or entry.get("type") != "caption_bias":
            raise InvalidDocument(file, path, "expected a stored caption_bias result")
        out[str(model)] = build_result("caption_bias", fields, file, f"{path}.result")
    return out
