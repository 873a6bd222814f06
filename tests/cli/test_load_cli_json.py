"""``biasamp.load_result`` reads the command line's ``--json`` document."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import biasamp
from biasamp.cli.main import main

from .test_measure_report import worked_example


def test_load_result_reads_measure_json(tmp_path):
    train, test = worked_example()
    train.to_csv(tmp_path / "train.csv", index=False)
    test.to_csv(tmp_path / "test.csv", index=False)
    code = main(
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
            "--metric",
            "mals",
            "--metric",
            "t2a",
            "--metric",
            "dpa-t2a",
            "--n-boot",
            "50",
            "--json",
            str(tmp_path / "out.json"),
        ]
    )
    assert code == 0
    results = biasamp.load_result(tmp_path / "out.json")
    assert set(results) == {"mals", "directional-t2a", "dpa-t2a"}
    kw = {
        "groups_train": train["gender"],
        "tasks_train": train["activity"],
        "groups_pred": test["pred_gender"],
        "tasks_pred": test["pred_activity"],
    }
    library = biasamp.mals(**kw)
    loaded = results["mals"]
    assert isinstance(loaded, biasamp.PairwiseResult)
    assert loaded.value == pytest.approx(0.14, abs=1e-12) == library.value
    assert loaded.ci is not None and loaded.ci[0] <= loaded.value <= loaded.ci[1]
    assert loaded.extras["violations"] == 2
    pd.testing.assert_series_equal(
        loaded.by_pair["contribution"], library.by_pair["contribution"], check_exact=False
    )
    assert results["directional-t2a"].direction == "T->A"
    assert results["directional-t2a"].value == pytest.approx(0.14, abs=1e-12)
    dpa = results["dpa-t2a"]
    assert isinstance(dpa, biasamp.PredictabilityResult)
    doc = json.loads((tmp_path / "out.json").read_text())
    record = next(m for m in list(doc["results"].values()) if m["key"] == "dpa-t2a")
    np.testing.assert_allclose(dpa.values, record["values"])
    assert dpa.psi_d == pytest.approx(record["extras"]["psi_d"])
    one = biasamp.load_result(tmp_path / "out.json", metric="mals")
    assert one.to_dict() == loaded.to_dict()
    with pytest.raises(ValueError, match="holds the metrics"):
        biasamp.load_result(tmp_path / "out.json", metric="nope")


def test_load_result_reads_multi_attribute_records(tmp_path):
    rng = np.random.default_rng(3)
    n = 300
    frame = pd.DataFrame({"gender": rng.choice(["man", "woman"], n)})
    for task in ("cup", "ski", "fork"):
        frame[task] = (rng.random(n) < 0.4).astype(int)
        frame[f"pred_{task}"] = (rng.random(n) < 0.4).astype(int)
    frame["pred_gender"] = rng.choice(["man", "woman"], n)
    frame.to_csv(tmp_path / "data.csv", index=False)
    code = main(
        [
            "measure",
            str(tmp_path / "data.csv"),
            "--train",
            str(tmp_path / "data.csv"),
            "--group",
            "gender",
            "--task-cols",
            "cup,ski,fork",
            "--pred-prefix",
            "pred_",
            "--metric",
            "multi-mals",
            "--json",
            str(tmp_path / "out.json"),
        ]
    )
    assert code == 0
    multi = biasamp.load_result(tmp_path / "out.json", metric="multi-mals")
    assert isinstance(multi, biasamp.MultiAttributeResult)
    tasks = frame[["cup", "ski", "fork"]]
    preds = frame[["pred_cup", "pred_ski", "pred_fork"]].set_axis(["cup", "ski", "fork"], axis=1)
    expected = biasamp.multi_mals(
        groups=frame["gender"],
        tasks=tasks,
        groups_train=frame["gender"],
        tasks_train=tasks,
        groups_pred=frame["pred_gender"],
        tasks_pred=preds,
    )
    assert multi.value == pytest.approx(expected.value)
    assert multi.variance == pytest.approx(expected.variance)
    assert multi.n_combinations == expected.n_combinations
    assert list(multi.by_combination["combination"]) == [
        tuple(str(t) for t in c) for c in expected.by_combination["combination"]
    ]
    pd.testing.assert_frame_equal(multi.by_size, expected.by_size, check_dtype=False)
