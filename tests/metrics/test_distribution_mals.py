"""biasamp.distribution_mals: hand-worked values, an independent computation, mals on one-hot
posteriors (exactly), streaming and the bootstrap."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import biasamp
from biasamp import CountTable, distribution_counts, distribution_mals, mals
from biasamp.inputs._readers import ERR_POSTERIOR_NDIM, ERR_POSTERIOR_RANGE, ERR_ROW_OFFSET
from biasamp.metrics import distribution_mals_from_counts
from biasamp.metrics._distribution_mals import (
    ERR_JOINT_AXIS,
    ERR_PREDICTIONS,
)
from biasamp.metrics._mals import ERR_MALS_TRAIN


def independent(joint_proba, groups_train, tasks_train, margin=0.05):
    """Loops over tasks and groups: b* from training labels, b~ from the posterior mass."""
    tasks = sorted(set(tasks_train))
    groups = sorted(set(groups_train))
    proba = np.asarray(joint_proba, dtype=float)
    total, violations = 0.0, 0
    for t_i, t in enumerate(tasks):
        rows = [g for g, task in zip(groups_train, tasks_train, strict=True) if task == t]
        mass_t = sum(proba[i, t_i, g_i] for i in range(len(proba)) for g_i in range(len(groups)))
        off = False
        for g_i, g in enumerate(groups):
            b_star = rows.count(g) / len(rows)
            if mass_t == 0:
                continue
            b_tilde = sum(proba[i, t_i, g_i] for i in range(len(proba))) / mass_t
            if b_star > 1 / len(groups) + 1e-12:
                total += b_tilde - b_star
            off = off or abs(b_tilde - b_star) > margin
        violations += off
    return total / len(tasks), violations


# ------------------------------------------------------------------ hand-worked values
def test_hand_worked_value_and_by_pair():
    # training: cook is w, w, m (b*(cook, w) = 2/3); ski is m, m, m, w (b*(ski, m) = 3/4)
    groups_train = ["w", "w", "m", "m", "m", "m", "w"]
    tasks_train = ["cook", "cook", "cook", "ski", "ski", "ski", "ski"]
    # posterior over (task: cook, ski) x (group: m, w) for 3 rows
    proba = np.array(
        [
            [[0.1, 0.5], [0.3, 0.1]],  # cook: m 0.1, w 0.5; ski: m 0.3, w 0.1
            [[0.0, 0.2], [0.7, 0.1]],
            [[0.2, 0.4], [0.2, 0.2]],
        ]
    )
    # cook mass: m 0.3, w 1.1 -> b~(cook, w) = 1.1 / 1.4 = 0.785714; delta = 0.785714 - 2/3
    # ski mass: m 1.2, w 0.4 -> b~(ski, m) = 1.2 / 1.6 = 0.75; delta = 0.75 - 0.75 = 0
    # MALS = (0.119048 + 0) / 2 tasks = 0.059524
    result = distribution_mals(
        joint_proba=proba, groups_train=groups_train, tasks_train=tasks_train, min_group_size=None
    )
    assert result.value == pytest.approx((1.1 / 1.4 - 2 / 3) / 2)
    assert result.value == pytest.approx(0.059524, abs=1e-6)
    pairs = result.by_pair.set_index(["group", "task"])
    assert pairs.loc[("w", "cook"), "b_pred"] == pytest.approx(1.1 / 1.4)
    assert pairs.loc[("m", "ski"), "b_pred"] == pytest.approx(0.75)
    assert pairs.loc[("m", "ski"), "biased"] and pairs.loc[("w", "cook"), "biased"]
    assert not pairs.loc[("m", "cook"), "biased"]
    # cook is 0.119 away from training (> 0.05), ski 0: one violation
    assert result.violations == 1
    assert result.metric == "distribution-mals" and result.family == "distribution_mals"
    assert result.name == "BiasAmp_MALS in distribution"
    assert result.params["source"] == "posterior mass"
    # the top-1 labels of the same rows: (cook, w), (ski, m), (cook, w) -> b~(cook, w) = 1,
    # b~(ski, m) = 1: MALS = ((1 - 2/3) + (1 - 3/4)) / 2 = 0.291667; the posterior is less
    # extreme than its argmax here
    top1 = mals(
        groups_train=groups_train,
        tasks_train=tasks_train,
        groups_pred=["w", "m", "w"],
        tasks_pred=["cook", "ski", "cook"],
        min_group_size=None,
    )
    assert top1.value == pytest.approx(((1 - 2 / 3) + (1 - 3 / 4)) / 2)


def test_posterior_more_biased_than_its_argmax():
    # training: cook 1/2 w... b*(cook, w) = 0.6 (3 of 5). Every row's argmax is (cook, m)
    # at 0.51 but the remaining mass is all w: top-1 b~(cook, w) = 0, posterior b~ = 0.49.
    groups_train = ["w", "w", "w", "m", "m"]
    tasks_train = ["cook"] * 5
    proba = np.tile(np.array([[[0.51, 0.49]]]), (4, 1, 1))
    result = distribution_mals(
        joint_proba=proba, groups_train=groups_train, tasks_train=tasks_train, min_group_size=None
    )
    assert result.value == pytest.approx(0.49 - 0.6)


# ------------------------------------------------------------------ mals on one-hot posteriors
def one_hot(groups_pred, tasks_pred, group_names, task_names):
    """(n, |T|, |G|) posteriors: 1 at each row's predicted (task, group) pairs."""
    tasks = np.asarray(tasks_pred)
    n = len(groups_pred)
    proba = np.zeros((n, len(task_names), len(group_names)))
    g = np.array([group_names.index(x) for x in groups_pred])
    if tasks.ndim == 1:
        proba[np.arange(n), [task_names.index(x) for x in tasks], g] = 1.0
    else:  # multi-label tasks: a 0/1 matrix
        proba[:, :, :] = 0
        proba[np.arange(n)[:, None], np.arange(len(task_names))[None, :], g[:, None]] = tasks
    return proba


@settings(max_examples=60, deadline=None)
@given(
    n_train=st.integers(2, 25),
    n=st.integers(1, 25),
    multilabel=st.booleans(),
    weighted=st.booleans(),
    margin=st.sampled_from([0.0, 0.05, 0.2]),
    data=st.data(),
)
def test_one_hot_posteriors_equal_mals_exactly(n_train, n, multilabel, weighted, margin, data):
    group_names, task_names = ["m", "w", "x"], ["a", "b", "c", "d"]
    groups_train = data.draw(
        st.lists(st.sampled_from(group_names), min_size=n_train, max_size=n_train)
    )
    groups_pred = data.draw(st.lists(st.sampled_from(group_names), min_size=n, max_size=n))
    if multilabel:

        def matrix(rows):
            return np.array(
                data.draw(
                    st.lists(
                        st.lists(st.integers(0, 1), min_size=4, max_size=4),
                        min_size=rows,
                        max_size=rows,
                    )
                )
            )

        tasks_train = pd.DataFrame(matrix(n_train), columns=task_names)
        tasks_pred = pd.DataFrame(matrix(n), columns=task_names)
        pred_values = tasks_pred.to_numpy()
    else:
        tasks_train = data.draw(
            st.lists(st.sampled_from(task_names), min_size=n_train, max_size=n_train)
        )
        tasks_pred = data.draw(st.lists(st.sampled_from(task_names), min_size=n, max_size=n))
        pred_values = tasks_pred
    weights = (
        np.array(data.draw(st.lists(st.integers(1, 4), min_size=n, max_size=n)), dtype=float)
        if weighted
        else None
    )
    kw = dict(group_names=group_names, task_names=task_names, margin=margin, min_group_size=None)
    expected = mals(
        groups_train=groups_train,
        tasks_train=tasks_train,
        groups_pred=groups_pred,
        tasks_pred=tasks_pred,
        sample_weight=weights,
        **kw,
    )
    got = distribution_mals(
        joint_proba=one_hot(groups_pred, pred_values, group_names, task_names),
        groups_train=groups_train,
        tasks_train=tasks_train,
        sample_weight=weights,
        **kw,
    )
    assert got.value == expected.value  # exactly
    assert got.violations == expected.violations
    assert (got.n_pairs, got.n_empty, got.n) == (expected.n_pairs, expected.n_empty, expected.n)
    pd.testing.assert_frame_equal(got.by_pair, expected.by_pair, check_exact=True)
    if np.asarray(pred_values).ndim == 1 or np.asarray(pred_values).sum(axis=1).all():
        # a row that predicts no task puts no mass on any pair: its group is not seen
        pd.testing.assert_frame_equal(got.group_sizes, expected.group_sizes, check_exact=True)


def test_one_hot_bootstrap_equals_mals_bootstrap():
    rng = np.random.default_rng(0)
    n = 300
    gt, tt = rng.choice(["m", "w"], n, p=[0.6, 0.4]), rng.choice(["a", "b", "c"], n)
    gp, tp = rng.choice(["m", "w"], n), rng.choice(["a", "b", "c"], n)
    expected = mals(
        groups_train=gt, tasks_train=tt, groups_pred=gp, tasks_pred=tp, n_boot=60, random_state=3
    )
    got = distribution_mals(
        joint_proba=one_hot(gp, tp, ["m", "w"], ["a", "b", "c"]),
        groups_train=gt,
        tasks_train=tt,
        n_boot=60,
        random_state=3,
    )
    np.testing.assert_array_equal(got.replicates, expected.replicates)
    assert got.ci == expected.ci and got.se == expected.se
    pd.testing.assert_frame_equal(got.by_pair, expected.by_pair, check_exact=True)


# ------------------------------------------------------------------ an independent computation
@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 20), data=st.data(), margin=st.sampled_from([0.01, 0.1]))
def test_equals_an_independent_computation(n, data, margin):
    groups_train = ["m", "m", "w", "w", "w", "x", "m", "w", "x", "x"]
    tasks_train = ["a", "b", "a", "b", "c", "c", "a", "a", "b", "c"]
    raw = np.array(data.draw(st.lists(st.floats(0, 1), min_size=n * 9, max_size=n * 9))).reshape(
        n, 3, 3
    )
    total = raw.sum(axis=(1, 2), keepdims=True)
    proba = np.divide(raw, total, out=np.zeros_like(raw), where=total > 0)
    value, violations = independent(proba, groups_train, tasks_train, margin)
    result = distribution_mals(
        joint_proba=proba,
        groups_train=groups_train,
        tasks_train=tasks_train,
        margin=margin,
        min_group_size=None,
    )
    assert result.value == pytest.approx(value, abs=1e-12)
    assert result.violations == violations


# ------------------------------------------------------------------ streaming
def test_chunked_counts_equal_one_shot_with_the_bootstrap():
    rng = np.random.default_rng(4)
    n = 500
    proba = rng.dirichlet(np.ones(6), n).reshape(n, 3, 2)
    weights = rng.integers(1, 3, n).astype(float)
    gt, tt = rng.choice(["m", "w"], 200, p=[0.7, 0.3]), rng.choice(["a", "b", "c"], 200)
    train = CountTable.from_arrays(groups=gt, tasks=tt)
    names = dict(task_names=train.task_names, group_names=train.group_names)
    whole = distribution_counts(proba, sample_weight=weights, n_boot=40, random_state=9, **names)
    bounds = [0, 123, 124, 400, n]
    chunks = [
        distribution_counts(
            proba[a:b], sample_weight=weights[a:b], n_boot=40, random_state=9, row_offset=a, **names
        )
        for a, b in zip(bounds[:-1], bounds[1:], strict=True)
    ]
    streamed = sum(chunks)
    key = ("groups_pred", "tasks_pred")
    np.testing.assert_allclose(streamed.joint[key], whole.joint[key], rtol=1e-13)
    np.testing.assert_allclose(
        streamed.replicates.joint[key], whole.replicates.joint[key], rtol=1e-13
    )
    one_shot = distribution_mals(
        joint_proba=proba,
        groups_train=gt,
        tasks_train=tt,
        sample_weight=weights,
        n_boot=40,
        random_state=9,
        min_group_size=None,
    )
    from_chunks = distribution_mals_from_counts(train, streamed, min_group_size=None)
    assert from_chunks.value == pytest.approx(one_shot.value, abs=1e-14)
    np.testing.assert_allclose(from_chunks.replicates, one_shot.replicates, rtol=0, atol=1e-13)
    assert from_chunks.ci == pytest.approx(one_shot.ci, abs=1e-13)
    # one-hot chunks: integer masses, so the sums are exact in any order
    labels = one_hot(
        rng.choice(["m", "w"], n), rng.choice(["a", "b", "c"], n), ["m", "w"], ["a", "b", "c"]
    )
    exact = sum(
        distribution_counts(labels[a:b], row_offset=a, **names)
        for a, b in zip(bounds[:-1], bounds[1:], strict=True)
    )
    assert np.array_equal(exact.joint[key], distribution_counts(labels, **names).joint[key])


# ------------------------------------------------------------------ persistence and bad input
def test_save_load_and_compare(tmp_path):
    proba = np.random.default_rng(1).dirichlet(np.ones(4), 40).reshape(40, 2, 2)
    result = distribution_mals(
        joint_proba=proba,
        groups_train=["m", "w", "w"],
        tasks_train=["a", "b", "a"],
        n_boot=20,
        random_state=0,
        min_group_size=None,
    )
    again = biasamp.load_result(result.save(tmp_path / "d.json"))
    assert again == result and again.name == "BiasAmp_MALS in distribution"
    table = biasamp.compare({"model": result})
    assert table["metric"].tolist() == ["distribution-mals"]
    assert table["title"].tolist() == ["BiasAmp_MALS in distribution"]


def test_bad_input_is_refused():
    kw = dict(groups_train=["m", "w"], tasks_train=["a", "b"])
    with pytest.raises(
        ValueError,
        match=re.escape(ERR_POSTERIOR_NDIM.format(arg="joint_proba", ndim=3, shape=(2, 2))),
    ):
        distribution_mals(joint_proba=[[0.5, 0.5], [0.2, 0.8]], **kw)
    with pytest.raises(
        ValueError,
        match=re.escape(ERR_JOINT_AXIS.format(axis=1, got=3, what="tasks", n=2, names=["a", "b"])),
    ):
        distribution_mals(joint_proba=np.zeros((1, 3, 2)), **kw)
    with pytest.raises(
        ValueError,
        match=re.escape(ERR_JOINT_AXIS.format(axis=2, got=1, what="groups", n=2, names=["m", "w"])),
    ):
        distribution_mals(joint_proba=np.zeros((1, 2, 1)), **kw)
    bad = np.zeros((2, 2, 2))
    bad[1, 0, 1] = 1.5
    with pytest.raises(
        ValueError,
        match=re.escape(
            ERR_POSTERIOR_RANGE.format(
                arg="joint_proba", row=1, got=1.5, where=" at (task 'a', group 'w')"
            )
        ),
    ):
        distribution_mals(joint_proba=bad, **kw)
    bad[1, 0, 1] = np.nan
    with pytest.raises(ValueError, match="joint_proba: contains 1 missing value"):
        distribution_mals(joint_proba=bad, **kw)
    with pytest.raises(ValueError, match=re.escape(ERR_MALS_TRAIN)):
        distribution_mals(joint_proba=np.zeros((1, 2, 2)))
    with pytest.raises(
        ValueError, match=re.escape(ERR_ROW_OFFSET.format(arg="row_offset", got=-1))
    ):
        distribution_counts(
            np.zeros((1, 2, 2)), task_names=["a", "b"], group_names=["m", "w"], row_offset=-1
        )
    train = CountTable.from_arrays(groups=["m", "w"], tasks=["a", "b"])
    with pytest.raises(ValueError, match=re.escape(ERR_PREDICTIONS)):
        distribution_mals_from_counts(train, train)
