"""BiasAmp_MALS and bias scores against Zhao et al. (2017) and its published results."""

import re

import numpy as np
import pandas as pd
import pytest

from biasamp import bias_scores, mals
from biasamp.datasets import load_mals_coco_results
from biasamp.inputs import LabelWarning
from biasamp.inputs._label_matrix import WARN_SINGLE_GROUP
from biasamp.metrics._mals import ERR_EMPTY_TASK_ROWS, ERR_MALS_TRAIN, ERR_MARGIN


def _ratio_rows(objects, man_share):
    """Weighted rows whose bias score b(t, man) equals ``man_share`` for each object."""
    groups = ["man", "woman"] * len(objects)
    tasks = [o for o in objects for _ in range(2)]
    weights = np.ravel(np.c_[man_share, 1 - np.asarray(man_share)])
    return groups, tasks, weights


@pytest.mark.parametrize(
    ("column", "value", "violations"),
    [("gender_ratio_before_RBA", 0.031743, 40), ("gender_ratio_after_RBA", 0.021695, 24)],
)
def test_reproduces_published_coco_results(column, value, violations):
    res = load_mals_coco_results()
    g, t, w_train = _ratio_rows(res["object"], res["training_ratio"])
    _, _, w_pred = _ratio_rows(res["object"], res[column])
    result = mals(
        groups_train=g,
        tasks_train=t,
        sample_weight_train=w_train,
        groups_pred=g,
        tasks_pred=t,
        sample_weight=w_pred,
    )
    assert round(result.value, 6) == value
    assert result.violations == violations
    assert result.n_tasks == 66
    assert result.by_pair["contribution"].sum() == pytest.approx(result.value)


def test_keyboard_ratios():
    res = load_mals_coco_results().set_index("object")
    assert res.loc["keyboard"].round(3).tolist() == [0.695, 0.829, 0.708]


def test_cooking_example_and_threshold():
    # b*(cooking, woman) = .66 and b~ = .84: amplified by .18, one task
    result = mals(
        groups_train=["w", "m"],
        tasks_train=["cook", "cook"],
        sample_weight_train=[66, 34],
        groups_pred=["w", "m"],
        tasks_pred=["cook", "cook"],
        sample_weight=[84, 16],
    )
    assert result.value == pytest.approx(0.18)
    assert result.by_pair.set_index("group")["biased"].to_dict() == {"m": False, "w": True}


def test_exact_threshold_is_not_biased():
    # b* = 1/2 exactly: no biased pair, value 0 whatever the predictions
    result = mals(
        groups_train=["w", "m"],
        tasks_train=["x", "x"],
        groups_pred=["w", "w"],
        tasks_pred=["x", "x"],
    )
    assert result.value == 0.0
    assert result.n_pairs == 0
    assert result.violations == 1


def test_shortcoming_2_gives_negative_mals():
    # Wang et al. section 3.2: A1: 60 T=0, 30 T=1; A2: 10, 20. b*(T, A1) = 30/50 > 1/2.
    # Model: T^=0 on A1, T^=1 on A2 -> b~(T, A1) = 0/30; MALS = (0 - .6) / |T|, |T| = 1
    result = mals(
        groups_train=["A1", "A2"],
        tasks_train=np.array([[1], [1]]),
        sample_weight_train=[30, 20],
        groups_pred=["A2"],
        tasks_pred=np.array([[1]]),
        sample_weight=[30],
    )
    assert result.value == pytest.approx(-0.6)


def test_never_predicted_task_counts_zero_but_stays_in_divisor():
    tasks_train = np.array([[1, 0], [1, 0], [0, 1], [0, 1], [1, 0]])
    groups_train = ["m", "m", "w", "w", "w"]
    # task 1 is never predicted
    result = mals(
        groups_train=groups_train,
        tasks_train=tasks_train,
        groups_pred=["m", "m", "m"],
        tasks_pred=np.array([[1, 0], [1, 0], [0, 0]]),
    )
    # task 0: b*(m) = 2/3 biased, b~(m) = 1 -> +1/3; task 1: b*(w) = 1 biased, never predicted
    assert result.value == pytest.approx((1 / 3) / 2)
    assert result.n_empty == 1


def test_three_groups_violation_any_group():
    result = mals(
        groups_train=["a", "b", "c"],
        tasks_train=["x", "x", "x"],
        sample_weight_train=[50, 30, 20],
        groups_pred=["a", "b", "c"],
        tasks_pred=["x", "x", "x"],
        sample_weight=[50, 24, 26],
    )
    assert result.value == 0.0  # a unchanged, b and c are below 1/3
    assert result.violations == 1  # b moved by .06


def test_errors():
    with pytest.raises(ValueError, match=re.escape(ERR_MALS_TRAIN)):
        mals(groups_pred=["a"], tasks_pred=["x"])
    with pytest.raises(ValueError, match=re.escape(ERR_MARGIN.format(got=2))):
        mals(
            groups_train=G2, tasks_train=["x", "x"], groups_pred=G2, tasks_pred=["x", "x"], margin=2
        )
    with pytest.raises(ValueError, match="tasks_pred: 1 label"):
        mals(groups_train=G2, tasks_train=["x", "x"], groups_pred=G2, tasks_pred=["x", "y"])


G2 = ["a", "b"]


def test_single_group_warns():
    with pytest.warns(
        LabelWarning, match=re.escape(WARN_SINGLE_GROUP.format(arg="groups_train", name="a"))
    ):
        result = mals(groups_train=["a"], tasks_train=["x"], groups_pred=["a"], tasks_pred=["x"])
    assert result.value == 0.0


def test_bias_scores_values_and_empty_rule():
    g = ["m", "w", "w", "m", "m"]
    t = pd.DataFrame({"cook": [1, 1, 1, 0, 0], "ski": [0, 0, 0, 1, 0], "sew": [0, 0, 0, 0, 0]})
    scores = bias_scores(g, tasks=t)
    assert list(scores.index) == ["cook", "ski"]
    assert scores.loc["cook"].tolist() == pytest.approx([1 / 3, 2 / 3])
    assert scores.loc["ski"].tolist() == [1.0, 0.0]
    assert scores.sum(axis=1).tolist() == pytest.approx([1.0, 1.0])
    assert bias_scores(g, tasks=t, empty="nan").loc["sew"].isna().all()
    with pytest.raises(
        ValueError, match=re.escape(ERR_EMPTY_TASK_ROWS.format(count=1, examples=["sew"]))
    ):
        bias_scores(g, tasks=t, empty="error")


def test_bias_scores_positional_tasks_is_deprecated():
    g, t = ["m", "w", "w"], ["cook", "cook", "ski"]
    with pytest.deprecated_call(match="passing tasks by position is deprecated"):
        old = bias_scores(g, t)
    pd.testing.assert_frame_equal(old, bias_scores(g, tasks=t))
    with pytest.raises(TypeError, match="missing the keyword argument tasks"):
        bias_scores(g)


def test_mals_accepts_evaluation_ground_truth():
    kw = {"groups_train": ["m", "w", "m"], "tasks_train": ["a", "a", "b"]}
    pred = {"groups_pred": ["m", "m", "w"], "tasks_pred": ["a", "b", "b"]}
    with_truth = mals(**kw, **pred, groups=["m", "w", "w"], tasks=["a", "a", "b"])
    assert with_truth.value == mals(**kw, **pred).value
    with pytest.raises(ValueError, match="Mismatched lengths"):
        mals(**kw, **pred, tasks=["a", "b"])
