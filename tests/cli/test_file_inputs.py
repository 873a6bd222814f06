"""Reading audit inputs from files (biasamp.engines._file_reader, biasamp.auditing._inputs): layouts, streaming, every error."""

from __future__ import annotations

import hashlib

import numpy as np
import pandas as pd
import pytest

from biasamp import directional, mals
from biasamp.auditing._inputs import (
    ERR_COLUMN_SETS,
    ERR_DUPLICATE_IDS,
    ERR_ID_MISSING,
    ERR_PARTIAL_PREDICTIONS,
    ERR_UNKNOWN_EVAL_LABELS,
    ERR_UNKNOWN_PRED_LABELS,
    ColumnBlock,
    InputError,
    Layout,
    load_audit,
    read_blocks,
)
from biasamp.engines import _file_reader as _files
from biasamp.engines._file_reader import (
    ERR_DELIMITER,
    ERR_DUPLICATE_COLUMNS,
    ERR_EMPTY_FILE,
    ERR_MISSING_COLUMN,
    ERR_MISSING_VALUES,
    ERR_NO_ROWS,
    ERR_NOT_BINARY,
    ERR_NOT_FOUND,
    ERR_PARQUET,
    HINT_SCORES,
)


def _frame(n: int = 60, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    gender = rng.choice(["man", "woman"], n)
    data = {"id": [f"img{i:03d}" for i in range(n)], "gender": gender}
    for task, p in (("cup", 0.3), ("ski", 0.7), ("car", 0.5)):
        data[f"obj_{task}"] = (rng.random(n) < np.where(gender == "man", p, 1 - p)).astype(int)
    data["pred_gender"] = np.where(rng.random(n) < 0.8, gender, rng.choice(["man", "woman"], n))
    for task in ("cup", "ski", "car"):
        data[f"pred_obj_{task}"] = rng.random(n).round(3)
    return pd.DataFrame(data)


CATEGORICAL = Layout(group="gender", task_prefix="obj_", pred_prefix="pred_", id="id")


def test_categorical_layout_matches_the_library_on_the_same_arrays(tmp_path):
    test, train = _frame(80, 1), _frame(120, 2)
    test.to_csv(tmp_path / "test.csv", index=False)
    train.to_csv(tmp_path / "train.csv", index=False)
    data = load_audit(
        CATEGORICAL, data=tmp_path / "test.csv", train=tmp_path / "train.csv", threshold=0.5
    )
    assert data.group_names == ("man", "woman")
    assert data.task_names == ("cup", "ski", "car")
    tasks = test[["obj_cup", "obj_ski", "obj_car"]].to_numpy()
    np.testing.assert_array_equal(data.tasks, tasks)
    expected_pred = test[["pred_obj_cup", "pred_obj_ski", "pred_obj_car"]].to_numpy() > 0.5
    np.testing.assert_array_equal(data.tasks_pred, expected_pred.astype(np.uint8))
    np.testing.assert_array_equal(
        data.task_scores, test[["pred_obj_cup", "pred_obj_ski", "pred_obj_car"]].to_numpy()
    )
    assert data.thresholds == {"cup": 0.5, "ski": 0.5, "car": 0.5}
    # the file's SHA-256 is computed from the bytes the parser read
    digest = hashlib.sha256((tmp_path / "test.csv").read_bytes()).hexdigest()
    assert data.files[0].sha256 == digest and data.files[0].n_rows == 80
    got = mals(
        groups_train=data.groups_train,
        tasks_train=data.tasks_train,
        groups_pred=data.groups_pred,
        tasks_pred=data.tasks_pred,
        **data.names(),
    )
    want = mals(
        groups_train=train["gender"],
        tasks_train=train[["obj_cup", "obj_ski", "obj_car"]].set_axis(
            ["cup", "ski", "car"], axis=1
        ),
        groups_pred=test["pred_gender"],
        tasks_pred=pd.DataFrame(expected_pred.astype(int), columns=["cup", "ski", "car"]),
    )
    assert got.value == pytest.approx(want.value, abs=1e-15)


def test_indicator_layout_with_a_prediction_file_joined_on_id(tmp_path):
    test = _frame(50, 3)
    test["man"] = (test["gender"] == "man").astype(int)
    test["woman"] = 1 - test["man"]
    truth = test[["id", "man", "woman", "obj_cup", "obj_ski"]]
    truth.to_parquet(tmp_path / "truth.parquet")
    preds = pd.DataFrame(
        {
            "id": test["id"],
            "obj_cup": (test["pred_obj_cup"] > 0.5).astype(int),
            "obj_ski": (test["pred_obj_ski"] > 0.5).astype(int),
        }
    )
    preds.sample(frac=1.0, random_state=0).to_csv(tmp_path / "preds.csv", index=False)  # shuffled
    layout = Layout(group_cols=("man", "woman"), task_cols=("obj_cup", "obj_ski"), id="id")
    data = load_audit(layout, data=tmp_path / "truth.parquet", pred=tmp_path / "preds.csv")
    assert data.groups_pred is None and data.group_names == ("man", "woman")
    np.testing.assert_array_equal(data.tasks_pred, preds[["obj_cup", "obj_ski"]].to_numpy())
    assert [f.format for f in data.files] == ["parquet", "csv"]
    assert (
        data.files[0].sha256
        == hashlib.sha256((tmp_path / "truth.parquet").read_bytes()).hexdigest()
    )
    result = directional(
        direction="A->T",
        groups=data.groups,
        tasks=data.tasks,
        tasks_pred=data.tasks_pred,
        **data.names(),
    )
    want = directional(
        direction="A->T",
        groups=test["gender"],
        tasks=test[["obj_cup", "obj_ski"]],
        tasks_pred=preds[["obj_cup", "obj_ski"]],
    )
    assert result.value == pytest.approx(want.value, abs=1e-15)


def test_long_tables_give_the_same_sparse_matrix_as_the_wide_layout(tmp_path):
    test = _frame(40, 4)
    rows = [
        (i, t) for i, row in test.iterrows() for t in ("cup", "ski", "car") if row[f"obj_{t}"] == 1
    ]
    long = pd.DataFrame({"id": [test["id"][i] for i, _ in rows], "label": [t for _, t in rows]})
    long = pd.concat([long, long.head(3)])  # a repeated (id, label) row is still one label
    long.to_csv(tmp_path / "labels.csv", index=False)
    test[["id", "gender", "pred_gender"]].to_csv(tmp_path / "images.csv", index=False)
    layout = Layout(
        group="gender", tasks_long=str(tmp_path / "labels.csv"), id="id", pred_prefix="pred_"
    )
    data = load_audit(layout, data=tmp_path / "images.csv")
    assert data.task_names == ("car", "cup", "ski")
    assert data.tasks.format == "csr"
    dense = test[["obj_car", "obj_cup", "obj_ski"]].to_numpy()
    np.testing.assert_array_equal(data.tasks.toarray(), dense)
    assert data.groups_pred is not None and data.tasks_pred is None


def test_chunked_reading_equals_one_shot(tmp_path, monkeypatch):
    test = _frame(250, 5)
    test.to_csv(tmp_path / "test.csv.gz", index=False, compression="gzip")
    one_shot = load_audit(CATEGORICAL, data=tmp_path / "test.csv.gz", threshold=0.3)
    monkeypatch.setattr(_files, "_CHUNK_CELLS", 1)
    monkeypatch.setattr(_files, "_MIN_CHUNK_ROWS", 7)  # 36 chunks of 7 rows (the last 5)
    chunked = load_audit(CATEGORICAL, data=tmp_path / "test.csv.gz", threshold=0.3)
    for role in ("groups", "tasks", "groups_pred", "tasks_pred"):
        np.testing.assert_array_equal(getattr(one_shot, role), getattr(chunked, role))
    assert (
        one_shot.files[0].sha256
        == hashlib.sha256((tmp_path / "test.csv.gz").read_bytes()).hexdigest()
        == chunked.files[0].sha256
    )


def _write(tmp_path, name: str, text: str):
    path = tmp_path / name
    path.write_text(text)
    return path


@pytest.mark.parametrize(
    ("text", "layout", "template", "fields"),
    [
        (
            "g,t\nm,1\n",
            Layout(group="gender", task_cols=("t",)),
            ERR_MISSING_COLUMN,
            {"column": "gender", "option": "group="},
        ),
        (
            "g,t\nm,2\nw,1\n",
            Layout(group="g", task_cols=("t",)),
            ERR_NOT_BINARY,
            {"column": "t", "value": 2, "row": 1},
        ),
        (
            "g,t\nm,1\nw,yes\n",
            Layout(group="g", task_cols=("t",)),
            ERR_NOT_BINARY,
            {"column": "t", "value": "yes", "row": 2},
        ),
        (
            "g,t\nm,1\n,0\nw,\n",
            Layout(group="g", task_cols=("t",)),
            ERR_MISSING_VALUES,
            {"column": "g", "count": 1, "row": 2},
        ),
        ("g,t\n", Layout(group="g", task_cols=("t",)), ERR_NO_ROWS, {}),
        (
            "g;t\nm;1\n",
            Layout(group="g", task_cols=("t",)),
            ERR_DELIMITER,
            {"header": "g;t", "char": ";", "expected": ","},
        ),
    ],
)
def test_errors_name_file_column_and_problem(tmp_path, text, layout, template, fields):
    path = _write(tmp_path, "data.csv", text)
    with pytest.raises(InputError) as info:
        load_audit(layout, data=path)
    message = str(info.value)
    assert message.startswith(f"{path}")
    if template is ERR_MISSING_COLUMN:
        assert message == template.format(file=path, columns="'g', 't'", **fields)
    else:
        assert message == template.format(file=path, **fields)


def test_empty_missing_and_malformed_files(tmp_path):
    layout = Layout(group="g", task_cols=("t",))
    empty = _write(tmp_path, "empty.csv", "")
    with pytest.raises(InputError) as info:
        load_audit(layout, data=empty)
    assert str(info.value) == ERR_EMPTY_FILE.format(file=empty)
    with pytest.raises(InputError) as info:
        load_audit(layout, data=tmp_path / "nope.csv")
    assert str(info.value) == ERR_NOT_FOUND.format(file=tmp_path / "nope.csv")
    bad = tmp_path / "bad.parquet"
    bad.write_bytes(b"PAR1 this is not parquet at all PAR1")
    with pytest.raises(InputError) as info:
        load_audit(layout, data=bad)
    assert str(info.value).startswith(ERR_PARQUET.format(file=bad, detail="")[:-2])
    truncated = tmp_path / "truncated.parquet"
    pd.DataFrame({"g": ["m", "w"], "t": [1, 0]}).to_parquet(truncated)
    truncated.write_bytes(truncated.read_bytes()[:-30])
    with pytest.raises(InputError, match="not a readable Parquet file"):
        load_audit(layout, data=truncated)


def test_repeated_header_names_are_an_error_not_renamed_columns(tmp_path):
    # pandas would read the second 'obj_cup' as a task 'cup.1'
    layout = Layout(group="g", task_prefix="obj_", pred_prefix="p_")
    path = _write(tmp_path, "d.csv", "g,obj_cup,obj_cup,p_obj_cup\nm,1,0,1\nw,0,1,0\n")
    with pytest.raises(InputError) as info:
        load_audit(layout, data=path)
    assert str(info.value) == ERR_DUPLICATE_COLUMNS.format(file=path, columns="'obj_cup'")
    parquet = tmp_path / "d.parquet"
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(
        pa.table([pa.array(["m", "w"]), pa.array([1, 0]), pa.array([0, 1])], names=["g", "t", "t"]),
        parquet,
    )
    with pytest.raises(InputError) as info:
        load_audit(Layout(group="g", task_cols=("t",)), data=parquet)
    assert str(info.value) == ERR_DUPLICATE_COLUMNS.format(file=parquet, columns="'t'")


def test_prediction_scores_without_threshold_get_a_hint(tmp_path):
    path = _write(tmp_path, "d.csv", "g,t,p_t\nm,1,0.7\nw,0,1\n")
    with pytest.raises(InputError) as info:
        load_audit(Layout(group="g", task_cols=("t",), pred_prefix="p_"), data=path)
    assert (
        str(info.value)
        == ERR_NOT_BINARY.format(file=path, column="p_t", value=0.7, row=1) + HINT_SCORES
    )


def test_id_errors(tmp_path):
    layout = Layout(group="g", task_cols=("t",), id="id")
    data = _write(tmp_path, "d.csv", "id,g,t\na,m,1\nb,w,0\nc,w,1\n")
    dup = _write(tmp_path, "dup.csv", "id,g,t\na,m,1\na,w,0\n")
    with pytest.raises(InputError) as info:
        load_audit(layout, data=dup)
    assert str(info.value) == ERR_DUPLICATE_IDS.format(
        file=dup, column="id", count=1, examples="'a'"
    )
    short = _write(tmp_path, "p.csv", "id,t\na,1\nc,0\n")
    with pytest.raises(InputError) as info:
        load_audit(layout, data=data, pred=short)
    assert str(info.value) == ERR_ID_MISSING.format(
        column="id", count=1, file_a=data, file_b=short, examples="'b'"
    )
    extra = _write(tmp_path, "p2.csv", "id,t\na,1\nb,0\nc,0\nz,1\n")
    with pytest.raises(InputError) as info:
        load_audit(layout, data=data, pred=extra)
    assert str(info.value) == ERR_ID_MISSING.format(
        column="id", count=1, file_a=extra, file_b=data, examples="'z'"
    )


def test_label_and_column_set_errors(tmp_path):
    data = _write(tmp_path, "d.csv", "g,obj_a,obj_b,pred_g\nm,1,0,other\nw,0,1,m\n")
    layout = Layout(group="g", task_prefix="obj_", pred_prefix="pred_")
    with pytest.raises(InputError) as info:
        load_audit(layout, data=data)
    assert str(info.value) == ERR_UNKNOWN_PRED_LABELS.format(
        file=data, column="pred_g", examples="'other'", sources="the data file"
    )
    ok = _write(tmp_path, "ok.csv", "g,obj_a,obj_b,pred_g\nm,1,0,w\nw,0,1,m\n")
    train = _write(tmp_path, "train.csv", "g,obj_a,obj_c\nm,1,0\nw,0,1\n")
    with pytest.raises(InputError) as info:
        load_audit(layout, data=ok, train=train)
    assert str(info.value) == ERR_COLUMN_SETS.format(
        file=train, what="task", reference=ok, missing="'obj_b'", unexpected="'obj_c'"
    )
    partial = _write(tmp_path, "partial.csv", "g,a,b,pred_a\nm,1,0,1\nw,0,1,0\n")
    with pytest.raises(InputError) as info:
        load_audit(Layout(group="g", task_cols=("a", "b"), pred_prefix="pred_"), data=partial)
    assert str(info.value) == ERR_PARTIAL_PREDICTIONS.format(
        file=partial, role="tasks", column="pred_b", option="pred_prefix=", present="pred_a"
    )


def test_training_labels_are_canonical(tmp_path):
    """The library's rule: with train= its names are the label set; other labels are errors."""
    layout = Layout(group="g", task="t", pred_prefix="p_")
    train = _write(tmp_path, "train.csv", "g,t\nm,cook\nw,ski\nw,cook\n")
    extra_group = _write(tmp_path, "d1.csv", "g,t,p_g,p_t\nm,cook,m,cook\nx,ski,w,ski\n")
    with pytest.raises(InputError) as info:
        load_audit(layout, data=extra_group, train=train)
    assert str(info.value) == ERR_UNKNOWN_EVAL_LABELS.format(
        file=extra_group, column="g", examples="'x'", train=train
    )
    extra_task = _write(tmp_path, "d2.csv", "g,t,p_g,p_t\nm,cook,m,cook\nw,golf,w,ski\n")
    with pytest.raises(InputError) as info:
        load_audit(layout, data=extra_task, train=train)
    assert str(info.value) == ERR_UNKNOWN_EVAL_LABELS.format(
        file=extra_task, column="t", examples="'golf'", train=train
    )
    pred_task = _write(tmp_path, "d3.csv", "g,t,p_g,p_t\nm,cook,m,golf\nw,ski,w,ski\n")
    with pytest.raises(InputError) as info:
        load_audit(layout, data=pred_task, train=train)
    assert str(info.value) == ERR_UNKNOWN_PRED_LABELS.format(
        file=pred_task, column="p_t", examples="'golf'", sources=f"the training file {train}"
    )
    # a training label absent from the evaluation file is fine: the names are the training's
    subset = _write(tmp_path, "d4.csv", "g,t,p_g,p_t\nm,cook,m,cook\nm,cook,m,cook\n")
    both = _write(tmp_path, "d5.csv", "g,t,p_g,p_t\nm,cook,m,cook\nm,cook,w,cook\n")
    data = load_audit(layout, data=both, train=train)
    assert data.group_names == ("m", "w") and data.task_names == ("cook", "ski")
    # without train= the evaluation ground truth is canonical
    assert load_audit(layout, data=subset).task_names == ("cook",)


def test_scores_are_positive_strictly_above_the_threshold(tmp_path):
    data = _write(tmp_path, "s.csv", "g,a,b,p_a,p_b\nm,1,0,0.5,0.7\nw,0,1,0.50001,0.2\n")
    out = load_audit(
        Layout(group="g", task_cols=("a", "b"), pred_prefix="p_"),
        data=data,
        threshold=0.5,
        thresholds={"b": 0.7},
    )
    np.testing.assert_array_equal(out.tasks_pred, [[0, 0], [1, 0]])
    assert out.thresholds == {"a": 0.5, "b": 0.7}


def test_layout_needs_exactly_one_option_per_role():
    with pytest.raises(InputError, match="group: give exactly one"):
        Layout(task="t")
    with pytest.raises(InputError, match="tasks: give exactly one"):
        Layout(group="g", task="t", task_cols=("a",))
    with pytest.raises(InputError, match="tasks_long= needs id="):
        Layout(group="g", tasks_long="x.csv")


def test_read_blocks_reads_only_the_needed_columns(tmp_path):
    frame = pd.DataFrame({"keep": [0, 1, 1], "junk": ["x", "y", "z"]})
    frame.to_parquet(tmp_path / "f.parquet")
    arrays, info = read_blocks(
        tmp_path / "f.parquet",
        [ColumnBlock("tasks", "indicator", ("keep",), "task_cols=")],
        role="data",
    )
    assert arrays["tasks"].dtype == np.uint8 and arrays["tasks"].shape == (3, 1)
    assert info.n_rows == 3
