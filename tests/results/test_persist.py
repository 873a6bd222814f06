"""``result.save(path)`` and ``biasamp.load_result(path)`` for every result type.

Each type is built from real metric calls (with bootstrap intervals and replicates
where the type keeps them), saved, loaded, and compared field by field: the same
class, the same ``to_dict()``, the same value, tables equal with their dtypes and
index, arrays equal with their dtype and shape, nested results equal.
"""

from __future__ import annotations

import dataclasses
import json
import math
import warnings

import numpy as np
import pandas as pd
import pytest

import biasamp
from biasamp.results._load import ERR_LOAD_SCHEMA
from biasamp.results._persist import (
    ENVELOPE_KEYS,
    ERR_LOAD_KIND,
    ERR_LOAD_VERSION,
    ERR_SAVE_TYPE,
    SAVED_SCHEMA,
    SAVED_SCHEMA_VERSION,
    registered_results,
)

RNG = np.random.default_rng(0)
N = 240
G_TRAIN = RNG.choice(["man", "woman"], N, p=[0.6, 0.4])
T_TRAIN = pd.DataFrame((RNG.random((N, 4)) < 0.35).astype(int), columns=["cup", "ski", "a$b", "d"])
G_PRED = RNG.choice(["man", "woman"], N, p=[0.7, 0.3])
T_PRED = pd.DataFrame((RNG.random((N, 4)) < 0.35).astype(int), columns=list(T_TRAIN.columns))


def assert_same(a, b, where="result"):
    assert type(a) is type(b), where
    if isinstance(a, pd.DataFrame):
        pd.testing.assert_frame_equal(a, b, check_exact=True, obj=where)
        for name in getattr(type(a), "_metadata", []):
            assert_same(getattr(a, name), getattr(b, name), f"{where}.{name}")
    elif isinstance(a, pd.Series):
        pd.testing.assert_series_equal(a, b, check_exact=True, obj=where)
    elif isinstance(a, np.ndarray):
        assert a.dtype == b.dtype and a.shape == b.shape, where
        np.testing.assert_array_equal(a, b, err_msg=where)
    elif dataclasses.is_dataclass(a):
        for f in dataclasses.fields(a):
            assert_same(getattr(a, f.name), getattr(b, f.name), f"{where}.{f.name}")
    elif isinstance(a, dict):
        assert list(a) == list(b), where
        for k in a:
            assert_same(a[k], b[k], f"{where}[{k!r}]")
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            assert_same(x, y, f"{where}[{i}]")
    elif isinstance(a, float) and math.isnan(a):
        assert isinstance(b, float) and math.isnan(b), where
    else:
        assert a == b, where


def roundtrip(result, tmp_path, name="result.json"):
    path = result.save(tmp_path / name)
    loaded = biasamp.load_result(path)
    assert_same(result, loaded)
    if not isinstance(result, pd.DataFrame):
        assert loaded.to_dict() == result.to_dict()  # JSON-safe dicts: NaN is None
        json.dumps(result.to_dict(), allow_nan=False)
    for attr in ("value", "mean"):
        if hasattr(result, attr) and isinstance(getattr(result, attr), float):
            assert float(getattr(loaded, attr)) == float(getattr(result, attr)) or (
                math.isnan(getattr(loaded, attr)) and math.isnan(getattr(result, attr))
            )
    return path, loaded


def mals_result(**kw):
    return biasamp.mals(
        groups_train=G_TRAIN, tasks_train=T_TRAIN, groups_pred=G_PRED, tasks_pred=T_PRED, **kw
    )


def test_pairwise_results_with_intervals_and_replicates(tmp_path):
    result = mals_result(n_boot=40, random_state=1)
    assert result.replicates is not None and result.ci is not None
    path, loaded = roundtrip(result, tmp_path)
    assert loaded.replicates.shape == result.replicates.shape
    doc = json.loads(path.read_text(encoding="utf-8"))
    assert doc["schema"] == SAVED_SCHEMA and doc["schema_version"] == 2
    assert doc["metrics"] == ["mals"] and doc["settings"]["random_state"] is None
    assert list(doc)[:5] == list(ENVELOPE_KEYS)
    assert doc["biasamp_version"] == biasamp.__version__
    assert doc["type"] == "pairwise" and doc["class"] == "PairwiseResult"
    assert doc["inputs"] == {
        "n": float(N),
        "n_train": float(N),
        "groups": 2,
        "tasks": 4,
        "n_boot": 40,
    }
    directional = biasamp.directional(
        groups=G_TRAIN,
        tasks=T_TRAIN,
        tasks_pred=T_PRED,
        direction="A->T",
        n_boot=30,
        random_state=2,
    )
    roundtrip(directional, tmp_path, "directional.json")


def test_nan_and_infinite_values_survive_as_standard_json(tmp_path):
    result = mals_result()
    result.extras["odd"] = [math.inf, -math.inf, math.nan]
    result.by_pair.loc[0, "delta"] = math.nan
    path, loaded = roundtrip(result, tmp_path)
    text = path.read_text(encoding="utf-8")
    assert "NaN" not in text and "Infinity" not in text  # standard JSON only
    assert loaded.extras["odd"][0] == math.inf and math.isnan(loaded.extras["odd"][2])


def test_multi_attribute_results(tmp_path):
    result = biasamp.multi_mals(
        groups=G_TRAIN,
        tasks=T_TRAIN,
        groups_train=G_TRAIN,
        tasks_train=T_TRAIN,
        groups_pred=G_PRED,
        tasks_pred=T_PRED,
    )
    _, loaded = roundtrip(result, tmp_path)
    assert isinstance(loaded.by_combination["combination"].iloc[0], tuple)
    directional = biasamp.multi_directional(
        groups=G_TRAIN,
        tasks=T_TRAIN,
        groups_train=G_TRAIN,
        tasks_train=T_TRAIN,
        groups_pred=G_PRED,
        tasks_pred=T_PRED,
        direction="T->A",
        n_boot=20,
        random_state=0,
    )
    roundtrip(directional, tmp_path, "multi_directional.json")


def test_predictability_results(tmp_path):
    result = biasamp.dpa(
        groups=G_TRAIN,
        tasks=T_TRAIN,
        tasks_pred=T_PRED,
        direction="A->T",
        n_iter=3,
        random_state=0,
    )
    roundtrip(result, tmp_path)


def test_runs_summary_with_pairs(tmp_path):
    runs = [mals_result(n_boot=10, random_state=s) for s in range(3)]
    summary = biasamp.across_runs(runs)
    assert summary.by_pair is not None
    roundtrip(summary, tmp_path)


def test_threshold_calibration_and_sweep(tmp_path):
    scores = pd.DataFrame(RNG.random((N, 4)), columns=list(T_TRAIN.columns))
    calibration = biasamp.calibrate_thresholds(scores, labels_val=T_TRAIN)
    roundtrip(calibration, tmp_path, "calibration.json")
    sweep = biasamp.threshold_sweep(
        biasamp.mals,
        thresholds=np.linspace(0.1, 0.9, 9),
        tasks_scores=scores,
        groups_pred=G_PRED,
        groups_train=G_TRAIN,
        tasks_train=T_TRAIN,
    )
    roundtrip(sweep, tmp_path, "sweep.json")


def test_rba_results_multilabel_and_single(tmp_path):
    rng = np.random.default_rng(4)
    gs, ts = rng.normal(size=(N, 2)), rng.normal(size=(N, 2, 4, 2))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", biasamp.RBAConvergenceWarning)
        multi = biasamp.rba(
            (gs, ts),
            structure="multilabel",
            groups_train=G_TRAIN,
            tasks_train=T_TRAIN,
            groups=G_PRED,
            tasks=T_PRED,
            max_iter=15,
        )
        single = biasamp.rba(
            rng.normal(size=(N, 2, 3)),
            structure="single",
            groups_train=G_TRAIN,
            tasks_train=np.array(["x", "y", "z"])[np.arange(N) % 3],
            max_iter=10,
        )
    _, loaded = roundtrip(multi, tmp_path, "multi.json")
    assert isinstance(loaded.tasks_pred, pd.DataFrame)
    assert_same(loaded.table(), multi.table())
    roundtrip(single, tmp_path, "single.json")


def test_oversampling(tmp_path):
    result = biasamp.oversample(G_TRAIN, tasks=T_TRAIN, random_state=0)
    _, loaded = roundtrip(result, tmp_path)
    np.testing.assert_array_equal(np.asarray(loaded), np.asarray(result))


def test_compare_mitigations_table(tmp_path):
    runs = {
        "model": [{"groups_pred": G_PRED, "tasks_pred": T_PRED}] * 2,
        "truth": {"groups_pred": G_TRAIN, "tasks_pred": T_TRAIN},
    }
    table = biasamp.compare_mitigations(
        runs,
        groups_train=G_TRAIN,
        tasks_train=T_TRAIN,
        groups=G_TRAIN,
        tasks=T_TRAIN,
        metrics=["group accuracy", "BiasAmp_MALS", "Viol."],
    )
    assert isinstance(table, biasamp.MitigationComparison)
    _, loaded = roundtrip(table, tmp_path)
    assert loaded.ci_level == 0.95
    assert isinstance(loaded.round(2), pd.DataFrame)


def test_every_registered_type_is_covered():
    covered = {
        "pairwise",
        "multi_attribute",
        "predictability",
        "runs_summary",
        "threshold_calibration",
        "threshold_sweep",
        "rba",
        "oversampling",
        "mitigation_comparison",
        "model_comparison",  # round trip in tests/comparison/test_compare.py
        "caption_bias",  # round trip in tests/text/test_caption_bias.py
        "lic",  # round trip in tests/text/test_lic.py
        "dbac",  # round trip in tests/text/test_dbac.py
        "differential_fairness",  # round trip in tests/metrics/test_differential_fairness.py
        "retrieval_bias",  # round trip in tests/metrics/test_retrieval.py
        "audit",  # round trip in tests/auditing/test_audit_result.py
        "output_amplification",  # round trip in tests/generated/test_output_amplification.py
        "bias_transfer",  # round trip in tests/generated/test_bias_transfer.py
        "share_trajectory",  # round trip in tests/generated/test_trajectory.py
    }
    assert set(registered_results()) == covered


def test_save_is_atomic_and_load_rejects_foreign_files(tmp_path):
    result = mals_result()
    target = tmp_path / "kept.json"
    target.write_text("previous", encoding="utf-8")
    with pytest.raises(TypeError, match="cannot store"):
        result.extras["bad"] = object()
        result.save(target)
    assert target.read_text(encoding="utf-8") == "previous"  # untouched on failure
    del result.extras["bad"]
    with pytest.raises(ValueError, match="format"):
        result.save(target, format="pickle")
    with pytest.raises(TypeError, match="not a result type"):
        biasamp.results._persist.save_result(object(), target)
    assert "registered" in ERR_SAVE_TYPE
    (tmp_path / "other.json").write_text('{"schema": "something"}', encoding="utf-8")
    with pytest.raises(ValueError, match="not a saved biasamp result"):
        biasamp.load_result(tmp_path / "other.json")
    (tmp_path / "text.json").write_text("not json", encoding="utf-8")
    with pytest.raises(ValueError, match="not a JSON file"):
        biasamp.load_result(tmp_path / "text.json")
    path = result.save(tmp_path / "ok.json")
    doc = json.loads(path.read_text(encoding="utf-8"))
    doc["schema_version"] = SAVED_SCHEMA_VERSION + 1
    (tmp_path / "newer.json").write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(ValueError, match="newer biasamp"):
        biasamp.load_result(tmp_path / "newer.json")
    doc["schema_version"], doc["type"] = SAVED_SCHEMA_VERSION, "pickle"
    (tmp_path / "kind.json").write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(ValueError, match="unknown result type 'pickle'"):
        biasamp.load_result(tmp_path / "kind.json")
    assert "{file}" in ERR_LOAD_SCHEMA and "{file}" in ERR_LOAD_VERSION and "{got" in ERR_LOAD_KIND


# ------------------------------------------------------------- refusing edited files
def _edited(tmp_path, result, edit, name="edited.json"):
    doc = json.loads(result.save(tmp_path / "valid.json").read_text(encoding="utf-8"))
    edit(doc)
    path = tmp_path / name
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("edit", "where", "problem"),
    [
        (lambda d: d["result"].__setitem__("value", "abc"), "$.result.value", "expected float"),
        (lambda d: d.__setitem__("schema_version", -7), "$.schema_version", "at least 1"),
        (lambda d: d.__setitem__("class", "subprocess.Popen"), "$.class", "PairwiseResult"),
        (lambda d: d["result"].__setitem__("_mgr", 1), "$.result._mgr", "no field"),
        (
            lambda d: d["result"]["by_pair"]["index"].__setitem__("stop", 10**18),
            "$.result.by_pair.index.stop",
            "declares 1000000000000000000 rows, but the data has 8",
        ),
        (
            lambda d: d["result"]["by_pair"]["data"][0].__setitem__(0, 5),
            r"$.result.by_pair.data[0][0]",
            "expected a string",
        ),
        (
            lambda d: d["result"].__setitem__("n_pairs", 1.5),
            "$.result.n_pairs",
            "expected a 64-bit int",
        ),
        (lambda d: d.__setitem__("value", 0.5), "$.value", "the file says 0.5"),
        (lambda d: d["inputs"].__setitem__("groups", 7), "$.inputs.groups", "the file says 7"),
        (
            lambda d: d["result"]["by_pair"].__setitem__("__type__", "ndarray"),
            "$.result.by_pair",
            "",
        ),
    ],
)
def test_load_refuses_edited_files_naming_file_and_json_path(tmp_path, edit, where, problem):
    path = _edited(tmp_path, mals_result(), edit)
    with pytest.raises(ValueError) as info:
        biasamp.load_result(path)
    message = str(info.value)
    assert message.startswith(f"{path}: {where}"), message
    assert problem in message


def test_load_refuses_unknown_attributes_on_a_table_result(tmp_path):
    table = biasamp.compare_mitigations(
        {"model": {"groups_pred": G_PRED, "tasks_pred": T_PRED}},
        groups_train=G_TRAIN,
        tasks_train=T_TRAIN,
        groups=G_TRAIN,
        tasks=T_TRAIN,
        metrics=["group accuracy"],
    )
    path = _edited(tmp_path, table, lambda d: d["result"].__setitem__("_mgr", None))
    with pytest.raises(ValueError, match=r"\$\.result\._mgr: MitigationComparison has no field"):
        biasamp.load_result(path)
    path = _edited(tmp_path, table, lambda d: d["result"].__setitem__("ci_level", "x"))
    with pytest.raises(ValueError, match=r"\$\.result\.ci_level: expected"):
        biasamp.load_result(path)


def test_loaded_results_compare_equal_to_the_saved_ones(tmp_path):
    result = mals_result(n_boot=10, random_state=3)
    result.by_pair.loc[0, "delta"] = math.nan  # NaN equals NaN in the same place
    loaded = biasamp.load_result(result.save(tmp_path / "r.json"))
    assert loaded == result and not (loaded != result)
    assert loaded.__hash__ is None
    other = dataclasses.replace(loaded, value=loaded.value + 1e-12)
    assert other != result
    changed = biasamp.load_result(tmp_path / "r.json")
    changed.by_pair.loc[1, "contribution"] += 1e-15
    assert changed != result
    changed = biasamp.load_result(tmp_path / "r.json")
    changed.replicates[0] = math.nan
    assert changed != result
    assert (result == "result") is False
    multi = biasamp.multi_directional(
        direction="G->M",
        groups=G_TRAIN,
        tasks=T_TRAIN,
        tasks_pred=T_PRED,
        groups_train=G_TRAIN,
        tasks_train=T_TRAIN,
    )
    assert biasamp.load_result(multi.save(tmp_path / "m.json")) == multi
    dpa = biasamp.dpa(
        direction="A->T", groups=G_TRAIN, tasks=T_TRAIN, tasks_pred=T_PRED, n_iter=2, random_state=0
    )
    assert biasamp.load_result(dpa.save(tmp_path / "d.json")) == dpa


def test_paper_direction_names_print_and_plot(tmp_path):
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    for paper, ours in (("G->M", "A->T"), ("M->G", "T->A")):
        result = biasamp.multi_directional(
            direction=paper,
            groups=G_TRAIN,
            tasks=T_TRAIN,
            tasks_pred=T_PRED,
            groups_pred=G_PRED,
            groups_train=G_TRAIN,
            tasks_train=T_TRAIN,
        )
        assert result.direction == paper
        assert result.name == f"Multi {ours} ({paper})"
        assert str(result).startswith(f"Multi {ours} ({paper}) = ")
        assert repr(result) == str(result)
        for kind in ("size", "combinations"):
            ax = result.plot(kind)  # no KeyError for the paper's names
            assert ax.figure is not None
            matplotlib.pyplot.close(ax.figure)


def test_result_modules_name_every_registered_type_and_its_module():
    """A file loads in a fresh process before its type's module was imported."""
    import importlib
    import subprocess
    import sys

    from biasamp.results._persist import RESULT_MODULES, registered_results

    registered = registered_results()
    assert sorted(registered) == sorted(RESULT_MODULES)
    for kind, cls in registered.items():
        assert cls.__module__ == RESULT_MODULES[kind]
        assert importlib.import_module(RESULT_MODULES[kind]) is not None
    code = (
        "from biasamp.results._persist import registered_results; print(len(registered_results()))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert int(out.stdout) == len(RESULT_MODULES)
