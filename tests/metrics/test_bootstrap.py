"""Tests of biasamp.counts._replicates and the n_boot option of mals / directional."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import biasamp
from biasamp import CountTable
from biasamp.counts._poisson import PoissonReplicates, seed_entropy
from biasamp.counts._replicates import (
    BLOCK_ROWS,
    ERR_METHOD,
    ERR_N_BOOT,
    MultinomialReplicates,
    replicate_count_table,
    replicate_weights,
)
from biasamp.inputs._label_matrix import as_label_matrix
from biasamp.metrics._bootstrap import ERR_RESAMPLE_TRAIN_COUNTS, ERR_RESAMPLE_TRAIN_MISSING
from biasamp.results._intervals import ERR_CI, count_valid, interval_from_replicates


# ------------------------------------------------------------------ weights
def test_replicate_weights_shapes_and_reproducibility():
    w = replicate_weights(50, 7, random_state=3)
    assert w.shape == (7, 50) and w.dtype == np.float64
    assert np.array_equal(w, replicate_weights(50, 7, random_state=3))
    assert not np.array_equal(w, replicate_weights(50, 7, random_state=4))
    assert np.all(w == np.round(w)) and w.min() >= 0


def test_multinomial_weights_sum_to_n_and_are_uniform():
    n = BLOCK_ROWS + 1000  # two blocks of different sizes
    w = replicate_weights(n, 300, random_state=0, method="multinomial")
    assert np.all(w.sum(axis=1) == n)
    # each row's count is Binomial(n, 1/n): mean 1, variance (1 - 1/n)
    assert abs(w.mean() - 1.0) < 1e-12
    assert abs(w.var() - (1 - 1 / n)) < 0.01
    # the two blocks get their share on average: 4096/5096 of the draws
    share = w[:, :BLOCK_ROWS].sum() / w.sum()
    assert abs(share - BLOCK_ROWS / n) < 0.002


def test_poisson_weights_follow_poisson_one():
    w = replicate_weights(200_000, 10, random_state=1).ravel()
    pmf = np.array([math.exp(-1) / math.factorial(k) for k in range(6)])
    freq = np.array([(w == k).mean() for k in range(6)])
    # 2e6 draws: standard error of each frequency below 4e-4
    assert np.all(np.abs(freq - pmf) < 5 * np.sqrt(pmf * (1 - pmf) / w.size))
    assert abs(w.mean() - 1) < 0.005 and abs(w.var() - 1) < 0.01


@settings(max_examples=30, deadline=None)
@given(
    cuts=st.lists(st.integers(0, 9000), min_size=0, max_size=5),
    method=st.sampled_from(["poisson", "multinomial"]),
    seed=st.integers(0, 2**32),
)
def test_chunked_weights_equal_one_shot(cuts, method, seed):
    n = 9000
    if method == "poisson":
        source = PoissonReplicates(4, random_state=seed)
    else:
        source = MultinomialReplicates(n, 4, random_state=seed)
    whole = source.weights(0, n)
    edges = [0, *sorted(cuts), n]
    parts = [source.weights(a, b) for a, b in zip(edges[:-1], edges[1:], strict=True)]
    assert np.array_equal(np.concatenate(parts, axis=1), whole)
    # a fresh object with the same seed reproduces the weights (a second worker)
    again = (
        PoissonReplicates(4, random_state=seed)
        if method == "poisson"
        else MultinomialReplicates(n, 4, random_state=seed)
    )
    assert np.array_equal(again.weights(edges[1], n), whole[:, edges[1] :])


def test_poisson_weights_do_not_depend_on_n_rows():
    # row i's weights depend on the seed and i only, so a longer split extends a shorter one
    assert np.array_equal(
        replicate_weights(5000, 3, random_state=9),
        replicate_weights(9000, 3, random_state=9)[:, :5000],
    )


def test_random_state_forms():
    assert seed_entropy(5) == 5
    a = seed_entropy(np.random.default_rng(0))
    assert a == seed_entropy(np.random.default_rng(0))
    assert seed_entropy(np.random.SeedSequence(1)) == seed_entropy(np.random.SeedSequence(1))
    assert isinstance(seed_entropy(np.random.RandomState(0)), int)
    assert seed_entropy(None) != seed_entropy(None)
    with pytest.raises(TypeError, match="random_state"):
        seed_entropy("seed")
    with pytest.raises(ValueError, match="random_state"):
        seed_entropy(-1)


@pytest.mark.parametrize("bad", [0, -3, 2.5, None, True])
def test_bad_n_boot(bad):
    with pytest.raises(ValueError, match="n_boot"):
        replicate_weights(10, bad, random_state=0)
    assert ERR_N_BOOT.format(got=bad).startswith("n_boot")


def test_bad_method_and_rows():
    with pytest.raises(ValueError, match=ERR_METHOD.format(got="jackknife")):
        replicate_weights(10, 3, random_state=0, method="jackknife")
    with pytest.raises(ValueError, match="n_rows"):
        replicate_weights(0, 3, random_state=0)
    with pytest.raises(ValueError, match="outside"):
        MultinomialReplicates(10, 3, random_state=0).weights(0, 11)


# ------------------------------------------------------------ replicate tables
def _matrices(rng, n, n_tasks, *, sparse, soft):
    groups = rng.choice(["a", "b", "c"], size=n)
    tasks = (rng.random((n, n_tasks)) < 0.3).astype(float)
    tasks_pred = rng.random((n, n_tasks)) if soft else (rng.random((n, n_tasks)) < 0.3) * 1.0
    groups_pred = rng.choice(["a", "b", "c"], size=n)
    if sparse:
        tasks = sp.csr_matrix(tasks)
    return {
        "groups": as_label_matrix(groups, arg="groups"),
        "groups_pred": as_label_matrix(groups_pred, arg="groups_pred", names=["a", "b", "c"]),
        "tasks": as_label_matrix(tasks, arg="tasks"),
        "tasks_pred": as_label_matrix(tasks_pred, arg="tasks_pred", soft=soft),
    }


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 10**6),
    n=st.integers(1, 300),
    chunk=st.integers(7, 400),
    sparse=st.booleans(),
    soft=st.booleans(),
    weighted=st.booleans(),
    method=st.sampled_from(["poisson", "multinomial"]),
)
def test_replicate_table_equals_weighted_table(seed, n, chunk, sparse, soft, weighted, method):
    rng = np.random.default_rng(seed)
    matrices = _matrices(rng, n, 4, sparse=sparse, soft=soft)
    sw = rng.random(n) * 3 if weighted else None
    source = (
        PoissonReplicates(6, random_state=seed)
        if method == "poisson"
        else MultinomialReplicates(n, 6, random_state=seed)
    )
    fast = replicate_count_table(matrices, replicates=source, sample_weight=sw, chunk_rows=chunk)
    slow = CountTable.from_label_matrices(
        matrices, sample_weight=sw, replicate_weights=source.weights(0, n)
    )
    np.testing.assert_allclose(fast.n, slow.n, rtol=1e-12)
    assert set(fast.totals) == set(slow.totals) and set(fast.joint) == set(slow.joint)
    for key in slow.totals:
        np.testing.assert_allclose(fast.totals[key], slow.totals[key], rtol=1e-12, atol=1e-12)
    for key in slow.joint:
        np.testing.assert_allclose(fast.joint[key], slow.joint[key], rtol=1e-12, atol=1e-12)
    assert fast.group_names == slow.group_names and fast.task_names == slow.task_names


def test_replicate_table_with_progress_bar_is_the_same():
    rng = np.random.default_rng(0)
    matrices = _matrices(rng, 500, 3, sparse=False, soft=False)
    source = PoissonReplicates(5, random_state=0)
    quiet = replicate_count_table(matrices, replicates=source, chunk_rows=100)
    shown = replicate_count_table(matrices, replicates=source, chunk_rows=100, progress=True)
    assert np.array_equal(quiet.joint[("groups", "tasks")], shown.joint[("groups", "tasks")])


# ------------------------------------------------------------------ intervals
def test_interval_matches_numpy_quantile():
    rng = np.random.default_rng(0)
    reps = rng.normal(size=(999, 3, 4))
    low, high, se = interval_from_replicates(reps, ci=0.9)
    np.testing.assert_allclose(low, np.quantile(reps, 0.05, axis=0))
    np.testing.assert_allclose(high, np.quantile(reps, 0.95, axis=0))
    np.testing.assert_allclose(se, reps.std(axis=0, ddof=1))
    one = interval_from_replicates(reps[:, 0, 0])
    assert isinstance(one.low, float)
    assert one.low == pytest.approx(np.quantile(reps[:, 0, 0], 0.025))


def test_interval_by_hand():
    # 1..5: the 2.5% quantile is at position 4 * 0.025 = 0.1 -> 1.1; 97.5% at 3.9 -> 4.9
    low, high, se = interval_from_replicates(np.array([3.0, 1.0, 5.0, 2.0, 4.0]))
    assert (low, high) == pytest.approx((1.1, 4.9))
    assert se == pytest.approx(math.sqrt(2.5))


def test_nan_replicates_are_left_out_then_undefined():
    reps = np.array(
        [
            [1.0, np.nan, 1.0],
            [2.0, np.nan, np.nan],
            [3.0, 5.0, np.nan],
            [4.0, 6.0, np.nan],
            [np.nan, 7.0, np.nan],
        ]
    )
    low, high, se = interval_from_replicates(reps, ci=0.5)
    # column 0: finite 1..4 -> quartiles 1.75 and 3.25; column 1: 5,6,7 (3 of 5 >= half)
    assert low[0] == pytest.approx(1.75) and high[0] == pytest.approx(3.25)
    assert low[1] == pytest.approx(5.5) and high[1] == pytest.approx(6.5)
    assert se[1] == pytest.approx(1.0)
    # column 2: one finite replicate of five -> undefined, never a number from one replicate
    assert np.isnan(low[2]) and np.isnan(high[2]) and np.isnan(se[2])
    assert count_valid(reps).tolist() == [4, 3, 1]
    # min_valid=0: one finite replicate is still too few (needs 2)
    assert np.isnan(interval_from_replicates(reps, min_valid=0).low[2])
    # a stricter rule makes column 1 undefined too
    assert np.isnan(interval_from_replicates(reps, min_valid=0.8).low[1])


@pytest.mark.parametrize("bad", [0, 1, 1.5, -0.1, "0.95", True])
def test_bad_ci(bad):
    with pytest.raises(ValueError, match="ci: expected"):
        interval_from_replicates(np.arange(10.0), ci=bad)
    assert ERR_CI.format(got=bad).startswith("ci:")


def test_interval_needs_a_replicate_axis():
    with pytest.raises(ValueError, match="leading replicate axis"):
        interval_from_replicates(np.float64(1.0))


# ------------------------------------------------------- metrics with n_boot
def _synthetic(seed, n=400, n_tasks=5):
    rng = np.random.default_rng(seed)
    groups = rng.choice(["m", "w"], size=n, p=[0.6, 0.4])
    base = np.where(groups[:, None] == "m", 0.4, 0.2) * np.linspace(0.5, 1.5, n_tasks)
    tasks = (rng.random((n, n_tasks)) < base).astype(int)
    flip = rng.random((n, n_tasks)) < 0.1
    tasks_pred = np.where(flip, 1 - tasks, tasks)
    groups_pred = np.where(rng.random(n) < 0.15, np.where(groups == "m", "w", "m"), groups)
    names = [f"t{i}" for i in range(n_tasks)]
    return (
        groups,
        pd.DataFrame(tasks, columns=names),
        pd.DataFrame(tasks_pred, columns=names),
        groups_pred,
    )


@pytest.mark.parametrize("direction", ["A->T", "T->A"])
@pytest.mark.parametrize("method", ["poisson", "multinomial"])
def test_directional_replicates_equal_naive_recomputation(direction, method):
    groups, tasks, tasks_pred, groups_pred = _synthetic(0)
    g_tr, t_tr, _, _ = _synthetic(1)
    kwargs = dict(
        direction=direction,
        groups=groups,
        tasks=tasks,
        tasks_pred=tasks_pred,
        groups_pred=groups_pred,
        groups_train=g_tr,
        tasks_train=t_tr,
    )
    result = biasamp.directional(**kwargs, n_boot=20, random_state=11, bootstrap=method)
    plain = biasamp.directional(**kwargs)
    assert result.value == plain.value
    source = (
        PoissonReplicates(20, random_state=11)
        if method == "poisson"
        else MultinomialReplicates(len(groups), 20, random_state=11)
    )
    w = source.weights(0, len(groups))
    naive = [biasamp.directional(**kwargs, sample_weight=w[b]) for b in range(20)]
    np.testing.assert_allclose(result.replicates, [r.value for r in naive], rtol=1e-12)
    deltas = np.stack([r.by_pair["delta"].to_numpy() for r in naive])
    low, high, _ = interval_from_replicates(deltas)
    np.testing.assert_allclose(result.by_pair["ci_low"], low, rtol=1e-12)
    np.testing.assert_allclose(result.by_pair["ci_high"], high, rtol=1e-12)
    overall = interval_from_replicates(result.replicates)
    assert result.ci == pytest.approx((overall.low, overall.high))
    assert result.se == pytest.approx(overall.se) and result.ci_level == 0.95
    assert result.params["bootstrap"]["method"] == method
    assert result.to_dict()["n_boot"] == 20


def test_directional_resample_train_uses_an_independent_training_stream():
    groups, tasks, tasks_pred, _ = _synthetic(0)
    g_tr, t_tr, _, _ = _synthetic(1, n=300)
    kwargs = dict(
        direction="A->T",
        groups=groups,
        tasks=tasks,
        tasks_pred=tasks_pred,
        groups_train=g_tr,
        tasks_train=t_tr,
    )
    result = biasamp.directional(**kwargs, n_boot=10, random_state=5, resample_train=True)
    w_eval = PoissonReplicates(10, random_state=5, stream=0).weights(0, len(groups))
    w_train = PoissonReplicates(10, random_state=5, stream=1).weights(0, len(g_tr))
    naive = [
        biasamp.directional(**kwargs, sample_weight=w_eval[b], sample_weight_train=w_train[b]).value
        for b in range(10)
    ]
    np.testing.assert_allclose(result.replicates, naive, rtol=1e-12)
    assert result.params["bootstrap"]["resample_train"] is True


def test_mals_replicates_equal_naive_recomputation():
    groups, tasks, tasks_pred, groups_pred = _synthetic(2)
    g_tr, t_tr, _, _ = _synthetic(3, n=500)
    kwargs = dict(
        groups_train=g_tr, tasks_train=t_tr, groups_pred=groups_pred, tasks_pred=tasks_pred
    )
    for resample_train in (False, True):
        result = biasamp.mals(**kwargs, n_boot=15, random_state=2, resample_train=resample_train)
        w_eval = PoissonReplicates(15, random_state=2, stream=0).weights(0, len(groups))
        w_train = PoissonReplicates(15, random_state=2, stream=1).weights(0, len(g_tr))
        naive = [
            biasamp.mals(
                **kwargs,
                sample_weight=w_eval[b],
                sample_weight_train=w_train[b] if resample_train else None,
            )
            for b in range(15)
        ]
        np.testing.assert_allclose(result.replicates, [r.value for r in naive], rtol=1e-12)
        deltas = np.stack([r.by_pair["delta"].to_numpy() for r in naive])
        np.testing.assert_allclose(
            result.by_pair["ci_low"], interval_from_replicates(deltas).low, rtol=1e-12
        )


def test_bootstrap_is_reproducible_and_seed_dependent():
    groups, tasks, tasks_pred, _ = _synthetic(0)
    kwargs = dict(direction="A->T", groups=groups, tasks=tasks, tasks_pred=tasks_pred, n_boot=30)
    a = biasamp.directional(**kwargs, random_state=1)
    b = biasamp.directional(**kwargs, random_state=1)
    c = biasamp.directional(**kwargs, random_state=2)
    assert np.array_equal(a.replicates, b.replicates)
    assert not np.array_equal(a.replicates, c.replicates)
    # without a training side the signs are recomputed in each replicate
    w = PoissonReplicates(30, random_state=1).weights(0, len(groups))
    naive = biasamp.directional(
        direction="A->T", groups=groups, tasks=tasks, tasks_pred=tasks_pred, sample_weight=w[3]
    ).value
    assert a.replicates[3] == pytest.approx(naive, rel=1e-12)


def test_empty_pairs_in_replicates_follow_the_nan_rule():
    # group "w" has a single row: it is absent from about e^-1 of the Poisson replicates
    groups = ["m"] * 30 + ["w"]
    tasks = np.array([[1, 0]] * 15 + [[0, 1]] * 15 + [[1, 0]])
    tasks_pred = np.array([[1, 0]] * 14 + [[0, 1]] * 16 + [[0, 1]])
    result = biasamp.directional(
        direction="A->T",
        groups=groups,
        tasks=tasks,
        tasks_pred=tasks_pred,
        n_boot=400,
        random_state=0,
    )
    assert np.isfinite(result.replicates).all()  # "m" pairs keep every replicate defined
    rows_w = result.by_pair["group"] == "w"
    # the "w" pairs' delta is NaN in ~37% of replicates: left out, interval still defined
    assert result.by_pair.loc[rows_w, ["ci_low", "ci_high"]].notna().all().all()
    assert np.isfinite(result.ci).all()


def test_bootstrap_errors():
    groups, tasks, tasks_pred, _ = _synthetic(0)
    kwargs = dict(direction="A->T", groups=groups, tasks=tasks, tasks_pred=tasks_pred)
    with pytest.raises(ValueError, match=ERR_RESAMPLE_TRAIN_MISSING[:40]):
        biasamp.directional(**kwargs, n_boot=5, resample_train=True)
    counts = pd.DataFrame(
        {"m": [5.0, 3, 2, 1, 1], "w": [1.0, 2, 3, 4, 5]}, index=list(tasks.columns)
    )
    with pytest.raises(ValueError, match="counts_train cannot be resampled"):
        biasamp.directional(**kwargs, counts_train=counts, n_boot=5, resample_train=True)
    assert "counts_train" in ERR_RESAMPLE_TRAIN_COUNTS
    with pytest.raises(ValueError, match="bootstrap: expected"):
        biasamp.directional(**kwargs, n_boot=5, bootstrap="bayes")
    with pytest.raises(ValueError, match="n_boot"):
        biasamp.directional(**kwargs, n_boot=0)
    with pytest.raises(ValueError, match="ci: expected"):
        biasamp.mals(
            groups_train=groups,
            tasks_train=tasks,
            groups_pred=groups,
            tasks_pred=tasks_pred,
            n_boot=5,
            ci=95,
        )
    with pytest.raises(TypeError, match="resample_train"):
        biasamp.directional(**kwargs, n_boot=5, resample_train="yes")


# ---------------------------------------------------------------- coverage
def test_percentile_interval_covers_the_true_value():
    """A->T on a generative model whose population value is known exactly.

    Two groups (P(w) = 0.4), three tasks with P(T_t | a) below, predictions that
    flip a true label off with probability ``off[a]`` and a false one on with
    ``on[a]``. The training side is the population itself (counts_train), so the
    signs y_at are the true ones and the truth is mean_{a,t} y_at * Delta_at.
    """
    p_group = np.array([0.6, 0.4])  # m, w
    p_task = np.array([[0.5, 0.2, 0.3], [0.2, 0.45, 0.3]])  # P(T_t = 1 | a)
    off = np.array([0.1, 0.2])
    on = np.array([0.05, 0.02])
    p_pred = p_task * (1 - off[:, None]) + (1 - p_task) * on[:, None]
    joint = p_group[:, None] * p_task
    y = np.sign(joint - p_group[:, None] * joint.sum(axis=0))
    truth = float(np.mean(y * (p_pred - p_task)))
    big = 10**6
    counts = pd.DataFrame((joint * big).T, index=["t0", "t1", "t2"], columns=["m", "w"])
    task_totals = joint.sum(axis=0) * big
    train = CountTable.from_joint(
        counts, group_totals=p_group * big, task_totals=task_totals, n=big
    )
    rng = np.random.default_rng(2024)
    n, reps, covered = 800, 200, 0
    for _ in range(reps):
        a = (rng.random(n) < p_group[1]).astype(int)
        tasks = (rng.random((n, 3)) < p_task[a]).astype(int)
        u = rng.random((n, 3))
        pred = np.where(tasks == 1, u >= off[a][:, None], u < on[a][:, None]).astype(int)
        result = biasamp.directional(
            direction="A->T",
            groups=np.array(["m", "w"])[a],
            tasks=pd.DataFrame(tasks, columns=["t0", "t1", "t2"]),
            tasks_pred=pd.DataFrame(pred, columns=["t0", "t1", "t2"]),
            counts_train=train,
            n_boot=200,
            random_state=rng,
        )
        covered += result.ci[0] <= truth <= result.ci[1]
    # 200 repetitions: the standard error of a 95% coverage is 1.5 points
    assert 0.90 <= covered / reps <= 0.99


def test_progress_bar_does_not_change_the_replicates():
    groups, tasks, tasks_pred, _ = _synthetic(0)
    kwargs = dict(
        direction="A->T",
        groups=groups,
        tasks=tasks,
        tasks_pred=tasks_pred,
        n_boot=25,
        random_state=3,
    )
    quiet = biasamp.directional(**kwargs)
    shown = biasamp.directional(**kwargs, progress=True)
    assert np.array_equal(quiet.replicates, shown.replicates)
    assert "(95% CI)" in repr(shown)
