"""Scale-free weights: multiplying every weight by a constant changes no metric.

The metrics are ratios of counts, so ``sample_weight * c`` must give the same
value as ``sample_weight`` for any ``c`` float64 can hold the totals of; where
it cannot, a clear error names the weights (never a NaN behind overflow
warnings).
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from biasamp import (
    CountTable,
    directional,
    mals,
    multi_directional,
    multi_mals,
    threshold_sweep,
)
from biasamp.counts._count_table import ERR_COUNT_OVERFLOW

GROUPS = ("man", "woman")
TASKS = ("cook", "ski", "cup")


def _split(rng: np.random.Generator, n: int) -> dict[str, object]:
    groups = rng.choice(GROUPS, size=n)
    bias = np.where(groups == "man", 0.35, 0.65)
    tasks = (rng.random((n, len(TASKS))) < bias[:, None]).astype(int)
    tasks[tasks.sum(axis=1) == 0, 0] = 1  # every row has a task
    flip = rng.random(n) < 0.2
    groups_pred = np.where(flip, np.where(groups == "man", "woman", "man"), groups)
    noise = rng.random((n, len(TASKS))) < 0.15
    tasks_pred = np.where(noise, 1 - tasks, tasks)
    return {
        "groups": groups,
        "tasks": pd.DataFrame(tasks, columns=list(TASKS)),
        "groups_pred": groups_pred,
        "tasks_pred": pd.DataFrame(tasks_pred, columns=list(TASKS)),
        "scores": np.clip(tasks * 0.6 + rng.random((n, len(TASKS))) * 0.5, 0, 1),
    }


def _metrics(
    train: dict, test: dict, w_train: np.ndarray, w: np.ndarray, unit: float = 1.0
) -> dict[str, float]:
    """Every metric at weights ``w_train``, ``w``; ``unit`` is the weight of one row, the unit
    of the multi-attribute ``min_count`` (a threshold in the weights' unit, not a tolerance)."""
    common = {"sample_weight": w, "group_names": GROUPS, "task_names": TASKS}
    multi = {"min_count": unit}
    single_train = {
        "groups_train": train["groups"],
        "tasks_train": train["tasks"],
        "sample_weight_train": w_train,
    }
    out = {
        "mals": mals(
            groups_pred=test["groups_pred"], tasks_pred=test["tasks_pred"], **single_train, **common
        ).value,
    }
    for direction in ("A->T", "T->A"):
        out[f"directional {direction}"] = directional(
            direction=direction,
            groups=test["groups"],
            tasks=test["tasks"],
            groups_pred=test["groups_pred"],
            tasks_pred=test["tasks_pred"],
            **single_train,
            **common,
        ).value
        out[f"multi {direction}"] = multi_directional(
            direction=direction,
            groups=test["groups"],
            tasks=test["tasks"],
            groups_pred=test["groups_pred"],
            tasks_pred=test["tasks_pred"],
            **single_train,
            **common,
            **multi,
        ).value
    out["multi mals"] = multi_mals(
        tasks=test["tasks"],
        groups_pred=test["groups_pred"],
        tasks_pred=test["tasks_pred"],
        **single_train,
        **common,
        **multi,
    ).value
    sweep = threshold_sweep(
        "directional",
        thresholds=[0.3, 0.5, 0.7],
        tasks_scores=pd.DataFrame(test["scores"], columns=list(TASKS)),
        direction="A->T",
        groups=test["groups"],
        tasks=test["tasks"],
        **single_train,
        **common,
    )
    out.update(
        {
            f"sweep {t}": v
            for t, v in zip(sweep.table["threshold"], sweep.table["value"], strict=True)
        }
    )
    return out


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32 - 1),
    exponent=st.floats(-300, 300, allow_nan=False),
    uniform=st.booleans(),
)
def test_scaling_every_weight_changes_no_metric(seed, exponent, uniform):
    rng = np.random.default_rng(seed)
    train, test = _split(rng, 60), _split(rng, 40)
    if uniform:
        w_train, w = np.ones(60), np.ones(40)
    else:
        w_train, w = rng.uniform(0.1, 10, 60), rng.uniform(0.1, 10, 40)
    factor = 10.0**exponent
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # no silent overflow on the way
        base = _metrics(train, test, w_train, w)
        scaled = _metrics(train, test, w_train * factor, w * factor, unit=factor)
    for key, value in base.items():
        assert np.isfinite(value), key
        assert abs(scaled[key] - value) <= 1e-9, (key, value, scaled[key], factor)


@pytest.mark.parametrize("factor", [1e-9, 1e-300, 1e300])
def test_uniform_tiny_or_huge_weights_equal_unit_weights(factor):
    """The case that once failed: uniform weights of 1e-9 gave 0.0 where unit weights give -0.0636."""
    rng = np.random.default_rng(0)
    train, test = _split(rng, 200), _split(rng, 100)
    base = _metrics(train, test, np.ones(200), np.ones(100))
    scaled = _metrics(train, test, np.full(200, factor), np.full(100, factor), unit=factor)
    assert base["directional A->T"] != 0.0
    for key, value in base.items():
        assert scaled[key] == pytest.approx(value, abs=1e-12), key


def test_exact_ties_stay_ties_at_any_scale():
    """b* = 1/|G| exactly and P(a,t) = P(a)P(t) exactly: not biased, sign 0, at any scale."""
    groups = ["m", "w", "m", "w"]
    tasks = ["cook", "cook", "ski", "ski"]
    for factor in (1.0, 0.1, 3e-7, 1e-300, 7e299):
        w = np.full(4, factor)
        result = mals(
            groups_train=groups,
            tasks_train=tasks,
            groups_pred=groups,
            tasks_pred=tasks,
            sample_weight_train=w,
            sample_weight=w,
        )
        assert not result.by_pair["biased"].any()
        d = directional(
            direction="A->T",
            groups=groups,
            tasks=tasks,
            tasks_pred=tasks,
            sample_weight=w,
        )
        assert (d.by_pair["y"] == 0).all() if "y" in d.by_pair else d.value == 0.0


def test_weights_whose_totals_overflow_raise_a_clear_error():
    rng = np.random.default_rng(1)
    train, test = _split(rng, 30), _split(rng, 20)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        with pytest.raises(ValueError) as info:
            _metrics(train, test, np.full(30, 1e308), np.full(20, 1e308))
    assert str(info.value).startswith(ERR_COUNT_OVERFLOW.split("{")[0])
    with pytest.raises(ValueError, match="overflow float64"):
        CountTable.from_arrays(groups=["a", "b"], tasks=["t", "t"], sample_weight=[1e308, 1e308])
