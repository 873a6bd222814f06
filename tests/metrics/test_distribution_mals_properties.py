"""distribution_mals on the project's standard properties: every container of the posterior
and of the training labels gives the numpy value; the order of the evaluation rows does not
matter; chunks of distribution_counts merged in any order equal one shot; posteriors that
are the training labels give b~ = b* (MALS 0, and mals' value); bad posteriors are refused
naming ``joint_proba``."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from biasamp import CountTable, distribution_counts, distribution_mals, mals
from biasamp.inputs._containers import ERR_MISSING_LABEL
from biasamp.inputs._readers import ERR_POSTERIOR_DTYPE, ERR_POSTERIOR_RANGE
from biasamp.metrics import distribution_mals_from_counts
from tests.inputs.test_containers import DATA, ONE_D

pl = pytest.importorskip("polars")
torch = pytest.importorskip("torch")

GROUPS_TRAIN, TASKS_TRAIN = DATA["groups_train"], DATA["tasks_train"]
TASK_NAMES, GROUP_NAMES = ["a", "b", "c"], ["m", "w"]
RNG = np.random.default_rng(5)
PROBA = RNG.random((60, 3, 2)) ** 3  # skewed posteriors, rows summing to 1
PROBA /= PROBA.sum(axis=(1, 2), keepdims=True)
KW: dict[str, Any] = {"min_group_size": None}


def _value(**kw: Any) -> tuple[float, np.ndarray, int]:
    result = distribution_mals(**KW, **kw)
    return result.value, result.by_pair["b_pred"].to_numpy(), result.violations


@pytest.fixture(scope="module")
def reference() -> tuple[float, np.ndarray, int]:
    out = _value(joint_proba=PROBA, groups_train=GROUPS_TRAIN, tasks_train=TASKS_TRAIN)
    assert out[0] != 0.0 and out[2] > 0
    return out


@pytest.mark.parametrize("container", list(ONE_D))
def test_training_labels_in_every_container(container, reference):
    convert = ONE_D[container]
    got = _value(
        joint_proba=PROBA, groups_train=convert(GROUPS_TRAIN), tasks_train=convert(TASKS_TRAIN)
    )
    assert got[0] == reference[0]
    np.testing.assert_array_equal(got[1], reference[1])
    assert got[2] == reference[2]


# each container against numpy of the same precision (float32 rounds the posterior)
PROBA_CONTAINERS: dict[str, tuple[Callable[[np.ndarray], Any], Callable[[np.ndarray], Any]]] = {
    "nested_lists": (lambda x: x.tolist(), lambda x: x),
    "nested_tuples": (lambda x: tuple(tuple(map(tuple, r)) for r in x.tolist()), lambda x: x),
    "numpy_fortran": (np.asfortranarray, lambda x: x),
    "numpy_float32": (lambda x: x.astype(np.float32), lambda x: x.astype(np.float32)),
    "torch_float64": (torch.tensor, lambda x: x),
    "torch_float32": (
        lambda x: torch.tensor(x, dtype=torch.float32),
        lambda x: x.astype(np.float32),
    ),
    "torch_requires_grad": (lambda x: torch.tensor(x, requires_grad=True), lambda x: x),
    "torch_bfloat16": (
        lambda x: torch.tensor(x, dtype=torch.bfloat16),
        lambda x: torch.tensor(x, dtype=torch.bfloat16).float().numpy(),
    ),
    "torch_transposed_view": (
        lambda x: torch.tensor(np.ascontiguousarray(x.transpose(0, 2, 1))).transpose(1, 2),
        lambda x: x,
    ),
}


@pytest.mark.parametrize("container", list(PROBA_CONTAINERS))
def test_posterior_in_every_container(container):
    convert, same_precision = PROBA_CONTAINERS[container]
    expected = _value(
        joint_proba=same_precision(PROBA), groups_train=GROUPS_TRAIN, tasks_train=TASKS_TRAIN
    )
    got = _value(joint_proba=convert(PROBA), groups_train=GROUPS_TRAIN, tasks_train=TASKS_TRAIN)
    assert got[0] == expected[0]
    np.testing.assert_array_equal(got[1], expected[1])


def test_one_hot_bool_posterior_equals_its_float_value():
    one_hot = np.zeros_like(PROBA, dtype=bool)
    flat = PROBA.reshape(len(PROBA), -1).argmax(axis=1)
    one_hot.reshape(len(PROBA), -1)[np.arange(len(PROBA)), flat] = True
    for container in (one_hot, torch.tensor(one_hot), one_hot.tolist()):
        got = _value(joint_proba=container, groups_train=GROUPS_TRAIN, tasks_train=TASKS_TRAIN)
        expected = _value(
            joint_proba=one_hot.astype(float), groups_train=GROUPS_TRAIN, tasks_train=TASKS_TRAIN
        )
        assert got[0] == expected[0]


def _dyadic(rng: np.random.Generator, n: int) -> np.ndarray:
    """Posteriors in multiples of 1/16: every sum of a few hundred of them is exact."""
    cells = rng.multinomial(16, np.full(6, 1 / 6), size=n).reshape(n, 3, 2)
    return cells / 16.0


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 40))
def test_row_order_of_the_evaluation_rows_does_not_matter(seed, n):
    rng = np.random.default_rng(seed)
    proba = _dyadic(rng, n)
    weight = rng.integers(1, 4, n).astype(float)
    perm = rng.permutation(n)
    kw = {"groups_train": GROUPS_TRAIN, "tasks_train": TASKS_TRAIN, "margin": 0.05}
    expected = distribution_mals(joint_proba=proba, sample_weight=weight, **kw, **KW)
    got = distribution_mals(joint_proba=proba[perm], sample_weight=weight[perm], **kw, **KW)
    assert got.value == expected.value  # dyadic masses: exact in any order
    assert got.violations == expected.violations
    # arbitrary posteriors: the same to rounding
    proba = rng.random((n, 3, 2))
    proba /= proba.sum(axis=(1, 2), keepdims=True)
    expected = distribution_mals(joint_proba=proba, **kw, **KW)
    got = distribution_mals(joint_proba=proba[perm], **kw, **KW)
    assert got.value == pytest.approx(expected.value, abs=1e-13)


def _cut(n: int, rng: np.random.Generator) -> list[tuple[int, int]]:
    cuts = np.sort(rng.choice(np.arange(1, n), size=min(n - 1, rng.integers(1, 5)), replace=False))
    bounds = [0, *cuts.tolist(), n]
    return list(zip(bounds[:-1], bounds[1:], strict=True))


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 60))
def test_chunks_merged_in_any_order_equal_one_shot(seed, n):
    rng = np.random.default_rng(seed)
    proba = _dyadic(rng, n)
    names = {"task_names": TASK_NAMES, "group_names": GROUP_NAMES}
    whole = distribution_counts(proba, **names)
    chunks = [distribution_counts(proba[a:b], **names) for a, b in _cut(n, rng)]
    order = rng.permutation(len(chunks))
    merged = sum(chunks[i] for i in order)
    key = ("groups_pred", "tasks_pred")
    assert np.array_equal(merged.joint[key], whole.joint[key])
    for role in ("groups_pred", "tasks_pred"):
        assert np.array_equal(merged.totals[role], whole.totals[role])
    assert float(merged.n) == float(whole.n) and merged.n_rows == whole.n_rows
    train = CountTable.from_arrays(groups=GROUPS_TRAIN, tasks=TASKS_TRAIN)
    one_shot = distribution_mals_from_counts(train, whole, min_group_size=None)
    streamed = distribution_mals_from_counts(train, merged, min_group_size=None)
    assert streamed.value == one_shot.value
    assert streamed.violations == one_shot.violations


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(4, 80))
def test_posteriors_of_the_training_labels_reproduce_training(seed, n):
    rng = np.random.default_rng(seed)
    groups = rng.choice(np.array(GROUP_NAMES), n)
    tasks = rng.choice(np.array(TASK_NAMES), n)
    groups[:2] = GROUP_NAMES  # two groups (one would make every value 0 by a warning's rule)
    tasks_seen, groups_seen = sorted(set(tasks)), sorted(set(groups))
    one_hot = np.zeros((n, len(tasks_seen), len(groups_seen)))
    one_hot[
        np.arange(n),
        np.searchsorted(tasks_seen, tasks),
        np.searchsorted(groups_seen, groups),
    ] = 1.0
    result = distribution_mals(joint_proba=one_hot, groups_train=groups, tasks_train=tasks, **KW)
    pairs = result.by_pair
    np.testing.assert_array_equal(pairs["b_pred"], pairs["b_train"])  # b~ = b*, exactly
    assert result.value == 0.0 and result.violations == 0
    top1 = mals(groups_train=groups, tasks_train=tasks, groups_pred=groups, tasks_pred=tasks, **KW)
    assert result.value == top1.value


BAD = {
    "nan": np.nan,
    "negative": -0.25,
    "above_one": 1.5,
    "inf": np.inf,
}


@pytest.mark.parametrize("bad", list(BAD))
@pytest.mark.parametrize("container", ["numpy", "torch", "list"])
def test_bad_probabilities_are_refused_naming_joint_proba(bad, container):
    proba = PROBA.copy()
    proba[7, 2, 1] = BAD[bad]
    given_proba = {"numpy": proba, "torch": torch.tensor(proba), "list": proba.tolist()}[container]
    message = ERR_POSTERIOR_RANGE.format(
        arg="joint_proba", row=7, got=float(BAD[bad]), where=" at (task 'c', group 'w')"
    )
    if bad == "nan":  # a NaN is a missing value (the one rule of every reader)
        message = ERR_MISSING_LABEL.format(arg="joint_proba", count=1, row=7)
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        distribution_mals(
            joint_proba=given_proba, groups_train=GROUPS_TRAIN, tasks_train=TASKS_TRAIN, **KW
        )


def test_text_and_missing_posteriors_are_refused_naming_joint_proba():
    text = np.full((2, 3, 2), "0.1")
    with pytest.raises(
        TypeError, match=re.escape(ERR_POSTERIOR_DTYPE.format(arg="joint_proba", dtype=text.dtype))
    ):
        distribution_mals(joint_proba=text, groups_train=GROUPS_TRAIN, tasks_train=TASKS_TRAIN)
    with_none = PROBA[:2].tolist()
    with_none[1][0][0] = None
    with pytest.raises(
        ValueError, match=re.escape(ERR_MISSING_LABEL.format(arg="joint_proba", count=1, row=1))
    ):
        distribution_mals(
            joint_proba=with_none, groups_train=GROUPS_TRAIN, tasks_train=TASKS_TRAIN, **KW
        )


def test_rows_need_not_sum_to_one():
    # the documented rule: entry (t, g) is a probability; a row is a distribution only with
    # one task per row. b~ is a ratio of masses, so scaling every row by 1/2 changes nothing,
    # and a row of zeros adds no mass.
    kw = {"groups_train": GROUPS_TRAIN, "tasks_train": TASKS_TRAIN, **KW}
    expected = distribution_mals(joint_proba=PROBA, **kw)
    assert distribution_mals(joint_proba=PROBA / 2, **kw).value == expected.value
    padded = np.concatenate([PROBA, np.zeros((3, 3, 2))])
    assert distribution_mals(joint_proba=padded, **kw).value == pytest.approx(
        expected.value, abs=1e-15
    )


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 40))
def test_bootstrap_chunks_merged_in_any_order_equal_one_shot(seed, n):
    rng = np.random.default_rng(seed)
    proba = _dyadic(rng, n)
    names = {"task_names": TASK_NAMES, "group_names": GROUP_NAMES, "n_boot": 20}
    whole = distribution_counts(proba, **names, random_state=4)
    chunks = [
        distribution_counts(proba[a:b], **names, random_state=4, row_offset=a)
        for a, b in _cut(n, rng)
    ]
    merged = sum(chunks[i] for i in rng.permutation(len(chunks)))
    key = ("groups_pred", "tasks_pred")
    assert np.array_equal(merged.replicates.joint[key], whole.replicates.joint[key])
    train = CountTable.from_arrays(groups=GROUPS_TRAIN, tasks=TASKS_TRAIN)
    one_shot = distribution_mals_from_counts(train, whole, min_group_size=None)
    streamed = distribution_mals_from_counts(train, merged, min_group_size=None)
    assert np.array_equal(streamed.replicates, one_shot.replicates)
    assert streamed.ci == one_shot.ci


WEIGHTS = np.random.default_rng(8).integers(1, 5, len(PROBA)).astype(float)


@pytest.mark.parametrize(
    "convert",
    [
        lambda x: x.tolist(),
        lambda x: pd.Series(x, dtype="Float64"),
        lambda x: pd.Series(x.astype(int), dtype="int64[pyarrow]"),
        torch.tensor,
        lambda x: pl.Series(x),
    ],
    ids=["list", "pandas_nullable_float", "pandas_arrow_int", "torch", "polars"],
)
def test_sample_weight_in_every_container(convert):
    kw = {"joint_proba": PROBA, "groups_train": GROUPS_TRAIN, "tasks_train": TASKS_TRAIN, **KW}
    expected = distribution_mals(sample_weight=WEIGHTS, **kw)
    assert distribution_mals(sample_weight=convert(WEIGHTS), **kw).value == expected.value
