"""Expected calibration error (ECE), binned as usual (Guo et al. 2017; Naeini et al. 2015).

Hall et al. (2022, "A Systematic Study of Bias Amplification") read bias amplification
next to the model's calibration over training; :func:`calibration_error` gives the
number to put beside each checkpoint in :func:`biasamp.compare`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["calibration_error"]

ERR_SHAPES = (
    "y_true, y_prob: expected y_prob of shape (n,) with y_true (n,) of 0/1 (binary), "
    "(n, k) with y_true (n, k) of 0/1 (multilabel) or (n, k) with y_true (n,) of class "
    "indices (multiclass); got y_true {t} and y_prob {p}."
)
ERR_PROB = "y_prob: expected probabilities in [0, 1] (finite); row {row} holds {got!r}."
ERR_BINARY = "y_true: expected 0 or 1 (or booleans); row {row} holds {got!r}."
ERR_CLASS = "y_true: expected class indices 0 .. {k_1}; row {row} holds {got!r}."
ERR_BINS = "n_bins: expected an integer >= 1, got {got!r}."
ERR_NORM = "norm: expected 'l1' or 'max', got {got!r}."
ERR_EMPTY = "y_true, y_prob: expected at least one row."


def _first_bad(mask: np.ndarray) -> int:
    return int(np.flatnonzero(np.asarray(mask).reshape(mask.shape[0], -1).any(axis=1))[0])


def calibration_error(y_true: Any, y_prob: Any, *, n_bins: int = 15, norm: str = "l1") -> float:
    """Expected calibration error of predicted probabilities, with equal-width bins.

    The confidences are put in ``n_bins`` equal-width bins over [0, 1] (bin ``b``
    holds ``(b/M, (b+1)/M]``, the first bin also 0); ECE is
    ``sum_b |B_b| / N * |accuracy(B_b) - confidence(B_b)|`` (``norm="l1"``), or the
    largest gap over the non-empty bins (``norm="max"``, the maximum calibration
    error).

    * **binary**: ``y_prob`` of shape (n,), the probability of the positive class;
      confidence = ``y_prob``, accuracy = the share of positives (as in
      ``torchmetrics.classification.BinaryCalibrationError``).
    * **multilabel**: ``y_prob`` and ``y_true`` of shape (n, k); every (row, label)
      is one binary prediction, pooled over labels.
    * **multiclass**: ``y_prob`` (n, k) and ``y_true`` (n,) class indices; the
      top-label ECE of Guo et al.: confidence = the largest probability, accuracy =
      whether its class is the true one.

    Parameters
    ----------
    y_true : array-like of shape (n,) or (n, k)
    y_prob : array-like of shape (n,) or (n, k)
        Probabilities in [0, 1].
    n_bins : int, default 15
    norm : {"l1", "max"}, default "l1"

    Returns
    -------
    float

    Examples
    --------
    >>> from biasamp import calibration_error
    >>> calibration_error([1, 0, 1, 1], [0.9, 0.2, 0.6, 0.8], n_bins=5)
    0.225
    """
    if isinstance(n_bins, bool) or not isinstance(n_bins, (int, np.integer)) or n_bins < 1:
        raise ValueError(ERR_BINS.format(got=n_bins))
    if norm not in ("l1", "max"):
        raise ValueError(ERR_NORM.format(got=norm))
    prob = np.asarray(y_prob, dtype=np.float64)
    truth = np.asarray(y_true)
    if prob.ndim == 0 or len(prob) == 0:
        raise ValueError(ERR_EMPTY)
    bad = ~np.isfinite(prob) | (prob < 0) | (prob > 1)
    if bad.any():
        row = _first_bad(bad)
        raise ValueError(ERR_PROB.format(row=row, got=prob[row].tolist()))
    if prob.ndim == 2 and truth.ndim == 1 and truth.shape[0] == prob.shape[0]:
        k = prob.shape[1]
        if not np.issubdtype(truth.dtype, np.integer) or ((truth < 0) | (truth >= k)).any():
            ok = np.array([isinstance(v, (int, np.integer)) and 0 <= v < k for v in truth.tolist()])
            row = int(np.flatnonzero(~ok)[0]) if (~ok).any() else 0
            raise ValueError(ERR_CLASS.format(k_1=k - 1, row=row, got=truth[row].item()))
        confidence = prob.max(axis=1)
        correct = (prob.argmax(axis=1) == truth).astype(np.float64)
    elif prob.shape == truth.shape and prob.ndim in (1, 2):
        values = truth.astype(np.float64) if truth.dtype != object else None
        if values is None or ((values != 0) & (values != 1)).any():
            wrong = (
                np.ones(truth.shape, dtype=bool)
                if values is None
                else (values != 0) & (values != 1)
            )
            row = _first_bad(wrong)
            raise ValueError(ERR_BINARY.format(row=row, got=truth[row].tolist()))
        confidence = prob.ravel()
        correct = values.ravel()
    else:
        raise ValueError(ERR_SHAPES.format(t=truth.shape, p=prob.shape))
    # bin b holds (b/M, (b+1)/M]; 0 goes to the first bin
    if n_bins <= 4 * len(confidence) + 1024:  # one count per bin: O(rows + n_bins)
        bins = np.clip(np.ceil(confidence * n_bins).astype(np.int64) - 1, 0, n_bins - 1)
        size = int(n_bins)
    else:  # more bins than rows (n_bins=10**18): only the bins that hold a row, no array
        # of n_bins (the bin numbers as floats, exact up to 2**53, then one bin per value)
        edges = np.clip(np.ceil(confidence * float(n_bins)) - 1, 0, float(n_bins) - 1)
        _, bins = np.unique(edges, return_inverse=True)
        bins = bins.reshape(-1)
        size = int(bins.max()) + 1
    count = np.bincount(bins, minlength=size).astype(np.float64)
    gap = np.abs(
        np.bincount(bins, weights=correct, minlength=size)
        - np.bincount(bins, weights=confidence, minlength=size)
    )
    used = count > 0
    if norm == "max":
        return float((gap[used] / count[used]).max())
    return float(gap.sum() / len(confidence))
