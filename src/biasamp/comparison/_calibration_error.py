"""Expected calibration error (ECE), binned as usual (Guo et al. 2017; Naeini et al. 2015).

Hall et al. (2022, "A Systematic Study of Bias Amplification") read bias amplification
next to the model's calibration over training; :func:`calibration_error` gives the
number to put beside each checkpoint in :func:`biasamp.compare`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from biasamp.inputs._containers import to_native_numpy
from biasamp.inputs._readers import check_knob, read_labels, read_posteriors

__all__ = ["calibration_error"]

ERR_SHAPES = (
    "y_true, y_prob: expected y_prob of shape (n,) with y_true (n,) of 0/1 (binary), "
    "(n, k) with y_true (n, k) of 0/1 (multilabel) or (n, k) with y_true (n,) of class "
    "indices (multiclass); got y_true {t} and y_prob {p}."
)
ERR_BINARY = "y_true: expected 0 or 1 (or booleans); row {row} holds {got!r}."
ERR_CLASS = "y_true: expected class indices 0 .. {k_1}; row {row} holds {got!r}."
ERR_NORM = "norm: expected 'l1' or 'max', got {got!r}."
ERR_EMPTY = "y_true, y_prob: expected at least one row."
ERR_NONE = "{arg}: expected an array of one value per row, got None."


def bin_edges(n_bins: int, dtype: Any) -> np.ndarray:
    """The ``n_bins + 1`` bin edges of torchmetrics, bit for bit: ``torch.linspace(0, 1, n_bins + 1)``.

    torch computes edge ``i`` as ``i * step`` below the midpoint and ``1 - (n_bins - i) * step``
    from it on, with ``step = 1 / n_bins`` rounded to ``dtype`` and one rounding per edge
    (a fused multiply-add), so an edge can sit one unit in the last place off ``i / n_bins``.
    The arithmetic here reproduces that rounding exactly, on whole arrays (see :func:`_edges_at`).
    """
    return _edges_at(np.arange(n_bins + 1), n_bins, dtype)


def _split(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Veltkamp's split of float64 ``a`` into two halves of 26 bits (``a = hi + lo`` exactly)."""
    c = 134217729.0 * a  # 2**27 + 1
    hi = c - (c - a)
    return hi, a - hi


def _two_sum(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Knuth's TwoSum: ``s = fl(a + b)`` and its exact error (``a + b = s + e``)."""
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def _one_minus_product(step: float, m: np.ndarray) -> np.ndarray:
    """``fl(1 - step * m)`` with one rounding (a fused multiply-add), for float64 ``m``.

    Boldo and Melquiond's emulation of an FMA (IEEE Trans. Computers, 2008): the exact
    product as two floats (Dekker), the exact sum with 1 as two floats (TwoSum), the two
    low parts added with rounding to odd, then one rounding to nearest.
    """
    a = np.float64(-step)
    uh = a * m
    ah, al = _split(np.full_like(m, a))
    mh, ml = _split(m)
    ul = ((ah * mh - uh) + ah * ml + al * mh) + al * ml  # uh + ul == a * m exactly
    th, tl = _two_sum(np.ones_like(uh), uh)  # th + tl == 1 + uh exactly
    v, err = _two_sum(tl, ul)
    inexact_even = (err != 0) & ((v.view(np.int64) & 1) == 0)  # round to odd
    v = np.where(inexact_even, np.nextafter(v, np.where(err > 0, np.inf, -np.inf)), v)
    return th + v


def _edges_at(index: np.ndarray, n_bins: int, dtype: Any) -> np.ndarray:
    """Edges ``index`` of :func:`bin_edges`, without the other edges (vectorised; exact).

    In float64 ``i * step`` is one correctly rounded product (``i`` < 2**53 is a float64),
    and ``1 - (n_bins - i) * step`` one fused multiply-add (:func:`_one_minus_product`).
    In float32 the float64 products of a float32 step are exact, then rounded once.
    """
    index = np.asarray(index, dtype=np.int64)
    half = (n_bins + 1) // 2
    if np.dtype(dtype) == np.float32:
        step = np.float64(np.float32(1.0) / np.float32(n_bins))
        exact = np.where(index < half, step * index, 1.0 - step * (n_bins - index))
        return exact.astype(np.float32)
    step64 = 1.0 / n_bins
    low = index < half
    out = np.empty(index.shape, dtype=np.float64)
    out[low] = step64 * index[low].astype(np.float64)
    out[~low] = _one_minus_product(step64, (n_bins - index[~low]).astype(np.float64))
    return out


def bin_of(confidence: np.ndarray, n_bins: int, dtype: Any) -> np.ndarray:
    """Bin of each confidence, as torchmetrics bins them (the one binning rule of ECE).

    Bin ``b`` holds ``[edge_b, edge_(b+1))`` with torchmetrics' edges (:func:`bin_edges`,
    ``b / n_bins`` up to one unit in the last place); a confidence of exactly 1.0 is alone
    in an extra bin ``n_bins`` (its gap counts like any other bin's). The comparison is made
    in ``dtype``, the precision torchmetrics compares in.
    """
    values = confidence.astype(dtype)
    if n_bins <= 4 * len(values) + 1024:
        edges = bin_edges(n_bins, dtype)
        return np.searchsorted(edges, values, side="right") - 1
    if n_bins > 2**53:  # bins finer than float64 can index: each distinct value its own bin
        return np.unique(values, return_inverse=True)[1].reshape(-1)
    # more bins than rows: the bin of a value is floor(value * M) up to one edge either
    # side; only the edges next to the values are computed (never an array of M edges)
    guess = np.clip(np.floor(values.astype(np.float64) * n_bins), 0, n_bins).astype(np.int64)
    near = np.unique(np.concatenate([guess - 1, guess, guess + 1, guess + 2]))
    near = near[(near >= 0) & (near <= n_bins)]
    edges = _edges_at(near, n_bins, dtype)
    return near[np.searchsorted(edges, values, side="right") - 1]


def torch_precision(y_prob: Any) -> Any:
    """The float type ``torch.tensor(y_prob)`` would have, which torchmetrics' binary ECE
    compares bin edges in: float64 for float64 arrays, tensors and Series; float32 for
    other arrays and for Python lists and tuples (torch's default dtype)."""
    if not hasattr(y_prob, "dtype"):
        return np.float32
    return np.float64 if np.asarray(y_prob).dtype == np.float64 else np.float32


def _first_bad(mask: np.ndarray) -> int:
    return int(np.flatnonzero(np.asarray(mask).reshape(mask.shape[0], -1).any(axis=1))[0])


def calibration_error(y_true: Any, y_prob: Any, *, n_bins: int = 15, norm: str = "l1") -> float:
    """Expected calibration error of predicted probabilities, with equal-width bins.

    The confidences are binned exactly as torchmetrics bins them: ``n_bins``
    equal-width bins over [0, 1], bin ``b`` holding ``[b/M, (b+1)/M)`` (a confidence
    on an edge goes to the bin above it), and a confidence of exactly 1.0 alone in
    one more bin (the edges are torchmetrics' ``torch.linspace(0, 1, M + 1)``, which
    can sit one unit in the last place off ``b/M``; see :func:`bin_of`). ECE is
    ``sum_b |B_b| / N * |accuracy(B_b) - confidence(B_b)|`` (``norm="l1"``), or the
    largest gap over the non-empty bins (``norm="max"``, the maximum calibration
    error).

    **The shape of** ``y_prob`` **decides what is measured** (one rule, torchmetrics'):

    * **binary**: ``y_prob`` of shape (n,), the probability of the positive class;
      confidence = ``y_prob``, accuracy = the share of positives, as
      ``torchmetrics``' ``binary_calibration_error``. Bins are compared in the
      precision ``torch.tensor(y_prob)`` would have (:func:`torch_precision`):
      float64 for a float64 array or tensor, float32 for float32 input and for a
      Python list (torch's default dtype).
    * **multilabel**: ``y_prob`` and ``y_true`` of shape (n, k); every (row, label)
      is one binary prediction, pooled over labels (as binary).
    * **multiclass**: ``y_prob`` (n, k) and ``y_true`` (n,) class indices; the
      top-label ECE of Guo et al.: confidence = the largest probability (the first
      class on ties), accuracy = whether its class is the true one, as
      ``multiclass_calibration_error``, which bins in float32.

    One binary problem therefore has two ECEs: ``y_prob=p`` (shape (n,)) measures the
    calibration of ``p`` itself, ``y_prob=[1 - p, p]`` (shape (n, 2), ``y_true`` the
    class index) the calibration of the top label, ``max(p, 1 - p)``. They differ in
    general, exactly as torchmetrics' binary and two-class multiclass metrics do;
    pass the shape whose question you ask.

    Parameters
    ----------
    y_true : array-like of shape (n,) or (n, k)
    y_prob : array-like of shape (n,) or (n, k)
        Probabilities in [0, 1].
    n_bins : int, default 15
        Equal-width bins. With more bins than rows only the bins that hold a row are
        counted (no array of n_bins); above 2**53 bins, finer than float64 can index,
        each distinct confidence is a bin of its own.
    norm : {"l1", "max"}, default "l1"

    Returns
    -------
    float

    Examples
    --------
    >>> from biasamp import calibration_error
    >>> round(calibration_error([1, 0, 1, 1], [0.9, 0.2, 0.6, 0.8], n_bins=5), 4)
    0.225

    One binary problem, two questions: the calibration of ``p`` (shape (n,)) and of
    the top label (shape (n, 2), true class indices), as in torchmetrics:

    >>> round(calibration_error([1, 1], [0.3, 0.7], n_bins=5), 4)  # gaps 0.7 and 0.3
    0.5
    >>> round(calibration_error([1, 1], [[0.7, 0.3], [0.3, 0.7]], n_bins=5), 4)  # one bin
    0.2
    """
    if norm not in ("l1", "max"):
        raise ValueError(ERR_NORM.format(got=norm))
    if y_prob is None or y_true is None:
        raise ValueError(ERR_NONE.format(arg="y_prob" if y_prob is None else "y_true"))
    # the boundary's readers: missing values (None, NaN, pd.NA) refused naming the row
    truth = np.asarray(to_native_numpy(y_true, arg="y_true").values)
    if truth.ndim == 0:
        raise ValueError(ERR_SHAPES.format(t=truth.shape, p=np.shape(y_prob)))
    if len(truth) == 0:
        raise ValueError(ERR_EMPTY)
    if truth.dtype == object and truth.ndim == 1:  # mixed types: 1 with '1', True with 1
        read_labels(truth, arg="y_true")
    prob = read_posteriors(y_prob, arg="y_prob", ndim=(1, 2))
    # memory: edges for at most 4 x rows + 1024 bins (bin_of), whatever n_bins is
    n_bins = check_knob("n_bins", n_bins)
    if prob.ndim == 2 and truth.ndim == 1 and truth.shape[0] == prob.shape[0]:
        k = prob.shape[1]
        if not np.issubdtype(truth.dtype, np.integer) or ((truth < 0) | (truth >= k)).any():
            ok = np.array([isinstance(v, (int, np.integer)) and 0 <= v < k for v in truth.tolist()])
            row = int(np.flatnonzero(~ok)[0]) if (~ok).any() else 0
            raise ValueError(ERR_CLASS.format(k_1=k - 1, row=row, got=truth[row].item()))
        confidence = prob.max(axis=1)
        correct = (prob.argmax(axis=1) == truth).astype(np.float64)
        precision: Any = np.float32  # torchmetrics' multiclass casts confidences to float32
    elif prob.shape == truth.shape and prob.ndim in (1, 2):
        values = truth.astype(np.float64) if truth.dtype.kind in "biuf" else None
        if values is None or ((values != 0) & (values != 1)).any():
            wrong = (
                np.ones(truth.shape, dtype=bool)
                if values is None
                else (values != 0) & (values != 1)
            )
            row = _first_bad(wrong)
            raise ValueError(ERR_BINARY.format(row=row, got=np.asarray(truth[row]).tolist()))
        confidence = prob.ravel()
        correct = values.ravel()
        precision = torch_precision(y_prob)
    else:
        raise ValueError(ERR_SHAPES.format(t=truth.shape, p=prob.shape))
    bins = bin_of(confidence, n_bins, precision)
    if n_bins <= 4 * len(confidence) + 1024:  # one count per bin: O(rows + n_bins)
        size = int(n_bins) + 1
    else:  # more bins than rows (n_bins=10**18): only the bins that hold a row
        _, bins = np.unique(bins, return_inverse=True)
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
