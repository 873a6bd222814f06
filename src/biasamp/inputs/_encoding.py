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

__all__ = ["factorize_labels", "factorize_two_arrow_strings", "sorted_short_string_codes"]

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


#: rows a block of :func:`sorted_short_string_codes` reads: its temporaries (a few
#: hundred KB) are allocated once and reused, so no pass touches fresh pages
_BLOCK_ROWS = 1 << 16
#: the most distinct labels the blocked pass looks up (more: the general path)
_FEW_LABELS = 16
#: rows of the first block's strided sample that proposes the first distinct labels
_SAMPLE_ROWS = 1024


class _BlockKeys:
    """Exact keys of blocks of rows, in buffers reused from block to block.

    A row's code words are narrowed to ``size`` bytes each, **big-endian**, and
    read as one unsigned integer: the packing of :func:`_factorize_packed` with
    the first character most significant, so that the keys sort as the strings
    do (code point by code point; a shorter string is a prefix padded with
    zeros, and numpy strings never end in NUL).
    """

    def __init__(self, width: int, limit: int, size: int, rows: int) -> None:
        self.width, self.limit, self.size = width, limit, size
        row_bytes = width * size
        key_bytes = 4 if row_bytes <= 4 else 8
        self.packed = np.zeros(rows * row_bytes + key_bytes, dtype=np.uint8)
        self.narrow = self.packed[: rows * row_bytes].view(f">u{size}")
        # one key per row through an overlapping strided view: each key also reads the
        # next row's first bytes, in its low bytes, masked off
        self.view = np.ndarray(
            (rows,), dtype=f">u{key_bytes}", buffer=self.packed, strides=(row_bytes,)
        )
        self.keys = np.empty(rows, dtype=f"u{key_bytes}")
        spare = 8 * (key_bytes - row_bytes)
        self.mask = (
            np.array(((1 << (8 * row_bytes)) - 1) << spare, dtype=self.keys.dtype)
            if spare
            else None
        )

    def __call__(self, words: np.ndarray) -> np.ndarray | None:
        """The keys of ``words`` (m, width), m at most the rows of the buffers, or None when
        a code word does not fit the packing."""
        m = words.shape[0]
        if int(words.max()) >= self.limit:
            return None
        np.copyto(self.narrow[: m * self.width], words.reshape(-1), casting="unsafe")
        keys = self.keys[:m]
        np.copyto(keys, self.view[:m])
        if self.mask is not None:
            keys &= self.mask
        return keys

    def decode(self, keys: np.ndarray, dtype: np.dtype) -> np.ndarray:
        """The strings of ``dtype`` of keys (the inverse of the packing)."""
        key_bytes = keys.dtype.itemsize
        raw = np.ascontiguousarray(keys, dtype=f">u{key_bytes}").view(np.uint8)
        narrow = raw.reshape(-1, key_bytes)[:, : self.width * self.size].copy()
        return _from_words(narrow.view(f">u{self.size}"), dtype)


def _block_codes(
    keys: np.ndarray,
    distinct: np.ndarray,
    ids: np.ndarray,
    out: np.ndarray,
    found: np.ndarray,
    at: np.ndarray,
) -> bool:
    """Write the id of each key (``ids[i]`` for the key ``distinct[i]``, sorted) into ``out``;
    whether every key is one of ``distinct``, with ``found`` marking the keys that are
    (``at``: scratch positions, ``intp``, which numpy's lookups take without a conversion)."""
    k = distinct.shape[0]
    if k <= 2:
        np.equal(keys, distinct[0], out=found)
        if k == 2:  # the key whose id is 1: the code is whether the row holds it
            second = keys == distinct[int(np.flatnonzero(ids == 1)[0])]
            np.copyto(out, second)
            found |= second
        else:
            out.fill(0)
        return bool(found.all())
    # the position is the number of distinct keys after the first at or below the key
    # (a few comparisons: faster than a binary search over a few keys)
    at.fill(0)
    for key in distinct[1:]:
        np.add(at, keys >= key, out=at)
    np.equal(np.take(distinct, at), keys, out=found)
    np.take(ids, at, out=at)
    np.copyto(out, at)
    return bool(found.all())


def _with_keys(
    distinct: np.ndarray, ids: np.ndarray, new: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """``distinct`` (sorted) and their ids with the keys ``new`` added under the next ids."""
    merged = np.concatenate([distinct, new])
    merged_ids = np.concatenate([ids, np.arange(ids.shape[0], merged.shape[0])])
    order = np.argsort(merged, kind="stable")
    return merged[order], merged_ids[order]


def sorted_short_string_codes(arr: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """Codes in sorted label order and the sorted distinct labels of fixed-width strings
    with few labels, or None (the caller factorises with :func:`factorize_labels`).

    For a ``U`` or ``S`` array whose labels pack into 64 bits exactly (as in
    :func:`_factorize_packed`) and that holds at most :data:`_FEW_LABELS` distinct
    labels. The keys sort as the strings do. Block by block, each key is looked up
    among the distinct keys seen so far (two comparisons for two labels, one more
    per further label), and every row's key must equal the key it is given
    (exact: the keys are a bijection); the keys of a block that are not among them
    join them under the next ids and the block is looked up again. The first block
    proposes the first keys (a strided sample of it) and fixes the packing (its
    largest code point: a later block with a wider character gives ``None``). Ids
    are given in order of discovery and renumbered to the sorted order at the end
    (only when a label turned up after the first block). Blocks of
    :data:`_BLOCK_ROWS` rows reuse their buffers, so the pass reads the strings once
    and writes the codes once, without a full-length temporary.

    Parameters
    ----------
    arr : ndarray of shape (n,)
        Fixed-width strings (``U`` or ``S``), any byte order.

    Returns
    -------
    (codes, uniques) or None
        ``codes`` (int32 while the rows fit, else int64) of shape (n,), each row's
        index in ``uniques``, the distinct labels sorted as Python sorts them.

    Examples
    --------
    >>> import numpy as np
    >>> codes, uniques = sorted_short_string_codes(np.array(["woman", "man", "woman"]))
    >>> codes.tolist(), uniques.tolist()
    ([1, 0, 1], ['man', 'woman'])
    """
    if arr.ndim != 1 or arr.dtype.kind not in "US" or not arr.size or not arr.dtype.itemsize:
        return None
    if arr.dtype.kind == "U" and not arr.dtype.isnative:  # non-native byte order: swap once
        arr = arr.astype(arr.dtype.newbyteorder("="))
    words = _words(arr)
    n, width = words.shape
    rows = min(n, _BLOCK_ROWS)
    top = int(words[:rows].max())
    for limit, size in _PACKINGS:
        if top < limit and width * size <= 8:
            break
    else:
        return None
    block_keys = _BlockKeys(width, limit, size, rows)
    codes = np.empty(n, dtype=_code_dtype(n))
    found = np.empty(rows, dtype=bool)
    at = np.empty(rows, dtype=np.intp)
    distinct = ids = np.empty(0, dtype=np.intp)  # set by the first block
    for start in range(0, n, rows):
        keys = block_keys(words[start : start + rows])
        if keys is None:  # a wider character than the first block's: the general path
            return None
        m = keys.shape[0]
        if not start:  # the first keys: a sample of the first block
            distinct = np.unique(keys[:: max(1, m // _SAMPLE_ROWS)])
            ids = np.arange(distinct.shape[0])
        out = codes[start : start + m]
        while distinct.shape[0] > _FEW_LABELS or not _block_codes(
            keys, distinct, ids, out, found[:m], at[:m]
        ):
            if distinct.shape[0] > _FEW_LABELS:
                return None
            distinct, ids = _with_keys(distinct, ids, np.unique(keys[~found[:m]]))
    if not np.array_equal(ids, np.arange(ids.shape[0])):  # a label after the first keys
        rank = np.empty(ids.shape[0], dtype=codes.dtype)
        rank[ids] = np.arange(ids.shape[0])
        for start in range(0, n, rows):
            block = codes[start : start + rows]
            np.copyto(at[: block.shape[0]], block)
            np.take(rank, at[: block.shape[0]], out=block)
    return codes, block_keys.decode(distinct, arr.dtype)


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
