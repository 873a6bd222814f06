"""Short Arrow strings factorised through their 16-byte views give exactly the numpy labels.

For random labels (hypothesis) drawn from strings of 0 to 13 bytes (empty,
unicode of 2 to 4 bytes a character, NUL bytes inside and at the end, labels
of 8, 9, 12 and 13 bytes: around the 12 bytes a view holds inline),
with nulls, in every Arrow string form (``string``, ``large_string``,
``string_view``, chunked arrays of several chunks, sliced arrays whose data
starts at an offset, polars ``String``, pandas ``str`` and ``string[pyarrow]``),
:func:`as_label_matrix` gives the names and codes of a numpy object array of the
same labels, or the missing-label error at the same row. The view path itself
is checked on the inputs it must take, and on those it must refuse.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from biasamp.inputs._short_strings import MAX_LABELS, short_string_codes
from tests.inputs.test_arrow_labels import assert_same_labels

pl = pytest.importorskip("polars")

ALPHABET = [
    "",
    "m",
    "w",
    "a\x00",  # a trailing NUL: the bytes of "a" and one more
    "a",
    "\x00",
    "nb x",
    "ünï",  # 2-byte characters
    "日本",  # 3-byte characters
    "🙂",  # a 4-byte character
    "woman",
    "label_17",  # 8 bytes
    "label_170",  # 9 bytes
    "twelve_bytes",  # 12 bytes: the longest inline view
    "thirteen_byte",  # 13 bytes: a view into a data buffer
]


def _split(values: list[Any], cuts: list[int], kind: pa.DataType) -> pa.ChunkedArray:
    edges = sorted({0, len(values), *(c % (len(values) + 1) for c in cuts)})
    return pa.chunked_array(
        [pa.array(values[a:b], type=kind) for a, b in zip(edges, edges[1:], strict=False)],
        type=kind,
    )


def _sliced(values: list[Any], kind: pa.DataType) -> pa.Array:
    """The values as a slice of a longer array (its offset and data start past 0)."""
    padded = ["before", "label_99", *values, "after"]
    return pa.array(padded, type=kind).slice(2, len(values))


FORMS: dict[str, Callable[[list[Any], list[int]], Any]] = {
    "string": lambda v, _: pa.array(v, type=pa.string()),
    "large_string": lambda v, _: pa.array(v, type=pa.large_string()),
    "string_view": lambda v, _: pa.array(v, type=pa.string_view()),
    "chunked_string": lambda v, cuts: _split(v, cuts, pa.string()),
    "chunked_large_string": lambda v, cuts: _split(v, cuts, pa.large_string()),
    "chunked_string_view": lambda v, cuts: _split(v, cuts, pa.string_view()),
    "sliced_string": lambda v, _: _sliced(v, pa.string()),
    "sliced_large_string": lambda v, _: _sliced(v, pa.large_string()),
    "sliced_string_view": lambda v, _: _sliced(v, pa.string_view()),
    "polars_string": lambda v, _: pl.Series(v, dtype=pl.String),
    "polars_chunked": lambda v, cuts: pl.concat(
        [pl.from_arrow(chunk) for chunk in _split(v, cuts, pa.string()).chunks], rechunk=False
    ),
    "pandas_str": lambda v, _: pd.Series(v, dtype=pd.StringDtype("pyarrow", na_value=np.nan)),
    "pandas_string_pyarrow": lambda v, _: pd.Series(v, dtype="string[pyarrow]"),
}


@settings(max_examples=150, deadline=None)
@given(
    values=st.lists(st.sampled_from(ALPHABET), min_size=1, max_size=60),
    nulls=st.lists(st.integers(0, 59), max_size=2),
    cuts=st.lists(st.integers(0, 60), max_size=4),
    form=st.sampled_from(sorted(FORMS)),
)
def test_every_arrow_string_form_gives_the_numpy_labels(
    values: list[Any], nulls: list[int], cuts: list[int], form: str
) -> None:
    values = list(values)
    for row in nulls:
        if row < len(values):
            values[row] = None
    assert_same_labels(FORMS[form](values, cuts), values)


@settings(max_examples=60, deadline=None)
@given(
    values=st.lists(
        st.text(st.characters(codec="utf-8"), max_size=4).filter(lambda s: len(s.encode()) <= 12),
        min_size=1,
        max_size=40,
    ),
    form=st.sampled_from(["string", "large_string", "string_view", "chunked_string"]),
)
def test_any_short_unicode_takes_the_view_path_exactly(values: list[str], form: str) -> None:
    container = FORMS[form](values, [len(values) // 2])
    chunks = container.chunks if isinstance(container, pa.ChunkedArray) else [container]
    found = short_string_codes(chunks)
    assert found is not None
    codes, uniques = found
    assert uniques.tolist() == sorted(set(values))  # Python's str order
    assert [uniques[c] for c in codes] == values
    assert_same_labels(container, values)


def test_rows_the_sample_misses_are_found() -> None:
    # 200,003 rows: the sample takes every 12th; the rare labels sit between
    values = ["common"] * 200_003
    values[5] = "rare"
    values[200_001] = "zz_last"
    values[100_007] = "aa_first"
    codes, uniques = short_string_codes([pa.array(values)])  # type: ignore[misc]
    assert uniques.tolist() == ["aa_first", "common", "rare", "zz_last"]
    assert codes[[5, 100_007, 200_001, 0]].tolist() == [2, 0, 3, 1]
    assert int((codes == 1).sum()) == 200_000


def test_nonzero_padding_in_a_view_is_the_same_label() -> None:
    # Arrow's full validation wants zero padding; a producer that skips it is still read right
    views = np.zeros((3, 16), dtype=np.uint8)
    views[:, 0] = 1  # every length is 1
    views[:, 4] = ord("a")
    views[0, 9] = 7  # garbage past the string's byte
    views[2, 4] = ord("b")
    array = pa.Array.from_buffers(pa.string_view(), 3, [None, pa.py_buffer(views.tobytes())])
    codes, uniques = short_string_codes([array])  # type: ignore[misc]
    assert uniques.tolist() == ["a", "b"]
    assert codes.tolist() == [0, 0, 1]


@pytest.mark.parametrize(
    ("values", "why"),
    [
        (["short", "thirteen_byte"], "a string over 12 bytes"),
        (["a", None], "a null"),
        ([f"l{i}" for i in range(MAX_LABELS + 1)], "too many labels"),
    ],
)
def test_the_view_path_declines(values: list[Any], why: str) -> None:
    assert short_string_codes([pa.array(values)]) is None, why
    assert_same_labels(pa.array(values), values)


def test_long_labels_and_many_labels_still_give_the_numpy_labels() -> None:
    rng = np.random.default_rng(0)
    names = np.array([f"label_{i}" for i in range(1_000)])  # up to 9 bytes, 1,000 labels
    values = names[rng.integers(0, 1_000, 5_000)].tolist()
    assert_same_labels(pa.array(values, type=pa.large_string()), values)
    assert_same_labels(pl.Series(values), values)
