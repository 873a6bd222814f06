"""Input arrays to label matrices.

Every metric in biasamp takes its label arrays by role (``groups``, ``tasks``,
``groups_pred``, ``tasks_pred``, ``groups_train``, ``tasks_train``). This module
turns each of them into a :class:`LabelMatrix`: an ``(n, k)`` float matrix with
one column per label and the label names in column order.

Accepted forms
--------------
* 1-D labels, one per instance: a list, numpy array, pandas Series or
  pandas Categorical of strings or integers. The result is one-hot.
* 2-D 0/1 indicators ``(n, k)``: numpy array, pandas DataFrame (the column
  names become the label names) or any scipy.sparse matrix. A row may be all
  zeros: that instance belongs to no label of this role.

Label-set rule
--------------
The *canonical* names of a role come from the first split that fixes them: the
training split when it is given, otherwise the evaluation ground truth, or the
``group_names`` / ``task_names`` a caller passes. Every other split must use
the same names: a 1-D label outside the canonical set, or a DataFrame whose
columns are not exactly the canonical set, raises ``ValueError``. A plain
2-D array has no names; it must have as many columns as the canonical set and
its columns are taken in that order. Canonical labels that never occur in a
split are fine (their counts are zero).

All messages are module constants so that tests can match them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import scipy.sparse as sp

__all__ = [
    "LabelMatrix",
    "as_label_matrix",
    "as_sample_weight",
    "check_same_length",
]

# --- error messages (reused by the tests) ---------------------------------
ERR_NDIM = "{arg}: expected a 1-D array of labels or a 2-D indicator matrix, got {ndim} dimensions."
ERR_EMPTY = "{arg}: the split is empty (0 rows)."
ERR_NO_COLUMNS = "{arg}: the indicator matrix has no columns."
ERR_NAN = "{arg}: contains NaN or infinite values ({count} entries)."
ERR_MISSING_LABEL = "{arg}: contains {count} missing labels (None or NaN)."
ERR_NON_BINARY = (
    "{arg}: indicator values must be 0 or 1; found {examples}. "
    "Pass soft=True to use probabilities in [0, 1] for predictions."
)
ERR_SOFT_RANGE = "{arg}: soft predictions must lie in [0, 1]; found values in [{low}, {high}]."
ERR_UNKNOWN_LABELS = (
    "{arg}: {count} label(s) not in the canonical label set {source}: {examples}. "
    "Label sets must line up across splits."
)
ERR_COLUMNS_DIFFER = (
    "{arg}: column names differ from the canonical label set {source}; "
    "missing {missing}, unexpected {unexpected}. Label sets must line up across splits."
)
ERR_N_COLUMNS = (
    "{arg}: has {got} columns but the canonical label set {source} has {expected} labels."
)
ERR_DUPLICATE_NAMES = "{arg}: duplicate label names: {examples}."
ERR_LENGTH = (
    "Mismatched lengths: {details}. All arrays of one split must have one row per instance."
)
ERR_WEIGHT_NEGATIVE = "{arg}: weights must be non-negative; found {count} negative values."
ERR_WEIGHT_SHAPE = "{arg}: expected a 1-D array of length {n}, got shape {shape}."
ERR_EMPTY_SPLIT = "{arg}: the split is empty (its rows have total weight 0)."
ERR_TYPE = (
    "{arg}: unsupported type {type_name}; pass a numpy array, pandas object or scipy.sparse matrix."
)
ERR_NON_NUMERIC = "{arg}: a 2-D indicator matrix must be numeric, got dtype {dtype}."
ERR_UNHASHABLE = (
    "{arg}: 1-D labels must be hashable scalars ({error}); for several labels per "
    "instance pass a 2-D 0/1 indicator matrix (for example from "
    "sklearn.preprocessing.MultiLabelBinarizer)."
)

_MAX_EXAMPLES = 5


def _examples(values: Sequence[Any]) -> str:
    values = [v.item() if isinstance(v, np.generic) else v for v in values]
    shown = ", ".join(repr(v) for v in values[:_MAX_EXAMPLES])
    if len(values) > _MAX_EXAMPLES:
        shown += f", ... ({len(values)} in all)"
    return shown


@dataclass(frozen=True)
class LabelMatrix:
    """An ``(n, k)`` label matrix of one role, with the label names in column order.

    ``values`` is a float64 numpy array or a scipy.sparse CSR matrix. Rows may be
    all zero. With ``soft`` the entries are probabilities in [0, 1].
    """

    values: np.ndarray | sp.csr_matrix
    names: tuple[Any, ...]
    arg: str
    soft: bool = False

    @property
    def n_rows(self) -> int:
        return int(self.values.shape[0])

    @property
    def n_labels(self) -> int:
        return int(self.values.shape[1])

    @property
    def is_sparse(self) -> bool:
        return sp.issparse(self.values)

    def dense(self) -> np.ndarray:
        """The matrix as a dense float64 array."""
        if sp.issparse(self.values):
            return np.asarray(self.values.toarray(), dtype=np.float64)
        return self.values

    def take(self, rows: np.ndarray) -> LabelMatrix:
        """The rows ``rows`` (indices or a boolean mask) as a new matrix."""
        return LabelMatrix(self.values[rows], self.names, self.arg, self.soft)


def _plain_names(names: Sequence[Any]) -> tuple[Any, ...]:
    """Label names as plain Python scalars (``np.str_('a')`` becomes ``'a'``)."""
    return tuple(v.item() if isinstance(v, np.generic) else v for v in names)


def _names_source(source: str | None) -> str:
    return f"(from {source})" if source else ""


def _to_numpy_1d(x: Any, arg: str) -> tuple[np.ndarray, tuple[Any, ...] | None]:
    """A 1-D input as an object/numeric array, plus the categories of a Categorical."""
    categories = None
    if isinstance(x, pd.Series) and isinstance(x.dtype, pd.CategoricalDtype):
        categories = tuple(x.cat.categories)
        x = x.astype(object)
    elif isinstance(x, pd.Categorical):
        categories = tuple(x.categories)
        x = np.asarray(x, dtype=object)
    arr = np.asarray(x)
    return arr, categories


def _factorize(arr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``codes`` (-1 for a missing label) and the distinct labels, in first-seen order.

    Fixed-width numpy strings are hashed as integer words first (pandas would
    convert them to Python objects, which dominates the cost on millions of
    rows); the hash is verified against the labels and falls back to pandas on
    a collision.
    """
    if arr.dtype.kind == "U" and arr.size and arr.dtype.itemsize % 4 == 0:
        words = np.ascontiguousarray(arr).view(np.uint32).reshape(arr.shape[0], -1)
        hashed = np.zeros(arr.shape[0], dtype=np.uint64)
        for j in range(words.shape[1]):  # loop over characters of the width, not rows
            hashed = hashed * np.uint64(1_000_003) + words[:, j].astype(np.uint64)
        codes, unique_hashes = pd.factorize(hashed)
        first = np.empty(len(unique_hashes), dtype=np.int64)
        first[codes[::-1]] = np.arange(arr.shape[0] - 1, -1, -1)
        uniques = arr[first]
        if np.array_equal(uniques[codes], arr):
            return codes, uniques
    codes, uniques = pd.factorize(arr, use_na_sentinel=True)
    return np.asarray(codes), np.asarray(uniques, dtype=object)


def _encode_1d(
    arr: np.ndarray,
    arg: str,
    names: Sequence[Any] | None,
    categories: tuple[Any, ...] | None,
    source: str | None,
) -> tuple[sp.csr_matrix, tuple[Any, ...]]:
    if arr.dtype.kind == "f":
        missing = ~np.isfinite(arr)
        if missing.any():
            raise ValueError(ERR_MISSING_LABEL.format(arg=arg, count=int(missing.sum())))
    try:
        codes, uniques = _factorize(arr)
    except TypeError as exc:  # lists or sets as labels: multi-label data in one column
        raise TypeError(ERR_UNHASHABLE.format(arg=arg, error=exc)) from exc
    missing = codes < 0
    if missing.any():
        raise ValueError(ERR_MISSING_LABEL.format(arg=arg, count=int(missing.sum())))
    if names is None:
        if categories is not None:
            names = categories
        else:
            names = _plain_names(uniques)
            try:
                names = tuple(sorted(names))
            except TypeError:  # mixed types: keep first-seen order
                pass
    names = _plain_names(names)
    index = pd.Index(names)
    if not index.is_unique:
        dup = index[index.duplicated()].tolist()
        raise ValueError(ERR_DUPLICATE_NAMES.format(arg=arg, examples=_examples(dup)))
    lookup = index.get_indexer(pd.Index(uniques, dtype=object))  # distinct labels only
    unknown = lookup < 0
    if unknown.any():
        bad = uniques[unknown]
        raise ValueError(
            ERR_UNKNOWN_LABELS.format(
                arg=arg,
                count=len(bad),
                source=_names_source(source) or repr(list(names)[:_MAX_EXAMPLES]),
                examples=_examples(bad),
            )
        )
    n = arr.shape[0]
    matrix = sp.csr_matrix(
        (
            np.ones(n, dtype=np.float64),
            lookup[codes].astype(np.int64),
            np.arange(n + 1, dtype=np.int64),
        ),
        shape=(n, len(names)),
    )
    return matrix, names


def _check_values(data: np.ndarray, arg: str, soft: bool) -> None:
    """Raise unless every entry of ``data`` is finite and 0/1 (or in [0, 1] when soft)."""
    finite = np.isfinite(data)
    if not finite.all():
        raise ValueError(ERR_NAN.format(arg=arg, count=int((~finite).sum())))
    if soft:
        if data.size and (data.min() < 0 or data.max() > 1):
            raise ValueError(ERR_SOFT_RANGE.format(arg=arg, low=data.min(), high=data.max()))
        return
    bad = (data != 0) & (data != 1)
    if bad.any():
        raise ValueError(
            ERR_NON_BINARY.format(arg=arg, examples=_examples(np.unique(data[bad]).tolist()))
        )


def _align_columns(
    values: np.ndarray | sp.csr_matrix,
    columns: tuple[Any, ...] | None,
    arg: str,
    names: Sequence[Any] | None,
    source: str | None,
) -> tuple[np.ndarray | sp.csr_matrix, tuple[Any, ...]]:
    k = values.shape[1]
    if columns is not None:
        index = pd.Index(columns)
        if not index.is_unique:
            dup = index[index.duplicated()].tolist()
            raise ValueError(ERR_DUPLICATE_NAMES.format(arg=arg, examples=_examples(dup)))
    if names is None:
        return values, columns if columns is not None else tuple(range(k))
    names = tuple(names)
    if columns is None:
        if k != len(names):
            raise ValueError(
                ERR_N_COLUMNS.format(
                    arg=arg, got=k, expected=len(names), source=_names_source(source)
                )
            )
        return values, names
    if set(columns) != set(names) or len(columns) != len(names):
        missing = [c for c in names if c not in set(columns)]
        unexpected = [c for c in columns if c not in set(names)]
        raise ValueError(
            ERR_COLUMNS_DIFFER.format(
                arg=arg,
                source=_names_source(source),
                missing=_examples(missing) or "none",
                unexpected=_examples(unexpected) or "none",
            )
        )
    if tuple(columns) == names:
        return values, names
    order = pd.Index(columns).get_indexer(names)
    return values[:, order], names


def as_label_matrix(
    x: Any,
    *,
    arg: str,
    names: Sequence[Any] | None = None,
    source: str | None = None,
    soft: bool = False,
) -> LabelMatrix:
    """Validate one label argument and return it as a :class:`LabelMatrix`.

    Parameters
    ----------
    x : array-like of shape (n,) or (n, k), DataFrame, or scipy.sparse matrix
        The labels of one role.
    arg : str
        The argument name, used in error messages.
    names : sequence, optional
        The canonical label names. ``None`` lets this argument fix them.
    source : str, optional
        Where the canonical names came from, for error messages.
    soft : bool, default False
        Accept probabilities in [0, 1] in a 2-D matrix instead of 0/1.

    Returns
    -------
    LabelMatrix
    """
    if isinstance(x, LabelMatrix):
        x = x.values
    columns: tuple[Any, ...] | None = None
    if sp.issparse(x):
        if x.ndim != 2:
            raise ValueError(ERR_NDIM.format(arg=arg, ndim=x.ndim))
        values: np.ndarray | sp.csr_matrix = sp.csr_matrix(x, dtype=np.float64)
        values.sum_duplicates()
        _check_values(values.data, arg, soft)
        values.eliminate_zeros()
    elif isinstance(x, pd.DataFrame):
        columns = tuple(x.columns)
        all_bool = len(x.columns) > 0 and all(dt == np.bool_ for dt in x.dtypes)
        try:
            values = x.to_numpy(dtype=np.float64, na_value=np.nan)
        except (TypeError, ValueError) as exc:
            raise TypeError(ERR_NON_NUMERIC.format(arg=arg, dtype=list(x.dtypes.unique()))) from exc
        if not all_bool:  # numpy bool columns are 0/1 by construction
            _check_values(values, arg, soft)
    else:
        if isinstance(x, (pd.Series, pd.Categorical, pd.Index)):
            arr, categories = _to_numpy_1d(x, arg)
        elif isinstance(x, (np.ndarray, list, tuple)):
            arr, categories = np.asarray(x), None
        else:
            raise TypeError(ERR_TYPE.format(arg=arg, type_name=type(x).__name__))
        if arr.ndim == 1:
            if arr.shape[0] == 0:
                raise ValueError(ERR_EMPTY.format(arg=arg))
            matrix, label_names = _encode_1d(arr, arg, names, categories, source)
            return LabelMatrix(matrix, label_names, arg, soft=False)
        if arr.ndim != 2:
            raise ValueError(ERR_NDIM.format(arg=arg, ndim=arr.ndim))
        # text '0'/'1' is parsed as the same DataFrame's to_numpy(float64) parses it
        if arr.dtype.kind not in "biufUSO":
            raise TypeError(ERR_NON_NUMERIC.format(arg=arg, dtype=arr.dtype))
        try:
            values = np.asarray(arr, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise TypeError(ERR_NON_NUMERIC.format(arg=arg, dtype=arr.dtype)) from exc
        if arr.dtype != np.bool_:  # bool arrays are 0/1 by construction
            _check_values(values, arg, soft)
    if values.shape[0] == 0:
        raise ValueError(ERR_EMPTY.format(arg=arg))
    if values.shape[1] == 0:
        raise ValueError(ERR_NO_COLUMNS.format(arg=arg))
    values, label_names = _align_columns(values, columns, arg, names, source)
    return LabelMatrix(values, _plain_names(label_names), arg, soft=soft)


def as_sample_weight(sample_weight: Any, n: int, *, arg: str = "sample_weight") -> np.ndarray:
    """Validate weights: a finite, non-negative 1-D array of length ``n`` (``None`` gives ones)."""
    if sample_weight is None:
        return np.ones(n, dtype=np.float64)
    w = np.asarray(sample_weight, dtype=np.float64)
    if w.ndim != 1 or w.shape[0] != n:
        raise ValueError(ERR_WEIGHT_SHAPE.format(arg=arg, n=n, shape=w.shape))
    finite = np.isfinite(w)
    if not finite.all():
        raise ValueError(ERR_NAN.format(arg=arg, count=int((~finite).sum())))
    negative = w < 0
    if negative.any():
        raise ValueError(ERR_WEIGHT_NEGATIVE.format(arg=arg, count=int(negative.sum())))
    return w


def check_same_length(**arrays: LabelMatrix | np.ndarray | None) -> int:
    """Check that every given array has the same number of rows; return that number."""
    lengths = {
        name: (a.n_rows if isinstance(a, LabelMatrix) else int(np.shape(a)[0]))
        for name, a in arrays.items()
        if a is not None
    }
    if len(set(lengths.values())) > 1:
        details = ", ".join(f"{name} has {n} rows" for name, n in lengths.items())
        raise ValueError(ERR_LENGTH.format(details=details))
    return next(iter(lengths.values()))
