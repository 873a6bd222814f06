"""Labels shown in the terminal: a bidirectional override or other invisible character
in a label is printed escaped (``\\u202e``), never raw."""

from __future__ import annotations

import numpy as np
import pandas as pd

from .conftest import run_cli

RLO = "\u202e"


def test_bidi_labels_are_escaped_in_the_terminal(tmp_path):
    rng = np.random.default_rng(3)
    n = 120
    frame = pd.DataFrame(
        {
            "gender": rng.choice([f"m{RLO}an", "wo\u200bman"], n),
            "activity": rng.choice([f"cook{RLO}ing", "ski", "surf"], n),
        }
    )
    frame.to_csv(tmp_path / "train.csv", index=False)
    frame.assign(
        pred_gender=frame["gender"], pred_activity=rng.permutation(frame["activity"].to_numpy())
    ).to_csv(tmp_path / "test.csv", index=False)
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
        "--metric",
        "mals",
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    assert RLO not in proc.stdout and "\u200b" not in proc.stdout
    assert "m\\u202ean" in proc.stdout and "cook\\u202eing" in proc.stdout
    assert "wo\\u200bman" in proc.stdout


def test_bidi_names_in_error_messages_are_escaped(tmp_path):
    # the message names the file as given (not as a repr): the override must not reach the
    # terminal raw
    name = f"te{RLO}st.csv"
    pd.DataFrame({"gender": ["m", "w"], "activity": ["a", "b"]}).to_csv(
        tmp_path / name, index=False
    )
    proc = run_cli("measure", name, "--group", "sex", "--task", "activity", cwd=tmp_path)
    assert proc.returncode == 2
    assert RLO not in proc.stderr and "te\\u202est.csv" in proc.stderr
