"""Reading the inputs of the generated-output metrics through the input contract.

Label arrays (``concepts``, ``groups``, ``steps``) go through the boundary's
``labels`` reader (:func:`biasamp.inputs._readers.read_labels`: missing values, mixed
label types and labels that print alike are refused there, naming the argument and
the row); ``n_boot`` through its knob check.
Concept x group tables (``reference``, ``outputs``, ``attribute_confusion``) are
read here: a pandas DataFrame (index: concepts, one column per group), a mapping
``{concept: {group: count}}``, or a polars or pyarrow table whose first column
(text) names the concepts; names are compared by how they print
(:func:`biasamp.inputs._keys.key_names`), so a table's ``1`` and a label array's
``"1"`` are one group, and two names of one table that print alike are refused.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from biasamp.inputs._keys import key_names
from biasamp.inputs._readers import check_knob, read_labels

__all__ = [
    "BLOCK_CELLS",
    "boot_count",
    "CountTable2D",
    "Labels",
    "checked_count_table",
    "checked_labels",
    "crosstab_codes",
]

ERR_TABLE_TYPE = (
    "{arg}: expected a pandas DataFrame (index: concepts, one column per group) or a "
    "mapping concept -> {{group: count}}, got {got}."
)
ERR_TABLE_EMPTY = "{arg}: the table is empty ({rows} rows, {columns} columns)."
ERR_TABLE_NUMERIC = "{arg}: column {column!r} holds {dtype} values, not counts or shares."
ERR_TABLE_MISSING = (
    "{arg}: row {row!r}, column {column!r} is missing (NaN or None); write 0 for no count."
)
ERR_TABLE_VALUE = (
    "{arg}: row {row!r}, column {column!r} is {value!r}; counts and shares must be finite and >= 0."
)
#: Cells (replicates x concepts x groups) drawn at once by a bootstrap.
BLOCK_CELLS = 1 << 21


@dataclass(frozen=True)
class Labels:
    """One label per row: ``codes`` (shape (n,)) into ``names`` (their printed names in
    ``keys``)."""

    codes: np.ndarray
    names: tuple[Any, ...]
    keys: tuple[str, ...]

    @property
    def n(self) -> int:
        return int(self.codes.shape[0])


@dataclass(frozen=True)
class CountTable2D:
    """A checked concept x group table: ``values`` (float64, shape (n_rows, n_columns)),
    the row and column labels and their printed names, and whether every value is whole."""

    values: np.ndarray
    rows: tuple[Any, ...]
    columns: tuple[Any, ...]
    row_keys: tuple[str, ...]
    column_keys: tuple[str, ...]

    @property
    def is_counts(self) -> bool:
        return bool(np.all(self.values == np.round(self.values)))


def checked_labels(x: Any, *, arg: str) -> Labels:
    """A label argument read by the boundary's ``labels`` reader (1-D, no missing values,
    no two labels that print alike), with each label's printed name."""
    read = read_labels(x, arg=arg)
    keys = tuple(key_names(read.names, arg=arg))
    return Labels(np.asarray(read.codes, dtype=np.intp), tuple(read.names), keys)


def _other_frame(x: Any, *, arg: str) -> pd.DataFrame:
    """A polars or pyarrow table as a pandas frame: its first column names the concepts
    when it holds text (a frame of those libraries has no index)."""
    convert = getattr(x, "to_pandas", None)
    if convert is None or not hasattr(x, "columns") or not hasattr(x, "shape"):
        raise TypeError(ERR_TABLE_TYPE.format(arg=arg, got=type(x).__name__))
    frame = convert()
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(ERR_TABLE_TYPE.format(arg=arg, got=type(x).__name__))
    if frame.shape[1] and getattr(frame.dtypes.iloc[0], "kind", "O") not in "iufb":
        frame = frame.set_index(frame.columns[0])
    return frame


def checked_count_table(x: Any, *, arg: str) -> CountTable2D:
    """A concept x group table of non-negative finite numbers, its names checked."""
    if isinstance(x, Mapping) and not isinstance(x, pd.DataFrame):
        try:
            x = pd.DataFrame.from_dict(dict(x), orient="index")
        except (TypeError, ValueError) as exc:
            raise TypeError(ERR_TABLE_TYPE.format(arg=arg, got=type(x).__name__)) from exc
    if not isinstance(x, pd.DataFrame):
        x = _other_frame(x, arg=arg)
    if x.shape[0] == 0 or x.shape[1] == 0:
        raise ValueError(ERR_TABLE_EMPTY.format(arg=arg, rows=x.shape[0], columns=x.shape[1]))
    row_keys = tuple(key_names(x.index, arg=f"{arg} index"))
    column_keys = tuple(key_names(x.columns, arg=f"{arg} columns"))
    for position, dtype in enumerate(x.dtypes):
        kind = getattr(dtype, "kind", "O")
        if kind not in "iuf":
            raise TypeError(
                ERR_TABLE_NUMERIC.format(arg=arg, column=x.columns[position], dtype=str(dtype))
            )
    values = x.to_numpy(dtype=np.float64, na_value=np.nan)
    missing = np.isnan(values)
    if missing.any():
        i, j = np.argwhere(missing)[0]
        raise ValueError(ERR_TABLE_MISSING.format(arg=arg, row=x.index[i], column=x.columns[j]))
    bad = ~np.isfinite(values) | (values < 0)
    if bad.any():
        i, j = np.argwhere(bad)[0]
        raise ValueError(
            ERR_TABLE_VALUE.format(
                arg=arg, row=x.index[i], column=x.columns[j], value=float(values[i, j])
            )
        )
    return CountTable2D(values, tuple(x.index), tuple(x.columns), row_keys, column_keys)


def crosstab_codes(
    rows: np.ndarray, columns: np.ndarray, n_rows: int, n_columns: int
) -> np.ndarray:
    """Counts of each (row code, column code) pair: shape (n_rows, n_columns), int64."""
    flat = np.bincount(rows * n_columns + columns, minlength=n_rows * n_columns)
    return flat.reshape(n_rows, n_columns).astype(np.int64)


def boot_count(n_boot: Any) -> int:
    """``n_boot``: None (no bootstrap, returned as 0), else an integer >= 1 (the boundary's
    knob check; the memory of the replicates is checked where their size is known)."""
    checked = check_knob("n_boot", n_boot, optional=True)
    return 0 if checked is None else int(checked)
