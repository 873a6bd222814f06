"""``biasamp.audit`` on a CSV file against ``pd.read_csv`` plus the in-memory metrics.

The baseline is what an expert writes for a file that fits in memory: read it with
pandas (``pd.read_csv``, the C parser; ``--baselines pandas,pyarrow`` adds
``engine="pyarrow"``), take the columns as numpy arrays and call the in-memory
metric functions (``biasamp.directional`` for each direction asked for). The
audit reads the same file with its validation, provenance (SHA-256) and
bounded-memory counting, ``biasamp.audit(path, group=..., task_prefix=...,
pred_prefix=..., metrics=...)``.

The CSV (generated in ``--dir``, default a temporary folder, and deleted after
unless ``--keep``): a ``gender`` label column and its prediction
``pred_gender``, ``--tasks`` 0/1 task columns ``obj_j`` and as many prediction
columns ``pred_obj_j`` (so ``2 + 2 x tasks`` columns), group-dependent rates.

Every run is a fresh process (the imports are done before the clock starts);
the baseline and the audit runs alternate, ``--repeat`` times each, so both see
the same load. Printed: wall and CPU seconds (the process's, all threads), peak
RSS (``ru_maxrss``) and the values, for each run; then the medians and the
median of the per-pair ratios (audit / baseline). The values are asserted equal.

Usage: python benchmarks/bench_file_audit.py --rows 500000 --tasks 29 --metrics directional-a2t
       python benchmarks/bench_file_audit.py --rows 1000000 --tasks 49
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

CHILD = r"""
import json, resource, sys, time
which, path, metrics, engine = sys.argv[1], sys.argv[2], sys.argv[3].split(","), sys.argv[4]
import numpy as np, pandas as pd, biasamp
if which == "audit":
    import biasamp.auditing  # imported before the clock, as pandas is for the baseline
wall, cpu = time.perf_counter(), time.process_time()
if which == "audit":
    result = biasamp.audit(path, group="gender", task_prefix="obj_", pred_prefix="pred_",
                           metrics=metrics, engine=engine)
    values = {k: float(v.value) for k, v in result.results.items()}
    used = result.document["settings"]["engine"]
else:
    frame = pd.read_csv(path, engine=None if which == "pandas" else "pyarrow")
    groups = frame["gender"].to_numpy()
    names = [c for c in frame.columns if c.startswith("obj_")]
    tasks = frame[names].to_numpy()
    values = {}
    for metric in metrics:
        if metric == "directional-a2t":
            pred = {"tasks_pred": frame[["pred_" + c for c in names]].to_numpy()}
        else:
            pred = {"groups_pred": frame["pred_gender"].to_numpy()}
        direction = "A->T" if metric == "directional-a2t" else "T->A"
        values[metric] = float(biasamp.directional(
            groups=groups, tasks=tasks, direction=direction, task_names=names, **pred).value)
    used = "in memory"
wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print("\n" + json.dumps({"wall": wall, "cpu": cpu, "peak_mb": peak, "values": values, "engine": used}))
"""


def write_csv(path: Path, n_rows: int, n_tasks: int, seed: int = 0) -> None:
    rng = np.random.default_rng(seed)
    step = 250_000
    for start in range(0, n_rows, step):
        n = min(step, n_rows - start)
        woman = rng.random(n) < 0.45
        rates = np.linspace(0.05, 0.4, n_tasks)
        truth = rng.random((n, n_tasks)) < np.where(woman[:, None], rates, rates * 0.7)
        pred = truth ^ (rng.random((n, n_tasks)) < 0.1)
        said = woman ^ (rng.random(n) < 0.1)
        columns: dict[str, np.ndarray] = {
            "gender": np.where(woman, "woman", "man"),
            "pred_gender": np.where(said, "woman", "man"),
        }
        columns.update({f"obj_{j}": truth[:, j].astype(np.uint8) for j in range(n_tasks)})
        columns.update({f"pred_obj_{j}": pred[:, j].astype(np.uint8) for j in range(n_tasks)})
        pd.DataFrame(columns).to_csv(
            path, index=False, mode="w" if start == 0 else "a", header=start == 0
        )


def run(which: str, path: Path, metrics: str, engine: str, src: str | None = None) -> dict:
    env = dict(os.environ)
    if src is not None:  # another version of the package (``--before``)
        env["PYTHONPATH"] = src
    out = subprocess.run(
        [sys.executable, "-c", CHILD, which, str(path), metrics, engine],
        check=True,
        capture_output=True,
        text=True,
        env=env,
    )
    # DuckDB may draw a progress bar on the same stream: the result is the JSON line
    line = next(x for x in reversed(out.stdout.splitlines()) if x.startswith('{"wall"'))
    return json.loads(line)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=500_000)
    parser.add_argument("--tasks", type=int, default=29)
    parser.add_argument("--metrics", default="directional-a2t,directional-t2a")
    parser.add_argument("--engines", default="auto", help="audit engines, comma-separated")
    parser.add_argument("--baselines", default="pandas", help="pandas and/or pyarrow")
    parser.add_argument(
        "--before",
        default=None,
        help="the src folder of another version (git archive <commit> src | tar -x -C DIR): "
        "its audit runs in the same rotation",
    )
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--dir", default=None, help="where the CSV is written (default: /tmp)")
    parser.add_argument("--keep", action="store_true", help="keep the CSV (reused if present)")
    args = parser.parse_args()
    root = Path(args.dir or tempfile.mkdtemp(prefix="biasamp-bench-"))
    root.mkdir(parents=True, exist_ok=True)
    path = root / f"audit_{args.rows}x{args.tasks}.csv"
    if not path.exists():
        write_csv(path, args.rows, args.tasks)
    print(
        f"{path.name}: {args.rows:,} rows x {2 + 2 * args.tasks} columns, "
        f"{path.stat().st_size / 1e6:.0f} MB; metrics {args.metrics}; "
        f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}; "
        f"load average before: {os.getloadavg()[0]:.1f}"
    )
    kinds = [f"audit:{e}" for e in args.engines.split(",")]
    if args.before:
        kinds += [f"before:{e}" for e in args.engines.split(",")]
    kinds += args.baselines.split(",")
    runs: dict[str, list[dict]] = {k: [] for k in kinds}
    try:
        for rep in range(args.repeat):
            for kind in kinds:
                which, _, engine = kind.partition(":")
                src = args.before if which == "before" else None
                which = "audit" if which == "before" else which
                got = run(which, path, args.metrics, engine or "auto", src)
                runs[kind].append(got)
                print(
                    f"  {rep} {kind:12s} {got['engine']:9s} wall {got['wall']:6.2f} s  "
                    f"cpu {got['cpu']:6.2f} s  peak {got['peak_mb']:5.0f} MB  {got['values']}",
                    flush=True,
                )
    finally:
        if not args.keep:
            shutil.rmtree(root) if args.dir is None else path.unlink()
    reference = runs[kinds[-1]][0]["values"]
    for kind in kinds:
        for got in runs[kind]:
            for key, value in got["values"].items():
                assert abs(value - reference[key]) < 1e-12, (kind, key, value, reference[key])
    base = args.baselines.split(",")[0]
    print(f"load average after: {os.getloadavg()[0]:.1f}")
    print(
        "| run | wall s (median) | CPU s (median) | peak RSS MB | wall / baseline | CPU / baseline |"
    )
    print("|---|---:|---:|---:|---:|---:|")
    for kind in kinds:
        wall = statistics.median(r["wall"] for r in runs[kind])
        cpu = statistics.median(r["cpu"] for r in runs[kind])
        peak = statistics.median(r["peak_mb"] for r in runs[kind])
        ratio_wall = statistics.median(
            a["wall"] / b["wall"] for a, b in zip(runs[kind], runs[base], strict=True)
        )
        ratio_cpu = statistics.median(
            a["cpu"] / b["cpu"] for a, b in zip(runs[kind], runs[base], strict=True)
        )
        print(
            f"| {kind} | {wall:.2f} | {cpu:.2f} | {peak:.0f} | {ratio_wall:.2f} | {ratio_cpu:.2f} |"
        )


if __name__ == "__main__":
    main()
