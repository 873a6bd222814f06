"""Compare models or checkpoints: one tidy table of every metric, interval and performance.

:func:`compare` takes already computed results (objects or saved files) and lays
them out; :func:`biasamp.compare_mitigations` computes the metrics from predictions.
Both return a DataFrame with ``save()`` and ``plot()``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from biasamp.inputs._keys import key_names
from biasamp.results._load import load_result
from biasamp.results._persist import SavableResult, register_result

__all__ = ["ModelComparison", "compare"]

ERR_NO_RESULTS = "results: expected a non-empty mapping of model name -> result(s)."
ERR_RESULT = (
    "results[{model!r}]: expected a result (value, ci, n), a saved result file, a mapping "
    "of metric -> result or a sequence of results; got {got}."
)
ERR_DUPLICATE = (
    "results[{model!r}]: two results are both {metric!r}; give the model a mapping "
    "{{metric key: result}} to tell them apart."
)
ERR_PERF_MODELS = "performance: expected one entry per model; missing {missing}, unknown {unknown}."
ERR_PERF_VALUE = "performance[{model!r}][{column!r}]: expected a number, got {got!r}."
ERR_PERF_COLUMN = "performance: {column!r} clashes with a column of the table."
ERR_PERF_TYPE = (
    "performance: expected a DataFrame indexed by model or a mapping model -> "
    "{{column: number}}, got {got}."
)

#: The table's own columns, in order.
COLUMNS = ("model", "metric", "value", "ci_low", "ci_high", "ci_level", "n")


class _Plot:
    """``table.plot(kind=...)`` draws the comparison figure; ``table.plot.bar(...)`` and
    the other pandas plot methods still work."""

    def __init__(self, table: ModelComparison) -> None:
        self._table = table

    def __call__(self, kind: str = "scatter", **kwargs: Any) -> Any:
        from biasamp.results._plotting_comparison import plot_model_comparison

        return plot_model_comparison(self._table, kind=kind, **kwargs)

    def __getattr__(self, name: str) -> Any:
        from pandas.plotting import PlotAccessor

        return getattr(PlotAccessor(pd.DataFrame(self._table)), name)


@register_result(
    "model_comparison",
    shapes=lambda t: {"models": int(t["model"].nunique()), "rows": int(t.shape[0])},
)
class ModelComparison(SavableResult, pd.DataFrame):
    """The table of :func:`compare`: a tidy DataFrame with ``save()`` and ``plot()``.

    One row per (model, metric): ``model``, ``metric``, ``value``, ``ci_low``,
    ``ci_high`` (NaN without an interval), ``ci_level``, ``n``, then the
    performance columns given to :func:`compare`, repeated on each row of a
    model. ``plot(kind="scatter")`` draws amplification against a performance
    column with interval bars; ``plot(kind="trajectory")`` each metric over the
    models' order (or a numeric column such as ``epoch``) with interval bands.
    """

    _metadata: list[str] = []

    @property
    def _constructor(self) -> type[pd.DataFrame]:
        return pd.DataFrame

    @property
    def plot(self) -> Any:
        return _Plot(self)

    @property
    def models(self) -> list[str]:
        """The models, in the order given."""
        return list(pd.unique(self["model"]))

    @property
    def metrics(self) -> list[str]:
        """The metrics, in order of first appearance."""
        return list(pd.unique(self["metric"]))

    @property
    def performance(self) -> list[str]:
        """The performance columns."""
        return [c for c in self.columns if c not in COLUMNS]

    def wide(self, column: str = "value") -> pd.DataFrame:
        """One row per model, one column per metric (``column`` of each), then the
        performance columns."""
        table = pd.DataFrame(self).pivot(index="model", columns="metric", values=column)
        table = table.reindex(index=self.models, columns=self.metrics)
        table.columns.name = None
        if self.performance:
            perf = pd.DataFrame(self).drop_duplicates("model").set_index("model")
            table = table.join(perf[self.performance])
        return table


def _is_result(value: Any) -> bool:
    return all(hasattr(value, a) for a in ("value", "ci", "n", "name"))


def _results_of(model: str, given: Any) -> list[tuple[str, Any]]:
    """(metric, result) pairs of one model."""
    if isinstance(given, (str, os.PathLike)):
        given = load_result(Path(given))
    if _is_result(given):
        items: list[tuple[str | None, Any]] = [(None, given)]
    elif isinstance(given, Mapping):
        keys = key_names(given, arg=f"results[{model!r}]")
        items = [
            (k, v) for k, v in zip(keys, given.values(), strict=True) if not k.startswith("sweep:")
        ]
    elif isinstance(given, Sequence) and not isinstance(given, (str, bytes)):
        items = [(None, v) for v in given]
    else:
        raise TypeError(ERR_RESULT.format(model=model, got=type(given).__name__))
    out: list[tuple[str, Any]] = []
    for key, result in items:
        if not _is_result(result):
            raise TypeError(ERR_RESULT.format(model=model, got=type(result).__name__))
        metric = result.name if key is None else key
        if any(metric == m for m, _ in out):
            raise ValueError(ERR_DUPLICATE.format(model=model, metric=metric))
        out.append((metric, result))
    return out


def _performance(performance: Any, models: list[str]) -> pd.DataFrame | None:
    if performance is None:
        return None
    if isinstance(performance, pd.DataFrame):
        frame = performance.copy()
    elif isinstance(performance, Mapping):
        keys = key_names(performance, arg="performance")
        frame = pd.DataFrame.from_dict(
            {k: dict(v) for k, v in zip(keys, performance.values(), strict=True)}, orient="index"
        )
    else:
        raise TypeError(ERR_PERF_TYPE.format(got=type(performance).__name__))
    frame.index = pd.Index(key_names(frame.index, arg="performance"))
    missing = [m for m in models if m not in frame.index]
    unknown = [m for m in frame.index if m not in models]
    if missing or unknown:
        raise ValueError(ERR_PERF_MODELS.format(missing=missing, unknown=unknown))
    for column in frame.columns:
        if column in COLUMNS:
            raise ValueError(ERR_PERF_COLUMN.format(column=column))
        values = pd.to_numeric(frame[column], errors="coerce")
        bad = values.isna() & frame[column].notna() | frame[column].isna()
        if bad.any():
            model = bad.index[bad.to_numpy()][0]
            raise ValueError(
                ERR_PERF_VALUE.format(model=model, column=column, got=frame.at[model, column])
            )
        frame[column] = values.astype(np.float64)
    return frame.reindex(models)


def compare(results: Mapping[str, Any], *, performance: Any = None) -> ModelComparison:
    """Every model's (or checkpoint's) metrics, intervals and performance in one tidy table.

    Parameters
    ----------
    results : mapping of name -> result(s)
        Per model (in the order of the mapping, which the trajectory plot keeps):
        one result, a sequence of results, a mapping ``{metric key: result}``,
        or the path of a file :func:`biasamp.load_result` reads (a saved result
        or a ``biasamp measure`` / ``report --json`` file; its threshold sweeps
        are left out). A result is any biasamp result (``value``, ``ci``, ``n``).
        The metric of a row is the result's ``name`` (``"BiasAmp A->T"``), or its
        key when a model's results come as a mapping.
    performance : DataFrame or mapping of name -> {column: number}, optional
        Performance per model (accuracy, F1, :func:`calibration_error`, epoch,
        ...): one entry per model, numbers only; each column is added to every
        row of its model.

    Returns
    -------
    ModelComparison
        A DataFrame with columns ``model``, ``metric``, ``value``, ``ci_low``,
        ``ci_high``, ``ci_level``, ``n`` and the performance columns; ``save()``,
        ``plot(kind="scatter" | "trajectory")`` and ``wide()``.

    Raises
    ------
    ValueError
        On an empty ``results``, two results of a model with the same metric, or
        performance that misses a model, names an unknown one or is not numeric.
    TypeError
        On a value that is not a result, a path or a collection of results.

    Examples
    --------
    >>> import biasamp
    >>> truth = dict(groups=["m", "w", "w", "m", "w", "m"], tasks=["a", "a", "b", "b", "a", "b"])
    >>> preds = [["a", "a", "b", "b", "a", "b"], ["b", "a", "a", "b", "a", "b"]]
    >>> runs = {f"epoch {e}": biasamp.directional(direction="A->T", **truth, tasks_pred=p)
    ...         for e, p in enumerate(preds, start=1)}
    >>> table = biasamp.compare(runs, performance={"epoch 1": {"epoch": 1, "accuracy": 1.0},
    ...                                            "epoch 2": {"epoch": 2, "accuracy": 0.67}})
    >>> table[["model", "metric", "value", "accuracy"]].round(4).to_dict(orient="records")
    [{'model': 'epoch 1', 'metric': 'BiasAmp A->T', 'value': 0.0, 'accuracy': 1.0}, {'model': 'epoch 2', 'metric': 'BiasAmp A->T', 'value': 0.3333, 'accuracy': 0.67}]
    """
    if not isinstance(results, Mapping) or not results:
        raise ValueError(ERR_NO_RESULTS)
    models = key_names(results, arg="results")
    rows: dict[str, list[Any]] = {c: [] for c in COLUMNS}
    for model, given in zip(models, results.values(), strict=True):
        for metric, result in _results_of(model, given):
            ci = result.ci
            rows["model"].append(model)
            rows["metric"].append(metric)
            rows["value"].append(float(result.value))
            rows["ci_low"].append(np.nan if ci is None else float(ci[0]))
            rows["ci_high"].append(np.nan if ci is None else float(ci[1]))
            level = getattr(result, "ci_level", None)
            rows["ci_level"].append(np.nan if ci is None or level is None else float(level))
            rows["n"].append(float(result.n))
    frame = pd.DataFrame(rows)
    perf = _performance(performance, models)
    if perf is not None:
        frame = frame.join(perf, on="model")
    return ModelComparison(frame)
