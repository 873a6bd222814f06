"""Dask collections in place of arrays: per-partition tables, tree-merged, equal to in memory."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import biasamp
from biasamp import CountTable, counts_from_dask
from biasamp.counts._pattern_counts import PatternCountTable
from biasamp.counts._poisson import PoissonReplicates
from biasamp.engines._dask import ERR_DASK_MIXED, ERR_SPLIT_EVERY
from biasamp.inputs._collections import is_dask_collection
from tests.engines.test_files import TASKS, assert_tables_equal, make_frame

dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")

PRED = [f"pred_{t}" for t in TASKS]


@pytest.fixture(scope="module")
def client():
    with distributed.Client(
        n_workers=2, threads_per_worker=1, processes=False, dashboard_address=":0"
    ) as c:
        yield c


@pytest.fixture(scope="module")
def data():
    frame = make_frame(400, 11).reset_index(drop=True)
    frame["keep"] = True
    frame.loc[100:199, "keep"] = False  # partition 1 becomes empty after the filter
    ddf = dd.from_pandas(frame, npartitions=1).repartition(divisions=[0, 3, 100, 200, 260, 399])
    ddf = ddf[ddf["keep"]]  # uneven partitions: 3, 97, 0, 60, 140 rows
    kept = frame[frame["keep"]].reset_index(drop=True)
    return None, ddf, kept


def split(data):
    _, ddf, kept = data
    preds_dd = ddf[PRED].rename(columns=dict(zip(PRED, TASKS, strict=True)))
    preds = kept[PRED].set_axis(TASKS, axis=1)
    return ddf, kept, preds_dd, preds


def test_partitions_are_uneven_and_one_is_empty(data):
    ddf, _, _, _ = split(data)
    sizes = ddf.map_partitions(len).compute().tolist()
    assert ddf.npartitions == 5 and 0 in sizes and len(set(sizes)) > 2


def test_count_table_equals_in_memory(client, data):
    ddf, kept, preds_dd, preds = split(data)
    got = CountTable.from_arrays(
        groups=ddf["gender"], groups_pred=ddf["gender_pred"], tasks=ddf[TASKS], tasks_pred=preds_dd
    )
    expected = CountTable.from_arrays(
        groups=kept["gender"], groups_pred=kept["gender_pred"], tasks=kept[TASKS], tasks_pred=preds
    )
    assert_tables_equal(got, expected)  # integer counts, exactly
    weighted = counts_from_dask(
        groups=ddf["gender"], tasks=ddf[TASKS], sample_weight=ddf["weight"], split_every=2
    )
    assert_tables_equal(
        weighted,
        CountTable.from_arrays(
            groups=kept["gender"], tasks=kept[TASKS], sample_weight=kept["weight"]
        ),
        exact=False,
    )


def assert_results_equal(a, b):
    assert a.value == pytest.approx(b.value, abs=1e-12)
    pd.testing.assert_frame_equal(a.by_pair, b.by_pair, rtol=1e-12, atol=1e-12)


def test_every_metric_equals_in_memory(client, data):
    ddf, kept, preds_dd, preds = split(data)
    train_dd = dict(groups_train=ddf["gender"], tasks_train=ddf[TASKS])
    train = dict(groups_train=kept["gender"], tasks_train=kept[TASKS])
    for direction in ("A->T", "T->A"):
        for with_train in (True, False):
            a = biasamp.directional(
                direction=direction,
                groups=ddf["gender"],
                tasks=ddf[TASKS],
                groups_pred=ddf["gender_pred"],
                tasks_pred=preds_dd,
                sample_weight=ddf["weight"],
                **(train_dd if with_train else {}),
            )
            b = biasamp.directional(
                direction=direction,
                groups=kept["gender"],
                tasks=kept[TASKS],
                groups_pred=kept["gender_pred"],
                tasks_pred=preds,
                sample_weight=kept["weight"],
                **(train if with_train else {}),
            )
            assert_results_equal(a, b)
    a = biasamp.mals(**train_dd, groups_pred=ddf["gender_pred"], tasks_pred=preds_dd)
    b = biasamp.mals(**train, groups_pred=kept["gender_pred"], tasks_pred=preds)
    assert_results_equal(a, b)
    assert a.violations == b.violations
    pd.testing.assert_frame_equal(
        biasamp.bias_scores(ddf["gender"], tasks=ddf[TASKS]),
        biasamp.bias_scores(kept["gender"], tasks=kept[TASKS]),
        rtol=1e-12,
        atol=1e-12,
    )


def test_categorical_names_and_explicit_names(client, data):
    ddf, kept, _, _ = split(data)
    cats = ddf["gender"].astype(pd.CategoricalDtype(["w", "m", "x"]))
    table = CountTable.from_arrays(groups=cats, tasks=ddf[TASKS])
    assert table.group_names == ("m", "w")  # occurring categories, sorted, as in memory
    in_memory = CountTable.from_arrays(groups=cats.compute(), tasks=ddf[TASKS].compute())
    np.testing.assert_allclose(
        table.joint[("groups", "tasks")], in_memory.joint[("groups", "tasks")]
    )
    named = CountTable.from_arrays(groups=cats, tasks=ddf[TASKS], group_names=["w", "m", "x"])
    np.testing.assert_array_equal(named.totals["groups"][2], 0)  # named: kept, with zero counts
    with pytest.raises(ValueError, match=r"partition \d+: groups: .*not in the canonical"):
        CountTable.from_arrays(groups=ddf["gender"], tasks=ddf[TASKS], group_names=["m"])


def test_bad_input_names_the_partition(client, data):
    _, ddf, kept = data
    bad_frame = kept.copy()
    bad_frame.loc[150, "ski"] = 5
    bad = dd.from_pandas(bad_frame, npartitions=1).repartition(divisions=[0, 100, 200, 299])
    with pytest.raises(ValueError, match=r"partition 1: tasks: indicator values must be 0 or 1"):
        CountTable.from_arrays(groups=bad["gender"], tasks=bad[TASKS])
    with pytest.raises(TypeError, match="is not a Dask collection"):
        CountTable.from_arrays(groups=ddf["gender"], tasks=kept[TASKS])
    assert "is not a Dask collection" in ERR_DASK_MIXED
    with pytest.raises(ValueError, match="split_every"):
        counts_from_dask(groups=ddf["gender"], tasks=ddf[TASKS], split_every=1)
    assert "split_every" in ERR_SPLIT_EVERY
    assert not is_dask_collection(kept) and is_dask_collection(ddf)


def test_poisson_bootstrap_per_partition_equals_one_shot(client, data):
    ddf, kept, _, _ = split(data)
    reps = PoissonReplicates(5, random_state=7)
    got = counts_from_dask(groups=ddf["gender"], tasks=ddf[TASKS], replicates=reps)
    expected = CountTable.from_arrays(
        groups=kept["gender"], tasks=kept[TASKS], replicate_weights=reps.weights(0, len(kept))
    )
    assert got.batch_shape == (5,)
    assert_tables_equal(got, expected)


def test_pattern_counts_per_partition(client, data):
    ddf, kept, _, _ = split(data)
    got = counts_from_dask(groups=ddf["gender"], tasks=ddf[TASKS], table_type=PatternCountTable)
    expected = PatternCountTable.from_arrays(groups=kept["gender"], tasks=kept[TASKS])
    np.testing.assert_array_equal(got.patterns["tasks"], expected.patterns["tasks"])
    np.testing.assert_array_equal(
        got.joint[("groups", "tasks")], expected.joint[("groups", "tasks")]
    )


def test_metric_bootstrap_with_dask_inputs_equals_in_memory(client, data):
    ddf, kept, preds_dd, preds = split(data)
    kw = dict(n_boot=40, random_state=3)
    for direction in ("A->T", "T->A"):
        a = biasamp.directional(
            direction=direction,
            groups=ddf["gender"],
            tasks=ddf[TASKS],
            groups_pred=ddf["gender_pred"],
            tasks_pred=preds_dd,
            **kw,
        )
        b = biasamp.directional(
            direction=direction,
            groups=kept["gender"],
            tasks=kept[TASKS],
            groups_pred=kept["gender_pred"],
            tasks_pred=preds,
            **kw,
        )
        np.testing.assert_allclose(a.replicates, b.replicates, rtol=1e-12, atol=1e-12)
        assert a.ci == pytest.approx(b.ci, abs=1e-12)
    m_dd = biasamp.mals(
        groups_train=kept["gender"],
        tasks_train=kept[TASKS],
        groups_pred=ddf["gender_pred"],
        tasks_pred=preds_dd,
        **kw,
    )
    m = biasamp.mals(
        groups_train=kept["gender"],
        tasks_train=kept[TASKS],
        groups_pred=kept["gender_pred"],
        tasks_pred=preds,
        **kw,
    )
    np.testing.assert_allclose(m_dd.replicates, m.replicates, rtol=1e-12, atol=1e-12)
    with pytest.raises(ValueError, match="n_boot with Dask inputs supports bootstrap='poisson'"):
        biasamp.mals(
            groups_train=kept["gender"],
            tasks_train=kept[TASKS],
            groups_pred=ddf["gender_pred"],
            tasks_pred=preds_dd,
            bootstrap="multinomial",
            **kw,
        )
