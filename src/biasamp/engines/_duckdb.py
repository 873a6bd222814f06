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

import pandas as pd

from biasamp.counts._count_table import CountTable
from biasamp.engines._file_formats import check_field_counts, file_format_of, file_schema
from biasamp.engines._group_sums import counts_from_group_sums, group_sums_sql
from biasamp.inputs._column_roles import ColumnRoles
from biasamp.output._csv import unescape_cells

__all__ = ["counts_from_files_duckdb", "distinct_rows_duckdb", "duckdb_connection"]

ERR_DUCKDB = "engine='duckdb' needs duckdb: pip install 'biasamp[duckdb]'."
ERR_MIXED_FORMATS = "engine='duckdb': all files must have one format; got {formats}."


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


def _source(paths: Sequence[str], file_format: str | None) -> str:
    formats = {file_format_of(p, file_format) for p in paths}
    if len(formats) > 1:
        raise ValueError(ERR_MIXED_FORMATS.format(formats=sorted(formats)))
    if formats == {"csv"}:
        for path in paths:  # DuckDB's sniffer would read a ragged file as one text column
            check_field_counts(path)
    listing = "[" + ", ".join("'" + p.replace("'", "''") + "'" for p in paths) + "]"
    if formats == {"parquet"}:
        return f"read_parquet({listing}, filename = true)"
    return f"read_csv({listing}, filename = true, header = true)"


def _is_boolean(path: str, column: str, file_format: str | None) -> bool:
    import pyarrow as pa

    return bool(pa.types.is_boolean(file_schema(path, file_format).field(column).type))


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
            column = f"k_{rc.role}" if aliased else rc.label_column  # group sums' key alias
            frame[column] = unescape_cells(frame[column].astype(object))
    return frame


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
    boolean = [c for c in roles.columns() if _is_boolean(paths[0], c, file_format)]
    sql = group_sums_sql(
        _source(paths, file_format),
        roles,
        dialect="duckdb",
        validate=True,
        soft=soft,
        file_column="filename",
        boolean_columns=boolean,
    )
    con = duckdb_connection(memory_limit=memory_limit)
    try:
        frame = con.execute(sql).df()
    finally:
        con.close()
    frame = _unescape_labels(frame, paths, roles, file_format, aliased=True)
    return counts_from_group_sums(
        frame,
        roles,
        group_names=group_names,
        task_names=task_names,
        soft=soft,
        names_source=names_source,
    )


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

    def q(name: str) -> str:
        return '"' + name.replace('"', '""') + '"'

    keys = [c for rc in roles.present().values() for c in rc.columns]
    weight = (
        f"SUM(CAST({q(roles.sample_weight)} AS DOUBLE))"
        if roles.sample_weight
        else "CAST(COUNT(*) AS DOUBLE)"
    )
    sql = (
        f"SELECT {', '.join(q(c) for c in keys)}, {weight} AS __weight, COUNT(*) AS __rows "
        f"FROM {_source(list(paths), file_format)} GROUP BY {', '.join(q(c) for c in keys)}"
    )
    con = duckdb_connection(memory_limit=memory_limit)
    try:
        frame = con.execute(sql).df()
    finally:
        con.close()
    return _unescape_labels(frame, paths, roles, file_format, aliased=False)
