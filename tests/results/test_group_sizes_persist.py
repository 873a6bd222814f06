"""Group sizes, small groups and never-occurring intersections survive save / load_result;
files saved before they were recorded still load."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import pytest

import biasamp
from biasamp import SmallGroupWarning
from biasamp.results._persist import InvalidDocument

FIELDS = ("group_sizes", "small_groups", "min_group_size", "never_occurring")
FRAME = pd.DataFrame({"race": ["a", "b", "a", "a"] * 10, "sex": ["f", "m", "m", "f"] * 10})
TASKS = np.array(["x", "y", "x", "y"] * 10)
WEIGHTS = np.arange(40) % 3 + 0.5


def _quiet(function, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SmallGroupWarning)
        return function(**kwargs)


def _results():
    groups = biasamp.intersect(FRAME)
    tasks = pd.DataFrame({"x": (TASKS == "x").astype(int), "y": np.roll(TASKS == "x", 1) * 1})
    return {
        "mals": _quiet(
            biasamp.mals,
            groups_train=groups,
            tasks_train=TASKS,
            groups_pred=np.roll(groups.to_numpy(), 1),
            tasks_pred=TASKS,
            sample_weight=WEIGHTS,
        ),
        "directional": _quiet(
            biasamp.directional,
            direction="T->A",
            groups=groups,
            tasks=TASKS,
            groups_pred=np.roll(groups.to_numpy(), 2),
            sample_weight=WEIGHTS,
            min_group_size=15.5,
        ),
        "multi": _quiet(
            biasamp.multi_directional,
            direction="A->T",
            groups_train=groups,
            tasks_train=tasks,
            groups=groups,
            tasks=tasks,
            tasks_pred=tasks.iloc[::-1].reset_index(drop=True),
            combinations="subsets",
        ),
        "dpa": _quiet(
            biasamp.dpa,
            direction="A->T",
            groups=groups,
            tasks=TASKS,
            tasks_pred=np.roll(TASKS, 1),
            n_iter=2,
            random_state=0,
        ),
    }


@pytest.mark.parametrize("name", ["mals", "directional", "multi", "dpa"])
def test_group_sizes_round_trip(tmp_path, name):
    result = _results()[name]
    assert result.group_sizes is not None and result.small_groups
    assert result.never_occurring.to_dict("records") == [{"race": "b", "sex": "f"}]
    loaded = biasamp.load_result(result.save(tmp_path / f"{name}.json"))
    assert loaded == result
    for field in FIELDS:
        a, b = getattr(result, field), getattr(loaded, field)
        if isinstance(a, pd.DataFrame):
            pd.testing.assert_frame_equal(a, b, check_exact=True)
        else:
            assert a == b
    assert loaded.to_dict()["group_sizes"] == result.to_dict()["group_sizes"]


def test_weighted_sizes_after_loading(tmp_path):
    result = _results()["directional"]
    # a x f: rows 0, 3, 4, 7, ... (i % 4 in {0, 3}); weights (i % 3) + 0.5 over them
    index = np.arange(40)
    expected = {
        "a x f": float(WEIGHTS[np.isin(index % 4, [0, 3])].sum()),
        "a x m": float(WEIGHTS[index % 4 == 2].sum()),
        "b x m": float(WEIGHTS[index % 4 == 1].sum()),
    }
    # by hand: b x m is rows 1, 5, ..., 37, weights 1.5 2.5 0.5 repeating: 3 x 4.5 + 1.5
    assert expected == {"a x f": 28.0, "a x m": 16.0, "b x m": 15.0}
    loaded = biasamp.load_result(result.save(tmp_path / "d.json"))
    assert loaded.group_sizes["evaluation"].to_dict() == expected
    assert loaded.min_group_size == 15.5
    assert loaded.small_groups == ("b x m",)  # predicted a x m (14) is not checked


def test_files_saved_without_group_sizes_still_load(tmp_path):
    for name, result in _results().items():
        path = result.save(tmp_path / f"{name}.json")
        document = json.loads(path.read_text(encoding="utf-8"))
        for field in FIELDS:
            del document["result"][field]
        path.write_text(json.dumps(document), encoding="utf-8")
        loaded = biasamp.load_result(path)
        assert loaded.group_sizes is None and loaded.small_groups == ()
        assert loaded.min_group_size is None and loaded.never_occurring is None
        assert loaded.value == result.value or np.isnan(result.value)
        assert loaded.to_dict()["group_sizes"] is None
        assert "smallest group" not in loaded.summary()


def test_an_edited_group_sizes_field_is_refused(tmp_path):
    path = _results()["mals"].save(tmp_path / "mals.json")
    document = json.loads(path.read_text(encoding="utf-8"))
    document["result"]["group_sizes"] = {"m": 3}
    path.write_text(json.dumps(document), encoding="utf-8")
    with pytest.raises(InvalidDocument, match=r"\$\.result\.group_sizes"):
        biasamp.load_result(path)


def test_group_sizes_dict_round_trips_through_json():
    from biasamp.results._base import group_sizes_dict, group_sizes_from_dict

    result = _results()["mals"]
    text = json.dumps(result.to_dict(pairs=False))
    again = group_sizes_from_dict(json.loads(text)["group_sizes"])
    pd.testing.assert_frame_equal(again, result.group_sizes)
    assert group_sizes_from_dict(None) is None
    assert group_sizes_dict(result)["group_sizes"] == json.loads(text)["group_sizes"]
