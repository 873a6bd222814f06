"""biasamp.calibration_error: hand-worked values, a brute force, torchmetrics, bad input."""

from __future__ import annotations

import re

import numpy as np
import pytest

from biasamp import calibration_error
from biasamp.comparison._calibration_error import (
    ERR_BINARY,
    ERR_BINS,
    ERR_CLASS,
    ERR_NORM,
    ERR_PROB,
    ERR_SHAPES,
)


def brute_force(correct, confidence, n_bins, norm="l1"):
    """One bin at a time: bin b holds (b/M, (b+1)/M], 0 in the first."""
    total, worst, n = 0.0, 0.0, len(confidence)
    for b in range(n_bins):
        low, high = b / n_bins, (b + 1) / n_bins
        inside = [i for i, c in enumerate(confidence) if (low < c <= high) or (b == 0 and c == 0)]
        if not inside:
            continue
        acc = sum(correct[i] for i in inside) / len(inside)
        conf = sum(confidence[i] for i in inside) / len(inside)
        total += len(inside) / n * abs(acc - conf)
        worst = max(worst, abs(acc - conf))
    return total if norm == "l1" else worst


def test_hand_worked_binary():
    # 5 bins: 0.9 -> (0.8, 1] gap 0.1; 0.2 -> [0, 0.2] gap 0.2; 0.6 -> (0.4, 0.6] gap 0.4;
    # 0.8 -> (0.6, 0.8] gap 0.2: ECE = (0.1 + 0.2 + 0.4 + 0.2) / 4
    assert calibration_error([1, 0, 1, 1], [0.9, 0.2, 0.6, 0.8], n_bins=5) == pytest.approx(0.225)
    assert calibration_error([1, 0, 1, 1], [0.9, 0.2, 0.6, 0.8], n_bins=5, norm="max") == (
        pytest.approx(0.4)
    )
    # perfectly calibrated in one bin: 2 of 4 positives at confidence 0.5
    assert calibration_error([1, 0, 1, 0], [0.5] * 4, n_bins=10) == 0.0
    assert calibration_error([True, False], [1.0, 0.0], n_bins=3) == 0.0


def test_against_a_brute_force_and_torchmetrics():
    torch = pytest.importorskip("torch")
    from torchmetrics.functional.classification import (
        binary_calibration_error,
        multiclass_calibration_error,
    )

    rng = np.random.default_rng(0)
    p = rng.random(500)
    y = (rng.random(500) < p**1.5).astype(int)
    for bins in (1, 7, 15):
        ours = calibration_error(y, p, n_bins=bins)
        assert ours == pytest.approx(brute_force(y.tolist(), p.tolist(), bins), abs=1e-12)
        tm = binary_calibration_error(torch.tensor(p), torch.tensor(y), n_bins=bins)
        assert ours == pytest.approx(tm.item(), abs=1e-9)
    probs = rng.dirichlet(np.ones(4), 300)
    classes = rng.integers(0, 4, 300)
    ours = calibration_error(classes, probs)
    tm = multiclass_calibration_error(
        torch.tensor(probs), torch.tensor(classes), num_classes=4, n_bins=15
    )
    assert ours == pytest.approx(tm.item(), abs=1e-6)
    correct = (probs.argmax(axis=1) == classes).astype(float)
    assert ours == pytest.approx(brute_force(correct, probs.max(axis=1), 15), abs=1e-12)
    # multilabel: every (row, label) one binary prediction
    labels = (rng.random((50, 3)) < 0.4).astype(int)
    scores = rng.random((50, 3))
    assert calibration_error(labels, scores) == pytest.approx(
        brute_force(labels.ravel().tolist(), scores.ravel().tolist(), 15), abs=1e-12
    )


def test_bad_input_is_refused_with_the_row():
    with pytest.raises(ValueError, match=re.escape(ERR_PROB.format(row=1, got=1.5))):
        calibration_error([0, 1], [0.2, 1.5])
    with pytest.raises(ValueError, match=re.escape(ERR_PROB.format(row=0, got=float("nan")))):
        calibration_error([0, 1], [float("nan"), 0.5])
    with pytest.raises(ValueError, match=re.escape(ERR_BINARY.format(row=1, got=2))):
        calibration_error([0, 2], [0.2, 0.5])
    with pytest.raises(ValueError, match=re.escape(ERR_CLASS.format(k_1=1, row=1, got=3))):
        calibration_error([0, 3], [[0.2, 0.8], [0.5, 0.5]])
    with pytest.raises(ValueError, match=re.escape(ERR_SHAPES.format(t=(3,), p=(2,)))):
        calibration_error([0, 1, 1], [0.2, 0.5])
    with pytest.raises(ValueError, match=re.escape(ERR_BINS.format(got=0))):
        calibration_error([0], [0.2], n_bins=0)
    with pytest.raises(ValueError, match=re.escape(ERR_NORM.format(got="l2"))):
        calibration_error([0], [0.2], norm="l2")


@pytest.mark.parametrize("n_bins", [1_000, 10**6, 10**9, 10**18, 10**40])
def test_more_bins_than_rows_count_only_the_bins_that_hold_a_row(n_bins):
    rng = np.random.default_rng(1)
    p = np.round(rng.random(300), 3)  # repeated confidences share a bin at every n_bins
    y = (rng.random(300) < p).astype(int)
    # a bin per distinct confidence once the bins are narrower than the gaps (>= 10**6 here)
    levels, inverse = np.unique(p, return_inverse=True)
    gaps = np.bincount(inverse, weights=y - p)
    expected = np.abs(gaps).sum() / len(p) if n_bins >= 10**6 else brute_force(y, p, n_bins)
    assert calibration_error(y, p, n_bins=n_bins) == pytest.approx(expected, abs=1e-12)
    worst = np.abs(gaps / np.bincount(inverse)).max()
    if n_bins >= 10**6:  # was a MemoryError (10**18) or a 45 s run killed by the system (10**9)
        assert calibration_error(y, p, n_bins=n_bins, norm="max") == pytest.approx(worst)
