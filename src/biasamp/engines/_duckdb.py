"""The DuckDB engine: count tables and task-set pattern counts by SQL over files.

Needs the optional extra ``biasamp[duckdb]``. The count table comes from one
``GROUP BY`` (see :mod:`biasamp.engines._group_sums`): keys are the group columns and
the source file, aggregates are the row count and one ``SUM`` per task
indicator column, plus a count of invalid values per column so bad input is
refused with the file named. DuckDB streams the files and spills to disk, so
memory stays bounded (``memory_limit`` caps it).

For multi-attribute metrics, :func:`distinct_rows_duckdb` counts how many
rows carry each *set* of tasks (and group) by ``GROUP BY`` over the indicator
columns: one row per distinct pattern, loaded as a ``PatternCountTable``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from biasamp.counts._count_table import CountTable
from biasamp.engines._arrow_sums import (
    _invalid,
    _numeric,
    _plain,
    batch_group_sums,
    group_sums_frame,
    invalid_scores,
    merge_group_sums,
)
from biasamp.engines._file_formats import check_field_counts, file_format_of, file_schema
from biasamp.engines._group_sums import (
    ALLOWED_SCORES,
    ERR_BAD_VALUES,
    _key_aliases,
    _range_check,
    counts_from_group_sums,
    group_sums_sql,
    renamed_roles,
    score_keys_sql,
)
from biasamp.inputs._column_roles import ColumnRoles, RoleColumns
from biasamp.output._csv import unescape_cells

__all__ = [
    "RowReaderNeeded",
    "counts_from_files_duckdb",
    "distinct_rows_duckdb",
    "duckdb_connection",
]

#: Above this many role columns the group sums are counted in numpy over Arrow batches
#: rather than by one SQL aggregate of two terms per column (see ``docs/scale.md``).
SQL_COLUMNS = 1_000

ERR_DUCKDB = "engine='duckdb' needs duckdb: pip install 'biasamp[duckdb]'."
ERR_MIXED_FORMATS = "engine='duckdb': all files must have one format; got {formats}."
ERR_FIRST_BAD_ROW = " The first is in data row {row} ({value!r})."


def duckdb_connection(*, memory_limit: str | None = None, threads: int | None = None) -> Any:
    """An in-memory DuckDB connection (``memory_limit`` like ``"1GB"``)."""
    try:
        import duckdb
    except ImportError as exc:
        raise ImportError(ERR_DUCKDB) from exc
    con = duckdb.connect(":memory:")
    if memory_limit is not None:
        con.execute(f"SET memory_limit = '{memory_limit}'")
    if threads is not None:
        con.execute(f"SET threads = {int(threads)}")
    con.execute("SET preserve_insertion_order = false")
    return con


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _file_column(schemas: Sequence[Any]) -> str:
    """A name for DuckDB's source-file column that no file's column has, in any case
    (DuckDB matches names ignoring case)."""
    taken = {name.lower() for schema in schemas for name in schema.names}
    name = "__biasamp_file"
    while name in taken:
        name += "_"
    return name


def _alias_prefix(schemas: Sequence[Any]) -> str:
    """A prefix of positional column names that starts no file's column name, in any case."""
    taken = [name.lower() for schema in schemas for name in schema.names]
    prefix = "__biasamp_c"
    while any(name.startswith(prefix) for name in taken):
        prefix += "_"
    return prefix


def _source(
    paths: Sequence[str],
    file_format: str | None,
    schemas: Sequence[Any],
    columns: Sequence[str],
    *,
    with_file: bool,
    outputs: Sequence[str] | None = None,
) -> str:
    """A subquery of ``columns`` read from the files by position, as ``r0, r1, ...``
    (or as ``outputs``).

    DuckDB matches column names ignoring case and renames a second ``Obj_x``
    beside ``obj_x``; a CSV header's spaces are trimmed, and ``filename`` is the
    name of its source-file column. So no name of the files goes into the SQL:
    each column is found by its position in the file's pyarrow schema (the names
    are matched exactly, in Python) and renamed positionally (``AS t(c0, c1, ...)``).
    Files are read together when their column names are the same, in the same
    order; a file with another order gets its own scan (DuckDB would match it
    by name, ignoring case). With ``with_file`` the subquery also has the
    source file as ``file``.
    """
    formats = {file_format_of(p, file_format) for p in paths}
    if len(formats) > 1:
        raise ValueError(ERR_MIXED_FORMATS.format(formats=sorted(formats)))
    if formats == {"csv"}:
        for path in paths:  # DuckDB's sniffer would read a ragged file as one text column
            check_field_counts(path)
    file_column = _file_column(schemas)
    prefix = _alias_prefix(schemas)
    layouts: dict[tuple[str, ...], list[str]] = {}
    for path, schema in zip(paths, schemas, strict=True):
        layouts.setdefault(tuple(schema.names), []).append(path)
    scans = []
    for names, group in layouts.items():
        positions = [names.index(c) for c in columns]
        listing = "[" + ", ".join("'" + p.replace("'", "''") + "'" for p in group) + "]"
        options = f"filename = '{file_column}'" if with_file else ""
        if formats == {"parquet"}:
            reader = f"read_parquet({listing}{', ' if options else ''}{options})"
        else:
            reader = (
                f"read_csv({listing}, header = true, delim = ',', quote = '\"'"
                f"{', ' if options else ''}{options})"
            )
        # the first columns renamed by position; the others keep the file's names, so the
        # new names must be none of them (a file may name its columns c0, c1, ...)
        aliases = ", ".join(f"{prefix}{i}" for i in range(max(positions, default=0) + 1))
        names_out = list(outputs) if outputs is not None else [f"r{j}" for j in range(len(columns))]
        select = [f"{prefix}{p} AS {name}" for p, name in zip(positions, names_out, strict=True)]
        if with_file:
            select.append(f"{_quote(file_column)} AS file")
        scans.append(f"SELECT {', '.join(select)} FROM {reader} AS t({aliases})")
    return "(" + " UNION ALL ".join(scans) + ")"


def _positional_roles(roles: ColumnRoles, columns: Sequence[str]) -> ColumnRoles:
    """``roles`` with every column renamed ``r<j>``, its index in ``columns``."""
    alias = {c: f"r{j}" for j, c in enumerate(columns)}
    return renamed_roles(roles, alias)


def _arrow_group_sums(
    con: Any, source: str, positional: ColumnRoles, roles: ColumnRoles, *, soft: bool
) -> pd.DataFrame:
    """The group-sums table counted in numpy over DuckDB's Arrow record batches."""
    rows = max(10_000, min(1_000_000, 2**25 // max(1, len(positional.columns()))))
    relation = con.sql(f"SELECT * FROM {source}")
    reader = (  # DuckDB 1.4 renamed record_batch
        relation.to_arrow_reader(rows)
        if hasattr(relation, "to_arrow_reader")
        else relation.record_batch(rows)
    )
    parts = [
        batch_group_sums(batch, positional, soft=soft, extra_keys=["file"]) for batch in reader
    ]
    return group_sums_frame(merge_group_sums(parts), roles)


def _read_schemas(paths: Sequence[str], file_format: str | None) -> list[Any]:
    """Each file's pyarrow schema, read once."""
    return [file_schema(p, file_format) for p in paths]


def _unescape_labels(
    frame: pd.DataFrame,
    paths: Sequence[str],
    roles: ColumnRoles,
    file_format: str | None,
    *,
    aliased: bool,
) -> pd.DataFrame:
    """Label keys of CSV files read back from their spreadsheet-safe form, as the other
    readers do (:mod:`biasamp.output._csv`)."""
    if file_format_of(paths[0], file_format) != "csv":
        return frame
    for rc in roles.present().values():
        if rc.is_label:
            # group sums' key aliases, or the columns' own names
            columns = _key_aliases(rc) if aliased else list(rc.columns)
            for column in columns:
                if pd.api.types.is_numeric_dtype(frame[column]):
                    continue  # a column of numbers (an intersection's part) has no text
                frame[column] = unescape_cells(frame[column].astype(object))
    return frame


class RowReaderNeeded(Exception):
    """The files hold what only the numpy engine's row reader names with its row (an empty
    label field of a CSV file): count them with it."""


def _check_label_keys(
    frame: pd.DataFrame, paths: Sequence[str], roles: ColumnRoles, file_format: str | None
) -> None:
    """Raise :class:`RowReaderNeeded` when a CSV file's label column has an empty field
    (DuckDB reads it as NULL; the row reader names its row)."""
    if file_format_of(paths[0], file_format) != "csv":
        return
    for rc in roles.present().values():
        if rc.is_label and any(frame[key].isna().any() for key in _key_aliases(rc)):
            raise RowReaderNeeded(rc.role)


def counts_from_files_duckdb(
    paths: Sequence[str],
    roles: ColumnRoles,
    *,
    group_names: Sequence[Any] | None = None,
    task_names: Sequence[Any] | None = None,
    soft: bool = False,
    file_format: str | None = None,
    names_source: str | None = None,
    memory_limit: str | None = None,
) -> CountTable:
    """The count table of ``paths`` by one DuckDB aggregation (see :func:`biasamp.counts_from_files`)."""
    import pyarrow as pa

    schemas = _read_schemas(paths, file_format)
    columns = roles.columns()
    first = schemas[0]
    boolean = [f"r{j}" for j, c in enumerate(columns) if pa.types.is_boolean(first.field(c).type)]
    source = _source(paths, file_format, schemas, columns, with_file=True)
    positional = _positional_roles(roles, columns)
    con = duckdb_connection(memory_limit=memory_limit)
    try:
        if len(columns) > SQL_COLUMNS:
            frame = _arrow_group_sums(con, source, positional, roles, soft=soft)
        else:
            frame = con.execute(
                group_sums_sql(
                    source,
                    positional,
                    dialect="duckdb",
                    validate=True,
                    soft=soft,
                    file_column="file",
                    boolean_columns=boolean,
                )
            ).df()
    finally:
        con.close()
    _check_label_keys(frame, paths, roles, file_format)
    frame = _unescape_labels(frame, paths, roles, file_format, aliased=True)
    check_values_by_row(frame, paths, roles, soft=soft, file_format=file_format)
    return counts_from_group_sums(
        frame,
        roles,
        group_names=group_names,
        task_names=task_names,
        soft=soft,
        names_source=names_source,
    )


def _file_batches(path: str, column: str, file_format: str | None) -> Any:
    """Record batches of one column of a Parquet or CSV file, in row order."""
    import pyarrow.csv as pcsv
    import pyarrow.parquet as pq

    if file_format_of(path, file_format) == "parquet":
        with pq.ParquetFile(path) as handle:
            yield from handle.iter_batches(batch_size=1 << 20, columns=[column])
        return
    read = pcsv.ReadOptions(use_threads=False)  # in row order
    with pcsv.open_csv(
        path, read_options=read, convert_options=pcsv.ConvertOptions(include_columns=[column])
    ) as reader:
        yield from reader


def first_bad_row(
    path: str,
    column: str,
    *,
    unit_interval: bool,
    file_format: str | None = None,
    scores: bool = False,
) -> tuple[int, Any] | None:
    """The first data row (1 = the first row after a CSV header) whose value in ``column``
    is missing or not 0/1 (``unit_interval``: not in [0, 1]; ``scores``: not finite), and
    the value; None if none."""
    start = 0
    for batch in _file_batches(path, column, file_format):
        values, missing = _numeric(_plain(batch.column(0)))
        numbers = np.asarray(values, dtype=np.float64)
        invalid = invalid_scores(numbers) if scores else _invalid(numbers, soft=unit_interval)
        if missing is not None:
            invalid = missing if invalid is None else invalid | missing
        if invalid is not None:
            row = int(np.argmax(invalid))
            value = None if missing is not None and missing[row] else values[row].item()
            return start + row + 1, value
        start += batch.num_rows
    return None


def check_values_by_row(
    frame: pd.DataFrame,
    paths: Sequence[str],
    roles: ColumnRoles,
    *,
    soft: bool,
    file_format: str | None,
) -> None:
    """Refuse the first column with invalid values in a group-sums table (its ``bad_``
    counts), naming its file, the column and the first bad data row (found by reading
    that column of that file once more)."""
    for rc in roles.present().values():
        for j, column in enumerate(rc.indicator_columns):
            alias = f"bad_{rc.role}_{j}"
            if alias not in frame.columns or not (frame[alias] > 0).any():
                continue
            unit = rc.is_scores or (soft and rc.role.endswith("_pred"))
            files = set(frame.loc[frame[alias] > 0, "file"].astype(str))
            path = next(p for p in paths if p in files) if files & set(paths) else paths[0]
            found = first_bad_row(
                path, column, unit_interval=unit, file_format=file_format, scores=rc.is_scores
            )
            allowed = ALLOWED_SCORES if rc.is_scores else "in [0, 1]" if unit else "0 or 1"
            message = f"{path}: " + ERR_BAD_VALUES.format(
                where="",
                role=rc.role,
                count=int(frame[alias].sum()),
                column=column,
                allowed=allowed,
            )
            if found is not None:
                message += ERR_FIRST_BAD_ROW.format(row=found[0], value=found[1])
            raise ValueError(message)


def distinct_rows_sql(
    con: Any, source: str, positional: ColumnRoles, roles: ColumnRoles, *, paths: Sequence[str]
) -> pd.DataFrame:
    """The distinct rows of ``source`` (columns named as in ``positional``) by ``GROUP BY``:
    the key columns (score columns as ``score > threshold``, their bad values refused
    naming ``paths`` and the column of ``roles``), ``__weight`` and ``__rows``."""
    weight = (
        f"SUM(CAST({positional.sample_weight} AS DOUBLE))"
        if positional.sample_weight
        else "CAST(COUNT(*) AS DOUBLE)"
    )
    key_sql, select = [], []  # score columns: keyed by score > threshold, bad values counted
    checks: list[tuple[RoleColumns, str, str]] = []
    for rc, shown in zip(positional.present().values(), roles.present().values(), strict=True):
        keys = list(rc.columns)
        if rc.thresholds is not None:
            keys = score_keys_sql(rc, [f"CAST({column} AS DOUBLE)" for column in rc.columns])
            checks += [(shown, shown.columns[j], c) for j, c in enumerate(rc.columns)]
        key_sql += keys
        select += [f"{key} AS {column}" for key, column in zip(keys, rc.columns, strict=True)]
    check_sql = "".join(
        f", {_range_check(column)} AS __bad{k}" for k, (_, _, column) in enumerate(checks)
    )
    frame = con.execute(
        f"SELECT {', '.join(select)}, {weight} AS __weight, COUNT(*) AS __rows{check_sql} "
        f"FROM {source} GROUP BY {', '.join(key_sql)}"
    ).df()
    for k, (rc, column, _) in enumerate(checks):
        count = int(frame[f"__bad{k}"].sum())
        if count:
            raise ValueError(
                f"{', '.join(paths[:3])}: "
                + ERR_BAD_VALUES.format(
                    where="", role=rc.role, count=count, column=column, allowed=ALLOWED_SCORES
                )
            )
    return frame.iloc[:, : len(key_sql) + 2]


def distinct_rows_duckdb(
    paths: Sequence[str],
    roles: ColumnRoles,
    *,
    file_format: str | None = None,
    memory_limit: str | None = None,
) -> pd.DataFrame:
    """The distinct rows of the role columns with their weight and count, by ``GROUP BY``.

    One row per distinct (group, task set) pattern: the role columns under
    their own names, ``__weight`` (the weight total, or the row count) and
    ``__rows``. Counting these rows with ``sample_weight=__weight`` gives the
    same pattern counts as counting every input row, since rows with one
    pattern are interchangeable for every multi-attribute statistic.
    """
    columns = roles.columns()
    alias = {c: f"r{j}" for j, c in enumerate(columns)}
    source = _source(
        paths, file_format, _read_schemas(paths, file_format), columns, with_file=False
    )
    con = duckdb_connection(memory_limit=memory_limit)
    try:
        frame = distinct_rows_sql(con, source, renamed_roles(roles, alias), roles, paths=paths)
    finally:
        con.close()
    frame.columns = pd.Index(
        [*(c for rc in roles.present().values() for c in rc.columns), "__weight", "__rows"],
        dtype=object,
    )
    return _unescape_labels(frame, paths, roles, file_format, aliased=False)
