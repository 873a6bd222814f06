"""Compare models or checkpoints: one tidy table of every metric, interval and performance.

:func:`compare` takes already computed results (objects or saved files) and lays
them out, one row per model and metric, the metric named by its canonical name in
:mod:`biasamp.registry`; :func:`biasamp.compare_mitigations` computes the metrics
from predictions. :func:`plot_comparison` draws any table :func:`compare` returns
(or a filtered part of it).

Every registered result type gives rows:

==========================  ==========================================================
result                      rows
==========================  ==========================================================
one metric (pairwise,       one row: ``value``, ``ci``, ``n``
multi-attribute, DPA,
leakage, LIC, differential
fairness)
``CaptionBiasResult``       one row per metric (``directional-t2a``, ``directional-a2t``,
                            ``mals``); ``group_accuracy`` as a performance column
an audit (``.results``)     one row per metric of its ``results``
``RBAResult``               ``mals`` for the sub-models ``"<model> / before"`` and
                            ``"<model> / after"``, with their performance columns
``MitigationComparison``    per method (sub-model ``"<model> / <method>"``), one row per
                            metric column; the ``±`` half-width gives the interval and
                            the other columns (``task performance``, ``group accuracy``,
                            ``Viol.``) become performance columns
``ModelComparison``         its rows, the models as sub-models ``"<model> / <row's model>"``
``RunsSummary``             one row: ``mean`` and the Student t interval (``ci_t``)
``ThresholdSweep``          one row: ``mean`` over the thresholds
``ThresholdCalibration``,   refused: they hold no metric value (compare the metrics of
``Oversampling``            the predictions or the model they lead to)
==========================  ==========================================================
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from biasamp.inputs._keys import key_names
from biasamp.output._targets import input_files_of, remember_input_files
from biasamp.registry import METRICS, find_card, metric_card, normalize_direction
from biasamp.results._load import load_result
from biasamp.results._persist import SavableResult, register_result, registered_results
from biasamp.results._plotting_comparison import TABLE_COLUMNS, plot_model_comparison

__all__ = ["ModelComparison", "compare", "plot_comparison"]

ERR_NO_RESULTS = "results: expected a non-empty mapping of model name -> result(s)."
ERR_RESULT = (
    "results[{model!r}]: expected a result (value, ci, n), a saved result file, a mapping "
    "of metric -> result or a sequence of results; got {got}."
)
ERR_DUPLICATE = (
    "results[{model!r}]: two results are both {metric!r}; give them as two models "
    "(for example {model!r} and {model!r} + ' (run 2)')."
)
ERR_KEY = (
    "results[{model!r}]: the key {key!r} names no metric; a key of a model's mapping names "
    "the metric of its result (choose from {choices}) or, for a result that holds several "
    "metrics, a sub-model."
)
ERR_KEY_MISMATCH = (
    "results[{model!r}][{key!r}]: the key names the metric {named!r}, but the result is {actual!r}."
)
ERR_UNNAMED = (
    "results[{model!r}]: the {kind} does not say which metric it holds; give it under the "
    "metric's name, {{'mals': result}} (choose from {choices})."
)
ERR_NO_METRIC = (
    "results[{model!r}]: a {kind} holds no metric value to compare ({why}); compare the "
    "results of the metrics measured on its output instead."
)
ERR_PERF_MODELS = "performance: expected one entry per model; missing {missing}, unknown {unknown}."
ERR_PERF_VALUE = "performance[{model!r}][{column!r}]: expected a number, got {got!r}."
ERR_PERF_COLUMN = "performance: {column!r} clashes with a column of the table."
ERR_PERF_TYPE = (
    "performance: expected a DataFrame indexed by model or a mapping model -> "
    "{{column: number}}, got {got}."
)
WARN_PLOT = (
    "ModelComparison.plot(kind={kind!r}) is deprecated: table.plot is pandas' DataFrame.plot "
    "again; draw the comparison with biasamp.plot_comparison(table, kind={kind!r}). "
    "The old call will be removed in a future release."
)

#: The table's own columns, in order (every other column is performance).
ERR_PLOT_TABLE = "table: expected the DataFrame of biasamp.compare (or rows of it), got {got}."
ERR_PLOT_COLUMNS = (
    "table: needs the columns model, metric and value of biasamp.compare; missing {missing}."
)

COLUMNS = TABLE_COLUMNS
#: Separates a model from the models a result holds (``"rba / before"``).
SUB_MODEL = " / "
_NO_METRIC = {
    "threshold_calibration": "it holds thresholds",
    "oversampling": "it holds the indices of resampled rows",
}


class _Plot:
    """``table.plot``: pandas' ``DataFrame.plot``, except the deprecated
    ``plot(kind="scatter" | "trajectory")`` without ``x`` and ``y``, which draws
    :func:`plot_comparison` with a :class:`FutureWarning`."""

    def __init__(self, table: ModelComparison) -> None:
        self._table = table

    def _pandas(self) -> Any:
        from pandas.plotting import PlotAccessor

        return PlotAccessor(pd.DataFrame(self._table))

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        kind = kwargs.get("kind")
        unaxed = not args and "y" not in kwargs
        if unaxed and (kind == "trajectory" or (kind == "scatter" and "x" not in kwargs)):
            warnings.warn(WARN_PLOT.format(kind=kind), FutureWarning, stacklevel=2)
            return plot_comparison(self._table, **kwargs)
        return self._pandas()(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._pandas(), name)


@register_result(
    "model_comparison",
    shapes=lambda t: {"models": int(t["model"].nunique()), "rows": int(t.shape[0])},
)
class ModelComparison(SavableResult, pd.DataFrame):
    """The table of :func:`compare`: a tidy DataFrame with ``save()``, ``wide()``,
    ``models``, ``metrics`` and ``performance``.

    One row per (model, metric): ``model``, ``metric`` (the canonical name in
    :mod:`biasamp.registry`, ``"directional-a2t"``), ``title`` (its display
    title, ``"BiasAmp A->T"``), ``value``, ``ci_low``, ``ci_high`` (NaN without an
    interval), ``ci_level``, ``n``, then the performance columns, repeated on each
    row of a model. Draw it with :func:`biasamp.plot_comparison` (any part of it,
    after filtering, too); ``table.plot`` is pandas' ``DataFrame.plot``.
    """

    _metadata: list[str] = []

    @property
    def _constructor(self) -> type[pd.DataFrame]:
        return pd.DataFrame

    @property
    def plot(self) -> Any:
        """pandas' ``DataFrame.plot`` (``table.plot(x=..., y=..., kind="bar")``).

        ``table.plot(kind="scatter")`` without ``x`` / ``y`` and
        ``table.plot(kind="trajectory")`` are deprecated aliases of
        :func:`biasamp.plot_comparison` (they warn).
        """
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


def plot_comparison(
    table: pd.DataFrame,
    kind: str | None = None,
    *,
    x: str | None = None,
    metrics: Any = None,
    ax: Any = None,
) -> Any:
    """Draw a comparison table of :func:`compare` (or any part of it) with matplotlib.

    Parameters
    ----------
    table : DataFrame
        The table of :func:`compare`, or rows of it (``table[table["metric"] ==
        "mals"]``): columns ``model``, ``metric``, ``value``, ``ci_low``,
        ``ci_high`` and the performance columns.
    kind : {"scatter", "trajectory", "bars"}, optional
        ``"scatter"``: each metric's value (with its interval as a bar) against the
        performance column ``x``, one colour per metric. ``"trajectory"``: each
        metric along ``x``, a numeric column such as ``epoch`` or ``step``
        (required: a table's models have no order of their own, and a trajectory
        without ``x`` is refused), its interval as a band. ``"bars"``: the models
        side by side, one bar per metric with its interval as a whisker. Default:
        ``"scatter"`` when the table has a performance column, else ``"bars"``.
    x : str, optional
        The performance column on the horizontal axis (scatter: default the first;
        trajectory: required).
    metrics : str or list of str, optional
        The metrics drawn (default all), by their names in the table.
    ax : matplotlib Axes, optional
        Where to draw (a new figure by default).

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import biasamp
    >>> truth = dict(groups=["m", "w", "w", "m"], tasks=["a", "a", "b", "b"])
    >>> runs = {f"epoch {e}": biasamp.directional(direction="A->T", **truth, tasks_pred=p)
    ...         for e, p in enumerate([["a", "a", "b", "b"], ["b", "a", "a", "b"]], start=1)}
    >>> table = biasamp.compare(runs, performance={"epoch 1": {"epoch": 1}, "epoch 2": {"epoch": 2}})
    >>> ax = biasamp.plot_comparison(table, kind="trajectory", x="epoch")
    >>> [line.get_label() for line in ax.get_lines()][:1]
    ['directional-a2t']
    >>> bars = biasamp.plot_comparison(biasamp.compare(runs))  # no performance: side by side
    >>> [t.get_text() for t in bars.get_xticklabels()]
    ['epoch 1', 'epoch 2']
    """
    if not isinstance(table, pd.DataFrame):
        raise TypeError(ERR_PLOT_TABLE.format(got=type(table).__name__))
    missing = [c for c in ("model", "metric", "value") if c not in table.columns]
    if missing:
        raise ValueError(ERR_PLOT_COLUMNS.format(missing=missing))
    return plot_model_comparison(table, kind=kind, x=x, metrics=metrics, ax=ax)


# ------------------------------------------------------------------ rows
@dataclass
class _Row:
    model: str
    metric: str
    title: str
    value: float
    ci: Any = None
    ci_level: Any = None
    n: float = np.nan
    performance: dict[str, float] = field(default_factory=dict)


def _is_result(value: Any) -> bool:
    return all(hasattr(value, a) for a in ("value", "ci", "n"))


def _kind(value: Any) -> str | None:
    for kind, cls in registered_results().items():
        if type(value) is cls:
            return kind
    return None


def _choices() -> str:
    return ", ".join(METRICS)


def _key_names(key: str, card: Any) -> bool:
    """Whether a mapping key names ``card``'s metric: any spelling of it, or a spelling of
    its direction alone (``{"A->T": ..., "T->A": ...}`` of :func:`multi_attribute`)."""
    if find_card(key) is card:
        return True
    try:
        return card.direction is not None and normalize_direction(key) == card.direction
    except ValueError:
        return False


def _metric(model: str, key: str | None, result: Any, kind: str) -> tuple[str, str]:
    """The canonical name and title of ``result``'s metric, checked against its key."""
    card = find_card(getattr(result, "metric", None), getattr(result, "direction", None))
    if key is not None:
        if card is not None:
            if not _key_names(key, card):
                named = find_card(key)
                if named is None:
                    raise ValueError(ERR_KEY.format(model=model, key=key, choices=_choices()))
                raise ValueError(
                    ERR_KEY_MISMATCH.format(
                        model=model, key=key, named=named.name, actual=card.name
                    )
                )
        else:
            try:
                card = metric_card(key, argument=f"results[{model!r}] key")
            except ValueError:
                raise ValueError(ERR_KEY.format(model=model, key=key, choices=_choices())) from None
    if card is None:
        raise ValueError(ERR_UNNAMED.format(model=model, kind=kind, choices=_choices()))
    title = getattr(result, "name", None)  # the result's display name ("LIC (normalised)")
    return card.name, title if isinstance(title, str) else card.title


def _ci(result: Any, name: str = "ci") -> tuple[Any, Any]:
    ci = getattr(result, name, None)
    level = getattr(result, "ci_level", None)
    return ci, (None if ci is None else level)


def _one(model: str, key: str | None, result: Any) -> list[_Row]:
    kind = _kind(result) or type(result).__name__
    metric, title = _metric(model, key, result, kind)
    ci, level = _ci(result)
    return [_Row(model, metric, title, float(result.value), ci, level, float(result.n))]


def _runs(model: str, key: str | None, result: Any) -> list[_Row]:
    metric, title = _metric(model, key, result, "runs summary")
    ci, level = _ci(result, "ci_t")
    return [_Row(model, metric, title, float(result.mean), ci, level)]


def _sweep(model: str, key: str | None, result: Any) -> list[_Row]:
    metric, title = _metric(model, key, result, "threshold sweep")
    return [_Row(model, metric, title, float(result.mean))]


def _captions(model: str, key: str | None, result: Any) -> list[_Row]:
    rows = _rows_of(model, result.results)
    for row in rows:
        row.performance["group_accuracy"] = float(result.group_accuracy)
    return rows


def _rba(model: str, key: str | None, result: Any) -> list[_Row]:
    rows = []
    for stage in ("before", "after"):
        part = _one(f"{model}{SUB_MODEL}{stage}", None, getattr(result, f"mals_{stage}"))
        perf = getattr(result, f"performance_{stage}") or {}
        part[0].performance.update({str(k): float(v) for k, v in perf.items()})
        rows += part
    return rows


def _mitigations(model: str, key: str | None, table: Any) -> list[_Row]:
    metric_columns = [c for c in table.metrics if find_card(str(c)) is not None]
    other = [c for c in table.metrics if c not in metric_columns]
    rows = []
    for method, values in table.iterrows():
        performance = {str(c): float(values[c]) for c in other}
        for column in metric_columns:
            card = metric_card(str(column))
            value = float(values[column])
            half = values.get(f"{column} ±", np.nan)
            half = np.nan if half is None else float(half)
            ci = None if not np.isfinite(half) else (value - half, value + half)
            level = None if ci is None else table.ci_level
            rows.append(
                _Row(
                    f"{model}{SUB_MODEL}{method}",
                    card.name,
                    card.title,
                    value,
                    ci,
                    level,
                    performance=dict(performance),
                )
            )
    return rows


def _comparison(model: str, key: str | None, table: Any) -> list[_Row]:
    frame = pd.DataFrame(table)
    performance = [c for c in frame.columns if c not in COLUMNS]
    rows = []
    for record in frame.to_dict(orient="records"):
        low, high = record["ci_low"], record["ci_high"]
        ci = None if pd.isna(low) and pd.isna(high) else (float(low), float(high))
        level = record.get("ci_level")
        rows.append(
            _Row(
                f"{model}{SUB_MODEL}{record['model']}",
                str(record["metric"]),
                str(record.get("title", record["metric"])),
                float(record["value"]),
                ci,
                None if ci is None or pd.isna(level) else float(level),
                float(record["n"]),
                {str(c): float(record[c]) for c in performance},
            )
        )
    return rows


def _results_mapping(model: str, key: str | None, result: Any) -> list[_Row]:
    """A result whose ``results`` maps each metric's name to its result (an audit)."""
    return _rows_of(model, result.results)


def _refused(model: str, key: str | None, result: Any) -> list[_Row]:
    kind = _kind(result) or ""
    raise TypeError(
        ERR_NO_METRIC.format(model=model, kind=type(result).__name__, why=_NO_METRIC[kind])
    )


#: How each registered result type becomes rows (a test checks every type has one). A
#: result type holding ``results`` (metric name -> result) registers ``_results_mapping``.
ROWS: dict[str, Callable[[str, str | None, Any], list[_Row]]] = {
    "pairwise": _one,
    "multi_attribute": _one,
    "predictability": _one,
    "lic": _one,
    "differential_fairness": _one,
    "dbac": _one,
    "retrieval_bias": _one,
    "output_amplification": _one,
    "bias_transfer": _one,
    "share_trajectory": _one,
    "audit": _results_mapping,
    "caption_bias": _captions,
    "runs_summary": _runs,
    "threshold_sweep": _sweep,
    "rba": _rba,
    "mitigation_comparison": _mitigations,
    "model_comparison": _comparison,
    "threshold_calibration": _refused,
    "oversampling": _refused,
}

#: Container results that name their models (a key that names no metric is a sub-model).
_CONTAINERS = ("caption_bias", "rba", "mitigation_comparison", "model_comparison")


def _holds_results(value: Any) -> bool:
    """An audit or any object with a ``results`` mapping of metric -> result."""
    return isinstance(getattr(value, "results", None), Mapping)


def _rows_of_one(model: str, key: str | None, given: Any) -> list[_Row]:
    kind = _kind(given)
    if kind in ROWS:
        return ROWS[kind](model, key, given)
    if _holds_results(given):
        return _rows_of(model, given.results)
    if _is_result(given) and (hasattr(given, "metric") or key is not None):
        return _one(model, key, given)
    raise TypeError(ERR_RESULT.format(model=model, got=type(given).__name__))


def _is_container(value: Any) -> bool:
    return _kind(value) in _CONTAINERS or _holds_results(value) or isinstance(value, Mapping)


def _rows_of(model: str, given: Any) -> list[_Row]:
    """The rows of one model's results (a result, a file, a mapping, a sequence)."""
    if isinstance(given, (str, os.PathLike)):
        given = load_result(Path(given))
    if isinstance(given, Mapping):
        rows = []
        keys = key_names(given, arg=f"results[{model!r}]")
        for key, value in zip(keys, given.values(), strict=True):
            if key.startswith("sweep:"):  # the threshold sweeps of a command-line file
                continue
            if find_card(key) is None and _is_container(value):
                rows += _rows_of(f"{model}{SUB_MODEL}{key}", value)
            else:
                rows += _rows_of_one(model, key, value)
        return rows
    if isinstance(given, Sequence) and not isinstance(given, (str, bytes, pd.DataFrame)):
        return [row for value in given for row in _rows_of_one(model, None, value)]
    return _rows_of_one(model, None, given)


def _check_unique(rows: list[_Row]) -> None:
    seen: set[tuple[str, str]] = set()
    for row in rows:
        if (row.model, row.metric) in seen:
            raise ValueError(ERR_DUPLICATE.format(model=row.model, metric=row.metric))
        seen.add((row.model, row.metric))


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
        one result of any registered type (see the module docs: a result that
        holds several metrics gives one row per metric), a sequence of results, a
        mapping ``{metric: result}``, or the path of a file
        :func:`biasamp.load_result` reads (a saved result or a command line's
        ``--json`` file; its threshold sweeps are left out). The metric of a row
        is the canonical name of :mod:`biasamp.registry` (``"directional-a2t"``).
        A key of a model's mapping names its result's metric by any spelling the
        registry accepts (``"A->T"``, ``"BiasAmp A->T"``); a key that names no
        metric is allowed only for a result that holds several metrics, and
        names a sub-model (``"<model> / <key>"``).
    performance : DataFrame or mapping of name -> {column: number}, optional
        Performance per model (accuracy, F1, :func:`calibration_error`, epoch,
        ...): one entry per model of the table, numbers only; each column is
        added to every row of its model.

    Returns
    -------
    ModelComparison
        A DataFrame with columns ``model``, ``metric``, ``title``, ``value``,
        ``ci_low``, ``ci_high``, ``ci_level``, ``n`` and the performance columns;
        ``save()`` and ``wide()``. Draw it with :func:`plot_comparison`.

    Raises
    ------
    ValueError
        On an empty ``results``, two results of a model with the same metric, a
        key that names no metric (the message lists the registry's names), a key
        that names another metric than its result's, or performance that misses
        a model, names an unknown one or is not numeric.
    TypeError
        On a value that is not a result, a path or a collection of results, and on
        the result types that hold no metric value (``ThresholdCalibration``,
        ``Oversampling``).

    Examples
    --------
    >>> import biasamp
    >>> truth = dict(groups=["m", "w", "w", "m", "w", "m"], tasks=["a", "a", "b", "b", "a", "b"])
    >>> preds = [["a", "a", "b", "b", "a", "b"], ["b", "a", "a", "b", "a", "b"]]
    >>> runs = {f"epoch {e}": biasamp.directional(direction="A->T", **truth, tasks_pred=p)
    ...         for e, p in enumerate(preds, start=1)}
    >>> table = biasamp.compare(runs, performance={"epoch 1": {"epoch": 1, "accuracy": 1.0},
    ...                                            "epoch 2": {"epoch": 2, "accuracy": 0.67}})
    >>> table[["model", "metric", "title", "value", "accuracy"]].round(4).to_dict(orient="records")
    [{'model': 'epoch 1', 'metric': 'directional-a2t', 'title': 'BiasAmp A->T', 'value': 0.0, 'accuracy': 1.0}, {'model': 'epoch 2', 'metric': 'directional-a2t', 'title': 'BiasAmp A->T', 'value': 0.3333, 'accuracy': 0.67}]
    """
    if not isinstance(results, Mapping) or not results:
        raise ValueError(ERR_NO_RESULTS)
    rows: list[_Row] = []
    for model, given in zip(key_names(results, arg="results"), results.values(), strict=True):
        rows += _rows_of(model, given)
    _check_unique(rows)
    models = list(dict.fromkeys(row.model for row in rows))
    frame = pd.DataFrame(
        {
            "model": [r.model for r in rows],
            "metric": [r.metric for r in rows],
            "title": [r.title for r in rows],
            "value": np.array([r.value for r in rows], dtype=np.float64),
            "ci_low": [np.nan if r.ci is None else float(r.ci[0]) for r in rows],
            "ci_high": [np.nan if r.ci is None else float(r.ci[1]) for r in rows],
            "ci_level": [
                np.nan if r.ci is None or r.ci_level is None else float(r.ci_level) for r in rows
            ],
            "n": np.array([r.n for r in rows], dtype=np.float64),
        },
        columns=list(COLUMNS),
    )
    derived = _derived_performance(rows)
    given_perf = _performance(performance, models)
    for perf in (derived, given_perf):
        if perf is None:
            continue
        clash = [c for c in perf.columns if c in frame.columns]
        if clash:
            raise ValueError(ERR_PERF_COLUMN.format(column=clash[0]))
        frame = frame.join(perf, on="model")
    table = ModelComparison(frame)
    remember_input_files(table, _input_files(results))
    return table


def _input_files(results: Mapping[str, Any]) -> list[tuple[str, Any]]:
    """The files a comparison was made from: the saved files it read and the files of its
    results (an audit's), which ``table.save`` may not replace."""
    files: list[tuple[str, Any]] = []
    for model, given in results.items():
        items = given if isinstance(given, (list, tuple)) else [given]
        for item in items:
            if isinstance(item, (str, os.PathLike)):
                files.append((f"results[{str(model)!r}]", item))
            elif not isinstance(item, pd.DataFrame):
                files.extend(input_files_of(item))
    return files


def _derived_performance(rows: list[_Row]) -> pd.DataFrame | None:
    """The performance columns the results carry (RBA, mitigation tables, captions)."""
    per_model: dict[str, dict[str, float]] = {}
    for row in rows:
        per_model.setdefault(row.model, {}).update(row.performance)
    if not any(per_model.values()):
        return None
    frame = pd.DataFrame.from_dict(per_model, orient="index").astype(np.float64)
    frame.index.name = "model"
    return frame
