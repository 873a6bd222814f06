"""The superset-sum (zeta) table of the multi-attribute counting pass."""

from __future__ import annotations

import numpy as np
import pytest

from biasamp.counts import _combinations


@pytest.mark.parametrize("u", [0, 1, 4, 7])
def test_fold_gives_superset_sums(u: int) -> None:
    """Every cell becomes the sum of the cells whose bit sets contain it."""
    rng = np.random.default_rng(u)
    base = rng.integers(0, 100, size=(1 << u, 3)).astype(np.float64)
    got = base.copy()
    _combinations._fold(got, u)
    cells = np.arange(1 << u)
    contains = (cells[None, :] & cells[:, None]) == cells[:, None]  # [s, s2]: s2 holds s
    np.testing.assert_array_equal(got, contains.astype(np.float64) @ base)


def test_compress_bits_packs_the_free_tasks_in_order() -> None:
    """Bits of tasks 3, 64 and 70 of two-word masks land in bits 0, 1 and 2."""
    masks = np.zeros((4, 2), dtype=np.uint64)
    masks[1, 0] = 1 << 3
    masks[2, 1] = (1 << 0) | (1 << 6)  # tasks 64 and 70
    masks[3] = [(1 << 3) | (1 << 5), 1 << 6]  # task 5 is not free
    got = _combinations._compress_bits(masks, [3, 64, 70])
    np.testing.assert_array_equal(got, [0, 0b001, 0b110, 0b101])


@pytest.mark.parametrize(("u", "low"), [(0, 8), (1, 8), (5, 2), (9, 4), (9, 9), (10, 0)])
def test_fold_read_equals_the_fold_at_the_wanted_cells(u: int, low: int) -> None:
    """Folding the low bits on a moved copy gives the cells of the plain fold."""
    rng = np.random.default_rng(u + low)
    base = rng.integers(0, 100, size=(1 << u, 3)).astype(np.float32)
    wanted = rng.integers(0, 1 << u, size=17)
    expected = base.copy()
    _combinations._fold(expected, u)
    old = _combinations._FOLD_LOW_BITS
    _combinations._FOLD_LOW_BITS = low
    try:
        got = _combinations._fold_read(base.copy(), u, wanted)
    finally:
        _combinations._FOLD_LOW_BITS = old
    np.testing.assert_array_equal(got, expected[wanted])


@pytest.mark.parametrize("u", [0, 3, 6])
def test_fold_rows_folds_each_row(u: int) -> None:
    """A (m, 2**u) table with the cells along the rows folds like the transposed table."""
    rng = np.random.default_rng(u)
    base = rng.integers(0, 100, size=(4, 1 << u))
    expected = np.ascontiguousarray(base.T)
    _combinations._fold(expected, u)
    got = base.copy()
    _combinations._fold_rows(got, u)
    np.testing.assert_array_equal(got, expected.T)


def test_weight_types_match_rows_bit_for_bit() -> None:
    """Frequent rows become types; a row is typed only when it equals its type's row,
    its alias is a row equal to it, and the per-type counts give the row sums."""
    kinds = np.array([[1, 0, 2], [0, 3, 0], [5, 5, 5]], dtype=np.float32)
    rng = np.random.default_rng(0)
    weights = kinds[rng.integers(0, 3, 500)]
    weights[::7] += np.float32(1)  # rows of no frequent kind (mostly)
    weights[3] = [1, 0, 2.5]  # one value away from a kind
    types = _combinations._weight_types(weights)
    assert types is not None and 1 <= types.n_types <= _combinations._MAX_TYPES
    typed = types.of < types.n_types
    np.testing.assert_array_equal(weights[typed], types.rows[types.of[typed]])
    assert not typed[3]
    np.testing.assert_array_equal(weights[types.alias], weights)
    np.testing.assert_array_equal(types.alias[~typed], np.flatnonzero(~typed))
    counts = np.zeros((types.n_types, 1))
    np.add.at(counts[:, 0], types.of[typed], 1)
    np.testing.assert_array_equal(types.combine(counts), weights[typed].sum(axis=0)[None, :])


def test_weight_types_need_float32_rows_that_repeat() -> None:
    """float64 weights (sums not known to be exact) and rows that never repeat have no types."""
    assert _combinations._weight_types(np.ones((50, 3))) is None
    distinct = np.arange(150, dtype=np.float32).reshape(50, 3)
    assert _combinations._weight_types(distinct) is None
    assert _combinations._weight_types(np.zeros((0, 3), dtype=np.float32)) is None
