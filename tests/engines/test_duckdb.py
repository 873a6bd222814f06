"""The DuckDB engine gives the numpy engine's tables; bad values are refused with the file named."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from biasamp import counts_from_files, pattern_counts_from_files
from biasamp.engines import _duckdb
from tests.engines.test_files import ROLES, TASKS, assert_tables_equal, make_frame

pytest.importorskip("duckdb")


@pytest.fixture
def files(tmp_path):
    frames = [make_frame(n, seed) for seed, n in enumerate([40, 0, 133])]
    paths = []
    for i, frame in enumerate(frames):
        path = tmp_path / f"p{i}.parquet"
        frame.to_parquet(path, index=False)
        paths.append(str(path))
    return paths, frames


def test_duckdb_equals_numpy_parquet(files):
    paths, _ = files
    numpy_table = counts_from_files(paths, **ROLES, chunk_size=17)
    duck_table = counts_from_files(paths, **ROLES, engine="duckdb")
    assert_tables_equal(duck_table, numpy_table)  # integer counts: exactly equal
    weighted_np = counts_from_files(paths, **ROLES, sample_weight="weight")
    weighted_db = counts_from_files(paths, **ROLES, sample_weight="weight", engine="duckdb")
    assert_tables_equal(weighted_db, weighted_np, exact=False)


def test_duckdb_equals_numpy_csv_with_indicator_groups(tmp_path, files):
    _, frames = files
    paths = []
    for i, frame in enumerate(frames[::2]):
        frame = frame.assign(
            is_m=(frame["gender"] == "m").astype(int), is_w=(frame["gender"] == "w").astype(int)
        )
        path = tmp_path / f"c{i}.csv"
        frame.to_csv(path, index=False)
        paths.append(path)
    roles = dict(groups={"is_m": "m", "is_w": "w"}, tasks=TASKS, tasks_pred_prefix="pred_")
    assert_tables_equal(
        counts_from_files(paths, **roles, engine="duckdb"),
        counts_from_files(paths, **roles, chunk_size=5),
    )


def test_duckdb_errors_name_the_file(tmp_path, files):
    paths, frames = files
    bad = frames[2].copy()
    bad.loc[7, "pred_cook"] = 3
    bad_path = tmp_path / "bad.parquet"
    bad.to_parquet(bad_path, index=False)
    with pytest.raises(
        ValueError, match=r"bad\.parquet: tasks_pred: 1 value\(s\) in column 'pred_cook'"
    ):
        counts_from_files([paths[0], bad_path], **ROLES, engine="duckdb")
    with pytest.raises(ValueError, match=r"p2\.parquet.*groups: 1 label\(s\) not in the canonical"):
        counts_from_files(paths, **ROLES, engine="duckdb", group_names=["m", "x"])
    negative = frames[0].assign(weight=-1.0)
    neg_path = tmp_path / "neg.parquet"
    negative.to_parquet(neg_path, index=False)
    with pytest.raises(ValueError, match=r"neg\.parquet: sample_weight: 40 weight"):
        counts_from_files(neg_path, **ROLES, engine="duckdb", sample_weight="weight")


def test_duckdb_soft_range(tmp_path):
    frame = make_frame(30, 9)
    frame["pred_ski"] = np.linspace(0, 1, 30)
    path = tmp_path / "soft.parquet"
    frame.to_parquet(path, index=False)
    assert_tables_equal(
        counts_from_files(path, **ROLES, soft=True, engine="duckdb"),
        counts_from_files(path, **ROLES, soft=True),
        exact=False,
    )
    frame.loc[0, "pred_ski"] = 1.5
    frame.to_parquet(path, index=False)
    with pytest.raises(ValueError, match="in \\[0, 1\\]"):
        counts_from_files(path, **ROLES, soft=True, engine="duckdb")


def test_pattern_counts_duckdb_equal_numpy(files):
    paths, _ = files
    kwargs = dict(
        groups="gender",
        groups_pred="gender_pred",
        tasks=TASKS,
        tasks_pred_prefix="pred_",
        sample_weight="weight",
    )
    a = pattern_counts_from_files(paths, **kwargs, engine="duckdb")
    b = pattern_counts_from_files(paths, **kwargs, chunk_size=19)
    assert a.n_rows == b.n_rows == sum(len(pd.read_parquet(p)) for p in paths)
    for role in ("tasks", "tasks_pred"):
        np.testing.assert_array_equal(a.patterns[role], b.patterns[role])
        np.testing.assert_allclose(a.pattern_totals[role], b.pattern_totals[role], rtol=1e-12)
    for key in b.joint:
        np.testing.assert_allclose(a.joint[key], b.joint[key], rtol=1e-12)


@pytest.fixture(params=["sql", "arrow"])
def duckdb_method(request, monkeypatch):
    """Both ways the DuckDB engine counts: one SQL aggregate, or numpy over Arrow batches
    (the way for wide files, forced here by lowering the column threshold)."""
    if request.param == "arrow":
        monkeypatch.setattr(_duckdb, "SQL_COLUMNS", 0)
    return request.param


def test_both_methods_equal_numpy(files, tmp_path, duckdb_method):
    paths, frames = files
    assert_tables_equal(
        counts_from_files(paths, **ROLES, engine="duckdb"),
        counts_from_files(paths, **ROLES, chunk_size=17),
    )
    assert_tables_equal(
        counts_from_files(paths, **ROLES, sample_weight="weight", engine="duckdb"),
        counts_from_files(paths, **ROLES, sample_weight="weight", chunk_size=17),
        exact=False,
    )
    bad = frames[2].astype({"pred_ski": np.int16})
    bad.loc[7, "pred_cook"] = 3
    bad.loc[9, "pred_ski"] = -1
    bad_path = tmp_path / "bad.parquet"
    bad.to_parquet(bad_path, index=False)
    with pytest.raises(
        ValueError, match=r"bad\.parquet: tasks_pred: 1 value\(s\) in column 'pred_ski'"
    ):
        counts_from_files(bad_path, **ROLES, engine="duckdb")
    missing = frames[0].astype({"gender": object})
    missing.loc[3, "gender"] = None
    missing_path = tmp_path / "missing.csv"
    missing.to_csv(missing_path, index=False)
    with pytest.raises(
        ValueError,
        match=r"missing\.csv, column .gender.: 1 missing value\(s\), the first in data row 4",
    ):
        counts_from_files(missing_path, **ROLES, engine="duckdb")
    negative = frames[0].assign(weight=-1.0)
    neg_path = tmp_path / "neg.parquet"
    negative.to_parquet(neg_path, index=False)
    with pytest.raises(ValueError, match=r"neg\.parquet: sample_weight: 40 weight"):
        counts_from_files(neg_path, **ROLES, engine="duckdb", sample_weight="weight")
    soft = frames[0].assign(pred_ski=np.linspace(0, 1, len(frames[0])))
    soft_path = tmp_path / "soft.parquet"
    soft.to_parquet(soft_path, index=False)
    assert_tables_equal(
        counts_from_files(soft_path, **ROLES, soft=True, engine="duckdb"),
        counts_from_files(soft_path, **ROLES, soft=True),
        exact=False,
    )


@pytest.mark.parametrize("engine", ["numpy", "duckdb"])
def test_each_schema_is_read_once(files, engine):
    """A wide file's schema is costly to read: one read per file, whatever the columns."""
    from biasamp.engines._file_formats import _read_schema

    paths, _ = files
    _read_schema.cache_clear()
    counts_from_files(paths, **ROLES, engine=engine)
    assert _read_schema.cache_info().misses == len(paths)
