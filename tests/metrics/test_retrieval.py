"""biasamp.retrieval_bias: hand-worked values, a brute force, ties, -inf, memmap, persistence."""

from __future__ import annotations

import math
import re

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import biasamp
from biasamp import MissingGroupWarning, retrieval_bias
from biasamp.inputs._containers import ERR_MISSING_LABEL
from biasamp.metrics._retrieval import (
    BOOT_BYTES,
    ERR_GROUP_NAMES_POOL,
    ERR_GROUPS_LENGTH,
    ERR_INPUT,
    ERR_K,
    ERR_RANKINGS_RANGE,
    ERR_RANKINGS_REPEAT,
    ERR_REFERENCE_MISSING,
    ERR_REFERENCE_SHARE,
    ERR_REFERENCE_SUM,
    ERR_SCORES_NAN,
    top_k_items,
)
from biasamp.results._retrieval import ERR_PLOT_KIND

LN2 = math.log(2)


# ------------------------------------------------------------------ an independent brute force
def brute_force(scores, groups, k, reference="pool"):
    """Full stable sort per query, Python loops: (max_skew, min_skew, ndkl, counts) per query."""
    names = sorted(set(groups))
    if reference == "pool":
        ref = {g: groups.count(g) / len(groups) for g in names}
    elif reference == "uniform":
        ref = {g: 1 / len(names) for g in names}
    else:
        ref = dict(reference)
        names = sorted(ref)
    out = []
    for row in scores:
        order = sorted(range(len(row)), key=lambda j: (-row[j], j))[:k]
        ndkl_sum, z = 0.0, 0.0
        for i in range(1, k + 1):
            top_i = [groups[j] for j in order[:i]]
            kl = 0.0
            for g in names:
                share = top_i.count(g) / i
                if share > 0:
                    kl += share * math.log(share / ref[g])
            weight = 1 / math.log2(i + 1)
            ndkl_sum += weight * kl
            z += weight
        top = [groups[j] for j in order]
        skews = [math.log(top.count(g) / k / ref[g]) if top.count(g) else -math.inf for g in names]
        out.append((max(skews), min(skews), ndkl_sum / z, [top.count(g) for g in names]))
    return names, out


def assert_matches(result, names, expected):
    frame = result.by_query
    assert result.groups == names
    for q, (max_skew, min_skew, ndkl, counts) in enumerate(expected):
        row = frame.iloc[q]
        assert row["max_skew"] == pytest.approx(max_skew, abs=1e-12)
        if min_skew == -math.inf:
            assert row["min_skew"] == -math.inf
        else:
            assert row["min_skew"] == pytest.approx(min_skew, abs=1e-12)
        assert row["ndkl"] == pytest.approx(ndkl, abs=1e-12)
        assert [int(row[f"count_{g}"]) for g in names] == counts
    assert result.value == pytest.approx(np.mean([e[0] for e in expected]), abs=1e-12)
    assert result.mean_ndkl == pytest.approx(np.mean([e[2] for e in expected]), abs=1e-12)


# ------------------------------------------------------------------ hand-worked values
def test_hand_worked_two_groups():
    groups = ["w", "w", "w", "m", "m", "m"]  # pool shares 1/2, 1/2
    scores = np.array([[6, 5, 4, 3, 2, 1], [6, 1, 2, 5, 3, 4]])
    result = retrieval_bias(scores=scores, groups=groups, k=2)
    assert isinstance(result, biasamp.RetrievalBiasResult)
    frame = result.by_query
    # query 0: top 2 = w, w. Skew(w) = ln(1 / 0.5) = ln 2, Skew(m) = ln 0 = -inf.
    # KL(top 1) = 1 ln(1 / 0.5) = ln 2, KL(top 2) = ln 2 -> NDKL = ln 2.
    assert frame.loc[0, "max_skew"] == pytest.approx(LN2)
    assert frame.loc[0, "min_skew"] == -math.inf
    assert frame.loc[0, "ndkl"] == pytest.approx(LN2)
    # query 1: top 2 = w (item 0, score 6), m (item 3, score 5). Skew = ln(0.5 / 0.5) = 0.
    # KL(top 1) = ln 2, KL(top 2) = 0; weights 1 and 1/log2(3):
    # NDKL = ln 2 / (1 + 1/log2 3) = 0.693147 / 1.630930 = 0.425001
    assert frame.loc[1, "max_skew"] == 0.0 and frame.loc[1, "min_skew"] == 0.0
    assert frame.loc[1, "ndkl"] == pytest.approx(LN2 / (1 + 1 / math.log2(3)))
    assert frame.loc[1, "ndkl"] == pytest.approx(0.425001, abs=1e-6)
    assert frame[["count_m", "count_w"]].to_numpy().tolist() == [[0, 2], [1, 1]]
    assert result.value == pytest.approx(LN2 / 2)  # mean MaxSkew@2
    assert result.mean_min_skew == -math.inf
    assert result.pool_shares.to_dict() == {"m": 0.5, "w": 0.5}
    assert list(frame.columns) == ["max_skew", "min_skew", "ndkl", "count_m", "count_w"]


def test_hand_worked_three_groups_pool_and_uniform():
    groups = ["a", "b", "c", "a"]  # pool: a 1/2, b 1/4, c 1/4
    scores = [[4.0, 3.0, 2.0, 1.0]]  # ranking: a, b, c, (a)
    result = retrieval_bias(scores=scores, groups=groups, k=3)
    row = result.by_query.iloc[0]
    # top 3 shares 1/3 each: Skew(a) = ln((1/3) / (1/2)) = ln(2/3) = -0.405465,
    # Skew(b) = Skew(c) = ln((1/3) / (1/4)) = ln(4/3) = 0.287682
    assert row["max_skew"] == pytest.approx(math.log(4 / 3))
    assert row["min_skew"] == pytest.approx(math.log(2 / 3))
    # KL(top 1) = 1 ln(1 / 0.5) = 0.693147
    # KL(top 2) = 0.5 ln(0.5 / 0.5) + 0.5 ln(0.5 / 0.25) = 0.346574
    # KL(top 3) = 1/3 ln(2/3) + 2/3 ln(4/3) = -0.135155 + 0.191788 = 0.056633
    # weights 1, 1/log2 3 = 0.630930, 1/log2 4 = 0.5; Z = 2.130930
    # NDKL = (0.693147 + 0.218664 + 0.028317) / 2.130930 = 0.940128 / 2.130930 = 0.441182
    kl = [LN2, 0.5 * LN2, math.log(2 / 3) / 3 + 2 * math.log(4 / 3) / 3]
    weights = [1, 1 / math.log2(3), 0.5]
    assert row["ndkl"] == pytest.approx(
        sum(w * v for w, v in zip(weights, kl, strict=True)) / sum(weights)
    )
    assert row["ndkl"] == pytest.approx(0.441182, abs=1e-6)
    # uniform reference: every top-3 share is 1/3, so Skew = 0 for all and
    # KL(top 1) = ln 3, KL(top 2) = 2 * 0.5 ln(1.5) = ln 1.5, KL(top 3) = 0:
    # NDKL = (1.098612 + 0.630930 * 0.405465) / 2.130930 = 1.354432 / 2.130930 = 0.635606
    uniform = retrieval_bias(scores=scores, groups=groups, k=3, reference="uniform")
    row = uniform.by_query.iloc[0]
    assert row["max_skew"] == pytest.approx(0.0, abs=1e-15)
    assert row["min_skew"] == pytest.approx(0.0, abs=1e-15)
    expected = (math.log(3) + math.log(1.5) / math.log2(3)) / sum(weights)
    assert row["ndkl"] == pytest.approx(expected) and expected == pytest.approx(0.635606, abs=1e-6)
    assert uniform.reference == "uniform"
    assert uniform.reference_shares.tolist() == pytest.approx([1 / 3] * 3)


def test_a_reference_group_without_items_has_skew_minus_inf_and_nothing_crashes(tmp_path):
    groups = ["w", "m", "w", "m"]
    reference = {"w": 0.4, "m": 0.4, "nb": 0.2}  # no item is "nb"
    with pytest.warns(MissingGroupWarning, match=r"reference distribution .* pool .*: nb\."):
        result = retrieval_bias(scores=[[4, 3, 2, 1]], groups=groups, k=2, reference=reference)
    assert result.missing_groups == {"pool": ("nb",)}
    row = result.by_query.iloc[0]
    # top 2: w, m -> Skew(w) = Skew(m) = ln(0.5 / 0.4) = 0.223144, Skew(nb) = -inf
    assert row["max_skew"] == pytest.approx(math.log(1.25))
    assert row["min_skew"] == -math.inf
    assert row["count_nb"] == 0
    skew = result.skew()
    assert skew.loc[0, "nb"] == -math.inf and skew.loc[0, "w"] == pytest.approx(math.log(1.25))
    # KL(top 1) = ln(1 / 0.4), KL(top 2) = ln(0.5 / 0.4): NDKL = (0.916291 + 0.630930 * 0.223144)
    # / 1.630930 = 1.057079 / 1.630930 = 0.648145
    assert row["ndkl"] == pytest.approx(
        (math.log(2.5) + math.log(1.25) / math.log2(3)) / (1 + 1 / math.log2(3))
    )
    assert result.pool_shares.to_dict() == {"m": 0.5, "w": 0.5, "nb": 0.0}
    again = biasamp.load_result(result.save(tmp_path / "r.json"))
    assert again == result and again.mean_min_skew == -math.inf
    assert "miss a group" in repr(result) and "no items in the pool: nb" in repr(result)


# ------------------------------------------------------------------ ties
def test_ties_rank_by_item_index():
    block = np.array([[1.0, 5.0, 5.0, 5.0, 0.0], [2.0, 2.0, 2.0, 2.0, 2.0], [0, 3, 1, 3, 3.0]])
    np.testing.assert_array_equal(top_k_items(block, 2), [[1, 2], [0, 1], [1, 3]])
    np.testing.assert_array_equal(top_k_items(block, 4), [[1, 2, 3, 0], [0, 1, 2, 3], [1, 3, 4, 2]])
    np.testing.assert_array_equal(top_k_items(block, 5), np.argsort(-block, axis=1, kind="stable"))
    groups = ["a", "b", "a", "b", "a"]
    # all scores equal: the top 2 is items 0, 1 (a, b) in every query
    result = retrieval_bias(scores=np.zeros((3, 5), dtype=np.float32), groups=groups, k=2)
    assert result.by_query[["count_a", "count_b"]].to_numpy().tolist() == [[1, 1]] * 3


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, np.uint8, np.int8])
def test_top_k_equals_a_stable_full_sort_with_many_ties(dtype):
    rng = np.random.default_rng(1)
    block = rng.integers(0, 4, size=(40, 30)).astype(dtype)
    for k in (1, 2, 7, 29, 30):
        expected = np.argsort(-block.astype(np.float64), axis=1, kind="stable")[:, :k]
        np.testing.assert_array_equal(top_k_items(block, k), expected)


# ------------------------------------------------------------------ brute force (hypothesis)
@settings(max_examples=120, deadline=None)
@given(
    n_queries=st.integers(1, 6),
    n_items=st.integers(1, 12),
    data=st.data(),
    reference=st.sampled_from(["pool", "uniform", "mapping"]),
    block_size=st.sampled_from([None, 1, 2]),
)
def test_equals_an_independent_brute_force(n_queries, n_items, data, reference, block_size):
    groups = data.draw(st.lists(st.sampled_from("abc"), min_size=n_items, max_size=n_items))
    k = data.draw(st.integers(1, n_items))
    values = st.integers(-3, 3)  # few values: many ties
    scores = data.draw(
        st.lists(
            st.lists(values, min_size=n_items, max_size=n_items),
            min_size=n_queries,
            max_size=n_queries,
        )
    )
    ref = {"a": 0.5, "b": 0.3, "c": 0.2} if reference == "mapping" else reference
    names, expected = brute_force(scores, groups, k, ref)
    result = retrieval_bias(
        scores=np.array(scores, dtype=np.float32),
        groups=groups,
        k=k,
        reference=ref,
        block_size=block_size,
    )
    assert_matches(result, names, expected)
    # the same ranking given as item indices
    rankings = [sorted(range(n_items), key=lambda j, r=r: (-r[j], j)) for r in scores]
    ranked = retrieval_bias(rankings=np.array(rankings), groups=groups, k=k, reference=ref)
    pd.testing.assert_frame_equal(ranked.by_query, result.by_query)


# ------------------------------------------------------------------ memmap and blocks
def test_memory_mapped_scores_equal_in_memory(tmp_path):
    rng = np.random.default_rng(5)
    scores = rng.integers(0, 50, size=(37, 400)).astype(np.float32)  # ties at the boundary
    groups = rng.choice(["x", "y", "z"], 400, p=[0.6, 0.3, 0.1])
    path = tmp_path / "scores.f32"
    mapped = np.memmap(path, dtype=np.float32, mode="w+", shape=scores.shape)
    mapped[:] = scores
    mapped.flush()
    del mapped
    reader = np.memmap(path, dtype=np.float32, mode="r", shape=scores.shape)
    in_memory = retrieval_bias(scores=scores, groups=groups, k=25)
    for block_size in (None, 1, 5, 36, 100):
        from_disk = retrieval_bias(scores=reader, groups=groups, k=25, block_size=block_size)
        assert from_disk == in_memory
    names, expected = brute_force(scores.tolist(), groups.tolist(), 25)
    assert_matches(in_memory, names, expected)


def test_memory_beyond_memory_mapped_scores_stays_small(tmp_path):
    """200 queries x 50,000 items (40 MB on disk) in blocks of 4 queries: numpy allocates a
    few MB (argpartition's indices and masks of one block), never the matrix or its sort."""
    import tracemalloc

    shape = (200, 50_000)
    path = tmp_path / "big.f32"
    mapped = np.memmap(path, dtype=np.float32, mode="w+", shape=shape)
    rng = np.random.default_rng(0)
    for start in range(0, shape[0], 50):
        mapped[start : start + 50] = rng.random((50, shape[1]), dtype=np.float32)
    mapped.flush()
    del mapped
    reader = np.memmap(path, dtype=np.float32, mode="r", shape=shape)
    groups = np.repeat(np.array(["a", "b", "c", "d"]), shape[1] // 4)
    tracemalloc.start()
    try:
        result = retrieval_bias(scores=reader, groups=groups, k=100, block_size=4)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    scores_bytes = shape[0] * shape[1] * 4
    # one block: 4 x 50,000 int64 indices (1.6 MB) and byte masks; groups' codes (0.4 MB)
    assert peak < 8 * 2**20 < scores_bytes / 4
    expected = retrieval_bias(scores=np.asarray(reader[:20]), groups=groups, k=100)
    pd.testing.assert_frame_equal(result.by_query.iloc[:20], expected.by_query)


# ------------------------------------------------------------------ names, frames, bootstrap
def test_query_names_and_frames():
    scores = pd.DataFrame(
        [[0.9, 0.1, 0.5], [0.2, 0.8, 0.3]],
        index=pd.Index(["a dog", "a doctor"]),
        columns=["img1", "img2", "img3"],
    )
    groups = pd.Series({"img3": "w", "img1": "m", "img2": "w"})  # matched by item name
    result = retrieval_bias(scores=scores, groups=groups, k=1)
    assert result.by_query.index.tolist() == ["a dog", "a doctor"]
    assert result.by_query.index.name == "query"
    # "a dog": img1 (m): Skew(m) = ln(1 / (1/3)) = ln 3; "a doctor": img2 (w): ln(1 / (2/3))
    assert result.by_query["max_skew"].tolist() == pytest.approx([math.log(3), math.log(1.5)])
    named = retrieval_bias(
        scores=scores.to_numpy(), groups=["m", "w", "w"], k=1, query_names=["q1", "q2"]
    )
    assert named.by_query.index.tolist() == ["q1", "q2"]
    assert named.by_query["max_skew"].tolist() == result.by_query["max_skew"].tolist()


def test_bootstrap_over_queries_is_reproducible_and_resamples_queries():
    rng = np.random.default_rng(2)
    scores = rng.random((30, 40))
    groups = rng.choice(["a", "b"], 40)
    result = retrieval_bias(scores=scores, groups=groups, k=5, n_boot=200, random_state=7)
    again = retrieval_bias(scores=scores, groups=groups, k=5, n_boot=200, random_state=7)
    assert result == again
    assert 200 * 30 * 8 < BOOT_BYTES  # one draw of indices: replayable
    draws = np.random.default_rng(7).integers(0, 30, size=(200, 30))
    max_skew = result.by_query["max_skew"].to_numpy()
    ndkl = result.by_query["ndkl"].to_numpy()
    np.testing.assert_allclose(result.replicates, max_skew[draws].mean(axis=1))
    np.testing.assert_allclose(result.ndkl_replicates, ndkl[draws].mean(axis=1))
    low, high = result.ci
    assert low == pytest.approx(np.quantile(result.replicates, 0.025))
    assert high == pytest.approx(np.quantile(result.replicates, 0.975))
    assert result.ndkl_ci[0] <= result.mean_ndkl <= result.ndkl_ci[1]
    assert result.params["random_state"] == 7 and result.ci_level == 0.95


# ------------------------------------------------------------------ bad input
def test_bad_input_is_refused_with_a_clear_error():
    groups = ["a", "b", "a"]
    with pytest.raises(TypeError, match=re.escape(ERR_INPUT)):
        retrieval_bias(groups=groups, k=1)
    with pytest.raises(TypeError, match=re.escape(ERR_INPUT)):
        retrieval_bias(scores=[[1, 2, 3]], rankings=[[0, 1, 2]], groups=groups, k=1)
    with pytest.raises(ValueError, match=re.escape(ERR_K.format(n_items=3, got=4))):
        retrieval_bias(scores=[[1, 2, 3]], groups=groups, k=4)
    with pytest.raises(ValueError, match=re.escape(ERR_K.format(n_items=3, got=0))):
        retrieval_bias(scores=[[1, 2, 3]], groups=groups, k=0)
    with pytest.raises(ValueError, match=re.escape(ERR_GROUPS_LENGTH.format(n_items=2, got=3))):
        retrieval_bias(scores=[[1, 2]], groups=groups, k=1)
    with pytest.raises(
        ValueError, match=re.escape(ERR_MISSING_LABEL.format(arg="groups", count=1, row=1))
    ):
        retrieval_bias(scores=[[1, 2, 3]], groups=["a", None, "b"], k=1)
    with pytest.raises(
        ValueError, match=re.escape(ERR_SCORES_NAN.format(arg="scores", row=1, name=1, column=2))
    ):
        retrieval_bias(scores=[[1, 2, 3], [1, 2, np.nan]], groups=groups, k=1)
    with pytest.raises(
        ValueError,
        match=re.escape(ERR_RANKINGS_RANGE.format(row=0, got=3, n_items=3, last=2)),
    ):
        retrieval_bias(rankings=[[0, 3]], groups=groups, k=2)
    with pytest.raises(ValueError, match=re.escape(ERR_RANKINGS_REPEAT.format(row=1, item=2, k=2))):
        retrieval_bias(rankings=[[0, 1], [2, 2]], groups=groups, k=2)
    with pytest.raises(ValueError, match=re.escape(ERR_REFERENCE_MISSING.format(missing=["b"]))):
        retrieval_bias(scores=[[1, 2, 3]], groups=groups, k=1, reference={"a": 1.0})
    with pytest.raises(ValueError, match=re.escape(ERR_REFERENCE_SHARE.format(group="b", got=0.0))):
        retrieval_bias(scores=[[1, 2, 3]], groups=groups, k=1, reference={"a": 1.0, "b": 0.0})
    with pytest.raises(ValueError, match=re.escape(ERR_REFERENCE_SUM.format(got=0.9))):
        retrieval_bias(scores=[[1, 2, 3]], groups=groups, k=1, reference={"a": 0.5, "b": 0.4})
    with pytest.raises(ValueError, match=re.escape(ERR_GROUP_NAMES_POOL.format(missing=["c"]))):
        retrieval_bias(scores=[[1, 2, 3]], groups=groups, k=1, group_names=["a", "b", "c"])
    # listed with a uniform reference, an absent group takes its share and has Skew -inf
    with pytest.warns(MissingGroupWarning, match="pool of ranked items: c"):
        listed = retrieval_bias(
            scores=[[1, 2, 3]], groups=groups, k=1, group_names=["c", "b", "a"], reference="uniform"
        )
    assert listed.missing_groups == {"pool": ("c",)}
    assert listed.groups == ["c", "b", "a"] and listed.by_query["min_skew"].iloc[0] == -math.inf


# ------------------------------------------------------------------ result: save, plot, compare
def test_save_load_compare_plot_and_report(tmp_path):
    pytest.importorskip("matplotlib")
    rng = np.random.default_rng(3)
    scores = rng.random((12, 30)).astype(np.float32)
    groups = rng.choice(["man", "woman"], 30)
    result = retrieval_bias(scores=scores, groups=groups, k=10, n_boot=50, random_state=0)
    assert isinstance(result, biasamp.RetrievalBiasResult)
    loaded = biasamp.load_result(result.save(tmp_path / "retrieval.json"))
    assert loaded == result and loaded.to_dict() == result.to_dict()
    assert float(loaded) == result.value
    table = biasamp.compare({"clip": result})
    assert table["metric"].tolist() == ["retrieval-bias"]
    assert table["title"].tolist() == ["MaxSkew@10"]
    assert table["value"].iloc[0] == result.value
    assert (table["ci_low"].iloc[0], table["ci_high"].iloc[0]) == result.ci
    assert table["n"].iloc[0] == 12
    assert result.plot().get_title().startswith("MaxSkew@10")
    assert result.plot("ndkl").get_xlabel().startswith("NDKL@10")
    with pytest.raises(ValueError, match=re.escape(ERR_PLOT_KIND.format(got="pairs"))):
        result.plot("pairs")
    page = biasamp.render_report(results={"retrieval": result})
    assert "MaxSkew@10" in page and "By query" in page and "mean NDKL@10" in page
    assert f"{result.value:+.4f}" in page


@pytest.mark.parametrize("block_size", [None, 1, 2, 5])
@pytest.mark.parametrize("k", [1, 3, 6])
def test_nan_is_found_from_the_top_items_at_its_first_row_and_item(block_size, k):
    # NaN sorts above every number, so the top k of a row holding one shows it; the
    # first row, then its first item, is reported, whatever the block and k
    scores = np.arange(42, dtype=np.float64).reshape(6, 7)
    scores[3, [5, 1, 6]] = np.nan  # three NaNs (more than k=1), the first at item 1
    scores[4, 0] = np.nan
    with pytest.raises(
        ValueError, match=re.escape(ERR_SCORES_NAN.format(arg="scores", row=3, name=3, column=1))
    ):
        retrieval_bias(scores=scores, groups=list("abababa"), k=k, block_size=block_size)


def test_default_blocks_follow_the_cache_and_a_floor_of_items():
    from biasamp.metrics import _retrieval

    budget = _retrieval.block_bytes()
    assert 4 * 2**20 <= budget <= _retrieval.MAX_BLOCK_BYTES
    per_query = _retrieval._per_query_bytes(50_000, 100, 4)
    rows = _retrieval._block_rows(50_000, 100, 4, None)
    assert rows * 50_000 >= _retrieval.MIN_BLOCK_ITEMS  # enough work a block
    assert rows == max(budget // per_query, -(-_retrieval.MIN_BLOCK_ITEMS // 50_000))
    # few items a query: many queries a block, within the block's memory bound
    small = _retrieval._per_query_bytes(10, 5, 2)
    rows = _retrieval._block_rows(10, 5, 2, None)
    assert rows * small <= _retrieval.MAX_BLOCK_BYTES
    assert rows == min(-(-_retrieval.MIN_BLOCK_ITEMS // 10), _retrieval.MAX_BLOCK_BYTES // small)
