"""The generated-output metrics' helpers around the input contract.

Every argument is read by the boundary (:mod:`biasamp.inputs._readers`): label arrays
(``concepts``, ``groups``, ``steps``) by its ``labels`` reader (missing values, mixed
label types and labels that print alike are refused there, naming the argument and
the row), concept x group tables (``reference``, ``outputs``, ``attribute_confusion``)
by its ``count_table`` reader (:func:`~biasamp.inputs._readers.read_count_table`),
``n_boot`` by its knob check. Names are compared by how they print
(:func:`biasamp.inputs._keys.key_names`), so a table's ``1`` and a label array's
``"1"`` are one group. Here: each label's printed name, the crosstab of two label
codes, and the bootstrap's replicate count.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from biasamp.inputs._keys import key_names
from biasamp.inputs._readers import check_knob, read_labels

__all__ = [
    "BLOCK_CELLS",
    "boot_count",
    "Labels",
    "checked_labels",
    "crosstab_codes",
]

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


def checked_labels(x: Any, *, arg: str) -> Labels:
    """A label argument read by the boundary's ``labels`` reader (1-D, no missing values,
    no two labels that print alike), with each label's printed name."""
    read = read_labels(x, arg=arg)
    keys = tuple(key_names(read.names, arg=arg))
    return Labels(np.asarray(read.codes, dtype=np.intp), tuple(read.names), keys)


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
