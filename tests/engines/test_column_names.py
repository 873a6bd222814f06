"""Column names are matched exactly on every engine: case twins, ``filename``, spaces,
dots, backticks, quotes and non-ASCII names give the in-memory counts."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import biasamp
from biasamp import CountTable, counts_from_files, pattern_counts_from_files
from biasamp.counts._pattern_counts import PatternCountTable
from biasamp.metrics._bootstrap import evaluation_replicates
from tests.engines.test_files import assert_tables_equal

pytest.importorskip("pyarrow")

#: Task columns: twins that differ only by case, and names SQL engines parse or rewrite.
TASKS = ["obj_x", "Obj_x", " spaced ", "a.b", "a`b", 'q"t', "ünï 日本"]
PREDS = {f"pred.{t}": t for t in TASKS}
GROUPS, GROUPS_PRED, WEIGHT = "filename", "FileName", "Weight"
ROLES = dict(
    groups=GROUPS, groups_pred=GROUPS_PRED, tasks=TASKS, tasks_pred=PREDS, sample_weight=WEIGHT
)


def awkward_frame(n: int = 240, seed: int = 5) -> pd.DataFrame:
    """Role columns with awkward names, and decoys that a case-blind engine would read instead."""
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({"OBJ_X": rng.integers(0, 2, n), "weight": rng.random(n)})
    frame[GROUPS] = rng.choice(["m", "w"], n)
    frame[GROUPS_PRED] = rng.choice(["m", "w"], n)
    frame[WEIGHT] = rng.integers(1, 4, n).astype(np.float64)
    for j, task in enumerate(TASKS):  # each twin with its own rate: a mix-up changes the counts
        frame[task] = (rng.random(n) < 0.15 + 0.1 * j).astype(np.int64)
    for column in PREDS:
        frame[column] = (rng.random(n) < 0.4).astype(np.int64)
    frame["row.id`"] = np.arange(n, dtype=np.int64)
    return frame


def in_memory(frame: pd.DataFrame, **kwargs) -> CountTable:
    return CountTable.from_arrays(
        groups=frame[GROUPS],
        groups_pred=frame[GROUPS_PRED],
        tasks=frame[TASKS],
        tasks_pred=frame[list(PREDS)].set_axis(TASKS, axis=1),
        **kwargs,
    )


@pytest.fixture(scope="module")
def frame() -> pd.DataFrame:
    return awkward_frame()


def _write(frame: pd.DataFrame, tmp_path, fmt: str) -> list[str]:
    """Two files; the second with its columns in another order (DuckDB matches by name)."""
    paths = []
    for i, part in enumerate((frame.iloc[:100], frame.iloc[100:, ::-1])):
        path = tmp_path / f"part{i}.{fmt}"
        if fmt == "parquet":
            part.to_parquet(path, index=False)
        else:
            part.to_csv(path, index=False)
        paths.append(str(path))
    return paths


def _check(table: CountTable, frame: pd.DataFrame, *, weighted: bool) -> None:
    expected = in_memory(frame, sample_weight=frame[WEIGHT] if weighted else None)
    assert_tables_equal(table, expected, exact=not weighted)
    value = biasamp.directional_from_counts(table, direction="A->T").value
    assert value == pytest.approx(
        biasamp.directional_from_counts(expected, direction="A->T").value, rel=0, abs=1e-12
    )


def test_the_twins_differ(frame):
    """The case twins hold different values, so an engine that mixes them up fails."""
    assert not frame["obj_x"].equals(frame["Obj_x"])
    assert not frame["obj_x"].equals(frame["OBJ_X"])
    assert not frame[WEIGHT].equals(frame["weight"])


@pytest.mark.parametrize("fmt", ["parquet", "csv"])
@pytest.mark.parametrize("engine", ["numpy", "duckdb"])
@pytest.mark.parametrize("weighted", [False, True])
def test_files_match_names_exactly(frame, tmp_path, fmt, engine, weighted):
    if engine == "duckdb":
        pytest.importorskip("duckdb")
    paths = _write(frame, tmp_path, fmt)
    roles = ROLES if weighted else {k: v for k, v in ROLES.items() if k != "sample_weight"}
    _check(
        counts_from_files(paths, **roles, engine=engine, chunk_size=64), frame, weighted=weighted
    )


@pytest.mark.parametrize("fmt", ["parquet", "csv"])
def test_duckdb_pattern_counts_match_names_exactly(frame, tmp_path, fmt):
    pytest.importorskip("duckdb")
    paths = _write(frame, tmp_path, fmt)
    got = pattern_counts_from_files(paths, **ROLES, engine="duckdb")
    expected = pattern_counts_from_files(paths, **ROLES, engine="numpy", chunk_size=64)
    assert got.n_rows == expected.n_rows == len(frame)
    for role in ("tasks", "tasks_pred"):
        np.testing.assert_array_equal(got.patterns[role], expected.patterns[role])
        np.testing.assert_allclose(got.pattern_totals[role], expected.pattern_totals[role])


def test_dask_matches_names_exactly(frame):
    dd = pytest.importorskip("dask.dataframe")
    ddf = dd.from_pandas(frame, npartitions=3)
    table = CountTable.from_arrays(
        groups=ddf[GROUPS],
        groups_pred=ddf[GROUPS_PRED],
        tasks=ddf[TASKS],
        tasks_pred=ddf[list(PREDS)].rename(columns=PREDS),
        sample_weight=ddf[WEIGHT],
    )
    _check(table, frame, weighted=True)


@pytest.mark.spark
@pytest.mark.filterwarnings("ignore:PySpark does not yet fully support:FutureWarning")
def test_spark_matches_names_exactly(spark, frame):
    from biasamp import counts_from_spark, pattern_counts_from_spark

    sdf = spark.createDataFrame(frame).repartition(3)
    unweighted = {k: v for k, v in ROLES.items() if k != "sample_weight"}
    _check(counts_from_spark(sdf, **unweighted), frame, weighted=False)
    _check(counts_from_spark(sdf, **ROLES), frame, weighted=True)
    patterns = pattern_counts_from_spark(sdf, **ROLES)
    expected = PatternCountTable.from_arrays(
        groups=frame[GROUPS],
        groups_pred=frame[GROUPS_PRED],
        tasks=frame[TASKS],
        tasks_pred=frame[list(PREDS)].set_axis(TASKS, axis=1),
        sample_weight=frame[WEIGHT],
    )
    assert patterns.n_rows == len(frame)
    for role in ("tasks", "tasks_pred"):
        np.testing.assert_array_equal(patterns.patterns[role], expected.patterns[role])
        np.testing.assert_allclose(patterns.pattern_totals[role], expected.pattern_totals[role])
    # the bootstrap, keyed on a row id whose name has a dot and a backtick
    table = counts_from_spark(sdf, **unweighted, n_boot=4, random_state=3, row_id="row.id`")
    weights = evaluation_replicates(4, random_state=3).weights(0, len(frame))
    assert_tables_equal(table.replicates, in_memory(frame, replicate_weights=weights))
