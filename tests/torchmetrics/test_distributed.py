"""A real torch.distributed run: two processes (gloo, 127.0.0.1), each counting half the rows.

``compute()`` synchronises the count states (a sum), so every rank must report
the single-process value, with and without the online bootstrap.
"""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("torchmetrics")
if not torch.distributed.is_available():  # pragma: no cover - depends on the torch build
    pytest.skip("torch.distributed is not available", allow_module_level=True)

from biasamp import (  # noqa: E402
    PatternCountTable,
    directional,
    mals,
    multi_directional,
    multi_directional_from_counts,
    multi_mals,
)

N, G, T, WORLD = 1000, 2, 6, 2
N_BOOT, SEED = 40, 123


def _data() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(42)
    groups = rng.integers(0, G, size=N)
    tasks = (rng.random((N, T)) < 0.25 + 0.3 * groups[:, None]).astype(np.int64)
    return {
        "groups": groups,
        "tasks": tasks,
        "tasks_pred": np.where(rng.random((N, T)) < 0.85, tasks, 1 - tasks),
        "groups_pred": np.where(rng.random(N) < 0.8, groups, 1 - groups),
        "train_groups": rng.integers(0, G, size=N),
        "train_tasks": (rng.random((N, T)) < 0.3).astype(np.int64),
    }


def _worker(rank: int, port: int, out_dir: str) -> None:
    import torch.distributed as dist

    from biasamp.torchmetrics import (
        DirectionalBiasAmplification,
        MALSBiasAmplification,
        MultiAttributeBiasAmplification,
    )
    from biasamp.torchmetrics._metrics import ERR_DISTRIBUTED_POSITIONS

    dist.init_process_group(
        "gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=WORLD
    )
    try:
        d = _data()
        half = slice(rank * N // WORLD, (rank + 1) * N // WORLD)  # contiguous halves
        interleaved = np.arange(rank, N, WORLD)  # what a DistributedSampler hands out
        report: dict[str, Any] = {}
        for direction in ("A->T", "T->A"):
            plain = DirectionalBiasAmplification(direction, G, T)
            boot = DirectionalBiasAmplification(direction, G, T, n_boot=N_BOOT, random_state=SEED)
            shuffled = DirectionalBiasAmplification(
                direction, G, T, n_boot=N_BOOT, random_state=SEED
            )
            for a in range(half.start, half.stop, 128):  # batches of 128 rows
                rows = slice(a, min(a + 128, half.stop))
                batch = {k: torch.tensor(d[k][rows]) for k in ("groups", "tasks")}
                batch["tasks_pred"] = torch.tensor(d["tasks_pred"][rows])
                batch["groups_pred"] = torch.tensor(d["groups_pred"][rows])
                plain.update(**batch)
                boot.update(**batch, row_offset=a)
            for a in range(0, len(interleaved), 100):
                idx = interleaved[a : a + 100]
                shuffled.update(
                    **{k: torch.tensor(d[k][idx]) for k in ("groups", "tasks", "tasks_pred")},
                    groups_pred=torch.tensor(d["groups_pred"][idx]),
                    row_index=torch.tensor(idx),
                )
            report[direction] = {
                "value": float(plain.compute()),
                "boot_value": float(boot.compute()),
                "boot_ci": list(boot.compute_result().ci),
                "shuffled_ci": list(shuffled.compute_result().ci),
                "local_rows": int(plain.n_rows),  # unsynced again after compute
            }
        mals_metric = MALSBiasAmplification(
            G, T, groups_train=d["train_groups"], tasks_train=d["train_tasks"]
        )
        mals_metric.update(
            groups_pred=torch.tensor(d["groups_pred"][half]),
            tasks_pred=torch.tensor(d["tasks_pred"][half]),
        )
        report["mals"] = float(mals_metric.compute())
        # the multi-attribute metric: list states of distinct patterns, concatenated
        report["multi"] = {}
        for name in ("A->T", "T->A", "multi_mals"):
            multi = MultiAttributeBiasAmplification(
                name, G, T, groups_train=d["train_groups"], tasks_train=d["train_tasks"]
            )
            for a in range(half.start, half.stop, 128):
                rows = slice(a, min(a + 128, half.stop))
                multi.update(
                    **{
                        k: torch.tensor(d[k][rows])
                        for k in ("groups", "tasks", "groups_pred", "tasks_pred")
                    }
                )
            report["multi"][name] = [
                float(multi.compute()),
                multi.compute_result().n_combinations,
                int(multi.n_rows),  # unsynced again after compute
            ]
        # and its online bootstrap, given the rows' global positions
        multi_boot = MultiAttributeBiasAmplification(
            "A->T",
            G,
            T,
            groups_train=d["train_groups"],
            tasks_train=d["train_tasks"],
            n_boot=N_BOOT,
            random_state=SEED,
        )
        for a in range(half.start, half.stop, 128):
            rows = slice(a, min(a + 128, half.stop))
            multi_boot.update(
                **{k: torch.tensor(d[k][rows]) for k in ("groups", "tasks", "tasks_pred")},
                row_offset=a,
            )
        report["multi_boot_ci"] = list(multi_boot.compute_result().ci)
        # without row positions the online bootstrap refuses to run under torch.distributed
        try:
            DirectionalBiasAmplification("A->T", G, T, n_boot=4, random_state=0).update(
                groups=torch.tensor(d["groups"][half]),
                tasks=torch.tensor(d["tasks"][half]),
                tasks_pred=torch.tensor(d["tasks_pred"][half]),
            )
            report["positions_error"] = None
        except ValueError as exc:
            report["positions_error"] = str(exc)
            assert str(exc) == ERR_DISTRIBUTED_POSITIONS.format(
                metric="DirectionalBiasAmplification"
            )
        Path(out_dir, f"rank{rank}.json").write_text(json.dumps(report))
    finally:
        dist.destroy_process_group()


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_two_process_gloo_run_equals_one_process(tmp_path):
    torch.multiprocessing.spawn(
        _worker, args=(_free_port(), str(tmp_path)), nprocs=WORLD, join=True
    )
    reports = [json.loads((tmp_path / f"rank{r}.json").read_text()) for r in range(WORLD)]
    d = _data()
    for direction in ("A->T", "T->A"):
        pred = {"tasks_pred": d["tasks_pred"]} if direction == "A->T" else {}
        pred = pred or {"groups_pred": d["groups_pred"]}
        single = directional(
            direction=direction,
            groups=d["groups"],
            tasks=d["tasks"],
            **pred,
            group_names=range(G),
            task_names=range(T),
        )
        boot = directional(
            direction=direction,
            groups=d["groups"],
            tasks=d["tasks"],
            **pred,
            group_names=range(G),
            task_names=range(T),
            n_boot=N_BOOT,
            random_state=SEED,
        )
        for report in reports:
            got = report[direction]
            assert abs(got["value"] - single.value) <= 1e-12
            assert abs(got["boot_value"] - single.value) <= 1e-12
            np.testing.assert_allclose(got["boot_ci"], boot.ci, rtol=0, atol=1e-12)
            np.testing.assert_allclose(got["shuffled_ci"], boot.ci, rtol=0, atol=1e-12)
            assert got["local_rows"] == N // WORLD
    single_mals = mals(
        groups_train=d["train_groups"],
        tasks_train=d["train_tasks"],
        groups_pred=d["groups_pred"],
        tasks_pred=d["tasks_pred"],
        group_names=range(G),
        task_names=range(T),
    )
    for report in reports:
        assert abs(report["mals"] - single_mals.value) <= 1e-12
        assert report["positions_error"] is not None
    names = {"group_names": range(G), "task_names": range(T)}
    train = {"groups_train": d["train_groups"], "tasks_train": d["train_tasks"]}
    single_multi = {
        "multi_mals": multi_mals(
            **train,
            tasks=d["tasks"],
            groups_pred=d["groups_pred"],
            tasks_pred=d["tasks_pred"],
            **names,
        ),
        "A->T": multi_directional(
            direction="A->T",
            **train,
            groups=d["groups"],
            tasks=d["tasks"],
            tasks_pred=d["tasks_pred"],
            **names,
        ),
        "T->A": multi_directional(
            direction="T->A",
            **train,
            groups=d["groups"],
            tasks=d["tasks"],
            groups_pred=d["groups_pred"],
            **names,
        ),
    }
    for report in reports:
        for name, single_result in single_multi.items():
            value, n_combinations, local_rows = report["multi"][name]
            assert value == single_result.value
            assert n_combinations == single_result.n_combinations
            assert local_rows == N // WORLD
    streamed = PatternCountTable.empty(**names, n_boot=N_BOOT, random_state=SEED).update(
        groups=d["groups"], tasks=d["tasks"], tasks_pred=d["tasks_pred"]
    )
    train_table = PatternCountTable.from_arrays(
        groups=d["train_groups"], tasks=d["train_tasks"], **names
    )
    boot_ci = multi_directional_from_counts(train_table, streamed, direction="A->T").ci
    for report in reports:
        assert tuple(report["multi_boot_ci"]) == boot_ci


# ------------------------------------------ label names in another order on each process
NAMES = ("m", "w")


def _names_worker(rank: int, port: int, out_dir: str) -> None:
    import torch.distributed as dist

    from biasamp.torchmetrics import DirectionalBiasAmplification, MultiAttributeBiasAmplification

    dist.init_process_group(
        "gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=WORLD
    )
    try:
        d = _data()
        half = slice(rank * N // WORLD, (rank + 1) * N // WORLD)
        # rank 0 names its groups (m, w), rank 1 (w, m); each passes its rows by name
        names = NAMES if rank == 0 else NAMES[::-1]
        labels = np.array(NAMES)[d["groups"][half]]
        report: dict[str, Any] = {}
        for boot in (None, N_BOOT):
            metric = DirectionalBiasAmplification(
                "A->T", G, T, group_names=list(names), n_boot=boot, random_state=SEED
            )
            metric.update(
                groups=list(labels),
                tasks=torch.tensor(d["tasks"][half]),
                tasks_pred=torch.tensor(d["tasks_pred"][half]),
                row_offset=half.start,
            )
            result = metric.compute_result()
            report[f"value_{boot}"] = float(metric.compute())
            report[f"ci_{boot}"] = None if result.ci is None else list(result.ci)
        # different seeds on the two processes: every process refuses, naming both
        seeded = DirectionalBiasAmplification("A->T", G, T, n_boot=5, random_state=rank)
        seeded.update(
            groups=torch.tensor(d["groups"][half]),
            tasks=torch.tensor(d["tasks"][half]),
            tasks_pred=torch.tensor(d["tasks_pred"][half]),
            row_offset=half.start,
        )
        try:
            seeded.compute()
            report["seed_error"] = None
        except ValueError as exc:
            report["seed_error"] = str(exc)
        # the multi-attribute class cannot reorder its list states: it refuses
        multi = MultiAttributeBiasAmplification(
            "A->T",
            G,
            T,
            groups_train=d["train_groups"],
            tasks_train=d["train_tasks"],
            group_names=list(names),
        )
        multi.update(
            groups=list(labels),
            tasks=torch.tensor(d["tasks"][half]),
            tasks_pred=torch.tensor(d["tasks_pred"][half]),
        )
        try:
            multi.compute()
            report["multi_error"] = None
        except ValueError as exc:
            report["multi_error"] = str(exc)
        Path(out_dir, f"names{rank}.json").write_text(json.dumps(report))
    finally:
        dist.destroy_process_group()


def test_processes_with_label_names_in_another_order_sync_by_name(tmp_path):
    torch.multiprocessing.spawn(
        _names_worker, args=(_free_port(), str(tmp_path)), nprocs=WORLD, join=True
    )
    reports = [json.loads((tmp_path / f"names{r}.json").read_text()) for r in range(WORLD)]
    d = _data()
    groups = np.array(NAMES)[d["groups"]]
    kw = {"groups": groups, "tasks": d["tasks"], "tasks_pred": d["tasks_pred"]}
    single = directional(direction="A->T", **kw)
    boot = directional(direction="A->T", **kw, n_boot=N_BOOT, random_state=SEED)
    for report in reports:
        # by position the two halves would add m's counts to w's (a wrong value)
        assert abs(report["value_None"] - single.value) <= 1e-12
        assert report["ci_None"] is None
        assert abs(report[f"value_{N_BOOT}"] - single.value) <= 1e-12
        np.testing.assert_allclose(report[f"ci_{N_BOOT}"], boot.ci, rtol=0, atol=1e-12)
        assert "differ in random_state (rank 0: 0, rank 1: 1)" in report["seed_error"]
        assert (
            "group names differ (rank 0: ['m', 'w'], rank 1: ['w', 'm'])" in report["multi_error"]
        )


# ------------------------------------------ overlapping row positions on two processes
OVERLAP_N = 80


def _overlap_worker(rank: int, port: int, out_dir: str) -> None:
    import torch.distributed as dist

    from biasamp.torchmetrics import DirectionalBiasAmplification, MultiAttributeBiasAmplification

    dist.init_process_group(
        "gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=WORLD
    )
    try:
        d = _data()
        # rank 0 counts rows 0 .. 44, rank 1 rows 35 .. 79: rows 35 .. 44 twice (n = 90)
        rows = slice(0, 45) if rank == 0 else slice(35, OVERLAP_N)
        batch = {k: torch.tensor(d[k][rows]) for k in ("groups", "tasks", "tasks_pred")}
        report: dict[str, Any] = {}
        for boot in (None, 5):
            metric = DirectionalBiasAmplification("A->T", G, T, n_boot=boot, random_state=0)
            metric.update(**batch, row_offset=rows.start)
            try:
                metric.compute()
                report[f"error_{boot}"] = None
            except ValueError as exc:
                report[f"error_{boot}"] = str(exc)
            # the same rows given as indices, and disjoint halves that do sync
            indexed = DirectionalBiasAmplification("A->T", G, T, n_boot=boot, random_state=0)
            indexed.update(**batch, row_index=torch.arange(rows.start, rows.stop))
            try:
                indexed.compute()
                report[f"index_error_{boot}"] = None
            except ValueError as exc:
                report[f"index_error_{boot}"] = str(exc)
            half = slice(rank * 40, rank * 40 + 40)
            fine = DirectionalBiasAmplification("A->T", G, T, n_boot=boot, random_state=0)
            fine.update(
                **{k: torch.tensor(d[k][half]) for k in ("groups", "tasks", "tasks_pred")},
                row_offset=half.start,
            )
            report[f"n_{boot}"] = float(fine.compute_result().n)
        multi = MultiAttributeBiasAmplification(
            "A->T", G, T, groups_train=d["train_groups"], tasks_train=d["train_tasks"]
        )
        multi.update(**batch, row_offset=rows.start)
        try:
            multi.compute()
            report["multi_error"] = None
        except ValueError as exc:
            report["multi_error"] = str(exc)
        Path(out_dir, f"overlap{rank}.json").write_text(json.dumps(report))
    finally:
        dist.destroy_process_group()


def test_processes_that_count_the_same_rows_are_refused(tmp_path):
    from biasamp.torchmetrics._metrics import ERR_SYNC_ROWS

    torch.multiprocessing.spawn(
        _overlap_worker, args=(_free_port(), str(tmp_path)), nprocs=WORLD, join=True
    )
    reports = [json.loads((tmp_path / f"overlap{r}.json").read_text()) for r in range(WORLD)]
    rows = "35, 36, 37, 38, 39 (and 5 more)"
    want = ERR_SYNC_ROWS.format(metric="DirectionalBiasAmplification", first=0, second=1, rows=rows)
    for report in reports:
        for boot in ("None", "5"):
            assert report[f"error_{boot}"] == want  # was n = 90 from 80 rows, in silence
            assert report[f"index_error_{boot}"] == want
            assert report[f"n_{boot}"] == 80.0
        assert report["multi_error"] == ERR_SYNC_ROWS.format(
            metric="MultiAttributeBiasAmplification", first=0, second=1, rows=rows
        )
