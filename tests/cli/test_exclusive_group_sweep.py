"""The report's threshold sweep with exclusive group score columns (``--group-cols``).

Worked example: 10 training and 10 test images, 4 men and 6 women, everyone cooking
(``b*(cook, woman) = 0.6``, the only biased pair). Test scores: woman
``0.02, 0.12, ..., 0.92`` and man ``1 - woman``; the task score is 0.99 (cooking is
always predicted). ``woman`` is the positive group (second in sorted order), so at a
threshold t the images with woman score > t are women and the others men, and

    BiasAmp_MALS(t) = #{woman score > t} / 10 - 0.6,

e.g. 9/10 - 0.6 = 0.3 at t = 0.05 and 0/10 - 0.6 = -0.6 at t = 0.95. Thresholding each
column separately would predict some images both groups and others neither.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from biasamp.auditing._run import threshold_sweeps
from biasamp.auditing._sweeps import SWEEP_GRID
from biasamp.cli.main import main
from biasamp.engines._exclusive_groups import (
    ERR_POSITIVE_GROUP,
    exclusive_group_predictions,
    groups_are_exclusive,
)

WOMAN = np.round(0.02 + 0.1 * np.arange(10), 2)


def write_files(tmp_path):
    man = np.array([1, 0, 1, 0, 1, 0, 1, 0, 0, 0])
    truth = pd.DataFrame({"man": man, "woman": 1 - man, "cook": 1})
    truth.to_csv(tmp_path / "train.csv", index=False)
    test = truth.copy()
    test["pred_man"] = np.round(1 - WOMAN, 2)
    test["pred_woman"] = WOMAN
    test["pred_cook"] = 0.99
    test.to_csv(tmp_path / "test.csv", index=False)


def report(tmp_path, *extra):
    code = main(
        [
            "report",
            str(tmp_path / "test.csv"),
            "--train",
            str(tmp_path / "train.csv"),
            "--group-cols",
            "man,woman",
            "--task-cols",
            "cook",
            "--pred-prefix",
            "pred_",
            "--threshold",
            "0.5",
            "--metric",
            "mals",
            "--json",
            str(tmp_path / "out.json"),
            "--html",
            str(tmp_path / "report.html"),
            *extra,
        ]
    )
    return code, json.loads((tmp_path / "out.json").read_text())


def test_two_exclusive_groups_sweep_the_positive_groups_score(tmp_path):
    write_files(tmp_path)
    code, doc = report(tmp_path)
    assert code == 0
    table = pd.DataFrame(doc["sweeps"]["mals"]["table"])
    np.testing.assert_allclose(table["threshold"], SWEEP_GRID)
    above = {0.05: 9, 0.10: 9, 0.15: 8, 0.20: 8, 0.25: 7, 0.30: 7, 0.35: 6, 0.40: 6, 0.45: 5}
    above |= {0.50: 5, 0.55: 4, 0.60: 4, 0.65: 3, 0.70: 3, 0.75: 2, 0.80: 2, 0.85: 1, 0.90: 1}
    above |= {0.95: 0}
    expected = [above[round(t, 2)] / 10 - 0.6 for t in table["threshold"]]
    np.testing.assert_allclose(table["value"], expected, atol=1e-12)
    # the headline numbers use the same rule at the --threshold: 5 women of 10
    mals = next(m for m in list(doc["results"].values()) if m["key"] == "mals")
    assert mals["value"] == pytest.approx(0.5 - 0.6)


def test_positive_group_option_sweeps_the_other_column(tmp_path):
    write_files(tmp_path)
    code, doc = report(tmp_path, "--positive-group", "man")
    assert code == 0
    table = pd.DataFrame(doc["sweeps"]["mals"]["table"])
    # man is predicted when 1 - woman score > t: the women are those with woman >= 1 - t
    women = [(np.round(1 - WOMAN, 2) <= t).sum() for t in table["threshold"]]
    np.testing.assert_allclose(table["value"], np.array(women) / 10 - 0.6, atol=1e-12)


def test_unknown_positive_group_is_an_error(tmp_path, capsys):
    write_files(tmp_path)
    args = ["measure", str(tmp_path / "test.csv"), "--train", str(tmp_path / "train.csv")]
    args += ["--group-cols", "man,woman", "--task-cols", "cook", "--pred-prefix", "pred_"]
    assert main([*args, "--threshold", "0.5", "--positive-group", "child"]) != 0
    assert "--positive-group: 'child' is not one of the group columns" in capsys.readouterr().err


def test_every_row_is_in_exactly_one_group_at_every_threshold():
    rng = np.random.default_rng(0)
    for n_groups in (2, 3, 4):
        scores = rng.random((200, n_groups))
        names = [f"g{k}" for k in range(n_groups)]
        for t in SWEEP_GRID:
            pred = exclusive_group_predictions(scores, names, {}, default=float(t))
            assert (pred.sum(axis=1) == 1).all()
            if n_groups == 2:  # g1 (second in sorted order) iff its score is above t
                np.testing.assert_array_equal(pred[:, 1], scores[:, 1] > t)
            else:  # a common threshold leaves the argmax unchanged
                np.testing.assert_array_equal(pred.argmax(axis=1), scores.argmax(axis=1))
    assert groups_are_exclusive(np.eye(3)[[0, 1, 2, 1]])
    assert not groups_are_exclusive(np.array([[1, 1], [0, 1]]))
    assert not groups_are_exclusive(None)
    with pytest.raises(ValueError, match="positive_group="):
        exclusive_group_predictions(scores[:, :2], ["a", "b"], {}, default=0.5, positive="c")
    assert "{names}" in ERR_POSITIVE_GROUP


def test_three_exclusive_groups_keep_the_argmax_decision(tmp_path):
    rng = np.random.default_rng(1)
    n = 60
    group = rng.integers(0, 3, n)
    truth = pd.DataFrame(np.eye(3, dtype=int)[group], columns=["a", "b", "c"])
    truth["cook"] = (rng.random(n) < 0.5).astype(int)
    truth.to_csv(tmp_path / "train.csv", index=False)
    test = truth.copy()
    scores = rng.random((n, 3))
    for k, name in enumerate("abc"):
        test[f"pred_{name}"] = scores[:, k]
    test["pred_cook"] = rng.random(n)
    test.to_csv(tmp_path / "test.csv", index=False)
    from biasamp.auditing._inputs import Layout, load_audit

    layout = Layout(group_cols=("a", "b", "c"), task_cols=("cook",), pred_prefix="pred_")
    data = load_audit(
        layout, data=tmp_path / "test.csv", train=tmp_path / "train.csv", threshold=0.5
    )
    assert data.exclusive_groups
    np.testing.assert_array_equal(
        np.asarray(data.groups_pred).argmax(axis=1), scores.argmax(axis=1)
    )
    assert (np.asarray(data.groups_pred).sum(axis=1) == 1).all()
    import biasamp

    results = {
        "mals": biasamp.mals(
            groups_train=data.groups_train,
            tasks_train=data.tasks_train,
            groups_pred=data.groups_pred,
            tasks_pred=data.tasks_pred,
            **data.names(),
        )
    }
    sweeps = threshold_sweeps(data, results)
    cook = test[["pred_cook"]].to_numpy()
    expected = [
        biasamp.mals(
            groups_train=data.groups_train,
            tasks_train=data.tasks_train,
            groups_pred=data.groups_pred,
            tasks_pred=(cook > t).astype(np.uint8),
            **data.names(),
        ).value
        for t in sweeps["mals"].thresholds
    ]
    np.testing.assert_allclose(sweeps["mals"].values, expected, atol=1e-12)
