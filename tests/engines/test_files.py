"""Streaming Parquet/CSV files into count tables: chunked == one-shot, errors name the file."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import biasamp
from biasamp import CountTable, counts_from_files, pattern_counts_from_files
from biasamp.counts._pattern_counts import PatternCountTable
from biasamp.counts._poisson import PoissonReplicates
from biasamp.engines._file_formats import ERR_DUPLICATE_COLUMNS
from biasamp.engines._files import (
    ERR_CHUNK_SIZE,
    ERR_ENGINE,
    ERR_FILE_COLUMNS,
    ERR_NO_LABELLED_ROWS,
    ERR_ROWS,
    ERR_ROWS_ENGINE,
    ERR_ROWS_REPLICATES,
)
from biasamp.inputs._column_roles import ERR_PREFIX_NONE, ERR_ROLE_NAMES_DIFFER

pytest.importorskip("pyarrow")

TASKS = ["ski", "cook", "surf", "read"]


def make_frame(n: int, seed: int, *, groups=("m", "w")) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(
        {
            "gender": rng.choice(list(groups), n),
            "gender_pred": rng.choice(list(groups), n),
            "weight": rng.integers(0, 4, n).astype(np.float64),
        }
    )
    for t in TASKS:
        frame[t] = (rng.random(n) < 0.3).astype(np.uint8)
    for t in reversed(TASKS):  # predicted columns in another order
        frame[f"pred_{t}"] = (rng.random(n) < 0.35).astype(np.uint8)
    return frame


def in_memory(frame: pd.DataFrame, **kwargs) -> CountTable:
    return CountTable.from_arrays(
        groups=frame["gender"],
        groups_pred=frame["gender_pred"],
        tasks=frame[TASKS],
        tasks_pred=frame[[f"pred_{t}" for t in TASKS]].set_axis(TASKS, axis=1),
        **kwargs,
    )


ROLES = dict(groups="gender", groups_pred="gender_pred", tasks=TASKS, tasks_pred_prefix="pred_")


def assert_tables_equal(a: CountTable, b: CountTable, *, exact: bool = True) -> None:
    assert a.group_names == b.group_names and a.task_names == b.task_names
    assert set(a.totals) == set(b.totals) and set(a.joint) == set(b.joint)
    check = (
        np.testing.assert_array_equal
        if exact
        else (lambda x, y: np.testing.assert_allclose(x, y, rtol=1e-12, atol=1e-12))
    )
    check(a.n, b.n)
    for role in a.totals:
        check(a.totals[role], b.totals[role])
    for key in a.joint:
        check(a.joint[key], b.joint[key])
    assert a.n_rows == b.n_rows


@pytest.fixture
def parquet_files(tmp_path):
    frames = [make_frame(n, seed) for seed, n in enumerate([37, 0, 120, 5])]
    paths = []
    for i, frame in enumerate(frames):
        path = tmp_path / f"part{i}.parquet"
        frame.to_parquet(path, index=False)
        paths.append(str(path))
    return paths, pd.concat(frames, ignore_index=True)


def test_chunked_parquet_equals_one_shot(parquet_files):
    paths, whole = parquet_files
    expected = in_memory(whole)
    for chunk_size in (1, 7, 64, 10_000):
        assert_tables_equal(counts_from_files(paths, **ROLES, chunk_size=chunk_size), expected)


def test_csv_and_weights_equal_one_shot(tmp_path):
    frames = [make_frame(50, 1), make_frame(23, 2)]
    paths = []
    for i, frame in enumerate(frames):
        path = tmp_path / f"part{i}.csv"
        frame.to_csv(path, index=False)
        paths.append(path)
    whole = pd.concat(frames, ignore_index=True)
    table = counts_from_files(paths, **ROLES, sample_weight="weight", chunk_size=9)
    assert_tables_equal(table, in_memory(whole, sample_weight=whole["weight"]), exact=False)


@settings(max_examples=25, deadline=None)
@given(chunk_size=st.integers(1, 80), seed=st.integers(0, 10_000))
def test_chunk_size_never_changes_the_table(tmp_path_factory, chunk_size, seed):
    frame = make_frame(61, seed)
    path = tmp_path_factory.mktemp("h") / "x.parquet"
    frame.to_parquet(path, index=False)
    assert_tables_equal(counts_from_files(path, **ROLES, chunk_size=chunk_size), in_memory(frame))


def test_metrics_from_streamed_tables_equal_in_memory(parquet_files):
    paths, whole = parquet_files
    train = counts_from_files(paths, groups="gender", tasks=TASKS)
    evaluation = counts_from_files(
        paths, **ROLES, chunk_size=13, group_names=train.group_names, task_names=train.task_names
    )
    preds = whole[[f"pred_{t}" for t in TASKS]].set_axis(TASKS, axis=1)
    for direction, extra in (
        ("A->T", {"tasks_pred": preds}),
        ("T->A", {"groups_pred": whole["gender_pred"]}),
    ):
        expected = biasamp.directional(
            direction=direction,
            groups=whole["gender"],
            tasks=whole[TASKS],
            groups_train=whole["gender"],
            tasks_train=whole[TASKS],
            **extra,
        )
        got = biasamp.directional_from_counts(evaluation, direction=direction, train=train)
        assert got.value == pytest.approx(expected.value, abs=1e-12)
    expected = biasamp.mals(
        groups_train=whole["gender"],
        tasks_train=whole[TASKS],
        groups_pred=whole["gender_pred"],
        tasks_pred=preds,
    )
    assert biasamp.mals_from_counts(train, evaluation).value == pytest.approx(
        expected.value, abs=1e-12
    )


def test_label_names_come_from_sorted_values_and_a_new_label_names_the_file(tmp_path):
    first, second = make_frame(30, 0), make_frame(30, 1, groups=("m", "w", "x"))
    p1, p2 = tmp_path / "a.parquet", tmp_path / "b.parquet"
    first.to_parquet(p1, index=False)
    second.to_parquet(p2, index=False)
    table = counts_from_files([p1, p2], groups="gender", tasks=TASKS)
    assert table.group_names == ("m", "w", "x")  # sorted distinct values of both files
    with pytest.raises(ValueError) as info:
        counts_from_files(
            [p1, p2],
            groups="gender",
            tasks=TASKS,
            group_names=["m", "w"],
            names_source="the training split",
            chunk_size=10,
        )
    message = str(info.value)
    assert str(p2) in message and "chunk" in message and "rows" in message
    assert "'x'" in message and "the training split" in message


def test_error_names_the_rows_of_the_bad_chunk(tmp_path):
    frame = make_frame(40, 3)
    frame.loc[25, "ski"] = 2
    path = tmp_path / "bad.parquet"
    frame.to_parquet(path, index=False)
    with pytest.raises(ValueError, match=r"bad\.parquet, chunk 2 \(rows 20-29\).*0 or 1"):
        counts_from_files(path, **ROLES, chunk_size=10)


def test_column_type_change_between_files(tmp_path):
    a, b = make_frame(10, 0), make_frame(10, 1)
    b["ski"] = b["ski"].astype(np.float64)
    pa_, pb = tmp_path / "a.parquet", tmp_path / "b.parquet"
    a.to_parquet(pa_, index=False)
    b.to_parquet(pb, index=False)
    with pytest.raises(TypeError) as info:
        counts_from_files([pa_, pb], **ROLES)
    message = str(info.value)
    assert str(pb) in message and "'ski'" in message and "double" in message and "uint8" in message


def test_csv_value_of_another_type_later_in_a_file(tmp_path):
    rows = ["gender,ski"] + ["m,1"] * 5 + ["w,maybe"]
    path = tmp_path / "late.csv"
    path.write_text("\n".join(rows) + "\n")
    with pytest.raises(TypeError, match="late.csv.*'ski'.*numeric or boolean"):
        counts_from_files(path, groups="gender", tasks=["ski"])


def test_missing_values_and_missing_columns(tmp_path):
    frame = make_frame(12, 0)
    frame["ski"] = frame["ski"].astype("float64")
    frame.loc[3, "ski"] = np.nan
    path = tmp_path / "nan.parquet"
    frame.to_parquet(path, index=False)
    with pytest.raises(
        ValueError, match=r"nan\.parquet, chunk 0 \(rows 0-11\).*'ski' has 1 missing value"
    ):
        counts_from_files(path, **ROLES)
    with pytest.raises(ValueError, match="not found|not in the input"):
        counts_from_files(path, groups="gender", tasks=["nope"])
    assert "not found" in ERR_FILE_COLUMNS


def test_argument_errors(parquet_files):
    paths, _ = parquet_files
    with pytest.raises(
        ValueError, match=ERR_ENGINE.format(got="spark").replace("(", r"\(").replace(")", r"\)")
    ):
        counts_from_files(paths, **ROLES, engine="spark")
    with pytest.raises(ValueError, match="chunk_size"):
        counts_from_files(paths, **ROLES, chunk_size=0)
    assert "chunk_size" in ERR_CHUNK_SIZE
    with pytest.raises(ValueError, match="matches no column"):
        counts_from_files(paths, groups="gender", tasks_prefix="zzz_")
    assert "matches no column" in ERR_PREFIX_NONE
    with pytest.raises(ValueError, match="labels differ"):
        counts_from_files(paths, groups="gender", tasks=TASKS, tasks_pred=["pred_ski"])
    assert "labels differ" in ERR_ROLE_NAMES_DIFFER
    with pytest.raises(FileNotFoundError):
        counts_from_files(paths[0] + ".missing.parquet", **ROLES)


def test_soft_predictions_and_bootstrap_replicates(tmp_path):
    frame = make_frame(90, 5)
    rng = np.random.default_rng(0)
    for t in TASKS:
        frame[f"pred_{t}"] = rng.random(len(frame))
    path = tmp_path / "soft.parquet"
    frame.to_parquet(path, index=False)
    reps = PoissonReplicates(7, random_state=3)
    got = counts_from_files(path, **ROLES, soft=True, chunk_size=17, replicates=reps)
    expected = in_memory(frame, soft=True, replicate_weights=reps.weights(0, len(frame)))
    assert got.batch_shape == (7,)
    assert_tables_equal(got, expected, exact=False)


def test_pattern_counts_from_files_equal_in_memory(parquet_files):
    paths, whole = parquet_files
    got = pattern_counts_from_files(paths, groups="gender", tasks=TASKS, chunk_size=11)
    expected = PatternCountTable.from_arrays(groups=whole["gender"], tasks=whole[TASKS])
    np.testing.assert_array_equal(got.patterns["tasks"], expected.patterns["tasks"])
    np.testing.assert_array_equal(
        got.joint[("groups", "tasks")], expected.joint[("groups", "tasks")]
    )
    assert got.n_rows == expected.n_rows == len(whole)


def test_a_repeated_column_name_is_named_not_reported_missing(tmp_path):
    path = tmp_path / "dup.csv"
    path.write_text("g,t,t\nm,1,0\nw,0,1\n", encoding="utf-8")
    with pytest.raises(ValueError) as info:
        counts_from_files([str(path)], groups="g", tasks=["t"])
    assert str(info.value) == ERR_DUPLICATE_COLUMNS.format(file=str(path), columns="'t'")


@pytest.mark.parametrize("chunk_size", [1, 3, 7, 1000])
def test_labelled_rows_drop_the_rows_with_neither_a_group_nor_a_task(tmp_path, chunk_size):
    """rows='labelled' counts what train_rows='labelled' keeps in memory, at any chunk size."""
    rng = np.random.default_rng(5)
    n = 40
    frame = pd.DataFrame({"m": rng.integers(0, 2, n), "ski": rng.integers(0, 2, n)})
    frame["w"] = 1 - frame["m"]
    frame["surf"] = rng.integers(0, 2, n)
    frame.loc[[0, 1, 2, 9, 20, 21, 39], ["m", "w", "ski", "surf"]] = 0  # neither
    frame.loc[[5, 6], ["m", "w"]] = 0  # a task, no group: kept
    frame.loc[[5, 6], "ski"] = 1
    frame.loc[[7], ["ski", "surf"]] = 0  # a group, no task: kept
    path = tmp_path / "train.csv"
    frame.to_csv(path, index=False)
    roles = {"groups": ["m", "w"], "tasks": ["ski", "surf"]}
    table = counts_from_files(path, **roles, rows="labelled", chunk_size=chunk_size)
    keep = frame[["m", "w", "ski", "surf"]].to_numpy().any(axis=1)
    assert keep.sum() == n - 7
    kept = frame[keep]
    expected = CountTable.from_arrays(groups=kept[["m", "w"]], tasks=kept[["ski", "surf"]])
    assert table.n_rows == n - 7 == expected.n_rows
    np.testing.assert_array_equal(
        table.joint[("groups", "tasks")], expected.joint[("groups", "tasks")]
    )
    assert table.n == expected.n
    every = counts_from_files(path, **roles, chunk_size=chunk_size)
    assert every.n_rows == n
    patterns = pattern_counts_from_files(path, **roles, rows="labelled", chunk_size=chunk_size)
    expected_patterns = PatternCountTable.from_arrays(
        groups=kept[["m", "w"]], tasks=kept[["ski", "surf"]]
    )
    assert patterns.n_rows == n - 7
    assert patterns.pattern_sets("tasks") == expected_patterns.pattern_sets("tasks")
    np.testing.assert_array_equal(
        patterns.pattern_totals["tasks"], expected_patterns.pattern_totals["tasks"]
    )
    # a label column gives every row a group: nothing is dropped, any engine
    frame["g"] = np.where(frame["w"] == 1, "w", "m")
    frame.to_csv(path, index=False)
    labels = counts_from_files(path, groups="g", tasks=["ski", "surf"], rows="labelled")
    assert labels.n_rows == n


def test_labelled_rows_errors(tmp_path):
    path = tmp_path / "t.csv"
    pd.DataFrame({"m": [0, 0], "w": [0, 0], "ski": [0, 0]}).to_csv(path, index=False)
    roles = {"groups": ["m", "w"], "tasks": ["ski"]}
    with pytest.raises(ValueError) as info:
        counts_from_files(path, **roles, rows="labelled")
    assert str(info.value) == ERR_NO_LABELLED_ROWS.format(paths=str(path))
    with pytest.raises(ValueError) as info:
        counts_from_files(path, **roles, rows="some")
    assert str(info.value) == ERR_ROWS.format(got="some")
    with pytest.raises(ValueError) as info:
        counts_from_files(path, **roles, rows="labelled", engine="duckdb")
    assert str(info.value) == ERR_ROWS_ENGINE.format(engine="duckdb")
    with pytest.raises(ValueError) as info:
        counts_from_files(
            path, **roles, rows="labelled", replicates=PoissonReplicates(5, random_state=0)
        )
    assert str(info.value) == ERR_ROWS_REPLICATES


@pytest.mark.parametrize("chunk_size", [1, 4, 1000])
def test_joined_files_equal_the_in_memory_join(tmp_path, chunk_size):
    from biasamp.engines._files import counts_from_joined_files

    rng = np.random.default_rng(8)
    n = 30
    truth = pd.DataFrame(
        {"id": [f"i{k}" for k in rng.permutation(n)], "g": rng.choice(["m", "w"], n)}
    )
    truth["ski"] = rng.integers(0, 2, n)
    truth["surf"] = rng.integers(0, 2, n)
    pred = truth[["id"]].copy()
    pred["g"] = rng.choice(["m", "w"], n)
    pred["ski"] = rng.integers(0, 2, n)
    pred["surf"] = rng.integers(0, 2, n)
    pred = pred.sample(frac=1, random_state=1)
    truth.to_csv(tmp_path / "t.csv", index=False)
    pred.to_parquet(tmp_path / "p.parquet")
    table = counts_from_joined_files(
        tmp_path / "t.csv",
        tmp_path / "p.parquet",
        on="id",
        groups="g",
        tasks=["ski", "surf"],
        groups_pred="g",
        tasks_pred={"surf": "surf", "ski": "ski"},
        chunk_size=chunk_size,
    )
    joined = truth.merge(pred, on="id", suffixes=("", "_p"))
    expected = CountTable.from_arrays(
        groups=joined["g"].to_numpy(),
        tasks=joined[["ski", "surf"]],
        groups_pred=joined["g_p"].to_numpy(),
        tasks_pred=joined[["ski_p", "surf_p"]].set_axis(["ski", "surf"], axis=1),
    )
    for pair in expected.joint:
        np.testing.assert_array_equal(table.joint[pair], expected.joint[pair])
    assert table.n_rows == n


def test_joined_files_refuse_repeated_and_missing_ids_and_non_binary_values(tmp_path):
    from biasamp.engines._files import (
        ERR_CHUNK,
        ERR_JOIN_DUPLICATES,
        ERR_JOIN_MISSING,
        counts_from_joined_files,
    )

    pd.DataFrame({"id": ["a", "b", "c"], "g": ["m", "w", "m"], "x": [1, 0, 1]}).to_csv(
        tmp_path / "t.csv", index=False
    )
    roles = {"on": "id", "groups": "g", "tasks": ["x"], "tasks_pred": {"x": "x"}}
    cases = [
        (
            ["a", "b", "b"],
            [1, 0, 1],
            ERR_JOIN_DUPLICATES.format(
                path=tmp_path / "p.csv", column="id", count=1, examples="'b'"
            ),
        ),
        (
            ["a", "b", "d"],
            [1, 0, 1],
            ERR_JOIN_MISSING.format(
                column="id",
                count=1,
                path_a=tmp_path / "t.csv",
                path_b=tmp_path / "p.csv",
                examples="'c'",
            ),
        ),
        (
            ["c", "a", "b"],
            [1, 0, 2],
            ERR_CHUNK.format(
                path=tmp_path / "p.csv",
                chunk=1,
                start=2,
                stop=2,
                message="tasks_pred: column 'x' holds 2, not 0 or 1",
            ),
        ),
    ]
    for ids, x, message in cases:
        pd.DataFrame({"id": ids, "x": x}).to_csv(tmp_path / "p.csv", index=False)
        with pytest.raises(ValueError) as info:
            counts_from_joined_files(tmp_path / "t.csv", tmp_path / "p.csv", **roles, chunk_size=2)
        assert str(info.value) == message
