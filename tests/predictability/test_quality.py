import math

import numpy as np
import pytest

from biasamp.predictability._quality import (
    ERR_QUALITY_KIND,
    ERR_QUALITY_NAME,
    QUALITY_FUNCTIONS,
    resolve_quality,
)
from biasamp.predictability._targets import Target


def mc(codes, k=2):
    return Target("multiclass", np.asarray(codes), tuple(range(k)))


def ml(values):
    values = np.asarray(values, dtype=float)
    return Target("multilabel", values, tuple(range(values.shape[1])))


def test_accuracy_multiclass_and_hamming():
    y = mc([0, 1, 1, 0])
    p = np.array([[0.9, 0.1], [0.2, 0.8], [0.6, 0.4], [0.5, 0.5]])  # tie -> argmax 0
    assert resolve_quality("accuracy", "multiclass")(y, p) == 0.75
    y2 = ml([[1, 0], [0, 0]])
    p2 = np.array([[0.7, 0.6], [0.1, 0.2]])  # entries: right, wrong, right, right
    assert resolve_quality("accuracy", "multilabel")(y2, p2) == 0.75


def test_macro_f1_by_hand():
    y = mc([0, 0, 1, 2], k=4)  # label 3 never true nor predicted: left out
    p = np.eye(4)[[0, 1, 1, 2]]
    # label 0: tp 1, true 2, pred 1 -> 2/3; label 1: tp 1, true 1, pred 2 -> 2/3; label 2: 1
    assert resolve_quality("f1", "multiclass")(y, p) == pytest.approx((2 / 3 + 2 / 3 + 1) / 3)


def test_inverse_ce_by_hand():
    y = mc([0, 1])
    p = np.full((2, 2), 0.5)
    assert resolve_quality("inverse_ce", "multiclass")(y, p) == pytest.approx(1 / math.log(2))
    y2 = ml([[1.0], [0.0]])
    p2 = np.array([[0.8], [0.4]])
    ce = -(math.log(0.8) + math.log(0.6)) / 2
    assert resolve_quality("inverse_ce", "multilabel")(y2, p2) == pytest.approx(1 / ce)


def test_one_minus_ce_negative_raises():
    y = mc([0, 1])
    good = np.array([[0.9, 0.1], [0.1, 0.9]])
    assert resolve_quality("one_minus_ce", "multiclass")(y, good) == pytest.approx(
        1 + math.log(0.9)
    )
    bad = np.array([[0.1, 0.9], [0.9, 0.1]])  # CE = ln 10 > 1
    with pytest.raises(ValueError, match="inverse_ce"):
        resolve_quality("one_minus_ce", "multiclass")(y, bad)


def test_inverse_rmse_continuous():
    y = Target("continuous", np.array([[1.0], [3.0]]), (0,))
    assert resolve_quality("inverse_rmse", "continuous")(y, np.array([[2.0], [2.0]])) == 1.0


@pytest.mark.parametrize("name", sorted(QUALITY_FUNCTIONS))
@pytest.mark.parametrize("kind", ["multiclass", "multilabel"])
def test_builtins_follow_section_3_2(name, kind):
    """Q >= 0 and a perfect attacker beats a frequency-only one (0 = worst, higher = more)."""
    rng = np.random.default_rng(0)
    if kind == "multiclass":
        y = mc(rng.integers(0, 2, 200), k=2)  # 1 - CE >= 0 needs CE <= 1
    else:
        y = ml(rng.random((200, 4)) < 0.3)
    dense = y.dense()
    perfect = np.clip(dense, 0.02, 0.98)
    prior = np.broadcast_to(dense.mean(axis=0), dense.shape)
    q = resolve_quality(name, kind)
    assert q(y, perfect) > q(y, prior) >= 0
    q.check_orientation(y)  # built-ins pass the run-time check too


def test_orientation_check_rejects_a_loss():
    y = mc([0, 1, 1, 0, 1])

    def cross_entropy(y_true, y_pred):
        return float(-np.mean(np.sum(y_true * np.log(np.clip(y_pred, 1e-9, 1)), axis=1)))

    with pytest.raises(ValueError, match="higher must mean more predictable"):
        resolve_quality(cross_entropy, "multiclass").check_orientation(y)
    resolve_quality(lambda t, p: 1 / cross_entropy(t, p), "multiclass").check_orientation(y)


def test_bad_names_and_kinds():
    with pytest.raises(ValueError, match=ERR_QUALITY_NAME.split(":")[0]):
        resolve_quality("auc", "multiclass")
    with pytest.raises(ValueError) as info:
        resolve_quality("accuracy", "continuous")
    assert info.value.args[0] == ERR_QUALITY_KIND.format(
        name="accuracy", kind="continuous", choices=["inverse_rmse"]
    )
