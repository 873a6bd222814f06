"""Reading 1-D labels from each container: time to a validated label matrix.

Run: ``python benchmarks/bench_containers.py [--rows 1000000] [--repeat 5]``.
Prints a markdown table, one run side by side.

Workload: ``--rows`` rows of group labels drawn from 6 strings of 3 to 8
characters ("man", "woman", ...), and of task labels drawn from 200 strings
("label_0" ...). Each container holds the same labels, built once outside the
timing; each time is the best of ``--repeat`` calls:

* the two label columns: ``biasamp.inputs.as_label_matrix(x, arg="groups")``
  (conversion, missing-value check, factorisation, label-set rule);
* ``bias_scores``: ``biasamp.bias_scores(groups, tasks=tasks)`` with both
  arguments in the container (the whole metric: both label matrices, the
  count table, the scores).

In brackets, the time relative to the pandas Categorical path.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from biasamp import bias_scores
from biasamp.inputs import as_label_matrix

SHORT = np.array(["man", "woman", "person", "child", "elderly", "teenager"])


def _containers(labels: np.ndarray) -> dict[str, Callable[[], Any]]:
    import polars as pl

    categories = sorted(set(labels.tolist()))
    strings = labels.astype(object)
    return {
        "numpy strings (<U)": lambda: labels,
        "pandas Categorical": lambda: pd.Series(labels, dtype="category"),
        "pandas object": lambda: pd.Series(strings),
        "pandas string[pyarrow]": lambda: pd.Series(labels, dtype="string[pyarrow]"),
        "polars Categorical": lambda: pl.Series(labels.tolist(), dtype=pl.Categorical),
        "polars Enum": lambda: pl.Series(labels.tolist(), dtype=pl.Enum(categories)),
        "polars String": lambda: pl.Series(labels.tolist(), dtype=pl.String),
        "pyarrow dictionary": lambda: pc.dictionary_encode(pa.array(labels.tolist())),
        "pyarrow string": lambda: pa.array(labels.tolist()),
        "pyarrow large_string (chunked)": lambda: pa.chunked_array(
            [pa.array(part.tolist(), type=pa.large_string()) for part in np.array_split(labels, 4)]
        ),
    }


def _best(fn: Callable[[], Any], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    workloads = {
        "groups (6 labels)": rng.choice(SHORT, size=args.rows),
        "tasks (200 labels)": np.array([f"label_{i}" for i in range(200)])[  # dtype <U9
            rng.integers(0, 200, args.rows)
        ],
    }
    print(f"{args.rows:,} rows, best of {args.repeat}; seconds (ratio to pandas Categorical)\n")
    columns = [*workloads, "bias_scores"]
    print("| container | " + " | ".join(columns) + " |")
    print("|---" * (len(columns) + 1) + "|")
    times: dict[str, dict[str, float]] = {}
    built: dict[str, dict[str, Any]] = {}
    for workload, labels in workloads.items():
        expected = as_label_matrix(labels, arg="groups")
        for name, build in _containers(labels).items():
            x = build()
            built.setdefault(name, {})[workload] = x
            matrix = as_label_matrix(x, arg="groups")  # warm-up, and a check of the result
            assert matrix.names == expected.names, name
            assert np.array_equal(matrix.codes, expected.codes), name
            times.setdefault(name, {})[workload] = _best(
                lambda x=x: as_label_matrix(x, arg="groups"), args.repeat
            )
    groups_name, tasks_name = workloads
    reference_scores = bias_scores(workloads[groups_name], tasks=workloads[tasks_name])
    for name, pair in built.items():
        got = bias_scores(pair[groups_name], tasks=pair[tasks_name])
        assert np.allclose(got.to_numpy(), reference_scores.to_numpy()), name
        times[name]["bias_scores"] = _best(
            lambda pair=pair: bias_scores(pair[groups_name], tasks=pair[tasks_name]), args.repeat
        )
    reference = times["pandas Categorical"]
    for name, row in times.items():
        cells = [f"{row[c]:.3f} ({row[c] / reference[c]:.1f}x)" for c in columns]
        print(f"| {name} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
