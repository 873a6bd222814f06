"""Integer and boolean 0/1 indicators are checked in place and counted without a float64
copy (``LabelMatrix.zero_one``); every other input takes the general path, whose errors
stay the same."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from biasamp import CountTable
from biasamp.inputs._label_matrix import ERR_NAN, ERR_NON_BINARY, as_label_matrix

T = np.array([[1, 0, 1], [0, 1, 1], [0, 0, 0], [1, 1, 0]])
GROUPS = np.array(["m", "w", "w", "m"])
NAMES = ("a", "b", "c")


def _msg(template: str, **kw: object) -> str:
    return re.escape(template.format(**kw))


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int64, np.bool_])
def test_integer_indicators_keep_their_array(dtype: type) -> None:
    arr = T.astype(dtype)
    matrix = as_label_matrix(arr, arg="tasks")
    assert matrix.zero_one is arr  # no copy: the caller's array, never written to
    assert matrix.counting_values() is arr
    assert matrix.values.dtype == np.float64
    np.testing.assert_array_equal(matrix.values, T.astype(np.float64))
    assert (matrix.n_rows, matrix.n_labels, matrix.is_sparse) == (4, 3, False)
    taken = matrix.take(np.array([True, False, True, True]))
    np.testing.assert_array_equal(taken.values, T[[0, 2, 3]].astype(np.float64))


def test_integer_frame_is_read_once_as_float32() -> None:
    frame = pd.DataFrame(T, columns=list(NAMES))
    matrix = as_label_matrix(frame, arg="tasks")
    assert matrix.zero_one is not None and matrix.zero_one.dtype == np.float32
    assert matrix.names == NAMES
    np.testing.assert_array_equal(matrix.values, T.astype(np.float64))


def test_columns_realigned_to_the_canonical_order() -> None:
    frame = pd.DataFrame(T, columns=list(NAMES))[["c", "a", "b"]]
    matrix = as_label_matrix(frame, arg="tasks", names=NAMES, source="tasks_train")
    assert matrix.names == NAMES
    np.testing.assert_array_equal(matrix.values, T.astype(np.float64))
    again = as_label_matrix(matrix, arg="tasks", names=("b", "c", "a"))  # validated: realigned
    np.testing.assert_array_equal(again.values, T[:, [1, 2, 0]].astype(np.float64))


@pytest.mark.parametrize("bad", [2, -1, 2**24 + 1])
@pytest.mark.parametrize("container", ["numpy", "pandas"])
def test_other_integers_get_the_general_error(bad: int, container: str) -> None:
    arr = T.astype(np.int64)
    arr[1, 2] = bad
    x = arr if container == "numpy" else pd.DataFrame(arr, columns=list(NAMES))
    with pytest.raises(ValueError, match=_msg(ERR_NON_BINARY, arg="tasks", examples=float(bad))):
        as_label_matrix(x, arg="tasks")


@pytest.mark.parametrize("bad", [2, -1, 256, 257, 2**32 + 1, 2**56, -(2**63)])
@pytest.mark.parametrize("dtype", ["<i8", ">i8", "<u8", ">u8"])
@pytest.mark.parametrize("container", ["numpy", "pandas"])
def test_wide_integers_are_checked_in_their_own_byte_order(
    bad: int, dtype: str, container: str
) -> None:
    """The one-pass check (the maximum of the entries read as unsigned) reads each array in
    its own byte order: an entry whose low byte is 0 or 1 (256, 257, 2**56 read the other
    way round) is still refused, and a big-endian 0/1 array is still accepted."""
    if bad < 0 and dtype[1] == "u":
        return  # not an unsigned value
    arr = T.astype(dtype)
    ok = as_label_matrix(arr if container == "numpy" else pd.DataFrame(arr), arg="tasks")
    np.testing.assert_array_equal(ok.values, T.astype(np.float64))
    arr[1, 2] = bad
    x = arr if container == "numpy" else pd.DataFrame(arr, columns=list(NAMES))
    with pytest.raises(ValueError, match=_msg(ERR_NON_BINARY, arg="tasks", examples=float(bad))):
        as_label_matrix(x, arg="tasks")


def test_float_checks_report_as_before() -> None:
    values = T.astype(np.float64)
    values[0, 0] = np.inf
    with pytest.raises(ValueError, match=_msg(ERR_NAN, arg="tasks", count=1)):
        as_label_matrix(values, arg="tasks")
    values[0, 0] = 0.5
    with pytest.raises(ValueError, match=_msg(ERR_NON_BINARY, arg="tasks", examples=0.5)):
        as_label_matrix(values, arg="tasks")


@pytest.mark.parametrize("dtype", [np.int8, np.bool_, np.float64])
def test_counts_equal_the_float_path(dtype: type) -> None:
    rng = np.random.default_rng(0)
    tasks = (rng.random((200, 7)) < 0.3).astype(dtype)
    groups = rng.choice(["m", "w", "x"], size=200)
    ours = CountTable.from_arrays(groups=groups, tasks=tasks, tasks_pred=tasks[::-1].copy())
    reference = CountTable.from_arrays(
        groups=groups, tasks=tasks.astype(np.float64), tasks_pred=tasks[::-1].astype(np.float64)
    )
    for key, joint in reference.joint.items():
        np.testing.assert_array_equal(ours.joint[key], joint)
    for role, total in reference.totals.items():
        np.testing.assert_array_equal(ours.totals[role], total)
    by_hand = np.stack([tasks[groups == g].sum(axis=0) for g in ("m", "w", "x")])
    np.testing.assert_array_equal(ours.joint[("groups", "tasks")], by_hand)
