"""Significance against chance: the paired swap test of the co-occurrence metrics.

The vectorised test (swapped count tables with a leading permutation axis) is checked
against a brute-force one that swaps row by row in Python with the same indicators;
p-values are checked to be uniform over many data sets drawn under the null (labels
and outputs exchangeable) and near 0 on planted amplification.
"""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest

import biasamp
from biasamp import directional, load_result, mals
from biasamp.counts._swaps import (
    ERR_N_PERM,
    ERR_SWAP_ROLES,
    SwapReplicates,
    swap_count_table,
    swapped_roles,
)
from biasamp.inputs._label_matrix import as_label_matrix
from biasamp.metrics._significance import ERR_SWAP_NEEDS
from biasamp.registry import METRICS
from biasamp.results import NullDistribution
from biasamp.results._significance import (
    chance_text,
    null_distribution,
    permutation_p_value,
)


def null_data(rng: np.random.Generator, n: int = 200, n_tasks: int = 3):
    """Groups, tasks and predicted tasks whose labels and outputs are exchangeable: both
    are independent noisy copies of one latent task that depends on the group."""
    groups = rng.integers(0, 2, n)
    latent = (groups + rng.integers(0, 2, n)) % n_tasks

    def noisy():
        return np.where(rng.random(n) < 0.7, latent, rng.integers(0, n_tasks, n))

    return groups, noisy(), noisy()


def planted_data(rng: np.random.Generator, n: int = 400):
    """The model moves a third of each group's rows to its group's favourite task."""
    groups, tasks, _ = null_data(rng, n)
    pred = tasks.copy()
    push = rng.random(n) < 0.35
    pred[push] = groups[push]  # group 0 -> task 0, group 1 -> task 1 (their training link)
    return groups, tasks, pred


@pytest.fixture(scope="module")
def train():
    rng = np.random.default_rng(1)
    groups, tasks, _ = null_data(rng, 400)
    return groups, tasks


def brute_force_directional(groups, tasks, pred, train, *, n_perm, seed):
    """The swap test in plain Python: row i of permutation p swaps its task label and
    predicted task when the indicator says so; the metric is recomputed each time."""
    indicators = SwapReplicates(n_perm, random_state=seed).rows(0, len(groups))
    observed = directional(
        direction="A->T", groups=groups, tasks=tasks, tasks_pred=pred,
        groups_train=train[0], tasks_train=train[1], min_group_size=None,
    ).value  # fmt: skip
    null = []
    for p in range(n_perm):
        label, output = list(tasks), list(pred)
        for i in range(len(groups)):
            if indicators[i, p] == 1:
                label[i], output[i] = output[i], label[i]
        null.append(
            directional(
                direction="A->T",
                groups=groups,
                tasks=np.array(label),
                tasks_pred=np.array(output),
                groups_train=train[0],
                tasks_train=train[1],
                task_names=[0, 1, 2],
                min_group_size=None,
            ).value  # fmt: skip
        )
    null = np.array(null)
    p_value = (1 + sum(v >= observed - 1e-12 for v in null)) / (1 + n_perm)
    return observed, null, p_value


def test_vectorised_swap_test_equals_brute_force(train):
    rng = np.random.default_rng(5)
    groups, tasks, pred = planted_data(rng, 60)
    observed, null, p_value = brute_force_directional(groups, tasks, pred, train, n_perm=25, seed=3)
    result = directional(
        direction="A->T", groups=groups, tasks=tasks, tasks_pred=pred,
        groups_train=train[0], tasks_train=train[1], min_group_size=None,
        n_perm=25, random_state=3,
    )  # fmt: skip
    assert result.value == pytest.approx(observed)
    assert result.p_value == pytest.approx(p_value)
    assert result.null.mean == pytest.approx(null.mean(), abs=1e-12)
    assert result.null.quantiles["0.5"] == pytest.approx(np.median(null), abs=1e-12)
    assert result.null.n_perm == result.null.n_valid == 25


def test_swap_of_mals_swaps_both_roles_as_in_brute_force(train):
    rng = np.random.default_rng(6)
    groups, tasks, pred = planted_data(rng, 50)
    groups_pred = np.where(rng.random(50) < 0.8, groups, 1 - groups)
    s = SwapReplicates(12, random_state=9).rows(0, 50)
    null = []
    for p in range(12):
        swap = s[:, p] == 1
        null.append(
            mals(
                groups_train=train[0],
                tasks_train=train[1],
                groups_pred=np.where(swap, groups, groups_pred),
                tasks_pred=np.where(swap, tasks, pred),
                groups=np.where(swap, groups_pred, groups),
                tasks=np.where(swap, pred, tasks),
                min_group_size=None,
            ).value  # fmt: skip
        )
    result = mals(
        groups_train=train[0], tasks_train=train[1], groups_pred=groups_pred, tasks_pred=pred,
        groups=groups, tasks=tasks, min_group_size=None, n_perm=12, random_state=9,
    )  # fmt: skip
    expected_p = (1 + np.sum(np.array(null) >= result.value - 1e-12)) / 13
    assert result.p_value == pytest.approx(expected_p)
    assert result.null.mean == pytest.approx(np.mean(null), abs=1e-12)


def rejection_rate(train, n_datasets: int, *, n: int = 200, n_perm: int = 99) -> float:
    rng = np.random.default_rng(2024)
    p_values = []
    for i in range(n_datasets):
        groups, tasks, pred = null_data(rng, n)
        result = directional(
            direction="A->T", groups=groups, tasks=tasks, tasks_pred=pred,
            groups_train=train[0], tasks_train=train[1], task_names=[0, 1, 2],
            min_group_size=None, n_perm=n_perm, random_state=i,
        )  # fmt: skip
        p_values.append(result.p_value)
    return float(np.mean(np.array(p_values) <= 0.05))


def test_null_rejection_rate_small(train):
    """A quick check: 20 null data sets reject at most 3 times (1 expected at 5%)."""
    assert rejection_rate(train, 20, n=60, n_perm=19) <= 3 / 20


def test_null_rejection_rate_is_five_percent(train):
    """400 null data sets: the rejection rate at the 5% level lies in 2-9%."""
    assert 0.02 <= rejection_rate(train, 400) <= 0.09


def test_mals_null_rejection_rate_is_five_percent(train):
    rng = np.random.default_rng(77)
    p_values = []
    for i in range(300):
        groups, tasks, pred = null_data(rng, 200)
        groups_pred = np.where(rng.random(200) < 0.8, groups, rng.integers(0, 2, 200))
        groups_label = np.where(rng.random(200) < 0.8, groups, rng.integers(0, 2, 200))
        result = mals(
            groups_train=train[0], tasks_train=train[1], groups_pred=groups_pred,
            tasks_pred=pred, groups=groups_label, tasks=tasks, min_group_size=None,
            n_perm=99, random_state=i,
        )  # fmt: skip
        p_values.append(result.p_value)
    assert 0.02 <= np.mean(np.array(p_values) <= 0.05) <= 0.09


def test_planted_amplification_has_p_near_zero(train):
    rng = np.random.default_rng(11)
    groups, tasks, pred = planted_data(rng)
    result = directional(
        direction="A->T", groups=groups, tasks=tasks, tasks_pred=pred,
        groups_train=train[0], tasks_train=train[1], min_group_size=None,
        n_perm=199, random_state=0,
    )  # fmt: skip
    assert result.value > result.null.quantiles["0.975"]
    assert result.p_value == pytest.approx(1 / 200)
    assert "distinguishable from chance: p = 0.005" in repr(result)
    assert not repr(result).count("not distinguishable")


def test_t2a_swaps_the_groups(train):
    rng = np.random.default_rng(12)
    groups, tasks, _ = null_data(rng, 300)
    groups_pred = groups.copy()
    # the model predicts group 1 on every row of task 1 (amplifies T->A)
    groups_pred[tasks == 1] = 1
    result = directional(
        direction="T->A", groups=groups, tasks=tasks, groups_pred=groups_pred,
        groups_train=train[0], tasks_train=train[1], min_group_size=None,
        n_perm=99, random_state=0,
    )  # fmt: skip
    assert result.p_value == pytest.approx(0.01)
    assert result.params["significance"] == {
        "null": "paired-swap",
        "n_perm": 99,
        "alternative": "greater",
    }


def test_no_training_side_recomputes_the_signs_per_swap():
    rng = np.random.default_rng(3)
    groups, tasks, pred = null_data(rng, 100)
    result = directional(
        direction="A->T", groups=groups, tasks=tasks, tasks_pred=pred, min_group_size=None,
        n_perm=20, random_state=0,
    )  # fmt: skip
    s = SwapReplicates(20, random_state=0).rows(0, 100)
    null = [
        directional(
            direction="A->T",
            groups=groups,
            tasks=np.where(s[:, p] == 1, pred, tasks),
            tasks_pred=np.where(s[:, p] == 1, tasks, pred),
            task_names=[0, 1, 2],
            min_group_size=None,
        ).value  # fmt: skip
        for p in range(20)
    ]
    assert result.null.mean == pytest.approx(np.mean(null), abs=1e-12)


def test_n_perm_zero_is_no_test_and_same_seed_same_p(train):
    rng = np.random.default_rng(4)
    groups, tasks, pred = null_data(rng, 80)
    kwargs = dict(
        direction="A->T", groups=groups, tasks=tasks, tasks_pred=pred,
        groups_train=train[0], tasks_train=train[1], min_group_size=None,
    )  # fmt: skip
    plain = directional(**kwargs)
    assert plain.p_value is None and plain.null is None
    assert plain.to_dict(pairs=False)["chance"] is None
    assert directional(**kwargs, n_perm=0).p_value is None
    a = directional(**kwargs, n_perm=50, random_state=7)
    b = directional(**kwargs, n_perm=50, random_state=7)
    assert a.p_value == b.p_value and a.null == b.null
    # the bootstrap draws from another stream of the same seed: the test does not change
    c = directional(**kwargs, n_perm=50, random_state=7, n_boot=30)
    assert c.p_value == a.p_value and c.ci is not None


# --------------------------------------------------------------- streaming / chunks
def _matrices(groups, tasks, pred):
    g = as_label_matrix(groups, arg="groups", names=[0, 1])
    t = as_label_matrix(tasks, arg="tasks", names=[0, 1, 2])
    tp = as_label_matrix(pred, arg="tasks_pred", names=[0, 1, 2])
    return {"groups": g, "tasks": t, "tasks_pred": tp}


def test_swap_indicators_depend_only_on_the_row_position():
    whole = SwapReplicates(7, random_state=5).rows(0, 10_000)
    parts = [
        SwapReplicates(7, random_state=5).rows(a, b) for a, b in ((0, 3), (3, 5000), (5000, 10_000))
    ]
    np.testing.assert_array_equal(np.vstack(parts), whole)
    assert set(np.unique(whole)) == {0.0, 1.0}
    assert abs(whole.mean() - 0.5) < 0.01


def test_chunked_swap_tables_equal_the_one_shot_table():
    rng = np.random.default_rng(8)
    groups, tasks, pred = null_data(rng, 9000)
    weights = rng.random(9000)
    swaps = SwapReplicates(6, random_state=1)
    whole = swap_count_table(_matrices(groups, tasks, pred), swaps=swaps, sample_weight=weights)
    cuts = [0, 1000, 4096, 4100, 9000]
    total = None
    for a, b in zip(cuts[:-1], cuts[1:], strict=True):
        part = swap_count_table(
            _matrices(groups[a:b], tasks[a:b], pred[a:b]),
            swaps=SwapReplicates(6, random_state=1),
            sample_weight=weights[a:b],
            row_offset=a,
        )
        total = part if total is None else total + part
    for key in whole.joint:
        np.testing.assert_allclose(total.joint[key], whole.joint[key], rtol=1e-12)
    np.testing.assert_allclose(total.n, whole.n)
    small = swap_count_table(
        _matrices(groups, tasks, pred), swaps=swaps, sample_weight=weights, chunk_rows=777
    )
    for key in whole.joint:
        np.testing.assert_allclose(small.joint[key], whole.joint[key], rtol=1e-12)


def test_swapped_counts_by_hand():
    # two rows; permutation 0 swaps neither, permutation 1 both, counted by hand
    m = _matrices([0, 1], [2, 0], [1, 1])

    class Fixed:
        n_perm = 2

        def rows(self, start, stop, *, out=None):
            values = np.array([[0.0, 1.0], [0.0, 1.0]])[start:stop]
            if out is not None:
                out[...] = values
                return out
            return values

    table = swap_count_table(m, swaps=Fixed())  # type: ignore[arg-type]
    labels = table.joint[("groups", "tasks")]
    np.testing.assert_array_equal(labels[0], [[0, 0, 1], [1, 0, 0]])
    np.testing.assert_array_equal(labels[1], [[0, 1, 0], [0, 1, 0]])
    np.testing.assert_array_equal(table.joint[("groups", "tasks_pred")][1], [[0, 0, 1], [1, 0, 0]])


def test_swapped_roles():
    assert swapped_roles(["groups", "tasks", "tasks_pred"]) == {
        "groups": "groups",
        "tasks": "tasks_pred",
        "tasks_pred": "tasks",
    }
    with pytest.raises(ValueError, match="the swap test needs"):
        swapped_roles(["groups_pred", "tasks_pred"])
    assert ERR_SWAP_ROLES.startswith("the swap test")


# --------------------------------------------------------------- checks
@pytest.mark.parametrize("bad", [-1, 1.5, True, "10", None])
def test_n_perm_is_checked(bad, train):
    groups, tasks, pred = null_data(np.random.default_rng(0), 20)
    with pytest.raises(ValueError, match="n_perm") as info:
        directional(
            direction="A->T", groups=groups, tasks=tasks, tasks_pred=pred, n_perm=bad,
            min_group_size=None,
        )  # fmt: skip
    assert str(info.value) == ERR_N_PERM.format(got=bad)


def test_absurd_n_perm_is_refused_fast_naming_it(train):
    groups, tasks, pred = null_data(np.random.default_rng(0), 20)
    with pytest.raises(ValueError, match=r"n_perm: expected at most 10000000 permutations"):
        directional(
            direction="A->T", groups=groups, tasks=tasks, tasks_pred=pred, n_perm=10**13,
            min_group_size=None,
        )  # fmt: skip


def test_mals_swap_test_needs_the_evaluation_labels(train):
    groups, tasks, pred = null_data(np.random.default_rng(0), 20)
    with pytest.raises(ValueError) as info:
        mals(
            groups_train=train[0], tasks_train=train[1], groups_pred=groups, tasks_pred=pred,
            n_perm=10, min_group_size=None,
        )  # fmt: skip
    assert str(info.value) == ERR_SWAP_NEEDS.format(metric="mals", needs="groups= and tasks=")


# --------------------------------------------------------------- the summary and its file
def test_p_value_formula_and_words():
    assert permutation_p_value(0.5, [0.1, 0.6, 0.2, 0.5]) == pytest.approx(3 / 5)
    assert permutation_p_value(0.5, [0.1, np.nan, 0.2]) == pytest.approx(1 / 3)  # NaN left out
    # two-sided: distances from the null mean 0.15 are 0.05, 0.25, 0.15, 0.45
    assert permutation_p_value(-0.5, [0.1, -0.1, 0.0, 0.6], alternative="two-sided") == 0.2
    assert permutation_p_value(0.6, [0.1, -0.1, 0.0, 0.6], alternative="two-sided") == 0.4
    assert permutation_p_value(-0.3, [0.1, -0.1, 0.0, 0.6], alternative="two-sided") == 0.4
    assert permutation_p_value(-0.3, [0.1, -0.1, 0.0, 0.6]) == 1.0
    assert np.isnan(permutation_p_value(np.nan, [0.1]))
    assert chance_text(0.003) == "distinguishable from chance: p = 0.003"
    assert chance_text(0.41) == "not distinguishable from chance: p = 0.41"
    assert chance_text(None) is None
    with pytest.raises(ValueError, match="alternative"):
        permutation_p_value(0.1, [0.0], alternative="less")


def test_null_distribution_summary():
    null = null_distribution(np.arange(11.0), method="paired-swap", alternative="greater")
    assert null.mean == 5.0 and null.quantiles["0.5"] == 5.0 and null.quantile(0.975) == 9.75
    assert null.sd == pytest.approx(np.std(np.arange(11.0), ddof=1))
    json.dumps(null.to_dict())
    with pytest.raises(ValueError, match="q: expected one of"):
        null.quantile(0.3)


def test_result_with_a_null_saves_and_loads(tmp_path, train):
    rng = np.random.default_rng(9)
    groups, tasks, pred = planted_data(rng, 100)
    result = directional(
        direction="A->T", groups=groups, tasks=tasks, tasks_pred=pred,
        groups_train=train[0], tasks_train=train[1], min_group_size=None,
        n_perm=30, random_state=0,
    )  # fmt: skip
    loaded = load_result(result.save(tmp_path / "r.json"))
    assert loaded == result
    assert isinstance(loaded.null, NullDistribution)
    assert loaded.p_value == result.p_value
    document = json.loads(json.dumps(result.to_dict()))
    assert document["p_value"] == result.p_value
    assert document["null"]["method"] == "paired-swap"
    assert document["chance"].endswith(f"p = {result.p_value:.2g}".rstrip("0"))


# --------------------------------------------------------------- multi-attribute
def test_multi_attribute_swap_test_equals_brute_force(train):
    rng = np.random.default_rng(10)
    n = 80
    groups = rng.integers(0, 2, n)
    tasks = rng.integers(0, 2, (n, 3))
    pred = np.where(rng.random((n, 3)) < 0.8, tasks, 1 - tasks)
    pred[:, 0] = np.where(rng.random(n) < 0.5, groups, pred[:, 0])  # planted link to task 0
    train_tasks = rng.integers(0, 2, (200, 3))
    train_groups = rng.integers(0, 2, 200)
    train_tasks[:, 0] = np.where(rng.random(200) < 0.6, train_groups, train_tasks[:, 0])
    common = dict(
        direction="A->T", groups_train=train_groups, tasks_train=train_tasks,
        combinations="subsets", min_size=1, max_size=2, min_group_size=None,
        group_names=[0, 1], task_names=[0, 1, 2],
    )  # fmt: skip
    result = biasamp.multi_directional(
        groups=groups, tasks=tasks, tasks_pred=pred, n_perm=15, random_state=4, **common
    )
    s = SwapReplicates(15, random_state=4).rows(0, n)[:, :, None] == 1
    null = [
        biasamp.multi_directional(
            groups=groups,
            tasks=np.where(s[:, p], pred, tasks),
            tasks_pred=np.where(s[:, p], tasks, pred),
            **common,
        ).value  # fmt: skip
        for p in range(15)
    ]
    assert result.null.mean == pytest.approx(np.mean(null), abs=1e-12)
    expected = (1 + np.sum(np.array(null) >= result.value - 1e-12)) / 16
    assert result.p_value == pytest.approx(expected)


# --------------------------------------------------------------- the registry
def test_every_card_names_its_null_or_why_not():
    for card in METRICS.values():
        assert card.null in ("paired-swap", "random-ranking", "")
        if card.null:
            assert "n_perm" in card.knobs and "random_state" in card.knobs
            assert card.null_reason == ""
        else:
            assert len(card.null_reason) > 40
    assert METRICS["retrieval-bias"].null == "random-ranking"
    assert METRICS["directional-a2t"].null == "paired-swap"
    assert {card.alternative for card in METRICS.values() if card.null} == {"greater"}


def test_each_result_uses_the_alternative_its_card_names(train):
    rng = np.random.default_rng(13)
    groups, tasks, pred = planted_data(rng, 80)
    results = {
        "directional-a2t": directional(
            direction="A->T", groups=groups, tasks=tasks, tasks_pred=pred, n_perm=9,
            min_group_size=None,
        ),
        "mals": mals(
            groups_train=train[0], tasks_train=train[1], groups_pred=groups, tasks_pred=pred,
            groups=groups, tasks=tasks, n_perm=9, min_group_size=None,
        ),
        "df-amplification": biasamp.differential_fairness_amplification(
            groups=groups, labels=tasks, labels_pred=pred, n_perm=9, min_group_size=None
        ),
        "retrieval-bias": biasamp.retrieval_bias(
            scores=rng.random((5, 20)), groups=rng.integers(0, 2, 20), k=5, n_perm=9
        ),
    }  # fmt: skip
    for name, result in results.items():
        assert result.null.alternative == METRICS[name].alternative, name
        assert result.null.method == METRICS[name].null, name


def test_every_metric_with_a_null_takes_n_perm():
    import inspect

    for card in METRICS.values():
        function = getattr(biasamp, card.function)
        parameters = inspect.signature(function).parameters
        if card.null:
            assert parameters["n_perm"].default == 0, card.name
            assert "random_state" in parameters, card.name


def test_quiet():
    groups, tasks, pred = null_data(np.random.default_rng(0), 40)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        directional(
            direction="A->T", groups=groups, tasks=tasks, tasks_pred=pred, n_perm=5,
            min_group_size=None,
        )  # fmt: skip


# --------------------------------------------------------------- random rankings
def test_retrieval_null_mean_equals_the_mean_over_every_ranking():
    """Six items, k = 3: the mean MaxSkew@3 over all 720 orderings of the pool."""
    import itertools

    groups = np.array(["w", "w", "w", "m", "m", "x"])
    result = biasamp.retrieval_bias(
        scores=np.random.default_rng(0).random((4, 6)), groups=groups, k=3, n_perm=50,
        random_state=0,
    )  # fmt: skip
    codes = np.array([2, 2, 2, 0, 0, 1])  # m, x, w in sorted order
    shares = np.bincount(codes) / 6
    values = []
    for order in itertools.permutations(range(6)):
        counts = np.bincount(codes[list(order[:3])], minlength=3)
        with np.errstate(divide="ignore"):
            values.append(np.log(counts / 3 / shares).max())
    assert result.null.mean == pytest.approx(np.mean(values), abs=1e-12)
    assert result.params["significance"]["exact_mean"] is True


def test_retrieval_null_mean_equals_random_rankings_drawn_explicitly():
    rng = np.random.default_rng(1)
    groups = rng.choice(["a", "b", "c"], 40, p=[0.5, 0.3, 0.2])
    result = biasamp.retrieval_bias(
        scores=rng.random((3, 40)), groups=groups, k=8, n_perm=10, random_state=0
    )
    codes = np.unique(groups, return_inverse=True)[1]
    shares = np.bincount(codes) / 40
    rankings = np.argsort(rng.random((20_000, 40)), axis=1)[:, :8]  # uniform rankings
    counts = (codes[rankings][:, :, None] == np.arange(3)).sum(axis=1)
    with np.errstate(divide="ignore"):
        brute = np.log(counts / 8 / shares).max(axis=1)
    se = brute.std() / np.sqrt(len(brute))
    assert abs(result.null.mean - brute.mean()) < 4 * se


def test_retrieval_null_when_counts_cannot_be_enumerated():
    from biasamp.metrics._retrieval import random_ranking_null

    pool = np.array([300, 200, 150, 100, 50, 40, 30, 20])
    values, exact = random_ranking_null(
        pool, k=60, shares=pool / pool.sum(), n_queries=30, n_perm=200, random_state=0
    )
    assert np.isnan(exact) and values.shape == (200,)
    small, exact_small = random_ranking_null(
        pool[:2], k=5, shares=pool[:2] / 500, n_queries=30, n_perm=2000, random_state=0
    )
    assert abs(small.mean() - exact_small) < 4 * small.std() / np.sqrt(2000)


def test_retrieval_p_values_are_uniform_on_random_scores():
    rng = np.random.default_rng(5)
    p_values = []
    for i in range(300):
        groups = rng.choice(["a", "b"], 30, p=[0.6, 0.4])
        result = biasamp.retrieval_bias(
            scores=rng.random((15, 30)), groups=groups, k=5, n_perm=99, random_state=i
        )
        p_values.append(result.p_value)
    assert 0.02 <= np.mean(np.array(p_values) <= 0.05) <= 0.09


def test_retrieval_skewed_rankings_have_p_near_zero():
    groups = np.array(["a"] * 20 + ["b"] * 20)
    scores = np.tile(np.r_[np.ones(20), np.zeros(20)], (10, 1))  # every top 5 is all "a"
    result = biasamp.retrieval_bias(scores=scores, groups=groups, k=5, n_perm=99, random_state=0)
    assert result.p_value == pytest.approx(0.01)
    assert "distinguishable from chance: p = 0.01" in repr(result)


# --------------------------------------------------------------- metrics that refit attackers
def _refit_brute_force(function, kwargs, *, label_arg, output_arg, n_perm, seed):
    n = len(kwargs[label_arg])
    s = SwapReplicates(n_perm, random_state=seed).rows(0, n) == 1
    label, output = np.asarray(kwargs[label_arg]), np.asarray(kwargs[output_arg])
    null = []
    for p in range(n_perm):
        swapped = dict(kwargs)
        swapped[label_arg] = np.where(s[:, p], output, label)
        swapped[output_arg] = np.where(s[:, p], label, output)
        null.append(function(**swapped, random_state=seed).value)
    return np.array(null)


def test_dpa_and_leakage_swap_tests_equal_brute_force():
    rng = np.random.default_rng(14)
    groups, tasks, pred = planted_data(rng, 150)
    common = {"groups": groups, "tasks": tasks, "tasks_pred": pred, "n_iter": 2,
              "min_group_size": None}  # fmt: skip
    for function, extra in (
        (biasamp.dpa, {"direction": "A->T"}),
        (biasamp.leakage_amplification, {}),
    ):
        kwargs = {**common, **extra}
        result = function(**kwargs, n_perm=6, random_state=3)
        null = _refit_brute_force(
            function, kwargs, label_arg="tasks", output_arg="tasks_pred", n_perm=6, seed=3
        )
        assert result.null.mean == pytest.approx(null.mean(), abs=1e-12)
        assert result.p_value == pytest.approx((1 + np.sum(null >= result.value - 1e-12)) / 7)
        assert result.value == function(**kwargs, random_state=3).value


def test_dpa_swap_test_needs_outputs_shaped_as_the_labels():
    rng = np.random.default_rng(15)
    groups, tasks, _ = planted_data(rng, 50)
    scores = rng.random((50, 3))
    with pytest.raises(ValueError, match=r"n_perm: the swap test exchanges tasks and tasks_pred"):
        biasamp.dpa(
            direction="A->T", groups=groups, tasks=tasks, tasks_pred=scores, use_scores=True,
            n_perm=5, min_group_size=None,
        )  # fmt: skip


def test_df_amplification_swap_test_equals_brute_force():
    rng = np.random.default_rng(16)
    groups, labels, pred = planted_data(rng, 120)
    kwargs = {"groups": groups, "labels": labels, "labels_pred": pred, "min_group_size": None}
    result = biasamp.differential_fairness_amplification(**kwargs, n_perm=20, random_state=2)
    null = _refit_brute_force(
        biasamp.differential_fairness_amplification, kwargs, label_arg="labels",
        output_arg="labels_pred", n_perm=20, seed=2,
    )  # fmt: skip
    assert result.null.mean == pytest.approx(null.mean(), abs=1e-12)
    assert result.p_value == pytest.approx((1 + np.sum(null >= result.value - 1e-12)) / 21)


def test_lic_swaps_the_human_and_model_captions():
    from biasamp.text._lic import ERR_SWAP_ONE_CAPTION

    groups = np.array(["man", "woman"] * 30)
    places = np.array(["a kitchen", "a skatepark"])
    rng = np.random.default_rng(0)
    human = [f"a {g} in {p}" for g, p in zip(groups, rng.choice(places, 60), strict=True)]
    model = [f"a {g} in {places[int(g == 'man')]}" for g in groups]
    kwargs = {"captions_human": human, "captions_model": model, "groups": groups, "n_iter": 1}
    result = biasamp.lic(**kwargs, n_perm=3, random_state=1)
    null = _refit_brute_force(
        biasamp.lic, kwargs, label_arg="captions_human", output_arg="captions_model",
        n_perm=3, seed=1,
    )  # fmt: skip
    assert result.null.mean == pytest.approx(null.mean(), abs=1e-12)
    with pytest.raises(ValueError) as info:
        biasamp.lic(**{**kwargs, "captions_human": [[h, h] for h in human]}, n_perm=3)
    assert str(info.value) == ERR_SWAP_ONE_CAPTION.format(k=2)


def test_df_amplification_null_rejection_rate_is_five_percent():
    rng = np.random.default_rng(21)
    p_values = []
    for i in range(300):
        groups, labels, pred = null_data(rng, 200)
        result = biasamp.differential_fairness_amplification(
            groups=groups, labels=labels, labels_pred=pred, min_group_size=None, n_perm=99,
            random_state=i,
        )  # fmt: skip
        p_values.append(result.p_value)
    assert 0.02 <= np.mean(np.array(p_values) <= 0.05) <= 0.09


def test_df_amplification_planted_has_p_near_zero():
    rng = np.random.default_rng(22)
    groups, labels, pred = planted_data(rng, 400)
    result = biasamp.differential_fairness_amplification(
        groups=groups, labels=labels, labels_pred=pred, min_group_size=None, n_perm=99,
        random_state=0,
    )  # fmt: skip
    assert result.p_value == pytest.approx(0.01)
    assert "distinguishable from chance: p = 0.01" in repr(result)


def test_multi_attribute_null_rejection_rate_is_five_percent():
    rng = np.random.default_rng(23)
    train_groups = rng.integers(0, 2, 300)
    train_tasks = (rng.random((300, 3)) < 0.3 + 0.3 * train_groups[:, None]).astype(int)
    p_values = []
    for i in range(150):
        groups = rng.integers(0, 2, 150)
        latent = rng.random((150, 3)) < 0.3 + 0.3 * groups[:, None]
        label, output = (
            np.where(rng.random((150, 3)) < 0.2, 1 - latent, latent).astype(int) for _ in range(2)
        )
        result = biasamp.multi_directional(
            direction="A->T", groups=groups, tasks=label, tasks_pred=output,
            groups_train=train_groups, tasks_train=train_tasks, group_names=[0, 1],
            task_names=[0, 1, 2], min_group_size=None, n_perm=99, random_state=i,
            absolute=False,
        )  # fmt: skip
        p_values.append(result.p_value)
    assert 0.01 <= np.mean(np.array(p_values) <= 0.05) <= 0.1


def test_multi_attribute_gives_each_result_the_test_of_its_own_call():
    rng = np.random.default_rng(24)
    n = 120
    groups = rng.integers(0, 2, n)
    tasks = rng.integers(0, 2, (n, 3))
    tasks_pred = np.where(rng.random((n, 3)) < 0.8, tasks, 1 - tasks)
    groups_pred = np.where(rng.random(n) < 0.9, groups, 1 - groups)
    common = dict(
        groups_train=groups, tasks_train=tasks, groups=groups, tasks=tasks,
        min_group_size=None, n_perm=20, random_state=0,
    )  # fmt: skip
    both = biasamp.multi_attribute(groups_pred=groups_pred, tasks_pred=tasks_pred, **common)
    single = {
        "multi-mals": biasamp.multi_mals(groups_pred=groups_pred, tasks_pred=tasks_pred, **common),
        "multi-a2t": biasamp.multi_directional(
            direction="A->T", tasks_pred=tasks_pred, groups_pred=groups_pred, **common
        ),
        "multi-t2a": biasamp.multi_directional(direction="T->A", groups_pred=groups_pred, **common),
    }
    for key, result in single.items():
        assert both[key].null == result.null, key
        assert both[key].p_value == result.p_value, key


@pytest.mark.parametrize("metric", ["dpa", "leakage", "lic", "dbac"])
def test_refitted_metrics_refuse_absurd_n_perm_before_any_work(metric):
    import time

    rng = np.random.default_rng(0)
    groups, tasks, pred = null_data(rng, 40)
    captions = [f"a person with {t}" for t in tasks]
    calls = {
        "dpa": lambda n: biasamp.dpa(
            direction="A->T", groups=groups, tasks=tasks, tasks_pred=pred, n_perm=n
        ),
        "leakage": lambda n: biasamp.leakage_amplification(
            groups=groups, tasks=tasks, tasks_pred=pred, n_perm=n
        ),
        "lic": lambda n: biasamp.lic(
            captions_human=captions, captions_model=captions, groups=groups, n_perm=n
        ),
        "dbac": lambda n: biasamp.dbac(
            direction="T->A", captions_human=captions, captions_model=captions,
            groups=groups, n_perm=n,
        ),
    }  # fmt: skip
    start = time.perf_counter()
    with pytest.raises(ValueError, match=r"n_perm: expected at most 10000000 "):
        calls[metric](10**13)
    with pytest.raises(ValueError, match=r"n_perm=9000000 "):  # within the cap: memory
        calls[metric](9_000_000)
    assert time.perf_counter() - start < 10.0
