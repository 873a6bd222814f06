"""``biasamp measure`` and ``biasamp report`` run as console scripts on files the tests write.

The worked example (numbers by hand, Zhao et al.'s cooking example extended
with a second activity), 200 images in both splits:

* cooking: 66 women, 34 men; skiing: 20 women, 80 men (training and test truth).
* Predicted gender on test: every woman cooking and 18 of the 34 men cooking are
  predicted women (84 / 16); 10 of the 20 women skiing are predicted men (10 / 90).
  Activities are predicted perfectly.

BiasAmp_MALS = ((0.84 - 0.66) + (0.90 - 0.80)) / 2 = 0.14.
T->A: y = +1 for (woman, cooking) and (man, skiing), -1 otherwise (training
P(w, cook) = 0.33 > P(w) P(cook) = 0.43 * 0.5); deltas +0.18, -0.18, -0.10,
+0.10, so BiasAmp T->A = (0.18 + 0.18 + 0.10 + 0.10) / 4 = 0.14. A->T = 0.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import jsonschema
import numpy as np
import pandas as pd
import pytest

from biasamp.auditing._inputs import (
    ERR_DUPLICATE_IDS,
    ERR_ID_MISSING,
)
from biasamp.cli.arguments import ERR_DELIMITER_ARG, ERR_THRESHOLD
from biasamp.cli.flags import to_flags
from biasamp.cli.json_output import load_schema
from biasamp.cli.main import main
from biasamp.engines._file_reader import (
    ERR_DELIMITER,
    ERR_EMPTY_FILE,
    ERR_MISSING_COLUMN,
    ERR_NOT_BINARY,
)

from .conftest import XSS_GROUP, XSS_TASK, run_cli


def _flat(text: str) -> str:
    return " ".join(text.split())


def worked_example(pred_gender: bool = True) -> tuple[pd.DataFrame, pd.DataFrame]:
    gender = ["woman"] * 66 + ["man"] * 34 + ["woman"] * 20 + ["man"] * 80
    activity = ["cooking"] * 100 + ["skiing"] * 100
    train = pd.DataFrame({"gender": gender, "activity": activity})
    predicted = (
        ["woman"] * 66
        + ["woman"] * 18
        + ["man"] * 16
        + ["man"] * 10
        + ["woman"] * 10
        + ["man"] * 80
    )
    test = pd.DataFrame(
        {
            "id": [f"t{i}" for i in range(200)],
            "gender": gender,
            "activity": activity,
            "pred_activity": activity,
        }
    )
    if pred_gender:
        test["pred_gender"] = predicted
    return train, test


def test_measure_categorical_layout_worked_example_json_and_gate(tmp_path):
    train, test = worked_example()
    train.to_csv(tmp_path / "train.csv", index=False)
    test.to_csv(tmp_path / "test.csv", index=False)
    proc = run_cli(
        "measure",
        "test.csv",
        "--train",
        "train.csv",
        "--group",
        "gender",
        "--task",
        "activity",
        "--pred-prefix",
        "pred_",
        "--json",
        "out.json",
        "--fail-above",
        "mals=0.1",
        "--fail-above",
        "t2a=0.2",
        cwd=tmp_path,
    )
    assert proc.returncode == 1, proc.stderr  # mals 0.14 > 0.1
    assert "gate mals <= 0.1: FAILED" in proc.stdout
    assert "gate directional-t2a <= 0.2: passed" in proc.stdout
    doc = json.loads((tmp_path / "out.json").read_text())
    jsonschema.validate(doc, load_schema())
    values = {m["key"]: m["value"] for m in list(doc["results"].values())}
    assert values["mals"] == pytest.approx(0.14, abs=1e-12)
    assert values["directional-t2a"] == pytest.approx(0.14, abs=1e-12)
    assert values["directional-a2t"] == pytest.approx(0.0, abs=1e-12)
    mals_doc = next(m for m in list(doc["results"].values()) if m["key"] == "mals")
    assert mals_doc["extras"]["violations"] == 2 and mals_doc["n_pairs"] == 2
    assert sum(p["contribution"] for p in mals_doc["pairs"]) == pytest.approx(0.14)
    assert mals_doc["interval"] is None and mals_doc["n_boot"] == 0
    sha = hashlib.sha256((tmp_path / "test.csv").read_bytes()).hexdigest()
    assert doc["inputs"][0] == {
        "role": "data",
        "path": "test.csv",
        "format": "csv",
        "sha256": sha,
        "rows": 200,
    }
    assert [g["passed"] for g in doc["gates"]] == [False, True]
    assert doc["settings"]["group"] == "gender"
    # the gate passes under a looser bound (in process: same code path, no launch)
    assert (
        main(
            [
                "measure",
                str(tmp_path / "test.csv"),
                "--train",
                str(tmp_path / "train.csv"),
                "--group",
                "gender",
                "--task",
                "activity",
                "--pred-prefix",
                "pred_",
                "--fail-above",
                "mals=0.2",
                "--top",
                "0",
            ]
        )
        == 0
    )


def test_report_indicator_layout_json_is_valid_and_matches_the_library(indicator_report):
    from biasamp import directional

    doc = json.loads(indicator_report["json"].read_text())
    jsonschema.validate(doc, load_schema())
    assert doc["command"] == "report"
    assert [m["key"] for m in list(doc["results"].values())] == ["directional-a2t"]
    hint = "needs predicted groups: pred_prefix= or pred="  # the library names keywords
    assert doc["skipped"] == {"mals": hint, "directional-t2a": hint}
    assert doc["labels"]["groups"] == [XSS_GROUP, "other"]
    assert set(doc["thresholds"].values()) == {0.5}
    root = indicator_report["root"]
    truth = pd.read_parquet(root / "truth.parquet")
    train = pd.read_csv(root / "train.csv")
    scores = pd.read_parquet(root / "scores.parquet").set_index("image_id").loc[truth["image_id"]]
    tasks = ["cup", "ski", XSS_TASK, "$x^2$ \\alpha"]
    want = directional(
        direction="A->T",
        groups=truth[[XSS_GROUP, "other"]],
        tasks=truth[tasks],
        tasks_pred=(scores[tasks] > 0.5).astype(int).reset_index(drop=True),
        groups_train=train[[XSS_GROUP, "other"]],
        tasks_train=train[tasks],
    )
    assert list(doc["results"].values())[0]["value"] == pytest.approx(want.value, abs=1e-15)
    assert XSS_GROUP in indicator_report["stdout"]  # printed as text, not markup


def test_report_escapes_untrusted_names_and_is_self_contained(indicator_report):
    page = indicator_report["html"].read_text()
    # scripts: the report's table script and its data blocks only (tests/report/test_html.py)
    assert set(re.findall(r"<script[^>]*>", page.lower())) <= {
        '<script type="application/json" class="table-data">',
        '<script id="table-script">',
    }
    inert = ("onerror=alert(2)&gt;", "onerror=alert(2)\\u003e")  # HTML text, JSON data
    assert "onerror=alert" not in page.replace(inert[0], "").replace(inert[1], "")
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "&quot;&gt;&lt;img src=x onerror=alert(2)&gt;" in page
    assert "audit &lt;b&gt;bold&lt;/b&gt;" in page
    for needle in ("http://", "https://", "//cdn", "<link", "@import", "url("):
        assert needle not in page.replace("http://www.w3.org", "")
    assert page.count('<img class="figure"') >= 3
    assert "Content-Security-Policy" in page


def _error_case(tmp_path: Path, name: str) -> tuple[list[str], str]:
    """Write the files of an error case; return the arguments and the expected message."""
    good = "id,g,t\na,m,1\nb,w,0\n"
    data = tmp_path / "data.csv"
    data.write_text(good)
    base = ["measure", "data.csv", "--group", "g", "--task-cols", "t"]
    if name == "missing column":
        return [
            "measure",
            "data.csv",
            "--group",
            "gender",
            "--task-cols",
            "t",
            "--pred-prefix",
            "p_",
        ], to_flags(ERR_MISSING_COLUMN).format(
            file="data.csv", column="gender", option="--group", columns="'id', 'g', 't'"
        )
    if name == "non-binary value":
        data.write_text("id,g,t,p_t\na,m,1,1\nb,w,0,3\n")
        return [*base, "--pred-prefix", "p_"], to_flags(ERR_NOT_BINARY).format(
            file="data.csv", column="p_t", value=3, row=2
        )
    if name == "id missing":
        (tmp_path / "pred.csv").write_text("id,t\na,1\n")
        return [*base, "--pred", "pred.csv", "--id", "id"], to_flags(ERR_ID_MISSING).format(
            column="id", count=1, file_a="data.csv", file_b="pred.csv", examples="'b'"
        )
    if name == "duplicate ids":
        (tmp_path / "pred.csv").write_text("id,t\na,1\nb,0\nb,1\n")
        return [*base, "--pred", "pred.csv", "--id", "id"], to_flags(ERR_DUPLICATE_IDS).format(
            file="pred.csv", column="id", count=1, examples="'b'"
        )
    if name == "empty file":
        data.write_text("")
        return [*base, "--pred-prefix", "p_"], to_flags(ERR_EMPTY_FILE).format(file="data.csv")
    if name == "wrong delimiter":
        data.write_text("g;t;p_t\nm;1;1\n")
        return [*base, "--pred-prefix", "p_"], to_flags(ERR_DELIMITER).format(
            file="data.csv", header="g;t;p_t", char=";", expected=","
        )
    if name == "malformed parquet":
        (tmp_path / "data.parquet").write_bytes(b"PAR1garbage")
        return [
            "measure",
            "data.parquet",
            "--group",
            "g",
            "--task-cols",
            "t",
            "--pred-prefix",
            "p_",
        ], "data.parquet: not a readable Parquet file ("
    raise AssertionError(name)


@pytest.mark.parametrize(
    "name",
    [
        "missing column",
        "non-binary value",
        "id missing",
        "duplicate ids",
        "empty file",
        "wrong delimiter",
        "malformed parquet",
    ],
)
def test_input_errors_exit_2_naming_file_column_and_problem(tmp_path, name):
    args, message = _error_case(tmp_path, name)
    proc = run_cli(*args, cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert message in _flat(proc.stderr), proc.stderr


def test_usage_errors_exit_2(tmp_path, capsys):
    proc = run_cli("measure", "data.csv", "--task-cols", "t", cwd=tmp_path)
    assert proc.returncode == 2
    assert "one of the arguments --group --group-cols is required" in proc.stderr
    with pytest.raises(SystemExit) as info:
        main(["measure", "d.csv", "--group", "g", "--task", "t", "--fail-above", "mals"])
    assert info.value.code == 2
    assert "expected METRIC=VALUE" in capsys.readouterr().err
    with pytest.raises(SystemExit) as info:
        main(["measure", "d.csv", "--group", "g", "--task", "t", "--metric", "nope"])
    assert info.value.code == 2 and "unknown metric 'nope'" in capsys.readouterr().err


def test_gate_on_a_metric_not_computed_and_missing_inputs_are_usage_errors(tmp_path, capsys):
    train, test = worked_example(pred_gender=False)
    test.to_csv(tmp_path / "test.csv", index=False)
    args = [
        "measure",
        str(tmp_path / "test.csv"),
        "--group",
        "gender",
        "--task",
        "activity",
        "--pred-prefix",
        "pred_",
    ]
    assert main([*args, "--fail-above", "mals=0.1"]) == 2
    assert "--fail-above mals: the metric is not computed" in _flat(capsys.readouterr().err)
    assert main([*args, "--metric", "t2a"]) == 2
    assert "--metric directional-t2a: needs groups_pred" in _flat(capsys.readouterr().err)
    assert main([*args, "--metric", "a2t", "--top", "3"]) == 0
    out = capsys.readouterr().out
    assert "directional-a2t" in out and "warning" not in out


def test_long_layout_and_cell_warnings_in_process(tmp_path, capsys):
    train, test = worked_example()
    test = test.assign(activity=np.where(np.arange(200) == 0, "juggling", test["activity"]))
    test[["id", "gender", "pred_gender"]].to_csv(tmp_path / "images.csv", index=False)
    test[["id", "activity"]].rename(columns={"activity": "label"}).to_csv(
        tmp_path / "labels.csv", index=False
    )
    code = main(
        [
            "measure",
            str(tmp_path / "images.csv"),
            "--id",
            "id",
            "--group",
            "gender",
            "--tasks-long",
            str(tmp_path / "labels.csv"),
            "--pred-prefix",
            "pred_",
            "--json",
            str(tmp_path / "o.json"),
        ]
    )
    assert code == 0
    out = _flat(capsys.readouterr().out)
    assert "evaluation split: 1 of 6 group x task cells are empty" in out
    assert "tiny (< 5 instances)" in out
    doc = json.loads((tmp_path / "o.json").read_text())
    jsonschema.validate(doc, load_schema())
    assert doc["labels"]["tasks"] == ["cooking", "juggling", "skiing"]
    assert [m["key"] for m in list(doc["results"].values())] == ["directional-t2a"]


def test_help_of_each_command_has_the_contract_and_examples(capsys):
    for command in ("measure", "report"):
        with pytest.raises(SystemExit) as info:
            main([command, "--help"])
        assert info.value.code == 0
        text = capsys.readouterr().out
        for needle in (
            "Input contract:",
            "--group-cols",
            "--task-prefix",
            "--tasks-long",
            "--pred-prefix",
            "--threshold",
            "--fail-above",
            "Examples:",
            f"biasamp {command} ",
            "Exit codes",
        ):
            assert needle in text, (command, needle)
    with pytest.raises(SystemExit):
        main(["--help"])
    assert "biasamp report" in capsys.readouterr().out


def test_bootstrap_interval_reaches_the_json(tmp_path, capsys):
    train, test = worked_example()
    train.to_csv(tmp_path / "train.csv", index=False)
    test.to_csv(tmp_path / "test.csv", index=False)
    args = [
        "measure",
        str(tmp_path / "test.csv"),
        "--train",
        str(tmp_path / "train.csv"),
        "--group",
        "gender",
        "--task",
        "activity",
        "--pred-prefix",
        "pred_",
        "--metric",
        "mals",
        "--metric",
        "t2a",
        "--n-boot",
        "200",
        "--seed",
        "3",
        "--json",
        str(tmp_path / "b.json"),
    ]
    assert main(args) == 0
    doc = json.loads((tmp_path / "b.json").read_text())
    jsonschema.validate(doc, load_schema())
    for metric in list(doc["results"].values()):
        assert metric["n_boot"] == 200 and metric["random_state"] == 3
        low, high = metric["interval"]["low"], metric["interval"]["high"]
        assert low <= metric["value"] <= high and metric["interval"]["level"] == 0.95
    assert "(95%)" in capsys.readouterr().out
    assert main(args) == 0  # same seed, same interval
    again = json.loads((tmp_path / "b.json").read_text())
    assert list(again["results"].values()) == list(doc["results"].values())


def test_chunk_size_gives_the_same_numbers_and_rejects_non_positive(tmp_path, capsys):
    train, test = worked_example()
    train.to_csv(tmp_path / "train.csv", index=False)
    test.to_parquet(tmp_path / "test.parquet", index=False)
    base = [
        "measure",
        str(tmp_path / "test.parquet"),
        "--train",
        str(tmp_path / "train.csv"),
        "--group",
        "gender",
        "--task",
        "activity",
        "--pred-prefix",
        "pred_",
    ]
    values = []
    for extra in ([], ["--chunk-size", "7"], ["--chunk-size", "1000000"]):
        out = tmp_path / f"out{len(values)}.json"
        assert main([*base, *extra, "--json", str(out)]) == 0
        doc = json.loads(out.read_text())
        values.append({m["key"]: m["value"] for m in list(doc["results"].values())})
    assert values[0] == values[1] == values[2]
    assert values[1]["mals"] == pytest.approx(0.14, abs=1e-12)
    capsys.readouterr()
    assert main([*base, "--chunk-size", "0"]) == 2
    assert "--chunk-size: expected a positive number of rows, got 0" in capsys.readouterr().err


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "half"])
def test_a_threshold_that_is_not_a_finite_number_is_a_usage_error(value, tmp_path, capsys):
    # score > nan is never true: every prediction would silently be 0
    path = tmp_path / "d.csv"
    path.write_text("g,t,p_t\nm,1,0.7\nw,0,0.2\n", encoding="utf-8")
    with pytest.raises(SystemExit) as info:
        main(
            [
                "measure",
                str(path),
                "--group",
                "g",
                "--task-cols",
                "t",
                "--pred-prefix",
                "p_",
                f"--threshold={value}",
            ]
        )
    assert info.value.code == 2
    assert to_flags(ERR_THRESHOLD).format(got=value) in capsys.readouterr().err


def test_a_gate_fails_on_an_undefined_value():
    from biasamp.cli.arguments import Gate

    assert Gate("mals", 0.1, float("nan")).failed
    assert Gate("mals", 0.1, 0.2).failed and not Gate("mals", 0.1, 0.1).failed
    assert not Gate("mals", 0.1, None).failed


def test_delimiter_accepts_a_typed_backslash_t_and_rejects_longer_ones(tmp_path, capsys):
    # the delimiter hint says --delimiter '\t': a shell passes two characters, which pandas
    # would take as a regular expression (slow engine, a warning per read)
    path = tmp_path / "d.csv"
    path.write_text("g\tt\tp_t\nm\t1\t1\nw\t0\t1\nm\t0\t0\n", encoding="utf-8")
    base = ["measure", str(path), "--group", "g", "--task-cols", "t", "--pred-prefix", "p_"]
    for typed in ("\\t", "tab", "\t"):
        assert main([*base, "--delimiter", typed]) == 0
    capsys.readouterr()
    with pytest.raises(SystemExit) as info:
        main([*base, "--delimiter", ";;"])
    assert info.value.code == 2
    assert to_flags(ERR_DELIMITER_ARG).format(got=";;") in capsys.readouterr().err
