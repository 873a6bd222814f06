"""Exact ties: biasamp decides them on counts, the reference's float ``np.sign`` may not.

Fifteen rows, groups ``a`` (5 rows) and ``b`` (10 rows), one task ``t`` on 9 rows:
3 of the ``a`` rows and 6 of the ``b`` rows. Both pairs tie exactly on counts
(15 * 3 = 5 * 9 and 15 * 6 = 10 * 9), so biasamp gives y = 0 and A->T = 0.0.

The released reference (princetonvisualai/directional-bias-amp) computes
``y = sign(c(a,t)/n - (c(t)/n) * (c(a)/n))`` on floats: 3/15 - (9/15)(5/15) is
2.8e-17 and 6/15 - (9/15)(10/15) is 5.6e-17, so both read y = +1. With every
``a`` row predicted ``t`` (delta .4) and 7 of the ``b`` rows (delta .1), the
reference's mean of y * delta is (.4 + .1) / 2 = .25.
"""

import numpy as np
import pytest

from biasamp import directional

GROUPS = np.array(["a"] * 5 + ["b"] * 10)
TASK = np.array([1, 1, 1, 0, 0] + [1] * 6 + [0] * 4)
PRED = np.array([1, 1, 1, 1, 1] + [1] * 7 + [0] * 3)


def _reference_float_sign_value(groups, task, pred):
    """The reference's arithmetic written from its description (floats, np.sign)."""
    n = len(task)
    values = []
    for g in np.unique(groups):
        in_g = groups == g
        y = np.sign(np.sum(in_g & (task == 1)) / n - (np.sum(task) / n) * (np.sum(in_g) / n))
        values.append(y * (pred[in_g].mean() - task[in_g].mean()))
    return float(np.mean(values))


def test_exact_tie_reads_zero_in_biasamp():
    result = directional(
        direction="A->T", groups=GROUPS, tasks=TASK[:, None], tasks_pred=PRED[:, None]
    )
    assert result.by_pair["y"].tolist() == [0, 0]
    assert result.value == 0.0


def test_reference_float_sign_reads_the_tie_as_positive():
    assert _reference_float_sign_value(GROUPS, TASK, PRED) == pytest.approx(0.25)
