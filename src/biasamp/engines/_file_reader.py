"""The validating file reader: every input file of an audit is read here.

Formats
-------
Delimited text (``.csv``, ``.tsv``, optionally compressed: ``.gz``, ``.bz2``,
``.xz``, ``.zst``, ``.zip``) or Parquet (by its ``PAR1`` magic or a
``.parquet`` / ``.pq`` suffix; :func:`~biasamp.engines._file_formats.detect_file_format`).
The delimiter defaults to a tab for ``.tsv`` files and a comma otherwise; a
header that is one column containing another common delimiter is refused with
a hint.

Reading
-------
:func:`read_blocks` reads only the needed columns of a file, once, streamed in
chunks of about four million cells, converting each chunk to compact arrays
(:class:`ColumnBlock`: label strings, ids, uint8 0/1 indicators, float64
scores) and refusing a missing, non-binary or non-numeric value with the file,
column and data row. Every file is read by the engines' batch reader
(:func:`~biasamp.engines._files.iter_file_batches`, the one the count tables
use): delimited text with any delimiter and compression, every needed column
read as text (an empty field is the only missing value: ``NA``, ``null`` or
``01`` are labels as they are written), the numbers converted here
(:func:`_numbers`: ``1``, ``1.0``, `` 1 ``, ``1e0`` are numbers, ``True`` /
``False`` are 0/1 values in indicator columns; ``nan`` is missing), text cells read back from their
spreadsheet-safe form (:mod:`biasamp.output._csv`). The SHA-256 of a delimited
file is computed from the same bytes in the same pass (a ``.zip`` file and
Parquet files, of which only the needed parts are read, are hashed in a
separate streamed pass). Nothing is unpickled.

Errors are :class:`InputError` (a ``ValueError``) whose messages, module
constants, name the file, the column and the problem. Assembling an audit from
these arrays (label sets, id joins, thresholds) is
:mod:`biasamp.auditing._inputs`.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from biasamp.engines._file_formats import (
    ERR_DUPLICATE_COLUMNS,
    ERR_MISSING_VALUES,
    ERR_PARQUET,
    InputError,
    RaggedRowError,
    csv_parse_options,
    default_delimiter,
    delimited_source,
    detect_file_format,
    grown_block_size,
    known_reading_error,
)
from biasamp.engines._files import iter_file_batches
from biasamp.inputs._intersect import (  # the labels biasamp.intersect makes
    DEFAULT_SEP,
    MISSING_LEVEL,
)
from biasamp.output._csv import unescape_cell

__all__ = [
    "ColumnBlock",
    "FileInfo",
    "InputError",
    "file_sha256",
    "read_blocks",
    "read_header",
    "read_long_table",
]

# --- error messages (reused by the tests) ---------------------------------
ERR_NOT_FOUND = "{file}: file not found."
ERR_EMPTY_FILE = "{file}: the file is empty."
ERR_NO_ROWS = "{file}: the file has a header but no data rows."
ERR_DELIMITER = (
    "{file}: the header is a single column {header!r} containing {char!r}; the file seems to "
    "be delimited by {char!r}, not {expected!r}. Pass delimiter={char!r}."
)
ERR_CSV = "{file}: cannot parse the file as delimited text ({detail})."
ERR_NO_PYARROW = "{file}: reading files needs pyarrow, a dependency of biasamp that is missing here: pip install pyarrow."
ERR_MISSING_COLUMN = (
    "{file}: column {column!r} ({option}) not found; the file has columns {columns}."
)
ERR_NOT_BINARY = (
    "{file}, column {column!r}: values must be 0 or 1; found {value!r} in data row {row}."
)
HINT_SCORES = " Prediction scores need threshold=."
ERR_NOT_NUMERIC = (
    "{file}, column {column!r}: expected a number (a score); found {value!r} in data row {row}."
)

#: The text of a number in a delimited file (spaces around it are dropped first):
#: what pyarrow's and pandas' parsers both read as a float.
NUMBER_TEXT = r"^[+-]?((\d+\.?\d*|\.\d+)([eE][+-]?\d+)?|(?i:inf|infinity|nan))$"
_TRUE_TEXT = ("True", "TRUE", "true")
_FALSE_TEXT = ("False", "FALSE", "false")

_FORMAT_CSV = "csv"
_FORMAT_PARQUET = "parquet"
_DELIMITER_CANDIDATES = (",", ";", "\t", "|")
_CHUNK_CELLS = 4_000_000  # cells per chunk when streaming
_MIN_CHUNK_ROWS = 1000
_MAX_SHOWN = 5


def _shown(values: Sequence[Any]) -> str:
    values = list(values)
    text = ", ".join(repr(v) for v in values[:_MAX_SHOWN])
    if len(values) > _MAX_SHOWN:
        text += f", ... ({len(values)} in all)"
    return text


def _columns_text(columns: Sequence[str]) -> str:
    columns = list(columns)
    text = ", ".join(repr(c) for c in columns[:12])
    if len(columns) > 12:
        text += f", ... ({len(columns)} in all)"
    return text


@dataclass(frozen=True)
class FileInfo:
    """Provenance of one input file (for the JSON output and the report)."""

    role: str
    path: str
    format: str
    sha256: str
    n_rows: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "role": self.role,
            "path": self.path,
            "format": self.format,
            "sha256": self.sha256,
            "rows": self.n_rows,
        }


@dataclass(frozen=True)
class ColumnBlock:
    """Columns of a file that make up one array.

    ``kind`` is ``"label"`` (one categorical column, read as strings),
    ``"id"`` (one id column, strings), ``"indicator"`` (0/1 columns, uint8) or
    ``"score"`` (numeric columns, float64). ``option`` is the command-line
    option the columns came from, for error messages.
    """

    role: str
    kind: str
    columns: tuple[str, ...]
    option: str
    #: a missing label: an error, or (``"category"``) the level ``biasamp.intersect`` gives it
    missing: str = "error"


# --- file format, header, hashing -------------------------------------------------


def _file_format(path: Path) -> str:
    try:
        return detect_file_format(path)
    except FileNotFoundError as exc:
        raise InputError(ERR_NOT_FOUND.format(file=path)) from exc
    except IsADirectoryError as exc:
        raise InputError(ERR_CSV.format(file=path, detail="it is a directory")) from exc


def _parquet_module(path: Path) -> Any:
    try:
        import pyarrow.parquet as pq
    except ImportError as exc:  # pragma: no cover - pyarrow is a test dependency
        raise InputError(ERR_NO_PYARROW.format(file=path)) from exc
    return pq


def _open_parquet(path: Path) -> Any:
    pq = _parquet_module(path)
    try:
        return pq.ParquetFile(path)
    except Exception as exc:  # pyarrow raises ArrowInvalid, OSError, ... for bad files
        raise InputError(ERR_PARQUET.format(file=path, detail=str(exc).strip())) from exc


def _check_delimiter(path: Path, columns: Sequence[str], delimiter: str) -> None:
    if len(columns) != 1:
        return
    header = str(columns[0])
    for char in _DELIMITER_CANDIDATES:
        if char != delimiter and char in header:
            raise InputError(
                ERR_DELIMITER.format(file=path, header=header, char=char, expected=delimiter)
            )


def read_header(path: str | Path, *, delimiter: str | None = None) -> tuple[str, list[str]]:
    """The format (``"csv"`` or ``"parquet"``) and the column names of a file.

    Reads only the first block of a CSV file, only the footer of a Parquet file.
    """
    path = Path(path)
    fmt = _file_format(path)
    if fmt == _FORMAT_PARQUET:
        parquet = _open_parquet(path)
        names = [str(name) for name in parquet.schema_arrow.names]
        _check_unique_columns(path, names)
        return fmt, names
    if path.stat().st_size == 0:
        raise InputError(ERR_EMPTY_FILE.format(file=path))
    sep = default_delimiter(path, delimiter)
    import pyarrow.csv as pcsv

    def skip(row: Any) -> str:  # a ragged row is named by read_blocks, with its line
        return "skip"

    block = 1 << 20
    while True:
        try:
            with (
                delimited_source(path) as source,
                pcsv.open_csv(
                    source.stream,
                    read_options=pcsv.ReadOptions(block_size=block),
                    parse_options=csv_parse_options(sep, skip),
                ) as reader,
            ):
                raw = [str(name) for name in reader.schema.names]
            break
        except Exception as exc:  # ArrowInvalid, OSError, EOFError, lzma / zip errors
            grown = grown_block_size(exc, block)
            if grown is None:
                raise _csv_error(path, exc) from exc
            block = grown  # a row larger than the block
    columns = [unescape_cell(c) for c in raw]  # spreadsheet-safe names
    _check_delimiter(path, columns, sep)
    _check_unique_columns(path, raw)
    _check_unique_columns(path, columns)
    return fmt, columns


def _csv_error(path: Path, exc: Exception) -> InputError:
    """The reader's error for a delimited file pyarrow or a decompressor refused."""
    detail = str(exc).strip()
    if isinstance(exc, InputError):
        return exc
    if isinstance(exc, RaggedRowError):
        return InputError(detail)
    if "Empty CSV file" in detail:  # nothing but blank lines (after decompression)
        return InputError(ERR_EMPTY_FILE.format(file=path))
    known = known_reading_error(path, exc)  # compression, encoding, a row too large
    if known is not None:
        return known
    return InputError(ERR_CSV.format(file=path, detail=detail))


def _check_unique_columns(path: Path, columns: Sequence[str]) -> None:
    counts = Counter(columns)
    repeated = [c for c, n in counts.items() if n > 1]
    if repeated:
        raise InputError(ERR_DUPLICATE_COLUMNS.format(file=path, columns=_shown(repeated)))


def file_sha256(path: str | Path) -> str:
    """SHA-256 of a file, streamed in 1 MiB blocks."""
    digest = hashlib.sha256()
    with Path(path).open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


# --- chunk conversion ------------------------------------------------------------------


def _first_row(mask: np.ndarray) -> int:
    return int(np.argmax(mask.any(axis=1) if mask.ndim == 2 else mask))


def _null_mask(values: Any) -> np.ndarray:
    import pyarrow.compute as pc

    return np.asarray(pc.is_null(values).to_numpy(zero_copy_only=False), dtype=bool)


def _is_text(values: Any) -> bool:
    import pyarrow as pa

    return bool(pa.types.is_string(values.type) or pa.types.is_large_string(values.type))


def _as_text(values: Any) -> Any:
    """A column as an Arrow string array (a Parquet column of numbers: as pandas prints them)."""
    import pyarrow as pa

    if pa.types.is_dictionary(values.type):
        values = values.dictionary_decode()
    if _is_text(values):  # one string type, so that columns join
        return values.cast(pa.string()) if pa.types.is_large_string(values.type) else values
    # typed label columns (Parquet): str() of each value, as the labels were always named
    return pa.array(values.to_pandas().astype(str).to_numpy(dtype=object), type=pa.string())


def _convert_label(batch: Any, block: ColumnBlock, path: Path, offset: int) -> np.ndarray:
    """The block's labels as strings; several columns give their intersection per row."""
    import pyarrow.compute as pc

    parts = []
    for column in block.columns:
        values = batch.column(column)
        if values.null_count and block.missing == "category":
            values = pc.fill_null(_as_text(values), MISSING_LEVEL)
        elif values.null_count:
            missing = _null_mask(values)
            raise InputError(
                ERR_MISSING_VALUES.format(
                    file=path,
                    column=column,
                    count=int(missing.sum()),
                    row=offset + _first_row(missing) + 1,
                )
            )
        parts.append(_as_text(values))
    joined = parts[0] if len(parts) == 1 else pc.binary_join_element_wise(*parts, DEFAULT_SEP)
    return np.asarray(joined.to_numpy(zero_copy_only=False), dtype=object)


def _single_digits(values: Any) -> np.ndarray | None:
    """The values of a text column whose every cell is one digit (the usual 0/1 column),
    read straight from its bytes; None for any other column."""
    import pyarrow as pa

    n = len(values)
    if values.null_count or n == 0:
        return None
    width = np.int64 if pa.types.is_large_string(values.type) else np.int32
    _, offsets_buffer, data_buffer = values.buffers()
    offsets = np.frombuffer(offsets_buffer, dtype=width)[values.offset : values.offset + n + 1]
    first, last = int(offsets[0]), int(offsets[-1])
    if last - first != n:  # no empty cell (that is missing), so every cell has one byte
        return None
    digits = np.frombuffer(data_buffer, dtype=np.uint8)[first:last] - np.uint8(48)
    if (digits > 9).any():
        return None
    return digits.astype(np.float64)


def _not_a_number(block: ColumnBlock, column: str, path: Path, value: Any, row: int) -> InputError:
    template = ERR_NOT_NUMERIC if block.kind == "score" else ERR_NOT_BINARY
    message = template.format(file=path, column=column, value=value, row=row)
    if block.kind == "indicator" and block.role.endswith("_pred"):
        message += HINT_SCORES
    return InputError(message)


def _parse_numbers(values: Any, block: ColumnBlock, column: str, path: Path, offset: int) -> Any:
    """A text column as float64 (missing: null), or the reader's error for its first cell
    that is not a number."""
    import pyarrow as pa
    import pyarrow.compute as pc

    try:
        return pc.cast(values, pa.float64())
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        pass
    text = pc.utf8_trim_whitespace(values)
    if block.kind == "indicator":  # True / False are 0/1 values, not scores
        text = pc.if_else(pc.is_in(text, pa.array(_TRUE_TEXT)), "1", text)
        text = pc.if_else(pc.is_in(text, pa.array(_FALSE_TEXT)), "0", text)
    valid = pc.fill_null(pc.match_substring_regex(text, NUMBER_TEXT), True)
    bad = ~np.asarray(valid.to_numpy(zero_copy_only=False), dtype=bool)
    if bad.any():
        row = _first_row(bad)
        raise _not_a_number(block, column, path, values[row].as_py(), offset + row + 1)
    return pc.cast(text, pa.float64())


def _numbers(values: Any, block: ColumnBlock, column: str, path: Path, offset: int) -> np.ndarray:
    """One column as float64 numbers, NaN where missing."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if pa.types.is_dictionary(values.type):
        values = values.dictionary_decode()
    if _is_text(values):
        digits = _single_digits(values)
        if digits is not None:
            return digits
        values = _parse_numbers(values, block, column, path, offset)
    elif not (
        pa.types.is_integer(values.type)
        or pa.types.is_floating(values.type)
        or pa.types.is_boolean(values.type)
        or pa.types.is_null(values.type)
    ):
        row = _first_row(~_null_mask(values))
        raise _not_a_number(block, column, path, values[row].as_py(), offset + row + 1)
    floats = pc.cast(values, pa.float64())
    return np.asarray(floats.to_numpy(zero_copy_only=False), dtype=np.float64)


def _convert_numeric(batch: Any, block: ColumnBlock, path: Path, offset: int) -> np.ndarray:
    values = np.empty((batch.num_rows, len(block.columns)), dtype=np.float64)
    for j, column in enumerate(block.columns):
        values[:, j] = _numbers(batch.column(column), block, column, path, offset)
    missing = np.isnan(values)
    if missing.any():
        col = int(np.argmax(missing.any(axis=0)))
        column = block.columns[col]
        raise InputError(
            ERR_MISSING_VALUES.format(
                file=path,
                column=column,
                count=int(missing[:, col].sum()),
                row=offset + _first_row(missing[:, col]) + 1,
            )
        )
    if block.kind == "score":
        bad = ~np.isfinite(values)
        if bad.any():
            row, col = np.argwhere(bad)[0]
            raise InputError(
                ERR_NOT_NUMERIC.format(
                    file=path,
                    column=block.columns[col],
                    value=float(values[row, col]),
                    row=offset + row + 1,
                )
            )
        return values
    bad = (values != 0) & (values != 1)
    if bad.any():
        row, col = np.argwhere(bad)[0]
        value = float(values[row, col])
        message = ERR_NOT_BINARY.format(
            file=path,
            column=block.columns[col],
            value=int(value) if value.is_integer() else value,
            row=offset + row + 1,
        )
        if block.role.endswith("_pred"):
            message += HINT_SCORES
        raise InputError(message)
    return values.astype(np.uint8)


def _convert_chunk(
    batch: Any, blocks: Sequence[ColumnBlock], path: Path, offset: int
) -> dict[str, np.ndarray]:
    """The block arrays of one record batch (``offset``: data rows before it)."""
    out: dict[str, np.ndarray] = {}
    for block in blocks:
        if block.kind in ("label", "id"):
            out[block.role] = _convert_label(batch, block, path, offset)
        else:
            out[block.role] = _convert_numeric(batch, block, path, offset)
    return out


def _check_columns(path: Path, header: Sequence[str], blocks: Sequence[ColumnBlock]) -> None:
    present = set(header)
    for block in blocks:
        for column in block.columns:
            if column not in present:
                raise InputError(
                    ERR_MISSING_COLUMN.format(
                        file=path, column=column, option=block.option, columns=_columns_text(header)
                    )
                )


def read_blocks(
    path: str | Path,
    blocks: Sequence[ColumnBlock],
    *,
    role: str,
    delimiter: str | None = None,
    header: Sequence[str] | None = None,
    progress: bool = False,
    chunk_rows: int | None = None,
    keep: bool = True,
) -> tuple[dict[str, np.ndarray], FileInfo]:
    """Read the columns of ``blocks`` from a file, once, in chunks of ``chunk_rows``
    rows (default: about four million cells per chunk).

    Returns one array per block role (strings for ``label``/``id`` blocks,
    ``(n, k)`` uint8 for ``indicator``, float64 for ``score``) and the file's
    :class:`FileInfo` with its SHA-256. ``keep=False`` validates every chunk
    and drops it (bounded memory; the arrays are empty): the streaming path
    uses it to name the column and row of a value it refused.
    """
    path = Path(path)
    fmt, columns = (
        (_file_format(path), list(header))
        if header is not None
        else read_header(path, delimiter=delimiter)
    )
    _check_columns(path, columns, blocks)
    n_cols = max(1, sum(len(b.columns) for b in blocks))
    if chunk_rows is None:
        chunk_rows = max(_MIN_CHUNK_ROWS, _CHUNK_CELLS // n_cols)
    parts: dict[str, list[np.ndarray]] = {b.role: [] for b in blocks}
    offset = 0
    from rich.console import Console
    from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn

    size = path.stat().st_size
    with Progress(
        TextColumn("reading {task.description}"),
        BarColumn(),
        DownloadColumn(),
        console=Console(stderr=True),
        transient=True,
        disable=not progress,
    ) as bar:
        task = bar.add_task(path.name, total=size)

        def advance(done: int) -> None:
            bar.update(task, completed=done)

        usecols = list(dict.fromkeys(c for b in blocks for c in b.columns))
        text = [c for b in blocks if b.kind in ("label", "id") for c in b.columns]
        sha256 = hashlib.sha256()
        parquet_rows = (
            max(_open_parquet(path).metadata.num_rows, 1) if fmt == _FORMAT_PARQUET else 0
        )
        batches = iter_file_batches(
            str(path),
            usecols,
            chunk_size=chunk_rows,
            file_format=fmt,
            delimiter=default_delimiter(path, delimiter),
            text_columns=text,
            digest=sha256 if fmt == _FORMAT_CSV else None,
            on_bytes=advance,
        )
        try:
            for batch in batches:
                for key, arr in _convert_chunk(batch, blocks, path, offset).items():
                    if keep:
                        parts[key].append(arr)
                offset += batch.num_rows
                if parquet_rows:
                    advance(int(size * offset / parquet_rows))
        except InputError:
            raise
        except Exception as exc:  # ArrowInvalid, OSError, EOFError, lzma / zip errors
            if fmt == _FORMAT_PARQUET:  # corrupt pages
                raise InputError(ERR_PARQUET.format(file=path, detail=str(exc).strip())) from exc
            raise _csv_error(path, exc) from exc
        digest = file_sha256(path) if fmt == _FORMAT_PARQUET else sha256.hexdigest()
    if offset == 0:
        raise InputError(ERR_NO_ROWS.format(file=path))
    arrays = {key: np.concatenate(chunks, axis=0) for key, chunks in parts.items() if chunks}
    return arrays, FileInfo(role=role, path=str(path), format=fmt, sha256=digest, n_rows=offset)


def read_long_table(
    path: str | Path,
    *,
    id_col: str,
    label_col: str,
    delimiter: str | None = None,
    role: str = "tasks_long",
    option: str = "tasks_long=",
    progress: bool = False,
    chunk_rows: int | None = None,
) -> tuple[np.ndarray, np.ndarray, FileInfo]:
    """The ``(id, label)`` rows of a long table, as two string arrays."""
    blocks = [
        ColumnBlock("id", "id", (id_col,), "id="),
        ColumnBlock("label", "label", (label_col,), f"{option} (long_label=)"),
    ]
    arrays, info = read_blocks(
        path, blocks, role=role, delimiter=delimiter, progress=progress, chunk_rows=chunk_rows
    )
    return arrays["id"], arrays["label"], info
