"""output_amplification: hand-worked values, an independent pandas computation, the input
contract (containers, missing and mixed labels, tables), row order, intervals."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import biasamp
from biasamp.generated._output_amplification import (
    ERR_CONCEPT_NOT_IN_REFERENCE,
    ERR_GROUP_NOT_IN_REFERENCE,
    ERR_NO_CONCEPT,
    ERR_REFERENCE_GIVEN,
    REASON_NO_OUTPUTS,
    REASON_TIE,
)
from biasamp.inputs._readers import (
    ERR_TABLE_EMPTY,
    ERR_TABLE_MISSING,
    ERR_TABLE_NUMERIC,
    ERR_TABLE_TYPE,
    ERR_TABLE_VALUE,
)

REFERENCE = pd.DataFrame(
    {"man": [75, 40, 50], "woman": [25, 60, 50]}, index=["engineer", "nurse", "teacher"]
)
CONCEPTS = ["engineer"] * 10 + ["nurse"] * 10 + ["teacher"] * 4
GROUPS = ["man"] * 9 + ["woman"] + ["man"] * 2 + ["woman"] * 8 + ["man", "woman"] * 2


def independent(concepts, groups, reference: pd.DataFrame) -> tuple[float, pd.DataFrame]:
    """The metric by its definition, one concept at a time with pandas."""
    outputs = pd.crosstab(pd.Series(concepts, name="c"), pd.Series(groups, name="g"))
    rows = []
    for concept, ref_row in reference.iterrows():
        shares = ref_row / ref_row.sum()
        top = shares.max()
        if (shares == top).sum() > 1 or concept not in outputs.index:
            continue
        majority = shares.idxmax()
        out_row = outputs.loc[concept].reindex(reference.columns, fill_value=0)
        out_share = out_row[majority] / out_row.sum()
        rows.append((concept, majority, shares[majority], out_share))
    frame = pd.DataFrame(rows, columns=["concept", "majority", "ref", "out"]).set_index("concept")
    return float((frame["out"] - frame["ref"]).mean()), frame


def test_engineer_arithmetic_of_seshadri_et_al():
    # 25% women in the training captions, 10% in the generated images: the majority (men)
    # goes from 75% to 90%, delta +0.15
    result = biasamp.output_amplification(
        concepts=["engineer"] * 100,
        groups=["woman"] * 10 + ["man"] * 90,
        reference=pd.DataFrame({"woman": [25], "man": [75]}, index=["engineer"]),
    )
    assert isinstance(result, biasamp.OutputAmplificationResult)
    assert result.value == pytest.approx(0.15)
    row = result.by_concept.loc["engineer"]
    assert row["majority_group"] == "man"
    assert (row["reference_share"], row["output_share"]) == (
        pytest.approx(0.75),
        pytest.approx(0.9),
    )
    assert (row["n_reference"], row["n_outputs"]) == (100.0, 100)


def test_hand_worked_two_concepts_and_a_tie_left_out():
    result = biasamp.output_amplification(concepts=CONCEPTS, groups=GROUPS, reference=REFERENCE)
    assert result.value == pytest.approx(((0.9 - 0.75) + (0.8 - 0.6)) / 2)
    assert list(result.by_concept.index) == ["engineer", "nurse"]
    assert result.excluded.to_dict() == {"teacher": REASON_TIE}
    assert result.n == 20 and result.n_concepts == 2
    assert result.by_concept["delta"].tolist() == pytest.approx([0.15, 0.2])


def test_reference_as_shares_gives_the_same_value_as_counts():
    shares = REFERENCE / REFERENCE.to_numpy().sum(axis=1, keepdims=True)
    a = biasamp.output_amplification(concepts=CONCEPTS, groups=GROUPS, reference=REFERENCE)
    b = biasamp.output_amplification(concepts=CONCEPTS, groups=GROUPS, reference=shares)
    assert a.value == pytest.approx(b.value)
    assert b.by_concept["n_reference"].tolist() == pytest.approx([1.0, 1.0])


def test_reference_as_rows_equals_the_table():
    rows = REFERENCE.stack().reset_index()
    rows.columns = ["concept", "group", "count"]
    concepts = np.repeat(rows["concept"], rows["count"])
    groups = np.repeat(rows["group"], rows["count"])
    a = biasamp.output_amplification(concepts=CONCEPTS, groups=GROUPS, reference=REFERENCE)
    b = biasamp.output_amplification(
        concepts=CONCEPTS, groups=GROUPS, reference_concepts=concepts, reference_groups=groups
    )
    assert b.value == pytest.approx(a.value)
    pd.testing.assert_series_equal(a.by_concept["delta"], b.by_concept["delta"])


@pytest.mark.parametrize("seed", range(8))
def test_random_cases_against_an_independent_pandas_computation(seed):
    rng = np.random.default_rng(seed)
    n_concepts, groups = rng.integers(2, 9), ["a", "b", "c"][: rng.integers(2, 4)]
    concept_names = [f"c{i}" for i in range(n_concepts)]
    reference = pd.DataFrame(
        rng.integers(0, 40, size=(n_concepts, len(groups))), index=concept_names, columns=groups
    )
    reference.iloc[0] = 7  # a tie, left out
    n = int(rng.integers(50, 400))
    concepts = rng.choice(concept_names, n)
    outputs = rng.choice(groups, n)
    expected, frame = independent(concepts, outputs, reference)
    if frame.empty:
        return
    result = biasamp.output_amplification(concepts=concepts, groups=outputs, reference=reference)
    assert result.value == pytest.approx(expected, abs=1e-12)
    assert result.by_concept["majority_group"].tolist() == frame["majority"].tolist()
    assert result.by_concept["output_share"].to_numpy() == pytest.approx(frame["out"].to_numpy())


@settings(max_examples=25, deadline=None)
@given(st.randoms(use_true_random=False))
def test_row_order_does_not_matter(random):
    order = list(range(len(CONCEPTS)))
    random.shuffle(order)
    concepts = [CONCEPTS[i] for i in order]
    groups = [GROUPS[i] for i in order]
    shuffled = REFERENCE.sample(frac=1.0, random_state=random.randrange(1000))
    a = biasamp.output_amplification(concepts=CONCEPTS, groups=GROUPS, reference=REFERENCE)
    b = biasamp.output_amplification(concepts=concepts, groups=groups, reference=shuffled)
    assert b.value == pytest.approx(a.value, abs=1e-12)
    pd.testing.assert_frame_equal(b.by_concept.sort_index(), a.by_concept.sort_index())


def test_containers_give_the_same_result():
    polars = pytest.importorskip("polars")
    expected = biasamp.output_amplification(concepts=CONCEPTS, groups=GROUPS, reference=REFERENCE)
    for wrap in (np.asarray, pd.Series, lambda x: pd.Series(x, dtype="category"), polars.Series):
        got = biasamp.output_amplification(
            concepts=wrap(CONCEPTS), groups=wrap(GROUPS), reference=REFERENCE
        )
        assert got.value == expected.value
        pd.testing.assert_frame_equal(got.by_concept, expected.by_concept)


def test_reference_tables_of_other_libraries():
    polars = pytest.importorskip("polars")
    pyarrow = pytest.importorskip("pyarrow")
    expected = biasamp.output_amplification(concepts=CONCEPTS, groups=GROUPS, reference=REFERENCE)
    frame = REFERENCE.rename_axis("concept").reset_index()
    mapping = {c: row.to_dict() for c, row in REFERENCE.iterrows()}
    for table in (polars.from_pandas(frame), pyarrow.Table.from_pandas(frame), mapping):
        got = biasamp.output_amplification(concepts=CONCEPTS, groups=GROUPS, reference=table)
        assert got.value == expected.value
        assert got.by_concept["delta"].tolist() == expected.by_concept["delta"].tolist()


def test_interval_contains_the_point_and_is_reproducible():
    kwargs = {"concepts": CONCEPTS, "groups": GROUPS, "reference": REFERENCE, "n_boot": 300}
    a = biasamp.output_amplification(**kwargs, random_state=3)
    b = biasamp.output_amplification(**kwargs, random_state=3)
    assert a.ci[0] <= a.value <= a.ci[1]
    assert a.ci == b.ci and np.array_equal(a.replicates, b.replicates)
    low, high = a.by_concept["delta_ci_low"], a.by_concept["delta_ci_high"]
    assert ((low <= a.by_concept["delta"]) & (a.by_concept["delta"] <= high)).all()
    assert a.replicates.shape == (300,) and a.ci_level == 0.95


def test_confusion_corrects_the_shares_and_widens_the_interval():
    confusion = np.array([[90, 10], [20, 80]])  # rows: true man, woman
    plain = biasamp.output_amplification(
        concepts=CONCEPTS, groups=GROUPS, reference=REFERENCE, n_boot=400, random_state=0
    )
    fixed = biasamp.output_amplification(
        concepts=CONCEPTS, groups=GROUPS, reference=REFERENCE, attribute_confusion=confusion / 100,
        n_boot=400, random_state=0,
    )  # fmt: skip
    counted = biasamp.output_amplification(
        concepts=CONCEPTS, groups=GROUPS, reference=REFERENCE, attribute_confusion=confusion,
        n_boot=400, random_state=0,
    )  # fmt: skip
    shares = pd.DataFrame([[0.9, 0.1], [0.2, 0.8]], columns=["man", "woman"])
    corrected = biasamp.corrected_shares(shares, pd.DataFrame(
        confusion, index=["man", "woman"], columns=["man", "woman"]))  # fmt: skip
    expected = ((corrected.iloc[0, 0] - 0.75) + (corrected.iloc[1, 1] - 0.6)) / 2
    assert fixed.value == pytest.approx(expected) == pytest.approx(counted.value)
    assert counted.corrected and counted.params["confusion"] == "counts"
    assert fixed.params["confusion"] == "rates"
    assert plain.value != pytest.approx(counted.value)


def test_a_small_validation_set_widens_the_interval():
    # 2,000 outputs but only 20 validation rows per group: the correction's own
    # uncertainty dominates, and the interval from counts is wider than from known rates
    concepts = ["a"] * 1000 + ["b"] * 1000
    groups = ["x"] * 650 + ["y"] * 350 + ["x"] * 350 + ["y"] * 650
    reference = pd.DataFrame({"x": [60, 40], "y": [40, 60]}, index=["a", "b"])
    confusion = np.array([[18, 2], [3, 17]])
    kwargs = {"concepts": concepts, "groups": groups, "reference": reference, "n_boot": 400}
    counted = biasamp.output_amplification(**kwargs, attribute_confusion=confusion, random_state=1)
    fixed = biasamp.output_amplification(
        **kwargs, attribute_confusion=confusion / confusion.sum(axis=1, keepdims=True),
        random_state=1,
    )  # fmt: skip
    assert counted.value == pytest.approx(fixed.value)
    assert counted.se > 1.5 * fixed.se
    assert counted.ci[0] <= counted.value <= counted.ci[1]


def test_group_names_add_a_group_with_no_reference():
    result = biasamp.output_amplification(
        concepts=["a", "a", "a", "b"], groups=["x", "y", "z", "y"],
        reference=pd.DataFrame({"x": [3, 1], "y": [1, 3]}, index=["a", "b"]),
        group_names=["x", "y", "z"],
    )  # fmt: skip
    assert result.groups == ["x", "y", "z"]
    assert result.value == pytest.approx(((1 / 3 - 0.75) + (1 - 0.75)) / 2)


def test_reference_concept_without_outputs_is_named():
    result = biasamp.output_amplification(
        concepts=["a", "a"], groups=["x", "x"],
        reference=pd.DataFrame({"x": [3, 1], "y": [1, 3]}, index=["a", "b"]),
    )  # fmt: skip
    assert result.excluded.to_dict() == {"b": REASON_NO_OUTPUTS}


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"concepts": ["a", None], "groups": ["x", "y"]}, ValueError, "concepts: contains 1 missing"),
        ({"concepts": ["a", "b"], "groups": [1, "1"]}, ValueError, "groups: mixes label types"),
        ({"concepts": ["a", "z"], "groups": ["x", "y"]}, ValueError,
         ERR_CONCEPT_NOT_IN_REFERENCE.split("{")[0]),
        ({"concepts": ["a", "b"], "groups": ["x", "w"]}, ValueError, "groups: the group(s) ['w']"),
        ({"concepts": ["a", "b", "a"], "groups": ["x", "y"]}, ValueError, "Mismatched lengths: concepts has 3 rows"),
    ],
)  # fmt: skip
def test_bad_labels_are_refused_naming_the_argument(kwargs, error, message):
    reference = pd.DataFrame({"x": [3, 1], "y": [1, 3]}, index=["a", "b"])
    with pytest.raises(error) as caught:
        biasamp.output_amplification(**kwargs, reference=reference)
    assert str(caught.value).startswith(message) or message in str(caught.value)


@pytest.mark.parametrize(
    ("reference", "error", "message"),
    [
        (pd.DataFrame({"x": [3, np.nan], "y": [1, 3]}, index=["a", "b"]), ValueError,
         ERR_TABLE_MISSING.format(arg="reference", row="b", column="x")),
        (pd.DataFrame({"x": [3, -1], "y": [1, 3]}, index=["a", "b"]), ValueError,
         ERR_TABLE_VALUE.format(arg="reference", row="b", column="x", value=-1.0)),
        (pd.DataFrame({"x": ["3", "1"], "y": [1, 3]}, index=["a", "b"]), TypeError,
         ERR_TABLE_NUMERIC.format(arg="reference", column="x", dtype="X").split("X")[0]),
        (pd.DataFrame([[3, 1], [1, 3]], index=["a", "b"], columns=[1, "1"]), ValueError,
         "reference columns: the keys 1 (int) and '1' (str)"),
        ([[3, 1], [1, 3]], TypeError, ERR_TABLE_TYPE.format(arg="reference", got="list")),
        (pd.DataFrame(), ValueError, ERR_TABLE_EMPTY.format(arg="reference", rows=0, columns=0)),
    ],
)  # fmt: skip
def test_bad_reference_tables_are_refused(reference, error, message):
    with pytest.raises(error, match="^" + re.escape(message)):
        biasamp.output_amplification(concepts=["a"], groups=["x"], reference=reference)


def test_reference_given_twice_or_never_and_no_concept_left():
    with pytest.raises(ValueError, match="^" + re.escape(ERR_REFERENCE_GIVEN)):
        biasamp.output_amplification(concepts=["a"], groups=["x"])
    with pytest.raises(ValueError, match="^" + re.escape(ERR_NO_CONCEPT.split("{")[0])):
        biasamp.output_amplification(
            concepts=["a"], groups=["x"], reference=pd.DataFrame({"x": [1], "y": [1]}, index=["a"])
        )
    with pytest.raises(ValueError, match=re.escape(ERR_GROUP_NOT_IN_REFERENCE.split("{")[0])):
        biasamp.output_amplification(
            concepts=["a"], groups=["z"], reference=pd.DataFrame({"x": [2], "y": [1]}, index=["a"])
        )


def test_n_boot_knobs_are_checked_before_allocating():
    for bad in (-1, 0, 2.5, True):
        with pytest.raises(ValueError, match=r"^n_boot: expected an integer >= 1"):
            biasamp.output_amplification(
                concepts=CONCEPTS, groups=GROUPS, reference=REFERENCE, n_boot=bad
            )
    with pytest.raises(ValueError, match="n_boot=10000000000000 bootstrap replicates"):
        biasamp.output_amplification(
            concepts=CONCEPTS, groups=GROUPS, reference=REFERENCE, n_boot=10**13
        )
    with pytest.raises(ValueError, match="ci"):
        biasamp.output_amplification(concepts=CONCEPTS, groups=GROUPS, reference=REFERENCE, ci=1.5)


def test_save_load_and_compare(tmp_path):
    result = biasamp.output_amplification(
        concepts=CONCEPTS, groups=GROUPS, reference=REFERENCE, n_boot=50, random_state=0
    )
    assert biasamp.load_result(result.save(tmp_path / "r.json")) == result
    table = biasamp.compare({"sd-1.4": result})
    assert table["metric"].tolist() == ["output-amplification"]
    assert table["value"].iloc[0] == pytest.approx(result.value)
