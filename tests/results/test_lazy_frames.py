"""``by_pair`` of a pairwise result is built when first read; the rest never needs it."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pandas as pd

from biasamp import directional, load_result, mals

GROUPS = np.array(["m", "m", "w", "w", "w"])
TASKS = np.array([[1, 0], [1, 1], [0, 1], [1, 0], [0, 1]])
PRED = np.array([[1, 1], [1, 1], [0, 1], [0, 0], [0, 1]])


def _unbuilt(result: object) -> bool:
    return not isinstance(result.__dict__["_by_pair_frame"], pd.DataFrame)


def test_value_does_not_build_the_frame() -> None:
    result = directional(direction="A->T", groups=GROUPS, tasks=TASKS, tasks_pred=PRED)
    assert _unbuilt(result)
    # A->T, signs from the evaluation split (hand-worked): m: P(t1|m) 1 -> 1, P(t2|m) .5 -> 1;
    # w: P(t1|w) 1/3 -> 0, P(t2|w) 2/3 -> 2/3; y = [[+1, -1], [-1, +1]]
    assert np.isclose(result.value, (0 - 0.5 + 1 / 3 + 0) / 4)
    assert float(result) == result.value and result.ci is None
    assert _unbuilt(result)
    frame = result.by_pair
    assert not _unbuilt(result) and result.by_pair is frame  # built once
    assert np.isclose(frame["contribution"].sum(), result.value)


def test_equality_save_and_top_build_it(tmp_path) -> None:  # type: ignore[no-untyped-def]
    kwargs = {
        "groups_train": GROUPS,
        "tasks_train": TASKS,
        "groups_pred": GROUPS,
        "tasks_pred": PRED,
    }
    a, b = mals(**kwargs), mals(**kwargs)
    assert _unbuilt(a) and _unbuilt(b)
    assert a == b
    loaded = load_result(a.save(tmp_path / "result.json"))
    assert loaded == a
    pd.testing.assert_frame_equal(loaded.by_pair, a.by_pair)
    assert len(mals(**kwargs).top(2)) == 2
    assert "BiasAmp_MALS" in repr(mals(**kwargs))


def test_pickled_and_copied_with_the_frame_built() -> None:
    result = directional(direction="A->T", groups=GROUPS, tasks=TASKS, tasks_pred=PRED)
    assert _unbuilt(result)
    assert len(pickle.dumps(result)) > 0  # the builder is a local function: pickled built
    copied = copy.deepcopy(result)
    assert not _unbuilt(copied) and copied == result
