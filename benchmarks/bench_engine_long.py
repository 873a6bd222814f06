"""Peak memory and time of long ``(id, label)`` task tables counted per engine.

Writes a data Parquet file of N ids (a string ``image_id``, a ``gender`` label
column) and a long Parquet table of about 2 (id, task) pairs per id over T tasks
(ids shuffled, some pairs repeated), then counts them in a fresh process each:

* ``numpy`` / ``duckdb``: ``counts_from_long_files(data, {"tasks": long}, ...)``;
* ``dense``: the in-memory reference, pandas reads both files, the long table
  becomes a (rows, tasks) uint8 matrix, ``CountTable.from_arrays``.

Prints a markdown table of wall time, peak RSS (``ru_maxrss``) and whether the
count tables are identical.

Usage: python benchmarks/bench_engine_long.py [N_IDS] [N_TASKS] [--engines numpy duckdb dense]
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
from bench_engine_join import measure, print_rows

RUN = """
import resource, sys
import numpy as np
data, long, engine, out = sys.argv[1:5]
if engine == "dense":
    import pandas as pd
    from biasamp import CountTable
    frame = pd.read_parquet(data)
    pairs = pd.read_parquet(long)
    names = np.sort(pairs["label"].unique())
    rows = pd.Index(frame["image_id"]).get_indexer(pairs["image_id"])
    matrix = np.zeros((len(frame), len(names)), dtype=np.uint8)
    matrix[rows, np.searchsorted(names, pairs["label"].to_numpy())] = 1
    table = CountTable.from_arrays(groups=frame["gender"].to_numpy(),
                                   tasks=pd.DataFrame(matrix, columns=list(names)))
else:
    from biasamp import counts_from_long_files
    table = counts_from_long_files(data, {"tasks": long}, on="image_id", groups="gender",
                                   engine=engine)
np.savez(out, **{"|".join(key): value for key, value in table.joint.items()},
         totals=table.totals["tasks"], n=np.asarray(table.n_rows))
print("PEAK_KB", resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def write_files(root: Path, n_ids: int, n_tasks: int) -> tuple[Path, Path]:
    """The data file and the long table, written in row groups (bounded memory here)."""
    rng = np.random.default_rng(0)
    data_path, long_path = root / "data.parquet", root / "long.parquet"
    step = 500_000
    data_writer = long_writer = None
    tasks = np.array([f"task{j:03d}" for j in range(n_tasks)])
    try:
        for start in range(0, n_ids, step):
            ids = np.arange(start, min(start + step, n_ids))
            names = pa.array([f"img{i:09d}" for i in ids])
            woman = rng.random(ids.size) < 0.45
            data = pa.table({"image_id": names, "gender": np.where(woman, "woman", "man")})
            data_writer = data_writer or pq.ParquetWriter(data_path, data.schema)
            data_writer.write_table(data)
            per_id = rng.poisson(2.0, ids.size)  # some ids have no task, some repeat one
            owners = np.repeat(np.arange(ids.size), per_id)
            rng.shuffle(owners)
            long = pa.table(
                {
                    "image_id": names.take(pa.array(owners)),
                    "label": tasks[rng.integers(0, n_tasks, owners.size)],
                }
            )
            long_writer = long_writer or pq.ParquetWriter(long_path, long.schema)
            long_writer.write_table(long)
    finally:
        for writer in (data_writer, long_writer):
            if writer is not None:
                writer.close()
    return data_path, long_path


def run(root: Path, engine: str) -> tuple[float, float, dict[str, np.ndarray]]:
    out = root / f"{engine}.npz"
    args = [str(root / "data.parquet"), str(root / "long.parquet"), engine, str(out)]
    return measure(RUN, args, out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("ids", type=int, nargs="?", default=5_000_000)
    parser.add_argument("tasks", type=int, nargs="?", default=80)
    parser.add_argument("--engines", nargs="+", default=["numpy", "duckdb", "dense"])
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        data, long = write_files(root, options.ids, options.tasks)
        pairs = pq.ParquetFile(long).metadata.num_rows
        print(
            f"{options.ids:,} ids, {pairs:,} (id, task) pairs over {options.tasks} tasks, "
            f"string ids; data {data.stat().st_size / 2**20:.0f} MB, "
            f"long table {long.stat().st_size / 2**20:.0f} MB (Parquet)\n"
        )
        print_rows(options.engines, lambda engine: run(root, engine))


if __name__ == "__main__":
    main()
