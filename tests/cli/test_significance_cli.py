"""``biasamp measure --n-perm``: the p-value in words on the terminal and in the JSON."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

from tests.cli.conftest import run_cli


def test_measure_n_perm_prints_and_writes_the_p_value(tmp_path):
    rng = np.random.default_rng(0)
    n = 300
    gender = rng.choice(["m", "w"], n)
    cup = (rng.random(n) < np.where(gender == "m", 0.3, 0.6)).astype(int)
    pred_cup = np.where(rng.random(n) < 0.4, (gender == "w").astype(int), cup)
    pd.DataFrame(
        {
            "gender": gender,
            "cup": cup,
            "ski": 1 - cup,
            "pred_cup": pred_cup,
            "pred_ski": 1 - pred_cup,
        }
    ).to_csv(tmp_path / "test.csv", index=False)
    proc = run_cli(
        "measure", "test.csv", "--group", "gender", "--task-cols", "cup,ski",
        "--pred-prefix", "pred_", "--n-perm", "99", "--min-group-size", "0",
        "--json", "out.json", cwd=tmp_path,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "directional-a2t: distinguishable from chance: p = 0.01 (null mean" in proc.stdout
    record = json.loads((tmp_path / "out.json").read_text(encoding="utf-8"))
    assert record["settings"]["n_perm"] == 99
    a2t = record["results"]["directional-a2t"]
    assert a2t["p_value"] == 0.01 and a2t["chance"].startswith("distinguishable")
    bad = run_cli("measure", "test.csv", "--group", "gender", "--n-perm", "-3", cwd=tmp_path)
    assert bad.returncode == 2 and "--n-perm" in bad.stderr
