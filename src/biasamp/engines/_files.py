"""Count tables from Parquet and CSV files, chunk by chunk, with bounded memory.

:func:`counts_from_files` reads only the columns the roles name, ``chunk_size``
rows at a time (pyarrow), counts each chunk into a :class:`CountTable` and
merges: peak memory is about ``chunk_size x (number of label columns) x 8``
bytes (the float64 label matrices of one chunk), whatever the file sizes.
With ``engine="duckdb"`` the same table comes from one SQL ``GROUP BY`` over
the files (see :mod:`biasamp.engines._duckdb`).

Label names follow the in-memory rule: ``group_names`` / ``task_names`` when
given (for example a training table's), else the indicator columns, else the
sorted distinct values of the ground-truth label column (one extra pass that
reads only that column). A chunk with a label outside the names, a missing
value, a non-0/1 indicator, or a column whose type differs from the first
file's raises ``ValueError`` / ``TypeError`` naming the file and the rows.
"""

from __future__ import annotations

import dataclasses
import os
import sys
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np
import pandas as pd

from biasamp.counts._count_table import CountTable, empty_count_table
from biasamp.counts._swaps import swapped_roles
from biasamp.engines._derived_roles import (
    derived_role_values,
    frame_intersections,
    intersection_names_from_files,
)
from biasamp.engines._file_formats import (
    ERR_DUPLICATE_COLUMNS,
    ERR_MISSING_VALUES,
    ERR_PARQUET,
    ForwardOnce,
    InputError,
    RaggedRows,
    _pyarrow,
    _schema,
    check_field_counts,
    compression_of,
    csv_parse_options,
    default_delimiter,
    delimited_source,
    file_format_of,
    file_schema,
    grown_block_size,
    note_fields_checked,
    reading_error,
)
from biasamp.engines._joins import (
    ERR_JOIN_DUPLICATES,
    ERR_JOIN_MISSING,
    pred_roles,
    spec_columns,
)
from biasamp.inputs._column_roles import ColumnRoles, RoleColumns
from biasamp.inputs._paths import ERR_NO_SUCH_FILE, MissingFileError
from biasamp.output._csv import ESCAPED_CELL, unescape_cell
from biasamp.output._targets import remember_input_files

if TYPE_CHECKING:
    from biasamp.counts._pattern_counts import PatternCountTable

__all__ = [
    "choose_engine",
    "counts_from_files",
    "estimated_rows",
    "pattern_counts_from_files",
    "file_format_of",
    "check_file_schemas",
    "iter_file_batches",
    "file_schema",
    "may_drop_rows",
]

ERR_ENGINE = "engine: expected 'auto', 'numpy' or 'duckdb', got {got!r}."
#: Compressions of delimited files DuckDB's CSV reader reads.
DUCKDB_COMPRESSIONS = (None, "gzip")
ERR_CHUNK_SIZE = "chunk_size: expected a positive integer, got {got!r}."
ERR_NO_FILES = "paths: no input files given."
ERR_FILE_COLUMNS = "{path}: column(s) {missing} not found (the file has {examples})."
ERR_TYPE_CHANGED = (
    "{path}: column {column!r} has type {got}, but it has type {expected} in {first}. "
    "Column types must not change between files."
)
ERR_INDICATOR_TYPE = (
    "{path}: {role} column {column!r} has type {got}; indicator columns must be numeric or boolean."
)
ERR_CHUNK = "{path}, chunk {chunk} (rows {start}-{stop}): {message}"
ERR_NULLS = "{role}: column {column!r} has {count} missing value(s)."
ERR_NO_ROWS_NAMES = (
    "{role}: the files have no rows, so the label names are unknown; pass {kind}_names."
)
ERR_DELIMITER_ENGINE = (
    "delimiter={got!r}: the DuckDB engine reads ','-delimited files; use engine='numpy'."
)
ERR_REPLICATES_ENGINE = "replicates: the bootstrap needs engine='numpy' (row-level weights)."
ERR_NO_ROWS = "The files have no rows: {paths}."
ERR_ROWS = "rows: expected 'all' or 'labelled', got {got!r}."
ERR_ROWS_ENGINE = (
    "rows='labelled' with indicator groups and tasks needs engine='numpy' "
    "(it drops rows with neither a group nor a task), got engine={engine!r}."
)
ERR_ROWS_REPLICATES = "rows='labelled': replicate weights are drawn over every row; use rows='all'."
ERR_ON_LABELS = (
    "on_labels: the labels are found while counting on engine='numpy', of label columns "
    "(not intersections)."
)
ERR_NO_LABELLED_ROWS = (
    "rows='labelled': no row of {paths} has a group or a task, so no row is kept."
)


#: The auto engine counts with DuckDB from this many rows (estimated), and from
#: :data:`DUCKDB_ROWS_PER_COLUMN` rows per role column: below, the numpy engine is faster
#: (DuckDB's fixed cost per query and per column: 2,000 rows x 1,000 columns took it 2.5 s
#: to 29 s against numpy's 0.3 s to 1.1 s). Measured 2026-11-26, docs/benchmarks.md.
DUCKDB_MIN_ROWS = 1_000_000
DUCKDB_ROWS_PER_COLUMN = 5_000
_SAMPLE_BYTES = 1 << 16
#: The relative error allowed to a delimited file's row estimate when it is compared with
#: the thresholds (the three-sample estimate is within 0.1% on files of uniform rows), so
#: that a file at a threshold is not decided by the estimate's noise.
_ESTIMATE_SLACK = 0.01


def estimated_rows(path: str, file_format: str | None = None, delimiter: str | None = None) -> int:
    """The data rows of a file: a Parquet file's from its footer; a delimited file's by
    counting its lines when it is small, else from its size less the header line and the
    mean line length of three 64 KiB samples (after the header, the middle and the end; a
    compressed file is sampled at its start only, and its size is its compressed size, so
    its rows are underestimated: the auto engine then prefers numpy)."""
    if file_format_of(path, file_format) == "parquet":
        import pyarrow.parquet as pq

        return int(pq.ParquetFile(path).metadata.num_rows)
    size = os.path.getsize(path)
    if compression_of(path) is not None:
        with delimited_source(path) as source:
            sample = source.stream.read(_SAMPLE_BYTES)
        header = sample.find(b"\n") + 1
        lines = max(sample.count(b"\n") - 1, 1)
        return max(0, int((size - header) * lines / max(len(sample) - header, 1)))
    with open(path, "rb") as handle:
        if size <= 3 * _SAMPLE_BYTES:
            data = handle.read()
            return max(0, data.count(b"\n") - 1 + (0 if data.endswith(b"\n") or not data else 1))
        header = len(handle.readline())
        body = size - header
        counted = lines = 0
        for start in (header, header + body // 2 - _SAMPLE_BYTES // 2, size - _SAMPLE_BYTES):
            handle.seek(start)
            sample = handle.read(_SAMPLE_BYTES)
            first, last = sample.find(b"\n"), sample.rfind(b"\n")
            if start == header:
                first = -1  # the sample starts on a line
            if last <= first:
                continue
            counted += last - first
            lines += sample.count(b"\n", first + 1, last + 1)
    return int(round(body * lines / counted)) if counted else 1


def choose_engine(
    paths: Sequence[str],
    n_columns: int,
    *,
    file_format: str | None = None,
    delimiter: str | None = None,
) -> str:
    """The engine ``engine="auto"`` counts ``paths`` with (``n_columns``: the role columns).

    DuckDB when it is installed, reads every file (:func:`duckdb_reads`) and is measured to
    be faster: at least :data:`DUCKDB_MIN_ROWS` rows (estimated, :func:`estimated_rows`)
    and :data:`DUCKDB_ROWS_PER_COLUMN` rows per role column; numpy otherwise (a small or
    wide file is counted several times faster by numpy).

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "labels.csv")
    >>> with open(path, "w") as handle:
    ...     _ = handle.write("g,t\\nm,1\\nw,0\\n")
    >>> choose_engine([path], 2)
    'numpy'
    """
    import importlib.util

    if not duckdb_reads(paths, file_format, delimiter):
        return "numpy"
    if importlib.util.find_spec("duckdb") is None:
        return "numpy"
    rows = sum(estimated_rows(path, file_format, delimiter) for path in paths)
    rows = int(rows * (1 + _ESTIMATE_SLACK))
    faster = rows >= DUCKDB_MIN_ROWS and rows >= DUCKDB_ROWS_PER_COLUMN * n_columns
    return "duckdb" if faster else "numpy"


def duckdb_reads(
    paths: Sequence[str], file_format: str | None, delimiter: str | None = None
) -> bool:
    """Whether DuckDB's readers read every file: Parquet, and ``,``-delimited CSV, plain or
    ``.gz`` (the numpy engine reads the others, and any file DuckDB refuses)."""
    for path in paths:
        if file_format_of(path, file_format) != "csv":
            continue
        if default_delimiter(path, delimiter) != ",":
            return False
        if compression_of(path) not in DUCKDB_COMPRESSIONS:
            return False
    return True


def duckdb_cannot_read(exc: BaseException) -> bool:
    """Whether the DuckDB engine's ``exc`` means DuckDB cannot read the files as the row
    reader does (its own exceptions: invalid UTF-8, a row over its line limit, ...; an
    empty label field), so that the numpy engine counts them (or names the file and row)."""
    from biasamp.engines._duckdb import RowReaderNeeded

    if isinstance(exc, RowReaderNeeded):
        return True
    duckdb = sys.modules.get("duckdb")
    return duckdb is not None and isinstance(exc, duckdb.Error)


def _check_unique_names(path: str, names: Sequence[str]) -> None:
    """Refuse a header that names a column twice, as written or read back from its
    spreadsheet-safe form (``'=x`` is ``=x``), as the validating reader does."""
    for shown in (names, [unescape_cell(name) for name in names]):
        counts = Counter(shown)
        repeated = [name for name, n in counts.items() if n > 1]
        if repeated:
            text = ", ".join(repr(name) for name in repeated[:5])
            if len(repeated) > 5:
                text += f", ... ({len(repeated)} in all)"
            raise InputError(ERR_DUPLICATE_COLUMNS.format(file=path, columns=text))


def check_file_schemas(
    paths: Sequence[str],
    roles_columns: Sequence[str],
    *,
    file_format: str | None = None,
    delimiter: str | None = None,
    indicator_columns: dict[str, str] | None = None,
) -> list[Any]:
    """Check that every file has the columns, with the first file's types.

    Returns the schema of each file. ``indicator_columns`` maps indicator
    column -> role; those must be numeric or boolean.
    """
    pa = _pyarrow()
    schemas = []
    first_types: dict[str, Any] = {}
    for path in paths:
        schema = _schema(path, file_format_of(path, file_format), delimiter)
        all_names = schema.names  # a new list on every access: read it once
        names = Counter(all_names)
        missing = [c for c in roles_columns if c not in names]
        if missing:
            shown = ", ".join(repr(c) for c in all_names[:8])
            raise ValueError(ERR_FILE_COLUMNS.format(path=path, missing=missing, examples=shown))
        _check_unique_names(path, all_names)
        kinds = dict(zip(all_names, schema.types, strict=True))
        for column in roles_columns:
            kind = kinds[column]
            if column not in first_types:
                first_types[column] = kind
                if (
                    indicator_columns
                    and column in indicator_columns
                    and not (
                        pa.types.is_integer(kind)
                        or pa.types.is_floating(kind)
                        or pa.types.is_boolean(kind)
                        or pa.types.is_null(kind)
                    )
                ):
                    raise TypeError(
                        ERR_INDICATOR_TYPE.format(
                            path=path, role=indicator_columns[column], column=column, got=kind
                        )
                    )
            elif kind != first_types[column]:
                raise TypeError(
                    ERR_TYPE_CHANGED.format(
                        path=path,
                        column=column,
                        got=kind,
                        expected=first_types[column],
                        first=paths[0],
                    )
                )
        schemas.append(schema)
    return schemas


def iter_file_batches(
    path: str,
    columns: Sequence[str],
    *,
    chunk_size: int,
    file_format: str | None = None,
    delimiter: str | None = None,
    text_columns: Sequence[str] | None = None,
    label_columns: Sequence[str] = (),
    digest: Any = None,
    on_bytes: Callable[[int], None] | None = None,
) -> Iterator[Any]:
    """Record batches of at most ``chunk_size`` rows with only ``columns``.

    The one reader of delimited text, for the count tables and the validating
    reader (:mod:`biasamp.engines._file_reader`): any ``delimiter`` (default
    :func:`~biasamp.engines._file_formats.default_delimiter`), every compression
    of :func:`~biasamp.engines._file_formats.delimited_source`, quoted delimiters
    and newlines, a header name or text cell read back from its spreadsheet-safe
    form (a name is found under either form), a row of another number of fields
    than the header refused with its line
    (:class:`~biasamp.engines._file_formats.RaggedRowError`).

    By default pyarrow infers each column's type (the count tables). With
    ``text_columns``, every column is read as text, an empty field is the only
    missing value and only ``text_columns`` are unescaped: the validating
    reader converts the numbers itself, naming the row of a bad one.
    ``label_columns`` are read as text whatever pyarrow would infer (a label
    ``01`` stays ``"01"``, as the validating reader reads it); the other
    columns are inferred.
    ``digest`` (a ``hashlib`` object) receives every byte of the file in the
    same pass; ``on_bytes`` is called with the bytes read so far after each
    batch. Parquet files ignore the options of delimited text.
    """
    _pyarrow()
    fmt = file_format_of(path, file_format)
    if fmt == "parquet":
        import pyarrow as pa
        import pyarrow.parquet as pq

        try:
            with pq.ParquetFile(path) as handle:
                yield from handle.iter_batches(batch_size=chunk_size, columns=list(columns))
        except (OSError, pa.ArrowException) as exc:  # damaged pages (ArrowInvalid: ValueError)
            raise InputError(ERR_PARQUET.format(file=path, detail=str(exc).strip())) from exc
        return
    import pyarrow as pa
    import pyarrow.csv as pcsv

    sep = default_delimiter(path, delimiter)
    raw_names = _schema(path, fmt, sep).names
    escaped = {unescape_cell(name): name for name in raw_names if name not in columns}
    wanted = [c if c in raw_names else escaped.get(c, c) for c in columns]
    # pyarrow parses several blocks ahead, so peak memory grows with the block; each batch
    # costs a fixed time per column, so a wide file's batches need rows: a block holds about
    # a quarter of a chunk, at least 4,096 rows (or a chunk), of one-character fields
    rows = max(chunk_size // 4, min(chunk_size, 4096))
    block = max(1 << 20, min(rows * 2 * len(raw_names), 1 << 26))
    if text_columns is None:
        as_text = {
            w: pa.string() for w, c in zip(wanted, columns, strict=True) if c in label_columns
        }
        convert = pcsv.ConvertOptions(include_columns=wanted, column_types=as_text)
    else:
        convert = pcsv.ConvertOptions(
            include_columns=wanted,
            column_types={name: pa.string() for name in wanted},
            null_values=[""],
            strings_can_be_null=True,
        )
    unescaped = None if text_columns is None else set(text_columns)
    forward = ForwardOnce(digest) if digest is not None else None
    done = 0  # data rows yielded: a read retried with a larger block skips them
    while True:
        ragged = RaggedRows()
        skip = done
        if forward is not None:
            forward.restart()
        try:
            with delimited_source(path, digest=forward) as source:
                reader = pcsv.open_csv(
                    source.stream,
                    read_options=pcsv.ReadOptions(block_size=block),
                    parse_options=csv_parse_options(sep, ragged),
                    convert_options=convert,
                )
                with reader:
                    for batch in reader:
                        if skip:
                            dropped = min(skip, batch.num_rows)
                            batch, skip = batch.slice(dropped), skip - dropped
                            if not batch.num_rows:
                                continue
                        if wanted != list(columns):
                            batch = batch.rename_columns(list(columns))
                        batch = _unescape_text(batch, unescaped)
                        if on_bytes is not None:
                            on_bytes(source.bytes_read())
                        for start in range(0, batch.num_rows, chunk_size):
                            yield batch.slice(start, chunk_size)
                        done += batch.num_rows
            if ragged.first is None:
                note_fields_checked(path, sep)  # every row parsed: none is ragged
            return
        except InputError:
            raise
        except ValueError as exc:  # ArrowInvalid
            if ragged.first is not None:
                # the threaded reader does not know the line: find it
                check_field_counts(path, delimiter=sep)
                raise
            grown = grown_block_size(exc, block)
            if grown is None:
                raise reading_error(path, exc, done) from exc
            block = grown  # a row larger than the block: read again with a larger one


def _unescape_text(batch: Any, names: set[str] | None = None) -> Any:
    """Text cells of a CSV batch read back from their spreadsheet-safe form
    (:mod:`biasamp.output._csv`: a leading ``'`` before ``= + - @``, tab, CR or ``'`` goes);
    only the columns ``names`` when given."""
    import pyarrow as pa
    import pyarrow.compute as pc

    columns = []
    changed = False
    for name, column in zip(batch.schema.names, batch.columns, strict=True):
        if names is not None and name not in names:
            columns.append(column)
            continue
        if pa.types.is_string(column.type) or pa.types.is_large_string(column.type):
            escaped = pc.fill_null(pc.match_substring_regex(column, ESCAPED_CELL), False)
            if pc.any(escaped).as_py():
                column = pc.if_else(escaped, pc.utf8_slice_codeunits(column, 1), column)
                changed = True
        columns.append(column)
    return pa.RecordBatch.from_arrays(columns, schema=batch.schema) if changed else batch


def _text_column(
    path: str, column: str, chunk_size: int, file_format: str | None, delimiter: str | None
) -> Iterator[Any]:
    """The Arrow arrays of one column of a file, chunk by chunk (a CSV file's as text)."""
    for batch in iter_file_batches(
        path,
        [column],
        chunk_size=chunk_size,
        file_format=file_format,
        delimiter=delimiter,
        label_columns=[column],
    ):
        yield batch.column(0)


def _label_names_from_files(
    paths: Sequence[str],
    column: str,
    *,
    chunk_size: int,
    file_format: str | None,
    delimiter: str | None = None,
) -> tuple[Any, ...]:
    """Sorted distinct non-missing values of one column over all files (reads only it)."""
    import pyarrow.compute as pc

    seen: set[Any] = set()
    for path in paths:
        for values in _text_column(path, column, chunk_size, file_format, delimiter):
            seen.update(v for v in pc.unique(values).to_pylist() if v is not None)
    names = tuple(seen)
    try:
        return tuple(sorted(names))
    except TypeError:
        return names


def label_columns(roles: Iterable[RoleColumns]) -> tuple[str, ...]:
    """The label columns of ``roles`` (a label column, the parts of an intersection): a CSV
    reader reads them as text (:func:`iter_file_batches`)."""
    return tuple(c for rc in roles if rc.is_label for c in rc.columns)


def _check_empty_labels(batch: Any, roles: ColumnRoles, path: str, start: int) -> None:
    """Refuse an empty field in a label column of a CSV batch (``start``: data rows before
    it): missing, as the other readers say (:data:`ERR_MISSING_VALUES`), not a label ``''``."""
    import pyarrow as pa
    import pyarrow.compute as pc

    for rc in roles.present().values():
        if not rc.is_label:
            continue
        for column in rc.columns:
            values = batch.column(batch.schema.get_field_index(column))
            if not (pa.types.is_string(values.type) or pa.types.is_large_string(values.type)):
                continue
            empty = pc.fill_null(pc.equal(values, ""), True)
            count = int(pc.sum(empty).as_py() or 0)
            if count:
                first = int(np.argmax(empty.to_numpy(zero_copy_only=False)))
                raise InputError(
                    ERR_MISSING_VALUES.format(
                        file=path, column=column, count=count, row=start + first + 1
                    )
                )


def _label_values(values: Any) -> Any:
    """A text label column of a batch as a pandas Categorical (Arrow's dictionary encoding:
    one code per row, no Python string per row; a missing value is a missing code), any
    other as its numpy array."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if not (pa.types.is_string(values.type) or pa.types.is_large_string(values.type)):
        return values.to_numpy(zero_copy_only=False)
    encoded = pc.dictionary_encode(values)
    codes = pc.fill_null(encoded.indices, -1).to_numpy(zero_copy_only=False)
    categories = pd.Index(encoded.dictionary.to_numpy(zero_copy_only=False), dtype=object)
    return pd.Categorical.from_codes(codes, categories=categories, validate=False)


def _stacked(columns: list[np.ndarray]) -> np.ndarray:
    """Indicator columns side by side, (n, k): integer columns of 0 and 1 only as int8 (a
    byte per value for the 0/1 check and the products, exact), laid out column by column;
    otherwise in their common dtype, so that the counting refuses a value other than 0 and
    1 as it reads it."""
    if len(columns) == 1:
        return columns[0][:, None]
    if all(c.dtype.kind in "iu" for c in columns):
        out = np.empty((len(columns), len(columns[0])), dtype=np.int8)
        for j, column in enumerate(columns):  # a loop over columns, not rows
            # one pass: a negative value is a large unsigned one
            if (column.view(np.dtype(f"u{column.dtype.itemsize}")) > 1).any():
                break
            out[j] = column
        else:
            return out.T
    return np.column_stack(columns)


def _batch_arrays(batch: Any, roles: ColumnRoles) -> dict[str, Any]:
    """The role arrays of one record batch, as :meth:`CountTable.from_arrays` takes them."""
    arrays: dict[str, Any] = {}
    for role, rc in roles.present().items():
        if rc.is_scores or rc.intersected_columns:
            arrays[role] = derived_role_values(batch, rc)
            continue
        if rc.is_label:
            arrays[role] = _label_values(batch.column(rc.label_column))
            continue
        columns = []
        for column in rc.indicator_columns:
            values = batch.column(column)
            if values.null_count:
                raise ValueError(
                    ERR_NULLS.format(role=role, column=column, count=values.null_count)
                )
            columns.append(values.to_numpy(zero_copy_only=False))
        matrix = _stacked(columns)
        arrays[role] = pd.DataFrame(
            matrix, columns=pd.Index(list(rc.indicator_names), dtype=object), copy=False
        )
    if roles.sample_weight is not None:
        arrays["sample_weight"] = batch.column(roles.sample_weight).to_numpy(zero_copy_only=False)
    return arrays


def _resolve_names(
    paths: Sequence[str],
    roles: ColumnRoles,
    kind: str,
    given: Sequence[Any] | None,
    *,
    chunk_size: int,
    file_format: str | None,
    delimiter: str | None = None,
) -> tuple[Any, ...]:
    if given is not None:
        return tuple(given)
    fixed = roles.fixed_names(kind)
    if fixed is not None:
        return fixed
    first = roles.label_roles(kind)[0]
    if first.intersected_columns:
        return intersection_names_from_files(
            paths,
            first,
            lambda path: iter_file_batches(
                path,
                first.intersected_columns,
                chunk_size=chunk_size,
                file_format=file_format,
                delimiter=delimiter,
                label_columns=first.intersected_columns,
            ),
        )
    assert first.label_column is not None  # label_roles holds label-column roles only
    names = _label_names_from_files(
        paths,
        first.label_column,
        chunk_size=chunk_size,
        file_format=file_format,
        delimiter=delimiter,
    )
    if not names:
        raise ValueError(ERR_NO_ROWS_NAMES.format(role=first.role, kind=kind))
    return names


def _both_names(
    paths: Sequence[str],
    roles: ColumnRoles,
    group_names: Sequence[Any] | None,
    task_names: Sequence[Any] | None,
    *,
    found: tuple[str, ...] = (),
    **read: Any,
) -> tuple[Any, Any]:
    """The group and the task names (:func:`_resolve_names` of each; None for a kind in
    ``found``, whose names the counting pass finds)."""
    return (
        None if "group" in found else _resolve_names(paths, roles, "group", group_names, **read),
        None if "task" in found else _resolve_names(paths, roles, "task", task_names, **read),
    )


def _with_context(exc: Exception, message: str) -> Exception:
    """An exception of the same kind as ``exc`` (ValueError or TypeError) with ``message``."""
    try:
        return type(exc)(message)
    except Exception:  # an exception type with another constructor
        return (TypeError if isinstance(exc, TypeError) else ValueError)(message)


def _progress(enabled: bool, total: int | None) -> Any:
    if not enabled:
        return None
    from rich.progress import Progress

    progress = Progress(transient=True)
    progress.start()
    progress.add_task("counting rows", total=total)
    return progress


def _prepare(
    paths: Any,
    *,
    chunk_size: int,
    engine: str,
    file_format: str | None,
    delimiter: str | None = None,
    **role_specs: Any,
) -> tuple[list[str], ColumnRoles]:
    """Check the arguments and files; return the paths and the resolved column roles."""
    if engine not in ("auto", "numpy", "duckdb"):
        raise ValueError(ERR_ENGINE.format(got=engine))
    if (
        isinstance(chunk_size, bool)
        or not isinstance(chunk_size, (int, np.integer))
        or chunk_size <= 0
    ):
        raise ValueError(ERR_CHUNK_SIZE.format(got=chunk_size))
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    paths = [os.fspath(p) for p in paths]
    if not paths:
        raise ValueError(ERR_NO_FILES)
    for path in paths:
        if not os.path.exists(path):
            raise MissingFileError(ERR_NO_SUCH_FILE.format(path=path))
    if engine == "duckdb":
        for path in paths:
            sep = default_delimiter(path, delimiter)
            if file_format_of(path, file_format) == "csv" and sep != ",":
                raise ValueError(ERR_DELIMITER_ENGINE.format(got=sep))
    first_schema = _schema(paths[0], file_format_of(paths[0], file_format), delimiter)
    roles = ColumnRoles.resolve(first_schema.names, **role_specs)
    indicator_owner = {
        c: rc.role
        for rc in roles.present().values()
        if not rc.is_label
        for c in rc.indicator_columns
    }
    check_file_schemas(
        paths,
        roles.columns(),
        file_format=file_format,
        delimiter=delimiter,
        indicator_columns=indicator_owner,
    )
    return paths, roles


def counts_from_files(
    paths: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
    *,
    groups: Any = None,
    tasks: Any = None,
    groups_pred: Any = None,
    tasks_pred: Any = None,
    sample_weight: str | None = None,
    groups_prefix: str | None = None,
    tasks_prefix: str | None = None,
    groups_pred_prefix: str | None = None,
    tasks_pred_prefix: str | None = None,
    group_names: Sequence[Any] | None = None,
    task_names: Sequence[Any] | None = None,
    soft: bool = False,
    chunk_size: int = 100_000,
    engine: str = "numpy",
    file_format: str | None = None,
    delimiter: str | None = None,
    names_source: str | None = None,
    replicates: Any = None,
    rows: str = "all",
    progress: bool = False,
    on_rows: Callable[[int], None] | None = None,
    on_labels: Callable[[dict[str, tuple[Any, ...]]], None] | None = None,
) -> CountTable:
    """Count the labels of Parquet or CSV files into a :class:`CountTable`, chunk by chunk.

    Parameters
    ----------
    paths : path or sequence of paths
        Parquet (``.parquet``) or CSV (``.csv``, ``.tsv``, compressed or not) files, read in order
        as one split.
    groups, tasks, groups_pred, tasks_pred : str, list of str or dict, optional
        Column roles: a label column name, indicator column names, or a dict of
        indicator column -> label name (see :class:`ColumnRoles`).
    sample_weight : str, optional
        A column of non-negative row weights.
    groups_prefix, tasks_prefix, groups_pred_prefix, tasks_pred_prefix : str, optional
        Select a role's indicator columns by prefix (stripped from the label names).
    group_names, task_names : sequence, optional
        Canonical label names, e.g. ``train.group_names`` for an evaluation split.
    soft : bool, default False
        Predicted indicator columns may hold probabilities in [0, 1].
    chunk_size : int, default 100_000
        Rows per chunk (``engine="numpy"``); memory grows linearly with it.
    engine : {"numpy", "duckdb", "auto"}, default "numpy"
        ``"duckdb"`` runs one SQL aggregation over the files (needs ``biasamp[duckdb]``);
        files DuckDB cannot read (``.bz2``, ``.xz``, ``.zst``, ``.zip``, text that is not
        UTF-8, ...) are counted by the numpy engine, with the same result. ``"auto"``
        (the command line's default) counts with DuckDB only where it reads the files and
        is measured to be faster (:func:`choose_engine`: many rows, few role columns),
        else with numpy.
    file_format : {"parquet", "csv"}, optional
        Overrides the format read from the file names.
    delimiter : str, optional
        The delimiter of CSV files (default: a tab for ``.tsv`` files, else a
        comma); CSV files may be compressed (``.gz``, ``.bz2``, ``.xz``,
        ``.zst``, ``.zip``). The DuckDB engine reads ``,``-delimited files only.
    names_source : str, optional
        Where ``group_names`` / ``task_names`` came from, for error messages.
    replicates : PoissonReplicates, optional
        Bootstrap weights by global row index (rows numbered across the files
        in order); the table gains a leading replicate axis and equals the
        in-memory ``from_arrays(..., replicate_weights=replicates.weights(0, n))``.
    rows : {"all", "labelled"}, default "all"
        ``"labelled"`` counts only the rows with a group or a task, the rows the
        metrics' ``train_rows="labelled"`` keeps of a training split: with
        indicator columns for both groups and tasks, a row whose group and task
        columns are all 0 is dropped (a label column gives every row a label, so
        nothing is dropped). Needs ``engine="numpy"`` when it can drop rows.
    progress : bool, default False
        Show a progress bar.
    on_rows : callable, optional
        Called with the number of data rows of each chunk read, before
        ``rows="labelled"`` drops any (the DuckDB engine, which drops none,
        calls it once): their sum is the files' number of rows, known without
        reading the files again.
    on_labels : callable, optional
        ``engine="numpy"``: the label names of a label column role whose names
        are not given are found in the counting pass itself (no pass of their
        own): the table's names are then the sorted labels of the ground-truth
        and predicted columns of that kind together, and ``on_labels`` is called
        once with ``{role: sorted distinct labels}`` of each such role. Put the
        table in canonical names with
        :func:`~biasamp.counts._count_table.with_label_names`.

    Returns
    -------
    CountTable
        Identical to :meth:`CountTable.from_arrays` on all rows (or all kept
        rows) at once.

    Examples
    --------
    >>> import os, tempfile
    >>> import pandas as pd
    >>> from biasamp import counts_from_files
    >>> path = os.path.join(tempfile.mkdtemp(), "labels.csv")
    >>> pd.DataFrame({"gender": ["m", "w", "w"], "ski": [1, 0, 1],
    ...               "pred_ski": [1, 1, 1]}).to_csv(path, index=False)
    >>> table = counts_from_files(path, groups="gender", tasks=["ski"],
    ...                           tasks_pred={"pred_ski": "ski"}, chunk_size=2)
    >>> table.joint[("groups", "tasks_pred")]
    array([[1.],
           [2.]])
    """
    paths, roles = _prepare(
        paths,
        chunk_size=chunk_size,
        engine=engine,
        file_format=file_format,
        delimiter=delimiter,
        groups=groups,
        tasks=tasks,
        groups_pred=groups_pred,
        tasks_pred=tasks_pred,
        sample_weight=sample_weight,
        groups_prefix=groups_prefix,
        tasks_prefix=tasks_prefix,
        groups_pred_prefix=groups_pred_prefix,
        tasks_pred_prefix=tasks_pred_prefix,
    )
    if replicates is not None and engine == "duckdb":
        raise ValueError(ERR_REPLICATES_ENGINE)
    if on_labels is not None and engine != "numpy":
        raise ValueError(ERR_ON_LABELS)
    drops = _check_rows(rows, roles, engine)
    if drops and replicates is not None:
        raise ValueError(ERR_ROWS_REPLICATES)
    if engine == "auto":
        engine = (
            "numpy"
            if drops or replicates is not None
            else choose_engine(
                paths, len(roles.columns()), file_format=file_format, delimiter=delimiter
            )
        )
    if engine == "duckdb" and duckdb_reads(paths, file_format, delimiter):
        from biasamp.engines._duckdb import counts_from_files_duckdb

        try:
            counted = counts_from_files_duckdb(
                paths,
                roles,
                group_names=group_names,
                task_names=task_names,
                soft=soft,
                file_format=file_format,
                names_source=names_source,
            )
        except Exception as exc:
            if not duckdb_cannot_read(exc):
                raise
        else:
            if on_rows is not None:
                on_rows(int(counted.n_rows))  # the engine drops no row here
            return _read_from(counted, [("paths", p) for p in paths])
    # the numpy engine: asked for, or the files DuckDB cannot read (the same table, or the
    # row reader's error naming the file and row)
    read: dict[str, Any] = {
        "chunk_size": chunk_size,
        "file_format": file_format,
        "delimiter": delimiter,
    }
    found: tuple[str, ...] = ()
    if on_labels is not None:
        if any(
            rc.intersected_columns for kind in ("group", "task") for rc in roles.label_roles(kind)
        ):
            raise ValueError(ERR_ON_LABELS)
        found = tuple(
            kind
            for kind, given in (("group", group_names), ("task", task_names))
            if given is None and roles.label_roles(kind)
        )
    g_names, t_names = _both_names(
        paths,
        roles,
        group_names,
        task_names,
        found=found,
        **read,
    )
    source = names_source if (group_names is not None or task_names is not None) else None
    table = _stream_tables(
        paths,
        roles,
        CountTable,
        g_names,
        t_names,
        soft=soft,
        names_source=source,
        chunk_size=chunk_size,
        file_format=file_format,
        delimiter=delimiter,
        replicates=replicates,
        progress=progress,
        labelled_only=drops,
        on_rows=on_rows,
        on_labels=on_labels,
    )
    if drops and (table is None or table.n_rows == 0):
        raise ValueError(ERR_NO_LABELLED_ROWS.format(paths=", ".join(paths[:3])))
    return _read_from(
        table
        if table is not None
        else empty_count_table(list(roles.present()), g_names or (), t_names or ()),
        [("paths", p) for p in paths],
    )


def _read_from(table: Any, files: Iterable[tuple[str, str]]) -> Any:
    """``table``, recording the ``(argument, path)`` files it was counted from
    (``save_counts`` refuses to write over them)."""
    remember_input_files(table, files)
    return table


def _check_rows(rows: str, roles: ColumnRoles, engine: str) -> bool:
    """Check ``rows``; return whether it drops rows (``"labelled"`` on indicator roles)."""
    if rows not in ("all", "labelled"):
        raise ValueError(ERR_ROWS.format(got=rows))
    drops = rows == "labelled" and _may_drop_rows(roles)
    if drops and engine == "duckdb":
        raise ValueError(ERR_ROWS_ENGINE.format(engine=engine))
    return drops


def _may_drop_rows(roles: ColumnRoles) -> bool:
    """Whether ``rows="labelled"`` can drop a row (:func:`may_drop_rows` of the roles)."""
    return may_drop_rows({role: rc.is_label for role, rc in roles.present().items()})


def may_drop_rows(is_label: Mapping[str, bool]) -> bool:
    """Whether a row can have neither a group nor a task, so that ``rows="labelled"`` (the
    metrics' ``train_rows="labelled"``) drops it: the groups and the tasks are both indicator
    columns (a label column gives every row a label).

    ``is_label`` maps each present role to whether it is one label column.

    Examples
    --------
    >>> may_drop_rows({"groups": False, "tasks": False}), may_drop_rows({"groups": True, "tasks": False})
    (True, False)
    """
    return all(role in is_label and not is_label[role] for role in ("groups", "tasks"))


def _labelled_rows(arrays: dict[str, Any]) -> tuple[dict[str, Any], int]:
    """The rows of a chunk's role arrays with a group or a task (indicators not all 0),
    and their number."""
    keep = np.asarray(arrays["groups"].to_numpy() != 0).any(axis=1)
    keep |= np.asarray(arrays["tasks"].to_numpy() != 0).any(axis=1)
    if keep.all():
        return arrays, keep.size
    return {
        role: value.iloc[np.flatnonzero(keep)].reset_index(drop=True)
        if isinstance(value, pd.DataFrame)
        else value[keep]
        for role, value in arrays.items()
    }, int(keep.sum())


_TableT = TypeVar("_TableT", CountTable, "PatternCountTable")


class _FoundLabels:
    """The labels of the label column roles whose names a counting pass finds, chunk by
    chunk: each kind's names are the sorted labels of its roles seen so far."""

    def __init__(self, roles: ColumnRoles, kinds: Sequence[str]) -> None:
        self.columns = {
            rc.role: (kind, rc.label_column) for kind in kinds for rc in roles.label_roles(kind)
        }
        self.seen: dict[str, set[Any]] = {role: set() for role in self.columns}
        self.names: dict[str, tuple[Any, ...]] = {kind: () for kind in kinds}

    def update(self, batch: Any) -> bool:
        """Add the labels of a batch; return whether a kind's names grew."""
        import pyarrow.compute as pc

        grown = set()
        for role, (kind, column) in self.columns.items():
            values = batch.column(batch.schema.get_field_index(column))
            new = {v for v in pc.unique(values).to_pylist() if v is not None} - self.seen[role]
            if new:
                self.seen[role] |= new
                grown.add(kind)
        for kind in grown:
            labels = set().union(*(self.seen[r] for r, (k, _) in self.columns.items() if k == kind))
            self.names[kind] = _sorted_labels(labels)
        return bool(grown)

    def found(self) -> dict[str, tuple[Any, ...]]:
        return {role: _sorted_labels(values) for role, values in self.seen.items()}


def _sorted_labels(labels: Iterable[Any]) -> tuple[Any, ...]:
    values = tuple(labels)
    try:
        return tuple(sorted(values))
    except TypeError:
        return values


def _stream_tables(
    paths: Sequence[str],
    roles: ColumnRoles,
    table_type: type[_TableT],
    g_names: tuple[Any, ...] | None,
    t_names: tuple[Any, ...] | None,
    *,
    soft: bool,
    names_source: str | None,
    chunk_size: int,
    file_format: str | None,
    delimiter: str | None = None,
    replicates: Any,
    progress: bool,
    labelled_only: bool = False,
    on_rows: Callable[[int], None] | None = None,
    on_labels: Callable[[dict[str, tuple[Any, ...]]], None] | None = None,
) -> _TableT | None:
    """Count every chunk of every file into ``table_type`` tables and merge them (None if no
    rows).

    ``labelled_only``: count only the rows with a group or a task; ``on_rows`` is called
    with the rows of each chunk read. Names None (count tables only): the labels of that
    kind's label columns are found chunk by chunk (the table so far is laid out again when
    a chunk brings a new one) and ``on_labels`` gets them.
    """
    from biasamp.counts._count_table import with_label_names

    table: _TableT | None = None
    kinds = [kind for kind, names in (("group", g_names), ("task", t_names)) if names is None]
    labels = _FoundLabels(roles, kinds) if kinds else None
    columns = roles.columns()
    offset = 0  # global row index of the chunk, for bootstrap weights
    extra: dict[str, Any] = {"soft": soft} if table_type is CountTable else {}
    bar = _progress(progress, None)
    try:
        for path in paths:
            start = 0
            csv = file_format_of(path, file_format) == "csv"
            batches = iter_file_batches(
                path,
                columns,
                chunk_size=chunk_size,
                file_format=file_format,
                delimiter=delimiter,
                label_columns=label_columns(roles.present().values()),
            )
            chunk = 0
            while True:
                batch = None
                try:
                    batch = next(batches, None)
                    if batch is None:
                        break
                    stop = start + batch.num_rows
                    kept = batch.num_rows
                    if csv and kept:
                        _check_empty_labels(batch, roles, path, start)
                    if labels is not None and labels.update(batch):
                        g_names = labels.names.get("group", g_names)
                        t_names = labels.names.get("task", t_names)
                        if table is not None:
                            assert isinstance(table, CountTable)  # names found: counts only
                            table = with_label_names(table, group_names=g_names, task_names=t_names)
                    arrays = _batch_arrays(batch, roles) if kept else {}
                    if labelled_only and kept:
                        arrays, kept = _labelled_rows(arrays)
                    if kept and getattr(replicates, "method", None) == "swap":
                        part = _swapped_part(
                            table_type, arrays, replicates, offset, batch.num_rows,
                            group_names=g_names, task_names=t_names, names_source=names_source,
                            extra=extra,
                        )  # fmt: skip
                        table = part if table is None else table.merge(part)
                    elif kept:
                        if replicates is not None:
                            extra["replicate_weights"] = replicates.weights(
                                offset, offset + batch.num_rows
                            )
                        part = table_type.from_arrays(
                            **arrays,
                            group_names=g_names,
                            task_names=t_names,
                            names_source=names_source,
                            **extra,
                        )
                        table = part if table is None else table.merge(part)
                except InputError:
                    raise  # names the file and row
                except (ValueError, TypeError) as exc:
                    # pyarrow's ArrowInvalid (a CSV value of another type) is a ValueError
                    last = start + (chunk_size if batch is None else batch.num_rows) - 1
                    raise _with_context(
                        exc,
                        ERR_CHUNK.format(
                            path=path, chunk=chunk, start=start, stop=last, message=exc
                        ),
                    ) from exc
                if on_rows is not None:
                    on_rows(batch.num_rows)
                if bar is not None:
                    bar.update(bar.task_ids[0], advance=batch.num_rows)
                offset += batch.num_rows
                start, chunk = stop, chunk + 1
    finally:
        if bar is not None:
            bar.stop()
    if labels is not None and on_labels is not None:
        on_labels(labels.found())
    return table


def _swapped_part(
    table_type: Any,
    arrays: dict[str, Any],
    swaps: Any,
    offset: int,
    n_rows: int,
    *,
    group_names: Any,
    task_names: Any,
    names_source: str | None,
    extra: dict[str, Any],
) -> Any:
    """One chunk's tables under the swap test's indicators (``swaps``, a
    :class:`~biasamp.counts._swaps.SwapReplicates`, by global row position): the rows
    as they are weighted by ``1 - s`` plus the rows with each label and its output
    exchanged weighted by ``s``."""
    weights = swaps.weights(offset, offset + n_rows)  # (n_perm, rows)
    roles = [r for r in arrays if r != "sample_weight"]
    exchange = swapped_roles(roles, only=getattr(swaps, "roles", None))
    common = dict(group_names=group_names, task_names=task_names, names_source=names_source)
    kept = table_type.from_arrays(**arrays, **common, **extra, replicate_weights=1.0 - weights)
    moved_arrays = {exchange.get(r, r): v for r, v in arrays.items()}
    moved = table_type.from_arrays(**moved_arrays, **common, **extra, replicate_weights=weights)
    return dataclasses.replace(kept.merge(moved), n_rows=kept.n_rows)


def pattern_counts_from_files(
    paths: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
    *,
    groups: Any = None,
    tasks: Any = None,
    groups_pred: Any = None,
    tasks_pred: Any = None,
    sample_weight: str | None = None,
    groups_prefix: str | None = None,
    tasks_prefix: str | None = None,
    groups_pred_prefix: str | None = None,
    tasks_pred_prefix: str | None = None,
    group_names: Sequence[Any] | None = None,
    task_names: Sequence[Any] | None = None,
    chunk_size: int = 100_000,
    engine: str = "numpy",
    file_format: str | None = None,
    delimiter: str | None = None,
    names_source: str | None = None,
    rows: str = "all",
    progress: bool = False,
    replicates: Any = None,
) -> Any:
    """The :class:`PatternCountTable` (task-set counts of the multi-attribute metrics) of files.

    Same arguments as :func:`counts_from_files` (task roles are 0/1 indicator
    columns; ``rows="labelled"`` drops rows with neither a group nor a task,
    numpy engine; ``replicates``: every count gains a leading axis of bootstrap
    replicates, weighted by global row index, numpy engine). ``engine="numpy"`` counts chunk by chunk and merges by pattern
    key; ``engine="duckdb"`` counts the rows of every distinct (group, task
    set) by one ``GROUP BY`` and loads the few result rows as weighted rows.

    Examples
    --------
    >>> import os, tempfile
    >>> import pandas as pd
    >>> from biasamp import pattern_counts_from_files
    >>> path = os.path.join(tempfile.mkdtemp(), "labels.csv")
    >>> pd.DataFrame({"g": ["m", "w", "m"], "a": [1, 1, 1], "b": [0, 1, 0]}).to_csv(path, index=False)
    >>> table = pattern_counts_from_files(path, groups="g", tasks=["a", "b"], chunk_size=1)
    >>> table.pattern_sets("tasks"), table.pattern_totals["tasks"]
    ([('a',), ('a', 'b')], array([2., 1.]))
    """
    from biasamp.counts._pattern_counts import PatternCountTable

    paths, roles = _prepare(
        paths,
        chunk_size=chunk_size,
        engine=engine,
        file_format=file_format,
        delimiter=delimiter,
        groups=groups,
        tasks=tasks,
        groups_pred=groups_pred,
        tasks_pred=tasks_pred,
        sample_weight=sample_weight,
        groups_prefix=groups_prefix,
        tasks_prefix=tasks_prefix,
        groups_pred_prefix=groups_pred_prefix,
        tasks_pred_prefix=tasks_pred_prefix,
    )
    source = names_source if (group_names is not None or task_names is not None) else None
    drops = _check_rows(rows, roles, engine)
    if drops and replicates is not None:
        raise ValueError(ERR_ROWS_REPLICATES)
    if engine == "duckdb" and replicates is not None:
        raise ValueError(ERR_REPLICATES_ENGINE)
    if engine == "auto":
        engine = (
            "numpy"
            if drops or replicates is not None
            else choose_engine(
                paths, len(roles.columns()), file_format=file_format, delimiter=delimiter
            )
        )
    if engine == "duckdb" and duckdb_reads(paths, file_format, delimiter):
        from biasamp.engines._duckdb import distinct_rows_duckdb

        try:
            frame = distinct_rows_duckdb(paths, roles, file_format=file_format)
        except Exception as exc:
            if not duckdb_cannot_read(exc):
                raise
        else:
            if file_format_of(paths[0], file_format) != "csv" or not _empty_label_keys(
                frame, roles
            ):
                arrays = _frame_arrays(frame, roles, where=", ".join(paths[:3]))
                table = PatternCountTable.from_arrays(
                    **arrays,
                    sample_weight=frame["__weight"].to_numpy(),
                    group_names=group_names,
                    task_names=task_names,
                    names_source=source,
                )
                table.n_rows = int(frame["__rows"].sum())
                return _read_from(table, [("paths", p) for p in paths])
    read: dict[str, Any] = {
        "chunk_size": chunk_size,
        "file_format": file_format,
        "delimiter": delimiter,
    }
    g_names, t_names = _both_names(paths, roles, group_names, task_names, **read)
    streamed = _stream_tables(
        paths,
        roles,
        PatternCountTable,
        g_names,
        t_names,
        soft=False,
        names_source=source,
        chunk_size=chunk_size,
        file_format=file_format,
        delimiter=delimiter,
        replicates=replicates,
        progress=progress,
        labelled_only=drops,
    )
    if streamed is None:
        raise ValueError(
            (ERR_NO_LABELLED_ROWS if drops else ERR_NO_ROWS).format(paths=", ".join(paths[:3]))
        )
    return _read_from(streamed, [("paths", p) for p in paths])


def _empty_label_keys(frame: pd.DataFrame, roles: ColumnRoles) -> bool:
    """Whether a label column of DuckDB's distinct rows holds NULL (an empty CSV field)."""
    return any(
        frame[column].isna().any()
        for rc in roles.present().values()
        if rc.is_label
        for column in rc.columns
    )


def _frame_arrays(frame: pd.DataFrame, roles: ColumnRoles, *, where: str = "") -> dict[str, Any]:
    """Role arrays of a pandas frame with the source column names (an intersection's
    labels from its parts; ``where``: the files, for its errors)."""
    arrays: dict[str, Any] = {}
    for role, rc in roles.present().items():
        if rc.intersected_columns:
            arrays[role] = frame_intersections(frame, rc, rc.columns, where=where)
        elif rc.is_label:
            arrays[role] = frame[rc.label_column].to_numpy(dtype=object)
        else:
            arrays[role] = pd.DataFrame(
                frame[list(rc.indicator_columns)].to_numpy(),
                columns=pd.Index(list(rc.indicator_names), dtype=object),
            )
    return arrays


# --- two files joined on an id column ---------------------------------------------------


def _read_ids(
    path: str,
    column: str,
    *,
    chunk_size: int,
    file_format: str | None,
    delimiter: str | None = None,
) -> Any:
    """The id column of a file as one Arrow array (compact: no Python object per row); a
    CSV file's ids are text, as the validating reader reads them (``007`` is not ``7``),
    and an empty field is a missing id."""
    import pyarrow as pa
    import pyarrow.compute as pc

    chunks = list(_text_column(path, column, chunk_size, file_format, delimiter))
    ids = pa.chunked_array(chunks) if chunks else pa.chunked_array([], pa.string())
    ids = ids.combine_chunks()
    missing = ids.null_count
    if pa.types.is_string(ids.type):
        missing += int(pc.sum(pc.equal(ids, "")).as_py() or 0)
    if missing:
        raise ValueError(ERR_NULLS.format(role="on", column=column, count=missing))
    return ids


def _shown_ids(values: Any) -> str:
    return ", ".join(repr(v) for v in values[:5].to_pylist())


def join_positions(
    path: str,
    pred_path: str,
    *,
    on: str,
    chunk_size: int = 1 << 20,
    file_format: str | None = None,
    delimiter: str | None = None,
    pred_file_format: str | None = None,
) -> np.ndarray:
    """Row of ``pred_path`` for each row of ``path``, matched on the id column ``on``.

    Both files must hold every id once. Arrow hashes the ids (no Python object
    per row): memory is about the two id columns and one int64 per row.

    Examples
    --------
    >>> import os, tempfile
    >>> import pandas as pd
    >>> folder = tempfile.mkdtemp()
    >>> a, b = os.path.join(folder, "a.csv"), os.path.join(folder, "b.csv")
    >>> pd.DataFrame({"id": ["x", "y", "z"]}).to_csv(a, index=False)
    >>> pd.DataFrame({"id": ["z", "x", "y"]}).to_csv(b, index=False)
    >>> join_positions(a, b, on="id").tolist()
    [1, 2, 0]
    """
    import pyarrow.compute as pc

    ids = _read_ids(path, on, chunk_size=chunk_size, file_format=file_format, delimiter=delimiter)
    pred_ids = _read_ids(
        pred_path, on, chunk_size=chunk_size, file_format=pred_file_format, delimiter=delimiter
    )
    if pred_ids.type != ids.type:
        pred_ids = pred_ids.cast(ids.type)
    positions = pc.index_in(ids, value_set=pred_ids)
    if positions.null_count == 0 and len(ids) == len(pred_ids):
        rows = positions.to_numpy(zero_copy_only=False).astype(np.int64, copy=False)
        if np.bincount(rows, minlength=len(ids)).max(initial=1) == 1:
            return rows  # each id once on both sides: one hash table, no table of counts
    for where, values in ((path, ids), (pred_path, pred_ids)):
        counts = pc.value_counts(values)
        repeated = counts.field("values").filter(pc.greater(counts.field("counts"), 1))
        if len(repeated):
            raise ValueError(
                ERR_JOIN_DUPLICATES.format(
                    path=where, column=on, count=len(repeated), examples=_shown_ids(repeated)
                )
            )
    for a, b, values, missing in (
        (path, pred_path, ids, pc.is_null(positions)),
        (pred_path, path, pred_ids, pc.invert(pc.is_in(pred_ids, value_set=ids))),
    ):
        absent = values.filter(missing)
        if len(absent):
            raise ValueError(
                ERR_JOIN_MISSING.format(
                    column=on, count=len(absent), path_a=a, path_b=b, examples=_shown_ids(absent)
                )
            )
    raise AssertionError("unreachable: the ids are unique and in both files")  # pragma: no cover


def _read_role_arrays(
    path: str,
    roles: Mapping[str, RoleColumns],
    *,
    rows_of: np.ndarray,
    chunk_size: int,
    file_format: str | None,
    delimiter: str | None = None,
) -> dict[str, Any]:
    """Every row of the role columns of one file, compact and in another row order: file
    row ``i`` goes to row ``rows_of[i]``. Indicators and thresholded scores become one
    uint8 matrix (indicators checked 0/1, scores finite, no missing value); a label column
    or an intersection of label columns becomes int64 codes and their labels."""
    import pyarrow as pa

    columns = [c for rc in roles.values() for c in rc.columns]
    n = rows_of.size
    out: dict[str, Any] = {
        role: np.empty((n, len(rc.indicator_columns)), dtype=np.uint8)
        for role, rc in roles.items()
        if not rc.is_label
    }
    labels: dict[str, list[Any]] = {role: [] for role, rc in roles.items() if rc.label_column}
    # intersections: codes into the labels seen so far (a few per batch, never one per row)
    seen: dict[str, dict[str, int]] = {
        role: {} for role, rc in roles.items() if rc.intersected_columns
    }
    for role in seen:
        out[role] = np.empty(n, dtype=np.int64)
    start = 0
    batches = iter_file_batches(
        path,
        columns,
        chunk_size=chunk_size,
        file_format=file_format,
        delimiter=delimiter,
        label_columns=label_columns(roles.values()),
    )
    for chunk, batch in enumerate(batches):
        stop = start + batch.num_rows
        where = rows_of[start:stop]
        try:
            for role, rc in roles.items():
                if rc.label_column is not None:
                    values = batch.column(batch.schema.get_field_index(rc.label_column))
                    if values.null_count:
                        raise ValueError(
                            ERR_NULLS.format(
                                role=role, column=rc.label_column, count=values.null_count
                            )
                        )
                    labels[role].append(values)
                elif rc.intersected_columns:
                    parts = derived_role_values(batch, rc)
                    known = seen[role]
                    for label in parts.categories:
                        known.setdefault(label, len(known))
                    codes = np.asarray([known[c] for c in parts.categories], dtype=np.int64)
                    out[role][where] = codes[parts.codes]
                elif rc.is_scores:
                    out[role][where] = derived_role_values(batch, rc).to_numpy()
                else:
                    out[role][where] = _indicator_block(batch, rc)
        except ValueError as exc:
            raise _with_context(
                exc,
                ERR_CHUNK.format(path=path, chunk=chunk, start=start, stop=stop - 1, message=exc),
            ) from exc
        start = stop
    for role, parts in labels.items():
        encoded = pa.chunked_array(parts).combine_chunks().dictionary_encode()
        codes = np.empty(n, dtype=np.int64)
        codes[rows_of] = encoded.indices.to_numpy(zero_copy_only=False)
        out[role] = (codes, np.asarray(encoded.dictionary.to_pylist(), dtype=object))
    for role, known in seen.items():
        out[role] = (out[role], np.asarray(list(known), dtype=object))
    return out


def _indicator_block(batch: Any, rc: RoleColumns) -> np.ndarray:
    """The (rows, columns) 0/1 indicator columns of a batch, checked."""
    block = np.column_stack(
        [
            batch.column(batch.schema.get_field_index(c)).to_numpy(zero_copy_only=False)
            for c in rc.indicator_columns
        ]
    )
    bad = ~np.isin(block, (0, 1))
    if bad.any():
        row, col = np.argwhere(bad)[0]
        value = block[row, col].item()
        raise ValueError(
            f"{rc.role}: column {rc.indicator_columns[col]!r} holds {value!r}, not 0 or 1"
        )
    return block


def _spec_columns(spec: Any) -> list[str]:
    return [spec] if isinstance(spec, str) else list(spec_columns(spec))


def counts_from_joined_files(
    path: str | os.PathLike[str],
    pred_path: str | os.PathLike[str],
    *,
    on: str,
    groups: Any,
    tasks: Any,
    groups_pred: Any = None,
    tasks_pred: Any = None,
    group_names: Sequence[Any] | None = None,
    task_names: Sequence[Any] | None = None,
    chunk_size: int = 100_000,
    file_format: str | None = None,
    delimiter: str | None = None,
    pred_file_format: str | None = None,
    names_source: str | None = None,
    replicates: Any = None,
    patterns: bool = False,
    progress: bool = False,
    engine: str = "numpy",
) -> Any:
    """Count a ground-truth file whose predictions are in another file, joined on ``on``.

    The ground truth is read chunk by chunk; the prediction columns of
    ``pred_path`` are held once, compact (uint8 indicators or label codes), in
    the ground truth's row order. Memory is about ``rows x (prediction columns +
    16)`` bytes plus the id columns, never a Python object per row.

    Parameters
    ----------
    path, pred_path : path
        The ground-truth file and the predictions file (Parquet or CSV).
    on : str
        The id column of both files; every id is in both, once.
    groups, tasks : str, list of str or dict
        Ground-truth column roles in ``path`` (see :func:`counts_from_files`).
    groups_pred, tasks_pred : str, dict, ScoreColumns or IntersectedColumns, optional
        Prediction roles in ``pred_path``: a label column, a dict of indicator
        column -> label name (the names of ``groups`` / ``tasks``), score columns
        or an intersection of label columns.
    group_names, task_names, chunk_size, file_format, names_source, replicates, progress
        As in :func:`counts_from_files` (replicate weights by the row index of
        ``path``); ``pred_file_format`` is the format of ``pred_path``.
    patterns : bool, default False
        Return the :class:`PatternCountTable` of the joined rows (the task-set
        counts of the multi-attribute metrics; no ``replicates``) instead.
    engine : {"numpy", "duckdb"}, default "numpy"
        ``"duckdb"`` joins and counts in DuckDB (a hash join that spills to disk,
        nothing per row in Python; no ``replicates``). Both engines take the same
        role specs: ``pred_path``'s roles may be :class:`ScoreColumns` or
        :class:`IntersectedColumns` too.

    Returns
    -------
    CountTable or PatternCountTable
        Identical to ``from_arrays`` of the table type on the joined rows.

    Examples
    --------
    >>> import os, tempfile
    >>> import pandas as pd
    >>> folder = tempfile.mkdtemp()
    >>> truth, pred = os.path.join(folder, "t.csv"), os.path.join(folder, "p.csv")
    >>> pd.DataFrame({"id": [1, 2, 3], "g": ["m", "w", "w"], "ski": [1, 0, 1]}).to_csv(
    ...     truth, index=False)
    >>> pd.DataFrame({"id": [3, 1, 2], "ski": [1, 1, 0]}).to_csv(pred, index=False)
    >>> table = counts_from_joined_files(truth, pred, on="id", groups="g", tasks=["ski"],
    ...                                  tasks_pred={"ski": "ski"})
    >>> table.joint[("groups", "tasks_pred")]
    array([[1.],
           [1.]])
    """
    paths, roles = _prepare(
        path,
        chunk_size=chunk_size,
        engine=engine,
        file_format=file_format,
        delimiter=delimiter,
        groups=groups,
        tasks=tasks,
    )
    pred_specs = {
        role: spec
        for role, spec in (("groups_pred", groups_pred), ("tasks_pred", tasks_pred))
        if spec is not None
    }
    pred_file = os.fspath(pred_path)
    check_file_schemas(
        [pred_file],
        [on, *[c for s in pred_specs.values() for c in _spec_columns(s)]],
        file_format=pred_file_format,
        delimiter=delimiter,
    )
    check_file_schemas(paths, [on], file_format=file_format, delimiter=delimiter)
    read: dict[str, Any] = {
        "chunk_size": chunk_size,
        "file_format": file_format,
        "delimiter": delimiter,
    }
    g_names, t_names = _both_names(paths, roles, group_names, task_names, **read)
    if engine == "duckdb":
        if replicates is not None:
            raise ValueError(ERR_REPLICATES_ENGINE)
        from biasamp.engines._joins import joined_counts_duckdb

        joined = joined_counts_duckdb(
            paths[0],
            pred_file,
            on=on,
            roles=roles,
            pred_specs=pred_specs,
            group_names=g_names,
            task_names=t_names,
            file_format=file_format,
            pred_file_format=pred_file_format,
            names_source=names_source
            if (group_names is not None or task_names is not None)
            else None,
            patterns=patterns,
        )
        return _read_from(joined, [("path", paths[0]), ("pred_path", pred_file)])
    positions = join_positions(
        paths[0],
        pred_file,
        on=on,
        file_format=file_format,
        delimiter=delimiter,
        pred_file_format=pred_file_format,
    )
    rows_of = np.empty_like(positions)  # the ground-truth row of each prediction row
    rows_of[positions] = np.arange(positions.size)
    del positions
    predicted = _read_role_arrays(
        pred_file,
        pred_roles(pred_specs, roles),
        rows_of=rows_of,
        chunk_size=chunk_size,
        file_format=pred_file_format,
        delimiter=delimiter,
    )
    del rows_of
    pred_names = {role: rc.indicator_names for role, rc in pred_roles(pred_specs, roles).items()}
    source = names_source if (group_names is not None or task_names is not None) else None
    if patterns:
        from biasamp.counts._pattern_counts import PatternCountTable

        table_type: Any = PatternCountTable
    else:
        table_type = CountTable
    table: Any = None
    start = 0
    columns = roles.columns()
    for chunk, batch in enumerate(
        iter_file_batches(
            paths[0],
            columns,
            chunk_size=chunk_size,
            file_format=file_format,
            delimiter=delimiter,
            label_columns=label_columns(roles.present().values()),
        )
    ):
        stop = start + batch.num_rows
        if file_format_of(paths[0], file_format) == "csv":
            _check_empty_labels(batch, roles, paths[0], start)
        try:
            arrays = _batch_arrays(batch, roles)
            for role, values in predicted.items():
                if isinstance(values, tuple):
                    arrays[role] = values[1][values[0][start:stop]]
                else:
                    arrays[role] = pd.DataFrame(
                        values[start:stop],
                        columns=pd.Index(list(pred_names[role]), dtype=object),
                        copy=False,
                    )
            weights = (
                {} if replicates is None else {"replicate_weights": replicates.weights(start, stop)}
            )
            part = table_type.from_arrays(
                **arrays, group_names=g_names, task_names=t_names, names_source=source, **weights
            )
        except (ValueError, TypeError) as exc:
            raise _with_context(
                exc,
                ERR_CHUNK.format(
                    path=paths[0], chunk=chunk, start=start, stop=stop - 1, message=exc
                ),
            ) from exc
        table = part if table is None else table.merge(part)
        start = stop
    if table is None:
        raise ValueError(ERR_NO_ROWS.format(paths=paths[0]))
    return _read_from(table, [("path", paths[0]), ("pred_path", pred_file)])
