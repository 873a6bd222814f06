"""Public functions return the public types their docs name, with the values worked by hand."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from biasamp import (
    CaptionBiasResult,
    DifferentialFairnessResult,
    LICResult,
    Oversampling,
    RBAResult,
    RunsSummary,
    across_runs,
    caption_bias_amplification,
    differential_fairness,
    lic,
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


def test_caption_bias_amplification_returns_its_result() -> None:
    captions = ["a man riding skis", "a woman with a dog", "a man with a dog",
                "a person on skis", "a woman on skis", "a man with skis"]  # fmt: skip
    groups = ["man", "woman", "woman", "man", "woman", "man"]
    tasks = pd.DataFrame({"skis": [1, 0, 0, 1, 1, 1], "dog": [0, 1, 1, 0, 0, 0]})
    result = caption_bias_amplification(captions=captions, groups=groups, tasks=tasks)
    assert isinstance(result, CaptionBiasResult)
    # one caption names no group; 4 of the 5 others name the right one
    assert (result.n_no_group, result.group_accuracy) == (1, pytest.approx(0.8))


def test_lic_returns_its_result() -> None:
    groups = np.array(["man", "woman"] * 40)
    places = np.random.default_rng(0).choice(["kitchen", "skatepark"], groups.size)
    human = [f"a {g} in a {p}" for g, p in zip(groups, places, strict=True)]
    model = [f"a {g} in a {'kitchen' if g == 'woman' else 'skatepark'}" for g in groups]
    result = lic(captions_human=human, captions_model=model, groups=groups, n_iter=1,
                 random_state=0)  # fmt: skip
    assert isinstance(result, LICResult)
    assert result.value == pytest.approx(result.lic_m - result.lic_d)
    assert result.lic_m > result.lic_d  # the model's places follow the gender, the humans' not
