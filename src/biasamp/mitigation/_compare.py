"""One table comparing mitigation methods: performance and every amplification metric.

As in tables 5 and 7 of Zhao et al. (2023): one row per method (baseline, RBA,
oversampling, calibrated thresholds, ...), one column per metric, the mean over runs
(seeds) and, when a method has several runs, the half-width of a t confidence interval.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from biasamp.inputs._label_matrix import as_label_matrix
from biasamp.metrics._directional import directional
from biasamp.metrics._mals import mals
from biasamp.metrics._multi_attribute import multi_directional, multi_mals
from biasamp.registry import find_card
from biasamp.results._intervals import check_ci
from biasamp.results._persist import SavableResult, register_result

__all__ = ["compare_mitigations", "MetricContext", "MitigationComparison", "default_metrics"]

ERR_NO_METHODS = "methods: expected a non-empty mapping of method name -> predictions."
ERR_RUN_KEYS = (
    "methods[{method!r}]: each run must be a mapping with 'groups_pred' and 'tasks_pred'; "
    "got keys {keys}."
)
ERR_NO_RUNS = "methods[{method!r}]: expected at least one run, got an empty list."
ERR_UNKNOWN_METRIC = (
    "metrics: unknown metric {name!r}; known: {known} (the metrics also by their "
    "names in biasamp.registry: {names})."
)


@dataclass(frozen=True)
class MetricContext:
    """Ground truth shared by every metric of a comparison."""

    groups_train: Any
    tasks_train: Any
    groups: Any
    tasks: Any
    margin: float
    multilabel: bool


MetricFunction = Callable[[MetricContext, Any, Any], float]


class _ComparisonPlot:
    """``table.plot(...)`` draws the comparison figure; ``table.plot.bar(...)`` and the
    other pandas plot methods still work."""

    def __init__(self, table: MitigationComparison) -> None:
        self._table = table

    def __call__(self, metrics: Any = None, *, ax: Any = None) -> Any:
        from biasamp.results._plotting_mitigation import plot_comparison

        return plot_comparison(self._table, metrics=metrics, ax=ax)

    def __getattr__(self, name: str) -> Any:
        from pandas.plotting import PlotAccessor

        return getattr(PlotAccessor(pd.DataFrame(self._table)), name)


@register_result(
    "mitigation_comparison",
    shapes=lambda t: {"methods": int(t.shape[0]), "columns": int(t.shape[1])},
)
class MitigationComparison(SavableResult, pd.DataFrame):
    """The table of :func:`compare_mitigations`: a DataFrame with ``save()`` and ``plot()``.

    One row per method: ``n_runs``, one column per metric (the mean over runs) and,
    when some method has several runs, ``"<metric> ±"`` (the half-width of the t
    interval at level ``ci_level``). Everything a DataFrame does works; frames
    derived from it (slices, ``round()``, ...) are plain DataFrames.
    ``plot()`` draws one panel per metric, a bar per method with its interval;
    ``plot.bar()`` and the other pandas plot methods are pandas'.

    Examples
    --------
    >>> import os, tempfile
    >>> import biasamp
    >>> table = biasamp.compare_mitigations(
    ...     {"model": {"groups_pred": ["m", "w", "w", "w"], "tasks_pred": ["a", "a", "a", "b"]}},
    ...     groups_train=["m", "w", "w", "m"], tasks_train=["a", "a", "a", "b"],
    ...     groups=["m", "w", "w", "m"], tasks=["a", "a", "a", "b"],
    ...     metrics=["group accuracy", "BiasAmp_MALS"])
    >>> table.metrics
    ['group accuracy', 'BiasAmp_MALS']
    >>> path = table.save(os.path.join(tempfile.mkdtemp(), "comparison.json"))
    >>> biasamp.load_result(path).equals(table)
    True
    """

    _metadata = ["ci_level"]
    ci_level: float | None

    @property
    def _constructor(self) -> type[pd.DataFrame]:
        return pd.DataFrame

    @property
    def plot(self) -> Any:
        return _ComparisonPlot(self)

    @property
    def metrics(self) -> list[str]:
        """The metric columns (every column but ``n_runs`` and the ``±`` half-widths)."""
        return [c for c in self.columns if c != "n_runs" and not str(c).endswith(" ±")]


def _train_names(x: Any, arg: str) -> tuple[Any, ...]:
    """The training split's names: canonical (the library's label-set rule)."""
    return as_label_matrix(x, arg=arg).names


def _task_performance(ctx: MetricContext, groups_pred: Any, tasks_pred: Any) -> float:
    names = _train_names(ctx.tasks_train, "tasks_train")
    truth = as_label_matrix(
        ctx.tasks, arg="tasks", names=names, source="the training split"
    ).dense()
    pred = as_label_matrix(
        tasks_pred, arg="tasks_pred", names=names, source="the training split"
    ).dense()
    if ctx.multilabel:
        tp = (truth * pred).sum(axis=0)
        denom = 2 * tp + ((1 - truth) * pred).sum(axis=0) + (truth * (1 - pred)).sum(axis=0)
        used = denom > 0
        return float((2 * tp[used] / denom[used]).mean()) if used.any() else 0.0
    return float((truth * pred).sum(axis=1).mean())


def _group_accuracy(ctx: MetricContext, groups_pred: Any, tasks_pred: Any) -> float:
    names = _train_names(ctx.groups_train, "groups_train")
    truth = as_label_matrix(ctx.groups, arg="groups", names=names, source="the training split")
    pred = as_label_matrix(
        groups_pred, arg="groups_pred", names=names, source="the training split"
    ).dense()
    return float((truth.dense() * pred).sum(axis=1).mean())


def _mals(ctx: MetricContext, groups_pred: Any, tasks_pred: Any) -> float:
    return mals(
        groups_train=ctx.groups_train,
        tasks_train=ctx.tasks_train,
        groups_pred=groups_pred,
        tasks_pred=tasks_pred,
        margin=ctx.margin,
    ).value


def _violations(ctx: MetricContext, groups_pred: Any, tasks_pred: Any) -> float:
    return float(
        mals(
            groups_train=ctx.groups_train,
            tasks_train=ctx.tasks_train,
            groups_pred=groups_pred,
            tasks_pred=tasks_pred,
            margin=ctx.margin,
        ).violations
    )


def _directional(direction: str) -> MetricFunction:
    def metric(ctx: MetricContext, groups_pred: Any, tasks_pred: Any) -> float:
        return directional(
            direction=direction,
            groups=ctx.groups,
            tasks=ctx.tasks,
            groups_pred=groups_pred if direction == "T->A" else None,
            tasks_pred=tasks_pred if direction == "A->T" else None,
            groups_train=ctx.groups_train,
            tasks_train=ctx.tasks_train,
        ).value

    return metric


def _multi(kind: str, direction: str | None = None) -> MetricFunction:
    def metric(ctx: MetricContext, groups_pred: Any, tasks_pred: Any) -> float:
        if kind == "mals":
            return multi_mals(
                groups_train=ctx.groups_train,
                tasks_train=ctx.tasks_train,
                groups=ctx.groups,
                tasks=ctx.tasks,
                groups_pred=groups_pred,
                tasks_pred=tasks_pred,
            ).value
        assert direction is not None  # every "directional" metric is built with one
        return multi_directional(
            direction=direction,
            groups_train=ctx.groups_train,
            tasks_train=ctx.tasks_train,
            groups=ctx.groups,
            tasks=ctx.tasks,
            groups_pred=groups_pred if direction == "T->A" else None,
            tasks_pred=tasks_pred if direction == "A->T" else None,
        ).value

    return metric


def default_metrics() -> dict[str, MetricFunction]:
    """Every metric the comparison knows, by column name (multi-attribute ones when present)."""
    metrics: dict[str, MetricFunction] = {
        "task performance": _task_performance,
        "group accuracy": _group_accuracy,
        "BiasAmp_MALS": _mals,
        "Viol.": _violations,
        "BiasAmp A->T": _directional("A->T"),
        "BiasAmp T->A": _directional("T->A"),
        "Multi_MALS": _multi("mals"),
        "Multi G->M": _multi("directional", "A->T"),
        "Multi M->G": _multi("directional", "T->A"),
    }
    return metrics


def _column_of(name: Any, known: Mapping[str, MetricFunction]) -> str:
    """The column of ``name``: a column of :func:`default_metrics`, or any spelling the
    metric registry accepts of a metric column (``"mals"`` is ``"BiasAmp_MALS"``)."""
    if name in known:
        return str(name)
    card = find_card(name)
    for column in known:
        if card is not None and find_card(column) is card:
            return column
    names = [c.name for c in (find_card(k) for k in known) if c is not None]
    raise ValueError(ERR_UNKNOWN_METRIC.format(name=name, known=list(known), names=names))


def compare_mitigations(
    methods: Mapping[str, Mapping[str, Any] | Sequence[Mapping[str, Any]]],
    *,
    groups_train: Any,
    tasks_train: Any,
    groups: Any,
    tasks: Any,
    metrics: Sequence[str] | Mapping[str, MetricFunction] | None = None,
    margin: float = 0.05,
    ci: float = 0.95,
) -> MitigationComparison:
    """Performance and every amplification metric per mitigation method, in one table.

    Parameters
    ----------
    methods : mapping of name -> run or list of runs
        A run is a mapping with ``groups_pred`` and ``tasks_pred`` (the method's
        predictions on the evaluation rows). Several runs (seeds) of a method give
        a mean and a confidence interval.
    groups_train, tasks_train : array-like
        Training ground truth.
    groups, tasks : array-like
        Evaluation ground truth.
    metrics : sequence of names, or mapping name -> function, optional
        The columns of :func:`default_metrics`; a metric column is also named by
        any spelling :mod:`biasamp.registry` accepts (``"mals"``,
        ``"directional-t2a"``, ``"multi-a2t"``), and its column keeps the
        paper's name (``"BiasAmp_MALS"``, ``"Multi G->M"``; :func:`biasamp.compare`
        turns the table into rows named canonically). Default: every metric of
        :func:`default_metrics` ("task performance" =
        macro-F1 over tasks for multilabel tasks, top-1 accuracy for single-label
        ones; "group accuracy"; BiasAmp_MALS and its "Viol."; BiasAmp A->T and
        T->A; Multi_MALS, Multi G->M and M->G when the library has them). A
        function takes ``(context, groups_pred, tasks_pred)`` and returns a float.
    margin : float, default 0.05
        Margin of "Viol.".
    ci : float, default 0.95
        Confidence level of the t interval over runs.

    Returns
    -------
    MitigationComparison
        A DataFrame (with ``save()`` and ``plot()``): one row per method; ``n_runs``, then one column per metric with the mean
        over runs and, when some method has several runs, a ``"<metric> ±"`` column
        with the half-width ``t_{(1+ci)/2, r-1} s / sqrt(r)`` (NaN for a method with
        a single run: no interval can be formed from one run).

    Examples
    --------
    >>> from biasamp import compare_mitigations
    >>> runs = {"model": {"groups_pred": ["m", "w", "w", "w"],
    ...                   "tasks_pred": ["cook", "cook", "cook", "ski"]},
    ...         "truth": {"groups_pred": ["m", "w", "w", "m"],
    ...                   "tasks_pred": ["cook", "cook", "cook", "ski"]}}
    >>> table = compare_mitigations(runs, groups_train=["m", "w", "w", "m"],
    ...     tasks_train=["cook", "cook", "cook", "ski"], groups=["m", "w", "w", "m"],
    ...     tasks=["cook", "cook", "cook", "ski"], metrics=["group accuracy", "BiasAmp_MALS"])
    >>> table.round(3).to_dict(orient="index")
    {'model': {'n_runs': 1, 'group accuracy': 0.75, 'BiasAmp_MALS': -0.5}, 'truth': {'n_runs': 1, 'group accuracy': 1.0, 'BiasAmp_MALS': 0.0}}
    """
    if not isinstance(methods, Mapping) or not methods:
        raise ValueError(ERR_NO_METHODS)
    ci = check_ci(ci)
    known = default_metrics()
    if metrics is None:
        chosen = known
    elif isinstance(metrics, Mapping):
        chosen = dict(metrics)
    else:
        chosen = {}
        for name in metrics:
            column = _column_of(name, known)
            chosen[column] = known[column]
    task_matrix = as_label_matrix(tasks, arg="tasks")
    multilabel = bool(np.any(np.asarray(task_matrix.dense().sum(axis=1)) != 1))
    ctx = MetricContext(groups_train, tasks_train, groups, tasks, float(margin), multilabel)

    rows: dict[str, dict[str, float]] = {}
    any_repeated = False
    for method, runs in methods.items():
        run_list = [runs] if isinstance(runs, Mapping) else list(runs)
        if not run_list:  # the mean of no run would be NaN
            raise ValueError(ERR_NO_RUNS.format(method=method))
        for run in run_list:
            if not isinstance(run, Mapping) or not {"groups_pred", "tasks_pred"} <= set(run):
                keys = sorted(run) if isinstance(run, Mapping) else type(run).__name__
                raise ValueError(ERR_RUN_KEYS.format(method=method, keys=keys))
        values = {
            name: np.array([fn(ctx, run["groups_pred"], run["tasks_pred"]) for run in run_list])
            for name, fn in chosen.items()
        }
        row: dict[str, float] = {"n_runs": len(run_list)}
        r = len(run_list)
        any_repeated |= r > 1
        for name, vals in values.items():
            row[name] = float(vals.mean())
            if r > 1:
                from scipy import stats  # lazy: keeps `import biasamp` fast

                half = stats.t.ppf((1 + ci) / 2, r - 1) * vals.std(ddof=1) / np.sqrt(r)
                row[f"{name} ±"] = float(half)
            else:
                row[f"{name} ±"] = np.nan
        rows[method] = row
    frame = pd.DataFrame.from_dict(rows, orient="index")
    if not any_repeated:
        frame = frame[[c for c in frame.columns if not str(c).endswith(" ±")]]
    else:
        order = ["n_runs"] + [c for name in chosen for c in (name, f"{name} ±")]
        frame = frame[order]
    frame["n_runs"] = frame["n_runs"].astype(int)
    table = MitigationComparison(frame)
    table.ci_level = float(ci)
    return table
