"""Labels in each container a user holds: label matrices, count tables, whole metrics.

Run: ``python benchmarks/bench_containers.py [--rows 1000000 10000000] [--labels 2 80]
[--repeat 5] [--indicator-labels 20]``. Prints markdown tables.

**1-D labels.** For each row count and label count ``k``, four label columns
drawn at random: ``groups`` and ``groups_pred`` of 2 labels ("man", "woman":
3 and 5 bytes), ``tasks`` and ``tasks_pred`` of ``k`` labels ("man", "woman"
again for ``k = 2``, else "label_0" ... "label_79": 7 and 8 bytes), held in each
container, and timed as:

* ``label matrix``: ``biasamp.inputs.as_label_matrix(tasks, arg="tasks")``
  (reading, missing-value check, factorisation, label-set rule);
* ``CountTable``: ``biasamp.counts.CountTable.from_arrays(groups=..., tasks=...)``;
* ``directional``: ``biasamp.directional(direction="T->A", groups=...,
  tasks=..., groups_pred=...)``;
* ``mals``: ``biasamp.mals`` on the four columns.

**Indicator frames.** ``--indicator-labels`` 0/1 task columns (one per label,
10% ones) as numpy, pandas and polars frames of Boolean / Int8 / UInt8
columns, with 1-D numpy groups: ``label matrix`` of the tasks,
``CountTable`` and ``mals``.

The machine may be shared, so every container is timed against a reference
in the same stretch of time (the pandas Categorical for 1-D labels, the numpy
``uint8`` matrix for indicators): reference and container calls alternate,
``--repeat`` times each; the times are medians and the ratio is the median of
the ratios of adjacent (reference, container) calls. Every container's result
is checked against the numpy result before it is timed.
"""

from __future__ import annotations

import argparse
import time
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

import biasamp
from biasamp.counts import CountTable
from biasamp.inputs import as_label_matrix

ROLES = ("groups", "tasks", "groups_pred", "tasks_pred")
REFERENCE = "pandas Categorical"
INDICATOR_REFERENCE = "numpy uint8"


def _label_names(k: int) -> np.ndarray:
    return np.array(["man", "woman"]) if k == 2 else np.array([f"label_{i}" for i in range(k)])


def _containers() -> dict[str, Callable[[np.ndarray, np.ndarray], Any]]:
    """name -> build(labels as ``<U``, the distinct labels)."""
    import polars as pl

    def chunked(kind: pa.DataType) -> Callable[[np.ndarray, np.ndarray], Any]:
        return lambda v, _: pa.chunked_array(
            [pa.array(part, type=kind) for part in np.array_split(v, 4)], type=kind
        )

    return {
        "numpy strings (`<U`)": lambda v, _: v,
        # the distinct labels' str objects, shared by the rows (as pandas reads a CSV column)
        "pandas object": lambda v, names: pd.Series(
            names.astype(object)[np.searchsorted(names, v)], dtype=object
        ),
        "pandas default (pandas 3: `str`, Arrow)": lambda v, _: pd.Series(v),
        REFERENCE: lambda v, _: pd.Series(v, dtype="category"),
        "pandas `string[pyarrow]`": lambda v, _: pd.Series(v, dtype="string[pyarrow]"),
        "polars String": lambda v, _: pl.Series(v, dtype=pl.String),
        "polars Categorical": lambda v, _: pl.Series(v, dtype=pl.Categorical),
        "polars Enum": lambda v, names: pl.Series(v, dtype=pl.Enum(names.tolist())),
        "pyarrow string": lambda v, _: pa.array(v, type=pa.string()),
        "pyarrow large_string (4 chunks)": chunked(pa.large_string()),
        "pyarrow string_view": lambda v, _: pa.array(v, type=pa.string_view()),
        "pyarrow dictionary": lambda v, _: pc.dictionary_encode(pa.array(v)),
    }


MEASURES: dict[str, Callable[[dict[str, Any]], Any]] = {
    "label matrix": lambda c: as_label_matrix(c["tasks"], arg="tasks"),
    "CountTable": lambda c: CountTable.from_arrays(groups=c["groups"], tasks=c["tasks"]),
    "directional": lambda c: biasamp.directional(
        direction="T->A", groups=c["groups"], tasks=c["tasks"], groups_pred=c["groups_pred"]
    ),
    "mals": lambda c: biasamp.mals(
        groups_train=c["groups"],
        tasks_train=c["tasks"],
        groups_pred=c["groups_pred"],
        tasks_pred=c["tasks_pred"],
    ),
}


def _paired(
    reference: Callable[[], Any], other: Callable[[], Any], repeat: int
) -> tuple[float, float, float]:
    """Medians of ``repeat`` alternating calls of ``reference`` and ``other``, and the
    median of the ratios of each adjacent pair (robust to the load changing between pairs)."""
    times: tuple[list[float], list[float]] = ([], [])
    for _ in range(repeat):
        for fn, bucket in ((reference, times[0]), (other, times[1])):
            start = time.perf_counter()
            fn()
            bucket.append(time.perf_counter() - start)
    ratios = np.array(times[1]) / np.array(times[0])
    return float(np.median(times[0])), float(np.median(times[1])), float(np.median(ratios))


def _same(got: Any, want: Any, name: str) -> None:
    """The label matrix / count table / metric value of a container equals numpy's."""
    if hasattr(got, "codes"):
        assert got.names == want.names and np.array_equal(got.codes, want.codes), name
    elif isinstance(got, CountTable):  # (a numpy matrix's labels are its column numbers)
        for roles, joint in want.joint.items():
            assert np.array_equal(got.joint[roles], joint), name
    else:
        assert np.allclose(got.value, want.value, rtol=0, atol=1e-12), name


def _table(
    rows: dict[str, dict[str, tuple[float, float, float]]], columns: list[str], reference: str
) -> None:
    """Markdown: seconds (ratio to the reference timed alongside)."""
    print("| container | " + " | ".join(columns) + " |")
    print("|---|" + "---:|" * len(columns))
    reference_times = {
        c: float(np.median([pair[0] for row in rows.values() for pair in [row[c]]]))
        for c in columns
    }
    print(
        f"| {reference} (reference) | "
        + " | ".join(f"{reference_times[c]:.3f}" for c in columns)
        + " |"
    )
    for name, row in rows.items():
        cells = [f"{row[c][1]:.3f} ({row[c][2]:.2f}x)" for c in columns]
        print(f"| {name} | " + " | ".join(cells) + " |")
    print()


def _labels_1d(n: int, k: int, repeat: int) -> None:
    rng = np.random.default_rng(k)
    group_names, task_names = np.sort(_label_names(2)), np.sort(_label_names(k))
    names = {"groups": group_names, "groups_pred": group_names}
    names |= {"tasks": task_names, "tasks_pred": task_names}
    labels = {role: names[role][rng.integers(0, len(names[role]), n)] for role in ROLES}
    expected = {measure: fn(labels) for measure, fn in MEASURES.items()}
    builders = _containers()
    reference = {role: builders[REFERENCE](v, names[role]) for role, v in labels.items()}
    rows: dict[str, dict[str, tuple[float, float, float]]] = {}
    for name, build in builders.items():
        if name == REFERENCE:
            continue
        container = {role: build(v, names[role]) for role, v in labels.items()}
        rows[name] = {}
        for measure, fn in MEASURES.items():
            _same(fn(container), expected[measure], f"{name}: {measure}")  # and a warm-up
            rows[name][measure] = _paired(
                lambda fn=fn: fn(reference), lambda fn=fn, c=container: fn(c), repeat
            )
        del container
    print(
        f"**{n:,} rows, tasks of {k} labels** (groups of 2); seconds, median of "
        f"{repeat} (median ratio to the pandas Categorical timed alongside)\n"
    )
    _table(rows, list(MEASURES), REFERENCE)


def _indicators(n: int, k: int, repeat: int) -> None:
    import polars as pl

    rng = np.random.default_rng(1)
    groups = _label_names(2)[rng.integers(0, 2, n)]
    truth = (rng.random((n, k)) < 0.1).astype(np.uint8)
    pred = (rng.random((n, k)) < 0.1).astype(np.uint8)
    columns = [f"label_{j}" for j in range(k)]
    forms: dict[str, Callable[[np.ndarray], Any]] = {
        INDICATOR_REFERENCE: lambda m: m,
        "numpy bool": lambda m: m.astype(bool),
        "pandas bool frame": lambda m: pd.DataFrame(m.astype(bool), columns=columns),
        "pandas uint8 frame": lambda m: pd.DataFrame(m, columns=columns),
        "polars Boolean frame": lambda m: pl.DataFrame(m.astype(bool), schema=columns),
        "polars Int8 frame": lambda m: pl.DataFrame(m.astype(np.int8), schema=columns),
        "polars UInt8 frame": lambda m: pl.DataFrame(m, schema=columns),
    }
    measures: dict[str, Callable[[Any, Any], Any]] = {
        "label matrix": lambda t, _: as_label_matrix(t, arg="tasks"),
        "CountTable": lambda t, _: CountTable.from_arrays(groups=groups, tasks=t),
        "mals": lambda t, p: biasamp.mals(
            groups_train=groups, tasks_train=t, groups_pred=groups, tasks_pred=p
        ),
    }
    names = tuple(columns)
    want = {
        "CountTable": CountTable.from_arrays(groups=groups, tasks=truth, task_names=names),
        "mals": biasamp.mals(
            groups_train=groups,
            tasks_train=truth,
            groups_pred=groups,
            tasks_pred=pred,
            task_names=names,
        ),
    }
    rows: dict[str, dict[str, tuple[float, float, float]]] = {}
    for name, form in forms.items():
        if name == INDICATOR_REFERENCE:
            continue
        t, p = form(truth), form(pred)
        rows[name] = {}
        for measure, fn in measures.items():
            got = fn(t, p)
            if measure == "label matrix":
                assert np.array_equal(got.dense(), truth), name
            else:
                _same(got, want[measure], f"{name}: {measure}")
            rows[name][measure] = _paired(
                lambda fn=fn: fn(truth, pred), lambda fn=fn, t=t, p=p: fn(t, p), repeat
            )
    print(
        f"**Indicator tasks: {n:,} rows x {k} labels** (one 0/1 column per label), 1-D "
        f"numpy groups; seconds, median of {repeat} (median ratio to the numpy uint8 matrix timed "
        "alongside)\n"
    )
    _table(rows, list(measures), INDICATOR_REFERENCE)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, nargs="+", default=[1_000_000])
    parser.add_argument("--labels", type=int, nargs="+", default=[2, 80])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--indicator-labels", type=int, default=20)
    args = parser.parse_args()
    warnings.simplefilter("ignore")  # small groups in random data: min_group_size warnings
    for n in args.rows:
        for k in args.labels:
            _labels_1d(n, k, args.repeat)
        if args.indicator_labels:
            _indicators(n, args.indicator_labels, args.repeat)


if __name__ == "__main__":
    main()
