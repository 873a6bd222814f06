"""Dask on a real multi-process LocalCluster, reading real multi-file Parquet datasets.

The training and evaluation splits are written with different partitionings, as a
user's data lake would hold them, and read back with ``dd.read_parquet``; every
metric must equal the in-memory value to 1e-12.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import biasamp
from biasamp import PatternCountTable, counts_from_dask
from biasamp.engines._dask import ERR_DASK_PARTITIONS
from tests.engines.test_files import TASKS, make_frame

dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")

PRED = [f"pred_{t}" for t in TASKS]
# dask's Parquet reader calls reset_index(inplace=True), which pandas 3.1 deprecates
pytestmark = pytest.mark.filterwarnings("ignore:The inplace keyword:Warning")
TOL = dict(rel=0, abs=1e-12)


@pytest.fixture(scope="module")
def client():
    with (
        distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            dashboard_address=":0",  # a free port: parallel test workers each start one
            host="127.0.0.1",
        ) as cluster,
        distributed.Client(cluster) as c,
    ):
        yield c


@pytest.fixture(scope="module")
def lake(tmp_path_factory):
    """Train written as 4 files, test as 1 file, plus a 3-file copy of test (other layout)."""
    root = tmp_path_factory.mktemp("lake")
    train, test = make_frame(900, 21), make_frame(700, 22)
    dd.from_pandas(train, npartitions=4).to_parquet(root / "train")
    dd.from_pandas(test, npartitions=1).to_parquet(root / "test")
    dd.from_pandas(test, npartitions=3).to_parquet(root / "test3")
    return root, train, test


def _preds(frame):
    return frame[PRED].rename(columns=dict(zip(PRED, TASKS, strict=True)))


def _close(a, b):
    assert a.value == pytest.approx(b.value, **TOL)
    pd.testing.assert_frame_equal(a.by_pair, b.by_pair, rtol=1e-12, atol=1e-12)


def test_projected_columns_of_one_frame_are_counted_together(client, lake):
    root, train, _ = lake
    tr = dd.read_parquet(root / "train")
    # the case once seen: a lone projected column may be fused into fewer partitions
    lone = len(tr["gender"].to_delayed()), len(tr[TASKS].to_delayed())
    table = counts_from_dask(groups=tr["gender"], tasks=tr[TASKS])
    expected = biasamp.CountTable.from_arrays(groups=train["gender"], tasks=train[TASKS])
    np.testing.assert_array_equal(
        table.joint[("groups", "tasks")], expected.joint[("groups", "tasks")]
    )
    assert table.n_rows == len(train) and min(lone) >= 1


def test_metrics_equal_in_memory_across_split_layouts(client, lake):
    root, train, test = lake
    tr, te = dd.read_parquet(root / "train"), dd.read_parquet(root / "test")
    assert tr.npartitions != te.npartitions
    dask_train = dict(groups_train=tr["gender"], tasks_train=tr[TASKS])
    mem_train = dict(groups_train=train["gender"], tasks_train=train[TASKS])
    for direction in ("A->T", "T->A"):
        got = biasamp.directional(
            direction=direction,
            groups=te["gender"],
            tasks=te[TASKS],
            groups_pred=te["gender_pred"],
            tasks_pred=_preds(te),
            sample_weight=te["weight"],
            **dask_train,
        )
        expected = biasamp.directional(
            direction=direction,
            groups=test["gender"],
            tasks=test[TASKS],
            groups_pred=test["gender_pred"],
            tasks_pred=_preds(test),
            sample_weight=test["weight"],
            **mem_train,
        )
        _close(got, expected)
    got = biasamp.mals(**dask_train, groups_pred=te["gender_pred"], tasks_pred=_preds(te))
    expected = biasamp.mals(**mem_train, groups_pred=test["gender_pred"], tasks_pred=_preds(test))
    _close(got, expected)


def test_bootstrap_on_the_cluster_equals_in_memory(client, lake):
    root, train, test = lake
    te = dd.read_parquet(root / "test3")
    kw = dict(n_boot=30, random_state=5)
    got = biasamp.directional(
        direction="A->T", groups=te["gender"], tasks=te[TASKS], tasks_pred=_preds(te), **kw
    )
    expected = biasamp.directional(
        direction="A->T", groups=test["gender"], tasks=test[TASKS], tasks_pred=_preds(test), **kw
    )
    np.testing.assert_allclose(got.replicates, expected.replicates, rtol=0, atol=1e-12)
    assert got.ci == pytest.approx(expected.ci, **TOL)


def test_multi_attribute_metrics_equal_in_memory(client, lake):
    root, train, test = lake
    tr, te = dd.read_parquet(root / "train"), dd.read_parquet(root / "test3")
    train_t = counts_from_dask(groups=tr["gender"], tasks=tr[TASKS], table_type=PatternCountTable)
    eval_t = counts_from_dask(
        groups=te["gender"],
        tasks=te[TASKS],
        groups_pred=te["gender_pred"],
        tasks_pred=_preds(te),
        group_names=train_t.group_names,
        task_names=train_t.task_names,
        table_type=PatternCountTable,
    )
    mem = dict(groups_train=train["gender"], tasks_train=train[TASKS])
    got = biasamp.multi_mals_from_counts(train_t, eval_t)
    expected = biasamp.multi_mals(
        **mem, tasks=test[TASKS], groups_pred=test["gender_pred"], tasks_pred=_preds(test)
    )
    assert got.value == pytest.approx(expected.value, **TOL)
    for direction, pred in (("A->T", "tasks_pred"), ("T->A", "groups_pred")):
        got = biasamp.multi_directional_from_counts(train_t, eval_t, direction=direction)
        expected = biasamp.multi_directional(
            direction=direction,
            **mem,
            groups=test["gender"],
            tasks=test[TASKS],
            **{pred: _preds(test) if pred == "tasks_pred" else test["gender_pred"]},
        )
        assert got.value == pytest.approx(expected.value, **TOL)


def test_columns_of_different_collections(client, lake):
    root, _, test = lake
    one, three = dd.read_parquet(root / "test"), dd.read_parquet(root / "test3")
    # unknown divisions and different partition counts: refused, with the fix
    with pytest.raises(ValueError, match="unknown divisions") as info:
        counts_from_dask(groups=one["gender"], tasks=three[TASKS])
    assert "from one DataFrame" in str(info.value) and "from one DataFrame" in ERR_DASK_PARTITIONS
    # known divisions: aligned by index, whatever the partitions
    indexed = test.reset_index(names="row")
    a = dd.from_pandas(indexed, npartitions=2).set_index("row", sorted=True)
    b = dd.from_pandas(indexed, npartitions=5).set_index("row", sorted=True)
    assert a.known_divisions and a.divisions != b.divisions
    got = counts_from_dask(groups=a["gender"], tasks=b[TASKS])
    expected = biasamp.CountTable.from_arrays(groups=test["gender"], tasks=test[TASKS])
    np.testing.assert_array_equal(
        got.joint[("groups", "tasks")], expected.joint[("groups", "tasks")]
    )


def test_multi_attribute_metrics_take_dask_collections(client, lake):
    root, train, test = lake
    tr, te = dd.read_parquet(root / "train"), dd.read_parquet(root / "test3")
    kw = dict(n_boot=20, random_state=4)
    got = biasamp.multi_mals(
        groups_train=tr["gender"],
        tasks_train=tr[TASKS],
        tasks=te[TASKS],
        groups_pred=te["gender_pred"],
        tasks_pred=_preds(te),
        **kw,
    )
    expected = biasamp.multi_mals(
        groups_train=train["gender"],
        tasks_train=train[TASKS],
        tasks=test[TASKS],
        groups_pred=test["gender_pred"],
        tasks_pred=_preds(test),
        **kw,
    )
    assert got.value == pytest.approx(expected.value, **TOL)
    np.testing.assert_allclose(got.replicates, expected.replicates, rtol=0, atol=1e-12)
    for direction in ("A->T", "T->A"):
        got = biasamp.multi_directional(
            direction=direction,
            groups_train=train["gender"],  # an in-memory training split beside a Dask one
            tasks_train=train[TASKS],
            groups=te["gender"],
            tasks=te[TASKS],
            groups_pred=te["gender_pred"],
            tasks_pred=_preds(te),
            sample_weight=te["weight"],
            **kw,
        )
        expected = biasamp.multi_directional(
            direction=direction,
            groups_train=train["gender"],
            tasks_train=train[TASKS],
            groups=test["gender"],
            tasks=test[TASKS],
            groups_pred=test["gender_pred"],
            tasks_pred=_preds(test),
            sample_weight=test["weight"],
            **kw,
        )
        assert got.value == pytest.approx(expected.value, **TOL)
        np.testing.assert_allclose(got.replicates, expected.replicates, rtol=0, atol=1e-12)
