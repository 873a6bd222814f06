"""Two files joined on an id column, counted by DuckDB: the ground truth and its predictions.

:func:`biasamp.engines._files.counts_from_joined_files` joins a ground-truth
file and a predictions file on an id column. With ``engine="numpy"`` it holds
the prediction columns in memory, compact, in the ground truth's row order;
with ``engine="duckdb"`` (:func:`joined_counts_duckdb`) DuckDB joins the files
by a hash join that spills to disk, and counts the joined rows by the
group-sums ``GROUP BY`` of :mod:`biasamp.engines._duckdb`, so nothing grows
with the rows in Python.

Both engines refuse the same inputs with the same messages: an id repeated in
either file, an id of one file missing in the other, a missing id. The checks
are one query (row counts, distinct ids and the join's row count on both
sides); only when it finds a problem do a few more queries fetch examples
(the smallest ids, in sorted order).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, cast

import pandas as pd

from biasamp.engines._derived_roles import frame_intersections
from biasamp.engines._duckdb import (
    _read_schemas,
    _source,
    _unescape_labels,
    check_values_by_row,
    distinct_rows_sql,
    duckdb_connection,
)
from biasamp.engines._group_sums import (
    counts_from_group_sums,
    group_sums_sql,
    renamed_roles,
)
from biasamp.inputs._column_roles import (
    ColumnRoles,
    IntersectedColumns,
    RoleColumns,
    ScoreColumns,
    aligned_prediction,
    role_columns,
)

__all__ = [
    "ERR_JOIN_DUPLICATES",
    "ERR_JOIN_MISSING",
    "ERR_JOIN_NULL_IDS",
    "joined_counts_duckdb",
    "pred_roles",
    "spec_columns",
]

ERR_JOIN_DUPLICATES = "{path}: column {column!r} has {count} repeated id(s), e.g. {examples}."
ERR_JOIN_MISSING = (
    "column {column!r}: {count} id(s) of {path_a} are not in {path_b}, e.g. {examples}."
)
ERR_JOIN_NULL_IDS = "{path}: column {column!r} has {count} missing id(s); every row needs an id."
_EXAMPLES = 5


def _shown(values: Sequence[Any]) -> str:
    return ", ".join(repr(v) for v in values[:_EXAMPLES])


def check_unique_ids_sql(
    con: Any, table: str, *, n_ids: int, n_distinct: int, path: str, on: str
) -> None:
    """Refuse repeated ids of ``table`` (a subquery with an ``id`` column; ``n_ids`` ids,
    ``n_distinct`` distinct), naming the smallest."""
    if n_distinct < n_ids:
        repeated = con.execute(
            f"SELECT id FROM {table} GROUP BY id HAVING COUNT(*) > 1 ORDER BY id"
        ).fetchall()
        raise ValueError(
            ERR_JOIN_DUPLICATES.format(
                path=path, column=on, count=len(repeated), examples=_shown([r[0] for r in repeated])
            )
        )


def check_ids_in_sql(
    con: Any, first: str, second: str, *, path: str, other_path: str, on: str
) -> None:
    """Refuse ids of ``first`` that ``second`` lacks (subqueries with an ``id`` column)."""
    absent = con.execute(
        f"SELECT DISTINCT x.id FROM {first} AS x ANTI JOIN {second} AS y ON x.id = y.id "
        "ORDER BY x.id"
    ).fetchall()
    if absent:
        raise ValueError(
            ERR_JOIN_MISSING.format(
                column=on,
                count=len(absent),
                path_a=path,
                path_b=other_path,
                examples=_shown([r[0] for r in absent]),
            )
        )


def _check_ids(con: Any, truth: str, pred: str, *, path: str, pred_path: str, on: str) -> int:
    """Refuse missing and repeated ids (the numpy join's errors and order); return the
    number of rows, which the join must keep when every id is on both sides."""
    counts = con.execute(
        f"SELECT (SELECT COUNT(*) FROM {truth}), (SELECT COUNT(id) FROM {truth}), "
        f"(SELECT COUNT(DISTINCT id) FROM {truth}), (SELECT COUNT(*) FROM {pred}), "
        f"(SELECT COUNT(id) FROM {pred}), (SELECT COUNT(DISTINCT id) FROM {pred})"
    ).fetchone()
    rows, ids, distinct, pred_rows, pred_ids, pred_distinct = counts
    sides = (
        (path, truth, rows, ids, distinct),
        (pred_path, pred, pred_rows, pred_ids, pred_distinct),
    )
    for where, _, n, n_ids, _ in sides:
        if n_ids < n:
            raise ValueError(ERR_JOIN_NULL_IDS.format(path=where, column=on, count=n - n_ids))
    for where, table, _, n_ids, n_distinct in sides:
        check_unique_ids_sql(con, table, n_ids=n_ids, n_distinct=n_distinct, path=where, on=on)
    if rows != pred_rows:
        _check_matched(con, truth, pred, path=path, pred_path=pred_path, on=on)
    return int(rows)


def _check_matched(con: Any, truth: str, pred: str, *, path: str, pred_path: str, on: str) -> None:
    """Refuse ids of either side missing from the other (unique ids on both sides)."""
    for a, b, first, second in ((path, pred_path, truth, pred), (pred_path, path, pred, truth)):
        check_ids_in_sql(con, first, second, path=a, other_path=b, on=on)
    raise AssertionError("unreachable: the ids are unique and in both files")  # pragma: no cover


def spec_columns(spec: Any) -> list[str]:
    """The columns a prediction role spec of a joined file reads."""
    if isinstance(spec, ScoreColumns):
        return list(spec.columns or ())
    if isinstance(spec, IntersectedColumns):
        return list(spec.columns)
    return [spec] if isinstance(spec, str) else list(spec)


def pred_roles(pred_specs: Mapping[str, Any], roles: ColumnRoles) -> dict[str, RoleColumns]:
    """The prediction roles, indicator columns put in the ground truth's label order."""
    out = {}
    for role, spec in pred_specs.items():
        rc = role_columns(role, spec)
        truth = getattr(roles, role.removesuffix("_pred"))
        if not rc.is_label and truth is not None and not truth.is_label:
            rc = aligned_prediction(truth, rc)
        out[role] = rc
    return out


def _roles_of(parts: Mapping[str, RoleColumns]) -> ColumnRoles:
    """The column roles of ``parts`` (role -> its columns; no weight)."""
    return ColumnRoles(**cast("dict[str, Any]", dict(parts)))


def _arrays_of(
    frame: pd.DataFrame, positional: ColumnRoles, display: ColumnRoles, *, where: str = ""
) -> dict[str, Any]:
    """Role arrays of a distinct-rows frame whose columns are the positional aliases."""
    arrays: dict[str, Any] = {}
    for role, rc in positional.present().items():
        if rc.intersected_columns:
            shown = getattr(display, role)
            arrays[role] = frame_intersections(frame, shown, rc.columns, where=where)
        elif rc.is_label:
            arrays[role] = frame[rc.columns[0]].to_numpy(dtype=object)
        else:
            arrays[role] = pd.DataFrame(
                frame[list(rc.indicator_columns)].to_numpy(),
                columns=pd.Index(list(getattr(display, role).indicator_names), dtype=object),
            )
    return arrays


def joined_counts_duckdb(
    path: str,
    pred_path: str,
    *,
    on: str,
    roles: ColumnRoles,
    pred_specs: Mapping[str, Any],
    group_names: Sequence[Any],
    task_names: Sequence[Any],
    file_format: str | None = None,
    pred_file_format: str | None = None,
    names_source: str | None = None,
    patterns: bool = False,
    memory_limit: str | None = None,
) -> Any:
    """The count table of ``path`` joined with ``pred_path`` on ``on``, by DuckDB.

    The engine of ``counts_from_joined_files(..., engine="duckdb")``, which
    checks the files and resolves ``roles`` (the ground truth's, in ``path``) and
    the label names first. ``pred_specs`` maps ``groups_pred`` / ``tasks_pred``
    to their spec in ``pred_path``: a label column, a dict of indicator column
    -> label name, or :class:`~biasamp.ScoreColumns`.

    Returns
    -------
    CountTable or PatternCountTable
        Identical to the numpy engine's (``patterns=True``: the pattern counts).
    """
    pred = pred_roles(pred_specs, roles)
    truth_columns = roles.columns()
    pred_columns = [c for rc in pred.values() for c in rc.columns]
    truth_alias = {c: f"r{j}" for j, c in enumerate(truth_columns)}
    pred_alias = {c: f"r{len(truth_columns) + j}" for j, c in enumerate(pred_columns)}
    pred_set = _roles_of(pred)
    positional = _roles_of(
        {
            **renamed_roles(roles, truth_alias).present(),
            **renamed_roles(pred_set, pred_alias).present(),
        }
    )
    display = _roles_of({**roles.present(), **pred})
    truth = _source(
        [path],
        file_format,
        _read_schemas([path], file_format),
        [on, *truth_columns],
        with_file=False,
        outputs=["id", *truth_alias.values()],
    )
    predictions = _source(
        [pred_path],
        pred_file_format,
        _read_schemas([pred_path], pred_file_format),
        [on, *pred_columns],
        with_file=False,
        outputs=["id", *pred_alias.values()],
    )
    con = duckdb_connection(memory_limit=memory_limit)
    try:
        id_type = con.sql(f"SELECT id FROM {truth}").types[0]
        cast = ", ".join(["TRY_CAST(id AS " + str(id_type) + ") AS id", *pred_alias.values()])
        pred_ids = f"(SELECT {cast} FROM {predictions})"
        rows = _check_ids(con, truth, pred_ids, path=path, pred_path=pred_path, on=on)
        selected = [*(f"t.{a}" for a in truth_alias.values())]
        selected += [f"p.{a}" for a in pred_alias.values()]
        joined = (
            f"(SELECT {', '.join(selected)} FROM {truth} AS t JOIN {pred_ids} AS p ON t.id = p.id)"
        )
        if patterns:
            frame = distinct_rows_sql(con, joined, positional, display, paths=[path, pred_path])
        else:
            frame = con.execute(
                group_sums_sql(joined, positional, dialect="duckdb", validate=True)
            ).df()
        # unique ids on both sides, as many rows: the join keeps them all unless an id of one
        # side is missing from the other
        if int(frame["__rows" if patterns else "n_rows"].sum()) != rows:
            _check_matched(con, truth, pred_ids, path=path, pred_path=pred_path, on=on)
    finally:
        con.close()
    if patterns:
        from biasamp.counts._pattern_counts import PatternCountTable

        positional_truth = renamed_roles(roles, truth_alias)
        positional_pred = renamed_roles(pred_set, pred_alias)
        frame = _unescape_labels(frame, [path], positional_truth, file_format, aliased=False)
        frame = _unescape_labels(
            frame, [pred_path], positional_pred, pred_file_format, aliased=False
        )
        table = PatternCountTable.from_arrays(
            **_arrays_of(frame, positional, display, where=f"{path}, {pred_path}"),
            sample_weight=frame["__weight"].to_numpy(),
            group_names=group_names,
            task_names=task_names,
            names_source=names_source,
        )
        table.n_rows = int(frame["__rows"].sum())
        return table
    frame = _unescape_labels(frame, [path], roles, file_format, aliased=True)
    frame = _unescape_labels(frame, [pred_path], pred_set, pred_file_format, aliased=True)
    for side, side_roles, side_format in (
        (pred_path, pred_set, pred_file_format),
        (path, roles, file_format),
    ):  # bad values named with their file and first data row
        check_values_by_row(
            frame.assign(file=side), [side], side_roles, soft=False, file_format=side_format
        )
    return counts_from_group_sums(
        frame.assign(file=path),
        display,
        group_names=group_names,
        task_names=task_names,
        names_source=names_source,
    )
