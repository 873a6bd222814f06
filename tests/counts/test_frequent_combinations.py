"""The frequent-combination search of ``combinations="subsets"`` against brute force, its
pattern-driven extension step against the candidate-by-candidate one it replaces, and the
word-by-word containment test of the counting kernel against the reduction it replaces."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from biasamp.counts import _combinations as comb


def _patterns(seed: int, n_patterns: int, n_tasks: int, density: float) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return rng.random((n_patterns, n_tasks)) < density


def _brute_frequent(pattern_bool, w_train, w_eval, min_size, max_size, min_count):
    """Every combination of min_size..max_size tasks with both supports >= min_count, in
    the canonical order (size, then ascending task tuples), and its containment column."""
    n_tasks = pattern_bool.shape[1]
    top = n_tasks if max_size is None else min(max_size, n_tasks)
    combos, columns = [], []
    for size in range(min_size, top + 1):
        for combo in itertools.combinations(range(n_tasks), size):
            inside = pattern_bool[:, list(combo)].all(axis=1)
            if w_train[inside].sum() >= min_count and w_eval[inside].sum() >= min_count:
                combos.append(combo)
                columns.append(inside)
    return combos, np.array(columns).T


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    n_patterns=st.integers(1, 60),
    n_tasks=st.integers(1, 9),
    density=st.sampled_from([0.2, 0.5, 0.8]),
    min_size=st.integers(1, 3),
    extra=st.sampled_from([0, 1, 2, None]),
    min_count=st.sampled_from([1.0, 2.0, 3.5]),
    halves=st.booleans(),
)
def test_frequent_combinations_equal_brute_force(
    seed, n_patterns, n_tasks, density, min_size, extra, min_count, halves
):
    """The combinations (in canonical order) and the containment matrix equal a brute-force
    enumeration of every task subset, with whole and with fractional weights."""
    pattern_bool = _patterns(seed, n_patterns, n_tasks, density)
    rng = np.random.default_rng(seed + 1)
    w_train = rng.integers(0, 4, n_patterns).astype(np.float64)
    w_eval = rng.integers(0, 4, n_patterns).astype(np.float64)
    if halves:  # sums of halves are exact: the brute force decides the same thresholds
        w_train, w_eval = w_train / 2, w_eval / 2
    max_size = None if extra is None else min_size + extra
    names = tuple(f"t{i}" for i in range(n_tasks))
    expected, columns = _brute_frequent(
        pattern_bool, w_train, w_eval, min_size, max_size, min_count
    )
    options = {"min_size": min_size, "max_size": max_size, "min_count": min_count}
    arrays = (pattern_bool, w_train, w_eval, names)
    if not expected:
        with pytest.raises(ValueError, match="The combination set M is empty"):
            comb.frequent_combinations(*arrays, **options, max_combinations=10**6)
        return
    combos, contain = comb.frequent_combinations(*arrays, **options, max_combinations=10**6)
    got = [
        tuple(int(t) for t in row[:size])
        for row, size in zip(combos.items, combos.sizes, strict=True)
    ]
    assert got == expected
    np.testing.assert_array_equal(contain.toarray() != 0, columns)


def _level_two_state(pattern_bool: np.ndarray, min_count: float):
    """The state frequent_combinations extends from: level-1 columns, candidates, rows."""
    weights = np.ones(pattern_bool.shape[0])
    order, _ = comb._rarest_first(pattern_bool)
    ptr, pats = comb._task_columns(pattern_bool)
    ptr, pats = comb._extend_select(ptr, pats, order)
    owner = np.repeat(np.arange(len(ptr) - 1), np.diff(ptr))
    keep = np.bincount(owner, weights=weights[pats], minlength=len(ptr) - 1) >= min_count
    level = np.flatnonzero(keep)[:, None]
    ptr, pats = comb._extend_select(ptr, pats, np.flatnonzero(keep))
    parents, new = comb._join(level, 10**9, 2)
    return order, keep, level, ptr, pats, parents, new


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    n_patterns=st.integers(2, 200),
    n_tasks=st.integers(2, 40),
    density=st.sampled_from([0.05, 0.3, 0.7]),
    dense_tables=st.booleans(),
    drop=st.integers(0, 5),
)
def test_pattern_driven_extension_equals_candidate_extension(
    seed, n_patterns, n_tasks, density, dense_tables, drop
):
    """Both extension steps give the same arrays (each candidate's patterns, ascending), with
    the dense lookup tables and with the searches that replace them on large inputs, and
    with candidates removed by pruning."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(comb, "_LOOKUP_CELLS", 1 << 22 if dense_tables else 0)
        _check_extension(seed, n_patterns, n_tasks, density, drop)


def _check_extension(seed: int, n_patterns: int, n_tasks: int, density: float, drop: int) -> None:
    pattern_bool = _patterns(seed, n_patterns, n_tasks, density)
    order, keep, level, ptr, pats, parents, new = _level_two_state(pattern_bool, 1.0)
    if parents.size == 0:
        return
    pruned = np.ones(parents.size, dtype=bool)
    pruned[np.random.default_rng(seed).integers(0, parents.size, drop)] = False
    parents, new = parents[pruned], new[pruned]
    rows = comb._ranked_rows(pattern_bool, order, keep)
    expected = comb._extend(ptr, pats, parents, order[new], pattern_bool)
    found = comb._extend_from_patterns(ptr, pats, parents, new, level[:, -1], rows, 10**12)
    assert found is not None
    got = comb._grouped_columns(*found, parents.size, n_patterns)
    np.testing.assert_array_equal(got[0], expected[0])
    np.testing.assert_array_equal(got[1], expected[1])
    # over budget: the caller falls back to the candidate-by-candidate step
    assert comb._extend_from_patterns(ptr, pats, parents, new, level[:, -1], rows, -1) is None


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), n_words=st.integers(1, 4), k=st.integers(1, 30))
def test_holds_all_words_equals_the_reduction(seed, n_words, k):
    """Word by word (unused words skipped) equals the reduction over all words at once."""
    rng = np.random.default_rng(seed)
    node = rng.integers(0, 2**63, (50, n_words), dtype=np.uint64)
    node[::3] |= node[1::3][: len(node[::3])]  # some patterns hold many bits
    want = node[rng.integers(0, 50, k)] & rng.integers(0, 2**63, (k, n_words), dtype=np.uint64)
    want[:, rng.integers(0, n_words)] = 0  # a word no combination uses
    expected = ((want[:, None, :] & node[None, :, :]) == want[:, None, :]).all(axis=-1)
    np.testing.assert_array_equal(comb._holds_all_words(want, node), expected)
