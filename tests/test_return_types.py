"""Public functions return the public types their docs name, with the values worked by hand."""

from __future__ import annotations

import math

import numpy as np
import pytest

from biasamp import (
    DifferentialFairnessResult,
    Oversampling,
    RBAResult,
    RunsSummary,
    across_runs,
    differential_fairness,
    oversample,
    rba,
)


def test_differential_fairness_returns_its_result() -> None:
    result = differential_fairness(
        groups=["a", "a", "a", "b", "b", "b", "b"],
        labels=["x", "x", "y", "x", "y", "y", "y"],
        min_group_size=None,
    )
    assert isinstance(result, DifferentialFairnessResult)
    # rates (N_ys + 1/2) / (N_s + 1): a: x 2.5/4, y 1.5/4; b: x 1.5/5, y 3.5/5
    assert result.value == pytest.approx(math.log((2.5 / 4) / (1.5 / 5)))


def test_across_runs_returns_its_summary() -> None:
    summary = across_runs([0.1, 0.2, 0.3])
    assert isinstance(summary, RunsSummary)
    text = str(summary)
    assert "mean +0.2000" in text and "sample 0.1000" in text


def test_oversample_returns_its_plan() -> None:
    groups = ["a"] * 6 + ["b"] * 2
    tasks = ["x"] * 4 + ["y"] * 2 + ["x", "y"]
    plan = oversample(groups, tasks=tasks, random_state=0)
    assert isinstance(plan, Oversampling)
    indices = np.asarray(plan.indices)
    assert indices.size >= len(groups) and set(indices.tolist()) <= set(range(len(groups)))


def test_rba_returns_its_result() -> None:
    margins = np.array([3, 3, 3, 3, 0.02, 0.04, 0.06, 0.08, 0.1, -3])
    scores = np.stack([np.zeros(10), margins], axis=1)[:, :, None]  # (n, |G|, |T|)
    result = rba(
        scores,
        structure="single",
        groups_train=["m"] * 4 + ["w"] * 6,
        tasks_train=["cook"] * 10,
        eta=0.1,
    )
    assert isinstance(result, RBAResult)
    assert result.converged and int((result.groups_pred == "w").sum()) == 6
