"""Differential fairness from files: ``metrics=["differential-fairness", "df-amplification"]``.

Several group columns make their intersections the groups, as ``biasamp.intersect``
does, and ``missing="category"`` (``--missing category``) keeps a missing value as
the group ``"<missing>"``, as ``intersect(missing="category")`` does; the values equal
the metric functions' on the same rows, and ``measure`` and ``report`` compute them.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import biasamp
from biasamp.cli.main import main
from biasamp.engines._file_reader import ERR_MISSING_VALUES
from biasamp.inputs._intersect import MISSING_LEVEL


@pytest.fixture
def people(tmp_path):
    rng = np.random.default_rng(9)
    n = 300
    frame = pd.DataFrame(
        {
            "race": rng.choice(["a", "b", "c"], n).astype(object),
            "sex": rng.choice(["f", "m"], n),
            "outcome": rng.choice(["yes", "no"], n, p=[0.3, 0.7]),
        }
    )
    frame.loc[[2, 50, 51], "race"] = None
    flip = rng.random(n) < 0.2
    frame["pred_outcome"] = np.where(
        flip, np.where(frame["outcome"] == "yes", "no", "yes"), frame["outcome"]
    )
    frame["pred_race"], frame["pred_sex"] = frame["race"], frame["sex"]
    path = tmp_path / "people.csv"
    frame.to_csv(path, index=False)
    return path, frame


def test_values_equal_the_metric_functions_on_intersect(people):
    path, frame = people
    result = biasamp.audit(
        path,
        group="race,sex",
        task="outcome",
        pred_prefix="pred_",
        metrics=["differential-fairness", "dfa"],
        missing="category",
        min_group_size=None,
    )
    assert list(result) == ["differential-fairness", "df-amplification"]
    groups = biasamp.intersect(frame[["race", "sex"]], missing="category")
    expected = biasamp.differential_fairness(
        groups=groups, labels=frame["outcome"], min_group_size=None
    )
    amplification = biasamp.differential_fairness_amplification(
        groups=groups,
        labels=frame["outcome"],
        labels_pred=frame["pred_outcome"],
        min_group_size=None,
    )
    assert result["differential-fairness"].value == pytest.approx(expected.value, abs=1e-12)
    assert result["df-amplification"].value == pytest.approx(amplification.value, abs=1e-12)
    assert f"{MISSING_LEVEL} x f" in result["df-amplification"].groups
    # epsilon by hand from the rates: the largest absolute log-ratio of a class's rate
    rates = result["differential-fairness"].rates
    log_rates = np.log(rates.pivot(index="group", columns="label", values="rate_labels"))
    by_hand = max(float(log_rates[c].max() - log_rates[c].min()) for c in log_rates)
    assert result["differential-fairness"].value == pytest.approx(by_hand, abs=1e-12)


def test_a_missing_value_is_an_error_naming_the_row_without_the_category(people, capsys):
    path, _ = people
    with pytest.raises(ValueError) as caught:
        biasamp.audit(path, group="race,sex", task="outcome", metrics="differential-fairness")
    assert str(caught.value) == ERR_MISSING_VALUES.format(file=path, column="race", count=3, row=3)
    args = ["measure", str(path), "--group", "race,sex", "--task", "outcome"]
    assert main([*args, "--metric", "differential-fairness"]) == 2
    assert "column 'race': 3 missing value(s)" in capsys.readouterr().err


def test_measure_and_report_compute_them(people, tmp_path, capsys):
    pytest.importorskip("matplotlib")
    path, _ = people
    args = ["--group", "race,sex", "--task", "outcome", "--pred-prefix", "pred_"]
    args += ["--metric", "differential-fairness", "--metric", "df-amplification"]
    args += ["--missing", "category", "--min-group-size", "none", "--no-progress"]
    assert main(["measure", str(path), *args, "--json", str(tmp_path / "m.json")]) == 0
    html, out = tmp_path / "r.html", tmp_path / "r.json"
    assert main(["report", str(path), *args, "--html", str(html), "--json", str(out)]) == 0
    capsys.readouterr()
    measured = json.loads((tmp_path / "m.json").read_text(encoding="utf-8"))
    reported = json.loads(out.read_text(encoding="utf-8"))
    assert list(measured["results"]) == ["differential-fairness", "df-amplification"]
    assert measured["results"] == reported["results"]
    assert measured["settings"]["missing"] == "category"
    record = measured["results"]["df-amplification"]
    assert record["metric"] == "df-amplification"
    assert record["family"] == "differential_fairness_amplification"
    assert record["extras"]["epsilon_pred"] - record["extras"]["epsilon_labels"] == pytest.approx(
        record["value"]
    )
    assert "differential-fairness" in html.read_text(encoding="utf-8")


def test_one_task_per_row_is_needed(people):
    path, frame = people
    frame.assign(cup=1, pred_cup=0).to_csv(path, index=False)
    with pytest.raises(ValueError) as caught:
        biasamp.audit(
            path,
            group="sex",
            task_cols="cup",
            pred_prefix="pred_",
            metrics="differential-fairness",
        )
    assert str(caught.value) == (
        'metrics="differential-fairness": needs tasks_single (one task per row: task=).'
    )
