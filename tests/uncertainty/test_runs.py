"""Tests of biasamp.across_runs (values worked out by hand)."""

from __future__ import annotations

import json
import math
import re

import numpy as np
import pandas as pd
import pytest

import biasamp
from biasamp import across_runs
from biasamp.registry import METRICS
from biasamp.uncertainty._runs import (
    ERR_COLUMN_NUMERIC,
    ERR_FEW_RUNS,
    ERR_MIXED_METRICS,
    ERR_NOT_FINITE,
)

# t_{4, 0.975} = 2.7764451051977987 (tables); 1.96 is the papers' constant
T4 = 2.7764451051977987


def test_five_runs_by_hand():
    s = across_runs([0.1, 0.2, 0.3, 0.4, 0.5])
    assert s.n_runs == 5 and s.mean == pytest.approx(0.3)
    # deviations -0.2..0.2: sum of squares 0.1; population var 0.02, sample var 0.025
    assert s.std == pytest.approx(math.sqrt(0.02))
    assert s.std_sample == pytest.approx(math.sqrt(0.025))
    half_papers = 1.96 * math.sqrt(0.02) / math.sqrt(5)  # 0.123961...
    half_t = T4 * math.sqrt(0.025) / math.sqrt(5)  # 0.196324...
    assert s.ci_papers == pytest.approx((0.3 - half_papers, 0.3 + half_papers))
    assert s.ci_t == pytest.approx((0.3 - half_t, 0.3 + half_t))
    assert half_papers == pytest.approx(0.1239613, abs=1e-7)
    assert half_t == pytest.approx(0.1963243, abs=1e-7)
    assert float(s) == pytest.approx(0.3)
    text = repr(s)
    assert "papers' convention (1.96 x population std / sqrt(n))" in text
    assert "Student t" in text and "+0.1760" in text and "+0.4963" in text


def test_other_level_uses_normal_and_t_quantiles():
    s = across_runs([1.0, 3.0], ci=0.9)
    # mean 2, population std 1, sample std sqrt(2); z_0.95 = 1.6448536, t_{1,0.95} = 6.3137515
    assert s.ci_papers == pytest.approx(
        (2 - 1.6448536 / math.sqrt(2), 2 + 1.6448536 / math.sqrt(2))
    )
    assert s.ci_t == pytest.approx((2 - 6.3137515, 2 + 6.3137515), rel=1e-7)


def _run(seed: int) -> biasamp.PairwiseResult:
    rng = np.random.default_rng(seed)
    n = 300
    groups = rng.choice(["m", "w"], size=n)
    tasks = pd.DataFrame((rng.random((n, 3)) < 0.3).astype(int), columns=["a", "b", "c"])
    pred = tasks.where(rng.random((n, 3)) > 0.1, 1 - tasks)
    return biasamp.directional(direction="A->T", groups=groups, tasks=tasks, tasks_pred=pred)


def test_per_pair_summary_matches_hand_computation():
    runs = [_run(s) for s in range(4)]
    summary = across_runs(runs)
    assert summary.metric == "directional-a2t" and summary.family == "directional"
    assert summary.direction == "A->T"
    assert summary.mean == pytest.approx(np.mean([r.value for r in runs]))
    pairs = summary.by_pair
    assert set(pairs["quantity"]) == {"delta", "contribution"}
    assert len(pairs) == 6 * 2
    row = pairs[(pairs.group == "w") & (pairs.task == "b") & (pairs.quantity == "delta")].iloc[0]
    deltas = np.array(
        [r.by_pair.set_index(["group", "task"]).loc[("w", "b"), "delta"] for r in runs]
    )
    assert row["mean"] == pytest.approx(deltas.mean())
    assert row["std"] == pytest.approx(deltas.std())
    half_t = 3.182446305284263 * deltas.std(ddof=1) / 2  # t_{3, 0.975}
    assert (row["t_low"], row["t_high"]) == pytest.approx(
        (deltas.mean() - half_t, deltas.mean() + half_t)
    )
    assert row["papers_high"] == pytest.approx(deltas.mean() + 1.96 * deltas.std() / 2)
    assert row["n_runs"] == 4
    json.dumps(summary.to_dict())


def test_pairs_are_matched_by_name_not_position():
    runs = [_run(s) for s in range(3)]
    shuffled = runs[2].by_pair.iloc[::-1].reset_index(drop=True)
    runs[2] = biasamp.PairwiseResult(
        metric="directional", value=runs[2].value, by_pair=shuffled, direction="A->T"
    )
    a = across_runs(runs).by_pair
    b = across_runs([_run(s) for s in range(3)]).by_pair
    pd.testing.assert_frame_equal(a, b)


def test_nan_pairs_are_left_out_per_pair():
    runs = [_run(s) for s in range(3)]
    frame = runs[0].by_pair.copy()
    frame.loc[0, "delta"] = np.nan
    runs[0] = biasamp.PairwiseResult(
        metric="directional", value=runs[0].value, by_pair=frame, direction="A->T"
    )
    pairs = across_runs(runs).by_pair
    first = pairs[
        (pairs.group == frame.group[0])
        & (pairs.task == frame.task[0])
        & (pairs.quantity == "delta")
    ].iloc[0]
    assert first["n_runs"] == 2
    others = [r.by_pair.loc[0, "delta"] for r in runs[1:]]
    assert first["mean"] == pytest.approx(np.mean(others))


def test_errors():
    with pytest.raises(ValueError, match=ERR_FEW_RUNS.format(n=1)):
        across_runs([0.1])
    with pytest.raises(ValueError, match="NaN or infinite"):
        across_runs([0.1, float("nan")])
    assert "run(s)" in ERR_NOT_FINITE
    with pytest.raises(TypeError, match=r"results\[1\]"):
        across_runs([0.1, "0.2"])
    mals_run = biasamp.mals(
        groups_train=["m", "w"],
        tasks_train=["a", "a"],
        groups_pred=["m", "w"],
        tasks_pred=["a", "a"],
    )
    with pytest.raises(ValueError) as info:
        across_runs([_run(0), mals_run])
    assert str(info.value) == ERR_MIXED_METRICS.format(a=_run(0).metric_name, b="mals")
    assert _run(0).metric_name in METRICS  # the registry's names, not (family, direction)
    with pytest.raises(ValueError, match="different metrics"):
        across_runs([_run(0), 0.3])
    with pytest.raises(ValueError, match="columns"):
        across_runs([_run(0), _run(1)], columns=["nope"])
    with pytest.raises(ValueError, match="other \\(group, task\\) pairs"):
        other = biasamp.directional(
            direction="A->T", groups=["m", "w"], tasks=["x", "y"], tasks_pred=["x", "y"]
        )
        across_runs([_run(0), other])


def test_multi_attribute_and_predictability_results_are_summarised_by_value():
    # They used to raise TypeError although they are metric results.
    from biasamp import dpa, multi_directional

    rng = np.random.default_rng(0)
    multi, predict = [], []
    for seed in range(3):
        groups = rng.choice(["m", "w"], 80)
        tasks = rng.choice(["a", "b"], 80)
        tasks_pred = rng.choice(["a", "b"], 80)
        groups_pred = rng.choice(["m", "w"], 80)
        multi.append(
            multi_directional(
                direction="A->T",
                groups_train=groups,
                tasks_train=tasks,
                groups=groups,
                tasks=tasks,
                tasks_pred=tasks_pred,
            )
        )
        predict.append(
            dpa(
                direction="T->A",
                groups=groups,
                tasks=tasks,
                groups_pred=groups_pred,
                tasks_pred=tasks_pred,
                n_iter=2,
                random_state=seed,
            )
        )
    for runs in (multi, predict):
        summary = across_runs(runs)
        values = np.array([r.value for r in runs])
        assert summary.mean == pytest.approx(values.mean())
        assert summary.std == pytest.approx(values.std())
        assert summary.metric == runs[0].metric
        assert summary.by_pair is None
    with pytest.raises(ValueError, match="different metrics"):
        across_runs([multi[0], predict[0]])
    with pytest.raises(ValueError, match="different metrics"):
        across_runs([multi[0], 0.1])


def test_columns_as_one_name_and_non_numeric_columns():
    # columns="delta" used to be read as the columns 'd', 'e', ...; columns=["group"]
    # failed with a pandas KeyError.
    runs = [_run(s) for s in range(3)]
    one = across_runs(runs, columns="delta").by_pair
    listed = across_runs(runs, columns=["delta"]).by_pair
    pd.testing.assert_frame_equal(one, listed)
    assert set(one["quantity"]) == {"delta"}
    for column in ("group", "task"):
        with pytest.raises(ValueError, match=re.escape(ERR_COLUMN_NUMERIC.format(column=column))):
            across_runs(runs, columns=[column])
