"""Group sizes stay arrays until read: the frame is built on first access, once."""

from __future__ import annotations

import copy
import pickle
import warnings

import numpy as np
import pandas as pd

import biasamp
from biasamp.inputs import SmallGroupWarning
from biasamp.metrics._group_sizes import SplitSizes


def call(**options):
    return biasamp.directional(
        direction="T->A",
        groups=["m", "w", "w", "m", "w"],
        tasks=np.array([[1, 0], [0, 1], [1, 1], [0, 0], [1, 0]]),
        groups_pred=["m", "m", "w", "m", "w"],
        groups_train=["w", "m", "w"],
        tasks_train=np.array([[1, 0], [0, 1], [1, 1]]),
        **options,
    )


def test_sizes_are_a_builder_until_read():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SmallGroupWarning)
        result = call()
    held = result.__dict__["_group_sizes_frame"]
    assert callable(held) and not isinstance(held, pd.DataFrame)
    expected = pd.DataFrame(
        {"train": [1.0, 2.0], "evaluation": [2.0, 3.0], "predicted": [3.0, 2.0]},
        index=pd.Index(["m", "w"], name="group"),
    )
    pd.testing.assert_frame_equal(result.group_sizes, expected)
    assert result.group_sizes is result.group_sizes  # built once
    assert result.small_groups == ("m", "w")  # checked on the arrays, before any frame


def test_copies_pickles_and_saved_files_carry_the_frame(tmp_path):
    result = call(min_group_size=None)
    for other in (copy.deepcopy(result), pickle.loads(pickle.dumps(result))):
        assert isinstance(other.__dict__["_group_sizes_frame"], pd.DataFrame)
        pd.testing.assert_frame_equal(other.group_sizes, result.group_sizes)
    again = biasamp.load_result(result.save(tmp_path / "r.json"))
    assert again.group_sizes.to_dict() == result.group_sizes.to_dict()


def test_split_sizes_frame():
    sizes = SplitSizes(["a", "b"], ["evaluation"], np.array([[1.0], [2.0]]))
    frame = sizes.frame()
    assert frame is sizes.frame()
    assert frame.index.name == "group" and frame["evaluation"].tolist() == [1.0, 2.0]
