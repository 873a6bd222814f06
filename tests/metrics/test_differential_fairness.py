"""Differential fairness and its amplification: hand-worked values, a brute force, AIF360 on Adult.

Hand-worked (concentration 1, two classes, so each class gets 1/2):

* groups a (4 rows: labels 1, 1, 1, 0) and b (4 rows: 1, 0, 0, 0): smoothed
  P(1 | a) = (3 + .5) / 5 = .7, P(1 | b) = (1 + .5) / 5 = .3, P(0 | a) = .3,
  P(0 | b) = .7; epsilon = log(.7 / .3) = 0.847298.
* three classes x, y, z (each gets 1/3), groups a (x, x, y) and b (y, z, z, z):
  P(x | a) = (2 + 1/3) / 4 = 7/12, P(x | b) = (0 + 1/3) / 5 = 1/15: log-ratio
  log(35/4) = 2.169054; P(z | a) = (1/3) / 4 = 1/12, P(z | b) = (3 + 1/3) / 5 = 2/3:
  log 8 = 2.079442; P(y | a) = (4/3) / 4, P(y | b) = (4/3) / 5: log 1.25.
  epsilon = log(35/4).

AIF360 (Trusted-AI/AIF360, ``tests/test_differential_fairness.py``) reports, on the
Adult test split with missing values as their own category and income ">50K" the
favourable label: 1.53679014653623 for the binary protected attributes race ==
White x sex == Male x native-country == United-States, and 2.063813731996515 with
the five races.
"""

from __future__ import annotations

import math
import re
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import biasamp
from biasamp import (
    CountTable,
    MissingGroupWarning,
    SmallGroupWarning,
    differential_fairness,
    differential_fairness_amplification,
    differential_fairness_amplification_from_counts,
    differential_fairness_from_counts,
    intersect,
)
from biasamp.metrics._differential_fairness import (
    ERR_CONCENTRATION,
    ERR_EMPTY_GROUPS,
    ERR_ONE_GROUP_PER_ROW,
    ERR_ONE_LABEL_PER_ROW,
)

ADULT = Path(__file__).resolve().parents[2] / "examples" / "data" / "adult"
GROUPS = ["a"] * 4 + ["b"] * 4
LABELS = [1, 1, 1, 0, 1, 0, 0, 0]
QUIET = {"min_group_size": None}


def brute_epsilon(groups, labels, weights=None, concentration=1.0, classes=None, keep_empty=False):
    """Loop over every pair of groups and every class, from Foulds et al.'s formula
    (``keep_empty``: a group whose rows all weigh 0 stays, as AIF360 keeps it)."""
    groups, labels = np.asarray(groups, dtype=object), np.asarray(labels, dtype=object)
    weights = np.ones(len(groups)) if weights is None else np.asarray(weights, dtype=float)
    classes = sorted(set(labels.tolist())) if classes is None else classes
    alpha = concentration / len(classes)
    names = [
        g
        for g in sorted(set(groups.tolist()))
        if weights[groups == g].sum() > 0 or (keep_empty and concentration > 0)
    ]
    rate = {}
    for g in names:
        size = weights[groups == g].sum()
        for y in classes:
            rate[g, y] = (weights[(groups == g) & (labels == y)].sum() + alpha) / (
                size + concentration
            )
    epsilon = 0.0
    for i in names:
        for j in names:
            for y in classes:
                if i != j:
                    epsilon = max(epsilon, abs(math.log(rate[i, y]) - math.log(rate[j, y])))
    return epsilon


def test_two_groups_hand_worked():
    result = differential_fairness(groups=GROUPS, labels=LABELS, **QUIET)
    assert result.value == pytest.approx(math.log(0.7 / 0.3))
    assert result.rates["rate_labels"].tolist() == pytest.approx([0.3, 0.7, 0.7, 0.3])
    top = result.by_pair
    assert len(top) == 2 and top["sets_epsilon"].all()
    row = top.set_index("label").loc[1]
    assert row["log_ratio_labels"] == pytest.approx(math.log(0.7 / 0.3))  # a over b


def test_three_classes_hand_worked():
    groups = ["a"] * 3 + ["b"] * 4
    labels = ["x", "x", "y", "y", "z", "z", "z"]
    result = differential_fairness(groups=groups, labels=labels, **QUIET)
    assert result.value == pytest.approx(math.log(35 / 4))
    pairs = result.by_pair.set_index("label")["abs_log_ratio_labels"]
    assert pairs["x"] == pytest.approx(math.log(35 / 4))
    assert pairs["z"] == pytest.approx(math.log(8))
    assert pairs["y"] == pytest.approx(math.log(1.25))
    assert result.by_pair.iloc[0]["label"] == "x"


def test_concentration_zero_gives_infinity_for_an_absent_class():
    result = differential_fairness(
        groups=GROUPS, labels=[1, 1, 1, 1, 0, 0, 0, 0], concentration=0, **QUIET
    )
    assert result.value == math.inf


def test_weights_equal_repeated_rows():
    weights = [2, 1, 3, 1, 1, 1, 2, 5]
    weighted = differential_fairness(groups=GROUPS, labels=LABELS, sample_weight=weights, **QUIET)
    repeated = differential_fairness(
        groups=np.repeat(GROUPS, weights), labels=np.repeat(LABELS, weights), **QUIET
    )
    assert weighted.value == pytest.approx(repeated.value)


def test_amplification_is_the_difference_of_the_two_epsilons():
    pred = [1, 1, 1, 1, 0, 0, 0, 1]
    result = differential_fairness_amplification(
        groups=GROUPS, labels=LABELS, labels_pred=pred, **QUIET
    )
    assert result.epsilon_labels == pytest.approx(brute_epsilon(GROUPS, LABELS))
    assert result.epsilon_pred == pytest.approx(brute_epsilon(GROUPS, pred))
    assert result.value == result.epsilon_pred - result.epsilon_labels
    assert {"log_ratio_pred", "change"} <= set(result.by_pair.columns)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["a", "b", "c", "d"]),
            st.sampled_from(["x", "y", "z"]),
            st.integers(0, 4),
        ),
        min_size=2,
        max_size=40,
    ),
    st.sampled_from([0.5, 1.0, 3.0]),
    st.sampled_from(["drop", "smooth"]),
)
def test_matches_the_brute_force(rows, concentration, empty_groups):
    groups, labels, weights = (list(column) for column in zip(*rows, strict=True))
    if not sum(weights):
        weights[0] = 1
    result = differential_fairness(
        groups=groups,
        labels=labels,
        sample_weight=weights,
        concentration=concentration,
        empty_groups=empty_groups,
        **QUIET,
    )
    expected = brute_epsilon(
        groups, labels, weights, concentration, keep_empty=empty_groups == "smooth"
    )
    assert result.value == pytest.approx(expected, rel=1e-12, abs=1e-12)


def test_a_group_of_weight_zero_dropped_or_smoothed_as_aif360():
    # concentration 1, classes 0 and 1 (each gets 1/2):
    # a: three rows of class 1 -> P(0 | a) = (0 + .5) / (3 + 1) = 0.125, P(1 | a) = 0.875
    # b: four rows of class 1  -> P(0 | b) = (0 + .5) / (4 + 1) = 0.1,   P(1 | b) = 0.9
    # c: two rows of weight 0  -> dropped, or P(0 | c) = P(1 | c) = (0 + .5) / (0 + 1) = 0.5
    # drop:   epsilon = max(log(.125 / .1), log(.9 / .875)) = log 1.25 = 0.223144
    # smooth: epsilon = max(log(.5 / .1), log(.9 / .5), ...) = log 5 = 1.609438 (AIF360)
    groups = ["a"] * 3 + ["b"] * 4 + ["c"] * 2
    labels = [1] * 7 + [0, 1]
    weights = [1] * 7 + [0, 0]
    kw = dict(groups=groups, labels=labels, sample_weight=weights, **QUIET)
    with pytest.warns(MissingGroupWarning, match="no rows in the evaluation split: c"):
        dropped = differential_fairness(**kw)
    assert dropped.missing_groups == {"evaluation": ("c",)}
    assert dropped.value == pytest.approx(math.log(1.25), rel=1e-12)
    assert list(dropped.group_sizes.index) == ["a", "b"]
    smoothed = differential_fairness(**kw, empty_groups="smooth")
    assert smoothed.value == pytest.approx(math.log(5), rel=1e-12)
    assert list(smoothed.group_sizes.index) == ["a", "b", "c"]
    rates = smoothed.rates.set_index(["group", "label"])["rate_labels"]
    assert rates[("c", 0)] == rates[("c", 1)] == 0.5
    assert smoothed.params["empty_groups"] == "smooth" and dropped.params["empty_groups"] == "drop"
    # the same from counts, and for the amplification: predictions all class 1 except c's
    table = CountTable.from_arrays(groups=groups, tasks=labels, sample_weight=weights)
    from_counts = differential_fairness_from_counts(table, empty_groups="smooth", **QUIET)
    assert from_counts.value == smoothed.value
    assert differential_fairness_from_counts(table, **QUIET).value == dropped.value
    amplified = differential_fairness_amplification(
        **kw, labels_pred=[1] * 9, empty_groups="smooth"
    )
    # predictions: a P(0) = .125, b P(0) = .1, c 0.5 -> epsilon_pred = log 5 as well: 0
    assert amplified.epsilon_pred == pytest.approx(math.log(5)) and amplified.value == 0.0
    # a group named in group_names that no row has: kept at 1/K by "smooth" only
    named = dict(
        groups=["a"] * 3 + ["b"] * 4,
        labels=[1] * 7,
        group_names=["a", "b", "c"],
        label_names=[0, 1],
    )
    assert differential_fairness(**named, **QUIET).value == pytest.approx(math.log(1.25))
    assert differential_fairness(**named, empty_groups="smooth", **QUIET).value == (
        pytest.approx(math.log(5))
    )
    # concentration 0: a weightless group has no rate in either mode
    zero = differential_fairness(**kw, concentration=0.0, empty_groups="smooth")
    assert list(zero.group_sizes.index) == ["a", "b"]
    # the bootstrap keeps c at 1/2 in every replicate: epsilon >= log(.5 / P(0 | b)) > 0
    boot = differential_fairness(**kw, empty_groups="smooth", n_boot=30, random_state=0)
    assert boot.ci[0] > 0.5 and np.isfinite(boot.replicates).all()
    with pytest.raises(ValueError, match=re.escape(ERR_EMPTY_GROUPS.format(got="keep"))):
        differential_fairness(**kw, empty_groups="keep")


def _adult_test() -> pd.DataFrame:
    return pd.read_csv(ADULT / "test.csv.gz")


def test_aif360_binary_protected_attributes_on_adult():
    frame = _adult_test()
    country = frame["native-country"].fillna("Unknown")  # AIF360: missing as a category
    groups = intersect(
        {
            "race": frame["race"] == "White",
            "sex": frame["sex"] == "Male",
            "country": country == "United-States",
        }
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SmallGroupWarning)
        result = differential_fairness(groups=groups, labels=frame["income"] == ">50K")
    assert result.value == pytest.approx(1.53679014653623, rel=1e-12)
    assert result.value == pytest.approx(
        brute_epsilon(groups.astype(str), frame["income"]), rel=1e-12
    )


def test_aif360_five_races_on_adult():
    frame = _adult_test()
    groups = intersect(
        {
            "sex": frame["sex"] == "Male",
            "country": frame["native-country"].fillna("Unknown") == "United-States",
            "race": frame["race"],
        }
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SmallGroupWarning)
        result = differential_fairness(groups=groups, labels=frame["income"])
    assert result.value == pytest.approx(2.063813731996515, rel=1e-12)


def test_small_groups_warn_and_are_listed():
    with pytest.warns(SmallGroupWarning, match=r"2 group\(s\).*a \(4\), b \(4\)"):
        result = differential_fairness(groups=GROUPS, labels=LABELS, min_group_size=5)
    assert result.small_groups == ("a", "b")
    assert result.group_sizes["evaluation"].tolist() == [4.0, 4.0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert (
            differential_fairness(groups=GROUPS, labels=LABELS, min_group_size=4).small_groups == ()
        )


def test_intersections_show_their_columns_and_the_ones_that_never_occur():
    frame = pd.DataFrame(
        {"race": ["r1", "r1", "r2", "r2", "r1", "r1"], "sex": ["f", "m", "f", "f", "f", "m"]}
    )
    groups = intersect(frame)
    result = differential_fairness(groups=groups, labels=[1, 0, 0, 1, 1, 1], **QUIET)
    assert result.never_occurring.to_dict("records") == [{"race": "r2", "sex": "m"}]
    row = result.by_pair.set_index(["group_a", "group_b"]).loc[("r1 x f", "r1 x m")].iloc[0]
    assert (row["race_a"], row["sex_a"], row["race_b"], row["sex_b"]) == ("r1", "f", "r1", "m")
    hand = differential_fairness(
        groups=groups.astype(str).tolist(), labels=[1, 0, 0, 1, 1, 1], **QUIET
    )
    assert result.value == hand.value


def test_bootstrap_is_reproducible_and_brackets_the_estimate():
    rng = np.random.default_rng(0)
    groups = rng.choice(["a", "b", "c"], 600)
    labels = (rng.random(600) < np.where(groups == "a", 0.6, 0.3)).astype(int)
    pred = (rng.random(600) < np.where(groups == "a", 0.7, 0.25)).astype(int)
    kw = dict(groups=groups, labels=labels, labels_pred=pred, n_boot=200, **QUIET)
    one = differential_fairness_amplification(**kw, random_state=1)
    two = differential_fairness_amplification(**kw, random_state=1)
    assert one.ci == two.ci and one.ci_labels == two.ci_labels
    assert one.ci[0] < one.value < one.ci[1]
    assert one.ci_labels[0] < one.epsilon_labels < one.ci_labels[1]
    assert one.replicates.shape == (200,)


def test_from_counts_streams_chunks():
    rng = np.random.default_rng(3)
    groups = rng.choice(["a", "b"], 100)
    labels, pred = rng.integers(0, 2, 100), rng.integers(0, 2, 100)
    table = CountTable.from_arrays(groups=groups[:40], tasks=labels[:40], tasks_pred=pred[:40],
                                   group_names=["a", "b"], task_names=[0, 1])  # fmt: skip
    table = table.update(groups=groups[40:], tasks=labels[40:], tasks_pred=pred[40:])
    streamed = differential_fairness_amplification_from_counts(table, **QUIET)
    direct = differential_fairness_amplification(
        groups=groups, labels=labels, labels_pred=pred, **QUIET
    )
    assert streamed.value == pytest.approx(direct.value)
    assert differential_fairness_from_counts(table, **QUIET).value == pytest.approx(
        direct.epsilon_labels
    )


def test_online_bootstrap_table_gives_an_interval():
    rng = np.random.default_rng(4)
    groups, labels = rng.choice(["a", "b"], 300), rng.integers(0, 2, 300)
    table = CountTable.empty(group_names=["a", "b"], task_names=[0, 1], n_boot=50, random_state=0)
    table = table.update(groups=groups, tasks=labels)
    result = differential_fairness_from_counts(table, **QUIET)
    assert result.ci is not None and result.replicates.shape == (50,)


def test_save_load_and_plot(tmp_path):
    frame = pd.DataFrame({"r": list("xyxyxyxy"), "s": list("mmffmmff")})
    result = differential_fairness_amplification(
        groups=intersect(frame), labels=LABELS, labels_pred=[1, 1, 1, 1, 0, 0, 0, 1],
        n_boot=20, random_state=0, **QUIET,
    )  # fmt: skip
    again = biasamp.load_result(result.save(tmp_path / "df.json"))
    assert type(again) is type(result) and again == result
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ax = result.plot()
    image = ax.get_images()[0].get_array()
    assert image.shape == (4, 4)
    matrix = result.log_ratio_matrix()
    assert np.allclose(matrix.to_numpy(), -matrix.to_numpy().T)
    plt.close("all")


def test_errors_name_the_argument():
    with pytest.raises(ValueError, match="concentration"):
        differential_fairness(groups=GROUPS, labels=LABELS, concentration=-1)
    assert "concentration" in ERR_CONCENTRATION
    indicators = pd.DataFrame({"a": [1, 0], "b": [0, 1]})
    with pytest.raises(ValueError) as info:
        differential_fairness(groups=indicators, labels=[0, 1])
    assert str(info.value) == ERR_ONE_GROUP_PER_ROW.format(k=2)
    with pytest.raises(ValueError) as info:
        differential_fairness(groups=["a", "b"], labels=indicators)
    assert str(info.value) == ERR_ONE_LABEL_PER_ROW.format(arg="labels", k=2)


def test_code_counts_equal_the_count_table():
    from biasamp.counts._count_table import label_matrices
    from biasamp.metrics._differential_fairness import _count_codes

    rng = np.random.default_rng(5)
    matrices = label_matrices(
        groups=rng.choice(["a", "b", "c"], 50),
        tasks=rng.choice(["x", "y", "z"], 50),
        tasks_pred=rng.choice(["x", "y", "z"], 50),
    )
    weights = rng.random(50)
    fast = _count_codes(matrices, weights)
    table = CountTable.from_label_matrices(matrices, sample_weight=weights)
    for key in (("groups", "tasks"), ("groups", "tasks_pred")):
        np.testing.assert_allclose(fast.joint[key], table.joint[key], rtol=1e-12)
    for role in ("groups", "tasks", "tasks_pred"):
        np.testing.assert_allclose(fast.totals[role], table.totals[role], rtol=1e-12)
    assert float(fast.n) == pytest.approx(float(table.n))


def test_label_set_errors_name_this_functions_arguments():
    with pytest.raises(ValueError) as info:
        differential_fairness_amplification(
            groups=["a", "b"], labels=[1, 0], labels_pred=[2, 0], **QUIET
        )
    message = str(info.value)
    assert message.startswith("labels_pred:") and "(from labels)" in message
    assert "tasks" not in message


def test_heatmap_keeps_the_largest_groups_and_the_pair_that_sets_epsilon():
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    # 12 groups; the two smallest (g10, g11, 3 rows each) have the extreme rates
    groups = np.repeat([f"g{i:02d}" for i in range(12)], [40] * 10 + [3, 3])
    labels = np.concatenate([np.tile([0, 1], 200), [1, 1, 1], [0, 0, 0]])
    result = differential_fairness(groups=groups, labels=labels, **QUIET)
    assert {result.by_pair.iloc[0]["group_a"], result.by_pair.iloc[0]["group_b"]} == {"g10", "g11"}
    ax = result.plot(max_groups=5)
    shown = [tick.get_text() for tick in ax.get_yticklabels()]
    assert len(shown) == 5 and {"g10", "g11"} <= set(shown)
    assert {"g00", "g01", "g02"} <= set(shown)  # three of the largest (ties: first in order)
    plt.close("all")


def test_several_categorical_group_columns_point_to_intersect():
    """``groups=df[["race", "sex"]]`` is refused with a pointer to biasamp.intersect (not
    "a 2-D indicator matrix must be numeric"), in both functions, for pandas, polars and
    numpy frames; the intersection then works."""
    import re

    import polars as pl

    import biasamp
    from biasamp.metrics._differential_fairness import ERR_GROUP_COLUMNS

    df = pd.DataFrame(
        {"race": ["a", "b", "a", "b"], "sex": ["m", "f", "f", "m"], "y": [1, 0, 1, 0]}
    )
    named = ERR_GROUP_COLUMNS.format(k=2, columns="race, sex", quoted="'race', 'sex'")
    assert "biasamp.intersect(frame[['race', 'sex']])" in named
    unnamed = ERR_GROUP_COLUMNS.format(k=2, columns="0, 1", quoted="0, 1")
    for groups, message in (
        (df[["race", "sex"]], named),
        (pl.from_pandas(df[["race", "sex"]]), named),
        (df[["race", "sex"]].to_numpy(), unnamed),
    ):
        with pytest.raises(TypeError, match=re.escape(message)):
            biasamp.differential_fairness(groups=groups, labels=df["y"])
        with pytest.raises(TypeError, match=re.escape(message)):
            biasamp.differential_fairness_amplification(
                groups=groups, labels=df["y"], labels_pred=df["y"]
            )
    result = biasamp.differential_fairness(
        groups=biasamp.intersect(df[["race", "sex"]]), labels=df["y"], min_group_size=None
    )
    # four groups of one row, rates (1 + .5) / 2 and (0 + .5) / 2: log 3
    assert result.value == pytest.approx(math.log(3))
    # numeric indicator columns keep their own message (which names intersect too)
    from biasamp.metrics._differential_fairness import ERR_ONE_GROUP_PER_ROW

    with pytest.raises(ValueError, match=re.escape(ERR_ONE_GROUP_PER_ROW.format(k=2))):
        biasamp.differential_fairness(
            groups=np.array([[1, 1], [0, 1], [1, 0], [0, 1]]), labels=df["y"]
        )


@pytest.mark.parametrize("table", [{}, None, [1, 2], "table.npz", 3])
def test_from_counts_functions_name_a_table_of_the_wrong_type(table):
    import biasamp
    from biasamp.counts._count_table import ERR_NOT_COUNT_TABLE

    kind = type(table).__name__
    calls = {
        "table": [biasamp.differential_fairness_from_counts,
                  biasamp.differential_fairness_amplification_from_counts],
        "evaluation": [lambda t: biasamp.directional_from_counts(t, direction="A->T")],
        "train": [lambda t: biasamp.mals_from_counts(t, t)],
    }  # fmt: skip
    for arg, functions in calls.items():
        for function in functions:  # was AttributeError: 'dict' object has no attribute ...
            with pytest.raises(TypeError) as info:
                function(table)
            assert str(info.value) == ERR_NOT_COUNT_TABLE.format(arg=arg, type_name=kind)
