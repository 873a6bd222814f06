"""``engine="auto"``: DuckDB only where it reads the files and is measured to be faster.

The crossover (docs/benchmarks.md, 2026-11-26): numpy counts small and wide
files several times faster than DuckDB (2,000 rows x 1,000 columns: 0.3 s to
1.1 s against 2.5 s to 29 s); DuckDB wins from about a million rows of a few
role columns. ``choose_engine`` encodes it (``DUCKDB_MIN_ROWS``,
``DUCKDB_ROWS_PER_COLUMN``).
"""

from __future__ import annotations

import bz2
import time

import numpy as np
import pandas as pd
import pytest

from biasamp import counts_from_files, pattern_counts_from_files
from biasamp.auditing._inputs import Layout
from biasamp.auditing._streaming import plan_streaming
from biasamp.engines import _files
from biasamp.engines._files import (
    ERR_ENGINE,
    choose_engine,
    estimated_rows,
)

pytest.importorskip("pyarrow")
pytest.importorskip("duckdb")


def _frame(rows: int, n_tasks: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    data: dict[str, object] = {"g": rng.choice(["m", "w"], rows)}
    for j in range(n_tasks):
        data[f"t{j}"] = rng.integers(0, 2, rows, dtype=np.int8)
    for j in range(n_tasks):
        data[f"pred_t{j}"] = rng.integers(0, 2, rows, dtype=np.int8)
    return pd.DataFrame(data)


def _roles(n_tasks: int) -> dict[str, object]:
    return dict(groups="g", tasks=[f"t{j}" for j in range(n_tasks)], tasks_pred_prefix="pred_")


def _same(a, b) -> None:
    assert a.n_rows == b.n_rows
    for key in (("groups", "tasks"), ("groups", "tasks_pred")):
        np.testing.assert_array_equal(a.joint[key], b.joint[key])


def test_a_small_wide_file_is_counted_on_numpy_within_three_times_its_time(tmp_path):
    """2,000 rows x 1,000 columns: DuckDB took 1.2 s to 19 s where numpy takes 0.1 s to
    1.2 s; auto must stay within 3x of numpy (it picks numpy)."""
    path = tmp_path / "wide.csv"
    _frame(2_000, 500).to_csv(path, index=False)
    roles = _roles(500)
    assert choose_engine([str(path)], 1_001) == "numpy"

    def best(engine: str) -> tuple[float, object]:
        times, table = [], None
        for _ in range(2):
            start = time.perf_counter()
            table = counts_from_files(str(path), **roles, engine=engine)
            times.append(time.perf_counter() - start)
        return min(times), table

    numpy_time, numpy_table = best("numpy")
    auto_time, auto_table = best("auto")
    _same(auto_table, numpy_table)
    assert auto_time <= 3 * numpy_time + 0.05, (auto_time, numpy_time)


def test_auto_picks_duckdb_for_many_rows_of_few_columns(tmp_path, monkeypatch):
    path = tmp_path / "long.csv"
    _frame(3_000, 2).to_csv(path, index=False)
    assert choose_engine([str(path)], 5) == "numpy"  # 3,000 rows: numpy is faster
    monkeypatch.setattr(_files, "DUCKDB_MIN_ROWS", 2_000)
    monkeypatch.setattr(_files, "DUCKDB_ROWS_PER_COLUMN", 500)
    assert choose_engine([str(path)], 5) == "duckdb"
    assert choose_engine([str(path)], 7) == "numpy"  # 3,000 rows < 500 x 7
    used = []
    original = _files.duckdb_reads

    def recording(paths, file_format, delimiter=None):
        used.append(paths)
        return original(paths, file_format, delimiter)

    monkeypatch.setattr(_files, "duckdb_reads", recording)
    auto = counts_from_files(str(path), **_roles(2), engine="auto")
    _same(auto, counts_from_files(str(path), **_roles(2), engine="numpy"))
    assert used  # DuckDB was asked
    patterns = pattern_counts_from_files(str(path), groups="g", tasks=["t0", "t1"], engine="auto")
    numpy_patterns = pattern_counts_from_files(str(path), groups="g", tasks=["t0", "t1"])
    assert patterns.pattern_sets("tasks") == numpy_patterns.pattern_sets("tasks")
    np.testing.assert_array_equal(
        patterns.pattern_totals["tasks"], numpy_patterns.pattern_totals["tasks"]
    )


@pytest.mark.parametrize(
    ("name", "delimiter"), [("long.csv.bz2", None), ("long.csv", ";"), ("long.tsv", None)]
)
def test_auto_counts_on_numpy_what_duckdb_does_not_read(name, delimiter, tmp_path, monkeypatch):
    monkeypatch.setattr(_files, "DUCKDB_MIN_ROWS", 10)
    monkeypatch.setattr(_files, "DUCKDB_ROWS_PER_COLUMN", 1)
    frame = _frame(300, 2)
    sep = delimiter or ("\t" if name.endswith(".tsv") else ",")
    text = frame.to_csv(index=False, sep=sep).encode()
    path = tmp_path / name
    path.write_bytes(bz2.compress(text) if name.endswith(".bz2") else text)
    assert choose_engine([str(path)], 5, delimiter=delimiter) == "numpy"
    plain = tmp_path / "plain.csv"
    frame.to_csv(plain, index=False)
    _same(
        counts_from_files(str(path), **_roles(2), engine="auto", delimiter=delimiter),
        counts_from_files(str(plain), **_roles(2)),
    )


def test_estimated_rows(tmp_path):
    frame = _frame(20_000, 3)
    csv = tmp_path / "rows.csv"
    frame.to_csv(csv, index=False)
    assert abs(estimated_rows(str(csv)) - 20_000) < 200
    parquet = tmp_path / "rows.parquet"
    frame.to_parquet(parquet, index=False)
    assert estimated_rows(str(parquet)) == 20_000


def test_estimated_rows_counts_small_files_and_skips_a_long_header(tmp_path):
    # a header far longer than the rows once made a 1,000,000-row file read as 989,277 rows
    path = tmp_path / "long_header.csv"
    header = ",".join(f"a_long_column_name_{i}" for i in range(12))
    rows = np.random.default_rng(0).integers(0, 2, size=(60_000, 12))
    body = "\n".join(",".join(map(str, row)) for row in rows)
    path.write_text(header + "\n" + body + "\n")
    assert abs(estimated_rows(str(path)) - 60_000) <= 60
    small = tmp_path / "small.csv"
    small.write_text("g,t\nm,1\nw,0\nm,1")  # no newline after the last row
    assert estimated_rows(str(small)) == 3
    (tmp_path / "header_only.csv").write_text("g,t\n")
    assert estimated_rows(str(tmp_path / "header_only.csv")) == 0


def test_an_unknown_engine_names_the_choices(tmp_path):
    path = tmp_path / "a.csv"
    _frame(10, 1).to_csv(path, index=False)
    with pytest.raises(ValueError) as info:
        counts_from_files(str(path), **_roles(1), engine="spark")
    assert str(info.value) == ERR_ENGINE.format(got="spark")


def test_the_command_line_plan_follows_the_measured_rule(tmp_path, monkeypatch):
    path = tmp_path / "data.csv"
    _frame(3_000, 2).to_csv(path, index=False)
    layout = Layout(group="g", task_cols=("t0", "t1"), pred_prefix="pred_")
    plan, _ = plan_streaming(layout, data=path, engine="auto")
    assert plan is not None and plan.engine == "numpy"
    monkeypatch.setattr(_files, "DUCKDB_MIN_ROWS", 1_000)
    monkeypatch.setattr(_files, "DUCKDB_ROWS_PER_COLUMN", 100)
    plan, _ = plan_streaming(layout, data=path, engine="auto")
    assert plan is not None and plan.engine == "duckdb"
