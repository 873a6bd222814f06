"""Memory estimates: a huge allocation is refused with the estimate, a small one passes."""

from __future__ import annotations

import pytest

from biasamp._memory import available_memory, check_allocation, format_bytes


def test_format_bytes() -> None:
    assert format_bytes(512) == "512 bytes"
    assert format_bytes(1536) == "1.5 KiB"
    assert format_bytes(7 * 1024**4) == "7.0 TiB"


def test_available_memory_is_read() -> None:
    available = available_memory()
    assert available is not None and available > 0


def test_small_allocation_passes() -> None:
    check_allocation(1024, what="a small table", advice="none needed")


def test_huge_allocation_is_refused_with_the_estimate() -> None:
    with pytest.raises(ValueError, match=r"n_boot=10\*\*9 tables would need about 7\.0 TiB") as e:
        check_allocation(7 * 1024**4, what="n_boot=10**9 tables", advice="use fewer replicates")
    assert "use fewer replicates" in str(e.value)


# ------------------------------------------- sizes set by a user's number are checked first
def _refused(call, what: str) -> str:
    with pytest.raises(ValueError) as info:
        call()
    message = str(info.value)
    assert message.startswith(what), message
    assert "would need about" in message and "available on this machine" in message
    return message


def test_a_million_groups_are_refused_before_the_dense_group_matrix() -> None:
    import numpy as np

    from biasamp import CountTable, bias_scores

    n = 10**6
    groups, tasks = np.arange(n), np.arange(n) % 3
    message = _refused(
        lambda: bias_scores(groups, tasks=tasks, min_group_size=None),
        "groups: 1000000 groups over 1000000 rows (a dense 1000000 x 1000000 matrix",
    )  # was a MemoryError (14.6 TiB)
    assert "7.3 TiB" in message and "CountTable.update" in message
    # in chunks of rows each dense matrix is small: the same counts, no refusal
    empty = CountTable.empty(group_names=range(n), task_names=range(3))
    table = empty.update(groups=groups[:5], tasks=tasks[:5])  # a 5 x 10**6 matrix: 40 MB
    assert table.n_rows == 5 and float(np.sum(table.joint[("groups", "tasks")])) == 5.0


@pytest.mark.parametrize("metric", ["dpa", "lic"])
def test_a_huge_n_iter_is_refused_before_its_arrays(metric: str) -> None:
    import biasamp

    groups = ["m", "w"] * 20
    calls = {
        "dpa": lambda: biasamp.dpa(direction="T->A", groups=groups, tasks=["p", "q"] * 20,
                                   groups_pred=groups, attacker="exact", n_iter=10**12),
        "lic": lambda: biasamp.lic(captions_human=["a"] * 40, captions_model=["b"] * 40,
                                   groups=groups, n_iter=10**12),
    }  # fmt: skip
    message = _refused(calls[metric], "n_iter=1000000000000 iterations would need about")
    assert "use fewer iterations (n_iter)" in message
