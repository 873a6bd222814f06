"""Decision thresholds: calibration on a validation split, and sweeps over a grid.

Wang & Russakovsky (2021, section 3.3) show that bias amplification moves with the
decision threshold: on COCO, calibrating the gender threshold alone drops
BiasAmp_MALS from 0.040 to 0.001. They pick thresholds "well-calibrated on the
validation set": with an expected positive proportion ``p``, the ``N p``
highest-scoring of ``N`` validation examples are predicted positive. They also
suggest a threshold-free number, the metric averaged over thresholds (after
Chen & Wu 2020).

Rules (``docs/uncertainty.md``)
-------------------------------
* A prediction is positive when ``score > threshold`` (strict).
* **Target count** per label column: the number of true positives in
  ``labels_val`` (the default), or ``round(rate * N)`` for a given ``rate``
  (halves round up).
* **Ties at the cut.** Only counts ``#(score > t)`` that some ``t`` achieves are
  possible; when scores tie across the cut the target may not be. ``ties``
  chooses: ``"nearest"`` (default) the achievable count closest to the target,
  the smaller one when two are equally close; ``"fewer"`` the largest
  achievable count not above the target; ``"more"`` the smallest achievable
  count not below it. ``result.predicted_count`` says what was achieved.
* **The threshold value** for an achieved count ``c`` is halfway between the
  lowest score predicted positive and the highest score predicted negative;
  for ``c = 0`` it is the highest score (nothing is above it), and for
  ``c = N`` the largest float below the lowest score.
* **Sweeps** evaluate ``mals`` and ``directional`` on every threshold at once:
  scores are binned once against the sorted grid, and the thresholded counts of
  every grid point come from one histogram and a cumulative sum, giving a
  count table with a threshold axis that the metric cores evaluate in one call.
  Other metrics are called once per threshold.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
import scipy.sparse as sp

from biasamp._progress import progress_iter
from biasamp.counts._count_table import CountTable
from biasamp.inputs._label_matrix import LabelMatrix, as_label_matrix, as_sample_weight
from biasamp.metrics._directional import directional, directional_arrays, normalize_direction
from biasamp.metrics._mals import mals, mals_arrays
from biasamp.metrics._splits import count_training_split, evaluation_label_matrices
from biasamp.results._base import _json_safe, frame_records
from biasamp.results._persist import SavableResult, register_result

__all__ = [
    "ThresholdCalibration",
    "ThresholdSweep",
    "calibrate_thresholds",
    "plot_threshold_sweep",
    "threshold_sweep",
]

ERR_SCORES_NDIM = "{arg}: expected a 1-D or 2-D array of scores, got {ndim} dimensions."
ERR_SCORES_TYPE = "{arg}: expected a numpy array or pandas object of scores, got {type_name}."
ERR_SCORES_NAN = "{arg}: contains NaN or infinite scores ({count} entries)."
ERR_SCORES_NUMERIC = "{arg}: scores must be numeric, got dtype {dtype}."
ERR_SCORES_SHAPE = "{arg}: has {got} columns but there are {expected} labels {names}."
ERR_SCORES_COLUMNS = "{arg}: columns {got} differ from the label names {expected}."
ERR_SCORES_ROWS = "{arg}: has {got} rows, expected {expected} (one per instance)."
ERR_NEED_TARGET = "calibrate_thresholds needs labels_val or rate (the target positive counts)."
ERR_RATE = "rate: expected a number in [0, 1] or one per label column, got {got!r}."
ERR_TIES = "ties: expected 'nearest', 'fewer' or 'more', got {got!r}."
ERR_THRESHOLDS = "thresholds: expected a non-empty 1-D array of finite numbers, got {got!r}."
ERR_NO_SCORES = "threshold_sweep needs groups_scores or tasks_scores (the scores to threshold)."
ERR_SCORES_AND_PRED = "Give {role}_scores or {role}_pred to threshold_sweep, not both."
ERR_POSITIVE_GROUP = (
    "groups_scores is 1-D, so it is the score of one of exactly two groups: pass "
    "positive_group= one of {names} (got {got!r})."
)
ERR_METRIC = "metric: expected a callable or 'mals' / 'directional', got {got!r}."
ERR_MATPLOTLIB = (
    "plot_threshold_sweep needs matplotlib, which is not installed. "
    "Install it with: pip install 'biasamp[plot]'"
)
ERR_SWEEP_FRAME = "sweep: expected a ThresholdSweep or a DataFrame with 'threshold' and 'value'."


# ----------------------------------------------------------------- scores
def _as_scores(
    scores: Any, *, arg: str, names: Sequence[Any] | None = None, n: int | None = None
) -> tuple[np.ndarray, tuple[Any, ...]]:
    """Validate a score matrix: finite numbers of shape (n, k); columns in ``names`` order."""
    columns: tuple[Any, ...] | None = None
    if isinstance(scores, pd.DataFrame):
        columns = tuple(scores.columns)
        values = scores.to_numpy()
    elif isinstance(scores, (pd.Series, np.ndarray, list, tuple)):
        values = np.asarray(scores)
    else:
        raise TypeError(ERR_SCORES_TYPE.format(arg=arg, type_name=type(scores).__name__))
    if values.ndim == 1:
        values = values[:, None]
    if values.ndim != 2:
        raise ValueError(ERR_SCORES_NDIM.format(arg=arg, ndim=values.ndim))
    if values.dtype.kind not in "biuf":
        raise TypeError(ERR_SCORES_NUMERIC.format(arg=arg, dtype=values.dtype))
    values = values.astype(np.float64)
    bad = ~np.isfinite(values)
    if bad.any():
        raise ValueError(ERR_SCORES_NAN.format(arg=arg, count=int(bad.sum())))
    if n is not None and values.shape[0] != n:
        raise ValueError(ERR_SCORES_ROWS.format(arg=arg, got=values.shape[0], expected=n))
    if names is None:
        return values, columns if columns is not None else tuple(range(values.shape[1]))
    names = tuple(names)
    if columns is None:
        if values.shape[1] != len(names):
            raise ValueError(
                ERR_SCORES_SHAPE.format(
                    arg=arg, got=values.shape[1], expected=len(names), names=list(names)
                )
            )
        return values, names
    if set(columns) != set(names) or len(columns) != len(names):
        raise ValueError(
            ERR_SCORES_COLUMNS.format(arg=arg, got=list(columns), expected=list(names))
        )
    return values[:, pd.Index(columns).get_indexer(names)], names


# ------------------------------------------------------------ calibration
@register_result("threshold_calibration", shapes=lambda r: {"n": r.n, "labels": len(r.thresholds)})
@dataclass(repr=False)
class ThresholdCalibration(SavableResult):
    """Thresholds calibrated on a validation split (see :func:`calibrate_thresholds`).

    Attributes
    ----------
    thresholds : pandas.Series
        One threshold per label column; predict positive when ``score > threshold``.
    target_count : pandas.Series
        The positive count aimed at on the validation split.
    predicted_count : pandas.Series
        The count of validation scores above the threshold (differs from the
        target only when scores tie at the cut).
    n : int
        Validation rows.
    ties : str
        The tie rule used.
    """

    thresholds: pd.Series
    target_count: pd.Series
    predicted_count: pd.Series
    n: int
    ties: str

    def apply(self, scores: Any) -> pd.DataFrame:
        """0/1 predictions ``scores > thresholds`` for scores with the same columns."""
        values, names = _as_scores(scores, arg="scores", names=tuple(self.thresholds.index))
        out = (values > self.thresholds.to_numpy()[None, :]).astype(np.int64)
        index = scores.index if isinstance(scores, (pd.DataFrame, pd.Series)) else None
        return pd.DataFrame(out, columns=pd.Index(names), index=index)

    def to_frame(self) -> pd.DataFrame:
        """One row per label: threshold, target count, predicted count."""
        return pd.DataFrame(
            {
                "threshold": self.thresholds,
                "target_count": self.target_count,
                "predicted_count": self.predicted_count,
            }
        )

    def plot(self, *, max_labels: int = 40, ax: Any = None) -> Any:
        """The threshold of each label as bars (matplotlib); returns the Axes."""
        from biasamp.results._plotting import plot_thresholds

        return plot_thresholds(self, max_labels=max_labels, ax=ax)

    def to_dict(self) -> dict[str, Any]:
        frame = self.to_frame().reset_index(names="label")
        return _json_safe({"n": self.n, "ties": self.ties, "labels": frame_records(frame)})

    def __repr__(self) -> str:
        off = int((self.target_count != self.predicted_count).sum())
        head = (
            f"ThresholdCalibration({len(self.thresholds)} labels, n={self.n}, "
            f"ties={self.ties!r}, {off} off target because of ties)"
        )
        return head + "\n" + self.to_frame().head(10).to_string()


def _target_counts(
    rate: Any, labels: np.ndarray | None, names: tuple[Any, ...], n: int
) -> np.ndarray:
    if rate is None:
        if labels is None:
            raise ValueError(ERR_NEED_TARGET)
        return np.rint(labels.sum(axis=0)).astype(np.int64)
    if isinstance(rate, Mapping):
        try:
            values = np.array([float(rate[name]) for name in names])
        except KeyError as exc:
            raise ValueError(ERR_RATE.format(got=rate)) from exc
    elif isinstance(rate, pd.Series):
        values = rate.reindex(list(names)).to_numpy(dtype=np.float64)
    else:
        values = (
            np.broadcast_to(np.asarray(rate, dtype=np.float64), (len(names),))
            if np.ndim(rate) == 0 or np.size(rate) == len(names)
            else None
        )
        if values is None:
            raise ValueError(ERR_RATE.format(got=rate))
    if not np.all(np.isfinite(values)) or np.any(values < 0) or np.any(values > 1):
        raise ValueError(ERR_RATE.format(got=rate))
    return np.floor(values * n + 0.5).astype(np.int64)


def calibrate_thresholds(
    scores_val: Any,
    labels_val: Any = None,
    *,
    rate: Any = None,
    ties: str = "nearest",
) -> ThresholdCalibration:
    """One threshold per label column so that predicted positives match a target count.

    Parameters
    ----------
    scores_val : array-like of shape (n,) or (n, k), or DataFrame
        Validation scores (probabilities or logits); higher means more positive.
    labels_val : array-like of shape (n,) or (n, k), or DataFrame, optional
        Validation ground truth as 0/1 indicators in the same columns; the
        target count of a column is its number of positives.
    rate : float, sequence, Series or dict, optional
        Positive rate(s) to match instead, for example estimated on the
        training split as in Wang & Russakovsky (2021); target
        ``round(rate * n)``.
    ties : {"nearest", "fewer", "more"}, default "nearest"
        Which achievable count to take when scores tie at the cut (module docs).

    Returns
    -------
    ThresholdCalibration
        ``thresholds`` (a Series by label), the target and achieved counts,
        and ``apply(scores)`` to threshold new scores.

    Examples
    --------
    Two of five validation images show a man; the scores tie at the cut:

    >>> from biasamp import calibrate_thresholds
    >>> cal = calibrate_thresholds([0.9, 0.6, 0.6, 0.3, 0.1], [1, 0, 1, 0, 0])
    >>> cal.predicted_count.tolist(), cal.thresholds.tolist()
    ([1], [0.75])
    >>> more = calibrate_thresholds([0.9, 0.6, 0.6, 0.3, 0.1], [1, 0, 1, 0, 0], ties="more")
    >>> more.predicted_count.tolist(), more.thresholds.round(4).tolist()
    ([3], [0.45])
    >>> calibrate_thresholds([0.9, 0.6, 0.5, 0.3, 0.1], rate=0.4).thresholds.tolist()
    [0.55]
    """
    if ties not in ("nearest", "fewer", "more"):
        raise ValueError(ERR_TIES.format(got=ties))
    names: Sequence[Any] | None = None
    if isinstance(labels_val, pd.DataFrame) and not isinstance(scores_val, pd.DataFrame):
        names = tuple(labels_val.columns)
    values, names = _as_scores(scores_val, arg="scores_val", names=names)
    n, k = values.shape
    labels: np.ndarray | None = None
    if labels_val is not None:
        raw = labels_val
        if not isinstance(raw, pd.DataFrame) and np.ndim(raw) == 1:
            raw = np.asarray(raw)[:, None]
        matrix: LabelMatrix = as_label_matrix(
            raw, arg="labels_val", names=names, source="the columns of scores_val"
        )
        labels = matrix.dense()
        if labels.shape[0] != n:
            raise ValueError(
                ERR_SCORES_ROWS.format(arg="labels_val", got=labels.shape[0], expected=n)
            )
    target = _target_counts(rate, labels, tuple(names), n)
    ordered = -np.sort(-values, axis=0)  # descending per column
    # counts c achievable as #(score > t): c = 0 or c = #(score >= v) for some score v
    at_cut = ordered[np.clip(target - 1, 0, n - 1), np.arange(k)]  # target-th highest score
    n_ge = (values >= at_cut[None, :]).sum(axis=0)
    n_gt = (values > at_cut[None, :]).sum(axis=0)
    fewer = np.where(target == 0, 0, np.where(n_ge == target, target, n_gt))
    more = np.where(target == 0, 0, n_ge)
    if ties == "fewer":
        achieved = fewer
    elif ties == "more":
        achieved = more
    else:
        achieved = np.where(more - target < target - fewer, more, fewer)
    cols = np.arange(k)
    above = ordered[np.clip(achieved - 1, 0, n - 1), cols]  # lowest positive
    below = ordered[np.clip(achieved, 0, n - 1), cols]  # highest negative
    mid = above / 2 + below / 2
    mid = np.where(mid >= above, below, mid)  # adjacent floats: keep the cut exact
    thresholds = np.where(
        achieved == 0,
        ordered[0],
        np.where(achieved == n, np.nextafter(ordered[n - 1], -np.inf), mid),
    )
    index = pd.Index(names, name="label")
    return ThresholdCalibration(
        thresholds=pd.Series(thresholds, index=index, name="threshold"),
        target_count=pd.Series(target, index=index, name="target_count"),
        predicted_count=pd.Series(
            (values > thresholds[None, :]).sum(axis=0), index=index, name="predicted_count"
        ),
        n=n,
        ties=ties,
    )


# ------------------------------------------------------------------ sweeps
@register_result("threshold_sweep", shapes=lambda r: {"thresholds": len(r.table)})
@dataclass(repr=False)
class ThresholdSweep(SavableResult):
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
                "direction": self.direction,
                "mean": self.mean,
                "params": self.params,
                "table": frame_records(self.table),
            }
        )

    def __repr__(self) -> str:
        name = self.metric + (f" {self.direction}" if self.direction else "")
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
    if g.complement_of is not None:
        assert g.bins is not None
        positive = (
            _fixed_by_scored(t.fixed, g.bins, w, n_grid, fixed_first=False)
            if t.fixed is not None
            else _scored_by_scored(g.bins, t.bins, w, n_grid)
        )  # (J, 1, |T|)
        if t.fixed is not None:
            everyone = (
                np.asarray(sp.csr_matrix(t.fixed).T @ w)[None, None, :]
                if sp.issparse(t.fixed)
                else (w @ t.fixed)[None, None, :]
            )
            everyone = np.broadcast_to(everyone, positive.shape)
        else:
            everyone = _scored_totals(t.bins, w, n_grid)[:, None, :]
        out = np.empty((n_grid, 2, positive.shape[2]))
        out[:, g.complement_of] = positive[:, 0]
        out[:, 1 - g.complement_of] = everyone[:, 0] - positive[:, 0]
        return out
    if g.fixed is not None:
        return _fixed_by_scored(g.fixed, t.bins, w, n_grid, fixed_first=True)
    if t.fixed is not None:
        return _fixed_by_scored(t.fixed, g.bins, w, n_grid, fixed_first=False)
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


def _resolve_metric(metric: Any) -> tuple[Callable[..., Any], str | None]:
    if isinstance(metric, str):
        table = {"mals": mals, "directional": directional}
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
    threshold: float, scores: np.ndarray, names: tuple[Any, ...], complement: str | None
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
    progress: bool = False,
    **metric_kwargs: Any,
) -> ThresholdSweep:
    """A metric evaluated at every threshold of a grid, as a tidy table.

    Parameters
    ----------
    metric : callable or {"mals", "directional"}
        ``biasamp.mals``, ``biasamp.directional`` (evaluated on all thresholds
        at once) or any metric taking ``groups_pred`` / ``tasks_pred`` and
        returning an object with ``value`` (called once per threshold).
    thresholds : array-like of shape (J,)
        The grid. Predictions are ``score > threshold``.
    groups_scores : array-like of shape (n,) or (n, |G|), or DataFrame, optional
        Scores thresholded into ``groups_pred``. A 1-D array is the score of
        ``positive_group`` among exactly two groups (the other group is
        predicted when the score is not above the threshold); a 2-D array is
        thresholded column by column (multi-label).
    tasks_scores : array-like of shape (n, |T|), or DataFrame, optional
        Scores thresholded into ``tasks_pred``, column by column. With both
        score arrays the same threshold applies to both.
    positive_group : label, optional
        The group a 1-D ``groups_scores`` scores.
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
            if len(group_names) != 2 or positive_group not in group_names:
                raise ValueError(
                    ERR_POSITIVE_GROUP.format(names=list(group_names), got=positive_group)
                )
            g_scores, _ = _as_scores(groups_scores, arg="groups_scores")
            complement = positive_group
        else:
            g_scores, _ = _as_scores(groups_scores, arg="groups_scores", names=group_names)
    if tasks_scores is not None:
        t_scores, _ = _as_scores(tasks_scores, arg="tasks_scores", names=task_names)
    n_rows = (g_scores if g_scores is not None else t_scores).shape[0]
    if g_scores is not None and t_scores is not None and t_scores.shape[0] != n_rows:
        raise ValueError(
            ERR_SCORES_ROWS.format(arg="tasks_scores", got=t_scores.shape[0], expected=n_rows)
        )

    def call(threshold: float) -> Any:
        kwargs = dict(metric_kwargs)
        if g_scores is not None:
            kwargs["groups_pred"] = _predictions_at(threshold, g_scores, group_names, complement)
        if t_scores is not None:
            kwargs["tasks_pred"] = _predictions_at(threshold, t_scores, task_names, None)
        return function(**kwargs)

    first = call(float(grid[0]))  # raises the metric's own errors on bad input
    direction = getattr(first, "direction", None)
    weight = as_sample_weight(metric_kwargs.get("sample_weight"), n_rows)
    if fast:
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
        name = sweep.metric + (f" {sweep.direction}" if sweep.direction else "")
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
