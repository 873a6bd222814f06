"""polars indicator frames (one 0/1 column per label) give exactly the numpy matrix.

For random 0/1 matrices (hypothesis) held as polars frames of Boolean, Int8,
UInt8 or Int64 columns, in one chunk, in several chunks, or sliced so that the
Arrow bits start inside a byte, :func:`as_label_matrix` gives the names and
values of the same numpy matrix with the frame's column names; the count
table and a metric give the numpy values. Frames with nulls or values other
than 0/1 raise what the general reader raises.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import biasamp
from biasamp.counts import CountTable
from biasamp.inputs import as_label_matrix
from biasamp.inputs._arrow_frames import polars_indicator_frame

pl = pytest.importorskip("polars")

DTYPES = {"Boolean": None, "Int8": np.int8, "UInt8": np.uint8, "Int64": np.int64}


def _frame(values: np.ndarray, dtype: str, layout: str) -> Any:
    columns = [f"label_{j}" for j in range(values.shape[1])]
    kind = DTYPES[dtype]
    data = values.astype(bool) if kind is None else values.astype(kind)
    if layout == "sliced":  # 3 rows before: each column's bits start at bit 3 of a byte
        head = np.zeros((3, values.shape[1]), dtype=data.dtype)
        return pl.DataFrame(np.vstack([head, data]), schema=columns).slice(3)
    frame = pl.DataFrame(data, schema=columns)
    if layout == "chunked":
        half = values.shape[0] // 2
        return pl.concat([frame.slice(0, half), frame.slice(half)], rechunk=False)
    return frame


@settings(max_examples=80, deadline=None)
@given(
    values=hnp.arrays(
        np.uint8,
        st.tuples(st.integers(2, 40), st.integers(2, 6)),
        elements=st.integers(0, 1),
    ),
    dtype=st.sampled_from(sorted(DTYPES)),
    layout=st.sampled_from(["one_chunk", "chunked", "sliced"]),
)
def test_indicator_frames_give_the_numpy_matrix(
    values: np.ndarray, dtype: str, layout: str
) -> None:
    frame = _frame(values, dtype, layout)
    native = polars_indicator_frame(frame)
    assert native is not None
    assert np.array_equal(native.values, values)
    columns = tuple(frame.columns)
    got = as_label_matrix(frame, arg="tasks")
    want = as_label_matrix(values, arg="tasks", names=columns)
    assert got.names == columns
    assert np.array_equal(got.dense(), want.dense())
    groups = np.array(["m", "w"])[np.arange(values.shape[0]) % 2]
    got_counts = CountTable.from_arrays(groups=groups, tasks=frame)
    want_counts = CountTable.from_arrays(groups=groups, tasks=values, task_names=columns)
    assert got_counts.task_names == want_counts.task_names
    assert got_counts.joint.keys() == want_counts.joint.keys()
    for roles, joint in want_counts.joint.items():
        assert np.array_equal(got_counts.joint[roles], joint)


def test_a_metric_on_polars_indicator_frames_equals_numpy() -> None:
    rng = np.random.default_rng(3)
    n = 400
    groups = np.array(["m", "w"])[rng.integers(0, 2, n)]
    truth = (rng.random((n, 4)) < 0.4).astype(np.uint8)
    pred = (rng.random((n, 4)) < 0.4).astype(np.uint8)
    names = ("a", "b", "c", "d")
    want = biasamp.mals(
        groups_train=groups,
        tasks_train=truth,
        groups_pred=groups,
        tasks_pred=pred,
        task_names=names,
        min_group_size=None,
    )
    got = biasamp.mals(
        groups_train=groups,
        tasks_train=pl.DataFrame(truth.astype(bool), schema=list(names)),
        groups_pred=groups,
        tasks_pred=pl.DataFrame(pred.astype(np.int8), schema=list(names)),
        min_group_size=None,
    )
    assert got.value == pytest.approx(want.value, abs=1e-12)


def test_nulls_and_other_values_raise_what_the_general_reader_raises() -> None:
    with_null = pl.DataFrame({"a": [True, None, False], "b": [True, True, False]})
    assert polars_indicator_frame(with_null) is None
    with pytest.raises(ValueError, match=re.escape("column 'a'")):
        as_label_matrix(with_null, arg="tasks")
    twos = pl.DataFrame({"a": [0, 2, 1], "b": [1, 1, 0]}, schema={"a": pl.Int8, "b": pl.Int8})
    with pytest.raises(ValueError) as info:
        as_label_matrix(twos, arg="tasks")
    with pytest.raises(ValueError) as numpy_info:
        as_label_matrix(np.array([[0, 1], [2, 1], [1, 0]]), arg="tasks", names=("a", "b"))
    assert str(info.value) == str(numpy_info.value)


def test_other_frames_take_the_general_path() -> None:
    assert polars_indicator_frame(pl.DataFrame({"a": [0.0, 1.0], "b": [1.0, 0.0]})) is None
    assert polars_indicator_frame(pl.DataFrame({"a": [True, False], "b": [1, 0]})) is None
    assert polars_indicator_frame(pl.DataFrame({"a": [True, False]})) is None
    assert polars_indicator_frame(np.ones((2, 2))) is None
