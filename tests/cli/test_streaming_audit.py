"""The streaming path of ``biasamp measure`` / ``report`` (``biasamp.auditing._run``).

Every streamed audit is compared with the in-memory audit of the same files
(``--stream off``): the JSON documents must be equal, interval included
(Poisson replicates by global row index), apart from ``settings.streamed``.
"""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import numpy as np
import pandas as pd
import pytest

from biasamp.auditing._inputs import (
    ERR_NO_PREDICTIONS_FOUND,
    ERR_NO_PREDICTIONS_LONG,
    ERR_UNKNOWN_EVAL_LABELS,
    ERR_UNKNOWN_PRED_LABELS,
)
from biasamp.auditing._run import ERR_ENGINE_NEEDS_STREAM, ERR_STREAM_NOT_APPLICABLE
from biasamp.cli.flags import to_flags
from biasamp.cli.json_output import load_schema
from biasamp.cli.main import main
from biasamp.engines._file_reader import (
    ERR_MISSING_COLUMN,
    ERR_MISSING_VALUES,
    ERR_NOT_BINARY,
)
from biasamp.inputs._label_matrix import WARN_SINGLE_GROUP

from .test_measure_report import worked_example


def _flat(text: str) -> str:
    return " ".join(text.split())


def _categorical(n: int, seed: int) -> pd.DataFrame:
    """Gender x activity rows with correlated, noisy predictions."""
    rng = np.random.default_rng(seed)
    gender = rng.choice(["man", "woman", "other"], size=n, p=[0.5, 0.4, 0.1])
    p_cook = np.where(gender == "woman", 0.6, 0.3)
    activity = np.where(
        rng.random(n) < p_cook, "cooking", rng.choice(["skiing", "reading"], size=n)
    )
    flip_g = rng.random(n) < 0.2
    flip_t = rng.random(n) < 0.25
    return pd.DataFrame(
        {
            "gender": gender,
            "activity": activity,
            "pred_gender": np.where(flip_g, rng.choice(["man", "woman", "other"], size=n), gender),
            "pred_activity": np.where(
                flip_t, rng.choice(["cooking", "skiing", "reading"], size=n), activity
            ),
        }
    )


def _indicators(n: int, seed: int, *, preds: bool = True) -> pd.DataFrame:
    """Indicator groups (man, woman) and four multi-label task columns with predictions."""
    rng = np.random.default_rng(seed)
    woman = rng.random(n) < 0.45
    frame = pd.DataFrame({"man": (~woman).astype(np.int64), "woman": woman.astype(np.int64)})
    for i, p in enumerate((0.2, 0.5, 0.7, 0.4)):
        present = rng.random(n) < np.where(woman, p, 1 - p)
        frame[f"obj_{i}"] = present.astype(np.int64)
        if preds:
            frame[f"pred_obj_{i}"] = (present ^ (rng.random(n) < 0.15)).astype(np.int64)
    if preds:
        frame["pred_man"] = (frame["man"].to_numpy() ^ (rng.random(n) < 0.1)).astype(np.int64)
        frame["pred_woman"] = 1 - frame["pred_man"]
    return frame


def _write(frame: pd.DataFrame, path: Path) -> Path:
    if path.suffix == ".parquet":
        frame.to_parquet(path, index=False)
    else:
        frame.to_csv(path, index=False)
    return path


def _doc(args: list[str], out: Path) -> dict:
    code = main([*args, "--json", str(out), "--top", "0"])
    assert code == 0
    doc = json.loads(out.read_text())
    jsonschema.validate(doc, load_schema())
    return doc


def _compare(args: list[str], tmp_path: Path, *extra: str) -> dict:
    """The streamed and in-memory documents, checked equal; returns the streamed one."""
    streamed = _doc([*args, *extra, "--stream", "on"], tmp_path / "streamed.json")
    memory = _doc([*args, "--stream", "off"], tmp_path / "memory.json")
    assert streamed["settings"].pop("streamed") is True
    assert memory["settings"].pop("streamed") is False
    assert streamed["settings"].pop("engine") in ("numpy", "duckdb")
    assert memory["settings"].pop("engine") == "in-memory"
    assert streamed == memory
    return streamed


LAYOUTS = {
    "categorical": (_categorical, ["--group", "gender", "--task", "activity"]),
    "indicator": (_indicators, ["--group-cols", "man,woman", "--task-prefix", "obj_"]),
}


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_streamed_audit_equals_the_in_memory_audit(tmp_path, suffix, layout):
    make, columns = LAYOUTS[layout]
    data = _write(make(700, 1), tmp_path / f"test{suffix}")
    train = _write(
        make(500, 2)[[c for c in make(1, 2).columns if not c.startswith("pred_")]],
        tmp_path / f"train{suffix}",
    )
    args = [
        "measure",
        str(data),
        "--train",
        str(train),
        *columns,
        "--pred-prefix",
        "pred_",
        "--chunk-size",
        "64",
    ]
    doc = _compare(args, tmp_path)
    assert [m["key"] for m in list(doc["results"].values())] == [
        "mals",
        "directional-a2t",
        "directional-t2a",
    ]
    assert [f["role"] for f in doc["inputs"]] == ["data", "train"]
    assert [f["rows"] for f in doc["inputs"]] == [700, 500]
    # without a training file the evaluation ground truth fixes names and signs
    doc = _compare(
        ["measure", str(data), *columns, "--pred-prefix", "pred_", "--chunk-size", "100"], tmp_path
    )
    assert [m["key"] for m in list(doc["results"].values())] == [
        "directional-a2t",
        "directional-t2a",
    ]
    assert doc["skipped"] == {"mals": "needs training ground truth: train="}  # keywords


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_streamed_bootstrap_interval_equals_the_in_memory_one(tmp_path, suffix):
    # more than 4096 rows: the Poisson weights span two random blocks and many chunks
    data = _write(_indicators(5000, 3), tmp_path / f"test{suffix}")
    train = _write(_indicators(800, 4, preds=False), tmp_path / f"train{suffix}")
    args = [
        "measure",
        str(data),
        "--train",
        str(train),
        "--group-cols",
        "man,woman",
        "--task-prefix",
        "obj_",
        "--pred-prefix",
        "pred_",
        "--n-boot",
        "25",
        "--seed",
        "7",
        "--ci",
        "0.9",
    ]
    doc = _compare(args, tmp_path, "--chunk-size", "999")
    for metric in list(doc["results"].values()):
        assert metric["n_boot"] == 25 and metric["interval"]["level"] == 0.9
        assert metric["interval"]["low"] <= metric["value"] <= metric["interval"]["high"]
        assert all("ci_low" in pair for pair in metric["pairs"])


def test_streamed_bootstrap_matches_the_library(tmp_path):
    from biasamp import mals

    train_frame, test_frame = worked_example()
    data = _write(test_frame, tmp_path / "test.csv")
    train = _write(train_frame, tmp_path / "train.csv")
    doc = _doc(
        [
            "measure",
            str(data),
            "--train",
            str(train),
            "--group",
            "gender",
            "--task",
            "activity",
            "--pred-prefix",
            "pred_",
            "--metric",
            "mals",
            "--n-boot",
            "50",
            "--seed",
            "11",
            "--chunk-size",
            "30",
        ],
        tmp_path / "o.json",
    )
    assert doc["settings"]["streamed"] is True
    want = mals(
        groups_train=train_frame["gender"],
        tasks_train=train_frame["activity"],
        groups_pred=test_frame["pred_gender"],
        tasks_pred=test_frame["pred_activity"],
        n_boot=50,
        random_state=11,
    )
    got = list(doc["results"].values())[0]
    assert got["value"] == pytest.approx(0.14, abs=1e-12)
    assert (got["interval"]["low"], got["interval"]["high"]) == want.ci
    assert got["interval"]["se"] == want.se


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_duckdb_engine_equals_numpy(tmp_path, suffix):
    pytest.importorskip("duckdb")
    for layout in ("categorical", "indicator"):
        make, columns = LAYOUTS[layout]
        data = _write(make(400, 5), tmp_path / f"test{suffix}")
        train = _write(
            make(300, 6)[[c for c in make(1, 6).columns if not c.startswith("pred_")]],
            tmp_path / f"train{suffix}",
        )
        base = ["measure", str(data), "--train", str(train), *columns, "--pred-prefix", "pred_"]
        numpy_doc = _doc([*base, "--engine", "numpy"], tmp_path / "numpy.json")
        duck_doc = _doc([*base, "--engine", "duckdb"], tmp_path / "duck.json")
        # the default engine, auto, counts a small file on numpy (measured faster)
        assert _doc(base, tmp_path / "auto.json")["settings"]["engine"] == "numpy"
        assert duck_doc["settings"].pop("engine") == "duckdb"
        assert numpy_doc["settings"].pop("engine") == "numpy"
        assert duck_doc == numpy_doc
    # with --n-boot the replicate pass reads with numpy: same interval
    base = [*base, "--n-boot", "20", "--seed", "1"]
    duck_doc = _doc([*base, "--engine", "duckdb"], tmp_path / "duck.json")
    numpy_doc = _doc(base, tmp_path / "numpy.json")
    assert list(duck_doc["results"].values()) == list(numpy_doc["results"].values())


def _error_files(tmp_path: Path, name: str, suffix: str) -> tuple[list[str], str]:
    """Files with one bad value far from the first chunk; the arguments and the message."""
    frame = _categorical(300, 8)
    train = frame[["gender", "activity"]].copy()
    columns = ["--group", "gender", "--task", "activity"]
    if name == "non-binary value":
        frame = _indicators(300, 8)
        frame.loc[250, "pred_obj_2"] = 3
        columns = ["--group-cols", "man,woman", "--task-prefix", "obj_"]
        train = frame[["man", "woman", "obj_0", "obj_1", "obj_2", "obj_3"]]
        message = to_flags(ERR_NOT_BINARY).format(
            file="test" + suffix, column="pred_obj_2", value=3, row=251
        )
    elif name == "missing value":
        frame = frame.astype(object)
        frame.loc[200, "pred_activity"] = None
        message = to_flags(ERR_MISSING_VALUES).format(
            file="test" + suffix, column="pred_activity", count=1, row=201
        )
    elif name == "label not in training":
        frame.loc[123, "activity"] = "juggling"
        message = to_flags(ERR_UNKNOWN_EVAL_LABELS).format(
            file="test" + suffix, column="activity", examples="'juggling'", train="train" + suffix
        )
    elif name == "predicted label unknown":
        frame.loc[123, "pred_gender"] = "robot"
        message = to_flags(ERR_UNKNOWN_PRED_LABELS).format(
            file="test" + suffix,
            column="pred_gender",
            examples="'robot'",
            sources="the training file train" + suffix,
        )
    elif name == "missing column":
        frame = frame.drop(columns="activity")
        message = to_flags(ERR_MISSING_COLUMN).format(
            file="test" + suffix,
            column="activity",
            option="--task",
            columns="'gender', 'pred_gender', 'pred_activity'",
        )
    else:
        raise AssertionError(name)
    _write(frame, tmp_path / f"test{suffix}")
    _write(train, tmp_path / f"train{suffix}")
    return [
        "measure",
        "test" + suffix,
        "--train",
        "train" + suffix,
        *columns,
        "--pred-prefix",
        "pred_",
        "--chunk-size",
        "40",
    ], message


@pytest.mark.parametrize("engine", ["numpy", "duckdb"])
@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
@pytest.mark.parametrize(
    "name",
    [
        "non-binary value",
        "missing value",
        "label not in training",
        "predicted label unknown",
        "missing column",
    ],
)
def test_streamed_errors_exit_2_naming_file_and_column(
    tmp_path, monkeypatch, capsys, name, suffix, engine
):
    if engine == "duckdb":
        pytest.importorskip("duckdb")
    monkeypatch.chdir(tmp_path)
    args, message = _error_files(tmp_path, name, suffix)
    for stream in ("on", "off"):  # the same message on both paths
        assert (
            main(
                [*args, "--stream", stream, "--engine", engine]
                if stream == "on"
                else [*args, "--stream", stream]
            )
            == 2
        )
        captured = capsys.readouterr()
        assert captured.out == ""
        assert message in _flat(captured.err), captured.err


def test_text_in_an_indicator_column_after_the_first_csv_block(tmp_path, monkeypatch, capsys):
    # pyarrow infers int64 from the first block; the bad value sits in a later block
    monkeypatch.chdir(tmp_path)
    frame = _indicators(60_000, 9).astype(object)
    frame.loc[59_000, "obj_1"] = "yes"
    frame.to_csv("test.csv", index=False)
    assert (
        main(
            [
                "measure",
                "test.csv",
                "--group-cols",
                "man,woman",
                "--task-prefix",
                "obj_",
                "--pred-prefix",
                "pred_",
                "--stream",
                "on",
            ]
        )
        == 2
    )
    message = to_flags(ERR_NOT_BINARY).format(
        file="test.csv", column="obj_1", value="yes", row=59_001
    )
    assert message in _flat(capsys.readouterr().err)


def test_stream_on_and_duckdb_say_why_streaming_does_not_apply(tmp_path, capsys):
    data = _write(_categorical(50, 1), tmp_path / "test.csv")
    base = [
        "measure",
        str(data),
        "--group",
        "gender",
        "--task",
        "activity",
        "--pred-prefix",
        "pred_",
    ]
    cases = [
        (
            ["--metric", "dpa-a2t", "--stream", "on"],
            to_flags(ERR_STREAM_NOT_APPLICABLE).format(
                reason="metric(s) dpa-a2t need the rows (streamed: "
                "mals, directional-a2t, directional-t2a, multi-mals, multi-a2t, multi-t2a)"
            ),
        ),
        (  # --id without --pred streams; repeated ids: the in-memory reader names them
            ["--id", "gender", "--engine", "duckdb"],
            f"{data}, column 'gender': 3 duplicate id(s)",
        ),
        (
            ["--stream", "off", "--engine", "duckdb"],
            to_flags(ERR_ENGINE_NEEDS_STREAM).format(reason="--stream off"),
        ),
    ]
    for extra, message in cases:
        assert main([*base, *extra]) == 2
        assert message in _flat(capsys.readouterr().err), extra
    _categorical(50, 1).to_csv(tmp_path / "semi.csv", sep=";", index=False)
    semi = ["measure", str(tmp_path / "semi.csv"), *base[2:], "--delimiter", ";"]
    # any delimiter streams, on the numpy engine: DuckDB reads ','-delimited files only
    assert main([*semi, "--stream", "on", "--engine", "duckdb"]) == 2
    assert "semi.csv: the DuckDB engine reads ','-delimited CSV only" in _flat(
        capsys.readouterr().err
    )
    settings = _doc([*semi, "--stream", "on"], tmp_path / "semi.json")["settings"]
    assert settings["streamed"] is True and settings["engine"] == "numpy"
    # a CSV label column pyarrow infers as numbers streams on numpy, read as text ('01'
    # stays '01', as in memory); DuckDB's reader would read numbers
    codes = {"man": "01", "woman": "1", "other": "2"}
    frame = _categorical(80, 2).assign(
        gender=lambda f: f["gender"].map(codes),
        pred_gender=lambda f: f["pred_gender"].map(codes),
    )
    _write(frame, tmp_path / "numeric.csv")
    args = [
        "measure",
        str(tmp_path / "numeric.csv"),
        "--group",
        "gender",
        "--task",
        "activity",
        "--pred-prefix",
        "pred_",
    ]
    streamed = _compare(args, tmp_path)
    groups = {p["group"] for m in list(streamed["results"].values()) for p in m.get("pairs", [])}
    assert groups == {"01", "1", "2"}
    assert main([*args, "--stream", "on", "--engine", "duckdb"]) == 2
    assert "column 'gender' is read as int64 by inference" in _flat(capsys.readouterr().err)


def test_streamed_report_writes_html_json_and_gates(tmp_path):
    pytest.importorskip("matplotlib")
    train_frame, test_frame = worked_example()
    data = _write(test_frame.drop(columns="id"), tmp_path / "test.parquet")
    train = _write(train_frame, tmp_path / "train.parquet")
    args = [
        "report",
        str(data),
        "--train",
        str(train),
        "--group",
        "gender",
        "--task",
        "activity",
        "--pred-prefix",
        "pred_",
        "--html",
        str(tmp_path / "r.html"),
        "--json",
        str(tmp_path / "r.json"),
        "--fail-above",
        "mals=0.1",
        "--n-boot",
        "20",
    ]
    assert main(args) == 1  # mals 0.14 > 0.1
    doc = json.loads((tmp_path / "r.json").read_text())
    jsonschema.validate(doc, load_schema())
    assert doc["settings"]["streamed"] is True and doc["command"] == "report"
    assert doc["gates"] == [
        {"metric": "mals", "bound": 0.1, "value": pytest.approx(0.14), "passed": False}
    ]
    page = (tmp_path / "r.html").read_text()
    import hashlib

    assert hashlib.sha256(data.read_bytes()).hexdigest() in page
    assert page.count('<img class="figure"') >= 3
    assert main([*args, "--stream", "off"]) == 1
    memory = json.loads((tmp_path / "r.json").read_text())
    memory["settings"]["streamed"] = True
    memory["settings"]["engine"] = doc["settings"]["engine"]
    assert memory == doc


def test_single_group_is_a_warning_in_both_paths(tmp_path):
    frame = pd.DataFrame(
        {
            "gender": ["m"] * 6,
            "activity": ["cook", "ski"] * 3,
            "pred_gender": ["m"] * 6,
            "pred_activity": ["cook"] * 6,
        }
    )
    data = _write(frame, tmp_path / "one.csv")
    doc = _compare(
        ["measure", str(data), "--group", "gender", "--task", "activity", "--pred-prefix", "pred_"],
        tmp_path,
    )
    assert WARN_SINGLE_GROUP.format(arg="groups", name="m") in doc["warnings"]
    assert doc["skipped"] == {"mals": "needs training ground truth: train="}  # keywords


@pytest.mark.parametrize("stream", ["on", "off"])
def test_a_predictions_file_without_prediction_columns_says_what_was_expected(
    tmp_path, capsys, stream
):
    data, pred, long = tmp_path / "d.csv", tmp_path / "p.csv", tmp_path / "long.csv"
    pd.DataFrame({"id": ["a", "b", "c"], "g": ["m", "w", "m"], "ski": [1, 0, 1]}).to_csv(
        data, index=False
    )
    pd.DataFrame({"id": ["c", "a", "b"], "score": [0.1, 0.2, 0.3]}).to_csv(pred, index=False)
    pd.DataFrame({"id": ["a", "c"], "label": ["ski", "cook"]}).to_csv(long, index=False)
    common = ["measure", str(data), "--group", "g", "--pred", str(pred), "--id", "id"]
    assert main([*common, "--task-cols", "ski", "--stream", stream]) == 2
    expected = to_flags(ERR_NO_PREDICTIONS_FOUND).format(
        file=pred, group_col="'g'", task_col="'ski'"
    )
    assert expected in _flat(capsys.readouterr().err)
    # long task tables: the predicted tasks are a long table, never columns of --pred
    assert main([*common, "--tasks-long", str(long), "--stream", stream]) == 2
    expected = to_flags(ERR_NO_PREDICTIONS_LONG).format(file=pred, group_col="'g'")
    assert expected in _flat(capsys.readouterr().err)
