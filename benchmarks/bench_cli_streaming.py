"""Peak memory and time of ``biasamp measure``: streamed (numpy, duckdb) vs in memory.

Writes a Parquet and a CSV file of N rows x T tasks (2 indicator groups, T task
columns and T prediction columns, 0/1), then runs ``biasamp measure`` on each in a
fresh process per configuration (``--stream off``, ``--stream on``, ``--stream on
--engine duckdb``) and prints a markdown table of wall time and the process's peak
RSS (``ru_maxrss``). The in-memory path holds every needed column of every row as
uint8 (about N x (2 + 2T) bytes plus the metric's float copies); the streamed path
one chunk at a time.

Usage: python benchmarks/bench_cli_streaming.py [N_ROWS] [N_TASKS]
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

RUN = """
import resource, sys
from biasamp.cli.main import main
code = main(sys.argv[1:])
print("PEAK_KB", resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
sys.exit(code)
"""


def write_files(root: Path, n_rows: int, n_tasks: int) -> dict[str, Path]:
    rng = np.random.default_rng(0)
    parts = []
    step = 250_000
    for start in range(0, n_rows, step):
        n = min(step, n_rows - start)
        woman = rng.random(n) < 0.45
        cols = {"man": (~woman).astype(np.uint8), "woman": woman.astype(np.uint8)}
        p = np.linspace(0.1, 0.6, n_tasks)
        truth = rng.random((n, n_tasks)) < np.where(woman[:, None], p, 1 - p)
        pred = truth ^ (rng.random((n, n_tasks)) < 0.1)
        for j in range(n_tasks):
            cols[f"t_{j}"] = truth[:, j].astype(np.uint8)
            cols[f"p_t_{j}"] = pred[:, j].astype(np.uint8)
        cols["p_man"] = cols["man"]
        cols["p_woman"] = cols["woman"]
        parts.append(pd.DataFrame(cols))
    frame = pd.concat(parts, ignore_index=True)
    paths = {"parquet": root / "data.parquet", "csv": root / "data.csv"}
    frame.to_parquet(paths["parquet"], index=False, row_group_size=100_000)
    frame.to_csv(paths["csv"], index=False)
    return paths


def run(path: Path, extra: list[str], out: Path) -> tuple[float, float, dict]:
    args = [
        "measure",
        str(path),
        "--group-cols",
        "man,woman",
        "--task-prefix",
        "t_",
        "--pred-prefix",
        "p_",
        "--json",
        str(out),
        "--top",
        "0",
        "--no-progress",
        *extra,
    ]
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", RUN, *args], capture_output=True, text=True)
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr)
    peak_kb = int(proc.stdout.rsplit("PEAK_KB", 1)[1].split()[0])
    return wall, peak_kb / 1024, json.loads(out.read_text())


def main() -> None:
    n_rows = int(sys.argv[1]) if len(sys.argv) > 1 else 2_000_000
    n_tasks = int(sys.argv[2]) if len(sys.argv) > 2 else 50
    configs = [
        ("in memory (--stream off)", ["--stream", "off"]),
        ("streamed, numpy", ["--stream", "on"]),
        ("streamed, duckdb", ["--stream", "on", "--engine", "duckdb"]),
    ]
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        paths = write_files(root, n_rows, n_tasks)
        print(
            f"{n_rows:,} rows x {n_tasks} tasks (+ predictions), 2 groups; "
            f"Parquet {paths['parquet'].stat().st_size / 2**20:.0f} MB, "
            f"CSV {paths['csv'].stat().st_size / 2**20:.0f} MB\n"
        )
        print("| file | path | time (s) | peak RSS (MB) | same values |")
        print("|---|---|---:|---:|---|")
        for fmt, path in paths.items():
            reference = None
            for name, extra in configs:
                wall, peak, doc = run(path, extra, root / "out.json")
                values = [m["value"] for m in list(doc["results"].values())]
                reference = values if reference is None else reference
                print(f"| {fmt} | {name} | {wall:.1f} | {peak:.0f} | {values == reference} |")


if __name__ == "__main__":
    main()
