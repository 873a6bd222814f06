"""The label-set rules of docs/counts.md: occurring labels, named labels, missing
values, one group, empty strings, and 1-D scores (scikit-learn's classes_[1])."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

from biasamp import bias_scores, directional, mals
from biasamp.inputs import LabelWarning, as_label_matrix
from biasamp.inputs._containers import ERR_MISSING_LABEL, ERR_MISSING_VALUE, ERR_TYPE
from biasamp.inputs._label_matrix import (
    ERR_POSITIVE,
    ERR_SCORES_K,
    ERR_SCORES_NO_NAMES,
    ERR_SOFT_RANGE,
    ERR_UNKNOWN_LABELS,
    WARN_EMPTY_LABEL,
    WARN_SINGLE_GROUP,
)

pl = pytest.importorskip("polars")
torch = pytest.importorskip("torch")

RNG = np.random.default_rng(3)
N = 3000
G = RNG.choice(["a", "b", "c"], N)
T = np.where(G == "a", RNG.choice(["x", "y"], N, p=[0.7, 0.3]), RNG.choice(["x", "y"], N))
G_PRED = np.where(RNG.random(N) < 0.2, RNG.choice(["a", "b", "c"], N), G)
T_PRED = np.where(RNG.random(N) < 0.2, RNG.choice(["x", "y"], N), T)


def _msg(template: str, **kw: object) -> str:
    return re.escape(template.format(**kw))


# ---------------------------------------------------------------- declared categories
def _with_unused(x: np.ndarray) -> pd.Categorical:
    return pd.Categorical(x, categories=[*sorted(set(x)), "unused"])


def test_unused_category_gives_the_value_without_it():
    """A silent wrong value once seen: a declared, unused category changed every metric."""
    plain = {
        "T->A": directional(direction="T->A", groups=G, tasks=T, groups_pred=G_PRED).value,
        "A->T": directional(direction="A->T", groups=G, tasks=T, tasks_pred=T_PRED).value,
        "mals": mals(groups_train=G, tasks_train=T, groups_pred=G_PRED, tasks_pred=T_PRED).value,
    }
    cat = {
        "T->A": directional(
            direction="T->A", groups=_with_unused(G), tasks=T, groups_pred=_with_unused(G_PRED)
        ).value,
        "A->T": directional(
            direction="A->T", groups=_with_unused(G), tasks=_with_unused(T), tasks_pred=T_PRED
        ).value,
        "mals": mals(
            groups_train=pd.Series(_with_unused(G)),
            tasks_train=T,
            groups_pred=_with_unused(G_PRED),
            tasks_pred=T_PRED,
        ).value,
    }
    for key, value in plain.items():
        assert cat[key] == pytest.approx(value, abs=1e-12), key
    assert plain["T->A"] != 0


def test_named_label_is_kept_with_its_empty_rule():
    result = directional(
        direction="A->T",
        groups=_with_unused(G),
        tasks=T,
        tasks_pred=T_PRED,
        group_names=["a", "b", "c", "unused"],
    )
    rows = result.by_pair[result.by_pair["group"] == "unused"]
    assert len(rows) == 2 and rows["empty"].all()  # no evaluation row: excluded (empty="exclude")
    assert result.n_empty == 2
    plain = directional(direction="A->T", groups=G, tasks=T, tasks_pred=T_PRED)
    assert result.value == pytest.approx(plain.value, abs=1e-12)
    # T->A conditions on tasks, so the named group's pairs are defined (delta 0, y 0)
    t2a = directional(
        direction="T->A", groups=G, tasks=T, groups_pred=G_PRED, group_names=["a", "b", "c", "z"]
    )
    assert set(t2a.by_pair["group"]) == {"a", "b", "c", "z"}
    assert (t2a.by_pair.loc[t2a.by_pair["group"] == "z", "y"] == 0).all()


def test_labels_are_sorted_in_every_container():
    for x in (
        pd.Categorical(["w", "m"], categories=["w", "m"]),
        pl.Series(["w", "m"], dtype=pl.Enum(["w", "m"])),
        pa.array(["w", "m"]).dictionary_encode(),
        ["w", "m"],
    ):
        assert as_label_matrix(x, arg="groups").names == ("m", "w")


# ---------------------------------------------------------------- missing values
MISSING_1D = {
    "list_none": lambda: ["m", "w", "m", None, "w"],
    "numpy_object_nan": lambda: np.array(["m", "w", "m", np.nan, "w"], dtype=object),
    "numpy_float_nan": lambda: np.array([0.0, 1.0, 0.0, np.nan, 1.0]),
    "pandas_na_string": lambda: pd.Series(["m", "w", "m", pd.NA, "w"], dtype="string[pyarrow]"),
    "pandas_str_nan": lambda: pd.Series(["m", "w", "m", None, "w"], dtype="str"),
    "pandas_nullable_int": lambda: pd.Series([0, 1, 0, pd.NA, 1], dtype="Int64"),
    "pandas_nullable_boolean": lambda: pd.Series(
        [True, False, True, pd.NA, False], dtype="boolean"
    ),
    "pandas_categorical": lambda: pd.Categorical(["m", "w", "m", None, "w"]),
    "polars_null": lambda: pl.Series(["m", "w", "m", None, "w"]),
    "polars_enum_null": lambda: pl.Series(["m", "w", "m", None, "w"], dtype=pl.Enum(["m", "w"])),
    "polars_float_nan": lambda: pl.Series([0.0, 1.0, 0.0, float("nan"), 1.0]),
    "pyarrow_null": lambda: pa.array(["m", "w", "m", None, "w"]),
    "pyarrow_dictionary_null": lambda: pa.array(["m", "w", "m", None, "w"]).dictionary_encode(),
    "torch_float_nan": lambda: torch.tensor([0.0, 1.0, 0.0, float("nan"), 1.0]),
}


@pytest.mark.parametrize("case", list(MISSING_1D))
def test_missing_label_names_argument_and_first_row(case):
    with pytest.raises(ValueError, match=_msg(ERR_MISSING_LABEL, arg="groups", count=1, row=3)):
        directional(
            direction="A->T",
            groups=MISSING_1D[case](),
            tasks=["x", "y", "x", "y", "x"],
            tasks_pred=["x", "y", "x", "y", "x"],
        )


MISSING_2D = {
    "pandas_nullable_int": lambda: pd.DataFrame(
        {"x": [1, 0, 1], "y": [0, pd.NA, 1]}, dtype="Int64"
    ),
    "pandas_float_nan": lambda: pd.DataFrame({"x": [1.0, 0.0, 1.0], "y": [0.0, np.nan, 1.0]}),
    "polars_null": lambda: pl.DataFrame({"x": [1, 0, 1], "y": [0, None, 1]}),
    "pyarrow_null": lambda: pa.table({"x": [1, 0, 1], "y": [0, None, 1]}),
}


@pytest.mark.parametrize("case", list(MISSING_2D))
def test_missing_indicator_names_row_and_column(case):
    with pytest.raises(
        ValueError, match=_msg(ERR_MISSING_VALUE, arg="tasks", count=1, row=1, column="y")
    ):
        bias_scores(["m", "w", "m"], tasks=MISSING_2D[case]())


def test_numpy_nan_in_indicator_names_position():
    tasks = np.array([[1.0, 0.0], [0.0, np.nan], [1.0, 1.0]])
    with pytest.raises(
        ValueError, match=_msg(ERR_MISSING_VALUE, arg="tasks", count=1, row=1, column=1)
    ):
        bias_scores(["m", "w", "m"], tasks=tasks)


# ---------------------------------------------------------------- bad labels
def test_unknown_label_and_unsupported_type():
    with pytest.raises(ValueError, match=re.escape("groups_pred: 1 label(s) not in")):
        mals(
            groups_train=["m", "w"],
            tasks_train=["x", "x"],
            groups_pred=["m", "q"],
            tasks_pred=["x", "x"],
        )
    assert "not in the canonical label set" in ERR_UNKNOWN_LABELS
    with pytest.raises(TypeError, match=_msg(ERR_TYPE, arg="groups", type_name="set")):
        as_label_matrix({"m", "w"}, arg="groups")


def test_single_group_warns():
    with pytest.warns(LabelWarning, match=_msg(WARN_SINGLE_GROUP, arg="groups", name="m")):
        result = directional(
            direction="A->T", groups=["m", "m"], tasks=["x", "y"], tasks_pred=["x", "x"]
        )
    assert result.value == 0.0


def test_empty_string_label_warns_and_counts_as_a_label():
    with pytest.warns(LabelWarning, match=_msg(WARN_EMPTY_LABEL, arg="groups", count=1, row=2)):
        m = as_label_matrix(["m", "w", "", "m"], arg="groups")
    assert m.names == ("", "m", "w")


# ---------------------------------------------------------------- 1-D scores
P = RNG.random(N)
G2 = np.where(T == "x", RNG.choice(["m", "w"], N, p=[0.7, 0.3]), RNG.choice(["m", "w"], N))


def test_one_d_score_is_probability_of_second_sorted_label():
    m = as_label_matrix(P[:3], arg="groups_pred", names=("m", "w"), soft=True)
    np.testing.assert_array_equal(m.dense(), np.column_stack([1 - P[:3], P[:3]]))
    flipped = as_label_matrix(
        P[:3],
        arg="groups_pred",
        names=("m", "w"),
        soft=True,
        positive="m",
        positive_param="positive_group",
    )
    np.testing.assert_array_equal(flipped.dense(), np.column_stack([P[:3], 1 - P[:3]]))


@pytest.mark.parametrize("direction", ["T->A", "A->T"])
def test_one_d_score_equals_two_column_matrix(direction):
    matrix = np.column_stack([1 - P, P])
    if direction == "T->A":
        kw = {"groups_pred": P}
        kw2 = {"groups_pred": matrix}
        kw3 = {"groups_pred": 1 - P, "positive_group": "m"}
        kw4 = {"groups_pred": torch.tensor(P)}
    else:
        kw = {"tasks_pred": P}
        kw2 = {"tasks_pred": matrix}
        kw3 = {"tasks_pred": 1 - P, "positive_label": "x"}
        kw4 = {"tasks_pred": pl.Series(P)}
    values = [
        directional(direction=direction, groups=G2, tasks=T, soft=True, **k).value
        for k in (kw, kw2, kw3, kw4)
    ]
    assert values[0] != 0
    for v in values[1:]:
        assert v == pytest.approx(values[0], abs=1e-12)


def test_mals_one_d_scores():
    one_d = mals(groups_train=G2, tasks_train=T, groups_pred=P, tasks_pred=T_PRED, soft=True).value
    two_d = mals(
        groups_train=G2,
        tasks_train=T,
        groups_pred=np.column_stack([1 - P, P]),
        tasks_pred=T_PRED,
        soft=True,
    ).value
    assert one_d == pytest.approx(two_d, abs=1e-12)


def test_one_d_score_errors():
    with pytest.raises(
        ValueError, match=_msg(ERR_SCORES_K, arg="groups_pred", k=3, names=["a", "b", "c"])
    ):
        directional(direction="T->A", groups=G, tasks=T, groups_pred=P, soft=True)
    with pytest.raises(
        ValueError, match=_msg(ERR_POSITIVE, param="positive_group", got="q", names=["m", "w"])
    ):
        directional(
            direction="T->A", groups=G2, tasks=T, groups_pred=P, soft=True, positive_group="q"
        )
    with pytest.raises(
        ValueError, match=_msg(ERR_SOFT_RANGE, arg="groups_pred", low=-0.5, high=1.5)
    ):
        directional(
            direction="T->A",
            groups=["m", "w"],
            tasks=["x", "y"],
            groups_pred=[-0.5, 1.5],
            soft=True,
        )
    with pytest.raises(
        ValueError, match=_msg(ERR_SCORES_NO_NAMES, arg="groups_pred", kind="group")
    ):
        as_label_matrix([0.2, 0.7], arg="groups_pred", soft=True)
