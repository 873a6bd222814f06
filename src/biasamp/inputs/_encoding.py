"""Fast exact factorisation of label arrays (kept apart from the container adapters).

Fixed-width numpy strings (dtype ``<U``) are the common form of string group
labels, and pandas factorises them by converting every entry to a Python
object, which dominates the cost on millions of rows. Here each string is read
as its UCS-4 code words and hashed with one integer matrix-vector product; the
hashes are factorised, and the hash is *verified*: every row's code words must
equal the words of the first row with its hash (one integer comparison pass),
so a collision can never merge two labels (it falls back to pandas instead).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["factorize_labels"]

_MULTIPLIER = np.uint64(1_000_003)


def _factorize_fixed_width(arr: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """Codes and first-seen uniques of a non-empty ``<U`` array, or None on a hash collision."""
    n = arr.shape[0]
    words = np.ascontiguousarray(arr).view(np.uint32).reshape(n, -1)
    if words.shape[1] <= 2:  # up to two characters: the words are the key itself
        padded = np.zeros((n, 2), dtype=np.uint32)
        padded[:, : words.shape[1]] = words
        codes, _ = pd.factorize(padded.view(np.uint64).ravel())
        exact = True
    else:
        # Horner's rule over the code words, one vectorised pass per character
        # (uint64 arithmetic wraps: a hash; faster than an integer matmul, which has no BLAS)
        hashed = words[:, 0].astype(np.uint64)
        for column in range(1, words.shape[1]):
            hashed *= _MULTIPLIER
            hashed += words[:, column]
        codes, _ = pd.factorize(hashed)
        exact = False
    codes = np.asarray(codes, dtype=np.int64)
    first = np.empty(int(codes.max()) + 1, dtype=np.int64)
    first[codes[::-1]] = np.arange(n - 1, -1, -1)
    if not exact and not np.array_equal(np.take(words[first], codes, axis=0), words):
        return None
    return codes, arr[first]


def factorize_labels(arr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``codes`` (-1 for a missing label) and the distinct labels, in first-seen order.

    Parameters
    ----------
    arr : ndarray of shape (n,)
        Labels of any dtype; ``<U`` strings take the fast path.

    Returns
    -------
    codes : ndarray of shape (n,)
        Index of each row's label in ``uniques`` (-1 when missing).
    uniques : ndarray of shape (k,)
        The distinct labels in first-seen order.

    Examples
    --------
    >>> import numpy as np
    >>> codes, uniques = factorize_labels(np.array(["woman", "man", "woman"]))
    >>> codes.tolist(), uniques.tolist()
    ([0, 1, 0], ['woman', 'man'])
    """
    if arr.dtype.kind == "U" and arr.size and arr.dtype.itemsize % 4 == 0:
        fast = _factorize_fixed_width(arr)
        if fast is not None:
            return fast
    codes, uniques = pd.factorize(arr, use_na_sentinel=True)
    return np.asarray(codes), np.asarray(uniques, dtype=object)
