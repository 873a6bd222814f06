"""Benchmark: one multi-file Parquet dataset counted by every engine (numpy, DuckDB, Dask, Spark).

Generates (with ``bench_scale.generate``) a directory of ``--files`` zstd Parquet
files holding ``--rows`` rows in all: two string group columns (``gender``,
``gender_pred``), ``--tasks`` boolean task columns and as many boolean
prediction columns, sparse group-dependent rates. Then each engine runs in a
fresh subprocess that counts all four roles once and computes ``directional``
in both directions plus ``mals`` from the table:

* ``numpy``: ``counts_from_files(paths, engine="numpy", chunk_size=...)`` (pyarrow streaming);
* ``duckdb``: ``counts_from_files(paths, engine="duckdb")`` (one SQL aggregation);
* ``dask``: ``dd.read_parquet(dir)`` on a ``LocalCluster(n_workers=2, processes=True)``,
  ``CountTable.from_arrays`` on the columns (per-partition tables, tree-merged);
* ``spark``: ``spark.read.parquet(dir)`` on ``local[2]``, ``counts_from_spark``
  (the group-sums SQL on the cluster).

With ``--repeat 2`` each subprocess counts a second time and reports that
count too (the engine warmed up: Spark's Python workers started and its JVM
compiled, the files in the page cache). Each subprocess reports its wall time
(start-up included and excluded) and the
peak RSS of its whole process tree (the Python process, Dask's worker
processes, Spark's JVM and Python workers), sampled every 0.1 s from /proc,
besides the Python process's own ``ru_maxrss``.

Usage (the full size; about 390 MB of Parquet)::

    python benchmarks/bench_scale_engines.py --rows 20000000 --tasks 200 --files 16
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import threading
import time
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bench_scale import generate  # noqa: E402


def _tree_rss_mb(root: int) -> float:
    """Sum of the RSS of ``root`` and all its descendants, from /proc (Linux)."""
    children: dict[int, list[int]] = {}
    rss: dict[int, int] = {}
    page = os.sysconf("SC_PAGE_SIZE")
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        pid, ppid = int(entry), int(fields[1])
        children.setdefault(ppid, []).append(pid)
        rss[pid] = int(fields[21]) * page
    total, stack = 0, [root]
    while stack:
        pid = stack.pop()
        total += rss.get(pid, 0)
        stack.extend(children.get(pid, []))
    return total / 2**20


class TreeMemory:
    """Samples the peak RSS of this process tree in a background thread."""

    def __init__(self, interval: float = 0.1) -> None:
        self.peak = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(interval,), daemon=True)

    def _run(self, interval: float) -> None:
        while not self._stop.is_set():
            self.peak = max(self.peak, _tree_rss_mb(os.getpid()))
            time.sleep(interval)

    def __enter__(self) -> TreeMemory:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


def local_dask() -> Any:
    """Start a ``LocalCluster(n_workers=2, processes=True)`` with a client; return its teardown."""
    from distributed import Client, LocalCluster

    cluster = LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    )
    client = Client(cluster)

    def teardown() -> None:
        client.close()
        cluster.close()

    return teardown


def local_spark() -> Any:
    """A quiet ``local[2]`` SparkSession bound to 127.0.0.1, its workers on this Python."""
    from pyspark.sql import SparkSession

    spark = (
        SparkSession.builder.master("local[2]")
        .config("spark.pyspark.python", sys.executable)
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.sql.shuffle.partitions", "2")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def _names(tasks: int) -> list[str]:
    return [f"t_{j:03d}" for j in range(tasks)]


def run_engine(directory: str, engine: str, tasks: int, chunk_size: int, repeat: int = 1) -> dict:
    """Runs in the subprocess: start the engine, one counting pass, three metrics."""
    import biasamp

    names = _names(tasks)
    paths = sorted(
        os.path.join(directory, f) for f in os.listdir(directory) if f.endswith(".parquet")
    )
    roles = dict(groups="gender", groups_pred="gender_pred", tasks=names, tasks_pred_prefix="p_")
    start = time.perf_counter()
    with TreeMemory() as memory:
        teardown = None
        if engine in ("numpy", "duckdb"):
            ready = time.perf_counter()

            def count() -> biasamp.CountTable:
                return biasamp.counts_from_files(
                    paths, **roles, engine=engine, chunk_size=chunk_size
                )
        elif engine == "dask":
            import dask.dataframe as dd

            teardown = local_dask()
            ready = time.perf_counter()

            def count() -> biasamp.CountTable:
                ddf = dd.read_parquet(directory)
                preds = ddf[[f"p_{n}" for n in names]].rename(columns=lambda c: c[2:])
                return biasamp.CountTable.from_arrays(
                    groups=ddf["gender"],
                    groups_pred=ddf["gender_pred"],
                    tasks=ddf[names],
                    tasks_pred=preds,
                )

        elif engine == "spark":
            spark = local_spark()
            ready = time.perf_counter()

            def count() -> biasamp.CountTable:
                return biasamp.counts_from_spark(spark.read.parquet(directory), **roles)

            teardown = spark.stop
        else:
            raise ValueError(f"unknown engine {engine!r}")
        table = count()
        counted = time.perf_counter()
        values = {
            "A->T": biasamp.directional_from_counts(table, direction="A->T").value,
            "T->A": biasamp.directional_from_counts(table, direction="T->A").value,
            "mals": biasamp.mals_from_counts(table, table).value,
        }
        total = time.perf_counter() - start
        warm = []
        for _ in range(repeat - 1):  # the same count again, the engine warmed up
            again = time.perf_counter()
            count()
            warm.append(time.perf_counter() - again)
        if teardown is not None:
            teardown()
    return {
        "engine": engine,
        "rows": int(table.n_rows),
        "startup_s": ready - start,
        "count_s": counted - ready,
        "count_warm_s": min(warm) if warm else None,
        "total_s": total,
        "peak_tree_rss_mb": memory.peak,
        "peak_self_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "values": values,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=20_000_000)
    parser.add_argument("--tasks", type=int, default=200)
    parser.add_argument("--files", type=int, default=16)
    parser.add_argument("--dir", default="/tmp/biasamp_scale_engines")
    parser.add_argument("--chunk-size", type=int, default=100_000)
    parser.add_argument("--engines", default="numpy,duckdb,dask,spark")
    parser.add_argument(
        "--repeat", type=int, default=1, help="count this many times (later runs: warm engine)"
    )
    parser.add_argument("--keep", action="store_true", help="keep the generated files")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    directory = os.path.join(args.dir, f"data_{args.rows}x{args.tasks}x{args.files}")
    if args.child == "generate":
        os.makedirs(directory, exist_ok=True)
        per_file = -(-args.rows // args.files)
        seconds = 0.0
        for i in range(args.files):
            rows = min(per_file, args.rows - i * per_file)
            if rows > 0:
                path = os.path.join(directory, f"part-{i:04d}.parquet")
                seconds += generate(path, rows, args.tasks, seed=i)
        size = sum(os.path.getsize(os.path.join(directory, f)) for f in os.listdir(directory))
        print(f"generated {directory}: {size / 2**20:.0f} MB in {seconds:.0f} s", file=sys.stderr)
        return
    if args.child:
        print(
            json.dumps(run_engine(directory, args.child, args.tasks, args.chunk_size, args.repeat))
        )
        return
    common = [
        "--rows",
        str(args.rows),
        "--tasks",
        str(args.tasks),
        "--files",
        str(args.files),
        "--dir",
        args.dir,
        "--chunk-size",
        str(args.chunk_size),
        "--repeat",
        str(args.repeat),
    ]
    if not os.path.isdir(directory):
        subprocess.run([sys.executable, __file__, "--child", "generate", *common], check=True)
    results = []
    for engine in args.engines.split(","):
        cmd = [sys.executable, __file__, "--child", engine, *common]
        out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
        results.append(json.loads(out.strip().splitlines()[-1]))
        print(json.dumps(results[-1]), file=sys.stderr)
    print(
        f"\n{args.rows:,} rows x {args.tasks} tasks (+ {args.tasks} predictions) in "
        f"{args.files} Parquet files; one pass, then directional A->T, T->A and mals\n"
    )
    print(
        "| engine | rows | start-up (s) | count (s) | count again (s) | rows/s | total (s) | "
        "peak RSS, process tree (MB) | peak RSS, Python (MB) | A->T | T->A | mals |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in results:
        v = r["values"]
        again = "" if r["count_warm_s"] is None else f"{r['count_warm_s']:.1f}"
        print(
            f"| {r['engine']} | {r['rows']:,} | {r['startup_s']:.1f} | {r['count_s']:.1f} | "
            f"{again} | {r['rows'] / r['count_s']:,.0f} | {r['total_s']:.1f} | "
            f"{r['peak_tree_rss_mb']:.0f} | {r['peak_self_rss_mb']:.0f} | "
            f"{v['A->T']:.6f} | {v['T->A']:.6f} | {v['mals']:.6f} |"
        )
    if not args.keep:
        shutil.rmtree(args.dir, ignore_errors=True)


if __name__ == "__main__":
    main()
