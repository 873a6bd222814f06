"""Joint counts of one sparse 0/1 task matrix with one-hot group roles, in one pass.

Counting a split without weights needs, for a sparse task matrix ``T`` (n, |T|)
whose stored entries are all 1, the column totals and ``G^T T`` for each one-hot
group role ``G``: for every task, how many of its rows fall in each group. A
scipy product ``T^T G`` reads the CSR arrays once per group role and converts the
stored values to float64 first (``csc_matvecs`` with |G| columns, about twice the
time of a product with one vector).

Here the counts travel as **digits** of one integer per row. With ``b`` bits, a
count is at most the number of rows ``n < 2**b``; a row's value is the sum of
``2**(b * slot)`` over the digits it adds 1 to: the column-total digit (every
row), and for each group role, the digit of the row's group (the first group of
each role has none: its counts are the total minus the others). One sparse
product with that integer vector (``T^T x``, int64, every stored entry 1) sums
every digit of every task at once; no digit can carry into the next, since each
stays below ``2**b``, and the sum of all of them stays below ``2**63`` when a
vector holds at most ``63 // b`` digits (three for up to 2,097,151 rows, two for
up to 2**31). The digits are read back with shifts and masks. Every count is an
exact integer, whatever the order of summation: the same numbers as the float64
products.

More digits than a vector holds take more vectors, each one more pass; the caller
uses this path only when it needs no more passes than the products it replaces
(one per group role).

The rows go in chunks of :data:`CHUNK_ROWS`: each chunk's integer values and the
ones standing for its stored entries live in small buffers reused from chunk to
chunk (no full-length int64 copy of the group codes, no int64 ones for every
stored entry), and every task matrix of the split reads the chunk's values while
they are in cache. Each chunk's product is scipy's own compressed-column
matrix-vector kernel over the chunk's slice of the CSR arrays (no copy of them),
which adds into the running sums; without it (a scipy that moved it), the public
product of the chunk's ``csc_matrix``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import scipy.sparse as sp

_csc_matvec: Any
try:  # scipy's compiled kernel behind ``csc_matrix @ vector`` (y += A x)
    from scipy.sparse import _sparsetools

    _csc_matvec = _sparsetools.csc_matvec
except (ImportError, AttributeError):  # pragma: no cover - a scipy without it
    _csc_matvec = None

__all__ = ["CHUNK_ROWS", "DigitPlan", "digit_joint_counts", "digit_plan"]

#: Rows per chunk: the chunk's int64 values (512 KB) and its ones stay in cache.
CHUNK_ROWS = 1 << 16

#: Bits of a non-negative int64
_INT64_BITS = 63


class DigitPlan:
    """Which digit of which vector each (group role, group) count travels in.

    ``vectors`` lists, per product, its digits as ``(role, group)`` pairs (role
    ``None`` for the column totals), digit ``i`` in bits ``[b*i, b*(i+1))``.
    """

    def __init__(self, bits: int, vectors: list[list[tuple[str | None, int]]]) -> None:
        self.bits = bits
        self.vectors = vectors


def digit_plan(n_rows: int, group_sizes: Mapping[str, int]) -> DigitPlan:
    """The digits of the column totals and of every group but the first of each role.

    Parameters
    ----------
    n_rows : int
        Rows of the split (every count is at most this).
    group_sizes : mapping of role -> number of groups
        The one-hot group roles to count against.

    Returns
    -------
    DigitPlan
        ``bits`` per digit, and the digits of each vector (at most ``63 // bits``).

    Examples
    --------
    >>> plan = digit_plan(1_000_000, {"groups": 2, "groups_pred": 2})
    >>> plan.bits, plan.vectors
    (20, [[('groups', 1), ('groups_pred', 1), (None, 0)]])
    """
    bits = max(1, int(n_rows).bit_length())
    per_vector = max(1, _INT64_BITS // bits)
    # the groups' digits first, the column totals last: a row's value for two groups is
    # then its code plus a constant, one numpy operation
    digits: list[tuple[str | None, int]] = [
        (role, j) for role, k in group_sizes.items() for j in range(1, k)
    ]
    digits.append((None, 0))
    vectors = [digits[i : i + per_vector] for i in range(0, len(digits), per_vector)]
    return DigitPlan(bits, vectors)


class _Layout:
    """Where one vector's digits go: the constant of the column-total digit, and for each
    group role the shift of its group-1 digit (two groups) or a lookup of each group's
    digit value (0 for the groups whose digit is in another vector)."""

    def __init__(
        self, vector: Sequence[tuple[str | None, int]], sizes: Mapping[str, int], bits: int
    ) -> None:
        self.constant = 0
        shifts: dict[str, dict[int, int]] = {}
        for slot, (role, j) in enumerate(vector):
            if role is None:
                self.constant += 1 << (bits * slot)
            else:
                shifts.setdefault(role, {})[j] = bits * slot
        self.roles: list[tuple[str, int | np.ndarray]] = []
        for role, by_group in shifts.items():
            if sizes[role] == 2:
                self.roles.append((role, by_group[1]))
            else:
                lut = np.zeros(sizes[role], dtype=np.int64)
                for j, shift in by_group.items():
                    lut[j] = 1 << shift
                self.roles.append((role, lut))

    def fill(
        self, codes: Mapping[str, np.ndarray], rows: slice, out: np.ndarray, scratch: np.ndarray
    ) -> np.ndarray:
        """The int64 values of the rows ``rows`` in ``out``: each row's sum of its digits
        (every digit a distinct bit range, so or adds them)."""
        constant = self.constant
        if not self.roles:
            out.fill(constant)
            return out
        for i, (role, place) in enumerate(self.roles):
            term = out if i == 0 else scratch
            if i == 0 and isinstance(place, int) and place == 0:
                # codes 0/1 in the lowest digit: the code plus the constant, widened to
                # int64 in the same operation
                np.add(codes[role][rows], np.int64(constant), out=out)
                constant = 0
                continue
            np.copyto(term, codes[role][rows])  # widened to int64 once
            if isinstance(place, np.ndarray):
                np.take(place, term, out=term)
            else:  # codes 0/1: the group-1 digit is the code, shifted
                term <<= place
            if i:
                out |= term
        if constant:
            out |= constant
        return out


def _add_products(
    pattern: sp.csr_matrix,
    rows: slice,
    products: Sequence[tuple[np.ndarray, np.ndarray]],
    ones: np.ndarray,
    pointers: np.ndarray,
) -> None:
    """``out += T[rows]^T x`` for each ``(x, out)`` of ``products`` and a pattern ``T`` (every
    stored entry 1), over the slice of its CSR arrays: the row pointers rebased into
    ``pointers`` (a buffer of the indices' dtype), the indices not copied."""
    indptr = pattern.indptr
    first, last = int(indptr[rows.start]), int(indptr[rows.stop])
    if first == last:
        return
    n_rows = rows.stop - rows.start
    rebased = pointers[: n_rows + 1]
    np.subtract(indptr[rows.start : rows.stop + 1], first, out=rebased, casting="unsafe")
    indices = pattern.indices[first:last]
    data = ones[: last - first]
    for x, out in products:
        if _csc_matvec is not None:
            _csc_matvec(out.shape[0], n_rows, rebased, indices, data, x, out)
        else:  # pragma: no cover - the public product (checks the arrays first)
            chunk: Any = sp.csc_matrix((data, indices, rebased), (out.shape[0], n_rows))
            out += chunk @ x


def digit_joint_counts(
    patterns: Mapping[str, sp.csr_matrix],
    codes: Mapping[str, np.ndarray],
    sizes: Mapping[str, int],
    plan: DigitPlan,
) -> dict[str, tuple[np.ndarray, dict[str, np.ndarray]]]:
    """Column totals and ``G^T T`` of each group role for each task matrix ``T``.

    Parameters
    ----------
    patterns : mapping of task role -> scipy.sparse CSR matrix of shape (n, m)
        Every stored entry is 1 (the values are not read) and none is stored twice.
    codes : mapping of group role -> ndarray of shape (n,)
        Each row's group (an integer in ``[0, sizes[role])``).
    sizes : mapping of group role -> int
        Groups of each role.
    plan : DigitPlan
        From :func:`digit_plan` with these rows and sizes.

    Returns
    -------
    dict of task role -> (totals, joint)
        ``totals`` (m,): rows holding each task; ``joint``: group role ->
        (sizes[role], m) rows of each group holding each task (all float64).

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> tasks = sp.csr_matrix(np.array([[1, 0], [1, 1], [0, 1]], dtype=np.int8))
    >>> sizes = {"groups": 2}
    >>> counts = digit_joint_counts(
    ...     {"tasks": tasks}, {"groups": np.array([0, 1, 1])}, sizes, digit_plan(3, sizes)
    ... )
    >>> totals, joint = counts["tasks"]
    >>> totals, joint["groups"]
    (array([2., 2.]), array([[1., 0.],
           [1., 2.]]))
    """
    n = next(iter(patterns.values())).shape[0]
    step = min(n, CHUNK_ROWS)
    bounds = np.append(np.arange(0, n, step), n)
    most = max(int(np.diff(p.indptr[bounds]).max()) for p in patterns.values())
    ones = np.ones(most, dtype=np.int64)
    values = [np.empty(step, dtype=np.int64) for _ in plan.vectors]
    scratch = np.empty(step, dtype=np.int64)
    # rebased row pointers of a chunk, one buffer per index dtype (chunk offsets fit it)
    pointers = {
        p.indices.dtype: np.empty(step + 1, dtype=p.indices.dtype) for p in patterns.values()
    }
    sums = {
        t: [np.zeros(p.shape[1], dtype=np.int64) for _ in plan.vectors] for t, p in patterns.items()
    }
    layouts = [_Layout(vector, sizes, plan.bits) for vector in plan.vectors]
    for start in range(0, n, step):  # chunks of rows, each vectorised
        rows = slice(start, min(n, start + step))
        size = rows.stop - start
        xs = [
            layout.fill(codes, rows, out[:size], scratch[:size])
            for layout, out in zip(layouts, values, strict=True)
        ]
        for t, pattern in patterns.items():
            products = list(zip(xs, sums[t], strict=True))
            _add_products(pattern, rows, products, ones, pointers[pattern.indices.dtype])
    return {t: _unpack(summed, sizes, plan) for t, summed in sums.items()}


def _unpack(
    summed: Sequence[np.ndarray], sizes: Mapping[str, int], plan: DigitPlan
) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """The column totals and the joint counts of each group role from the summed vectors."""
    mask = (1 << plan.bits) - 1
    digits: dict[tuple[str | None, int], np.ndarray] = {}
    for vector, total in zip(plan.vectors, summed, strict=True):
        for slot, digit in enumerate(vector):
            digits[digit] = (total >> (plan.bits * slot)) & mask
    totals = digits[(None, 0)]
    joint: dict[str, np.ndarray] = {}
    for role, k in sizes.items():
        counts = np.empty((k, totals.shape[0]), dtype=np.int64)
        for j in range(1, k):
            counts[j] = digits[(role, j)]
        counts[0] = totals - counts[1:].sum(axis=0)
        joint[role] = counts.astype(np.float64)
    return totals.astype(np.float64), joint
