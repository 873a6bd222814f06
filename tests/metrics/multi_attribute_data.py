"""Random three-group splits for the multi-attribute tests (train, evaluation, predictions)."""

from __future__ import annotations

from typing import Any

import numpy as np


def three_group_splits(
    n: int,
    n_tasks: int,
    seed: int,
    *,
    base: float,
    lift: float,
    dtype: Any = int,
    weighted: bool = False,
) -> dict[str, Any]:
    """Tasks with rate ``base``, ``base + lift`` in group 0; predictions flip 20% of the
    groups and 10% of the task labels; ``sample_weight`` uniform on [0, 1) if ``weighted``."""
    rng = np.random.default_rng(seed)
    g_train = rng.integers(0, 3, n)
    t_train = (rng.random((n, n_tasks)) < base + lift * (g_train[:, None] == 0)).astype(dtype)
    g = rng.integers(0, 3, n)
    t = (rng.random((n, n_tasks)) < base + lift * (g[:, None] == 0)).astype(dtype)
    data: dict[str, Any] = dict(
        groups_train=g_train,
        tasks_train=t_train,
        groups=g,
        tasks=t,
        groups_pred=np.where(rng.random(n) < 0.8, g, rng.integers(0, 3, n)),
        tasks_pred=np.where(rng.random((n, n_tasks)) < 0.9, t, 1 - t),
    )
    if weighted:
        data["sample_weight"] = rng.random(n)
    return data
