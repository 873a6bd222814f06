"""The command line gives the library's values: every layout, every metric.

For each input layout the command line reads (categorical columns, indicator
columns, a prefix, predictions joined on ``--id``, long ``(id, label)`` tables,
scores with a threshold, and each of them streamed where streaming applies), the
JSON of ``biasamp measure`` holds the values that the library's functions give,
with their defaults, on the same data read with pandas. The training file of the
indicator layouts has rows with no group and no task, which the library's
default ``train_rows="labelled"`` drops from the training side.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

import biasamp
from biasamp.cli.flags import to_flags
from biasamp.cli.main import main

GROUPS = ("m", "w")
TASKS = ("a", "b", "c")
N_ITER = 2
SEED = 3
PAIRWISE = ("mals", "directional-a2t", "directional-t2a")
MULTI = ("multi-mals", "multi-a2t", "multi-t2a")
ATTACKERS = ("dpa-a2t", "dpa-t2a", "leakage")


def _indicator_split(rng: np.random.Generator, n: int, *, unlabelled: int = 0) -> pd.DataFrame:
    """One-hot groups, multi-label tasks tied to the group, noisy predictions / scores."""
    is_w = rng.random(n) < 0.45
    frame = pd.DataFrame({"id": [f"r{i:04d}" for i in range(n)]})
    frame["m"] = (~is_w).astype(int)
    frame["w"] = is_w.astype(int)
    for task, p_m, p_w in (("a", 0.7, 0.3), ("b", 0.4, 0.6), ("c", 0.5, 0.5)):
        frame[task] = (rng.random(n) < np.where(is_w, p_w, p_m)).astype(int)
    flip_g = rng.random(n) < 0.15
    frame["pred_m"] = np.where(flip_g, is_w, ~is_w).astype(int)
    frame["pred_w"] = 1 - frame["pred_m"]
    for task in TASKS:
        score = np.clip(0.45 * frame[task] + 0.5 * rng.random(n) + 0.1 * is_w, 0, 1).round(3)
        frame[f"score_{task}"] = score
        frame[f"pred_{task}"] = (score > 0.5).astype(int)
    if unlabelled:  # rows with neither a group nor a task
        rows = rng.choice(n, unlabelled, replace=False)
        frame.loc[rows, ["m", "w", *TASKS]] = 0
    return frame


def _categorical(frame: pd.DataFrame) -> pd.DataFrame:
    """One group label and one task label per row (the first task present, else 'none')."""
    out = pd.DataFrame({"id": frame["id"]})
    out["g"] = np.where(frame["w"] == 1, "w", "m")
    out["t"] = np.select([frame[t] == 1 for t in TASKS], list(TASKS), "none")
    out["pred_g"] = np.where(frame["pred_w"] == 1, "w", "m")
    out["pred_t"] = np.select([frame[f"pred_{t}"] == 1 for t in TASKS], list(TASKS), "none")
    return out


def _long(frame: pd.DataFrame, prefix: str = "") -> pd.DataFrame:
    """The ``(id, label)`` rows of the tasks present."""
    cols = [f"{prefix}{t}" for t in TASKS]
    long = frame.melt(id_vars="id", value_vars=cols, var_name="label", value_name="on")
    long = long[long["on"] == 1][["id", "label"]]
    long["label"] = long["label"].str.removeprefix(prefix)
    return long.sort_values(["id", "label"]).reset_index(drop=True)


@pytest.fixture(scope="module")
def splits() -> tuple[pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(11)
    return _indicator_split(rng, 160, unlabelled=12), _indicator_split(rng, 130)


def _indicators(frame: pd.DataFrame, prefix: str, names: tuple[str, ...]) -> pd.DataFrame:
    out = frame[[f"{prefix}{n}" for n in names]].copy()
    out.columns = list(names)
    return out


def _wide_arrays(train: pd.DataFrame, test: pd.DataFrame, pred: str = "pred_") -> dict[str, Any]:
    return {
        "groups_train": _indicators(train, "", GROUPS),
        "tasks_train": _indicators(train, "", TASKS),
        "groups": _indicators(test, "", GROUPS),
        "tasks": _indicators(test, "", TASKS),
        "groups_pred": _indicators(test, "pred_", GROUPS),
        "tasks_pred": _indicators(test, pred, TASKS),
    }


def _library(key: str, a: dict[str, Any]) -> float:
    """The library's value of one metric, with its defaults, on the arrays ``a``."""
    train = {"groups_train": a["groups_train"], "tasks_train": a["tasks_train"]}
    truth = {"groups": a["groups"], "tasks": a["tasks"]}
    pred = "tasks_pred" if key.endswith("a2t") else "groups_pred"
    direction = {"direction": "A->T" if key.endswith("a2t") else "T->A"}
    if key == "mals":
        r = biasamp.mals(**train, groups_pred=a["groups_pred"], tasks_pred=a["tasks_pred"])
    elif key in ("directional-a2t", "directional-t2a"):
        r = biasamp.directional(**direction, **truth, **train, **{pred: a[pred]})
    elif key == "multi-mals":
        r = biasamp.multi_mals(
            **train, **truth, groups_pred=a["groups_pred"], tasks_pred=a["tasks_pred"]
        )
    elif key in ("multi-a2t", "multi-t2a"):
        r = biasamp.multi_directional(**direction, **train, **truth, **{pred: a[pred]})
    elif key == "leakage":
        r = biasamp.leakage_amplification(
            **truth, tasks_pred=a["tasks_pred"], n_iter=N_ITER, random_state=SEED
        )
    else:
        r = biasamp.dpa(**direction, **truth, **{pred: a[pred]}, n_iter=N_ITER, random_state=SEED)
    return float(r.value)


def _cli(
    tmp_path: Path, args: list[str], metrics: tuple[str, ...]
) -> tuple[dict[str, float], dict[str, int]]:
    """The metric values of the JSON, and the data rows of each input file by role."""
    out = tmp_path / "out.json"
    chosen = [x for key in metrics for x in ("--metric", key)]
    settings = ["--n-iter", str(N_ITER), "--seed", str(SEED), "--no-progress"]
    code = main(["measure", *args, *chosen, *settings, "--json", str(out)])
    assert code == 0
    doc = json.loads(out.read_text())
    streamed = doc["settings"]["streamed"]
    assert streamed is (args[args.index("--stream") + 1] == "on")
    rows = {f["role"]: f["rows"] for f in doc["inputs"]}
    return {m["key"]: m["value"] for m in list(doc["results"].values())}, rows


def _layout(name: str, tmp_path: Path, train: pd.DataFrame, test: pd.DataFrame):
    """Write the files of one layout; return the CLI arguments, the arrays, the metrics."""
    wide = _wide_arrays(train, test)
    everything = PAIRWISE + MULTI + ATTACKERS
    if name == "indicator-prefix":
        train[["m", "w", *TASKS]].rename(columns={t: f"obj_{t}" for t in TASKS}).to_csv(
            tmp_path / "train.csv", index=False
        )
        test.rename(
            columns={t: f"obj_{t}" for t in TASKS} | {f"pred_{t}": f"pred_obj_{t}" for t in TASKS}
        ).to_csv(tmp_path / "test.csv", index=False)
        args = ["test.csv", "--train", "train.csv", "--group-cols", "m,w"]
        args += ["--task-prefix", "obj_", "--pred-prefix", "pred_"]
        return args, wide, everything
    if name == "indicator-no-train":
        # no training file: the signs come from the evaluation ground truth's labelled
        # rows, and this evaluation file has rows with no group and no task
        train.drop(columns="id").to_csv(tmp_path / "test.csv", index=False)
        arrays = _wide_arrays(train, train)
        arrays["groups_train"] = arrays["tasks_train"] = None
        args = ["test.csv", "--group-cols", "m,w", "--task-cols", "a,b,c"]
        args += ["--pred-prefix", "pred_"]
        return args, arrays, ("directional-a2t", "directional-t2a", *ATTACKERS)
    if name == "indicator-pred-file-on-id":
        train[["m", "w", *TASKS]].to_parquet(tmp_path / "train.parquet")
        test[["id", "m", "w", *TASKS]].to_parquet(tmp_path / "test.parquet")
        pred = test[["id", "pred_m", "pred_w", *[f"pred_{t}" for t in TASKS]]]
        pred = pred.rename(columns=lambda c: c.removeprefix("pred_")).sample(frac=1, random_state=2)
        pred.to_csv(tmp_path / "pred.csv", index=False)
        args = ["test.parquet", "--train", "train.parquet", "--group-cols", "m,w"]
        args += ["--task-cols", "a,b,c", "--pred", "pred.csv", "--id", "id"]
        return args, wide, everything
    if name == "scores-threshold":
        train[["m", "w", *TASKS]].to_csv(tmp_path / "train.csv", index=False)
        test.drop(columns=[f"pred_{t}" for t in TASKS]).rename(
            columns={f"score_{t}": f"pred_{t}" for t in TASKS}
        ).to_csv(tmp_path / "test.csv", index=False)
        args = ["test.csv", "--train", "train.csv", "--group-cols", "m,w", "--task-cols"]
        args += ["a,b,c", "--pred-prefix", "pred_", "--threshold", "0.5"]
        return args, wide, everything
    if name == "thresholds-file":
        # per-label thresholds as 'biasamp calibrate' writes them (CSV: label, threshold)
        cuts = {"a": 0.35, "b": 0.6, "c": 0.5}
        pd.DataFrame({"label": list(cuts), "threshold": list(cuts.values())}).to_csv(
            tmp_path / "th.csv", index=False
        )
        train[["m", "w", *TASKS]].to_csv(tmp_path / "train.csv", index=False)
        test.drop(columns=[f"pred_{t}" for t in TASKS]).rename(
            columns={f"score_{t}": f"pred_{t}" for t in TASKS}
        ).to_csv(tmp_path / "test.csv", index=False)
        scored = pd.DataFrame({t: (test[f"score_{t}"] > cuts[t]).astype(int) for t in TASKS})
        arrays = {**wide, "tasks_pred": scored}
        args = ["test.csv", "--train", "train.csv", "--group-cols", "m,w", "--task-cols"]
        args += ["a,b,c", "--pred-prefix", "pred_", "--thresholds", "th.csv"]
        return args, arrays, everything
    if name == "pred-file-with-prefix":
        # --pred with --pred-prefix: the predictions file's columns carry the prefix
        train[["m", "w", *TASKS]].to_csv(tmp_path / "train.csv", index=False)
        test[["id", "m", "w", *TASKS]].to_csv(tmp_path / "test.csv", index=False)
        pred = test[["id", "pred_m", "pred_w", *[f"pred_{t}" for t in TASKS]]]
        pred.sample(frac=1, random_state=7).to_parquet(tmp_path / "pred.parquet")
        args = ["test.csv", "--train", "train.csv", "--group-cols", "m,w", "--task-cols"]
        args += ["a,b,c", "--pred", "pred.parquet", "--pred-prefix", "pred_", "--id", "id"]
        return args, wide, everything
    if name == "long-tables-predicted-tasks-only":
        # predicted tasks in a long table, no predicted groups: no --pred-prefix, no --pred
        for split, frame in (("train", train), ("test", test)):
            frame[["id", "m", "w"]].to_csv(tmp_path / f"{split}.csv", index=False)
            _long(frame).to_csv(tmp_path / f"{split}_tasks.csv", index=False)
        _long(test, "pred_").to_csv(tmp_path / "pred_tasks.csv", index=False)
        args = ["test.csv", "--train", "train.csv", "--group-cols", "m,w", "--id", "id"]
        args += ["--tasks-long", "test_tasks.csv", "--train-tasks-long", "train_tasks.csv"]
        args += ["--pred-tasks-long", "pred_tasks.csv"]
        return args, wide, ("directional-a2t", "multi-a2t", "leakage")
    if name == "id-without-pred":
        train[["m", "w", *TASKS]].to_csv(tmp_path / "train.csv", index=False)
        test.to_csv(tmp_path / "test.csv", index=False)
        args = ["test.csv", "--train", "train.csv", "--group-cols", "m,w", "--task-cols"]
        args += ["a,b,c", "--pred-prefix", "pred_", "--id", "id"]
        return args, wide, everything
    if name == "scores-pred-file-on-id":
        # logits (scores outside [0, 1]) in a predictions file joined on --id
        train[["m", "w", *TASKS]].to_csv(tmp_path / "train.csv", index=False)
        test[["id", "m", "w", *TASKS]].to_parquet(tmp_path / "test.parquet")
        logits = {
            t: np.log(test[f"score_{t}"] + 0.01) - np.log(1.01 - test[f"score_{t}"]) for t in TASKS
        }
        pred = pd.DataFrame({"id": test["id"], "m": test["pred_m"], "w": test["pred_w"], **logits})
        pred.sample(frac=1, random_state=5).to_csv(tmp_path / "pred.csv", index=False)
        cuts = {"a": -0.4, "b": 0.3, "c": 0.0}
        pd.DataFrame({"label": list(cuts), "threshold": list(cuts.values())}).to_csv(
            tmp_path / "th.csv", index=False
        )
        scored = pd.DataFrame({t: (logits[t] > cuts[t]).astype(int) for t in TASKS})
        # the group columns are 0/1 predictions, thresholded too: 1 > 0.5, 0 is not
        arrays = {**wide, "tasks_pred": scored}
        args = ["test.parquet", "--train", "train.csv", "--group-cols", "m,w", "--task-cols"]
        args += ["a,b,c", "--pred", "pred.csv", "--id", "id", "--thresholds", "th.csv"]
        return args, arrays, everything
    if name == "exclusive-group-scores":
        # every ground-truth row has one group: the two group score columns are one decision
        # (the positive group 'w' when its score is above 0.4; the score of 'm' is not read)
        train.loc[train[["m", "w"]].sum(axis=1) == 0, "m"] = 1
        train[["m", "w", *TASKS]].to_csv(tmp_path / "train.csv", index=False)
        rng = np.random.default_rng(8)
        score_w = np.clip(0.5 * test["w"] + 0.6 * rng.random(len(test)), 0, 1).round(3)
        frame = test[["m", "w", *TASKS, *[f"pred_{t}" for t in TASKS]]].assign(
            pred_w=score_w, pred_m=rng.random(len(test)).round(3)
        )
        frame.to_csv(tmp_path / "test.csv", index=False)
        decided = (score_w > 0.4).astype(int)
        arrays = _wide_arrays(train, test)
        arrays["groups_pred"] = pd.DataFrame({"m": 1 - decided, "w": decided})
        arrays["tasks_pred"] = pd.DataFrame(
            {t: (test[f"pred_{t}"] > 0.4).astype(int) for t in TASKS}
        )
        args = ["test.csv", "--train", "train.csv", "--group-cols", "m,w", "--task-cols"]
        args += ["a,b,c", "--pred-prefix", "pred_", "--threshold", "0.4"]
        return args, arrays, everything
    if name == "intersected-groups":
        # --group g,race: the groups are the intersections 'm x a', ... (biasamp.intersect)
        rng = np.random.default_rng(9)
        frames = []
        for frame in (train, test):
            out = frame[["id", *TASKS, *[f"pred_{t}" for t in TASKS]]].copy()
            out["g"] = np.where(frame["w"] == 1, "w", "m")
            out["race"] = rng.choice(["x", "y", "z"], len(frame))
            out["pred_g"] = np.where(frame["pred_w"] == 1, "w", "m")
            out["pred_race"] = np.where(rng.random(len(frame)) < 0.8, out["race"], "x")
            frames.append(out)
        frames[0][["g", "race", *TASKS]].to_csv(tmp_path / "train.csv", index=False)
        frames[1].to_parquet(tmp_path / "test.parquet")
        test_frame = frames[1]
        arrays = {
            "tasks_train": _indicators(frames[0], "", TASKS),
            "tasks": _indicators(test_frame, "", TASKS),
            "tasks_pred": _indicators(test_frame, "pred_", TASKS),
            "groups_train": biasamp.intersect(frames[0][["g", "race"]]),
            "groups": biasamp.intersect(test_frame[["g", "race"]]),
            "groups_pred": biasamp.intersect(
                test_frame[["pred_g", "pred_race"]].set_axis(["g", "race"], axis=1)
            ),
        }
        args = ["test.parquet", "--train", "train.csv", "--group", "g,race", "--task-cols"]
        args += ["a,b,c", "--pred-prefix", "pred_"]
        return args, arrays, everything
    if name == "long-tables":
        for split, frame in (("train", train), ("test", test)):
            frame[["id", "m", "w"]].to_csv(tmp_path / f"{split}.csv", index=False)
            _long(frame).to_csv(tmp_path / f"{split}_tasks.csv", index=False)
        test[["id", "pred_m", "pred_w"]].rename(columns={"pred_m": "m", "pred_w": "w"}).to_csv(
            tmp_path / "pred.csv", index=False
        )
        _long(test, "pred_").to_csv(tmp_path / "pred_tasks.csv", index=False)
        args = ["test.csv", "--train", "train.csv", "--group-cols", "m,w", "--id", "id"]
        args += ["--tasks-long", "test_tasks.csv", "--train-tasks-long", "train_tasks.csv"]
        args += ["--pred", "pred.csv", "--pred-tasks-long", "pred_tasks.csv"]
        return args, wide, everything
    if name == "long-tables-semicolon":
        # --delimiter applies to every file, the long tables included
        for split, frame in (("train", train), ("test", test)):
            frame[["id", "m", "w"]].to_csv(tmp_path / f"{split}.csv", sep=";", index=False)
            _long(frame).to_csv(tmp_path / f"{split}_tasks.csv", sep=";", index=False)
        test[["id", "pred_m", "pred_w"]].rename(columns={"pred_m": "m", "pred_w": "w"}).to_csv(
            tmp_path / "pred.csv", sep=";", index=False
        )
        _long(test, "pred_").to_csv(tmp_path / "pred_tasks.csv", sep=";", index=False)
        args = ["test.csv", "--train", "train.csv", "--group-cols", "m,w", "--id", "id"]
        args += ["--tasks-long", "test_tasks.csv", "--train-tasks-long", "train_tasks.csv"]
        args += ["--pred", "pred.csv", "--pred-tasks-long", "pred_tasks.csv"]
        return [*args, "--delimiter", ";"], wide, everything
    if name == "long-tables-no-train":
        # predicted groups in the data file; rows with no group and no task in it
        train.rename(columns={"pred_m": "p_m", "pred_w": "p_w"})[
            ["id", "m", "w", "p_m", "p_w"]
        ].to_csv(tmp_path / "test.csv", index=False)
        _long(train).to_csv(tmp_path / "test_tasks.csv", index=False)
        _long(train, "pred_").to_csv(tmp_path / "pred_tasks.csv", index=False)
        arrays = _wide_arrays(train, train)
        arrays["groups_train"] = arrays["tasks_train"] = None
        args = ["test.csv", "--group-cols", "m,w", "--id", "id", "--pred-prefix", "p_"]
        args += ["--tasks-long", "test_tasks.csv", "--pred-tasks-long", "pred_tasks.csv"]
        return args, arrays, ("directional-a2t", "directional-t2a", *ATTACKERS)
    if name in ("indicator-tsv", "indicator-xz"):
        # any delimited file streams: a .tsv (tab by default), an .xz-compressed CSV
        suffix, sep = (".tsv", "\t") if name == "indicator-tsv" else (".csv.xz", ",")
        train[["m", "w", *TASKS]].to_csv(tmp_path / f"train{suffix}", sep=sep, index=False)
        test.to_csv(tmp_path / f"test{suffix}", sep=sep, index=False)
        args = [f"test{suffix}", "--train", f"train{suffix}", "--group-cols", "m,w"]
        args += ["--task-cols", "a,b,c", "--pred-prefix", "pred_"]
        return args, wide, everything
    # categorical layouts: one group and one task label per row (every row has both)
    cat_train, cat_test = _categorical(train), _categorical(test)
    if name == "categorical-semicolon":
        cat_train[["g", "t"]].to_csv(tmp_path / "train.csv", sep=";", index=False)
        cat_test.to_csv(tmp_path / "test.csv", sep=";", index=False)
        args = ["test.csv", "--train", "train.csv", "--group", "g", "--task", "t"]
        args += ["--pred-prefix", "pred_", "--delimiter", ";"]
        return args, _categorical_arrays(cat_train, cat_test), PAIRWISE + ATTACKERS
    if name == "categorical-pred-file-on-id":
        arrays = _categorical_arrays(cat_train, cat_test)
        cat_train[["g", "t"]].to_parquet(tmp_path / "train.parquet")
        cat_test[["id", "g", "t"]].to_csv(tmp_path / "test.csv", index=False)
        pred = cat_test[["id", "pred_g", "pred_t"]].rename(columns={"pred_g": "g", "pred_t": "t"})
        pred.sample(frac=1, random_state=4).to_parquet(tmp_path / "pred.parquet")
        args = ["test.csv", "--train", "train.parquet", "--group", "g", "--task", "t"]
        args += ["--pred", "pred.parquet", "--id", "id"]
        return args, arrays, PAIRWISE + ATTACKERS
    if name == "categorical-numeric-codes":
        # labels pyarrow infers as numbers ('01', '7'): text, as the in-memory reader reads them
        codes = {"m": "01", "w": "02", "a": "7", "b": "10", "c": "9", "none": "0"}
        cat_train, cat_test = cat_train.replace(codes), cat_test.replace(codes)
        cat_train[["g", "t"]].to_csv(tmp_path / "train.csv", index=False)
        cat_test.to_csv(tmp_path / "test.csv", index=False)
        args = ["test.csv", "--train", "train.csv", "--group", "g", "--task", "t"]
        args += ["--pred-prefix", "pred_"]
        return args, _categorical_arrays(cat_train, cat_test), PAIRWISE + ATTACKERS
    arrays = _categorical_arrays(cat_train, cat_test)
    cat_train[["g", "t"]].to_csv(tmp_path / "train.csv", index=False)
    cat_test.to_parquet(tmp_path / "test.parquet")
    args = ["test.parquet", "--train", "train.csv", "--group", "g", "--task", "t"]
    args += ["--pred-prefix", "pred_"]
    return args, arrays, PAIRWISE + ATTACKERS


def _categorical_arrays(cat_train: pd.DataFrame, cat_test: pd.DataFrame) -> dict[str, Any]:
    return {
        "groups_train": cat_train["g"].to_numpy(),
        "tasks_train": cat_train["t"].to_numpy(),
        "groups": cat_test["g"].to_numpy(),
        "tasks": cat_test["t"].to_numpy(),
        "groups_pred": cat_test["pred_g"].to_numpy(),
        "tasks_pred": cat_test["pred_t"].to_numpy(),
    }


LAYOUTS = [
    ("indicator-prefix", "off"),
    ("indicator-prefix", "on"),
    ("indicator-prefix", "duckdb"),
    ("indicator-no-train", "off"),
    ("indicator-no-train", "on"),
    ("indicator-pred-file-on-id", "off"),
    ("indicator-pred-file-on-id", "on"),
    ("categorical-pred-file-on-id", "off"),
    ("categorical-pred-file-on-id", "on"),
    ("indicator-pred-file-on-id", "duckdb"),
    ("categorical-pred-file-on-id", "duckdb"),
    ("pred-file-with-prefix", "off"),
    ("pred-file-with-prefix", "on"),
    ("pred-file-with-prefix", "duckdb"),
    ("long-tables-predicted-tasks-only", "off"),
    ("long-tables-predicted-tasks-only", "on"),
    ("long-tables-predicted-tasks-only", "duckdb"),
    ("id-without-pred", "off"),
    ("id-without-pred", "on"),
    ("scores-threshold", "off"),
    ("scores-threshold", "on"),
    ("scores-threshold", "duckdb"),
    ("thresholds-file", "off"),
    ("thresholds-file", "on"),
    ("scores-pred-file-on-id", "off"),
    ("scores-pred-file-on-id", "on"),
    ("scores-pred-file-on-id", "duckdb"),
    ("exclusive-group-scores", "off"),
    ("exclusive-group-scores", "on"),
    ("exclusive-group-scores", "duckdb"),
    ("intersected-groups", "off"),
    ("intersected-groups", "on"),
    ("intersected-groups", "duckdb"),
    ("long-tables", "off"),
    ("long-tables", "on"),
    ("long-tables", "duckdb"),
    ("long-tables-semicolon", "off"),
    ("long-tables-semicolon", "on"),
    ("long-tables-no-train", "off"),
    ("long-tables-no-train", "on"),
    ("categorical", "off"),
    ("categorical", "on"),
    ("categorical", "duckdb"),
    ("indicator-tsv", "off"),
    ("indicator-tsv", "on"),
    ("indicator-xz", "off"),
    ("indicator-xz", "on"),
    ("categorical-numeric-codes", "off"),
    ("categorical-numeric-codes", "on"),
    ("categorical-semicolon", "off"),
    ("categorical-semicolon", "on"),
]


@pytest.mark.parametrize("layout, stream", LAYOUTS, ids=[f"{a}-stream-{b}" for a, b in LAYOUTS])
def test_the_cli_json_equals_the_library_on_every_layout(layout, stream, splits, tmp_path):
    train, test = (s.copy() for s in splits)
    args, arrays, metrics = _layout(layout, tmp_path, train, test)
    if stream == "duckdb":
        pytest.importorskip("duckdb")
    engine = (
        ["--stream", "on", "--engine", "duckdb"] if stream == "duckdb" else ["--stream", stream]
    )
    if stream != "off":  # the streamed path computes the co-occurrence metrics only
        metrics = tuple(m for m in metrics if m in PAIRWISE + MULTI)
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(tmp_path)
        got, rows = _cli(tmp_path, [*args, *engine], metrics)
    # every path reports a file's data rows, the training rows it drops included
    no_train = layout in ("indicator-no-train", "long-tables-no-train")
    assert rows["data"] == (len(train) if no_train else len(test))
    if "--train" in args:
        assert rows["train"] == len(train)
    expected = {key: _library(key, arrays) for key in metrics}
    assert set(got) == set(expected)
    for key in metrics:
        assert got[key] == pytest.approx(expected[key], rel=1e-12, abs=1e-15), key


@pytest.mark.parametrize("layout", ["indicator-tsv", "indicator-xz", "categorical-semicolon"])
def test_files_duckdb_cannot_read_stream_on_numpy_and_agree_with_memory(layout, splits, tmp_path):
    """A .tsv, an .xz file and a ';'-delimited file stream (``--stream auto`` chooses it), on
    the numpy engine whatever ``--engine auto`` finds, with the in-memory path's values and
    file provenance (SHA-256, rows)."""
    train, test = (s.copy() for s in splits)
    args, _, _ = _layout(layout, tmp_path, train, test)
    docs = {}
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(tmp_path)
        for stream in ("auto", "off"):
            out = tmp_path / f"{stream}.json"
            metrics = [x for key in PAIRWISE for x in ("--metric", key)]
            code = main(["measure", *args, *metrics, "--stream", stream, "--json", str(out)])
            assert code == 0
            docs[stream] = json.loads(out.read_text())
    assert docs["auto"]["settings"]["streamed"] is True
    assert docs["auto"]["settings"]["engine"] == "numpy"
    assert docs["off"]["settings"]["streamed"] is False
    assert docs["auto"]["inputs"] == docs["off"]["inputs"]
    values = {
        stream: {m["key"]: m["value"] for m in list(d["results"].values())}
        for stream, d in docs.items()
    }
    assert values["auto"] == pytest.approx(values["off"], rel=1e-12)


def test_the_training_file_has_rows_with_no_group_and_no_task(splits):
    """The fixture really tests the rule: the training side differs with train_rows='all'."""
    train, test = splits
    assert ((train[["m", "w", *TASKS]] == 0).all(axis=1)).sum() == 12
    a = _wide_arrays(train, test)
    common = {k: a[k] for k in ("groups", "tasks", "groups_train", "tasks_train")}
    labelled = biasamp.directional(direction="A->T", tasks_pred=a["tasks_pred"], **common)
    every_row = biasamp.directional(
        direction="A->T", tasks_pred=a["tasks_pred"], train_rows="all", **common
    )
    assert labelled.value != pytest.approx(every_row.value, rel=1e-9)


@pytest.mark.parametrize("stream", ["auto", "on"])
def test_streamed_join_errors_name_file_column_and_row(stream, tmp_path, capsys):
    """The streamed join refuses; the in-memory reader names the file, column and row."""
    from biasamp.auditing._inputs import ERR_DUPLICATE_IDS, ERR_ID_MISSING
    from biasamp.engines._file_reader import ERR_NOT_BINARY

    truth = pd.DataFrame({"id": ["a", "b", "c"], "m": [1, 0, 1], "w": [0, 1, 0]})
    truth["x"] = [1, 1, 0]
    truth.to_csv(tmp_path / "t.csv", index=False)
    base = ["measure", str(tmp_path / "t.csv"), "--group-cols", "m,w", "--task-cols", "x"]
    base += ["--pred", str(tmp_path / "p.csv"), "--id", "id", "--stream", stream]
    base += ["--metric", "a2t"]
    cases = [
        (
            ["a", "b", "b"],
            [1, 0, 1],
            to_flags(ERR_DUPLICATE_IDS).format(
                file=tmp_path / "p.csv", column="id", count=1, examples="'b'"
            ),
        ),
        (
            ["a", "b", "d"],
            [1, 0, 1],
            to_flags(ERR_ID_MISSING).format(
                column="id",
                count=1,
                file_a=tmp_path / "t.csv",
                file_b=tmp_path / "p.csv",
                examples="'c'",
            ),
        ),
        (
            ["c", "a", "b"],
            [1, 0, 2],
            to_flags(ERR_NOT_BINARY).format(file=tmp_path / "p.csv", column="x", value=2, row=3),
        ),
    ]
    for ids, x, message in cases:
        pd.DataFrame({"id": ids, "m": [1, 1, 0], "w": [0, 0, 1], "x": x}).to_csv(
            tmp_path / "p.csv", index=False
        )
        assert main(base) == 2
        assert message in " ".join(capsys.readouterr().err.split())


BOOT_LAYOUTS = ["indicator-pred-file-on-id", "long-tables", "long-tables-semicolon"]


@pytest.mark.parametrize("layout", BOOT_LAYOUTS)
@pytest.mark.parametrize("stream", ["off", "on"])
def test_the_bootstrap_of_a_joined_file_equals_the_library(layout, stream, splits, tmp_path):
    """--n-boot with --pred on --id, or with long task tables: the streamed counts draw the
    same replicate weights (by the data file's row) as the library on the rows."""
    train, test = (s.copy() for s in splits)
    args, arrays, _ = _layout(layout, tmp_path, train, test)
    out = tmp_path / "boot.json"
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(tmp_path)
        extra = ["--metric", "a2t", "--metric", "mals", "--n-boot", "25", "--seed", "7"]
        assert main(["measure", *args, *extra, "--stream", stream, "--json", str(out)]) == 0
    doc = json.loads(out.read_text())
    assert doc["settings"]["streamed"] is (stream == "on")
    got = {m["key"]: m["interval"] for m in list(doc["results"].values())}
    train_roles = {"groups_train": arrays["groups_train"], "tasks_train": arrays["tasks_train"]}
    boot = {"n_boot": 25, "random_state": 7}
    a2t = biasamp.directional(
        direction="A->T",
        groups=arrays["groups"],
        tasks=arrays["tasks"],
        tasks_pred=arrays["tasks_pred"],
        **train_roles,
        **boot,
    )
    mals = biasamp.mals(
        **train_roles, groups_pred=arrays["groups_pred"], tasks_pred=arrays["tasks_pred"], **boot
    )
    for key, want in (("directional-a2t", a2t), ("mals", mals)):
        assert (got[key]["low"], got[key]["high"]) == pytest.approx(want.ci, rel=1e-12), key
        assert got[key]["se"] == pytest.approx(want.se, rel=1e-12), key


def test_ids_are_joined_as_text_or_as_stored_integers(tmp_path, capsys):
    """'007' and '7' are different ids, as the in-memory reader reads them (text)."""
    from biasamp.auditing._inputs import ERR_ID_MISSING

    truth = pd.DataFrame({"id": ["007", "8"], "m": [1, 0], "w": [0, 1], "x": [1, 0]})
    truth.to_csv(tmp_path / "t.csv", index=False)
    pd.DataFrame({"id": ["7", "8"], "m": [1, 0], "w": [0, 1], "x": [1, 1]}).to_csv(
        tmp_path / "p.csv", index=False
    )
    base = ["measure", str(tmp_path / "t.csv"), "--group-cols", "m,w", "--task-cols", "x"]
    base += ["--pred", str(tmp_path / "p.csv"), "--id", "id", "--metric", "a2t"]
    assert main(base) == 2
    err = " ".join(capsys.readouterr().err.split())
    missing = to_flags(ERR_ID_MISSING).format(
        column="id", count=1, file_a=tmp_path / "t.csv", file_b=tmp_path / "p.csv", examples="'007'"
    )
    assert missing in err
    # streamed: a CSV file's ids are text too (numpy engine), so the same error
    assert main([*base, "--stream", "on"]) == 2
    assert missing in " ".join(capsys.readouterr().err.split())
    # ids that look like numbers join as text, streamed on numpy, with the in-memory values
    pd.DataFrame({"id": ["008", "007"], "m": [0, 1], "w": [1, 0], "x": [1, 1]}).to_csv(
        tmp_path / "p.csv", index=False
    )
    truth.assign(id=["007", "008"]).to_csv(tmp_path / "t.csv", index=False)
    docs = {}
    for stream in ("on", "off"):
        out = tmp_path / f"{stream}.json"
        assert main([*base, "--stream", stream, "--json", str(out)]) == 0
        docs[stream] = json.loads(out.read_text())
    assert docs["on"]["settings"]["streamed"] is True
    assert docs["on"]["settings"]["engine"] == "numpy"
    assert (
        list(docs["on"]["results"].values())[0]["value"]
        == list(docs["off"]["results"].values())[0]["value"]
    )
    # integer ids stored as integers (Parquet) are joined by the engine
    truth.assign(id=[7, 8]).to_parquet(tmp_path / "t.parquet")
    pd.DataFrame({"id": [8, 7], "m": [0, 1], "w": [1, 0], "x": [1, 1]}).to_parquet(
        tmp_path / "p.parquet"
    )
    out = tmp_path / "o.json"
    args = ["measure", str(tmp_path / "t.parquet"), "--group-cols", "m,w", "--task-cols", "x"]
    args += ["--pred", str(tmp_path / "p.parquet"), "--id", "id", "--metric", "a2t"]
    assert main([*args, "--stream", "on", "--json", str(out)]) == 0
    assert json.loads(out.read_text())["settings"]["streamed"] is True


@pytest.mark.parametrize("engine", ["numpy", "duckdb"])
def test_calibrated_thresholds_stream_with_the_in_memory_values(engine, splits, tmp_path):
    """--calibrate-on: the thresholds calibrated on a validation file, then the data file
    counted by the engine; every co-occurrence and multi-attribute metric and the
    thresholds equal the in-memory path's."""
    if engine == "duckdb":
        pytest.importorskip("duckdb")
    train, test = (s.copy() for s in splits)
    args, _, _ = _layout("scores-threshold", tmp_path, train, test)
    args = args[: args.index("--threshold")]
    validation = test.drop(columns=[f"pred_{t}" for t in TASKS]).rename(
        columns={f"score_{t}": f"pred_{t}" for t in TASKS}
    )
    validation.sample(frac=0.7, random_state=6).to_csv(tmp_path / "val.csv", index=False)
    docs = {}
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(tmp_path)
        for stream in ("off", "on"):
            out = tmp_path / f"{stream}.json"
            extra = ["--calibrate-on", "val.csv", "--stream", stream, "--engine", engine]
            if stream == "off":
                extra = extra[:-2]
            metrics = [x for key in PAIRWISE + MULTI for x in ("--metric", key)]
            assert main(["measure", *args, *extra, *metrics, "--json", str(out)]) == 0
            docs[stream] = json.loads(out.read_text())
    assert docs["on"]["settings"]["streamed"] is True
    assert docs["off"]["settings"]["streamed"] is False
    assert docs["on"]["thresholds"] == docs["off"]["thresholds"]
    assert set(TASKS) <= set(docs["on"]["thresholds"])
    values = {
        s: {m["key"]: m["value"] for m in list(d["results"].values())} for s, d in docs.items()
    }
    assert set(values["on"]) == set(PAIRWISE + MULTI)
    for key in PAIRWISE + MULTI:
        assert values["on"][key] == pytest.approx(values["off"][key], rel=1e-12, abs=1e-15), key


MULTI_BOOT_LAYOUTS = ["indicator-prefix", "indicator-pred-file-on-id", "long-tables"]


@pytest.mark.parametrize("layout", MULTI_BOOT_LAYOUTS)
@pytest.mark.parametrize("stream", ["off", "on"])
def test_the_multi_attribute_bootstrap_equals_the_library(layout, stream, splits, tmp_path):
    """--n-boot with the multi-attribute metrics: the streamed pattern tables are counted
    once more under the replicate weights of each data-file row (a file, a join on --id,
    long task tables); the intervals equal the library's on the rows."""
    train, test = (s.copy() for s in splits)
    args, arrays, _ = _layout(layout, tmp_path, train, test)
    out = tmp_path / "boot.json"
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(tmp_path)
        extra = [x for key in MULTI for x in ("--metric", key)]
        extra += ["--n-boot", "25", "--seed", "7", "--no-progress"]
        assert main(["measure", *args, *extra, "--stream", stream, "--json", str(out)]) == 0
    doc = json.loads(out.read_text())
    assert doc["settings"]["streamed"] is (stream == "on")
    got = {m["key"]: m for m in list(doc["results"].values())}
    common = {
        "groups_train": arrays["groups_train"],
        "tasks_train": arrays["tasks_train"],
        "groups": arrays["groups"],
        "tasks": arrays["tasks"],
        "n_boot": 25,
        "random_state": 7,
    }
    expected = {
        "multi-mals": biasamp.multi_mals(
            **common, groups_pred=arrays["groups_pred"], tasks_pred=arrays["tasks_pred"]
        ),
        "multi-a2t": biasamp.multi_directional(
            direction="A->T", **common, tasks_pred=arrays["tasks_pred"]
        ),
        "multi-t2a": biasamp.multi_directional(
            direction="T->A", **common, groups_pred=arrays["groups_pred"]
        ),
    }
    for key, want in expected.items():
        assert want.ci is not None and want.ci[0] < want.ci[1], key
        interval = got[key]["interval"]
        assert (interval["low"], interval["high"]) == pytest.approx(want.ci, rel=1e-12), key
        assert interval["se"] == pytest.approx(want.se, rel=1e-12), key
        assert got[key]["value"] == pytest.approx(want.value, rel=1e-12), key
