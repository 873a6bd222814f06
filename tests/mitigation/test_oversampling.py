"""Tests of greedy single-attribute oversampling (Zhao et al. 2023, appendices C and F.1)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import biasamp
from biasamp import oversample
from biasamp.mitigation._oversampling import ERR_EPSILON, ERR_MAX_ROUNDS, ERR_ONE_GROUP


def test_single_task_needs_the_fewest_copies():
    # cook: 3 w, 1 m. m's share must reach 1/2 - 0.025 = 0.475: (1 + k) / (4 + k) >= 0.475
    # gives k >= 0.9 / 0.525 = 1.71, so 2 copies of the only (m, cook) row (index 3).
    result = oversample(["w", "w", "w", "m"], tasks=["cook"] * 4, random_state=1)
    assert result.indices.tolist() == [0, 1, 2, 3, 3, 3]
    assert result.balanced and result.n_rounds == 1
    assert result.bias_before.loc["cook", "m"] == 0.25
    assert result.bias_after.loc["cook", "m"] == 0.5
    # a wider interval needs fewer copies: (1 + k) / (4 + k) >= 0.3 -> k >= 0.2 / 0.7 -> 1
    assert len(oversample(["w", "w", "w", "m"], tasks=["cook"] * 4, epsilon=0.2)) == 5


def test_already_balanced_draws_nothing():
    result = oversample(["a", "b", "a", "b"], tasks=["x", "x", "y", "y"], random_state=0)
    assert result.indices.tolist() == [0, 1, 2, 3] and result.n_rounds == 0


def test_unfixable_task_is_reported():
    # "toaster" only occurs with w: no m row can be copied
    result = oversample(
        ["w", "w", "m", "m"], tasks=["toaster", "cook", "cook", "ski"], random_state=0
    )
    assert not result.balanced
    assert "toaster" in result.off_tasks
    assert result.off_reason["toaster"] == "no row of the group to copy"


def test_three_groups_reach_the_interval():
    rng = np.random.default_rng(0)
    groups = rng.choice(["a", "b", "c"], 600, p=[0.6, 0.3, 0.1])
    tasks = pd.DataFrame((rng.random((600, 4)) < 0.3).astype(int), columns=list("wxyz"))
    result = oversample(groups, tasks=tasks, epsilon=0.07, random_state=0)
    assert result.balanced
    assert (np.abs(result.bias_after.to_numpy() - 1 / 3) <= 0.07 + 1e-12).all()


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), n_tasks=st.integers(1, 4))
def test_counts_of_resampled_rows_match_and_copies_are_real(seed, n_tasks):
    rng = np.random.default_rng(seed)
    n = 80
    groups = rng.choice(["m", "w"], n, p=[0.7, 0.3])
    tasks = (rng.random((n, n_tasks)) < 0.4).astype(int)
    result = oversample(groups, tasks=tasks, random_state=seed)
    idx = result.indices
    assert idx[:n].tolist() == list(range(n))  # every row once, then the copies
    assert ((idx >= 0) & (idx < n)).all()
    after = biasamp.bias_scores(
        groups[idx], tasks=tasks[idx], group_names=["m", "w"], task_names=list(range(n_tasks))
    )
    np.testing.assert_allclose(after.to_numpy(), result.bias_after.to_numpy())
    inside = (np.abs(after.to_numpy() - 0.5) <= 0.025 + 1e-12).all(axis=1)
    assert result.balanced == bool(inside.all())
    assert set(result.off_tasks) == {t for t, ok in zip(after.index, inside, strict=True) if not ok}
    again = oversample(groups, tasks=tasks, random_state=seed)
    np.testing.assert_array_equal(again.indices, idx)  # seeded


def test_real_coco_single_attributes_balance():
    from biasamp.datasets import load_coco_gender

    train = load_coco_gender("val")
    objects = [c for c in train.columns if c not in ("image_id", "gender")]
    result = oversample(train["gender"], tasks=train[objects], random_state=0)
    fixable = [t for t in objects if t not in result.off_tasks]
    assert (np.abs(result.bias_after.loc[fixable].to_numpy() - 0.5) <= 0.025 + 1e-12).all()
    assert all(r == "no row of the group to copy" for r in result.off_reason.values())
    assert len(result) > len(train)
    assert math.isclose(float(np.asarray(result, dtype=float).sum()), float(result.indices.sum()))


def test_bad_inputs():
    with pytest.raises(ValueError, match="epsilon"):
        oversample(["a"], tasks=["x"], epsilon=1.5)
    with pytest.raises(ValueError, match="max_rounds"):
        oversample(["a"], tasks=["x"], max_rounds=0)
    with pytest.raises(ValueError, match="exactly one group"):
        oversample(np.array([[1, 1], [1, 0]]), tasks=["x", "y"])
    assert "{got" in ERR_EPSILON and "{got" in ERR_MAX_ROUNDS and "one group" in ERR_ONE_GROUP


def test_positional_tasks_is_deprecated():
    with pytest.deprecated_call(match="passing tasks by position is deprecated"):
        old = oversample(["w", "w", "w", "m"], ["cook"] * 4, random_state=1)
    new = oversample(["w", "w", "w", "m"], tasks=["cook"] * 4, random_state=1)
    assert old.indices.tolist() == new.indices.tolist()
