"""polars and Arrow string labels read through their codes give the labels of numpy.

For random labels (hypothesis), with nulls and with categories no row uses,
every polars / pyarrow form (String, Categorical, Enum, string and
large_string arrays, dictionary arrays, chunked arrays whose chunks have
different dictionaries) gives the names and codes of the same labels as a
numpy object array, or the missing-label error at the same row.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import nullcontext
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from biasamp.inputs import LabelWarning, as_label_matrix
from biasamp.inputs._arrow_labels import arrow_label_codes
from biasamp.inputs._containers import ERR_MISSING_LABEL

pl = pytest.importorskip("polars")

ALPHABET = ["m", "w", "x", "nb", "", "ünï", "a b"]
#: every label the Enum declares, so that some are unused in most examples
DECLARED = sorted(ALPHABET)


def _chunks(values: list[Any], make: Callable[[list[Any]], Any]) -> Any:
    half = len(values) // 2
    return pa.chunked_array([make(values[:half]), make(values[half:])])


FORMS: dict[str, Callable[[list[Any]], Any]] = {
    "polars_string": lambda v: pl.Series(v, dtype=pl.String),
    "polars_categorical": lambda v: pl.Series(v, dtype=pl.Categorical),
    "polars_enum": lambda v: pl.Series(v, dtype=pl.Enum(DECLARED)),
    "pyarrow_string": lambda v: pa.array(v, type=pa.string()),
    "pyarrow_large_string": lambda v: pa.array(v, type=pa.large_string()),
    "pyarrow_dictionary": lambda v: pc.dictionary_encode(pa.array(v)),
    "pyarrow_declared_dictionary": lambda v: pa.DictionaryArray.from_arrays(
        pa.array([None if x is None else DECLARED.index(x) for x in v], type=pa.int8()),
        pa.array(DECLARED),
    ),
    "pyarrow_chunked_dictionaries": lambda v: _chunks(
        v, lambda part: pc.dictionary_encode(pa.array(part, type=pa.string()))
    ),
    "pyarrow_chunked_strings": lambda v: _chunks(v, lambda part: pa.array(part, type=pa.string())),
}


@settings(max_examples=60, deadline=None)
@given(
    values=st.lists(st.sampled_from(ALPHABET), min_size=2, max_size=40),
    nulls=st.lists(st.integers(0, 39), max_size=3),
    form=st.sampled_from(sorted(FORMS)),
)
def test_codes_and_names_equal_the_numpy_path(
    values: list[Any], nulls: list[int], form: str
) -> None:
    values = list(values)
    for row in nulls:
        if row < len(values):
            values[row] = None
    assert_same_labels(FORMS[form](values), values)


def assert_same_labels(container: Any, values: list[Any]) -> None:
    """``container`` of ``values`` gives the names and codes of a numpy object array of
    them, or the missing-label error at the same row (shared with the other Arrow tests)."""
    missing = [i for i, v in enumerate(values) if v is None]
    if missing:
        expected = ERR_MISSING_LABEL.format(arg="groups", count=len(missing), row=missing[0])
        with pytest.raises(ValueError) as info:
            as_label_matrix(container, arg="groups")
        assert str(info.value) == expected
        return
    with pytest.warns(LabelWarning) if "" in values else nullcontext():
        got = as_label_matrix(container, arg="groups")
    with pytest.warns(LabelWarning) if "" in values else nullcontext():
        want = as_label_matrix(np.array(values, dtype=object), arg="groups")
    assert got.names == want.names  # labels that occur, sorted: unused categories dropped
    assert got.codes is not None and want.codes is not None
    assert got.codes.tolist() == want.codes.tolist()
    assert got.codes.flags.writeable


def test_polars_categorical_codes_index_global_categories() -> None:
    # other categoricals first, so that these labels get large, sparse global ids
    pl.Series([f"other_{i}" for i in range(500)], dtype=pl.Categorical)
    series = pl.Series(["w", "m", "w", "zzz_last"], dtype=pl.Categorical)
    codes, uniques = arrow_label_codes(series)  # type: ignore[misc]
    assert [uniques[c] for c in codes] == ["w", "m", "w", "zzz_last"]
    matrix = as_label_matrix(series, arg="groups", names=("m", "w", "zzz_last"))
    assert matrix.codes is not None and matrix.codes.tolist() == [1, 0, 1, 2]


def test_unknown_labels_against_canonical_names_are_reported() -> None:
    with pytest.raises(ValueError, match="1 label\\(s\\) not in the canonical label set"):
        as_label_matrix(pl.Series(["m", "q"], dtype=pl.Categorical), arg="groups", names=("m",))


def test_other_dtypes_take_the_general_path() -> None:
    assert arrow_label_codes(pl.Series([1, 2, 3])) is None
    assert arrow_label_codes(pa.array([1.5, 2.5])) is None
    assert arrow_label_codes(np.array(["a"])) is None
    matrix = as_label_matrix(pl.Series([3, 1, 3]), arg="groups")
    assert matrix.names == (1, 3)
