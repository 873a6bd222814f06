"""``with_label_names``: a count table laid out by other label names."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from biasamp import CountTable
from biasamp.counts._count_table import ERR_REINDEX_NAMES, with_label_names


def test_new_labels_count_zero_and_the_order_follows_the_names():
    table = CountTable.from_arrays(
        groups=["w", "m", "w"], tasks=["ski", "cook", "ski"], groups_pred=["m", "m", "w"],
        tasks_pred=["ski", "ski", "cook"],
    )  # fmt: skip
    out = with_label_names(table, group_names=["x", "w", "m"], task_names=["ski", "bake", "cook"])
    assert out.group_names == ("x", "w", "m") and out.task_names == ("ski", "bake", "cook")
    # groups x tasks, by hand: w skis twice, m cooks once
    assert out.joint[("groups", "tasks")].tolist() == [[0, 0, 0], [2, 0, 0], [0, 0, 1]]
    assert out.totals["groups_pred"].tolist() == [0, 1, 2]
    assert out.totals["tasks_pred"].tolist() == [2, 0, 1]
    assert float(out.n) == 3 and out.n_rows == 3


def test_a_label_the_names_lack_is_refused():
    table = CountTable.from_arrays(groups=["w", "m"], tasks=["ski", "ski"])
    with pytest.raises(ValueError) as info:
        with_label_names(table, group_names=["m"])
    assert str(info.value) == ERR_REINDEX_NAMES.format(kind="group", missing=["w"])


def test_what_is_recorded_on_the_table_stays(tmp_path):
    """The files a table was counted from stay recorded (the writers refuse to replace
    them), and a replicate axis is laid out too."""
    from biasamp.output._targets import _INPUT_FILES, remember_input_files

    table = CountTable.from_arrays(
        groups=["w", "m"], tasks=["ski", "ski"], replicate_weights=np.array([[1, 2], [0, 3]])
    )
    remember_input_files(table, [("paths", str(tmp_path / "a.csv"))])
    out = with_label_names(table, group_names=["m", "v", "w"])
    assert vars(out)[_INPUT_FILES] == (("paths", str(tmp_path / "a.csv")),)
    # groups x tasks per replicate, by hand: (w, m) weighted (1, 2) and (0, 3)
    assert out.joint[("groups", "tasks")].tolist() == [[[2], [0], [1]], [[3], [0], [0]]]


def test_the_same_names_return_the_table_itself():
    table = CountTable.from_arrays(groups=["w", "m"], tasks=["ski", "ski"])
    assert with_label_names(table, group_names=("m", "w")) is table


@settings(max_examples=30, deadline=None)
@given(
    rows=st.lists(st.tuples(st.sampled_from("abc"), st.sampled_from("xyz")), min_size=1),
    extra=st.lists(st.sampled_from("defg"), unique=True),
)
def test_counting_under_more_names_is_the_same_table(rows, extra):
    """Counting rows under the labels they hold and laying the table out by more names equals
    counting them under those names in the first place."""
    groups = [g for g, _ in rows]
    tasks = [t for _, t in rows]
    own = CountTable.from_arrays(groups=groups, tasks=tasks)
    names = tuple(sorted(set(groups) | set(extra)))
    direct = CountTable.from_arrays(groups=groups, tasks=tasks, group_names=names)
    laid_out = with_label_names(own, group_names=names)
    for key, counts in direct.joint.items():
        np.testing.assert_array_equal(laid_out.joint[key], counts)
    for role, counts in direct.totals.items():
        np.testing.assert_array_equal(laid_out.totals[role], counts)
