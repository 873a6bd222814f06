"""CountTable: additive, mergeable counts."""

import re

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

from biasamp import CountTable, directional_from_counts, mals_from_counts
from biasamp.counts._count_table import (
    ERR_MERGE_BATCH,
    ERR_MERGE_NAMES,
    ERR_MERGE_ROLES,
    ERR_MISSING_ROLE,
    ERR_NO_ROLES,
    ERR_REPLICATE_SHAPE,
)

G = ["m", "w", "m", "w", "m"]
T = np.array([[1, 0, 1], [0, 1, 0], [1, 1, 0], [0, 0, 0], [1, 0, 0]])
TP = np.array([[1, 0, 0], [1, 1, 0], [1, 0, 0], [0, 0, 1], [1, 0, 0]])


def test_counts_by_hand():
    table = CountTable.from_arrays(groups=G, tasks=T, tasks_pred=TP, sample_weight=[1, 1, 1, 1, 2])
    assert table.n == 6
    assert table.totals["groups"].tolist() == [4, 2]
    assert table.totals["tasks"].tolist() == [4, 2, 1]
    assert table.joint[("groups", "tasks")].tolist() == [[4, 1, 1], [0, 1, 0]]
    assert table.joint[("groups", "tasks_pred")].tolist() == [[4, 0, 0], [1, 1, 1]]
    assert table.roles == {"groups", "tasks", "tasks_pred"}
    assert table.n_rows == 5
    frame = table.joint_frame()
    assert frame.loc[0, "m"] == 4 and frame.index.name == "task"


def test_update_and_merge_equal_one_shot():
    whole = CountTable.from_arrays(groups=G, tasks=T, tasks_pred=TP)
    first = CountTable.from_arrays(
        groups=G[:2], tasks=T[:2], tasks_pred=TP[:2], group_names=["m", "w"]
    )
    chunked = first.update(groups=G[2:], tasks=T[2:], tasks_pred=TP[2:])
    merged = first + CountTable.from_arrays(
        groups=G[2:], tasks=T[2:], tasks_pred=TP[2:], group_names=["m", "w"]
    )
    for table in (chunked, merged):
        assert table.n == whole.n and table.n_rows == whole.n_rows
        for key in whole.joint:
            assert np.array_equal(table.joint[key], whole.joint[key])
        value = directional_from_counts(table, direction="A->T").value
        assert value == directional_from_counts(whole, direction="A->T").value


def test_chunk_with_unseen_label_is_rejected():
    first = CountTable.from_arrays(groups=["m"], tasks=["x"])
    with pytest.raises(ValueError, match=r"groups: 1 label\(s\) not in the canonical label set"):
        first.update(groups=["w"], tasks=["x"])


def test_merge_errors():
    a = CountTable.from_arrays(groups=["m", "w"], tasks=["x", "y"])
    b = CountTable.from_arrays(groups=["m", "v"], tasks=["x", "y"])
    with pytest.raises(
        ValueError,
        match=re.escape(ERR_MERGE_NAMES.format(what="group", a=("m", "w"), b=("m", "v"))),
    ):
        a.merge(b)
    c = CountTable.from_arrays(groups=["m", "w"], tasks=["x", "y"], tasks_pred=["x", "y"])
    with pytest.raises(
        ValueError,
        match=re.escape(
            ERR_MERGE_ROLES.format(a=["groups", "tasks"], b=["groups", "tasks", "tasks_pred"])
        ),
    ):
        a.merge(c)
    d = CountTable.from_arrays(
        groups=["m", "w"], tasks=["x", "y"], replicate_weights=np.ones((3, 2))
    )
    with pytest.raises(ValueError, match=re.escape(ERR_MERGE_BATCH.format(a=(), b=(3,)))):
        a.merge(d)


def test_role_errors():
    with pytest.raises(ValueError, match=re.escape(ERR_NO_ROLES.format(have=["groups"]))):
        CountTable.from_arrays(groups=["m"])
    table = CountTable.from_arrays(groups=["m"], tasks=["x"])
    with pytest.raises(
        ValueError,
        match=re.escape(
            ERR_MISSING_ROLE.format(
                metric="directional(A->T)", role="tasks_pred", have=["groups", "tasks"]
            )
        ),
    ):
        directional_from_counts(table, direction="A->T")
    with pytest.raises(ValueError, match=re.escape(ERR_REPLICATE_SHAPE.format(n=1, shape=(2, 2)))):
        CountTable.from_arrays(groups=["m"], tasks=["x"], replicate_weights=np.ones((2, 2)))


def test_replicate_axis_matches_weighted_tables():
    w = np.array([[1, 0, 2, 1, 0], [0, 3, 1, 1, 1]], dtype=float)
    batched = CountTable.from_arrays(
        groups=G, tasks=sp.csr_matrix(T), tasks_pred=TP, replicate_weights=w
    )
    assert batched.batch_shape == (2,)
    for b in range(2):
        single = CountTable.from_arrays(groups=G, tasks=T, tasks_pred=TP, sample_weight=w[b])
        rep = batched.replicate(b)
        for key in single.joint:
            assert np.allclose(rep.joint[key], single.joint[key])
        assert rep.n == single.n


def test_from_joint_labour_statistics():
    joint = pd.DataFrame({"he": [30, 5], "she": [10, 55]}, index=["cook", "nurse"])
    table = CountTable.from_joint(joint)
    assert table.group_names == ("he", "she") and table.task_names == ("cook", "nurse")
    assert table.n == 100
    assert table.totals["groups"].tolist() == [35, 65]
    assert table.totals["tasks"].tolist() == [40, 60]
    preds = CountTable.from_arrays(
        groups_pred=["he", "she"],
        tasks_pred=["cook", "nurse"],
        group_names=table.group_names,
        task_names=table.task_names,
    )
    # b*(cook, he) = .75 -> b~ = 1: +.25; b*(nurse, she) = 55/60 -> 1: +5/60; / |T| = 2
    assert mals_from_counts(table, preds).value == pytest.approx((0.25 + 5 / 60) / 2)
    with pytest.raises(ValueError, match="joint: counts must be non-negative"):
        CountTable.from_joint(-joint)


# --- counts without weights take a cheaper route to the same numbers ------
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


def _tables_equal_exactly(a, b):
    assert float(a.n) == float(b.n) and a.n_rows == b.n_rows
    assert a.totals.keys() == b.totals.keys() and a.joint.keys() == b.joint.keys()
    for key in a.totals:
        np.testing.assert_array_equal(a.totals[key], b.totals[key])
    for key in a.joint:
        np.testing.assert_array_equal(a.joint[key], b.joint[key])


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(1, 30),
    seed=st.integers(0, 2**32 - 1),
    group_form=st.sampled_from(["labels", "dense", "sparse"]),
    task_form=st.sampled_from(["labels", "dense", "sparse"]),
    soft=st.booleans(),
)
def test_unweighted_counts_equal_unit_weights(n, seed, group_form, task_form, soft):
    rng = np.random.default_rng(seed)

    def role(form, k, names, prob=False):
        if form == "labels":
            return rng.choice(np.array(names), size=n)
        values = rng.random((n, k)) if prob else (rng.random((n, k)) < 0.4).astype(float)
        return sp.csr_matrix(values) if form == "sparse" else values

    arrays = dict(
        groups=role(group_form, 2, ["w", "m"]),
        tasks=role(task_form, 3, ["c", "a", "b"]),
        groups_pred=role(group_form, 2, ["w", "m"], prob=soft and group_form != "labels"),
        tasks_pred=role(task_form, 3, ["c", "a", "b"], prob=soft and task_form != "labels"),
    )
    names = dict(group_names=("m", "w"), task_names=("a", "b", "c"))
    if group_form != "labels":
        names["group_names"] = (0, 1)
    if task_form != "labels":
        names["task_names"] = (0, 1, 2)
    unweighted = CountTable.from_arrays(**arrays, **names, soft=soft)
    unit = CountTable.from_arrays(**arrays, **names, soft=soft, sample_weight=np.ones(n))
    _tables_equal_exactly(unweighted, unit)
    # and both equal a brute-force count
    for g, t in unweighted.joint:
        gd = np.asarray(as_dense(arrays[g], names["group_names"]))
        td = np.asarray(as_dense(arrays[t], names["task_names"]))
        np.testing.assert_allclose(unweighted.joint[(g, t)], gd.T @ td, rtol=1e-12)


def as_dense(values, names):
    if sp.issparse(values):
        return values.toarray()
    values = np.asarray(values)
    if values.ndim == 1:
        return (values[:, None] == np.array(names)[None, :]).astype(float)
    return values


def test_sparse_tasks_counted_with_both_group_roles_at_once():
    # one product per sparse task role covers groups and groups_pred together; each
    # count is checked by hand: 3 groups, rows (group, predicted group, tasks)
    groups = np.array(["a", "b", "c", "a", "b"])
    groups_pred = np.array(["b", "b", "c", "a", "a"])
    tasks = sp.csr_matrix(np.array([[1, 0], [1, 1], [0, 1], [1, 0], [0, 0]], dtype=np.int8))
    table = CountTable.from_arrays(
        groups=groups, groups_pred=groups_pred, tasks=tasks, task_names=("x", "y")
    )
    np.testing.assert_array_equal(table.joint[("groups", "tasks")], [[2, 0], [1, 1], [0, 1]])
    np.testing.assert_array_equal(table.joint[("groups_pred", "tasks")], [[1, 0], [2, 1], [0, 1]])
    np.testing.assert_array_equal(table.totals["tasks"], [3, 2])
    np.testing.assert_array_equal(table.totals["groups_pred"], [2, 2, 1])
