"""Overhead of ``biasamp.torchmetrics`` per batch vs collecting batches and one functional call.

COCO-shaped synthetic data: N rows, 2 groups (class indices), T tasks (multi-hot
ground truth, scores thresholded at 0.5 for the predictions), as tensors already
cut into batches (what a DataLoader yields). For each batch size it times, in one
process:

* ``update``: ``DirectionalBiasAmplification("A->T").update(...)`` per batch, then
  ``compute()`` once (the torchmetrics way);
* ``update, n_boot=100``: the same with the online bootstrap, then ``compute_result()``;
* ``collect + directional``: append each batch's tensors to lists, ``torch.cat``
  them and call ``biasamp.directional`` once at the end (what users do without the
  metric), with and without ``n_boot=100``.

It prints a markdown table: total seconds, microseconds per batch and rows per
second of the whole pass, and the ratio to the collect-then-compute path. Times
are CPU seconds of this process (``time.process_time``) with one thread
(``OMP_NUM_THREADS=1``, ``torch.set_num_threads(1)``), best of ``REPEAT`` runs:
wall time on a shared machine varies by several times from run to run, CPU time
far less.

With ``--multi`` it times ``MultiAttributeBiasAmplification("A->T")`` (Multi->,
"observed" M) the same way against collecting the batches and one
``biasamp.multi_directional`` call, on 20 tasks and a training split of N rows.

Usage: python benchmarks/bench_torchmetrics.py [N_ROWS] [N_TASKS] [--multi]
"""

from __future__ import annotations

import os
import sys
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")  # before numpy and torch load their thread pools
from collections.abc import Callable

import numpy as np
import torch

from biasamp import directional, multi_directional
from biasamp.torchmetrics import DirectionalBiasAmplification, MultiAttributeBiasAmplification

torch.set_num_threads(1)
REPEAT = 5
N_BOOT = 100


def make_batches(
    n_rows: int, n_tasks: int, batch_size: int, seed: int = 0
) -> list[tuple[torch.Tensor, torch.Tensor, torch.Tensor]]:
    rng = np.random.default_rng(seed)
    groups = rng.integers(0, 2, size=n_rows)
    p = np.linspace(0.02, 0.3, n_tasks)
    tasks = rng.random((n_rows, n_tasks)) < np.where(groups[:, None] == 1, p, p[::-1])
    scores = np.clip(tasks * 0.55 + rng.random((n_rows, n_tasks)) * 0.5, 0, 1)
    g = torch.tensor(groups)
    t = torch.tensor(tasks, dtype=torch.float32)
    s = torch.tensor(scores, dtype=torch.float32)
    return [
        (g[a : a + batch_size], t[a : a + batch_size], s[a : a + batch_size])
        for a in range(0, n_rows, batch_size)
    ]


def best_of(run: Callable[..., float], *args: object) -> float:
    times = []
    for _ in range(REPEAT):
        start = time.process_time()
        run(*args)
        times.append(time.process_time() - start)
    return min(times)


def stream(batches: list, n_tasks: int, n_boot: int | None) -> float:
    """The torchmetrics way: update per batch, compute once."""
    metric = DirectionalBiasAmplification(
        "A->T", 2, n_tasks, threshold=0.5, n_boot=n_boot, random_state=0
    )
    for g, t, s in batches:
        metric.update(groups=g, tasks=t, tasks_pred=s)
    if n_boot is None:
        return float(metric.compute())
    return float(metric.compute_result().value)


def collect(batches: list, n_tasks: int, n_boot: int | None) -> float:
    """Without the metric: keep every batch, concatenate, one functional call."""
    gs, ts, ss = [], [], []
    for g, t, s in batches:
        gs.append(g)
        ts.append(t)
        ss.append(s)
    g, t, s = torch.cat(gs), torch.cat(ts), torch.cat(ss)
    result = directional(
        direction="A->T",
        groups=g.numpy(),
        tasks=t.numpy(),
        tasks_pred=(s > 0.5).numpy(),
        group_names=[0, 1],
        task_names=list(range(n_tasks)),
        n_boot=n_boot,
        random_state=0,
    )
    return result.value


def main(n_rows: int = 100_000, n_tasks: int = 80) -> None:
    print(
        f"N={n_rows:,} rows, 2 groups, {n_tasks} tasks, A->T, predictions thresholded at 0.5; "
        f"CPU seconds, best of {REPEAT}, 1 thread; torch {torch.__version__}\n"
    )
    print("| batch size | path | total (s) | per batch (us) | rows/s | vs collect + directional |")
    print("|---:|---|---:|---:|---:|---:|")
    for batch_size in (64, 256, 1024, 4096):
        batches = make_batches(n_rows, n_tasks, batch_size)

        assert (
            abs(stream(batches, n_tasks, None) - collect(batches, n_tasks, None)) <= 1e-12
        )  # same number either way
        rows = [
            (
                "update",
                best_of(stream, batches, n_tasks, None),
                best_of(collect, batches, n_tasks, None),
            ),
            (
                f"update, n_boot={N_BOOT}",
                best_of(stream, batches, n_tasks, N_BOOT),
                best_of(collect, batches, n_tasks, N_BOOT),
            ),
        ]
        for name, t_stream, t_collect in rows:
            boot = "" if "n_boot" not in name else f", n_boot={N_BOOT}"
            for label, seconds in ((name, t_stream), (f"collect + directional{boot}", t_collect)):
                print(
                    f"| {batch_size} | {label} | {seconds:.3f} | "
                    f"{1e6 * seconds / len(batches):.0f} | {n_rows / seconds:,.0f} | "
                    f"{seconds / t_collect:.2f}x |"
                )
        sys.stdout.flush()


def stream_multi(batches: list, n_tasks: int, train: tuple) -> float:
    """MultiAttributeBiasAmplification: update per batch, compute once."""
    metric = MultiAttributeBiasAmplification(
        "A->T", 2, n_tasks, groups_train=train[0], tasks_train=train[1], threshold=0.5
    )
    for g, t, s in batches:
        metric.update(groups=g, tasks=t, tasks_pred=s)
    return float(metric.compute())


def collect_multi(batches: list, n_tasks: int, train: tuple) -> float:
    """Without the metric: keep every batch, concatenate, one multi_directional call."""
    g = torch.cat([b[0] for b in batches])
    t = torch.cat([b[1] for b in batches])
    s = torch.cat([b[2] for b in batches])
    return multi_directional(
        direction="A->T",
        groups_train=train[0],
        tasks_train=train[1],
        groups=g.numpy(),
        tasks=t.numpy(),
        tasks_pred=(s > 0.5).numpy(),
        group_names=[0, 1],
        task_names=list(range(n_tasks)),
    ).value


def main_multi(n_rows: int = 50_000, n_tasks: int = 20) -> None:
    train_batches = make_batches(n_rows, n_tasks, n_rows, seed=1)
    train = (train_batches[0][0].numpy(), train_batches[0][1].numpy().astype(np.int8))
    print(
        f"N={n_rows:,} evaluation + {n_rows:,} training rows, 2 groups, {n_tasks} tasks, "
        f"Multi-> A->T, observed M; CPU seconds, best of {REPEAT}, 1 thread "
        f"(BIASAMP_NUM_THREADS=1)\n"
    )
    print(
        "| batch size | path | total (s) | per batch (us) | rows/s | vs collect + multi_directional |"
    )
    print("|---:|---|---:|---:|---:|---:|")
    for batch_size in (64, 256, 1024, 4096):
        batches = make_batches(n_rows, n_tasks, batch_size)
        assert stream_multi(batches, n_tasks, train) == collect_multi(batches, n_tasks, train)
        t_stream = best_of(stream_multi, batches, n_tasks, train)
        t_collect = best_of(collect_multi, batches, n_tasks, train)
        for label, seconds in (("update", t_stream), ("collect + multi_directional", t_collect)):
            print(
                f"| {batch_size} | {label} | {seconds:.3f} | "
                f"{1e6 * seconds / len(batches):.0f} | {n_rows / seconds:,.0f} | "
                f"{seconds / t_collect:.2f}x |"
            )
        sys.stdout.flush()


if __name__ == "__main__":
    args = [int(a) for a in sys.argv[1:] if a != "--multi"]
    if "--multi" in sys.argv:
        os.environ.setdefault("BIASAMP_NUM_THREADS", "1")
        main_multi(*args)
    else:
        main(*args)
