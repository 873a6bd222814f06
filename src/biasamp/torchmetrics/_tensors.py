"""Tensors in, numpy label arrays out: what the torchmetrics classes accept in ``update``.

A role's tensor may be

* 1-D integer class indices in ``[0, k)`` (one label per row);
* 2-D ``(n, k)`` multi-hot 0/1 (bool, integer or float);
* 2-D ``(n, k)`` probabilities or scores of a *prediction* role, made 0/1 with
  ``threshold`` (positive when ``score > threshold``, biasamp's rule) or used
  as expected counts with ``soft=True``.

Tensors on any device are detached and copied to the CPU; numpy arrays and
lists are accepted as well. Validation (range, 0/1, shapes) is the adapter
layer's (:func:`biasamp.inputs.as_label_matrix`), so messages match the
functional API.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
import scipy.sparse as sp

from biasamp.inputs._label_matrix import ERR_NAN

__all__ = [
    "ERR_INDEX_DTYPE",
    "ERR_SCORES",
    "ERR_THRESHOLD",
    "check_threshold",
    "names_to_indices",
    "to_numpy_labels",
]

ERR_INDEX_DTYPE = (
    "{arg}: a 1-D tensor must hold integer class indices in [0, {k}), got dtype {dtype}; "
    "pass scores as a 2-D (n, {k}) tensor with threshold= or soft=True."
)
ERR_INDEX_RANGE = "{arg}: class indices must lie in [0, {k}); found values in [{low}, {high}]."
ERR_THRESHOLD = (
    "threshold: expected None, a number or a sequence of one number per column, got {got!r}."
)
ERR_THRESHOLD_AND_SOFT = "Give threshold= or soft=True, not both."
ERR_SCORES = (
    "{arg}: these look like scores (values other than 0 and 1, for example {example!r}); "
    "create the metric with threshold= (a row is positive when score > threshold; one number "
    "or one per column) or soft=True (probabilities in [0, 1] counted as expected counts)."
)


def check_threshold(threshold: Any, soft: bool) -> float | np.ndarray | None:
    """Validate ``threshold`` (a number or one per column) against ``soft``."""
    if threshold is None:
        return None
    if soft:
        raise ValueError(ERR_THRESHOLD_AND_SOFT)
    if isinstance(threshold, (bool, np.bool_)):
        raise ValueError(ERR_THRESHOLD.format(got=threshold))
    if isinstance(threshold, (int, float, np.number)):
        if not np.isfinite(threshold):
            raise ValueError(ERR_THRESHOLD.format(got=threshold))
        return float(threshold)
    if isinstance(threshold, Sequence) or isinstance(threshold, np.ndarray):
        values = np.asarray(threshold, dtype=np.float64)
        if values.ndim != 1 or not np.isfinite(values).all():
            raise ValueError(ERR_THRESHOLD.format(got=threshold))
        return values
    raise ValueError(ERR_THRESHOLD.format(got=threshold))


def _as_numpy(x: Any) -> np.ndarray:
    detach = getattr(x, "detach", None)
    if detach is not None:  # a torch tensor, on any device
        return np.asarray(detach().cpu().numpy())
    return np.asarray(x)


def to_numpy_labels(
    x: Any,
    *,
    arg: str,
    k: int,
    prediction: bool,
    threshold: float | np.ndarray | None,
    soft: bool = False,
) -> np.ndarray | sp.csr_matrix:
    """One role's tensor as a numpy array :func:`biasamp.inputs.as_label_matrix` accepts.

    Returns a one-hot CSR matrix for 1-D class indices, or a 2-D ``(n, k)``
    array; thresholding applies to 2-D predictions only.
    """
    values = _as_numpy(x)
    if values.ndim == 1:
        if values.dtype.kind not in "iu":
            raise TypeError(ERR_INDEX_DTYPE.format(arg=arg, k=k, dtype=values.dtype))
        if values.size and (values.min() < 0 or values.max() >= k):
            raise ValueError(
                ERR_INDEX_RANGE.format(arg=arg, k=k, low=values.min(), high=values.max())
            )
        # one-hot as CSR: no label lookup needed, and memory stays O(n) for any k
        n = values.shape[0]
        return sp.csr_matrix(
            (np.ones(n), values.astype(np.int64, copy=False), np.arange(n + 1, dtype=np.int64)),
            shape=(n, k),
        )
    if values.ndim == 2 and values.dtype.kind == "b":
        return values
    if values.ndim == 2 and prediction and threshold is not None:
        scores = values.astype(np.float64, copy=False)
        finite = np.isfinite(scores)
        if not finite.all():
            raise ValueError(ERR_NAN.format(arg=arg, count=int((~finite).sum())))
        if np.ndim(threshold) == 1 and np.shape(threshold)[0] != scores.shape[1]:
            raise ValueError(ERR_THRESHOLD.format(got=threshold))
        return (scores > threshold).astype(np.float64)
    if values.ndim == 2 and prediction and not soft and values.dtype.kind == "f":
        odd = np.flatnonzero((values != 0) & (values != 1) & np.isfinite(values))
        if odd.size:
            raise ValueError(ERR_SCORES.format(arg=arg, example=float(values.flat[odd[0]])))
    return values.astype(np.float64, copy=False) if values.dtype.kind in "iuf" else values


ERR_LABEL_NAME = (
    "{arg}: label {label!r} (row {row}) is not one of the {kind}_names {names}; pass class "
    "indices 0 .. {last} or these names."
)
ERR_NAMES_NEEDED = (
    "{arg}: got label names (for example {label!r}) but the metric was created without "
    "{kind}_names; pass {kind}_names=[...] at construction (a name's position is its class "
    "index), or pass class indices."
)


def names_to_indices(x: Any, *, arg: str, names: tuple[Any, ...] | None, kind: str) -> Any:
    """A 1-D list or array of label names as class indices (the names' positions); other
    inputs (tensors, indices, multi-hot) pass unchanged.

    ``names`` is ``None`` when the metric was created without names (then names in
    ``x`` are an error that says how to map them).
    """
    if hasattr(x, "detach") or sp.issparse(x):
        return x
    values = np.asarray(x, dtype=object) if isinstance(x, (list, tuple)) else x
    if not isinstance(values, np.ndarray) or values.ndim != 1 or values.size == 0:
        return x
    if values.dtype.kind == "O":
        is_text = np.fromiter((isinstance(v, str) for v in values), bool, values.size)
        if not is_text.any():
            return x
    elif values.dtype.kind != "U":
        return x
    first = next(v for v in values if isinstance(v, str))
    if names is None:
        raise ValueError(ERR_NAMES_NEEDED.format(arg=arg, label=first, kind=kind))
    index = pd.Index(list(names), dtype=object).get_indexer(values.astype(object))
    missing = np.flatnonzero(index < 0)
    if missing.size:
        row = int(missing[0])
        raise ValueError(
            ERR_LABEL_NAME.format(
                arg=arg,
                label=values[row],
                row=row,
                kind=kind,
                names=list(names),
                last=len(names) - 1,
            )
        )
    return index.astype(np.int64)
