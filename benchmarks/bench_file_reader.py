"""Time and peak memory of the validating file reader (``read_blocks``) on CSV files.

Writes a CSV file of N rows x K columns (one label column ``g`` and K - 1 0/1
indicator columns), plain and ``.gz``, then reads the label column and every
indicator column with :func:`biasamp.engines._file_reader.read_blocks` (the
in-memory side of the input contract: validation, SHA-256, arrays) in a fresh
process per file, and prints a markdown table of wall time and the process's
peak RSS (``ru_maxrss``). Run it with ``PYTHONPATH`` pointing at two checkouts
to compare readers.

Usage: python benchmarks/bench_file_reader.py [N_ROWS] [N_COLUMNS] [--repeat R]
"""

from __future__ import annotations

import argparse
import gzip
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

RUN = """
import resource, sys, time
from biasamp.engines._file_reader import ColumnBlock, read_blocks
path, k = sys.argv[1], int(sys.argv[2])
blocks = [
    ColumnBlock("groups", "label", ("g",), "--group"),
    ColumnBlock("tasks", "indicator", tuple(f"t{j}" for j in range(k - 1)), "--task-cols"),
]
start = time.perf_counter()
arrays, info = read_blocks(path, blocks, role="data")
seconds = time.perf_counter() - start
assert info.n_rows == arrays["tasks"].shape[0]
print("RESULT", seconds, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
"""


def write_csv(path: Path, n_rows: int, n_columns: int) -> None:
    """One label column (``m`` / ``w``) and ``n_columns - 1`` random 0/1 columns."""
    rng = np.random.default_rng(0)
    k = n_columns - 1
    with path.open("w", encoding="utf-8") as handle:
        handle.write("g," + ",".join(f"t{j}" for j in range(k)) + "\n")
        for start in range(0, n_rows, 100_000):
            n = min(100_000, n_rows - start)
            cells = np.empty((n, 2 * k + 2), dtype=np.uint8)  # byte layout of each line
            cells[:, 0] = np.where(rng.random(n) < 0.5, ord("m"), ord("w"))
            cells[:, 1::2] = ord(",")
            cells[:, 2::2] = rng.integers(0, 2, size=(n, k), dtype=np.uint8) + ord("0")
            cells[:, -1] = ord("\n")
            handle.write(cells.tobytes().decode("ascii"))


def measure(path: Path, n_columns: int) -> tuple[float, float]:
    """Seconds and peak RSS (MB) of one read in a fresh process."""
    out = subprocess.run(
        [sys.executable, "-c", RUN, str(path), str(n_columns)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    line = next(x for x in out.splitlines() if x.startswith("RESULT"))
    _, seconds, peak = line.split()
    return float(seconds), float(peak)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("rows", nargs="?", type=int, default=1_000_000)
    parser.add_argument("columns", nargs="?", type=int, default=80)
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        plain = Path(folder) / "data.csv"
        write_csv(plain, args.rows, args.columns)
        packed = Path(folder) / "data.csv.gz"
        with plain.open("rb") as source, gzip.open(packed, "wb", compresslevel=6) as target:
            shutil.copyfileobj(source, target)
        print(f"{args.rows:,} rows x {args.columns} columns")
        print("| file | MB | seconds (best) | peak RSS (MB) |")
        print("|---|---|---|---|")
        for path in (plain, packed):
            runs = [measure(path, args.columns) for _ in range(args.repeat)]
            best = min(runs)
            size = path.stat().st_size / 1e6
            print(f"| {path.name} | {size:.0f} | {best[0]:.2f} | {max(r[1] for r in runs):.0f} |")


if __name__ == "__main__":
    main()
