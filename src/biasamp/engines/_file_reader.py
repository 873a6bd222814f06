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
column and data row. Parquet files are read by the engines' batch reader
(:func:`~biasamp.engines._files.iter_file_batches`, the one the count tables
use); delimited text by pandas, which reads every compression and delimiter
and whose cells are read back from their spreadsheet-safe form
(:func:`biasamp.output._csv.unescape_cells`). The SHA-256 of a delimited file
is computed from the same bytes (Parquet files are hashed in a separate
streamed pass, since only their needed column chunks are read). Nothing is
unpickled.

Errors are :class:`InputError` (a ``ValueError``) whose messages, module
constants, name the file, the column and the problem. Assembling an audit from
these arrays (label sets, id joins, thresholds) is
:mod:`biasamp.engines._audit_inputs`.
"""

from __future__ import annotations

import hashlib
import io
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, Literal, cast

import numpy as np
import pandas as pd

from biasamp.engines._file_formats import (
    check_field_counts,
    compression_of,
    detect_file_format,
)
from biasamp.engines._files import iter_file_batches
from biasamp.inputs._intersect import DEFAULT_SEP  # the labels biasamp.intersect makes
from biasamp.output._csv import unescape_cell, unescape_cells

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
    "be delimited by {char!r}, not {expected!r}. Pass --delimiter {char!r}."
)
ERR_PARQUET = "{file}: not a readable Parquet file ({detail})."
ERR_DUPLICATE_COLUMNS = (
    "{file}: the header names the column(s) {columns} more than once; column names must be unique."
)
ERR_CSV = "{file}: cannot parse the file as delimited text ({detail})."
ERR_NO_PYARROW = "{file}: reading Parquet needs pyarrow: pip install 'biasamp[parquet]'."
ERR_MISSING_COLUMN = (
    "{file}: column {column!r} ({option}) not found; the file has columns {columns}."
)
ERR_NOT_BINARY = (
    "{file}, column {column!r}: values must be 0 or 1; found {value!r} in data row {row}."
)
HINT_SCORES = " Prediction scores need --threshold."
ERR_NOT_NUMERIC = (
    "{file}, column {column!r}: expected a number (a score); found {value!r} in data row {row}."
)
ERR_MISSING_VALUES = (
    "{file}, column {column!r}: {count} missing value(s), the first in data row {row}."
)

_FORMAT_CSV = "csv"
_FORMAT_PARQUET = "parquet"
_DELIMITER_CANDIDATES = (",", ";", "\t", "|")
_CHUNK_CELLS = 4_000_000  # cells per chunk when streaming
_MIN_CHUNK_ROWS = 1000
_MAX_SHOWN = 5


class InputError(ValueError):
    """A problem with an input file; the message names the file, column and problem."""


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


# --- file format, header, hashing -------------------------------------------------


def _file_format(path: Path) -> str:
    try:
        return detect_file_format(path)
    except FileNotFoundError as exc:
        raise InputError(ERR_NOT_FOUND.format(file=path)) from exc
    except IsADirectoryError as exc:
        raise InputError(ERR_CSV.format(file=path, detail="it is a directory")) from exc


def _default_delimiter(path: Path, delimiter: str | None) -> str:
    if delimiter is not None:
        return delimiter
    suffixes = [s.lower() for s in path.suffixes]
    return "\t" if ".tsv" in suffixes else ","


_Compression = Literal["gzip", "bz2", "xz", "zstd", "zip"]


def _compression(path: Path) -> _Compression | None:
    return cast("_Compression | None", compression_of(path))


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

    Reads only the header line of a CSV file, only the footer of a Parquet file.
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
    sep = _default_delimiter(path, delimiter)
    try:
        frame = pd.read_csv(path, sep=sep, nrows=0, compression=_compression(path))
    except pd.errors.EmptyDataError as exc:
        raise InputError(ERR_EMPTY_FILE.format(file=path)) from exc
    except (pd.errors.ParserError, UnicodeDecodeError, OSError, EOFError) as exc:
        raise InputError(ERR_CSV.format(file=path, detail=str(exc).strip())) from exc
    columns = [unescape_cell(str(c)) for c in frame.columns]  # spreadsheet-safe names
    _check_delimiter(path, columns, sep)
    if len(columns) > 1:
        # pandas renames a repeated name 'a' to 'a.1': read the header line as it is
        raw = pd.read_csv(
            path, sep=sep, nrows=1, header=None, dtype=str, compression=_compression(path)
        ).iloc[0]
        _check_unique_columns(path, [str(c) for c in raw if isinstance(c, str)])
        _check_unique_columns(path, columns)
    return fmt, columns


def _check_unique_columns(path: Path, columns: Sequence[str]) -> None:
    repeated = pd.Index(columns)
    repeated = list(pd.unique(repeated[repeated.duplicated()]))
    if repeated:
        raise InputError(ERR_DUPLICATE_COLUMNS.format(file=path, columns=_shown(repeated)))


class _HashingReader(io.RawIOBase):
    """A binary reader that feeds every byte it passes on into a SHA-256."""

    def __init__(self, raw: BinaryIO) -> None:
        self._raw = raw
        self.sha256 = hashlib.sha256()
        self.bytes_read = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        data = self._raw.read(len(buffer))
        n = len(data)
        buffer[:n] = data
        self.sha256.update(data)
        self.bytes_read += n
        return n

    def drain(self) -> None:
        while self.readinto(bytearray(1 << 20)):
            pass


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


def _convert_label(frame: pd.DataFrame, block: ColumnBlock, path: Path, offset: int) -> np.ndarray:
    """The block's labels as strings; several columns give their intersection per row."""
    parts = []
    for column in block.columns:
        series = frame[column]
        missing = series.isna().to_numpy()
        if missing.any():
            raise InputError(
                ERR_MISSING_VALUES.format(
                    file=path,
                    column=column,
                    count=int(missing.sum()),
                    row=offset + _first_row(missing) + 1,
                )
            )
        parts.append(series.astype(str))
    if len(parts) == 1:
        return parts[0].to_numpy(dtype=object)
    joined = parts[0].str.cat(pd.concat(parts[1:], axis=1, ignore_index=True), sep=DEFAULT_SEP)
    return joined.to_numpy(dtype=object)


def _numeric_block(frame: pd.DataFrame, block: ColumnBlock, path: Path, offset: int) -> np.ndarray:
    sub = frame[list(block.columns)]
    try:
        return sub.to_numpy(dtype=np.float64, na_value=np.nan)
    except (TypeError, ValueError):
        pass
    # a column holds text: find the first value that is not a number
    for column in block.columns:
        raw = sub[column]
        coerced = pd.to_numeric(raw, errors="coerce")
        bad = (coerced.isna() & raw.notna()).to_numpy()
        if bad.any():
            row = _first_row(bad)
            template = ERR_NOT_NUMERIC if block.kind == "score" else ERR_NOT_BINARY
            message = template.format(
                file=path, column=column, value=raw.iloc[row], row=offset + row + 1
            )
            if block.kind == "indicator" and block.role.endswith("_pred"):
                message += HINT_SCORES
            raise InputError(message)
    return sub.apply(pd.to_numeric, errors="coerce").to_numpy(dtype=np.float64)  # pragma: no cover


def _convert_numeric(
    frame: pd.DataFrame, block: ColumnBlock, path: Path, offset: int
) -> np.ndarray:
    values = _numeric_block(frame, block, path, offset)
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
                    value=values[row, col],
                    row=offset + row + 1,
                )
            )
        return values
    bad = (values != 0) & (values != 1)
    if bad.any():
        row, col = np.argwhere(bad)[0]
        value = values[row, col]
        message = ERR_NOT_BINARY.format(
            file=path,
            column=block.columns[col],
            value=int(value) if float(value).is_integer() else float(value),
            row=offset + row + 1,
        )
        if block.role.endswith("_pred"):
            message += HINT_SCORES
        raise InputError(message)
    return values.astype(np.uint8)


def _convert_chunk(
    frame: pd.DataFrame, blocks: Sequence[ColumnBlock], path: Path, offset: int
) -> dict[str, np.ndarray]:
    out: dict[str, np.ndarray] = {}
    for block in blocks:
        if block.kind in ("label", "id"):
            out[block.role] = _convert_label(frame, block, path, offset)
        else:
            out[block.role] = _convert_numeric(frame, block, path, offset)
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


def _read_csv_chunks(
    path: Path,
    blocks: Sequence[ColumnBlock],
    delimiter: str,
    chunk_rows: int,
    advance: Callable[[int], None],
    on_chunk: Callable[[pd.DataFrame], None],
) -> str:
    """Stream a delimited file through ``on_chunk``; return the SHA-256 of its bytes."""
    try:  # pandas drops a row's extra fields outside usecols and pads a short row
        check_field_counts(path, delimiter=delimiter, compression=_compression(path))
    except ValueError as exc:
        raise InputError(str(exc)) from None
    # header names and text cells are read back from their spreadsheet-safe form
    raw_names = pd.read_csv(path, sep=delimiter, nrows=0, compression=_compression(path)).columns
    raw_of = {unescape_cell(str(name)): name for name in raw_names}
    wanted = list(dict.fromkeys(c for b in blocks for c in b.columns))
    usecols = [raw_of.get(c, c) for c in wanted]
    text = [c for b in blocks if b.kind in ("label", "id") for c in b.columns]
    text_columns = {raw_of.get(c, c): str for c in text}
    renamed = {raw_of.get(c, c): c for c in wanted}
    with path.open("rb") as raw:
        reader = _HashingReader(raw)
        buffered = io.BufferedReader(reader, buffer_size=1 << 20)
        try:
            chunks = pd.read_csv(
                buffered,
                sep=delimiter,
                usecols=usecols,
                dtype=text_columns,
                keep_default_na=False,
                na_values=[""],
                chunksize=chunk_rows,
                compression=_compression(path),
            )
            with chunks:
                for chunk in chunks:
                    advance(reader.bytes_read)
                    chunk = chunk.rename(columns=renamed)
                    for column in text:
                        chunk[column] = unescape_cells(chunk[column])
                    on_chunk(chunk)
        except pd.errors.EmptyDataError as exc:
            raise InputError(ERR_EMPTY_FILE.format(file=path)) from exc
        except (pd.errors.ParserError, UnicodeDecodeError, EOFError) as exc:
            raise InputError(ERR_CSV.format(file=path, detail=str(exc).strip())) from exc
        reader.drain()
        advance(reader.bytes_read)
        return reader.sha256.hexdigest()


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

        if fmt == _FORMAT_PARQUET:
            n_rows = max(_open_parquet(path).metadata.num_rows, 1)  # a readable footer
            usecols = list(dict.fromkeys(c for b in blocks for c in b.columns))
            try:
                for batch in iter_file_batches(
                    str(path), usecols, chunk_size=chunk_rows, file_format=fmt
                ):
                    frame = batch.to_pandas()
                    for b in blocks:
                        for col in b.columns if b.kind in ("label", "id") else ():
                            frame[col] = frame[col].where(frame[col].isna(), frame[col].astype(str))
                    for key, arr in _convert_chunk(frame, blocks, path, offset).items():
                        if keep:
                            parts[key].append(arr)
                    offset += len(frame)
                    advance(int(size * offset / n_rows))
            except InputError:
                raise
            except Exception as exc:  # corrupt pages raise ArrowInvalid / OSError
                raise InputError(ERR_PARQUET.format(file=path, detail=str(exc).strip())) from exc
            digest = file_sha256(path)
        else:

            def on_chunk(chunk: pd.DataFrame) -> None:
                nonlocal offset
                for key, arr in _convert_chunk(chunk, blocks, path, offset).items():
                    if keep:
                        parts[key].append(arr)
                offset += len(chunk)

            digest = _read_csv_chunks(
                path, blocks, _default_delimiter(path, delimiter), chunk_rows, advance, on_chunk
            )
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
    option: str = "--tasks-long",
    progress: bool = False,
    chunk_rows: int | None = None,
) -> tuple[np.ndarray, np.ndarray, FileInfo]:
    """The ``(id, label)`` rows of a long table, as two string arrays."""
    blocks = [
        ColumnBlock("id", "id", (id_col,), "--id"),
        ColumnBlock("label", "label", (label_col,), f"{option} (--long-label)"),
    ]
    arrays, info = read_blocks(
        path, blocks, role=role, delimiter=delimiter, progress=progress, chunk_rows=chunk_rows
    )
    return arrays["id"], arrays["label"], info
