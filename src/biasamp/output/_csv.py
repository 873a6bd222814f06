"""Spreadsheet-safe CSV: text cells that a spreadsheet would run as a formula get a leading ``'``.

OWASP's advice against CSV injection: a cell that begins with ``=``, ``+``,
``-``, ``@``, a tab or a carriage return is read by Excel, LibreOffice and
Google Sheets as a formula (``=HYPERLINK(...)``, ``+cmd|' /C calc'!A0``,
``@SUM(...)``, ``-2+3``), so biasamp writes such text cells, header names
included, with a leading single quote, which the spreadsheet shows as text.
A ``-`` followed by a plain number (``-2``, ``-0.5e3``) is a number, not a
formula, and is written as it is; numeric columns are never touched.

The escape is reversible, so biasamp's own readers give back exactly what was
written: a text cell that begins with ``'`` followed by one of ``= + - @``,
tab, carriage return or ``'`` loses its first ``'`` on reading
(:func:`unescape_cells`), and the writer escapes every cell that reading would
change, including one that already begins that way. Cells biasamp did not write
with such a beginning (``'=x`` typed in a spreadsheet export) are read the same
way, as the text after the quote.
"""

from __future__ import annotations

import re
from typing import IO, Any

import numpy as np
import pandas as pd

__all__ = [
    "ESCAPED_CELL",
    "escape_cell",
    "escape_cells",
    "spreadsheet_safe",
    "unescape_cell",
    "unescape_cells",
    "write_csv",
]

#: Text that a spreadsheet would read as a formula, or that reading back would change.
_NEEDS_QUOTE = r"(?:[=+@\t\r]|'[=+\-@\t\r']|-(?!(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?\Z))"
_NEEDS_QUOTE_RE = re.compile(_NEEDS_QUOTE, re.DOTALL)
#: A cell written escaped: the quote and what made it needed (a regex anchored at the start).
ESCAPED_CELL = r"^'[=+\-@\t\r']"
_ESCAPED = ESCAPED_CELL
_ESCAPED_RE = re.compile(_ESCAPED, re.DOTALL)


def escape_cell(text: str) -> str:
    """One cell as written: ``'`` + text when a spreadsheet would run it (module docs).

    Examples
    --------
    >>> from biasamp.output._csv import escape_cell
    >>> [escape_cell(c) for c in ["=1+1", "-2+3", "-2", "@SUM(A1)", "man", "'=x"]]
    ["'=1+1", "'-2+3", '-2', "'@SUM(A1)", 'man', "''=x"]
    """
    return "'" + text if _NEEDS_QUOTE_RE.match(text) else text


def unescape_cell(text: str) -> str:
    """One cell as read back: the inverse of :func:`escape_cell`.

    Examples
    --------
    >>> from biasamp.output._csv import escape_cell, unescape_cell
    >>> all(unescape_cell(escape_cell(c)) == c for c in ["=1", "'", "''", "-1", "-x", "'a"])
    True
    """
    return text[1:] if _ESCAPED_RE.match(text) else text


def escape_cells(values: pd.Series) -> pd.Series:
    """:func:`escape_cell` on every text cell of a column (other cells unchanged)."""
    if not (pd.api.types.is_object_dtype(values) or pd.api.types.is_string_dtype(values)):
        return values
    needs = values.str.match(_NEEDS_QUOTE, flags=re.DOTALL, na=False).to_numpy(dtype=bool)
    if not needs.any():
        return values
    out = values.astype(object).copy()
    out[needs] = "'" + values[needs].astype(str)
    return out


def unescape_cells(values: Any) -> Any:
    """:func:`unescape_cell` on every cell of a string array or Series (same type back)."""
    if isinstance(values, pd.Series):
        mask = values.str.match(_ESCAPED, flags=re.DOTALL, na=False).to_numpy(dtype=bool)
        if not mask.any():
            return values
        out = values.copy()
        out[mask] = values[mask].str.slice(1)
        return out
    array = np.asarray(values, dtype=object)
    series = pd.Series(array, dtype=object)
    return unescape_cells(series).to_numpy(dtype=object)


def spreadsheet_safe(frame: pd.DataFrame) -> pd.DataFrame:
    """A copy of ``frame`` with every text cell and column name escaped (:func:`escape_cell`)."""
    out = frame.copy()
    for position in range(out.shape[1]):  # by position: column names may repeat
        out.isetitem(position, escape_cells(out.iloc[:, position]).to_numpy())
    out.columns = [escape_cell(c) if isinstance(c, str) else c for c in out.columns]
    return out


def write_csv(handle: IO[str], frame: pd.DataFrame, **to_csv: Any) -> None:
    """Write ``frame`` as spreadsheet-safe CSV to an open text handle, without its index.

    Rows end with CRLF (RFC 4180), so a field holding a carriage return or a
    line feed is quoted (Python's CSV writer quotes the characters of the line
    terminator only) and every reader sees the rows the frame has. Open the
    handle with ``newline=""``.
    """
    spreadsheet_safe(frame).to_csv(handle, index=False, lineterminator="\r\n", **to_csv)
