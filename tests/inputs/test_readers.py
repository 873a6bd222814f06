"""The boundary readers (biasamp.inputs._readers): one reader per input kind, one knob check.

Each reader's rules, and the defects a fuzz pass found in metrics that read their own way
(each now reads through these readers): variants of each finding, never the same case.
"""

from __future__ import annotations

import re
import time
import warnings

import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from biasamp import calibration_error, dbac, distribution_counts, lic, retrieval_bias
from biasamp._memory import MEMORY_ERROR
from biasamp.inputs._containers import ERR_MISSING_LABEL, ERR_MIXED_TYPES
from biasamp.inputs._keys import ERR_KEY_TWICE
from biasamp.inputs._readers import (
    ERR_KNOB,
    ERR_LABELS_NDIM,
    ERR_POSTERIOR_RANGE,
    ERR_ROW_OFFSET,
    ERR_SCORES_INF,
    ERR_SCORES_NAN,
    check_knob,
    check_knobs,
    read_captions,
    read_label_matrix,
    read_labels,
    read_posteriors,
    read_row_offset,
    read_scores,
    read_weights,
)

GROUPS6 = ["a", "a", "a", "b", "b", "b"]
SCORES = np.array([[6, 5, 4, 3, 2, 1], [6, 1, 2, 5, 3, 4.0]])


# ------------------------------------------------------------------ labels
@pytest.mark.parametrize(
    "container",
    [
        list,
        lambda x: np.array(x, dtype=object),  # (a str array would hold the text "nan")
        pd.Series,
        lambda x: pl.Series(x, dtype=pl.Object),
        pa.array,
    ],
    ids=["list", "numpy", "pandas", "polars", "pyarrow"],
)
@pytest.mark.parametrize("missing", [None, np.nan, pd.NA, pd.NaT], ids=["None", "NaN", "NA", "NaT"])
def test_a_missing_label_is_refused_naming_argument_and_row(container, missing):
    values = ["w", "m", "w", "m"]
    values[2] = missing
    try:
        given = container(values)
    except (TypeError, ValueError, pa.ArrowInvalid, pa.ArrowTypeError):
        pytest.skip("the container cannot hold this missing value")
    with pytest.raises(ValueError, match=r"^groups: contains 1 missing value.*row 2\b"):
        read_labels(given, arg="groups")


@pytest.mark.parametrize(
    ("labels", "row"),
    [([2, "2", 3], 1), (["x", 7], 1), ([False, 0, 1], 1), ([0, True], 1), ([1.0, True], 1)],
)
def test_labels_that_print_alike_or_mix_types_are_refused(labels, row):
    with pytest.raises(ValueError, match=r"^groups: mixes label types") as info:
        read_labels(labels, arg="groups")
    assert f"at row {row}" in str(info.value) or "row" in str(info.value)


def test_labels_read_as_codes_of_their_sorted_names():
    read = read_labels(pd.Categorical(["w", "m", "w"], categories=["x", "m", "w"]), arg="groups")
    assert read.names == ("m", "w") and read.codes.tolist() == [1, 0, 1] and len(read) == 3
    listed = read_labels(["w", "m"], arg="groups", names=["w", "m", "x"])
    assert listed.names == ("w", "m", "x") and listed.codes.tolist() == [0, 1]


@pytest.mark.parametrize(
    "names", [["a", "b", "a"], [1, "1"], [True, "True"]], ids=["repeated", "1-'1'", "True"]
)
def test_names_that_repeat_or_print_alike_are_refused_naming_the_names_argument(names):
    with pytest.raises(ValueError, match=r"^group_names: the key"):
        read_labels(["a", "b"], arg="groups", names=names)


def test_a_matrix_is_not_one_label_per_row():
    with pytest.raises(ValueError, match=re.escape(ERR_LABELS_NDIM.format(arg="g", shape=(2, 2)))):
        read_labels(np.eye(2), arg="g")
    assert read_label_matrix(np.eye(2), arg="tasks").n_labels == 2


# ------------------------------------------------------------------ scores
def test_scores_keep_a_frames_index_and_columns_and_refuse_repeated_columns():
    frame = pd.DataFrame(SCORES, index=["q1", "q2"], columns=list("uvwxyz"))
    read = read_scores(frame)
    assert list(read.rows) == ["q1", "q2"] and list(read.columns) == list("uvwxyz")
    frame.columns = list("uvwxyu")
    with pytest.raises(
        ValueError, match=re.escape(ERR_KEY_TWICE.format(arg="scores (its columns)", key="u"))
    ):
        read_scores(frame)
    frame.columns = [1, "1", 2, 3, 4, 5]
    with pytest.raises(ValueError, match="print alike"):
        read_scores(frame)


def test_missing_and_infinite_scores_name_the_row_and_column():
    bad = SCORES.copy()
    bad[1, 4] = np.nan
    with pytest.raises(
        ValueError, match=re.escape(ERR_SCORES_NAN.format(arg="scores", row=1, name=1, column=4))
    ):
        read_scores(bad)
    bad[1, 4] = -np.inf
    with pytest.raises(
        ValueError, match=re.escape(ERR_SCORES_INF.format(arg="scores", row=1, name=1, column=4))
    ):
        read_scores(bad)
    assert read_scores(bad, allow_inf=True).values is bad  # read as it is, not copied
    with pytest.raises(ValueError, match=r"^scores: row 0 \(0\) has a missing"):
        read_scores([[1.0, None], [2.0, 3.0]])
    with pytest.raises(TypeError, match="^scores: expected numbers"):
        read_scores(np.array([["a", "b"]]))


# ------------------------------------------------------------------ posteriors
def test_posteriors_refuse_missing_values_by_row_and_values_outside_the_unit_interval():
    with pytest.raises(
        ValueError, match=re.escape(ERR_MISSING_LABEL.format(arg="p", count=1, row=1))
    ):
        read_posteriors([0.2, None, 0.5], arg="p", ndim=1)
    with pytest.raises(
        ValueError,
        match=re.escape(
            ERR_POSTERIOR_RANGE.format(arg="p", row=0, got=1.5, where=" at (task 'b')")
        ),
    ):
        read_posteriors([[0.5, 1.5]], arg="p", ndim=2, axes=(["a", "b"],), axis_labels=("task",))
    np.testing.assert_array_equal(read_posteriors(np.eye(2), arg="p", ndim=(1, 2)), np.eye(2))


# ------------------------------------------------------------------ captions, weights, offsets
def test_captions_refuse_a_missing_row_by_position():
    for missing in (None, np.nan, pd.NA):
        with pytest.raises(ValueError, match=r"^captions: row 1 is"):
            read_captions(["a cat", missing], arg="captions")
    flat, row, _ = read_captions([["a", "b"], "c"], arg="captions")
    assert flat == ["a", "b", "c"] and row.tolist() == [0, 0, 1]


@pytest.mark.parametrize(
    "weights",
    [[1.0, None, 2.0], pd.Series([1.0, pd.NA, 2.0], dtype="Float64"), pl.Series([1.0, None, 2.0]),
     pa.array([1.0, None, 2.0]), np.array([1.0, pd.NaT, 2.0], dtype=object)],
    ids=["list", "pandas", "polars", "pyarrow", "NaT"],
)  # fmt: skip
def test_a_missing_weight_is_refused_by_row_in_any_container(weights):
    with pytest.raises(ValueError, match=r"^sample_weight: contains 1 missing value.*row 1\b"):
        read_weights(weights, 3)


def test_weights_name_what_they_weigh_on_a_wrong_length():
    with pytest.raises(ValueError, match=r"One weight per row of joint_proba\."):
        read_weights([1.0, 2.0], 3, of="joint_proba")
    np.testing.assert_array_equal(read_weights(None, 2), np.ones(2))


@pytest.mark.parametrize("bad", [-1, 1.0, True, "0", None])
def test_a_row_offset_is_a_non_negative_integer(bad):
    with pytest.raises(
        ValueError, match=re.escape(ERR_ROW_OFFSET.format(arg="row_offset", got=bad))
    ):
        read_row_offset(bad)
    assert read_row_offset(np.int64(7)) == 7


# ------------------------------------------------------------------ knobs
@pytest.mark.parametrize("bad", [0, -3, 2.5, "7", True, None, float("nan")])
def test_a_knob_of_the_wrong_type_or_range_is_refused_naming_it(bad):
    with pytest.raises(
        ValueError,
        match=re.escape(ERR_KNOB.format(knob="n_iter", expected="an integer >= 1", got=bad)),
    ):
        check_knob("n_iter", bad)
    assert check_knob("n_iter", None, optional=True) is None


def test_an_absurd_knob_is_refused_at_once_with_its_memory_estimate():
    start = time.perf_counter()
    with pytest.raises(
        ValueError,
        match=r"^n_boot=10\*\*18|^n_boot=1000000000000000000 replicates would need about",
    ) as info:
        check_knob("n_boot", 10**18, bytes_each=8, what="replicates")
    assert time.perf_counter() - start < 0.5
    assert "use a smaller n_boot." in str(info.value)
    assert MEMORY_ERROR.split("{")[0] == ""  # the message is the memory check's
    assert check_knobs({"n_boot": 10, "k": 3}, sizes={"n_boot": {"bytes_each": 8}}) == {
        "n_boot": 10,
        "k": 3,
    }
    with pytest.raises(ValueError, match="^name: expected one of"):
        check_knob("n_boots", 3)


# ------------------------------------------------------------------ the fuzz findings, fixed
def test_retrieval_refuses_a_missing_group_in_a_list_of_strings():
    # NaN among strings was read as a group named "nan"
    with pytest.raises(ValueError, match=r"^groups: contains 1 missing value.*row 2\b"):
        retrieval_bias(scores=SCORES, groups=["b", "a", float("nan"), "b", "a", "b"], k=3)


@pytest.mark.parametrize(
    "groups", [[2, 2, "2", "2", 5, 5], [False, 0, False, 0, 1, 1], [0, 0, 1, 1, True, True]]
)
def test_retrieval_refuses_groups_that_print_alike(groups):
    # 1 and "1" (or True and 1) were merged into one group or written twice as count_1
    with pytest.raises(ValueError, match=r"^groups: mixes label types"):
        retrieval_bias(scores=SCORES, groups=groups, k=2)


def test_retrieval_refuses_a_repeated_group_name_and_repeated_item_columns():
    # a repeated name in group_names acted as a phantom group (MaxSkew ln 3 instead of ln 2)
    with pytest.raises(ValueError, match=r"^group_names: the key 'b' appears more than once"):
        retrieval_bias(
            scores=SCORES, groups=GROUPS6, k=2, group_names=["b", "a", "b"], reference="uniform"
        )
    # a frame whose item columns repeat dropped a group and returned 0.0
    frame = pd.DataFrame(SCORES, columns=["x", "y", "z", "x", "v", "w"])
    groups = pd.Series(GROUPS6, index=["x", "y", "z", "u", "v", "w"])
    with pytest.raises(ValueError, match=r"^scores \(its columns\): the key 'x' appears more"):
        retrieval_bias(scores=frame, groups=groups, k=2)
    # the same frame with distinct columns gives the value of its numpy matrix
    frame.columns = groups.index
    assert retrieval_bias(scores=frame, groups=groups, k=2).value == pytest.approx(
        retrieval_bias(scores=SCORES, groups=GROUPS6, k=2).value
    )


def test_retrieval_uniform_reference_with_listed_names_is_ln_of_the_group_count():
    # k=2, two women in the top 2 of the first query, groups a/b uniform: ln(1 / 0.5)
    result = retrieval_bias(
        scores=SCORES[:1], groups=GROUPS6, k=2, group_names=["a", "b"], reference="uniform"
    )
    assert result.value == pytest.approx(np.log(2))


def test_distribution_counts_refuses_overlapping_row_ranges_on_merge():
    proba = np.full((8, 1, 2), 0.5)
    names = {"task_names": ["cook"], "group_names": ["m", "w"]}
    first = distribution_counts(proba, **names)  # rows 0 .. 7
    with pytest.raises(ValueError, match=r"stream positions 6, 7 would be counted twice"):
        _ = first + distribution_counts(proba[:4], row_offset=6, **names)
    with pytest.raises(ValueError, match=r"stream positions 2 would be counted twice"):
        _ = distribution_counts(proba[:3], row_offset=0, **names) + distribution_counts(
            proba[:3], row_offset=2, **names
        )
    # adjacent ranges add up, in any order
    parts = [distribution_counts(proba[i : i + 4], row_offset=i, **names) for i in (4, 0)]
    assert float((parts[0] + parts[1]).n) == 8.0 == float((parts[1] + parts[0]).n)


def _captions(n: int) -> tuple[list[str], list[str]]:
    rng = np.random.default_rng(1)
    places = np.array(["kitchen", "park", "street"])
    return (
        [f"a person in a {p}" for p in rng.choice(places, n)],
        [f"a person in the {p}" for p in rng.choice(places, n)],
    )


@pytest.mark.parametrize("function", ["lic", "dbac"])
@pytest.mark.parametrize("groups", [[3, "3"] * 10 + [4] * 20, [True, 1] * 10 + [0] * 20])
def test_caption_metrics_refuse_groups_that_print_alike(function, groups):
    human, model = _captions(len(groups))
    kwargs = {"captions_human": human, "captions_model": model, "groups": groups, "n_iter": 1}
    if function == "dbac":
        kwargs["direction"] = "A->T"
    with pytest.raises(ValueError, match=r"^groups: mixes label types"):
        {"lic": lic, "dbac": dbac}[function](**kwargs)


@pytest.mark.parametrize(
    ("call", "knob"),
    [
        (lambda: retrieval_bias(scores=SCORES, groups=GROUPS6, k=2, n_boot=3 * 10**9), "n_boot"),
        (
            lambda: dbac(
                direction="T->A",
                captions_human=["a"] * 4,
                captions_model=["b"] * 4,
                groups=["m", "w"] * 2,
                n_iter=5 * 10**9,
            ),
            "n_iter",
        ),  # fmt: skip
        (
            lambda: lic(
                captions_human=["a"] * 4,
                captions_model=["b"] * 4,
                groups=["m", "w"] * 2,
                n_iter=5 * 10**9,
            ),
            "n_iter",
        ),  # fmt: skip
        (
            lambda: distribution_counts(
                np.full((2, 1, 2), 0.5), task_names=["t"], group_names=["m", "w"], n_boot=10**12
            ),
            "n_boot",
        ),  # fmt: skip
    ],
    ids=["retrieval_bias", "dbac", "lic", "distribution_counts"],
)
def test_an_absurd_knob_is_refused_in_well_under_a_second(call, knob):
    start = time.perf_counter()
    with pytest.raises(ValueError, match=rf"^{knob}=\d+ .* would need about .* of memory"):
        call()
    assert time.perf_counter() - start < 1.0


def test_calibration_error_refuses_none_naming_the_argument_and_bins_quickly():
    with pytest.raises(ValueError, match=r"^y_true: contains 1 missing value.*row 0\b"):
        calibration_error([None, 1, 0], [0.5, 0.2, 0.1])
    with pytest.raises(ValueError, match=r"^y_prob: contains 1 missing value.*row 2\b"):
        calibration_error([1, 1, 0], [0.5, 0.2, None])
    rng = np.random.default_rng(5)
    y, p = rng.integers(0, 2, 20_000), rng.random(20_000)
    start = time.perf_counter()
    calibration_error(y, p, n_bins=80_000)
    assert time.perf_counter() - start < 2.0


def test_mixed_label_messages_are_the_containers_one_rule():
    assert ERR_MIXED_TYPES.startswith("{arg}: mixes label types")


@settings(max_examples=30, deadline=None)
@given(
    values=st.lists(st.sampled_from(["m", "w", "x", "nb"]), min_size=1, max_size=30),
    container=st.sampled_from(["list", "numpy", "pandas", "polars", "pyarrow", "categorical"]),
)
def test_labels_read_from_any_container_are_their_sorted_names_and_codes(values, container):
    given_values = {
        "list": lambda v: v,
        "numpy": np.array,
        "pandas": pd.Series,
        "polars": pl.Series,
        "pyarrow": pa.array,
        "categorical": lambda v: pd.Categorical(v, categories=["zz", *sorted(set(v))]),
    }[container](values)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # one group only: legal, and said so
        read = read_labels(given_values, arg="groups")
    assert read.names == tuple(sorted(set(values)))
    assert [read.names[c] for c in read.codes] == values


# ------------------------------------------------------------------ count tables
TABLE = pd.DataFrame({"f": [150, 40, 7], "m": [50, 60, 93]}, index=["nurse", "judge", "pilot"])


def _table_forms() -> dict[str, object]:
    frame = TABLE.rename_axis("concept").reset_index()
    return {
        "pandas": TABLE,
        "mapping": {c: row.to_dict() for c, row in TABLE.iterrows()},
        "polars": pl.from_pandas(frame),
        "pyarrow": pa.Table.from_pandas(frame, preserve_index=False),
        "pyarrow_index": pa.Table.from_pandas(TABLE),
    }


@pytest.mark.parametrize("form", list(_table_forms()))
def test_count_tables_from_every_container_are_the_pandas_one(form):
    from biasamp.inputs._readers import read_count_table

    read = read_count_table(_table_forms()[form], arg="reference")
    assert read.row_keys == ("nurse", "judge", "pilot") and read.column_keys == ("f", "m")
    np.testing.assert_array_equal(read.values, TABLE.to_numpy(dtype=float))
    assert read.labelled and read.is_counts


def _missing(value: object) -> str:
    from biasamp.inputs._readers import ERR_TABLE_MISSING, ERR_TABLE_VALUE

    if value is None:
        return ERR_TABLE_MISSING.format(arg="outputs", row="judge", column="f")
    return ERR_TABLE_VALUE.format(arg="outputs", row="judge", column="f", value=value)


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda t: t.astype(float).mask(t == 40), _missing(None)),
        (lambda t: t.astype("Int64").mask(t == 40), _missing(None)),
        (lambda t: t.astype(object).mask(t == 40, pd.NaT), _missing(None)),
        (lambda t: {c: {**r.to_dict(), "f": None if c == "judge" else r["f"]}
                    for c, r in t.iterrows()}, _missing(None)),
        (lambda t: pl.from_pandas(t.astype(float).mask(t == 40).rename_axis("c").reset_index()),
         _missing(None)),
        (lambda t: pa.Table.from_pandas(t.astype(float).mask(t == 40)), _missing(None)),
        (lambda t: t.mask(t == 40, -2), _missing(-2.0)),
        (lambda t: t.astype(float).mask(t == 40, np.inf), _missing(np.inf)),
    ],
)  # fmt: skip
def test_a_bad_cell_is_refused_naming_the_argument_concept_and_group(make, message):
    from biasamp.inputs._readers import read_count_table

    with pytest.raises(ValueError, match="^" + re.escape(message) + "$"):
        read_count_table(make(TABLE), arg="outputs")


def test_count_table_names_types_and_shapes():
    from biasamp.inputs._readers import (
        ERR_TABLE_EMPTY,
        ERR_TABLE_NDIM,
        ERR_TABLE_NUMERIC,
        ERR_TABLE_TYPE,
        read_count_table,
    )

    with pytest.raises(
        ValueError, match=re.escape(ERR_KEY_TWICE.format(arg="t index", key="nurse"))
    ):
        read_count_table(TABLE.set_axis(["nurse", "judge", "nurse"]), arg="t")
    with pytest.raises(ValueError, match=r"^t columns: the keys 1 \(int\) and '1' \(str\)"):
        read_count_table(TABLE.set_axis([1, "1"], axis=1), arg="t")
    with pytest.raises(ValueError, match=r"^t index: the keys 2 \(int\) and '2' \(str\)"):
        read_count_table({2: {"f": 1}, "2": {"f": 3}}, arg="t")
    text_dtype = str(TABLE.astype({"m": str})["m"].dtype)  # object, or str on pandas 3
    with pytest.raises(
        TypeError, match=re.escape(ERR_TABLE_NUMERIC.format(arg="t", column="m", dtype=text_dtype))
    ):
        read_count_table(TABLE.astype({"m": str}), arg="t")
    with pytest.raises(TypeError, match="^t: column 'f' holds bool"):
        read_count_table(TABLE > 50, arg="t")
    for bad in ([[1, 2], [3, 4]], "counts.csv", {"nurse": 3}):
        with pytest.raises(TypeError, match="^t: expected a pandas DataFrame"):
            read_count_table(bad, arg="t")
    for empty, shape in ((TABLE.iloc[:0], (0, 2)), ({}, (0, 0)), (TABLE.iloc[:, :0], (3, 0))):
        with pytest.raises(ValueError, match=re.escape(ERR_TABLE_EMPTY.format(
                arg="t", rows=shape[0], columns=shape[1]))):  # fmt: skip
            read_count_table(empty, arg="t")
    # a bare array only where the caller reads it in a known order (a confusion table)
    read = read_count_table([[9, 1], [2, 8]], arg="confusion", arrays=True)
    assert not read.labelled and read.values.tolist() == [[9, 1], [2, 8]]
    with pytest.raises(ValueError, match=re.escape(ERR_TABLE_NDIM.format(arg="c", shape=(2,)))):
        read_count_table([9, 1], arg="c", arrays=True)
    with pytest.raises(ValueError, match="^c: row 1, column 0 is missing"):
        read_count_table([[9, 1], [None, 8]], arg="c", arrays=True)
    assert ERR_TABLE_TYPE.format(arg="t", got="list").startswith("t: expected")


@settings(max_examples=30, deadline=None)
@given(st.permutations(range(3)), st.booleans())
def test_count_table_rows_and_columns_in_any_order_read_the_same_cells(order, flip):
    from biasamp.inputs._readers import read_count_table

    moved = TABLE.iloc[list(order), ::-1] if flip else TABLE.iloc[list(order)]
    read = read_count_table(moved, arg="t")
    for i, concept in enumerate(read.row_keys):
        for j, group in enumerate(read.column_keys):
            assert read.values[i, j] == TABLE.loc[concept, group]
