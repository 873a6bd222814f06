"""biasamp.torchmetrics: batched updates equal the one-shot functional metrics."""

from __future__ import annotations

import re
import subprocess
import sys

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("torchmetrics")

from biasamp import CountTable, directional, mals  # noqa: E402
from biasamp.torchmetrics import (  # noqa: E402
    DirectionalBiasAmplification,
    MALSBiasAmplification,
    MultiAttributeBiasAmplification,
)
from biasamp.torchmetrics._metrics import (  # noqa: E402
    ERR_NAMES_LENGTH,
    ERR_NEEDS_INPUT,
    ERR_NUM,
)
from biasamp.torchmetrics._tensors import ERR_INDEX_DTYPE, ERR_THRESHOLD_AND_SOFT  # noqa: E402

N, G, T = 800, 3, 5


def _data(seed: int = 0, n: int = N) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    groups = rng.integers(0, G, size=n)
    tasks = (rng.random((n, T)) < 0.3 + 0.1 * groups[:, None] / G).astype(np.int64)
    scores = np.clip(tasks * 0.6 + rng.random((n, T)) * 0.5, 0, 1)
    group_scores = rng.dirichlet(np.ones(G), size=n)
    return {
        "groups": groups,
        "tasks": tasks,
        "tasks_scores": scores,
        "tasks_pred": (scores > 0.5).astype(np.int64),
        "groups_pred": np.where(rng.random(n) < 0.7, groups, rng.integers(0, G, size=n)),
        "groups_scores": group_scores,
        "train_groups": rng.integers(0, G, size=2 * n),
        "train_tasks": (rng.random((2 * n, T)) < 0.35).astype(np.int64),
    }


def _batches(n: int, count: int = 8) -> list[slice]:
    edges = np.linspace(0, n, count + 1).astype(int)
    return [slice(a, b) for a, b in zip(edges[:-1], edges[1:], strict=True)]


@pytest.mark.parametrize("direction", ["A->T", "T->A"])
@pytest.mark.parametrize("with_train", [False, True])
def test_directional_batched_equals_one_shot(direction, with_train):
    d = _data(1)
    train = (
        {
            "groups_train": torch.tensor(d["train_groups"]),
            "tasks_train": torch.tensor(d["train_tasks"]),
        }
        if with_train
        else {}
    )
    metric = DirectionalBiasAmplification(direction, G, T, **train)
    for rows in _batches(N):
        metric.update(
            groups=torch.tensor(d["groups"][rows]),
            tasks=torch.tensor(d["tasks"][rows]),
            tasks_pred=torch.tensor(d["tasks_pred"][rows]),
            groups_pred=torch.tensor(d["groups_pred"][rows]),
        )
    value = metric.compute()
    assert value.dtype == torch.float64 and value.ndim == 0
    expected = directional(
        direction=direction,
        groups=d["groups"],
        tasks=d["tasks"],
        tasks_pred=d["tasks_pred"] if direction == "A->T" else None,
        groups_pred=d["groups_pred"] if direction == "T->A" else None,
        groups_train=d["train_groups"] if with_train else None,
        tasks_train=d["train_tasks"] if with_train else None,
        group_names=range(G),
        task_names=range(T),
    )
    assert abs(float(value) - expected.value) <= 1e-12
    result = metric.compute_result()
    np.testing.assert_allclose(
        result.by_pair["delta"], expected.by_pair["delta"], rtol=0, atol=1e-12
    )
    assert list(result.by_pair["group"]) == list(expected.by_pair["group"])
    assert int(metric.n_rows) == N


def test_mals_batched_equals_one_shot():
    d = _data(2)
    metric = MALSBiasAmplification(
        G, T, groups_train=torch.tensor(d["train_groups"]), tasks_train=d["train_tasks"], margin=0.1
    )
    for rows in _batches(N):
        metric.update(
            groups_pred=torch.tensor(d["groups_pred"][rows]),
            tasks_pred=torch.tensor(d["tasks_pred"][rows]),
        )
    expected = mals(
        groups_train=d["train_groups"],
        tasks_train=d["train_tasks"],
        groups_pred=d["groups_pred"],
        tasks_pred=d["tasks_pred"],
        group_names=range(G),
        task_names=range(T),
        margin=0.1,
    )
    assert abs(float(metric.compute()) - expected.value) <= 1e-12
    result = metric.compute_result()
    assert result.violations == expected.violations
    np.testing.assert_allclose(result.by_pair["delta"], expected.by_pair["delta"], atol=1e-12)


def test_tensor_forms_give_the_functional_value():
    d = _data(3)
    one_hot_groups = np.eye(G, dtype=bool)[d["groups"]]
    expected = directional(
        direction="A->T",
        groups=d["groups"],
        tasks=d["tasks"],
        tasks_pred=d["tasks_pred"],
        group_names=range(G),
        task_names=range(T),
    ).value
    # multi-hot bool groups, float 0/1 tasks, scores with a threshold
    metric = DirectionalBiasAmplification("A->T", G, T, threshold=0.5)
    for rows in _batches(N):
        metric.update(
            groups=torch.tensor(one_hot_groups[rows]),
            tasks=torch.tensor(d["tasks"][rows], dtype=torch.float32),
            tasks_pred=torch.tensor(d["tasks_scores"][rows], dtype=torch.float64),
        )
    assert abs(float(metric.compute()) - expected) <= 1e-12
    # one threshold per column
    per_column = DirectionalBiasAmplification("A->T", G, T, threshold=[0.5] * T)
    per_column.update(
        groups=torch.tensor(d["groups"]),
        tasks=torch.tensor(d["tasks"]),
        tasks_pred=torch.tensor(d["tasks_scores"]),
    )
    assert abs(float(per_column.compute()) - expected) <= 1e-12
    # soft predictions: expected counts, as directional(soft=True)
    soft = DirectionalBiasAmplification("T->A", G, T, soft=True)
    for rows in _batches(N):
        soft.update(
            groups=torch.tensor(d["groups"][rows]),
            tasks=torch.tensor(d["tasks"][rows]),
            groups_pred=torch.tensor(d["groups_scores"][rows]),
        )
    soft_expected = directional(
        direction="T->A",
        groups=d["groups"],
        tasks=d["tasks"],
        groups_pred=d["groups_scores"],
        soft=True,
        group_names=range(G),
        task_names=range(T),
    ).value
    assert abs(float(soft.compute()) - soft_expected) <= 1e-12


def test_online_bootstrap_equals_the_functional_bootstrap():
    d = _data(4)
    metric = DirectionalBiasAmplification("A->T", G, T, n_boot=64, random_state=9, ci=0.9)
    for rows in _batches(N):
        metric.update(
            groups=torch.tensor(d["groups"][rows]),
            tasks=torch.tensor(d["tasks"][rows]),
            tasks_pred=torch.tensor(d["tasks_pred"][rows]),
        )
    result = metric.compute_result()
    expected = directional(
        direction="A->T",
        groups=d["groups"],
        tasks=d["tasks"],
        tasks_pred=d["tasks_pred"],
        group_names=range(G),
        task_names=range(T),
        n_boot=64,
        random_state=9,
        ci=0.9,
    )
    assert result.ci == expected.ci and result.ci_level == 0.9
    np.testing.assert_array_equal(result.replicates, expected.replicates)
    # the same table outside torch
    table = metric.count_table()
    assert isinstance(table, CountTable) and table.n_boot == 64 and table.next_row == N


def test_reset_forward_and_merge_state():
    d = _data(5)
    kw = {"groups_train": d["train_groups"], "tasks_train": d["train_tasks"]}
    metric = DirectionalBiasAmplification("A->T", G, T, n_boot=16, random_state=1, **kw)
    first, second = slice(0, 400), slice(400, N)

    def batch(rows: slice) -> dict[str, torch.Tensor]:
        return {
            "groups": torch.tensor(d["groups"][rows]),
            "tasks": torch.tensor(d["tasks"][rows]),
            "tasks_pred": torch.tensor(d["tasks_pred"][rows]),
        }

    def functional(rows: slice, **extra) -> float:
        return directional(
            direction="A->T",
            groups=d["groups"][rows],
            tasks=d["tasks"][rows],
            tasks_pred=d["tasks_pred"][rows],
            groups_train=d["train_groups"],
            tasks_train=d["train_tasks"],
            **extra,
        )

    # forward returns the batch value and accumulates the global state
    batch_value = metric(**batch(first))
    assert abs(float(batch_value) - functional(first).value) <= 1e-12
    metric(**batch(second))
    whole = functional(slice(0, N), n_boot=16, random_state=1)
    assert abs(float(metric.compute()) - whole.value) <= 1e-12
    assert metric.compute_result().ci == whole.ci  # forward kept the row positions
    # reset forgets everything, including row positions
    metric.reset()
    assert int(metric.n_rows) == 0
    metric.update(**batch(first))
    assert metric.compute_result().ci == functional(first, n_boot=16, random_state=1).ci
    # merge_state: another metric's rows (given their positions) add up
    other = DirectionalBiasAmplification("A->T", G, T, n_boot=16, random_state=1, **kw)
    other.update(**batch(second), row_offset=400)
    metric.merge_state(other)
    assert abs(float(metric.compute()) - whole.value) <= 1e-12
    assert metric.compute_result().ci == whole.ci


def test_label_names_and_counts_train():
    d = _data(6)
    train = CountTable.from_arrays(
        groups=np.array(["a", "b", "c"])[d["train_groups"]],
        tasks=d["train_tasks"],
        task_names=list("vwxyz"),
    )
    metric = DirectionalBiasAmplification(
        "A->T", G, T, counts_train=train, group_names=["a", "b", "c"], task_names=list("vwxyz")
    )
    metric.update(
        groups=torch.tensor(d["groups"]),
        tasks=torch.tensor(d["tasks"]),
        tasks_pred=torch.tensor(d["tasks_pred"]),
    )
    result = metric.compute_result()
    assert set(result.by_pair["group"]) == {"a", "b", "c"}
    expected = directional(
        direction="A->T",
        groups=np.array(["a", "b", "c"])[d["groups"]],
        tasks=d["tasks"],
        tasks_pred=d["tasks_pred"],
        counts_train=train,
    )
    assert abs(result.value - expected.value) <= 1e-12
    # training labels given as names
    by_name = DirectionalBiasAmplification(
        "A->T",
        G,
        T,
        groups_train=np.array(["a", "b", "c"])[d["train_groups"]],
        tasks_train=d["train_tasks"],
        group_names=["a", "b", "c"],
        task_names=list("vwxyz"),
    )
    by_name.update(
        groups=torch.tensor(d["groups"]),
        tasks=torch.tensor(d["tasks"]),
        tasks_pred=torch.tensor(d["tasks_pred"]),
    )
    assert abs(float(by_name.compute()) - expected.value) <= 1e-12


def test_bad_arguments():
    with pytest.raises(ValueError, match=ERR_NUM.format(arg="num_groups", got=0)):
        DirectionalBiasAmplification("A->T", 0, 3)
    with pytest.raises(ValueError, match="direction"):
        DirectionalBiasAmplification("sideways", 2, 3)
    with pytest.raises(
        ValueError, match=re.escape(ERR_NAMES_LENGTH.split("(")[0].format(arg="group_names", k=2))
    ):
        DirectionalBiasAmplification("A->T", 2, 3, group_names=["m"])
    with pytest.raises(ValueError, match="needs the training side"):
        MALSBiasAmplification(2, 3)
    with pytest.raises(ValueError, match=ERR_THRESHOLD_AND_SOFT):
        DirectionalBiasAmplification("A->T", 2, 3, soft=True, threshold=0.5)
    metric = DirectionalBiasAmplification("A->T", 2, 3)
    with pytest.raises(
        ValueError,
        match=ERR_NEEDS_INPUT.format(metric="DirectionalBiasAmplification", role="tasks_pred"),
    ):
        metric.update(groups=torch.tensor([0, 1]), tasks=torch.tensor([0, 1]))
    with pytest.raises(
        TypeError, match=re.escape(ERR_INDEX_DTYPE.split(",")[0].format(arg="groups", k=2))
    ):
        metric.update(
            groups=torch.tensor([0.2, 0.8]),
            tasks=torch.tensor([0, 1]),
            tasks_pred=torch.tensor([0, 1]),
        )
    with pytest.raises(ValueError, match=r"class indices must lie in \[0, 2\)"):
        metric.update(
            groups=torch.tensor([0, 2]), tasks=torch.tensor([0, 1]), tasks_pred=torch.tensor([0, 1])
        )
    with pytest.raises(
        ValueError, match=r"tasks_pred: these look like scores .* threshold= .* soft=True"
    ):
        metric.update(
            groups=torch.tensor([0, 1]),
            tasks=torch.tensor([0, 1]),
            tasks_pred=torch.tensor([[0.3, 0.2, 0.1], [0.9, 0.0, 0.0]]),
        )
    with pytest.raises(ValueError, match="indicator values must be 0 or 1"):  # not scores
        metric.update(
            groups=torch.tensor([0, 1]),
            tasks=torch.tensor([0, 1]),
            tasks_pred=torch.tensor([[2, 0, 0], [1, 0, 0]]),
        )
    scored = DirectionalBiasAmplification("A->T", 2, 3, threshold=0.5)
    with pytest.raises(ValueError, match="tasks_pred: contains NaN"):
        scored.update(
            groups=torch.tensor([0, 1]),
            tasks=torch.tensor([0, 1]),
            tasks_pred=torch.tensor([[float("nan"), 0.2, 0.1], [0.9, 0.0, 0.0]]),
        )
    assert int(metric.n_rows) == 0  # failed updates count nothing


def test_import_biasamp_does_not_import_torch():
    code = "import sys, biasamp; print('torch' in sys.modules or 'torchmetrics' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_metric_collection_feeds_each_metric_its_roles():
    from torchmetrics import MetricCollection

    d = _data(7)
    train = {"groups_train": d["train_groups"], "tasks_train": d["train_tasks"]}
    collection = MetricCollection(
        {
            "a2t": DirectionalBiasAmplification("A->T", G, T, **train),
            "t2a": DirectionalBiasAmplification("T->A", G, T, **train),
            "mals": MALSBiasAmplification(G, T, **train),
        }
    )
    for rows in _batches(N):
        collection.update(
            groups=torch.tensor(d["groups"][rows]),
            tasks=torch.tensor(d["tasks"][rows]),
            groups_pred=torch.tensor(d["groups_pred"][rows]),
            tasks_pred=torch.tensor(d["tasks_pred"][rows]),
        )
    values = collection.compute()
    names = {"group_names": range(G), "task_names": range(T)}
    for key, direction, pred in (("a2t", "A->T", "tasks_pred"), ("t2a", "T->A", "groups_pred")):
        expected = directional(
            direction=direction,
            groups=d["groups"],
            tasks=d["tasks"],
            **{pred: d[pred]},
            groups_train=d["train_groups"],
            tasks_train=d["train_tasks"],
            **names,
        )
        assert abs(float(values[key]) - expected.value) <= 1e-12
    expected_mals = mals(
        groups_train=d["train_groups"],
        tasks_train=d["train_tasks"],
        groups_pred=d["groups_pred"],
        tasks_pred=d["tasks_pred"],
        **names,
    )
    assert abs(float(values["mals"]) - expected_mals.value) <= 1e-12


def test_plot_returns_a_figure():
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    d = _data(8)
    metric = DirectionalBiasAmplification("A->T", G, T)
    values = []
    for rows in _batches(N, 4):
        metric.update(
            groups=torch.tensor(d["groups"][rows]),
            tasks=torch.tensor(d["tasks"][rows]),
            tasks_pred=torch.tensor(d["tasks_pred"][rows]),
        )
        values.append(metric.compute())
    fig, ax = metric.plot(values)
    assert len(ax.lines) >= 1
    plt.close(fig)


# ------------------------------------------------------ merging by label name
def _halves():
    rng = np.random.default_rng(11)
    n = 300
    groups = rng.choice(["m", "w"], n)
    tasks = (rng.random((n, 3)) < 0.3 + 0.25 * (groups == "m")[:, None]).astype(np.int64)
    pred = np.where(rng.random((n, 3)) < 0.8, tasks, 1 - tasks)
    return groups, tasks, pred


@pytest.mark.parametrize("n_boot", [None, 20])
def test_merge_state_matches_label_names_in_another_order(n_boot):
    groups, tasks, pred = _halves()
    expected = directional(
        direction="A->T", groups=groups, tasks=tasks, tasks_pred=pred, n_boot=n_boot, random_state=4
    )
    a = DirectionalBiasAmplification(
        "A->T", 2, 3, group_names=["m", "w"], n_boot=n_boot, random_state=4
    )
    b = DirectionalBiasAmplification(
        "A->T", 2, 3, group_names=["w", "m"], n_boot=n_boot, random_state=4
    )
    # each metric takes its rows by name (mapped to its own class indices)
    a.update(
        groups=list(groups[:150]),
        tasks=torch.tensor(tasks[:150]),
        tasks_pred=torch.tensor(pred[:150]),
    )
    b.update(
        groups=groups[150:],
        tasks=torch.tensor(tasks[150:]),
        tasks_pred=torch.tensor(pred[150:]),
        row_offset=150,
    )
    a.merge_state(b)
    result = a.compute_result()
    assert result.value == pytest.approx(expected.value, abs=1e-12)
    assert float(a.compute()) == pytest.approx(expected.value, abs=1e-12)
    if n_boot:
        np.testing.assert_allclose(result.ci, expected.ci, rtol=0, atol=1e-12)
    # the same rows by class index give the same counts
    c = DirectionalBiasAmplification("A->T", 2, 3, group_names=["m", "w"])
    c.update(
        groups=torch.tensor((groups == "w").astype(np.int64)),
        tasks=torch.tensor(tasks),
        tasks_pred=torch.tensor(pred),
    )
    assert float(c.compute()) == pytest.approx(expected.value, abs=1e-12)


def test_merge_state_refuses_different_names_seeds_and_sizes():
    from biasamp.torchmetrics._metrics import ERR_MERGE_LABELS, ERR_MERGE_SETTINGS

    base = DirectionalBiasAmplification("A->T", 2, 3, group_names=["m", "w"])
    with pytest.raises(ValueError, match=r"group names differ \(\['m', 'w'\] here, \['m', 'x'\]"):
        base.merge_state(DirectionalBiasAmplification("A->T", 2, 3, group_names=["m", "x"]))
    with pytest.raises(ValueError, match=r"differ in num_tasks \(3 here, 4 incoming\)"):
        base.merge_state(DirectionalBiasAmplification("A->T", 2, 4, group_names=["m", "w"]))
    with pytest.raises(ValueError, match=r"differ in roles"):
        base.merge_state(DirectionalBiasAmplification("T->A", 2, 3, group_names=["m", "w"]))
    seeded = DirectionalBiasAmplification("A->T", 2, 3, n_boot=5, random_state=1)
    with pytest.raises(ValueError, match=r"differ in random_state \(1 here, 2 incoming\)"):
        seeded.merge_state(DirectionalBiasAmplification("A->T", 2, 3, n_boot=5, random_state=2))
    with pytest.raises(ValueError, match=r"differ in n_boot"):
        seeded.merge_state(DirectionalBiasAmplification("A->T", 2, 3, random_state=1))
    with pytest.raises(ValueError, match=r"incoming state 'totals_tasks' has shape \(4,\)"):
        base.merge_state({**base.metric_state, "totals_tasks": torch.zeros(4, dtype=torch.float64)})
    assert "{what}" in ERR_MERGE_SETTINGS and "{kind}" in ERR_MERGE_LABELS


def test_update_messages_for_new_users():
    from biasamp.torchmetrics._metrics import ERR_NO_ROWS_COUNTED, ERR_POSITIONAL

    metric = DirectionalBiasAmplification("A->T", 2, 3, group_names=["m", "w"])
    with pytest.raises(
        TypeError, match=r"^DirectionalBiasAmplification\.update takes keyword"
    ) as info:
        metric.update(torch.tensor([0]), torch.tensor([[1, 0, 0]]), torch.tensor([[1, 0, 0]]))
    assert "_CountTableMetric" not in str(info.value)
    assert "update(groups=..., tasks=..., tasks_pred=...)" in str(info.value)
    assert "{metric}" in ERR_POSITIONAL
    fresh = DirectionalBiasAmplification("A->T", 2, 3)
    with pytest.warns(UserWarning), pytest.raises(ValueError, match="no rows were counted"):
        fresh.compute()  # torchmetrics warns; biasamp says why there is no value
    assert "no rows were counted" in ERR_NO_ROWS_COUNTED
    with pytest.raises(
        ValueError, match=r"groups: label 'x' \(row 1\) is not one of the group_names"
    ):
        metric.update(groups=["m", "x"], tasks=torch.eye(3)[:2], tasks_pred=torch.eye(3)[:2])
    unnamed = DirectionalBiasAmplification("A->T", 2, 3)
    with pytest.raises(ValueError, match=r"without group_names; pass group_names=\[\.\.\.\]"):
        unnamed.update(groups=["m", "w"], tasks=torch.eye(3)[:2], tasks_pred=torch.eye(3)[:2])
    multi = MultiAttributeBiasAmplification(
        "A->T", 2, 3, groups_train=torch.tensor([0, 1]), tasks_train=torch.eye(3)[:2]
    )
    with pytest.raises(TypeError, match=r"^MultiAttributeBiasAmplification\.update takes keyword"):
        multi.update(torch.tensor([0]))


@pytest.mark.parametrize("n_boot", [None, 5])
def test_a_metric_refuses_stream_positions_counted_twice(n_boot):
    batch = {
        "groups": torch.tensor([0, 1, 0]),
        "tasks": torch.eye(3)[[0, 1, 2]],
        "tasks_pred": torch.eye(3)[[0, 1, 1]],
    }
    metric = DirectionalBiasAmplification("A->T", 2, 3, n_boot=n_boot, random_state=0)
    metric.update(**batch, row_offset=0)
    with pytest.raises(
        ValueError, match=r"^row_offset: stream positions 1, 2 would be counted twice"
    ):
        metric.update(**batch, row_offset=1)
    with pytest.raises(ValueError, match=r"^row_index: stream positions 7 would be counted twice"):
        metric.update(**batch, row_index=torch.tensor([7, 7, 8]))
    metric.update(**batch)  # follows the rows seen: positions 3, 4, 5
    with pytest.raises(ValueError, match=r"^row_index: stream positions 5 would"):
        metric.update(**batch, row_index=torch.tensor([5, 6, 9]))
    assert int(metric.n_rows) == 6
    other = DirectionalBiasAmplification("A->T", 2, 3, n_boot=n_boot, random_state=0)
    other.update(**batch, row_offset=4)
    with pytest.raises(ValueError, match=r"^merge: stream positions 4, 5 would be counted twice"):
        metric.merge_state(other)
    metric.reset()
    metric.update(**batch, row_offset=0)  # a new pass over the data after reset
    assert int(metric.n_rows) == 3


def test_compute_result_carries_group_sizes_and_warns():
    from biasamp import SmallGroupWarning

    d = _data(3, n=60)
    metric = DirectionalBiasAmplification(
        "T->A",
        G,
        T,
        groups_train=torch.tensor(d["train_groups"]),
        tasks_train=torch.tensor(d["train_tasks"]),
        min_group_size=25,
    )
    for rows in _batches(60, 3):
        metric.update(
            groups=torch.tensor(d["groups"][rows]),
            tasks=torch.tensor(d["tasks"][rows]),
            groups_pred=torch.tensor(d["groups_pred"][rows]),
        )
    with pytest.warns(SmallGroupWarning, match="evaluation split") as caught:
        result = metric.compute_result()
    sizes = {
        "train": np.bincount(d["train_groups"], minlength=G).astype(float),
        "evaluation": np.bincount(d["groups"], minlength=G).astype(float),
        "predicted": np.bincount(d["groups_pred"], minlength=G).astype(float),
    }
    assert list(result.group_sizes.columns) == list(sizes)
    for split, counts in sizes.items():
        np.testing.assert_array_equal(result.group_sizes[split].to_numpy(), counts)
    small = [g for g in range(G) if 0 < sizes["evaluation"][g] < 25]
    assert small and all(sizes["train"] >= 25)  # 120 training rows, 60 evaluation rows
    assert len(caught) == 1 and result.small_groups == tuple(small)
    with pytest.raises(ValueError, match="min_group_size"):
        DirectionalBiasAmplification("A->T", G, T, min_group_size=-1)
    mals_metric = MALSBiasAmplification(
        G, T, groups_train=d["train_groups"], tasks_train=d["train_tasks"], min_group_size=None
    )
    mals_metric.update(groups_pred=torch.tensor(d["groups_pred"]), tasks_pred=d["tasks_pred"])
    got = mals_metric.compute_result()
    np.testing.assert_array_equal(got.group_sizes["predicted"].to_numpy(), sizes["predicted"])
    assert got.small_groups == ()
