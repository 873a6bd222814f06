"""Group sizes per split and the small-group check (hand-counted)."""

from __future__ import annotations

import warnings

import pytest

from biasamp import CountTable, SmallGroupWarning
from biasamp.inputs._group_sizes import ERR_MIN_GROUP_SIZE, check_min_group_size
from biasamp.metrics._group_sizes import check_group_sizes, group_sizes

TRAIN = CountTable.from_arrays(groups=["m"] * 5 + ["w"] * 2, tasks=["a"] * 7)
EVALUATION = CountTable.from_arrays(
    groups=["m", "w", "x"], tasks=["a", "a", "b"], sample_weight=[4.0, 1.5, 3.0]
)


def test_sizes_per_split():
    sizes = group_sizes({"train": TRAIN, "evaluation": EVALUATION})
    assert sizes.to_dict("index") == {
        "m": {"train": 5.0, "evaluation": 4.0},
        "w": {"train": 2.0, "evaluation": 1.5},
        "x": {"train": 0.0, "evaluation": 3.0},
    }


def test_small_groups_in_any_split_warn_once_per_split():
    with pytest.warns(SmallGroupWarning) as caught:
        _, small = check_group_sizes({"train": TRAIN, "evaluation": EVALUATION}, min_group_size=3)
    messages = [str(w.message) for w in caught]
    assert len(messages) == 2
    assert "the training split: w (2)" in messages[0]
    assert "the evaluation split: w (1.5)" in messages[1]
    assert small == ("w",)  # x is absent from training, not small there; 3 >= 3 in evaluation
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert check_group_sizes({"train": TRAIN}, min_group_size=None)[1] == ()


@pytest.mark.parametrize("bad", [-1, float("nan"), "30", True])
def test_min_group_size_is_checked(bad):
    with pytest.raises(ValueError) as info:
        check_min_group_size(bad)
    assert str(info.value) == ERR_MIN_GROUP_SIZE.format(got=bad)
