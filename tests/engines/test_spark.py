"""Spark DataFrames counted on a real local SparkSession: equal to in memory, errors name the column."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import biasamp
from biasamp import CountTable, counts_from_spark, pattern_counts_from_spark
from biasamp.engines._spark import (
    ERR_ROW_ID_VALUES,
    ERR_ROW_ID_WITHOUT_BOOT,
    ERR_SPARK_FRAME,
    ERR_SPARK_INDICATOR_TYPE,
)
from biasamp.metrics._bootstrap import evaluation_replicates
from biasamp.metrics._directional import directional_arrays
from tests.engines.test_files import TASKS, assert_tables_equal, in_memory, make_frame

pytestmark = [
    pytest.mark.spark,
    pytest.mark.slow,
    # pyspark 4.3 warns that pandas 3 is not fully supported; biasamp only moves numbers
    pytest.mark.filterwarnings("ignore:PySpark does not yet fully support:FutureWarning"),
]

PRED = {f"pred_{t}": t for t in TASKS}
ROLES = dict(groups="gender", groups_pred="gender_pred", tasks=TASKS, tasks_pred=PRED)
TOL = dict(rel=0, abs=1e-12)


@pytest.fixture(scope="module")
def frames():
    # Spark's Arrow conversion has no unsigned types: indicators as int64
    train, test = (
        f.astype({c: np.int64 for c in f.columns if f[c].dtype == np.uint8})
        for f in (make_frame(600, 31), make_frame(500, 32))
    )
    test["row"] = np.arange(len(test), dtype=np.int64)
    return train, test


@pytest.fixture(scope="module")
def spark_frames(spark, frames, tmp_path_factory):
    """Train from pandas; test written as a two-file Parquet dataset and read back by Spark."""
    train, test = frames
    root = tmp_path_factory.mktemp("spark_lake")
    test.iloc[:200].to_parquet(root / "part-0.parquet", index=False)
    test.iloc[200:].to_parquet(root / "part-1.parquet", index=False)
    return spark.createDataFrame(train), spark.read.parquet(str(root)).orderBy("row")


def _preds(frame):
    return frame[list(PRED)].set_axis(TASKS, axis=1)


def test_counts_equal_in_memory(spark_frames, frames):
    train_sdf, test_sdf = spark_frames
    train, test = frames
    assert_tables_equal(counts_from_spark(train_sdf, **ROLES), in_memory(train))
    assert_tables_equal(counts_from_spark(test_sdf, **ROLES), in_memory(test))
    weighted = counts_from_spark(test_sdf, **ROLES, sample_weight="weight")
    assert_tables_equal(weighted, in_memory(test, sample_weight=test["weight"]))
    label_tasks = counts_from_spark(
        test_sdf, groups="gender", tasks="gender_pred"
    )  # a label column
    assert_tables_equal(
        label_tasks, CountTable.from_arrays(groups=test["gender"], tasks=test["gender_pred"])
    )


def test_every_co_occurrence_metric_equals_in_memory(spark_frames, frames):
    train_sdf, test_sdf = spark_frames
    train, test = frames
    train_t = counts_from_spark(train_sdf, groups="gender", tasks=TASKS)
    eval_t = counts_from_spark(
        test_sdf,
        **ROLES,
        group_names=train_t.group_names,
        task_names=train_t.task_names,
        names_source="the training split",
    )
    mem_train = dict(groups_train=train["gender"], tasks_train=train[TASKS])
    got = biasamp.mals_from_counts(train_t, eval_t)
    # the evaluation table holds the ground truth too: each pair's n_true comes from it
    expected = biasamp.mals(
        **mem_train,
        groups=test["gender"],
        tasks=test[TASKS],
        groups_pred=test["gender_pred"],
        tasks_pred=_preds(test),
    )
    assert got.value == pytest.approx(expected.value, **TOL)
    pd.testing.assert_frame_equal(got.by_pair, expected.by_pair, rtol=1e-12, atol=1e-12)
    for direction in ("A->T", "T->A"):
        got = biasamp.directional_from_counts(eval_t, direction=direction, train=train_t)
        expected = biasamp.directional(
            direction=direction,
            **mem_train,
            groups=test["gender"],
            tasks=test[TASKS],
            groups_pred=test["gender_pred"],
            tasks_pred=_preds(test),
        )
        assert got.value == pytest.approx(expected.value, **TOL)
        pd.testing.assert_frame_equal(got.by_pair, expected.by_pair, rtol=1e-12, atol=1e-12)

    train_p = pattern_counts_from_spark(train_sdf, groups="gender", tasks=TASKS)
    eval_p = pattern_counts_from_spark(
        test_sdf,
        **ROLES,
        group_names=train_p.group_names,
        task_names=train_p.task_names,
    )
    assert eval_p.n_rows == len(test)
    got = biasamp.multi_mals_from_counts(train_p, eval_p)
    expected = biasamp.multi_mals(
        **mem_train, tasks=test[TASKS], groups_pred=test["gender_pred"], tasks_pred=_preds(test)
    )
    assert got.value == pytest.approx(expected.value, **TOL)
    for direction in ("A->T", "T->A"):
        got = biasamp.multi_directional_from_counts(train_p, eval_p, direction=direction)
        expected = biasamp.multi_directional(
            direction=direction,
            **mem_train,
            groups=test["gender"],
            tasks=test[TASKS],
            groups_pred=test["gender_pred"],
            tasks_pred=_preds(test),
        )
        assert got.value == pytest.approx(expected.value, **TOL)


def test_bootstrap_keyed_on_row_id_equals_in_memory(spark_frames, frames):
    _, test_sdf = spark_frames
    _, test = frames
    table = counts_from_spark(
        test_sdf.repartition(3), **ROLES, n_boot=25, random_state=11, row_id="row"
    )
    assert table.batch_shape == () and table.n_boot == 25
    assert_tables_equal(replace(table, bootstrap=None, replicates=None), in_memory(test))
    reps = table.replicates
    weights = evaluation_replicates(25, random_state=11).weights(0, len(test))
    assert reps.batch_shape == (25,)
    assert_tables_equal(reps, in_memory(test, replicate_weights=weights))
    # the metric's own bootstrap draws the same replicates
    expected = biasamp.directional(
        direction="A->T",
        groups=test["gender"],
        tasks=test[TASKS],
        tasks_pred=_preds(test),
        n_boot=25,
        random_state=11,
    )
    values = directional_arrays(reps, direction="A->T")["value"]
    np.testing.assert_allclose(values, expected.replicates, rtol=0, atol=1e-12)
    # the metrics take the table with an interval, as a CountTable.empty(n_boot=...) one:
    # it raised "only 0-dimensional arrays can be converted"
    result = biasamp.directional_from_counts(table, direction="A->T", min_group_size=None)
    assert result.value == pytest.approx(expected.value, abs=1e-12)
    np.testing.assert_allclose(result.replicates, expected.replicates, rtol=0, atol=1e-12)
    assert result.ci == pytest.approx(expected.ci, abs=1e-12)
    # without a row id: monotonically_increasing_id numbers the rows
    fallback = counts_from_spark(test_sdf, **ROLES, n_boot=5, random_state=1)
    assert fallback.replicates.batch_shape == (5,) and fallback.n_rows == len(test)


def test_bad_values_name_the_column(spark, frames):
    _, test = frames
    bad = test.copy()
    bad.loc[7, "pred_ski"] = 2
    with pytest.raises(ValueError, match=r"tasks_pred: .*column 'pred_ski' are not 0 or 1"):
        counts_from_spark(spark.createDataFrame(bad), **ROLES)
    with pytest.raises(ValueError, match=r"column 'pred_ski' are not 0 or 1"):
        pattern_counts_from_spark(spark.createDataFrame(bad), **ROLES)
    missing = test.astype({"gender": object})
    missing.loc[3, "gender"] = None
    with pytest.raises(ValueError, match=r"groups: column 'gender': .*missing"):
        counts_from_spark(spark.createDataFrame(missing), **ROLES)
    with pytest.raises(ValueError, match=r"groups: column 'gender': .*not in the canonical"):
        counts_from_spark(spark.createDataFrame(test), **ROLES, group_names=["m"])
    negative = test.copy()
    negative.loc[0, "weight"] = -1.0
    with pytest.raises(ValueError, match="sample_weight: 1 weight"):
        counts_from_spark(spark.createDataFrame(negative), **ROLES, sample_weight="weight")
    indicators = pd.DataFrame({"g_m": [1, 0, 3], "g_w": [0, 1, 0], "ski": [1, 0, 1]})
    with pytest.raises(ValueError, match=r"groups: .*column 'g_m' are not 0 or 1"):
        counts_from_spark(spark.createDataFrame(indicators), groups_prefix="g_", tasks=["ski"])
    text = pd.DataFrame({"g": ["m", "w"], "ski": ["yes", "no"]})
    with pytest.raises(TypeError, match="column 'ski' has Spark type string"):
        counts_from_spark(spark.createDataFrame(text), groups="g", tasks=["ski"])
    assert "indicator columns must be numeric" in ERR_SPARK_INDICATOR_TYPE


def test_argument_errors(spark, frames):
    _, test = frames
    sdf = spark.createDataFrame(test)
    with pytest.raises(TypeError, match="pyspark.sql.DataFrame"):
        counts_from_spark(test, **ROLES)
    assert "pyspark" in ERR_SPARK_FRAME
    with pytest.raises(ValueError, match="only used with n_boot"):
        counts_from_spark(sdf, **ROLES, row_id="row")
    assert "n_boot" in ERR_ROW_ID_WITHOUT_BOOT
    repeated = test.assign(row=test["row"] % 10)
    with pytest.raises(ValueError, match="490 repeated"):
        counts_from_spark(
            spark.createDataFrame(repeated), **ROLES, n_boot=2, random_state=0, row_id="row"
        )
    assert "distinct non-negative" in ERR_ROW_ID_VALUES
    with pytest.raises(ValueError, match="n_boot"):
        counts_from_spark(sdf, **ROLES, n_boot=0)
    assert isinstance(counts_from_spark(sdf, **ROLES), CountTable)


def test_parquet_files_read_in_tasks_equal_in_memory(spark, frames, tmp_path):
    """A bare ``spark.read.parquet`` frame is counted from its files by pyarrow in Spark
    tasks; any other plan (a filter, partition columns) by ``mapInArrow`` over its rows."""
    from biasamp.engines._spark import _parquet_files

    _, test = frames
    root = tmp_path / "lake"
    root.mkdir()
    for i, start in enumerate(range(0, len(test), 150)):
        test.iloc[start : start + 150].to_parquet(root / f"part-{i}.parquet", index=False)
    sdf = spark.read.parquet(str(root))
    assert sorted(_parquet_files(sdf)) == sorted(str(p) for p in root.glob("*.parquet"))
    assert _parquet_files(sdf.filter("weight > 0")) is None
    assert _parquet_files(sdf.select("gender", *TASKS)) is not None
    assert _parquet_files(sdf.withColumnRenamed("gender", "g")) is None
    assert_tables_equal(
        counts_from_spark(sdf.select("gender", *TASKS), groups="gender", tasks=TASKS),
        CountTable.from_arrays(groups=test["gender"], tasks=test[TASKS]),
    )
    assert_tables_equal(counts_from_spark(sdf, **ROLES), in_memory(test))
    assert_tables_equal(
        counts_from_spark(sdf, **ROLES, sample_weight="weight"),
        in_memory(test, sample_weight=test["weight"]),
        exact=False,
    )
    kept = test[test["weight"] > 0]
    assert_tables_equal(counts_from_spark(sdf.filter("weight > 0"), **ROLES), in_memory(kept))
    bad = test.copy()
    bad.loc[7, "pred_ski"] = 2
    bad_root = tmp_path / "bad"
    bad_root.mkdir()
    bad.to_parquet(bad_root / "part-0.parquet", index=False)
    with pytest.raises(ValueError, match=r"tasks_pred: .*column 'pred_ski' are not 0 or 1"):
        counts_from_spark(spark.read.parquet(str(bad_root)), **ROLES)
    # a label key stored as int32 in one file and int64 in the other: Spark reads both
    # with one schema, and the keys of both files are added together
    levels = tmp_path / "levels"
    levels.mkdir()
    coded = test.assign(level=np.where(test["gender"] == "m", 1, 2))
    coded.iloc[:250].astype({"level": np.int64}).to_parquet(levels / "a.parquet", index=False)
    coded.iloc[250:].astype({"level": np.int32}).to_parquet(levels / "b.parquet", index=False)
    level_sdf = spark.read.parquet(str(levels))
    assert _parquet_files(level_sdf) is not None
    assert_tables_equal(
        counts_from_spark(level_sdf, groups="level", tasks=TASKS),
        CountTable.from_arrays(groups=coded["level"], tasks=coded[TASKS]),
    )
    partitioned = tmp_path / "partitioned"
    for value in ("a", "b"):
        (partitioned / f"part={value}").mkdir(parents=True)
        test.to_parquet(partitioned / f"part={value}" / "data.parquet", index=False)
    assert _parquet_files(spark.read.parquet(str(partitioned))) is None


#: A session whose Python workers cannot import biasamp (PYSPARK_PYTHON: a python whose
#: sitecustomize hides it, as on executors where it is not installed), then one whose
#: workers run the driver's interpreter: the first gets ERR_SPARK_WORKERS before any job
#: of ours, in one line; the second counts.
_WORKER_SETUPS = """
import os, sys, warnings
warnings.simplefilter("ignore")
import pandas as pd
from pyspark.sql import SparkSession
from biasamp import counts_from_spark
for python in sys.argv[1:]:  # one JVM, a new session per worker interpreter
    os.environ["PYSPARK_PYTHON"] = python
    spark = (SparkSession.builder.master("local[1]").appName("workers")
             .config("spark.ui.enabled", "false").config("spark.driver.host", "127.0.0.1")
             .config("spark.driver.bindAddress", "127.0.0.1").getOrCreate())
    spark.sparkContext.setLogLevel("OFF")
    df = spark.createDataFrame(pd.DataFrame({"g": ["m", "w", "w"], "t": [1, 0, 1]}))
    try:
        table = counts_from_spark(df, groups="g", tasks=["t"])
        print("counted", table.joint[("groups", "tasks")].tolist())
    except ImportError as exc:
        print("ImportError:", exc)
    spark.stop()
"""


def test_workers_without_biasamp_get_one_line_before_the_first_job(tmp_path):
    import os
    import subprocess
    import sys

    from biasamp import __version__
    from biasamp.engines._spark import ERR_SPARK_WORKERS

    hidden = tmp_path / "hide"
    hidden.mkdir()
    (hidden / "sitecustomize.py").write_text("import sys\nsys.modules['biasamp'] = None\n")
    python = tmp_path / "python-without-biasamp"
    python.write_text(
        f'#!/bin/sh\nPYTHONPATH="{hidden}:$PYTHONPATH" exec "{sys.executable}" "$@"\n'
    )
    python.chmod(0o755)
    src = str(Path(biasamp.__file__).parents[1])
    env = {**os.environ, "PYTHONPATH": src + os.pathsep + os.environ.get("PYTHONPATH", "")}
    run = subprocess.run(
        [sys.executable, "-c", _WORKER_SETUPS, str(python), sys.executable],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert run.stdout.strip().splitlines() == [
        "ImportError: " + ERR_SPARK_WORKERS.format(version=__version__),
        "counted [[1.0], [1.0]]",
    ], run.stderr
