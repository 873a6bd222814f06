"""Task patterns and the combination set M of the multi-attribute metrics.

Two ideas make the multi-attribute metrics linear in the number of rows:

* **Patterns.** A row's exact task set is its *pattern*. Rows with the same
  pattern behave the same way for every combination, so the metrics only need
  weighted counts per distinct pattern (and group). Patterns are encoded as
  packed bit words (32 tasks per ``uint32`` word) and stored as fixed-width
  byte keys, so tables of different chunks can be merged by key.
* **Containment.** A row belongs to a combination ``m`` when its pattern
  contains ``m``. The sparse pattern-by-combination containment matrix ``C``
  (``C[p, m] = 1`` iff ``m`` is a subset of pattern ``p``) turns pattern
  counts into combination counts with one sparse product.

``C`` is built column by column along a prefix tree of the combinations, with
the tasks of every combination ordered rarest first: the patterns holding a
prefix ``(t1, ..., td)`` are those of the parent prefix that also hold
``td``. Every step is a vectorised gather over all prefixes of one depth, so
the work is proportional to the patterns that hold each distinct prefix, and
rare prefixes shrink quickly. The same step counts the supports of the
candidates of the level-wise Apriori search (:func:`frequent_combinations`),
whose candidates are exactly "a frequent k-set plus one later task".

Combination modes (see ``docs/metrics/multi_attribute.md``):

``"observed"``
    As the reference code builds M: the distinct exact task sets of training
    rows with at least ``min_count`` rows (weight) and between ``min_size`` and
    ``max_size`` tasks, kept when at least ``min_count`` evaluation
    ground-truth rows contain them.
``"subsets"``
    Every combination of ``min_size..max_size`` tasks contained in at least
    ``min_count`` training rows and at least ``min_count`` evaluation
    ground-truth rows (a frequent-itemset problem, solved with Apriori: a
    combination can only be frequent when all its subsets are).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp

__all__ = [
    "Combinations",
    "PatternSet",
    "check_combination_options",
    "containment_counts",
    "frequent_combinations",
    "key_positions",
    "keys_to_indicator",
    "observed_combinations",
    "pattern_keys",
    "union_keys",
    "unique_keys",
]

ERR_MODE = "combinations: expected 'observed' or 'subsets', got {got!r}."
ERR_MIN_SIZE = "min_size: expected an integer >= 1, got {got!r}."
ERR_MAX_SIZE = "max_size: expected None or an integer >= 1, got {got!r}."
ERR_SIZE_ORDER = "min_size ({min_size}) is larger than max_size ({max_size}); no combination fits."
ERR_MIN_COUNT = "min_count: expected a positive number, got {got!r}."
ERR_MAX_COMBINATIONS = "max_combinations: expected a positive integer, got {got!r}."
ERR_TOO_MANY = (
    "combinations={mode!r}: {what} {count:,} combinations, more than max_combinations="
    "{limit:,}. Raise min_count, lower max_size, or raise max_combinations if you have the memory."
)
ERR_EMPTY_OBSERVED_TRAIN = (
    "The combination set M is empty: no training task set has at least min_count={min_count} "
    "rows and between min_size={min_size} and max_size={max_size} tasks."
)
ERR_EMPTY_OBSERVED_EVAL = (
    "The combination set M is empty: none of the {count} training task sets with at least "
    "min_count={min_count} rows is contained in at least min_count evaluation ground-truth rows."
)
#: Environment variable that sets the threads of the multi-attribute counting pass.
THREADS_ENV = "BIASAMP_NUM_THREADS"
ERR_THREADS_ENV = "{env}: expected a positive integer (threads), got {got!r}."
ERR_EMPTY_SUBSETS = (
    "The combination set M is empty: no combination of {min_size} to {max_size} tasks occurs "
    "in at least min_count={min_count} training rows and min_count evaluation ground-truth rows."
)

#: Entries gathered per vectorised step (bounds the memory of one step).
_CHUNK = 1 << 23
_WORD = 32
#: Largest (parent, rank) -> candidate table of :func:`_extend_from_patterns`, in cells.
_LOOKUP_CELLS = 1 << 22


def check_combination_options(
    combinations: str, min_size: Any, max_size: Any, min_count: Any, max_combinations: Any
) -> tuple[int, int | None, float, int]:
    """Validate the combination options; return ``(min_size, max_size, min_count, max_comb)``."""
    if combinations not in ("observed", "subsets"):
        raise ValueError(ERR_MODE.format(got=combinations))
    if isinstance(min_size, bool) or not isinstance(min_size, (int, np.integer)) or min_size < 1:
        raise ValueError(ERR_MIN_SIZE.format(got=min_size))
    if max_size is not None and (
        isinstance(max_size, bool) or not isinstance(max_size, (int, np.integer)) or max_size < 1
    ):
        raise ValueError(ERR_MAX_SIZE.format(got=max_size))
    if max_size is not None and min_size > max_size:
        raise ValueError(ERR_SIZE_ORDER.format(min_size=min_size, max_size=max_size))
    if (
        isinstance(min_count, bool)
        or not isinstance(min_count, (int, float, np.number))
        or not np.isfinite(min_count)
        or min_count <= 0
    ):
        raise ValueError(ERR_MIN_COUNT.format(got=min_count))
    if (
        isinstance(max_combinations, bool)
        or not isinstance(max_combinations, (int, np.integer))
        or max_combinations < 1
    ):
        raise ValueError(ERR_MAX_COMBINATIONS.format(got=max_combinations))
    return (
        int(min_size),
        None if max_size is None else int(max_size),
        float(min_count),
        int(max_combinations),
    )


# ----------------------------------------------------------------------------- patterns
def _n_words(n_tasks: int) -> int:
    return max(1, -(-n_tasks // _WORD))


def pattern_keys(values: np.ndarray | sp.csr_matrix, n_tasks: int) -> np.ndarray:
    """The pattern key of every row of a 0/1 ``(n, T)`` matrix: shape (n,), fixed-width bytes.

    Bit ``t % 32`` of word ``t // 32`` is set when the row holds task ``t``.
    Dense rows are packed with :func:`numpy.packbits` (one bit per cell, no
    float copy); sparse rows come from one sparse product (sums of distinct
    powers of two below 2**32 are exact in float64).
    """
    n_words = _n_words(n_tasks)
    if not sp.issparse(values):
        arr = np.asarray(values)
        n = arr.shape[0]
        packed = np.zeros((n, 4 * n_words), dtype=np.uint8)
        # 0/1 bytes are booleans already (no (n, T) comparison temporary)
        is_bits = arr.dtype == np.bool_ or (
            arr.dtype == np.uint8 and arr.flags.c_contiguous and (arr.size == 0 or arr.max() <= 1)
        )
        bits = arr.view(np.bool_) if is_bits else arr != 0
        packed[:, : -(-n_tasks // 8)] = np.packbits(bits, axis=1, bitorder="little")
        words = packed.view("<u4").astype(np.uint32)  # little-endian words on any host
        return np.ascontiguousarray(words).view(np.dtype((np.void, 4 * n_words))).ravel()
    tasks = np.arange(n_tasks)
    basis = sp.csr_matrix(
        (np.ldexp(1.0, tasks % _WORD), (tasks, tasks // _WORD)), shape=(n_tasks, n_words)
    )
    words = np.asarray((sp.csr_matrix(values) @ basis).toarray())
    words = np.ascontiguousarray(words.astype(np.uint32))
    return words.view(np.dtype((np.void, 4 * n_words))).ravel()


def _key_integers(keys: np.ndarray) -> np.ndarray | None:
    """Keys of 4 or 8 bytes (up to 64 tasks) as uint64 numbers ordered as their bytes are.

    The bytes are read big-endian, so comparing the numbers is comparing the
    keys byte by byte (the order :func:`numpy.unique` gives the byte keys), but
    sorting and searching them is an integer sort, not a byte-string one.
    ``None`` for wider keys.
    """
    width = keys.dtype.itemsize
    if width not in (4, 8):
        return None
    return np.ascontiguousarray(keys).view(f">u{width}").astype(np.uint64)


def _integers_to_keys(numbers: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """Inverse of :func:`_key_integers`."""
    return numbers.astype(f">u{dtype.itemsize}").view(dtype)


def unique_keys(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sorted distinct pattern keys and the position of every key among them.

    Equals ``np.unique(keys, return_inverse=True)`` (flat inverse), with an
    integer sort for keys of up to 64 tasks.
    """
    numbers = _key_integers(keys)
    if numbers is None:
        distinct, inverse = np.unique(keys, return_inverse=True)
        return distinct, inverse.ravel()
    order = np.argsort(numbers)
    ordered = numbers[order]
    first = np.ones(ordered.size, dtype=bool)
    np.not_equal(ordered[1:], ordered[:-1], out=first[1:])
    inverse = np.empty(ordered.size, dtype=np.intp)
    inverse[order] = np.cumsum(first) - 1
    return _integers_to_keys(ordered[first], keys.dtype), inverse


def union_keys(*arrays: np.ndarray) -> np.ndarray:
    """The sorted distinct keys of several key arrays (``np.unique`` of their concatenation)."""
    keys = np.concatenate(arrays)
    numbers = _key_integers(keys)
    if numbers is None:
        return np.unique(keys)
    # a merge sort finds the sorted runs (the tables' keys are sorted): a few merges
    numbers.sort(kind="stable")
    first = np.ones(numbers.size, dtype=bool)
    np.not_equal(numbers[1:], numbers[:-1], out=first[1:])
    return _integers_to_keys(numbers[first], keys.dtype)


def key_positions(sorted_keys: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """``np.searchsorted(sorted_keys, keys)`` for pattern keys, searched as integers when
    the keys are at most 64 tasks wide."""
    a, b = _key_integers(sorted_keys), _key_integers(keys)
    if a is None or b is None:
        return np.searchsorted(sorted_keys, keys)
    return np.searchsorted(a, b)


def keys_to_indicator(keys: np.ndarray, n_tasks: int) -> np.ndarray:
    """The ``(P, T)`` boolean task indicator of pattern keys (inverse of :func:`pattern_keys`)."""
    n_words = _n_words(n_tasks)
    words = np.ascontiguousarray(keys).view(np.uint32).reshape(len(keys), n_words)
    little = np.ascontiguousarray(words.astype("<u4")).view(np.uint8)  # (P, 4 * n_words)
    bits = np.unpackbits(little, axis=1, count=n_tasks, bitorder="little")
    return bits.view(bool)


#: Number of set bits of every byte value.
_BYTE_BITS = np.unpackbits(np.arange(256, dtype=np.uint8)[:, None], axis=1).sum(
    axis=1, dtype=np.int64
)


@dataclass(frozen=True)
class PatternSet:
    """Distinct patterns held as their sorted keys, not as a ``(P, T)`` boolean matrix
    (8 bytes per pattern of up to 64 tasks instead of T): what the counting pass of
    "observed" mode reads. :func:`containment_counts` and
    :func:`observed_combinations` take it in place of the boolean matrix.

    Attributes
    ----------
    keys : ndarray of shape (P,)
        Pattern keys (:func:`pattern_keys`).
    n_tasks : int
        Number of tasks T.
    """

    keys: np.ndarray
    n_tasks: int

    @property
    def shape(self) -> tuple[int, int]:
        return (len(self.keys), self.n_tasks)

    def words(self) -> np.ndarray:
        """The ``(P, ceil(T / 64))`` uint64 masks (bit ``t % 64`` of word ``t // 64``)."""
        n32 = _n_words(self.n_tasks)
        words32 = np.zeros((len(self.keys), n32 + n32 % 2), dtype="<u4")
        words32[:, :n32] = np.ascontiguousarray(self.keys).view("<u4").reshape(-1, n32)
        return words32.view("<u8").astype(np.uint64, copy=False)

    def rows(self, index: np.ndarray) -> np.ndarray:
        """The boolean task indicator of the patterns ``index``: (len(index), T)."""
        return keys_to_indicator(self.keys[index], self.n_tasks)

    def task_counts(self) -> np.ndarray:
        """How many patterns hold each task: (T,) int64 (one byte histogram per byte)."""
        as_bytes = np.ascontiguousarray(self.keys).view(np.uint8).reshape(len(self.keys), -1)
        bits = np.unpackbits(np.arange(256, dtype=np.uint8)[:, None], axis=1, bitorder="little")
        counts = np.zeros(8 * as_bytes.shape[1], dtype=np.int64)
        for byte in range(as_bytes.shape[1]):
            histogram = np.bincount(as_bytes[:, byte], minlength=256)
            counts[8 * byte : 8 * byte + 8] = histogram @ bits.astype(np.int64)
        return counts[: self.n_tasks]

    def sizes(self) -> np.ndarray:
        """Number of tasks of each pattern: (P,) int64."""
        as_bytes = np.ascontiguousarray(self.keys).view(np.uint8).reshape(len(self.keys), -1)
        sizes = np.zeros(len(self.keys), dtype=np.int64)
        for byte in range(as_bytes.shape[1]):
            sizes += _BYTE_BITS[as_bytes[:, byte]]
        return sizes


def items_to_keys(items: np.ndarray, sizes: np.ndarray, n_tasks: int) -> np.ndarray:
    """Pattern keys of combinations given as a padded ``(K, L)`` item array."""
    k = items.shape[0]
    indicator = np.zeros((k, n_tasks), dtype=np.float64)
    rows = np.repeat(np.arange(k), sizes)
    indicator[rows, items[np.arange(items.shape[1])[None, :] < sizes[:, None]]] = 1.0
    return pattern_keys(indicator, n_tasks)


# ----------------------------------------------------------------------------- combinations
@dataclass(frozen=True)
class Combinations:
    """A set of task combinations.

    Attributes
    ----------
    items : ndarray of shape (K, L)
        Task indices of each combination in ascending order, padded with -1
        (a signed integer type; M's builders use :func:`item_dtype`, int16 for
        up to 32,767 tasks).
    sizes : ndarray of shape (K,)
        Number of tasks of each combination.
    task_names : tuple
        Names of the task indices.
    """

    items: np.ndarray
    sizes: np.ndarray
    task_names: tuple[Any, ...]

    def __len__(self) -> int:
        return int(self.sizes.shape[0])

    def names(self) -> list[tuple[Any, ...]]:
        """Each combination as a tuple of task names.

        Built per combination size (a loop over the few sizes, not the
        combinations): the names of each item column are gathered at once and
        ``zip`` makes the tuples.
        """
        names = np.asarray(self.task_names, dtype=object)
        out = np.empty(len(self), dtype=object)
        for size in np.unique(self.sizes).tolist():
            rows = np.flatnonzero(self.sizes == size)
            block = self.items[rows, :size]
            columns = [names[block[:, j]].tolist() for j in range(size)]
            tuples = zip(*columns, strict=True) if size else (() for _ in range(rows.size))
            out[rows] = np.fromiter(tuples, dtype=object, count=rows.size)
        return out.tolist()

    def keys(self) -> np.ndarray:
        return items_to_keys(self.items, self.sizes, len(self.task_names))


def _canonical(
    items_rank: np.ndarray, sizes: np.ndarray, order: np.ndarray, task_names: tuple[Any, ...]
) -> tuple[Combinations, np.ndarray]:
    """Map rank-ordered items back to task indices, sort items and combinations.

    Returns the combinations (by size, then lexicographically by task index) and
    the permutation applied to the input rows. Among sets of one size, the
    lexicographic order of their ascending task tuples is the descending order
    of their bit strings with task 0 as the most significant bit, so the sort
    is a lexsort over ``ceil(T / 64)`` words and the size, not over every item
    column.
    """
    width = items_rank.shape[1] if items_rank.size else 1
    valid = np.arange(width)[None, :] < sizes[:, None]
    indicator = np.zeros((sizes.shape[0], len(task_names)), dtype=bool)
    indicator[np.nonzero(valid)[0], order[items_rank[valid]]] = True
    return _canonical_indicator(indicator, sizes, width, task_names)


def _canonical_indicator(
    indicator: np.ndarray, sizes: np.ndarray, width: int, task_names: tuple[Any, ...]
) -> tuple[Combinations, np.ndarray]:
    """:func:`_canonical` of combinations given as the rows of a (K, T) boolean matrix."""
    perm = _canonical_order(indicator, sizes)
    sorted_sizes = sizes[perm].astype(np.int64)
    items = _indicator_items(indicator[perm], sorted_sizes, width)
    return Combinations(items, sorted_sizes, task_names), perm


def _canonical_order(indicator: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """The order of combinations (rows of a (K, T) boolean matrix) by size, then
    lexicographically by their ascending task indices: (K,)."""
    k, n_tasks = indicator.shape
    n_words = max(1, -(-n_tasks // 64))
    packed = np.zeros((k, 8 * n_words), dtype=np.uint8)
    packed[:, : -(-n_tasks // 8)] = np.packbits(indicator, axis=1, bitorder="big")
    words = packed.view(">u8")  # (K, W), task 0 = top bit of word 0
    return np.lexsort(
        [~words[:, j].astype(np.uint64) for j in range(n_words - 1, -1, -1)] + [sizes]
    )


def item_dtype(n_tasks: int) -> np.dtype:
    """The smallest signed integer type that holds the task indices 0..T-1 and the -1 padding
    of :attr:`Combinations.items` (int16 up to 32,767 tasks: a quarter of int64's memory)."""
    for dtype in (np.int16, np.int32):
        if n_tasks <= np.iinfo(dtype).max:
            return np.dtype(dtype)
    return np.dtype(np.int64)


def _indicator_items(indicator: np.ndarray, sizes: np.ndarray, width: int) -> np.ndarray:
    """The tasks of each row of a (K, T) boolean matrix, ascending and padded with -1: (K, width).

    A loop over the T tasks (not the rows): task ``t`` goes to the next free
    column of the rows that hold it. The temporaries are (K,) vectors, not the
    (nnz,) index arrays of :func:`numpy.nonzero`.
    """
    k, n_tasks = indicator.shape
    items = np.full((k, max(width, 1)), -1, dtype=item_dtype(n_tasks))
    filled = np.zeros(k, dtype=np.intp)
    for task in range(n_tasks):
        rows = np.flatnonzero(indicator[:, task])
        items[rows, filled[rows]] = task
        filled[rows] += 1
    return items


def _task_columns(pattern_bool: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """CSC-like (ptr, patterns) of the patterns holding each task."""
    task_idx, pat_idx = np.nonzero(pattern_bool.T)
    ptr = np.zeros(pattern_bool.shape[1] + 1, dtype=np.int64)
    np.cumsum(np.bincount(task_idx, minlength=pattern_bool.shape[1]), out=ptr[1:])
    return ptr, pat_idx.astype(np.int64)


def _chunks(lengths: np.ndarray) -> list[tuple[int, int]]:
    """Split ``range(len(lengths))`` into runs whose lengths sum to about ``_CHUNK``."""
    if lengths.size == 0:
        return []
    cum = np.cumsum(lengths)
    cuts = np.searchsorted(cum, np.arange(_CHUNK, cum[-1], _CHUNK), side="right")
    bounds = np.unique(np.concatenate([[0], cuts, [len(lengths)]]))
    return [(int(a), int(b)) for a, b in zip(bounds[:-1], bounds[1:], strict=True) if b > a]


def _gather(ptr: np.ndarray, pats: np.ndarray, nodes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Entries of the columns ``nodes``: (position of the node in ``nodes``, pattern)."""
    lengths = ptr[nodes + 1] - ptr[nodes]
    total = int(lengths.sum())
    owner = np.repeat(np.arange(len(nodes)), lengths)
    offset = np.arange(total) - np.repeat(np.cumsum(lengths) - lengths, lengths)
    return owner, pats[np.repeat(ptr[nodes], lengths) + offset]


def _extend(
    ptr: np.ndarray,
    pats: np.ndarray,
    parents: np.ndarray,
    tasks: np.ndarray,
    pattern_bool: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """Columns of the children ``(parent, task)``: the parent's patterns that hold the task."""
    lengths = ptr[parents + 1] - ptr[parents]
    counts = np.zeros(len(parents), dtype=np.int64)
    pieces = []
    for start, stop in _chunks(lengths):
        owner, cand = _gather(ptr, pats, parents[start:stop])
        keep = pattern_bool[cand, tasks[start:stop][owner]]
        pieces.append(cand[keep])
        counts[start:stop] = np.bincount(owner[keep], minlength=stop - start)
    new_ptr = np.zeros(len(parents) + 1, dtype=np.int64)
    np.cumsum(counts, out=new_ptr[1:])
    new_pats = np.concatenate(pieces) if pieces else np.zeros(0, dtype=np.int64)
    return new_ptr, new_pats


@dataclass(frozen=True)
class _RankedRows:
    """The tasks of every pattern as ranks (rarest first), ascending: a CSR layout whose
    row ``p`` is ``rank[ptr[p]:ptr[p + 1]]`` (``pattern[i]`` is the row of entry ``i``).
    ``keys`` is ``p * T + rank`` of each entry, ascending over the whole array, and
    ``position``, when ``P * T`` is small enough, the entry of each key (a dense table):
    either finds where a pattern's tasks after a given rank start."""

    ptr: np.ndarray
    rank: np.ndarray
    pattern: np.ndarray
    keys: np.ndarray
    position: np.ndarray | None
    n_tasks: int

    def after(self, patterns: np.ndarray, ranks: np.ndarray) -> np.ndarray:
        """The first entry of each pattern's row ranked after ``ranks`` (which it holds)."""
        keys = patterns * self.n_tasks + ranks
        if self.position is not None:
            return self.position[keys] + 1
        return np.searchsorted(self.keys, keys, side="right")


def _ranked_rows(pattern_bool: np.ndarray, order: np.ndarray, usable: np.ndarray) -> _RankedRows:
    """:class:`_RankedRows` of the rank-ordered tasks ``usable`` (boolean over ranks) only:
    the others (infrequent single tasks) are in no candidate."""
    n_patterns, n_tasks = pattern_bool.shape
    pat, column = np.nonzero(pattern_bool[:, order[usable]])
    rank = np.flatnonzero(usable)[column]
    ptr = np.zeros(n_patterns + 1, dtype=np.int64)
    np.cumsum(np.bincount(pat, minlength=n_patterns), out=ptr[1:])
    keys = pat.astype(np.int64) * n_tasks + rank
    position = None
    if n_patterns * n_tasks <= _LOOKUP_CELLS:
        entry_type = np.int32 if keys.size < np.iinfo(np.int32).max else np.int64
        position = np.zeros(n_patterns * n_tasks, dtype=entry_type)
        position[keys] = np.arange(keys.size, dtype=entry_type)
    return _RankedRows(ptr, rank, pat.astype(np.int64), keys, position, n_tasks)


def _extend_from_patterns(
    ptr: np.ndarray,
    pats: np.ndarray,
    parents: np.ndarray,
    new_ranks: np.ndarray,
    last_ranks: np.ndarray,
    rows: _RankedRows,
    budget: int,
) -> tuple[np.ndarray, np.ndarray] | None:
    """The memberships of the candidates ``(parent, new rank)``, driven by the patterns:
    every pattern of a parent's column proposes the tasks it holds ranked after the parent's
    last task (``last_ranks[parent]``), and the proposals that are candidates are kept.

    Returns ``(position, patterns)``: candidate index and pattern of each membership, the
    patterns of one candidate ascending (so :func:`_grouped_columns` gives what
    :func:`_extend` gives, and a ``bincount`` over ``position`` sums each candidate's
    weights in the same order). The work is the number of proposals (the memberships of
    the children before pruning), not the parent's patterns times its candidates as in
    :func:`_extend`; ``None`` when the proposals would be more than ``budget`` (the caller
    then tests candidate by candidate) or the candidates are not in (parent, rank) order.
    """
    t = rows.n_tasks
    cand_keys = parents.astype(np.int64) * t + new_ranks
    if cand_keys.size > 1 and not bool(np.all(cand_keys[1:] > cand_keys[:-1])):
        return None
    nodes = np.unique(parents)
    owner, pat = _gather(ptr, pats, nodes)
    start = rows.after(pat, last_ranks[nodes][owner])
    lengths = rows.ptr[pat + 1] - start
    total = int(lengths.sum())
    if total > budget:
        return None
    # the entries start[i] .. start[i] + lengths[i] - 1 of the rows, back to back
    entry = np.arange(total) + np.repeat(start - (np.cumsum(lengths) - lengths), lengths)
    ranks, patterns = rows.rank[entry], rows.pattern[entry]
    owners = np.repeat(owner, lengths)
    if nodes.size * t <= _LOOKUP_CELLS:  # a dense (parent, rank) -> candidate table
        lookup = np.full(nodes.size * t, -1, dtype=np.int64)
        lookup[np.searchsorted(nodes, parents) * t + new_ranks] = np.arange(cand_keys.size)
        position = lookup[owners * t + ranks]
        hit = position >= 0
    else:
        keys = nodes[owners] * t + ranks
        position = np.searchsorted(cand_keys, keys)
        np.minimum(position, cand_keys.size - 1, out=position)
        hit = cand_keys[position] == keys
    if not bool(hit.all()):
        position, patterns = position[hit], patterns[hit]
    return position, patterns


def _grouped_columns(
    position: np.ndarray, patterns: np.ndarray, n_columns: int, n_patterns: int
) -> tuple[np.ndarray, np.ndarray]:
    """(ptr, pats) of the memberships ``(position[i], patterns[i])``: the patterns of each
    column ascending (a counting sort in C, as scipy builds a CSR matrix)."""
    grouped = sp.csr_matrix(
        (np.ones(position.size, dtype=np.int8), (position, patterns)),
        shape=(n_columns, n_patterns),
    )
    grouped.sort_indices()
    return grouped.indptr.astype(np.int64), grouped.indices.astype(np.int64)


def _rarest_first(pattern_bool: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Task order by ascending number of patterns holding the task, and each task's rank."""
    return _rarest_first_counts(pattern_bool.sum(axis=0))


def _rarest_first_counts(freq: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_rarest_first` from the number of patterns holding each task."""
    order = np.argsort(freq, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    return order, rank


def _masks(pattern_bool: np.ndarray) -> np.ndarray:
    """Each row of a (P, T) boolean matrix as ``ceil(T / 64)`` uint64 words: (P, W)."""
    n, n_tasks = pattern_bool.shape
    n_words = max(1, -(-n_tasks // 64))
    packed = np.zeros((n, n_words * 8), dtype=np.uint8)  # 8 bytes per row and word
    packed[:, : -(-n_tasks // 8)] = np.packbits(pattern_bool, axis=1, bitorder="little")
    return packed.view("<u8").astype(np.uint64, copy=False).reshape(n, n_words)


def _item_masks(items: np.ndarray, n_tasks: int) -> np.ndarray:
    """The ``(K, W)`` uint64 word masks of combinations given as padded items (-1 = none)."""
    k = items.shape[0]
    n_words = max(1, -(-n_tasks // 64))
    out = np.zeros((k, n_words), dtype=np.uint64)
    one, zero = np.uint64(1), np.uint64(0)
    for column in items.T:  # a row holds each task once: one bit per row and column
        tasks = column.astype(np.int64)
        bit = np.left_shift(one, (np.maximum(tasks, 0) % 64).astype(np.uint64))
        for w in range(n_words):  # whole-column passes, no gathered rows
            out[:, w] |= np.where((tasks >= 0) & (tasks // 64 == w), bit, zero)
    return out


#: Pattern x combination x word checks per dense block (bounds the memory of one block).
_BLOCK = 1 << 20
#: (combination, pattern) hits buffered before one sparse product flushes them.
_FLUSH = 1 << 20
#: Largest number of free tasks (bits) of a node counted by a superset-sum table.
_ZETA_MAX_BITS = 18
#: Largest superset-sum table, in cells (table rows x weight columns): 64 MB of float64.
_ZETA_MAX_CELLS = 1 << 23
#: A node is counted by its table when ``2**u * u * _ZETA_FACTOR`` is at most its
#: patterns x combinations (the tests set 0 to force tables and inf to forbid them).
_ZETA_FACTOR = 8.0
#: Most threads that count the root's subtrees in parallel (numpy and scipy release the
#: GIL in the vectorised steps; every thread holds one subtree's buffers in memory).
_MAX_THREADS = 4
#: Children x patterns tested at once when a node is split (bounds the memory of a split).
_SPLIT_CELLS = 1 << 20
#: Nodes of at most this many patterns hand their masks to their children; larger
#: children gather theirs when they are popped (bounds the memory of the pending nodes).
_CARRY_MASKS = 1 << 17
_DESCRIPTION = "counting combinations"


#: Most weight-row types (distinct rows of the weights) counted per type instead of per
#: weight column (:class:`_WeightTypes`); the type index fits an int8 with the "other" mark.
_MAX_TYPES = 32
#: A row is a type only when the sample holds it this often (a share of the sampled rows).
_TYPE_MIN_SHARE = 1e-3
#: Weight rows sampled to find the types, and rows matched per vectorised step.
_TYPE_SAMPLE = 1 << 16
_TYPE_CHUNK = 1 << 14
#: A flush counts its hits per type when its band of combinations x types is at most
#: this share of the hits (the per-type counts are then turned into weight columns).
_TYPE_FLUSH_SHARE = 0.25
#: A superset-sum table counts per type when it has at least this many patterns per
#: cell of its (types + 1) x 2**u integer table.
_TYPE_TABLE_FACTOR = 2.0


@dataclass(frozen=True)
class _WeightTypes:
    """The weight rows as a few frequent *types* (distinct rows): ``of[p]`` is the type of
    pattern ``p`` (``len(rows)`` for a row of no type) and ``rows_t`` the ``(k, T)``
    transposed rows of the types, sparse (most columns of a type are 0).

    A sum of weight rows is then the per-type counts times the type rows, and counting
    a pattern is one increment of a small integer table instead of ``k`` additions of a
    row read from the ``(P, k)`` weights (a cache miss per pattern on large inputs). Only
    for float32 weights, whose sums are exact integers (see :func:`containment_counts`):
    the products then give the same bits in any order."""

    of: np.ndarray
    rows: np.ndarray
    rows_t: sp.csr_matrix
    alias: np.ndarray

    @property
    def n_types(self) -> int:
        return int(self.rows.shape[0])

    def combine(self, counts: np.ndarray) -> np.ndarray:
        """Weight sums from per-type counts: ``counts`` (T, m) -> (m, k) float64."""
        return np.asarray(self.rows_t @ counts, dtype=np.float64).T


def _row_words(block: np.ndarray) -> np.ndarray:
    """The float32 rows of a block as their bit patterns, two values per uint64 word
    when the row length is even (half the passes), else uint32: (m, k / 2) or (m, k)."""
    block = np.ascontiguousarray(block)
    return block.view(np.uint64 if block.shape[1] % 2 == 0 else np.uint32)


def _row_hashes(words: np.ndarray) -> np.ndarray:
    """A uint64 hash of each row of uint32 words (equal rows, equal hashes): one pass per
    column of a block that fits in cache, not a reduction over the short axis."""
    h = np.zeros(words.shape[0], dtype=np.uint64)
    for j in range(words.shape[1]):
        h *= np.uint64(0x9E3779B97F4A7C15)  # wraps modulo 2**64
        h += words[:, j]
    return h


def _weight_types(weights: np.ndarray) -> _WeightTypes | None:
    """The frequent distinct rows of float32 ``weights`` (P, k) and the type of every
    row (:class:`_WeightTypes`); ``None`` for float64 weights or when no row repeats
    often enough. Types are found on a strided sample of rows and every row is matched
    by a hash and then compared bit for bit, so a row is given a type only when it equals
    that type's row exactly."""
    n, k = weights.shape
    if weights.dtype != np.float32 or n == 0 or k == 0:
        return None
    step = max(1, n // _TYPE_SAMPLE)
    sample = _row_words(weights[::step])
    distinct, first, counts = np.unique(_row_hashes(sample), return_index=True, return_counts=True)
    keep = np.argsort(-counts, kind="stable")[:_MAX_TYPES]
    keep = keep[counts[keep] >= max(2.0, _TYPE_MIN_SHARE * len(sample))]
    if keep.size == 0:
        return None
    keep = np.sort(keep)  # ascending hashes
    type_hashes, type_words = distinct[keep], sample[first[keep]]
    n_types = len(keep)
    of = np.full(n, n_types, dtype=np.int8)
    for start in range(0, n, _TYPE_CHUNK):
        words = _row_words(weights[start : start + _TYPE_CHUNK])
        h = _row_hashes(words)
        t = np.minimum(np.searchsorted(type_hashes, h), n_types - 1)
        same = type_hashes[t] == h
        for j in range(words.shape[1]):
            same &= words[:, j] == type_words[t, j]
        of[start : start + len(words)] = np.where(same, t, n_types)
    # each type's row is read from one pattern of that type (the sampled one)
    alias = np.arange(n, dtype=np.int32 if n < np.iinfo(np.int32).max else np.int64)
    typed = np.flatnonzero(of < n_types)
    alias[typed] = (first[keep] * step)[of[typed]]
    rows = weights[first[keep] * step]
    return _WeightTypes(of, rows, sp.csr_matrix(rows.T.astype(np.float64)), alias)


def _threads_for_counting() -> int:
    """Threads for the counting pass: ``$BIASAMP_NUM_THREADS`` when set, else the usable
    cores, at most ``_MAX_THREADS``."""
    import os

    setting = os.environ.get(THREADS_ENV)
    if setting is not None:
        try:
            threads = int(setting)
        except ValueError:
            threads = 0
        if threads < 1:
            raise ValueError(ERR_THREADS_ENV.format(env=THREADS_ENV, got=setting))
        return threads
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on every platform
        cores = os.cpu_count() or 1
    return max(1, min(_MAX_THREADS, cores))


def _compress_bits(masks: np.ndarray, free: list[int]) -> np.ndarray:
    """The bits ``free`` (ascending task indices) of word masks ((n,) or (n, W)), packed
    into ``0 .. 2**len(free) - 1`` (bit ``j`` of the result is task ``free[j]``).

    A vectorised bit extract: per byte of the masks that holds free tasks, one
    lookup in a 256-entry table of that byte's packed bits.
    """
    words = masks[:, None] if masks.ndim == 1 else masks
    as_bytes = np.ascontiguousarray(words.astype("<u8", copy=False)).view(np.uint8)
    out: np.ndarray | None = None
    values = np.arange(256)
    shift = 0
    cell_type = np.int32 if len(free) < 31 else np.intp  # half the bytes of intp cells
    for byte in sorted({t // 8 for t in free}):
        bits = [t % 8 for t in free if t // 8 == byte]
        table = np.zeros(256, dtype=cell_type)
        for j, b in enumerate(bits):
            table |= ((values >> b) & 1) << (shift + j)  # the lookup gives the shifted bits
        part = table[as_bytes[:, byte]]
        if out is None:
            out = part
        else:
            out |= part
        shift += len(bits)
    return np.zeros(words.shape[0], dtype=cell_type) if out is None else out


def _superset_sums(
    node: np.ndarray,
    rows: np.ndarray,
    want: np.ndarray,
    free: list[int],
    weights: np.ndarray,
    types: _WeightTypes | None = None,
) -> np.ndarray:
    """Counts of the combinations ``want`` over the patterns ``rows`` (masks ``node``)
    by one superset-sum table: (len(want), k).

    Every pattern of the node holds the node's prefix; ``free`` lists the other
    tasks of the combinations (``u`` of them). The patterns are reduced to those
    ``u`` bits and their weight rows summed into a table of ``2**u`` cells (one
    sparse product), the table is turned into superset sums by the ``u`` passes
    of the zeta transform (cell ``s`` becomes the sum over the cells that hold
    ``s``), and each combination reads its own cell. Cost: ``u`` passes over
    ``2**u`` cells, whatever the number of patterns and combinations. (One
    ``bincount`` per weight column instead of the sparse product, and folding
    column by column in cache, measured 30% slower.)
    """
    u = len(free)
    cell = _compress_bits(node, free)
    wanted = _compress_bits(want, free)
    result: np.ndarray | None = None
    if types is not None and cell.size >= _TYPE_TABLE_FACTOR * ((types.n_types + 1) << u):
        # per-type counts: a table of (types + 1) x 2**u integers, one increment per pattern
        # (the last row counts the patterns of no type, summed from the weights below)
        t = types.of[rows]
        n_types = types.n_types
        counts = np.bincount(t.astype(np.intp) << u | cell, minlength=(n_types + 1) << u)
        counts = counts.reshape(n_types + 1, 1 << u)
        _fold_rows(counts[:n_types], u)
        result = types.combine(counts[:n_types, wanted])
        other = np.flatnonzero(t == n_types)
        if other.size == 0:
            return result
        cell, rows = cell[other], rows[other]
    elif types is not None:  # typed patterns read their row from a pattern of their type
        rows = types.alias[rows]
    scatter = sp.coo_matrix(
        (np.ones(cell.size, dtype=weights.dtype), (cell, rows)), shape=(1 << u, weights.shape[0])
    )
    table = np.asarray(scatter @ weights)
    summed = _fold_read(table, u, wanted)
    return summed if result is None else result + summed


def _fold(table: np.ndarray, u: int) -> None:
    """Superset sums in place over the rows of a ``(2**u, k)`` table (the zeta transform):
    pass ``j`` adds every row with bit ``j`` set onto the row without it. (Running the
    low passes block by block in cache made no measurable difference: the scatter
    that fills the table costs more.)"""
    k = table.shape[1]
    for j in range(u):
        halves = table.reshape(-1, 2, (1 << j) * k)
        halves[:, 0] += halves[:, 1]


#: The low bits of a superset-sum table folded after moving them to the front (see
#: :func:`_fold_read`).
_FOLD_LOW_BITS = 8


def _fold_read(table: np.ndarray, u: int, wanted: np.ndarray) -> np.ndarray:
    """:func:`_fold` of a ``(2**u, k)`` table (in place, the table is then scratch), read
    at the cells ``wanted``: (len(wanted), k).

    Pass ``j`` adds blocks of ``2**j * k`` contiguous values, so the low passes run as
    many short loops. They are run after the others, on a copy whose axes put the low
    ``_FOLD_LOW_BITS`` bits of the cell first (one transposing copy, then every pass
    adds long contiguous blocks); the wanted cells are read from that copy."""
    k = table.shape[1]
    low = min(_FOLD_LOW_BITS, u)
    for j in range(low, u):
        halves = table.reshape(-1, 2, (1 << j) * k)
        halves[:, 0] += halves[:, 1]
    moved = np.ascontiguousarray(table.reshape(-1, 1 << low, k).transpose(1, 0, 2))
    block = moved.shape[1] * k
    for j in range(low):
        halves = moved.reshape(-1, 2, (1 << j) * block)
        halves[:, 0] += halves[:, 1]
    result: np.ndarray = moved[wanted & ((1 << low) - 1), wanted >> low]
    return result


def _fold_rows(table: np.ndarray, u: int) -> None:
    """:func:`_fold` of a ``(m, 2**u)`` table whose cells run along the rows."""
    m = table.shape[0]
    for j in range(u):
        halves = table.reshape(m, -1, 2, 1 << j)
        halves[:, :, 0] += halves[:, :, 1]


def _holds_all_words(want: np.ndarray, node: np.ndarray) -> np.ndarray:
    """``(want[:, None, :] & node[None, :, :] == want[:, None, :]).all(axis=-1)``: whether
    each pattern (rows of ``node``, (P, W) words) holds every task of each combination
    (rows of ``want``, (K, W)), one word at a time (a reduction over an axis of W = 2 or 3
    is several times slower than W elementwise passes); words no combination uses are
    skipped."""
    hit = np.ones((want.shape[0], node.shape[0]), dtype=bool)
    for w in range(want.shape[1]):
        column = want[:, w]
        if not column.any():
            continue
        needed = column[:, None]
        hit &= (needed & node[None, :, w]) == needed
    return hit


def _root_nodes(ranks: np.ndarray, n_pat: int, k: int) -> list[tuple[int, int]]:
    """The combination ranges of the root's children (one per first task)."""
    if k == 0:
        return []
    column = ranks[:, 0]
    cuts = np.nonzero(np.diff(column))[0] + 1
    bounds = np.concatenate([[0], cuts, [k]]).tolist()
    return list(zip(bounds[:-1], bounds[1:], strict=True))


def containment_counts(
    pattern_bool: np.ndarray | PatternSet,
    combos: Combinations,
    weights: np.ndarray,
    *,
    progress: bool = False,
    native: bool = False,
) -> np.ndarray:
    """``C^T @ weights`` for the containment matrix ``C[p, m] = 1`` iff pattern ``p``
    holds every task of combination ``m``, without building ``C``: (K, k).

    The combinations are sorted by their tasks ranked rarest first and split
    along the prefix tree: a node (a shared prefix) holds the patterns that
    contain the prefix and the combinations below it. A node whose patterns x
    combinations block is small (at most ``_BLOCK`` checks) is finished with one
    dense bit-mask test (``pattern & m == m``); a larger node is split by the
    next task, keeping only the patterns that hold it, so a shared prefix is
    intersected once. The hits of many blocks are buffered as (combination,
    pattern) pairs and turned into counts by one sparse (COO) product with the
    weights per ``_FLUSH`` (about a million) pairs.

    The hits grow faster than the rows (a combination's support and the number
    of combinations both grow with the data), so a node whose combinations use
    few tasks beyond the shared prefix (``u`` free tasks) and that holds many
    patterns x combinations is counted by a superset-sum table over those ``u``
    tasks instead (:func:`_superset_sums`), whose cost does not depend on the
    number of patterns or combinations. A node takes the table when
    ``2**u * u * _ZETA_FACTOR`` is at most its patterns x combinations, ``u`` is
    at most ``_ZETA_MAX_BITS`` and the table at most ``_ZETA_MAX_CELLS`` cells.

    The root's subtrees (one per first task) own disjoint combinations and run in
    up to :func:`_threads_for_counting` threads, largest first; every
    combination is summed by one thread in a fixed order, so the counts do not
    depend on the number of threads. ``weights`` may be float32 (the products
    and tables then stay in float32: exact when every weight is an integer and
    every column sums to less than 2**24, which is when the callers pass it);
    the result is float64, or with ``native=True`` in the weights' dtype (float32
    sums are then accumulated in float32, half the memory, and are exact).
    """
    from biasamp._progress import progress_iter

    n_pat, n_tasks = pattern_bool.shape
    k = len(combos)
    weights = np.asarray(weights)
    if weights.dtype not in (np.float32, np.float64):
        weights = weights.astype(np.float64)
    if weights.ndim == 1:
        weights = weights[:, None]
    out = np.zeros((k, weights.shape[1]), dtype=weights.dtype if native else np.float64)
    if k == 0:
        return out
    if isinstance(pattern_bool, PatternSet):
        masks, freq = pattern_bool.words(), pattern_bool.task_counts()
    else:
        masks, freq = _masks(pattern_bool), pattern_bool.sum(axis=0)
    n_words = masks.shape[1]
    order, rank = _rarest_first_counts(freq)
    width = combos.items.shape[1]
    valid = np.arange(width)[None, :] < combos.sizes[:, None]
    # every combination as its ascending task ranks, padded with n_tasks (small integers)
    rank_type = np.int8 if n_tasks < 127 else np.int16 if n_tasks < 32_767 else np.int64
    ranks = np.full((k, width + 1), n_tasks, dtype=rank_type)
    ranks[:, :width] = np.where(valid, rank.astype(rank_type)[np.maximum(combos.items, 0)], n_tasks)
    ranks.sort(axis=1)
    if n_tasks <= 64:
        # lexicographic order of the rank lists = descending order of the masks with
        # rank r at bit 63 - r (the first difference decides; a list that is a prefix of
        # another, padded with n_tasks, comes after it)
        by_rank = np.zeros(k, dtype=np.uint64)
        for column in ranks[:, :width].T:
            bit = np.uint64(63) - np.minimum(column, 63).astype(np.uint64)
            by_rank |= np.where(column < n_tasks, np.left_shift(np.uint64(1), bit), np.uint64(0))
        perm = np.argsort(by_rank)[::-1]
    else:
        perm = np.lexsort(ranks.T[::-1])
    ranks = ranks[perm]
    combo_masks = _item_masks(combos.items, n_tasks)[perm]
    if n_words == 1:  # one word: 1-d masks, no reduction over words
        masks, combo_masks = masks[:, 0], combo_masks[:, 0]
    word_of = (order // 64).tolist()
    bit_of = [np.uint64(1) << np.uint64(t % 64) for t in order.tolist()]
    n_cols = weights.shape[1]
    all_patterns = np.arange(n_pat, dtype=np.int32)  # half the traffic of int64 subsets
    types = _weight_types(weights)

    def count_subtree(lo0: int, hi0: int) -> None:
        """Count the combinations ``lo0:hi0`` (in the sorted order; one child of the root)
        into their rows of ``out``.

        Subtrees own disjoint rows of ``out``, and each buffers and flushes its own
        hits, so subtrees can run in parallel threads with the same results."""
        hits_c: list[np.ndarray] = []
        hits_p: list[np.ndarray] = []
        buffered = 0

        def flush() -> int:
            if not hits_c:
                return 0
            c = np.concatenate(hits_c)
            p = np.concatenate(hits_p)
            hits_c.clear()
            hits_p.clear()
            if c.size == 0:
                return 0
            # the buffered hits come from one subtree: a narrow band of combinations
            first, last = int(c.min()), int(c.max()) + 1
            band = last - first
            if types is not None and band * types.n_types > _TYPE_FLUSH_SHARE * c.size:
                p = types.alias[p]
            elif types is not None:
                # per-type counts of the band (type x combination; the last row counts the
                # rows of no type, which are then summed from the weights)
                t = types.of[p]
                n_types = types.n_types
                counts = np.bincount(
                    t.astype(np.intp) * band + (c - first), minlength=(n_types + 1) * band
                )
                out[perm[first:last]] += types.combine(
                    counts[: n_types * band].reshape(n_types, band)
                )
                other = np.flatnonzero(t == n_types)
                if other.size == 0:
                    return 0
                c, p = c[other], p[other]
            pairs = sp.coo_matrix(
                (np.ones(c.size, dtype=weights.dtype), (c - first, p)), shape=(band, n_pat)
            )
            out[perm[first:last]] += pairs @ weights
            return 0

        stack: list[tuple[np.ndarray, np.ndarray | None, int, int, int]] = [
            (all_patterns, masks, lo0, hi0, 0)
        ]
        while stack:
            db, node, lo, hi, depth = stack.pop()
            if db.size == 0:
                continue
            if node is None:
                node = masks[db]
            if db.size * (hi - lo) * n_words <= _BLOCK or depth >= width:
                want = combo_masks[lo:hi]
                if n_words == 1:
                    hit = (want[:, None] & node[None, :]) == want[:, None]
                else:
                    hit = _holds_all_words(want, node)
                # flat positions: np.nonzero on a 2-d mask is several times slower
                c, p = np.divmod(np.flatnonzero(hit), db.size)
                hits_c.append((c + lo).astype(np.int32))
                hits_p.append(db[p])
                buffered += c.size
                if buffered >= _FLUSH:
                    buffered = flush()
                continue
            # the node's free tasks: those of its combinations beyond the shared prefix
            prefix = {int(order[r]) for r in ranks[lo, :depth].tolist()}
            union = np.bitwise_or.reduce(combo_masks[lo:hi], axis=0)
            words = np.atleast_1d(union).tolist()
            free = [
                64 * w + b
                for w, word in enumerate(words)
                for b in range(64)
                if (int(word) >> b) & 1 and 64 * w + b not in prefix
            ]
            u = len(free)
            if (
                u <= _ZETA_MAX_BITS
                and (1 << u) * n_cols <= _ZETA_MAX_CELLS
                and (1 << u) * u * _ZETA_FACTOR <= db.size * (hi - lo)
            ):
                out[perm[lo:hi]] += _superset_sums(
                    node, db, combo_masks[lo:hi], free, weights, types
                )
                continue
            column = ranks[lo:hi, depth]
            cuts = np.nonzero(np.diff(column))[0] + 1
            bounds = [0, *cuts.tolist(), hi - lo]
            firsts = column[bounds[:-1]].tolist()
            if firsts[-1] == n_tasks:  # combinations that end here hold the whole node
                out[perm[lo + bounds[-2] : lo + bounds[-1]]] += weights[db].sum(axis=0)
                bounds, firsts = bounds[:-1], firsts[:-1]
            if not firsts:
                continue
            # the children's patterns from one (children, patterns) test per group of
            # children (one flat nonzero instead of a boolean selection per child); the
            # children of a small node also take their masks along (no gather when popped)
            group = max(1, _SPLIT_CELLS // db.size)
            for g in range(0, len(firsts), group):
                tasks = firsts[g : g + group]
                bits = np.array([bit_of[r] for r in tasks], dtype=np.uint64)
                if n_words == 1:
                    holds = (node[None, :] & bits[:, None]) != 0
                else:
                    holds = (node[:, [word_of[r] for r in tasks]].T & bits[:, None]) != 0
                flat = np.flatnonzero(holds)
                offsets = np.arange(len(tasks)) * db.size
                ends_at = np.searchsorted(flat, offsets + db.size)
                # positions within the node: subtract each child's row offset (a remainder
                # by db.size costs 4 times more)
                position = flat - np.repeat(offsets, np.diff(ends_at, prepend=0))
                ends = ends_at.tolist()
                child_db = db[position]
                child_node = node[position] if db.size <= _CARRY_MASKS else None
                for j, end in enumerate(ends):
                    start = ends[j - 1] if j else 0
                    stack.append(
                        (
                            child_db[start:end],
                            None if child_node is None else child_node[start:end],
                            lo + bounds[g + j],
                            lo + bounds[g + j + 1],
                            depth + 1,
                        )
                    )
        flush()

    subtrees = _root_nodes(ranks, n_pat, k)
    # largest first (combinations x patterns holding the first task), for an even load
    support = freq[order]
    subtrees.sort(key=lambda t: -(t[1] - t[0]) * int(support[min(ranks[t[0], 0], n_tasks - 1)]))
    n_threads = min(_threads_for_counting(), len(subtrees))
    if n_threads <= 1:
        for lo0, hi0 in progress_iter(subtrees, description=_DESCRIPTION, enabled=progress):
            count_subtree(lo0, hi0)
    else:
        from concurrent.futures import ThreadPoolExecutor, as_completed

        with ThreadPoolExecutor(max_workers=n_threads) as pool:
            futures = [pool.submit(count_subtree, lo0, hi0) for lo0, hi0 in subtrees]
            finished = as_completed(futures)
            for future in progress_iter(
                finished, total=len(futures), description=_DESCRIPTION, enabled=progress
            ):
                future.result()
    return out


def observed_combinations(
    pattern_bool: np.ndarray | PatternSet,
    train_exact: np.ndarray,
    eval_support: np.ndarray,
    task_names: tuple[Any, ...],
    weights: np.ndarray,
    *,
    min_size: int,
    max_size: int | None,
    min_count: float,
    max_combinations: int,
    eval_column: int | None = None,
    progress: bool = False,
) -> tuple[Combinations, np.ndarray]:
    """M as the reference builds it, and ``C^T @ weights`` over its combinations: (K, k),
    in the weights' dtype (float32 weights give exact float32 sums).

    ``train_exact[p]`` is the training weight of rows whose task set is exactly
    pattern ``p``; ``eval_support`` the evaluation ground-truth weight per pattern.
    When ``eval_column`` is given, ``weights[:, eval_column]`` equals
    ``eval_support`` and is used instead of stacking a copy of the weights.
    """
    patterns = pattern_bool

    def rows_of(index: np.ndarray) -> np.ndarray:
        """The boolean rows of the patterns ``index``."""
        if isinstance(patterns, PatternSet):
            return patterns.rows(index)
        return np.asarray(patterns[index])

    if isinstance(patterns, PatternSet):
        sizes = patterns.sizes()
    else:
        sizes = np.count_nonzero(patterns, axis=1)
    top = np.inf if max_size is None else max_size
    candidate = (train_exact >= min_count) & (sizes >= min_size) & (sizes <= top)
    idx = np.nonzero(candidate)[0]
    if idx.size == 0:
        raise ValueError(
            ERR_EMPTY_OBSERVED_TRAIN.format(
                min_count=_fmt(min_count), min_size=min_size, max_size=max_size
            )
        )
    if idx.size > max_combinations:
        raise ValueError(
            ERR_TOO_MANY.format(
                mode="observed",
                what="the training split has",
                count=idx.size,
                limit=max_combinations,
            )
        )
    width = int(sizes[idx].max())
    items = _indicator_items(rows_of(idx), sizes[idx], width)
    combos = Combinations(items, sizes[idx].astype(np.int64), task_names)
    if eval_column is None:
        weights = np.column_stack([eval_support, weights])
    # float32 weights are summed in float32 (exact integers) and stay float32
    counts = containment_counts(pattern_bool, combos, weights, progress=progress, native=True)
    keep = counts[:, 0 if eval_column is None else eval_column] >= min_count
    if not keep.any():
        raise ValueError(ERR_EMPTY_OBSERVED_EVAL.format(count=idx.size, min_count=_fmt(min_count)))
    kept = np.flatnonzero(keep)
    # the items of a pattern ascend already: sorting M only needs its order
    perm = _canonical_order(rows_of(idx[kept]), sizes[idx[kept]])
    rows = kept[perm]
    combos = Combinations(items[rows], combos.sizes[rows], task_names)
    return combos, np.take(counts, rows, axis=0)[:, 1 if eval_column is None else 0 :]


def _fmt(x: float) -> str:
    return f"{x:g}"


def frequent_combinations(
    pattern_bool: np.ndarray,
    support_train: np.ndarray,
    support_eval: np.ndarray,
    task_names: tuple[Any, ...],
    *,
    min_size: int,
    max_size: int | None,
    min_count: float,
    max_combinations: int,
) -> tuple[Combinations, sp.csc_matrix]:
    """Every combination of ``min_size..max_size`` tasks contained in at least ``min_count``
    training and evaluation rows (level-wise Apriori), with its containment matrix.

    ``support_train[p]`` and ``support_eval[p]`` are the weights of the rows
    whose task set is pattern ``p``. Level ``k + 1`` candidates join two
    frequent k-sets that share their first ``k - 1`` tasks (tasks ranked rarest
    first) and are pruned unless every k-subset is frequent; supports are
    counted with :func:`_extend`. Raises when a level would exceed
    ``max_combinations`` candidates.
    """
    n_tasks = pattern_bool.shape[1]
    order, rank = _rarest_first(pattern_bool)
    ptr, pats = _task_columns(pattern_bool)
    top = n_tasks if max_size is None else min(max_size, n_tasks)

    def _supports(p: np.ndarray, q: np.ndarray) -> np.ndarray:
        owner = np.repeat(np.arange(len(p) - 1), np.diff(p))
        s_train = np.bincount(owner, weights=support_train[q], minlength=len(p) - 1)
        s_eval = np.bincount(owner, weights=support_eval[q], minlength=len(p) - 1)
        return (s_train >= min_count) & (s_eval >= min_count)

    def _member_supports(position: np.ndarray, members: np.ndarray, n: int) -> np.ndarray:
        """:func:`_supports` of memberships (each candidate's patterns ascending: the
        same sums, in the same order)."""
        s_train = np.bincount(position, weights=support_train[members], minlength=n)
        s_eval = np.bincount(position, weights=support_eval[members], minlength=n)
        return (s_train >= min_count) & (s_eval >= min_count)

    # level 1, in rank order
    ptr, pats = _extend_select(ptr, pats, order)
    keep = _supports(ptr, pats)
    level = np.arange(n_tasks)[keep][:, None]  # ranks
    ptr, pats = _extend_select(ptr, pats, np.nonzero(keep)[0])
    ranked = _ranked_rows(pattern_bool, order, keep)
    kept_items: list[np.ndarray] = []
    kept_sizes: list[np.ndarray] = []
    owners: list[np.ndarray] = []
    entries: list[np.ndarray] = []
    total = 0
    size = 1
    while True:
        if size >= min_size and len(level):
            total += len(level)
            if total > max_combinations:
                raise ValueError(
                    ERR_TOO_MANY.format(
                        mode="subsets",
                        what=f"sizes {min_size}..{size} already hold",
                        count=total,
                        limit=max_combinations,
                    )
                )
            owner, pat = _gather(ptr, pats, np.arange(len(level)))
            offset = sum(len(x) for x in kept_items)
            owners.append(owner + offset)
            entries.append(pat)
            padded = np.full((len(level), top), -1, dtype=np.int64)
            padded[:, :size] = level
            kept_items.append(padded)
            kept_sizes.append(np.full(len(level), size, dtype=np.int64))
        if size >= top or len(level) < 2:
            break
        parents, new = _join(level, max_combinations, size + 1)
        if parents.size == 0:
            break
        cand = np.concatenate([level[parents], new[:, None]], axis=1)
        cand_ok = _all_subsets_frequent(level, cand)
        parents, new, cand = parents[cand_ok], new[cand_ok], cand[cand_ok]
        budget = int((ptr[parents + 1] - ptr[parents]).sum())  # what _extend gathers
        found = _extend_from_patterns(ptr, pats, parents, new, level[:, -1], ranked, budget)
        if found is None:
            ptr_c, pats_c = _extend(ptr, pats, parents, order[new], pattern_bool)
            keep = _supports(ptr_c, pats_c)
            ptr, pats = _extend_select(ptr_c, pats_c, np.nonzero(keep)[0])
        else:  # supports from the memberships, then the kept candidates' columns only
            position, members = found
            keep = _member_supports(position, members, len(parents))
            kept = keep[position]
            renumbered = (np.cumsum(keep) - 1)[position[kept]]
            n_kept, n_patterns = int(keep.sum()), pattern_bool.shape[0]
            ptr, pats = _grouped_columns(renumbered, members[kept], n_kept, n_patterns)
        level = cand[keep]
        size += 1
    if not kept_items:
        raise ValueError(
            ERR_EMPTY_SUBSETS.format(
                min_size=min_size, max_size=max_size, min_count=_fmt(min_count)
            )
        )
    items_rank = np.concatenate(kept_items)
    sizes = np.concatenate(kept_sizes)
    rows = np.concatenate(entries)
    cols = np.concatenate(owners)
    contain = sp.csc_matrix(
        (np.ones(rows.size), (rows, cols)), shape=(pattern_bool.shape[0], len(sizes))
    )
    width = int(sizes.max())
    combos, perm = _canonical(items_rank[:, :width], sizes, order, task_names)
    return combos, sp.csc_matrix(contain[:, perm])


def _extend_select(
    ptr: np.ndarray, pats: np.ndarray, nodes: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The columns ``nodes`` only, in that order."""
    owner, pat = _gather(ptr, pats, nodes)
    new_ptr = np.zeros(len(nodes) + 1, dtype=np.int64)
    np.cumsum(np.bincount(owner, minlength=len(nodes)), out=new_ptr[1:])
    return new_ptr, pat


def _join(
    level: np.ndarray, max_combinations: int, next_size: int
) -> tuple[np.ndarray, np.ndarray]:
    """Apriori join of lexicographically sorted k-sets: (parent row, new last item)."""
    n = len(level)
    if level.shape[1] == 1:
        starts = np.zeros(n, dtype=np.int64)
        ends = np.full(n, n, dtype=np.int64)
    else:
        prefix = level[:, :-1]
        new_group = np.ones(n, dtype=bool)
        new_group[1:] = (prefix[1:] != prefix[:-1]).any(axis=1)
        group = np.cumsum(new_group) - 1
        first = np.nonzero(new_group)[0]
        starts = first[group]
        ends = np.append(first[1:], n)[group]
    later = ends - np.arange(n) - 1
    count = int(later.sum())
    if count > max_combinations:
        raise ValueError(
            ERR_TOO_MANY.format(
                mode="subsets",
                what=f"size {next_size} would have",
                count=count,
                limit=max_combinations,
            )
        )
    del starts
    parents = np.repeat(np.arange(n), later)
    offset = np.arange(count) - np.repeat(np.cumsum(later) - later, later)
    partner = parents + 1 + offset
    return parents, level[partner, -1]


def _row_keys(rows: np.ndarray) -> np.ndarray:
    rows = np.ascontiguousarray(rows.astype(">i4"))
    return rows.view(np.dtype((np.void, 4 * rows.shape[1]))).ravel()


def _all_subsets_frequent(level: np.ndarray, cand: np.ndarray) -> np.ndarray:
    """Apriori pruning: every k-subset of each candidate is in ``level``."""
    k1 = cand.shape[1]
    ok = np.ones(len(cand), dtype=bool)
    if k1 <= 2 or len(cand) == 0:
        return ok
    known = np.sort(_row_keys(level))
    # dropping the last or the second-to-last item gives the two joined sets
    for drop in range(k1 - 2):
        sub = _row_keys(np.delete(cand, drop, axis=1))
        pos = np.minimum(np.searchsorted(known, sub), len(known) - 1)
        ok &= known[pos] == sub
    return ok
