"""The swap test streams through torchmetrics: ``DirectionalBiasAmplification(n_perm=)``
counts each batch's swapped tables with indicators drawn by global row position, so
batches in order, shuffled batches with ``row_index`` and merged metrics all equal
``biasamp.directional(..., n_perm=)`` on the same rows."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("torchmetrics")

import biasamp  # noqa: E402
from biasamp.torchmetrics import DirectionalBiasAmplification  # noqa: E402
from biasamp.torchmetrics._metrics import ERR_SWAP_SOFT  # noqa: E402

RNG = np.random.default_rng(0)
N = 1500
G = RNG.integers(0, 2, N)
T = RNG.integers(0, 3, N)
T_PRED = np.where(RNG.random(N) < 0.3, G, T)
G_TRAIN = RNG.integers(0, 2, 400)
T_TRAIN = (G_TRAIN + RNG.integers(0, 2, 400)) % 3
COMMON = dict(groups_train=G_TRAIN, tasks_train=T_TRAIN, min_group_size=None)


@pytest.fixture(scope="module")
def reference():
    return biasamp.directional(
        direction="A->T", groups=G, tasks=T, tasks_pred=T_PRED, n_perm=49, random_state=3,
        task_names=[0, 1, 2], **COMMON,
    )  # fmt: skip


def metric():
    return DirectionalBiasAmplification(
        direction="A->T", num_groups=2, num_tasks=3, n_perm=49, random_state=3, **COMMON
    )


def batch(rows):
    return {
        "groups": torch.tensor(G[rows]),
        "tasks": torch.tensor(T[rows]),
        "tasks_pred": torch.tensor(T_PRED[rows]),
    }


def test_batches_in_order_equal_the_rows_in_memory(reference):
    m = metric()
    for start in range(0, N, 311):
        m.update(**batch(np.arange(start, min(N, start + 311))))
    result = m.compute_result()
    assert result.p_value == reference.p_value
    assert result.null.mean == pytest.approx(reference.null.mean, abs=1e-12)
    assert result.value == pytest.approx(reference.value)


def test_shuffled_batches_with_row_index_and_merged_metrics(reference):
    order = np.random.default_rng(1).permutation(N)
    first, second = metric(), metric()
    for k, start in enumerate(range(0, N, 400)):
        rows = order[start : start + 400]
        (first if k % 2 else second).update(**batch(rows), row_index=torch.tensor(rows))
    first.merge_state(second)
    result = first.compute_result()
    assert result.p_value == reference.p_value
    assert result.null.mean == pytest.approx(reference.null.mean, abs=1e-12)


def test_reset_restarts_the_positions(reference):
    m = metric()
    m.update(**batch(np.arange(0, 700)))
    m.reset()
    m.update(**batch(np.arange(0, 700)))
    m.update(**batch(np.arange(700, N)))
    assert m.compute_result().p_value == reference.p_value


def test_soft_predictions_are_refused():
    with pytest.raises(ValueError) as info:
        DirectionalBiasAmplification(
            direction="A->T", num_groups=2, num_tasks=3, soft=True, n_perm=5
        )
    assert str(info.value) == ERR_SWAP_SOFT


def test_without_n_perm_no_test():
    m = DirectionalBiasAmplification(direction="A->T", num_groups=2, num_tasks=3, **COMMON)
    m.update(**batch(np.arange(100)))
    assert m.compute_result().p_value is None
