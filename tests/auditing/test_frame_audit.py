"""``biasamp.audit`` of frames in memory equals the audit of the same frames in files.

The frames: 240 evaluation and 300 training rows, the group tied to the first task, scores
thresholded at 0.5 and a noisy predicted group. Each frame library (pandas, polars, pyarrow)
gives every metric value, interval and ``by_pair`` table of the audit of the frames written
to CSV files.
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import biasamp
from biasamp.auditing._frames import ERR_FRAME_CONVERT, ERR_FRAME_TYPE
from biasamp.engines._file_reader import ERR_MISSING_COLUMN

polars = pytest.importorskip("polars")
pyarrow = pytest.importorskip("pyarrow")

CONVERT = {
    "pandas": lambda frame: frame,
    "polars": lambda frame: polars.from_pandas(frame),
    "pyarrow": lambda frame: pyarrow.Table.from_pandas(frame, preserve_index=False),
}
METRICS = ("mals", "directional-a2t", "directional-t2a", "multi-mals")


def _split(rng: np.random.Generator, n: int) -> pd.DataFrame:
    gender = rng.choice(["man", "woman"], n, p=[0.55, 0.45])
    is_man = gender == "man"
    frame = pd.DataFrame({"image_id": [f"im{i:04d}" for i in range(n)], "gender": gender})
    frame["cup"] = (rng.random(n) < np.where(is_man, 0.25, 0.6)).astype(int)
    frame["ski"] = (rng.random(n) < np.where(is_man, 0.5, 0.2)).astype(int)
    flip = rng.random(n) < 0.2
    frame["pred_gender"] = np.where(flip, np.where(is_man, "woman", "man"), gender)
    for task in ("cup", "ski"):
        score = 0.5 * frame[task] + 0.45 * rng.random(n) + 0.1 * is_man
        frame[f"pred_{task}"] = np.clip(score, 0, 1).round(4)
    return frame


@pytest.fixture(scope="module")
def splits() -> tuple[pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(2)
    return _split(rng, 240), _split(rng, 300).drop(columns=["pred_gender", "pred_cup", "pred_ski"])


KEYWORDS = {
    "group": "gender",
    "task_cols": ["cup", "ski"],
    "pred_prefix": "pred_",
    "threshold": 0.5,
    "metrics": METRICS,
    "n_boot": 40,
    "random_state": 1,
    "min_group_size": None,
}


def _same(frames: biasamp.AuditResult, files: biasamp.AuditResult) -> None:
    assert list(frames) == list(files) == list(METRICS)
    for key in METRICS:
        assert float(frames[key]) == float(files[key]), key
        assert frames[key].ci == files[key].ci, key
        pd.testing.assert_frame_equal(frames[key].by_pair, files[key].by_pair)
    assert frames.warnings == files.warnings
    assert frames.settings == files.settings


@pytest.mark.parametrize("library", list(CONVERT))
def test_frames_audit_as_their_csv_files(splits, library, tmp_path) -> None:
    test, train = splits
    test.to_csv(tmp_path / "test.csv", index=False)
    train.to_csv(tmp_path / "train.csv", index=False)
    files = biasamp.audit(tmp_path / "test.csv", train=tmp_path / "train.csv", **KEYWORDS)
    convert = CONVERT[library]
    frames = biasamp.audit(convert(test), train=convert(train), **KEYWORDS)
    _same(frames, files)
    # real amplification, not zeros: the training group shares of cup and ski are far apart
    assert abs(float(files["directional-t2a"])) > 0.01 and float(files["mals"]) != 0
    kind = {"pandas": "pandas.DataFrame", "polars": "polars.DataFrame",
            "pyarrow": "pyarrow.Table"}[library]  # fmt: skip
    assert [(f["role"], f["path"], f["rows"]) for f in frames.inputs] == [
        ("data", f"<{kind} data=>", 240),
        ("train", f"<{kind} train=>", 300),
    ]
    # the result's document names no temporary file
    assert "biasamp-frames-" not in str(frames.to_dict())


def test_a_prediction_frame_joined_on_id_and_a_file_mix(splits, tmp_path) -> None:
    test, train = splits
    truth = test.drop(columns=["pred_gender", "pred_cup", "pred_ski"])
    # predictions in another frame, shuffled: joined on the id as a prediction file is
    pred = test[["image_id", "pred_gender", "pred_cup", "pred_ski"]].sample(frac=1, random_state=0)
    truth.to_csv(tmp_path / "truth.csv", index=False)
    pred.to_csv(tmp_path / "pred.csv", index=False)
    train.to_csv(tmp_path / "train.csv", index=False)
    keywords = {**KEYWORDS, "id": "image_id"}
    files = biasamp.audit(
        tmp_path / "truth.csv", pred=tmp_path / "pred.csv", train=tmp_path / "train.csv", **keywords
    )
    frames = biasamp.audit(truth, pred=pred, train=tmp_path / "train.csv", **keywords)
    _same(frames, files)
    # and the same as the predictions in the evaluation frame itself
    inline = biasamp.audit(test, train=train, **KEYWORDS)
    for key in METRICS:
        assert float(inline[key]) == float(files[key])


def test_messages_name_the_frame_not_a_temporary_file(splits) -> None:
    test, _ = splits
    with pytest.raises(ValueError) as caught:
        biasamp.audit(test.drop(columns=["ski"]), **{**KEYWORDS, "metrics": None})
    columns = ", ".join(repr(c) for c in test.columns if c != "ski")
    assert str(caught.value) == ERR_MISSING_COLUMN.format(
        file="<pandas.DataFrame data=>", column="ski", option="task_cols=", columns=columns
    )
    with pytest.raises(
        TypeError, match=re.escape(ERR_FRAME_TYPE.format(argument="train", got="list"))
    ):
        biasamp.audit(test, train=[1, 2], **KEYWORDS)
    # a column of mixed types cannot be written as typed columns: refused naming the keyword
    mixed = test.astype({"gender": object})
    mixed.loc[0, "gender"] = 1
    prefix = ERR_FRAME_CONVERT.split("(", 1)[0].format(argument="train", kind="pandas.DataFrame")
    with pytest.raises(ValueError, match=re.escape(prefix)) as caught:
        biasamp.audit(test, train=mixed, **KEYWORDS)
    assert "column gender" in str(caught.value)


@settings(
    max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(30, 90),
    n_groups=st.integers(2, 3),
    n_tasks=st.integers(1, 3),
)
def test_any_frame_audits_as_its_csv_file(tmp_path, seed, n, n_groups, n_tasks) -> None:
    rng = np.random.default_rng(seed)
    labels = np.array(["g0", "g1", "g2"][:n_groups])
    frame = pd.DataFrame({"group": rng.choice(labels, n)})
    frame["pred_group"] = rng.choice(labels, n)
    tasks = [f"t{k}" for k in range(n_tasks)]
    for task in tasks:
        frame[task] = rng.integers(0, 2, n)
        frame[f"pred_{task}"] = rng.integers(0, 2, n)
    path = tmp_path / f"frame-{seed}-{n}.csv"
    frame.to_csv(path, index=False)
    keywords = {"group": "group", "task_cols": tasks, "pred_prefix": "pred_", "train": None,
                "min_group_size": None}  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        files = biasamp.audit(path, **{**keywords, "train": path})
        frames = biasamp.audit(frame, **{**keywords, "train": frame})
    assert list(frames) == list(files)
    for key in files:
        np.testing.assert_equal(float(frames[key]), float(files[key]))
        pd.testing.assert_frame_equal(frames[key].by_pair, files[key].by_pair)
    assert frames.warnings == files.warnings
