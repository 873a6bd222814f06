"""The Spark recipe: a portable GROUP BY whose output biasamp loads into the same CountTable."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from biasamp import ColumnRoles, CountTable, counts_from_group_sums, group_sums_sql
from biasamp.engines._group_sums import ERR_DIALECT, ERR_GROUP_SUMS_COLUMNS
from tests.engines.test_files import TASKS, assert_tables_equal, make_frame

duckdb = pytest.importorskip("duckdb")


def run_sql(frame: pd.DataFrame, sql: str) -> pd.DataFrame:
    con = duckdb.connect()
    try:
        con.register("labels", frame)
        return con.execute(sql).df()
    finally:
        con.close()


def test_hand_worked_group_sums():
    # rows: (m, ski), (m, ski+cook), (w, cook), (w, none); predicted group flips row 2
    frame = pd.DataFrame(
        {
            "g": ["m", "m", "w", "w"],
            "gp": ["m", "w", "w", "w"],
            "ski": [1, 1, 0, 0],
            "cook": [0, 1, 1, 0],
        }
    )
    roles = ColumnRoles.resolve(groups="g", groups_pred="gp", tasks=["ski", "cook"])
    sums = run_sql(frame, group_sums_sql("labels", roles, dialect="duckdb"))
    assert len(sums) == 3  # (m, m), (m, w), (w, w)
    table = counts_from_group_sums(sums, roles)
    np.testing.assert_array_equal(table.joint[("groups", "tasks")], [[2, 1], [0, 1]])
    np.testing.assert_array_equal(table.joint[("groups_pred", "tasks")], [[1, 0], [1, 2]])
    np.testing.assert_array_equal(table.totals["groups_pred"], [1, 3])
    assert float(table.n) == 4 and table.n_rows == 4


@pytest.mark.parametrize("weighted", [False, True])
def test_loader_equals_from_arrays(weighted):
    frame = make_frame(300, 4)
    frame["activity"] = np.random.default_rng(1).choice(["run", "sit", "eat"], len(frame))
    roles = ColumnRoles.resolve(
        frame.columns,
        groups="gender",
        groups_pred="gender_pred",
        tasks=TASKS,
        tasks_pred_prefix="pred_",
        sample_weight="weight" if weighted else None,
    )
    sums = run_sql(frame, group_sums_sql("labels", roles, dialect="duckdb", validate=True))
    weight = frame["weight"] if weighted else None
    expected = CountTable.from_arrays(
        groups=frame["gender"],
        groups_pred=frame["gender_pred"],
        tasks=frame[TASKS],
        tasks_pred=frame[[f"pred_{t}" for t in TASKS]].set_axis(TASKS, axis=1),
        sample_weight=weight,
    )
    assert_tables_equal(counts_from_group_sums(sums, roles), expected, exact=not weighted)
    # a task label column (single-label tasks) is a key too
    label_roles = ColumnRoles.resolve(
        groups="gender", tasks="activity", sample_weight=roles.sample_weight
    )
    sums = run_sql(frame, group_sums_sql("labels", label_roles, dialect="duckdb"))
    expected = CountTable.from_arrays(
        groups=frame["gender"], tasks=frame["activity"], sample_weight=weight
    )
    assert_tables_equal(counts_from_group_sums(sums, label_roles), expected, exact=not weighted)


def test_loader_reads_a_written_table(tmp_path):
    frame = make_frame(120, 8)
    roles = ColumnRoles.resolve(groups="gender", tasks=TASKS)
    path = tmp_path / "sums.csv"  # what a Spark job writes with df.write.csv(..., header=True)
    run_sql(frame, group_sums_sql("labels", roles, dialect="duckdb")).to_csv(path, index=False)
    table = counts_from_group_sums(pd.read_csv(path), roles)
    assert_tables_equal(table, CountTable.from_arrays(groups=frame["gender"], tasks=frame[TASKS]))


def test_spark_dialect_quotes_with_backticks_and_errors():
    roles = ColumnRoles.resolve(groups="my group", tasks=["a`b"], sample_weight="w")
    sql = group_sums_sql("db.labels", roles)
    assert "`my group` AS k_groups" in sql and "`a``b`" in sql
    assert "SUM(CAST(`w` AS DOUBLE) * CAST(`a``b` AS DOUBLE)) AS s_tasks_0" in sql
    assert sql.rstrip().endswith("GROUP BY `my group`")
    with pytest.raises(ValueError, match="dialect"):
        group_sums_sql("t", roles, dialect="oracle")
    assert "dialect" in ERR_DIALECT
    with pytest.raises(ValueError, match="missing column"):
        counts_from_group_sums(pd.DataFrame({"k_groups": ["m"], "n": [1]}), roles)
    assert "missing column" in ERR_GROUP_SUMS_COLUMNS
