"""Streaming count tables: declared label names, the online bootstrap, row offsets."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from biasamp import (
    CountTable,
    PatternCountTable,
    directional,
    directional_from_counts,
    load_counts,
    mals,
    mals_from_counts,
    multi_directional_from_counts,
    save_counts,
)
from biasamp import PoissonReplicates as biasamp_poisson
from biasamp.counts._count_table import (
    ERR_EMPTY_NAMES,
    ERR_MERGE_BOOTSTRAP,
    ERR_ROW_OFFSET,
    ERR_UPDATE_REPLICATE_WEIGHTS,
)

GROUPS = ("m", "w", "x")
TASKS = ("cook", "ski", "surf", "read")


def _rows(n: int, seed: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    return {
        "groups": rng.choice(GROUPS, size=n),
        "tasks": rng.choice(TASKS, size=n),
        "groups_pred": rng.choice(GROUPS, size=n),
        "tasks_pred": rng.choice(TASKS, size=n),
    }


def _chunks(rows: dict[str, np.ndarray], cuts: list[int]) -> list[dict[str, np.ndarray]]:
    edges = [0, *cuts, len(rows["groups"])]
    return [{k: v[a:b] for k, v in rows.items()} for a, b in zip(edges, edges[1:], strict=False)]


def _assert_tables_equal(a: CountTable, b: CountTable) -> None:
    assert a.group_names == b.group_names and a.task_names == b.task_names
    assert a.roles == b.roles and a.n_rows == b.n_rows
    np.testing.assert_array_equal(a.n, b.n)
    for role in a.totals:
        np.testing.assert_array_equal(a.totals[role], b.totals[role])
    for key in a.joint:
        np.testing.assert_array_equal(a.joint[key], b.joint[key])


def test_empty_table_accepts_a_label_missing_from_the_first_chunk():
    rows = _rows(60, 0)
    first = {k: v.copy() for k, v in rows.items()}
    # the first chunk has no "x" group and no "read" task at all
    first["groups"][:10] = "m"
    first["groups_pred"][:10] = "w"
    first["tasks"][:10] = "cook"
    first["tasks_pred"][:10] = "ski"
    table = CountTable.empty(group_names=GROUPS, task_names=TASKS)
    assert table.n_rows == 0 and table.roles == frozenset()
    for chunk in _chunks(first, [10, 25, 40]):
        table = table.update(**chunk)
    whole = CountTable.from_arrays(**first, group_names=GROUPS, task_names=TASKS)
    _assert_tables_equal(table, whole)
    assert table.next_row == 60


def test_empty_pattern_table_equals_from_arrays():
    rng = np.random.default_rng(1)
    tasks = rng.integers(0, 2, size=(50, 4))
    tasks[:8, 3] = 0  # task 3 absent from the first chunk
    groups = rng.choice(["m", "w"], size=50)
    groups[:8] = "m"  # and group "w" too
    table = PatternCountTable.empty(group_names=["m", "w"], task_names=[0, 1, 2, 3])
    for a, b in [(0, 8), (8, 30), (30, 50)]:
        table = table.update(groups=groups[a:b], tasks=tasks[a:b], tasks_pred=tasks[a:b])
    whole = PatternCountTable.from_arrays(groups=groups, tasks=tasks, tasks_pred=tasks)
    for role in whole.patterns:
        np.testing.assert_array_equal(table.patterns[role], whole.patterns[role])
        np.testing.assert_array_equal(table.pattern_totals[role], whole.pattern_totals[role])
    for key in whole.joint:
        np.testing.assert_array_equal(table.joint[key], whole.joint[key])
    assert table.n_rows == whole.n_rows == 50


def test_empty_validates_names():
    with pytest.raises(ValueError, match=r"group_names: expected a non-empty"):
        CountTable.empty(group_names=[], task_names=["a"])
    with pytest.raises(ValueError, match=r"task_names: expected a non-empty"):
        CountTable.empty(group_names=["a"], task_names=["b", "b"])
    assert ERR_EMPTY_NAMES.startswith("{arg}")


def test_chunk_with_an_undeclared_label_fails():
    table = CountTable.empty(group_names=["m", "w"], task_names=["cook"])
    with pytest.raises(ValueError, match="not in the canonical label set"):
        table.update(groups=["m", "z"], tasks=["cook", "cook"])


def test_empty_is_the_identity_of_merge():
    rows = _rows(20, 2)
    table = CountTable.from_arrays(**rows, group_names=GROUPS, task_names=TASKS)
    blank = CountTable.empty(group_names=GROUPS, task_names=TASKS)
    _assert_tables_equal(blank + table, table)
    _assert_tables_equal(table + blank, table)


@pytest.mark.parametrize("cuts", [[], [1], [7, 8, 30], list(range(5, 200, 13))])
def test_streamed_replicates_equal_one_chunk_exactly(cuts):
    rows = _rows(200, 3)
    one = CountTable.empty(group_names=GROUPS, task_names=TASKS, n_boot=50, random_state=7)
    one = one.update(**rows)
    streamed = CountTable.empty(group_names=GROUPS, task_names=TASKS, n_boot=50, random_state=7)
    for chunk in _chunks(rows, cuts):
        streamed = streamed.update(**chunk)
    _assert_tables_equal(streamed.replicates, one.replicates)
    for direction in ("A->T", "T->A"):
        a = directional_from_counts(streamed, direction=direction)
        b = directional_from_counts(one, direction=direction)
        assert a.ci == b.ci and a.se == b.se
        np.testing.assert_array_equal(a.replicates, b.replicates)
        np.testing.assert_array_equal(a.by_pair["ci_low"], b.by_pair["ci_low"])


def test_streamed_interval_equals_the_in_memory_bootstrap():
    rows = _rows(300, 4)
    table = CountTable.empty(group_names=GROUPS, task_names=TASKS, n_boot=80, random_state=11)
    for chunk in _chunks(rows, [50, 51, 170]):
        table = table.update(**chunk)
    for direction in ("A->T", "T->A"):
        streamed = directional_from_counts(table, direction=direction, ci=0.9)
        memory = directional(
            direction=direction,
            **rows,
            group_names=GROUPS,
            task_names=TASKS,
            n_boot=80,
            random_state=11,
            ci=0.9,
        )
        assert streamed.value == memory.value
        assert streamed.ci == memory.ci and streamed.ci_level == 0.9
        np.testing.assert_array_equal(streamed.replicates, memory.replicates)
    train_rows = _rows(100, 5)
    train = CountTable.from_arrays(
        groups=train_rows["groups"],
        tasks=train_rows["tasks"],
        group_names=GROUPS,
        task_names=TASKS,
    )
    streamed = mals_from_counts(train, table)
    memory = mals(
        groups_train=train_rows["groups"],
        tasks_train=train_rows["tasks"],
        groups_pred=rows["groups_pred"],
        tasks_pred=rows["tasks_pred"],
        group_names=GROUPS,
        task_names=TASKS,
        n_boot=80,
        random_state=11,
    )
    assert streamed.value == memory.value and streamed.ci == memory.ci


def test_workers_with_row_offsets_merge_to_the_sequential_table():
    rows = _rows(9000, 6)  # crosses the 4096-row blocks of the weight stream
    kw = {"group_names": GROUPS, "task_names": TASKS, "n_boot": 20, "random_state": 3}
    sequential = CountTable.empty(**kw).update(**rows)
    parts = _chunks(rows, [3000, 7000])
    offsets = [0, 3000, 7000]
    workers = [
        CountTable.empty(**kw).update(**part, row_offset=offset)
        for part, offset in zip(parts, offsets, strict=True)
    ]
    merged = workers[2] + workers[0] + workers[1]  # any order
    _assert_tables_equal(merged, sequential)
    _assert_tables_equal(merged.replicates, sequential.replicates)
    assert merged.next_row == 9000


@settings(max_examples=25, deadline=None)
@given(
    cuts=st.lists(st.integers(1, 59), max_size=6, unique=True).map(sorted),
    seed=st.integers(0, 2**16),
)
def test_any_chunking_gives_the_same_replicates(cuts, seed):
    rows = _rows(60, seed)
    kw = {"group_names": GROUPS, "task_names": TASKS, "n_boot": 8, "random_state": seed}
    one = CountTable.empty(**kw).update(**rows)
    streamed = CountTable.empty(**kw)
    for chunk in _chunks(rows, cuts):
        streamed = streamed.update(**chunk)
    _assert_tables_equal(streamed.replicates, one.replicates)


def test_merging_different_bootstraps_fails():
    rows = _rows(10, 8)
    a = CountTable.empty(group_names=GROUPS, task_names=TASKS, n_boot=5, random_state=1)
    b = CountTable.empty(group_names=GROUPS, task_names=TASKS, n_boot=5, random_state=2)
    message = ERR_MERGE_BOOTSTRAP.split("(")[0]
    with pytest.raises(ValueError, match=message):
        a.update(**rows) + b.update(**rows)
    plain = CountTable.from_arrays(**rows, group_names=GROUPS, task_names=TASKS)
    with pytest.raises(ValueError, match=message):
        a.update(**rows) + plain


def test_row_offset_and_replicate_weights_are_checked():
    table = CountTable.empty(group_names=GROUPS, task_names=TASKS, n_boot=5, random_state=1)
    rows = _rows(4, 9)
    for bad in (-1, 1.5, True):
        with pytest.raises(ValueError, match=ERR_ROW_OFFSET.format(got=repr(bad)).split(",")[0]):
            table.update(**rows, row_offset=bad)
    with pytest.raises(ValueError, match="draws its own replicate weights"):
        table.update(**rows, replicate_weights=np.ones((5, 4)))
    assert "replicate_weights" in ERR_UPDATE_REPLICATE_WEIGHTS


def test_soft_predictions_stream():
    rng = np.random.default_rng(10)
    probs = rng.random((40, 4))
    groups = rng.choice(GROUPS, size=40)
    tasks = rng.integers(0, 2, size=(40, 4))
    table = CountTable.empty(group_names=GROUPS, task_names=TASKS, n_boot=10, random_state=0)
    for a in range(0, 40, 9):
        table = table.update(
            groups=groups[a : a + 9], tasks=tasks[a : a + 9], tasks_pred=probs[a : a + 9], soft=True
        )
    whole = CountTable.from_arrays(
        groups=groups,
        tasks=tasks,
        tasks_pred=probs,
        soft=True,
        group_names=GROUPS,
        task_names=TASKS,
    )
    np.testing.assert_allclose(
        table.joint[("groups", "tasks_pred")], whole.joint[("groups", "tasks_pred")], rtol=1e-12
    )
    with pytest.raises(TypeError, match="soft"):
        PatternCountTable.empty(group_names=GROUPS, task_names=TASKS, n_boot=3).update(
            groups=groups, tasks=tasks, tasks_pred=probs, soft=True
        )


def test_pattern_table_online_bootstrap_gives_multi_attribute_intervals():
    rng = np.random.default_rng(12)
    n = 400
    groups = rng.choice(["m", "w"], size=n)
    tasks = rng.integers(0, 2, size=(n, 3))
    pred = np.where(rng.random((n, 3)) < 0.8, tasks, 1 - tasks)
    train = PatternCountTable.from_arrays(groups=groups, tasks=tasks)
    kw = {"group_names": ["m", "w"], "task_names": [0, 1, 2], "n_boot": 30, "random_state": 4}
    streamed = PatternCountTable.empty(**kw)
    for a in range(0, n, 64):
        streamed = streamed.update(
            groups=groups[a : a + 64], tasks=tasks[a : a + 64], tasks_pred=pred[a : a + 64]
        )
    one = PatternCountTable.empty(**kw).update(groups=groups, tasks=tasks, tasks_pred=pred)
    a = multi_directional_from_counts(train, streamed, direction="A->T")
    b = multi_directional_from_counts(train, one, direction="A->T")
    assert a.value == b.value
    assert a.ci is not None and a.ci == b.ci
    np.testing.assert_array_equal(a.replicates, b.replicates)


def test_save_load_merge_without_pickle(tmp_path):
    """Any job system can reduce tables: save each worker's table, load and add them."""
    rows = _rows(500, 13)
    kw = {"group_names": GROUPS, "task_names": TASKS, "n_boot": 25, "random_state": 5}
    paths = []
    for i, (a, b) in enumerate([(0, 120), (120, 500)]):
        part = {k: v[a:b] for k, v in rows.items()}
        table = CountTable.empty(**kw).update(**part, row_offset=a)
        paths.append(tmp_path / f"worker{i}.npz")
        save_counts(table, paths[-1])
    with np.load(paths[0], allow_pickle=False) as data:  # plain arrays only
        assert all(data[name].dtype != object for name in data.files)
    merged = load_counts(paths[0]) + load_counts(paths[1])
    sequential = CountTable.empty(**kw).update(**rows)
    _assert_tables_equal(merged, sequential)
    _assert_tables_equal(merged.replicates, sequential.replicates)
    assert merged.n_boot == 25 and merged.next_row == 500
    a = directional_from_counts(merged, direction="A->T")
    b = directional_from_counts(sequential, direction="A->T")
    assert a.ci == b.ci
    # a plain table round-trips as before
    plain = CountTable.from_arrays(**rows, group_names=GROUPS, task_names=TASKS)
    save_counts(plain, tmp_path / "plain.npz")
    loaded = load_counts(tmp_path / "plain.npz")
    _assert_tables_equal(loaded, plain)
    assert loaded.replicates is None


def test_row_index_in_any_order_equals_the_sequential_table():
    rows = _rows(9000, 14)
    kw = {"group_names": GROUPS, "task_names": TASKS, "n_boot": 12, "random_state": 8}
    sequential = CountTable.empty(**kw).update(**rows)
    permutation = np.random.default_rng(0).permutation(9000)
    # two "processes", each with an interleaved shuffled half, in batches of 500
    merged = None
    for rank in range(2):
        mine = permutation[rank::2]
        table = CountTable.empty(**kw)
        for a in range(0, len(mine), 500):
            idx = mine[a : a + 500]
            table = table.update(**{k: v[idx] for k, v in rows.items()}, row_index=idx)
        merged = table if merged is None else merged + table
    _assert_tables_equal(merged, sequential)
    _assert_tables_equal(merged.replicates, sequential.replicates)
    assert merged.next_row == 9000


def test_row_index_is_checked():
    table = CountTable.empty(group_names=GROUPS, task_names=TASKS, n_boot=3, random_state=0)
    rows = _rows(4, 15)
    with pytest.raises(ValueError, match="not both"):
        table.update(**rows, row_offset=0, row_index=[0, 1, 2, 3])
    with pytest.raises(ValueError, match="row_index: expected one non-negative"):
        table.update(**rows, row_index=[0, 1, 2])
    with pytest.raises(ValueError, match="row_index: expected one non-negative"):
        table.update(**rows, row_index=[0, -1, 2, 3])
    with pytest.raises(ValueError, match="row_index: expected one non-negative"):
        table.update(**rows, row_index=[0.0, 1.0, 2.0, 3.0])


def test_pattern_tables_save_load_and_merge_without_pickle(tmp_path):
    rng = np.random.default_rng(16)
    n = 600
    groups = rng.choice(["m", "w"], size=n)
    tasks = (rng.random((n, 40)) < 0.04).astype(int)  # two 32-bit words per pattern key
    pred = np.where(rng.random((n, 40)) < 0.97, tasks, 1 - tasks)
    kw = {"group_names": ["m", "w"], "task_names": list(range(40)), "n_boot": 10, "random_state": 2}
    for i, (a, b) in enumerate([(0, 250), (250, 600)]):
        table = PatternCountTable.empty(**kw).update(
            groups=groups[a:b], tasks=tasks[a:b], tasks_pred=pred[a:b], row_offset=a
        )
        save_counts(table, tmp_path / f"w{i}.npz")
    loaded = [load_counts(tmp_path / f"w{i}.npz") for i in range(2)]
    assert all(isinstance(t, PatternCountTable) for t in loaded)
    merged = loaded[0] + loaded[1]
    one = PatternCountTable.empty(**kw).update(groups=groups, tasks=tasks, tasks_pred=pred)
    for a, b in ((merged, one), (merged.replicates, one.replicates)):
        for role in b.patterns:
            np.testing.assert_array_equal(a.patterns[role], b.patterns[role])
            np.testing.assert_array_equal(a.pattern_totals[role], b.pattern_totals[role])
        for key in b.joint:
            np.testing.assert_array_equal(a.joint[key], b.joint[key])
        for role in b.group_totals:
            np.testing.assert_array_equal(a.group_totals[role], b.group_totals[role])
    train = PatternCountTable.from_arrays(groups=groups, tasks=tasks)
    x = multi_directional_from_counts(train, merged, direction="A->T")
    y = multi_directional_from_counts(train, one, direction="A->T")
    assert x.value == y.value and x.ci == y.ci


# ------------------------------------------------------ each stream position once
SIX_G = ["m", "w", "m", "w", "m", "w"]
SIX_T = ["a", "a", "b", "b", "a", "b"]


@pytest.mark.parametrize("table_type", [CountTable, PatternCountTable])
@pytest.mark.parametrize("n_boot", [None, 4])
def test_stream_positions_counted_twice_are_refused(table_type, n_boot):
    from biasamp.counts._count_table import ERR_ROWS_TWICE

    tasks = SIX_T if table_type is CountTable else np.eye(2, dtype=int)[[0, 0, 1, 1, 0, 1]]
    names = {"group_names": ["m", "w"], "task_names": ["a", "b"]}
    empty = table_type.empty(**names, n_boot=n_boot, random_state=0)
    first = empty.update(groups=SIX_G[:4], tasks=tasks[:4], row_offset=0)
    cases = [
        # overlapping row_offset ranges: rows 2, 3 again (8 rows from 6 before)
        (
            lambda: first.update(groups=SIX_G[2:], tasks=tasks[2:], row_offset=2),
            "row_offset",
            "2, 3",
        ),
        # a rewinding offset
        (
            lambda: first.update(groups=SIX_G[:2], tasks=tasks[:2], row_offset=0),
            "row_offset",
            "0, 1",
        ),
        # a row_index repeated within one batch, and one counted before
        (
            lambda: empty.update(groups=SIX_G[:2], tasks=tasks[:2], row_index=[5, 5]),
            "row_index",
            "5",
        ),
        (
            lambda: first.update(groups=SIX_G[:2], tasks=tasks[:2], row_index=[3, 9]),
            "row_index",
            "3",
        ),
        # two tables of the same rows merged
        (
            lambda: first + empty.update(groups=SIX_G[3:5], tasks=tasks[3:5], row_offset=3),
            "merge",
            "3",
        ),
    ]
    for call, arg, rows in cases:
        with pytest.raises(ValueError) as info:
            call()
        assert str(info.value).startswith(f"{arg}: stream positions {rows} ")
        assert "counted twice" in ERR_ROWS_TWICE
    # disjoint positions are counted: 6 rows from 6
    rest = empty.update(groups=SIX_G[4:], tasks=tasks[4:], row_index=[5, 4])
    assert (first + rest).n_rows == 6
    assert float(np.sum((first + rest).n)) == 6.0
    whole = first.update(groups=SIX_G[4:], tasks=tasks[4:])  # follows next_row = 4
    assert whole.n_rows == 6 and whole.next_row == 6


def test_plain_streams_without_positions_merge_freely():
    # no bootstrap and no positions: rows of separate workers, positions do not matter
    names = {"group_names": ["m", "w"], "task_names": ["a", "b"]}
    one = CountTable.empty(**names).update(groups=SIX_G[:3], tasks=SIX_T[:3])
    two = CountTable.empty(**names).update(groups=SIX_G[3:], tasks=SIX_T[3:])
    assert (one + two).n_rows == 6
    assert sum([one, two]).n_rows == 6  # sum() starts from 0


def test_adding_a_non_table_is_a_type_error():
    table = CountTable.from_arrays(groups=["m", "w"], tasks=["a", "b"])
    for other in (1, 1.5, "x", None):
        with pytest.raises(TypeError, match="unsupported operand"):
            table + other
    with pytest.raises(TypeError, match="Cannot merge a CountTable with a int"):
        table.merge(1)
    patterns = PatternCountTable.from_arrays(groups=["m", "w"], tasks=np.eye(2, dtype=int))
    with pytest.raises(TypeError, match="Cannot merge a CountTable with a PatternCountTable"):
        table + patterns


def test_a_huge_online_bootstrap_is_refused_with_the_estimate():
    from biasamp._memory import MEMORY_ERROR

    with pytest.raises(
        ValueError, match=r"n_boot=1000000000 online-bootstrap replicates of 1 x 1"
    ) as info:
        CountTable.empty(group_names=["m"], task_names=["a"], n_boot=10**9)
    assert "TiB" in str(info.value) and "fewer replicates" in str(info.value)
    assert "would need about" in MEMORY_ERROR
    with pytest.raises(ValueError, match="Poisson replicate weights"):
        biasamp_poisson(10**10, random_state=0)
