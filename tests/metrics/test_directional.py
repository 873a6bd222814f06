"""BiasAmp-> against the worked examples of Wang & Russakovsky (2021) and the DPA paper."""

import re

import numpy as np
import pandas as pd
import pytest

from biasamp import CountTable, MissingGroupWarning, directional, directional_from_counts
from biasamp.metrics._directional import (
    ERR_ALL_EMPTY,
    ERR_NEEDS_PRED,
    ERR_TIE_RULE,
)
from biasamp.registry import ERR_DIRECTION


def _rows(cells):
    """Weighted rows from {(group, task, task_pred): count}."""
    groups, tasks, preds, weights = [], [], [], []
    for (g, t, p), w in cells.items():
        groups.append(g)
        tasks.append([t])
        preds.append([p])
        weights.append(w)
    return groups, np.array(tasks), np.array(preds), np.array(weights, dtype=float)


def test_shortcoming_1_three_groups():
    # A1: 10 T=0, 40 T=1 (predicted correctly); A2: 40/10, predicted T=0; A3: 10/20, predicted T=1.
    g, t, p, w = _rows(
        {
            ("A1", 0, 0): 10,
            ("A1", 1, 1): 40,
            ("A2", 0, 0): 40,
            ("A2", 1, 0): 10,
            ("A3", 0, 1): 10,
            ("A3", 1, 1): 20,
        }
    )
    a2t = directional(direction="A->T", groups=g, tasks=t, tasks_pred=p, sample_weight=w)
    # y = (+1, -1, +1); terms (0, 0.2, 1/3); mean over 3 pairs = 0.1778
    assert a2t.value == pytest.approx((0 + 0.2 + 1 / 3) / 3)
    assert round(a2t.value, 4) == 0.1778
    assert a2t.by_pair["y"].tolist() == [1, -1, 1]
    assert a2t.by_pair["delta"].tolist() == pytest.approx([0.0, -0.2, 1 / 3])
    # T->A with perfect group predictions is 0 (section 4.1)
    t2a = directional(direction="T->A", groups=g, tasks=t, groups_pred=g, sample_weight=w)
    assert t2a.value == 0.0


def test_shortcoming_2_two_groups():
    g, t, p, w = _rows(
        {
            ("A1", 0, 0): 60,
            ("A1", 1, 0): 30,
            ("A2", 0, 1): 10,
            ("A2", 1, 1): 20,
        }
    )
    a2t = directional(direction="A->T", groups=g, tasks=t, tasks_pred=p, sample_weight=w)
    assert a2t.value == pytest.approx(1 / 3)
    assert a2t.by_pair["y"].tolist() == [-1, 1]  # A2 is the group correlated with T
    t2a = directional(direction="T->A", groups=g, tasks=t, groups_pred=g, sample_weight=w)
    assert t2a.value == 0.0


def painting_counts(p):
    """Wang et al. figure 2: 30 women and 10 men paint, 10 women and 30 men do not.

    The model predicts a share ``p`` of the painting women as painting and the
    others as not painting; every other prediction is correct.
    """
    groups = ["woman", "woman", "woman", "man", "man"]
    tasks = ["paint", "paint", "no", "paint", "no"]
    preds = ["paint", "no", "no", "paint", "no"]
    weights = [30 * p, 30 * (1 - p), 10, 10, 30]
    return groups, tasks, preds, weights


@pytest.mark.parametrize(
    ("p", "expected"),
    [
        # P(paint|woman) = .75, P(paint|man) = .25; with share p of women predicted painting:
        # woman x paint term = 0.75 p - 0.75; woman x no term = -(1 - 0.75 p - 0.25);
        # man terms are 0; mean over 4 pairs = (1.5 p - 1.5) / 4.
        (0.0, -0.375),
        (0.5, -0.1875),
        (1.0, 0.0),
    ],
)
def test_painting_example_a_to_t(p, expected):
    g, t, pr, w = painting_counts(p)
    result = directional(direction="A->T", groups=g, tasks=t, tasks_pred=pr, sample_weight=w)
    assert result.value == pytest.approx(expected)


def test_painting_over_prediction_is_positive():
    # the figure's right end: all 40 women predicted painting (10 of them wrongly)
    groups = ["woman", "woman", "man", "man"]
    tasks = ["paint", "no", "paint", "no"]
    preds = ["paint", "paint", "paint", "no"]
    result = directional(
        direction="A->T",
        groups=groups,
        tasks=tasks,
        tasks_pred=preds,
        sample_weight=[30, 10, 10, 30],
    )
    # woman x paint: 1 - .75 = .25; woman x no: -(0 - .25) = .25; men 0 -> mean .125
    assert result.value == pytest.approx(0.125)


# --- COMPAS counts of the DPA paper (Table 6) and BA-> of Table 7 -----------------------
# A = race (0 Caucasian, 1 African-American), T = recidivism (0 no, 1 yes).
# joint[t][a]: ground-truth counts; groups_pred[t][a]: counts of A^ = a among rows with T = t;
# tasks_pred[a][t]: counts of T^ = t among rows with A = a.
COMPAS = {
    "unbalanced": {
        "joint": [[1229, 1402], [874, 1773]],
        "groups_pred": [[1056, 1575], [1115, 1532]],
        "tasks_pred": [[1165, 938], [1546, 1629]],
    },
    "balanced": {
        "joint": [[874, 874], [874, 874]],
        "groups_pred": [[1083, 665], [896, 852]],
        "tasks_pred": [[1145, 603], [948, 800]],
    },
}


def _coupled_rows(true_counts, pred_counts):
    """Weighted (true, pred) label rows of a binary variable with the given marginals."""
    both0 = min(true_counts[0], pred_counts[0])
    cells = {(0, 0): both0, (0, 1): true_counts[0] - both0, (1, 0): pred_counts[0] - both0}
    cells[(1, 1)] = sum(true_counts) - sum(cells.values())
    return [(k, v) for k, v in cells.items() if v > 0]


def compas(name, direction):
    table = COMPAS[name]
    groups, tasks, preds, weights = [], [], [], []
    if direction == "T->A":
        for t in (0, 1):
            for (a, a_hat), w in _coupled_rows(table["joint"][t], table["groups_pred"][t]):
                groups.append(a), tasks.append(t), preds.append(a_hat), weights.append(w)
        kw = {"groups_pred": preds}
    else:
        for a in (0, 1):
            true_t = [table["joint"][0][a], table["joint"][1][a]]
            for (t, t_hat), w in _coupled_rows(true_t, table["tasks_pred"][a]):
                groups.append(a), tasks.append(t), preds.append(t_hat), weights.append(w)
        kw = {"tasks_pred": preds}
    return directional(direction=direction, groups=groups, tasks=tasks, sample_weight=weights, **kw)


def test_compas_unbalanced_matches_table_7():
    t2a = compas("unbalanced", "T->A")
    a2t = compas("unbalanced", "A->T")
    # worked by hand: T->A = -(2 * 173/2631 + 2 * 241/2647) / 4; A->T = -(64/2103 + 144/3175) / 2
    assert t2a.value == pytest.approx(-(2 * 173 / 2631 + 2 * 241 / 2647) / 4)
    assert a2t.value == pytest.approx(-(64 / 2103 + 144 / 3175) / 2)
    assert round(t2a.value, 3) == -0.078  # Table 7
    assert round(a2t.value, 3) == -0.038  # Table 7


@pytest.mark.parametrize("direction", ["T->A", "A->T"])
def test_compas_balanced_is_zero(direction):
    # balanced labels: P(a, t) = P(a) P(t) exactly, every pair ties, BA-> = 0 (Table 7)
    result = compas("balanced", direction)
    assert (result.by_pair["y"] == 0).all()
    assert result.value == 0.0


def test_tie_rule_paper_uses_minus_delta():
    g, t, p, w = ["a", "a", "b", "b"], ["x", "y", "x", "y"], ["x", "x", "x", "y"], [1, 1, 1, 1]
    zero = directional(direction="A->T", groups=g, tasks=t, tasks_pred=p, sample_weight=w)
    paper = directional(
        direction="A->T", groups=g, tasks=t, tasks_pred=p, sample_weight=w, tie_rule="paper"
    )
    assert zero.value == 0.0
    # a: delta(x) = +.5, delta(y) = -.5; b: 0, 0 -> paper: mean(-.5, +.5, 0, 0) = 0
    assert paper.value == 0.0
    w2 = [2, 1, 1, 2]  # still ties? P(a,x)=2/6, P(a)P(x)=.5*.5 -> not a tie
    assert directional(direction="A->T", groups=g, tasks=t, tasks_pred=p, sample_weight=w2).by_pair[
        "y"
    ].tolist() == [1, -1, -1, 1]


def test_signs_come_from_training_split():
    g = ["m", "m", "w", "w"]
    t = ["ski", "cook", "cook", "cook"]
    pred = ["ski", "ski", "cook", "cook"]
    own = directional(direction="A->T", groups=g, tasks=t, tasks_pred=pred)
    flipped = directional(
        direction="A->T",
        groups=g,
        tasks=t,
        tasks_pred=pred,
        groups_train=["w", "w", "m", "m"],
        tasks_train=t,
    )
    assert own.params["signs_from"] == "evaluation"
    assert flipped.params["signs_from"] == "train"
    assert flipped.value == pytest.approx(-own.value)


def test_counts_train_from_labour_statistics_table():
    joint = pd.DataFrame({"he": [90, 10], "she": [10, 90]}, index=["cook_x", "nurse_x"])
    g = ["he", "she", "he", "she"]
    t = ["cook_x", "nurse_x", "nurse_x", "cook_x"]
    pred = ["cook_x", "nurse_x", "cook_x", "nurse_x"]  # pushes each group to its stereotype
    result = directional(direction="A->T", groups=g, tasks=t, tasks_pred=pred, counts_train=joint)
    # he: P(cook|he) true .5 pred 1 -> +.5 with y=+1; P(nurse|he) .5 -> 0, y=-1 -> +.5
    assert result.value == pytest.approx(0.5)


def test_empty_group_left_out_and_reported():
    g = np.array([[1, 0, 0], [1, 0, 0], [0, 1, 0], [0, 1, 0]])  # group 2 never occurs
    t = np.array([[1], [0], [0], [1]])
    p = np.array([[1], [1], [0], [0]])
    with pytest.warns(MissingGroupWarning, match="no rows in the evaluation split: 2"):
        result = directional(
            direction="A->T",
            groups=g,
            tasks=t,
            tasks_pred=p,
            groups_train=np.array([[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 0, 0]]),
            tasks_train=np.array([[1], [0], [1], [0]]),
        )
    assert result.missing_groups == {"evaluation": (2,)}
    assert result.excluded_pairs.to_dict("records") == [
        {"group": 2, "task": 0, "split": "evaluation"}
    ]
    assert result.n_empty == 1
    assert result.n_pairs == 2
    assert result.by_pair["empty"].tolist() == [False, False, True]
    assert np.isclose(result.by_pair["contribution"].sum(), result.value)
    with pytest.raises(ValueError, match="empty conditioning set"):
        directional(
            direction="A->T",
            groups=g,
            tasks=t,
            tasks_pred=p,
            empty="error",
            groups_train=np.array([[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 0, 0]]),
            tasks_train=np.array([[1], [0], [1], [0]]),
        )


def test_all_empty_raises():
    table = CountTable.from_arrays(
        groups=np.array([[0, 0]]), tasks=np.array([[1]]), tasks_pred=np.array([[1]])
    )
    with pytest.raises(ValueError, match=re.escape(ERR_ALL_EMPTY)):
        directional_from_counts(table, direction="A->T")


def test_soft_predictions_give_expected_counts():
    g = ["m", "m", "w", "w"]
    t = np.array([[1], [0], [0], [1]])
    hard = directional(
        direction="A->T", groups=g, tasks=t, tasks_pred=np.array([[1], [1], [0], [1]])
    )
    soft = directional(
        direction="A->T",
        groups=g,
        tasks=t,
        soft=True,
        tasks_pred=np.array([[1.0], [1.0], [0.0], [1.0]]),
    )
    assert soft.value == hard.value
    half = directional(
        direction="A->T",
        groups=g,
        tasks=t,
        soft=True,
        tasks_pred=np.array([[0.5], [0.5], [0.5], [0.5]]),
    )
    # P^(T|m) = .5 = P(T|m): no amplification anywhere
    assert half.value == 0.0
    with pytest.raises(ValueError, match="indicator values must be 0 or 1"):
        directional(direction="A->T", groups=g, tasks=t, tasks_pred=np.full((4, 1), 0.5))


@pytest.mark.parametrize("bad", ["A-T", "up", ""])
def test_bad_direction(bad):
    with pytest.raises(ValueError, match="direction: expected"):
        directional(direction=bad, groups=["a"], tasks=["b"], tasks_pred=["b"])
    assert "got" in ERR_DIRECTION


def test_direction_aliases():
    kw = dict(groups=["a", "b"], tasks=["x", "y"], tasks_pred=["x", "x"], groups_pred=["a", "a"])
    assert directional(direction="A→T", **kw).direction == "A->T"
    assert directional(direction="g->m", **kw).direction == "A->T"
    assert directional(direction="M->G", **kw).direction == "T->A"


def test_needs_predictions():
    with pytest.raises(
        ValueError, match=re.escape(ERR_NEEDS_PRED.format(direction="A->T", arg="tasks_pred"))
    ):
        directional(direction="A->T", groups=["a"], tasks=["x"], groups_pred=["a"])
    with pytest.raises(ValueError, match=re.escape(ERR_TIE_RULE.format(got="x"))):
        directional(direction="A->T", groups=["a"], tasks=["x"], tasks_pred=["x"], tie_rule="x")


def test_tie_rule_matters_for_a_group_absent_from_training():
    # group c never occurs in training: every (c, t) pair is a tie.
    groups_train = np.array([[1, 0, 0], [0, 1, 0]])
    tasks_train = np.array([[1, 0], [0, 1]])
    groups = np.array([[1, 0, 0], [0, 0, 1]])
    tasks = np.array([[1, 0], [1, 0]])
    tasks_pred = np.array([[1, 0], [1, 1]])  # c: y wrongly added
    kw = dict(
        direction="A->T",
        groups=groups,
        tasks=tasks,
        tasks_pred=tasks_pred,
        groups_train=groups_train,
        tasks_train=tasks_train,
    )
    zero = directional(**kw)
    paper = directional(**kw, tie_rule="paper")
    # defined pairs: (a, x), (a, y), (c, x), (c, y); b has no evaluation rows (2 pairs left out)
    assert zero.n_pairs == 4 and zero.n_empty == 2
    assert zero.value == 0.0  # a: deltas 0; c: ties contribute 0
    assert paper.value == pytest.approx(-1 / 4)  # (c, y): delta +1, tie -> -delta


@pytest.mark.parametrize("direction", ["A->T", "T->A"])
def test_huge_training_weights_give_the_same_value_as_unit_weights(direction):
    # Weights near 1e160 made n * c(a, t) overflow to inf, and the signs became NaN.
    rng = np.random.default_rng(3)
    groups = rng.choice(["m", "w"], 60)
    tasks = rng.choice(["a", "b", "c"], 60)
    common = dict(
        direction=direction,
        groups=groups,
        tasks=tasks,
        groups_pred=groups[::-1],
        tasks_pred=tasks[::-1],
        groups_train=groups,
        tasks_train=tasks,
    )
    plain = directional(**common)
    huge = directional(
        **common, sample_weight_train=np.full(60, 1e160), sample_weight=np.full(60, 1e160)
    )
    assert np.isfinite(huge.value)
    assert huge.value == pytest.approx(plain.value, abs=1e-12)
    assert (huge.by_pair["y"].to_numpy() == plain.by_pair["y"].to_numpy()).all()
