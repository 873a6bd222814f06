"""What an attacker predicts: targets of the predictability metrics.

A :class:`Target` is one side of a predictability experiment (the ground truth,
its perturbed copy, or the model's outputs) in one of three kinds:

``"multiclass"``
    One label per row among ``k >= 2`` labels. Hard targets are integer codes
    ``(n,)``; soft targets (model scores) are probabilities ``(n, k)`` whose
    rows sum to 1.
``"multilabel"``
    ``k >= 1`` independent 0/1 labels per row, a dense float ``(n, k)`` array
    of 0/1 (hard) or probabilities (soft). A single 0/1 column is a binary
    variable.
``"continuous"``
    Real values ``(n, k)``: a regression target (DPA paper, appendix D.1).

Model outputs may be labels, probabilities, or unbounded scores (logits):
:func:`prediction_target` turns them into a target of the same kind as the
ground truth. Scores outside [0, 1] are taken as logits (softmax for
multiclass, sigmoid for multilabel); a 1-D vector of numbers for a two-label
ground truth is the score of the second label.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import scipy.sparse as sp

from biasamp.inputs._containers import ERR_TYPE, to_native_numpy
from biasamp.inputs._keys import key_names
from biasamp.inputs._label_matrix import (
    ERR_FIRST_ROW,
    ERR_NAN,
    ERR_POSITIVE,
    LabelMatrix,
    as_label_matrix,
)

__all__ = ["Target", "label_target", "prediction_target", "continuous_matrix"]

ERR_SCORE_SHAPE = (
    "{arg}: scores must have one column per label of {source} ({expected}), got shape {shape}."
)
ERR_SINGLE_CLASS = "{arg}: needs at least two distinct labels, got {names}."


@dataclass(frozen=True)
class Target:
    """One attacker target: ``values`` of ``kind`` with ``k`` labels (see module docs)."""

    kind: str
    values: np.ndarray
    names: tuple[Any, ...]
    soft: bool = False

    @property
    def n(self) -> int:
        return int(self.values.shape[0])

    @property
    def k(self) -> int:
        return len(self.names)

    def take(self, rows: np.ndarray) -> Target:
        return Target(self.kind, self.values[rows], self.names, self.soft)

    def with_values(self, values: np.ndarray, *, soft: bool | None = None) -> Target:
        return Target(self.kind, values, self.names, self.soft if soft is None else soft)

    def dense(self) -> np.ndarray:
        """The target as an ``(n, k)`` float array (one-hot for hard multiclass)."""
        if self.kind == "multiclass" and not self.soft:
            out = np.zeros((self.n, self.k))
            out[np.arange(self.n), self.values] = 1.0
            return out
        return np.asarray(self.values, dtype=np.float64)

    def hard(self) -> Target:
        """Hard labels: argmax for multiclass scores, ``>= 0.5`` for multilabel ones."""
        if not self.soft or self.kind == "continuous":
            return self
        if self.kind == "multiclass":
            return Target(self.kind, np.argmax(self.values, axis=1), self.names, False)
        return Target(self.kind, (self.values >= 0.5).astype(np.float64), self.names, False)


def _is_one_hot(matrix: LabelMatrix) -> bool:
    if matrix.codes is not None:  # one-hot by construction (1-D labels)
        return True
    # checked 0/1 indicators are summed as they are held (no float64 copy); row sums of
    # at most n_labels ones are exact in any of their dtypes
    values = matrix.counting_values() if not matrix.soft else matrix.values
    sums = np.asarray(values.sum(axis=1)).ravel()
    return bool(np.all(sums == 1))


def _matrix_codes(matrix: LabelMatrix) -> np.ndarray:
    """:func:`_one_hot_codes` of a one-hot label matrix (its codes when it has them)."""
    if matrix.codes is not None:
        return matrix.codes.astype(np.int64)
    return _one_hot_codes(matrix.counting_values() if not matrix.soft else matrix.values)


def _indicator_values(matrix: LabelMatrix) -> np.ndarray:
    """The matrix as a new float64 array (from the checked 0/1 indicators when held)."""
    if matrix.zero_one is not None and not matrix.soft:
        return np.array(matrix.zero_one, dtype=np.float64)
    return matrix.dense().astype(np.float64)


def _one_hot_codes(values: np.ndarray | sp.csr_matrix) -> np.ndarray:
    """The column of the single 1 of every row of a 0/1 one-hot matrix."""
    if sp.issparse(values):
        csr = sp.csr_matrix(values)
        csr.eliminate_zeros()
        return csr.indices[csr.indptr[:-1]].astype(np.int64)
    return np.argmax(values, axis=1).astype(np.int64)


def label_target(matrix: LabelMatrix, *, one_d: bool) -> Target:
    """The ground truth of one role as a target.

    1-D labels and 2-D indicators whose every row has exactly one 1 are
    multiclass; other indicator matrices are multilabel.
    """
    if (one_d or _is_one_hot(matrix)) and matrix.n_labels >= 2:
        return Target("multiclass", _matrix_codes(matrix), matrix.names)
    if one_d:
        raise ValueError(ERR_SINGLE_CLASS.format(arg=matrix.arg, names=list(matrix.names)))
    return Target("multilabel", _indicator_values(matrix), matrix.names)


def _softmax(z: np.ndarray) -> np.ndarray:
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


def _numeric_2d(x: Any, arg: str) -> np.ndarray | None:
    """``x`` as a finite float array if it is numeric, else ``None``."""
    if sp.issparse(x):
        # scipy-stubs' issparse narrows Any to SparseABC, which declares no methods
        arr = np.asarray(x.toarray(), dtype=np.float64)  # type: ignore[attr-defined]
    elif isinstance(x, pd.DataFrame):
        try:
            arr = x.to_numpy(dtype=np.float64)
        except (TypeError, ValueError):
            return None
    else:
        arr = np.asarray(x)
        if arr.dtype.kind not in "biuf":
            return None
        arr = arr.astype(np.float64)
    finite = np.isfinite(arr)
    if not finite.all():
        row = int(np.flatnonzero(~finite.reshape(finite.shape[0], -1).all(axis=1))[0])
        raise ValueError(
            ERR_NAN.format(arg=arg, count=int((~finite).sum())) + ERR_FIRST_ROW.format(row=row)
        )
    return arr


def prediction_target(
    x: Any,
    truth: Target,
    *,
    arg: str,
    source: str,
    positive: Any = None,
    positive_param: str = "positive_label",
) -> Target:
    """The model's outputs ``x`` as a target of the same kind as ``truth``.

    Labels (1-D or 0/1 indicators) give a hard target; probabilities and
    scores give a soft one (logits are squashed, see the module docs). A 1-D
    score for a two-label truth is that of the second label in sorted order
    (scikit-learn's ``classes_[1]``), or of ``positive``.
    """
    native = to_native_numpy(x, arg=arg)
    if native.columns is not None:  # a frame's columns: none repeated, none printing alike
        key_names(list(native.columns), arg=arg)
    x = native.values if native.columns is None else x
    pos = 1
    if positive is not None:
        if positive not in truth.names:
            raise ValueError(
                ERR_POSITIVE.format(param=positive_param, got=positive, names=list(truth.names))
            )
        pos = truth.names.index(positive)
    matrix: LabelMatrix | None
    try:
        if positive is not None and np.ndim(x) == 1 and np.asarray(x).dtype.kind == "f":
            raise ValueError("a score, not a label")  # positive= names what a score scores
        matrix = as_label_matrix(x, arg=arg, names=truth.names, source=source)
    except ValueError:
        matrix = None
    except TypeError:
        raise
    if matrix is not None:
        if truth.kind == "multiclass":
            if not _is_one_hot(matrix):
                # 0/1 scores that are not one-hot: treat them as scores below
                matrix = None
            else:
                return Target("multiclass", _matrix_codes(matrix), truth.names)
        else:
            return Target("multilabel", _indicator_values(matrix), truth.names)
    if native.columns is not None:
        x = pd.DataFrame(native.values, columns=list(native.columns))
    if not (sp.issparse(x) or isinstance(x, (pd.DataFrame, np.ndarray, list, tuple))):
        raise TypeError(ERR_TYPE.format(arg=arg, type_name=type(x).__name__))
    arr = _numeric_2d(x, arg)
    if arr is None:
        # non-numeric labels that as_label_matrix rejected: re-raise its message
        as_label_matrix(x, arg=arg, names=truth.names, source=source)
        raise AssertionError("unreachable")  # pragma: no cover
    if arr.ndim == 1 and truth.kind == "multilabel" and truth.k == 1:
        arr = arr[:, None]
    elif arr.ndim == 1 and truth.k == 2:
        # the score of the second label in sorted order, or of positive=
        two = np.empty((arr.shape[0], 2))
        two[:, pos] = arr
        two[:, 1 - pos] = -arr if (arr.min() < 0 or arr.max() > 1) else 1.0 - arr
        arr = two
        if truth.kind == "multilabel":
            arr = arr[:, 1:]
    if arr.ndim != 2 or arr.shape[1] != (
        truth.k if truth.kind == "multiclass" else truth.values.shape[1]
    ):
        raise ValueError(
            ERR_SCORE_SHAPE.format(arg=arg, source=source, expected=truth.k, shape=arr.shape)
        )
    in_unit = arr.size == 0 or (arr.min() >= 0 and arr.max() <= 1)
    if truth.kind == "multiclass":
        if in_unit and np.allclose(arr.sum(axis=1), 1.0, atol=1e-6):
            probs = arr / arr.sum(axis=1, keepdims=True)
        else:
            probs = _softmax(arr)
        return Target("multiclass", probs, truth.names, soft=True)
    if in_unit:
        probs = arr
    else:
        from scipy.special import expit  # lazy: keeps `import biasamp` fast

        probs = expit(arr)  # the sigmoid, without overflow warnings for large logits
    return Target("multilabel", probs, truth.names, soft=True)


def continuous_matrix(x: Any, *, arg: str) -> np.ndarray:
    """A real-valued input or target as a finite ``(n, k)`` float array."""
    if x is None:
        raise TypeError(ERR_TYPE.format(arg=arg, type_name=type(x).__name__))
    native = to_native_numpy(x, arg=arg)
    arr = _numeric_2d(native.values, arg)
    if arr is None:
        raise TypeError(f"{arg}: continuous=True needs numeric values.")
    if arr.ndim == 1:
        arr = arr[:, None]
    if arr.ndim != 2 or arr.shape[0] == 0 or arr.shape[1] == 0:
        raise ValueError(f"{arg}: expected a non-empty 1-D or 2-D array, got shape {arr.shape}.")
    return arr
