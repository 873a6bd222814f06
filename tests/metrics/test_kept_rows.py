"""``count_kept_rows(..., table=)``: the kept rows' counts taken from the split's own
table equal the counts of the kept rows themselves, bit for bit."""

from __future__ import annotations

import numpy as np
import pytest

from biasamp import CountTable
from biasamp.inputs._label_matrix import as_label_matrix
from biasamp.metrics._splits import count_kept_rows

# rows 2 and 5 have no group and no task; row 4 has a group but no task
GROUPS = np.array([[1, 0], [0, 1], [0, 0], [1, 0], [0, 1], [0, 0]])
TASKS = np.array([[1, 0], [0, 1], [0, 0], [1, 1], [0, 0], [0, 0]])


def _matrices() -> dict:
    return {
        "groups": as_label_matrix(GROUPS, arg="groups"),
        "tasks": as_label_matrix(TASKS, arg="tasks"),
    }


@pytest.mark.parametrize("train_rows", ["labelled", "with_task", "all"])
@pytest.mark.parametrize("weights", [None, np.array([1.0, 2.0, 3.0, 0.5, 1.5, 2.5])])
def test_counts_from_the_table_equal_a_recount(train_rows: str, weights: object) -> None:
    matrices = _matrices()
    table = CountTable.from_label_matrices(matrices, sample_weight=weights)
    derived = count_kept_rows(
        matrices, sample_weight=weights, train_rows=train_rows, arg="groups", table=table
    )
    recount = count_kept_rows(matrices, sample_weight=weights, train_rows=train_rows, arg="groups")
    assert float(derived.n) == float(recount.n)
    for role in ("groups", "tasks"):
        np.testing.assert_array_equal(derived.totals[role], recount.totals[role])
    np.testing.assert_array_equal(
        derived.joint[("groups", "tasks")], recount.joint[("groups", "tasks")]
    )


def test_labelled_drops_the_unlabelled_rows() -> None:
    matrices = _matrices()
    table = CountTable.from_label_matrices(matrices)
    kept = count_kept_rows(matrices, train_rows="labelled", arg="groups", table=table)
    assert float(kept.n) == 4.0 and kept.n_rows == 4  # rows 2 and 5 left out
    np.testing.assert_array_equal(kept.joint[("groups", "tasks")], [[2, 1], [0, 1]])
