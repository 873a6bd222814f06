"""Metric calls that would need terabytes are refused with the estimate, not a MemoryError."""

from __future__ import annotations

import re

import numpy as np
import pytest

import biasamp
from biasamp._memory import MEMORY_ERROR

FIXED = re.escape(MEMORY_ERROR.split("{needed}")[1].split("{available}")[0])
TASKS = np.array([[1, 1], [1, 0], [0, 1], [1, 1]])


@pytest.mark.parametrize("metric", ["mals", "directional", "multi_mals"])
def test_a_billion_bootstrap_replicates_are_refused(metric: str) -> None:
    calls = {
        "mals": lambda: biasamp.mals(
            groups_train=["a", "b"],
            tasks_train=["x", "y"],
            groups_pred=["a", "b"],
            tasks_pred=["x", "y"],
            n_boot=10**9,
        ),
        "directional": lambda: biasamp.directional(
            direction="A->T",
            groups=["a", "b"],
            tasks=["x", "y"],
            tasks_pred=["y", "x"],
            n_boot=10**9,
        ),
        "multi_mals": lambda: biasamp.multi_mals(
            groups_train=["a", "b"] * 2,
            tasks_train=TASKS,
            tasks=TASKS,
            groups_pred=["a", "b"] * 2,
            tasks_pred=TASKS,
            n_boot=10**9,
        ),
    }
    with pytest.raises(ValueError, match=FIXED) as info:
        calls[metric]()
    assert "n_boot=1000000000" in str(info.value)
    assert "TiB" in str(info.value)


def test_a_million_distinct_groups_and_tasks_are_refused() -> None:
    ids = np.arange(10**6)
    with pytest.raises(ValueError, match=FIXED) as info:
        biasamp.bias_scores(ids, tasks=ids)
    assert "1000000 distinct groups (groups) x 1000000 distinct tasks (tasks)" in str(info.value)
    with pytest.raises(ValueError, match=r"\(groups_train\) x 1000000 distinct tasks"):
        biasamp.mals(groups_train=ids, tasks_train=ids, groups_pred=[1], tasks_pred=[1])


def test_a_modest_bootstrap_runs() -> None:
    result = biasamp.mals(
        groups_train=["a", "b", "a"],
        tasks_train=["x", "y", "y"],
        groups_pred=["a", "b", "b"],
        tasks_pred=["x", "y", "y"],
        n_boot=20,
        random_state=0,
    )
    assert result.replicates is not None and result.replicates.shape == (20,)
