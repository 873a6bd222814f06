"""``biasamp demo`` on the bundled COCO labels."""

import subprocess
import sys

import numpy as np
import pytest

from biasamp import directional
from biasamp.cli.demo import run_demo


def test_run_demo_numbers_are_consistent():
    result = run_demo(seed=0)
    t2a = result.t_to_a
    assert t2a.direction == "T->A"
    assert t2a.n == 5473 and t2a.n_train == 5367
    assert t2a.n_pairs == 2 * 79
    # the model over-predicts men, as Wang et al. observed for COCO (section 3.3)
    assert result.man_rate_pred > result.man_rate_true
    assert 0.65 < result.accuracy < 0.85
    assert t2a.by_pair["contribution"].sum() == pytest.approx(t2a.value)
    # man and woman rows of one object mirror each other (two exhaustive groups)
    pivot = t2a.by_pair.pivot(index="task", columns="group", values="delta")
    np.testing.assert_allclose(pivot["man"], -pivot["woman"], atol=1e-12)
    assert result.mals.n_tasks == 79
    assert list(result.scores.columns) == ["man", "woman"]


def test_demo_t_to_a_with_perfect_gender_is_zero():
    from biasamp.datasets import load_coco_gender

    test = load_coco_gender("test")
    objects = test.columns[2:]
    zero = directional(
        direction="T->A", groups=test["gender"], tasks=test[objects], groups_pred=test["gender"]
    )
    assert zero.value == 0.0


def test_demo_command_prints_the_tables():
    out = subprocess.run(
        [sys.executable, "-m", "biasamp.cli.main", "demo", "--top", "3"],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    assert "BiasAmp T->A" in out.stdout
    assert "BiasAmp_MALS" in out.stdout
    assert "Top 3 pairs" in out.stdout


def test_demo_calibrated_threshold_matches_the_share_of_men():
    result = run_demo(seed=0)
    # calibrated on the training split: predicted share of men on test close to the truth
    assert abs(result.man_rate_calibrated - result.man_rate_true) < 0.02
    assert 0.5 < result.threshold < 0.8
    # at 0.5 the over-prediction of men masks T->A (Wang et al. 3.3); calibrated, the
    # gender-from-objects model amplifies, and BiasAmp_MALS drops
    assert result.t_to_a.value < 0 < result.t_to_a_calibrated.value
    assert result.mals_calibrated.value < result.mals.value
