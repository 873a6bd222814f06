"""Speed of biasamp.rba: 25,000 instances x 66 tasks x 2 groups x 100 iterations (COCO size).

The baseline is what an expert writes in an afternoon with numpy: the multilabel
inference vectorised over instances, groups and tasks (``delta - W``, ``maximum``, row
sums, ``argmax`` over groups, a fancy-index gather of the chosen group's tasks,
``bincount``-free counts by group), the constraint algebra of eq. 3 and the projected
subgradient step, in one loop over iterations. Both run all 100 iterations (margin 0,
a tiny constant step), in one process; the baseline's outputs are asserted equal to
biasamp's. Run ``python benchmarks/bench_rba.py``; it prints a markdown table.
"""

from __future__ import annotations

import os
import platform
import time
import warnings

import numpy as np

import biasamp

N, T, G, ITER = 25_000, 66, 2, 100
ETA = 1e-6


def problem(random_state: int = 0):
    rng = np.random.default_rng(random_state)
    g_train = rng.choice(["man", "woman"], 20_000, p=[0.7, 0.3])
    t_train = (rng.random((20_000, T)) < 0.05).astype(np.int8)
    group_scores = rng.normal(size=(N, G)) + np.array([1.0, 0.0])  # over-predicts "man"
    task_scores = rng.normal(size=(N, G, T, 2))
    return group_scores, task_scores, g_train, t_train


def expert_rba(group_scores, task_scores, g_train, t_train, eta, n_iter):
    """RBA (eqs. 3-5, margin 0, two groups) written directly with numpy."""
    t_train = np.asarray(t_train, dtype=np.float64)
    man = np.asarray(g_train) == "man"
    b = t_train[man].sum(axis=0) / np.maximum(t_train.sum(axis=0), 1)  # man share per task
    constrained = t_train.sum(axis=0) > 0
    # two constraints per task on counts (c_man, c_woman), margin 0
    lower = np.stack([b - 1, b]) * constrained  # (2 groups, T)
    upper = np.stack([1 - b, -b]) * constrained
    delta = task_scores[..., 0] - task_scores[..., 1]  # (n, G, T)
    base = group_scores + task_scores[..., 1].sum(axis=-1)
    rows = np.arange(len(delta))
    lam = np.zeros((2, T))
    for _ in range(n_iter):
        W = lam[0] * lower + lam[1] * upper  # (G, T)
        penalised = delta - W
        value = base + np.maximum(penalised, 0).sum(axis=-1)
        g = value.argmax(axis=1)
        present = penalised[rows, g] > 0
        counts = np.stack([present[g == k].sum(axis=0) for k in range(G)]).astype(float)
        values = np.stack([(lower * counts).sum(axis=0), (upper * counts).sum(axis=0)])
        lam = np.maximum(0.0, lam + eta * values)
    return g, present


def main() -> None:
    gs, ts, g_train, t_train = problem()
    kw = {
        "structure": "multilabel",
        "groups_train": g_train,
        "tasks_train": t_train,
        "margin": 0.0,
        "scale": "count",
        "eta": ETA,
        "schedule": "constant",
        "select": "last",
    }
    warnings.simplefilter("ignore", biasamp.RBAConvergenceWarning)  # margin 0: never met
    biasamp.rba((gs[:1000], ts[:1000]), max_iter=2, **kw)  # warm-up
    expert_rba(gs[:1000], ts[:1000], g_train, t_train, ETA, 2)
    rows = []
    results = {}
    for penalty in ("lagrangian", "reference"):
        start, cpu = time.perf_counter(), time.process_time()
        result = biasamp.rba((gs, ts), max_iter=ITER, penalty=penalty, **kw)
        total, cpu = time.perf_counter() - start, time.process_time() - cpu
        assert result.n_iter == ITER
        results[penalty] = result
        rows.append((f"`biasamp.rba`, penalty={penalty!r}", total, result.params["seconds"], cpu))
    start, cpu = time.perf_counter(), time.process_time()
    g, present = expert_rba(gs, ts, g_train, t_train, ETA, ITER)
    expert, expert_cpu = time.perf_counter() - start, time.process_time() - cpu
    ours = results["lagrangian"]
    same = bool(
        (ours.groups_pred == np.array(["man", "woman"], dtype=object)[g]).all()
        and (ours.tasks_pred.to_numpy() == present).all()
    )
    print(
        f"{N:,} instances x {T} tasks x {G} groups x {ITER} iterations; "
        f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
        f"load average {os.getloadavg()[0]:.1f}; expert baseline's outputs equal: {same}\n"
    )
    print("| implementation | wall s | of which iterations | CPU s | expert / this (wall) |")
    print("|---|---|---|---|---|")
    print(
        f"| expert numpy baseline (penalty lagrangian) | {expert:.2f} | {expert:.2f} "
        f"| {expert_cpu:.2f} | 1.0 |"
    )
    for name, total, loop, cpu in rows:
        print(f"| {name} | {total:.2f} | {loop:.2f} | {cpu:.2f} | {expert / total:.1f} |")


if __name__ == "__main__":
    main()
