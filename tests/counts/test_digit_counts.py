"""Joint counts of sparse 0/1 tasks as digits of one integer product equal the plain counts."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from biasamp import CountTable
from biasamp.counts import _digit_counts
from biasamp.counts._digit_counts import digit_joint_counts, digit_plan


def _brute(codes, k, tasks):
    """(k, m) counts of rows of each group holding each task, from dense arrays."""
    onehot = np.eye(k)[codes]
    return onehot.T @ tasks.toarray()


def test_plan_packs_three_digits_below_two_million_rows():
    plan = digit_plan(1_000_000, {"groups": 2, "groups_pred": 2})
    assert plan.bits == 20  # counts up to 1,000,000 < 2**20
    assert plan.vectors == [[("groups", 1), ("groups_pred", 1), (None, 0)]]
    # 2**21 rows need 22 bits: two digits a vector, so two vectors
    wide = digit_plan(2**21, {"groups": 2, "groups_pred": 2})
    assert wide.bits == 22 and [len(v) for v in wide.vectors] == [2, 1]
    # three groups: groups 1 and 2 of each role, then the column totals
    plan3 = digit_plan(1000, {"groups": 3})
    assert plan3.vectors == [[("groups", 1), ("groups", 2), (None, 0)]]


def test_counts_by_hand():
    # rows (group, tasks): a {x}, b {x, y}, c {y}, a {x}, b {}
    tasks = sp.csr_matrix(np.array([[1, 0], [1, 1], [0, 1], [1, 0], [0, 0]], dtype=np.int8))
    codes = {"groups": np.array([0, 1, 2, 0, 1], dtype=np.int32)}
    sizes = {"groups": 3}
    out = digit_joint_counts({"tasks": tasks}, codes, sizes, digit_plan(5, sizes))
    totals, joint = out["tasks"]
    np.testing.assert_array_equal(totals, [3, 2])
    np.testing.assert_array_equal(joint["groups"], [[2, 0], [1, 1], [0, 1]])
    assert totals.dtype == joint["groups"].dtype == np.float64


@settings(max_examples=30, deadline=None)
@given(
    n=st.integers(1, 120),
    m=st.integers(1, 9),
    k=st.integers(1, 5),
    k_pred=st.integers(1, 4),
    density=st.floats(0.0, 1.0),
    chunk=st.integers(1, 40),
    bits=st.sampled_from([None, 1, 2]),
    seed=st.integers(0, 2**32 - 1),
)
def test_equal_to_brute_force(n, m, k, k_pred, density, chunk, bits, seed):
    # small chunks (several per split) and, with ``bits``, vectors of one or two digits
    # (several vectors), against a dense product
    with pytest.MonkeyPatch.context() as monkeypatch:
        monkeypatch.setattr(_digit_counts, "CHUNK_ROWS", chunk)
        _check_brute_force(monkeypatch, n, m, k, k_pred, density, bits, seed)


def _check_brute_force(monkeypatch, n, m, k, k_pred, density, bits, seed):
    rng = np.random.default_rng(seed)
    sizes = {"groups": k, "groups_pred": k_pred}
    codes = {r: rng.integers(0, s, n).astype(np.int32) for r, s in sizes.items()}
    patterns = {
        t: sp.csr_matrix((rng.random((n, m)) < density).astype(np.int8))
        for t in ("tasks", "tasks_pred")
    }
    plan = digit_plan(n, sizes)
    if bits is not None:
        width = plan.bits * bits
        monkeypatch.setattr(_digit_counts, "_INT64_BITS", width)
        plan = digit_plan(n, sizes)
        assert all(len(v) <= bits for v in plan.vectors)
    out = digit_joint_counts(patterns, codes, sizes, plan)
    for t, pattern in patterns.items():
        totals, joint = out[t]
        np.testing.assert_array_equal(totals, pattern.toarray().sum(axis=0))
        for role, s in sizes.items():
            np.testing.assert_array_equal(joint[role], _brute(codes[role], s, pattern))


def test_public_product_without_scipys_kernel(monkeypatch):
    # the fallback (scipy's public product of each chunk) gives the same counts
    rng = np.random.default_rng(3)
    tasks = sp.csr_matrix((rng.random((50, 4)) < 0.3).astype(np.int8))
    codes = {"groups": rng.integers(0, 3, 50)}
    sizes = {"groups": 3}
    want = digit_joint_counts({"tasks": tasks}, codes, sizes, digit_plan(50, sizes))
    monkeypatch.setattr(_digit_counts, "_csc_matvec", None)
    monkeypatch.setattr(_digit_counts, "CHUNK_ROWS", 16)
    got = digit_joint_counts({"tasks": tasks}, codes, sizes, digit_plan(50, sizes))
    np.testing.assert_array_equal(got["tasks"][0], want["tasks"][0])
    np.testing.assert_array_equal(got["tasks"][1]["groups"], want["tasks"][1]["groups"])


def _tables_equal(a, b):
    assert a.totals.keys() == b.totals.keys() and a.joint.keys() == b.joint.keys()
    for key in a.totals:
        np.testing.assert_array_equal(a.totals[key], b.totals[key])
    for key in a.joint:
        np.testing.assert_array_equal(a.joint[key], b.joint[key])


@settings(max_examples=30, deadline=None)
@given(
    n=st.integers(1, 60),
    k=st.integers(2, 4),
    density=st.floats(0.0, 1.0),
    dtype=st.sampled_from([np.int8, np.int64, np.float32, np.bool_]),
    seed=st.integers(0, 2**32 - 1),
)
def test_count_table_equals_the_dense_tasks(n, k, density, dtype, seed):
    # a sparse 0/1 matrix (its pattern counted by digits) and the same matrix dense
    # (counted by products) give the same table, every role present
    rng = np.random.default_rng(seed)
    names = np.array(["w", "m", "x", "nb"][:k])
    groups = rng.choice(names, n)
    groups_pred = rng.choice(names, n)
    dense = {t: (rng.random((n, 3)) < density) for t in ("tasks", "tasks_pred")}
    sparse = {t: sp.csr_matrix(v.astype(dtype)) for t, v in dense.items()}
    kw = dict(groups=groups, groups_pred=groups_pred, group_names=sorted(names))
    by_digits = CountTable.from_arrays(**kw, **sparse, task_names=("a", "b", "c"))
    by_products = CountTable.from_arrays(
        **kw, **{t: v.astype(np.int64) for t, v in dense.items()}, task_names=("a", "b", "c")
    )
    _tables_equal(by_digits, by_products)


def test_explicit_zeros_and_duplicates_are_counted_as_their_sums():
    # a CSR matrix with a stored 0 and a duplicated entry is checked and pruned first
    # (not a pattern): its counts are those of its values
    data = np.array([1, 0, 1, 1], dtype=np.int8)
    indices = np.array([0, 1, 1, 1])
    indptr = np.array([0, 2, 4])
    tasks = sp.csr_matrix((data, indices, indptr), shape=(2, 2))
    tasks.has_canonical_format = False
    with pytest.raises(ValueError, match="0 or 1"):  # the duplicate sums to 2
        CountTable.from_arrays(groups=np.array(["a", "b"]), tasks=tasks)
    zero = sp.csr_matrix(
        (np.array([1, 0], dtype=np.int8), np.array([0, 1]), np.array([0, 2, 2])), shape=(2, 2)
    )
    table = CountTable.from_arrays(groups=np.array(["a", "b"]), tasks=zero)
    np.testing.assert_array_equal(table.joint[("groups", "tasks")], [[1, 0], [0, 0]])
