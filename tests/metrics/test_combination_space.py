"""CombinationSpace: M built once and shared by the three multi-attribute metrics."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import biasamp
from biasamp import CombinationSpace, PatternCountTable, multi_attribute
from biasamp.counts import _combinations
from biasamp.metrics import _combination_space
from biasamp.metrics._combination_space import (
    ERR_MISSING_ARRAY,
    ERR_SPACE_OPTIONS,
    ERR_SPACE_TABLES,
    ERR_SPACE_TYPE,
    ERR_SPACE_WITH_ARRAYS,
    _exact_in_float32,
)
from biasamp.metrics._multi_attribute import ERR_SPACE_NO_ROWS

from .multi_attribute_data import three_group_splits


def _data(n: int = 400, n_tasks: int = 6, seed: int = 0) -> dict[str, np.ndarray]:
    return three_group_splits(n, n_tasks, seed, base=0.3, lift=0.2)


def _same(a: biasamp.MultiAttributeResult, b: biasamp.MultiAttributeResult) -> None:
    assert a.value == b.value and a.n_combinations == b.n_combinations
    assert (a.variance == b.variance) or (np.isnan(a.variance) and np.isnan(b.variance))
    pd.testing.assert_frame_equal(a.by_combination, b.by_combination)
    if a.replicates is not None or b.replicates is not None:
        np.testing.assert_array_equal(a.replicates, b.replicates)


@pytest.mark.parametrize("mode", ["observed", "subsets"])
def test_shared_space_equals_separate_calls(mode):
    d = _data()
    opts = dict(combinations=mode, max_size=3 if mode == "subsets" else None)
    space = CombinationSpace.from_arrays(**d, **opts)
    mals_kw = {k: v for k, v in d.items() if k != "groups"}
    _same(biasamp.multi_mals(space=space), biasamp.multi_mals(**mals_kw, **opts))
    for direction in ("A->T", "T->A"):
        _same(
            biasamp.multi_directional(direction=direction, space=space),
            biasamp.multi_directional(direction=direction, **d, **opts),
        )
    together = multi_attribute(**d, **opts)
    assert list(together) == ["multi-mals", "multi-a2t", "multi-t2a"]  # the registry's names
    # the keys of earlier releases still index the mapping
    assert together["multi_mals"] is together["multi-mals"] and "T->A" in together
    assert together["A->T"] is together["Multi G->M"] is together.get("multi-a2t")
    _same(together["multi_mals"], biasamp.multi_mals(space=space))
    _same(together["T->A"], biasamp.multi_directional(direction="T->A", space=space))
    assert len(space) == together["A->T"].n_combinations
    assert space.names == list(together["A->T"].by_combination["combination"].unique())
    assert repr(space).startswith(f"CombinationSpace({len(space):,} combinations")


def test_shared_bootstrap_equals_separate_bootstraps():
    d = _data(n=300, n_tasks=5, seed=3)
    boot = dict(n_boot=12, random_state=4)
    together = multi_attribute(**d, combinations="subsets", max_size=2, **boot)
    space = CombinationSpace.from_arrays(**d, combinations="subsets", max_size=2)
    _same(together["multi_mals"], biasamp.multi_mals(space=space, **boot))
    separate = biasamp.multi_directional(
        direction="A->T", **d, combinations="subsets", max_size=2, **boot
    )
    _same(together["A->T"], separate)
    assert together["T->A"].replicates.shape == (12,)


def test_space_from_counts_is_shared_by_from_counts_forms():
    d = _data(n=200, n_tasks=4, seed=5)
    train = PatternCountTable.from_arrays(groups=d["groups_train"], tasks=d["tasks_train"])
    evaluation = PatternCountTable.from_arrays(
        groups=d["groups"],
        tasks=d["tasks"],
        groups_pred=d["groups_pred"],
        tasks_pred=d["tasks_pred"],
        group_names=train.group_names,
        task_names=train.task_names,
    )
    space = CombinationSpace(train, evaluation, combinations="subsets")
    a = biasamp.multi_directional_from_counts(direction="T->A", space=space)
    b = biasamp.multi_directional_from_counts(
        train, evaluation, direction="T->A", combinations="subsets"
    )
    _same(a, b)
    _same(
        biasamp.multi_mals_from_counts(train, evaluation, space=space),
        biasamp.multi_mals_from_counts(train, evaluation, combinations="subsets"),
    )
    # the counts of any table (replicate axis allowed) per combination of M
    counts = space.counts(evaluation)
    np.testing.assert_array_equal(counts.totals["tasks"], space.eval_counts.totals["tasks"])
    with pytest.raises(ValueError, match=re.escape(ERR_SPACE_NO_ROWS[:40])):
        biasamp.multi_mals(space=space, n_boot=5)
    other = PatternCountTable.from_arrays(groups=d["groups_train"], tasks=d["tasks_train"])
    with pytest.raises(ValueError, match=re.escape(ERR_SPACE_TABLES[:40])):
        biasamp.multi_mals_from_counts(other, evaluation, space=space)


def test_space_errors():
    d = _data(n=100, n_tasks=3)
    space = CombinationSpace.from_arrays(**d)
    with pytest.raises(ValueError, match=re.escape(ERR_SPACE_WITH_ARRAYS.format(arg="tasks"))):
        biasamp.multi_mals(space=space, tasks=d["tasks"])
    with pytest.raises(ValueError, match=re.escape(ERR_MISSING_ARRAY.format(arg="tasks_pred"))):
        biasamp.multi_mals(**{k: v for k, v in d.items() if k != "tasks_pred"})
    with pytest.raises(TypeError, match=re.escape(ERR_SPACE_TYPE.format(type_name="dict"))):
        biasamp.multi_mals(space={})
    message = ERR_SPACE_OPTIONS.format(name="combinations", got="subsets", have="observed")
    with pytest.raises(ValueError, match=re.escape(message)):
        biasamp.multi_directional(direction="A->T", space=space, combinations="subsets")


def test_progress_bars_do_not_change_the_result(capsys):
    d = _data(n=150, n_tasks=4)
    quiet = multi_attribute(**d, n_boot=4, random_state=0)
    loud = multi_attribute(**d, n_boot=4, random_state=0, progress=True)
    for key in quiet:
        _same(quiet[key], loud[key])


@contextlib.contextmanager
def _kernel_settings(**values: object) -> Iterator[None]:
    """Set module constants of the counting pass for a block (restored afterwards)."""
    old = {name: getattr(_combinations, name) for name in values}
    for name, value in values.items():
        setattr(_combinations, name, value)
    try:
        yield
    finally:
        for name, value in old.items():
            setattr(_combinations, name, value)


@settings(max_examples=80, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    n_tasks=st.integers(1, 70),
    block=st.sampled_from([1, 7, 1 << 18]),
    zeta=st.sampled_from([0.0, 1.0, float("inf")]),
    threads=st.sampled_from([1, 3]),
    split_cells=st.sampled_from([1, 1 << 20]),
    carry=st.sampled_from([0, 1 << 17]),
    weight_rows=st.sampled_from(["integer", "float", "repeated"]),
    typed_flush=st.sampled_from([0.0, float("inf")]),
    typed_tables=st.sampled_from([0.0, float("inf")]),
    fold_low_bits=st.sampled_from([0, 2, 8]),
    as_keys=st.booleans(),
)
def test_containment_counts_match_brute_force(
    seed,
    n_tasks,
    block,
    zeta,
    threads,
    split_cells,
    carry,
    weight_rows,
    typed_flush,
    typed_tables,
    fold_low_bits,
    as_keys,
):
    """The prefix-tree count equals C^T W from the dense containment matrix (any word count),
    with superset-sum tables forced (0), allowed (1) or forbidden (inf) at the nodes, one
    or three threads over the root's subtrees, children split one at a time or together,
    masks gathered or handed down, and float32 integer weights (exact) or float64 ones.
    "repeated" float32 rows (a few distinct rows and some others) have weight types: the
    hits and the tables then count per type or read a type's row from one pattern
    (each forced on or off), and the tables fold their low bits on a moved copy. The
    patterns are passed as a boolean matrix or as their keys (PatternSet)."""
    rng = np.random.default_rng(seed)
    patterns = np.unique(rng.random((60, n_tasks)) < 0.4, axis=0)
    pick = rng.random((25, n_tasks)) < 0.2
    combos_bool = np.unique(pick[pick.any(axis=1)], axis=0)
    if len(combos_bool) == 0:
        return
    sizes = combos_bool.sum(axis=1)
    items = np.full((len(combos_bool), int(sizes.max())), -1, dtype=np.int64)
    for i, row in enumerate(combos_bool):
        items[i, : sizes[i]] = np.nonzero(row)[0]
    combos = _combinations.Combinations(items, sizes, tuple(range(n_tasks)))
    if weight_rows == "integer":
        weights = rng.integers(0, 1000, (len(patterns), 3)).astype(np.float32)
    elif weight_rows == "repeated":
        kinds = rng.integers(0, 4, (4, 3)).astype(np.float32)
        weights = kinds[rng.integers(0, 4, len(patterns))]
        weights[rng.random(len(patterns)) < 0.2] = rng.integers(0, 9, 3)
    else:
        weights = rng.random((len(patterns), 3))
    contain = (patterns[:, None, :] | ~combos_bool[None, :, :]).all(axis=-1)  # (P, K)
    expected = contain.T.astype(float) @ weights.astype(float)
    with _kernel_settings(
        _BLOCK=block,
        _ZETA_FACTOR=zeta,
        _threads_for_counting=lambda: threads,
        _SPLIT_CELLS=split_cells,
        _CARRY_MASKS=carry,
        _TYPE_FLUSH_SHARE=typed_flush,
        _TYPE_TABLE_FACTOR=typed_tables,
        _FOLD_LOW_BITS=fold_low_bits,
    ):
        given_patterns = (
            _combinations.PatternSet(_combinations.pattern_keys(patterns, n_tasks), n_tasks)
            if as_keys
            else patterns
        )
        got = _combinations.containment_counts(given_patterns, combos, weights)
    assert got.dtype == np.float64
    if weight_rows != "float":
        np.testing.assert_array_equal(got, expected)
    else:
        np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12)


def _patterns_and_combinations(
    rng: np.random.Generator, *, rows: int, tasks: int, share: float, chosen: int
) -> tuple[np.ndarray, Any]:
    """Distinct random task patterns and, as combinations, ``chosen`` of them (not empty)."""
    patterns = np.unique(rng.random((rows, tasks)) < share, axis=0)
    picked = patterns[rng.choice(len(patterns), chosen, replace=False)]
    picked = picked[picked.any(axis=1)]
    sizes = picked.sum(axis=1)
    items = np.full((len(picked), int(sizes.max())), -1, dtype=np.int64)
    for i, row in enumerate(picked):
        items[i, : sizes[i]] = np.nonzero(row)[0]
    return patterns, _combinations.Combinations(items, sizes, tuple(range(tasks)))


def test_threads_give_bit_identical_counts() -> None:
    """Counting the root's subtrees in parallel changes no bit of any count (each
    combination is summed by one thread, in the same order as with one thread)."""
    rng = np.random.default_rng(5)
    patterns, combos = _patterns_and_combinations(rng, rows=3000, tasks=24, share=0.35, chosen=400)
    weights = rng.random((len(patterns), 5))
    runs = []
    for threads in (1, 2, 4):
        with _kernel_settings(_threads_for_counting=lambda n=threads: n, _BLOCK=1 << 10):
            runs.append(_combinations.containment_counts(patterns, combos, weights))
    np.testing.assert_array_equal(runs[0], runs[1])
    np.testing.assert_array_equal(runs[0], runs[2])


def test_native_counts_keep_float32_weights_in_float32() -> None:
    """``native=True`` sums float32 weights in float32 (exact integers): the same values
    as the float64 result; float64 weights stay float64."""
    rng = np.random.default_rng(8)
    patterns, combos = _patterns_and_combinations(rng, rows=400, tasks=12, share=0.4, chosen=60)
    weights = rng.integers(0, 5, (len(patterns), 4)).astype(np.float32)
    native = _combinations.containment_counts(patterns, combos, weights, native=True)
    assert native.dtype == np.float32
    plain = _combinations.containment_counts(patterns, combos, weights)
    assert plain.dtype == np.float64
    np.testing.assert_array_equal(native, plain)
    as_double = weights.astype(np.float64)
    assert _combinations.containment_counts(patterns, combos, as_double, native=True).dtype == (
        np.float64
    )


def test_thread_count_follows_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """BIASAMP_NUM_THREADS sets the threads of the counting pass; without it the usable
    cores (at most 4) are used; a bad value is an error that names the variable."""
    monkeypatch.delenv(_combinations.THREADS_ENV, raising=False)
    default = _combinations._threads_for_counting()
    assert 1 <= default <= _combinations._MAX_THREADS
    monkeypatch.setenv(_combinations.THREADS_ENV, "3")
    assert _combinations._threads_for_counting() == 3
    for bad in ("0", "two", "-1"):
        monkeypatch.setenv(_combinations.THREADS_ENV, bad)
        message = _combinations.ERR_THREADS_ENV.format(env=_combinations.THREADS_ENV, got=bad)
        with pytest.raises(ValueError, match=re.escape(message)):
            _combinations._threads_for_counting()


def test_weights_are_float32_only_when_every_sum_is_exact() -> None:
    """Nonnegative integer counts with column totals below 2**24 are laid out in float32;
    fractional weights, negative values or larger totals keep float64."""
    assert _exact_in_float32(np.array([[0.0, 3.0, 7.0], [1.0, 1.0, 1.0]]))
    assert not _exact_in_float32(np.array([[0.5, 3.0]]))
    assert not _exact_in_float32(np.array([[-1.0, 3.0]]))
    assert not _exact_in_float32(np.array([[float(1 << 23), float(1 << 23)]]))
    assert _exact_in_float32(np.array([[float(1 << 23), float(1 << 23) - 1]]))


@pytest.mark.parametrize("fractional", [False, True])
def test_float32_layout_gives_the_float64_results(fractional: bool) -> None:
    """All three metrics (values, per-combination columns, bootstrap replicates) are
    bit-identical whether the counting pass runs on float32 or float64 weights."""
    d = three_group_splits(600, 9, 11, base=0.3, lift=0.2, weighted=fractional)
    fast = multi_attribute(**d, n_boot=3, random_state=0)
    saved = _combination_space._exact_in_float32
    _combination_space._exact_in_float32 = lambda values: False
    try:
        slow = multi_attribute(**d, n_boot=3, random_state=0)
    finally:
        _combination_space._exact_in_float32 = saved
    for key in fast:
        _same(fast[key], slow[key])


@pytest.mark.parametrize("train_rows", ["labelled", "with_task", "all"])
def test_one_call_and_space_follow_train_rows_like_the_single_calls(train_rows: str) -> None:
    """Training rows with neither a group nor a task change the signs; all three paths agree."""
    rng = np.random.default_rng(3)
    n = 400
    tasks_train = (rng.random((n, 4)) < 0.4).astype(int)
    groups_train = np.eye(2, dtype=int)[rng.integers(0, 2, n)]
    unlabelled = rng.random(n) < 0.2  # rows with no group and no task
    groups_train[unlabelled] = 0
    tasks_train[unlabelled] = 0
    groups_train[(~unlabelled) & (rng.random(n) < 0.1)] = 0  # a task, no group
    tasks = (rng.random((n, 4)) < 0.4).astype(int)
    groups = np.eye(2, dtype=int)[rng.integers(0, 2, n)]
    tasks_pred = np.where(rng.random((n, 4)) < 0.8, tasks, 1 - tasks)
    groups_pred = np.where(rng.random((n, 1)) < 0.8, groups, groups[:, ::-1])
    arrays = dict(
        groups_train=groups_train,
        tasks_train=tasks_train,
        groups=groups,
        tasks=tasks,
        groups_pred=groups_pred,
        tasks_pred=tasks_pred,
    )
    one_call = biasamp.multi_attribute(**arrays, train_rows=train_rows)
    space = biasamp.CombinationSpace.from_arrays(**arrays, train_rows=train_rows)
    for direction in ("A->T", "T->A"):
        single = biasamp.multi_directional(direction=direction, **arrays, train_rows=train_rows)
        shared = biasamp.multi_directional(direction=direction, space=space, train_rows=train_rows)
        assert one_call[direction].value == pytest.approx(single.value, abs=1e-12)
        assert shared.value == pytest.approx(single.value, abs=1e-12)
    single_mals = biasamp.multi_mals(**arrays)
    assert one_call["multi_mals"].value == pytest.approx(single_mals.value, abs=1e-12)
    with pytest.raises(ValueError, match="train_rows"):
        biasamp.multi_directional(
            direction="A->T",
            space=space,
            train_rows="all" if train_rows != "all" else "labelled",
        )


@pytest.mark.parametrize("zeta", [0.0, 16.0, float("inf")])
def test_observed_counts_on_coco_equal_a_dense_scan(zeta: float) -> None:
    """Real COCO labels (79 objects: two-word masks): every per-combination count of both
    splits equals a dense scan of the rows, with superset-sum tables forced, chosen by
    cost (the default) or forbidden."""
    from biasamp.datasets import load_coco_gender

    train, test = load_coco_gender("val"), load_coco_gender("test")
    objects = [c for c in train.columns if c not in ("image_id", "gender")]
    rng = np.random.default_rng(0)
    tasks = test[objects].to_numpy()
    arrays = {
        "train": (train["gender"].to_numpy(), train[objects].to_numpy()),
        "tasks": (test["gender"].to_numpy(), tasks),
        "tasks_pred": (
            test["gender"].to_numpy(),
            np.where(rng.random(tasks.shape) < 0.03, 1 - tasks, tasks),
        ),
    }
    old = _combinations._ZETA_FACTOR
    _combinations._ZETA_FACTOR = zeta
    try:
        space = CombinationSpace.from_arrays(
            groups_train=arrays["train"][0],
            tasks_train=arrays["train"][1],
            groups=arrays["tasks"][0],
            tasks=arrays["tasks"][1],
            groups_pred=arrays["tasks_pred"][0],
            tasks_pred=arrays["tasks_pred"][1],
            task_names=objects,
        )
    finally:
        _combinations._ZETA_FACTOR = old
    assert len(space) == 1181  # distinct training object sets found in the test split
    combos = np.zeros((len(space), len(objects)), dtype=np.int64)
    for i, names in enumerate(space.names):
        combos[i, [objects.index(n) for n in names]] = 1

    def scan(groups: np.ndarray, rows: np.ndarray) -> np.ndarray:
        contain = (rows.astype(np.int64) @ combos.T) == combos.sum(axis=1)  # (n, K)
        onehot = groups[:, None] == np.array(["man", "woman"])[None, :]
        return onehot.T.astype(np.int64) @ contain.astype(np.int64)  # (G, K)

    np.testing.assert_array_equal(
        space.train_counts.joint[("groups", "tasks")], scan(*arrays["train"])
    )
    for role in ("tasks", "tasks_pred"):
        np.testing.assert_array_equal(
            space.eval_counts.joint[("groups", role)], scan(*arrays[role])
        )
