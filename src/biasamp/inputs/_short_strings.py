"""Exact factorisation of short Arrow strings (at most 8 bytes) through integer keys.

Arrow's ``dictionary_encode`` hashes every string: about 10 ms per million rows,
three times what reading a pandas Categorical's codes costs. Labels are mostly short
words ("woman", "person", "label_17"), and a string of at most 8 bytes fits in
one 64-bit word, so each row becomes two integers without a Python object:

* its **key**, the 8 bytes from the start of its ``string_view`` view (a
  ``string`` or ``large_string`` array is cast to views by Arrow first): a string
  of up to 12 bytes is stored inline in its 16-byte view, zero-padded;
* its **length** in bytes.

The distinct (key, length) pairs of a strided sample of the rows go into a small
table addressed by a multiplicative hash chosen so that no two of them share a
slot. One vectorised pass then reads each row's slot, its label's rank in sorted
order and whether the slot holds the row's own key and length. A row whose pair
is not in the table (a label the sample missed) adds its pair and the pass is
repeated. The check is exact: a row's string is the first ``length`` bytes of its
key, so equal (key, length) pairs are equal strings. Two pairs for one string (a
view with non-zero padding) name the same label.

Anything else (nulls, a string longer than 8 bytes, more than
:data:`MAX_LABELS` distinct labels, bytes that are not UTF-8) returns ``None``,
and the caller encodes with Arrow.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, NamedTuple

import numpy as np

__all__ = ["MAX_LABELS", "short_string_codes"]

#: the most distinct labels this path factorises (a table of at most 2**17 slots)
MAX_LABELS = 256

_KEY_BYTES = 8
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
    """Slots of the distinct (key, length) pairs: each pair's key, length and label code."""

    multiplier: np.uint64
    shift: np.uint64
    keys: np.ndarray
    lengths: np.ndarray
    codes: np.ndarray


def _keys(views: Any) -> tuple[np.ndarray, np.ndarray]:
    """(keys, lengths) of a ``string_view`` array, read in place from its 16-byte views:
    bytes 0..3 are the length, bytes 4..11 the first 8 bytes of an inline string."""
    buffer, start, n = views.buffers()[1], views.offset, len(views)
    lengths = np.ndarray((n,), dtype=np.uint32, buffer=buffer, offset=16 * start, strides=(16,))
    keys = np.ndarray((n,), dtype=np.uint64, buffer=buffer, offset=16 * start + 4, strides=(16,))
    return keys, lengths


def _blocks(chunks: list[Any]) -> Iterator[tuple[int, np.ndarray, np.ndarray]]:
    """(first row, keys, lengths) of consecutive blocks of at most :data:`_BLOCK` rows of
    ``string_view`` chunks."""
    at = 0
    for chunk in chunks:
        keys, lengths = _keys(chunk)
        for start in range(0, len(chunk), _BLOCK):
            yield at + start, keys[start : start + _BLOCK], lengths[start : start + _BLOCK]
        at += len(chunk)


def _sample(chunks: list[Any], n: int) -> tuple[np.ndarray, np.ndarray]:
    """(keys, lengths) of about :data:`_SAMPLE` rows spread over ``string_view`` chunks."""
    step = max(1, n // _SAMPLE)
    rows = [_keys(chunk) for chunk in chunks]
    return (
        np.concatenate([keys[::step] for keys, _ in rows]),
        np.concatenate([lengths[::step] for _, lengths in rows]),
    )


def _distinct_pairs(keys: np.ndarray, lengths: np.ndarray) -> set[tuple[int, int]]:
    """The distinct (key, length) pairs of a few rows (the sample, or the missed rows)."""
    import pandas as pd

    combined = keys ^ (lengths.astype(np.uint64) << np.uint64(59))  # 59: lengths <= 8 < 32
    codes, uniques = pd.factorize(combined)
    where = np.empty(uniques.shape[0], dtype=np.intp)
    where[codes[::-1]] = np.arange(codes.shape[0] - 1, -1, -1)  # each pair's first row
    # combined may merge two pairs; the rows of the other are missed again and added then
    return set(zip(keys[where].tolist(), lengths[where].tolist(), strict=True))


def _table(pairs: set[tuple[int, int]]) -> tuple[_Table, list[str]] | None:
    """The table of ``pairs`` and the sorted labels, or None (two pairs share a key: a
    string with trailing NUL bytes; no multiplier separates them; bytes not UTF-8)."""
    ordered = sorted(pairs)
    keys = np.array([key for key, _ in ordered], dtype=np.uint64)
    if np.unique(keys).shape[0] != keys.shape[0]:
        return None
    try:
        labels = [key.to_bytes(8, "little")[:length].decode() for key, length in ordered]
    except UnicodeDecodeError:
        return None
    names = sorted(set(labels))  # as the numpy path sorts labels: Python's str order
    rank = {label: code for code, label in enumerate(names)}
    bits = min(17, max(4, 2 * len(ordered).bit_length() + 1))
    shift = np.uint64(64 - bits)
    for multiplier in _MULTIPLIERS:
        slots = ((keys * multiplier) >> shift).astype(np.intp)
        if np.unique(slots).shape[0] == keys.shape[0]:
            break
    else:
        return None
    table = _Table(
        multiplier,
        shift,
        np.zeros(1 << bits, dtype=np.uint64),
        np.full(1 << bits, _KEY_BYTES + 1, dtype=np.uint32),  # no row's length: empty slots
        np.zeros(1 << bits, dtype=np.int32),
    )
    table.keys[slots] = keys
    table.lengths[slots] = [length for _, length in ordered]
    table.codes[slots] = [rank[label] for label in labels]
    return table, names


def _codes(chunks: list[Any], n: int, table: _Table) -> tuple[np.ndarray, set[tuple[int, int]]]:
    """Each row's code through ``table``, and the (key, length) pairs it does not hold."""
    codes = np.empty(n, dtype=np.int32)
    slot = np.empty(_BLOCK, dtype=np.uint64)
    held_keys = np.empty(_BLOCK, dtype=np.uint64)
    held_lengths = np.empty(_BLOCK, dtype=np.uint32)
    found = np.empty(_BLOCK, dtype=bool)
    same = np.empty(_BLOCK, dtype=bool)
    missed: set[tuple[int, int]] = set()
    for at, keys, lengths in _blocks(chunks):
        m = keys.shape[0]
        if int(lengths.max()) > _KEY_BYTES:
            raise _TooLong
        np.multiply(keys, table.multiplier, out=slot[:m])
        np.right_shift(slot[:m], table.shift, out=slot[:m])
        rows = slot[:m].view(np.int64)  # below 2**17: the same values
        np.take(table.keys, rows, out=held_keys[:m], mode="clip")
        np.equal(held_keys[:m], keys, out=found[:m])
        np.take(table.lengths, rows, out=held_lengths[:m], mode="clip")
        np.equal(held_lengths[:m], lengths, out=same[:m])
        found[:m] &= same[:m]
        if not bool(found[:m].all()):
            other = ~found[:m]
            missed |= _distinct_pairs(keys[other], lengths[other])
        np.take(table.codes, rows, out=codes[at : at + m], mode="clip")
    return codes, missed


class _TooLong(Exception):
    """A string longer than 8 bytes: not for this path."""


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
        ``None`` when a row is null, a string is longer than 8 bytes, there are
        more than :data:`MAX_LABELS` labels, a label is not UTF-8 or pyarrow
        has no ``string_view`` (before version 16).

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
    # 8 unaligned bytes at each offset in numpy
    chunks = [chunk.cast(pa.string_view()) for chunk in chunks]
    keys, lengths = _sample(chunks, n)
    if int(lengths.max()) > _KEY_BYTES:
        return None
    pairs = _distinct_pairs(keys, lengths)
    for _ in range(_ROUNDS):
        built = None if len(pairs) > MAX_LABELS else _table(pairs)
        if built is None:
            return None
        table, names = built
        try:
            codes, missed = _codes(chunks, n, table)
        except _TooLong:
            return None
        if not missed:
            return codes, np.asarray(names, dtype=object)
        pairs |= missed  # labels the sample did not see: once more with them
    return None
