"""Benchmark: a wide Parquet file (thousands of indicator columns) counted by every engine.

Generates one zstd Parquet file of ``--rows`` rows: a string group column
``gender`` and ``--tasks`` task indicator columns (``--dtype bool`` or ``uint8``,
sparse rates). Then, each in a fresh subprocess, counts ``groups="gender",
tasks=<every task column>`` once:

* ``in-memory``: ``pandas.read_parquet`` then ``CountTable.from_arrays`` (read and
  count timed apart; the bar of the engines is the sum, read included);
* ``numpy``: ``counts_from_files(path, engine="numpy")`` (pyarrow chunks);
* ``duckdb``: ``counts_from_files(path, engine="duckdb")``;
* ``dask``: ``dd.read_parquet`` on a ``LocalCluster(n_workers=2, processes=True)``,
  ``CountTable.from_arrays`` on the columns;
* ``spark``: ``spark.read.parquet`` on ``local[2]``, ``counts_from_spark``.

Start-up (a cluster, a SparkSession) is timed apart from the count. Every
engine's table is checked against the numpy engine's.

Usage::

    python benchmarks/bench_wide_engines.py --rows 100000 --tasks 5000
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import time
from typing import Any

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bench_scale_engines import TreeMemory, local_dask, local_spark  # noqa: E402


def _names(tasks: int) -> list[str]:
    return [f"t_{j:05d}" for j in range(tasks)]


def generate(path: str, rows: int, tasks: int, dtype: str, *, seed: int = 0) -> float:
    """One Parquet file, written in row groups of 50,000 rows; returns the seconds taken."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(seed)
    rate = rng.beta(0.6, 12.0, size=tasks).astype(np.float32)
    kind = pa.bool_() if dtype == "bool" else pa.uint8()
    schema = pa.schema([("gender", pa.string())] + [(n, kind) for n in _names(tasks)])
    start = time.perf_counter()
    pool = np.asfortranarray(rng.random((min(rows, 20_000), tasks), dtype=np.float32) < rate)
    labels = np.array(["m", "w"], dtype=object)
    with pq.ParquetWriter(path, schema, compression="zstd") as writer:
        for lo in range(0, rows, 50_000):
            n = min(50_000, rows - lo)
            block = pool[rng.integers(0, len(pool), n)]
            arrays = [pa.array(labels[(rng.random(n) < 0.45).astype(np.int8)])]
            arrays += [pa.array(block[:, j].astype(dtype)) for j in range(tasks)]
            writer.write_batch(pa.record_batch(arrays, schema=schema))
    return time.perf_counter() - start


def run_engine(path: str, engine: str, tasks: int, chunk_size: int) -> dict:
    """Runs in the subprocess: start the engine, count once."""
    import biasamp

    names = _names(tasks)
    start = time.perf_counter()
    read_s = None
    teardown: Any = None
    with TreeMemory() as memory:
        if engine == "in-memory":
            import pandas as pd

            ready = time.perf_counter()
            frame = pd.read_parquet(path)
            read_s = time.perf_counter() - ready
            table = biasamp.CountTable.from_arrays(groups=frame["gender"], tasks=frame[names])
        elif engine in ("numpy", "duckdb"):
            ready = time.perf_counter()
            table = biasamp.counts_from_files(
                path, groups="gender", tasks=names, engine=engine, chunk_size=chunk_size
            )
        elif engine == "dask":
            import dask.dataframe as dd

            teardown = local_dask()
            ready = time.perf_counter()
            ddf = dd.read_parquet(path, split_row_groups=True)
            table = biasamp.CountTable.from_arrays(groups=ddf["gender"], tasks=ddf[names])
        elif engine == "spark":
            spark = local_spark()
            ready = time.perf_counter()
            table = biasamp.counts_from_spark(
                spark.read.parquet(path), groups="gender", tasks=names
            )
            teardown = spark.stop
        else:
            raise ValueError(f"unknown engine {engine!r}")
        counted = time.perf_counter()
    if teardown is not None:
        teardown()
    return {
        "engine": engine,
        "rows": int(table.n_rows),
        "startup_s": ready - start,
        "read_s": read_s,
        "count_s": counted - ready,
        "peak_tree_rss_mb": memory.peak,
        "peak_self_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "joint": np.asarray(table.joint[("groups", "tasks")]).tolist(),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--tasks", type=int, default=5_000)
    parser.add_argument("--dtype", choices=["bool", "uint8"], default="bool")
    parser.add_argument("--dir", default="/tmp/biasamp_wide_engines")
    parser.add_argument("--chunk-size", type=int, default=100_000)
    parser.add_argument("--engines", default="in-memory,numpy,duckdb,dask,spark")
    parser.add_argument("--keep", action="store_true", help="keep the generated file")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    path = os.path.join(args.dir, f"wide_{args.rows}x{args.tasks}_{args.dtype}.parquet")
    if args.child:
        print(json.dumps(run_engine(path, args.child, args.tasks, args.chunk_size)))
        return
    if not os.path.exists(path):
        os.makedirs(args.dir, exist_ok=True)
        seconds = generate(path, args.rows, args.tasks, args.dtype)
        size = os.path.getsize(path) / 2**20
        print(f"generated {path}: {size:.0f} MB in {seconds:.0f} s", file=sys.stderr)
    common = ["--rows", str(args.rows), "--tasks", str(args.tasks), "--dtype", args.dtype]
    common += ["--dir", args.dir, "--chunk-size", str(args.chunk_size)]
    results = []
    for engine in args.engines.split(","):
        cmd = [sys.executable, __file__, "--child", engine, *common]
        out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
        results.append(json.loads(out.strip().splitlines()[-1]))
        shown = {k: v for k, v in results[-1].items() if k != "joint"}
        print(json.dumps(shown), file=sys.stderr)
    reference = results[0]["joint"]
    memory = next((r for r in results if r["engine"] == "in-memory"), None)
    base = None if memory is None else memory["read_s"] + memory["count_s"]
    print(
        f"\n{args.rows:,} rows x {args.tasks:,} {args.dtype} task columns (+ a string group "
        "column), one Parquet file; one count of groups x tasks\n"
    )
    print(
        "| engine | start-up (s) | count (s) | x in-memory (read + count) | "
        "peak RSS, process tree (MB) | same table |"
    )
    print("|---|---:|---:|---:|---:|---|")
    for r in results:
        count = r["count_s"] if r["read_s"] is None else r["read_s"] + r["count_s"]
        label = r["engine"]
        if r["read_s"] is not None:
            label += f" (read {r['read_s']:.1f} s + count {r['count_s']:.1f} s)"
        ratio = "" if base is None else f"{count / base:.2f}"
        same = "yes" if np.array_equal(r["joint"], reference) else "NO"
        print(
            f"| {label} | {r['startup_s']:.1f} | {count:.1f} | {ratio} | "
            f"{r['peak_tree_rss_mb']:.0f} | {same} |"
        )
    if not args.keep:
        shutil.rmtree(args.dir, ignore_errors=True)


if __name__ == "__main__":
    main()
