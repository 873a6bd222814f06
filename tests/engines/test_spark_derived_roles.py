"""Score thresholds and intersected label columns counted by Spark equal the in-memory library."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import biasamp
from biasamp import CountTable, IntersectedColumns, ScoreColumns, counts_from_spark
from biasamp.engines._group_sums import ALLOWED_SCORES, ERR_BAD_VALUES
from tests.engines.test_derived_roles import TASKS, make_frame, thresholded
from tests.engines.test_files import assert_tables_equal

pytestmark = [
    pytest.mark.spark,
    pytest.mark.filterwarnings("ignore:PySpark does not yet fully support:FutureWarning"),
]


@pytest.fixture(scope="module")
def frame():
    return make_frame(300, 11).astype({"age": np.int64})


@pytest.fixture(scope="module", params=["pandas", "parquet"])
def spark_frame(request, spark, frame, tmp_path_factory):
    """A frame from pandas (counted per partition over Arrow batches) and a Parquet
    dataset read by Spark (its files counted by Spark tasks with pyarrow)."""
    if request.param == "pandas":
        return spark.createDataFrame(frame)
    root = tmp_path_factory.mktemp("derived_lake")
    frame.iloc[:120].to_parquet(root / "part-0.parquet", index=False)
    frame.iloc[120:].to_parquet(root / "part-1.parquet", index=False)
    return spark.read.parquet(str(root))


def test_spark_thresholds_and_intersections_equal_in_memory(spark_frame, frame):
    cut = {"ski": 0.3, "cook": 0.5, "surf": 0.7}
    table = counts_from_spark(
        spark_frame,
        groups=IntersectedColumns(["race", "age"]),
        tasks=TASKS,
        tasks_pred=ScoreColumns(prefix="p_", threshold=cut),
    )
    expected = CountTable.from_arrays(
        groups=biasamp.intersect(frame[["race", "age"]]),
        tasks=frame[TASKS],
        tasks_pred=thresholded(frame, {f"p_{t}": t for t in TASKS}, cut),
    )
    assert_tables_equal(table, expected)
    groups = counts_from_spark(
        spark_frame,
        groups=["m", "w"],
        groups_pred=ScoreColumns({"score_m": "m", "score_w": "w"}, threshold=0.4),
        tasks=TASKS,
    )
    assert_tables_equal(
        groups,
        CountTable.from_arrays(
            groups=frame[["m", "w"]],
            groups_pred=thresholded(frame, {"score_m": "m", "score_w": "w"}, {"m": 0.4, "w": 0.4}),
            tasks=frame[TASKS],
        ),
    )


def test_spark_refuses_infinite_scores(spark, frame):
    bad = frame.assign(score_w=np.where(np.arange(len(frame)) == 7, np.inf, frame["score_w"]))
    with pytest.raises(ValueError) as info:
        counts_from_spark(
            spark.createDataFrame(pd.DataFrame(bad)),
            groups=["m", "w"],
            groups_pred=ScoreColumns({"score_m": "m", "score_w": "w"}),
            tasks=TASKS,
        )
    assert str(info.value) == ERR_BAD_VALUES.format(
        where="", role="groups_pred", count=1, column="score_w", allowed=ALLOWED_SCORES
    )
