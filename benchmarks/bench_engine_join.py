"""Peak memory and time of a ground-truth file joined with its predictions on an id, per engine.

Writes the files of ``bench_cli_join.py`` (a ground-truth Parquet file of N rows:
an ``image_id`` string column, 2 indicator groups, T task columns; a predictions
file with the same columns in another row order), then counts them with

    counts_from_joined_files(truth, pred, on="image_id", engine=ENGINE, ...)

in a fresh process per engine, and prints a markdown table of wall time, the
process's peak RSS (``ru_maxrss``) and whether the count tables are identical.
``--memory-limit`` caps DuckDB's memory (it spills the join to disk above it).

Usage: python benchmarks/bench_engine_join.py [N_ROWS] [N_TASKS] [--engines numpy duckdb]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
from bench_cli_join import write_files

RUN = """
import resource, sys
import numpy as np
from biasamp.engines._files import counts_from_joined_files
truth, pred, engine, n_tasks, out = sys.argv[1:6]
tasks = {f"t_{j}": f"t_{j}" for j in range(int(n_tasks))}
table = counts_from_joined_files(
    truth, pred, on="image_id", groups=["man", "woman"], tasks=list(tasks),
    groups_pred={"man": "man", "woman": "woman"}, tasks_pred=tasks, engine=engine,
    chunk_size=250_000,
)
np.savez(out, **{"|".join(key): value for key, value in table.joint.items()},
         n=np.asarray(table.n_rows))
print("PEAK_KB", resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def measure(script: str, args: list[str], out: Path) -> tuple[float, float, dict[str, np.ndarray]]:
    """Run ``script`` with ``args`` in a fresh process: wall time, peak RSS (MB), and the
    arrays it saved to ``out``."""
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", script, *args], capture_output=True, text=True)
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr)
    peak_kb = int(proc.stdout.rsplit("PEAK_KB", 1)[1].split()[0])
    with np.load(out) as saved:
        return wall, peak_kb / 1024, {key: saved[key] for key in saved.files}


def print_rows(engines: list[str], run_engine: Any) -> None:
    """The markdown table of ``run_engine(engine)`` per engine, counts compared to the first."""
    print("| engine | time (s) | peak RSS (MB) | same counts |")
    print("|---|---:|---:|---|")
    reference = None
    for engine in engines:
        wall, peak, counts = run_engine(engine)
        reference = counts if reference is None else reference
        same = reference.keys() == counts.keys() and all(
            np.array_equal(reference[k], counts[k]) for k in counts
        )
        print(f"| {engine} | {wall:.1f} | {peak:.0f} | {same} |", flush=True)


def run(root: Path, engine: str, n_tasks: int) -> tuple[float, float, dict[str, np.ndarray]]:
    out = root / f"{engine}.npz"
    args = [str(root / "truth.parquet"), str(root / "pred.parquet"), engine, str(n_tasks), str(out)]
    return measure(RUN, args, out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rows", type=int, nargs="?", default=5_000_000)
    parser.add_argument("tasks", type=int, nargs="?", default=20)
    parser.add_argument("--engines", nargs="+", default=["numpy", "duckdb"])
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        truth, pred = write_files(root, options.rows, options.tasks)
        print(
            f"{options.rows:,} rows x {options.tasks} tasks, 2 indicator groups, string ids; "
            f"truth {truth.stat().st_size / 2**20:.0f} MB, "
            f"predictions {pred.stat().st_size / 2**20:.0f} MB (Parquet, shuffled)\n"
        )
        print_rows(options.engines, lambda engine: run(root, engine, options.tasks))


if __name__ == "__main__":
    main()
