"""``biasamp.audit`` equals ``biasamp measure --json``, metric by metric, on every layout.

Each case is a set of :func:`biasamp.audit` keywords; the command line's flags are
derived from them through the one keyword -> flag table (``cli/flags.py``), so a
keyword that does not mirror its flag fails here. The JSON the command writes is
``AuditResult.to_dict()`` (only ``command`` differs), ``load_result`` reads it
back as an ``AuditResult`` equal to the library's, and ``compare`` names the
metrics alike.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

import biasamp
from biasamp.auditing._result import SCHEMA_FILE
from biasamp.cli.flags import flag_for
from biasamp.cli.main import main
from biasamp.results._json_schema import load_schema

jsonschema = pytest.importorskip("jsonschema")

TASKS = ("a", "b", "c")


def _split(rng: np.random.Generator, n: int) -> pd.DataFrame:
    """Indicator and categorical columns, predictions and scores, tied to the group."""
    is_w = rng.random(n) < 0.45
    frame = pd.DataFrame({"id": [f"r{i:04d}" for i in range(n)]})
    frame["g"] = np.where(is_w, "w", "m")
    frame["race"] = rng.choice(["x", "y"], n)
    frame["m"], frame["w"] = (~is_w).astype(int), is_w.astype(int)
    for task, p_m, p_w in (("a", 0.7, 0.3), ("b", 0.4, 0.6), ("c", 0.5, 0.5)):
        frame[f"obj_{task}"] = (rng.random(n) < np.where(is_w, p_w, p_m)).astype(int)
        score = np.clip(0.45 * frame[f"obj_{task}"] + 0.5 * rng.random(n), 0, 1).round(3)
        frame[f"score_obj_{task}"] = score
        frame[f"pred_obj_{task}"] = (score > 0.5).astype(int)
    flip = rng.random(n) < 0.15
    frame["pred_g"] = np.where(flip ^ is_w, "w", "m")
    frame["pred_m"], frame["pred_w"] = (
        (frame["pred_g"] == "m").astype(int),
        (frame["pred_g"] == "w").astype(int),
    )
    frame["t"] = np.select([frame[f"obj_{t}"] == 1 for t in TASKS], list(TASKS), "none")
    frame["pred_t"] = np.select([frame[f"pred_obj_{t}"] == 1 for t in TASKS], list(TASKS), "none")
    return frame


def _long(frame: pd.DataFrame, prefix: str) -> pd.DataFrame:
    cols = [f"{prefix}{t}" for t in TASKS]
    long = frame.melt(id_vars="id", value_vars=cols, var_name="label", value_name="on")
    long = long[long["on"] == 1][["id", "label"]]
    long["label"] = long["label"].str.removeprefix(prefix)
    return long.sort_values(["id", "label"]).reset_index(drop=True)


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("audit")
    rng = np.random.default_rng(7)
    test, train = _split(rng, 150), _split(rng, 170)
    test.loc[[3, 40], "race"] = None  # a missing group value (missing="category")
    test["pred_race"] = test["race"]
    out = {"test": folder / "test.csv", "train": folder / "train.csv"}
    test.to_csv(out["test"], index=False)
    train.drop(columns="race").assign(race="x").to_csv(out["train"], index=False)
    pred_cols = ["id", "pred_m", "pred_w", *[f"pred_obj_{t}" for t in TASKS]]
    out["pred"] = folder / "pred.parquet"
    test[pred_cols].iloc[::-1].to_parquet(out["pred"], index=False)
    out["ids"] = folder / "ids.csv"
    test[["id", "g", "pred_g"]].to_csv(out["ids"], index=False)
    for name, frame, prefix in (
        ("tasks_long", test, "obj_"),
        ("pred_tasks_long", test, "pred_obj_"),
        ("train_tasks_long", train, "obj_"),
    ):
        out[name] = folder / f"{name}.csv"
        _long(frame, prefix).to_csv(out[name], index=False)
    return out


CASES: dict[str, dict[str, Any]] = {
    "categorical, streamed": {
        "group": "g",
        "task": "t",
        "pred_prefix": "pred_",
        "train": "train",
    },
    "categorical, in memory, bootstrap": {
        "group": "g",
        "task": "t",
        "pred_prefix": "pred_",
        "train": "train",
        "stream": "off",
        "n_boot": 20,
        "random_state": 4,
        "ci": 0.9,
    },
    "indicators joined on an id, multi-attribute": {
        "group_cols": ["m", "w"],
        "task_prefix": "obj_",
        "pred": "pred",
        "pred_prefix": "pred_",
        "id": "id",
        "train": "train",
        "metrics": ["mals", "multi-mals", "multi-a2t", "multi-t2a", "directional-t2a"],
    },
    "long tables": {
        "group": "g",
        "tasks_long": "tasks_long",
        "pred_tasks_long": "pred_tasks_long",
        "pred_prefix": "pred_",
        "train": "train",
        "train_tasks_long": "train_tasks_long",
        "id": "id",
        "metrics": ["directional-a2t", "mals"],
        "data": "ids",
    },
    "scores at a threshold": {
        "group_cols": ["m", "w"],
        "task_prefix": "obj_",
        "pred_prefix": "score_",
        "threshold": 0.4,
        "metrics": ["directional-a2t"],
        "min_group_size": None,
    },
    "differential fairness of intersections, attackers": {
        "group": ["g", "race"],
        "task": "t",
        "pred_prefix": "pred_",
        "missing": "category",
        "metrics": ["differential-fairness", "df-amplification", "dpa-a2t"],
        "n_iter": 2,
        "min_cell": 3,
    },
}


def _resolve(case: dict[str, Any], files: dict[str, Path]) -> dict[str, Any]:
    """Names of the fixture's files replaced by their paths."""
    out = dict(case)
    for key in ("train", "pred", "tasks_long", "pred_tasks_long", "train_tasks_long"):
        if key in out:
            out[key] = str(files[out[key]])
    out["data"] = str(files[case.get("data", "test")])
    return out


def _flags(keywords: dict[str, Any]) -> list[str]:
    """The command line of the keywords: every keyword through its flag."""
    args = ["measure", keywords["data"], "--no-progress"]
    for key, value in keywords.items():
        if key == "data":
            continue
        values = value if key == "metrics" else [value]
        for item in values:
            if isinstance(item, list):
                item = ",".join(item)
            args += [flag_for(key), "none" if item is None else str(item)]
    return args


@pytest.mark.parametrize("name", sorted(CASES))
def test_audit_equals_the_command_line_json(name, files, tmp_path, capsys):
    keywords = _resolve(CASES[name], files)
    library = biasamp.audit(**keywords)
    path = tmp_path / "measure.json"
    assert main([*_flags(keywords), "--json", str(path)]) == 0
    capsys.readouterr()
    document = json.loads(path.read_text(encoding="utf-8"))
    jsonschema.validate(document, load_schema(SCHEMA_FILE), cls=jsonschema.Draft202012Validator)
    # the file is exactly AuditResult.to_dict(), written by the command
    assert document["command"] == "measure"
    expected = library.to_dict()
    assert expected["command"] == "audit"
    assert {k: v for k, v in document.items() if k != "command"} == {
        k: v for k, v in expected.items() if k != "command"
    }
    # metric by metric
    assert list(document["results"]) == list(library.results)
    for key, record in document["results"].items():
        assert record == expected["results"][key], key
        assert record["key"] == key == biasamp.metric_card(key).name
        value = float(library[key].value)
        assert record["value"] == pytest.approx(value, rel=0, abs=0) or np.isnan(value)
    # read back: an AuditResult equal to the library's
    loaded = biasamp.load_result(path)
    assert isinstance(loaded, biasamp.AuditResult)
    assert loaded == library
    assert list(loaded) == list(library)
    for key in library:
        assert float(loaded[key].value) == pytest.approx(float(library[key].value), nan_ok=True)


def test_the_case_metrics_are_the_real_result_types(files):
    result = biasamp.audit(
        **_resolve(CASES["differential fairness of intersections, attackers"], files)
    )
    assert type(result["differential-fairness"]) is biasamp.DifferentialFairnessResult
    assert type(result["dpa-a2t"]) is biasamp.PredictabilityResult
    result = biasamp.audit(**_resolve(CASES["indicators joined on an id, multi-attribute"], files))
    assert type(result["multi-mals"]) is biasamp.MultiAttributeResult
    assert type(result["mals"]) is biasamp.PairwiseResult


def test_compare_names_a_library_audit_and_the_cli_json_alike(files, tmp_path, capsys):
    keywords = _resolve(CASES["categorical, streamed"], files)
    path = tmp_path / "measure.json"
    assert main([*_flags(keywords), "--json", str(path)]) == 0
    capsys.readouterr()
    table = biasamp.compare({"lib": biasamp.audit(**keywords), "cli": str(path)})
    lib = table[table["model"] == "lib"].set_index("metric")["value"]
    cli = table[table["model"] == "cli"].set_index("metric")["value"]
    assert list(lib.index) == list(cli.index) == ["mals", "directional-a2t", "directional-t2a"]
    assert np.allclose(lib.to_numpy(), cli.to_numpy())
