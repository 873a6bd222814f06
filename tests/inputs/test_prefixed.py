"""``pred_prefix=`` on the metric functions: the file audit's ``pred_`` layout in memory.

One frame holds the truth (``gender``, ``cup``, ``ski``) and the predictions
(``pred_gender``, ``pred_cup``, ``pred_ski``); every metric read with
``pred_prefix="pred_"`` from the frame equals the metric on the renamed columns, and
equals :func:`biasamp.audit` of the same frame.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

import biasamp
from biasamp.inputs._prefixed import (
    ERR_MISSING_PREDICTION,
    ERR_NO_PREFIXED,
    ERR_PREFIX_TYPE,
    prediction_columns,
)

polars = pytest.importorskip("polars")
pyarrow = pytest.importorskip("pyarrow")

TASKS = ["cup", "ski"]


@pytest.fixture(scope="module")
def frame() -> pd.DataFrame:
    rng = np.random.default_rng(4)
    n = 200
    gender = rng.choice(["man", "woman"], n)
    is_man = gender == "man"
    out = pd.DataFrame({"gender": gender})
    out["cup"] = (rng.random(n) < np.where(is_man, 0.3, 0.6)).astype(int)
    out["ski"] = (rng.random(n) < np.where(is_man, 0.5, 0.25)).astype(int)
    out["pred_gender"] = np.where(rng.random(n) < 0.25, np.where(is_man, "woman", "man"), gender)
    out["pred_cup"] = np.where(rng.random(n) < 0.2, 1 - out["cup"], out["cup"])
    out["pred_ski"] = np.where(is_man, 1, out["ski"])  # every man predicted skiing
    return out


def _renamed(frame: pd.DataFrame) -> pd.DataFrame:
    return frame[["pred_cup", "pred_ski"]].rename(columns=lambda c: c.removeprefix("pred_"))


def test_prediction_columns_of_each_frame_library(frame) -> None:
    expected = _renamed(frame)
    got = prediction_columns(frame, "pred_", arg="tasks_pred")
    assert list(got.columns) == ["gender", "cup", "ski"]
    pd.testing.assert_frame_equal(got[TASKS], expected)
    # with the truth's columns: only their predictions, in the truth's order
    only = prediction_columns(frame, "pred_", arg="tasks_pred", truth=(None, frame[["ski", "cup"]]))
    pd.testing.assert_frame_equal(only, expected[["ski", "cup"]])
    from_polars = prediction_columns(polars.from_pandas(frame), "pred_", arg="tasks_pred")
    assert from_polars.columns == ["gender", "cup", "ski"]
    table = prediction_columns(pyarrow.Table.from_pandas(frame), "pred_", arg="tasks_pred")
    assert table.column_names == ["gender", "cup", "ski"]
    assert table.column("ski").to_pylist() == expected["ski"].tolist()
    # 1-D predictions have no names: read as given; no prefix: unchanged
    series = frame["pred_gender"]
    assert prediction_columns(series, "pred_", arg="groups_pred") is series
    assert prediction_columns(frame, None, arg="tasks_pred") is frame


def test_refused_prefixes_name_the_argument(frame) -> None:
    columns = ", ".join(repr(c) for c in ("gender", "cup", "ski"))
    expected = ERR_MISSING_PREDICTION.format(
        arg="tasks_pred", column="score_cup", label="cup", prefix="score_", columns=columns
    )
    with pytest.raises(ValueError, match=re.escape(expected)):
        biasamp.directional(direction="A->T", groups=frame["gender"], tasks=frame[TASKS],
                            tasks_pred=frame[["gender", "cup", "ski"]], pred_prefix="score_")  # fmt: skip
    expected = ERR_NO_PREFIXED.format(arg="tasks_pred", prefix="score_", columns=columns)
    with pytest.raises(ValueError, match=re.escape(expected)):
        prediction_columns(frame[["gender", "cup", "ski"]], "score_", arg="tasks_pred")
    with pytest.raises(TypeError, match=re.escape(ERR_PREFIX_TYPE.format(got=""))):
        prediction_columns(frame, "", arg="tasks_pred")


def test_metrics_read_prefixed_columns_as_the_audit_does(frame, tmp_path) -> None:
    truth = {"groups": frame["gender"], "tasks": frame[TASKS]}
    train = {"groups_train": frame["gender"], "tasks_train": frame[TASKS]}
    # the whole frame: the prediction of each task column C is its column pred_C
    a2t = biasamp.directional(direction="A->T", **truth, tasks_pred=frame, pred_prefix="pred_")
    plain = biasamp.directional(direction="A->T", **truth, tasks_pred=_renamed(frame))
    assert a2t.value == plain.value
    pd.testing.assert_frame_equal(a2t.by_pair, plain.by_pair)
    # every man predicted skiing: P(ski | man) rises from the truth, A->T is positive
    assert a2t.value > 0.05
    t2a = biasamp.directional(direction="T->A", **truth, groups_pred=frame["pred_gender"],
                              pred_prefix="pred_")  # fmt: skip
    mals = biasamp.mals(**train, groups_pred=frame["pred_gender"],
                        tasks_pred=frame[["pred_cup", "pred_ski"]], pred_prefix="pred_")  # fmt: skip
    multi = biasamp.multi_mals(**train, **truth, groups_pred=frame["pred_gender"],
                               tasks_pred=frame[["pred_cup", "pred_ski"]], pred_prefix="pred_",
                               min_group_size=None)  # fmt: skip
    multi_plain = biasamp.multi_mals(**train, **truth, groups_pred=frame["pred_gender"],
                                     tasks_pred=_renamed(frame), min_group_size=None)  # fmt: skip
    assert multi.value == multi_plain.value
    multi_t2a = biasamp.multi_directional(direction="T->A", **train, **truth,
                                          groups_pred=frame["pred_gender"],
                                          tasks_pred=frame[["pred_cup", "pred_ski"]],
                                          pred_prefix="pred_", min_group_size=None)  # fmt: skip
    assert np.isfinite(multi_t2a.value)
    # the file audit of the same frame: same prefix, same values
    path = tmp_path / "frame.csv"
    frame.to_csv(path, index=False)
    audit = biasamp.audit(path, group="gender", task_cols=TASKS, pred_prefix="pred_",
                          train=path, metrics=("mals", "directional-a2t", "directional-t2a"))  # fmt: skip
    assert float(audit["directional-a2t"]) == pytest.approx(a2t.value)
    assert float(audit["directional-t2a"]) == pytest.approx(t2a.value)
    assert float(audit["mals"]) == pytest.approx(mals.value)


def test_attacker_metrics_read_prefixed_columns(frame) -> None:
    truth = {"groups": frame["gender"], "tasks": frame[TASKS]}
    common = {"n_iter": 2, "random_state": 0}
    dpa = biasamp.dpa(direction="A->T", **truth, tasks_pred=frame, pred_prefix="pred_", **common)
    plain = biasamp.dpa(direction="A->T", **truth, tasks_pred=_renamed(frame), **common)
    np.testing.assert_array_equal(dpa.values, plain.values)
    leak = biasamp.leakage_amplification(**truth, tasks_pred=frame, pred_prefix="pred_", **common)
    leak_plain = biasamp.leakage_amplification(**truth, tasks_pred=_renamed(frame), **common)
    np.testing.assert_array_equal(leak.values, leak_plain.values)
    assert np.isfinite(dpa.value) and np.isfinite(leak.value)
