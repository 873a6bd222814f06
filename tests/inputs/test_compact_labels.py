"""``as_label_matrix(..., compact=True)``: dense 0/1 labels as uint8, no float64 copy."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

from biasamp.inputs._label_matrix import (
    ERR_EMPTY,
    ERR_N_COLUMNS,
    ERR_NAN,
    ERR_NON_BINARY,
    LabelMatrix,
    as_label_matrix,
)
from biasamp.metrics._splits import select_training_rows

T = np.array([[1, 0, 1], [0, 1, 1], [0, 0, 0], [1, 1, 0]])


def _msg(template: str, **kw: object) -> str:
    return re.escape(template.format(**kw))


@pytest.mark.parametrize(
    "values",
    [
        T.astype(np.int8),
        T.astype(np.uint8),
        T.astype(np.int64),
        T.astype(bool),
        T.astype(np.float32),
        T.astype(np.float64),
        pd.DataFrame(T.astype(np.int8), columns=["a", "b", "c"]),
    ],
    ids=["int8", "uint8", "int64", "bool", "float32", "float64", "frame"],
)
def test_compact_equals_the_float_matrix(values) -> None:
    full = as_label_matrix(values, arg="tasks")
    small = as_label_matrix(values, arg="tasks", compact=True)
    assert small.values.dtype == np.uint8 and full.values.dtype == np.float64
    np.testing.assert_array_equal(small.values, full.values)
    assert small.names == full.names and small.arg == full.arg and not small.soft


def test_compact_reorders_frame_columns_to_the_canonical_names() -> None:
    frame = pd.DataFrame(T.astype(np.int8), columns=["c", "a", "b"])
    small = as_label_matrix(frame, arg="tasks", names=("a", "b", "c"), compact=True)
    assert small.names == ("a", "b", "c") and small.values.dtype == np.uint8
    np.testing.assert_array_equal(small.values, T[:, [1, 2, 0]])


@pytest.mark.parametrize("bad", [2, -1])
@pytest.mark.parametrize("dtype", [np.int8, np.int64])
def test_compact_integer_errors_are_the_float_paths(bad: int, dtype: type) -> None:
    values = T.astype(dtype)
    values[1, 2] = bad
    message = _msg(ERR_NON_BINARY, arg="tasks", examples=f"{float(bad)!r}")
    with pytest.raises(ValueError, match=message):
        as_label_matrix(values, arg="tasks", compact=True)
    with pytest.raises(ValueError, match=message):
        as_label_matrix(values, arg="tasks")


def test_compact_checks_floats_and_shapes_as_before() -> None:
    values = T.astype(float)
    values[0, 0] = np.nan
    with pytest.raises(ValueError, match="tasks: contains"):
        as_label_matrix(values, arg="tasks", compact=True)
    with pytest.raises(ValueError, match=_msg(ERR_NAN, arg="w", count=1)):
        as_label_matrix(np.array([[np.inf, 0.0]]), arg="w", compact=True)
    with pytest.raises(ValueError, match=_msg(ERR_EMPTY, arg="tasks")):
        as_label_matrix(np.zeros((0, 3), dtype=np.int8), arg="tasks", compact=True)
    with pytest.raises(
        ValueError, match=_msg(ERR_N_COLUMNS, arg="tasks", got=3, expected=2, source="")
    ):
        as_label_matrix(T.astype(np.int8), arg="tasks", names=("a", "b"), compact=True)


def test_compact_copies_user_arrays_but_not_validated_matrices() -> None:
    values = T.astype(np.uint8)
    small = as_label_matrix(values, arg="tasks", compact=True)
    values[0, 0] = 0  # the caller's array changes later
    assert small.values[0, 0] == 1
    again = as_label_matrix(small, arg="tasks", compact=True)
    assert again.values is small.values or np.shares_memory(again.values, small.values)


def test_compact_leaves_soft_sparse_and_1d_labels_alone() -> None:
    soft = as_label_matrix(np.array([[0.2, 0.8]]), arg="tasks_pred", soft=True, compact=True)
    assert soft.values.dtype == np.float64 and soft.soft
    sparse = as_label_matrix(sp.csr_matrix(T), arg="tasks", compact=True)
    assert sparse.is_sparse
    groups = as_label_matrix(["m", "w", "m"], arg="groups", compact=True)
    assert isinstance(groups, LabelMatrix) and groups.names == ("m", "w")


def test_select_training_rows_compact() -> None:
    groups = np.array(["m", "w", "m", "w"])
    _, tasks, _ = select_training_rows(
        groups_train=groups,
        tasks_train=T.astype(np.int8),
        sample_weight_train=None,
        group_names=None,
        task_names=None,
        train_rows="with_task",
        compact=True,
    )
    assert tasks.values.dtype == np.uint8
    np.testing.assert_array_equal(tasks.values, T[[0, 1, 3]])
