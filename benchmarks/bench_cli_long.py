"""Peak memory and time of ``biasamp measure`` on long ``(id, label)`` task tables.

Writes a data Parquet file of N ids (a string ``image_id``, 2 indicator groups and
their predicted indicators ``pred_man``, ``pred_woman``), a long Parquet table of
the ground-truth tasks and one of the predicted tasks (about 2 pairs per id over T
tasks, ids shuffled), then runs

    biasamp measure data.parquet --id image_id --group-cols man,woman
        --pred-prefix pred_ --tasks-long tasks.parquet --pred-tasks-long pred.parquet
        --metric a2t --metric t2a --stream MODE [--engine ENGINE]

in a fresh process per configuration and prints a markdown table of wall time, the
process's peak RSS (``ru_maxrss``) and whether the values agree.

Usage: python benchmarks/bench_cli_long.py [N_IDS] [N_TASKS] [--engine ENGINE ...]
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


def _long_table(
    rng: np.random.Generator, woman: np.ndarray, ids: np.ndarray, n_tasks: int
) -> pa.Table:
    """About two (id, task) pairs per id, tasks tied to the group, rows shuffled."""
    n = ids.size
    p = np.linspace(0.02, 0.3, n_tasks)
    counts = rng.poisson(2.0, n)
    rows = np.repeat(np.arange(n), counts)
    weights = np.where(woman[rows, None], p[None, :], p[::-1][None, :])
    cumulative = np.cumsum(weights / weights.sum(axis=1, keepdims=True), axis=1)
    tasks = (rng.random(rows.size)[:, None] > cumulative).sum(axis=1)
    order = rng.permutation(rows.size)
    labels = np.array([f"task{j:03d}" for j in range(n_tasks)], dtype=object)
    return pa.table(
        {"image_id": pa.array(ids[rows[order]]), "label": pa.array(labels[tasks[order]])}
    )


def write_files(root: Path, n_ids: int, n_tasks: int) -> None:
    rng = np.random.default_rng(0)
    ids = np.array([f"img{i:09d}" for i in range(n_ids)], dtype=object)
    woman = rng.random(n_ids) < 0.45
    flip = rng.random(n_ids) < 0.15
    pred_woman = woman ^ flip
    pq.write_table(
        pa.table(
            {
                "image_id": pa.array(ids),
                "man": pa.array((~woman).astype(np.uint8)),
                "woman": pa.array(woman.astype(np.uint8)),
                "pred_man": pa.array((~pred_woman).astype(np.uint8)),
                "pred_woman": pa.array(pred_woman.astype(np.uint8)),
            }
        ),
        root / "data.parquet",
    )
    pq.write_table(_long_table(rng, woman, ids, n_tasks), root / "tasks.parquet")
    pq.write_table(_long_table(rng, pred_woman, ids, n_tasks), root / "pred.parquet")


def run(root: Path, extra: list[str]) -> tuple[float, float, list[float]]:
    out = root / "out.json"
    args = ["measure", "data.parquet", "--id", "image_id", "--group-cols", "man,woman"]
    args += ["--pred-prefix", "pred_", "--tasks-long", "tasks.parquet"]
    args += ["--pred-tasks-long", "pred.parquet", "--json", str(out), "--top", "0"]
    args += ["--metric", "a2t", "--metric", "t2a", "--no-progress", *extra]
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-c", RUN, *args], capture_output=True, text=True, cwd=root
    )
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr)
    peak_kb = int(proc.stdout.rsplit("PEAK_KB", 1)[1].split()[0])
    doc = json.loads(out.read_text())
    assert doc["settings"]["streamed"] is ("on" in extra)
    return wall, peak_kb / 1024, [m["value"] for m in list(doc["results"].values())]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("ids", type=int, nargs="?", default=1_000_000)
    parser.add_argument("tasks", type=int, nargs="?", default=100)
    parser.add_argument("--engine", nargs="+", default=["numpy", "duckdb"])
    parser.add_argument("--write-to", help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.write_to:
        write_files(Path(options.write_to), options.ids, options.tasks)
        return
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        # written by another process: a child's peak RSS (ru_maxrss) starts at its parent's
        writer = [sys.executable, __file__, str(options.ids), str(options.tasks)]
        subprocess.run([*writer, "--write-to", str(root)], check=True)
        sizes = {p.name: p.stat().st_size / 2**20 for p in sorted(root.glob("*.parquet"))}
        print(
            f"{options.ids:,} ids x {options.tasks} tasks, long tables of about 2 pairs per id; "
            + ", ".join(f"{name} {mb:.0f} MB" for name, mb in sizes.items())
            + "\n"
        )
        print("| --stream | --engine | time (s) | peak RSS (MB) | same values |")
        print("|---|---|---:|---:|---|")
        reference = None
        runs = [("off", "in-memory")] + [("on", engine) for engine in options.engine]
        for mode, engine in runs:
            extra = ["--stream", mode] + (["--engine", engine] if mode == "on" else [])
            wall, peak, values = run(root, extra)
            reference = values if reference is None else reference
            same = np.allclose(values, reference, rtol=1e-12, atol=0)
            print(f"| {mode} | {engine} | {wall:.1f} | {peak:.0f} | {same} |", flush=True)


if __name__ == "__main__":
    main()
