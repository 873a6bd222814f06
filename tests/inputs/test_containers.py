"""The same data in every supported container gives every metric's numpy value (to 1e-12).

Two families: 1-D labels (groups, and single-label tasks) and 2-D 0/1 indicators
(multi-label tasks). Each container case converts every label argument of a call
(training, evaluation, predictions) with one converter; the reference is the plain
numpy call. polars and torch are test dependencies (``pip install torch==2.13.0``
takes the CPU build).
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
import scipy.sparse as sp

import biasamp

pl = pytest.importorskip("polars")
torch = pytest.importorskip("torch")

N = 240
RNG = np.random.default_rng(7)
GROUPS = np.array(["m", "w"])
TASKS = np.array(["a", "b", "c"])


def _labels(values: np.ndarray, n: int, p: list[float]) -> np.ndarray:
    return RNG.choice(values, size=n, p=p)


def _data() -> dict[str, np.ndarray]:
    g_train = _labels(GROUPS, N, [0.6, 0.4])
    g = _labels(GROUPS, N, [0.55, 0.45])
    # tasks correlated with groups
    t_train = np.where(
        g_train == "m", _labels(TASKS, N, [0.6, 0.3, 0.1]), _labels(TASKS, N, [0.2, 0.3, 0.5])
    )
    t = np.where(g == "m", _labels(TASKS, N, [0.6, 0.3, 0.1]), _labels(TASKS, N, [0.2, 0.3, 0.5]))
    flip = RNG.random(N) < 0.2
    g_pred = np.where(flip, np.where(g == "m", "w", "m"), g)
    t_pred = np.where(RNG.random(N) < 0.3, _labels(TASKS, N, [0.4, 0.3, 0.3]), t)
    multi = lambda n: (RNG.random((n, 3)) < np.array([0.5, 0.3, 0.4])).astype(np.int64)  # noqa: E731
    return {
        "groups_train": g_train,
        "groups": g,
        "groups_pred": g_pred,
        "tasks_train": t_train,
        "tasks": t,
        "tasks_pred": t_pred,
        "multi_train": multi(N),
        "multi": multi(N),
        "multi_pred": multi(N),
    }


DATA = _data()
CODES = {"m": 0, "w": 1, "a": 0, "b": 1, "c": 2}


# ------------------------------------------------------------------ 1-D converters
def _codes(x: np.ndarray) -> np.ndarray:
    return np.array([CODES[v] for v in x], dtype=np.int64)


def _categorical(x: np.ndarray) -> pd.Categorical:
    # declared but unused categories on both sides of the real ones
    return pd.Categorical(x, categories=["_unused_first", *sorted(set(x)), "zz_unused"])


def _arrow_dictionary(x: np.ndarray) -> pa.DictionaryArray:
    dictionary = pa.array(["zz_unused", *sorted(set(x)), "_unused"])
    index = {v: i for i, v in enumerate(dictionary.to_pylist())}
    return pa.DictionaryArray.from_arrays(pa.array([index[v] for v in x], pa.int32()), dictionary)


ONE_D: dict[str, Callable[[np.ndarray], Any]] = {
    "numpy_str": lambda x: x.astype(str),
    "numpy_object": lambda x: x.astype(object),
    "list": lambda x: x.tolist(),
    "tuple": lambda x: tuple(x.tolist()),
    "pandas_series": lambda x: pd.Series(x),
    "pandas_values": lambda x: pd.Series(x, dtype="str").values,
    "pandas_array": lambda x: pd.Series(x, dtype="str").array,
    "pandas_string_pyarrow": lambda x: pd.Series(x, dtype="string[pyarrow]"),
    "pandas_string_python": lambda x: pd.Series(x, dtype="string[python]"),
    "pandas_index": lambda x: pd.Index(x),
    "pandas_categorical": _categorical,
    "pandas_categorical_series": lambda x: pd.Series(_categorical(x)),
    "pandas_arrow_dictionary": lambda x: pd.Series(
        pd.arrays.ArrowExtensionArray(pa.chunked_array([_arrow_dictionary(x)]))
    ),
    "pandas_nullable_int": lambda x: pd.Series(_codes(x), dtype="Int64"),
    "pandas_arrow_int": lambda x: pd.Series(_codes(x), dtype="int64[pyarrow]"),
    "pandas_one_column_frame": lambda x: pd.DataFrame({"label": x}),
    "polars_series": lambda x: pl.Series(x.tolist()),
    "polars_categorical": lambda x: pl.Series(x.tolist(), dtype=pl.Categorical),
    "polars_enum": lambda x: pl.Series(
        x.tolist(), dtype=pl.Enum(["_unused", *sorted(set(x)), "zz_unused"])
    ),
    "polars_int": lambda x: pl.Series(_codes(x)),
    "pyarrow_array": lambda x: pa.array(x.tolist()),
    "pyarrow_chunked": lambda x: pa.chunked_array([x[: N // 2].tolist(), x[N // 2 :].tolist()]),
    "pyarrow_large_string": lambda x: pa.array(x.tolist(), pa.large_string()),
    "pyarrow_dictionary": _arrow_dictionary,
    "pyarrow_chunked_dictionary": lambda x: pa.chunked_array([_arrow_dictionary(x)]),
    "torch_int": lambda x: torch.tensor(_codes(x)),
    "torch_float": lambda x: torch.tensor(_codes(x), dtype=torch.float32),
}


# ------------------------------------------------------------------ 2-D converters
def _frame(x: np.ndarray) -> pd.DataFrame:
    return pd.DataFrame(x, columns=list(TASKS))


TWO_D: dict[str, Callable[[np.ndarray], Any]] = {
    "numpy_int": lambda x: x,
    "numpy_bool": lambda x: x.astype(bool),
    "list_of_lists": lambda x: x.tolist(),
    "pandas_frame": _frame,
    "pandas_nullable_int": lambda x: _frame(x).astype("Int64"),
    "pandas_nullable_boolean": lambda x: _frame(x).astype(bool).astype("boolean"),
    "pandas_arrow_int": lambda x: _frame(x).astype("int64[pyarrow]"),
    "pandas_arrow_bool": lambda x: _frame(x).astype(bool).astype("bool[pyarrow]"),
    "pandas_values": lambda x: _frame(x).values,
    "polars_frame": lambda x: pl.DataFrame(_frame(x)),
    "polars_bool_frame": lambda x: pl.DataFrame(_frame(x).astype(bool)),
    "pyarrow_table": lambda x: pa.Table.from_pandas(_frame(x), preserve_index=False),
    "torch_int": lambda x: torch.tensor(x),
    "torch_bool": lambda x: torch.tensor(x.astype(bool)),
    "torch_float": lambda x: torch.tensor(x, dtype=torch.float64),
    "scipy_csr": sp.csr_matrix,
    "scipy_csc_array": sp.csc_array,
}


# ------------------------------------------------------------------ the metrics
def _one_d_values(c: Callable[[np.ndarray], Any]) -> dict[str, float]:
    d = DATA
    args = {
        k: c(d[k])
        for k in ("groups_train", "groups", "groups_pred", "tasks_train", "tasks", "tasks_pred")
    }
    out: dict[str, float] = {}
    scores = biasamp.bias_scores(args["groups"], tasks=args["tasks"])
    out["bias_scores"] = scores.to_numpy().ravel().tolist()
    out["mals"] = biasamp.mals(
        groups_train=args["groups_train"],
        tasks_train=args["tasks_train"],
        groups_pred=args["groups_pred"],
        tasks_pred=args["tasks_pred"],
    ).value
    for direction in ("A->T", "T->A"):
        out[f"directional {direction}"] = biasamp.directional(
            direction=direction,
            groups=args["groups"],
            tasks=args["tasks"],
            groups_pred=args["groups_pred"],
            tasks_pred=args["tasks_pred"],
            groups_train=args["groups_train"],
            tasks_train=args["tasks_train"],
        ).value
        out[f"dpa {direction}"] = biasamp.dpa(
            direction=direction,
            groups=args["groups"],
            tasks=args["tasks"],
            groups_pred=args["groups_pred"],
            tasks_pred=args["tasks_pred"],
            n_iter=2,
            random_state=0,
        ).value
    leakage = biasamp.leakage_amplification(
        groups=args["groups"],
        tasks=args["tasks"],
        tasks_pred=args["tasks_pred"],
        n_iter=2,
        random_state=0,
    )
    out["leakage"] = [leakage.value, leakage.lambda_m]
    multi = {k: DATA[k] for k in ("multi_train", "multi", "multi_pred")}
    out["multi_mals"] = biasamp.multi_mals(
        groups_train=args["groups_train"],
        tasks_train=multi["multi_train"],
        tasks=multi["multi"],
        groups_pred=args["groups_pred"],
        tasks_pred=multi["multi_pred"],
    ).value
    for direction in ("G->M", "M->G"):
        out[f"multi_directional {direction}"] = biasamp.multi_directional(
            direction=direction,
            groups_train=args["groups_train"],
            tasks_train=multi["multi_train"],
            groups=args["groups"],
            tasks=multi["multi"],
            groups_pred=args["groups_pred"],
            tasks_pred=multi["multi_pred"],
        ).value
    return out


def _two_d_values(c: Callable[[np.ndarray], Any]) -> dict[str, float]:
    d = DATA
    t_train, t, t_pred = c(d["multi_train"]), c(d["multi"]), c(d["multi_pred"])
    out: dict[str, float] = {}
    out["bias_scores"] = biasamp.bias_scores(d["groups"], tasks=t).to_numpy().ravel().tolist()
    out["mals"] = biasamp.mals(
        groups_train=d["groups_train"],
        tasks_train=t_train,
        groups_pred=d["groups_pred"],
        tasks_pred=t_pred,
    ).value
    for direction in ("A->T", "T->A"):
        out[f"directional {direction}"] = biasamp.directional(
            direction=direction,
            groups=d["groups"],
            tasks=t,
            groups_pred=d["groups_pred"],
            tasks_pred=t_pred,
            groups_train=d["groups_train"],
            tasks_train=t_train,
        ).value
        out[f"dpa {direction}"] = biasamp.dpa(
            direction=direction,
            groups=d["groups"],
            tasks=t,
            groups_pred=d["groups_pred"],
            tasks_pred=t_pred,
            n_iter=2,
            random_state=0,
        ).value
    leakage = biasamp.leakage_amplification(
        groups=d["groups"], tasks=t, tasks_pred=t_pred, n_iter=2, random_state=0
    )
    out["leakage"] = [leakage.value, leakage.lambda_m]
    out["multi_mals"] = biasamp.multi_mals(
        groups_train=d["groups_train"],
        tasks_train=t_train,
        tasks=t,
        groups_pred=d["groups_pred"],
        tasks_pred=t_pred,
    ).value
    for direction in ("G->M", "M->G"):
        out[f"multi_directional {direction}"] = biasamp.multi_directional(
            direction=direction,
            groups_train=d["groups_train"],
            tasks_train=t_train,
            groups=d["groups"],
            tasks=t,
            groups_pred=d["groups_pred"],
            tasks_pred=t_pred,
        ).value
    return out


@pytest.fixture(scope="module")
def one_d_reference() -> dict[str, float]:
    return _one_d_values(lambda x: x)


@pytest.fixture(scope="module")
def two_d_reference() -> dict[str, float]:
    return _two_d_values(lambda x: x)


def _assert_same(got: dict[str, Any], expected: dict[str, Any]) -> None:
    assert got.keys() == expected.keys()
    for name, value in expected.items():
        np.testing.assert_allclose(got[name], value, rtol=0, atol=1e-12, err_msg=name)


@pytest.mark.parametrize("container", list(ONE_D))
def test_one_d_labels_in_every_container(container, one_d_reference):
    _assert_same(_one_d_values(ONE_D[container]), one_d_reference)


@pytest.mark.parametrize("container", list(TWO_D))
def test_indicators_in_every_container(container, two_d_reference):
    _assert_same(_two_d_values(TWO_D[container]), two_d_reference)


def test_reference_values_are_not_trivial(one_d_reference, two_d_reference):
    for reference in (one_d_reference, two_d_reference):
        for name, value in reference.items():
            assert np.any(np.asarray(value) != 0.0), name


def test_optional_libraries_are_not_imported_for_numpy_inputs():
    code = (
        "import sys, numpy as np, pandas as pd, biasamp\n"
        "g = np.array(['m', 'w', 'm', 'w']); t = np.array(['a', 'a', 'b', 'b'])\n"
        "biasamp.directional(direction='T->A', groups=g, tasks=pd.Series(t), groups_pred=g[::-1])\n"
        "print(sorted(m for m in ('polars', 'torch', 'datasets', 'jax') if m in sys.modules))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(Path(biasamp.__file__).parents[1])}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    )
    assert out.stdout.strip() == "[]"


def test_hugging_face_dataset_columns():
    datasets = pytest.importorskip("datasets")
    ds = datasets.Dataset.from_dict({"label": DATA["groups"].tolist()})
    expected = biasamp.bias_scores(DATA["groups"], tasks=DATA["tasks"])
    got = biasamp.bias_scores(ds, tasks=DATA["tasks"])
    np.testing.assert_allclose(got.to_numpy(), expected.to_numpy(), rtol=0, atol=1e-12)


def test_bfloat16_tensor_is_read_as_its_float32_values():
    # numpy has no bfloat16: the tensor is widened to float32, which holds it exactly
    multi = DATA["multi"]
    expected = biasamp.bias_scores(DATA["groups"], tasks=multi).to_numpy()
    got = biasamp.bias_scores(DATA["groups"], tasks=torch.tensor(multi, dtype=torch.bfloat16))
    np.testing.assert_array_equal(got.to_numpy(), expected)
    labels = torch.tensor(_codes(DATA["groups"]), dtype=torch.bfloat16, requires_grad=True)
    got = biasamp.bias_scores(labels, tasks=multi)
    np.testing.assert_array_equal(got.to_numpy(), expected)
