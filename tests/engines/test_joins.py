"""Two files joined on an id column: DuckDB's join equals the numpy join and the in-memory
join, and both engines refuse the same ids with the same messages."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import biasamp
from biasamp import CountTable, IntersectedColumns, ScoreColumns
from biasamp.counts._pattern_counts import PatternCountTable
from biasamp.engines._derived_roles import ERR_SCORE_VALUE
from biasamp.engines._duckdb import ERR_FIRST_BAD_ROW
from biasamp.engines._files import ERR_CHUNK, ERR_REPLICATES_ENGINE, counts_from_joined_files
from biasamp.engines._group_sums import ALLOWED_SCORES, ERR_BAD_VALUES
from biasamp.engines._joins import (
    ERR_JOIN_DUPLICATES,
    ERR_JOIN_MISSING,
    ERR_JOIN_NULL_IDS,
)
from biasamp.inputs._column_roles import ERR_ROLE_NAMES_DIFFER
from tests.engines.test_files import assert_tables_equal

pytest.importorskip("pyarrow")
pytest.importorskip("duckdb")

TASKS = ["ski", "surf", "cook"]


def make_files(tmp_path, n: int, seed: int, *, truth_format="csv", pred_format="parquet"):
    rng = np.random.default_rng(seed)
    truth = pd.DataFrame({"id": [f"i{k}" for k in rng.permutation(n)]})
    truth["g"] = rng.choice(["m", "w", "x"], n)
    for t in TASKS:
        truth[t] = rng.integers(0, 2, n)
    pred = truth[["id"]].copy()
    pred["g"] = rng.choice(["m", "w", "x"], n)
    for t in TASKS:
        pred[t] = rng.integers(0, 2, n)
        pred[f"score_{t}"] = rng.integers(0, 11, n) / 10
    pred = pred.sample(frac=1, random_state=seed).reset_index(drop=True)
    paths = tmp_path / f"t.{truth_format}", tmp_path / f"p.{pred_format}"
    for frame, path, fmt in ((truth, paths[0], truth_format), (pred, paths[1], pred_format)):
        if fmt == "csv":
            frame.to_csv(path, index=False)
        else:
            frame.to_parquet(path, index=False)
    return truth, pred, paths


ROLES = dict(
    on="id",
    groups="g",
    tasks=TASKS,
    groups_pred="g",
    tasks_pred={"cook": "cook", "ski": "ski", "surf": "surf"},  # another order
)


@pytest.mark.parametrize(("truth_format", "pred_format"), [("csv", "parquet"), ("parquet", "csv")])
def test_duckdb_join_equals_numpy_join_and_the_in_memory_join(tmp_path, truth_format, pred_format):
    truth, pred, (t, p) = make_files(
        tmp_path, 97, 1, truth_format=truth_format, pred_format=pred_format
    )
    joined = truth.merge(pred, on="id", suffixes=("", "_p"))
    expected = CountTable.from_arrays(
        groups=joined["g"].to_numpy(),
        tasks=joined[TASKS],
        groups_pred=joined["g_p"].to_numpy(),
        tasks_pred=joined[[f"{c}_p" for c in TASKS]].set_axis(TASKS, axis=1),
    )
    duck = counts_from_joined_files(t, p, **ROLES, engine="duckdb")
    assert_tables_equal(duck, counts_from_joined_files(t, p, **ROLES, chunk_size=10))
    assert_tables_equal(duck, expected)
    patterns = counts_from_joined_files(t, p, **ROLES, engine="duckdb", patterns=True)
    want = PatternCountTable.from_arrays(
        groups=joined["g"].to_numpy(),
        tasks=joined[TASKS],
        groups_pred=joined["g_p"].to_numpy(),
        tasks_pred=joined[[f"{c}_p" for c in TASKS]].set_axis(TASKS, axis=1),
    )
    assert patterns.n_rows == 97
    for role in ("tasks", "tasks_pred"):
        np.testing.assert_array_equal(patterns.patterns[role], want.patterns[role])
        np.testing.assert_array_equal(patterns.pattern_totals[role], want.pattern_totals[role])
    for key in want.joint:
        np.testing.assert_array_equal(patterns.joint[key], want.joint[key])


def test_duckdb_join_thresholds_prediction_scores(tmp_path):
    truth, pred, (t, p) = make_files(tmp_path, 60, 2)
    cut = {"ski": 0.2, "surf": 0.5, "cook": 0.9}
    table = counts_from_joined_files(
        t,
        p,
        on="id",
        groups="g",
        tasks=TASKS,
        tasks_pred=ScoreColumns({f"score_{c}": c for c in TASKS}, threshold=cut),
        engine="duckdb",
    )
    joined = truth.merge(pred, on="id", suffixes=("", "_p"))
    expected = CountTable.from_arrays(
        groups=joined["g"].to_numpy(),
        tasks=joined[TASKS],
        tasks_pred=pd.DataFrame({c: (joined[f"score_{c}"] > cut[c]).astype(int) for c in TASKS}),
    )
    assert_tables_equal(table, expected)
    # the numpy join takes the same specs: the engine never changes what is accepted
    numpy_join = counts_from_joined_files(
        t,
        p,
        on="id",
        groups="g",
        tasks=TASKS,
        tasks_pred=ScoreColumns({f"score_{c}": c for c in TASKS}, threshold=cut),
        engine="numpy",
        chunk_size=7,
    )
    assert_tables_equal(numpy_join, expected)


def test_joins_of_intersected_groups(tmp_path):
    truth, pred, (t, p) = make_files(tmp_path, 80, 5)
    truth["race"] = np.random.default_rng(1).choice(["a", "b"], len(truth))
    pred["race"] = np.random.default_rng(2).choice(["a", "b"], len(pred))
    truth.to_csv(t, index=False)
    pred.to_parquet(p, index=False)
    groups = IntersectedColumns(["g", "race"])
    roles = dict(on="id", groups=groups, tasks=TASKS, tasks_pred={c: c for c in TASKS})
    joined = truth.merge(pred, on="id", suffixes=("", "_p"))
    expected = CountTable.from_arrays(
        groups=biasamp.intersect(joined[["g", "race"]]),
        tasks=joined[TASKS],
        tasks_pred=joined[[f"{c}_p" for c in TASKS]].set_axis(TASKS, axis=1),
    )
    for engine in ("numpy", "duckdb"):  # the ground truth's intersection, on both engines
        assert_tables_equal(counts_from_joined_files(t, p, **roles, engine=engine), expected)
    predicted = counts_from_joined_files(t, p, **roles, groups_pred=groups, engine="duckdb")
    expected = CountTable.from_arrays(
        groups=biasamp.intersect(joined[["g", "race"]]),
        groups_pred=biasamp.intersect(joined[["g_p", "race_p"]].set_axis(["g", "race"], axis=1)),
        tasks=joined[TASKS],
        tasks_pred=joined[[f"{c}_p" for c in TASKS]].set_axis(TASKS, axis=1),
        group_names=predicted.group_names,
    )
    assert_tables_equal(predicted, expected)
    numpy_join = counts_from_joined_files(t, p, **roles, groups_pred=groups, chunk_size=9)
    assert_tables_equal(numpy_join, expected)


def test_integer_ids_join_on_their_values(tmp_path):
    truth = pd.DataFrame({"id": [3, 1, 2], "g": ["m", "w", "w"], "ski": [1, 0, 1]})
    pred = pd.DataFrame({"id": [1, 2, 3], "ski": [1, 1, 0]})
    truth.to_parquet(tmp_path / "t.parquet")
    pred.to_parquet(tmp_path / "p.parquet")
    roles = dict(on="id", groups="g", tasks=["ski"], tasks_pred={"ski": "ski"})
    table = counts_from_joined_files(
        tmp_path / "t.parquet", tmp_path / "p.parquet", **roles, engine="duckdb"
    )
    # rows: (m, truth 1, pred 0), (w, 0, 1), (w, 1, 1)
    np.testing.assert_array_equal(table.joint[("groups", "tasks_pred")], [[0.0], [2.0]])
    np.testing.assert_array_equal(table.joint[("groups", "tasks")], [[1.0], [1.0]])


def test_both_engines_refuse_repeated_and_missing_ids_alike(tmp_path):
    pd.DataFrame({"id": ["a", "b", "c"], "g": ["m", "w", "m"], "x": [1, 0, 1]}).to_csv(
        tmp_path / "t.csv", index=False
    )
    t, p = tmp_path / "t.csv", tmp_path / "p.csv"
    roles = {"on": "id", "groups": "g", "tasks": ["x"], "tasks_pred": {"x": "x"}}
    cases = [
        (["a", "b", "b"], ERR_JOIN_DUPLICATES.format(path=p, column="id", count=1, examples="'b'")),
        (
            ["a", "b", "d"],
            ERR_JOIN_MISSING.format(column="id", count=1, path_a=t, path_b=p, examples="'c'"),
        ),
        (
            ["a", "b", "c", "e"],
            ERR_JOIN_MISSING.format(column="id", count=1, path_a=p, path_b=t, examples="'e'"),
        ),
    ]
    for ids, message in cases:
        pd.DataFrame({"id": ids, "x": [1] * len(ids)}).to_csv(p, index=False)
        for engine in ("numpy", "duckdb"):
            with pytest.raises(ValueError) as info:
                counts_from_joined_files(t, p, **roles, engine=engine)
            assert str(info.value) == message, engine


def test_duckdb_join_names_the_file_of_a_bad_value_or_id(tmp_path):
    truth, pred, (t, p) = make_files(tmp_path, 20, 3)
    pred.loc[5, "surf"] = 2
    pred.to_parquet(p, index=False)
    with pytest.raises(ValueError) as info:
        counts_from_joined_files(t, p, **ROLES, engine="duckdb")
    assert str(info.value) == f"{p}: " + ERR_BAD_VALUES.format(
        where="", role="tasks_pred", count=1, column="surf", allowed="0 or 1"
    ) + ERR_FIRST_BAD_ROW.format(row=6, value=2)
    pred.loc[5, "surf"] = 0
    pred.loc[7, "score_ski"] = -np.inf
    pred.to_parquet(p, index=False)
    with pytest.raises(ValueError) as info:
        counts_from_joined_files(
            t,
            p,
            on="id",
            groups="g",
            tasks=TASKS,
            tasks_pred=ScoreColumns({f"score_{c}": c for c in TASKS}),
            engine="duckdb",
        )
    assert str(info.value) == f"{p}: " + ERR_BAD_VALUES.format(
        where="", role="tasks_pred", count=1, column="score_ski", allowed=ALLOWED_SCORES
    ) + ERR_FIRST_BAD_ROW.format(row=8, value=-np.inf)
    pred.loc[[2, 9], "id"] = None
    pred.to_parquet(p, index=False)
    with pytest.raises(ValueError) as info:
        counts_from_joined_files(t, p, **ROLES, engine="duckdb")
    assert str(info.value) == ERR_JOIN_NULL_IDS.format(path=p, column="id", count=2)


def test_duckdb_join_refuses_other_labels_and_replicates(tmp_path):
    _, _, (t, p) = make_files(tmp_path, 10, 4)
    with pytest.raises(ValueError) as info:
        counts_from_joined_files(
            t, p, **{**ROLES, "tasks_pred": {"ski": "ski", "surf": "surf"}}, engine="duckdb"
        )
    assert str(info.value) == ERR_ROLE_NAMES_DIFFER.format(
        role="tasks_pred", other="tasks", missing="'cook'", unexpected="none"
    )
    with pytest.raises(ValueError) as info:
        counts_from_joined_files(t, p, **ROLES, engine="duckdb", replicates=object())
    assert str(info.value) == ERR_REPLICATES_ENGINE


def test_the_numpy_join_refuses_infinite_scores_naming_file_column_and_row(tmp_path):
    truth, pred, (t, p) = make_files(tmp_path, 30, 7)
    pred.loc[12, "score_ski"] = np.inf
    pred.to_parquet(p, index=False)
    with pytest.raises(ValueError) as info:
        counts_from_joined_files(
            t,
            p,
            on="id",
            groups="g",
            tasks=TASKS,
            tasks_pred=ScoreColumns({f"score_{c}": c for c in TASKS}),
            chunk_size=10,
        )
    shown = ERR_SCORE_VALUE.format(role="tasks_pred", column="score_ski", value=np.inf, row=3)
    assert str(info.value) == ERR_CHUNK.format(path=p, chunk=1, start=10, stop=19, message=shown)


def test_pattern_counts_of_joined_intersections_on_both_engines(tmp_path):
    truth, pred, (t, p) = make_files(tmp_path, 70, 8)
    rng = np.random.default_rng(3)
    truth["race"] = rng.choice(["a", "b"], len(truth))
    pred["race"] = rng.choice(["a", "b"], len(pred))
    truth.to_csv(t, index=False)
    pred.to_parquet(p, index=False)
    groups = IntersectedColumns(["g", "race"])
    roles = dict(on="id", groups=groups, groups_pred=groups, tasks=TASKS, patterns=True)
    roles["tasks_pred"] = {c: c for c in TASKS}
    joined = truth.merge(pred, on="id", suffixes=("", "_p"))
    tables = [counts_from_joined_files(t, p, **roles, engine=e) for e in ("numpy", "duckdb")]
    expected = PatternCountTable.from_arrays(
        groups=biasamp.intersect(joined[["g", "race"]]),
        groups_pred=biasamp.intersect(joined[["g_p", "race_p"]].set_axis(["g", "race"], axis=1)),
        tasks=joined[TASKS],
        tasks_pred=joined[[f"{c}_p" for c in TASKS]].set_axis(TASKS, axis=1),
        group_names=tables[0].group_names,
    )
    for table in tables:
        assert table.group_names == expected.group_names
        for key in expected.joint:
            np.testing.assert_array_equal(table.joint[key], expected.joint[key])
