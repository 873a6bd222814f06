"""share_trajectory and feedback_bound (Taori & Hashimoto, Theorem 1)."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import biasamp
from biasamp.generated._trajectory import ERR_ONE_STEP, ERR_ROUNDS

STEPS = [0] * 4 + [1] * 4 + [2] * 4
LEAN = ["r", "r", "r", "l", "r", "r", "c", "l", "r", "r", "r", "r"]


def loop_bound(t: int, n0: float, m: float, k: float, delta: float) -> float:
    """Theorem 1 term by term, as written: n(s) = n0 + s (m + k)."""

    def n(s: int) -> float:
        return n0 + s * (m + k)

    total = 0.0
    for i in range(1, t + 1):
        product = 1.0
        for j in range(i + 1, t + 1):
            product *= (n(j) - m) / n(j)
        total += k / n(i) * product
    return (1.0 + total) * delta


@settings(max_examples=40, deadline=None)
@given(
    rounds=st.integers(0, 40),
    n0=st.floats(1, 1e5),
    m=st.floats(0, 1e4),
    k=st.floats(0, 1e4),
    delta=st.floats(0, 1),
)
def test_feedback_bound_equals_the_term_by_term_computation(rounds, n0, m, k, delta):
    got = biasamp.feedback_bound(rounds, n0=n0, m=m, k=k, delta=delta)
    expected = [loop_bound(t, n0, m, k, delta) for t in range(rounds + 1)]
    assert got.shape == (rounds + 1,)
    np.testing.assert_allclose(got, expected, rtol=1e-9, atol=1e-15)


def test_feedback_bound_hand_values():
    # m = 0, k = n0: bound_t = delta * (1 + 1/2 + ... + 1/(t+1))
    got = biasamp.feedback_bound(3, n0=100, m=0, k=100, delta=0.1)
    np.testing.assert_allclose(got, 0.1 * np.array([1, 1.5, 1.5 + 1 / 3, 1.5 + 1 / 3 + 0.25]))
    assert biasamp.feedback_bound(5, n0=10, m=3, k=0, delta=0.2).tolist() == [0.2] * 6
    long = biasamp.feedback_bound(2000, n0=1000, m=500, k=500, delta=0.05)
    assert np.all(np.diff(long) >= 0) and long[-1] < 0.05 * 3  # human samples keep it finite


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((-1, 1.0, 0.0, 1.0, 0.1), ERR_ROUNDS.format(got=-1)),
        ((2.5, 1.0, 0.0, 1.0, 0.1), ERR_ROUNDS.format(got=2.5)),
        ((2, 0.0, 0.0, 1.0, 0.1), "n0: expected a finite number > 0, got 0.0."),
        ((2, 1.0, -1.0, 1.0, 0.1), "m: expected a finite number >= 0, got -1.0."),
        ((2, 1.0, 0.0, np.inf, 0.1), "k: expected a finite number >= 0, got inf."),
        ((2, 1.0, 0.0, 1.0, np.nan), "delta: expected a finite number >= 0, got nan."),
    ],
)
def test_feedback_bound_refuses_bad_arguments(args, message):
    rounds, n0, m, k, delta = args
    with pytest.raises(ValueError, match="^" + re.escape(message)):
        biasamp.feedback_bound(rounds, n0=n0, m=m, k=k, delta=delta)


def test_shares_change_and_slope_by_hand():
    result = biasamp.share_trajectory(groups=LEAN, steps=STEPS)
    assert isinstance(result, biasamp.ShareTrajectoryResult)
    expected = pd.DataFrame(
        {"c": [0, 0.25, 0], "l": [0.25, 0.25, 0], "r": [0.75, 0.5, 1.0]},
        index=pd.Index([0, 1, 2], name="step"),
    )
    np.testing.assert_allclose(result.shares.to_numpy(), expected.to_numpy())
    assert list(result.shares.columns) == ["c", "l", "r"]
    np.testing.assert_allclose(result.shares.sum(axis=1), 1.0)
    np.testing.assert_allclose(result.change["r"], [0, -0.25, 0.25])
    assert result.majority_group == "r"
    assert result.value == pytest.approx(0.125)  # slope of 0.75, 0.5, 1.0 over 0, 1, 2
    assert result.counts.to_numpy().sum() == 12 and result.n == 12


def test_numeric_steps_are_the_x_and_labels_are_placed_in_order():
    spaced = biasamp.share_trajectory(groups=LEAN, steps=[s * 10 for s in STEPS])
    assert spaced.value == pytest.approx(0.0125)
    named = biasamp.share_trajectory(groups=LEAN, steps=[f"g{s}" for s in STEPS])
    assert named.value == pytest.approx(0.125) and not named.params["numeric_steps"]


def test_slope_against_numpy_on_random_data():
    rng = np.random.default_rng(5)
    steps = rng.integers(0, 7, 3000)
    groups = np.where(rng.random(3000) < 0.4 + 0.04 * steps, "a", "b")
    result = biasamp.share_trajectory(groups=groups, steps=steps)
    shares = pd.crosstab(steps, groups, normalize="index")
    majority = shares.iloc[0].idxmax()
    assert result.majority_group == majority
    assert result.value == pytest.approx(np.polyfit(shares.index, shares[majority], 1)[0])


def test_intervals_contain_the_point_estimates():
    result = biasamp.share_trajectory(
        groups=LEAN * 20, steps=STEPS * 20, n_boot=300, random_state=0
    )
    assert result.ci[0] <= result.value <= result.ci[1]
    assert (result.shares_low.to_numpy() <= result.shares.to_numpy() + 1e-12).all()
    assert (result.shares.to_numpy() <= result.shares_high.to_numpy() + 1e-12).all()
    again = biasamp.share_trajectory(groups=LEAN * 20, steps=STEPS * 20, n_boot=300, random_state=0)
    assert np.array_equal(again.replicates, result.replicates)


@settings(max_examples=20, deadline=None)
@given(st.randoms(use_true_random=False))
def test_row_order_does_not_matter(random):
    order = list(range(len(LEAN)))
    random.shuffle(order)
    a = biasamp.share_trajectory(groups=LEAN, steps=STEPS)
    b = biasamp.share_trajectory(groups=[LEAN[i] for i in order], steps=[STEPS[i] for i in order])
    pd.testing.assert_frame_equal(a.shares, b.shares)
    assert a.value == b.value


def test_containers_give_the_same_shares():
    polars = pytest.importorskip("polars")
    expected = biasamp.share_trajectory(groups=LEAN, steps=STEPS)
    for wrap in (np.asarray, pd.Series, polars.Series):
        got = biasamp.share_trajectory(groups=wrap(LEAN), steps=wrap(STEPS))
        pd.testing.assert_frame_equal(got.shares, expected.shares)


def test_group_names_and_bad_inputs():
    named = biasamp.share_trajectory(groups=LEAN, steps=STEPS, group_names=["r", "l", "c", "x"])
    assert list(named.shares.columns) == ["r", "l", "c", "x"]
    assert named.shares["x"].tolist() == [0, 0, 0]
    with pytest.raises(
        ValueError, match="^" + re.escape(ERR_ONE_STEP.split("(")[0].format(n=1, steps=[]))
    ):
        biasamp.share_trajectory(groups=["a", "b"], steps=[0, 0])
    with pytest.raises(ValueError, match="^groups: contains 1 missing"):
        biasamp.share_trajectory(groups=["a", None], steps=[0, 1])
    with pytest.raises(ValueError, match="^steps: mixes label types"):
        biasamp.share_trajectory(groups=["a", "b"], steps=[1, "1"])
    with pytest.raises(ValueError, match=r"^group_names: the group\(s\) \['l'\]"):
        biasamp.share_trajectory(groups=LEAN, steps=STEPS, group_names=["r", "c"])
    with pytest.raises(ValueError, match="n_boot=10000000000000 bootstrap replicates"):
        biasamp.share_trajectory(groups=LEAN, steps=STEPS, n_boot=10**13)


def test_plot_with_a_bound_beside_the_trajectory(tmp_path):
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    result = biasamp.share_trajectory(groups=LEAN, steps=STEPS, n_boot=50, random_state=0)
    bound = biasamp.feedback_bound(2, n0=4, m=0, k=4, delta=0.05)
    ax = result.plot(bound=bound)
    assert any(c.get_label() == "feedback bound" for c in ax.collections)
    with pytest.raises(ValueError, match="bound: expected 3 values"):
        result.plot(bound=bound[:2])
    assert biasamp.load_result(result.save(tmp_path / "s.json")) == result
