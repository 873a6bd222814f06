"""Differential fairness names what sets epsilon: the group pair, the class, the rates."""

from __future__ import annotations

import math

import pytest

import biasamp

QUIET = {"min_group_size": None}

# concentration 1, three classes (each gets 1/3):
# x: labels 0 0 0 1 -> P(0) = (3 + 1/3) / 5 = 2/3, P(1) = (1 + 1/3) / 5 = 4/15, P(2) = 1/15
# y: labels 0 1 1 2 -> P(0) = 4/15, P(1) = (2 + 1/3) / 5 = 7/15, P(2) = 4/15
# log-ratios: class 0 ln 2.5, class 1 ln 1.75, class 2 ln 4 (the largest): epsilon = ln 4,
# set by y over x on class 2
GROUPS = ["x"] * 4 + ["y"] * 4
LABELS = [0, 0, 0, 1, 0, 1, 1, 2]


def test_the_driver_of_epsilon_by_hand():
    result = biasamp.differential_fairness(groups=GROUPS, labels=LABELS, **QUIET)
    assert result.value == pytest.approx(math.log(4))
    driver = result.driver_labels
    assert driver == {
        "group_a": "y",
        "group_b": "x",
        "label": 2,
        "rate_a": pytest.approx(4 / 15),
        "rate_b": pytest.approx(1 / 15),
        "log_ratio": pytest.approx(math.log(4)),
    }
    assert result.driver is driver and result.driver_pred is None
    assert driver["log_ratio"] == pytest.approx(result.epsilon_labels, rel=1e-12)
    top = result.top_pairs(3)
    assert top["label"].tolist() == [2, 0, 1]
    assert top["abs_log_ratio_labels"].tolist() == pytest.approx(
        [math.log(4), math.log(2.5), math.log(1.75)]
    )
    text = repr(result)
    assert (
        "epsilon set by y over x, label 2: P(y | y) = 0.2667, P(y | x) = 0.0667, "
        "log-ratio +1.3863" in text
    )
    assert "top pairs:" in text and "x / y, label 0: +0.9163" in text
    record = result.to_dict()
    assert record["driver"]["group_a"] == "y" and record["driver"]["label"] == 2
    assert [row["label"] for row in record["top_pairs"]] == [2, 0, 1]


def test_amplification_names_both_drivers():
    # predictions: x 0 0 0 0 -> P(0) = (4 + 1/3) / 5 = 13/15, P(1) = P(2) = 1/15;
    # y 1 1 1 2 -> P(0) = 1/15, P(1) = 10/15, P(2) = 4/15. Largest: class 0, x over y,
    # ln 13
    result = biasamp.differential_fairness_amplification(
        groups=GROUPS, labels=LABELS, labels_pred=[0, 0, 0, 0, 1, 1, 1, 2], **QUIET
    )
    assert result.driver_labels["label"] == 2
    assert result.driver_pred == {
        "group_a": "x",
        "group_b": "y",
        "label": 0,
        "rate_a": pytest.approx(13 / 15),
        "rate_b": pytest.approx(1 / 15),
        "log_ratio": pytest.approx(math.log(13)),
    }
    assert result.driver is result.driver_pred
    assert result.value == pytest.approx(math.log(13) - math.log(4))
    text = repr(result)
    assert "epsilon(labels) set by y over x, label 2" in text
    assert "epsilon(pred) set by x over y, label 0" in text


def test_no_driver_when_every_group_has_the_same_rates():
    result = biasamp.differential_fairness(
        groups=["a", "a", "b", "b"], labels=[0, 1, 0, 1], **QUIET
    )
    assert result.value == 0.0 and result.driver is None and result.to_dict()["driver"] is None


def test_the_driver_survives_save_and_load_and_the_counts_form(tmp_path):
    result = biasamp.differential_fairness(
        groups=GROUPS, labels=LABELS, n_boot=20, random_state=0, **QUIET
    )
    again = biasamp.load_result(result.save(tmp_path / "df.json"))
    assert again == result and again.driver_labels == result.driver_labels
    table = biasamp.CountTable.from_arrays(groups=GROUPS, tasks=LABELS)
    counted = biasamp.differential_fairness_from_counts(table, **QUIET)
    assert counted.driver_labels == result.driver_labels


def test_top_pairs_refuses_a_bad_k():
    result = biasamp.differential_fairness(groups=GROUPS, labels=LABELS, **QUIET)
    with pytest.raises(TypeError):
        result.top_pairs(1.5)
    with pytest.raises(ValueError):
        result.top_pairs(-1)


def test_the_report_names_the_driver():
    pytest.importorskip("matplotlib")
    result = biasamp.differential_fairness(groups=GROUPS, labels=LABELS, **QUIET)
    page = biasamp.render_report({"differential-fairness": result})
    assert "epsilon of the labels set by" in page
    assert "y over x, label 2: P(y | y) = 0.2667, P(y | x) = 0.0667" in page
