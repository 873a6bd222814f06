"""Tests of calibrate_thresholds, threshold_sweep and plot_threshold_sweep."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import biasamp
from biasamp import calibrate_thresholds, threshold_sweep
from biasamp.datasets import load_coco_gender
from biasamp.uncertainty._calibration import ERR_NEED_TARGET, ERR_TIES
from biasamp.uncertainty._sweep import ERR_NO_SCORES, ERR_POSITIVE_GROUP


# ------------------------------------------------------------- calibration
def test_calibration_by_hand_without_ties():
    # 5 scores, 2 positives: the top 2 (0.9, 0.7) are positive; cut halfway 0.7 / 0.5
    cal = calibrate_thresholds([0.1, 0.9, 0.5, 0.7, 0.3], labels_val=[0, 1, 0, 1, 0])
    assert cal.thresholds.tolist() == [pytest.approx(0.6)]
    assert cal.target_count.tolist() == [2] and cal.predicted_count.tolist() == [2]


def test_ties_at_the_cut():
    scores, labels = [0.9, 0.6, 0.6, 0.3, 0.1], [1, 0, 1, 0, 0]
    # target 2, but 0.6 is shared by the 2nd and 3rd: achievable counts are 1 and 3
    fewer = calibrate_thresholds(scores, labels_val=labels, ties="fewer")
    more = calibrate_thresholds(scores, labels_val=labels, ties="more")
    nearest = calibrate_thresholds(scores, labels_val=labels)
    assert fewer.predicted_count.tolist() == [1] and fewer.thresholds[0] == pytest.approx(0.75)
    assert more.predicted_count.tolist() == [3] and more.thresholds[0] == pytest.approx(0.45)
    # 1 and 3 are equally far from 2: "nearest" rounds down to fewer positives
    assert nearest.predicted_count.tolist() == [1] and nearest.thresholds[0] == pytest.approx(0.75)
    # target 3 with 0.6 tied at positions 3-4 of [.9, .8, .6, .6, .1]: 2 is nearer than 4? equal
    cal = calibrate_thresholds([0.9, 0.8, 0.6, 0.6, 0.1], rate=0.6)  # target 3
    assert cal.target_count.tolist() == [3] and cal.predicted_count.tolist() == [2]
    # target 4 of [.9, .6, .6, .6, .1]: achievable 1 or 4 -> exact
    cal = calibrate_thresholds([0.9, 0.6, 0.6, 0.6, 0.1], rate=0.8)
    assert cal.predicted_count.tolist() == [4] and cal.thresholds[0] == pytest.approx(0.35)
    # target 2 of [.9, .6, .6, .6, .1]: achievable 1 (distance 1) or 4 (distance 2) -> 1
    cal = calibrate_thresholds([0.9, 0.6, 0.6, 0.6, 0.1], rate=0.4)
    assert cal.predicted_count.tolist() == [1]
    assert calibrate_thresholds(
        [0.9, 0.6, 0.6, 0.6, 0.1], rate=0.4, ties="more"
    ).predicted_count.tolist() == [4]


def test_extreme_targets():
    scores = np.array([0.2, 0.8, 0.5])
    none = calibrate_thresholds(scores, labels_val=[0, 0, 0])
    assert none.thresholds[0] == 0.8 and none.predicted_count[0] == 0
    every = calibrate_thresholds(scores, labels_val=[1, 1, 1])
    assert every.thresholds[0] == np.nextafter(0.2, -np.inf) and every.predicted_count[0] == 3


def test_rates_and_columns():
    scores = pd.DataFrame({"b": [0.1, 0.2, 0.3, 0.4], "a": [0.4, 0.3, 0.2, 0.1]})
    labels = pd.DataFrame({"a": [1, 0, 0, 0], "b": [0, 0, 1, 1]})
    cal = calibrate_thresholds(scores, labels_val=labels)
    assert list(cal.thresholds.index) == ["b", "a"]  # the score columns' order
    assert cal.thresholds["a"] == pytest.approx(0.35) and cal.thresholds["b"] == pytest.approx(0.25)
    # rate: scalar, per column, dict, Series; round(rate * n) with halves up (0.375 * 4 = 1.5 -> 2)
    assert calibrate_thresholds(scores, rate=0.375).target_count.tolist() == [2, 2]
    assert calibrate_thresholds(scores, rate=[0.25, 0.5]).target_count.tolist() == [1, 2]
    assert calibrate_thresholds(scores, rate={"a": 0.75, "b": 0}).target_count.tolist() == [0, 3]
    assert calibrate_thresholds(
        scores, rate=pd.Series({"a": 1, "b": 0.5})
    ).target_count.tolist() == [2, 4]
    predicted = cal.apply(scores)
    assert predicted.to_dict("list") == {"b": [0, 0, 1, 1], "a": [1, 0, 0, 0]}
    json_ready = cal.to_dict()
    assert json_ready["labels"][0]["label"] == "b"
    assert "ThresholdCalibration(2 labels" in repr(cal)


@settings(max_examples=40, deadline=None)
@given(data=st.data(), n=st.integers(1, 30), levels=st.integers(1, 6))
def test_calibration_properties(data, n, levels):
    rng = np.random.default_rng(data.draw(st.integers(0, 10**6)))
    scores = rng.integers(0, levels, size=(n, 3)) / levels  # many ties
    labels = (rng.random((n, 3)) < 0.4).astype(int)
    target = labels.sum(axis=0)
    results = {
        t: calibrate_thresholds(scores, labels_val=labels, ties=t)
        for t in ("fewer", "more", "nearest")
    }
    for cal in results.values():
        got = (scores > cal.thresholds.to_numpy()[None, :]).sum(axis=0)
        assert np.array_equal(got, cal.predicted_count.to_numpy())
    fewer = results["fewer"].predicted_count.to_numpy()
    more = results["more"].predicted_count.to_numpy()
    nearest = results["nearest"].predicted_count.to_numpy()
    assert np.all(fewer <= target) and np.all(more >= target)
    # brute force: the achievable counts are 0 and #(score >= v) for each score v
    for j in range(3):
        achievable = {0} | {int((scores[:, j] >= v).sum()) for v in scores[:, j]}
        assert fewer[j] == max(c for c in achievable if c <= target[j])
        assert more[j] == min(c for c in achievable if c >= target[j])
        best = min(abs(c - target[j]) for c in achievable)
        assert nearest[j] == min(c for c in achievable if abs(c - target[j]) == best)
    if len(np.unique(scores[:, 0])) == n:  # distinct scores: the target is hit exactly
        assert nearest[0] == target[0]


def test_calibration_errors():
    with pytest.raises(ValueError, match=ERR_NEED_TARGET[:30]):
        calibrate_thresholds([0.1, 0.2])
    with pytest.raises(ValueError, match=ERR_TIES.format(got="up")[:20]):
        calibrate_thresholds([0.1, 0.2], labels_val=[0, 1], ties="up")
    with pytest.raises(ValueError, match="rate"):
        calibrate_thresholds([0.1, 0.2], rate=1.5)
    with pytest.raises(ValueError, match="rate"):
        calibrate_thresholds([[0.1, 0.2]], rate=[0.5, 0.5, 0.5])
    with pytest.raises(ValueError, match="scores_val: contains 1 missing value"):
        calibrate_thresholds([0.1, np.nan], labels_val=[0, 1])
    with pytest.raises(TypeError, match="scores_val: scores must be numeric"):
        calibrate_thresholds(["a", "b"], labels_val=[0, 1])
    with pytest.raises(ValueError, match="labels_val: has 3 rows"):
        calibrate_thresholds([0.1, 0.2], labels_val=[0, 1, 1])
    with pytest.raises(ValueError, match="labels_val: a 1-D score needs 1-D labels of exactly two"):
        calibrate_thresholds([0.1, 0.2, 0.3], labels_val=[0, 2, 1])
    # two numeric classes other than 0/1: the score is that of the second, as scikit-learn
    assert calibrate_thresholds([0.1, 0.2], labels_val=[1, 2]).thresholds.index.tolist() == [2]
    with pytest.raises(ValueError, match="labels_val: indicator values must be 0 or 1"):
        calibrate_thresholds([[0.1, 0.2]], labels_val=[[0, 2]])


# ------------------------------------------------------------------ sweeps
def _data(seed: int, n: int = 300):
    rng = np.random.default_rng(seed)
    tasks_names = ["a", "b", "c", "d"]
    groups = rng.choice(["m", "w"], size=n, p=[0.65, 0.35])
    tasks = pd.DataFrame(
        (rng.random((n, 4)) < np.where(groups[:, None] == "m", 0.4, 0.2)).astype(int),
        columns=tasks_names,
    )
    tasks_scores = pd.DataFrame(
        np.clip(tasks + rng.normal(0, 0.4, size=(n, 4)), 0, 1), columns=tasks_names
    ).round(2)  # rounding makes ties
    man_score = np.clip((groups == "m") * 0.5 + 0.35 + rng.normal(0, 0.25, n), 0, 1).round(2)
    group_scores = pd.DataFrame({"m": man_score, "w": 1 - man_score})
    return groups, tasks, tasks_scores, man_score, group_scores


def _naive(metric):
    return lambda **kwargs: metric(**kwargs)  # an unknown callable: evaluated per threshold


GRID = [0.7, 0.1, 0.3, 0.5, 0.52, 0.9, 0.35]  # unsorted on purpose, includes score values


@pytest.mark.parametrize("case", ["tasks", "groups_1d", "groups_2d", "both_1d", "both_2d"])
def test_mals_sweep_equals_per_threshold_evaluation(case):
    groups, tasks, tasks_scores, man_score, group_scores = _data(0)
    g_tr, t_tr, _, _, _ = _data(1)
    weight = np.random.default_rng(2).random(len(groups))
    kwargs = dict(groups_train=g_tr, tasks_train=t_tr, sample_weight=weight)
    if case == "tasks":
        kwargs.update(tasks_scores=tasks_scores, groups_pred=groups)
    elif case == "groups_1d":
        kwargs.update(groups_scores=man_score, positive_group="m", tasks_pred=tasks)
    elif case == "groups_2d":
        kwargs.update(groups_scores=group_scores, tasks_pred=tasks)
    elif case == "both_1d":
        kwargs.update(groups_scores=man_score, positive_group="m", tasks_scores=tasks_scores)
    else:
        kwargs.update(groups_scores=group_scores, tasks_scores=tasks_scores)
    fast = threshold_sweep(biasamp.mals, thresholds=GRID, **kwargs)
    slow = threshold_sweep(_naive(biasamp.mals), thresholds=GRID, **kwargs)
    assert fast.params["vectorised"] and not slow.params["vectorised"]
    np.testing.assert_allclose(fast.values, slow.values, rtol=1e-10, atol=1e-12)
    assert fast.thresholds.tolist() == GRID
    assert fast.mean == pytest.approx(np.mean(slow.values))
    pd.testing.assert_frame_equal(
        fast.table.drop(columns="metric"), slow.table.drop(columns="metric")
    )


@pytest.mark.parametrize("direction", ["A->T", "T->A"])
@pytest.mark.parametrize("with_train", [True, False])
def test_directional_sweep_equals_per_threshold_evaluation(direction, with_train):
    groups, tasks, tasks_scores, man_score, group_scores = _data(3)
    kwargs = dict(direction=direction, groups=groups, tasks=tasks)
    if with_train:
        g_tr, t_tr, _, _, _ = _data(4)
        kwargs.update(groups_train=g_tr, tasks_train=t_tr)
    if direction == "A->T":
        kwargs.update(tasks_scores=tasks_scores)
    else:
        kwargs.update(groups_scores=man_score, positive_group="m")
    fast = threshold_sweep("directional", thresholds=GRID, **kwargs)
    slow = threshold_sweep(_naive(biasamp.directional), thresholds=GRID, **kwargs)
    assert fast.params["vectorised"]
    np.testing.assert_allclose(fast.values, slow.values, rtol=1e-10, atol=1e-12)
    assert fast.direction == direction
    # positive rate of the swept role, by hand at threshold 0.5
    scores = tasks_scores.to_numpy() if direction == "A->T" else man_score[:, None]
    role = "tasks" if direction == "A->T" else "groups"
    rate = fast.table.set_index("threshold").loc[0.5, f"{role}_positive_rate"]
    assert rate == pytest.approx((scores > 0.5).mean())


def test_registry_names_choose_the_metric_and_its_direction():
    from biasamp.uncertainty._sweep import ERR_METRIC, ERR_METRIC_DIRECTION

    groups, tasks, _, man_score, _ = _data(3)
    kwargs = dict(groups=groups, tasks=tasks, groups_scores=man_score, positive_group="m")
    old = threshold_sweep("directional", direction="T->A", thresholds=GRID, **kwargs)
    for name in ("directional-t2a", "T->A", "BiasAmp T->A"):
        sweep = threshold_sweep(name, thresholds=GRID, **kwargs)
        pd.testing.assert_frame_equal(sweep.table, old.table)
        assert (sweep.metric, sweep.family, sweep.direction, sweep.metric_name) == (
            "directional-t2a", "directional", "T->A", "directional-t2a",
        )  # fmt: skip
    with pytest.raises(ValueError) as info:
        threshold_sweep("directional-t2a", direction="A->T", thresholds=GRID, **kwargs)
    assert str(info.value) == ERR_METRIC_DIRECTION.format(
        metric="directional-t2a", named="T->A", got="A->T"
    )
    with pytest.raises(ValueError) as info:
        threshold_sweep("dpa-t2a", thresholds=GRID, **kwargs)
    assert str(info.value) == ERR_METRIC.format(got="dpa-t2a")
    assert "mals, directional-a2t, directional-t2a" in ERR_METRIC


def test_sweep_by_hand():
    # the doctest example worked out: training b*(cook, w) = b*(ski, m) = 2/3
    sweep = threshold_sweep(
        biasamp.mals,
        thresholds=[0.3, 0.5, 0.7],
        groups_scores=np.array([0.9, 0.6, 0.4, 0.8, 0.2, 0.55]),
        positive_group="m",
        groups_train=["m", "w", "m", "w", "w", "m"],
        tasks_train=["cook", "cook", "ski", "ski", "cook", "ski"],
        tasks_pred=["cook", "cook", "ski", "ski", "cook", "ski"],
    )
    # t=0.3: cook -> (m, m, w): b~(cook,w)=1/3, ski all m: b~=1 -> (-1/3 + 1/3)/2 = 0
    # t=0.5: cook (m, m, w) -> -1/3; ski (w, m, m) -> 0 -> -1/6
    # t=0.7: cook (m, w, w) -> 0; ski (w, m, w) -> -1/3 -> -1/6
    assert sweep.values == pytest.approx([0.0, -1 / 6, -1 / 6])
    assert sweep.mean == pytest.approx(-1 / 9)
    assert "mean over the grid" in repr(sweep)


def test_sweep_errors_and_progress():
    groups, tasks, tasks_scores, man_score, _ = _data(0)
    with pytest.raises(ValueError, match=ERR_NO_SCORES[:30]):
        threshold_sweep(biasamp.mals, thresholds=[0.5], groups_train=groups, tasks_train=tasks)
    with pytest.raises(ValueError, match="positive_group"):
        threshold_sweep(
            biasamp.mals,
            thresholds=[0.5],
            groups_scores=man_score,
            positive_group="nobody",
            groups_train=groups,
            tasks_train=tasks,
            tasks_pred=tasks,
        )
    assert "positive_group" in ERR_POSITIVE_GROUP
    # without positive_group a 1-D score is the second group's in sorted order
    kwargs = {"groups_train": groups, "tasks_train": tasks, "tasks_pred": tasks}
    second = sorted(set(np.asarray(groups).tolist()))[1]
    default = threshold_sweep(
        biasamp.mals, thresholds=[0.3, 0.6], groups_scores=man_score, **kwargs
    )
    named = threshold_sweep(
        biasamp.mals,
        thresholds=[0.3, 0.6],
        groups_scores=man_score,
        positive_group=second,
        **kwargs,
    )
    np.testing.assert_array_equal(default.table["value"], named.table["value"])
    with pytest.raises(ValueError, match="thresholds"):
        threshold_sweep(
            biasamp.mals,
            thresholds=[],
            tasks_scores=tasks_scores,
            groups_train=groups,
            tasks_train=tasks,
            groups_pred=groups,
        )
    with pytest.raises(ValueError, match="not both"):
        threshold_sweep(
            biasamp.mals,
            thresholds=[0.5],
            tasks_scores=tasks_scores,
            tasks_pred=tasks,
            groups_train=groups,
            tasks_train=tasks,
            groups_pred=groups,
        )
    with pytest.raises(ValueError, match="tasks_scores: columns"):
        threshold_sweep(
            biasamp.mals,
            thresholds=[0.5],
            tasks_scores=tasks_scores[["b", "a", "c"]],
            groups_train=groups,
            tasks_train=tasks,
            groups_pred=groups,
        )
    with pytest.raises(ValueError, match="metric"):
        threshold_sweep("accuracy", thresholds=[0.5], tasks_scores=tasks_scores)
    shown = threshold_sweep(
        _naive(biasamp.mals),
        thresholds=[0.2, 0.4, 0.6],
        progress=True,
        tasks_scores=tasks_scores,
        groups_train=groups,
        tasks_train=tasks,
        groups_pred=groups,
    )
    quiet = threshold_sweep(
        biasamp.mals,
        thresholds=[0.2, 0.4, 0.6],
        tasks_scores=tasks_scores,
        groups_train=groups,
        tasks_train=tasks,
        groups_pred=groups,
    )
    np.testing.assert_allclose(shown.values, quiet.values)


def test_plot_threshold_sweep_returns_axes():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    groups, tasks, tasks_scores, _, _ = _data(0)
    sweep = threshold_sweep(
        biasamp.mals,
        thresholds=np.linspace(0.1, 0.9, 9),
        tasks_scores=tasks_scores,
        groups_train=groups,
        tasks_train=tasks,
        groups_pred=groups,
    )
    ax = biasamp.plot_threshold_sweep(sweep, calibrated=0.42)
    assert len(ax.lines) == 4  # curve, mean, zero line, calibrated threshold
    assert np.allclose(ax.lines[0].get_ydata(), sweep.values)
    ax2 = sweep.table.pipe(biasamp.plot_threshold_sweep)
    assert ax2 is not ax
    with pytest.raises(TypeError, match="ThresholdSweep"):
        biasamp.plot_threshold_sweep([1, 2])
    plt.close("all")


# ------------------------------------------------ real-data mechanism (Wang 3.3)
def test_calibrating_an_over_predicting_gender_threshold_lowers_mals_on_coco():
    """Wang & Russakovsky 2021, section 3.3, mechanism on the real COCO labels.

    A synthetic gender scorer over-predicts men (its logit is shifted by +1).
    Thresholded at 0.5 it calls far more images "man" than the data has, which
    pushes predicted man-ratios of man-biased objects up: MALS is higher than
    when the threshold is calibrated on the val split to predict as many men
    as there are. The val split is both the training side and the calibration
    split (the bundled data has two splits).
    """
    val, test = load_coco_gender("val"), load_coco_gender("test")
    objects = [c for c in val.columns if c not in ("image_id", "gender")]

    def scorer(frame: pd.DataFrame, seed: int) -> np.ndarray:
        rng = np.random.default_rng(seed)
        logit = (
            1.5 * np.where(frame["gender"] == "man", 1, -1) + 1.0 + rng.normal(0, 1.5, len(frame))
        )
        return 1 / (1 + np.exp(-logit))

    score_val, score_test = scorer(val, 0), scorer(test, 1)
    cal = calibrate_thresholds(score_val, labels_val=(val["gender"] == "man").astype(int))
    threshold = float(cal.thresholds.iloc[0])
    assert threshold > 0.5
    share_man = (test["gender"] == "man").mean()
    assert (score_test > 0.5).mean() > share_man + 0.05  # over-predicts men at 0.5

    def mals_at(t: float) -> float:
        pred = np.where(score_test > t, "man", "woman")
        return biasamp.mals(
            groups_train=val["gender"],
            tasks_train=val[objects],
            groups_pred=pred,
            tasks_pred=test[objects],
        ).value

    at_half, at_calibrated = mals_at(0.5), mals_at(threshold)
    # measured: about +0.007 at 0.5 and -0.033 calibrated (this scorer ignores the objects,
    # so once calibrated its errors pull predicted ratios towards the overall one)
    assert at_half > at_calibrated + 0.02
    sweep = threshold_sweep(
        biasamp.mals,
        thresholds=[0.5, threshold],
        groups_scores=score_test,
        positive_group="man",
        groups_train=val["gender"],
        tasks_train=val[objects],
        tasks_pred=test[objects],
    )
    assert sweep.values == pytest.approx([at_half, at_calibrated])


def test_calibration_one_d_score_with_class_labels():
    scores = np.array([0.9, 0.2, 0.7, 0.4, 0.6])
    labels = np.array(["w", "m", "w", "m", "m"])  # two "w": the second class in sorted order
    cal = calibrate_thresholds(scores, labels_val=labels)
    assert cal.thresholds.index.tolist() == ["w"]
    assert cal.target_count.tolist() == [2] and cal.thresholds.iloc[0] == pytest.approx(0.65)
    # the same as the 0/1 indicator of "w"
    same = calibrate_thresholds(scores, labels_val=(labels == "w").astype(int))
    assert same.thresholds.iloc[0] == cal.thresholds.iloc[0]
    # positive_label="m": three "m" are the target
    m = calibrate_thresholds(
        1 - scores, labels_val=pd.Series(labels, dtype="category"), positive_label="m"
    )
    assert m.thresholds.index.tolist() == ["m"] and m.target_count.tolist() == [3]
    with pytest.raises(ValueError, match="positive_label: 'x' is not one of the labels"):
        calibrate_thresholds(scores, labels_val=labels, positive_label="x")
    with pytest.raises(ValueError, match="exactly two classes"):
        calibrate_thresholds(scores, labels_val=["a", "b", "c", "a", "b"])


def test_calibration_positional_labels_is_deprecated():
    scores, labels = [0.1, 0.9, 0.5, 0.7, 0.3], [0, 1, 0, 1, 0]
    with pytest.deprecated_call(match="passing labels_val by position is deprecated"):
        old = calibrate_thresholds(scores, labels)
    assert (
        old.thresholds.tolist()
        == calibrate_thresholds(scores, labels_val=labels).thresholds.tolist()
    )


def test_sweep_one_d_task_score_for_a_binary_task():
    groups = np.array(["m", "w", "m", "w", "m", "w", "w", "m"])
    tasks = np.array(["cook", "cook", "ski", "ski", "cook", "cook", "ski", "ski"])
    p_ski = np.array([0.2, 0.1, 0.8, 0.7, 0.6, 0.3, 0.9, 0.4])
    grid = [0.25, 0.5, 0.75]
    kw = {"direction": "A->T", "groups": groups, "tasks": tasks}
    sweep = threshold_sweep(biasamp.directional, thresholds=grid, tasks_scores=p_ski, **kw)
    by_hand = [
        biasamp.directional(tasks_pred=np.where(p_ski > t, "ski", "cook"), **kw).value for t in grid
    ]
    np.testing.assert_allclose(sweep.table["value"], by_hand, rtol=0, atol=1e-12)
    assert sweep.params["positive_label"] == "ski"
    flipped = threshold_sweep(
        biasamp.directional, thresholds=grid, tasks_scores=p_ski, positive_label="cook", **kw
    )
    by_hand = [
        biasamp.directional(tasks_pred=np.where(p_ski > t, "cook", "ski"), **kw).value for t in grid
    ]
    np.testing.assert_allclose(flipped.table["value"], by_hand, rtol=0, atol=1e-12)


def test_empty_scores_are_refused_naming_the_argument():
    """An empty frame raised IndexError (found by the exception fuzz test)."""
    from biasamp.uncertainty._calibration import ERR_SCORES_EMPTY

    for empty, shape in ((pd.DataFrame(), (0, 0)), (np.zeros((0, 2)), (0, 2))):
        with pytest.raises(ValueError) as info:
            biasamp.calibrate_thresholds(empty, rate=0.5)
        assert str(info.value) == ERR_SCORES_EMPTY.format(arg="scores_val", shape=shape)
