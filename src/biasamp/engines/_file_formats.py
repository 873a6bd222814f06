"""File formats the engines read: Parquet and CSV, through pyarrow.

Shared by the streaming reader (:mod:`biasamp.engines._files`) and the DuckDB
engine (:mod:`biasamp.engines._duckdb`), so neither imports the other's internals.

Delimited text is opened here, once for every reader: :func:`delimited_source`
gives pyarrow a stream over the file's bytes, decompressed (``.gz``, ``.bz2``,
``.zst`` by pyarrow's codecs; ``.xz`` and ``.zip`` by Python's ``lzma`` and
``zipfile``) and, when asked, hashed (SHA-256) in the same pass.

Every problem of reading a file becomes one :class:`InputError` (a
``ValueError``) naming the file and what is wrong (:func:`reading_error`): a
truncated or corrupt compressed file, a compressed file whose name lacks the
suffix (or a plain file named as compressed), text that is not UTF-8, a row
larger than the reader's largest block. Never the decompressors' ``OSError``,
``EOFError``, ``LZMAError`` or ``BadZipFile``.
"""

from __future__ import annotations

import contextlib
import functools
import io
import lzma
import os
import zipfile
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

__all__ = [
    "ERR_COMPRESSED",
    "ERR_COMPRESSED_NAME",
    "ERR_NOT_COMPRESSED",
    "ERR_DUPLICATE_COLUMNS",
    "ERR_MISSING_VALUES",
    "ERR_PARQUET",
    "ERR_NOT_UTF8",
    "ERR_ROW_TOO_LARGE",
    "ERR_FIELD_COUNT",
    "InputError",
    "MAX_BLOCK_BYTES",
    "grown_block_size",
    "known_reading_error",
    "reading_error",
    "ERR_FILE_FORMAT",
    "ERR_FORMAT_ARG",
    "ERR_PYARROW",
    "RaggedRowError",
    "RaggedRows",
    "DelimitedSource",
    "ForwardOnce",
    "check_field_counts",
    "compression_of",
    "default_delimiter",
    "delimited_source",
    "detect_file_format",
    "file_format_of",
    "file_schema",
]

ERR_FILE_FORMAT = (
    "{path}: cannot tell the file format from its name; pass file_format='parquet' or 'csv'."
)
ERR_FORMAT_ARG = "file_format: expected 'parquet' or 'csv', got {got!r}."
ERR_PYARROW = "Reading files needs pyarrow, a dependency of biasamp that is missing here: pip install pyarrow."
ERR_FIELD_COUNT = (
    "{file}, line {line}: {got} field(s) where the header has {expected}; every row must have "
    "one field per column (the row reads {text!r})."
)
ERR_ZIP_MEMBERS = "{file}: a .zip file must hold exactly one file; it holds {count}."
ERR_COMPRESSED = (
    "{file}: cannot decompress the file as {compression} ({detail}); the file is truncated "
    "or corrupt."
)
ERR_COMPRESSED_NAME = (
    "{file}: the file is {compression}-compressed but its name does not end in {suffix}; "
    "rename it (for example to {example}) or decompress it."
)
ERR_NOT_COMPRESSED = (
    "{file}: the name ends in {suffix} but the file is not {compression}-compressed "
    "(it starts with {start!r}); rename it or compress it."
)
ERR_DUPLICATE_COLUMNS = (
    "{file}: the header names the column(s) {columns} more than once; column names must be unique."
)
ERR_PARQUET = "{file}: not a readable Parquet file ({detail})."
ERR_MISSING_VALUES = (
    "{file}, column {column!r}: {count} missing value(s), the first in data row {row}."
)
ERR_NOT_UTF8 = "{file}: the file is not UTF-8 text ({detail}); save it as UTF-8."
ERR_ROW_TOO_LARGE = (
    "{file}: the row after data row {row} is larger than {limit} bytes, the reader's largest "
    "block; a field that large cannot be read."
)
#: The largest block of a delimited file pyarrow's reader is given: a row must fit in one
#: (the block grows from about 1 MiB up to this when a row does not fit).
MAX_BLOCK_BYTES = 1 << 28
#: The first bytes of each compression (a ``.zip`` file: a local file header or an empty archive).
_MAGIC: dict[str, tuple[bytes, ...]] = {
    "gzip": (b"\x1f\x8b",),
    "bz2": (b"BZh",),
    "xz": (b"\xfd7zXZ\x00",),
    "zstd": (b"\x28\xb5\x2f\xfd",),
    "zip": (b"PK\x03\x04", b"PK\x05\x06"),
}
_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")


class InputError(ValueError):
    """A problem with an input file; the message names the file, column and problem."""


#: Compressions of delimited files, by the file's last suffix (pandas' names).
COMPRESSION_BY_SUFFIX: dict[str, str] = {
    ".gz": "gzip",
    ".bz2": "bz2",
    ".xz": "xz",
    ".zst": "zstd",
    ".zip": "zip",
}
_PARQUET_MAGIC = b"PAR1"
#: Compressions pyarrow decompresses itself (the others go through Python's modules).
_ARROW_CODECS = {"gzip": "gzip", "bz2": "bz2", "zstd": "zstd"}
_DELIMITED_SUFFIXES = (".csv", ".tsv")


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
    suffixes = [s.lower() for s in Path(path).suffixes]
    if suffixes and suffixes[-1] in COMPRESSION_BY_SUFFIX:
        suffixes = suffixes[:-1]
    if suffixes and suffixes[-1] in _DELIMITED_SUFFIXES:
        return "csv"
    raise ValueError(ERR_FILE_FORMAT.format(path=path))


def compression_of(path: str | os.PathLike[str]) -> str | None:
    """The compression of a delimited file by its last suffix (``"gzip"``, ..., or None)."""
    return COMPRESSION_BY_SUFFIX.get(Path(path).suffix.lower())


def default_delimiter(path: str | os.PathLike[str], delimiter: str | None = None) -> str:
    """``delimiter``, else a tab for a ``.tsv`` file (compressed or not) and a comma otherwise."""
    if delimiter is not None:
        return delimiter
    return "\t" if ".tsv" in [s.lower() for s in Path(path).suffixes] else ","


class _HashingStream(io.RawIOBase):
    """A binary reader that feeds every byte it passes on into a digest and counts them."""

    def __init__(self, raw: Any, digest: Any) -> None:
        self._raw = raw
        self.digest = digest
        self.bytes_read = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        data = self._raw.read(len(buffer))
        n = len(data)
        buffer[:n] = data
        self.digest.update(data)
        self.bytes_read += n
        return n

    def drain(self) -> None:
        """Read (and hash) what is left of the file."""
        for block in iter(lambda: self._raw.read(1 << 20), b""):
            self.digest.update(block)
            self.bytes_read += len(block)


class ForwardOnce:
    """A digest that passes on each byte of a file once, however often the file is read
    from its start (a read retried with a larger block hashes the file once)."""

    def __init__(self, digest: Any) -> None:
        self._digest = digest
        self._position = 0  # bytes of this read so far
        self._forwarded = 0  # bytes passed on, over every read

    def restart(self) -> None:
        """A new read from the start of the file."""
        self._position = 0

    def update(self, data: bytes) -> None:
        start, self._position = self._position, self._position + len(data)
        if self._position > self._forwarded:
            self._digest.update(data[max(0, self._forwarded - start) :])
            self._forwarded = self._position


class DelimitedSource:
    """An open delimited file: ``stream`` for pyarrow, ``bytes_read()`` for progress."""

    def __init__(self, stream: Any, counter: Any) -> None:
        self.stream = stream
        self._counter = counter

    def bytes_read(self) -> int:
        """Bytes of the file (compressed) read so far."""
        return int(self._counter())


@contextlib.contextmanager
def delimited_source(
    path: str | os.PathLike[str], *, digest: Any = None
) -> Iterator[DelimitedSource]:
    """Open a delimited file for pyarrow's CSV reader, decompressed by its last suffix.

    With ``digest`` (a ``hashlib`` object), every byte of the file goes into it,
    in the same pass as the reading (a ``.zip`` file, which is read by seeking,
    is hashed in a second pass when the reading is done). Raises ``ValueError``
    for a ``.zip`` file that does not hold exactly one file.

    Examples
    --------
    >>> import gzip, hashlib, os, pathlib, tempfile
    >>> import pyarrow.csv as pcsv
    >>> path = os.path.join(tempfile.mkdtemp(), "labels.csv.gz")
    >>> with gzip.open(path, "wt") as handle:
    ...     _ = handle.write("g,t\\nm,1\\n")
    >>> digest = hashlib.sha256()
    >>> with delimited_source(path, digest=digest) as source:
    ...     pcsv.read_csv(source.stream).to_pydict()
    {'g': ['m'], 't': [1]}
    >>> digest.hexdigest() == hashlib.sha256(pathlib.Path(path).read_bytes()).hexdigest()
    True
    """
    pa = _pyarrow()
    path = Path(path)
    compression = compression_of(path)
    _check_start(path, compression)
    try:
        with _opened(pa, path, compression, digest) as source:
            yield source
    except InputError:
        raise
    except (OSError, EOFError, zlib.error, lzma.LZMAError, zipfile.BadZipFile) as exc:
        raise reading_error(path, exc) from exc


def _check_start(path: Path, compression: str | None) -> None:
    """Refuse a compressed file named as plain text, a plain file named as compressed, and
    UTF-16 text, by the file's first bytes."""
    with path.open("rb") as handle:
        start = handle.read(8)
    if not start:
        return  # an empty file: the reader says so
    if compression is None:
        for kind, magics in _MAGIC.items():
            if start.startswith(magics):
                suffix = next(s for s, c in COMPRESSION_BY_SUFFIX.items() if c == kind)
                raise InputError(
                    ERR_COMPRESSED_NAME.format(
                        file=path, compression=kind, suffix=suffix, example=path.name + suffix
                    )
                )
        if start.startswith(_UTF16_BOMS):
            raise InputError(ERR_NOT_UTF8.format(file=path, detail="it is UTF-16 text"))
        return
    if not start.startswith(_MAGIC[compression]):
        raise InputError(
            ERR_NOT_COMPRESSED.format(
                file=path, suffix=path.suffix, compression=compression, start=start[:4]
            )
        )


ERR_READ = "{file}: cannot parse the file as delimited text ({detail})."


def reading_error(path: str | os.PathLike[str], exc: BaseException, row: int = 0) -> InputError:
    """The :class:`InputError` naming ``path`` for an exception raised while reading it
    (``row``: the data rows read before it, for a row too large for the reader)."""
    if isinstance(exc, InputError):
        return exc
    known = known_reading_error(path, exc, row)
    if known is not None:
        return known
    detail = str(exc).strip() or type(exc).__name__
    return InputError(ERR_READ.format(file=path, detail=detail))


def known_reading_error(
    path: str | os.PathLike[str], exc: BaseException, row: int = 0
) -> InputError | None:
    """:func:`reading_error` for a damaged compressed file, text that is not UTF-8 or a row
    too large for the reader; None for any other exception."""
    path = Path(path)
    detail = str(exc).strip() or type(exc).__name__
    compression = compression_of(path)
    if is_straddling(exc):
        return InputError(ERR_ROW_TOO_LARGE.format(file=path, row=row, limit=MAX_BLOCK_BYTES))
    if isinstance(exc, UnicodeDecodeError) or "invalid utf8" in detail.lower():
        return InputError(ERR_NOT_UTF8.format(file=path, detail=detail))
    decompressing = isinstance(exc, (EOFError, zlib.error, lzma.LZMAError, zipfile.BadZipFile))
    if compression is not None and (decompressing or isinstance(exc, OSError)):
        return InputError(ERR_COMPRESSED.format(file=path, compression=compression, detail=detail))
    return None


def is_straddling(exc: BaseException) -> bool:
    """Whether pyarrow's CSV reader refused a row that does not fit in its block."""
    return "straddl" in str(exc)


def grown_block_size(exc: BaseException, block: int) -> int | None:
    """The next block size to try after ``exc`` (a row that did not fit in ``block``
    bytes), or None when ``exc`` is another error or the block is at its limit."""
    if not is_straddling(exc) or block >= MAX_BLOCK_BYTES:
        return None
    return min(block * 4, MAX_BLOCK_BYTES)


@contextlib.contextmanager
def _opened(pa: Any, path: Path, compression: str | None, digest: Any) -> Iterator[DelimitedSource]:
    """:func:`delimited_source` without the checks and the error naming."""
    with contextlib.ExitStack() as stack:
        if compression == "zip":
            archive = stack.enter_context(zipfile.ZipFile(path))
            members = [info for info in archive.infolist() if not info.is_dir()]
            if len(members) != 1:
                raise ValueError(ERR_ZIP_MEMBERS.format(file=path, count=len(members)))
            member = stack.enter_context(archive.open(members[0]))
            yield DelimitedSource(pa.PythonFile(member, mode="r"), lambda: 0)
            if digest is not None:
                with path.open("rb") as raw:
                    for block in iter(lambda: raw.read(1 << 20), b""):
                        digest.update(block)
            return
        raw = stack.enter_context(path.open("rb"))
        stream: Any = raw
        hashing = None
        if digest is not None:
            hashing = stream = _HashingStream(raw, digest)
        if compression == "xz":
            source: Any = pa.PythonFile(stack.enter_context(lzma.open(stream)), mode="r")
        elif compression in _ARROW_CODECS:
            source = pa.CompressedInputStream(
                pa.PythonFile(stream, mode="r"), _ARROW_CODECS[compression]
            )
        else:
            source = pa.PythonFile(stream, mode="r")
        yield DelimitedSource(source, raw.tell)
        if hashing is not None:
            hashing.drain()


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


def _schema(path: str, fmt: str, delimiter: str | None = None) -> Any:
    """The file's schema, read once while the file is unchanged (the checks, the label
    names and the engines all ask for it; a wide file's schema is costly to read)."""
    stat = os.stat(path)
    stamp = (stat.st_ino, stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns)
    sep = default_delimiter(path, delimiter) if fmt == "csv" else ""
    return _read_schema(os.path.abspath(path), fmt, sep, stamp)


def csv_parse_options(delimiter: str, handler: Any = None) -> Any:
    """The parse options of every CSV read: the delimiter, quoted newlines allowed."""
    import pyarrow.csv as pcsv

    return pcsv.ParseOptions(
        delimiter=delimiter, newlines_in_values=True, invalid_row_handler=handler
    )


@functools.lru_cache(maxsize=256)
def _read_schema(path: str, fmt: str, delimiter: str, stamp: tuple[int, ...]) -> Any:
    pa = _pyarrow()
    if fmt == "parquet":
        import pyarrow.parquet as pq

        try:
            return pq.read_schema(path)
        except (OSError, pa.ArrowException, ValueError) as exc:  # not Parquet, or damaged
            raise InputError(ERR_PARQUET.format(file=path, detail=str(exc).strip())) from exc
    import pyarrow.csv as pcsv

    block = 1 << 20
    while True:
        ragged = RaggedRows()
        try:
            with (
                delimited_source(path) as source,
                pcsv.open_csv(
                    source.stream,
                    read_options=pcsv.ReadOptions(block_size=block),
                    parse_options=csv_parse_options(delimiter, ragged),
                ) as reader,
            ):
                schema = reader.schema
            return pa.schema(schema)
        except InputError:
            raise
        except pa.ArrowInvalid as exc:
            if ragged.first is None:
                grown = grown_block_size(exc, block)
                if grown is not None:  # a row larger than the block: try a larger one
                    block = grown
                    continue
                raise reading_error(path, exc) from exc
            # names the line (a quoted newline is not a bad row)
            check_field_counts(path, delimiter=delimiter)
            raise


def file_schema(path: str, file_format: str | None = None, *, delimiter: str | None = None) -> Any:
    """The pyarrow schema of a Parquet file, or the inferred one of a CSV file."""
    return _schema(path, file_format_of(path, file_format), delimiter)


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


def _file_stamp(path: str | os.PathLike[str], delimiter: str) -> tuple[Any, ...]:
    """A file as it is now (its inode, size and times) and the delimiter it is read with."""
    stat = os.stat(path)
    return (
        os.path.abspath(path),
        delimiter,
        stat.st_ino,
        stat.st_size,
        stat.st_mtime_ns,
        stat.st_ctime_ns,
    )


#: Files (as :func:`_file_stamp` gives them) the batch reader has parsed to their end with
#: every row of the header's number of fields: :func:`check_field_counts` need not read
#: them again while they are unchanged.
_FIELDS_CHECKED: set[tuple[Any, ...]] = set()


def note_fields_checked(path: str | os.PathLike[str], delimiter: str) -> None:
    """Record that every row of a file, as it is now, has the header's number of fields
    (a read of the whole file by pyarrow's parser, which refuses any other, found none)."""
    if len(_FIELDS_CHECKED) > 1024:
        _FIELDS_CHECKED.clear()
    _FIELDS_CHECKED.add(_file_stamp(path, delimiter))


def check_field_counts(
    path: str | os.PathLike[str], *, delimiter: str = ",", compression: str | None = None
) -> None:
    """Refuse a delimited file whose rows do not all have as many fields as its header.

    The batch reader stops at such a row but, parsing blocks in parallel, does not
    know its line; this check reads the file (any compression of
    :func:`delimited_source`) with pyarrow, single-threaded where a bad row is, and
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
        if _file_stamp(path, delimiter) in _FIELDS_CHECKED:
            return  # read to its end by the batch reader, unchanged since
    except OSError:
        pass  # the reader that follows names the problem
    try:
        pa = _pyarrow()
        import pyarrow.csv as pcsv
    except ImportError:  # pragma: no cover - pyarrow is a test dependency
        _check_with_csv_module(path, delimiter, compression)
        return

    def scan(include: list[str] | None, *, threads: bool) -> tuple[list[str], RaggedRows]:
        """Parse the file (converting only ``include``, all of it when given); return the
        column names and the handler holding the first bad row (numbered when not
        threaded)."""
        ragged = RaggedRows()
        try:
            with delimited_source(path) as source:
                reader = pcsv.open_csv(
                    source.stream,
                    read_options=pcsv.ReadOptions(use_threads=threads, block_size=1 << 22),
                    parse_options=csv_parse_options(delimiter, ragged),
                    convert_options=pcsv.ConvertOptions(include_columns=include),
                )
                with reader:
                    names = list(reader.schema.names)
                    if include is not None:
                        for _ in reader:
                            pass
        except (pa.ArrowInvalid, OSError, EOFError, StopIteration, UnicodeDecodeError):
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
    except (pa.ArrowInvalid, OSError, EOFError, StopIteration, UnicodeDecodeError, ValueError):
        return  # empty or undecodable files: the reader that follows names the problem
    if ragged.first is not None:
        raise ragged.error(path)
