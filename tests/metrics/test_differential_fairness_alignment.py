"""Differential fairness reads pandas arguments by index label, as every metric does."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import biasamp

RNG = np.random.default_rng(11)
N = 300
FRAME = pd.DataFrame(
    {
        "race": RNG.choice(["a", "b", "c"], N),
        "sex": RNG.choice(["f", "m"], N),
        "label": RNG.integers(0, 2, N),
        "pred": RNG.integers(0, 2, N),
        "w": RNG.uniform(0.5, 2.0, N),
    },
    index=RNG.permutation(np.arange(1000, 1000 + N)),
)


def _numpy_value(**kw):
    groups = biasamp.intersect(FRAME[["race", "sex"]]).to_numpy()
    return biasamp.differential_fairness_amplification(
        groups=groups,
        labels=FRAME["label"].to_numpy(),
        labels_pred=FRAME["pred"].to_numpy(),
        sample_weight=FRAME["w"].to_numpy(),
        min_group_size=None,
        **kw,
    ).value


@pytest.mark.parametrize("shuffled", ["labels", "labels_pred", "sample_weight", "groups"])
def test_a_reordered_pandas_argument_is_aligned_by_index(shuffled):
    args = {
        "groups": biasamp.intersect(FRAME[["race", "sex"]]),
        "labels": FRAME["label"],
        "labels_pred": FRAME["pred"],
        "sample_weight": FRAME["w"],
    }
    args[shuffled] = args[shuffled].sample(frac=1, random_state=3)
    value = biasamp.differential_fairness_amplification(**args, min_group_size=None).value
    assert value == pytest.approx(_numpy_value(), abs=1e-12)
    assert value != 0


def test_different_index_labels_are_refused_naming_both_arguments():
    labels = FRAME["label"].set_axis(np.arange(N))
    with pytest.raises(ValueError, match="groups and labels are pandas objects with different"):
        biasamp.differential_fairness(
            groups=biasamp.intersect(FRAME[["race", "sex"]]), labels=labels, min_group_size=None
        )
