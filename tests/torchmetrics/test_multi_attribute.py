"""biasamp.torchmetrics.MultiAttributeBiasAmplification: batched updates equal the one-shot
multi-attribute metrics."""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pandas as pd
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("torchmetrics")

from biasamp import PatternCountTable, multi_directional, multi_mals  # noqa: E402
from biasamp.torchmetrics import MultiAttributeBiasAmplification  # noqa: E402
from biasamp.torchmetrics import _multi_attribute as module  # noqa: E402
from biasamp.torchmetrics._metrics import ERR_NEEDS_INPUT  # noqa: E402

N, G, T = 1200, 3, 7
ROLES = ("groups", "tasks", "groups_pred", "tasks_pred")


def _data(seed: int = 0, n: int = N) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    groups = rng.integers(0, G, size=n)
    tasks = (rng.random((n, T)) < 0.25 + 0.25 * (groups[:, None] == 0)).astype(np.int64)
    scores = np.clip(tasks * 0.6 + rng.random((n, T)) * 0.5, 0, 1)
    train_groups = rng.integers(0, G, size=n)
    return {
        "groups": groups,
        "tasks": tasks,
        "tasks_scores": scores,
        "tasks_pred": (scores > 0.5).astype(np.int64),
        "groups_pred": np.where(rng.random(n) < 0.75, groups, rng.integers(0, G, size=n)),
        "train_groups": train_groups,
        "train_tasks": (rng.random((n, T)) < 0.25 + 0.25 * (train_groups[:, None] == 0)).astype(
            np.int64
        ),
    }


def _functional(metric: str, d: dict[str, np.ndarray], rows: slice = slice(None)) -> Any:
    names = {"group_names": range(G), "task_names": range(T)}
    common = {
        "groups_train": d["train_groups"],
        "tasks_train": d["train_tasks"],
        "tasks": d["tasks"][rows],
        **names,
    }
    if metric == "multi_mals":
        return multi_mals(
            **common, groups_pred=d["groups_pred"][rows], tasks_pred=d["tasks_pred"][rows]
        )
    pred = {"tasks_pred": d["tasks_pred"][rows]} if metric == "A->T" else {}
    pred = pred or {"groups_pred": d["groups_pred"][rows]}
    return multi_directional(direction=metric, groups=d["groups"][rows], **common, **pred)


def _metric(d: dict[str, np.ndarray], metric: str) -> MultiAttributeBiasAmplification:
    return MultiAttributeBiasAmplification(
        metric,
        G,
        T,
        groups_train=torch.tensor(d["train_groups"]),
        tasks_train=torch.tensor(d["train_tasks"]),
    )


def _batch(d: dict[str, np.ndarray], rows: slice) -> dict[str, torch.Tensor]:
    return {role: torch.tensor(d[role][rows]) for role in ROLES}


@pytest.mark.parametrize("metric", ["A->T", "T->A", "multi_mals"])
@pytest.mark.parametrize("compact_every", [2, 1000])
def test_batched_equals_one_shot(
    metric: str, compact_every: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Nine batches (merged in place every 2 batches, or never) give the functional
    value and per-combination table exactly."""
    monkeypatch.setattr(module, "_COMPACT_EVERY", compact_every)
    d = _data()
    m = _metric(d, metric)
    edges = np.linspace(0, N, 10).astype(int)
    for a, b in zip(edges[:-1], edges[1:], strict=True):
        m.update(**_batch(d, slice(a, b)))
    got, want = m.compute_result(), _functional(metric, d)
    assert float(m.compute()) == want.value
    assert got.value == want.value and got.n_combinations == want.n_combinations
    pd.testing.assert_frame_equal(got.by_combination, want.by_combination)


def test_evaluation_table_equals_the_one_shot_table() -> None:
    """The streamed pattern counts are the table of all rows (keys, totals, joint)."""
    d = _data(1)
    m = _metric(d, "A->T")
    for a in range(0, N, 100):
        m.update(**_batch(d, slice(a, a + 100)))
    got = m.evaluation_table()
    want = PatternCountTable.from_arrays(
        groups=d["groups"],
        tasks=d["tasks"],
        tasks_pred=d["tasks_pred"],
        group_names=range(G),
        task_names=range(T),
    )
    assert got.n_rows == want.n_rows == N and float(got.n) == float(want.n)
    for role in ("tasks", "tasks_pred"):
        np.testing.assert_array_equal(got.patterns[role], want.patterns[role])
        np.testing.assert_array_equal(got.pattern_totals[role], want.pattern_totals[role])
        np.testing.assert_array_equal(got.joint[("groups", role)], want.joint[("groups", role)])
    np.testing.assert_array_equal(got.group_totals["groups"], want.group_totals["groups"])


def test_scores_multi_hot_groups_and_names() -> None:
    """Scores are thresholded, multi-hot groups count as class indices do, and the
    result carries the label names."""
    d = _data(2)
    names = {"group_names": ["a", "b", "c"], "task_names": [f"t{i}" for i in range(T)]}
    m = MultiAttributeBiasAmplification(
        "T->A",
        G,
        T,
        groups_train=d["train_groups"],
        tasks_train=d["train_tasks"],
        threshold=0.5,
        **names,
    )
    one_hot = np.eye(G, dtype=np.int64)
    for a in range(0, N, 300):
        rows = slice(a, a + 300)
        m.update(
            groups=torch.tensor(one_hot[d["groups"][rows]]),
            tasks=torch.tensor(d["tasks"][rows]),
            groups_pred=torch.tensor(d["groups_pred"][rows]),
        )
    want = _functional("T->A", d)
    got = m.compute_result()
    assert got.value == want.value
    assert set(got.by_combination["group"]) == {"a", "b", "c"}
    a_to_t = MultiAttributeBiasAmplification(
        "A->T", G, T, groups_train=d["train_groups"], tasks_train=d["train_tasks"]
    )
    a_to_t.update(
        groups=torch.tensor(d["groups"]),
        tasks=torch.tensor(d["tasks"]),
        tasks_pred=torch.tensor(d["tasks_scores"], dtype=torch.float32),
    )
    assert float(a_to_t.compute()) == _functional("A->T", d).value


def test_reset_forward_and_merge_state() -> None:
    d = _data(3)
    first, second = slice(0, 600), slice(600, N)
    m = _metric(d, "A->T")
    batch_value = m(**_batch(d, first))  # forward: the value of this batch alone
    assert float(batch_value) == _functional("A->T", d, first).value
    m(**_batch(d, second))
    assert float(m.compute()) == _functional("A->T", d).value
    m.reset()
    assert int(m.n_rows) == 0
    with pytest.raises(
        ValueError, match=re.escape(module.ERR_NO_ROWS.format(metric=type(m).__name__))
    ):
        m.compute_result()
    m.update(**_batch(d, first))
    other = _metric(d, "A->T")
    other.update(**_batch(d, second))
    m.merge_state(other)
    assert float(m.compute()) == _functional("A->T", d).value


@pytest.mark.parametrize(
    ("name", "key"),
    [("multi-a2t", "A->T"), ("Multi G->M", "A->T"), ("multi-t2a", "T->A"), ("M->G", "T->A"),
     ("multi-mals", "multi_mals"), ("Multi_MALS", "multi_mals")],
)  # fmt: skip
def test_registry_names_choose_the_metric(name, key) -> None:
    d = _data(4, n=50)
    m = _metric(d, name)
    canonical = {"A->T": "multi-a2t", "T->A": "multi-t2a", "multi_mals": "multi-mals"}[key]
    assert m.metric == canonical  # the canonical name, as every result's .metric
    m.update(**_batch(d, slice(None)))
    assert float(m.compute()) == _functional(key, d).value


def test_bad_arguments() -> None:
    d = _data(4, n=50)
    with pytest.raises(ValueError, match=re.escape(module.ERR_METRIC.format(got="mals"))):
        _metric(d, "mals")
    m = _metric(d, "multi_mals")
    message = ERR_NEEDS_INPUT.format(metric="MultiAttributeBiasAmplification", role="groups_pred")
    with pytest.raises(ValueError, match=re.escape(message)):
        m.update(tasks=torch.tensor(d["tasks"]), tasks_pred=torch.tensor(d["tasks_pred"]))
    # the adapter layer's messages name the role
    with pytest.raises(ValueError, match="groups"):
        _metric(d, "A->T").update(
            groups=torch.tensor(d["groups"] + G),
            tasks=torch.tensor(d["tasks"]),
            tasks_pred=torch.tensor(d["tasks_pred"]),
        )


def _streamed(metric: str, d: dict[str, np.ndarray], n_boot: int, seed: int) -> Any:
    """The same rows through PatternCountTable's online bootstrap in one chunk."""
    from biasamp import multi_directional_from_counts, multi_mals_from_counts

    names = {"group_names": range(G), "task_names": range(T)}
    train = PatternCountTable.from_arrays(groups=d["train_groups"], tasks=d["train_tasks"], **names)
    roles = {
        "A->T": ("groups", "tasks", "tasks_pred"),
        "T->A": ("groups", "tasks", "groups_pred"),
        "multi_mals": ("tasks", "groups_pred", "tasks_pred"),
    }[metric]
    evaluation = PatternCountTable.empty(**names, n_boot=n_boot, random_state=seed).update(
        **{role: d[role] for role in roles}
    )
    if metric == "multi_mals":
        return multi_mals_from_counts(train, evaluation)
    return multi_directional_from_counts(train, evaluation, direction=metric)


@pytest.mark.parametrize("metric", ["A->T", "T->A", "multi_mals"])
def test_online_bootstrap_equals_the_streamed_table(
    metric: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With n_boot, batches (merged in place every 3 batches, one given by row_index)
    give the interval and replicates of the same rows streamed in one chunk, exactly."""
    monkeypatch.setattr(module, "_COMPACT_EVERY", 3)
    d = _data(6)
    m = MultiAttributeBiasAmplification(
        metric,
        G,
        T,
        groups_train=d["train_groups"],
        tasks_train=d["train_tasks"],
        n_boot=30,
        random_state=7,
    )
    edges = np.linspace(0, N, 8).astype(int)
    for i, (a, b) in enumerate(zip(edges[:-1], edges[1:], strict=True)):
        if i == 3:  # the rows' global positions given explicitly, in a shuffled order
            idx = np.random.default_rng(0).permutation(np.arange(a, b))
            m.update(
                **{role: torch.tensor(d[role][idx]) for role in ROLES},
                row_index=torch.tensor(idx),
            )
        else:
            m.update(**_batch(d, slice(a, b)))
    got, want = m.compute_result(), _streamed(metric, d, 30, 7)
    assert got.value == want.value == _functional(metric, d).value
    assert got.ci == want.ci and got.se == want.se
    np.testing.assert_array_equal(got.replicates, want.replicates)


def test_more_than_32_tasks_use_several_key_words() -> None:
    """70 tasks: pattern keys of three 32-bit words round-trip through the states."""
    rng = np.random.default_rng(9)
    n, t = 900, 70
    groups = rng.integers(0, 2, n)
    tasks = (rng.random((n, t)) < 0.04 + 0.04 * groups[:, None]).astype(np.int64)
    tasks_pred = np.where(rng.random((n, t)) < 0.97, tasks, 1 - tasks)
    train_groups = rng.integers(0, 2, n)
    train_tasks = (rng.random((n, t)) < 0.04 + 0.04 * train_groups[:, None]).astype(np.int64)
    m = MultiAttributeBiasAmplification(
        "A->T", 2, t, groups_train=train_groups, tasks_train=train_tasks
    )
    for a in range(0, n, 200):
        m.update(
            groups=torch.tensor(groups[a : a + 200]),
            tasks=torch.tensor(tasks[a : a + 200]),
            tasks_pred=torch.tensor(tasks_pred[a : a + 200]),
        )
    want = multi_directional(
        direction="A->T",
        groups_train=train_groups,
        tasks_train=train_tasks,
        groups=groups,
        tasks=tasks,
        tasks_pred=tasks_pred,
        group_names=range(2),
        task_names=range(t),
    )
    got = m.compute_result()
    assert got.value == want.value and got.n_combinations == want.n_combinations > 0
    pd.testing.assert_frame_equal(got.by_combination, want.by_combination)


@pytest.mark.parametrize("metric", ["A->T", "T->A", "multi_mals"])
def test_compute_result_carries_the_group_sizes(metric: str) -> None:
    """The streamed result has the functional result's group sizes per split."""
    d = _data()
    m = _metric(d, metric)
    for rows in (slice(0, N // 2), slice(N // 2, N)):
        m.update(**_batch(d, rows))
    got, want = m.compute_result(), _functional(metric, d)
    pd.testing.assert_frame_equal(got.group_sizes, want.group_sizes)
    expected = np.bincount(d["train_groups"], minlength=G).astype(float)
    np.testing.assert_array_equal(got.group_sizes["train"].to_numpy(), expected)
    assert got.min_group_size == 30.0
