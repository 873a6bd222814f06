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

import os
from collections import Counter
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np
import pandas as pd

from biasamp.counts._count_table import CountTable, empty_count_table
from biasamp.engines._file_formats import (
    RaggedRows,
    _pyarrow,
    _schema,
    check_field_counts,
    file_format_of,
    file_schema,
)
from biasamp.inputs._column_roles import ColumnRoles
from biasamp.output._csv import ESCAPED_CELL

if TYPE_CHECKING:
    from biasamp.counts._pattern_counts import PatternCountTable

__all__ = [
    "counts_from_files",
    "pattern_counts_from_files",
    "file_format_of",
    "check_file_schemas",
    "iter_file_batches",
    "file_schema",
]

ERR_ENGINE = "engine: expected 'numpy' or 'duckdb', got {got!r}."
ERR_CHUNK_SIZE = "chunk_size: expected a positive integer, got {got!r}."
ERR_NO_FILES = "paths: no input files given."
ERR_FILE_COLUMNS = "{path}: column(s) {missing} not found (the file has {examples})."
ERR_REPEATED_COLUMNS = "{path}: the header names the column(s) {repeated} more than once."
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
ERR_REPLICATES_ENGINE = "replicates: the bootstrap needs engine='numpy' (row-level weights)."
ERR_NO_ROWS = "The files have no rows: {paths}."


def check_file_schemas(
    paths: Sequence[str],
    roles_columns: Sequence[str],
    *,
    file_format: str | None = None,
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
        schema = _schema(path, file_format_of(path, file_format))
        all_names = schema.names  # a new list on every access: read it once
        names = Counter(all_names)
        missing = [c for c in roles_columns if c not in names]
        if missing:
            shown = ", ".join(repr(c) for c in all_names[:8])
            raise ValueError(ERR_FILE_COLUMNS.format(path=path, missing=missing, examples=shown))
        repeated = [c for c in dict.fromkeys(roles_columns) if names[c] > 1]
        if repeated:  # pyarrow's schema.field would say the column "does not exist"
            raise ValueError(ERR_REPEATED_COLUMNS.format(path=path, repeated=repeated))
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
    path: str, columns: Sequence[str], *, chunk_size: int, file_format: str | None = None
) -> Iterator[Any]:
    """Record batches of at most ``chunk_size`` rows with only ``columns``."""
    _pyarrow()
    fmt = file_format_of(path, file_format)
    if fmt == "parquet":
        import pyarrow.parquet as pq

        with pq.ParquetFile(path) as handle:
            yield from handle.iter_batches(batch_size=chunk_size, columns=list(columns))
        return
    import pyarrow.csv as pcsv

    block = max(1 << 20, min(chunk_size * max(len(columns), 1) * 4, 1 << 28))
    ragged = RaggedRows()
    try:
        reader = pcsv.open_csv(
            path,
            read_options=pcsv.ReadOptions(block_size=block),
            parse_options=pcsv.ParseOptions(invalid_row_handler=ragged),
            convert_options=pcsv.ConvertOptions(include_columns=list(columns)),
        )
        with reader:
            for batch in reader:
                batch = _unescape_text(batch)
                for start in range(0, batch.num_rows, chunk_size):
                    yield batch.slice(start, chunk_size)
    except ValueError:  # ArrowInvalid
        if ragged.first is None:
            raise
        check_field_counts(path)  # the threaded reader does not know the line: find it
        raise  # not a field count (a quoted newline, which this reader does not take)


def _unescape_text(batch: Any) -> Any:
    """Text cells of a CSV batch read back from their spreadsheet-safe form
    (:mod:`biasamp.output._csv`: a leading ``'`` before ``= + - @``, tab, CR or ``'`` goes)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    columns = []
    changed = False
    for column in batch.columns:
        if pa.types.is_string(column.type) or pa.types.is_large_string(column.type):
            escaped = pc.fill_null(pc.match_substring_regex(column, ESCAPED_CELL), False)
            if pc.any(escaped).as_py():
                column = pc.if_else(escaped, pc.utf8_slice_codeunits(column, 1), column)
                changed = True
        columns.append(column)
    return pa.RecordBatch.from_arrays(columns, schema=batch.schema) if changed else batch


def _label_names_from_files(
    paths: Sequence[str], column: str, *, chunk_size: int, file_format: str | None
) -> tuple[Any, ...]:
    """Sorted distinct non-missing values of one column over all files (reads only it)."""
    import pyarrow.compute as pc

    seen: set[Any] = set()
    for path in paths:
        for batch in iter_file_batches(
            path, [column], chunk_size=chunk_size, file_format=file_format
        ):
            seen.update(v for v in pc.unique(batch.column(0)).to_pylist() if v is not None)
    names = tuple(seen)
    try:
        return tuple(sorted(names))
    except TypeError:
        return names


def _batch_arrays(batch: Any, roles: ColumnRoles) -> dict[str, Any]:
    """The role arrays of one record batch, as :meth:`CountTable.from_arrays` takes them."""
    arrays: dict[str, Any] = {}
    for role, rc in roles.present().items():
        if rc.is_label:
            arrays[role] = batch.column(rc.label_column).to_numpy(zero_copy_only=False)
            continue
        columns = []
        for column in rc.indicator_columns:
            values = batch.column(column)
            if values.null_count:
                raise ValueError(
                    ERR_NULLS.format(role=role, column=column, count=values.null_count)
                )
            columns.append(values.to_numpy(zero_copy_only=False))
        matrix = np.column_stack(columns) if len(columns) > 1 else columns[0][:, None]
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
) -> tuple[Any, ...]:
    if given is not None:
        return tuple(given)
    fixed = roles.fixed_names(kind)
    if fixed is not None:
        return fixed
    first = roles.label_roles(kind)[0]
    assert first.label_column is not None  # label_roles holds label-column roles only
    names = _label_names_from_files(
        paths, first.label_column, chunk_size=chunk_size, file_format=file_format
    )
    if not names:
        raise ValueError(ERR_NO_ROWS_NAMES.format(role=first.role, kind=kind))
    return names


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
    paths: Any, *, chunk_size: int, engine: str, file_format: str | None, **role_specs: Any
) -> tuple[list[str], ColumnRoles]:
    """Check the arguments and files; return the paths and the resolved column roles."""
    if engine not in ("numpy", "duckdb"):
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
            raise FileNotFoundError(f"{path}: no such file.")
    first_schema = _schema(paths[0], file_format_of(paths[0], file_format))
    roles = ColumnRoles.resolve(first_schema.names, **role_specs)
    indicator_owner = {
        c: rc.role
        for rc in roles.present().values()
        if not rc.is_label
        for c in rc.indicator_columns
    }
    check_file_schemas(
        paths, roles.columns(), file_format=file_format, indicator_columns=indicator_owner
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
    names_source: str | None = None,
    replicates: Any = None,
    progress: bool = False,
) -> CountTable:
    """Count the labels of Parquet or CSV files into a :class:`CountTable`, chunk by chunk.

    Parameters
    ----------
    paths : path or sequence of paths
        Parquet (``.parquet``) or CSV (``.csv``, ``.csv.gz``) files, read in order
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
    engine : {"numpy", "duckdb"}, default "numpy"
        ``"duckdb"`` runs one SQL aggregation over the files (needs ``biasamp[duckdb]``).
    file_format : {"parquet", "csv"}, optional
        Overrides the format read from the file names.
    names_source : str, optional
        Where ``group_names`` / ``task_names`` came from, for error messages.
    replicates : PoissonReplicates, optional
        Bootstrap weights by global row index (rows numbered across the files
        in order); the table gains a leading replicate axis and equals the
        in-memory ``from_arrays(..., replicate_weights=replicates.weights(0, n))``.
    progress : bool, default False
        Show a progress bar.

    Returns
    -------
    CountTable
        Identical to :meth:`CountTable.from_arrays` on all rows at once.

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
    if replicates is not None and engine != "numpy":
        raise ValueError(ERR_REPLICATES_ENGINE)
    if engine == "duckdb":
        from biasamp.engines._duckdb import counts_from_files_duckdb

        return counts_from_files_duckdb(
            paths,
            roles,
            group_names=group_names,
            task_names=task_names,
            soft=soft,
            file_format=file_format,
            names_source=names_source,
        )
    g_names = _resolve_names(
        paths, roles, "group", group_names, chunk_size=chunk_size, file_format=file_format
    )
    t_names = _resolve_names(
        paths, roles, "task", task_names, chunk_size=chunk_size, file_format=file_format
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
        replicates=replicates,
        progress=progress,
    )
    return (
        table if table is not None else empty_count_table(list(roles.present()), g_names, t_names)
    )


_TableT = TypeVar("_TableT", CountTable, "PatternCountTable")


def _stream_tables(
    paths: Sequence[str],
    roles: ColumnRoles,
    table_type: type[_TableT],
    g_names: tuple[Any, ...],
    t_names: tuple[Any, ...],
    *,
    soft: bool,
    names_source: str | None,
    chunk_size: int,
    file_format: str | None,
    replicates: Any,
    progress: bool,
) -> _TableT | None:
    """Count every chunk of every file into ``table_type`` tables and merge them (None if no rows)."""
    table: _TableT | None = None
    columns = roles.columns()
    offset = 0  # global row index of the chunk, for bootstrap weights
    extra: dict[str, Any] = {"soft": soft} if table_type is CountTable else {}
    bar = _progress(progress, None)
    try:
        for path in paths:
            start = 0
            batches = iter_file_batches(
                path, columns, chunk_size=chunk_size, file_format=file_format
            )
            chunk = 0
            while True:
                batch = None
                try:
                    batch = next(batches, None)
                    if batch is None:
                        break
                    stop = start + batch.num_rows
                    if batch.num_rows:
                        arrays = _batch_arrays(batch, roles)
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
                except (ValueError, TypeError) as exc:
                    # pyarrow's ArrowInvalid (a CSV value of another type) is a ValueError
                    last = start + (chunk_size if batch is None else batch.num_rows) - 1
                    raise _with_context(
                        exc,
                        ERR_CHUNK.format(
                            path=path, chunk=chunk, start=start, stop=last, message=exc
                        ),
                    ) from exc
                if bar is not None:
                    bar.update(bar.task_ids[0], advance=batch.num_rows)
                offset += batch.num_rows
                start, chunk = stop, chunk + 1
    finally:
        if bar is not None:
            bar.stop()
    return table


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
    names_source: str | None = None,
    progress: bool = False,
) -> Any:
    """The :class:`PatternCountTable` (task-set counts of the multi-attribute metrics) of files.

    Same arguments as :func:`counts_from_files` (task roles are 0/1 indicator
    columns). ``engine="numpy"`` counts chunk by chunk and merges by pattern
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
    if engine == "duckdb":
        from biasamp.engines._duckdb import distinct_rows_duckdb

        frame = distinct_rows_duckdb(paths, roles, file_format=file_format)
        arrays = _frame_arrays(frame, roles)
        table = PatternCountTable.from_arrays(
            **arrays,
            sample_weight=frame["__weight"].to_numpy(),
            group_names=group_names,
            task_names=task_names,
            names_source=source,
        )
        table.n_rows = int(frame["__rows"].sum())
        return table
    g_names = _resolve_names(
        paths, roles, "group", group_names, chunk_size=chunk_size, file_format=file_format
    )
    t_names = _resolve_names(
        paths, roles, "task", task_names, chunk_size=chunk_size, file_format=file_format
    )
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
        replicates=None,
        progress=progress,
    )
    if streamed is None:
        raise ValueError(ERR_NO_ROWS.format(paths=", ".join(paths[:3])))
    return streamed


def _frame_arrays(frame: pd.DataFrame, roles: ColumnRoles) -> dict[str, Any]:
    """Role arrays of a pandas frame with the source column names."""
    arrays: dict[str, Any] = {}
    for role, rc in roles.present().items():
        if rc.is_label:
            arrays[role] = frame[rc.label_column].to_numpy(dtype=object)
        else:
            arrays[role] = pd.DataFrame(
                frame[list(rc.indicator_columns)].to_numpy(),
                columns=pd.Index(list(rc.indicator_names), dtype=object),
            )
    return arrays
