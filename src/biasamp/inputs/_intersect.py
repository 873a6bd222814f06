"""Intersectional groups: several categorical columns -> one group label per row.

``intersect(frame[["race", "sex", "country"]])`` gives each row the label
``"White x Male x United-States"``: a pandas categorical Series that every metric
takes as ``groups`` (or as tasks), like any label column. It remembers which
columns formed it (``Series.attrs``), so results can show the parts as separate
columns and list the intersections that never occur.

A DataFrame passed straight as ``groups`` means 0/1 indicator columns (one column
per group, possibly several groups per row); ``intersect`` is the other reading,
one categorical value per column and one group per row.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import reduce
from typing import Any

import numpy as np
import pandas as pd

__all__ = [
    "ATTRS_KEY",
    "MISSING_LEVEL",
    "Intersection",
    "intersect",
    "intersection_of",
]

#: The key of ``Series.attrs`` that holds the :class:`Intersection`.
ATTRS_KEY = "biasamp.intersection"
#: The level ``missing="category"`` gives a missing value.
MISSING_LEVEL = "<missing>"

ERR_COLUMNS_TYPE = (
    "columns: expected a pandas or polars DataFrame, a dict of columns or a sequence of "
    "Series / arrays, got {type_name}."
)
ERR_LAZY = "columns: a polars LazyFrame is not read; call .collect() first."
ERR_NO_COLUMNS = "columns: expected at least one column, got none."
ERR_LENGTHS = "columns: every column needs the same number of rows; {lengths}."
ERR_NOT_1D = "columns: column {name!r} has shape {shape}; expected one value per row."
ERR_DUPLICATE_NAMES = "columns: the column names must differ; {names} appear more than once."
ERR_MISSING = (
    "columns: column {name!r} has {count} missing value(s) (first at row {row}); "
    "drop or fill them, or pass missing='category' to make them a level."
)
ERR_MISSING_RULE = "missing: expected 'error' or 'category', got {got!r}."
#: How :func:`intersect` joins the values of the columns into one label by default.
DEFAULT_SEP = " x "

ERR_SEP = "sep: expected a non-empty string, got {got!r}."
ERR_SEP_COLLISION = (
    "sep={sep!r}: two different intersections get the same label {label!r} because a "
    "value contains the separator; pass another sep."
)
ERR_MIXED = "columns: column {name!r} mixes value types ({types}); convert it to one type."
ERR_TOO_MANY = (
    "columns: the columns have {count:.3g} possible intersections, more than 2**62; "
    "intersect fewer or coarser columns."
)

# below this many possible intersections a bincount finds the used ones in O(rows)
_DIRECT_LIMIT = 1 << 24


@dataclass(frozen=True)
class Intersection:
    """Which columns formed an intersected group column, and their levels.

    Attributes
    ----------
    columns : tuple of str
        The column names, in order.
    parts : pandas.DataFrame
        One row per intersection that occurs (index: its label), one column per
        input column holding that column's value.
    levels : tuple of tuple
        The values of each column that occur, in order.
    sep : str
        The separator of the labels.
    """

    columns: tuple[str, ...]
    parts: pd.DataFrame
    levels: tuple[tuple[Any, ...], ...]
    sep: str

    @property
    def n_possible(self) -> int:
        """The number of combinations of the columns' levels."""
        return int(np.prod([len(level) for level in self.levels], dtype=np.float64))

    def never_occurring(self, *, limit: int = 100_000) -> pd.DataFrame | None:
        """The combinations of the columns' levels that no row has (``None`` above ``limit``).

        One row per combination, one column per input column.
        """
        if self.n_possible > limit:
            return None
        sizes = [len(level) for level in self.levels]
        grid = np.indices(sizes).reshape(len(sizes), -1)
        occurring = self._occurring_codes(sizes)
        keep = np.ones(grid.shape[1], dtype=bool)
        keep[occurring] = False
        return pd.DataFrame(
            {
                name: np.asarray(level, dtype=object)[grid[j, keep]]
                for j, (name, level) in enumerate(zip(self.columns, self.levels, strict=True))
            }
        )

    def _occurring_codes(self, sizes: list[int]) -> np.ndarray:
        flat = np.zeros(len(self.parts), dtype=np.int64)
        for j, (name, level) in enumerate(zip(self.columns, self.levels, strict=True)):
            position = pd.Index(level).get_indexer(self.parts[name])
            flat = flat * sizes[j] + position
        return flat


def intersection_of(x: Any) -> Intersection | None:
    """The :class:`Intersection` of an :func:`intersect` column, as it stands now, else ``None``.

    pandas keeps ``Series.attrs`` through slicing, so the stored
    :class:`Intersection` describes the column :func:`intersect` made, not
    necessarily ``x``. It is checked against the values of ``x`` each time:
    its ``parts`` are restricted to the labels ``x`` holds (so
    :meth:`Intersection.never_occurring` of a subset lists what the subset
    lacks), and ``None`` is returned when ``x`` holds a label the intersection
    does not know (the column was changed after :func:`intersect`). The
    ``levels`` stay those of the columns :func:`intersect` read.

    Parameters
    ----------
    x : any
        Usually a pandas Series from :func:`intersect`, or a subset of one.

    Returns
    -------
    Intersection or None

    Examples
    --------
    >>> import pandas as pd
    >>> import biasamp
    >>> frame = pd.DataFrame({"race": ["a", "b", "a", "a"], "sex": ["f", "m", "m", "f"]})
    >>> groups = biasamp.intersect(frame)
    >>> len(biasamp.intersection_of(groups).never_occurring())
    1
    >>> biasamp.intersection_of(groups[groups != "a x m"]).never_occurring()
      race sex
    0    a   m
    1    b   f
    """
    attrs = getattr(x, "attrs", None)
    if not isinstance(attrs, Mapping):
        return None
    found = attrs.get(ATTRS_KEY)
    if not isinstance(found, Intersection) or not isinstance(x, pd.Series):
        return None
    present = _present_labels(x)
    position = found.parts.index.get_indexer(pd.Index(present, dtype=object))
    if (position < 0).any():
        return None
    if len(position) == len(found.parts):
        return found
    return replace(found, parts=found.parts.iloc[np.sort(position)])


def _present_labels(x: pd.Series) -> np.ndarray:
    """The distinct labels ``x`` holds (missing values left out), in O(rows)."""
    if isinstance(x.dtype, pd.CategoricalDtype):
        codes = np.asarray(x.cat.codes.to_numpy(), dtype=np.int64)
        categories = x.cat.categories
        used = np.bincount(codes[codes >= 0], minlength=len(categories)) > 0
        return np.asarray(categories[used], dtype=object)
    return np.asarray(pd.unique(x.dropna().to_numpy(dtype=object)), dtype=object)


def intersect(columns: Any, *, sep: str = DEFAULT_SEP, missing: str = "error") -> pd.Series:
    """One group label per row from several categorical columns (their intersection).

    Parameters
    ----------
    columns : DataFrame (pandas or polars), dict of name -> column, or sequence of Series
        The categorical columns, each of shape (n,). Values of any type; each
        column's values are ordered (a categorical's declared order, else sorted).
    sep : str, default " x "
        Joins the columns' values into the label (``"White x Male"``).
    missing : {"error", "category"}, default "error"
        A missing value (None, NaN, NA, null) is an error naming the column and
        its first row, or, with ``"category"``, the level ``"<missing>"``.

    Returns
    -------
    pandas.Series of shape (n,)
        Categorical labels, one category per intersection that occurs (in the
        columns' order), named after the columns (``"race x sex"``), with the
        input's index when it is a pandas DataFrame. ``series.attrs`` keeps the
        :class:`Intersection` (which columns, their values per label, the
        combinations that never occur); metrics take the Series as ``groups``
        (or tasks) like any label column.

    Examples
    --------
    >>> import pandas as pd
    >>> import biasamp
    >>> frame = pd.DataFrame({"race": ["a", "b", "a", "a"], "sex": ["f", "m", "m", "f"]})
    >>> groups = biasamp.intersect(frame)
    >>> groups.tolist()
    ['a x f', 'b x m', 'a x m', 'a x f']
    >>> groups.name
    'race x sex'
    >>> biasamp.intersection_of(groups).never_occurring()
      race sex
    0    b   f
    """
    if not isinstance(sep, str) or not sep:
        raise ValueError(ERR_SEP.format(got=sep))
    if missing not in ("error", "category"):
        raise ValueError(ERR_MISSING_RULE.format(got=missing))
    names, cols, index = _named_columns(columns)
    lengths = {name: _length(col, name) for name, col in zip(names, cols, strict=True)}
    if len(set(lengths.values())) > 1:
        shown = ", ".join(f"{name!r} has {n}" for name, n in lengths.items())
        raise ValueError(ERR_LENGTHS.format(lengths=shown))
    factors = [
        _factorize(col, name, missing=missing) for name, col in zip(names, cols, strict=True)
    ]
    sizes = [len(levels) for _, levels in factors]
    if float(np.prod(sizes, dtype=np.float64)) > 2.0**62:
        raise ValueError(ERR_TOO_MANY.format(count=float(np.prod(sizes, dtype=np.float64))))
    combined = np.zeros(next(iter(lengths.values())), dtype=np.int64)
    for (codes, _), size in zip(factors, sizes, strict=True):
        combined *= size
        combined += codes
    used, row_codes = _used_codes(combined, int(np.prod(sizes, dtype=np.int64)))
    parts_codes = np.stack(np.unravel_index(used, sizes)) if sizes else np.zeros((0, 0), int)
    level_arrays = [np.asarray(levels, dtype=object) for _, levels in factors]
    part_values = {
        name: level_arrays[j][parts_codes[j]] for j, name in enumerate(names)
    }  # one array per column: a loop over columns, not rows
    labels = reduce(
        lambda left, right: np.char.add(np.char.add(left, sep), right),
        [_as_text(values) for values in part_values.values()],
    )
    label_index = pd.Index(labels.astype(object), dtype=object)
    if not label_index.is_unique:
        duplicated = label_index[label_index.duplicated()][0]
        raise ValueError(ERR_SEP_COLLISION.format(sep=sep, label=duplicated))
    parts = pd.DataFrame(part_values, index=label_index)
    result = pd.Series(
        pd.Categorical.from_codes(row_codes, categories=label_index),
        name=sep.join(names),
        index=index,
    )
    result.attrs[ATTRS_KEY] = Intersection(
        columns=tuple(names),
        parts=parts,
        levels=tuple(tuple(levels) for _, levels in factors),
        sep=sep,
    )
    return result


def _named_columns(columns: Any) -> tuple[list[str], list[Any], pd.Index | None]:
    """(names, columns, pandas index or None) of any accepted container."""
    module = type(columns).__module__.split(".")[0]
    if module == "polars" and type(columns).__name__ == "LazyFrame":
        raise TypeError(ERR_LAZY)
    if isinstance(columns, pd.DataFrame):
        names, cols, index = [str(c) for c in columns.columns], [], columns.index
        cols = [columns.iloc[:, j] for j in range(columns.shape[1])]
    elif module == "polars" and type(columns).__name__ == "DataFrame":
        names, cols, index = list(columns.columns), list(columns.get_columns()), None
    elif isinstance(columns, Mapping):
        names, cols, index = [str(k) for k in columns], list(columns.values()), None
    elif isinstance(columns, Sequence) and not isinstance(columns, (str, bytes)):
        cols = list(columns)
        names = [
            str(getattr(c, "name", None)) if getattr(c, "name", None) is not None else f"column {j}"
            for j, c in enumerate(cols)
        ]
        index = None
        pandas_indexes = [c.index for c in cols if isinstance(c, pd.Series)]
        if pandas_indexes and len(pandas_indexes) == len(cols):
            index = pandas_indexes[0]
    else:
        raise TypeError(ERR_COLUMNS_TYPE.format(type_name=type(columns).__name__))
    if not cols:
        raise ValueError(ERR_NO_COLUMNS)
    seen = pd.Index(names)
    if not seen.is_unique:
        raise ValueError(ERR_DUPLICATE_NAMES.format(names=sorted(set(seen[seen.duplicated()]))))
    return names, cols, index


def _length(col: Any, name: str) -> int:
    shape = getattr(col, "shape", None)
    if shape is None:
        return len(col)
    if len(shape) != 1:
        raise ValueError(ERR_NOT_1D.format(name=name, shape=tuple(shape)))
    return int(shape[0])


def _factorize(col: Any, name: str, *, missing: str) -> tuple[np.ndarray, list[Any]]:
    """(codes with -1 for missing, the levels that occur in order) of one column.

    The per-column readers return ``(codes, levels, declared)``: ``declared`` when
    the levels come from a dtype (categorical, Enum) and may include unused ones.
    """
    if type(col).__module__.split(".")[0] == "polars":
        codes, levels, declared = _factorize_polars(col)
    else:
        codes, levels, declared = _factorize_pandas(col, name)
    if codes.size and codes.min() < 0:
        absent = codes < 0
        if missing == "error":
            first = int(np.argmax(absent))
            raise ValueError(ERR_MISSING.format(name=name, count=int(absent.sum()), row=first))
        codes = np.where(absent, len(levels), codes)
        levels = [*levels, MISSING_LEVEL]
    if declared:  # declared levels no row uses (unused categories) are dropped, as everywhere
        used = np.bincount(codes, minlength=len(levels)) > 0
        if not used.all():
            codes = (np.cumsum(used) - 1)[codes]
            levels = [level for level, keep in zip(levels, used, strict=True) if keep]
    return codes, levels


def _factorize_pandas(col: Any, name: str) -> tuple[np.ndarray, list[Any], bool]:
    if isinstance(col, pd.Series):
        series = col
    elif isinstance(col, np.ndarray) and col.dtype != object:
        series = pd.Series(col)
    else:
        series = pd.Series(np.asarray(col, dtype=object))
    if isinstance(series.dtype, pd.CategoricalDtype):
        return np.asarray(series.cat.codes), list(series.cat.categories), True
    if series.dtype.kind in "iub" and not series.hasnans:  # nullable Int64 with NA: below
        return (*_factorize_integers(series.to_numpy()), False)
    try:
        codes, uniques = pd.factorize(series, sort=True, use_na_sentinel=True)
    except TypeError:  # values that cannot be ordered together: mixed types
        codes, uniques = pd.factorize(series, sort=False, use_na_sentinel=True)
    if series.dtype == object:
        types = sorted({type(v).__name__ for v in uniques})  # one entry per distinct value
        if len(types) > 1:
            raise ValueError(ERR_MIXED.format(name=name, types=", ".join(types)))
    return np.asarray(codes), list(uniques), False


def _factorize_integers(values: np.ndarray) -> tuple[np.ndarray, list[Any]]:
    """Codes of integer or boolean values: a lookup table when their range is small."""
    if values.size == 0:
        return np.zeros(0, dtype=np.int64), []
    if values.dtype.kind == "b":
        present = np.bincount(values.view(np.uint8), minlength=2) > 0
        levels = [level for level, keep in zip([False, True], present, strict=True) if keep]
        return (np.cumsum(present) - 1)[values.view(np.uint8)], levels
    low, high = int(values.min()), int(values.max())
    if high - low < max(1 << 20, values.size):
        shifted = values - low if low else values
        present = np.bincount(shifted, minlength=high - low + 1) > 0
        levels = (np.flatnonzero(present) + low).tolist()
        return (np.cumsum(present) - 1)[shifted], levels
    levels_array = np.unique(values)
    return np.searchsorted(levels_array, values), levels_array.tolist()


def _factorize_polars(col: Any) -> tuple[np.ndarray, list[Any], bool]:
    import polars as pl

    series = col
    if series.dtype.is_float():
        series = series.fill_nan(None)
    if isinstance(series.dtype, pl.Enum):
        codes = series.to_physical().cast(pl.Int64).fill_null(-1).to_numpy()
        return codes, list(series.dtype.categories), True
    if isinstance(series.dtype, pl.Categorical):
        series = series.cast(pl.String)
    if series.dtype == pl.String:  # a hash lookup per row through an Enum of the sorted levels
        levels = series.drop_nulls().unique().sort()
        enum = pl.Enum(levels.to_list())
        codes = series.cast(enum).to_physical().cast(pl.Int64).fill_null(-1).to_numpy()
        return codes, levels.to_list(), False
    if series.null_count() == 0 and (series.dtype.is_integer() or series.dtype == pl.Boolean):
        return (*_factorize_integers(series.to_numpy()), False)
    levels = series.drop_nulls().unique().sort()
    null = series.is_null().to_numpy()
    filled = series.fill_null(levels[0]) if len(levels) else series
    codes = np.searchsorted(levels.to_numpy(), filled.to_numpy()).astype(np.int64)
    codes[null] = -1
    return codes, levels.to_list(), False


def _used_codes(combined: np.ndarray, n_possible: int) -> tuple[np.ndarray, np.ndarray]:
    """(sorted combined codes that occur, each row's position among them)."""
    if n_possible <= max(_DIRECT_LIMIT, 4 * combined.size):
        present = np.bincount(combined, minlength=n_possible) > 0
        used = np.flatnonzero(present)
        lookup = np.cumsum(present) - 1
        small = np.int32 if used.size < 2**31 else np.int64
        return used, lookup[combined].astype(small)
    used, inverse = np.unique(combined, return_inverse=True)
    return used, inverse.reshape(-1)


def _as_text(values: np.ndarray) -> np.ndarray:
    return np.asarray(values, dtype=object).astype(str)
