"""Input validation: every bad input raises an error that names the argument and the problem."""

import re

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

from biasamp import directional, mals
from biasamp.inputs._containers import ERR_MISSING_LABEL, ERR_MISSING_VALUE, ERR_TYPE
from biasamp.inputs._label_matrix import (
    ERR_COLUMNS_DIFFER,
    ERR_EMPTY,
    ERR_EMPTY_SPLIT,
    ERR_LENGTH,
    ERR_N_COLUMNS,
    ERR_NAN,
    ERR_NDIM,
    ERR_NON_BINARY,
    ERR_SOFT_RANGE,
    ERR_WEIGHT_NEGATIVE,
    ERR_WEIGHT_SHAPE,
    as_label_matrix,
)
from biasamp.metrics._splits import ERR_TRAIN_PAIR, ERR_TRAIN_TWICE


def _msg(template, **kw):
    return re.escape(template.format(**kw))


G = ["m", "w", "m", "w"]
T = np.array([[1, 0], [0, 1], [1, 1], [0, 0]])


def test_one_hot_from_labels_categorical_drops_unused_and_sorts():
    m = as_label_matrix(pd.Categorical(["b", "a", "b"], categories=["b", "a", "c"]), arg="groups")
    assert m.names == ("a", "b")  # occurring labels, sorted; declared-but-unused "c" dropped
    assert m.dense().tolist() == [[0, 1], [1, 0], [0, 1]]
    m = as_label_matrix(np.array([3, 1, 3]), arg="groups")
    assert m.names == (1, 3)


def test_dataframe_columns_reordered_to_canonical():
    frame = pd.DataFrame({"y": [1, 0], "x": [0, 1]})
    m = as_label_matrix(frame, arg="tasks", names=("x", "y"), source="tasks_train")
    assert m.dense().tolist() == [[0, 1], [1, 0]]


def test_sparse_and_dense_agree():
    dense = as_label_matrix(T, arg="tasks")
    sparse = as_label_matrix(sp.csr_matrix(T), arg="tasks")
    assert np.array_equal(dense.dense(), sparse.dense())


def test_mismatched_lengths():
    with pytest.raises(
        ValueError,
        match=_msg(
            ERR_LENGTH, details="groups has 4 rows, tasks has 3 rows, tasks_pred has 4 rows"
        ),
    ):
        directional(direction="A->T", groups=G, tasks=T[:3], tasks_pred=T)


def test_non_binary_values():
    bad = T.copy()
    bad[0, 0] = 2
    with pytest.raises(ValueError, match=_msg(ERR_NON_BINARY, arg="tasks_pred", examples="2.0")):
        directional(direction="A->T", groups=G, tasks=T, tasks_pred=bad)


def test_soft_values_out_of_range():
    with pytest.raises(
        ValueError, match=_msg(ERR_SOFT_RANGE, arg="tasks_pred", low=-0.5, high=1.0)
    ):
        directional(
            direction="A->T",
            groups=G,
            tasks=T,
            soft=True,
            tasks_pred=np.array([[1, 0], [0, 1], [-0.5, 1], [0, 0]]),
        )


def test_soft_does_not_relax_ground_truth():
    with pytest.raises(ValueError, match="tasks: indicator values must be 0 or 1"):
        directional(direction="A->T", groups=G, tasks=T * 0.5, tasks_pred=T, soft=True)


@pytest.mark.parametrize("bad_value", [np.nan, np.inf])
def test_nan_and_inf(bad_value):
    bad = T.astype(float)
    bad[1, 1] = bad_value
    dense_error = (
        _msg(ERR_MISSING_VALUE, arg="tasks", count=1, row=1, column=1)
        if np.isnan(bad_value)
        else _msg(ERR_NAN, arg="tasks", count=1)
    )
    with pytest.raises(ValueError, match=dense_error):
        directional(direction="A->T", groups=G, tasks=bad, tasks_pred=T)
    with pytest.raises(ValueError, match=_msg(ERR_NAN, arg="tasks", count=1)):
        as_label_matrix(sp.csr_matrix(bad), arg="tasks")


def test_missing_labels():
    with pytest.raises(ValueError, match=_msg(ERR_MISSING_LABEL, arg="groups", count=1, row=1)):
        directional(direction="A->T", groups=["m", None, "m", "w"], tasks=T, tasks_pred=T)
    with pytest.raises(ValueError, match=_msg(ERR_MISSING_LABEL, arg="groups", count=1, row=1)):
        directional(
            direction="A->T", groups=pd.Series(["m", np.nan, "m", "w"]), tasks=T, tasks_pred=T
        )


def test_negative_and_misshaped_weights():
    with pytest.raises(ValueError, match=_msg(ERR_WEIGHT_NEGATIVE, arg="sample_weight", count=1)):
        directional(direction="A->T", groups=G, tasks=T, tasks_pred=T, sample_weight=[1, -1, 1, 1])
    with pytest.raises(
        ValueError, match=_msg(ERR_WEIGHT_SHAPE, arg="sample_weight", n=4, shape=(3,))
    ):
        directional(direction="A->T", groups=G, tasks=T, tasks_pred=T, sample_weight=[1, 1, 1])
    # a missing weight is a missing value (the containers' rule, naming the row); an
    # infinite one is refused with its row too
    missing = _msg(ERR_MISSING_LABEL, arg="sample_weight", count=1, row=1)
    with pytest.raises(ValueError, match=missing):
        directional(
            direction="A->T", groups=G, tasks=T, tasks_pred=T, sample_weight=[1, np.nan, 1, 1]
        )
    infinite = _msg(ERR_NAN, arg="sample_weight", count=1) + r" The first is at row 2"
    with pytest.raises(ValueError, match=infinite):
        directional(
            direction="A->T", groups=G, tasks=T, tasks_pred=T,
            sample_weight=np.array([1, 1, np.inf, 1]),
        )  # fmt: skip


def test_zero_weights_allowed_but_all_zero_is_empty():
    kept = directional(
        direction="A->T", groups=G, tasks=T, tasks_pred=T, sample_weight=[1, 1, 0, 0]
    )
    assert kept.n == 2
    with pytest.raises(ValueError, match=_msg(ERR_EMPTY_SPLIT, arg="sample_weight")):
        directional(direction="A->T", groups=G, tasks=T, tasks_pred=T, sample_weight=[0] * 4)
    with pytest.raises(ValueError, match=_msg(ERR_EMPTY_SPLIT, arg="sample_weight_train")):
        directional(
            direction="A->T",
            groups=G,
            tasks=T,
            tasks_pred=T,
            groups_train=G,
            tasks_train=T,
            sample_weight_train=[0] * 4,
        )


def test_empty_split():
    with pytest.raises(ValueError, match=_msg(ERR_EMPTY, arg="groups")):
        directional(direction="A->T", groups=[], tasks=[], tasks_pred=[])
    with pytest.raises(ValueError, match=_msg(ERR_EMPTY, arg="tasks")):
        as_label_matrix(np.zeros((0, 3)), arg="tasks")


def test_unknown_prediction_label():
    with pytest.raises(
        ValueError,
        match=r"groups_pred: 1 label\(s\) not in the canonical label "
        r"set \(from the training split\): 'x'",
    ):
        directional(
            direction="T->A",
            groups=G,
            tasks=T,
            groups_pred=["m", "x", "m", "w"],
            groups_train=G,
            tasks_train=T,
        )


def test_label_sets_differ_across_splits():
    train = pd.DataFrame(T, columns=["ski", "cook"])
    test = pd.DataFrame(T, columns=["ski", "sew"])
    with pytest.raises(
        ValueError,
        match=_msg(
            ERR_COLUMNS_DIFFER,
            arg="tasks",
            source="(from the training split)",
            missing="'cook'",
            unexpected="'sew'",
        ),
    ):
        directional(
            direction="A->T",
            groups=G,
            tasks=test,
            tasks_pred=test,
            groups_train=G,
            tasks_train=train,
        )
    with pytest.raises(
        ValueError,
        match=_msg(
            ERR_N_COLUMNS, arg="tasks", got=3, expected=2, source="(from the training split)"
        ),
    ):
        directional(
            direction="A->T",
            groups=G,
            tasks=np.zeros((4, 3)),
            tasks_pred=T,
            groups_train=G,
            tasks_train=train,
        )


def test_three_dimensional_input():
    with pytest.raises(ValueError, match=_msg(ERR_NDIM, arg="tasks", ndim=3)):
        directional(direction="A->T", groups=G, tasks=np.zeros((4, 2, 2)), tasks_pred=T)


def test_unsupported_type():
    with pytest.raises(TypeError, match=_msg(ERR_TYPE, arg="groups", type_name="set")):
        directional(direction="A->T", groups={"m"}, tasks=T, tasks_pred=T)


def test_training_side_given_half_or_twice():
    with pytest.raises(ValueError, match=_msg(ERR_TRAIN_PAIR, given="groups_train")):
        directional(direction="A->T", groups=G, tasks=T, tasks_pred=T, groups_train=G)
    with pytest.raises(ValueError, match=re.escape(ERR_TRAIN_TWICE)):
        mals(
            groups_train=G,
            tasks_train=T,
            counts_train=pd.DataFrame({"m": [1], "w": [1]}),
            groups_pred=G,
            tasks_pred=T,
        )


def test_row_with_no_group_counts_in_no_group():
    groups = np.array([[1, 0], [0, 1], [0, 0]])
    result = directional(
        direction="T->A",
        groups=groups,
        tasks=["x", "x", "x"],
        groups_pred=np.array([[1, 0], [1, 0], [0, 0]]),
    )
    # P(A_0 | x) = 1/3 true, 2/3 predicted; P(A_1 | x) = 1/3 true, 0 predicted
    assert result.by_pair["p_true"].tolist() == pytest.approx([1 / 3, 1 / 3])
    assert result.by_pair["p_pred"].tolist() == pytest.approx([2 / 3, 0])


@pytest.mark.parametrize(
    "labels", [pd.Series([["a"], ["a", "b"]]), np.array([{"a"}, {"a", "b"}], dtype=object)]
)
def test_lists_of_labels_name_the_argument(labels):
    # A Series of lists used to fail inside pandas with "unhashable type: 'list'".
    with pytest.raises(TypeError, match=r"^tasks: 1-D labels must be hashable.*indicator"):
        as_label_matrix(labels, arg="tasks")


@pytest.mark.parametrize("dtype", [str, bytes, object])
def test_a_2d_array_of_text_0_1_is_read_like_the_same_dataframe(dtype):
    text = np.array([["1", "0"], ["0", "1"], ["1", "1"]]).astype(dtype)
    if dtype is bytes:
        text = np.char.encode(np.array([["1", "0"], ["0", "1"], ["1", "1"]]))
    frame = pd.DataFrame(np.array([["1", "0"], ["0", "1"], ["1", "1"]]))
    from_array = as_label_matrix(text, arg="tasks")
    from_frame = as_label_matrix(frame, arg="tasks")
    np.testing.assert_array_equal(from_array.values, from_frame.values)
    assert from_array.names == from_frame.names


def test_a_2d_array_of_other_text_names_the_argument():
    with pytest.raises(TypeError, match=r"^tasks: a 2-D indicator matrix must be numeric"):
        as_label_matrix(np.array([["yes", "0"], ["0", "1"]]), arg="tasks")
    with pytest.raises(ValueError, match=r"^tasks: indicator values must be 0 or 1"):
        as_label_matrix(np.array([["2", "0"], ["0", "1"]]), arg="tasks")


# --- the checks are fused or skipped only where they cannot fail ----------
def test_sparse_fast_check_still_rejects_bad_entries():
    rows, cols = np.array([0, 1, 2]), np.array([0, 1, 0])
    expected = {
        2.0: _msg(ERR_NON_BINARY, arg="tasks", examples="2.0"),
        np.nan: _msg(ERR_NAN, arg="tasks", count=1),
        np.inf: _msg(ERR_NAN, arg="tasks", count=1),
    }
    for value, message in expected.items():
        for dtype in (np.float64, np.float32):
            data = np.array([1.0, value, 1.0], dtype=dtype)
            bad = sp.csr_matrix((data, (rows, cols)), shape=(3, 2))
            with pytest.raises(ValueError, match=message):
                as_label_matrix(bad, arg="tasks")
    # duplicates summing to 2 are caught although every stored entry is 1
    dup = sp.coo_matrix((np.ones(2), (np.array([0, 0]), np.array([1, 1]))), shape=(2, 2))
    dup_csr = sp.csr_matrix((np.ones(2), np.array([1, 1]), np.array([0, 2, 2])), shape=(2, 2))
    for matrix in (dup, dup_csr):
        with pytest.raises(ValueError, match="indicator values must be 0 or 1"):
            as_label_matrix(matrix, arg="tasks")


def test_sparse_input_is_never_modified():
    # explicit zeros and unsorted indices: the validated copy drops and sorts them,
    # the caller's arrays stay as they were (float64 CSR shares arrays with the copy)
    data, indices, indptr = np.array([0.0, 1.0, 1.0]), np.array([1, 0, 1]), np.array([0, 2, 3])
    user = sp.csr_matrix((data.copy(), indices.copy(), indptr.copy()), shape=(2, 2))
    m = as_label_matrix(user, arg="tasks")
    assert m.values.nnz == 2 and m.dense().tolist() == [[1, 0], [0, 1]]
    np.testing.assert_array_equal(user.data, data)
    np.testing.assert_array_equal(user.indices, indices)
    np.testing.assert_array_equal(user.indptr, indptr)
    # int8 0/1 data (the common case) is read without a rewrite
    ones = sp.csr_matrix(np.array([[1, 0], [1, 1]], dtype=np.int8))
    m = as_label_matrix(ones, arg="tasks")
    assert m.values.dtype == np.float64 and m.dense().tolist() == [[1, 0], [1, 1]]


def test_validated_matrix_is_realigned_not_rechecked():
    m = as_label_matrix(np.array(["w", "m", "x", "w"]), arg="groups")
    assert m.validated and m.names == ("m", "w", "x")
    assert m.codes.tolist() == [1, 0, 2, 1]
    again = as_label_matrix(m, arg="groups_pred", names=("x", "w", "m"), source="groups")
    assert again.names == ("x", "w", "m") and again.arg == "groups_pred"
    assert again.dense().tolist() == [[0, 1, 0], [0, 0, 1], [1, 0, 0], [0, 1, 0]]
    assert again.codes.tolist() == [1, 2, 0, 1]  # renumbered with the columns
    with pytest.raises(ValueError, match="column names differ"):
        as_label_matrix(m, arg="groups_pred", names=("m", "w"), source="groups")
    # the codes follow row selections
    assert m.take(np.array([3, 2])).codes.tolist() == [1, 2]
    # a LabelMatrix built by hand is not trusted: its values are checked
    from biasamp.inputs import LabelMatrix

    hand = LabelMatrix(np.array([[2.0, 0.0], [0.0, 1.0]]), ("a", "b"), "groups")
    with pytest.raises(ValueError, match="indicator values must be 0 or 1"):
        as_label_matrix(hand, arg="groups")


def test_one_hot_matrix_is_built_from_its_codes_when_read():
    from biasamp.inputs import LabelMatrix

    labels = np.array(["w", "m", "x", "w", "m"])
    m = as_label_matrix(labels, arg="groups")
    assert m._values is None  # counting reads the codes only
    assert (m.n_rows, m.n_labels, m.is_sparse) == (5, 3, True)
    sub = m.take(np.array([4, 0]))  # row selection and realignment stay lazy
    again = as_label_matrix(m, arg="groups", names=("x", "w", "m"))
    assert sub._values is None and again._values is None
    want = (labels[:, None] == np.array(["m", "w", "x"])).astype(float)
    for matrix, expected in ((m, want), (sub, want[[4, 0]]), (again, want[:, [2, 1, 0]])):
        values = matrix.values
        assert sp.isspmatrix_csr(values) and values.dtype == np.float64
        assert values.has_canonical_format
        np.testing.assert_array_equal(values.toarray(), expected)
        np.testing.assert_array_equal(matrix.dense(), expected)
        assert matrix.values is values  # built once
    # once built, a row selection or a realignment carries the matrix along
    assert m.take(np.array([1]))._values is not None
    assert as_label_matrix(m, arg="groups", names=("x", "w", "m"))._values is not None
    with pytest.raises(TypeError, match="needs values"):
        LabelMatrix(None, ("a",), "groups")


def test_sparse_ones_are_kept_as_their_pattern():
    # a canonical CSR matrix whose stored entries are all 1 is checked in place and kept
    # as the caller's arrays; its float64 values are built when first read
    user = sp.csr_matrix(np.array([[1, 0, 1], [0, 0, 0], [0, 1, 1], [1, 0, 0]], dtype=np.int8))
    want = user.toarray().astype(float)
    m = as_label_matrix(user, arg="tasks", names=("a", "b", "c"))
    assert m._values is None and m.ones is not None and m.ones_pattern() is m.ones
    assert np.shares_memory(m.ones.indices, user.indices)  # no copy
    assert np.shares_memory(m.ones.indptr, user.indptr)
    assert (m.n_rows, m.n_labels, m.is_sparse) == (4, 3, True)
    assert m.counting_values() is m.ones
    values = m.values
    assert sp.isspmatrix_csr(values) and values.dtype == np.float64
    np.testing.assert_array_equal(values.toarray(), want)
    assert m.values is values  # built once
    # row selections and realignments stay patterns, with the same entries
    fresh = as_label_matrix(user, arg="tasks", names=("a", "b", "c"))
    sub = fresh.take(np.array([3, 0]))
    assert sub._values is None and sub.ones is not None
    np.testing.assert_array_equal(sub.dense(), want[[3, 0]])
    mask = fresh.take(np.array([True, False, True, True]))
    np.testing.assert_array_equal(mask.dense(), want[[0, 2, 3]])
    again = as_label_matrix(fresh, arg="tasks_pred", names=("c", "a", "b"), source="tasks")
    assert again._values is None and again.names == ("c", "a", "b")
    np.testing.assert_array_equal(again.dense(), want[:, [2, 0, 1]])
    with pytest.raises(ValueError, match="column names differ"):
        as_label_matrix(fresh, arg="tasks_pred", names=("a", "b"), source="tasks")
    # read as probabilities: the float64 values
    soft = as_label_matrix(fresh, arg="tasks_pred", names=("a", "b", "c"), soft=True)
    assert soft.soft and soft._values is not None
    np.testing.assert_array_equal(soft.dense(), want)
    # the caller's matrix is untouched
    assert user.dtype == np.int8 and user.toarray().tolist() == want.astype(int).tolist()


def test_sparse_pattern_errors_name_the_argument():
    with pytest.raises(
        ValueError, match=_msg(ERR_N_COLUMNS, arg="tasks", got=2, expected=3, source="")
    ):
        as_label_matrix(sp.csr_matrix(np.eye(2, dtype=np.int8)), arg="tasks", names=("a", "b", "c"))
    with pytest.raises(ValueError, match=_msg(ERR_EMPTY, arg="tasks")):
        as_label_matrix(sp.csr_matrix((0, 2), dtype=np.int8), arg="tasks")


# pandas strings (string dtype, categories) are factorised by pandas, never as objects
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_LABEL = st.sampled_from(["m", "w", "x", "", "é", None])


def _outcome(make, names):
    """(names, dense, codes) of as_label_matrix, or the error/warning it raises."""
    import warnings as _warnings

    with _warnings.catch_warnings(record=True) as caught:
        _warnings.simplefilter("always")
        try:
            m = as_label_matrix(make(), arg="groups", names=names, source="train")
        except (ValueError, TypeError) as exc:
            return ("error", type(exc), str(exc))
    return (m.names, m.dense().tolist(), [str(w.message) for w in caught])


@settings(max_examples=80, deadline=None)
@given(
    labels=st.lists(_LABEL, min_size=1, max_size=30),
    unused=st.lists(st.sampled_from(["zz", "a"]), max_size=2, unique=True),
    names=st.sampled_from([None, ("m", "w", "x", "", "é"), ("w", "m")]),
    ordered=st.booleans(),
)
def test_pandas_strings_match_the_object_path(labels, unused, names, ordered):
    present = sorted({v for v in labels if v is not None})
    categories = list(reversed(present)) + unused  # not sorted: names must still be sorted
    forms = {
        "series": lambda: pd.Series(labels, dtype="string"),
        "index": lambda: pd.Index(labels, dtype="string"),
        "categorical": lambda: pd.Categorical(labels, categories=categories, ordered=ordered),
        "series_category": lambda: pd.Series(
            pd.Categorical(labels, categories=categories, ordered=ordered)
        ),
    }
    want = _outcome(lambda: np.array(labels, dtype=object), names)
    for form, make in forms.items():
        assert _outcome(make, names) == want, form
    if "str" in {pd.Series(["a"]).dtype.name}:  # pandas 3: the default string dtype
        assert _outcome(lambda: pd.Series(labels), names) == want


def test_pandas_strings_take_the_fast_path():
    from biasamp.inputs._label_matrix import _pandas_string_labels

    assert _pandas_string_labels(pd.Series(["a", "b"], dtype="string")) is not None
    assert _pandas_string_labels(pd.Series(["a", "b"], dtype="category")) is not None
    assert _pandas_string_labels(pd.Series([1, 2], dtype="category")) is None  # not strings
    assert _pandas_string_labels(pd.Series(["a", "b"], dtype=object)) is None
    assert _pandas_string_labels(pd.Series([], dtype="string")) is None  # empty: the usual error
    m = as_label_matrix(pd.Series(["w", "m", "w"], dtype="category"), arg="groups")
    assert m.names == ("m", "w") and m.codes.tolist() == [1, 0, 1]


def test_an_id_column_in_a_task_frame_is_named_without_the_soft_hint():
    """An id column inside a task frame is named (not "found 101.0, 102.0, ..."), and the
    ground truth is never told to pass soft=True (only predictions can be soft)."""
    from biasamp.inputs._label_matrix import ERR_ID_COLUMN, HINT_SOFT

    tasks = pd.DataFrame({"image_id": [101, 102, 103, 104], "cup": T[:, 0], "ski": T[:, 1]})
    for arg, kwargs in (
        ("tasks", {"tasks": tasks, "tasks_pred": tasks[["cup", "ski"]]}),
        ("tasks_pred", {"tasks": tasks[["cup", "ski"]], "tasks_pred": tasks}),
    ):
        message = ERR_ID_COLUMN.format(arg=arg, column="image_id", n=4)
        with pytest.raises(ValueError) as info:
            directional(direction="A->T", groups=G, **kwargs)
        assert str(info.value) == message
        assert "soft=True" not in message and "frame.drop(columns=['image_id'])" in message
    # a numpy matrix names the column by position
    with pytest.raises(ValueError, match=_msg(ERR_ID_COLUMN, arg="tasks", column=2, n=4)):
        directional(
            direction="A->T", groups=G, tasks=tasks[["cup", "ski", "image_id"]].to_numpy(),
            tasks_pred=T,
        )  # fmt: skip
    # other values: ground truth gets no soft hint, predictions do
    twos = T * 2
    with pytest.raises(ValueError) as info:
        directional(direction="A->T", groups=G, tasks=twos, tasks_pred=T)
    assert str(info.value) == ERR_NON_BINARY.format(arg="tasks", examples="2.0")
    with pytest.raises(ValueError) as info:
        directional(direction="A->T", groups=G, tasks=T, tasks_pred=twos)
    assert str(info.value) == ERR_NON_BINARY.format(arg="tasks_pred", examples="2.0") + HINT_SOFT
    # a column of 0, 2, 1 is not an id (one value outside 0/1)
    small = pd.DataFrame({"a": [0, 2, 1, 0], "b": [1, 1, 0, 0]})
    with pytest.raises(ValueError) as info:
        directional(direction="A->T", groups=G, tasks=small, tasks_pred=T)
    assert str(info.value) == ERR_NON_BINARY.format(arg="tasks", examples="2.0")
