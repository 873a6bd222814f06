"""The boundary: one reader per kind of input a metric declares, one checker for its knobs.

Every registry card (:mod:`biasamp.registry`) declares its public function's data
arguments by kind (``inputs``) and its size and randomness knobs (``knobs``). Each
kind has one reader here, and every metric reads its arguments through them, so each
rule is written once:

* **missing values** (``None``, NaN, ``pd.NA``, NaT, a polars or Arrow null, in any
  container) are refused, naming the argument and the first row;
* **labels that print alike** (the int ``1`` and the str ``'1'``, ``True`` and ``1``)
  are refused, never merged into one group or shown twice;
* **duplicate names** (``group_names``, the item columns of a score frame) are refused;
* **row ranges** of the chunks of one stream may not overlap: a chunk's first row is read
  by :func:`read_row_offset`, and every table of a stream records the rows it counted
  (``counts/_row_record.py``: ``RowRecord``), refusing a row counted twice in an update
  or a merge;
* **knobs** (:func:`check_knob`): the type and range are checked, and every size
  derived from the knob is estimated against the memory available before anything
  is allocated (:func:`biasamp._memory.check_allocation`), so an absurd value is
  refused at once, naming the knob and the estimate.

=================  ====================================  =============================
kind               reader                                routes to
=================  ====================================  =============================
``labels``         :func:`read_labels`                   ``as_label_matrix`` (1-D)
``label_matrix``   :func:`read_label_matrix`             ``as_label_matrix``
``scores``         :func:`read_scores`                   ``to_native_numpy``
``posteriors``     :func:`read_posteriors`               ``to_native_numpy``
``captions``       :func:`read_captions`                 (here)
``weights``        :func:`read_weights`                  ``as_sample_weight``
``row_offsets``    :func:`read_row_offset`               ``RowRecord`` (overlaps)
``count_table``    :func:`read_count_table`              (here)
=================  ====================================  =============================

A ``count_table`` argument is a concept x group table of counts or shares (the
reference of ``output_amplification``, both tables of ``bias_transfer``, a group
classifier's confusion table): a pandas DataFrame (index: concepts, one column per
group), a mapping ``{concept: {group: count}}``, or a polars or pyarrow table whose
first column (text) names the concepts. Every cell must be a finite number >= 0: a
missing cell is refused naming the row (concept) and column (group), and so are
negative, infinite and non-numeric ones; a concept or group named twice, or two
names that print alike (``1`` and ``'1'``), are refused. The tables of
co-occurrence counts (``counts_train``, a :class:`biasamp.CountTable`) are checked
by the count tables themselves (their rows were read through these readers).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import chain, repeat
from typing import Any, cast

import numpy as np
import pandas as pd

from biasamp._memory import check_allocation
from biasamp.inputs._containers import ERR_MISSING_LABEL, to_native_numpy
from biasamp.inputs._keys import key_names
from biasamp.inputs._label_matrix import LabelMatrix, as_label_matrix, as_sample_weight
from biasamp.registry import KNOBS

__all__ = [
    "ERR_CAPTIONS_TYPE",
    "ERR_CAPTION_EMPTY_LIST",
    "ERR_CAPTION_ITEM",
    "ERR_CAPTION_ROW",
    "ERR_KNOB",
    "ERR_LABELS_NDIM",
    "ERR_NO_CAPTIONS",
    "ERR_POSTERIOR_DTYPE",
    "ERR_POSTERIOR_EMPTY",
    "ERR_POSTERIOR_NDIM",
    "ERR_POSTERIOR_RANGE",
    "ERR_ROW_OFFSET",
    "ERR_SCORES_DTYPE",
    "ERR_SCORES_EMPTY",
    "ERR_SCORES_INF",
    "ERR_SCORES_NAN",
    "ERR_SCORES_NDIM",
    "ERR_TABLE_EMPTY",
    "ERR_TABLE_MISSING",
    "ERR_TABLE_NDIM",
    "ERR_TABLE_NUMERIC",
    "ERR_TABLE_TYPE",
    "ERR_TABLE_VALUE",
    "READERS",
    "CountTable2D",
    "Labels",
    "Scores",
    "check_knob",
    "check_knobs",
    "check_score_block",
    "read_captions",
    "read_count_table",
    "read_label_matrix",
    "read_labels",
    "read_posteriors",
    "read_row_offset",
    "read_scores",
    "read_weights",
]

ERR_LABELS_NDIM = "{arg}: expected one label per row (1-D), got a matrix of shape {shape}."
ERR_SCORES_NDIM = "{arg}: expected a 2-D array (rows x columns), got shape {shape}."
ERR_SCORES_EMPTY = "{arg}: expected at least one row and one column, got shape {shape}."
ERR_SCORES_DTYPE = "{arg}: expected numbers, got dtype {dtype}."
ERR_SCORES_NAN = "{arg}: row {row} ({name!r}) has a missing or NaN score (column {column!r})."
ERR_SCORES_INF = "{arg}: row {row} ({name!r}) has an infinite score (column {column!r})."
ERR_POSTERIOR_NDIM = "{arg}: expected an array of {ndim} dimensions, got shape {shape}."
ERR_POSTERIOR_EMPTY = "{arg}: expected at least one row."
ERR_POSTERIOR_DTYPE = "{arg}: expected probabilities (numbers), got dtype {dtype}."
ERR_POSTERIOR_RANGE = "{arg}: expected probabilities in [0, 1]; row {row} holds {got!r}{where}."
ERR_ROW_OFFSET = "{arg}: expected a non-negative integer, got {got!r}."
ERR_KNOB = "{knob}: expected {expected}, got {got!r}."
ERR_CAPTIONS_TYPE = (
    "{arg}: expected a sequence of captions (list, array, pandas Series), one per row, got {got}."
)
ERR_CAPTION_ROW = (
    "{arg}: row {row} is {got!r} ({type}); expected a caption string or a non-empty "
    "list of caption strings."
)
ERR_CAPTION_EMPTY_LIST = "{arg}: row {row} is an empty list; give at least one caption per row."
ERR_CAPTION_ITEM = "{arg}: row {row} holds {got!r} ({type}); every caption must be a string."
ERR_NO_CAPTIONS = "{arg}: no captions (0 rows)."
ERR_TABLE_TYPE = (
    "{arg}: expected a pandas DataFrame (index: concepts, one column per group) or a "
    "mapping concept -> {{group: count}}, got {got}."
)
ERR_TABLE_NDIM = "{arg}: expected a 2-D table (rows x columns), got shape {shape}."
ERR_TABLE_EMPTY = "{arg}: the table is empty ({rows} rows, {columns} columns)."
ERR_TABLE_NUMERIC = "{arg}: column {column!r} holds {dtype} values, not counts or shares."
ERR_TABLE_MISSING = (
    "{arg}: row {row!r}, column {column!r} is missing (NaN or None); write 0 for no count."
)
ERR_TABLE_VALUE = (
    "{arg}: row {row!r}, column {column!r} is {value!r}; counts and shares must be finite and >= 0."
)


# ------------------------------------------------------------------ labels
@dataclass(frozen=True)
class Labels:
    """One label per row, read: the label ``names`` (distinct, none printing alike) and
    each row's position among them (``codes``, int64)."""

    names: tuple[Any, ...]
    codes: np.ndarray

    def __len__(self) -> int:
        return int(self.codes.shape[0])


def _checked_names(names: Sequence[Any] | None, names_arg: str) -> tuple[Any, ...] | None:
    if names is None:
        return None
    if isinstance(names, (str, bytes)) or not isinstance(names, (Sequence, np.ndarray, pd.Index)):
        raise TypeError(ERR_KNOB.format(knob=names_arg, expected="a sequence of names", got=names))
    listed = tuple(v.item() if isinstance(v, np.generic) else v for v in names)
    key_names(listed, arg=names_arg)  # a repeated name, or two that print alike
    return listed


def read_labels(
    x: Any,
    *,
    arg: str,
    names: Sequence[Any] | None = None,
    names_arg: str = "group_names",
    source: str | None = None,
) -> Labels:
    """Read a ``labels`` argument: one label per row, in any container.

    Missing values, mixed label types (``1`` with ``'1'``, ``True`` with ``1``) and labels
    outside ``names`` are refused, naming ``arg`` and the first row; ``names`` itself may
    not repeat a name or hold two that print alike (refused naming ``names_arg``).

    Returns
    -------
    Labels
        ``names`` (``names`` when given, else the labels that occur, sorted) and ``codes``.

    Examples
    --------
    >>> from biasamp.inputs._readers import read_labels
    >>> read_labels(["w", "m", "w"], arg="groups").codes.tolist()
    [1, 0, 1]
    >>> read_labels([1, "1"], arg="groups")
    Traceback (most recent call last):
    ...
    ValueError: groups: mixes label types (number and str), the first str at row 1; ...
    """
    listed = _checked_names(names, names_arg)
    matrix = as_label_matrix(x, arg=arg, names=listed, source=source or names_arg)
    if matrix.codes is None:
        raise ValueError(ERR_LABELS_NDIM.format(arg=arg, shape=(matrix.n_rows, matrix.n_labels)))
    key_names(matrix.names, arg=arg)
    return Labels(names=tuple(matrix.names), codes=np.asarray(matrix.codes, dtype=np.int64))


def read_label_matrix(
    x: Any,
    *,
    arg: str,
    names: Sequence[Any] | None = None,
    names_arg: str = "task_names",
    source: str | None = None,
    soft: bool = False,
) -> LabelMatrix:
    """Read a ``label_matrix`` argument (rows x labels of 0/1, a frame, a sparse matrix,
    or one label per row, one-hot encoded) through :func:`as_label_matrix`, with the
    names checked as :func:`read_labels` checks them."""
    listed = _checked_names(names, names_arg)
    matrix = as_label_matrix(x, arg=arg, names=listed, source=source, soft=soft)
    key_names(matrix.names, arg=arg)
    return matrix


# ------------------------------------------------------------------ scores
@dataclass(frozen=True)
class Scores:
    """A score matrix, read: ``values`` (2-D numeric ndarray or memmap, not copied), and
    the frame's ``rows`` and ``columns`` when it was a DataFrame (else ``None``)."""

    values: np.ndarray
    rows: pd.Index | None = None
    columns: pd.Index | None = None


def _frame_scores(frame: pd.DataFrame) -> np.ndarray:
    """A DataFrame's scores as a numpy matrix; nullable and Arrow numeric columns as float64
    with NaN for a missing score (refused with the row and column), or int64 when no integer
    column misses a value."""
    dtypes = list(frame.dtypes)
    if not any(isinstance(d, pd.api.extensions.ExtensionDtype) for d in dtypes):
        return frame.to_numpy()
    numeric = all(
        pd.api.types.is_numeric_dtype(d) and not pd.api.types.is_bool_dtype(d) for d in dtypes
    )
    if not numeric:
        if all(pd.api.types.is_bool_dtype(d) for d in dtypes) and not frame.isna().any().any():
            return frame.to_numpy(dtype=bool)
        return frame.to_numpy()  # refused by the dtype check
    if all(pd.api.types.is_integer_dtype(d) for d in dtypes) and not frame.isna().any().any():
        return frame.to_numpy(dtype=np.int64)
    return frame.to_numpy(dtype=np.float64, na_value=np.nan)


def _first_missing_object(values: np.ndarray) -> tuple[int, int] | None:
    missing = np.asarray(pd.isna(values), dtype=bool).reshape(values.shape[0], -1)
    if not missing.any():
        return None
    row, column = (int(v[0]) for v in np.nonzero(missing))
    return row, column


def read_scores(
    x: Any, *, arg: str = "scores", scan: bool = True, allow_inf: bool = False
) -> Scores:
    """Read a ``scores`` argument: a rows x columns matrix of real numbers.

    A DataFrame's columns must be distinct and none may print like another (refused
    naming ``arg``); its index and columns are kept. Missing values (NaN, ``None``,
    ``pd.NA``, a polars or Arrow null) are refused naming the row and column; infinite
    scores too unless ``allow_inf``. With ``scan=False`` the values are not read here
    (a memory-mapped matrix larger than memory): the caller checks each block it reads
    with :func:`check_score_block`.
    """
    rows = columns = None
    if isinstance(x, pd.DataFrame):
        key_names(list(x.columns), arg=f"{arg} (its columns)")
        rows, columns = x.index, x.columns
        values = _frame_scores(x)
    elif isinstance(x, np.ndarray):
        values = x
    else:
        native = to_native_numpy(x, arg=arg)
        if native.columns is not None:
            key_names(list(native.columns), arg=f"{arg} (its columns)")
            columns = pd.Index(list(native.columns))
        values = np.asarray(native.values)
    if values.ndim != 2:
        raise ValueError(ERR_SCORES_NDIM.format(arg=arg, shape=values.shape))
    if values.dtype.kind == "O":
        found = _first_missing_object(values)
        if found is not None:
            row, column = found
            name = rows[row] if rows is not None else row
            col = columns[column] if columns is not None else column
            raise ValueError(ERR_SCORES_NAN.format(arg=arg, row=row, name=name, column=col))
    if values.dtype.kind not in "biuf":
        raise TypeError(ERR_SCORES_DTYPE.format(arg=arg, dtype=values.dtype))
    if values.shape[0] == 0 or values.shape[1] == 0:
        raise ValueError(ERR_SCORES_EMPTY.format(arg=arg, shape=values.shape))
    read = Scores(values=values, rows=rows, columns=columns)
    if scan:
        check_score_block(read, values, start=0, arg=arg, allow_inf=allow_inf)
    return read


def check_score_block(
    scores: Scores,
    block: np.ndarray,
    *,
    start: int,
    arg: str = "scores",
    allow_inf: bool = False,
    row_names: Sequence[Any] | None = None,
) -> None:
    """Refuse a NaN (or, unless ``allow_inf``, an infinite) score in ``block``, the rows
    ``start ..`` of ``scores``, naming the row (by ``row_names`` when given) and column."""
    if block.dtype.kind != "f":
        return
    bad = np.isnan(block) if allow_inf else ~np.isfinite(block)
    if not bad.any():
        return
    row, column = (int(v[0]) for v in np.nonzero(bad))
    error = ERR_SCORES_NAN if np.isnan(block[row, column]) else ERR_SCORES_INF
    position = start + row
    names = row_names if row_names is not None else scores.rows
    raise ValueError(
        error.format(
            arg=arg,
            row=position,
            name=names[position] if names is not None else position,
            column=scores.columns[column] if scores.columns is not None else column,
        )
    )


# ------------------------------------------------------------------ posteriors
def read_posteriors(
    x: Any,
    *,
    arg: str,
    ndim: int | tuple[int, ...],
    axes: Sequence[Sequence[Any]] = (),
    axis_labels: Sequence[str] = (),
) -> np.ndarray:
    """Read a ``posteriors`` argument: probabilities in [0, 1], rows first, as float64.

    ``ndim`` is the number of dimensions (or the accepted numbers); ``axes`` and
    ``axis_labels``, when given, the label names along the axes after the rows and what
    they are (``("task", "group")``), for the message that points at a bad entry. Missing values (``None``, NaN, ``pd.NA``) are refused naming the row.
    """
    accepted = (ndim,) if isinstance(ndim, int) else tuple(ndim)
    if isinstance(x, np.ndarray):
        native: Any = x
    else:
        native = to_native_numpy(x, arg=arg).values
    native = np.asarray(native)
    if native.ndim not in accepted:
        raise ValueError(
            ERR_POSTERIOR_NDIM.format(
                arg=arg, ndim=" or ".join(map(str, accepted)), shape=native.shape
            )
        )
    if native.shape[0] == 0:
        raise ValueError(ERR_POSTERIOR_EMPTY.format(arg=arg))
    if native.dtype.kind == "O":
        found = _first_missing_object(native)
        if found is not None:
            raise ValueError(
                ERR_MISSING_LABEL.format(
                    arg=arg, count=int(np.asarray(pd.isna(native)).sum()), row=found[0]
                )
            )
        try:
            native = native.astype(np.float64)
        except (TypeError, ValueError):
            raise TypeError(ERR_POSTERIOR_DTYPE.format(arg=arg, dtype=native.dtype)) from None
    if native.dtype.kind not in "biuf":
        raise TypeError(ERR_POSTERIOR_DTYPE.format(arg=arg, dtype=native.dtype))
    proba = np.asarray(native, dtype=np.float64)
    nan = np.isnan(proba)
    if nan.any():
        row = int(np.flatnonzero(nan.reshape(proba.shape[0], -1).any(axis=1))[0])
        raise ValueError(ERR_MISSING_LABEL.format(arg=arg, count=int(nan.sum()), row=row))
    bad = ~np.isfinite(proba) | (proba < 0) | (proba > 1)
    if bad.any():
        where = tuple(int(v[0]) for v in np.nonzero(bad))
        named = []
        for k, i in enumerate(where[1:]):
            label = f"{axis_labels[k]} " if k < len(axis_labels) else ""
            named.append(label + (repr(axes[k][i]) if k < len(axes) else str(i)))
        raise ValueError(
            ERR_POSTERIOR_RANGE.format(
                arg=arg,
                row=where[0],
                got=float(proba[where]),
                where=" at (" + ", ".join(named) + ")" if named else "",
            )
        )
    return proba


# ------------------------------------------------------------------ captions
def read_captions(captions: Any, *, arg: str) -> tuple[list[str], np.ndarray, pd.Index]:
    """Read a ``captions`` argument: the flat list of caption strings, the row of each, and
    the row index. A row is one caption string or a non-empty list (tuple, array) of
    caption strings of the same image; a missing row (``None``, NaN, ``pd.NA``, a null) is
    refused naming the row."""
    if isinstance(captions, (str, bytes)) or isinstance(captions, Mapping):
        raise TypeError(ERR_CAPTIONS_TYPE.format(arg=arg, got=type(captions).__name__))
    if isinstance(captions, pd.DataFrame) or (
        isinstance(captions, np.ndarray) and captions.ndim != 1
    ):
        raise TypeError(ERR_CAPTIONS_TYPE.format(arg=arg, got="a 2-D table"))
    if isinstance(captions, pd.Series):
        index = captions.index
        values = captions.to_numpy(dtype=object)
    elif hasattr(captions, "to_pylist"):  # pyarrow Array / ChunkedArray: Python strings
        values = pd.Series(captions.to_pylist(), dtype=object).to_numpy()
        index = pd.RangeIndex(len(values))
    else:
        try:
            values = pd.Series(list(captions), dtype=object).to_numpy()
        except TypeError:
            raise TypeError(
                ERR_CAPTIONS_TYPE.format(arg=arg, got=type(captions).__name__)
            ) from None
        index = pd.RangeIndex(len(values))
    if len(values) == 0:
        raise ValueError(ERR_NO_CAPTIONS.format(arg=arg))
    if pd.api.types.infer_dtype(values, skipna=False) == "string":
        return list(values), np.arange(len(values)), index
    is_str = np.fromiter(map(isinstance, values, repeat(str)), dtype=bool, count=len(values))
    is_seq = np.fromiter(
        map(isinstance, values, repeat((list, tuple, np.ndarray))), dtype=bool, count=len(values)
    )
    bad = np.flatnonzero(~(is_str | is_seq))
    if len(bad):
        value = values[bad[0]]
        raise ValueError(
            ERR_CAPTION_ROW.format(arg=arg, row=int(bad[0]), got=value, type=type(value).__name__)
        )
    rows_of = [[v] if s else list(v) for v, s in zip(values, is_str, strict=True)]
    lengths = np.fromiter(map(len, rows_of), dtype=np.int64, count=len(rows_of))
    empty = np.flatnonzero(lengths == 0)
    if len(empty):
        raise ValueError(ERR_CAPTION_EMPTY_LIST.format(arg=arg, row=int(empty[0])))
    flat = list(chain.from_iterable(rows_of))
    row = np.repeat(np.arange(len(values)), lengths)
    if pd.api.types.infer_dtype(flat, skipna=False) != "string":
        ok = np.fromiter(map(isinstance, flat, repeat(str)), dtype=bool, count=len(flat))
        first = int(np.flatnonzero(~ok)[0])
        value = flat[first]
        raise ValueError(
            ERR_CAPTION_ITEM.format(
                arg=arg, row=int(row[first]), got=value, type=type(value).__name__
            )
        )
    return flat, row, index


# ------------------------------------------------------------------ weights
def read_weights(
    x: Any, n: int, *, arg: str = "sample_weight", of: str | None = None
) -> np.ndarray:
    """Read a ``weights`` argument: ``n`` finite, non-negative weights (``None``: ones), in
    any container; a missing, infinite or negative weight is refused naming the row
    (:func:`as_sample_weight`, the one rule every metric's weights go through); ``of``
    names the argument whose rows they weigh."""
    return as_sample_weight(x, n, arg=arg, of=of)


# ------------------------------------------------------------------ row ranges
def read_row_offset(row_offset: Any, *, arg: str = "row_offset") -> int:
    """Read a ``row_offsets`` argument: the first global row of a chunk of a stream."""
    if (
        isinstance(row_offset, (bool, np.bool_))
        or not isinstance(row_offset, (int, np.integer))
        or row_offset < 0
    ):
        raise ValueError(ERR_ROW_OFFSET.format(arg=arg, got=row_offset))
    return int(row_offset)


# ------------------------------------------------------------------ count tables
@dataclass(frozen=True)
class CountTable2D:
    """A concept x group table, read: ``values`` (float64, shape (n_rows, n_columns)), the
    row and column labels as given and their printed names (``row_keys``,
    ``column_keys``), and whether the input named its rows (``labelled``: a DataFrame, a
    mapping, a frame with a concept column; not a bare array)."""

    values: np.ndarray
    rows: tuple[Any, ...]
    columns: tuple[Any, ...]
    row_keys: tuple[str, ...]
    column_keys: tuple[str, ...]
    labelled: bool = True

    @property
    def is_counts(self) -> bool:
        """Whether every value is whole (counts, not shares)."""
        return bool(np.all(self.values == np.round(self.values)))


def _frame_of_other_library(x: Any, *, arg: str) -> tuple[pd.DataFrame, bool]:
    """A polars or pyarrow table as a pandas frame, and whether its rows are named: the
    first column names the concepts when it holds text (those libraries have no index;
    a pyarrow table written from pandas keeps its index)."""
    frame = x.to_pandas()
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(ERR_TABLE_TYPE.format(arg=arg, got=type(x).__name__))
    if frame.shape[1] and getattr(frame.dtypes.iloc[0], "kind", "O") not in "iufb":
        return frame.set_index(frame.columns[0]), True
    return frame, not isinstance(frame.index, pd.RangeIndex)


def _table_frame(x: Any, *, arg: str, arrays: bool) -> tuple[pd.DataFrame, bool]:
    """Any accepted table as a pandas frame, and whether its rows are named."""
    if isinstance(x, pd.DataFrame):
        return x, True
    if isinstance(x, Mapping):
        rows = list(x.values())
        if not all(isinstance(row, Mapping) for row in rows):  # one entry per concept
            raise TypeError(ERR_TABLE_TYPE.format(arg=arg, got="a mapping of non-mappings"))
        frame = pd.DataFrame([dict(row) for row in rows])
        return frame.set_axis(pd.Index(list(x), dtype=object), axis=0), True
    if hasattr(x, "to_pandas") and hasattr(x, "columns") and hasattr(x, "shape"):
        return _frame_of_other_library(x, arg=arg)
    if not arrays or isinstance(x, (str, bytes)):
        raise TypeError(ERR_TABLE_TYPE.format(arg=arg, got=type(x).__name__))
    native = np.asarray(to_native_numpy(x, arg=arg).values)
    if native.ndim != 2:
        raise ValueError(ERR_TABLE_NDIM.format(arg=arg, shape=native.shape))
    return pd.DataFrame(native), False


def read_count_table(x: Any, *, arg: str, arrays: bool = False) -> CountTable2D:
    """Read a ``count_table`` argument: a concept x group table of counts or shares.

    Parameters
    ----------
    x : pandas.DataFrame, mapping, polars or pyarrow table
        A DataFrame (index: concepts, one column per group), a mapping
        ``{concept: {group: count}}`` (a group a concept lacks is missing, not 0),
        or a polars or pyarrow table whose first column (text) names the concepts.
    arg : str
        The argument named by every error.
    arrays : bool, default False
        Whether a bare 2-D array (list of lists, numpy, tensor) is accepted too, its
        rows and columns numbered (a confusion table read in a known group order).

    Returns
    -------
    CountTable2D
        The values (float64) and the row and column names.

    Raises
    ------
    ValueError
        An empty table; a missing cell (``None``, NaN, ``pd.NA``, a polars or Arrow
        null), a negative or infinite one, naming the row (concept) and column
        (group); a concept or group named twice, or two that print alike (``1`` and
        ``'1'``).
    TypeError
        Another type of object, or a column that does not hold numbers.

    Examples
    --------
    >>> import pandas as pd
    >>> from biasamp.inputs._readers import read_count_table
    >>> table = read_count_table({"nurse": {"f": 9, "m": 1}}, arg="reference")
    >>> table.row_keys, table.column_keys, table.values.tolist()
    (('nurse',), ('f', 'm'), [[9.0, 1.0]])
    >>> read_count_table(pd.DataFrame({"f": [9, None]}, index=["nurse", "pilot"]),
    ...                  arg="reference")
    Traceback (most recent call last):
    ...
    ValueError: reference: row 'pilot', column 'f' is missing (NaN or None); write 0 for no count.
    """
    frame, labelled = _table_frame(x, arg=arg, arrays=arrays)
    if frame.shape[0] == 0 or frame.shape[1] == 0:
        raise ValueError(
            ERR_TABLE_EMPTY.format(arg=arg, rows=frame.shape[0], columns=frame.shape[1])
        )
    row_keys = tuple(key_names(frame.index, arg=f"{arg} index"))
    column_keys = tuple(key_names(frame.columns, arg=f"{arg} columns"))
    missing = np.asarray(frame.isna(), dtype=bool)
    if missing.any():
        i, j = np.argwhere(missing)[0]
        raise ValueError(
            ERR_TABLE_MISSING.format(arg=arg, row=frame.index[i], column=frame.columns[j])
        )
    for position, dtype in enumerate(frame.dtypes):
        if getattr(dtype, "kind", "O") not in "iuf":
            raise TypeError(
                ERR_TABLE_NUMERIC.format(arg=arg, column=frame.columns[position], dtype=str(dtype))
            )
    values = frame.to_numpy(dtype=np.float64)
    bad = ~np.isfinite(values) | (values < 0)
    if bad.any():
        i, j = np.argwhere(bad)[0]
        raise ValueError(
            ERR_TABLE_VALUE.format(
                arg=arg, row=frame.index[i], column=frame.columns[j], value=float(values[i, j])
            )
        )
    return CountTable2D(
        values, tuple(frame.index), tuple(frame.columns), row_keys, column_keys, labelled
    )


# ------------------------------------------------------------------ knobs
def check_knob(
    name: str,
    value: Any,
    *,
    low: float = 1,
    high: float | None = None,
    integer: bool = True,
    optional: bool = False,
    bytes_each: float = 0.0,
    fixed_bytes: float = 0.0,
    what: str = "",
    advice: str = "",
) -> Any:
    """Check one knob (``n_boot``, ``n_iter``, ``k``, ``n_bins``, ...) and the memory it sets.

    Parameters
    ----------
    name : str
        The knob, one of :data:`biasamp.registry.KNOBS` (named by the error).
    value : object
        The user's value.
    low, high : float
        Its range (``high`` ``None``: unbounded).
    integer : bool, default True
        Whether it must be an integer (a bool never is).
    optional : bool, default False
        Whether ``None`` is accepted (returned as is).
    bytes_each, fixed_bytes : float
        The memory the call needs: ``value * bytes_each + fixed_bytes`` bytes, checked
        against the memory available now before anything is allocated.
    what, advice : str
        What is allocated per unit of the knob, and how to make the call fit.

    Returns
    -------
    int, float or None
        The value (a Python int for an integer knob).

    Raises
    ------
    ValueError
        A value of the wrong type (a float for an integer knob, a bool, a str) or out
        of range, or one whose memory estimate exceeds the memory available (the
        message names the knob and gives the estimate).

    Examples
    --------
    >>> from biasamp.inputs._readers import check_knob
    >>> check_knob("n_boot", 200, bytes_each=8)
    200
    >>> check_knob("n_boot", 10**15, bytes_each=8, what="replicate values")
    Traceback (most recent call last):
    ...
    ValueError: n_boot=1000000000000000 replicate values would need about 7.1 PiB of memory, ...
    """
    if name not in KNOBS:
        raise ValueError(ERR_KNOB.format(knob="name", expected=f"one of {KNOBS}", got=name))
    if value is None and optional:
        return None
    expected = (f"an integer >= {low:g}" if integer else f"a number >= {low:g}") + (
        f" and <= {high:g}" if high is not None else ""
    )
    kinds: tuple[type, ...] = (
        (int, np.integer) if integer else (int, float, np.integer, np.floating)
    )
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, kinds):
        # a ValueError, as every knob of the package has always raised for a wrong value
        raise ValueError(ERR_KNOB.format(knob=name, expected=expected, got=value))
    number: int | float = int(cast(Any, value)) if integer else float(cast(Any, value))
    if not np.isfinite(float(number)) or number < low or (high is not None and number > high):
        raise ValueError(ERR_KNOB.format(knob=name, expected=expected, got=value))
    if bytes_each or fixed_bytes:
        check_allocation(
            float(number) * float(bytes_each) + float(fixed_bytes),
            what=f"{name}={number} {what}".rstrip(),
            advice=advice or f"use a smaller {name}.",
        )
    return number


def check_knobs(
    knobs: Mapping[str, Any], *, sizes: Mapping[str, Mapping[str, Any]] | None = None
) -> dict[str, Any]:
    """Check several knobs at once: ``knobs`` maps a knob to its value, ``sizes`` a knob to
    the keywords of :func:`check_knob` (range, memory per unit). Returns the checked
    values."""
    sizes = sizes or {}
    return {name: check_knob(name, value, **sizes.get(name, {})) for name, value in knobs.items()}


#: The reader of each input kind of the registry; a test checks that every kind has its
#: entry.
READERS: Mapping[str, Any] = {
    "labels": read_labels,
    "label_matrix": read_label_matrix,
    "scores": read_scores,
    "posteriors": read_posteriors,
    "captions": read_captions,
    "weights": read_weights,
    "row_offsets": read_row_offset,
    "count_table": read_count_table,
}
