"""directional(train_rows=...): which rows of the sign split count (hand-worked values).

Training rows (groups a/b as 0/1 columns, tasks t1/t2 as 0/1 columns)::

    r1: a, t1      r2: b, t2      r3: a, t2      r4: no group, no task      r5: b, no task

* ``"all"`` (n = 5): c(a) = c(b) = 2, c(t1) = 1, c(t2) = 2;
  P(a,t1) = .2 > .08, P(a,t2) = .2 > .16, P(b,t1) = 0 < .08, P(b,t2) = .2 > .16
  -> y = [[+1, +1], [-1, +1]].
* ``"labelled"`` drops r4 (n = 4): P(a,t1) = .25 > .125, P(a,t2) = .25 = .25,
  P(b,t1) = 0 < .125, P(b,t2) = .25 = .25 -> y = [[+1, 0], [-1, 0]].
* ``"with_task"`` also drops r5 (n = 3): c(a) = 2, c(b) = 1;
  P(a,t1) = 1/3 > 2/9, P(a,t2) = 1/3 < 4/9, P(b,t1) = 0 < 1/9, P(b,t2) = 1/3 > 2/9
  -> y = [[+1, -1], [-1, +1]].

Evaluation (A->T): a: truth t1, t2, predictions {t1, t2}, {t2} -> delta(a,t1) = 0,
delta(a,t2) = .5; b: truth t2, t1, predictions {t1, t2}, {t1} -> delta(b,t1) = .5,
delta(b,t2) = 0. Value = mean of y * delta: all 0, labelled -.125, with_task -.25.
"""

import re

import numpy as np
import pandas as pd
import pytest

from biasamp import directional
from biasamp.metrics._splits import ERR_TRAIN_ROWS, ERR_TRAIN_ROWS_EMPTY

G_TRAIN = pd.DataFrame({"a": [1, 0, 1, 0, 0], "b": [0, 1, 0, 0, 1]})
T_TRAIN = pd.DataFrame({"t1": [1, 0, 0, 0, 0], "t2": [0, 1, 1, 0, 0]})
G_EVAL = pd.DataFrame({"a": [1, 1, 0, 0], "b": [0, 0, 1, 1]})
T_EVAL = pd.DataFrame({"t1": [1, 0, 0, 1], "t2": [0, 1, 1, 0]})
T_PRED = pd.DataFrame({"t1": [1, 0, 1, 1], "t2": [1, 1, 1, 0]})

EXPECTED = {
    "all": ([[1, 1], [-1, 1]], 0.0, 5),
    "labelled": ([[1, 0], [-1, 0]], -0.125, 4),
    "with_task": ([[1, -1], [-1, 1]], -0.25, 3),
}


def _y(result):
    frame = result.by_pair.set_index(["group", "task"])["y"]
    return [[int(frame[(g, t)]) for t in ("t1", "t2")] for g in ("a", "b")]


@pytest.mark.parametrize("rule", list(EXPECTED))
def test_training_rows_rule_hand_worked(rule):
    y, value, n_train = EXPECTED[rule]
    result = directional(
        direction="A->T",
        groups=G_EVAL,
        tasks=T_EVAL,
        tasks_pred=T_PRED,
        groups_train=G_TRAIN,
        tasks_train=T_TRAIN,
        train_rows=rule,
    )
    assert _y(result) == y
    assert result.value == pytest.approx(value, abs=1e-12)
    assert result.n_train == n_train
    assert result.params["train_rows"] == rule


def test_default_is_labelled():
    result = directional(
        direction="A->T",
        groups=G_EVAL,
        tasks=T_EVAL,
        tasks_pred=T_PRED,
        groups_train=G_TRAIN,
        tasks_train=T_TRAIN,
    )
    assert result.value == pytest.approx(-0.125, abs=1e-12)


@pytest.mark.parametrize("rule", list(EXPECTED))
def test_signs_from_evaluation_follow_the_rule(rule):
    # no training side: the same five rows as evaluation ground truth fix the signs
    result = directional(
        direction="A->T",
        groups=G_TRAIN,
        tasks=T_TRAIN,
        tasks_pred=T_TRAIN,
        train_rows=rule,
    )
    assert _y(result) == EXPECTED[rule][0]
    assert result.params["signs_from"] == "evaluation"


def test_weighted_rows_are_dropped_with_their_weights():
    w = np.array([2.0, 1.0, 1.0, 5.0, 3.0])
    rows = np.repeat(np.arange(5), w.astype(int))
    weighted = directional(
        direction="A->T",
        groups=G_EVAL,
        tasks=T_EVAL,
        tasks_pred=T_PRED,
        groups_train=G_TRAIN,
        tasks_train=T_TRAIN,
        sample_weight_train=w,
        train_rows="with_task",
    )
    repeated = directional(
        direction="A->T",
        groups=G_EVAL,
        tasks=T_EVAL,
        tasks_pred=T_PRED,
        groups_train=G_TRAIN.iloc[rows].reset_index(drop=True),
        tasks_train=T_TRAIN.iloc[rows].reset_index(drop=True),
        train_rows="with_task",
    )
    assert weighted.value == pytest.approx(repeated.value, abs=1e-12)


def test_one_d_groups_labelled_equals_all():
    groups = ["a", "b", "a", "b"]
    tasks = np.array([[1], [0], [0], [1]])
    pred = np.array([[1], [1], [0], [0]])
    values = {
        rule: directional(
            direction="A->T",
            groups=groups,
            tasks=tasks,
            tasks_pred=pred,
            groups_train=["a", "a", "b", "b", "a"],
            tasks_train=np.array([[1], [1], [0], [1], [0]]),
            train_rows=rule,
        ).value
        for rule in ("labelled", "all")
    }
    assert values["labelled"] == values["all"]


def test_bad_rule_and_nothing_kept():
    with pytest.raises(ValueError, match=re.escape(ERR_TRAIN_ROWS.format(got="some"))):
        directional(
            direction="A->T", groups=G_EVAL, tasks=T_EVAL, tasks_pred=T_PRED, train_rows="some"
        )
    empty = pd.DataFrame({"t1": [0, 0, 0, 0, 0], "t2": [0, 0, 0, 0, 0]})
    with pytest.raises(
        ValueError,
        match=re.escape(
            ERR_TRAIN_ROWS_EMPTY.format(rule="with_task", n=5, arg="groups_train", what="a task")
        ),
    ):
        directional(
            direction="A->T",
            groups=G_EVAL,
            tasks=T_EVAL,
            tasks_pred=T_PRED,
            groups_train=G_TRAIN,
            tasks_train=empty,
            train_rows="with_task",
        )
