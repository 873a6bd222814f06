"""Input arrays to label matrices.

Every metric in biasamp takes its label arrays by role (``groups``, ``tasks``,
``groups_pred``, ``tasks_pred``, ``groups_train``, ``tasks_train``). This module
turns each of them into a :class:`LabelMatrix`: an ``(n, k)`` float matrix with
one column per label and the label names in column order. The container itself
(pandas, polars, pyarrow, torch, ...) is read by :mod:`biasamp.inputs._containers`.

Accepted forms
--------------
* 1-D labels, one per instance, of any type that sorts (strings, integers,
  booleans; categoricals and enums). The result is one-hot.
* 2-D 0/1 indicators ``(n, k)``: an array, a dataframe (the column names
  become the label names) or any scipy.sparse matrix. A row may be all zeros:
  that instance belongs to no label of this role.
* With ``soft=True`` (predictions only): probabilities in [0, 1] of shape
  ``(n, k)``, or, for a role with two labels, a 1-D score: the probability of
  the *second* label in sorted order (scikit-learn's ``classes_[1]``), or of
  ``positive`` when given. ``p`` and ``[1 - p, p]`` give identical results.

Label-set rule (``docs/counts.md``)
-----------------------------------
* The labels of a 1-D argument are the values that **occur** in it, sorted.
  Categories a ``Categorical`` / polars ``Enum`` / Arrow dictionary declares
  but no row uses are dropped: the result is the one of the same data without
  them. Name a label in ``group_names`` / ``task_names`` to keep it.
* The *canonical* names of a role come from the first split that fixes them:
  the ``group_names`` / ``task_names`` a caller passes, else the training
  split, else the evaluation ground truth. Every other split must use the same
  names: a 1-D label outside the canonical set, or a DataFrame whose columns
  are not exactly the canonical set, raises ``ValueError``. A plain 2-D array
  has no names; it must have as many columns as the canonical set and its
  columns are taken in that order. Canonical labels that never occur in a
  later split are fine (their counts are zero).
* Missing values raise ``ValueError`` naming the argument and the first row.
* A 1-D group argument with a single label, and an empty-string label, give a
  :class:`LabelWarning` that says what happened.

All messages are module constants so that tests can match them.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, cast

import numpy as np
import pandas as pd
import scipy.sparse as sp

from biasamp.inputs._arrow_frames import polars_indicator_frame
from biasamp.inputs._arrow_labels import arrow_label_codes
from biasamp.inputs._containers import (
    ERR_MISSING_LABEL,
    ERR_MISSING_VALUE,
    ERR_MIXED_TYPES,
    ERR_TYPE,
    NativeData,
    check_bool_labels,
    check_label_types,
    check_missing_1d,
    list_labels,
    to_native_numpy,
)
from biasamp.inputs._encoding import (
    factorize_labels,
    factorize_two_arrow_strings,
    sorted_short_string_codes,
)

ERR_ARG_NAME = "arg: expected the argument name (a str) for the error messages, got {got}."

__all__ = [
    "ERR_MISSING_LABEL",
    "ERR_MISSING_VALUE",
    "ERR_MIXED_TYPES",
    "ERR_TYPE",
    "LabelMatrix",
    "LabelWarning",
    "as_label_matrix",
    "as_sample_weight",
    "check_same_length",
]

# --- error messages (reused by the tests) ---------------------------------
ERR_NDIM = "{arg}: expected a 1-D array of labels or a 2-D indicator matrix, got {ndim} dimensions."
ERR_EMPTY = "{arg}: the split is empty (0 rows)."
ERR_NO_COLUMNS = "{arg}: the indicator matrix has no columns."
ERR_NAN = "{arg}: contains NaN or infinite values ({count} entries)."
#: missing labels counted by an aggregating engine (no row positions there)
ERR_MISSING_LABEL_COUNT = "{arg}: contains {count} missing labels (None or NaN)."
ERR_NON_BINARY = "{arg}: indicator values must be 0 or 1; found {examples}."
#: appended to :data:`ERR_NON_BINARY` for predictions only (ground truth is never soft)
HINT_SOFT = " Pass soft=True to use probabilities in [0, 1] for predictions."
ERR_ID_COLUMN = (
    "{arg}: column {column!r} looks like an id column (a different whole number in each of "
    "its {n} rows), not a 0/1 label column; pass the label columns only "
    "(for example {arg}=frame.drop(columns=[{column!r}]))."
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
ERR_NO_ARRAYS = "Expected at least one array of labels (a group role and a task role), got none."
ERR_LENGTH = (
    "Mismatched lengths: {details}. All arrays of one split must have one row per instance."
)
ERR_WEIGHT_NEGATIVE = "{arg}: weights must be non-negative; found {count} negative values."
#: appended to :data:`ERR_NAN` for weights (one per row): where the first one is
ERR_FIRST_ROW = " The first is at row {row} (0-based position)."
ERR_WEIGHT_UNDERFLOW = (
    "{arg}: {count} weight(s) are positive but below {tiny:.3g}, the smallest normal float64 "
    "(the first at row {row}: {value!r}); sums and ratios of such weights lose their digits "
    "and the metrics would read 0 or NaN. Every metric is unchanged when all weights are "
    "multiplied by one number: rescale them (for example {arg} / max({arg}))."
)
ERR_WEIGHT_SHAPE = "{arg}: expected a 1-D array of length {n}, got shape {shape}."
ERR_WEIGHT_OF = " One weight per row of {of}."
ERR_WEIGHT_TYPE = "{arg}: expected numbers (one weight per row): {error}."
ERR_EMPTY_SPLIT = "{arg}: the split is empty (its rows have total weight 0)."
ERR_SCORES_NO_NAMES = (
    "{arg}: a 1-D score needs the label set of its role (exactly two labels, the score being "
    "the probability of the second in sorted order); pass the ground truth or {kind}_names=."
)
ERR_SCORES_K = (
    "{arg}: a 1-D score is the probability of one of exactly two labels, but there are "
    "{k} labels {names}; pass an (n, {k}) matrix of probabilities."
)
ERR_POSITIVE = "{param}: {got!r} is not one of the labels {names}."
ERR_SCORES_AS_LABELS = (
    "{arg}: {count} distinct non-integer numbers ({examples}) look like scores or "
    "probabilities, not labels of the canonical label set {source}. Pass soft=True to use "
    "them as probabilities (a 1-D score is the probability of the second label in sorted "
    "order; positive_group= / positive_label= name the label it is for), or binarise them "
    "first with a threshold (for example {arg}=scores >= 0.5; the torchmetrics classes and "
    "the command line take threshold=)."
)
ERR_ONE_COLUMN_IDS = (
    "{arg}: a one-column DataFrame ({column!r}) is read as one 0/1 indicator column (a single "
    "label named {column!r}), but it holds other numbers ({examples}). For one label id per "
    "row pass the column itself (df[{column!r}], not df[[{column!r}]])."
)
WARN_SINGLE_GROUP = (
    "{arg}: every row is in the single group {name!r}, so every bias amplification "
    "metric is 0 or undefined; pass at least two groups (or name the others in group_names=)."
)
WARN_EMPTY_LABEL = (
    "{arg}: the empty string '' is used as a label ({count} row(s), the first at row {row}); "
    "it is counted as a label of its own. If it marks a missing value, drop those rows."
)
ERR_NON_NUMERIC = "{arg}: a 2-D indicator matrix must be numeric, got dtype {dtype}."
#: Appended to :data:`ERR_NON_NUMERIC` for a group argument of text or objects: several
#: categorical columns (race, sex) are one group per row only through their intersections.
HINT_INTERSECT = (
    " Several categorical columns of groups (such as race and sex)? Pass their "
    "intersections, one label per row: {arg}=biasamp.intersect(frame[[{columns}]]) gives "
    "'Black x Female'."
)


def _non_numeric(arg: str, dtype: Any, columns: Sequence[Any] | None = None) -> TypeError:
    """:data:`ERR_NON_NUMERIC`, with :data:`HINT_INTERSECT` for groups of text or objects
    (naming the frame's columns when it has names)."""
    text = ERR_NON_NUMERIC.format(arg=arg, dtype=dtype)
    if arg.startswith("groups") and np.dtype(dtype).kind in "USO":
        named = ", ".join(repr(c) for c in columns) if columns else "..."
        text += HINT_INTERSECT.format(arg=arg, columns=named)
    return TypeError(text)


ERR_UNHASHABLE = (
    "{arg}: 1-D labels must be hashable scalars ({error}); for several labels per "
    "instance pass a 2-D 0/1 indicator matrix (for example from "
    "sklearn.preprocessing.MultiLabelBinarizer)."
)

_MAX_EXAMPLES = 5


class LabelWarning(UserWarning):
    """A label argument is legal but probably not what was meant (one group, ``''``)."""


def _examples(values: Sequence[Any]) -> str:
    values = [v.item() if isinstance(v, np.generic) else v for v in values]
    shown = ", ".join(repr(v) for v in values[:_MAX_EXAMPLES])
    if len(values) > _MAX_EXAMPLES:
        shown += f", ... ({len(values)} in all)"
    return shown


@dataclass(frozen=True)
class LabelMatrix:
    """An ``(n, k)`` label matrix of one role, with the label names in column order.

    ``values`` is a float64 numpy array or a scipy.sparse CSR matrix (``uint8``
    when built with ``as_label_matrix(..., compact=True)``). Rows may be all
    zero. With ``soft`` the entries are probabilities in [0, 1].

    ``codes`` (shape ``(n,)``), when set, is the column of each row's single 1:
    the matrix is one-hot, as 1-D labels give it. Such a matrix may be created
    without values (``None``): its CSR ``values`` are then built from the codes
    when first read (counting reads the codes only). ``validated`` marks a
    matrix :func:`as_label_matrix` built (its values were checked), so passing
    it again skips the checks. Both are set by :func:`as_label_matrix` only.

    ``zero_one``, when set, is the caller's integer or boolean 0/1 indicator
    array (checked, never written to): the float64 ``values`` are then built
    from it when first read, and counting reads it as it is
    (:meth:`counting_values`), without a float64 copy.

    ``ones``, when set, is a CSR matrix (over the caller's index arrays, never
    written to) whose stored entries are all 1, each stored once: a checked
    sparse 0/1 matrix. The float64 CSR ``values`` are built from it when first
    read; counting reads its index arrays only (:meth:`ones_pattern`).
    """

    _values: np.ndarray | sp.csr_matrix | None
    names: tuple[Any, ...]
    arg: str
    soft: bool = False
    codes: np.ndarray | None = field(default=None, repr=False, compare=False)
    validated: bool = field(default=False, repr=False, compare=False)
    zero_one: np.ndarray | None = field(default=None, repr=False, compare=False)
    ones: sp.csr_matrix | None = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        if (
            self._values is None
            and self.codes is None
            and self.zero_one is None
            and self.ones is None
        ):
            raise TypeError("LabelMatrix needs values, or the codes of a one-hot matrix.")

    @property
    def values(self) -> np.ndarray | sp.csr_matrix:
        """The ``(n, k)`` matrix (built from ``codes`` or ``zero_one`` on first use when
        created without it)."""
        values = self._values
        if values is None:
            if self.zero_one is not None:
                values = np.asarray(self.zero_one, dtype=np.float64)
            elif self.ones is not None:
                values = _float_ones(self.ones)
            else:
                values = _one_hot_csr(cast(np.ndarray, self.codes), len(self.names))
            object.__setattr__(self, "_values", values)  # a cache of a frozen instance
        return values

    def counting_values(self) -> np.ndarray | sp.csr_matrix:
        """The matrix for a product that only counts: ``zero_one`` when set (integer or
        boolean 0/1, no float64 copy), ``ones`` when set (its stored entries are 1 in
        the caller's dtype), else :attr:`values`."""
        if self.zero_one is not None:
            return self.zero_one
        return self.ones if self.ones is not None else self.values

    def ones_pattern(self) -> sp.csr_matrix | None:
        """The CSR matrix whose stored entries are all 1 when the matrix is a checked sparse
        0/1 matrix held as its pattern (``ones``), else None. Only its ``indptr`` and
        ``indices`` say anything (its values are 1 in whatever dtype the caller gave)."""
        return self.ones

    @property
    def n_rows(self) -> int:
        if self.zero_one is not None:
            return int(self.zero_one.shape[0])
        if self.ones is not None:
            return int(self.ones.shape[0])
        if self._values is None:
            return int(cast(np.ndarray, self.codes).shape[0])
        return int(self._values.shape[0])

    @property
    def n_labels(self) -> int:
        if self.zero_one is not None:
            return int(self.zero_one.shape[1])
        if self.ones is not None:
            return int(self.ones.shape[1])
        if self._values is None:
            return len(self.names)
        return int(self._values.shape[1])

    @property
    def is_sparse(self) -> bool:
        if self.zero_one is not None:
            return False
        return self._values is None or sp.issparse(self._values)

    def dense(self) -> np.ndarray:
        """The matrix as a dense float64 array."""
        if sp.issparse(self.values):
            return np.asarray(self.values.toarray(), dtype=np.float64)
        return self.values

    def take(self, rows: np.ndarray) -> LabelMatrix:
        """The rows ``rows`` (indices or a boolean mask) as a new matrix."""
        codes = None if self.codes is None else self.codes[rows]
        values = None if self._values is None else self._values[rows]
        zero_one = None if self.zero_one is None else self.zero_one[rows]
        # a selection of rows of a pattern is one: its entries stay 1, each stored once
        ones = None if self.ones is None or values is not None else self.ones[rows]
        return LabelMatrix(
            values, self.names, self.arg, self.soft, codes, self.validated, zero_one, ones
        )


def _float_ones(pattern: sp.csr_matrix) -> sp.csr_matrix:
    """The float64 CSR matrix of a pattern whose stored entries are all 1 (index arrays
    shared)."""
    matrix = sp.csr_matrix(
        (np.ones(pattern.indices.shape[0]), pattern.indices, pattern.indptr), shape=pattern.shape
    )
    matrix.has_canonical_format = bool(pattern.has_canonical_format)
    return matrix


def _one_hot_csr(codes: np.ndarray, n_labels: int) -> sp.csr_matrix:
    """The ``(n, n_labels)`` one-hot CSR matrix with a 1 in column ``codes[i]`` of row ``i``."""
    n = codes.shape[0]
    # the codes' dtype for the row pointers: scipy keeps both arrays without a copy
    matrix = sp.csr_matrix(
        (np.ones(n, dtype=np.float64), codes, np.arange(n + 1, dtype=codes.dtype)),
        shape=(n, n_labels),
    )
    matrix.has_canonical_format = True  # one entry per row
    return matrix


_PLAIN_TYPES = {str, int, bool}


def _plain_names(names: Sequence[Any] | np.ndarray) -> tuple[Any, ...]:
    """Label names as plain Python scalars (``np.str_('a')`` becomes ``'a'``)."""
    if {type(v) for v in names} <= _PLAIN_TYPES:  # already plain (the common case)
        return tuple(names)
    return tuple(v.item() if isinstance(v, np.generic) else v for v in names)


def _names_source(source: str | None) -> str:
    return f"(from {source})" if source else ""


def _factorize(arr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``codes`` (-1 for a missing label) and the distinct labels, in first-seen order."""
    # the fast, verified factorisation lives in inputs/_encoding.py
    return factorize_labels(arr)


def _sorted_names(uniques: np.ndarray) -> tuple[Any, ...]:
    names = _plain_names(uniques)
    try:
        return tuple(sorted(names))
    except TypeError:  # mixed types: keep first-seen order
        return names


def _integral_floats(arr: np.ndarray) -> np.ndarray:
    """Float labels that are all whole numbers (a float tensor of 0/1) as int64."""
    if (
        arr.dtype.kind == "f"
        and arr.size
        and np.all(np.isfinite(arr))
        and np.all(arr == np.round(arr))
    ):
        if np.all(np.abs(arr) < 2**53):
            return arr.astype(np.int64)
    return arr


def _encode_1d(
    arr: np.ndarray,
    arg: str,
    names: Sequence[Any] | None,
    source: str | None,
) -> tuple[tuple[Any, ...], np.ndarray]:
    """The label names of 1-D labels and each row's column among them (its one-hot code)."""
    arr = _integral_floats(arr)
    few = sorted_short_string_codes(arr)  # few short strings: codes in sorted order
    if few is not None:
        return _columns_of_codes(few[0], few[1], arg, names, source, False)
    try:
        codes, uniques = _factorize(arr)
    except TypeError as exc:  # lists or sets as labels: multi-label data in one column
        check_missing_1d(arr, arg)  # a missing value is reported first, as in any array
        raise TypeError(ERR_UNHASHABLE.format(arg=arg, error=exc)) from exc
    check_bool_labels(arr, uniques, arg)  # True and 1 hash alike: factorising merged them
    # the factorisation codes a missing label (None, NaN, NA, NaT) -1: one pass finds
    # them, reported by _columns_of_codes; fixed-width strings cannot be missing
    return _columns_of_codes(codes, uniques, arg, names, source, arr.dtype.kind not in "US")


def _pandas_string_labels(x: Any) -> Any:
    """``x`` when it is a non-empty pandas Series, Index or Categorical of strings held as
    categories or a string dtype (which pandas factorises without a Python object per row),
    else None."""
    if not isinstance(x, (pd.Series, pd.Index, pd.Categorical)) or x.ndim != 1 or not len(x):
        return None
    dtype = x.dtype
    if isinstance(dtype, pd.CategoricalDtype):
        categories = dtype.categories
        if all(type(c) is str for c in categories):
            return x
        return None
    return x if isinstance(dtype, pd.StringDtype) else None


def _encode_pandas_strings(
    x: Any, arg: str, names: Sequence[Any] | None, source: str | None
) -> tuple[tuple[Any, ...], np.ndarray]:
    """:func:`_encode_1d` of string labels in pandas, factorised by pandas itself (two
    labels held by Arrow, the common case, by two Arrow comparisons)."""
    dtype = x.dtype
    if isinstance(dtype, pd.StringDtype) and dtype.storage == "pyarrow":
        two = factorize_two_arrow_strings(x.array.__arrow_array__())
        if two is not None:
            return _columns_of_codes(two[0], two[1], arg, names, source, False)
    codes, uniques = pd.factorize(x, use_na_sentinel=True)
    return _columns_of_codes(
        np.asarray(codes), np.asarray(uniques, dtype=object), arg, names, source, True
    )


def _columns_of_codes(
    codes: np.ndarray,
    uniques: np.ndarray,
    arg: str,
    names: Sequence[Any] | None,
    source: str | None,
    may_be_missing: bool,
) -> tuple[tuple[Any, ...], np.ndarray]:
    """Names and one-hot columns from first-seen ``codes`` (-1: missing) and ``uniques``."""
    if may_be_missing:
        missing = codes < 0
        if missing.any():
            raise ValueError(
                ERR_MISSING_LABEL.format(
                    arg=arg, count=int(missing.sum()), row=int(np.flatnonzero(missing)[0])
                )
            )
    check_label_types(uniques, codes, arg)
    observed = _plain_names(uniques)
    if "" in observed:
        empty = codes == observed.index("")
        warnings.warn(
            WARN_EMPTY_LABEL.format(
                arg=arg, count=int(empty.sum()), row=int(np.flatnonzero(empty)[0])
            ),
            LabelWarning,
            stacklevel=5,
        )
    if names is None:
        names = _sorted_names(uniques)
    names = _plain_names(names)
    # distinct labels only; a repeated name is reported with where the names came from
    lookup = _positions(names, observed, uniques, f"{arg} {_names_source(source)}".strip())
    unknown = lookup < 0
    if unknown.any():
        # in the order of their first rows, whatever order the codes' uniques are in
        first_rows = [int(np.argmax(codes == j)) for j in np.flatnonzero(unknown)]
        bad = uniques[np.flatnonzero(unknown)[np.argsort(first_rows, kind="stable")]]
        if all(isinstance(v, (float, np.floating)) for v in bad):  # whole ones became ints
            raise ValueError(
                ERR_SCORES_AS_LABELS.format(
                    arg=arg,
                    count=len(bad),
                    examples=_examples(list(bad)),
                    source=_names_source(source) or repr(list(names)[:_MAX_EXAMPLES]),
                )
            )
        raise ValueError(
            ERR_UNKNOWN_LABELS.format(
                arg=arg,
                count=len(bad),
                source=_names_source(source) or repr(list(names)[:_MAX_EXAMPLES]),
                examples=_examples(list(bad)),
            )
        )
    n = codes.shape[0]
    # scipy's own index dtype for this shape, so that a CSR matrix keeps the codes as they are
    index = np.int32 if max(n + 1, len(names)) < _INT32_MAX else np.int64
    if np.array_equal(lookup, np.arange(lookup.shape[0])):  # first-seen order is the order
        columns = codes.astype(index, copy=False)
    else:
        columns = lookup.astype(index)[codes]
    return names, columns


#: The largest int32 (``np.iinfo`` builds an object per call).
_INT32_MAX = 2**31 - 1

#: Label types matched by a dict in :func:`_positions` (one type at a time).
_DICT_TYPES = {str, int, bool}


def _positions(
    names: tuple[Any, ...], observed: tuple[Any, ...], uniques: np.ndarray, arg: str
) -> np.ndarray:
    """The column in ``names`` of each distinct label (-1 when it is not one of them).

    Raises :data:`ERR_DUPLICATE_NAMES` when ``names`` repeats a label. Labels of one
    plain type (all ``str``, all ``int`` or all ``bool``: every common kind, integer
    codes and categories included) are matched with a dict, whose equality is
    pandas' there; other labels with pandas, whose notion of equality (``1 == 1.0``,
    categories, timestamps) they keep.
    """
    kinds = {type(v) for v in names}
    if len(kinds) == 1 and kinds <= _DICT_TYPES and {type(v) for v in observed} <= kinds:
        where = {name: i for i, name in enumerate(names)}
        if len(where) == len(names):
            return np.array([where.get(v, -1) for v in observed], dtype=np.intp)
    index = pd.Index(names)
    if not index.is_unique:
        dup = index[index.duplicated()].tolist()
        raise ValueError(ERR_DUPLICATE_NAMES.format(arg=arg, examples=_examples(dup)))
    return np.asarray(index.get_indexer(pd.Index(uniques, dtype=object)))


def _is_score_vector(arr: np.ndarray, names: Sequence[Any] | None, positive: Any) -> bool:
    """Whether a 1-D ``soft`` prediction is a score vector rather than labels."""
    if arr.dtype.kind != "f":
        return False
    if positive is not None or names is None:
        return True
    uniques = pd.unique(arr)
    return not set(_plain_names(uniques)) <= set(_plain_names(tuple(names)))


def _positive_column(names: tuple[Any, ...], positive: Any, positive_param: str) -> int:
    if positive is None:
        return len(names) - 1
    plain = _plain_names((positive,))[0]
    if plain not in names:
        raise ValueError(ERR_POSITIVE.format(param=positive_param, got=positive, names=list(names)))
    return names.index(plain)


def scores_1d_matrix(
    p: np.ndarray,
    *,
    arg: str,
    names: Sequence[Any] | None,
    positive: Any = None,
    positive_param: str = "positive_label",
) -> tuple[np.ndarray, tuple[Any, ...]]:
    """A 1-D score as the ``(n, k)`` probability matrix of a role with ``k <= 2`` labels.

    ``p`` is the probability of the second label in sorted order (``classes_[1]``),
    or of ``positive``; the other column is ``1 - p``.
    """
    kind = "group" if arg.startswith("group") else "task"
    if names is None:
        raise ValueError(ERR_SCORES_NO_NAMES.format(arg=arg, kind=kind))
    names = _plain_names(tuple(names))
    if len(names) > 2:
        raise ValueError(ERR_SCORES_K.format(arg=arg, k=len(names), names=list(names)))
    p = np.asarray(p, dtype=np.float64)
    _check_values(p, arg, True)
    col = _positive_column(names, positive, positive_param)
    if len(names) == 1:
        return p[:, None], names
    out = np.empty((p.shape[0], 2), dtype=np.float64)
    out[:, col] = p
    out[:, 1 - col] = 1.0 - p
    return out, names


def _check_values(
    data: np.ndarray, arg: str, soft: bool, columns: Sequence[Any] | None = None
) -> None:
    """Raise unless every entry of ``data`` is finite and 0/1 (or in [0, 1] when soft)."""
    # one pass when the values are valid (NaN and infinities fail both tests); the
    # passes below only find what to report
    if soft:
        if data.size == 0 or bool(data.min() >= 0) and bool(data.max() <= 1):
            return
    elif bool(((data == 0) | (data == 1)).all()):
        return
    finite = np.isfinite(data)
    if not finite.all():
        nan = np.isnan(data)
        if data.ndim == 2 and nan.any():
            row, col = (int(i[0]) for i in np.nonzero(nan))
            raise ValueError(
                ERR_MISSING_VALUE.format(
                    arg=arg,
                    count=int(nan.sum()),
                    row=row,
                    column=columns[col] if columns is not None else col,
                )
            )
        raise ValueError(ERR_NAN.format(arg=arg, count=int((~finite).sum())))
    if soft:
        if data.size and (data.min() < 0 or data.max() > 1):
            raise ValueError(ERR_SOFT_RANGE.format(arg=arg, low=data.min(), high=data.max()))
        return
    bad = (data != 0) & (data != 1)
    if bad.any():
        hint = HINT_SOFT if "pred" in arg else ""
        if data.ndim == 2:
            col = int(np.flatnonzero(bad.any(axis=0))[0])
            values = data[:, col]
            name = columns[col] if columns is not None else col
            if _looks_like_ids(values):
                raise ValueError(ERR_ID_COLUMN.format(arg=arg, column=name, n=len(values)))
        raise ValueError(
            ERR_NON_BINARY.format(arg=arg, examples=_examples(np.unique(data[bad]).tolist())) + hint
        )


def _looks_like_ids(values: np.ndarray) -> bool:
    """Whether a column holds a different whole number in each row (at least 3 rows, at
    least 2 of them neither 0 nor 1): an id, not an indicator."""
    return (
        values.size >= 3
        and int(((values != 0) & (values != 1)).sum()) >= 2
        and bool((values == np.round(values)).all())
        and np.unique(values).size == values.size
    )


def _distinct(columns: Sequence[Any]) -> bool:
    """Whether plain string or integer names are distinct (``False``: pandas decides)."""
    try:
        return {type(c) for c in columns} <= _PLAIN_TYPES and len(set(columns)) == len(columns)
    except TypeError:  # unhashable names
        return False


def _align_columns(
    values: np.ndarray | sp.csr_matrix,
    columns: tuple[Any, ...] | None,
    arg: str,
    names: Sequence[Any] | None,
    source: str | None,
) -> tuple[np.ndarray | sp.csr_matrix, tuple[Any, ...]]:
    k = values.shape[1]
    if columns is not None and not _distinct(columns):
        index = pd.Index(columns)
        if not index.is_unique:
            dup = index[index.duplicated()].tolist()
            raise ValueError(ERR_DUPLICATE_NAMES.format(arg=arg, examples=_examples(dup)))
    if names is None:
        return values, columns if columns is not None else tuple(range(k))
    names = tuple(names)
    if not _distinct(names):
        index = pd.Index(names, dtype=object)
        if not index.is_unique:  # else "missing none, unexpected none" below
            dup = index[index.duplicated()].tolist()
            where = f"{arg} {_names_source(source)}".strip()
            raise ValueError(ERR_DUPLICATE_NAMES.format(arg=where, examples=_examples(dup)))
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
    positive: Any = None,
    positive_param: str = "positive_label",
    compact: bool = False,
) -> LabelMatrix:
    """Validate one label argument and return it as a :class:`LabelMatrix`.

    Parameters
    ----------
    x : array-like of shape (n,) or (n, k), dataframe, tensor or scipy.sparse matrix
        The labels of one role, in any container of :mod:`biasamp.inputs._containers`.
    arg : str
        The argument name, used in error messages.
    names : sequence, optional
        The canonical label names. ``None`` lets this argument fix them.
    source : str, optional
        Where the canonical names came from, for error messages.
    soft : bool, default False
        Accept probabilities in [0, 1] instead of 0/1, and a 1-D float score
        for a role with two labels (the probability of the second label).
    positive : label, optional
        With ``soft``, the label a 1-D score is the probability of
        (default: the second label in sorted order).
    positive_param : str, default "positive_label"
        The keyword ``positive`` came from, for error messages.
    compact : bool, default False
        Return a dense 0/1 indicator (not ``soft``) as ``uint8``, one byte per
        cell instead of eight. Integer and boolean arrays are then checked
        without a float64 copy. For callers that only count or pack the
        labels (the multi-attribute metrics), never subtract from them.

    Returns
    -------
    LabelMatrix

    Examples
    --------
    >>> import pandas as pd
    >>> from biasamp.inputs import as_label_matrix
    >>> m = as_label_matrix(pd.Categorical(["w", "m"], categories=["m", "w", "x"]), arg="groups")
    >>> m.names
    ('m', 'w')
    >>> as_label_matrix([0.2, 0.9], arg="groups_pred", names=("m", "w"), soft=True).dense()
    array([[0.8, 0.2],
           [0.1, 0.9]])
    """
    if not isinstance(arg, str):
        raise TypeError(ERR_ARG_NAME.format(got=type(arg).__name__))
    request = _Request(arg, names, source, soft, positive, positive_param, compact)
    return _encoder_of(x)(x, request)


# --- the dispatch table: container kind -> encoder ---------------------------------
#
# ``as_label_matrix`` looks up the encoder of the argument's type once (the table below
# is read on the first argument of each type, then a dict lookup); each encoder reads
# its container and hands numpy (or codes) to the shared steps: ``_from_codes`` (1-D
# labels already coded), ``_from_array`` (a numpy or scipy.sparse array: 1-D labels,
# 2-D indicators) and ``_from_native`` (what ``to_native_numpy`` reads from any other
# container).


@dataclass(frozen=True)
class _Request:
    """The options of one :func:`as_label_matrix` call, as every encoder reads them."""

    arg: str
    names: Sequence[Any] | None
    source: str | None
    soft: bool
    positive: Any
    positive_param: str
    compact: bool


_Encoder = Callable[[Any, _Request], LabelMatrix]


def _module(x: Any) -> str:
    return (type(x).__module__ or "").split(".")[0]


def _encoder_of(x: Any) -> _Encoder:
    """The encoder of ``x``'s container kind (looked up by type, classified once)."""
    kind = type(x)
    encoder = _ENCODERS.get(kind)
    if encoder is None:
        encoder = _classify(x)
        if len(_ENCODERS) < _MAX_TYPES:
            _ENCODERS[kind] = encoder
    return encoder


def _classify(x: Any) -> _Encoder:
    """One branch per container kind."""
    if isinstance(x, LabelMatrix):
        return _from_label_matrix
    if isinstance(x, np.ndarray):
        return _from_numpy
    if isinstance(x, (list, tuple)):
        return _from_sequence
    if sp.issparse(x):
        return _from_sparse
    if isinstance(x, pd.DataFrame):
        return _from_pandas_frame
    if isinstance(x, (pd.Series, pd.Index, pd.Categorical)):
        return _from_pandas_labels
    if _module(x) in ("polars", "pyarrow", "datasets"):
        return _from_arrow
    return _from_other  # tensors, other dataframes (narwhals), objects with __array__


_ENCODERS: dict[type, _Encoder] = {}
#: Types remembered by the table (a bound: classes made on the fly are classified anew).
_MAX_TYPES = 256


def _from_label_matrix(x: LabelMatrix, r: _Request) -> LabelMatrix:
    """A validated matrix is realigned only; one built by hand keeps its names and has
    its values checked."""
    if x.validated:
        return _realigned(x, arg=r.arg, names=r.names, source=r.source, soft=r.soft)
    values = x.values
    if not sp.issparse(values):
        values = np.asarray(values)
        if values.ndim == 1:
            check_missing_1d(values, r.arg)
    return _from_array(values, x.names, replace(r, soft=r.soft or x.soft))


def _from_numpy(x: np.ndarray, r: _Request) -> LabelMatrix:
    """The plain-numpy path: no container probes; missing labels are found by the
    factorisation (``_encode_1d``)."""
    return _from_array(np.asarray(x), None, r)


def _from_sequence(x: list[Any] | tuple[Any, ...], r: _Request) -> LabelMatrix:
    arr = np.asarray(x) if len(x) else np.asarray(x, dtype=float)
    if arr.ndim == 1:
        arr = list_labels(x, arr, r.arg)
    return _from_array(arr, None, r)


def _from_sparse(x: Any, r: _Request) -> LabelMatrix:
    return _from_array(x, None, r)


def _from_pandas_frame(x: pd.DataFrame, r: _Request) -> LabelMatrix:
    zero_one = None if r.soft or r.compact else _zero_one_frame(x)
    if zero_one is not None:  # a pandas frame of 0/1 integer columns, checked in float32
        # Index.tolist: one conversion, not a Python object per name through iteration
        frame_columns = tuple(x.columns.tolist())
        return _compact_matrix(zero_one, frame_columns, r.arg, r.names, r.source, zero_one=True)
    return _from_native(to_native_numpy(x, arg=r.arg), r)


def _from_pandas_labels(x: Any, r: _Request) -> LabelMatrix:
    """A pandas Series, Index or Categorical: Arrow strings by their codes, string
    categories and string dtypes by pandas' factorisation, integer and boolean
    categories by their codes, numpy dtypes by their array; anything else (nullable
    and other extension dtypes) through narwhals."""
    if x.ndim == 1 and len(x):
        dtype = x.dtype
        if isinstance(dtype, pd.CategoricalDtype):
            categories = _plain_categories(dtype.categories)
            if categories is not None:  # its codes (-1: missing), renumbered over those used
                held = x if isinstance(x, pd.Categorical) else x.array
                return _from_codes(_used_categories(np.asarray(held.codes), categories), r)
        arrow = arrow_label_codes(x)
        if arrow is not None:
            return _from_codes(arrow, r)
        if _pandas_string_labels(x) is not None:
            label_names, codes = _encode_pandas_strings(x, r.arg, r.names, r.source)
            return LabelMatrix(None, label_names, r.arg, soft=False, codes=codes, validated=True)
        if isinstance(dtype, np.dtype) and not isinstance(x, pd.Categorical):
            return _from_array(x.to_numpy(), None, r)
    return _from_native(to_native_numpy(x, arg=r.arg), r)


def _from_arrow(x: Any, r: _Request) -> LabelMatrix:
    """polars, pyarrow and Hugging Face containers: string and categorical labels by
    their Arrow codes, polars indicator frames as one matrix, the rest through narwhals."""
    arrow = arrow_label_codes(x)
    if arrow is not None:
        return _from_codes(arrow, r)
    return _from_native(polars_indicator_frame(x) or to_native_numpy(x, arg=r.arg), r)


def _from_other(x: Any, r: _Request) -> LabelMatrix:
    return _from_native(to_native_numpy(x, arg=r.arg), r)


def _plain_categories(categories: pd.Index) -> np.ndarray | None:
    """The categories of a pandas Categorical as the distinct labels of its codes: strings
    (as Python ``str``) and numpy integers or booleans; ``None`` for other kinds (read by
    the general path)."""
    kind = categories.dtype
    if isinstance(kind, np.dtype) and kind.kind in "iub":
        return categories.to_numpy()
    names = categories.tolist()
    if all(type(c) is str for c in names):
        return np.array(names, dtype=object)
    return None


def _used_categories(codes: np.ndarray, categories: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Codes (``-1``: missing) renumbered over the categories some row uses."""
    k = categories.shape[0]
    valid = codes[codes >= 0]
    used = np.bincount(valid, minlength=k)[:k] > 0 if valid.size else np.zeros(k, dtype=bool)
    if used.all():
        return codes, categories
    position = np.cumsum(used) - 1
    return np.where(codes >= 0, position[np.maximum(codes, 0)], -1), categories[used]


def _from_codes(found: tuple[np.ndarray, np.ndarray], r: _Request) -> LabelMatrix:
    """1-D labels already coded (``-1``: missing) with their distinct labels."""
    codes, uniques = found
    if codes.shape[0] == 0:
        raise ValueError(ERR_EMPTY.format(arg=r.arg))
    label_names, columns = _columns_of_codes(codes, uniques, r.arg, r.names, r.source, True)
    return LabelMatrix(None, label_names, r.arg, soft=False, codes=columns, validated=True)


def _from_native(native: NativeData, r: _Request) -> LabelMatrix:
    """What ``to_native_numpy`` read: a one-column frame is read as ``_one_column_frame``
    says, the rest as any array."""
    columns, x = native.columns, native.values
    if columns is not None and len(columns) == 1:
        x, columns = _one_column_frame(x, columns[0], r.arg, r.soft)
    return _from_array(x, columns, r)


def _from_array(x: Any, columns: tuple[Any, ...] | None, r: _Request) -> LabelMatrix:
    """A numpy array (1-D labels, 2-D indicators) or scipy.sparse matrix, with the column
    names of the frame it came from (or ``None``)."""
    arg, soft, names, source = r.arg, r.soft, r.names, r.source
    values: np.ndarray | sp.csr_matrix
    if sp.issparse(x):
        raw: Any = x
        if raw.ndim != 2:
            raise ValueError(ERR_NDIM.format(arg=arg, ndim=raw.ndim))
        pattern = _ones_pattern(raw)
        if pattern is not None:  # checked in place: its float64 values are built when read
            return _pattern_matrix(pattern, columns, arg, names, source, soft=soft)
        values = _checked_csr(raw, arg, soft)
    else:
        arr = np.asarray(x)
        if arr.ndim == 1:
            return _from_1d(arr, r)
        if arr.ndim != 2:
            raise ValueError(ERR_NDIM.format(arg=arg, ndim=arr.ndim))
        # text '0'/'1' is parsed as the same DataFrame's to_numpy(float64) parses it
        if arr.dtype.kind not in "biufUSO":
            raise _non_numeric(arg, arr.dtype, columns)
        if arr.dtype.kind == "O":  # None, pd.NA, NaT in a 2-D object array: name the cell
            missing = np.asarray(pd.isna(arr), dtype=bool)
            if missing.any():
                row, col = (int(i[0]) for i in np.nonzero(missing))
                raise ValueError(
                    ERR_MISSING_VALUE.format(
                        arg=arg,
                        count=int(missing.sum()),
                        row=row,
                        column=columns[col] if columns is not None else col,
                    )
                )
        if r.compact and not soft and arr.dtype.kind in "biu" and _zero_one_integers(arr):
            # checked in place: no float64 copy (astype copies: the caller's array stays theirs)
            return _compact_matrix(arr.astype(np.uint8), columns, arg, names, source)
        if not soft and arr.dtype.kind in "biu" and arr.size and _zero_one_integers(arr):
            # checked in place (min and max); float64 values are built when first read
            return _compact_matrix(arr, columns, arg, names, source, zero_one=True)
        try:
            values = np.asarray(arr, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise _non_numeric(arg, arr.dtype, columns) from exc
        if arr.dtype != np.bool_:  # bool arrays are 0/1 by construction
            _check_values(values, arg, soft, columns)
    if values.shape[0] == 0:
        raise ValueError(ERR_EMPTY.format(arg=arg))
    if values.shape[1] == 0:
        raise ValueError(ERR_NO_COLUMNS.format(arg=arg))
    if r.compact and not soft and not sp.issparse(values):
        return _compact_matrix(np.asarray(values, dtype=np.uint8), columns, arg, names, source)
    values, label_names = _align_columns(values, columns, arg, names, source)
    return LabelMatrix(values, _plain_names(label_names), arg, soft=soft, validated=True)


def _from_1d(arr: np.ndarray, r: _Request) -> LabelMatrix:
    """1-D labels (or, with ``soft``, a 1-D score of a role with two labels)."""
    if arr.shape[0] == 0:
        raise ValueError(ERR_EMPTY.format(arg=r.arg))
    if r.soft and arr.dtype.kind == "f":
        check_missing_1d(arr, r.arg)  # a NaN score is a missing value, not a bad probability
        if _is_score_vector(arr, r.names, r.positive):
            scores, label_names = scores_1d_matrix(
                arr, arg=r.arg, names=r.names, positive=r.positive, positive_param=r.positive_param
            )
            return LabelMatrix(scores, label_names, r.arg, soft=True, validated=True)
    label_names, codes = _encode_1d(arr, r.arg, r.names, r.source)
    return LabelMatrix(None, label_names, r.arg, soft=False, codes=codes, validated=True)


def _one_column_frame(
    values: np.ndarray, column: Any, arg: str, soft: bool
) -> tuple[np.ndarray, tuple[Any, ...] | None]:
    """A one-column dataframe (``df[["gender_id"]]``, polars, a Hugging Face selection).

    For a group role it is its column, 1-D group ids: one indicator column would
    put every row in a single group (or none), with which no bias amplification
    is defined, so reading it as ids is the only useful reading and gives the
    value of ``df["gender_id"]``. For a task role a column of 0/1 (or of
    probabilities with ``soft``) stays one indicator column named by the
    column, as a dataframe's columns always do; other numbers raise
    :data:`ERR_ONE_COLUMN_IDS`, which says to pass the column itself.
    """
    if arg.startswith("group"):
        return values[:, 0], None
    column_values = values[:, 0]
    if not soft and column_values.dtype.kind in "iuf":
        bad = (column_values != 0) & (column_values != 1)
        finite = column_values.dtype.kind != "f" or bool(np.isfinite(column_values).all())
        if finite and bad.any():
            raise ValueError(
                ERR_ONE_COLUMN_IDS.format(
                    arg=arg,
                    column=column,
                    examples=_examples(pd.unique(column_values[bad]).tolist()),
                )
            )
    return values, (column,)


def _ones_pattern(raw: Any) -> sp.csr_matrix | None:
    """The common case of sparse input, canonical 0/1 indicators (every stored entry a 1),
    as a CSR matrix over the caller's arrays (shared, never written to), or None.

    Checked with scipy's canonical-format check (cached on the caller's matrix) and one
    comparison of the stored entries in their own dtype (one byte per entry for int8
    indicators): 1s only are finite, 0/1 and not zero; no float64 copy is made.
    """
    if not (
        raw.format == "csr"
        and raw.data.dtype.kind in "biuf"
        and raw.has_canonical_format
        and _all_ones(raw.data)
    ):
        return None
    if type(raw) is sp.csr_matrix:  # the caller's matrix itself (never written to)
        return raw
    pattern = sp.csr_matrix((raw.data, raw.indices, raw.indptr), shape=raw.shape)
    pattern.has_canonical_format = True
    return pattern


def _all_ones(data: np.ndarray) -> bool:
    """Whether every entry is 1: its smallest and largest entries (two reductions, no
    temporary; a NaN makes both comparisons false)."""
    if data.size == 0:
        return True
    if data.dtype == np.bool_:
        return bool(data.all())
    return bool(data.min() == 1) and bool(data.max() == 1)


def _pattern_matrix(
    pattern: sp.csr_matrix,
    columns: tuple[Any, ...] | None,
    arg: str,
    names: Sequence[Any] | None,
    source: str | None,
    *,
    soft: bool,
) -> LabelMatrix:
    """A checked sparse 0/1 matrix held as its pattern (see ``LabelMatrix.ones``)."""
    if pattern.shape[0] == 0:
        raise ValueError(ERR_EMPTY.format(arg=arg))
    if pattern.shape[1] == 0:
        raise ValueError(ERR_NO_COLUMNS.format(arg=arg))
    aligned, label_names = _align_columns(pattern, columns, arg, names, source)
    return LabelMatrix(
        None,
        _plain_names(label_names),
        arg,
        soft=soft,
        validated=True,
        ones=cast(sp.csr_matrix, aligned),
    )


def _checked_csr(raw: Any, arg: str, soft: bool) -> sp.csr_matrix:
    """A scipy.sparse matrix as a validated float64 CSR matrix without explicit zeros:
    a copy is summed, checked and pruned (the caller's arrays are never modified)."""
    csr: sp.csr_matrix = sp.csr_matrix(raw, dtype=np.float64).copy()  # never modify raw
    csr.sum_duplicates()
    _check_values(np.asarray(csr.data), arg, soft)
    csr.eliminate_zeros()
    return csr


def _realigned(
    matrix: LabelMatrix,
    *,
    arg: str,
    names: Sequence[Any] | None,
    source: str | None,
    soft: bool,
) -> LabelMatrix:
    """A validated matrix in the column order of ``names`` (its values are not checked again)."""
    built = matrix._values  # a one-hot matrix may not be built yet: realign its codes only
    if built is None and matrix.zero_one is not None:  # checked 0/1 indicators
        if not soft:
            return _compact_matrix(matrix.zero_one, matrix.names, arg, names, source, zero_one=True)
        built = matrix.values  # read as probabilities from here on: the float64 values
    if built is None and matrix.ones is not None:  # a checked sparse 0/1 pattern
        if not soft and not matrix.soft:
            return _pattern_matrix(matrix.ones, matrix.names, arg, names, source, soft=False)
        built = matrix.values
    aligned, label_names = _align_columns(
        np.empty((0, matrix.n_labels)) if built is None else built,
        matrix.names,
        arg,
        names,
        source,
    )
    label_names = _plain_names(label_names)
    codes = matrix.codes
    if codes is not None and label_names != matrix.names:  # columns reordered: renumber
        position = pd.Index(label_names).get_indexer(list(matrix.names))
        codes = position.astype(codes.dtype)[codes]
    values = None if built is None else aligned
    return LabelMatrix(values, label_names, arg, soft or matrix.soft, codes, validated=True)


def _zero_one_frame(x: Any) -> np.ndarray | None:
    """A pandas DataFrame of two or more integer or boolean (numpy dtype) columns whose
    values are all 0 or 1, as a float32 array (read by pandas in one conversion; what
    counting multiplies); ``None`` for anything else, which the general path reads and
    checks (and reports on). Float32 holds 0 and 1 exactly and rounds every other integer
    below 0 or above 1; read as unsigned 32-bit words, 0.0 and 1.0 are the two smallest
    such values (every larger float has a larger word, every negative one has the sign
    bit set), so one maximum of the words decides exactly."""
    if not isinstance(x, pd.DataFrame) or x.shape[0] == 0 or x.shape[1] < 2:
        return None
    dtypes = set(x.dtypes.tolist())  # the distinct dtypes (one per column otherwise)
    if not all(isinstance(d, np.dtype) and d.kind in "biu" for d in dtypes):
        return None
    values = x.to_numpy(dtype=np.float32)
    if int(values.view(np.uint32).max()) > _FLOAT32_ONE_WORD:
        return None
    return values


#: The bits of float32 1.0 read as an unsigned 32-bit integer.
_FLOAT32_ONE_WORD = int(np.array(1.0, dtype=np.float32).view(np.uint32))


def _zero_one_integers(arr: np.ndarray) -> bool:
    """Whether every entry of an integer or boolean array is 0 or 1 (no float copy): one
    maximum of the entries read as unsigned integers of the same width (a negative entry
    reads as a number above 1)."""
    if arr.dtype == np.bool_ or arr.size == 0:
        return True
    unsigned = arr.dtype.str.replace("i", "u")  # the same width and byte order
    return bool(arr.view(unsigned).max() <= 1)


def _compact_matrix(
    values: np.ndarray,
    columns: tuple[Any, ...] | None,
    arg: str,
    names: Sequence[Any] | None,
    source: str | None,
    *,
    zero_one: bool = False,
) -> LabelMatrix:
    """A validated dense 0/1 matrix, already ``uint8``, as a :class:`LabelMatrix`; with
    ``zero_one``, a checked integer, boolean or float32 0/1 array kept as the matrix's
    ``zero_one`` (its float64 values built when first read)."""
    if values.shape[0] == 0:
        raise ValueError(ERR_EMPTY.format(arg=arg))
    if values.shape[1] == 0:
        raise ValueError(ERR_NO_COLUMNS.format(arg=arg))
    aligned, label_names = _align_columns(values, columns, arg, names, source)
    if zero_one:
        return LabelMatrix(
            None,
            _plain_names(label_names),
            arg,
            soft=False,
            validated=True,
            zero_one=cast(np.ndarray, aligned),
        )
    return LabelMatrix(aligned, _plain_names(label_names), arg, soft=False, validated=True)


def as_sample_weight(
    sample_weight: Any, n: int, *, arg: str = "sample_weight", of: str | None = None
) -> np.ndarray:
    """Validate weights: a finite, non-negative 1-D array of length ``n`` (``None`` gives ones);
    ``of`` names the argument whose rows they weigh, for the message on a wrong length."""
    if sample_weight is None:
        return np.ones(n, dtype=np.float64)
    raw = sample_weight
    if (
        (not isinstance(raw, np.ndarray) or raw.dtype.kind == "O")
        and not isinstance(raw, (str, bytes))
        and np.ndim(raw) != 0
    ):
        # any container: missing values (None, pd.NA, a polars or Arrow null) refused by row
        raw = to_native_numpy(raw, arg=arg).values
    try:
        w = np.asarray(raw, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError(ERR_WEIGHT_TYPE.format(arg=arg, error=exc)) from None
    if w.ndim != 1 or w.shape[0] != n:
        raise ValueError(
            ERR_WEIGHT_SHAPE.format(arg=arg, n=n, shape=w.shape)
            + (ERR_WEIGHT_OF.format(of=of) if of else "")
        )
    finite = np.isfinite(w)
    if not finite.all():
        raise ValueError(
            ERR_NAN.format(arg=arg, count=int((~finite).sum()))
            + ERR_FIRST_ROW.format(row=int(np.flatnonzero(~finite)[0]))
        )
    negative = w < 0
    if negative.any():
        raise ValueError(
            ERR_WEIGHT_NEGATIVE.format(arg=arg, count=int(negative.sum()))
            + ERR_FIRST_ROW.format(row=int(np.flatnonzero(negative)[0]))
        )
    tiny = np.finfo(np.float64).tiny
    subnormal = (w < tiny) & (w > 0)
    if subnormal.any():
        row = int(np.flatnonzero(subnormal)[0])
        raise ValueError(
            ERR_WEIGHT_UNDERFLOW.format(
                arg=arg, count=int(subnormal.sum()), tiny=tiny, row=row, value=float(w[row])
            )
        )
    return w


def check_same_length(**arrays: LabelMatrix | np.ndarray | None) -> int:
    """Check that every given array has the same number of rows; return that number."""
    lengths = {
        name: (a.n_rows if isinstance(a, LabelMatrix) else int(np.shape(a)[0]))
        for name, a in arrays.items()
        if a is not None
    }
    if not lengths:
        raise ValueError(ERR_NO_ARRAYS)
    if len(set(lengths.values())) > 1:
        details = ", ".join(f"{name} has {n} rows" for name, n in lengths.items())
        raise ValueError(ERR_LENGTH.format(details=details))
    return next(iter(lengths.values()))
