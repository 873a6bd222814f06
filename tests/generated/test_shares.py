"""corrected_shares: the classifier-error correction (CLEAM's closed form for two groups)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import biasamp
from biasamp.generated._shares import (
    ERR_CONFUSION_SINGULAR,
    ERR_CONFUSION_ZERO,
    ERR_SHARES_ZERO,
)
from biasamp.inputs._readers import ERR_TABLE_VALUE


@settings(max_examples=60, deadline=None)
@given(
    a0=st.floats(0.55, 0.99),
    a1=st.floats(0.55, 0.99),
    p=st.floats(0.0, 1.0),
)
def test_two_groups_equal_cleam_closed_form(a0, a1, p):
    confusion = np.array([[a0, 1 - a0], [1 - a1, a1]])
    observed = confusion.T @ np.array([p, 1 - p])  # what a classifier with these accuracies sees
    closed = (observed[0] + a1 - 1) / (a0 + a1 - 1)  # Teo et al.'s p* for group 0
    got = biasamp.corrected_shares(observed, confusion)
    assert got[0] == pytest.approx(closed, abs=1e-9)
    assert got[0] == pytest.approx(p, abs=1e-9)
    assert got.sum() == pytest.approx(1.0)


def test_hand_worked_two_groups_from_counts():
    # a0 = 0.9, a1 = 0.8; observed 62 / 38 -> (0.62 + 0.8 - 1) / (0.9 + 0.8 - 1) = 0.6
    got = biasamp.corrected_shares([62, 38], [[90, 10], [20, 80]])
    np.testing.assert_allclose(got, [0.6, 0.4])


def test_three_groups_invert_the_mixing():
    confusion = np.array([[0.8, 0.15, 0.05], [0.1, 0.7, 0.2], [0.05, 0.05, 0.9]])
    true = np.array([[0.5, 0.3, 0.2], [0.2, 0.2, 0.6]])
    observed = true @ confusion  # row-wise C^T p
    np.testing.assert_allclose(biasamp.corrected_shares(observed, confusion), true, atol=1e-12)


def test_known_confusion_on_simulated_outputs_is_corrected_back_within_sampling_error():
    rng = np.random.default_rng(7)
    true_shares = np.array([0.7, 0.2, 0.1])
    rates = np.array([[0.85, 0.1, 0.05], [0.15, 0.8, 0.05], [0.1, 0.1, 0.8]])
    n, n_val = 20_000, 3_000
    truth = rng.choice(3, size=n, p=true_shares)
    # the classifier assigns each output a group drawn from its row of the confusion matrix
    assigned = (rng.random(n)[:, None] > np.cumsum(rates[truth], axis=1)).sum(axis=1)
    val_truth = np.repeat(np.arange(3), n_val)
    val_assigned = (rng.random(3 * n_val)[:, None] > np.cumsum(rates[val_truth], axis=1)).sum(
        axis=1
    )
    confusion = pd.crosstab(val_truth, val_assigned).to_numpy()
    observed = np.bincount(assigned, minlength=3) / n
    assert abs(observed[0] - true_shares[0]) > 0.05  # the raw shares are off
    corrected = biasamp.corrected_shares(observed, confusion)
    # sampling error of a share from n outputs and n_val validation rows per group: a few 0.01
    np.testing.assert_allclose(corrected, true_shares, atol=0.02)


def test_pandas_inputs_are_aligned_by_group_names():
    confusion = pd.DataFrame([[80, 20], [10, 90]], index=["w", "m"], columns=["w", "m"])
    shares = pd.Series({"m": 0.55, "w": 0.45})
    got = biasamp.corrected_shares(shares, confusion)
    expected = biasamp.corrected_shares([0.55, 0.45], [[90, 10], [20, 80]])
    assert list(got.index) == ["m", "w"]
    np.testing.assert_allclose(got.to_numpy(), expected)
    frame = pd.DataFrame([[0.55, 0.45], [0.3, 0.7]], columns=["m", "w"], index=["a", "b"])
    out = biasamp.corrected_shares(frame, confusion)
    assert list(out.index) == ["a", "b"] and list(out.columns) == ["m", "w"]
    np.testing.assert_allclose(out.sum(axis=1), 1.0)


def test_out_of_range_solutions_are_clipped_and_renormalised():
    # observed more extreme than the classifier can produce: p* < 0 is clipped to 0
    got = biasamp.corrected_shares([0.02, 0.98], [[0.9, 0.1], [0.1, 0.9]])
    np.testing.assert_allclose(got, [0.0, 1.0])


@pytest.mark.parametrize(
    ("shares", "confusion", "message"),
    [
        ([0.5, 0.5], [[0.5, 0.5], [0.5, 0.5]], ERR_CONFUSION_SINGULAR.split("{")[0]),
        ([0.5, 0.5], [[0, 0], [1, 3]], ERR_CONFUSION_ZERO.split("{")[0]),
        ([0, 0], [[9, 1], [1, 9]], ERR_SHARES_ZERO.split("{")[0]),
        (
            [0.5, -0.1],
            [[9, 1], [1, 9]],
            ERR_TABLE_VALUE.format(arg="shares", row=0, column=1, value=-0.1),
        ),
        ([0.5, 0.5], [[9, 1, 0], [1, 9, 0], [0, 0, 1]], "confusion: expected a K x K table"),
        (
            [0.5, 0.5],
            [[9, -1], [1, 9]],
            ERR_TABLE_VALUE.format(arg="confusion", row=0, column=1, value=-1.0),
        ),
    ],
)
def test_bad_inputs_are_refused_naming_the_argument(shares, confusion, message):
    with pytest.raises(ValueError, match="^" + message.replace("(", r"\(").replace("[", r"\[")):
        biasamp.corrected_shares(shares, confusion)


def test_group_names_must_match():
    confusion = pd.DataFrame([[8, 2], [1, 9]], index=["w", "m"], columns=["w", "x"])
    with pytest.raises(ValueError, match="confusion: its columns"):
        biasamp.corrected_shares(pd.Series({"m": 0.5, "w": 0.5}), confusion)
    with pytest.raises(TypeError, match="^shares: column 0 holds "):
        biasamp.corrected_shares(["a", "b"], [[9, 1], [1, 9]])
    with pytest.raises(ValueError, match="^shares: row 0, column 'w' is missing"):
        biasamp.corrected_shares(pd.Series({"m": 0.5, "w": None}), [[9, 1], [1, 9]])
