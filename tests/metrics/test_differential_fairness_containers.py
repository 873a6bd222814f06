"""differential_fairness with empty groups (``empty_groups="drop"`` / ``"smooth"``): groups,
labels and weights in every container give the numpy value. A group is empty when its rows
all have weight 0 or when only ``group_names`` names it; declared but unused categories of
a Categorical / Enum / Arrow dictionary are not groups (they give the numpy value)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from biasamp import differential_fairness
from tests.inputs.test_containers import CODES, ONE_D

pl = pytest.importorskip("polars")
torch = pytest.importorskip("torch")

N = 240
RNG = np.random.default_rng(9)
# groups m, w, c (codes 0, 1, 2 in the integer containers); every group mostly label "a",
# so a kept empty group (rate 1/K for every label) moves epsilon
GROUPS = RNG.choice(np.array(["m", "w", "c"]), N, p=[0.4, 0.4, 0.2])
LABELS = np.where(
    GROUPS == "m",
    RNG.choice(np.array(["a", "b", "c"]), N, p=[0.9, 0.05, 0.05]),
    RNG.choice(np.array(["a", "b", "c"]), N, p=[0.8, 0.15, 0.05]),
)
WEIGHTS = np.where(GROUPS == "c", 0.0, RNG.integers(1, 4, N).astype(float))  # c: empty
QUIET: dict[str, Any] = {"min_group_size": None}

WEIGHT_CONTAINERS = {
    "numpy": lambda x: x,
    "list": lambda x: x.tolist(),
    "pandas_series": pd.Series,
    "pandas_nullable_float": lambda x: pd.Series(x, dtype="Float64"),
    "polars_series": pl.Series,
    "torch": torch.tensor,
}


def _value(groups: Any, labels: Any, weights: Any, empty_groups: str, **kw: Any) -> Any:
    result = differential_fairness(
        groups=groups,
        labels=labels,
        sample_weight=weights,
        empty_groups=empty_groups,
        **QUIET,
        **kw,
    )
    # the pairs' log-ratios, as a set: integer containers order and orient the pairs by code
    return result.value, np.sort(
        np.abs(result.by_pair.select_dtypes("number").to_numpy()), axis=None
    )


@pytest.fixture(scope="module")
def reference() -> dict[str, Any]:
    out = {e: _value(GROUPS, LABELS, WEIGHTS, e) for e in ("drop", "smooth")}
    assert out["smooth"][0] > out["drop"][0] > 0  # the kept empty group matters
    return out


@pytest.mark.parametrize("empty_groups", ["drop", "smooth"])
@pytest.mark.parametrize("container", list(ONE_D))
def test_groups_and_labels_in_every_container(container, empty_groups, reference):
    convert = ONE_D[container]
    if container == "pyarrow_chunked":
        assert len(GROUPS) == 240  # its halves
    got = _value(convert(GROUPS), convert(LABELS), WEIGHTS, empty_groups)
    assert got[0] == reference[empty_groups][0]
    np.testing.assert_array_equal(got[1], reference[empty_groups][1])


@pytest.mark.parametrize("empty_groups", ["drop", "smooth"])
@pytest.mark.parametrize("container", list(WEIGHT_CONTAINERS))
def test_weights_in_every_container(container, empty_groups, reference):
    got = _value(GROUPS, LABELS, WEIGHT_CONTAINERS[container](WEIGHTS), empty_groups)
    assert got[0] == reference[empty_groups][0]


@pytest.mark.parametrize(
    "container", ["numpy_str", "pandas_categorical", "polars_enum", "torch_int"]
)
def test_a_group_named_only_in_group_names(container):
    # rows of c removed: c exists only in group_names (its code 2 for integer containers)
    keep = GROUPS != "c"
    convert = ONE_D[container]
    integer = container == "torch_int"
    names = [CODES[g] for g in ("m", "w", "c")] if integer else ["m", "w", "c"]
    labels = LABELS[keep]
    for empty_groups in ("drop", "smooth"):
        expected = differential_fairness(
            groups=GROUPS[keep], labels=labels, group_names=["m", "w", "c"],
            empty_groups=empty_groups, **QUIET,
        )  # fmt: skip
        got = differential_fairness(
            groups=convert(GROUPS[keep]), labels=labels, group_names=names,
            empty_groups=empty_groups, **QUIET,
        )  # fmt: skip
        assert got.value == expected.value
    # a group named only in group_names is empty like a group whose rows weigh 0
    assert set(labels) == set(LABELS)
    for empty_groups in ("drop", "smooth"):
        named = differential_fairness(
            groups=GROUPS[keep], labels=labels, group_names=["m", "w", "c"],
            empty_groups=empty_groups, **QUIET,
        )  # fmt: skip
        weightless = differential_fairness(
            groups=GROUPS, labels=LABELS, sample_weight=keep.astype(float),
            empty_groups=empty_groups, **QUIET,
        )  # fmt: skip
        assert named.value == pytest.approx(weightless.value, abs=1e-12)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), empty_groups=st.sampled_from(["drop", "smooth"]))
def test_row_order_does_not_matter_with_empty_groups(seed, empty_groups):
    perm = np.random.default_rng(seed).permutation(N)
    expected = _value(GROUPS, LABELS, WEIGHTS, empty_groups)
    got = _value(GROUPS[perm], LABELS[perm], WEIGHTS[perm], empty_groups)
    assert got[0] == pytest.approx(expected[0], abs=1e-12)
