"""biasamp.compare over saved result files.

Run: ``python benchmarks/bench_compare.py [--models 50] [--repeat 5]``.

Workload: ``--models`` saved MALS results (COCO-sized: 2 groups x 79 tasks, 100
bootstrap replicates each, so every file holds its pair table and replicates),
read back and laid out by :func:`biasamp.compare` with a performance column; the
best of ``--repeat`` runs, file reading included.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np

import biasamp


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--models", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    n, k = 5000, 79
    groups = rng.choice(["man", "woman"], n)
    tasks = (rng.random((n, k)) < 0.05).astype(int)
    with tempfile.TemporaryDirectory() as folder:
        files = {}
        for i in range(args.models):
            pred = np.where(rng.random((n, k)) < 0.05, 1 - tasks, tasks)
            result = biasamp.mals(
                groups_train=groups,
                tasks_train=tasks,
                groups_pred=groups,
                tasks_pred=pred,
                n_boot=100,
                random_state=i,
            )
            files[f"epoch {i}"] = result.save(Path(folder) / f"epoch{i}.json")
        size = sum(p.stat().st_size for p in files.values())
        perf = {m: {"epoch": i} for i, m in enumerate(files)}
        times = []
        for _ in range(args.repeat):
            start = time.perf_counter()
            table = biasamp.compare(files, performance=perf)
            times.append(time.perf_counter() - start)
    print("| models | files (MB) | rows | compare, best (s) | median (s) |")
    print(
        f"| {args.models} | {size / 1e6:.1f} | {len(table)} | {min(times):.3f} | "
        f"{float(np.median(times)):.3f} |"
    )


if __name__ == "__main__":
    main()
