"""Exact factorisation of short Arrow strings (at most 12 bytes) through their views.

Arrow's ``dictionary_encode`` hashes every string: about 10 ms per million rows,
three times what reading a pandas Categorical's codes costs. Labels are mostly
short words ("woman", "person", "label_17"). In Arrow's ``string_view`` layout
(polars' own; a ``string`` or ``large_string`` array is cast to it by Arrow,
sharing its bytes) each row is a 16-byte **view**: the length in bytes, then a
string of up to 12 bytes stored inline, zero-padded. So each row is two 64-bit
integers, and equal views are equal strings, without a Python object per row.

The distinct views of a strided sample of the rows go into a small table
addressed by a multiplicative hash of the two words, chosen so that no two of
them share a slot; each slot holds its view and its label's rank in sorted
order. One vectorised pass, in blocks that stay in cache, reads each row's slot
and rank and checks that the slot holds the row's own 16 bytes. Rows whose view
is not in the table (a label the sample missed) add theirs and the pass is
repeated. Two views of one string (inline padding that is not zero, which
Arrow's validation refuses but a producer may write) name the same label.

Anything else (a null, a string longer than 12 bytes, more than
:data:`MAX_LABELS` distinct views, bytes that are not UTF-8, pyarrow before
version 16) returns ``None``, and the caller encodes with Arrow.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, NamedTuple

import numpy as np

__all__ = ["MAX_LABELS", "short_string_codes"]

#: the most distinct views this path factorises (a table of at most 2**17 slots)
MAX_LABELS = 256

_INLINE = 12  # the longest string a view holds inline
_SAMPLE = 1 << 14
_ROUNDS = 4
#: rows per block: a block's temporaries stay in cache and are reused (a fresh array of
#: a million rows costs more in page faults than the arithmetic on it)
_BLOCK = 1 << 16

#: odd 64-bit multipliers tried in turn for a table without shared slots (fixed: the
#: result never depends on them, only how fast a table is found)
_MULTIPLIERS = np.random.default_rng(20261125).integers(
    0, 1 << 62, size=32, dtype=np.uint64
) * np.uint64(2) + np.uint64(1)


class _Table(NamedTuple):
    """Slots of the distinct views: each slot's 16 bytes and its label's code."""

    multiplier: np.uint64
    shift: np.uint64
    views: np.ndarray  # (slots, 2) uint64
    codes: np.ndarray  # (slots,) int32


def _views(chunk: Any) -> np.ndarray:
    """The ``(n, 2)`` uint64 views of a ``string_view`` array, in place (no copy)."""
    start, n = chunk.offset, len(chunk)
    views = np.frombuffer(chunk.buffers()[1], dtype=np.uint64, count=2 * (start + n))
    return views.reshape(-1, 2)[start:]


def _blocks(chunks: list[Any]) -> Iterator[tuple[int, np.ndarray]]:
    """(first row, views) of consecutive blocks of at most :data:`_BLOCK` rows."""
    at = 0
    for chunk in chunks:
        views = _views(chunk)
        for start in range(0, len(chunk), _BLOCK):
            yield at + start, views[start : start + _BLOCK]
        at += len(chunk)


def _distinct(views: np.ndarray) -> set[tuple[int, int]]:
    """The distinct views among a few rows (the sample, or the rows a pass missed)."""
    import pandas as pd

    # one integer per view: it may merge two views, whose rows are missed and added later
    combined = views[:, 0] ^ (views[:, 1] * _MULTIPLIERS[0])
    codes, uniques = pd.factorize(combined)
    first = np.empty(uniques.shape[0], dtype=np.intp)
    first[codes[::-1]] = np.arange(codes.shape[0] - 1, -1, -1)
    return set(map(tuple, views[first].tolist()))


def _label(view: tuple[int, int]) -> str | None:
    """The string of an inline view, or None for a longer one."""
    low, high = view
    length = low & 0xFFFFFFFF
    if length > _INLINE:
        return None
    data = (low >> 32).to_bytes(4, "little") + high.to_bytes(8, "little")
    return data[:length].decode()  # UnicodeDecodeError for bytes that are not UTF-8


def _table(views: set[tuple[int, int]]) -> tuple[_Table, list[str]] | None:
    """The table of ``views`` and the sorted labels, or None."""
    ordered = sorted(views)
    labels: list[str] = []
    for view in ordered:
        try:
            label = _label(view)
        except UnicodeDecodeError:
            return None
        if label is None:
            return None
        labels.append(label)
    names = sorted(set(labels))  # as the numpy path sorts labels: Python's str order
    rank = {label: code for code, label in enumerate(names)}
    words = np.array(ordered, dtype=np.uint64).reshape(-1, 2)
    mixed = words[:, 0] ^ words[:, 1]
    bits = min(17, max(4, 2 * len(ordered).bit_length() + 1))
    shift = np.uint64(64 - bits)
    for multiplier in _MULTIPLIERS:
        slots = ((mixed * multiplier) >> shift).astype(np.intp)
        if np.unique(slots).shape[0] == len(ordered):
            break
    else:  # two views with the same hash input: let Arrow encode
        return None
    table = _Table(
        multiplier,
        shift,
        # an empty slot holds a view no row has: length 2**32 - 1
        np.tile(np.array([0xFFFFFFFF, 0], dtype=np.uint64), (1 << bits, 1)),
        np.zeros(1 << bits, dtype=np.int32),
    )
    table.views[slots] = words
    table.codes[slots] = [rank[label] for label in labels]
    return table, names


def _codes(chunks: list[Any], n: int, table: _Table) -> tuple[np.ndarray, set[tuple[int, int]]]:
    """Each row's code through ``table``, and the views it does not hold."""
    codes = np.empty(n, dtype=np.int32)
    slot = np.empty(_BLOCK, dtype=np.uint64)
    held = np.empty((_BLOCK, 2), dtype=np.uint64)
    same = np.empty((_BLOCK, 2), dtype=bool)
    missed: set[tuple[int, int]] = set()
    for at, views in _blocks(chunks):
        m = views.shape[0]
        np.bitwise_xor(views[:, 0], views[:, 1], out=slot[:m])
        np.multiply(slot[:m], table.multiplier, out=slot[:m])
        np.right_shift(slot[:m], table.shift, out=slot[:m])
        rows = slot[:m].view(np.int64)  # below 2**17: the same values
        np.take(table.views, rows, axis=0, out=held[:m], mode="clip")
        np.equal(held[:m], views, out=same[:m])
        if not bool(same[:m].all()):
            other = ~same[:m].all(axis=1)
            missed |= _distinct(views[other])
        np.take(table.codes, rows, out=codes[at : at + m], mode="clip")
    return codes, missed


def short_string_codes(chunks: list[Any]) -> tuple[np.ndarray, np.ndarray] | None:
    """Codes in sorted label order and the sorted labels of short Arrow strings.

    Parameters
    ----------
    chunks : list of pyarrow Array
        The chunks of one string column (``string``, ``large_string`` or
        ``string_view``), in order.

    Returns
    -------
    (codes, uniques) or None
        ``codes`` int32 of shape (n,), each row's index in ``uniques``, the
        distinct labels sorted as Python sorts ``str`` (code point order);
        ``None`` when a row is null, a string is longer than 12 bytes, there
        are more than :data:`MAX_LABELS` distinct views, a label is not UTF-8
        or pyarrow has no ``string_view`` (before version 16).

    Examples
    --------
    >>> import pyarrow as pa
    >>> codes, uniques = short_string_codes([pa.array(["w", "m"]), pa.array(["w"])])
    >>> codes.tolist(), uniques.tolist()
    ([1, 0, 1], ['m', 'w'])
    """
    import pyarrow as pa

    n = sum(len(chunk) for chunk in chunks)
    if n == 0 or not hasattr(pa, "string_view") or any(chunk.null_count for chunk in chunks):
        return None
    # Arrow builds the views in C++ (sharing the string bytes): faster than reading
    # the bytes at each offset in numpy
    chunks = [chunk.cast(pa.string_view()) for chunk in chunks]
    step = max(1, n // _SAMPLE)
    views = _distinct(np.concatenate([_views(chunk)[::step] for chunk in chunks]))
    for _ in range(_ROUNDS):
        built = None if len(views) > MAX_LABELS else _table(views)
        if built is None:
            return None
        table, names = built
        codes, missed = _codes(chunks, n, table)
        if not missed:
            return codes, np.asarray(names, dtype=object)
        views |= missed  # labels the sample did not see: once more with them
    return None
