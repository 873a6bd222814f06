"""The dispatch table of ``as_label_matrix``: each container kind reaches its encoder.

The fast paths are pinned: numpy arrays, lists, pandas labels (Arrow strings,
categories, numpy dtypes), polars and pyarrow labels are encoded without
``to_native_numpy`` (narwhals) and without a separate missing-value pass over 1-D
labels (the factorisation finds them); every container gives the numpy array's matrix.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest
import scipy.sparse as sp

from biasamp.inputs import _containers, _label_matrix
from biasamp.inputs._label_matrix import ERR_MISSING_LABEL, as_label_matrix

LABELS = np.array(["w", "m", "w", "x", "m", "w"])
CODES = np.array([2, 0, 2, 1, 0, 2])


def fast_containers() -> dict[str, object]:
    return {
        "numpy <U": LABELS,
        "numpy object": LABELS.astype(object),
        "list": LABELS.tolist(),
        "pandas str": pd.Series(LABELS, dtype="str"),
        "pandas object": pd.Series(LABELS, dtype=object),
        "pandas category": pd.Series(LABELS, dtype="category"),
        "pandas Categorical": pd.Categorical(LABELS, categories=["x", "w", "m", "unused"]),
        "pandas int category": pd.Series(CODES, dtype="category"),
        "pandas index": pd.Index(LABELS, dtype=object),
        "polars String": pl.Series(LABELS),
        "polars Categorical": pl.Series(LABELS, dtype=pl.Categorical),
        "arrow": pa.array(LABELS),
        "arrow dictionary": pa.chunked_array([pa.array(LABELS).dictionary_encode()]),
        "int codes": CODES,
    }


@pytest.mark.parametrize("name", list(fast_containers()))
def test_fast_paths_skip_narwhals_and_the_missing_pass(name, monkeypatch):
    x = fast_containers()[name]

    def refused(*args, **kwargs):
        raise AssertionError("the general reader was used")

    monkeypatch.setattr(_label_matrix, "to_native_numpy", refused)
    monkeypatch.setattr(_containers, "_missing_mask", refused)
    matrix = as_label_matrix(x, arg="groups")
    expected = (0, 1, 2) if name.startswith(("int", "pandas int")) else ("m", "w", "x")
    assert matrix.names == expected
    want = CODES if expected == (0, 1, 2) else np.searchsorted(["m", "w", "x"], LABELS)
    np.testing.assert_array_equal(matrix.codes, want)


def test_the_table_holds_one_encoder_per_kind():
    encoders = {
        name: _label_matrix._classify(x)
        for name, x in {**fast_containers(), "sparse": sp.csr_matrix(np.eye(2))}.items()
    }
    assert encoders["numpy <U"] is encoders["numpy object"] is encoders["int codes"]
    assert encoders["pandas str"] is encoders["pandas category"] is encoders["pandas index"]
    assert encoders["polars String"] is encoders["arrow"] is encoders["arrow dictionary"]
    assert len({encoders[n] for n in ("numpy <U", "list", "pandas str", "arrow", "sparse")}) == 5
    frame = pd.DataFrame({"a": [0, 1], "b": [1, 0]})
    assert _label_matrix._classify(frame) is not encoders["pandas str"]


@pytest.mark.parametrize(
    ("x", "count", "row"),
    [
        (np.array(["a", None, "b", None], dtype=object), 2, 1),
        (np.array(["a", "b", np.nan], dtype=object), 1, 2),
        (pd.Series(["a", pd.NA, "b"], dtype=object), 1, 1),
        (np.array([1.0, np.nan, 2.0]), 1, 1),
        (np.array(["2020-01-01", "NaT"], dtype="datetime64[D]"), 1, 1),
        (pd.Series([1, None, 2], dtype="category"), 1, 1),
        (["a", None, "b"], 1, 1),
    ],
)
def test_missing_labels_are_found_by_the_factorisation(x, count, row):
    with pytest.raises(
        ValueError, match=re.escape(ERR_MISSING_LABEL.format(arg="groups", count=count, row=row))
    ):
        as_label_matrix(x, arg="groups")


def test_a_missing_value_is_reported_before_unhashable_labels():
    x = np.empty(3, dtype=object)
    x[:] = [["a"], None, ["b"]]
    with pytest.raises(
        ValueError, match=re.escape(ERR_MISSING_LABEL.format(arg="groups", count=1, row=1))
    ):
        as_label_matrix(x, arg="groups")


@pytest.mark.parametrize("names", [(0, 1, 2), (True, False), ("a", "b", "c"), (1, 2.5), ("1", 1)])
def test_label_positions_by_dict_equal_pandas(names):
    observed = names[::-1]
    uniques = np.array(observed, dtype=object)
    got = _label_matrix._positions(tuple(names), tuple(observed), uniques, "groups")
    expected = pd.Index(names).get_indexer(pd.Index(uniques, dtype=object))
    np.testing.assert_array_equal(got, expected)
