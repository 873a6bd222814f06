"""Inputs that used to be misread in silence: each is now read right or refused clearly.

One test per rule of ``docs/counts.md`` ("Reading inputs"): one-column frames,
pandas indexes, NaN and mixed types in lists, weights too small for float64,
scores passed as labels, Hugging Face columns, lazy frames and single groups.
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pandas as pd
import pytest

import biasamp
from biasamp.inputs import LabelWarning, as_label_matrix, as_sample_weight
from biasamp.inputs._alignment import ERR_INDEX_DIFFERS, align_pandas_indexes
from biasamp.inputs._containers import (
    ERR_LAZY,
    ERR_MISSING_LABEL,
    ERR_MISSING_VALUE,
    ERR_MIXED_TYPES,
)
from biasamp.inputs._label_matrix import (
    ERR_ONE_COLUMN_IDS,
    ERR_SCORES_AS_LABELS,
    ERR_WEIGHT_UNDERFLOW,
    WARN_SINGLE_GROUP,
)

pl = pytest.importorskip("polars")

RNG = np.random.default_rng(3)
N = 60
GENDER_ID = RNG.integers(0, 2, N)
TASK = RNG.choice(["cook", "ski", "read"], N)
GROUPS_PRED = RNG.integers(0, 2, N)
TASKS_PRED = RNG.choice(["cook", "ski", "read"], N)


def _prefix(template: str) -> str:
    """The longest fixed text of a message template (between placeholders), as a regex."""
    pieces = re.split(r"\{[^}]*\}", template)
    return re.escape(max(pieces, key=len))


def _mals(groups_train: object) -> float:
    return biasamp.mals(
        groups_train=groups_train, tasks_train=TASK, groups_pred=GROUPS_PRED, tasks_pred=TASKS_PRED
    ).value


# ------------------------------------------------------------ one-column frames
def test_one_column_frame_of_group_ids_gives_the_value_of_its_column() -> None:
    df = pd.DataFrame({"gender_id": GENDER_ID})
    expected = _mals(df["gender_id"])
    # worked out by hand from the counts: the column gives a non-zero MALS here
    assert expected == pytest.approx(_mals(GENDER_ID), abs=1e-15)
    assert expected != 0.0
    assert _mals(df[["gender_id"]]) == pytest.approx(expected, abs=1e-15)
    assert _mals(pl.DataFrame({"gender_id": GENDER_ID})) == pytest.approx(expected, abs=1e-15)
    assert _mals(df[["gender_id"]].astype(bool).astype(int)) == pytest.approx(expected, abs=1e-15)


def test_one_column_frame_of_group_ids_in_a_hugging_face_selection() -> None:
    datasets = pytest.importorskip("datasets")
    ds = datasets.Dataset.from_dict({"gender_id": GENDER_ID, "task": TASK})
    expected = _mals(GENDER_ID)
    assert _mals(ds.select_columns(["gender_id"])) == pytest.approx(expected, abs=1e-15)
    assert _mals(ds["gender_id"]) == pytest.approx(expected, abs=1e-15)


def test_one_column_frame_of_tasks_stays_one_indicator_and_refuses_ids() -> None:
    smiling = pd.DataFrame({"smiling": RNG.integers(0, 2, N)})
    matrix = as_label_matrix(smiling, arg="tasks")
    assert matrix.names == ("smiling",)
    assert matrix.dense()[:, 0].tolist() == smiling["smiling"].astype(float).tolist()
    ids = pd.DataFrame({"label_id": RNG.integers(0, 3, N)})
    with pytest.raises(ValueError, match=_prefix(ERR_ONE_COLUMN_IDS)) as info:
        as_label_matrix(ids, arg="tasks")
    assert "df['label_id']" in str(info.value)


# ------------------------------------------------------------ pandas indexes
def test_reordered_pandas_indexes_are_matched_by_label() -> None:
    df = pd.DataFrame({"g": list("abbaab"), "t": list("xyxyxy")}, index=[5, 3, 9, 1, 7, 2])
    # predictions equal to the truth, given in another row order: A->T is exactly 0
    shuffled = df.t.sort_values()
    result = biasamp.directional(direction="A->T", groups=df.g, tasks=df.t, tasks_pred=shuffled)
    assert result.value == 0.0
    # numpy has no index: matched by position, as documented, which pairs x x x y y y
    # with the rows in their order and gives another value
    positional = biasamp.directional(
        direction="A->T", groups=df.g, tasks=df.t, tasks_pred=shuffled.to_numpy()
    )
    assert positional.value == pytest.approx(-1 / 3, abs=1e-15)


def test_reordered_weights_follow_their_index() -> None:
    g = pd.Series(["a", "b", "a", "b"], index=[10, 11, 12, 13])
    t = pd.Series(["x", "x", "y", "y"], index=[10, 11, 12, 13])
    w = pd.Series([1.0, 2.0, 3.0, 4.0], index=[10, 11, 12, 13])
    expected = biasamp.bias_scores(g, tasks=t, sample_weight=w)
    got = biasamp.bias_scores(g, tasks=t, sample_weight=w.iloc[::-1])
    pd.testing.assert_frame_equal(got, expected)
    # by hand: b(x, a) = 1 / (1 + 2)
    assert got.loc["x", "a"] == pytest.approx(1 / 3, abs=1e-15)


def test_different_pandas_indexes_are_refused_naming_both_arguments() -> None:
    g = pd.Series(["a", "b", "a", "b"])
    t = pd.Series(["x", "x", "y", "y"], index=[1, 2, 3, 4])
    with pytest.raises(ValueError, match=_prefix(ERR_INDEX_DIFFERS)) as info:
        biasamp.bias_scores(g, tasks=t)
    assert "groups and tasks" in str(info.value)
    with pytest.raises(ValueError, match="groups_train and tasks_train"):
        biasamp.mals(groups_train=g, tasks_train=t, groups_pred=g, tasks_pred=t.to_numpy())
    with pytest.raises(ValueError, match="groups and groups_pred"):
        biasamp.directional(direction="T->A", groups=g, tasks=t.to_numpy(), groups_pred=g[:3])


def test_index_alignment_of_the_multi_attribute_metrics() -> None:
    tasks = pd.DataFrame({"a": [1, 1, 0, 1, 0, 1], "b": [1, 0, 1, 1, 1, 0]})
    groups = pd.Series(list("ghghgh"))
    kwargs = dict(groups_train=groups, tasks_train=tasks, tasks=tasks, groups_pred=groups)
    expected = biasamp.multi_mals(**kwargs, tasks_pred=tasks).value
    reordered = tasks.iloc[[5, 4, 3, 2, 1, 0]]
    assert biasamp.multi_mals(**kwargs, tasks_pred=reordered).value == expected
    with pytest.raises(ValueError, match="tasks and tasks_pred"):
        biasamp.multi_mals(**kwargs, tasks_pred=tasks.set_axis(range(1, 7)))


def test_repeated_index_labels_in_another_order_are_refused() -> None:
    a = pd.Series([1, 2], index=[0, 0])
    b = pd.Series([1, 2], index=[0, 1])
    with pytest.raises(ValueError, match="groups and tasks"):
        align_pandas_indexes(groups=a, tasks=b)
    same = align_pandas_indexes(groups=a, tasks=a.copy())
    assert same["tasks"].tolist() == [1, 2]


# ------------------------------------------------------------ NaN and mixed types
@pytest.mark.parametrize("missing", [np.nan, None, float("nan")])
def test_missing_value_in_a_list_of_strings_names_argument_and_row(missing: object) -> None:
    with pytest.raises(ValueError, match=_prefix(ERR_MISSING_LABEL)) as info:
        biasamp.bias_scores(["a", "b", missing, "a"], tasks=["x", "y", "x", "y"])
    assert str(info.value).startswith("groups:")
    assert "row 2" in str(info.value)
    with pytest.raises(ValueError, match="tasks_pred: contains 1 missing"):
        biasamp.mals(
            groups_train=["a", "b"],
            tasks_train=["x", "y"],
            groups_pred=["a", "b"],
            tasks_pred=("x", missing),
        )


@pytest.mark.parametrize(
    "labels",
    [
        [1, "1", "b", 1],
        np.array([1, "1", "b", 1], dtype=object),
        pd.Series([1, "1", "b", 1], dtype=object),
        [True, "True", "b", True],
    ],
)
def test_mixed_label_types_are_refused(labels: object) -> None:
    with pytest.raises(ValueError, match=_prefix(ERR_MIXED_TYPES)) as info:
        biasamp.bias_scores(labels, tasks=["x", "y", "x", "y"])
    assert "at row 1" in str(info.value)


def test_numbers_of_one_kind_and_strings_of_one_kind_are_fine() -> None:
    ints = biasamp.bias_scores([1, 2, 1, 2], tasks=["x", "y", "x", "y"])
    assert list(ints.columns) == [1, 2]
    mixed_numbers = biasamp.bias_scores(
        np.array([1, 2.5, 1, 2.5], dtype=object), tasks=["x", "y", "x", "y"]
    )
    assert list(mixed_numbers.columns) == [1.0, 2.5]


# ------------------------------------------------------------ weights
def test_weights_below_the_smallest_normal_float_are_refused() -> None:
    with pytest.raises(ValueError, match=_prefix(ERR_WEIGHT_UNDERFLOW)) as info:
        biasamp.mals(
            groups_train=["w", "m"],
            tasks_train=["cook", "cook"],
            sample_weight_train=[1e-310, 1e-310],
            groups_pred=["w", "m"],
            tasks_pred=["cook", "cook"],
        )
    assert str(info.value).startswith("sample_weight_train:")
    with pytest.raises(ValueError, match="^sample_weight: 1 weight"):
        biasamp.directional(
            direction="A->T",
            groups=["a", "b"],
            tasks=["x", "y"],
            tasks_pred=["x", "x"],
            sample_weight=[1.0, 5e-324],
        )
    assert as_sample_weight([0.0, 1e-300], 2).tolist() == [0.0, 1e-300]


@pytest.mark.parametrize("scale", [1e-300, 1e300])
def test_tiny_and_huge_normal_weights_give_the_unit_weight_values(scale: float) -> None:
    w = RNG.random(N) + 0.1
    kwargs = dict(groups=GENDER_ID, tasks=TASK, tasks_pred=TASKS_PRED, direction="A->T")
    expected = biasamp.directional(**kwargs, sample_weight=w).value
    assert biasamp.directional(**kwargs, sample_weight=w * scale).value == pytest.approx(
        expected, abs=1e-12
    )
    mals_kwargs = dict(groups_train=GENDER_ID, tasks_train=TASK)
    mals_kwargs.update(groups_pred=GROUPS_PRED, tasks_pred=TASKS_PRED)
    plain = biasamp.mals(**mals_kwargs, sample_weight=w, sample_weight_train=w).value
    scaled = biasamp.mals(**mals_kwargs, sample_weight=w * scale, sample_weight_train=w * scale)
    assert scaled.value == pytest.approx(plain, abs=1e-12)


# ------------------------------------------------------------ messages
def test_float_scores_without_soft_say_they_look_like_scores() -> None:
    scores = RNG.random(N)
    with pytest.raises(ValueError, match=_prefix(ERR_SCORES_AS_LABELS)) as info:
        biasamp.directional(direction="A->T", groups=GENDER_ID, tasks=TASK, tasks_pred=scores)
    message = str(info.value)
    assert "soft=True" in message and "threshold=" in message and "positive_group=" in message


def test_polars_lazy_frame_says_to_collect() -> None:
    lazy = pl.DataFrame({"g": ["a", "b"]}).lazy()
    with pytest.raises(TypeError, match=_prefix(ERR_LAZY)) as info:
        biasamp.bias_scores(lazy, tasks=["x", "y"])
    assert ".collect()" in str(info.value) and str(info.value).startswith("groups:")


def test_hugging_face_column_after_a_shuffle_keeps_the_dataset_order() -> None:
    datasets = pytest.importorskip("datasets")
    ds = datasets.Dataset.from_dict({"g": list("aabbab"), "t": list("xyxyyx")})
    shuffled = ds.shuffle(seed=1)
    expected = biasamp.bias_scores(np.array(shuffled["g"][:]), tasks=np.array(list(shuffled["t"])))
    pd.testing.assert_frame_equal(biasamp.bias_scores(shuffled["g"], tasks=shuffled["t"]), expected)
    subset = ds.select([5, 0, 2])
    # rows 5, 0, 2: (b, x), (a, x), (b, x)
    picked = biasamp.bias_scores(subset["g"], tasks=subset["t"])
    assert picked.loc["x", "a"] == pytest.approx(1 / 3, abs=1e-15)
    assert picked.shape == (1, 2)


def _single_group_warnings(call: object) -> list[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call()  # type: ignore[operator]
    return [str(w.message) for w in caught if issubclass(w.category, LabelWarning)]


@pytest.mark.parametrize("metric", ["bias_scores", "multi_mals", "multi_directional", "mals"])
def test_a_single_group_warns_in_every_metric(metric: str) -> None:
    tasks = np.array([[1, 1], [1, 0], [0, 1], [1, 1]])
    one = ["a"] * 4
    calls = {
        "bias_scores": lambda: biasamp.bias_scores(one, tasks=["x", "y", "x", "y"]),
        "multi_mals": lambda: biasamp.multi_mals(
            groups_train=one, tasks_train=tasks, tasks=tasks, groups_pred=one, tasks_pred=tasks
        ),
        "multi_directional": lambda: biasamp.multi_directional(
            direction="A->T",
            groups_train=one,
            tasks_train=tasks,
            groups=one,
            tasks=tasks,
            tasks_pred=tasks,
        ),
        "mals": lambda: biasamp.mals(
            groups_train=one, tasks_train=["x", "y"] * 2, groups_pred=one, tasks_pred=["x"] * 4
        ),
    }
    messages = _single_group_warnings(calls[metric])
    assert messages, metric
    assert "every row is in the single group 'a'" in messages[0]
    assert messages[0] == WARN_SINGLE_GROUP.format(arg=messages[0].split(":")[0], name="a")


# ------------------------------------------------------------ numeric frames in one pass
def test_numeric_frame_read_in_one_pass_reports_missing_values_as_before() -> None:
    frame = pd.DataFrame({"a": [1.0, 0, 0, 1, 0, np.nan], "b": [0, 1, 1, np.nan, 0, 1], "c": 1})
    expected = ERR_MISSING_VALUE.format(arg="tasks", count=1, row=5, column="a")
    with pytest.raises(ValueError) as info:
        as_label_matrix(frame, arg="tasks")
    assert str(info.value) == expected


@pytest.mark.parametrize("dtype", [np.int8, np.int64, np.float32, bool])
def test_numeric_frame_read_in_one_pass_equals_its_numpy_values(dtype: type) -> None:
    values = RNG.integers(0, 2, (N, 4)).astype(dtype)
    frame = pd.DataFrame(values, columns=["w", "x", "y", "z"])
    matrix = as_label_matrix(frame, arg="tasks")
    assert matrix.names == ("w", "x", "y", "z")
    np.testing.assert_array_equal(matrix.dense(), values.astype(np.float64))
    mixed = frame.assign(z=frame["z"].astype(bool), y=frame["y"].astype(np.uint16))
    np.testing.assert_array_equal(as_label_matrix(mixed, arg="tasks").dense(), matrix.dense())
