"""The group sums counted in numpy over Arrow batches equal the group-sums SQL's, row by row."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from biasamp import ColumnRoles, counts_from_group_sums, group_sums_sql
from biasamp.engines import _arrow_sums
from biasamp.engines._arrow_sums import batch_group_sums, group_sums_frame, merge_group_sums
from tests.engines.test_files import assert_tables_equal

pa = pytest.importorskip("pyarrow")
duckdb = pytest.importorskip("duckdb")


def messy_frame(n: int, seed: int, *, groups: int = 3) -> pd.DataFrame:
    """Label keys with a missing value, int and float indicators with bad values and
    nulls, booleans, soft predictions and weights (one of them negative)."""
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(
        {
            "g": pd.array(rng.choice([f"g{i}" for i in range(groups)], n), dtype=object),
            "gp": rng.integers(0, 2, n),
            "a": pd.array(rng.integers(0, 2, n), dtype="Int64"),
            "b": rng.integers(0, 2, n).astype(np.int8),
            "c": rng.random(n) < 0.3,
            "pa": rng.random(n),
            "pb": rng.integers(0, 2, n).astype(np.float64),
            "pc": rng.integers(0, 2, n).astype(np.uint8),
            "w": rng.integers(0, 3, n).astype(np.float64),
        }
    )
    frame.loc[3, "g"] = None
    frame.loc[5, "a"] = pd.NA
    frame.loc[6, "b"] = -1
    frame.loc[7, "pb"] = np.nan
    frame.loc[8, "pc"] = 2
    frame.loc[9, "pa"] = 1.5
    frame.loc[10, "w"] = -1.0
    return frame


ROLES = dict(
    groups="g",
    groups_pred="gp",
    tasks=["a", "b", "c"],
    tasks_pred={"pa": "a", "pb": "b", "pc": "c"},
    sample_weight="w",
)


def _sql_sums(frame: pd.DataFrame, roles: ColumnRoles, soft: bool) -> pd.DataFrame:
    con = duckdb.connect()
    con.register("labels", frame)
    try:
        return con.execute(
            group_sums_sql("labels", roles, dialect="duckdb", validate=True, soft=soft)
        ).df()
    finally:
        con.close()


def _sorted(frame: pd.DataFrame) -> pd.DataFrame:
    keys = [c for c in frame.columns if c.startswith("k_")]
    out = frame.astype({k: str for k in keys}).sort_values(keys).reset_index(drop=True)
    return out[sorted(out.columns)]


@pytest.mark.parametrize("soft", [False, True])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("block_bytes", [64 * 2**20, 1_000])
def test_batches_equal_the_sql(soft, weighted, block_bytes, monkeypatch):
    monkeypatch.setattr(_arrow_sums, "BLOCK_BYTES", block_bytes)  # 1,000: one column a block
    frame = messy_frame(400, 1)
    roles = ColumnRoles.resolve(
        list(frame.columns), **{k: v for k, v in ROLES.items() if weighted or k != "sample_weight"}
    )
    table = pa.Table.from_pandas(frame, preserve_index=False)
    parts = [batch_group_sums(b, roles, soft=soft) for b in table.to_batches(max_chunksize=90)]
    got = group_sums_frame(merge_group_sums(parts), roles)
    expected = _sql_sums(frame, roles, soft)
    assert set(got.columns) == set(expected.columns)
    got, expected = _sorted(got), _sorted(expected)
    numeric = [c for c in got.columns if not c.startswith("k_")]
    pd.testing.assert_frame_equal(
        got[numeric].astype(np.float64),
        expected[numeric].astype(np.float64),
        rtol=1e-12,
        atol=1e-12,
    )
    pd.testing.assert_frame_equal(got.drop(columns=numeric), expected.drop(columns=numeric))


def test_many_keys_and_clean_data_give_the_in_memory_table():
    """Past 64 keys in a batch the one-hot matrix is sparse; counts stay exact."""
    from biasamp import CountTable

    rng = np.random.default_rng(2)
    n = 3_000
    frame = pd.DataFrame({"g": rng.integers(0, 150, n), "h": rng.choice(["x", "y"], n)})
    for t in ("a", "b", "c"):
        frame[t] = rng.integers(0, 2, n).astype(np.uint8)
    roles = ColumnRoles.resolve(list(frame.columns), groups="g", tasks=["a", "b", "c"])
    table = pa.Table.from_pandas(frame, preserve_index=False)
    parts = [batch_group_sums(b, roles) for b in table.to_batches(max_chunksize=1_000)]
    assert len(parts[0]["n_rows"]) > 64
    got = counts_from_group_sums(group_sums_frame(merge_group_sums(parts), roles), roles)
    assert_tables_equal(
        got, CountTable.from_arrays(groups=frame["g"], tasks=frame[["a", "b", "c"]])
    )
    assert merge_group_sums([]) is None
