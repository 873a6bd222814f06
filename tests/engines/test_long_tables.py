"""Long (id, label) task tables counted by both engines equal the in-memory library on the
dense 0/1 matrices, and both engines refuse bad ids and labels alike."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

import biasamp
from biasamp import CountTable, IntersectedColumns, ScoreColumns
from biasamp.engines._files import ERR_DELIMITER_ENGINE, ERR_REPLICATES_ENGINE
from biasamp.engines._joins import ERR_JOIN_DUPLICATES, ERR_JOIN_MISSING, ERR_JOIN_NULL_IDS
from biasamp.engines._long_tables import (
    ERR_LONG_NULL_LABELS,
    ERR_LONG_ROLES,
    ERR_LONG_ROWS,
    counts_from_long_files,
    pattern_counts_from_long_files,
)
from biasamp.inputs._label_matrix import ERR_UNKNOWN_LABELS
from tests.engines.test_files import assert_tables_equal

pytest.importorskip("pyarrow")
pytest.importorskip("duckdb")

TASKS = ["ski", "cook", "surf", "read"]
ENGINES = ["numpy", "duckdb"]


@pytest.fixture(scope="module")
def layout(tmp_path_factory):
    """A data file (one row per id, shuffled) and two long tables (pairs repeat; some
    ids have no task; the predicted table misses a task)."""
    root = tmp_path_factory.mktemp("long")
    rng = np.random.default_rng(0)
    n = 240
    data = pd.DataFrame(
        {
            "id": [f"i{k}" for k in range(n)],
            "g": rng.choice(["m", "w"], n),
            "race": rng.choice(["a", "b", "c"], n),
            "score_m": rng.integers(0, 11, n) / 10,
            "score_w": rng.integers(0, 11, n) / 10,
        }
    )
    data["m"] = (data["g"] == "m").astype(int)
    data["w"] = 1 - data["m"]
    truth = pd.DataFrame({"id": rng.choice(data["id"][:200], 500), "label": rng.choice(TASKS, 500)})
    pred = pd.DataFrame(
        {"id": rng.choice(data["id"][20:], 400), "label": rng.choice(TASKS[:3], 400)}
    )
    paths = {
        "data": root / "data.parquet",
        "truth": root / "truth.csv",
        "pred": root / "pred.parquet",
    }
    data.sample(frac=1, random_state=1).to_parquet(paths["data"], index=False)
    truth.to_csv(paths["truth"], index=False)
    pred.to_parquet(paths["pred"], index=False)
    return data, truth, pred, paths


def dense(data: pd.DataFrame, long: pd.DataFrame, names) -> pd.DataFrame:
    """In memory: the long table as a (rows, tasks) 0/1 matrix in the data file's order."""
    matrix = np.zeros((len(data), len(names)), dtype=np.uint8)
    rows = pd.Index(data["id"]).get_indexer(long["id"])
    matrix[rows, pd.Index(names).get_indexer(long["label"])] = 1  # a repeated pair is one task
    return pd.DataFrame(matrix, columns=list(names))


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("kind", ["label", "indicators", "intersection", "scores"])
def test_long_tables_equal_the_dense_in_memory_counts(layout, engine, kind):
    data, truth, pred, paths = layout
    names = sorted(TASKS)
    groups: dict = {
        "label": {"groups": "g"},
        "indicators": {"groups": ["m", "w"]},
        "intersection": {"groups": IntersectedColumns(["g", "race"])},
        "scores": {
            "groups": ["m", "w"],
            "groups_pred": ScoreColumns({"score_w": "w", "score_m": "m"}, threshold=0.4),
        },
    }[kind]
    in_memory = {
        "label": {"groups": data["g"].to_numpy()},
        "indicators": {"groups": data[["m", "w"]]},
        "intersection": {"groups": biasamp.intersect(data[["g", "race"]])},
        "scores": {
            "groups": data[["m", "w"]],
            "groups_pred": pd.DataFrame(
                {"m": data["score_m"] > 0.4, "w": data["score_w"] > 0.4}
            ).astype(int),
        },
    }[kind]
    table = counts_from_long_files(
        paths["data"],
        {"tasks": paths["truth"], "tasks_pred": paths["pred"]},
        on="id",
        **groups,
        engine=engine,
        chunk_size=64,
    )
    expected = CountTable.from_arrays(
        **in_memory,
        tasks=dense(data, truth, names),
        tasks_pred=dense(data, pred, names),
    )
    assert table.task_names == tuple(names)
    assert_tables_equal(table, expected)


@pytest.mark.parametrize("kind", ["label", "indicators"])
def test_the_bootstrap_weights_follow_the_data_files_rows(layout, kind):
    """``replicates``: every count under the Poisson weights of the data file's row (the
    in-memory bootstrap's), whatever the order of the long tables, in chunks."""
    from biasamp.counts import PoissonReplicates

    _, truth, pred, paths = layout
    data = pd.read_parquet(paths["data"])  # the file's row order
    names = sorted(TASKS)
    groups = {"groups": "g"} if kind == "label" else {"groups": ["m", "w"]}
    replicates = PoissonReplicates(7, random_state=5, stream=0)
    table = counts_from_long_files(
        paths["data"],
        {"tasks": paths["truth"], "tasks_pred": paths["pred"]},
        on="id",
        **groups,
        chunk_size=33,
        replicates=replicates,
    )
    expected = CountTable.from_arrays(
        groups=data["g"].to_numpy() if kind == "label" else data[["m", "w"]],
        tasks=dense(data, truth, names),
        tasks_pred=dense(data, pred, names),
        replicate_weights=replicates.weights(0, len(data)),
    )
    assert table.batch_shape == (7,)
    assert_tables_equal(table, expected)
    with pytest.raises(ValueError, match=re.escape(ERR_REPLICATES_ENGINE)):
        counts_from_long_files(
            paths["data"],
            {"tasks": paths["truth"]},
            on="id",
            **groups,
            engine="duckdb",
            replicates=replicates,
        )


def test_integer_ids_and_given_task_names(tmp_path):
    pd.DataFrame({"id": [3, 1, 2], "g": ["m", "w", "w"]}).to_parquet(tmp_path / "d.parquet")
    pd.DataFrame({"id": [1, 3, 3, 1], "label": ["b", "a", "a", "a"]}).to_csv(
        tmp_path / "l.csv", index=False
    )
    for engine in ENGINES:
        table = counts_from_long_files(
            tmp_path / "d.parquet",
            {"tasks": tmp_path / "l.csv"},
            on="id",
            groups="g",
            task_names=["a", "b", "c"],
            engine=engine,
        )
        # id 3 (m): a; id 1 (w): a, b; id 2 (w): nothing
        np.testing.assert_array_equal(
            table.joint[("groups", "tasks")], [[1.0, 0.0, 0.0], [1.0, 1.0, 0.0]]
        )
        np.testing.assert_array_equal(table.totals["tasks"], [2.0, 1.0, 0.0])
        assert table.n_rows == 3


def test_numeric_looking_labels_are_text_and_any_delimiter_is_read(tmp_path):
    """Labels pyarrow would infer as numbers ('01', '7') are read as text, the group label
    column of the data file and the long table's alike; ``delimiter`` applies to every
    file; pattern tables read them the same way."""
    pd.DataFrame({"id": ["x", "y", "z"], "g": ["01", "1", "1"]}).to_csv(
        tmp_path / "d.csv", sep=";", index=False
    )
    pd.DataFrame({"id": ["x", "x", "z"], "label": ["07", "7", "7"]}).to_csv(
        tmp_path / "l.csv", sep=";", index=False
    )
    common = {"on": "id", "groups": "g", "delimiter": ";"}
    table = counts_from_long_files(tmp_path / "d.csv", {"tasks": tmp_path / "l.csv"}, **common)
    assert table.group_names == ("01", "1")
    assert table.task_names == ("07", "7")
    # x (01): 07, 7; y (1): nothing; z (1): 7
    np.testing.assert_array_equal(table.joint[("groups", "tasks")], [[1.0, 1.0], [0.0, 1.0]])
    patterns = pattern_counts_from_long_files(
        tmp_path / "d.csv", {"tasks": tmp_path / "l.csv"}, **common
    )
    assert sorted(patterns.pattern_sets("tasks")) == [(), ("07", "7"), ("7",)]
    # ids that look like numbers are text too: 007 is not 7
    pd.DataFrame({"id": ["007", "7"], "g": ["a", "b"]}).to_csv(
        tmp_path / "i.csv", sep=";", index=False
    )
    pd.DataFrame({"id": ["7"], "label": ["x"]}).to_csv(tmp_path / "il.csv", sep=";", index=False)
    by_id = counts_from_long_files(tmp_path / "i.csv", {"tasks": tmp_path / "il.csv"}, **common)
    np.testing.assert_array_equal(by_id.joint[("groups", "tasks")], [[0.0], [1.0]])
    with pytest.raises(ValueError, match=re.escape(ERR_DELIMITER_ENGINE.format(got=";"))):
        counts_from_long_files(
            tmp_path / "d.csv", {"tasks": tmp_path / "l.csv"}, **common, engine="duckdb"
        )


def test_both_engines_refuse_bad_ids_and_labels_alike(tmp_path):
    d, lt = tmp_path / "d.csv", tmp_path / "l.csv"
    pd.DataFrame({"id": ["x", "y", "z"], "g": ["m", "w", "m"]}).to_csv(d, index=False)
    cases = [
        (
            {"id": ["x", "q", "q"], "label": ["a", "a", "b"]},
            {},
            ERR_JOIN_MISSING.format(column="id", count=1, path_a=lt, path_b=d, examples="'q'"),
        ),
        (
            {"id": ["x", "y"], "label": ["a", "e"]},
            {"task_names": ["a", "b"], "names_source": "the training split"},
            f"{lt}: "
            + ERR_UNKNOWN_LABELS.format(
                arg="tasks", count=1, source="(from the training split)", examples="'e'"
            ),
        ),
        (
            {"id": ["x", "y"], "label": ["a", None]},
            {"task_names": ["a"]},
            ERR_LONG_NULL_LABELS.format(path=lt, column="label", count=1),
        ),
    ]
    for long, options, message in cases:
        pd.DataFrame(long).to_csv(lt, index=False)
        for engine in ENGINES:
            with pytest.raises(ValueError) as info:
                counts_from_long_files(
                    d, {"tasks": lt}, on="id", groups="g", engine=engine, **options
                )
            assert str(info.value) == message, engine
    pd.DataFrame({"id": ["x", "y"], "label": ["a", "b"]}).to_csv(lt, index=False)
    pd.DataFrame({"id": ["x", "y", "y"], "g": ["m", "w", "m"]}).to_csv(d, index=False)
    for engine in ENGINES:
        with pytest.raises(ValueError) as info:
            counts_from_long_files(d, {"tasks": lt}, on="id", groups="g", engine=engine)
        assert str(info.value) == ERR_JOIN_DUPLICATES.format(
            path=d, column="id", count=1, examples="'y'"
        )
    pd.DataFrame({"id": ["x", None, "z"], "g": ["m", "w", "m"]}).to_csv(d, index=False)
    for engine in ENGINES:
        with pytest.raises(ValueError) as info:
            counts_from_long_files(d, {"tasks": lt}, on="id", groups="g", engine=engine)
        assert str(info.value) == ERR_JOIN_NULL_IDS.format(path=d, column="id", count=1)
    with pytest.raises(ValueError) as info:
        counts_from_long_files(d, {"labels": lt}, on="id", groups="g")
    assert str(info.value) == ERR_LONG_ROLES.format(got={"labels": lt})


def test_predicted_groups_joined_from_another_file_and_labelled_rows(layout, tmp_path):
    """``pred_path``: the predicted groups are another file's rows joined on the id;
    ``rows="labelled"``: rows with no group and no task are not counted, as the metrics'
    ``train_rows="labelled"`` drops them."""
    data, truth, _, paths = layout
    names = sorted(TASKS)
    data = data.copy()
    empty = data.index[200:230]  # ids 200-239 have no task; 30 of them get no group
    data.loc[empty, ["m", "w"]] = 0
    data.sample(frac=1, random_state=3).to_parquet(tmp_path / "data.parquet", index=False)
    rng = np.random.default_rng(4)
    predicted = pd.DataFrame({"id": data["id"], "pm": rng.integers(0, 2, len(data))})
    predicted["pw"] = 1 - predicted["pm"]
    predicted.sample(frac=1, random_state=5).to_csv(tmp_path / "pred.csv", index=False)
    table = counts_from_long_files(
        tmp_path / "data.parquet",
        {"tasks": paths["truth"]},
        on="id",
        groups=["m", "w"],
        groups_pred={"pm": "m", "pw": "w"},
        pred_path=tmp_path / "pred.csv",
    )
    expected = CountTable.from_arrays(
        groups=data[["m", "w"]],
        groups_pred=predicted[["pm", "pw"]].set_axis(["m", "w"], axis=1),
        tasks=dense(data, truth, names),
    )
    assert_tables_equal(table, expected)
    kept = counts_from_long_files(
        tmp_path / "data.parquet",
        {"tasks": paths["truth"]},
        on="id",
        groups=["m", "w"],
        rows="labelled",
    )
    labelled = ~data.index.isin(empty)
    expected = CountTable.from_arrays(
        groups=data.loc[labelled, ["m", "w"]], tasks=dense(data, truth, names)[labelled]
    )
    assert_tables_equal(kept, expected)
    assert kept.n_rows == len(data) - len(empty) == 210
    with pytest.raises(ValueError) as info:
        counts_from_long_files(
            tmp_path / "data.parquet",
            {"tasks": paths["truth"]},
            on="id",
            groups=["m", "w"],
            rows="labelled",
            engine="duckdb",
        )
    assert str(info.value) == ERR_LONG_ROWS.format(rows="labelled", pred_path=None, engine="duckdb")
