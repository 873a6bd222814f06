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
