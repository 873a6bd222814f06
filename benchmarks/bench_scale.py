"""Benchmark: count tables of a Parquet file far larger than the label matrices fit in memory.

Generates (in chunks, with pyarrow) a Parquet file of ``--rows`` rows x
``--tasks`` tasks, two groups, boolean task and prediction columns at sparse,
group-dependent rates, then for each engine runs, in a fresh subprocess,
``counts_from_files`` once (all four roles) and computes ``directional`` in
both directions plus ``mals`` from the table. Each subprocess reports its wall
time and its own peak RSS (``resource.getrusage(RUSAGE_SELF).ru_maxrss``).

The in-memory baseline (``pandas.read_parquet`` + ``CountTable.from_arrays``)
runs on the first ``--baseline-rows`` rows only: at full size it would need
``rows x 2 x tasks x 8`` bytes of float64 label matrices (64 GB for 20M x 200).

Usage::

    python benchmarks/bench_scale.py --rows 20000000 --tasks 200 --dir /tmp/biasamp_scale
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

import numpy as np


def generate(path: str, rows: int, tasks: int, *, chunk: int = 500_000, seed: int = 0) -> float:
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(seed)
    base = rng.beta(0.6, 12.0, size=tasks).astype(np.float32)  # sparse: mean rate ~5%
    tilt = rng.uniform(0.5, 1.5, size=tasks).astype(np.float32)  # group-dependent rates
    rate = np.stack([np.clip(base * tilt, 0, 1), np.clip(base / tilt, 0, 1)])
    names = [f"t_{j:03d}" for j in range(tasks)]
    schema = pa.schema(
        [("gender", pa.string()), ("gender_pred", pa.string())]
        + [(n, pa.bool_()) for n in names]
        + [(f"p_{n}", pa.bool_()) for n in names]
    )
    start = time.perf_counter()
    # a pool of random rows per group, sampled with replacement chunk by chunk: the rates are
    # exact in expectation and generation costs a gather instead of 2 x rows x tasks draws
    pool_rows = min(rows, 200_000)
    pools = []
    for g in (0, 1):
        truth = rng.random((pool_rows, tasks), dtype=np.float32) < rate[g]
        pred = truth ^ (rng.random((pool_rows, tasks), dtype=np.float32) < 0.02 + 0.3 * rate[g])
        pools.append(np.asfortranarray(np.concatenate([truth, pred], axis=1)))
    labels = np.array(["m", "w"], dtype=object)
    with pq.ParquetWriter(path, schema, compression="zstd") as writer:
        for lo in range(0, rows, chunk):
            n = min(chunk, rows - lo)
            g = (rng.random(n, dtype=np.float32) < 0.45).astype(np.int8)
            gp = np.where(rng.random(n, dtype=np.float32) < 0.85, g, 1 - g)
            block = np.empty((n, 2 * tasks), dtype=bool, order="F")
            for value in (0, 1):
                rows_g = np.flatnonzero(g == value)
                block[rows_g] = pools[value][rng.integers(0, pool_rows, rows_g.size)]
            arrays = [pa.array(labels[g]), pa.array(labels[gp])]
            arrays += [pa.array(block[:, j]) for j in range(2 * tasks)]
            writer.write_batch(pa.record_batch(arrays, schema=schema))
    return time.perf_counter() - start


def run_engine(path: str, engine: str, tasks: int, chunk_size: int, baseline_rows: int) -> dict:
    """Runs in the subprocess: one pass over the file, three metrics, own peak RSS."""
    import biasamp

    names = [f"t_{j:03d}" for j in range(tasks)]
    start = time.perf_counter()
    if engine == "in-memory":
        import pandas as pd
        import pyarrow.parquet as pq

        with pq.ParquetFile(path) as handle:
            frame = next(handle.iter_batches(batch_size=baseline_rows)).to_pandas()
        table = biasamp.CountTable.from_arrays(
            groups=frame["gender"],
            groups_pred=frame["gender_pred"],
            tasks=frame[names],
            tasks_pred=pd.DataFrame(frame[[f"p_{n}" for n in names]].to_numpy(), columns=names),
        )
    else:
        table = biasamp.counts_from_files(
            path,
            groups="gender",
            groups_pred="gender_pred",
            tasks=names,
            tasks_pred_prefix="p_",
            engine=engine,
            chunk_size=chunk_size,
        )
    counted = time.perf_counter() - start
    values = {
        "A->T": biasamp.directional_from_counts(table, direction="A->T").value,
        "T->A": biasamp.directional_from_counts(table, direction="T->A").value,
        "mals": biasamp.mals_from_counts(table, table).value,
    }
    total = time.perf_counter() - start
    peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return {
        "engine": engine,
        "rows": int(table.n_rows),
        "count_s": counted,
        "total_s": total,
        "peak_rss_mb": peak_kb / 1024,
        "values": values,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=20_000_000)
    parser.add_argument("--tasks", type=int, default=200)
    parser.add_argument("--dir", default="/tmp/biasamp_scale")
    parser.add_argument("--chunk-size", type=int, default=100_000)
    parser.add_argument("--baseline-rows", type=int, default=1_000_000)
    parser.add_argument("--engines", default="in-memory,numpy,duckdb")
    parser.add_argument("--keep", action="store_true", help="keep the generated file")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    path = os.path.join(args.dir, f"scale_{args.rows}x{args.tasks}.parquet")
    if args.child == "generate":
        os.makedirs(args.dir, exist_ok=True)
        seconds = generate(path, args.rows, args.tasks)
        print(
            f"generated {path}: {os.path.getsize(path) / 2**20:.0f} MB in {seconds:.0f} s",
            file=sys.stderr,
        )
        return
    if args.child:
        print(
            json.dumps(
                run_engine(path, args.child, args.tasks, args.chunk_size, args.baseline_rows)
            )
        )
        return
    os.makedirs(args.dir, exist_ok=True)
    # every step runs in its own subprocess: Linux keeps ru_maxrss across fork/exec, so the
    # parent must stay small for the children's peak RSS to be their own
    common = [
        "--rows",
        str(args.rows),
        "--tasks",
        str(args.tasks),
        "--dir",
        args.dir,
        "--chunk-size",
        str(args.chunk_size),
        "--baseline-rows",
        str(args.baseline_rows),
    ]
    if not os.path.exists(path):
        subprocess.run([sys.executable, __file__, "--child", "generate", *common], check=True)
    results = []
    for engine in args.engines.split(","):
        cmd = [sys.executable, __file__, "--child", engine, *common]
        out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
        results.append(json.loads(out.strip().splitlines()[-1]))
        print(json.dumps(results[-1]), file=sys.stderr)
    print(
        f"\n{args.rows:,} rows x {args.tasks} tasks (+ {args.tasks} predictions), 2 groups; "
        f"one pass, then directional A->T, T->A and mals\n"
    )
    print(
        "| engine | rows counted | count time (s) | total (s) | rows/s | peak RSS (MB) | A->T | T->A | mals |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in results:
        v = r["values"]
        print(
            f"| {r['engine']} | {r['rows']:,} | {r['count_s']:.1f} | {r['total_s']:.1f} | "
            f"{r['rows'] / r['count_s']:,.0f} | {r['peak_rss_mb']:.0f} | {v['A->T']:.6f} | "
            f"{v['T->A']:.6f} | {v['mals']:.6f} |"
        )
    if not args.keep:
        shutil.rmtree(args.dir, ignore_errors=True)


if __name__ == "__main__":
    main()
