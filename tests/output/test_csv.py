"""Spreadsheet-safe CSV (biasamp.output._csv): formula cells quoted, read back exactly."""

from __future__ import annotations

import csv
import io

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from biasamp.output._csv import (
    escape_cell,
    spreadsheet_safe,
    unescape_cell,
    unescape_cells,
    write_csv,
)

FORMULAS = [
    '=HYPERLINK("http://evil.example","click")',
    "+cmd|' /C calc'!A0",
    "@SUM(A1:A9)",
    "-2+3",
    "\tTAB",
    "\rCR",
    "=1+1",
]


@pytest.mark.parametrize("cell", FORMULAS)
def test_formula_cells_get_a_leading_quote(cell):
    assert escape_cell(cell) == "'" + cell
    assert unescape_cell(escape_cell(cell)) == cell


@pytest.mark.parametrize("cell", ["-2", "-0.5", "-1e-3", "-.5", "man", "", "'", "'abc", "a=b"])
def test_numbers_and_plain_text_are_written_as_they_are(cell):
    assert escape_cell(cell) == cell
    assert unescape_cell(cell) == cell


@pytest.mark.parametrize("cell", ["'=x", "''", "'-2", "'@", "'\t"])
def test_text_that_reading_would_change_is_escaped_too(cell):
    assert escape_cell(cell) == "'" + cell
    assert unescape_cell(escape_cell(cell)) == cell


@given(st.text())
def test_escaping_round_trips_any_text(text):
    assert unescape_cell(escape_cell(text)) == text
    escaped = escape_cell(text)
    assert not escaped or escaped[0] not in "=+@\t\r" or False
    if escaped[:1] == "-":
        float(escaped)  # only numbers keep a leading minus


@given(st.lists(st.text(), min_size=1, max_size=8))
def test_a_frame_round_trips_through_csv(values):
    frame = pd.DataFrame({"label": values, "x": np.arange(len(values), dtype=float) - 3})
    buffer = io.StringIO(newline="")
    write_csv(buffer, frame)
    buffer.seek(0)
    rows = list(csv.reader(buffer))
    assert rows[0] == ["label", "x"]
    for row in rows[1:]:
        assert row[0][:1] not in ("=", "+", "@", "\t", "\r")
    back = [unescape_cell(row[0]) for row in rows[1:]]
    assert back == values
    # numeric columns are untouched: negative numbers stay numbers
    assert [float(row[1]) for row in rows[1:]] == frame["x"].tolist()


def test_header_names_are_escaped_and_repeated_names_kept():
    frame = pd.DataFrame([[1, "=x", "-3"]], columns=["=a", "b", "b"])
    safe = spreadsheet_safe(frame)
    assert list(safe.columns) == ["'=a", "b", "b"]
    assert safe.iloc[0].tolist() == [1, "'=x", "-3"]


def test_vectorised_unescape_matches_the_scalar_one():
    cells = ["'=x", "=x", "''", "'a", "-2", None]
    series = pd.Series(cells, dtype=object)
    expected = [unescape_cell(c) if c is not None else None for c in cells]
    assert unescape_cells(series).tolist() == expected
    assert unescape_cells(np.array(cells[:-1], dtype=object)).tolist() == expected[:-1]
