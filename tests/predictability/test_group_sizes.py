"""Group sizes of the predictability metrics (rows of each true group) and their warning."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import biasamp
from biasamp import SmallGroupWarning

# group a: 10 rows, group b: 30 rows
GROUPS = np.array(["a"] * 10 + ["b"] * 30)
TASKS = np.array(["x", "y"] * 20)
PRED = np.array(["x"] * 10 + ["y"] * 30)


def test_dpa_sizes_and_warning():
    with pytest.warns(SmallGroupWarning) as caught:
        result = biasamp.dpa(
            direction="A->T", groups=GROUPS, tasks=TASKS, tasks_pred=PRED, n_iter=2, random_state=0
        )
    assert result.group_sizes.to_dict() == {"evaluation": {"a": 10.0, "b": 30.0}}
    assert result.small_groups == ("a",) and result.min_group_size == 30.0
    assert [str(w.message) for w in caught] == [
        "1 group(s) have fewer than min_group_size=30 rows in the evaluation split: a (10). "
        "Their rates are noisy; see result.group_sizes (pass min_group_size=None to silence)."
    ]
    assert caught[0].filename == __file__
    assert "smallest group: evaluation 10 (a)" in result.summary()


def test_dpa_t2a_with_indicator_groups_counts_column_sums():
    groups = pd.DataFrame({"a": (GROUPS == "a").astype(int), "b": (GROUPS == "b").astype(int)})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = biasamp.dpa(
            direction="T->A",
            groups=groups,
            tasks=TASKS,
            groups_pred=groups,
            n_iter=1,
            random_state=0,
            min_group_size=10,
        )
    assert result.group_sizes.to_dict() == {
        "evaluation": {"a": 10.0, "b": 30.0},
        "predicted": {"a": 10.0, "b": 30.0},  # the groups the model predicts
    }
    assert result.small_groups == ()


def test_continuous_dpa_has_no_group_sizes():
    rng = np.random.default_rng(0)
    a = rng.random(60)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no sizes, no warning
        result = biasamp.dpa(
            direction="A->T",
            groups=a,
            tasks=2.0 * a,
            tasks_pred=2.0 * a + 0.1 * rng.random(60),
            continuous=True,
            quality="inverse_rmse",
            attacker=biasamp.MLPAttacker((2,), max_iter=50),
            n_iter=1,
            random_state=0,
        )
    assert result.group_sizes is None and result.small_groups == ()
    assert result.to_dict()["group_sizes"] is None


def test_leakage_sizes_and_warning():
    with pytest.warns(SmallGroupWarning, match=r"a \(10\), b \(30\)"):
        result = biasamp.leakage_amplification(
            groups=GROUPS, tasks=TASKS, tasks_pred=PRED, n_iter=2, random_state=0, min_group_size=31
        )
    assert result.group_sizes.to_dict() == {"evaluation": {"a": 10.0, "b": 30.0}}
    assert result.small_groups == ("a", "b")
    assert result.to_dict()["group_sizes"] == {"evaluation": {"a": 10.0, "b": 30.0}}


def test_intersected_groups_list_never_occurring():
    frame = pd.DataFrame({"race": np.where(GROUPS == "a", "r1", "r2"), "sex": ["f"] * 40})
    frame.loc[:4, "sex"] = "m"
    groups = biasamp.intersect(frame)
    result = biasamp.leakage_amplification(
        groups=groups, tasks=TASKS, tasks_pred=PRED, n_iter=1, random_state=0, min_group_size=None
    )
    assert result.group_sizes["evaluation"].to_dict() == {
        "r1 x f": 5.0,
        "r1 x m": 5.0,
        "r2 x f": 30.0,
    }
    assert result.never_occurring.to_dict("records") == [{"race": "r2", "sex": "m"}]
