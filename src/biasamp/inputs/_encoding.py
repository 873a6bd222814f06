"""Fast exact factorisation of label arrays (kept apart from the container adapters).

Fixed-width numpy strings (dtype ``<U``, and bytes ``S``) are the common form of
string group labels, and pandas factorises them by converting every entry to a
Python object, which dominates the cost on millions of rows. Here each string is
read as its code words (UCS-4 for ``U``, bytes for ``S``) and turned into one
integer key per row:

* **packed, exact**: when the words fit in 64 bits (up to 8 characters whose
  code points are below 256, up to 4 below 65,536, up to 2 of any), they are
  packed into one ``uint64``, a bijection; the keys are factorised and the
  distinct labels are decoded back from the distinct keys. Numpy strings cannot
  end in NUL characters (it strips them), so zero padding loses nothing.
* **hashed, verified**: otherwise a 64-bit hash (Horner's rule over the words);
  every row's words must equal the words of the first row with its hash (one
  integer comparison pass), so a collision can never merge two labels (it falls
  back to pandas instead).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

__all__ = ["factorize_labels", "factorize_two_arrow_strings"]

_MULTIPLIER = np.uint64(1_000_003)

#: (largest code point + 1, bytes per character) of the packed keys, narrowest first
_PACKINGS = ((1 << 8, 1), (1 << 16, 2), (1 << 32, 4))


def _words(arr: np.ndarray) -> np.ndarray:
    """The ``(n, width)`` code words of a native-byte-order ``U`` or ``S`` array."""
    word = np.uint32 if arr.dtype.kind == "U" else np.uint8
    return np.ascontiguousarray(arr).view(word).reshape(arr.shape[0], -1)


def _from_words(words: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """Strings of ``dtype`` from their ``(k, width)`` code words (the inverse of :func:`_words`)."""
    word = np.uint32 if dtype.kind == "U" else np.uint8
    return np.ascontiguousarray(words, dtype=word).view(dtype).reshape(-1)


def _factorize_keys(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """First-seen codes and uniques of integer keys; two comparisons when there are at most
    two distinct keys (binary labels, the common case), else pandas' hash table."""
    first = keys == keys[0]
    other = int(np.argmin(first))  # the first row with another key, or 0
    if first[other]:
        return np.zeros(keys.shape[0], dtype=_code_dtype(keys.shape[0])), keys[:1]
    either = keys == keys[other]
    either |= first
    if bool(either.all()):
        return (~first).astype(_code_dtype(keys.shape[0])), keys[[0, other]]
    codes, uniques = pd.factorize(keys)
    return np.asarray(codes), np.asarray(uniques)


def _code_dtype(n: int) -> type[np.signedinteger[Any]]:
    """int32 codes while rows fit (half the memory traffic of int64), else int64."""
    return np.int32 if n < np.iinfo(np.int32).max else np.int64


def _factorize_packed(words: np.ndarray, dtype: np.dtype) -> tuple[np.ndarray, np.ndarray] | None:
    """Exact codes and uniques when a row's words fit in 64 bits, else None."""
    n, width = words.shape
    top = int(words.max())
    for limit, size in _PACKINGS:
        if top < limit and width * size <= 8:
            break
    else:
        return None
    row_bytes = width * size
    key_bytes = 4 if row_bytes <= 4 else 8
    # the rows' narrowed words back to back, then one key per row read through an
    # overlapping strided view (each key also reads the next row's first bytes, masked off)
    packed = np.zeros(n * row_bytes + key_bytes, dtype=np.uint8)
    packed[: n * row_bytes].view(f"<u{size}")[:] = words.reshape(-1)
    view = np.ndarray((n,), dtype=f"<u{key_bytes}", buffer=packed, strides=(row_bytes,))
    if row_bytes < key_bytes:
        keys = view & np.array((1 << (8 * row_bytes)) - 1, dtype=f"<u{key_bytes}")
    else:
        keys = view.copy()
    codes, uniques = _factorize_keys(keys)
    distinct = np.ascontiguousarray(uniques, dtype=f"<u{key_bytes}").view(np.uint8)
    distinct = distinct.reshape(-1, key_bytes)[:, :row_bytes].copy().view(f"<u{size}")
    return codes, _from_words(distinct, dtype)


def _factorize_hashed(arr: np.ndarray, words: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """Codes and first-seen uniques through a verified hash, or None on a hash collision."""
    n = words.shape[0]
    # Horner's rule over the code words, one vectorised pass per character
    # (uint64 arithmetic wraps: a hash; faster than an integer matmul, which has no BLAS)
    hashed = words[:, 0].astype(np.uint64)
    for column in range(1, words.shape[1]):
        hashed *= _MULTIPLIER
        hashed += words[:, column]
    codes, _ = pd.factorize(hashed)
    codes = np.asarray(codes, dtype=np.int64)
    first = np.empty(int(codes.max()) + 1, dtype=np.int64)
    first[codes[::-1]] = np.arange(n - 1, -1, -1)
    if not np.array_equal(np.take(words[first], codes, axis=0), words):
        return None
    return codes, arr[first]


def _factorize_fixed_width(arr: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """Codes and first-seen uniques of a non-empty ``U``/``S`` array, or None (use pandas)."""
    dtype = arr.dtype.newbyteorder("=") if arr.dtype.kind == "U" else arr.dtype
    if dtype != arr.dtype:  # non-native byte order: swap once
        arr = arr.astype(dtype)
    words = _words(arr)
    packed = _factorize_packed(words, arr.dtype)
    if packed is not None or arr.dtype.kind == "S":  # long byte strings: pandas
        return packed
    return _factorize_hashed(arr, words)


def factorize_labels(arr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``codes`` (-1 for a missing label) and the distinct labels, in first-seen order.

    Parameters
    ----------
    arr : ndarray of shape (n,)
        Labels of any dtype; fixed-width strings (``U``, ``S``) take the fast path.

    Returns
    -------
    codes : ndarray of shape (n,)
        Index of each row's label in ``uniques`` (-1 when missing); a signed
        integer dtype (int32 or int64).
    uniques : ndarray of shape (k,)
        The distinct labels in first-seen order.

    Examples
    --------
    >>> import numpy as np
    >>> codes, uniques = factorize_labels(np.array(["woman", "man", "woman"]))
    >>> codes.tolist(), uniques.tolist()
    ([0, 1, 0], ['woman', 'man'])
    """
    if arr.dtype.kind in "US" and arr.ndim == 1 and arr.size and arr.dtype.itemsize:
        fast = _factorize_fixed_width(arr)
        if fast is not None:
            return fast
    codes, uniques = pd.factorize(arr, use_na_sentinel=True)
    return np.asarray(codes), np.asarray(uniques, dtype=object)


def factorize_two_arrow_strings(chunked: Any) -> tuple[np.ndarray, np.ndarray] | None:
    """Codes and first-seen labels of Arrow strings (a pyarrow ``ChunkedArray``, as a
    pandas ``str`` Series holds them) with no null and at most two distinct labels, by
    two comparisons with Arrow's compute kernels (no hash table, no Python object per
    row); ``None`` for anything else (nulls, three or more labels), which the caller
    factorises in full.

    Examples
    --------
    >>> import pyarrow as pa
    >>> codes, uniques = factorize_two_arrow_strings(pa.chunked_array([["w", "m", "w"]]))
    >>> codes.tolist(), uniques.tolist()
    ([0, 1, 0], ['w', 'm'])
    """
    import pyarrow.compute as pc  # the caller's object is pyarrow's

    n = len(chunked)
    if n == 0 or chunked.null_count:
        return None
    first = chunked[0]
    is_first = np.asarray(pc.equal(chunked, first).to_numpy(), dtype=bool)
    other = int(np.argmin(is_first))  # the first row with another label, or 0
    if is_first[other]:
        return np.zeros(n, dtype=_code_dtype(n)), np.array([first.as_py()], dtype=object)
    second = chunked[other]
    either = np.asarray(pc.equal(chunked, second).to_numpy(), dtype=bool)
    either |= is_first
    if not bool(either.all()):
        return None
    codes = (~is_first).astype(_code_dtype(n))
    return codes, np.array([first.as_py(), second.as_py()], dtype=object)
