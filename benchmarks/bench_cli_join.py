"""Peak memory and time of ``biasamp measure`` with predictions joined on ``--id``.

Writes a ground-truth Parquet file of N rows (an ``image_id`` string column, 2
indicator groups, T task columns) and a predictions Parquet file with the same
columns in another row order, then runs

    biasamp measure truth.parquet --pred pred.parquet --id image_id
        --group-cols man,woman --task-prefix t_ [--stream ...]

in a fresh process per configuration and prints a markdown table of wall time and
the process's peak RSS (``ru_maxrss``), and whether the values agree.

Usage: python benchmarks/bench_cli_join.py [N_ROWS] [N_TASKS] [--stream MODE ...]
[--engine ENGINE ...] (each streamed mode runs once per engine)
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
from bench_cli_streaming import RUN  # the measured process: main() and its peak RSS


def write_files(root: Path, n_rows: int, n_tasks: int) -> tuple[Path, Path]:
    """Truth and predictions, written in row groups of 250,000 rows (bounded memory here)."""
    rng = np.random.default_rng(0)
    order = rng.permutation(n_rows)  # the predictions' row order
    truth_path, pred_path = root / "truth.parquet", root / "pred.parquet"
    p = np.linspace(0.1, 0.6, n_tasks)
    woman = rng.random(n_rows) < 0.45
    step = 250_000
    truth_writer = pred_writer = None
    try:
        for start in range(0, n_rows, step):
            rows = np.arange(start, min(start + step, n_rows))
            for kind in ("truth", "pred"):
                index = rows if kind == "truth" else order[rows]
                local = np.random.default_rng([start, kind == "pred"])
                w = woman[index]
                truth = local.random((index.size, n_tasks)) < np.where(w[:, None], p, 1 - p)
                cols = {
                    "image_id": pa.array([f"img{i:09d}" for i in index]),
                    "man": pa.array((~w).astype(np.uint8)),
                    "woman": pa.array(w.astype(np.uint8)),
                }
                for j in range(n_tasks):
                    cols[f"t_{j}"] = pa.array(truth[:, j].astype(np.uint8))
                table = pa.table(cols)
                if kind == "truth":
                    truth_writer = truth_writer or pq.ParquetWriter(truth_path, table.schema)
                    truth_writer.write_table(table, row_group_size=100_000)
                else:
                    pred_writer = pred_writer or pq.ParquetWriter(pred_path, table.schema)
                    pred_writer.write_table(table, row_group_size=100_000)
    finally:
        for writer in (truth_writer, pred_writer):
            if writer is not None:
                writer.close()
    return truth_path, pred_path


def run(root: Path, extra: list[str]) -> tuple[float, float, list[float]]:
    out = root / "out.json"
    args = ["measure", "truth.parquet", "--pred", "pred.parquet", "--id", "image_id"]
    args += ["--group-cols", "man,woman", "--task-prefix", "t_", "--json", str(out)]
    args += ["--top", "0", "--no-progress", *extra]
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-c", RUN, *args], capture_output=True, text=True, cwd=root
    )
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr)
    peak_kb = int(proc.stdout.rsplit("PEAK_KB", 1)[1].split()[0])
    doc = json.loads(out.read_text())
    return wall, peak_kb / 1024, [m["value"] for m in list(doc["results"].values())]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rows", type=int, nargs="?", default=5_000_000)
    parser.add_argument("tasks", type=int, nargs="?", default=20)
    parser.add_argument("--stream", nargs="+", default=["on", "off"])
    parser.add_argument("--engine", nargs="+", default=["numpy", "duckdb"])
    parser.add_argument("--write-to", help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.write_to:
        write_files(Path(options.write_to), options.rows, options.tasks)
        return
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        # written by another process: a child's peak RSS (ru_maxrss) starts at its parent's
        writer = [sys.executable, __file__, str(options.rows), str(options.tasks)]
        subprocess.run([*writer, "--write-to", str(root)], check=True)
        truth, pred = root / "truth.parquet", root / "pred.parquet"
        print(
            f"{options.rows:,} rows x {options.tasks} tasks, 2 indicator groups, string ids; "
            f"truth {truth.stat().st_size / 2**20:.0f} MB, "
            f"predictions {pred.stat().st_size / 2**20:.0f} MB (Parquet, shuffled)\n"
        )
        print("| --stream | --engine | time (s) | peak RSS (MB) | same values |")
        print("|---|---|---:|---:|---|")
        reference = None
        for mode in options.stream:
            for engine in options.engine if mode != "off" else ["in-memory"]:
                extra = ["--stream", mode]
                if mode != "off":
                    extra += ["--engine", engine]
                wall, peak, values = run(root, extra)
                reference = values if reference is None else reference
                same = values == reference
                print(f"| {mode} | {engine} | {wall:.1f} | {peak:.0f} | {same} |", flush=True)


if __name__ == "__main__":
    main()
