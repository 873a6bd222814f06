"""Group sizes per split on every metric's result, and its SmallGroupWarning (hand-counted).

The global pytest filter ignores SmallGroupWarning (hand-worked tests use a few rows);
``pytest.warns`` records it whatever the filter says, so every metric's warning is
asserted here.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import biasamp
from biasamp import SmallGroupWarning
from biasamp.inputs._group_sizes import DEFAULT_MIN_GROUP_SIZE, ERR_MIN_GROUP_SIZE
from biasamp.metrics._group_sizes import checked_splits, size_messages

# training: m m m w w, weights 1 2 3 4 5 -> rows m 3, w 2; weight m 6, w 9
G_TRAIN = ["m", "m", "m", "w", "w"]
T_TRAIN = ["cook", "ski", "cook", "cook", "ski"]
W_TRAIN = [1.0, 2.0, 3.0, 4.0, 5.0]
# evaluation: truth m w w m w, predicted m m w w w, weights 2 1 1 3 0.5
#   rows: truth m 2, w 3; predicted m 2, w 3
#   weight: truth m 5, w 2.5; predicted m 3, w 4.5
G_EVAL = ["m", "w", "w", "m", "w"]
T_EVAL = ["cook", "cook", "ski", "ski", "cook"]
G_PRED = ["m", "m", "w", "w", "w"]
T_PRED = ["cook", "ski", "ski", "cook", "cook"]
W_EVAL = [2.0, 1.0, 1.0, 3.0, 0.5]
# multi-label tasks for the multi-attribute metrics (same rows)
M_TRAIN = np.array([[1, 1], [0, 1], [1, 0], [1, 1], [0, 1]])
M_EVAL = np.array([[1, 0], [1, 1], [0, 1], [1, 1], [1, 0]])
M_PRED = np.array([[1, 1], [0, 1], [0, 1], [1, 0], [1, 0]])

ROWS = {
    "train": {"m": 3.0, "w": 2.0},
    "evaluation": {"m": 2.0, "w": 3.0},
    "predicted": {"m": 2.0, "w": 3.0},
}
WEIGHTS = {
    "train": {"m": 6.0, "w": 9.0},
    "evaluation": {"m": 5.0, "w": 2.5},
    "predicted": {"m": 3.0, "w": 4.5},
}


def _quiet(function, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SmallGroupWarning)
        return function(**kwargs)


def _sizes(result, splits):
    assert list(result.group_sizes.columns) == list(splits)
    assert result.group_sizes.index.name == "group"
    return result.group_sizes.to_dict()


def _mals(weighted, *, with_truth=True, **kwargs):
    return biasamp.mals(
        groups_train=G_TRAIN,
        tasks_train=T_TRAIN,
        sample_weight_train=W_TRAIN if weighted else None,
        groups=G_EVAL if with_truth else None,
        tasks=T_EVAL if with_truth else None,
        groups_pred=G_PRED,
        tasks_pred=T_PRED,
        sample_weight=W_EVAL if weighted else None,
        **kwargs,
    )


def _directional(weighted, direction, **kwargs):
    return biasamp.directional(
        direction=direction,
        groups_train=G_TRAIN,
        tasks_train=T_TRAIN,
        sample_weight_train=W_TRAIN if weighted else None,
        groups=G_EVAL,
        tasks=T_EVAL,
        groups_pred=G_PRED,
        tasks_pred=T_PRED,
        sample_weight=W_EVAL if weighted else None,
        **kwargs,
    )


def _multi_kwargs(weighted):
    return dict(
        groups_train=G_TRAIN,
        tasks_train=M_TRAIN,
        sample_weight_train=W_TRAIN if weighted else None,
        groups=G_EVAL,
        tasks=M_EVAL,
        groups_pred=G_PRED,
        tasks_pred=M_PRED,
        sample_weight=W_EVAL if weighted else None,
        combinations="subsets",
    )


@pytest.mark.parametrize(("weighted", "expected"), [(False, ROWS), (True, WEIGHTS)])
def test_pairwise_sizes_per_split(weighted, expected):
    mals = _quiet(_mals, weighted=weighted)
    assert _sizes(mals, ["train", "evaluation", "predicted"]) == expected
    mals_no_truth = _quiet(_mals, weighted=weighted, with_truth=False)
    assert _sizes(mals_no_truth, ["train", "predicted"]) == {
        k: expected[k] for k in ("train", "predicted")
    }
    a2t = _quiet(_directional, weighted=weighted, direction="A->T")
    assert _sizes(a2t, ["train", "evaluation"]) == {k: expected[k] for k in ("train", "evaluation")}
    t2a = _quiet(_directional, weighted=weighted, direction="T->A")
    assert _sizes(t2a, ["train", "evaluation", "predicted"]) == expected
    scores = _quiet(
        biasamp.bias_scores,
        groups=G_TRAIN,
        tasks=T_TRAIN,
        sample_weight=W_TRAIN if weighted else None,
    )
    assert scores.attrs["group_sizes"] == {"evaluation": expected["train"]}


def test_directional_without_training_side_has_no_train_column():
    # the evaluation ground truth fixes the signs; its rows are the evaluation split
    result = biasamp.directional(
        direction="A->T",
        groups=G_EVAL,
        tasks=T_EVAL,
        tasks_pred=T_PRED,
        sample_weight=W_EVAL,
        min_group_size=None,
    )
    assert _sizes(result, ["evaluation"]) == {"evaluation": WEIGHTS["evaluation"]}
    assert result.small_groups == () and result.min_group_size is None


@pytest.mark.parametrize(("weighted", "expected"), [(False, ROWS), (True, WEIGHTS)])
def test_multi_attribute_sizes_per_split(weighted, expected):
    multi_mals = _quiet(biasamp.multi_mals, **_multi_kwargs(weighted))
    assert _sizes(multi_mals, ["train", "evaluation", "predicted"]) == expected
    a2t = _quiet(biasamp.multi_directional, direction="A->T", **_multi_kwargs(weighted))
    assert _sizes(a2t, ["train", "evaluation"]) == {k: expected[k] for k in ("train", "evaluation")}
    t2a = _quiet(biasamp.multi_directional, direction="M->G", **_multi_kwargs(weighted))
    assert _sizes(t2a, ["train", "evaluation", "predicted"]) == expected
    together = _quiet(biasamp.multi_attribute, **_multi_kwargs(weighted))
    for key, single in (("multi_mals", multi_mals), ("A->T", a2t), ("T->A", t2a)):
        pd.testing.assert_frame_equal(together[key].group_sizes, single.group_sizes)


def _caught(function, **kwargs):
    """The result and the SmallGroupWarnings of a call (pytest.warns records every
    warning; the counts behind each pair and missing groups warn on their own)."""
    with pytest.warns(SmallGroupWarning) as record:
        result = function(**kwargs)
    caught = [w for w in record if issubclass(w.category, SmallGroupWarning)]
    return result, [str(w.message) for w in caught], caught


def test_mals_warns_about_the_checked_splits():
    # min_group_size=3: train w (2); evaluation m (2); predicted m (2) is not checked
    result, messages, caught = _caught(_mals, weighted=False, min_group_size=3)
    assert messages == [
        "1 group(s) have fewer than min_group_size=3 rows in the training split: w (2). "
        "Their rates are noisy; see result.group_sizes (pass min_group_size=None to silence).",
        "1 group(s) have fewer than min_group_size=3 rows in the evaluation split: m (2). "
        "Their rates are noisy; see result.group_sizes (pass min_group_size=None to silence).",
    ]
    assert result.small_groups == ("w", "m") and result.min_group_size == 3.0
    assert {w.filename for w in caught} == {__file__}  # points at the caller
    # without evaluation ground truth, the predicted groups are the evaluation side
    result, messages, _ = _caught(_mals, weighted=True, with_truth=False, min_group_size=5)
    assert len(messages) == 1 and "the predicted groups: m (3), w (4.5)" in messages[0]
    assert result.small_groups == ("m", "w")


@pytest.mark.parametrize("direction", ["A->T", "T->A"])
def test_directional_warns_about_train_and_evaluation(direction):
    # min_group_size=7 on the weights: train m (6); evaluation m (5), w (2.5)
    result, messages, caught = _caught(
        _directional, weighted=True, direction=direction, min_group_size=7
    )
    assert len(messages) == 2
    assert "rows in the training split: m (6). " in messages[0]
    assert (
        "2 group(s) have fewer than min_group_size=7 rows in the evaluation split: m (5), w (2.5)"
        in messages[1]
    )
    assert result.small_groups == ("m", "w")
    assert {w.filename for w in caught} == {__file__}


def test_directional_default_threshold_is_30():
    assert DEFAULT_MIN_GROUP_SIZE == 30
    with pytest.warns(SmallGroupWarning, match="min_group_size=30"):
        result = _directional(weighted=False, direction="A->T")
    assert result.min_group_size == 30.0 and result.small_groups == ("m", "w")


def test_bias_scores_warns():
    with pytest.warns(SmallGroupWarning, match=r"evaluation split: w \(2\)") as caught:
        frame = biasamp.bias_scores(G_TRAIN, tasks=T_TRAIN, min_group_size=3)
    assert frame.attrs["small_groups"] == ["w"]
    assert {w.filename for w in caught} == {__file__}


def test_multi_attribute_metrics_warn():
    _, messages, caught = _caught(biasamp.multi_mals, min_group_size=3, **_multi_kwargs(False))
    assert len(messages) == 2
    assert "training split: w (2)" in messages[0] and "evaluation split: m (2)" in messages[1]
    assert {w.filename for w in caught} == {__file__}
    result, messages, _ = _caught(
        biasamp.multi_directional, direction="G->M", min_group_size=3, **_multi_kwargs(False)
    )
    assert len(messages) == 2 and result.small_groups == ("w", "m")
    # one warning per split for the three results of multi_attribute
    results, messages, _ = _caught(
        biasamp.multi_attribute, min_group_size=3, **_multi_kwargs(False)
    )
    assert len(messages) == 2
    assert all(r.small_groups == ("w", "m") and r.min_group_size == 3.0 for r in results.values())


def test_no_warning_when_groups_are_large_or_the_check_is_off():
    with warnings.catch_warnings():
        warnings.simplefilter("error", SmallGroupWarning)
        assert _mals(weighted=False, min_group_size=2).small_groups == ()
        assert _mals(weighted=False, min_group_size=None).small_groups == ()
        assert _directional(weighted=True, direction="A->T", min_group_size=2.5).small_groups == ()


@pytest.mark.parametrize("bad", [-1, "30", True])
@pytest.mark.parametrize(
    "call",
    [
        lambda v: _mals(weighted=False, min_group_size=v),
        lambda v: _directional(weighted=False, direction="A->T", min_group_size=v),
        lambda v: biasamp.bias_scores(G_TRAIN, tasks=T_TRAIN, min_group_size=v),
        lambda v: biasamp.multi_mals(min_group_size=v, **_multi_kwargs(False)),
    ],
)
def test_min_group_size_is_validated(call, bad):
    with pytest.raises(ValueError) as info:
        call(bad)
    assert str(info.value) == ERR_MIN_GROUP_SIZE.format(got=bad)


def test_from_counts_forms_carry_sizes():
    train = biasamp.CountTable.from_arrays(groups=G_TRAIN, tasks=T_TRAIN, sample_weight=W_TRAIN)
    evaluation = biasamp.CountTable.from_arrays(
        groups=G_EVAL, tasks=T_EVAL, groups_pred=G_PRED, tasks_pred=T_PRED, sample_weight=W_EVAL
    )
    with pytest.warns(SmallGroupWarning) as caught:
        result = biasamp.directional_from_counts(
            evaluation, direction="T->A", train=train, min_group_size=4
        )
    assert result.group_sizes.to_dict() == WEIGHTS
    assert result.small_groups == ("w",)  # evaluation w 2.5; predicted m 3 is not checked
    assert len([w for w in caught if w.category is SmallGroupWarning]) == 1
    predictions = biasamp.CountTable.from_arrays(
        groups_pred=G_PRED, tasks_pred=T_PRED, sample_weight=W_EVAL
    )
    result = biasamp.mals_from_counts(train, predictions, min_group_size=None)
    assert result.group_sizes.to_dict() == {k: WEIGHTS[k] for k in ("train", "predicted")}


def test_never_occurring_intersections_are_listed():
    frame = pd.DataFrame({"race": ["a", "b", "a", "a"] * 10, "sex": ["f", "m", "m", "f"] * 10})
    groups = biasamp.intersect(frame)
    tasks = np.array(["x", "y", "x", "y"] * 10)
    with pytest.warns(SmallGroupWarning, match=r"3 group\(s\).*a x f \(20\)"):
        result = biasamp.directional(
            direction="A->T", groups=groups, tasks=tasks, tasks_pred=np.roll(tasks, 1)
        )
    assert result.group_sizes["evaluation"].to_dict() == {
        "a x f": 20.0,
        "a x m": 10.0,
        "b x m": 10.0,
    }
    assert result.never_occurring.to_dict("records") == [{"race": "b", "sex": "f"}]
    mals = biasamp.mals(
        groups_train=groups,
        tasks_train=tasks,
        groups_pred=groups,
        tasks_pred=tasks,
        min_group_size=None,
    )
    assert mals.never_occurring.to_dict("records") == [{"race": "b", "sex": "f"}]
    assert "1 intersection(s) never occur" in mals.summary()
    plain = biasamp.mals(
        groups_train=G_TRAIN, tasks_train=T_TRAIN, groups_pred=G_PRED, tasks_pred=T_PRED,
        min_group_size=None,
    )  # fmt: skip
    assert plain.never_occurring is None


def test_summary_and_to_dict_show_sizes():
    result = _quiet(_mals, weighted=True)
    text = result.summary()
    assert "smallest group: train 6 (m), evaluation 2.5 (w), predicted 3 (m)" in text
    assert "2 group(s) below min_group_size=30: m, w" in text
    out = result.to_dict(pairs=False)
    assert out["group_sizes"] == WEIGHTS
    assert out["small_groups"] == ["m", "w"] and out["min_group_size"] == 30.0
    assert out["never_occurring"] is None


def test_checked_splits_rule_and_messages():
    assert checked_splits(["train", "evaluation", "predicted"]) == ("train", "evaluation")
    assert checked_splits(["train", "predicted"]) == ("train", "predicted")
    sizes = pd.DataFrame({"train": [3.0, 0.0], "predicted": [1.0, 2.0]}, index=["m", "w"])
    # no evaluation column: the predicted groups are checked; w is absent from train
    assert size_messages(sizes, 2.5) == [
        "2 group(s) have fewer than min_group_size=2.5 rows in the predicted groups: "
        "m (1), w (2). Their rates are noisy; see result.group_sizes "
        "(pass min_group_size=None to silence)."
    ]
    assert size_messages(sizes, None) == [] and size_messages(None, 3) == []
