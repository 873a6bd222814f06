"""Multi_MALS variance: which pairs of a never-predicted combination enter it (hand-worked).

Groups m/w, combinations {x} and {y} (each task alone). Training: x on m, m, m, w
(b(x, m) = .75 > 1/2, biased; b(x, w) = .25); evaluation predictions: x on one m and
one w row (b_pred = .5 each), y never predicted. Delta(m, x) = .5 - .75 = -.25,
Delta(w, x) = 0 (not biased).

* y on m, w in training (b = .5, not biased): both y pairs stay in with 0, as in
  the reference's ``nanvar`` (its ``diff`` is 0 where a pair is not biased):
  values [-.25, 0, 0, 0], mean -1/16, variance (3/16)^2/4 + 3 (1/16)^2/4 = 3/256.
* y on m, m, w in training (b(y, m) = 2/3, biased): the biased (m, y) pair is
  NaN in the reference and left out; (w, y) stays with 0: values [-.25, 0, 0],
  variance 1/72.
"""

import pandas as pd
import pytest

from biasamp import multi_mals

TASKS_EVAL = pd.DataFrame({"x": [1, 1, 0, 0], "y": [0, 0, 1, 1]})
GROUPS_PRED = ["m", "w", "m", "w"]
TASKS_PRED = pd.DataFrame({"x": [1, 1, 0, 0], "y": [0, 0, 0, 0]})


@pytest.mark.parametrize(
    ("groups_train", "y_rows", "variance", "n_empty"),
    [
        (["m", "m", "m", "w", "m", "w"], 2, 3 / 256, 0),
        (["m", "m", "m", "w", "m", "m", "w"], 3, 1 / 72, 1),
    ],
)
def test_only_biased_never_predicted_pairs_leave_the_variance(
    groups_train, y_rows, variance, n_empty
):
    tasks_train = pd.DataFrame({"x": [1] * 4 + [0] * y_rows, "y": [0] * 4 + [1] * y_rows})
    result = multi_mals(
        groups_train=groups_train,
        tasks_train=tasks_train,
        tasks=TASKS_EVAL,
        groups_pred=GROUPS_PRED,
        tasks_pred=TASKS_PRED,
        absolute=False,
    )
    assert result.value == pytest.approx(-0.25 / 2)
    assert result.variance == pytest.approx(variance)
    assert result.n_empty == n_empty
