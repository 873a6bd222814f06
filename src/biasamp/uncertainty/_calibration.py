"""Decision thresholds calibrated on a validation split.

Wang & Russakovsky (2021, section 3.3) show that bias amplification moves with the
decision threshold: on COCO, calibrating the gender threshold alone drops
BiasAmp_MALS from 0.040 to 0.001. They pick thresholds "well-calibrated on the
validation set": with an expected positive proportion ``p``, the ``N p``
highest-scoring of ``N`` validation examples are predicted positive. Sweeps over
a grid of thresholds live in :mod:`biasamp.uncertainty._sweep`.

Rules (``docs/uncertainty.md``)
-------------------------------
* A prediction is positive when ``score > threshold`` (strict).
* **1-D scores** follow scikit-learn: with 1-D labels of two classes, the score
  is that of the second label in sorted order (``classes_[1]``), or of
  ``positive_label``; 0/1 labels count their 1s.
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
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from biasamp._deprecation import UNSET, positional_keywords
from biasamp.inputs._containers import to_native_numpy
from biasamp.inputs._label_matrix import ERR_POSITIVE, LabelMatrix, as_label_matrix
from biasamp.results._base import _json_safe, frame_records
from biasamp.results._persist import SavableResult, register_result

__all__ = ["ThresholdCalibration", "calibrate_thresholds"]

ERR_SCORES_NDIM = "{arg}: expected a 1-D or 2-D array of scores, got {ndim} dimensions."
ERR_SCORES_TYPE = "{arg}: expected a numpy array or pandas object of scores, got {type_name}."
ERR_SCORES_NAN = "{arg}: contains NaN or infinite scores ({count} entries)."
ERR_SCORES_NUMERIC = "{arg}: scores must be numeric, got dtype {dtype}."
ERR_SCORES_SHAPE = "{arg}: has {got} columns but there are {expected} labels {names}."
ERR_SCORES_COLUMNS = "{arg}: columns {got} differ from the label names {expected}."
ERR_SCORES_EMPTY = "{arg}: expected at least one row and one label column, got shape {shape}."
ERR_SCORES_ROWS = "{arg}: has {got} rows, expected {expected} (one per instance)."
ERR_NEED_TARGET = "calibrate_thresholds needs labels_val or rate (the target positive counts)."
ERR_RATE = "rate: expected a number in [0, 1] or one per label column, got {got!r}."
ERR_LABELS_CLASSES = (
    "labels_val: a 1-D score needs 1-D labels of exactly two classes (or 0/1), "
    "got {k} classes {names}; pass one score column per class instead."
)
ERR_TIES = "ties: expected 'nearest', 'fewer' or 'more', got {got!r}."


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
        if not (np.ndim(rate) == 0 or np.size(rate) == len(names)):
            raise ValueError(ERR_RATE.format(got=rate))
        values = np.broadcast_to(np.asarray(rate, dtype=np.float64), (len(names),))
    if not np.all(np.isfinite(values)) or np.any(values < 0) or np.any(values > 1):
        raise ValueError(ERR_RATE.format(got=rate))
    return np.floor(values * n + 0.5).astype(np.int64)


def _is_1d(x: Any) -> bool:
    return (
        not isinstance(x, pd.DataFrame)
        and np.ndim(to_native_numpy(x, arg="scores_val").values) == 1
    )


def _binary_labels(labels_val: Any, positive_label: Any) -> tuple[Any, Any]:
    """1-D validation labels for a 1-D score: 0/1 labels as they are, class labels as the
    0/1 indicator of the positive class (``classes_[1]`` or ``positive_label``)."""
    native = to_native_numpy(labels_val, arg="labels_val").values
    arr = np.asarray(native)
    if arr.ndim != 1:
        return labels_val, None
    if arr.dtype.kind in "biuf" and positive_label is None and np.isin(arr, (0, 1)).all():
        return arr, None
    matrix = as_label_matrix(arr, arg="labels_val")
    if matrix.n_labels != 2:
        raise ValueError(ERR_LABELS_CLASSES.format(k=matrix.n_labels, names=list(matrix.names)))
    names = matrix.names
    if positive_label is None:
        col = 1
    elif positive_label in names:
        col = names.index(positive_label)
    else:
        raise ValueError(
            ERR_POSITIVE.format(param="positive_label", got=positive_label, names=list(names))
        )
    return matrix.dense()[:, col], names[col]


def calibrate_thresholds(
    scores_val: Any,
    *args: Any,
    labels_val: Any = UNSET,
    rate: Any = None,
    ties: str = "nearest",
    positive_label: Any = None,
) -> ThresholdCalibration:
    """One threshold per label column so that predicted positives match a target count.

    Parameters
    ----------
    scores_val : array-like of shape (n,) or (n, k), or DataFrame
        Validation scores (probabilities or logits); higher means more positive.
    labels_val : array-like of shape (n,) or (n, k), or DataFrame, optional
        Validation ground truth in the columns of ``scores_val``: 0/1
        indicators (the target count of a column is its number of positives),
        or, for a 1-D score, 1-D labels of two classes: the score is that of
        the second class in sorted order (scikit-learn's ``classes_[1]``) or of
        ``positive_label``. Keyword-only (by position is deprecated).
    rate : float, sequence, Series or dict, optional
        Positive rate(s) to match instead, for example estimated on the
        training split as in Wang & Russakovsky (2021); target
        ``round(rate * n)``.
    ties : {"nearest", "fewer", "more"}, default "nearest"
        Which achievable count to take when scores tie at the cut (module docs).
    positive_label : label, optional
        With 1-D class labels, the class a 1-D score is the score of.

    Returns
    -------
    ThresholdCalibration
        ``thresholds`` (a Series by label), the target and achieved counts,
        and ``apply(scores)`` to threshold new scores.

    Examples
    --------
    Two of five validation images show a man; the scores tie at the cut:

    >>> from biasamp import calibrate_thresholds
    >>> cal = calibrate_thresholds([0.9, 0.6, 0.6, 0.3, 0.1], labels_val=[1, 0, 1, 0, 0])
    >>> cal.predicted_count.tolist(), cal.thresholds.tolist()
    ([1], [0.75])
    >>> more = calibrate_thresholds([0.9, 0.6, 0.6, 0.3, 0.1], labels_val=[1, 0, 1, 0, 0],
    ...                             ties="more")
    >>> more.predicted_count.tolist(), more.thresholds.round(4).tolist()
    ([3], [0.45])
    >>> calibrate_thresholds([0.9, 0.6, 0.5, 0.3, 0.1], rate=0.4).thresholds.tolist()
    [0.55]

    A 1-D score with 1-D class labels scores the second class in sorted order:

    >>> calibrate_thresholds([0.8, 0.3, 0.6], labels_val=["m", "w", "w"]).thresholds
    label
    w    0.45
    Name: threshold, dtype: float64
    """
    labels_val = positional_keywords(
        "calibrate_thresholds", args, ("labels_val",), {"labels_val": labels_val}
    )["labels_val"]
    if labels_val is UNSET:
        labels_val = None
    if ties not in ("nearest", "fewer", "more"):
        raise ValueError(ERR_TIES.format(got=ties))
    if labels_val is not None and _is_1d(scores_val):
        labels_val, positive = _binary_labels(labels_val, positive_label)
        if positive is not None:
            scores_val = pd.DataFrame(
                {positive: to_native_numpy(scores_val, arg="scores_val").values}
            )
    names: Sequence[Any] | None = None
    if isinstance(labels_val, pd.DataFrame) and not isinstance(scores_val, pd.DataFrame):
        names = tuple(labels_val.columns)
    values, names = _as_scores(scores_val, arg="scores_val", names=names)
    n, k = values.shape
    if n == 0 or k == 0:
        raise ValueError(ERR_SCORES_EMPTY.format(arg="scores_val", shape=values.shape))
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
