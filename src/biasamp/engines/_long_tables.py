"""Long ``(id, label)`` task tables counted without the dense (rows, tasks) matrix.

A long table lists one row per (id, task) pair; the data file holds one row per id
with its group columns. The count table follows from the group-sums table of
:func:`~biasamp.group_sums_sql`: one row per distinct group key of the data
file, with the number of its rows (``n``) and, per task, how many of its rows
carry the task (``s_tasks_<j>``). Both engines build that table and hand it to
:func:`~biasamp.counts_from_group_sums`:

* ``engine="duckdb"``: one ``GROUP BY`` of the data file's keys, and one of the
  data file joined with the distinct pairs of each long table;
* ``engine="numpy"``: the data file's ids and group keys are read once (one code
  per row); each chunk of a long table is matched to rows by an Arrow hash lookup,
  its (row, task) pairs kept as one int64 each; the sorted distinct pairs are
  counted per (key, task) with one ``bincount``.

Memory grows with the data file's rows and the long table's pairs, never with
rows x tasks. A pair listed twice is one task of its row (as in memory); an id of a
long table missing from the data file, an id repeated in the data file, a missing
id or label, and a label outside the task names are refused with the file named.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, cast

import numpy as np
import pandas as pd

from biasamp.counts._count_table import CountTable
from biasamp.engines._arrow_sums import _key_codes, _plain, score_keys
from biasamp.engines._derived_roles import derived_role_values
from biasamp.engines._file_formats import file_format_of, file_schema
from biasamp.engines._files import (
    ERR_DELIMITER_ENGINE,
    ERR_REPLICATES_ENGINE,
    ERR_ROWS_REPLICATES,
    iter_file_batches,
    join_positions,
)
from biasamp.engines._group_sums import (
    ALLOWED_SCORES,
    ERR_BAD_VALUES,
    _key_aliases,
    counts_from_group_sums,
    group_sums_sql,
    renamed_roles,
    score_keys_sql,
)
from biasamp.engines._joins import (
    ERR_JOIN_DUPLICATES,
    ERR_JOIN_MISSING,
    ERR_JOIN_NULL_IDS,
    check_ids_in_sql,
    check_unique_ids_sql,
)
from biasamp.inputs._column_roles import (
    ERR_MISSING_COLUMNS,
    ERR_NO_ROLES_GIVEN,
    ColumnRoles,
    RoleColumns,
    aligned_prediction,
    role_columns,
)
from biasamp.inputs._label_matrix import ERR_UNKNOWN_LABELS
from biasamp.inputs._paths import ERR_NO_SUCH_FILE, MissingFileError

__all__ = [
    "ERR_LONG_ENGINE",
    "ERR_LONG_NO_LABELS",
    "ERR_LONG_NULL_LABELS",
    "ERR_LONG_ROLES",
    "ERR_LONG_ROWS",
    "counts_from_long_files",
    "pattern_counts_from_long_files",
]

ERR_LONG_ENGINE = "engine: expected 'numpy' or 'duckdb', got {got!r}."
ERR_LONG_ROLES = (
    "long tables: expected a dict with 'tasks' (and optionally 'tasks_pred'), got {got!r}."
)
ERR_LONG_ROWS = (
    "rows={rows!r} with pred_path={pred_path!r}: dropping unlabelled rows and predicted "
    "groups in another file are counted by engine='numpy' (rows: 'all' or 'labelled'), "
    "got engine={engine!r}."
)
ERR_LONG_NULL_LABELS = "{path}: column {column!r} has {count} missing label(s)."
ERR_LONG_NO_LABELS = (
    "{path}: the long table has no rows, so the task names are unknown; pass task_names."
)

_EXAMPLES = 5


def _shown(values: Sequence[Any]) -> str:
    return ", ".join(repr(v) for v in list(values)[:_EXAMPLES])


def _batches(
    path: str,
    columns: Sequence[str],
    *,
    chunk_size: int,
    file_format: str | None,
    delimiter: str | None = None,
    label_columns: Sequence[str] = (),
) -> Iterator[Any]:
    """Record batches of ``columns`` (the file engine's reader; ``label_columns`` read as
    text); in a CSV file an empty text field is a missing value, as DuckDB and pandas read
    it."""
    import pyarrow as pa
    import pyarrow.compute as pc

    csv = file_format_of(path, file_format) == "csv"
    for batch in iter_file_batches(
        path,
        columns,
        chunk_size=chunk_size,
        file_format=file_format,
        delimiter=delimiter,
        label_columns=label_columns,
    ):
        if csv and any(pa.types.is_string(c.type) for c in batch.columns):
            batch = pa.record_batch(
                [
                    pc.if_else(pc.equal(c, ""), pa.scalar(None, c.type), c)
                    if pa.types.is_string(c.type)
                    else c
                    for c in batch.columns
                ],
                names=batch.schema.names,
            )
        yield batch


def _column(
    path: str,
    column: str,
    *,
    chunk_size: int,
    file_format: str | None,
    delimiter: str | None = None,
    label: bool = False,
) -> Any:
    """One column of a file as one Arrow array (``label``: read as text from a CSV file)."""
    import pyarrow as pa

    chunks = [
        b.column(0)
        for b in _batches(
            path,
            [column],
            chunk_size=chunk_size,
            file_format=file_format,
            delimiter=delimiter,
            label_columns=[column] if label else (),
        )
    ]
    kind = _column_type(path, column, file_format, delimiter, label)
    return pa.chunked_array(chunks, type=kind).combine_chunks()


def _column_type(
    path: str, column: str, file_format: str | None, delimiter: str | None, label: bool
) -> Any:
    """The type the reader gives a column: text for a label column of a CSV file, else the
    file's (inferred) type."""
    import pyarrow as pa

    if label and file_format_of(path, file_format) == "csv":
        return pa.string()
    return file_schema(path, file_format, delimiter=delimiter).field(column).type


def _check_columns(
    path: str,
    columns: Sequence[str],
    file_format: str | None,
    role: str,
    delimiter: str | None = None,
) -> None:
    names = file_schema(path, file_format, delimiter=delimiter).names
    missing = [c for c in columns if c not in names]
    if missing:
        raise ValueError(
            f"{path}: "
            + ERR_MISSING_COLUMNS.format(role=role, missing=_shown(missing), examples=_shown(names))
        )


def _task_roles(long_paths: Mapping[str, Any], names: Sequence[Any]) -> dict[str, RoleColumns]:
    """Task roles whose "columns" are the task names (the group-sums table sums them)."""
    return {
        role: RoleColumns(
            role,
            indicator_columns=tuple(f"{role}_{j}" for j in range(len(names))),
            indicator_names=tuple(names),
        )
        for role in long_paths
    }


def _long_names(
    path: str,
    label: str,
    *,
    chunk_size: int,
    file_format: str | None,
    delimiter: str | None = None,
) -> tuple[Any, ...]:
    import pyarrow.compute as pc

    labels = _column(
        path,
        label,
        chunk_size=chunk_size,
        file_format=file_format,
        delimiter=delimiter,
        label=True,
    )
    if labels.null_count:
        raise ValueError(
            ERR_LONG_NULL_LABELS.format(path=path, column=label, count=labels.null_count)
        )
    names = tuple(pc.unique(labels).to_pylist())
    if not names:
        raise ValueError(ERR_LONG_NO_LABELS.format(path=path))
    try:
        return tuple(sorted(names))
    except TypeError:
        return names


def _unknown(
    path: str, role: str, labels: Sequence[Any], names: Sequence[Any], source: str | None
) -> ValueError:
    return ValueError(
        f"{path}: "
        + ERR_UNKNOWN_LABELS.format(
            arg=role,
            count=len(labels),
            source=f"(from {source})" if source else repr(list(names)[:5]),
            examples=_shown(labels),
        )
    )


def _distinct(values: np.ndarray) -> np.ndarray:
    """The distinct values of an int64 array, by an in-place sort (faster than hashing here)."""
    values.sort()
    keep = np.empty(values.size, dtype=bool)
    keep[:1] = True
    np.not_equal(values[1:], values[:-1], out=keep[1:])
    return values[keep]


def _row_keys(
    path: str,
    roles: ColumnRoles,
    *,
    on: str,
    chunk_size: int,
    file_format: str | None,
    pred_path: str | None,
    pred_file_format: str | None,
    delimiter: str | None = None,
) -> tuple[Any, list[Any]]:
    """The data file's ids (checked: none missing, each once) and its group key columns as
    Arrow arrays in role order (``pred_path``: the predicted groups are that file's rows
    joined on ``on``; group scores: their 0/1 decisions)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    # a CSV file's ids are text, as the validating reader reads them (007 is not 7)
    ids = _column(
        path, on, chunk_size=chunk_size, file_format=file_format, delimiter=delimiter, label=True
    )
    if ids.null_count:
        raise ValueError(ERR_JOIN_NULL_IDS.format(path=path, column=on, count=ids.null_count))
    if pc.count_distinct(ids).as_py() < len(ids):
        counts = pc.value_counts(ids)
        repeated = counts.field("values").filter(pc.greater(counts.field("counts"), 1))
        raise ValueError(
            ERR_JOIN_DUPLICATES.format(
                path=path, column=on, count=len(repeated), examples=_shown(repeated.to_pylist())
            )
        )
    arrays: list[Any] = []
    for rc in roles.present().values():  # in role order: groups, then groups_pred
        source, source_format = (
            (pred_path, pred_file_format)
            if pred_path is not None and rc.role == "groups_pred"
            else (path, file_format)
        )
        table = pa.Table.from_batches(
            list(
                _batches(
                    source,
                    rc.columns,
                    chunk_size=chunk_size,
                    file_format=source_format,
                    delimiter=delimiter,
                    label_columns=rc.columns if rc.is_label else (),
                )
            ),
            schema=pa.schema(
                [
                    pa.field(c, _column_type(source, c, source_format, delimiter, rc.is_label))
                    for c in rc.columns
                ]
            ),
        )
        columns = [_plain(table.column(c)) for c in rc.columns]
        if source != path:  # the predictions in the data file's row order
            positions = pa.array(
                join_positions(
                    path,
                    source,
                    on=on,
                    chunk_size=chunk_size,
                    file_format=file_format,
                    pred_file_format=source_format,
                    delimiter=delimiter,
                )
            )
            columns = [column.take(positions) for column in columns]
        del table
        if rc.thresholds is not None:  # group scores: the keys are their predictions
            decided, invalid = score_keys(columns, rc, n_rows=len(ids))
            for j, bad in enumerate(invalid):
                if bad is not None:
                    raise ValueError(
                        f"{source}: "
                        + ERR_BAD_VALUES.format(
                            where="",
                            role=rc.role,
                            count=int(bad.sum()),
                            column=rc.columns[j],
                            allowed=ALLOWED_SCORES,
                        )
                    )
            columns = [pa.array(decided[:, j].astype(np.int8)) for j in range(len(columns))]
        arrays += columns
    return ids, arrays


def _sorted_pairs(
    long_path: str,
    role: str,
    ids: Any,
    names: Sequence[Any],
    *,
    path: str,
    on: str,
    label: str,
    chunk_size: int,
    long_file_format: str | None,
    names_source: str | None,
    delimiter: str | None = None,
) -> np.ndarray:
    """The distinct (row, task) pairs of a long table as sorted ``row * tasks + task``
    (rows of the data file, by an Arrow hash lookup of the ids)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    value_set = pa.array(list(names))
    t = len(names)
    pairs = []
    # Arrow hashes the data file's ids once per lookup: look up as many ids at a time
    lookup_rows = max(chunk_size, len(ids))
    for batch in _batches(
        long_path,
        [on, label],
        chunk_size=lookup_rows,
        file_format=long_file_format,
        delimiter=delimiter,
        label_columns=[on, label],
    ):
        long_ids, labels = batch.column(0), batch.column(1)
        if long_ids.null_count:
            raise ValueError(
                ERR_JOIN_NULL_IDS.format(path=long_path, column=on, count=long_ids.null_count)
            )
        if labels.null_count:
            raise ValueError(
                ERR_LONG_NULL_LABELS.format(path=long_path, column=label, count=labels.null_count)
            )
        if long_ids.type != ids.type:
            long_ids = long_ids.cast(ids.type)
        rows = pc.index_in(long_ids, value_set=ids)
        if rows.null_count:
            absent = pc.unique(long_ids.filter(pc.is_null(rows)))
            raise ValueError(
                ERR_JOIN_MISSING.format(
                    column=on,
                    count=len(absent),
                    path_a=long_path,
                    path_b=path,
                    examples=_shown(absent.to_pylist()),
                )
            )
        columns = pc.index_in(labels, value_set=value_set)
        if columns.null_count:
            unknown = pc.unique(labels.filter(pc.is_null(columns))).to_pylist()
            raise _unknown(long_path, role, unknown, names, names_source)
        pairs.append(
            rows.to_numpy(zero_copy_only=False).astype(np.int64) * t
            + columns.to_numpy(zero_copy_only=False)
        )
    return _distinct(np.concatenate(pairs)) if pairs else np.zeros(0, np.int64)


def _numpy_sums(
    path: str,
    long_paths: Mapping[str, str],
    roles: ColumnRoles,
    names: Sequence[Any],
    *,
    on: str,
    label: str,
    chunk_size: int,
    file_format: str | None,
    long_file_format: str | None,
    names_source: str | None,
    pred_path: str | None = None,
    pred_file_format: str | None = None,
    labelled: bool = False,
    delimiter: str | None = None,
) -> pd.DataFrame:
    """The group-sums table by hashing the long tables' ids into the data file's rows
    (``pred_path``: the predicted groups are that file's rows joined on ``on``;
    ``labelled``: rows with neither a group nor a task are not counted)."""
    ids, arrays = _row_keys(
        path,
        roles,
        on=on,
        chunk_size=chunk_size,
        file_format=file_format,
        pred_path=pred_path,
        pred_file_format=pred_file_format,
        delimiter=delimiter,
    )
    aliases = [a for rc in roles.present().values() for a in _key_aliases(rc)]
    inverse, first = (
        _key_codes(arrays, len(ids)) if len(ids) else (np.zeros(0, np.intp), np.zeros(0, np.int64))
    )
    n_keys = len(first)
    frame: dict[str, Any] = {
        a: array.take(first).to_pandas() for a, array in zip(aliases, arrays, strict=True)
    }
    rows_per_key = np.bincount(inverse, minlength=n_keys)
    frame["n"] = rows_per_key.astype(np.float64)
    frame["n_rows"] = rows_per_key.astype(np.int64)
    t = len(names)
    with_task = np.zeros(len(ids) if labelled else 0, dtype=bool)
    for role, long_path in long_paths.items():
        distinct = _sorted_pairs(
            long_path,
            role,
            ids,
            names,
            path=path,
            on=on,
            label=label,
            chunk_size=chunk_size,
            long_file_format=long_file_format,
            names_source=names_source,
            delimiter=delimiter,
        )
        task = distinct % t
        distinct //= t  # the rows, in place (bounded memory: few arrays of one int per pair)
        if labelled and role == "tasks":
            with_task[distinct] = True
        keyed = inverse[distinct].astype(np.int64, copy=False)
        del distinct
        keyed *= t
        keyed += task
        sums = np.bincount(keyed, minlength=n_keys * t).reshape(n_keys, t).astype(np.float64)
        for j in range(t):
            frame[f"s_{role}_{j}"] = sums[:, j]
    if labelled and roles.groups is not None and not roles.groups.is_label:
        # rows of the keys with no group that have no task either: not counted
        width = len(roles.groups.columns)
        no_group = np.ones(n_keys, dtype=bool)
        for alias in aliases[:width]:  # the ground-truth group keys come first
            no_group &= np.asarray(frame[alias], dtype=np.float64) == 0
        dropped = np.bincount(inverse[~with_task], minlength=n_keys) * no_group
        frame["n"] = frame["n"] - dropped
        frame["n_rows"] = frame["n_rows"] - dropped
    return pd.DataFrame(frame)


def _duckdb_sums(
    path: str,
    long_paths: Mapping[str, str],
    roles: ColumnRoles,
    names: Sequence[Any],
    *,
    on: str,
    label: str,
    file_format: str | None,
    long_file_format: str | None,
    names_source: str | None,
    memory_limit: str | None,
) -> pd.DataFrame:
    """The group-sums table by DuckDB: the data file's keys, joined with each long table."""
    from biasamp.engines._duckdb import _read_schemas, _source, _unescape_labels, duckdb_connection

    columns = roles.columns()
    alias = {c: f"r{j}" for j, c in enumerate(columns)}
    positional = renamed_roles(roles, alias)
    data = _source(
        [path],
        file_format,
        _read_schemas([path], file_format),
        [on, *columns],
        with_file=False,
        outputs=["id", *alias.values()],
    )
    con = duckdb_connection(memory_limit=memory_limit)
    try:
        n, n_ids, n_distinct = con.execute(
            f"SELECT COUNT(*), COUNT(id), COUNT(DISTINCT id) FROM {data}"
        ).fetchone()
        if n_ids < n:
            raise ValueError(ERR_JOIN_NULL_IDS.format(path=path, column=on, count=n - n_ids))
        check_unique_ids_sql(con, data, n_ids=n, n_distinct=n_distinct, path=path, on=on)
        base = con.execute(group_sums_sql(data, positional, dialect="duckdb", validate=True)).df()
        keys = [a for rc in roles.present().values() for a in _key_aliases(rc)]
        id_type = con.sql(f"SELECT id FROM {data}").types[0]
        frames = []
        for role, long_path in long_paths.items():
            long = _source(
                [long_path],
                long_file_format,
                _read_schemas([long_path], long_file_format),
                [on, label],
                with_file=False,
                outputs=["id", "label"],
            )
            long = f"(SELECT DISTINCT TRY_CAST(id AS {id_type}) AS id, label FROM {long})"
            nulls = con.execute(
                f"SELECT COUNT(*) - COUNT(id), COUNT(*) - COUNT(label) FROM {long}"
            ).fetchone()
            if nulls[1]:
                raise ValueError(
                    ERR_LONG_NULL_LABELS.format(path=long_path, column=label, count=nulls[1])
                )
            check_ids_in_sql(con, long, data, path=long_path, other_path=path, on=on)
            keyed = (
                f"SELECT {', '.join(key_select(positional))}, l.label AS label FROM {data} AS d "
                f"JOIN {long} AS l ON d.id = l.id"
            )
            counted = con.execute(
                f"SELECT {', '.join(keys)}, label, COUNT(*) AS c FROM ({keyed}) GROUP BY ALL"
            ).df()
            frames.append((role, long_path, counted))
    finally:
        con.close()
    base = _unescape_labels(base, [path], roles, file_format, aliased=True)
    out = base
    position = {name: j for j, name in enumerate(names)}
    for role, long_path, counted in frames:
        counted = _unescape_labels(counted, [path], roles, file_format, aliased=True)
        if file_format_of(long_path, long_file_format) == "csv":
            from biasamp.output._csv import unescape_cells

            counted["label"] = unescape_cells(counted["label"].astype(object))
        column_of = counted["label"].map(position)
        if column_of.isna().any():
            unknown = list(pd.unique(counted.loc[column_of.isna(), "label"]))
            raise _unknown(long_path, role, unknown, names, names_source)
        counted = (
            counted.assign(j=column_of.astype(np.int64))
            .groupby([*keys, "j"], dropna=False)["c"]
            .sum()
            .unstack("j", fill_value=0)
        )
        counted = counted.reindex(columns=range(len(names)), fill_value=0)
        counted.columns = [f"s_{role}_{j}" for j in range(len(names))]
        out = out.merge(counted.reset_index(), on=keys, how="left")
    for role in long_paths:
        for j in range(len(names)):
            out[f"s_{role}_{j}"] = out[f"s_{role}_{j}"].fillna(0.0).astype(np.float64)
    return out


def _group_roles(
    path: str,
    file_format: str | None,
    specs: Mapping[str, Any],
    pred_path: str | None = None,
    pred_file_format: str | None = None,
    delimiter: str | None = None,
) -> ColumnRoles:
    """The group roles of the data file (predicted indicators in the truth's order; the
    predicted groups in ``pred_path`` when it is given)."""
    if "groups" not in specs and "groups_pred" not in specs:
        raise ValueError(ERR_NO_ROLES_GIVEN)
    resolved = {role: role_columns(role, spec) for role, spec in specs.items()}
    truth, pred = resolved.get("groups"), resolved.get("groups_pred")
    if truth is not None and pred is not None and not truth.is_label and not pred.is_label:
        resolved["groups_pred"] = aligned_prediction(truth, pred)
    in_pred = {r for r in resolved if pred_path is not None and r == "groups_pred"}
    _check_columns(
        path,
        [c for r, rc in resolved.items() if r not in in_pred for c in rc.columns],
        file_format,
        ", ".join(r for r in resolved if r not in in_pred),
        delimiter,
    )
    if pred_path is not None and in_pred:
        _check_columns(
            pred_path,
            list(resolved["groups_pred"].columns),
            pred_file_format,
            "groups_pred",
            delimiter,
        )
    return ColumnRoles(**cast("dict[str, Any]", resolved))


def key_select(positional: ColumnRoles) -> list[str]:
    """The group keys of the data file's rows (``d``), under their group-sums aliases."""
    out = []
    for rc in positional.present().values():
        keys = [f"d.{column}" for column in rc.columns]
        if rc.thresholds is not None:
            keys = score_keys_sql(rc, [f"CAST({key} AS DOUBLE)" for key in keys])
        out += [f"{key} AS {alias}" for key, alias in zip(keys, _key_aliases(rc), strict=True)]
    return out


def _long_inputs(
    path: str | os.PathLike[str],
    long_tables: Mapping[str, str | os.PathLike[str]],
    *,
    on: str,
    label: str,
    groups: Any,
    groups_pred: Any,
    task_names: Sequence[Any] | None,
    chunk_size: int,
    file_format: str | None,
    long_file_format: str | None,
    pred_path: str | os.PathLike[str] | None,
    pred_file_format: str | None,
    delimiter: str | None = None,
) -> tuple[str, dict[str, str], ColumnRoles, tuple[Any, ...], str | None]:
    """The checked inputs of the long-table counters: the data file, the long tables by
    role, the group roles, the task names and the predicted groups' file."""
    if (
        not isinstance(long_tables, Mapping)
        or "tasks" not in long_tables
        or set(long_tables) - {"tasks", "tasks_pred"}
    ):
        raise ValueError(ERR_LONG_ROLES.format(got=long_tables))
    data = os.fspath(path)
    long_paths = {role: os.fspath(p) for role, p in long_tables.items()}
    for p in (data, *long_paths.values()):
        if not os.path.exists(p):
            raise MissingFileError(ERR_NO_SUCH_FILE.format(path=p))
    group_specs = {
        r: s for r, s in (("groups", groups), ("groups_pred", groups_pred)) if s is not None
    }
    pred_file = os.fspath(pred_path) if pred_path is not None else None
    group_roles = _group_roles(
        data, file_format, group_specs, pred_file, pred_file_format, delimiter
    )
    _check_columns(data, [on], file_format, "on", delimiter)
    for long_path in long_paths.values():
        _check_columns(long_path, [on, label], long_file_format, "long table", delimiter)
    names = (
        tuple(task_names)
        if task_names is not None
        else _long_names(
            long_paths["tasks"],
            label,
            chunk_size=chunk_size,
            file_format=long_file_format,
            delimiter=delimiter,
        )
    )
    return data, long_paths, group_roles, names, pred_file


def counts_from_long_files(
    path: str | os.PathLike[str],
    long_tables: Mapping[str, str | os.PathLike[str]],
    *,
    on: str,
    groups: Any = None,
    groups_pred: Any = None,
    label: str = "label",
    group_names: Sequence[Any] | None = None,
    task_names: Sequence[Any] | None = None,
    names_source: str | None = None,
    engine: str = "numpy",
    chunk_size: int = 1_000_000,
    file_format: str | None = None,
    long_file_format: str | None = None,
    memory_limit: str | None = None,
    pred_path: str | os.PathLike[str] | None = None,
    pred_file_format: str | None = None,
    rows: str = "all",
    delimiter: str | None = None,
    replicates: Any = None,
) -> CountTable:
    """Count a data file whose tasks are long ``(id, label)`` tables, without a dense matrix.

    Parameters
    ----------
    path : path
        The data file (Parquet or CSV): one row per id, with the group columns.
    long_tables : dict
        ``{"tasks": path}`` and optionally ``"tasks_pred"``: long tables with the id
        column ``on`` and the label column ``label``, one row per (id, task) pair.
        An id of the data file absent from a long table has no task.
    on : str
        The id column of every file; each id once in the data file.
    groups, groups_pred : str, list of str, dict or IntersectedColumns, optional
        Group roles in the data file (see :class:`ColumnRoles`).
    label : str, default "label"
        The label column of the long tables.
    group_names, task_names, names_source
        Canonical label names (by default: the group columns' rule, and the sorted
        distinct labels of the ``"tasks"`` long table) and where they came from.
    engine : {"numpy", "duckdb"}, default "numpy"
        ``"numpy"`` hashes the long tables' ids into the data file's rows chunk by
        chunk; ``"duckdb"`` joins in SQL (``biasamp[duckdb]``, ``memory_limit``).
    chunk_size : int, default 1_000_000
        Rows per chunk of the numpy engine.
    file_format, long_file_format : {"parquet", "csv"}, optional
        Override the formats read from the file names.
    pred_path : path, optional
        The file of ``groups_pred`` (default: ``path``), joined on ``on``: every id
        in both files, once (``engine="numpy"``).
    pred_file_format : {"parquet", "csv"}, optional
        The format of ``pred_path``.
    rows : {"all", "labelled"}, default "all"
        ``"labelled"``: rows with neither a group (indicator groups all 0) nor a task
        are not counted, as the metrics' ``train_rows="labelled"`` drops them
        (``engine="numpy"``); ``n_rows`` counts the kept rows.
    delimiter : str, optional
        The delimiter of every CSV file, the long tables' included (default: a tab
        for ``.tsv`` files, else a comma); ``engine="duckdb"`` reads ``,`` only.
    replicates : PoissonReplicates, optional
        Bootstrap weights drawn by the row's position in the data file (as
        :func:`~biasamp.metrics._bootstrap.evaluation_replicates` draws them for the
        dense matrices): every count gains a leading replicate axis
        (``engine="numpy"``; counted one chunk x tasks at a time).

    Returns
    -------
    CountTable
        Identical to :meth:`CountTable.from_arrays` with the long tables turned into
        (rows, tasks) 0/1 matrices in the data file's row order.

    Examples
    --------
    >>> import os, tempfile
    >>> import pandas as pd
    >>> from biasamp import counts_from_long_files
    >>> folder = tempfile.mkdtemp()
    >>> data, long = os.path.join(folder, "data.csv"), os.path.join(folder, "long.csv")
    >>> pd.DataFrame({"id": [1, 2, 3], "g": ["m", "w", "w"]}).to_csv(data, index=False)
    >>> pd.DataFrame({"id": [1, 1, 3, 3], "label": ["ski", "cook", "ski", "ski"]}).to_csv(
    ...     long, index=False)
    >>> table = counts_from_long_files(data, {"tasks": long}, on="id", groups="g")
    >>> table.task_names, table.joint[("groups", "tasks")].tolist()
    (('cook', 'ski'), [[1.0, 1.0], [0.0, 1.0]])
    """
    if engine not in ("numpy", "duckdb"):
        raise ValueError(ERR_LONG_ENGINE.format(got=engine))
    if rows not in ("all", "labelled") or (
        engine != "numpy" and (rows != "all" or pred_path is not None)
    ):
        raise ValueError(ERR_LONG_ROWS.format(rows=rows, pred_path=pred_path, engine=engine))
    if engine == "duckdb" and delimiter not in (None, ","):
        raise ValueError(ERR_DELIMITER_ENGINE.format(got=delimiter))
    if replicates is not None:
        if engine == "duckdb":
            raise ValueError(ERR_REPLICATES_ENGINE)
        if rows != "all":
            raise ValueError(ERR_ROWS_REPLICATES)
        table: CountTable = _long_chunks(CountTable, **_chunk_options(locals()))
        return table
    path, long_paths, group_roles, names, pred_file = _long_inputs(
        path,
        long_tables,
        on=on,
        label=label,
        groups=groups,
        groups_pred=groups_pred,
        task_names=task_names,
        chunk_size=chunk_size,
        file_format=file_format,
        long_file_format=long_file_format,
        pred_path=pred_path,
        pred_file_format=pred_file_format,
        delimiter=delimiter,
    )
    source = names_source if task_names is not None else None
    if engine == "duckdb":
        frame = _duckdb_sums(
            path,
            long_paths,
            group_roles,
            names,
            on=on,
            label=label,
            file_format=file_format,
            long_file_format=long_file_format,
            names_source=source,
            memory_limit=memory_limit,
        )
    else:
        frame = _numpy_sums(
            path,
            long_paths,
            group_roles,
            names,
            on=on,
            label=label,
            chunk_size=chunk_size,
            file_format=file_format,
            long_file_format=long_file_format,
            names_source=source,
            pred_path=pred_file,
            pred_file_format=pred_file_format,
            labelled=rows == "labelled",
            delimiter=delimiter,
        )
    roles = ColumnRoles(
        **cast("dict[str, Any]", {**group_roles.present(), **_task_roles(long_paths, names)})
    )
    return counts_from_group_sums(
        frame.assign(file=path),
        roles,
        group_names=group_names,
        task_names=names,
        names_source=names_source if group_names is not None else None,
    )


def pattern_counts_from_long_files(
    path: str | os.PathLike[str],
    long_tables: Mapping[str, str | os.PathLike[str]],
    *,
    on: str,
    groups: Any = None,
    groups_pred: Any = None,
    label: str = "label",
    group_names: Sequence[Any] | None = None,
    task_names: Sequence[Any] | None = None,
    names_source: str | None = None,
    chunk_size: int = 100_000,
    file_format: str | None = None,
    long_file_format: str | None = None,
    pred_path: str | os.PathLike[str] | None = None,
    pred_file_format: str | None = None,
    rows: str = "all",
    delimiter: str | None = None,
    replicates: Any = None,
) -> Any:
    """The :class:`PatternCountTable` (task sets of the multi-attribute metrics) of a data
    file whose tasks are long ``(id, label)`` tables.

    The arguments are those of :func:`counts_from_long_files` (numpy engine,
    ``replicates`` included). The
    distinct (row, task) pairs of each long table are sorted by row; each chunk of
    ``chunk_size`` rows becomes a (rows, tasks) 0/1 matrix only for that chunk, so
    memory is the data file's group keys, the pairs and one chunk x tasks, never
    rows x tasks.

    Examples
    --------
    >>> import os, tempfile
    >>> import pandas as pd
    >>> folder = tempfile.mkdtemp()
    >>> data, long = os.path.join(folder, "data.csv"), os.path.join(folder, "long.csv")
    >>> pd.DataFrame({"id": [1, 2, 3], "g": ["m", "w", "w"]}).to_csv(data, index=False)
    >>> pd.DataFrame({"id": [1, 1, 3], "label": ["ski", "cook", "ski"]}).to_csv(long, index=False)
    >>> table = pattern_counts_from_long_files(data, {"tasks": long}, on="id", groups="g")
    >>> sorted(table.pattern_sets("tasks"))
    [(), ('cook', 'ski'), ('ski',)]
    """
    from biasamp.counts._pattern_counts import PatternCountTable

    if rows not in ("all", "labelled"):
        raise ValueError(ERR_LONG_ROWS.format(rows=rows, pred_path=pred_path, engine="numpy"))
    if replicates is not None and rows != "all":
        raise ValueError(ERR_ROWS_REPLICATES)
    return _long_chunks(PatternCountTable, **_chunk_options(locals()))


#: The options of the long-table counters that :func:`_long_chunks` takes.
_CHUNK_OPTIONS = (
    "path",
    "long_tables",
    "on",
    "groups",
    "groups_pred",
    "label",
    "group_names",
    "task_names",
    "names_source",
    "chunk_size",
    "file_format",
    "long_file_format",
    "pred_path",
    "pred_file_format",
    "rows",
    "delimiter",
    "replicates",
)


def _chunk_options(arguments: Mapping[str, Any]) -> dict[str, Any]:
    """The arguments of a public long-table counter that :func:`_long_chunks` takes."""
    return {name: arguments[name] for name in _CHUNK_OPTIONS}


def _long_chunks(
    table_type: Any,
    *,
    path: str | os.PathLike[str],
    long_tables: Mapping[str, str | os.PathLike[str]],
    on: str,
    groups: Any,
    groups_pred: Any,
    label: str,
    group_names: Sequence[Any] | None,
    task_names: Sequence[Any] | None,
    names_source: str | None,
    chunk_size: int,
    file_format: str | None,
    long_file_format: str | None,
    pred_path: str | os.PathLike[str] | None,
    pred_file_format: str | None,
    rows: str,
    delimiter: str | None,
    replicates: Any,
) -> Any:
    """A :class:`CountTable` or :class:`PatternCountTable` (``table_type``) of a data file
    whose tasks are long tables, counted one chunk of ``chunk_size`` data-file rows at a
    time: the sorted (row, task) pairs of the chunk become its (rows, tasks) 0/1 matrix.
    ``replicates`` (a :class:`~biasamp.counts.PoissonReplicates`): the rows' bootstrap
    weights by their position in the data file."""
    import pyarrow as pa

    path, long_paths, roles, names, pred_file = _long_inputs(
        path,
        long_tables,
        on=on,
        label=label,
        groups=groups,
        groups_pred=groups_pred,
        task_names=task_names,
        chunk_size=chunk_size,
        file_format=file_format,
        long_file_format=long_file_format,
        pred_path=pred_path,
        pred_file_format=pred_file_format,
        delimiter=delimiter,
    )
    task_names_given = task_names is not None
    ids, arrays = _row_keys(
        path,
        roles,
        on=on,
        chunk_size=chunk_size,
        file_format=file_format,
        pred_path=pred_file,
        pred_file_format=pred_file_format,
        delimiter=delimiter,
    )
    pairs = {
        role: _sorted_pairs(
            long_path,
            role,
            ids,
            names,
            path=path,
            on=on,
            label=label,
            chunk_size=chunk_size,
            long_file_format=long_file_format,
            names_source=names_source if task_names_given else None,
            delimiter=delimiter,
        )
        for role, long_path in long_paths.items()
    }
    n, t = len(ids), len(names)
    task_index = pd.Index(list(names), dtype=object)

    def chunks() -> Iterator[tuple[dict[str, Any], np.ndarray | None, int, int]]:
        for start in range(0, n, chunk_size):
            stop = min(start + chunk_size, n)
            chunk: dict[str, Any] = {}
            position = 0
            for rc in roles.present().values():
                width = len(rc.columns)
                parts = [a.slice(start, stop - start) for a in arrays[position : position + width]]
                position += width
                if rc.intersected_columns:
                    batch = pa.record_batch(parts, names=list(rc.columns))
                    chunk[rc.role] = np.asarray(derived_role_values(batch, rc), dtype=object)
                elif rc.is_label:
                    chunk[rc.role] = parts[0].to_numpy(zero_copy_only=False)
                else:
                    chunk[rc.role] = pd.DataFrame(
                        np.column_stack([p.to_numpy(zero_copy_only=False) for p in parts]),
                        columns=pd.Index(list(rc.indicator_names), dtype=object),
                    )
            for role, sorted_pairs in pairs.items():  # this chunk's rows only
                lo, hi = np.searchsorted(sorted_pairs, [start * t, stop * t])
                dense = np.zeros((stop - start) * t, dtype=np.uint8)
                dense[sorted_pairs[lo:hi] - start * t] = 1
                chunk[role] = pd.DataFrame(dense.reshape(stop - start, t), columns=task_index)
            keep = None
            if rows == "labelled" and roles.groups is not None and not roles.groups.is_label:
                keep = chunk["groups"].to_numpy().any(axis=1) | chunk["tasks"].to_numpy().any(
                    axis=1
                )
                chunk = {
                    role: (
                        v[keep].reset_index(drop=True) if isinstance(v, pd.DataFrame) else v[keep]
                    )
                    for role, v in chunk.items()
                }
            yield chunk, keep, start, stop

    g_names = group_names
    if g_names is None and roles.fixed_names("group") is None:  # labels: over every chunk
        seen: set[Any] = set()
        for chunk, _, _, _ in chunks():
            for role in ("groups", "groups_pred"):
                if role in chunk:
                    seen.update(pd.unique(chunk[role]))
        g_names = tuple(sorted(seen))
    source = names_source if (group_names is not None or task_names_given) else None
    table: Any = None
    for chunk, keep, start, stop in chunks():
        extra: dict[str, Any] = {}
        if replicates is not None:
            weights = replicates.weights(start, stop)
            extra["replicate_weights"] = weights if keep is None else weights[:, keep]
        part = table_type.from_arrays(
            **chunk, group_names=g_names, task_names=names, names_source=source, **extra
        )
        table = part if table is None else table.merge(part)
    if table is None:
        raise ValueError(f"{path}: the data file has no rows.")
    return table
