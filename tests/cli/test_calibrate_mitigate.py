"""``biasamp calibrate``, ``--thresholds`` / ``--calibrate-on``, the opt-in metrics and
``biasamp mitigate``, run in process through ``main`` (one launch is tested elsewhere).

Calibration by hand: validation scores of ``man`` are 0.9, 0.6, 0.5, 0.3, 0.1 and two
rows are men, so the two highest scores are predicted positive and the threshold is
halfway between 0.6 and 0.5: 0.55 (predicted positive when score > 0.55). ``cup``
scores 0.8, 0.7, 0.7, 0.2, 0.1 with three cups: the cut falls between 0.7 and 0.2,
threshold 0.45.
"""

from __future__ import annotations

import json
import re

import jsonschema
import numpy as np
import pandas as pd
import pytest

import biasamp
from biasamp import directional, multi_directional, multi_mals, rba
from biasamp.auditing._inputs import (
    ERR_DUPLICATE_IDS,
    ERR_UNKNOWN_EVAL_LABELS,
)
from biasamp.auditing._rba_files import ERR_MULTILABEL_TASKS, ERR_PARTIAL_ABSENT, ERR_SCORE_COLUMN
from biasamp.auditing._threshold_files import (
    ERR_NO_SCORES,
    ERR_THRESHOLDS_LABELS,
    read_thresholds,
)
from biasamp.cli.flags import to_flags
from biasamp.cli.json_output import load_schema
from biasamp.cli.main import main

VAL = pd.DataFrame(
    {
        "man": [1, 0, 1, 0, 0],
        "woman": [0, 1, 0, 1, 1],
        "cup": [1, 1, 0, 1, 0],
        "s_man": [0.9, 0.6, 0.5, 0.3, 0.1],
        "s_woman": [0.1, 0.4, 0.5, 0.7, 0.9],
        "s_cup": [0.8, 0.7, 0.7, 0.2, 0.1],
    }
)
LAYOUT = ["--group-cols", "man,woman", "--task-cols", "cup", "--pred-prefix", "s_"]


def test_calibrate_writes_json_and_csv_thresholds_by_hand(tmp_path, capsys):
    VAL.to_csv(tmp_path / "val.csv", index=False)
    assert (
        main(["calibrate", str(tmp_path / "val.csv"), *LAYOUT, "-o", str(tmp_path / "th.json")])
        == 0
    )
    out = capsys.readouterr().out
    assert "score > threshold" in out and "0.55" in out
    doc = json.loads((tmp_path / "th.json").read_text())
    assert doc["schema"] == "biasamp-thresholds" and doc["rule"] == "score > threshold"
    assert read_thresholds(tmp_path / "th.json") == pytest.approx(
        {"man": 0.55, "woman": 0.45, "cup": 0.45}
    )
    assert (
        main(["calibrate", str(tmp_path / "val.csv"), *LAYOUT, "-o", str(tmp_path / "th.csv")]) == 0
    )
    frame = pd.read_csv(tmp_path / "th.csv")
    assert list(frame.columns) == ["label", "threshold", "target_count", "predicted_count"]
    assert read_thresholds(tmp_path / "th.csv") == read_thresholds(tmp_path / "th.json")
    # no scores: categorical columns hold none
    cat = pd.DataFrame({"g": ["m", "w"], "t": ["a", "b"], "p_g": ["m", "w"], "p_t": ["a", "b"]})
    cat.to_csv(tmp_path / "cat.csv", index=False)
    assert (
        main(
            [
                "calibrate",
                str(tmp_path / "cat.csv"),
                "--group",
                "g",
                "--task",
                "t",
                "--pred-prefix",
                "p_",
            ]
        )
        == 2
    )
    assert " ".join(capsys.readouterr().err.split()) == "error: " + " ".join(
        to_flags(ERR_NO_SCORES).format(file=tmp_path / "cat.csv").split()
    )


def test_measure_uses_calibrated_thresholds_with_the_strict_rule(tmp_path, capsys):
    VAL.to_csv(tmp_path / "val.csv", index=False)
    test = VAL.copy()
    test["s_man"] = [0.55, 0.56, 0.2, 0.9, 0.1]  # 0.55 is not above 0.55: not a man
    test.to_csv(tmp_path / "test.csv", index=False)
    main(["calibrate", str(tmp_path / "val.csv"), *LAYOUT, "-o", str(tmp_path / "th.json")])
    docs = {}
    for how in (
        ["--thresholds", str(tmp_path / "th.json")],
        ["--calibrate-on", str(tmp_path / "val.csv")],
    ):
        out = tmp_path / f"{how[0][2:]}.json"
        assert (
            main(
                [
                    "measure",
                    str(tmp_path / "test.csv"),
                    *LAYOUT,
                    *how,
                    "--metric",
                    "t2a",
                    "--json",
                    str(out),
                    "--top",
                    "0",
                ]
            )
            == 0
        )
        docs[how[0]] = json.loads(out.read_text())
        jsonschema.validate(docs[how[0]], load_schema())
    assert docs["--thresholds"]["thresholds"] == docs["--calibrate-on"]["thresholds"]
    assert docs["--thresholds"]["thresholds"] == pytest.approx(
        {"man": 0.55, "woman": 0.45, "cup": 0.45}
    )
    groups_pred = np.column_stack([test["s_man"] > 0.55, test["s_woman"] > 0.45]).astype(int)
    want = directional(
        direction="T->A",
        groups=VAL[["man", "woman"]],
        tasks=VAL[["cup"]],
        groups_pred=groups_pred,
        group_names=["man", "woman"],
    )
    assert list(docs["--thresholds"]["results"].values())[0]["value"] == pytest.approx(
        want.value, abs=1e-15
    )
    capsys.readouterr()
    # a thresholds file naming a label that is not scored here
    (tmp_path / "bad.csv").write_text("label,threshold\nman,0.5\nsofa,0.3\n")
    assert (
        main(
            [
                "measure",
                str(tmp_path / "test.csv"),
                *LAYOUT,
                "--thresholds",
                str(tmp_path / "bad.csv"),
            ]
        )
        == 2
    )
    err = " ".join(capsys.readouterr().err.split())
    assert (
        to_flags(ERR_THRESHOLDS_LABELS).format(
            file=tmp_path / "bad.csv", examples="'sofa'", scored="'cup', 'man', 'woman'"
        )
        in err
    )
    (tmp_path / "nan.csv").write_text("label,threshold\nman,abc\n")
    assert (
        main(
            [
                "measure",
                str(tmp_path / "test.csv"),
                *LAYOUT,
                "--thresholds",
                str(tmp_path / "nan.csv"),
            ]
        )
        == 2
    )
    assert "threshold of 'man' is not a finite number" in capsys.readouterr().err
    assert (
        main(
            [
                "measure",
                str(tmp_path / "test.csv"),
                *LAYOUT,
                "--calibrate-pred",
                str(tmp_path / "val.csv"),
            ]
        )
        == 2
    )
    assert "--calibrate-pred needs --calibrate-on" in capsys.readouterr().err


def _multi_files(tmp_path):
    rng = np.random.default_rng(3)
    frames = []
    for n in (240, 200):
        man = rng.random(n) < 0.5
        frame = pd.DataFrame({"g": np.where(man, "man", "woman")})
        for task, p in (("cup", 0.3), ("ski", 0.7), ("car", 0.6)):
            present = rng.random(n) < np.where(man, p, 1 - p)
            frame[f"obj_{task}"] = present.astype(int)
            frame[f"pred_obj_{task}"] = (present ^ (rng.random(n) < 0.15)).astype(int)
        frame["pred_g"] = np.where(rng.random(n) < 0.9, frame["g"], np.where(man, "woman", "man"))
        frames.append(frame)
    frames[0].to_csv(tmp_path / "train.csv", index=False)
    frames[1].to_csv(tmp_path / "test.csv", index=False)
    return frames


def test_multi_attribute_and_predictability_metrics_match_the_library(tmp_path, capsys):
    train, test = _multi_files(tmp_path)
    args = [
        str(tmp_path / "test.csv"),
        "--train",
        str(tmp_path / "train.csv"),
        "--group",
        "g",
        "--task-prefix",
        "obj_",
        "--pred-prefix",
        "pred_",
    ]
    assert main(["measure", *args, "--json", str(tmp_path / "default.json")]) == 0
    default = json.loads((tmp_path / "default.json").read_text())
    assert [m["key"] for m in list(default["results"].values())] == [
        "mals",
        "directional-a2t",
        "directional-t2a",
    ]
    keys = ["multi-mals", "multi-a2t", "multi-t2a", "dpa-a2t", "leakage"]
    assert (
        main(
            [
                "measure",
                *args,
                *(a for k in keys for a in ("--metric", k)),
                "--n-iter",
                "2",
                "--json",
                str(tmp_path / "m.json"),
                "--fail-above",
                "multi-mals=10",
            ]
        )
        == 0
    )
    doc = json.loads((tmp_path / "m.json").read_text())
    jsonschema.validate(doc, load_schema())
    got = {m["key"]: m for m in list(doc["results"].values())}
    tasks = [c for c in test.columns if c.startswith("obj_")]
    names = {"task_names": [t[4:] for t in tasks], "group_names": ["man", "woman"]}
    common = {
        "groups_train": train["g"],
        "tasks_train": train[tasks].to_numpy(),
        "tasks": test[tasks].to_numpy(),
        **names,
    }
    want = multi_mals(
        groups_pred=test["pred_g"],
        tasks_pred=test[[f"pred_{t}" for t in tasks]].to_numpy(),
        groups=test["g"],
        **common,
    )
    assert got["multi-mals"]["value"] == pytest.approx(want.value, abs=1e-15)
    assert [r["value"] for r in got["multi-mals"]["by_size"]] == pytest.approx(
        want.by_size["value"].tolist()
    )
    assert sum(p["contribution"] for p in got["multi-mals"]["pairs"]) == pytest.approx(want.value)
    assert any(p["task"] == "cup + ski" for p in got["multi-mals"]["pairs"])
    want = multi_directional(
        direction="T->A", groups=test["g"], groups_pred=test["pred_g"], **common
    )
    assert got["multi-t2a"]["value"] == pytest.approx(want.value, abs=1e-15)
    assert got["dpa-a2t"]["pairs"] == [] and got["dpa-a2t"]["interval"]["level"] == 0.95
    assert {"psi_d", "psi_m", "attacker"} <= set(got["dpa-a2t"]["extras"])
    assert "lambda_m" in got["leakage"]["extras"] and got["leakage"]["extras"]["n_iter"] == 2
    assert "Amplification by combination size" in capsys.readouterr().out
    # categorical tasks are not multi-label
    train.assign(t="a").to_csv(tmp_path / "cat_train.csv", index=False)
    test.assign(t="a", pred_t="a").to_csv(tmp_path / "cat_test.csv", index=False)
    assert (
        main(
            [
                "measure",
                str(tmp_path / "cat_test.csv"),
                "--train",
                str(tmp_path / "cat_train.csv"),
                "--group",
                "g",
                "--task",
                "t",
                "--pred-prefix",
                "pred_",
                "--metric",
                "multi-mals",
            ]
        )
        == 2
    )
    assert "multi-label tasks: --task-cols" in capsys.readouterr().err


def test_report_draws_sizes_and_pair_intervals(tmp_path):
    _multi_files(tmp_path)
    html = tmp_path / "r.html"
    assert (
        main(
            [
                "report",
                str(tmp_path / "test.csv"),
                "--train",
                str(tmp_path / "train.csv"),
                "--group",
                "g",
                "--task-prefix",
                "obj_",
                "--pred-prefix",
                "pred_",
                "--metric",
                "mals",
                "--metric",
                "multi-mals",
                "--n-boot",
                "30",
                "--top",
                "3",
                "--html",
                str(html),
            ]
        )
        == 0
    )
    page = html.read_text()
    assert "Amplification by combination size" in page
    assert "Whiskers are bootstrap intervals of delta." in page
    assert '<button type="button" class="sort" disabled>ci_low</button>' in page


def _rba_single_files(tmp_path):
    """RBA's doctest: 6 of 10 cooks are women in training; the model says women for 9 of 10,
    five of them by a small margin; RBA with eta 0.1 flips three of them."""
    margins = [3, 3, 3, 3, 0.02, 0.04, 0.06, 0.08, 0.1, -3]
    pd.DataFrame({"gender": ["m"] * 4 + ["w"] * 6, "verb": ["cook"] * 10}).to_csv(
        tmp_path / "train.csv", index=False
    )
    pd.DataFrame({"id": [f"i{k}" for k in range(10)], "m|cook": 0.0, "w|cook": margins}).to_csv(
        tmp_path / "scores.csv", index=False
    )


def test_mitigate_single_structure_by_hand(tmp_path, capsys):
    _rba_single_files(tmp_path)
    assert (
        main(
            [
                "mitigate",
                str(tmp_path / "scores.csv"),
                "--structure",
                "single",
                "--train",
                str(tmp_path / "train.csv"),
                "--group",
                "gender",
                "--task",
                "verb",
                "--id",
                "id",
                "--eta",
                "0.1",
                "-o",
                str(tmp_path / "cal.csv"),
                "--output-before",
                str(tmp_path / "before.csv"),
            ]
        )
        == 0
    )
    out = " ".join(capsys.readouterr().out.split())
    assert "converged" in out and "before" in out and "after" in out
    cal = pd.read_csv(tmp_path / "cal.csv")
    before = pd.read_csv(tmp_path / "before.csv")
    assert list(cal.columns) == ["id", "pred_gender", "pred_verb"]
    assert (before["pred_gender"] == "w").sum() == 9 and (cal["pred_gender"] == "w").sum() == 6
    # the output is what measure reads: MALS after RBA is 0 (6 of 10 women, as in training)
    truth = pd.DataFrame({"id": cal["id"], "gender": ["m"] * 4 + ["w"] * 6, "verb": "cook"})
    truth.to_csv(tmp_path / "truth.csv", index=False)
    assert (
        main(
            [
                "measure",
                str(tmp_path / "truth.csv"),
                "--train",
                str(tmp_path / "train.csv"),
                "--group",
                "gender",
                "--task",
                "verb",
                "--pred",
                str(tmp_path / "cal.csv"),
                "--id",
                "id",
                "--pred-prefix",
                "pred_",
                "--metric",
                "mals",
                "--fail-above",
                "mals=0.0",
            ]
        )
        == 0
    )
    capsys.readouterr()
    # a missing score column names the file, the column and the expected layout
    pd.DataFrame({"id": ["a"], "m|cook": [0.0]}).to_csv(tmp_path / "short.csv", index=False)
    assert (
        main(
            [
                "mitigate",
                str(tmp_path / "short.csv"),
                "--structure",
                "single",
                "--train",
                str(tmp_path / "train.csv"),
                "--group",
                "gender",
                "--task",
                "verb",
                "-o",
                str(tmp_path / "x.csv"),
            ]
        )
        == 2
    )
    err = " ".join(capsys.readouterr().err.split())
    assert (
        to_flags(ERR_SCORE_COLUMN).format(
            file=tmp_path / "short.csv",
            column="w|cook",
            what="(group, task) score",
            structure="single",
            sep="|",
            per="(group, task) pair",
            columns="'id', 'm|cook'",
        )
        in err
    )
    assert not (tmp_path / "x.csv").exists()
    assert (
        main(
            [
                "mitigate",
                str(tmp_path / "scores.csv"),
                "--structure",
                "multilabel",
                "--train",
                str(tmp_path / "train.csv"),
                "--group",
                "gender",
                "--task",
                "verb",
                "-o",
                str(tmp_path / "x.csv"),
            ]
        )
        == 2
    )
    assert to_flags(ERR_MULTILABEL_TASKS) in " ".join(capsys.readouterr().err.split())
    # --truth with a label the training file lacks: the error names that file and column
    truth.assign(gender=["m"] * 4 + ["w"] * 5 + ["x"]).to_csv(tmp_path / "odd.csv", index=False)
    assert (
        main(
            [
                "mitigate",
                str(tmp_path / "scores.csv"),
                "--structure",
                "single",
                "--train",
                str(tmp_path / "train.csv"),
                "--group",
                "gender",
                "--task",
                "verb",
                "--id",
                "id",
                "--truth",
                str(tmp_path / "odd.csv"),
                "-o",
                str(tmp_path / "x.csv"),
            ]
        )
        == 2
    )
    assert to_flags(ERR_UNKNOWN_EVAL_LABELS).format(
        file=tmp_path / "odd.csv", column="gender", examples="'x'", train=tmp_path / "train.csv"
    ) in " ".join(capsys.readouterr().err.split())
    assert not (tmp_path / "x.csv").exists()
    # duplicate ids in the scores file are refused before they reach the output
    scores = pd.read_csv(tmp_path / "scores.csv")
    scores.assign(id=[scores["id"][0]] * len(scores)).to_csv(tmp_path / "dup.csv", index=False)
    assert (
        main(
            [
                "mitigate",
                str(tmp_path / "dup.csv"),
                "--structure",
                "single",
                "--train",
                str(tmp_path / "train.csv"),
                "--group",
                "gender",
                "--task",
                "verb",
                "--id",
                "id",
                "-o",
                str(tmp_path / "x.csv"),
            ]
        )
        == 2
    )
    assert to_flags(ERR_DUPLICATE_IDS).format(
        file=tmp_path / "dup.csv", column="id", count=1, examples=repr(str(scores["id"][0]))
    ) in " ".join(capsys.readouterr().err.split())
    assert not (tmp_path / "x.csv").exists()


def test_mitigate_multilabel_matches_the_library(tmp_path, capsys):
    rng = np.random.default_rng(5)
    n, groups, tasks = 80, ["man", "woman"], ["cup", "ski"]
    train = pd.DataFrame({"man": (rng.random(120) < 0.5).astype(int)})
    train["woman"] = 1 - train["man"]
    for t in tasks:
        train[f"obj_{t}"] = (rng.random(120) < np.where(train["man"], 0.3, 0.7)).astype(int)
    train.to_csv(tmp_path / "train.csv", index=False)
    group_scores = rng.normal(size=(n, 2))
    task_scores = rng.normal(size=(n, 2, 2, 2))
    cols = {g: group_scores[:, i] for i, g in enumerate(groups)}
    for i, g in enumerate(groups):
        for j, t in enumerate(tasks):
            cols[f"{g}|{t}"] = task_scores[:, i, j, 0]
            cols[f"{g}|{t}|absent"] = task_scores[:, i, j, 1]
    pd.DataFrame(cols).to_csv(tmp_path / "scores.csv", index=False, float_format="%.17g")
    common = [
        "--structure",
        "multilabel",
        "--train",
        str(tmp_path / "train.csv"),
        "--group-cols",
        "man,woman",
        "--task-prefix",
        "obj_",
        "--eta",
        "0.5",
        "--max-iter",
        "30",
    ]
    assert (
        main(["mitigate", str(tmp_path / "scores.csv"), *common, "-o", str(tmp_path / "cal.csv")])
        == 0
    )
    got = pd.read_csv(tmp_path / "cal.csv")
    assert list(got.columns) == ["pred_man", "pred_woman", "pred_obj_cup", "pred_obj_ski"]
    assert "warning: rba:" in capsys.readouterr().out  # not converged: the numbers are shown
    with pytest.warns(biasamp.RBAConvergenceWarning):
        want = rba(
            (group_scores, task_scores),
            structure="multilabel",
            groups_train=train[["man", "woman"]],
            tasks_train=train[["obj_cup", "obj_ski"]].to_numpy(),
            group_names=groups,
            task_names=tasks,
            eta=0.5,
            max_iter=30,
        )
    np.testing.assert_array_equal(got["pred_woman"].to_numpy(), want.groups_pred == "woman")
    np.testing.assert_array_equal(
        got[["pred_obj_cup", "pred_obj_ski"]].to_numpy(), want.tasks_pred[tasks].to_numpy()
    )
    capsys.readouterr()
    pd.DataFrame(cols).drop(columns="woman|ski|absent").to_csv(
        tmp_path / "partial.csv", index=False
    )
    assert (
        main(["mitigate", str(tmp_path / "partial.csv"), *common, "-o", str(tmp_path / "x.csv")])
        == 2
    )
    assert to_flags(ERR_PARTIAL_ABSENT).format(
        file=tmp_path / "partial.csv", column="woman|ski|absent", present="man|cup|absent"
    ) in " ".join(capsys.readouterr().err.split())


@pytest.mark.parametrize("command", ["measure", "report", "calibrate", "mitigate", "demo"])
def test_every_command_has_complete_help_with_examples(command, capsys):
    with pytest.raises(SystemExit) as info:
        main([command, "--help"])
    assert info.value.code == 0
    text = capsys.readouterr().out
    assert "Examples:" in text or command == "demo"
    assert f"biasamp {command}" in text
    if command in ("measure", "report", "calibrate"):
        assert "score > threshold" in " ".join(text.split())
    # a continued example keeps its line break ('\\' in the source, not a lost '\')
    examples = text.split("Examples:", 1)[-1].split("\n\n", 1)[0]
    assert not re.search(r"\S {3,}--\w", examples), examples
    if command == "measure":
        for key in ("multi-mals", "dpa-a2t", "leakage", "[opt-in]"):
            assert key in text
