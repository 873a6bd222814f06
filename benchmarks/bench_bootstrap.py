"""Speed of bootstrap intervals (``n_boot``) against naive re-computation per replicate.

Run: ``python benchmarks/bench_bootstrap.py [--quick]``. Prints a markdown table.

Workloads
---------
* COCO test split (5,473 x 79, real labels, training side = the bundled val split)
  with a synthetic gender predictor (20% of genders flipped) and a synthetic object
  predictor (2% of labels flipped): ``directional`` in both directions, 1,000
  Poisson replicates each.
* synthetic: 1,000,000 instances, 2 groups (1-D labels), 1,000 sparse tasks with
  about 3 per instance (CSR), training side of 200,000 rows: ``directional`` A->T
  and T->A, 1,000 replicates each.

biasamp computes every replicate's counts as one weighted sparse product per chunk
of rows and evaluates the metric once on the (B, |G|, |T|) arrays. The naive way
re-runs the metric with ``sample_weight = W[b]`` for each replicate ``b`` (the same
weights, so the same values, asserted here); it runs on a few replicates and is
extrapolated linearly to 1,000 (it is linear in B), as the table says. Times are
wall clock with process CPU time in parentheses (the CPU time is less sensitive to
other jobs on a shared machine).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import scipy.sparse as sp

import biasamp
from biasamp.counts._poisson import PoissonReplicates
from biasamp.datasets import load_coco_gender

N_BOOT = 1000


def coco_workload(seed: int = 0) -> dict:
    train, test = load_coco_gender("val"), load_coco_gender("test")
    objects = [c for c in train.columns if c not in ("image_id", "gender")]
    rng = np.random.default_rng(seed)
    gender = test["gender"].to_numpy()
    other = {"man": "woman", "woman": "man"}
    flip = rng.random(len(gender)) < 0.2
    groups_pred = np.where(flip, [other[g] for g in gender], gender)
    tasks = test[objects].to_numpy()
    tasks_pred = np.where(rng.random(tasks.shape) < 0.02, 1 - tasks, tasks)
    return dict(
        groups=gender,
        tasks=test[objects],
        groups_pred=groups_pred,
        tasks_pred=tasks_pred,
        groups_train=train["gender"],
        tasks_train=train[objects],
    )


def synthetic_workload(
    n: int = 1_000_000, n_tasks: int = 1000, per_row: int = 3, n_train: int = 200_000, seed: int = 0
) -> dict:
    rng = np.random.default_rng(seed)
    popularity = rng.dirichlet(np.full(n_tasks, 0.5))

    def tasks_matrix(rows_count: int) -> sp.csr_matrix:
        cols = rng.choice(n_tasks, size=rows_count * per_row, p=popularity)
        rows = np.repeat(np.arange(rows_count), per_row)
        m = sp.csr_matrix(
            (np.ones(rows_count * per_row), (rows, cols)), shape=(rows_count, n_tasks)
        )
        m.data[:] = 1.0
        return m

    groups = np.where(rng.random(n) < 0.6, "man", "woman")
    groups_pred = np.where(rng.random(n) < 0.9, groups, np.where(groups == "man", "woman", "man"))
    return dict(
        groups=groups,
        tasks=tasks_matrix(n),
        groups_pred=groups_pred,
        tasks_pred=tasks_matrix(n),
        groups_train=np.where(rng.random(n_train) < 0.6, "man", "woman"),
        tasks_train=tasks_matrix(n_train),
    )


def bootstrap_fast(data: dict, direction: str, n_boot: int, seed: int = 0):
    start, cpu = time.perf_counter(), time.process_time()
    result = biasamp.directional(direction=direction, **data, n_boot=n_boot, random_state=seed)
    return result, time.perf_counter() - start, time.process_time() - cpu


def bootstrap_naive(data: dict, direction: str, n_boot: int, n_run: int, seed: int = 0):
    """Re-run the metric with each replicate's weights; ``n_run`` of ``n_boot`` replicates."""
    n = data["tasks"].shape[0]
    weights = PoissonReplicates(n_boot, random_state=seed).weights(0, n)
    start, cpu = time.perf_counter(), time.process_time()
    values = [
        biasamp.directional(direction=direction, **data, sample_weight=weights[b]).value
        for b in range(n_run)
    ]
    elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
    return np.array(values), elapsed * n_boot / n_run, cpu * n_boot / n_run


def row(name: str, data: dict, n_naive: int) -> str:
    cells = []
    fast_total = naive_total = fast_cpu_total = naive_cpu_total = 0.0
    for direction in ("A->T", "T->A"):
        result, fast_s, fast_cpu = bootstrap_fast(data, direction, N_BOOT)
        values, naive_s, naive_cpu = bootstrap_naive(data, direction, N_BOOT, n_naive)
        np.testing.assert_allclose(result.replicates[:n_naive], values, rtol=1e-10)
        fast_total += fast_s
        naive_total += naive_s
        fast_cpu_total += fast_cpu
        naive_cpu_total += naive_cpu
        cells.append(f"{fast_s:.2f} ({fast_cpu:.2f})")
    note = (
        "naive run in full"
        if n_naive == N_BOOT
        else f"naive timed on {n_naive} replicates per direction, extrapolated x{N_BOOT // n_naive}"
    )
    return (
        f"| {name} | {cells[0]} | {cells[1]} | {fast_total:.2f} ({fast_cpu_total:.2f}) | "
        f"{naive_total:.1f} ({naive_cpu_total:.1f}) | "
        f"{naive_total / fast_total:.0f}x ({naive_cpu_total / fast_cpu_total:.0f}x) | {note} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="COCO only")
    args = parser.parse_args()
    print(
        f"| workload ({N_BOOT} replicates) | A->T wall (cpu) s | T->A wall (cpu) s | "
        "both, wall (cpu) s | naive re-computation, both, wall (cpu) s | speed-up | note |"
    )
    print("|---|---|---|---|---|---|---|")
    print(row("COCO test 5,473 x 79 (real labels)", coco_workload(), n_naive=50))
    if not args.quick:
        print(row("1,000,000 x 1,000 sparse, 2 groups", synthetic_workload(), n_naive=3))


if __name__ == "__main__":
    main()
