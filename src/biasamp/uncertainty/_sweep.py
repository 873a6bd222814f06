"""Threshold sweeps: a metric evaluated over a grid of decision thresholds.

Wang & Russakovsky (2021) suggest a threshold-free number, the metric averaged
over thresholds (after Chen & Wu 2020). A prediction is positive when
``score > threshold`` (strict), as in :mod:`biasamp.uncertainty._calibration`.

* **Sweeps** evaluate ``mals`` and ``directional`` on every threshold at once:
  scores are binned once against the sorted grid, and the thresholded counts of
  every grid point come from one histogram and a cumulative sum, giving a
  count table with a threshold axis that the metric cores evaluate in one call.
  Other metrics are called once per threshold.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
import scipy.sparse as sp

from biasamp._progress import progress_iter
from biasamp.counts._count_table import CountTable
from biasamp.inputs._group_sizes import FragilePairWarning, MissingGroupWarning
from biasamp.inputs._label_matrix import ERR_POSITIVE, as_label_matrix, as_sample_weight
from biasamp.metrics._directional import directional, directional_arrays, normalize_direction
from biasamp.metrics._mals import mals, mals_arrays
from biasamp.metrics._splits import count_training_split, evaluation_label_matrices
from biasamp.registry import find_card
from biasamp.results._base import MetricNames, _json_safe, frame_records
from biasamp.results._persist import SavableResult, register_result
from biasamp.uncertainty._calibration import ERR_SCORES_ROWS, _as_scores

__all__ = ["ThresholdSweep", "plot_threshold_sweep", "threshold_sweep"]

ERR_THRESHOLDS = "thresholds: expected a non-empty 1-D array of finite numbers, got {got!r}."
ERR_NO_SCORES = "threshold_sweep needs groups_scores or tasks_scores (the scores to threshold)."
ERR_SCORES_AND_PRED = "Give {role}_scores or {role}_pred to threshold_sweep, not both."
ERR_POSITIVE_GROUP = (
    "groups_scores is 1-D, so it is the score of one of exactly two groups (by default "
    "the second in sorted order): positive_group= must be one of {names} (got {got!r})."
)
ERR_METRIC = (
    "metric: expected a callable or one of mals, directional-a2t, directional-t2a "
    "(biasamp.registry's names; 'directional' with direction= too), got {got!r}."
)
ERR_METRIC_DIRECTION = (
    "metric: {metric!r} is the direction {named!r}, but direction={got!r} was given."
)
ERR_MATPLOTLIB = (
    "plot_threshold_sweep needs matplotlib, which is not installed. "
    "Install it with: pip install 'biasamp[plot]'"
)
ERR_SWEEP_FRAME = "sweep: expected a ThresholdSweep or a DataFrame with 'threshold' and 'value'."


# ------------------------------------------------------------------ sweeps
@register_result("threshold_sweep", shapes=lambda r: {"thresholds": len(r.table)})
@dataclass(repr=False)
class ThresholdSweep(MetricNames, SavableResult):
    """A metric over a grid of thresholds (see :func:`threshold_sweep`).

    Attributes
    ----------
    table : pandas.DataFrame
        Tidy: one row per threshold with ``threshold``, ``value``, ``metric``,
        ``direction`` and the predicted-positive rate of each thresholded role
        (``groups_positive_rate`` / ``tasks_positive_rate``: the weighted mean
        of the thresholded indicators).
    mean : float
        The threshold-free summary: the mean of ``value`` over the grid (Chen &
        Wu 2020, as suggested by Wang & Russakovsky 2021). On an evenly spaced
        grid it approximates the average over that range of thresholds.
    metric, direction : str or None
    """

    table: pd.DataFrame
    mean: float
    metric: str
    direction: str | None = None
    params: dict[str, Any] = field(default_factory=dict)

    @property
    def thresholds(self) -> np.ndarray:
        return self.table["threshold"].to_numpy()

    @property
    def values(self) -> np.ndarray:
        return self.table["value"].to_numpy()

    def plot(self, ax: Any = None, **kwargs: Any) -> Any:
        """Plot the sweep (see :func:`plot_threshold_sweep`); returns the Axes."""
        return plot_threshold_sweep(self, ax=ax, **kwargs)

    def to_dict(self) -> dict[str, Any]:
        return _json_safe(
            {
                "metric": self.metric,
                "family": self.family,
                "direction": self.direction,
                "mean": self.mean,
                "params": self.params,
                "table": frame_records(self.table),
            }
        )

    def __repr__(self) -> str:
        name = self.title
        lo, hi = float(self.thresholds.min()), float(self.thresholds.max())
        return (
            f"ThresholdSweep({name}, {len(self.table)} thresholds in [{lo:g}, {hi:g}], "
            f"mean over the grid {self.mean:+.4f})\n" + self.table.head(10).to_string(index=False)
        )


def _check_thresholds(thresholds: Any) -> np.ndarray:
    grid = np.asarray(thresholds, dtype=np.float64) if not isinstance(thresholds, str) else None
    if grid is None or grid.ndim != 1 or grid.size == 0 or not np.isfinite(grid).all():
        raise ValueError(ERR_THRESHOLDS.format(got=thresholds))
    return grid


def _bins(scores: np.ndarray, sorted_grid: np.ndarray) -> np.ndarray:
    """Per score, how many grid thresholds it is strictly above (score > t_j iff bin > j)."""
    return np.searchsorted(sorted_grid, scores, side="left")


def _above_counts(hist: np.ndarray) -> np.ndarray:
    """From a histogram over bins 0..J (axis 0), the count with bin > j for j = 0..J-1."""
    tail = np.cumsum(hist[::-1], axis=0)[::-1]
    return tail[1:]


def _scored_totals(bins: np.ndarray, w: np.ndarray, n_grid: int) -> np.ndarray:
    """(J, k) weighted counts of ``score > t_j`` per column."""
    n, k = bins.shape
    flat = (bins * k + np.arange(k)[None, :]).ravel()
    hist = np.bincount(flat, weights=np.repeat(w, k), minlength=(n_grid + 1) * k)
    return _above_counts(hist.reshape(n_grid + 1, k))


def _fixed_by_scored(
    fixed: np.ndarray | sp.csr_matrix,
    bins: np.ndarray,
    w: np.ndarray,
    n_grid: int,
    fixed_first: bool,
) -> np.ndarray:
    """(J, a, b) weighted co-counts of a fixed matrix (n, a) and thresholded scores (n, b).

    The loop runs over the columns of the narrower side (groups), never over rows.
    """
    n, b = bins.shape
    a = fixed.shape[1]
    out = np.empty((n_grid, a, b))
    if a <= b:  # fixed side narrow (groups): one weighted histogram per fixed column
        dense = fixed.toarray() if sp.issparse(fixed) else fixed
        flat = (bins * b + np.arange(b)[None, :]).ravel()
        for x in range(a):
            weights = np.repeat(w * dense[:, x], b)
            hist = np.bincount(flat, weights=weights, minlength=(n_grid + 1) * b)
            out[:, x, :] = _above_counts(hist.reshape(n_grid + 1, b))
    else:  # scored side narrow (group scores): one sparse product per scored column
        fixed_csr = sp.csr_matrix(fixed)
        rows = np.arange(n)
        for s in range(b):
            onehot = sp.csr_matrix((w, (bins[:, s], rows)), shape=(n_grid + 1, n))
            hist = np.asarray((onehot @ fixed_csr).todense())  # (J+1, a)
            out[:, :, s] = _above_counts(hist)
    return out if fixed_first else out.transpose(0, 2, 1)


def _scored_by_scored(
    bins_g: np.ndarray, bins_t: np.ndarray, w: np.ndarray, n_grid: int
) -> np.ndarray:
    """(J, |G|, |T|) weighted counts of rows with both scores above t_j."""
    n, n_t = bins_t.shape
    out = np.empty((n_grid, bins_g.shape[1], n_t))
    cols = np.arange(n_t)[None, :]
    weights = np.repeat(w, n_t)
    for g in range(bins_g.shape[1]):  # groups are few
        both = np.minimum(bins_g[:, g][:, None], bins_t)
        hist = np.bincount(
            (both * n_t + cols).ravel(), weights=weights, minlength=(n_grid + 1) * n_t
        )
        out[:, g, :] = _above_counts(hist.reshape(n_grid + 1, n_t))
    return out


class _Role:
    """One role of a sweep: fixed label matrix, or scores binned against the grid."""

    def __init__(
        self,
        fixed: np.ndarray | sp.csr_matrix | None = None,
        bins: np.ndarray | None = None,
        complement_of: int | None = None,
    ) -> None:
        self.fixed = fixed
        self.bins = bins
        # binary group scores: column ``complement_of`` is "score > t", the other its complement
        self.complement_of = complement_of


def _joint(g: _Role, t: _Role, w: np.ndarray, n_grid: int) -> np.ndarray:
    if g.fixed is not None and t.fixed is not None:
        dense_g = g.fixed.toarray() if sp.issparse(g.fixed) else g.fixed
        weighted_g = dense_g * w[:, None]
        joint = np.asarray(t.fixed.T @ weighted_g).T  # (|G|, |T|), t.fixed dense or sparse
        return np.broadcast_to(joint, (n_grid, *joint.shape)).copy()
    # each role is either fixed (``fixed``) or scored (``bins``)
    if g.complement_of is not None:
        assert g.bins is not None
        if t.fixed is not None:
            positive = _fixed_by_scored(t.fixed, g.bins, w, n_grid, fixed_first=False)
            everyone = (
                np.asarray(sp.csr_matrix(t.fixed).T @ w)[None, None, :]
                if sp.issparse(t.fixed)
                else (w @ t.fixed)[None, None, :]
            )
            everyone = np.broadcast_to(everyone, positive.shape)
        else:
            assert t.bins is not None
            positive = _scored_by_scored(g.bins, t.bins, w, n_grid)
            everyone = _scored_totals(t.bins, w, n_grid)[:, None, :]
        # positive: (J, 1, |T|)
        out = np.empty((n_grid, 2, positive.shape[2]))
        out[:, g.complement_of] = positive[:, 0]
        out[:, 1 - g.complement_of] = everyone[:, 0] - positive[:, 0]
        return out
    if g.fixed is not None:
        assert t.bins is not None
        return _fixed_by_scored(g.fixed, t.bins, w, n_grid, fixed_first=True)
    assert g.bins is not None
    if t.fixed is not None:
        return _fixed_by_scored(t.fixed, g.bins, w, n_grid, fixed_first=False)
    assert t.bins is not None
    return _scored_by_scored(g.bins, t.bins, w, n_grid)


def _totals(role: _Role, w: np.ndarray, n_grid: int) -> np.ndarray:
    if role.fixed is not None:
        tot = (
            np.asarray(sp.csr_matrix(role.fixed).T @ w)
            if sp.issparse(role.fixed)
            else w @ role.fixed
        )
        return np.broadcast_to(tot, (n_grid, tot.shape[0])).copy()
    assert role.bins is not None
    positive = _scored_totals(role.bins, w, n_grid)
    if role.complement_of is None:
        return positive
    out = np.empty((n_grid, 2))
    out[:, role.complement_of] = positive[:, 0]
    out[:, 1 - role.complement_of] = w.sum() - positive[:, 0]
    return out


def _registry_metric(metric: Any, metric_kwargs: dict[str, Any]) -> Any:
    """``"mals"`` / ``"directional"`` from any registry spelling of MALS or of a directional
    metric; a direction in the name goes into ``metric_kwargs["direction"]``."""
    if not isinstance(metric, str) or metric in ("mals", "directional"):
        return metric
    card = find_card(metric)
    if card is None or card.family not in ("mals", "directional"):
        raise ValueError(ERR_METRIC.format(got=metric))
    if card.direction is not None:
        given = metric_kwargs.get("direction")
        if given is not None and normalize_direction(given) != card.direction:
            raise ValueError(
                ERR_METRIC_DIRECTION.format(metric=metric, named=card.direction, got=given)
            )
        metric_kwargs["direction"] = card.direction
    return card.family


def _resolve_metric(metric: Any) -> tuple[Callable[..., Any], str | None]:
    if isinstance(metric, str):
        table: dict[str, Callable[..., Any]] = {"mals": mals, "directional": directional}
        if metric not in table:
            raise ValueError(ERR_METRIC.format(got=metric))
        return table[metric], metric
    if not callable(metric):
        raise ValueError(ERR_METRIC.format(got=metric))
    if metric is mals:
        return metric, "mals"
    if metric is directional:
        return metric, "directional"
    return metric, None


_FAST_KEYS = {
    "mals": {
        "groups_train",
        "tasks_train",
        "counts_train",
        "sample_weight",
        "sample_weight_train",
        "group_names",
        "task_names",
        "soft",
        "margin",
        "groups_pred",
        "tasks_pred",
    },
    "directional": {
        "direction",
        "groups",
        "tasks",
        "groups_pred",
        "tasks_pred",
        "groups_train",
        "tasks_train",
        "counts_train",
        "sample_weight",
        "sample_weight_train",
        "group_names",
        "task_names",
        "soft",
        "tie_rule",
        "empty",
    },
}


def _predictions_at(
    threshold: float, scores: np.ndarray, names: tuple[Any, ...], complement: Any
) -> Any:
    above = scores > threshold
    if complement is None:
        return pd.DataFrame(above.astype(np.int64), columns=pd.Index(names))
    other = next(name for name in names if name != complement)
    return np.where(above[:, 0], complement, other).astype(object)


def threshold_sweep(
    metric: Callable[..., Any] | str,
    *,
    thresholds: Any,
    groups_scores: Any = None,
    tasks_scores: Any = None,
    positive_group: Any = None,
    positive_label: Any = None,
    progress: bool = False,
    **metric_kwargs: Any,
) -> ThresholdSweep:
    """A metric evaluated at every threshold of a grid, as a tidy table.

    Parameters
    ----------
    metric : callable or str
        ``"mals"``, ``"directional-a2t"``, ``"directional-t2a"`` (the registry's
        names; any spelling :mod:`biasamp.registry` accepts, or ``"directional"``
        with ``direction=``), or
        ``biasamp.mals``, ``biasamp.directional`` (evaluated on all thresholds
        at once) or any metric taking ``groups_pred`` / ``tasks_pred`` and
        returning an object with ``value`` (called once per threshold).
    thresholds : array-like of shape (J,)
        The grid. Predictions are ``score > threshold``.
    groups_scores : array-like of shape (n,) or (n, |G|), or DataFrame, optional
        Scores thresholded into ``groups_pred``. A 1-D array is the score of
        ``positive_group`` among exactly two groups, by default the second in
        sorted order as scikit-learn's ``classes_[1]`` (the other group is
        predicted when the score is not above the threshold); a 2-D array is
        thresholded column by column (multi-label).
    tasks_scores : array-like of shape (n,) or (n, |T|), or DataFrame, optional
        Scores thresholded into ``tasks_pred``, column by column. A 1-D array
        for a task role with two labels (a binary task given as 1-D labels) is
        the score of ``positive_label``, by default the second task in sorted
        order (evaluated once per threshold). With both score arrays the same
        threshold applies to both.
    positive_group : label, optional
        The group a 1-D ``groups_scores`` scores (default: the second group in
        sorted order).
    positive_label : label, optional
        The task a 1-D ``tasks_scores`` scores when there are two task labels
        (default: the second in sorted order).
    progress : bool, default False
        Show a progress bar (metrics evaluated once per threshold).
    **metric_kwargs
        Every other argument of the metric (ground truth, training split,
        ``direction``, fixed predictions of the role that is not swept, ...).

    Returns
    -------
    ThresholdSweep
        ``table`` (threshold, value, ...), ``mean`` (mean over the grid, the
        threshold-free summary) and ``plot()``.

    Examples
    --------
    >>> import numpy as np
    >>> from biasamp import mals, threshold_sweep
    >>> sweep = threshold_sweep(
    ...     mals, thresholds=[0.3, 0.5, 0.7],
    ...     groups_scores=np.array([0.9, 0.6, 0.4, 0.8, 0.2, 0.55]), positive_group="m",
    ...     groups_train=["m", "w", "m", "w", "w", "m"],
    ...     tasks_train=["cook", "cook", "ski", "ski", "cook", "ski"],
    ...     tasks_pred=["cook", "cook", "ski", "ski", "cook", "ski"])
    >>> sweep.table[["threshold", "value"]].round(4).to_dict("list")
    {'threshold': [0.3, 0.5, 0.7], 'value': [0.0, -0.1667, -0.1667]}
    """
    grid = _check_thresholds(thresholds)
    metric = _registry_metric(metric, metric_kwargs)
    function, name = _resolve_metric(metric)
    if groups_scores is None and tasks_scores is None:
        raise ValueError(ERR_NO_SCORES)
    for role, scores in (("groups", groups_scores), ("tasks", tasks_scores)):
        if scores is not None and metric_kwargs.get(f"{role}_pred") is not None:
            raise ValueError(ERR_SCORES_AND_PRED.format(role=role))
    fast = name is not None and set(metric_kwargs) <= _FAST_KEYS[name]
    # validate everything once and anchor the label space with one ordinary call
    train = count_training_split(
        groups_train=metric_kwargs.get("groups_train"),
        tasks_train=metric_kwargs.get("tasks_train"),
        counts_train=metric_kwargs.get("counts_train"),
        sample_weight_train=metric_kwargs.get("sample_weight_train"),
        group_names=metric_kwargs.get("group_names"),
        task_names=metric_kwargs.get("task_names"),
    )
    group_names, task_names = _label_space(
        train, metric_kwargs, groups_scores, tasks_scores, positive_group
    )
    g_scores = t_scores = None
    complement = None
    if groups_scores is not None:
        if np.ndim(groups_scores) == 1 and not isinstance(groups_scores, pd.DataFrame):
            if positive_group is None and len(group_names) == 2:
                positive_group = group_names[1]  # scikit-learn's classes_[1]
            if len(group_names) != 2 or positive_group not in group_names:
                raise ValueError(
                    ERR_POSITIVE_GROUP.format(names=list(group_names), got=positive_group)
                )
            g_scores, _ = _as_scores(groups_scores, arg="groups_scores")
            complement = positive_group
        else:
            g_scores, _ = _as_scores(groups_scores, arg="groups_scores", names=group_names)
    t_complement = None
    if tasks_scores is not None:
        one_d = np.ndim(tasks_scores) == 1 and not isinstance(tasks_scores, pd.DataFrame)
        if one_d and len(task_names) == 2:
            t_complement = task_names[1] if positive_label is None else positive_label
            if t_complement not in task_names:
                raise ValueError(
                    ERR_POSITIVE.format(
                        param="positive_label", got=positive_label, names=list(task_names)
                    )
                )
            t_scores, _ = _as_scores(tasks_scores, arg="tasks_scores")
            fast = False  # labels thresholded per grid point
        else:
            t_scores, _ = _as_scores(tasks_scores, arg="tasks_scores", names=task_names)
    scored = g_scores if g_scores is not None else t_scores
    assert scored is not None  # ERR_NO_SCORES above
    n_rows = scored.shape[0]
    if g_scores is not None and t_scores is not None and t_scores.shape[0] != n_rows:
        raise ValueError(
            ERR_SCORES_ROWS.format(arg="tasks_scores", got=t_scores.shape[0], expected=n_rows)
        )

    def call(threshold: float) -> Any:
        kwargs = dict(metric_kwargs)
        if g_scores is not None:
            kwargs["groups_pred"] = _predictions_at(threshold, g_scores, group_names, complement)
        if t_scores is not None:
            kwargs["tasks_pred"] = _predictions_at(threshold, t_scores, task_names, t_complement)
        with warnings.catch_warnings():
            # the extremes of the grid predict one group (or nothing) by design
            warnings.simplefilter("ignore", MissingGroupWarning)
            warnings.simplefilter("ignore", FragilePairWarning)
            return function(**kwargs)

    first = call(float(grid[0]))  # raises the metric's own errors on bad input
    direction = getattr(first, "direction", None)
    weight = as_sample_weight(metric_kwargs.get("sample_weight"), n_rows)
    if fast:
        assert name is not None  # fast implies a named metric
        values = _fast_values(
            name,
            grid,
            train,
            metric_kwargs,
            g_scores,
            t_scores,
            complement,
            group_names,
            task_names,
            weight,
        )
    else:
        values = np.array(
            [first.value]
            + [
                call(float(t)).value
                for t in progress_iter(
                    grid[1:], total=len(grid) - 1, description="threshold sweep", enabled=progress
                )
            ]
        )
    table = pd.DataFrame({"threshold": grid, "value": values})
    table["metric"] = getattr(first, "metric", name or getattr(function, "__name__", "metric"))
    table["direction"] = direction
    total_w = weight.sum()
    for role, scores in (("groups", g_scores), ("tasks", t_scores)):
        if scores is not None:
            above = _scored_totals(_bins(scores, np.sort(grid)), weight, len(grid))
            order = np.argsort(np.argsort(grid, kind="stable"), kind="stable")
            table[f"{role}_positive_rate"] = above.sum(axis=1)[order] / (total_w * scores.shape[1])
    return ThresholdSweep(
        table=table,
        mean=float(np.mean(values)),
        metric=str(table["metric"].iloc[0]),
        direction=direction,
        params={
            "vectorised": bool(fast),
            "positive_group": positive_group,
            "positive_label": t_complement,
            "summary": "mean over the grid",
        },
    )


def _label_space(
    train: CountTable | None,
    kwargs: Mapping[str, Any],
    groups_scores: Any,
    tasks_scores: Any,
    positive_group: Any,
) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
    """Group and task names: the training split's, else the ground truth's or given names."""
    if train is not None:
        return train.group_names, train.task_names
    names: dict[str, tuple[Any, ...]] = {}
    for kind, scores in (("group", groups_scores), ("task", tasks_scores)):
        given = kwargs.get(f"{kind}_names")
        truth = kwargs.get(f"{kind}s")
        pred = kwargs.get(f"{kind}s_pred")
        if given is not None:
            names[kind] = tuple(given)
        elif truth is not None:
            names[kind] = as_label_matrix(truth, arg=f"{kind}s").names
        elif pred is not None:
            names[kind] = as_label_matrix(pred, arg=f"{kind}s_pred").names
        elif isinstance(scores, pd.DataFrame):
            names[kind] = tuple(scores.columns)
        else:
            names[kind] = tuple(range(np.shape(scores)[1])) if scores is not None else ()
    return names["group"], names["task"]


def _fast_values(
    name: str,
    grid: np.ndarray,
    train: CountTable | None,
    kwargs: Mapping[str, Any],
    g_scores: np.ndarray | None,
    t_scores: np.ndarray | None,
    complement: Any,
    group_names: tuple[Any, ...],
    task_names: tuple[Any, ...],
    weight: np.ndarray,
) -> np.ndarray:
    """Metric values on every threshold from one count table with a threshold axis."""
    order = np.argsort(grid, kind="stable")
    sorted_grid = grid[order]
    n_grid = len(grid)
    direction = normalize_direction(kwargs["direction"]) if name == "directional" else None
    roles: dict[str, _Role] = {}
    if name == "mals":
        needed = {"groups_pred", "tasks_pred"}
        fixed_args = {}
    else:
        needed = {"groups", "tasks", "tasks_pred" if direction == "A->T" else "groups_pred"}
        fixed_args = {"groups": kwargs.get("groups"), "tasks": kwargs.get("tasks")}
    for role in ("groups_pred", "tasks_pred"):
        if role in needed and kwargs.get(role) is not None:
            fixed_args[role] = kwargs[role]
    matrices = (
        evaluation_label_matrices(
            train=train,
            group_names=None if train is not None else group_names,
            task_names=None if train is not None else task_names,
            soft=bool(kwargs.get("soft", False)),
            **fixed_args,
        )
        if fixed_args
        else {}
    )
    for role, matrix in matrices.items():
        roles[role] = _Role(fixed=matrix.values)
    if g_scores is not None and "groups_pred" in needed:
        comp = None if complement is None else group_names.index(complement)
        roles["groups_pred"] = _Role(bins=_bins(g_scores, sorted_grid), complement_of=comp)
    if t_scores is not None and "tasks_pred" in needed:
        roles["tasks_pred"] = _Role(bins=_bins(t_scores, sorted_grid))
    totals = {r: _totals(roles[r], weight, n_grid) for r in roles}
    joint_keys = (
        [("groups_pred", "tasks_pred")]
        if name == "mals"
        else [
            ("groups", "tasks"),
            ("groups", "tasks_pred") if direction == "A->T" else ("groups_pred", "tasks"),
        ]
    )
    joint = {key: _joint(roles[key[0]], roles[key[1]], weight, n_grid) for key in joint_keys}
    table = CountTable(
        group_names=tuple(group_names),
        task_names=tuple(task_names),
        n=np.full(n_grid, weight.sum()),
        totals=totals,
        joint=joint,
        n_rows=len(weight),
    )
    if name == "mals":
        assert train is not None
        values = mals_arrays(train, table, margin=float(kwargs.get("margin", 0.05)))["value"]
    else:
        assert direction is not None  # set above for "directional"
        values = directional_arrays(
            table, direction=direction, train=train, tie_rule=kwargs.get("tie_rule", "zero")
        )["value"]
    out = np.empty(n_grid)
    out[order] = values
    return out


# ------------------------------------------------------------------- plot
def plot_threshold_sweep(
    sweep: ThresholdSweep | pd.DataFrame,
    *,
    ax: Any = None,
    calibrated: float | None = None,
    label: str | None = None,
) -> Any:
    """Plot a metric against the decision threshold; returns the matplotlib Axes.

    Parameters
    ----------
    sweep : ThresholdSweep or DataFrame with ``threshold`` and ``value``
    ax : matplotlib Axes, optional
        Draw here (a new figure's Axes by default).
    calibrated : float, optional
        A calibrated threshold to mark with a vertical line.
    label : str, optional
        Legend label of the curve.

    Returns
    -------
    matplotlib.axes.Axes
    """
    if isinstance(sweep, ThresholdSweep):
        table, mean = sweep.table, sweep.mean
        name = sweep.title
    elif isinstance(sweep, pd.DataFrame) and {"threshold", "value"} <= set(sweep.columns):
        table, mean, name = sweep, float(sweep["value"].mean()), "value"
    else:
        raise TypeError(ERR_SWEEP_FRAME)
    try:
        import matplotlib.pyplot as plt
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(ERR_MATPLOTLIB) from exc
    if ax is None:
        _, ax = plt.subplots(figsize=(6.4, 4.0), layout="constrained")
    ordered = table.sort_values("threshold")
    ax.plot(ordered["threshold"], ordered["value"], marker="o", markersize=3, label=label or name)
    ax.axhline(
        mean, linestyle="--", linewidth=1, color="grey", label=f"mean over the grid {mean:+.3f}"
    )
    ax.axhline(0.0, linewidth=0.5, color="black")
    if calibrated is not None:
        ax.axvline(
            float(calibrated),
            linestyle=":",
            color="tab:red",
            label=f"calibrated threshold {float(calibrated):.3g}",
        )
    ax.set_xlabel("decision threshold (predict positive when score > threshold)")
    ax.set_ylabel(name[:40])
    ax.legend(fontsize="small")
    return ax
