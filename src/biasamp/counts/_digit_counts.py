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
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import scipy.sparse as sp

__all__ = ["DigitPlan", "digit_plan", "digit_joint_counts", "unit_data"]

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
    (20, [[(None, 0), ('groups', 1), ('groups_pred', 1)]])
    """
    bits = max(1, int(n_rows).bit_length())
    per_vector = max(1, _INT64_BITS // bits)
    digits: list[tuple[str | None, int]] = [(None, 0)]
    digits += [(role, j) for role, k in group_sizes.items() for j in range(1, k)]
    vectors = [digits[i : i + per_vector] for i in range(0, len(digits), per_vector)]
    return DigitPlan(bits, vectors)


def _row_values(
    digits: Sequence[tuple[str | None, int]],
    codes: Mapping[str, np.ndarray],
    sizes: Mapping[str, int],
    bits: int,
    n_rows: int,
) -> np.ndarray:
    """Each row's int64 value: the sum of ``2**(bits * slot)`` over the digits it adds to."""
    x: np.ndarray | None = None
    constant = 0
    by_role: dict[str, dict[int, int]] = {}
    for slot, (role, j) in enumerate(digits):
        if role is None:
            constant += 1 << (bits * slot)
        else:
            by_role.setdefault(role, {})[j] = bits * slot
    for role, shifts in by_role.items():
        role_codes = codes[role]
        if sizes[role] == 2:  # codes 0/1: the group-1 digit is the code, shifted
            if x is None:
                x = np.left_shift(role_codes, shifts[1], dtype=np.int64)
            else:
                x |= np.left_shift(role_codes, shifts[1], dtype=np.int64)
        else:  # a lookup of each group's digit (0 for the groups of other vectors)
            lut = np.zeros(sizes[role], dtype=np.int64)
            for j, shift in shifts.items():
                lut[j] = 1 << shift
            if x is None:
                x = np.take(lut, role_codes)
            else:
                x |= np.take(lut, role_codes)
    if x is None:
        return np.full(n_rows, constant, dtype=np.int64)
    if constant:  # the digits are distinct bits: or adds them
        x |= constant
    return x


def unit_data(nnz: int) -> np.ndarray:
    """int64 ones for the stored entries of a 0/1 pattern (shared by the products of a split)."""
    return np.ones(nnz, dtype=np.int64)


def digit_joint_counts(
    tasks: sp.csr_matrix,
    codes: Mapping[str, np.ndarray],
    sizes: Mapping[str, int],
    plan: DigitPlan,
    ones: np.ndarray,
) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Column totals and ``G^T T`` of each group role, from ``len(plan.vectors)`` products.

    Parameters
    ----------
    tasks : scipy.sparse CSR matrix of shape (n, m)
        Every stored entry is 1 (its values are not read) and no entry is stored twice.
    codes : mapping of role -> ndarray of shape (n,)
        Each row's group (an integer in ``[0, sizes[role])``).
    sizes : mapping of role -> int
        Groups of each role.
    plan : DigitPlan
        From :func:`digit_plan` with these rows and sizes.
    ones : ndarray of int64
        At least ``tasks.nnz`` ones (:func:`unit_data`).

    Returns
    -------
    totals : ndarray of shape (m,)
        Rows holding each task (float64).
    joint : dict of role -> ndarray of shape (sizes[role], m)
        Rows of each group holding each task (float64).

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> tasks = sp.csr_matrix(np.array([[1, 0], [1, 1], [0, 1]], dtype=np.int8))
    >>> codes = {"groups": np.array([0, 1, 1])}
    >>> plan = digit_plan(3, {"groups": 2})
    >>> totals, joint = digit_joint_counts(tasks, codes, {"groups": 2}, plan, unit_data(4))
    >>> totals, joint["groups"]
    (array([2., 2.]), array([[1., 0.],
           [1., 2.]]))
    """
    n, m = tasks.shape
    nnz = int(tasks.indptr[-1])
    # T^T as CSC over T's own index arrays (no copy), its values the shared int64 ones
    transposed = sp.csc_matrix((ones[:nnz], tasks.indices, tasks.indptr), shape=(m, n))
    mask = (1 << plan.bits) - 1
    digits: dict[tuple[str | None, int], np.ndarray] = {}
    for vector in plan.vectors:
        x = _row_values(vector, codes, sizes, plan.bits, n)
        summed = np.asarray(transposed @ x, dtype=np.int64)
        for slot, digit in enumerate(vector):
            digits[digit] = (summed >> (plan.bits * slot)) & mask
    totals = digits[(None, 0)]
    joint: dict[str, np.ndarray] = {}
    for role, k in sizes.items():
        counts = np.empty((k, m), dtype=np.int64)
        for j in range(1, k):
            counts[j] = digits[(role, j)]
        counts[0] = totals - counts[1:].sum(axis=0)
        joint[role] = counts.astype(np.float64)
    return totals.astype(np.float64), joint
