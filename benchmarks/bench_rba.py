"""Speed of biasamp.rba: 25,000 instances x 66 tasks x 2 groups x 100 iterations (COCO size).

The naive implementation follows uclanlp/reducingbias: a Python loop over instances,
groups and tasks for the inference of every iteration, then the multiplier update. It
runs on a subset of instances for a few iterations and is extrapolated linearly (its cost
is per instance and per iteration); its outputs are checked against biasamp on that subset.
Run ``python benchmarks/bench_rba.py``; it prints a markdown table.
"""

from __future__ import annotations

import time

import numpy as np

import biasamp
from biasamp.mitigation._rba import _constraint_values, _pair_weights, rba_constraints

N, T, G, ITER = 25_000, 66, 2, 100
SUBSET, SUBSET_ITER = 500, 3


def problem(random_state: int = 0):
    rng = np.random.default_rng(random_state)
    g_train = rng.choice(["man", "woman"], 20_000, p=[0.7, 0.3])
    t_train = (rng.random((20_000, T)) < 0.05).astype(np.int8)
    group_scores = rng.normal(size=(N, G)) + np.array([1.0, 0.0])  # over-predicts "man"
    task_scores = rng.normal(size=(N, G, T, 2))
    return group_scores, task_scores, g_train, t_train


def naive_rba(group_scores, task_scores, lower, upper, eta, n_iter):
    """Per-instance loops (as the reference does), textbook penalties."""
    n = group_scores.shape[0]
    lam = np.zeros((2,) + lower.shape[::2])
    outputs = []
    for _ in range(n_iter):
        W = _pair_weights(lam, lower, upper)
        counts = np.zeros((G, T))
        outputs = []
        for i in range(n):
            best, best_g, best_set = -np.inf, 0, []
            for g in range(G):
                score, chosen = group_scores[i, g], []
                for t in range(T):
                    present = task_scores[i, g, t, 0] - W[g, t]
                    if present > task_scores[i, g, t, 1]:
                        score += present
                        chosen.append(t)
                    else:
                        score += task_scores[i, g, t, 1]
                if score > best:
                    best, best_g, best_set = score, g, chosen
            for t in best_set:
                counts[best_g, t] += 1
            outputs.append((best_g, best_set))
        lam = np.maximum(0.0, lam + eta * _constraint_values(counts, lower, upper))
    return outputs


def main() -> None:
    gs, ts, g_train, t_train = problem()
    rows = []
    for penalty in ("lagrangian", "reference"):
        biasamp.rba(
            (gs[:1000], ts[:1000]),
            structure="multilabel",
            groups_train=g_train,
            tasks_train=t_train,
            max_iter=2,
        )  # warm-up
        start, cpu = time.perf_counter(), time.process_time()
        result = biasamp.rba(
            (gs, ts),
            structure="multilabel",
            groups_train=g_train,
            tasks_train=t_train,
            max_iter=ITER,
            penalty=penalty,
            margin=0.0,
            scale="count",
            eta=1e-6,
        )
        total, cpu = time.perf_counter() - start, time.process_time() - cpu
        assert result.n_iter == ITER
        rows.append((f"biasamp.rba, penalty={penalty}", total, result.params["seconds"], cpu))

    # naive, on a subset, extrapolated to N instances x ITER iterations
    b = biasamp.bias_scores(g_train, t_train).to_numpy().T
    lower, upper = rba_constraints(b, 0.0, np.ones(T, dtype=bool))
    start, cpu = time.perf_counter(), time.process_time()
    outputs = naive_rba(gs[:SUBSET], ts[:SUBSET], lower, upper, 1e-6, SUBSET_ITER)
    scale = (N / SUBSET) * (ITER / SUBSET_ITER)
    naive = (time.perf_counter() - start) * scale
    naive_cpu = (time.process_time() - cpu) * scale
    check = biasamp.rba(
        (gs[:SUBSET], ts[:SUBSET]),
        structure="multilabel",
        groups_train=g_train,
        tasks_train=t_train,
        max_iter=SUBSET_ITER,
        margin=0.0,
        scale="count",
        eta=1e-6,
    )
    same = all(
        check.groups_pred[i] == ["man", "woman"][g]
        and list(np.nonzero(check.tasks_pred.to_numpy()[i])[0]) == s
        for i, (g, s) in enumerate(outputs)
    )
    print(
        f"{N:,} instances x {T} tasks x {G} groups x {ITER} iterations "
        f"(naive outputs equal on the subset: {same})\n"
    )
    print(
        "| implementation | wall seconds | of which iterations | CPU seconds "
        "| speed-up vs naive (wall) |"
    )
    print("|---|---|---|---|---|")
    print(
        f"| naive per-instance loops (extrapolated from {SUBSET} x {SUBSET_ITER}) "
        f"| {naive:.1f} | {naive:.1f} | {naive_cpu:.1f} | 1 |"
    )
    for name, total, loop, cpu in rows:
        print(f"| {name} | {total:.2f} | {loop:.2f} | {cpu:.2f} | {naive / total:.0f} |")


if __name__ == "__main__":
    main()
