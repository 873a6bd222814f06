"""``--group race,sex``: the command line measures the intersections of several columns.

The JSON of ``biasamp measure`` with several comma-separated ``--group`` columns
holds the values the library gives on ``biasamp.intersect`` of the same columns,
for CSV and Parquet, and a missing value names its file, column and row.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import biasamp
from biasamp.cli.main import EXIT_USAGE, main

TASKS = ["cup", "ski", "fork"]


def _split(seed: int, n: int = 240) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(
        {
            "race": rng.choice(["A", "B", "C"], n),
            "sex": rng.choice(["F", "M"], n),
        }
    )
    for i, task in enumerate(TASKS):
        p = 0.2 + 0.2 * (frame["sex"] == "F") + 0.1 * i * (frame["race"] == "B")
        frame[task] = (rng.random(n) < p).astype(int)
        flip = rng.random(n) < 0.2
        frame[f"pred_{task}"] = np.where(flip, 1 - frame[task], frame[task])
    for column in ("race", "sex"):
        frame[f"pred_{column}"] = np.where(
            rng.random(n) < 0.1, frame[column].iloc[::-1], frame[column]
        )
    return frame


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_several_group_columns_give_the_library_values_on_their_intersections(tmp_path, fmt):
    test, train = _split(0), _split(1)
    paths = {}
    for name, frame in (("test", test), ("train", train)):
        paths[name] = tmp_path / f"{name}.{fmt}"
        frame.to_csv(paths[name], index=False) if fmt == "csv" else frame.to_parquet(paths[name])
    out = tmp_path / "out.json"
    args = ["measure", str(paths["test"]), "--train", str(paths["train"]), "--group", "race,sex"]
    args += ["--task-cols", ",".join(TASKS), "--pred-prefix", "pred_", "--json", str(out)]
    assert main(args) == 0
    values = {m["key"]: m["value"] for m in json.loads(out.read_text())["results"].values()}

    groups = biasamp.intersect(test[["race", "sex"]])
    groups_pred = biasamp.intersect(
        test[["pred_race", "pred_sex"]].set_axis(["race", "sex"], axis=1)
    )
    kw = {"groups_train": biasamp.intersect(train[["race", "sex"]]), "tasks_train": train[TASKS]}
    pred = test[[f"pred_{t}" for t in TASKS]].set_axis(TASKS, axis=1)
    expected = {
        "mals": biasamp.mals(**kw, groups_pred=groups_pred, tasks_pred=pred).value,
        "directional-a2t": biasamp.directional(
            direction="A->T", groups=groups, tasks=test[TASKS], tasks_pred=pred, **kw
        ).value,
        "directional-t2a": biasamp.directional(
            direction="T->A", groups=groups, tasks=test[TASKS], groups_pred=groups_pred, **kw
        ).value,
    }
    assert set(values) == set(expected)
    for metric, value in expected.items():
        assert values[metric] == pytest.approx(value, abs=1e-12), metric
    assert len(set(groups)) == 6  # 3 races x 2 sexes, every one present


def test_a_missing_value_in_one_group_column_names_file_column_and_row(tmp_path, capsys):
    test = _split(0)
    test.loc[7, "sex"] = None
    path = tmp_path / "test.csv"
    test.to_csv(path, index=False)
    args = ["measure", str(path), "--group", "race,sex", "--task-cols", ",".join(TASKS)]
    assert main([*args, "--pred-prefix", "pred_"]) == EXIT_USAGE
    err = " ".join(capsys.readouterr().err.split())
    assert str(path) in err and "'sex'" in err and "row 8" in err


def test_an_unknown_group_column_is_named(tmp_path, capsys):
    path = tmp_path / "test.csv"
    _split(0).to_csv(path, index=False)
    args = ["measure", str(path), "--group", "race,gender", "--task-cols", ",".join(TASKS)]
    assert main([*args, "--pred-prefix", "pred_"]) == EXIT_USAGE
    err = " ".join(capsys.readouterr().err.split())
    assert "gender" in err and str(path) in err


def test_help_describes_intersections(capsys):
    with pytest.raises(SystemExit):
        main(["measure", "--help"])
    assert "intersections" in capsys.readouterr().out
