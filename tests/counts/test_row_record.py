"""Stream positions as sorted disjoint intervals: overlaps refused on every path, no bitmap."""

from __future__ import annotations

import pickle
import tracemalloc

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from biasamp.counts import CountTable, PatternCountTable
from biasamp.counts._row_record import (
    ERR_POSITION_RANGE,
    ERR_ROWS_TWICE,
    RowRecord,
    intersection,
    runs,
    union,
)

SIX_G = ["m", "w", "m", "w", "m", "w"]
SIX_T = ["a", "a", "b", "b", "a", "b"]
NAMES = {"group_names": ["m", "w"], "task_names": ["a", "b"]}


def twice(arg: str, rows: str, how: str) -> str:
    return ERR_ROWS_TWICE.format(arg=arg, rows=rows, how=how)


@pytest.mark.parametrize("table_type", [CountTable, PatternCountTable])
def test_a_stream_merged_with_overlapping_stated_rows_is_refused_without_n_boot(table_type):
    tasks = SIX_T if table_type is CountTable else np.eye(2, dtype=int)[[0, 0, 1, 1, 0, 1]]
    empty = table_type.empty(**NAMES)
    in_order = empty.update(groups=SIX_G[:4], tasks=tasks[:4])  # positions 0 .. 3
    stated = empty.update(groups=SIX_G[2:], tasks=tasks[2:], row_offset=2)  # positions 2 .. 5
    for call in (lambda: in_order + stated, lambda: stated + in_order):
        with pytest.raises(ValueError) as info:
            call()  # 8 rows from 6 before
        assert str(info.value) == twice("merge", "2, 3", "both tables counted them")
    with pytest.raises(ValueError) as info:
        in_order.update(groups=SIX_G[2:], tasks=tasks[2:], row_offset=2)
    assert str(info.value) == twice("row_offset", "2, 3", "already counted")
    indexed = empty.update(groups=SIX_G[:3], tasks=tasks[:3], row_index=[9, 3, 1])
    with pytest.raises(ValueError) as info:
        in_order + indexed
    assert str(info.value) == twice("merge", "1, 3", "both tables counted them")
    # disjoint: 6 rows from 6
    rest = empty.update(groups=SIX_G[4:], tasks=tasks[4:], row_offset=4)
    assert (in_order + rest).n_rows == 6
    assert float(np.sum((in_order + rest).n)) == 6.0
    # streams of separate workers that state no positions still merge freely
    other = empty.update(groups=SIX_G[:4], tasks=tasks[:4])
    assert (in_order + other).n_rows == 8


def test_a_huge_row_offset_costs_two_integers_not_a_bitmap():
    empty = CountTable.empty(**NAMES)
    tracemalloc.start()
    try:
        table = empty.update(groups=SIX_G, tasks=SIX_T, row_offset=2**63 - 10)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 10 * 2**20  # was a 1 EiB bitmap
    assert table.n_rows == 6 and table.next_row == 2**63 - 4
    assert table.rows_counted.n_positions == 6
    starts, stops = table.rows_counted.intervals
    assert starts.tolist() == [2**63 - 10] and stops.tolist() == [2**63 - 4]
    with pytest.raises(ValueError) as info:
        empty.update(groups=SIX_G, tasks=SIX_T, row_offset=2**63 - 3)
    assert str(info.value) == ERR_POSITION_RANGE.format(
        arg="row_offset", start=2**63 - 3, stop=2**63 + 3
    )
    boot = CountTable.empty(**NAMES, n_boot=3, random_state=0)
    far = boot.update(groups=SIX_G, tasks=SIX_T, row_offset=2**62)
    assert far.rows_counted.n_positions == 6


def test_a_shuffled_stream_is_recorded_as_runs():
    rng = np.random.default_rng(0)
    order = rng.permutation(200_000)
    record = RowRecord()
    for a in range(0, order.size, 1000):  # a shuffling sampler's batches
        record.add(order[a : a + 1000], arg="row_index")
    starts, stops = record.intervals
    assert starts.tolist() == [0] and stops.tolist() == [200_000]
    with pytest.raises(ValueError) as info:
        record.add(np.array([199_999, 5, 200_000]), arg="row_index")
    assert str(info.value) == twice("row_index", "5, 199999", "already counted")


def test_records_travel_by_pickle_as_intervals():
    record = RowRecord()
    record.add(np.array([4, 5, 9, 1]), arg="row_index")
    back = pickle.loads(pickle.dumps(record))
    assert [a.tolist() for a in back.intervals] == [[1, 4, 9], [2, 6, 10]]
    assert back.stated and back.n_positions == 4


positions = st.lists(st.integers(0, 60), max_size=20, unique=True)


@settings(max_examples=150, deadline=None)
@given(batches=st.lists(positions, min_size=1, max_size=8), other=positions)
def test_the_record_is_the_set_of_positions(batches, other):
    record, seen = RowRecord(), set()
    for batch in batches:  # a brute force: a Python set of every position
        if seen & set(batch):
            with pytest.raises(ValueError) as info:
                record.add(np.array(batch, dtype=np.int64), arg="row_index")
            first = sorted(seen & set(batch))
            shown = ", ".join(map(str, first[:5]))
            if len(first) > 5:
                shown += f" (and {len(first) - 5} more)"
            assert str(info.value) == twice("row_index", shown, "already counted")
        else:
            record.add(np.array(batch, dtype=np.int64), arg="row_index")
            seen |= set(batch)
        starts, stops = record.intervals
        got = {int(p) for a, b in zip(starts, stops, strict=True) for p in range(a, b)}
        assert got == seen
        assert (starts[1:] > stops[:-1]).all()  # disjoint, sorted, coalesced
    theirs = runs(np.array(sorted(other), dtype=np.int64))
    both = intersection(record.intervals, theirs)
    assert {p for a, b in zip(*both, strict=True) for p in range(a, b)} == seen & set(other)
    joined = union(record.intervals, theirs)
    assert {p for a, b in zip(*joined, strict=True) for p in range(a, b)} == seen | set(other)
