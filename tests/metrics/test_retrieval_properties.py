"""retrieval_bias on the project's standard properties: every container of scores and of
groups gives the numpy value; permuting items (score columns with their groups) changes
nothing when scores are distinct; permuting queries permutes ``by_query``; ``rankings=``
equals ``scores=``; missing scores are refused naming ``scores``."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from biasamp import retrieval_bias
from biasamp.inputs._containers import ERR_MISSING_VALUE
from biasamp.metrics._retrieval import ERR_SCORES_DTYPE, ERR_SCORES_NAN

pl = pytest.importorskip("polars")
torch = pytest.importorskip("torch")

RNG = np.random.default_rng(11)
N_QUERIES, N_ITEMS, K = 7, 12, 5
# distinct scores that float32 holds exactly (multiples of 1/64 below 2**10)
SCORES = np.stack([RNG.permutation(N_ITEMS) for _ in range(N_QUERIES)]) / 64.0 + 0.5
GROUPS = RNG.choice(np.array(["m", "w", "x"]), N_ITEMS)
CODES = {"m": 0, "w": 1, "x": 2}


def _values(result: Any) -> dict[str, Any]:
    frame = result.by_query
    counts = frame[[c for c in frame.columns if c.startswith("count_")]].to_numpy()
    return {
        "value": result.value,
        "mean_ndkl": result.mean_ndkl,
        "mean_min_skew": result.mean_min_skew,
        "max_skew": frame["max_skew"].to_numpy(),
        "min_skew": frame["min_skew"].to_numpy(),
        "ndkl": frame["ndkl"].to_numpy(),
        "counts": counts,
        "pool": result.pool_shares.to_numpy(),
    }


def _assert_same(got: dict[str, Any], expected: dict[str, Any]) -> None:
    for name, value in expected.items():
        np.testing.assert_array_equal(np.asarray(got[name]), np.asarray(value), err_msg=name)


@pytest.fixture(scope="module")
def reference() -> dict[str, Any]:
    out = _values(retrieval_bias(scores=SCORES, groups=GROUPS, k=K))
    assert np.isfinite(out["value"]) and out["value"] > 0 and out["mean_ndkl"] > 0
    return out


def _memmap(x: np.ndarray, path: Any) -> np.memmap:
    mm = np.memmap(path / "scores.f64", dtype=np.float64, mode="w+", shape=x.shape)
    mm[:] = x
    mm.flush()
    return np.memmap(path / "scores.f64", dtype=np.float64, mode="r", shape=x.shape)


SCORE_CONTAINERS: dict[str, Callable[[np.ndarray], Any]] = {
    "numpy_float64": lambda x: x,
    "numpy_float32": lambda x: x.astype(np.float32),
    "numpy_float16": lambda x: x.astype(np.float16),
    "numpy_fortran": np.asfortranarray,
    "numpy_reversed_view": lambda x: x[:, ::-1].copy()[:, ::-1],
    "list_of_lists": lambda x: x.tolist(),
    "pandas_frame": lambda x: pd.DataFrame(x),
    "pandas_frame_query_index": lambda x: pd.DataFrame(x, index=[f"q{i}" for i in range(len(x))]),
    "pandas_nullable_float": lambda x: pd.DataFrame(x).astype("Float64"),
    "pandas_arrow_double": lambda x: pd.DataFrame(x).astype("double[pyarrow]"),
    "pandas_nullable_int": lambda x: pd.DataFrame((x * 64).astype(np.int64)).astype("Int64"),
    "pandas_arrow_int": lambda x: pd.DataFrame((x * 64).astype(np.int64)).astype("int64[pyarrow]"),
    "polars_frame": lambda x: pl.DataFrame(x),
    "polars_float32_frame": lambda x: pl.DataFrame(x.astype(np.float32)),
    "torch_float64": lambda x: torch.tensor(x),
    "torch_float32": lambda x: torch.tensor(x, dtype=torch.float32),
    "torch_requires_grad": lambda x: torch.tensor(x, requires_grad=True),
    "pyarrow_table": lambda x: pa.table({f"item_{j}": x[:, j] for j in range(x.shape[1])}),
    "torch_bfloat16": lambda x: torch.tensor((x * 64 - 32) / 8, dtype=torch.bfloat16),
    "torch_int": lambda x: torch.tensor((x * 64).astype(np.int64)),
    "numpy_int64": lambda x: (x * 64).astype(np.int64),
    "numpy_uint8": lambda x: (x * 64).astype(np.uint8),
}


@pytest.mark.parametrize("container", list(SCORE_CONTAINERS))
def test_scores_in_every_container(container, reference):
    got = retrieval_bias(scores=SCORE_CONTAINERS[container](SCORES), groups=GROUPS, k=K)
    _assert_same(_values(got), reference)


def test_scores_as_memmap_read_in_blocks(reference, tmp_path):
    got = retrieval_bias(scores=_memmap(SCORES, tmp_path), groups=GROUPS, k=K, block_size=2)
    _assert_same(_values(got), reference)


def test_frame_index_names_the_queries():
    index = [f"q{i}" for i in range(N_QUERIES)]
    got = retrieval_bias(scores=pd.DataFrame(SCORES, index=index), groups=GROUPS, k=K)
    assert got.by_query.index.tolist() == index
    got = retrieval_bias(scores=pl.DataFrame(SCORES), groups=GROUPS, k=K)
    assert got.by_query.index.tolist() == list(range(N_QUERIES))


def _codes(x: np.ndarray) -> np.ndarray:
    return np.array([CODES[v] for v in x], dtype=np.int64)


def _categorical(x: np.ndarray) -> pd.Categorical:
    return pd.Categorical(x, categories=["_unused_first", *sorted(set(x)), "zz_unused"])


GROUP_CONTAINERS: dict[str, Callable[[np.ndarray], Any]] = {
    "numpy_str": lambda x: x,
    "numpy_object": lambda x: x.astype(object),
    "list": lambda x: x.tolist(),
    "tuple": lambda x: tuple(x.tolist()),
    "pandas_series": pd.Series,
    "pandas_string_pyarrow": lambda x: pd.Series(x, dtype="string[pyarrow]"),
    "pandas_string_python": lambda x: pd.Series(x, dtype="string[python]"),
    "pandas_categorical": _categorical,
    "pandas_categorical_series": lambda x: pd.Series(_categorical(x)),
    "pandas_index": pd.Index,
    "pandas_nullable_int": lambda x: pd.Series(_codes(x), dtype="Int64"),
    "pandas_arrow_int": lambda x: pd.Series(_codes(x), dtype="int64[pyarrow]"),
    "polars_series": lambda x: pl.Series(x.tolist()),
    "polars_categorical": lambda x: pl.Series(x.tolist(), dtype=pl.Categorical),
    "polars_enum": lambda x: pl.Series(x.tolist(), dtype=pl.Enum(["_u", "m", "w", "x", "zz"])),
    "pyarrow_array": lambda x: pa.array(x.tolist()),
    "pyarrow_chunked": lambda x: pa.chunked_array([x[:5].tolist(), x[5:].tolist()]),
    "pyarrow_dictionary": lambda x: pa.array(x.tolist()).dictionary_encode(),
    "torch_int": lambda x: torch.tensor(_codes(x)),
    "numpy_int": _codes,
}


@pytest.mark.parametrize("container", list(GROUP_CONTAINERS))
def test_groups_in_every_container(container, reference):
    got = retrieval_bias(scores=SCORES, groups=GROUP_CONTAINERS[container](GROUPS), k=K)
    _assert_same(_values(got), reference)  # counts in the groups' sorted order


@st.composite
def retrieval_data(draw: Any) -> tuple[np.ndarray, np.ndarray, int]:
    n_items = draw(st.integers(2, 9))
    n_queries = draw(st.integers(1, 5))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    # distinct scores in every row (no tie rule involved)
    scores = np.stack([rng.permutation(n_items) for _ in range(n_queries)]).astype(float)
    scores = scores + rng.random((n_queries, 1))
    groups = rng.choice(np.array(["a", "b", "c"]), n_items)
    k = draw(st.integers(1, n_items))
    return scores, groups, k


@settings(max_examples=40, deadline=None)
@given(data=retrieval_data(), seed=st.integers(0, 2**32 - 1))
def test_permuting_items_changes_nothing(data, seed):
    scores, groups, k = data
    expected = _values(retrieval_bias(scores=scores, groups=groups, k=k))
    perm = np.random.default_rng(seed).permutation(scores.shape[1])
    got = _values(retrieval_bias(scores=scores[:, perm], groups=groups[perm], k=k))
    for name, value in expected.items():
        np.testing.assert_allclose(got[name], value, rtol=0, atol=1e-12, err_msg=name)


@settings(max_examples=40, deadline=None)
@given(data=retrieval_data(), seed=st.integers(0, 2**32 - 1))
def test_permuting_queries_permutes_by_query(data, seed):
    scores, groups, k = data
    names = [f"q{i}" for i in range(len(scores))]
    expected = retrieval_bias(scores=scores, groups=groups, k=k, query_names=names)
    perm = np.random.default_rng(seed).permutation(len(scores))
    got = retrieval_bias(
        scores=scores[perm], groups=groups, k=k, query_names=[names[i] for i in perm]
    )
    pd.testing.assert_frame_equal(got.by_query, expected.by_query.iloc[perm])
    assert got.value == pytest.approx(expected.value, abs=1e-12)
    assert got.mean_ndkl == pytest.approx(expected.mean_ndkl, abs=1e-12)


@settings(max_examples=40, deadline=None)
@given(data=retrieval_data(), ties=st.booleans())
def test_rankings_equal_scores_for_the_stable_descending_argsort(data, ties):
    scores, groups, k = data
    if ties:  # the tie rule: equal scores rank by item index, lowest first
        scores = np.floor(scores / 3.0)
    rankings = np.argsort(-scores, axis=1, kind="stable")
    by_scores = retrieval_bias(scores=scores, groups=groups, k=k)
    by_rankings = retrieval_bias(rankings=rankings, groups=groups, k=k)
    pd.testing.assert_frame_equal(by_scores.by_query, by_rankings.by_query)
    # only the first k ranks are read
    assert retrieval_bias(rankings=rankings[:, :k], groups=groups, k=k).value == by_scores.value


def test_integer_scores_above_float_precision_keep_their_order():
    # 2**53 + 1 is not a float64: a float cast would tie the two items and rank item 0 first
    scores = np.array([[2**53, 2**53 + 1, 0]], dtype=np.int64)
    by_scores = retrieval_bias(scores=scores, groups=["a", "b", "a"], k=2)
    by_rankings = retrieval_bias(rankings=[[1, 0, 2]], groups=["a", "b", "a"], k=2)
    pd.testing.assert_frame_equal(by_scores.by_query, by_rankings.by_query)


MISSING: dict[str, Callable[[np.ndarray], Any]] = {
    "numpy": lambda x: x,
    "numpy_float32": lambda x: x.astype(np.float32),
    "pandas_frame": pd.DataFrame,
    "pandas_nullable_float": lambda x: pd.DataFrame(x).astype("Float64"),
    "pandas_arrow_double": lambda x: pd.DataFrame(x).astype("double[pyarrow]"),
    "polars_frame": pl.DataFrame,
    "torch": torch.tensor,
    "list_of_lists": lambda x: x.tolist(),
}


@pytest.mark.parametrize("container", list(MISSING))
def test_missing_scores_are_refused_naming_scores(container):
    scores = SCORES.copy()
    scores[3, 4] = np.nan
    message = ERR_SCORES_NAN.format(arg="scores", row=3, name=3, column=4)
    if container == "polars_frame":  # a polars null: the containers' one missing-value rule
        message = ERR_MISSING_VALUE.format(arg="scores", count=1, row=3, column="column_4")
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        retrieval_bias(scores=MISSING[container](scores), groups=GROUPS, k=K)


def test_pandas_missing_value_in_a_nullable_frame_is_a_nan_score():
    frame = pd.DataFrame(SCORES).astype("Float64")
    frame.iloc[2, 0] = pd.NA
    with pytest.raises(
        ValueError, match=re.escape(ERR_SCORES_NAN.format(arg="scores", row=2, name=2, column=0))
    ):
        retrieval_bias(scores=frame, groups=GROUPS, k=K)
    frame = pd.DataFrame((SCORES * 64).astype(np.int64)).astype("Int64")
    frame.iloc[2, 0] = pd.NA
    with pytest.raises(
        ValueError, match=re.escape(ERR_SCORES_NAN.format(arg="scores", row=2, name=2, column=0))
    ):
        retrieval_bias(scores=frame, groups=GROUPS, k=K)


def test_text_scores_are_refused_naming_scores():
    frame = pd.DataFrame(SCORES.astype(str))
    with pytest.raises(TypeError, match="^scores: expected numbers"):
        retrieval_bias(scores=frame, groups=GROUPS, k=K)
    assert ERR_SCORES_DTYPE.format(arg="scores", dtype="object").startswith("scores:")


def test_missing_score_in_a_later_block_of_a_memmap_names_its_query(tmp_path):
    scores = SCORES.copy()
    scores[5, 1] = np.nan
    message = re.escape(ERR_SCORES_NAN.format(arg="scores", row=5, name="q5", column=1))
    with pytest.raises(ValueError, match=f"^{message}$"):
        retrieval_bias(
            scores=_memmap(scores, tmp_path), groups=GROUPS, k=K, block_size=2,
            query_names=[f"q{i}" for i in range(N_QUERIES)],
        )  # fmt: skip


@settings(max_examples=25, deadline=None)
@given(data=retrieval_data(), seed=st.integers(0, 2**32 - 1))
def test_frame_columns_in_any_order_match_groups_by_item_label(data, seed):
    scores, groups, k = data
    items = [f"item_{j}" for j in range(scores.shape[1])]
    frame = pd.DataFrame(scores, columns=items)
    by_label = pd.Series(groups, index=items)
    expected = _values(retrieval_bias(scores=frame, groups=by_label, k=k))
    perm = np.random.default_rng(seed).permutation(len(items))
    got = _values(retrieval_bias(scores=frame.iloc[:, perm], groups=by_label.iloc[::-1], k=k))
    for name, value in expected.items():
        np.testing.assert_allclose(got[name], value, rtol=0, atol=1e-12, err_msg=name)
