"""File formats the engines read: Parquet and CSV, through pyarrow.

Shared by the streaming reader (:mod:`biasamp.engines._files`) and the DuckDB
engine (:mod:`biasamp.engines._duckdb`), so neither imports the other's internals.
"""

from __future__ import annotations

import functools
import io
import os
from pathlib import Path
from typing import Any

__all__ = [
    "ERR_FIELD_COUNT",
    "ERR_FILE_FORMAT",
    "ERR_FORMAT_ARG",
    "ERR_PYARROW",
    "RaggedRowError",
    "RaggedRows",
    "check_field_counts",
    "compression_of",
    "detect_file_format",
    "file_format_of",
    "file_schema",
]

ERR_FILE_FORMAT = (
    "{path}: cannot tell the file format from its name; pass file_format='parquet' or 'csv'."
)
ERR_FORMAT_ARG = "file_format: expected 'parquet' or 'csv', got {got!r}."
ERR_PYARROW = "Reading files needs pyarrow: pip install 'biasamp[parquet]'."
ERR_FIELD_COUNT = (
    "{file}, line {line}: {got} field(s) where the header has {expected}; every row must have "
    "one field per column (the row reads {text!r})."
)
#: Compressions of delimited files, by the file's last suffix (pandas' names).
COMPRESSION_BY_SUFFIX: dict[str, str] = {
    ".gz": "gzip",
    ".bz2": "bz2",
    ".xz": "xz",
    ".zst": "zstd",
    ".zip": "zip",
}
_PARQUET_MAGIC = b"PAR1"


def _pyarrow() -> Any:
    try:
        import pyarrow  # noqa: F401
        import pyarrow.compute  # noqa: F401
    except ImportError as exc:  # pragma: no cover - pyarrow is a test dependency
        raise ImportError(ERR_PYARROW) from exc
    return pyarrow


def file_format_of(path: str | os.PathLike[str], file_format: str | None = None) -> str:
    """``"parquet"`` or ``"csv"``, from ``file_format`` or the file name."""
    if file_format is not None:
        if file_format not in ("parquet", "csv"):
            raise ValueError(ERR_FORMAT_ARG.format(got=file_format))
        return file_format
    name = Path(path).name.lower()
    if name.endswith((".parquet", ".pq", ".parq")):
        return "parquet"
    if any(name.endswith(ext) for ext in (".csv", ".csv.gz", ".csv.bz2", ".csv.zst", ".tsv")):
        return "csv"
    raise ValueError(ERR_FILE_FORMAT.format(path=path))


def compression_of(path: str | os.PathLike[str]) -> str | None:
    """The compression of a delimited file by its last suffix (``"gzip"``, ..., or None)."""
    return COMPRESSION_BY_SUFFIX.get(Path(path).suffix.lower())


def detect_file_format(path: str | os.PathLike[str]) -> str:
    """``"parquet"`` (by the ``PAR1`` magic or a ``.parquet`` / ``.pq`` suffix) or ``"csv"``.

    Unlike :func:`file_format_of`, any other name is read as delimited text. Raises
    ``FileNotFoundError`` and ``IsADirectoryError`` as :func:`open` does.
    """
    path = Path(path)
    with path.open("rb") as handle:
        magic = handle.read(4)
    suffixes = [s.lower() for s in path.suffixes]
    if magic == _PARQUET_MAGIC or (suffixes and suffixes[-1] in (".parquet", ".pq")):
        return "parquet"
    return "csv"


def _schema(path: str, fmt: str) -> Any:
    """The file's schema, read once while the file is unchanged (the checks, the label
    names and the engines all ask for it; a wide file's schema is costly to read)."""
    stat = os.stat(path)
    stamp = (stat.st_ino, stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns)
    return _read_schema(os.path.abspath(path), fmt, stamp)


@functools.lru_cache(maxsize=256)
def _read_schema(path: str, fmt: str, stamp: tuple[int, ...]) -> Any:
    pa = _pyarrow()
    if fmt == "parquet":
        import pyarrow.parquet as pq

        return pq.read_schema(path)
    import pyarrow.csv as pcsv

    ragged = RaggedRows()
    try:
        with pcsv.open_csv(
            path, parse_options=pcsv.ParseOptions(invalid_row_handler=ragged)
        ) as reader:
            schema = reader.schema
    except pa.ArrowInvalid:
        if ragged.first is None:
            raise
        check_field_counts(path)  # names the line (a quoted newline is not a bad row)
        raise
    return pa.schema(schema)


def file_schema(path: str, file_format: str | None = None) -> Any:
    """The pyarrow schema of a Parquet file, or the inferred one of a CSV file."""
    return _schema(path, file_format_of(path, file_format))


class RaggedRowError(ValueError):
    """A delimited file with a row of more or fewer fields than its header."""


class RaggedRows:
    """A pyarrow ``invalid_row_handler`` that records the first bad row and stops the read."""

    def __init__(self) -> None:
        self.first: tuple[int, int, int | None, str] | None = None

    def __call__(self, row: Any) -> str:
        if self.first is None:
            self.first = (row.expected_columns, row.actual_columns, row.number, row.text)
        return "error"

    def error(self, path: str | os.PathLike[str]) -> RaggedRowError:
        """The error naming the file and line of the recorded row."""
        assert self.first is not None
        expected, got, number, text = self.first
        return RaggedRowError(
            ERR_FIELD_COUNT.format(file=path, line=number, got=got, expected=expected, text=text)
        )


def _open_text(path: Path, compression: str | None) -> Any:
    """A text handle (UTF-8, no newline translation) on a possibly compressed file."""
    import bz2
    import gzip
    import lzma
    import zipfile

    if compression == "zip":
        archive = zipfile.ZipFile(path)
        return io.TextIOWrapper(archive.open(archive.namelist()[0]), encoding="utf-8", newline="")
    if compression == "zstd":  # pragma: no cover - only without pyarrow
        import zstandard  # type: ignore[import-not-found]

        raw = zstandard.ZstdDecompressor().stream_reader(path.open("rb"))
        return io.TextIOWrapper(raw, encoding="utf-8", newline="")
    opener: Any = {"gzip": gzip.open, "bz2": bz2.open, "xz": lzma.open}.get(compression or "", open)
    return opener(path, "rt", encoding="utf-8", newline="")


def _check_with_csv_module(path: Path, delimiter: str, compression: str | None) -> None:
    """The same check without pyarrow (or for .xz / .zip files): a row at a time."""
    import csv

    try:
        handle = _open_text(path, compression)
    except ImportError:  # pragma: no cover - pandas cannot read it either
        return
    with handle:
        reader = csv.reader(handle, delimiter=delimiter)
        header = next(reader, None)
        if header is None:
            return
        for row in reader:
            if row and len(row) != len(header):
                raise RaggedRowError(
                    ERR_FIELD_COUNT.format(
                        file=path,
                        line=reader.line_num,
                        got=len(row),
                        expected=len(header),
                        text=delimiter.join(row),
                    )
                )


def check_field_counts(
    path: str | os.PathLike[str], *, delimiter: str = ",", compression: str | None = None
) -> None:
    """Refuse a delimited file whose rows do not all have as many fields as its header.

    pandas and pyarrow, asked for some columns only, drop a row's extra fields
    and pad a short row with missing values; this check reads the whole file
    once (with pyarrow when installed, single-threaded so the line is known) and
    raises ``ValueError`` naming the file and the first bad line (the header is
    line 1). Blank lines are skipped, as the readers skip them.

    Examples
    --------
    >>> import os, tempfile
    >>> from biasamp.engines._file_formats import check_field_counts
    >>> path = os.path.join(tempfile.mkdtemp(), "ragged.csv")
    >>> with open(path, "w") as handle:
    ...     _ = handle.write("a,b\\n1,0\\n0,1,1\\n")
    >>> check_field_counts(path)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    biasamp.engines._file_formats.RaggedRowError: ...ragged.csv, line 3: 3 field(s) where the header has 2; ...
    """
    path = Path(path)
    if compression is None:
        compression = compression_of(path)
    try:
        pa = _pyarrow()
        import pyarrow.csv as pcsv
    except ImportError:  # pragma: no cover - pyarrow is a test dependency
        _check_with_csv_module(path, delimiter, compression)
        return
    arrow_compression = {"gzip": "gzip", "bz2": "bz2", "zstd": "zstd", None: None}
    if compression not in arrow_compression:
        _check_with_csv_module(path, delimiter, compression)
        return

    def scan(include: list[str] | None, *, threads: bool) -> tuple[list[str], RaggedRows]:
        """Parse the file (converting only ``include``, all of it when given); return the
        column names and the handler holding the first bad row (numbered when not
        threaded)."""
        ragged = RaggedRows()
        source = pa.input_stream(str(path), compression=arrow_compression[compression])
        try:
            with source:
                reader = pcsv.open_csv(
                    source,
                    read_options=pcsv.ReadOptions(use_threads=threads, block_size=1 << 22),
                    parse_options=pcsv.ParseOptions(
                        delimiter=delimiter, invalid_row_handler=ragged, newlines_in_values=True
                    ),
                    convert_options=pcsv.ConvertOptions(include_columns=include),
                )
                with reader:
                    names = list(reader.schema.names)
                    if include is not None:
                        for _ in reader:
                            pass
        except (pa.ArrowInvalid, OSError, StopIteration, UnicodeDecodeError):
            if ragged.first is None:
                raise
        return ([] if ragged.first is not None else names), ragged

    try:
        # the first block gives the names; then every row is parsed with one column
        # converted (an empty include list would mean every column, several times slower),
        # threaded; only a bad row is looked for again, single-threaded, for its line
        names, ragged = scan(None, threads=False)
        if ragged.first is None and names:
            _, ragged = scan(names[:1], threads=True)
            if ragged.first is not None:
                _, ragged = scan(names[:1], threads=False)
        if ragged.first is not None:
            raise ragged.error(path)
    except (pa.ArrowInvalid, OSError, StopIteration, UnicodeDecodeError):
        return  # empty or undecodable files: the reader that follows names the problem
