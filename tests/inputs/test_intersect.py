"""biasamp.intersect: several categorical columns -> one group label per row."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pandas as pd
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import biasamp
from biasamp import intersect, intersection_of
from biasamp.inputs._intersect import (
    ERR_LAZY,
    ERR_LENGTHS,
    ERR_MISSING,
    ERR_MISSING_RULE,
    ERR_MIXED,
    ERR_SEP_COLLISION,
    MISSING_LEVEL,
)

FRAME = pd.DataFrame(
    {
        "race": ["b", "a", "a", "b", "a", "a", "b", "a"],
        "sex": ["f", "m", "f", "f", "m", "m", "f", "f"],
        "young": [True, False, True, True, True, False, False, True],
    }
)
HAND = [
    f"{r} x {s} x {y}" for r, s, y in zip(FRAME["race"], FRAME["sex"], FRAME["young"], strict=True)
]


@pytest.mark.parametrize(
    "columns",
    [
        FRAME,
        pl.from_pandas(FRAME),
        {name: FRAME[name].to_numpy() for name in FRAME},
        {name: FRAME[name].tolist() for name in FRAME},
        [FRAME["race"], FRAME["sex"], FRAME["young"]],
        [
            pl.Series("race", FRAME["race"]),
            pl.Series("sex", FRAME["sex"]),
            pl.Series("young", FRAME["young"]),
        ],
        FRAME.astype({"race": "category", "sex": "category"}),
        pl.from_pandas(FRAME).with_columns(pl.col("race").cast(pl.Categorical)),
    ],
    ids=[
        "pandas",
        "polars",
        "dict-numpy",
        "dict-list",
        "series",
        "polars-series",
        "pandas-cat",
        "polars-cat",
    ],
)
def test_every_container_gives_the_hand_built_labels(columns):
    groups = intersect(columns)
    assert groups.tolist() == HAND
    assert groups.name == "race x sex x young"
    assert list(groups.cat.categories) == sorted(set(HAND))
    info = intersection_of(groups)
    assert info.columns == ("race", "sex", "young")
    assert info.parts.loc["a x m x False"].tolist() == ["a", "m", False]
    never = info.never_occurring()
    expected = {("a", "f", False), ("b", "m", False), ("b", "m", True)}
    assert set(map(tuple, never.to_numpy().tolist())) == expected


def test_pandas_index_is_kept():
    frame = FRAME.set_index(pd.Index(list("qrstuvwx")))
    assert list(intersect(frame).index) == list("qrstuvwx")


def test_unused_categories_are_dropped():
    frame = pd.DataFrame(
        {"r": pd.Categorical(["a", "b"], categories=["c", "b", "a"]), "s": ["f", "m"]}
    )
    groups = intersect(frame)
    assert list(groups.cat.categories) == ["b x m", "a x f"]  # the categories' declared order
    assert intersection_of(groups).levels == (("b", "a"), ("f", "m"))


def test_missing_values_name_the_column_and_row():
    frame = pd.DataFrame({"r": ["a", "b", "a"], "country": ["us", None, np.nan]})
    with pytest.raises(ValueError) as info:
        intersect(frame)
    assert str(info.value) == ERR_MISSING.format(name="country", count=2, row=1)
    with pytest.raises(ValueError, match="'country'"):
        intersect(pl.from_pandas(frame))
    groups = intersect(frame, missing="category")
    assert groups.tolist() == ["a x us", f"b x {MISSING_LEVEL}", f"a x {MISSING_LEVEL}"]
    with pytest.raises(ValueError, match=re.escape(ERR_MISSING_RULE.format(got="drop"))):
        intersect(frame, missing="drop")


def test_bad_inputs_are_clear_errors():
    with pytest.raises(ValueError) as info:
        intersect({"a": [1, 2], "b": [1]})
    assert str(info.value) == ERR_LENGTHS.format(lengths="'a' has 2, 'b' has 1")
    with pytest.raises(ValueError) as info:
        intersect({"a": [1, "1"]})
    assert str(info.value) == ERR_MIXED.format(name="a", types="int, str")
    with pytest.raises(ValueError) as info:
        intersect({"a": ["p x", "p"], "b": ["q", "x q"]})
    assert str(info.value) == ERR_SEP_COLLISION.format(sep=" x ", label="p x x q")
    assert intersect({"a": ["p x", "p"], "b": ["q", "x q"]}, sep="|").tolist() == ["p x|q", "p|x q"]
    with pytest.raises(TypeError, match=re.escape(ERR_LAZY)):
        intersect(pl.from_pandas(FRAME).lazy())
    with pytest.raises(TypeError, match="columns"):
        intersect("race")


# --- every metric takes the intersected column as groups (value = a hand-built label column)
RNG = np.random.default_rng(7)
N = 240
BIG = pd.DataFrame(
    {
        "race": RNG.choice(["a", "b", "c"], N),
        "sex": RNG.choice(["f", "m"], N),
    }
)
HAND_BIG = (BIG["race"] + " x " + BIG["sex"]).to_numpy()
TASKS = pd.DataFrame({t: RNG.integers(0, 2, N) for t in ("t1", "t2", "t3")})
TASKS_PRED = pd.DataFrame({t: RNG.integers(0, 2, N) for t in ("t1", "t2", "t3")})
GROUPS_PRED = RNG.choice(sorted(set(HAND_BIG)), N)
LABEL = RNG.choice(["x", "y"], N)
LABEL_PRED = RNG.choice(["x", "y"], N)

METRICS = {
    "bias_scores": lambda g: biasamp.bias_scores(g, tasks=TASKS).to_numpy(),
    "mals": lambda g: biasamp.mals(groups_train=g, tasks_train=LABEL, groups_pred=GROUPS_PRED, tasks_pred=LABEL_PRED).value,
    "directional A->T": lambda g: biasamp.directional(direction="A->T", groups=g, tasks=TASKS, tasks_pred=TASKS_PRED).value,
    "directional T->A": lambda g: biasamp.directional(direction="T->A", groups=g, tasks=TASKS, groups_pred=GROUPS_PRED).value,
    "multi_mals": lambda g: biasamp.multi_mals(groups_train=g, tasks_train=TASKS, tasks=TASKS, groups_pred=GROUPS_PRED, tasks_pred=TASKS_PRED).value,
    "multi_directional": lambda g: biasamp.multi_directional(direction="A->T", groups=g, tasks=TASKS, tasks_pred=TASKS_PRED, groups_train=g, tasks_train=TASKS).value,
    "differential_fairness": lambda g: biasamp.differential_fairness(groups=g, labels=LABEL, min_group_size=None).value,
    "dpa": lambda g: biasamp.dpa(direction="T->A", groups=g, tasks=LABEL, groups_pred=GROUPS_PRED, attacker="exact", n_iter=2, random_state=0).value,
    "as tasks": lambda g: biasamp.directional(direction="A->T", groups=LABEL, tasks=g, tasks_pred=GROUPS_PRED).value,
}  # fmt: skip


@pytest.mark.parametrize("source", ["pandas", "polars"])
@pytest.mark.parametrize("metric", list(METRICS))
def test_every_metric_takes_intersected_groups(metric, source):
    frame = BIG if source == "pandas" else pl.from_pandas(BIG)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = METRICS[metric](intersect(frame))
        expected = METRICS[metric](HAND_BIG)
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(["p", "q", "r"]), st.integers(-2, 2), st.booleans()),
        min_size=1,
        max_size=30,
    )
)
def test_labels_and_parts_match_a_hand_built_join(rows):
    a, b, c = (list(column) for column in zip(*rows, strict=True))
    for columns in ({"a": a, "b": b, "c": c}, pl.DataFrame({"a": a, "b": b, "c": c})):
        groups = intersect(columns, sep="|")
        assert groups.tolist() == [f"{x}|{y}|{z}" for x, y, z in rows]
        info = intersection_of(groups)
        parts = info.parts.loc[groups.astype(str)]
        assert list(map(tuple, parts.to_numpy().tolist())) == rows
        assert len(info.never_occurring()) == info.n_possible - len(set(rows))


def _never(groups) -> set[tuple]:
    frame = intersection_of(groups).never_occurring()
    return set(map(tuple, frame.to_numpy().tolist()))


def test_a_subset_gives_the_subsets_never_occurring():
    groups = intersect(FRAME[["race", "sex"]])  # a x f, a x m, b x f occur; b x m never
    assert _never(groups) == {("b", "m")}
    keep = (groups != "a x m").to_numpy()
    assert _never(groups[keep]) == {("b", "m"), ("a", "m")}
    assert _never(groups.iloc[:1]) == {("a", "f"), ("a", "m"), ("b", "m")}  # only b x f
    assert list(intersection_of(groups.iloc[:1]).parts.index) == ["b x f"]
    assert _never(groups.loc[groups.index[::-1]]) == {("b", "m")}  # reordering changes nothing
    # a changed column no longer matches the intersection it carried
    changed = groups.astype(str)
    changed.iloc[0] = "c x z"
    assert intersection_of(changed) is None
    assert _never(groups.astype(str)) == {("b", "m")}


def test_results_of_a_subset_list_the_subsets_never_occurring():
    groups = intersect(FRAME[["race", "sex"]])
    keep = (groups != "a x m").to_numpy()
    labels = np.array(["x", "y", "x", "y", "x", "y", "x", "y"])
    result = biasamp.differential_fairness(groups=groups[keep], labels=labels[keep],
                                           min_group_size=None)  # fmt: skip
    assert set(map(tuple, result.never_occurring.to_numpy().tolist())) == {("b", "m"), ("a", "m")}
    pairs = biasamp.mals(groups_train=groups[keep], tasks_train=labels[keep],
                         groups_pred=groups[keep], tasks_pred=labels[keep],
                         min_group_size=None)  # fmt: skip
    assert set(map(tuple, pairs.never_occurring.to_numpy().tolist())) == {("b", "m"), ("a", "m")}


@settings(max_examples=40, deadline=None)
@given(st.lists(st.booleans(), min_size=8, max_size=8).filter(any))
def test_never_occurring_of_any_subset_matches_intersect_of_the_subset(keep):
    keep = np.array(keep)
    groups = intersect(FRAME)
    fresh = set(map(tuple, pd.DataFrame(
        [(r, s, y) for r in ("a", "b") for s in ("f", "m") for y in (False, True)],
    ).to_numpy().tolist())) - set(map(tuple, FRAME[keep].to_numpy().tolist()))  # fmt: skip
    assert _never(groups[keep]) == fresh


def test_nullable_integer_and_boolean_columns_with_missing_values():
    frame = pd.DataFrame({
        "a": pd.array([1, None, 2, 1], dtype="Int64"),
        "b": ["x", "y", "z", "x"],
        "c": pd.array([True, None, False, True], dtype="boolean"),
    })  # fmt: skip
    groups = intersect(frame, missing="category")  # was "cannot convert float NaN to integer"
    assert groups.tolist() == [
        "1 x x x True", f"{MISSING_LEVEL} x y x {MISSING_LEVEL}", "2 x z x False", "1 x x x True",
    ]  # fmt: skip
    with pytest.raises(ValueError) as info:
        intersect(frame)
    assert str(info.value) == ERR_MISSING.format(name="a", count=1, row=1)
