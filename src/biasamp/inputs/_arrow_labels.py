"""1-D string labels held by Arrow (polars, pyarrow, pandas, Hugging Face) as integer codes.

A polars ``Categorical`` / ``Enum`` and an Arrow dictionary array already hold
one integer per row and a small dictionary of labels: their physical codes are
read as they are (a polars ``Categorical``'s codes index its global categories,
so they are renumbered through the distinct values, which polars finds). A
polars ``String``, an Arrow ``string`` / ``large_string`` / ``string_view``
array, and a pandas ``str`` / ``string[pyarrow]`` Series (Arrow data) are
factorised through their 16-byte Arrow views when every label has at most 12
bytes (:mod:`biasamp.inputs._short_strings`), else dictionary-encoded by Arrow
compute (``pyarrow.compute.dictionary_encode``, in C++; it leaves polars'
global categories alone). Either way the rows become a numpy array of codes
without a Python object per row; only the distinct labels are turned into
Python strings. Categories the dictionary declares but no row
uses are dropped here, as for every container (``docs/counts.md``).

Nothing is imported unless the object comes from polars, pyarrow or pandas (so
the user imported it already)."""

from __future__ import annotations

from typing import Any

import numpy as np

from biasamp.inputs._containers import hugging_face_arrow
from biasamp.inputs._encoding import factorize_two_arrow_strings
from biasamp.inputs._short_strings import short_string_codes

__all__ = ["arrow_label_codes"]


def _module(x: Any) -> str:
    return (type(x).__module__ or "").split(".")[0]


def _arrow_strings(x: Any) -> Any:
    """``x`` as a pyarrow ChunkedArray of strings or of a dictionary, or None."""
    module = _module(x)
    if module == "pandas":  # pandas' default str dtype (3.0) and string[pyarrow]: Arrow data
        import pandas as pd

        if not isinstance(x, (pd.Series, pd.Index)) or not isinstance(x.dtype, pd.StringDtype):
            return None
        if not str(x.dtype.storage).startswith("pyarrow"):
            return None
        held: Any = x.array
        x = held.__arrow_array__()  # the ChunkedArray pandas holds, not a copy
        module = "pyarrow"
    if module == "polars":
        import polars as pl  # the user's object is polars'

        if not isinstance(x, pl.Series) or not isinstance(x.dtype, pl.String):
            return None
        # polars' own string layout (Arrow string_view) without a copy; Arrow encodes it
        x = x.to_arrow(compat_level=_newest_compat_level(pl))
        module = "pyarrow"
    if module != "pyarrow":
        return None
    import pyarrow as pa

    if isinstance(x, pa.Array):
        x = pa.chunked_array([x])
    if not isinstance(x, pa.ChunkedArray) or x.num_chunks == 0:
        return None
    kind = x.type
    if pa.types.is_dictionary(kind):
        kind = kind.value_type
    strings = (pa.types.is_string(kind) or pa.types.is_large_string(kind)) or (
        hasattr(pa.types, "is_string_view") and pa.types.is_string_view(kind)
    )
    return x if strings else None


_COMPAT_LEVEL: list[Any] = []


def _newest_compat_level(pl: Any) -> Any:
    """polars' newest Arrow compatibility level, asked once (each call checks a warning)."""
    if not _COMPAT_LEVEL:
        _COMPAT_LEVEL.append(pl.CompatLevel.newest())
    return _COMPAT_LEVEL[0]


def _polars_categories(x: Any) -> tuple[np.ndarray, np.ndarray] | None:
    """Codes and categories of a polars ``Enum`` / ``Categorical`` Series, else None."""
    if _module(x) != "polars":
        return None
    import polars as pl

    if not isinstance(x, pl.Series) or not isinstance(x.dtype, (pl.Enum, pl.Categorical)):
        return None
    nulls = x.null_count() > 0
    if not nulls and isinstance(x.dtype, pl.Categorical):
        # Arrow's dictionary of the Series: its codes, without polars' expressions
        return _arrow_dictionary_codes(x.to_arrow())
    codes = np.asarray((x.to_physical().fill_null(0) if nulls else x.to_physical()).to_numpy())
    if isinstance(x.dtype, pl.Enum):  # codes index the declared categories
        uniques = np.asarray(x.dtype.categories.to_list(), dtype=object)
        if nulls:
            codes = np.where(
                np.asarray(x.is_null().to_numpy(), dtype=bool), -1, codes.astype(np.int64)
            )
        return _used_only(codes, uniques)
    # a Categorical's codes index the process-wide categories: renumber over those that
    # occur, named through one row of each (numpy's bincount, not polars' slower unique)
    present = x.drop_nulls() if nulls else x
    present_codes = codes if not nulls else np.asarray(present.to_physical().to_numpy())
    counts = np.bincount(present_codes)
    ids = np.flatnonzero(counts)
    some_row = np.empty(counts.shape[0], dtype=np.int64)
    some_row[present_codes] = np.arange(present_codes.shape[0])
    uniques = np.asarray(present.gather(some_row[ids]).cast(pl.String).to_list(), dtype=object)
    if ids.shape[0] != counts.shape[0]:
        lookup = np.zeros(counts.shape[0], dtype=np.int64)
        lookup[ids] = np.arange(ids.shape[0])
        codes = lookup[codes]
    if nulls:
        codes = np.where(np.asarray(x.is_null().to_numpy(), dtype=bool), -1, codes.astype(np.int64))
    return codes, uniques


def arrow_label_codes(x: Any) -> tuple[np.ndarray, np.ndarray] | None:
    """Codes (``-1`` for a missing label) and distinct labels of 1-D Arrow string labels.

    Parameters
    ----------
    x : polars Series (String, Categorical, Enum), pyarrow Array / ChunkedArray
        (string, large_string, string_view, or a dictionary of them), or pandas
        Series / Index of Arrow strings (``str`` in pandas 3, ``string[pyarrow]``)

    Returns
    -------
    (codes, uniques) or None
        ``codes`` of shape (n,), integer, ``-1`` where the label is null;
        ``uniques`` an object array of the labels that occur, indexed by the
        codes. ``None`` when ``x`` is not such an array (the caller's general
        path reads it).

    Examples
    --------
    >>> import pyarrow as pa
    >>> from biasamp.inputs._arrow_labels import arrow_label_codes
    >>> codes, uniques = arrow_label_codes(pa.array(["w", "m", None, "w"]))
    >>> codes.tolist(), uniques.tolist()
    ([0, 1, -1, 0], ['w', 'm'])
    """
    if _module(x) == "datasets":  # a Hugging Face Column or Dataset: its Arrow data
        x = hugging_face_arrow(x)
    found = _polars_categories(x)
    if found is None:
        found = _arrow_dictionary_codes(x)
    if found is None:
        return None
    codes, uniques = found
    # Arrow's buffers are read-only; the label matrix's codes are the caller's to keep
    return (codes if codes.flags.writeable else codes.copy()), uniques


#: Up to this many rows, two labels are coded by two Arrow comparisons (a fixed cost of
#: about 0.03 ms at 5,000 rows against 0.09 ms for the view table); beyond it the view
#: table's single pass is faster (4.5 ms against 7.6 ms at a million rows).
_TWO_LABEL_ROWS = 100_000


def _arrow_dictionary_codes(x: Any) -> tuple[np.ndarray, np.ndarray] | None:
    """:func:`arrow_label_codes` of a polars String or a pyarrow string / dictionary array."""
    chunked = _arrow_strings(x)
    if chunked is None:
        return None
    import pyarrow as pa
    import pyarrow.compute as pc

    encoded = not pa.types.is_dictionary(chunked.type)
    if encoded and len(chunked) <= _TWO_LABEL_ROWS:  # a small split of two labels: two scans
        two = factorize_two_arrow_strings(chunked)
        if two is not None:
            return two
    if encoded:
        short = short_string_codes(chunked.chunks)  # labels of up to 12 bytes, in their views
        if short is not None:
            return short
        # every entry of the dictionary Arrow builds occurs
        chunked = pc.dictionary_encode(chunked)
    chunked = chunked.unify_dictionaries()
    dictionary = chunked.chunk(0).dictionary
    indices = pa.chunked_array([chunk.indices for chunk in chunked.chunks]).combine_chunks()
    if indices.null_count:
        indices = pc.fill_null(indices.cast(pa.int64()), -1)
    codes = np.asarray(indices.to_numpy(zero_copy_only=False))
    uniques = np.asarray(dictionary.to_pylist(), dtype=object)
    if dictionary.null_count:  # a null in the dictionary: its rows are missing
        null_entry = np.asarray(dictionary.is_null().to_numpy(zero_copy_only=False), dtype=bool)
        codes = np.where(null_entry[codes] & (codes >= 0), -1, codes.astype(np.int64))
    return (codes, uniques) if encoded else _used_only(codes, uniques)


def _used_only(codes: np.ndarray, uniques: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Codes renumbered over the dictionary entries some row uses (unused ones dropped)."""
    k = uniques.shape[0]
    missing = codes.dtype.kind == "i" and bool((codes < 0).any())
    used = np.bincount(codes[codes >= 0] if missing else codes, minlength=k)[:k] > 0
    if used.all():
        return codes, uniques
    position = np.cumsum(used) - 1
    renumbered = np.where(codes >= 0, position[np.maximum(codes, 0)], -1)
    return renumbered, uniques[used]
