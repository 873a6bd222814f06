"""Containers in, numpy (or scipy.sparse) out: the one place that knows other libraries.

Every label, score and weight argument of biasamp is first turned into a plain
numpy array (or a scipy.sparse matrix) here; nothing else in the package looks
at the type of a user's object. The rules, in order:

* :class:`~biasamp.inputs.LabelMatrix` and scipy.sparse matrices pass through.
* **Dataframes and series** go through `narwhals <https://narwhals-dev.github.io>`_
  (``narwhals.stable.v1``): pandas 2 and 3 with every dtype (NumPy, nullable
  ``Int64`` / ``boolean``, ``string[pyarrow]`` / ``str``, ``Categorical``,
  Arrow-backed), polars (``String``, ``Categorical``, ``Enum``, numeric),
  pyarrow ``Table`` / ``ChunkedArray`` / ``Array`` (dictionary arrays
  included), and anything else narwhals supports. Loose pandas arrays
  (``Categorical``, ``ArrowStringArray``, ``IntegerArray``, an ``Index``) are
  wrapped in a ``Series`` first; a pyarrow ``Array`` in a ``ChunkedArray``.
  A Hugging Face ``datasets.Dataset`` is read through its Arrow table (its
  selection or shuffle applied), a ``datasets.Column`` (``ds["col"]``) through
  its Arrow column. A lazy query (polars ``LazyFrame``) is refused with a
  message that says to ``.collect()`` it.
* **Tensors** (torch, jax, cupy, ...): DLPack (``numpy.from_dlpack``), else
  ``__array__``; a tensor that requires grad is detached, one on a device is
  copied to the host first, a bfloat16 one widened to float32 (exactly).
* Lists, tuples, numpy arrays and other objects with ``__array__``: ``numpy.asarray``.
  A list whose labels numpy would turn into text (``["a", nan]`` into
  ``"nan"``, ``[1, "1"]`` into ``"1"``) is kept as objects, so that the missing
  value or the mixed types are reported.

Missing values (``None``, ``NaN``, ``pandas.NA``, ``NaT``, polars and Arrow
nulls) are found here, before any conversion could hide them, and reported
with the argument and the first row. Optional libraries are never imported:
an object can only come from polars, pyarrow or torch if the user imported it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import scipy.sparse as sp

__all__ = [
    "ERR_MISSING_LABEL",
    "ERR_LAZY",
    "ERR_MISSING_VALUE",
    "ERR_MIXED_TYPES",
    "ERR_TYPE",
    "NativeData",
    "check_bool_labels",
    "check_missing_1d",
    "list_labels",
    "to_native_numpy",
]

ERR_TYPE = (
    "{arg}: unsupported type {type_name}; pass a numpy array, list, pandas/polars/pyarrow "
    "Series or DataFrame (or pyarrow Array/Table), a tensor (torch, jax, ...), or a "
    "scipy.sparse matrix."
)
ERR_MISSING_LABEL = (
    "{arg}: contains {count} missing value(s) (None, NaN or null), the first at row {row} "
    "(0-based position). "
    "Drop those rows or fill them before measuring."
)
ERR_MISSING_VALUE = (
    "{arg}: contains {count} missing value(s) (None, NaN or null), the first at row {row} "
    "(0-based position), column {column!r}. Drop those rows or fill them before measuring."
)
ERR_TENSOR = "{arg}: could not read the tensor {type_name} as a numpy array ({error})."
ERR_LAZY = (
    "{arg}: a {type_name} is a lazy query, not data; call .collect() on it first "
    "(for example {arg}=frame.collect())."
)
ERR_MIXED_TYPES = (
    "{arg}: mixes label types ({types}), the first {second} at row {row}; the int 1 and "
    "the string '1' would print as one label, and True and 1 compare equal, but they are "
    "different labels. Convert the labels to one type first (for example all str)."
)


@dataclass(frozen=True)
class NativeData:
    """A user's input as numpy: ``values`` (1-D or 2-D ndarray, or scipy.sparse) and,
    for a dataframe, its column names."""

    values: Any  # numpy.ndarray (1-D or 2-D) or a scipy.sparse matrix / array
    columns: tuple[Any, ...] | None = None


def _module(x: Any) -> str:
    return type(x).__module__ or ""


def _first_row(mask: np.ndarray) -> int:
    return int(np.flatnonzero(mask)[0])


def _missing_mask(arr: np.ndarray) -> np.ndarray | None:
    """Where ``arr`` (1-D) holds a missing value, or ``None`` when its dtype cannot."""
    if arr.dtype.kind == "f" or arr.dtype.kind == "c":
        return np.isnan(arr)
    if arr.dtype.kind in "OMm":
        return np.asarray(pd.isna(arr), dtype=bool)
    return None


def check_missing_1d(arr: np.ndarray, arg: str, nulls: np.ndarray | None = None) -> None:
    """Raise :data:`ERR_MISSING_LABEL` (count and first row) when 1-D ``arr`` holds a
    missing value (or ``nulls``, a mask a container gave, marks one)."""
    mask = _missing_mask(arr)
    if nulls is not None:
        mask = nulls if mask is None else (mask | nulls)
    if mask is not None and mask.any():
        raise ValueError(
            ERR_MISSING_LABEL.format(arg=arg, count=int(mask.sum()), row=_first_row(mask))
        )


def _type_family(value: Any) -> str:
    """The family of a label's type that decides how it prints and compares."""
    if isinstance(value, (bool, np.bool_)):
        return "bool"
    if isinstance(value, (int, float, np.integer, np.floating)):
        return "number"
    if isinstance(value, (str, np.str_)):
        return "str"
    if isinstance(value, (bytes, np.bytes_)):
        return "bytes"
    return type(value).__name__


def check_label_types(uniques: np.ndarray, codes: np.ndarray, arg: str) -> None:
    """Raise :data:`ERR_MIXED_TYPES` when the distinct labels of one argument mix types
    (str with numbers, bool with numbers, ...); ``codes`` locate the first offending row."""
    if uniques.dtype.kind != "O" or uniques.shape[0] < 2:
        return
    families = [_type_family(v) for v in uniques]  # distinct labels only
    if len(set(families)) < 2:
        return
    first = families[0]
    other = next(i for i, f in enumerate(families) if f != first)
    row = int(np.flatnonzero(codes == other)[0])
    raise ValueError(
        ERR_MIXED_TYPES.format(
            arg=arg,
            types=" and ".join(sorted(set(families))),
            second=families[other],
            row=row,
        )
    )


def check_bool_labels(arr: np.ndarray, uniques: np.ndarray, arg: str) -> None:
    """Raise :data:`ERR_MIXED_TYPES` when an object array mixes booleans with numbers:
    ``True == 1`` hashes alike, so factorising merges them into one label before
    :func:`check_label_types` could see two types. One C pass (pandas' type inference)
    when a boolean label occurs; the rows are read only to name the first offending one."""
    if arr.dtype.kind != "O" or not any(
        isinstance(u, (bool, int, float, np.number, np.bool_)) for u in uniques
    ):
        return
    if pd.api.types.infer_dtype(arr, skipna=True) not in ("mixed-integer", "mixed"):
        return  # all booleans, all integers, or numbers of one kind
    families = pd.Series(arr, dtype=object).map(_type_family).to_numpy()  # mixed arrays only
    other = np.flatnonzero(families != families[0])
    if not other.size:
        return
    row = int(other[0])
    raise ValueError(
        ERR_MIXED_TYPES.format(
            arg=arg,
            types=" and ".join(sorted({str(families[0]), str(families[row])})),
            second=families[row],
            row=row,
        )
    )


def list_labels(x: list[Any] | tuple[Any, ...], arr: np.ndarray, arg: str) -> np.ndarray:
    """``arr`` (``numpy.asarray(x)`` of a 1-D list) unless numpy turned values of other
    types into text or numbers: ``["a", nan]`` becomes ``["a", "nan"]``, ``[1, "1"]``
    becomes ``["1", "1"]`` and ``[True, 1]`` becomes ``[1, 1]``. Those are returned as an object array (so the missing-value and
    mixed-type checks see them); pandas' type inference runs in C, once per list."""
    if arr.dtype.kind not in "USbiuf":
        return arr
    inferred = pd.api.types.infer_dtype(x, skipna=False)
    if inferred in ("string", "bytes") or (
        arr.dtype.kind in "biuf" and inferred not in ("mixed-integer", "mixed")
    ):  # one type, or numbers numpy read as they are (True with 1 is "mixed-integer")
        return arr
    obj = np.empty(len(x), dtype=object)
    obj[:] = x
    return obj


def _series_numpy(series: Any, arg: str) -> np.ndarray:
    """A narwhals Series as a 1-D numpy array; nulls raise (dictionary arrays would hide them)."""
    nulls = np.asarray(series.is_null().to_numpy(), dtype=bool)
    arr = np.asarray(series.to_numpy())
    check_missing_1d(arr, arg, nulls)
    return arr


def _frame_numpy(frame: Any, arg: str) -> NativeData:
    columns = tuple(frame.columns)
    if len(columns) == 1:
        only = frame.get_column(columns[0])
        arr = _series_numpy(only, arg)
        if arr.dtype.kind not in "biuf":
            # one column of labels (df[["gender"]]): read it as 1-D labels
            return NativeData(arr)
        return NativeData(arr[:, None], columns)
    parts = []
    for name in columns:
        series = frame.get_column(name)
        nulls = np.asarray(series.is_null().to_numpy(), dtype=bool)
        arr = np.asarray(series.to_numpy())
        mask = _missing_mask(arr)
        mask = nulls if mask is None else (mask | nulls)
        if mask.any():
            raise ValueError(
                ERR_MISSING_VALUE.format(
                    arg=arg, count=int(mask.sum()), row=_first_row(mask), column=name
                )
            )
        parts.append(arr)
    if not parts:
        return NativeData(np.empty((frame.shape[0], 0)), columns)
    kinds = {p.dtype.kind for p in parts}
    if kinds <= {"b"}:
        values = np.column_stack(parts).astype(bool)
    elif kinds <= set("biuf"):
        values = np.column_stack([p.astype(np.float64) for p in parts])
    else:
        values = np.column_stack([p.astype(object) for p in parts])
    return NativeData(values, columns)


def _numpy_numeric_frame(frame: pd.DataFrame, dtypes: list[Any]) -> bool:
    """A pandas frame of two or more columns, all of numpy bool / int / float dtypes, which
    numpy reads in one pass (what :func:`_frame_numpy` gives, without a Series per column)."""
    return frame.shape[1] >= 2 and all(
        isinstance(dtype, np.dtype) and dtype.kind in "biuf" for dtype in dtypes
    )


def _numeric_frame_numpy(frame: pd.DataFrame, arg: str, dtypes: list[Any]) -> NativeData:
    columns = tuple(frame.columns)
    if all(dtype.kind == "b" for dtype in dtypes):
        return NativeData(frame.to_numpy(dtype=bool), columns)
    values = frame.to_numpy(dtype=np.float64)
    if any(dtype.kind == "f" for dtype in dtypes):
        nan = np.isnan(values)
        if nan.any():  # as the column-by-column reading reports it: first column, first row
            col = int(np.flatnonzero(nan.any(axis=0))[0])
            raise ValueError(
                ERR_MISSING_VALUE.format(
                    arg=arg,
                    count=int(nan[:, col].sum()),
                    row=_first_row(nan[:, col]),
                    column=columns[col],
                )
            )
    return NativeData(values, columns)


def _wrap_for_narwhals(x: Any) -> Any:
    """Loose arrays that narwhals does not take directly, wrapped in what it does."""
    if isinstance(x, (pd.Index, pd.Categorical, pd.api.extensions.ExtensionArray)):
        return pd.Series(x, copy=False)
    module = _module(x)
    if module.startswith("pyarrow"):
        import pyarrow as pa  # the user's object is pyarrow's

        if isinstance(x, pa.Array):
            return pa.chunked_array([x])
        if isinstance(x, pa.RecordBatch):
            return pa.Table.from_batches([x])
    if module.startswith("datasets"):
        return hugging_face_arrow(x)
    return x


def hugging_face_arrow(x: Any) -> Any:
    """A Hugging Face ``Dataset`` as its Arrow table, a ``Column`` (``ds["col"]``) as
    its Arrow column; a selection, shuffle or filter (an indices mapping) is applied."""
    source, column = x, None
    if hasattr(x, "source") and hasattr(x, "column_name"):  # datasets.Column
        source, column = x.source, x.column_name
    if not (hasattr(source, "with_format") and hasattr(source, "select_columns")):
        return x
    if column is not None:
        source = source.select_columns([column])
    table = source.with_format("arrow")[:]  # rows in the dataset's order
    return table.column(0) if column is not None else table


def _is_lazy(x: Any) -> bool:
    """A lazy dataframe query (polars LazyFrame, narwhals LazyFrame, DuckDB relation)."""
    name = type(x).__name__
    return name in ("LazyFrame", "DuckDBPyRelation") and _module(x).split(".")[0] in (
        "polars",
        "narwhals",
        "duckdb",
        "_duckdb",
    )


def _tensor_numpy(x: Any, arg: str) -> np.ndarray:
    """A tensor-like (DLPack or ``__array__``) as numpy; never imports its library."""
    obj = x
    if getattr(obj, "requires_grad", False) and hasattr(obj, "detach"):
        obj = obj.detach()
    device = getattr(obj, "device", None)
    if device is not None and getattr(device, "type", "cpu") != "cpu" and hasattr(obj, "cpu"):
        obj = obj.cpu()
    if str(getattr(obj, "dtype", "")).endswith("bfloat16") and hasattr(obj, "float"):
        obj = obj.float()  # numpy has no bfloat16; float32 holds every bfloat16 exactly
    try:
        return np.asarray(np.from_dlpack(obj))
    except (BufferError, RuntimeError, TypeError, ValueError, AttributeError) as dlpack_error:
        if hasattr(obj, "get") and _module(obj).startswith("cupy"):
            return np.asarray(obj.get())
        if hasattr(obj, "__array__"):
            return np.asarray(obj)
        raise TypeError(
            ERR_TENSOR.format(arg=arg, type_name=type(x).__name__, error=dlpack_error)
        ) from dlpack_error


def to_native_numpy(x: Any, *, arg: str) -> NativeData:
    """``x`` (any supported container) as numpy or scipy.sparse, with missing values rejected.

    Parameters
    ----------
    x : any supported container (module docs)
    arg : str
        The argument name, used in error messages.

    Returns
    -------
    NativeData
        1-D arrays keep their dtype (object for strings and categories); a
        dataframe gives a 2-D array (bool, float64 or object) and its column
        names, except a one-column frame of non-numeric labels, which is read
        as 1-D labels.

    Examples
    --------
    >>> import pandas as pd
    >>> from biasamp.inputs import to_native_numpy
    >>> to_native_numpy(pd.Series(["m", "w"], dtype="category"), arg="groups").values
    array(['m', 'w'], dtype=object)
    """
    if sp.issparse(x):
        return NativeData(x)
    if isinstance(x, np.ndarray):
        if x.ndim == 1:
            check_missing_1d(x, arg)
        return NativeData(x)
    if isinstance(x, (list, tuple)):
        arr = np.asarray(x) if len(x) else np.asarray(x, dtype=float)
        if arr.ndim == 1:
            arr = list_labels(x, arr, arg)
            check_missing_1d(arr, arg)
        return NativeData(arr)
    if isinstance(x, pd.DataFrame):
        dtypes = list(x.dtypes)
        if _numpy_numeric_frame(x, dtypes):
            return _numeric_frame_numpy(x, arg, dtypes)
    if _is_lazy(x):
        raise TypeError(ERR_LAZY.format(arg=arg, type_name=type(x).__name__))
    import narwhals.stable.v1 as nw  # core dependency, imported when first needed

    native = nw.from_native(
        _wrap_for_narwhals(x), allow_series=True, eager_only=True, pass_through=True
    )
    if isinstance(native, nw.Series):
        return NativeData(_series_numpy(native, arg))
    if isinstance(native, nw.DataFrame):
        return _frame_numpy(native, arg)
    if hasattr(x, "__dlpack__"):
        arr = _tensor_numpy(x, arg)
    elif hasattr(x, "__array__"):
        arr = np.asarray(x)
    else:
        raise TypeError(ERR_TYPE.format(arg=arg, type_name=type(x).__name__))
    if arr.ndim == 1:
        check_missing_1d(arr, arg)
    return NativeData(arr)
