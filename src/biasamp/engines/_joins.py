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
from typing import Any

import pandas as pd

from biasamp.counts._count_table import CountTable
from biasamp.engines._duckdb import _quote, _read_schemas, _source, duckdb_connection
from biasamp.engines._group_sums import _check_validation, counts_from_group_sums, group_sums_sql
from biasamp.inputs._column_roles import ColumnRoles, RoleColumns, role_columns

__all__ = [
    "ERR_JOIN_DUPLICATES",
    "ERR_JOIN_MISSING",
    "ERR_JOIN_NULL_IDS",
    "joined_counts_duckdb",
]

ERR_JOIN_DUPLICATES = "{path}: column {column!r} has {count} repeated id(s), e.g. {examples}."
ERR_JOIN_MISSING = (
    "column {column!r}: {count} id(s) of {path_a} are not in {path_b}, e.g. {examples}."
)
ERR_JOIN_NULL_IDS = "{path}: column {column!r} has {count} missing id(s); every row needs an id."

_EXAMPLES = 5


def _shown(values: Sequence[Any]) -> str:
    return ", ".join(repr(v) for v in values[:_EXAMPLES])


def _check_join(con: Any, truth: str, pred: str, *, path: str, pred_path: str, on: str) -> None:
    """Refuse missing, repeated and unmatched ids (the numpy join's errors and order)."""
    counts = con.execute(
        f"SELECT (SELECT COUNT(*) FROM {truth}), (SELECT COUNT(id) FROM {truth}), "
        f"(SELECT COUNT(DISTINCT id) FROM {truth}), (SELECT COUNT(*) FROM {pred}), "
        f"(SELECT COUNT(id) FROM {pred}), (SELECT COUNT(DISTINCT id) FROM {pred}), "
        f"(SELECT COUNT(*) FROM {truth} AS a JOIN {pred} AS b ON a.id = b.id)"
    ).fetchone()
    rows, ids, distinct, pred_rows, pred_ids, pred_distinct, joined = counts
    if rows == ids == distinct == pred_rows == pred_ids == pred_distinct == joined:
        return  # each id once on both sides, and the same ids
    sides = ((path, truth, rows, ids, distinct), (pred_path, pred, pred_rows, pred_ids, pred_distinct))
    for where, table, n, n_ids, _ in sides:
        if n_ids < n:
            raise ValueError(ERR_JOIN_NULL_IDS.format(path=where, column=on, count=n - n_ids))
    for where, table, _, n_ids, n_distinct in sides:
        if n_distinct < n_ids:
            repeated = con.execute(
                f"SELECT id FROM {table} GROUP BY id HAVING COUNT(*) > 1 ORDER BY id"
            ).fetchall()
            raise ValueError(
                ERR_JOIN_DUPLICATES.format(
                    path=where,
                    column=on,
                    count=len(repeated),
                    examples=_shown([r[0] for r in repeated]),
                )
            )
    for a, b, first, second in ((path, pred_path, truth, pred), (pred_path, path, pred, truth)):
        absent = con.execute(
            f"SELECT x.id FROM {first} AS x ANTI JOIN {second} AS y ON x.id = y.id ORDER BY x.id"
        ).fetchall()
        if absent:
            raise ValueError(
                ERR_JOIN_MISSING.format(
                    column=on,
                    count=len(absent),
                    path_a=a,
                    path_b=b,
                    examples=_shown([r[0] for r in absent]),
                )
            )
    raise AssertionError("unreachable: the ids are unique and in both files")  # pragma: no cover


def _pred_roles(pred_specs: Mapping[str, Any], roles: ColumnRoles) -> dict[str, RoleColumns]:
    """The prediction roles, indicator columns put in the ground truth's label order."""
    out = {}
    for role, spec in pred_specs.items():
        rc = role_columns(role, spec)
        truth = getattr(roles, role.removesuffix("_pred"))
        if not rc.is_label and truth is not None and not truth.is_label:
            resolved = ColumnRoles.resolve(
                None, **{role.removesuffix("_pred"): dict(zip(truth.indicator_columns, truth.indicator_names, strict=True)), role: spec}
            ) if False else None  # noqa: SIM108 - placeholder removed below
            del resolved
            position = {name: j for j, name in enumerate(rc.indicator_names)}
            order = [position[name] for name in truth.indicator_names if name in position]
            if len(order) == len(rc.indicator_names) == len(truth.indicator_names):
                rc = RoleColumns(
                    role,
                    indicator_columns=tuple(rc.indicator_columns[j] for j in order),
                    indicator_names=truth.indicator_names,
                    thresholds=None
                    if rc.thresholds is None
                    else tuple(rc.thresholds[j] for j in order),
                )
        out[role] = rc
    return out
