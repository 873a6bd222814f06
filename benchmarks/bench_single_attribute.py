"""Speed of the single-attribute co-occurrence metrics against a per-pair loop.

Run: ``python benchmarks/bench_single_attribute.py``. Prints a markdown table.

Workloads
---------
* synthetic: 1,000,000 instances, 2 groups (1-D labels), 1,000 sparse tasks with about
  3 per instance (CSR), predictions of the same shape; ``mals`` plus both directions
  of ``directional`` from the raw arrays (validation and counting included).
* COCO test split (5,473 x 79, real labels) with a synthetic gender predictor.

The naive implementation is the straightforward per-pair loop of the reference code
(boolean masks per (group, task) pair, one pass over the rows per pair). On the large
workload it runs on the first 20 tasks and is extrapolated linearly to 1,000 (it is
linear in the number of pairs); the table says so.
"""

from __future__ import annotations

import time

import numpy as np
import scipy.sparse as sp

import biasamp
from biasamp.datasets import load_coco_gender


def make_synthetic(n=1_000_000, n_tasks=1000, per_row=3, seed=0):
    rng = np.random.default_rng(seed)
    groups = np.where(rng.random(n) < 0.6, "man", "woman")
    popularity = rng.dirichlet(np.full(n_tasks, 0.5))

    def tasks_matrix():
        cols = rng.choice(n_tasks, size=n * per_row, p=popularity)
        rows = np.repeat(np.arange(n), per_row)
        m = sp.csr_matrix((np.ones(n * per_row), (rows, cols)), shape=(n, n_tasks))
        m.data[:] = 1.0
        return m

    groups_pred = np.where(rng.random(n) < 0.9, groups, np.where(groups == "man", "woman", "man"))
    return groups, tasks_matrix(), groups_pred, tasks_matrix()


def fast(groups, tasks, groups_pred, tasks_pred, groups_train, tasks_train):
    a = biasamp.directional(
        direction="A->T",
        groups=groups,
        tasks=tasks,
        tasks_pred=tasks_pred,
        groups_train=groups_train,
        tasks_train=tasks_train,
    )
    b = biasamp.directional(
        direction="T->A",
        groups=groups,
        tasks=tasks,
        groups_pred=groups_pred,
        groups_train=groups_train,
        tasks_train=tasks_train,
    )
    c = biasamp.mals(
        groups_train=groups_train,
        tasks_train=tasks_train,
        groups_pred=groups_pred,
        tasks_pred=tasks_pred,
    )
    return a.value, b.value, c.value


def naive(groups, tasks, groups_pred, tasks_pred, groups_train, tasks_train, n_tasks=None):
    """Per-pair loop as in the reference code: one boolean-mask pass per (group, task)."""
    names = sorted(set(groups_train))
    tasks, tasks_pred, tasks_train = (sp.csc_matrix(m) for m in (tasks, tasks_pred, tasks_train))
    n_tasks = tasks.shape[1] if n_tasks is None else n_tasks
    n_train = len(groups_train)
    a2t, t2a, mals_total = [], [], 0.0
    for t in range(n_tasks):
        col = tasks[:, t].toarray().ravel() == 1
        col_pred = tasks_pred[:, t].toarray().ravel() == 1
        col_train = tasks_train[:, t].toarray().ravel() == 1
        c_train = {g: np.sum((groups_train == g) & col_train) for g in names}
        c_pred = {g: np.sum((groups_pred == g) & col_pred) for g in names}
        for g in names:
            in_g = groups == g
            in_g_train = groups_train == g
            y = np.sign(np.mean(in_g_train & col_train) - np.mean(in_g_train) * np.mean(col_train))
            if in_g.any():
                a2t.append(y * (np.mean(col_pred[in_g]) - np.mean(col[in_g])))
            if col.any():
                t2a.append(y * (np.mean(groups_pred[col] == g) - np.mean(in_g[col])))
            tot_train, tot_pred = sum(c_train.values()), sum(c_pred.values())
            if tot_train and tot_pred and c_train[g] / tot_train > 1 / len(names):
                mals_total += c_pred[g] / tot_pred - c_train[g] / tot_train
    del n_train
    return np.mean(a2t), np.mean(t2a), mals_total / n_tasks


def timed(fn, *args, repeat=3, **kw):
    best, out = np.inf, None
    for _ in range(repeat):
        start = time.perf_counter()
        out = fn(*args, **kw)
        best = min(best, time.perf_counter() - start)
    return best, out


def main() -> list[dict]:
    rows = []
    # real COCO labels, synthetic gender predictor that over-predicts men
    train, test = load_coco_gender("val"), load_coco_gender("test")
    objects = list(train.columns[2:])
    rng = np.random.default_rng(1)
    g_pred = np.where(rng.random(len(test)) < 0.2, "man", test["gender"].to_numpy())
    t_pred = sp.csr_matrix(
        np.where(rng.random((len(test), len(objects))) < 0.01, 1, test[objects].to_numpy())
    )
    coco_args = (
        test["gender"].to_numpy(),
        sp.csr_matrix(test[objects].to_numpy()),
        g_pred,
        t_pred,
        train["gender"].to_numpy(),
        sp.csr_matrix(train[objects].to_numpy()),
    )
    t_fast, v_fast = timed(fast, *coco_args)
    t_naive, v_naive = timed(naive, *coco_args, repeat=1)
    assert np.allclose(v_fast, v_naive), (v_fast, v_naive)
    rows.append(
        {
            "workload": "COCO test 5,473 x 79 (real labels)",
            "biasamp_s": t_fast,
            "naive_s": t_naive,
            "note": "naive run in full",
        }
    )

    groups, tasks, groups_pred, tasks_pred = make_synthetic()
    args = (groups, tasks, groups_pred, tasks_pred, groups, tasks)
    t_fast, v_fast = timed(fast, *args)
    sub = 20
    t_sub, _ = timed(naive, *args, n_tasks=sub, repeat=1)
    rows.append(
        {
            "workload": "1,000,000 x 1,000 sparse, 2 groups",
            "biasamp_s": t_fast,
            "naive_s": t_sub * tasks.shape[1] / sub,
            "note": f"naive timed on {sub} tasks ({t_sub:.2f} s), extrapolated x{tasks.shape[1] // sub}",
        }
    )
    print("| workload | biasamp: mals + A->T + T->A (s) | per-pair loop (s) | speed-up | note |")
    print("|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['workload']} | {r['biasamp_s']:.3f} | {r['naive_s']:.2f} | "
            f"{r['naive_s'] / r['biasamp_s']:.0f}x | {r['note']} |"
        )
    return rows


if __name__ == "__main__":
    main()
