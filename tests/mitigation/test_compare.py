"""Tests of compare_mitigations: one table of performance and amplification per method."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import biasamp
from biasamp import compare_mitigations
from biasamp.mitigation._compare import (
    ERR_NO_METHODS,
    ERR_NO_RUNS,
    ERR_RUN_KEYS,
    ERR_UNKNOWN_METRIC,
    default_metrics,
)

G_TRAIN = ["m", "m", "m", "w", "w", "w"]
T_TRAIN = ["cook", "ski", "ski", "cook", "cook", "ski"]
G = ["m", "w", "w", "m", "w", "m"]
T = ["cook", "cook", "cook", "ski", "ski", "ski"]
TRUTH = {"groups": G, "tasks": T, "groups_train": G_TRAIN, "tasks_train": T_TRAIN}


def test_single_run_values_by_hand():
    runs = {
        "perfect": {"groups_pred": G, "tasks_pred": T},
        "flip": {"groups_pred": ["w"] * 6, "tasks_pred": T},
    }
    table = compare_mitigations(runs, **TRUTH)
    assert "BiasAmp_MALS ±" not in table.columns
    assert table.loc["perfect", "task performance"] == 1.0
    assert table.loc["perfect", "group accuracy"] == 1.0
    assert table.loc["flip", "group accuracy"] == 0.5
    # b*(cook, w) = 2/3 and b*(ski, m) = 2/3 are biased; 'flip' predicts w everywhere:
    # b~(cook, w) = 1 and b~(ski, m) = 0, so MALS = ((1 - 2/3) + (0 - 2/3)) / 2 = -1/6
    assert table.loc["flip", "BiasAmp_MALS"] == pytest.approx(-1 / 6)
    assert table.loc["flip", "Viol."] == 2
    expected = biasamp.directional(
        direction="T->A",
        groups=G,
        tasks=T,
        groups_pred=["w"] * 6,
        groups_train=G_TRAIN,
        tasks_train=T_TRAIN,
    ).value
    assert table.loc["flip", "BiasAmp T->A"] == pytest.approx(expected)
    assert set(default_metrics()) <= set(table.columns)


def test_several_runs_give_a_t_interval():
    preds = [
        ["m", "w", "w", "m", "w", "m"],
        ["w", "w", "w", "m", "w", "m"],
        ["w", "w", "w", "w", "w", "m"],
    ]
    runs = {
        "seeds": [{"groups_pred": p, "tasks_pred": T} for p in preds],
        "once": {"groups_pred": G, "tasks_pred": T},
    }
    table = compare_mitigations(runs, **TRUTH, metrics=["group accuracy"])
    acc = np.array([1.0, 5 / 6, 4 / 6])
    assert table.loc["seeds", "n_runs"] == 3
    assert table.loc["seeds", "group accuracy"] == pytest.approx(acc.mean())
    half = stats.t.ppf(0.975, 2) * acc.std(ddof=1) / np.sqrt(3)
    assert table.loc["seeds", "group accuracy ±"] == pytest.approx(half)
    assert np.isnan(table.loc["once", "group accuracy ±"])


def test_custom_metric_mapping_and_multilabel_performance():
    tasks = np.array([[1, 0], [1, 1], [0, 1], [0, 0]])
    pred = np.array([[1, 0], [0, 1], [0, 1], [1, 0]])
    groups = ["m", "w", "m", "w"]

    def n_rows(ctx, groups_pred, tasks_pred):
        return float(len(groups_pred))

    table = compare_mitigations(
        {"model": {"groups_pred": groups, "tasks_pred": pred}},
        groups_train=groups,
        tasks_train=tasks,
        groups=groups,
        tasks=tasks,
        metrics={"rows": n_rows, "task performance": default_metrics()["task performance"]},
    )
    assert table.loc["model", "rows"] == 4.0
    # macro-F1: task 0 tp=1 fp=1 fn=1 -> 0.5; task 1 tp=2 fp=0 fn=0 -> 1.0
    assert table.loc["model", "task performance"] == pytest.approx(0.75)


def test_bad_inputs():
    with pytest.raises(ValueError, match="non-empty"):
        compare_mitigations({}, **TRUTH)
    with pytest.raises(ValueError, match="groups_pred"):
        compare_mitigations({"a": {"groups_pred": G}}, **TRUTH)
    with pytest.raises(ValueError, match="unknown metric"):
        compare_mitigations({"a": {"groups_pred": G, "tasks_pred": T}}, **TRUTH, metrics=["nope"])
    assert "non-empty" in ERR_NO_METHODS and "{method" in ERR_RUN_KEYS
    assert "{name" in ERR_UNKNOWN_METRIC


def test_training_labels_are_canonical_for_performance():
    # 'sofa' occurs in training and in the predictions, not in the evaluation truth: fine
    # by the label-set rule (mals accepts it), so the performance columns must too
    truth = {**TRUTH, "tasks_train": [*T_TRAIN[:-1], "sofa"]}
    pred = ["cook", "cook", "cook", "ski", "ski", "sofa"]
    table = compare_mitigations(
        {"m": {"groups_pred": ["m"] * 6, "tasks_pred": pred}},
        **truth,
        metrics=["task performance", "group accuracy", "BiasAmp_MALS"],
    )
    assert table.loc["m", "task performance"] == pytest.approx(5 / 6)
    assert table.loc["m", "group accuracy"] == pytest.approx(0.5)
    with pytest.raises(ValueError, match="not in the canonical label set"):
        compare_mitigations(
            {"m": {"groups_pred": G, "tasks_pred": ["car"] * 6}},
            **TRUTH,
            metrics=["task performance"],
        )


def test_a_method_with_no_run_is_an_error_not_nan():
    with pytest.raises(ValueError) as info:
        compare_mitigations({"empty": []}, **TRUTH, metrics=["group accuracy"])
    assert str(info.value) == ERR_NO_RUNS.format(method="empty")


def test_metrics_are_named_by_any_registry_spelling():
    from biasamp.registry import metric_name

    runs = {"m": {"groups_pred": ["m", "w", "w", "w"], "tasks_pred": ["a", "a", "a", "b"]}}
    truth = dict(groups_train=["m", "w", "w", "m"], tasks_train=["a", "a", "a", "b"],
                 groups=["m", "w", "w", "m"], tasks=["a", "a", "a", "b"])  # fmt: skip
    by_title = biasamp.compare_mitigations(runs, metrics=["BiasAmp_MALS", "BiasAmp T->A"], **truth)
    by_name = biasamp.compare_mitigations(runs, metrics=["mals", "t2a"], **truth)
    pd.testing.assert_frame_equal(pd.DataFrame(by_name), pd.DataFrame(by_title))
    assert by_name.loc["m", "BiasAmp_MALS"] == pytest.approx(-0.5)
    assert [metric_name(c) for c in by_name.metrics] == ["mals", "directional-t2a"]
    with pytest.raises(ValueError) as info:
        biasamp.compare_mitigations(runs, metrics=["lic"], **truth)
    message = str(info.value)
    assert message.startswith("metrics: unknown metric 'lic'; known: ['task performance'")
    assert "['mals', 'directional-a2t', 'directional-t2a', 'multi-mals', 'multi-a2t'," in message
