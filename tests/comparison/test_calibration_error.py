"""biasamp.calibration_error: hand-worked values, a brute force, torchmetrics, bad input."""

from __future__ import annotations

import re
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from biasamp import calibration_error
from biasamp.comparison._calibration_error import (
    ERR_BINARY,
    ERR_CLASS,
    ERR_NONE,
    ERR_NORM,
    ERR_SHAPES,
)
from biasamp.inputs._containers import ERR_MISSING_LABEL
from biasamp.inputs._readers import ERR_KNOB, ERR_POSTERIOR_RANGE


def brute_force(correct, confidence, n_bins, norm="l1"):
    """One bin at a time: bin b holds [b/M, (b+1)/M) (exact fractions), 1.0 a bin of its own."""
    total, worst, n = 0.0, 0.0, len(confidence)
    for b in range(n_bins + 1):
        low, high = Fraction(b, n_bins), Fraction(b + 1, n_bins)
        inside = [i for i, c in enumerate(confidence) if low <= Fraction(float(c)) < high]
        if not inside:
            continue
        acc = sum(correct[i] for i in inside) / len(inside)
        conf = sum(confidence[i] for i in inside) / len(inside)
        total += len(inside) / n * abs(acc - conf)
        worst = max(worst, abs(acc - conf))
    return total if norm == "l1" else worst


def test_hand_worked_binary():
    # 5 bins [b/5, (b+1)/5): 0.2 -> [0.2, 0.4) gap 0.2; 0.6 -> [0.6, 0.8) gap 0.4;
    # 0.8 and 0.9 -> [0.8, 1.0) accuracy 1, confidence 0.85, gap 0.15 for 2 rows:
    # ECE = (0.2 + 0.4 + 2 * 0.15) / 4 = 0.225
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
    with pytest.raises(
        ValueError,
        match=re.escape(ERR_POSTERIOR_RANGE.format(arg="y_prob", row=1, got=1.5, where="")),
    ):
        calibration_error([0, 1], [0.2, 1.5])
    with pytest.raises(
        ValueError, match=re.escape(ERR_MISSING_LABEL.format(arg="y_prob", count=1, row=0))
    ):
        calibration_error([0, 1], [float("nan"), 0.5])
    with pytest.raises(ValueError, match=re.escape(ERR_BINARY.format(row=1, got=2))):
        calibration_error([0, 2], [0.2, 0.5])
    with pytest.raises(ValueError, match=re.escape(ERR_CLASS.format(k_1=1, row=1, got=3))):
        calibration_error([0, 3], [[0.2, 0.8], [0.5, 0.5]])
    with pytest.raises(ValueError, match=re.escape(ERR_SHAPES.format(t=(3,), p=(2,)))):
        calibration_error([0, 1, 1], [0.2, 0.5])
    with pytest.raises(
        ValueError,
        match=re.escape(ERR_KNOB.format(knob="n_bins", expected="an integer >= 1", got=0)),
    ):
        calibration_error([0], [0.2], n_bins=0)
    with pytest.raises(ValueError, match=re.escape(ERR_NORM.format(got="l2"))):
        calibration_error([0], [0.2], norm="l2")


def test_mixed_or_text_truth_is_refused_naming_y_true():
    # 1 with '1' and True with 1 are two label types (the labels reader's rule), text
    # labels are not 0/1; each is a ValueError naming y_true and the row
    for truth, text in (
        ([0, "1", 1, 0], "y_true: mixes label types (number and str), the first str at row 1"),
        ([True, 1, 0, 1], "y_true: mixes label types (bool and number), the first number at row 1"),
        (["no", "yes", "no", "yes"], ERR_BINARY.format(row=0, got="no")),
    ):
        with pytest.raises(ValueError, match="^" + re.escape(text)):
            calibration_error(truth, [0.2, 0.7, 0.4, 0.9])


def test_missing_values_are_refused_naming_the_argument_and_row():
    missing = ERR_MISSING_LABEL.format(arg="y_true", count=1, row=1)
    with pytest.raises(ValueError, match=re.escape(missing)):
        calibration_error([1, None], [0.5, 0.2])
    with pytest.raises(ValueError, match=re.escape(missing)):
        calibration_error(pd.Series([1, pd.NA], dtype="Int64"), [0.5, 0.2])
    missing = ERR_MISSING_LABEL.format(arg="y_prob", count=1, row=1)
    with pytest.raises(ValueError, match=re.escape(missing)):
        calibration_error([1, 0], [0.5, None])
    with pytest.raises(ValueError, match=re.escape(missing)):
        calibration_error([1, 0], pd.Series([0.5, pd.NA], dtype="Float64"))
    with pytest.raises(ValueError, match=re.escape(ERR_NONE.format(arg="y_true"))):
        calibration_error(None, [0.5])


def test_float64_edges_are_torch_linspace_rounded_once():
    # edge i is i * step below the midpoint and fma(-step, n - i, 1) above it: the exact
    # values rounded once, here from Python's exact rationals
    from fractions import Fraction

    from biasamp.comparison._calibration_error import bin_edges

    for n_bins in (1, 2, 3, 7, 10, 15, 49, 100, 999, 4093):
        step = Fraction(1.0 / n_bins)
        half = (n_bins + 1) // 2
        exact = [
            float(step * i) if i < half else float(1 - step * (n_bins - i))
            for i in range(n_bins + 1)
        ]
        np.testing.assert_array_equal(bin_edges(n_bins, np.float64), np.array(exact))


def test_many_bins_over_many_rows_are_fast():
    import time

    rng = np.random.default_rng(0)
    y, p = rng.integers(0, 2, 200_000), rng.random(200_000)
    start = time.perf_counter()
    fine = calibration_error(y, p, n_bins=800_000)
    assert time.perf_counter() - start < 5
    # independently: bin floor(p * M) (random p sit nowhere near an edge's last unit)
    bins = np.floor(p * 800_000).astype(np.int64)
    count = np.bincount(bins)
    gap = np.abs(np.bincount(bins, weights=y) - np.bincount(bins, weights=p))
    assert fine == pytest.approx(gap[count > 0].sum() / len(p), abs=1e-12)


def test_edges_go_to_the_bin_above_and_one_has_its_own_bin():
    # 4 bins. 0.25 (negative) sits on an edge: bin [0.25, 0.5), alone: gap 0.25;
    # 0.5 (positive) -> [0.5, 0.75), gap 0.5; 1.0 (positive) -> its own bin, gap 0;
    # 0.0 (negative) -> [0, 0.25), gap 0. ECE = (0.25 + 0.5) / 4 = 0.1875.
    assert calibration_error([0, 1, 1, 0], [0.25, 0.5, 1.0, 0.0], n_bins=4) == 0.1875
    # 2 bins: 0.75 (negative) and 0.5 (positive) share [0.5, 1): accuracy 0.5, confidence
    # 0.625, ECE 0.125 (with (0, 0.5], (0.5, 1] bins they would be apart: (0.5 + 0.75) / 2)
    assert calibration_error([0, 1], [0.75, 0.5], n_bins=2) == 0.125
    # 1.0 in a bin of its own: a negative at 1.0 and a positive at 0.95 (1 bin)
    # one bin [0, 1) holds 0.95 (gap 0.05), 1.0 alone (gap 1): (0.05 + 1) / 2
    assert calibration_error([1, 0], [0.95, 1.0], n_bins=1) == pytest.approx(0.525)


@settings(max_examples=150, deadline=None)
@given(
    n_bins=st.integers(1, 40),
    data=st.data(),
    single=st.booleans(),
)
def test_equals_torchmetrics_on_bin_edges(n_bins, data, single):
    torch = pytest.importorskip("torch")
    from torchmetrics.functional.classification import (
        binary_calibration_error,
        multiclass_calibration_error,
    )

    n = data.draw(st.integers(1, 30))
    steps = data.draw(st.lists(st.integers(0, n_bins), min_size=n, max_size=n))
    p = np.array(steps, dtype=np.float64) / n_bins  # every confidence on an edge
    y = np.array(data.draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)))
    for dtype in (np.float64, np.float32):
        values = p.astype(dtype)
        expected = binary_calibration_error(torch.tensor(values), torch.tensor(y), n_bins=n_bins)
        assert calibration_error(y, values, n_bins=n_bins) == pytest.approx(
            expected.item(), abs=1e-6 if dtype == np.float32 else 1e-12
        )
        tm_max = binary_calibration_error(
            torch.tensor(values), torch.tensor(y), n_bins=n_bins, norm="max"
        )
        assert calibration_error(y, values, n_bins=n_bins, norm="max") == pytest.approx(
            tm_max.item(), abs=1e-6 if dtype == np.float32 else 1e-12
        )
    # Python lists: torch.tensor makes them float32, and biasamp bins them as such
    expected = binary_calibration_error(
        torch.tensor(p.tolist()), torch.tensor(y.tolist()), n_bins=n_bins
    )
    assert calibration_error(y.tolist(), p.tolist(), n_bins=n_bins) == pytest.approx(
        expected.item(), abs=1e-6
    )
    if single:
        return
    # multiclass (3 classes): the top probability on an edge k/M >= 1/2, the rest split evenly
    high = data.draw(st.lists(st.integers((n_bins + 1) // 2, n_bins), min_size=n, max_size=n))
    top = np.array(high, dtype=np.float64) / n_bins
    rest = (1 - top) / 2
    probs = np.column_stack([top, rest, rest])
    classes = np.array(data.draw(st.lists(st.integers(0, 2), min_size=n, max_size=n)))
    expected = multiclass_calibration_error(
        torch.tensor(probs), torch.tensor(classes), num_classes=3, n_bins=n_bins
    )
    assert calibration_error(classes, probs, n_bins=n_bins) == pytest.approx(
        expected.item(), abs=1e-6
    )


def test_one_binary_problem_two_shapes_follow_torchmetrics():
    """(n,) is torchmetrics' binary ECE of p; (n, 2) its two-class top-label ECE."""
    torch = pytest.importorskip("torch")
    from torchmetrics.functional.classification import (
        binary_calibration_error,
        multiclass_calibration_error,
    )

    # hand-worked, 2 bins: p = 0.2 (y=0), 0.7 (y=1), 0.9 (y=1), 0.4 (y=1)
    # binary: [0, .5) holds 0.2, 0.4: acc 0.5, conf 0.3 -> gap 0.2; [.5, 1) holds 0.7, 0.9:
    # acc 1, conf 0.8 -> gap 0.2; ECE = 0.2.
    # top label: confidences 0.8, 0.7, 0.9, 0.6 all in [.5, 1); correct = 1, 1, 1, 0
    # (0.4 predicts class 0, the truth is 1): acc 0.75, conf 0.75 -> ECE 0.
    y = np.array([0, 1, 1, 1])
    p = np.array([0.2, 0.7, 0.9, 0.4])
    assert calibration_error(y, p, n_bins=2) == pytest.approx(0.2)
    assert calibration_error(y, np.column_stack([1 - p, p]), n_bins=2) == pytest.approx(0.0)
    rng = np.random.default_rng(3)
    p = rng.random(400)
    y = (rng.random(400) < p).astype(int)
    two = np.column_stack([1 - p, p])
    binary = binary_calibration_error(torch.tensor(p), torch.tensor(y), n_bins=10).item()
    multi = multiclass_calibration_error(
        torch.tensor(two), torch.tensor(y), num_classes=2, n_bins=10
    ).item()
    assert calibration_error(y, p, n_bins=10) == pytest.approx(binary, abs=1e-12)
    assert calibration_error(y, two, n_bins=10) == pytest.approx(multi, abs=1e-6)
    assert abs(binary - multi) > 1e-3


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


@settings(max_examples=30, deadline=None)
@given(
    n_bins=st.integers(1, 2**53),
    picks=st.lists(st.floats(0, 1, allow_nan=False), min_size=1, max_size=20),
)
def test_edges_at_any_bin_count_are_the_exact_values_rounded_once(n_bins, picks):
    from biasamp.comparison._calibration_error import _edges_at

    index = np.unique(np.array([int(p * n_bins) for p in picks] + [0, n_bins], dtype=np.int64))
    step = Fraction(1.0 / n_bins)
    half = (n_bins + 1) // 2
    exact = [
        float(step * int(i)) if i < half else float(1 - step * (n_bins - int(i))) for i in index
    ]
    np.testing.assert_array_equal(_edges_at(index, n_bins, np.float64), np.array(exact))
