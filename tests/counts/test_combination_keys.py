"""Pattern keys sorted and searched as integers, and the canonical order of M, against numpy."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from biasamp.counts import _combinations as comb


def _keys(rng: np.random.Generator, n: int, n_tasks: int) -> np.ndarray:
    rows = rng.random((n, n_tasks)) < 0.3
    rows[: n // 3] = rows[n // 3 : 2 * (n // 3)]  # duplicates
    return comb.pattern_keys(rows, n_tasks)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), n_tasks=st.integers(1, 100), n=st.integers(1, 300))
def test_key_sorting_equals_numpy_on_the_byte_keys(seed: int, n_tasks: int, n: int) -> None:
    """unique_keys / union_keys / key_positions equal np.unique / np.searchsorted on the
    fixed-width byte keys, for one word, two words (integer path) and wider keys."""
    rng = np.random.default_rng(seed)
    keys = _keys(rng, n, n_tasks)
    other = _keys(rng, n // 2 + 1, n_tasks)
    distinct, inverse = np.unique(keys, return_inverse=True)
    got, got_inverse = comb.unique_keys(keys)
    assert got.dtype == keys.dtype
    np.testing.assert_array_equal(got, distinct)
    np.testing.assert_array_equal(got_inverse, inverse.ravel())
    np.testing.assert_array_equal(
        comb.union_keys(keys, other), np.unique(np.concatenate([keys, other]))
    )
    np.testing.assert_array_equal(
        comb.key_positions(distinct, other), np.searchsorted(distinct, other)
    )


def test_integer_order_is_the_byte_order() -> None:
    """A key whose first byte is larger sorts later, whatever its other bytes (big-endian read)."""
    low = comb.pattern_keys(np.array([[0] * 8 + [1] * 25]), 33)  # first byte 0
    high = comb.pattern_keys(np.array([[1] + [0] * 32]), 33)  # first byte 1
    keys = np.concatenate([high, low])
    distinct, inverse = comb.unique_keys(keys)
    np.testing.assert_array_equal(distinct, np.concatenate([low, high]))
    np.testing.assert_array_equal(inverse, [1, 0])


def _brute_items(indicator: np.ndarray, width: int) -> np.ndarray:
    out = np.full((len(indicator), max(width, 1)), -1, dtype=np.int64)
    for i, row in enumerate(indicator):
        tasks = np.flatnonzero(row)
        out[i, : tasks.size] = tasks
    return out


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), n_tasks=st.integers(1, 130), k=st.integers(1, 60))
def test_canonical_order_items_and_names_equal_brute_force(seed: int, n_tasks: int, k: int) -> None:
    """M sorted by size, then lexicographically by ascending task index (packed-word lexsort);
    items decoded per task; names per size."""
    rng = np.random.default_rng(seed)
    indicator = np.unique(rng.random((k, n_tasks)) < rng.uniform(0.05, 0.6), axis=0)
    indicator = indicator[rng.permutation(len(indicator))]
    sizes = indicator.sum(axis=1)
    width = max(int(sizes.max()), 1)
    items = comb._indicator_items(indicator, sizes, width)
    np.testing.assert_array_equal(items, _brute_items(indicator, width))
    names = tuple(f"t{i}" if i % 3 else i for i in range(n_tasks))  # mixed name types
    # rank-ordered items as the Apriori search gives them: a random task order
    order = rng.permutation(n_tasks)
    rank = np.empty_like(order)
    rank[order] = np.arange(n_tasks)
    items_rank = np.where(items >= 0, rank[np.maximum(items, 0)], -1)
    items_rank = np.sort(np.where(items_rank >= 0, items_rank, n_tasks), axis=1)
    items_rank[items_rank == n_tasks] = -1
    combos, perm = comb._canonical(items_rank, sizes, order, names)
    tuples = [tuple(np.flatnonzero(row).tolist()) for row in indicator]
    expected = sorted(range(len(tuples)), key=lambda i: (len(tuples[i]), tuples[i]))
    np.testing.assert_array_equal(perm, expected)
    np.testing.assert_array_equal(combos.sizes, sizes[expected])
    np.testing.assert_array_equal(combos.items, _brute_items(indicator[expected], width))
    assert combos.names() == [tuple(names[t] for t in tuples[i]) for i in expected]


def test_observed_combinations_are_sorted_with_their_counts() -> None:
    """The kept training patterns, in canonical order, each with its containment counts."""
    rng = np.random.default_rng(4)
    n_tasks = 7
    patterns = np.unique(rng.random((80, n_tasks)) < 0.4, axis=0)
    train_exact = rng.integers(0, 3, len(patterns)).astype(float)
    eval_support = rng.integers(0, 2, len(patterns)).astype(float)
    weights = rng.random((len(patterns), 2))
    combos, counts = comb.observed_combinations(
        patterns,
        train_exact,
        eval_support,
        tuple(range(n_tasks)),
        weights,
        min_size=2,
        max_size=5,
        min_count=1.0,
        max_combinations=10_000,
    )
    contain = lambda c: (patterns[:, list(c)]).all(axis=1)  # noqa: E731
    expected = sorted(
        (
            tuple(np.flatnonzero(p).tolist())
            for p, w in zip(patterns, train_exact, strict=True)
            if w >= 1 and 2 <= p.sum() <= 5
        ),
        key=lambda c: (len(c), c),
    )
    expected = [c for c in expected if eval_support[contain(c)].sum() >= 1]
    assert combos.names() == expected
    for row, c in zip(counts, expected, strict=True):
        np.testing.assert_allclose(row, weights[contain(c)].sum(axis=0), rtol=0, atol=1e-12)


def test_pattern_keys_read_0_1_bytes_as_booleans_and_other_values_as_nonzero() -> None:
    """uint8 labels of 0/1 are packed as they are; a byte above 1, another dtype or a
    strided view is compared with 0 first: every form gives the keys of the booleans."""
    rng = np.random.default_rng(4)
    bits = rng.random((50, 37)) < 0.4
    expected = comb.pattern_keys(bits, 37)
    as_bytes = bits.astype(np.uint8)
    np.testing.assert_array_equal(comb.pattern_keys(as_bytes, 37), expected)
    np.testing.assert_array_equal(comb.pattern_keys(as_bytes * 2, 37), expected)
    np.testing.assert_array_equal(comb.pattern_keys(bits.astype(np.int8), 37), expected)
    wide = np.zeros((50, 74), dtype=np.uint8)
    wide[:, ::2] = as_bytes
    np.testing.assert_array_equal(comb.pattern_keys(wide[:, ::2], 37), expected)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 1000), n_tasks=st.integers(1, 130))
def test_pattern_set_reads_the_keys_like_the_boolean_matrix(seed: int, n_tasks: int) -> None:
    """Masks, per-task counts, sizes and selected rows of a PatternSet equal those of the
    boolean matrix its keys come from (one to five 32-task words)."""
    rng = np.random.default_rng(seed)
    bits = rng.random((120, n_tasks)) < 0.3
    patterns = comb.PatternSet(comb.pattern_keys(bits, n_tasks), n_tasks)
    assert patterns.shape == bits.shape
    np.testing.assert_array_equal(patterns.words(), comb._masks(bits))
    np.testing.assert_array_equal(patterns.task_counts(), bits.sum(axis=0))
    np.testing.assert_array_equal(patterns.sizes(), bits.sum(axis=1))
    index = rng.integers(0, len(bits), 17)
    np.testing.assert_array_equal(patterns.rows(index), bits[index])
