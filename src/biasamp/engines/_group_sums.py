"""Count tables from a SQL aggregation: the *group-sums* table.

Every count of a :class:`CountTable` follows from one ``GROUP BY`` over the
rows of a split. The keys are the group columns (a group label column, or the
0/1 group indicator columns) of both group roles and any task *label* column;
the aggregates are the (weighted) row count and one ``SUM`` per task indicator
column. Since a row's group vector is fixed within a key, the joint counts are
exact sums over the (few) result rows::

    joint[g, t] = sum over result rows r of  G_r[g] * S_r[t]

where ``G_r`` is the key's group vector (one-hot for a label, the 0/1 pattern
for indicators) and ``S_r`` the row's task sums. The result has one row per
distinct key (for example 4 rows for a binary group crossed with a binary
predicted group), whatever the number of input rows, so the SQL runs in one
pass on any engine (DuckDB, Spark, BigQuery, Postgres) and biasamp loads the
tiny result with :func:`counts_from_group_sums`.

Columns of the group-sums table (positional aliases, so label names never have
to be SQL identifiers):

* ``k_<role>`` for a label column of a role, ``k_<role>_<j>`` for its j-th
  indicator column (group roles only; task indicator columns are summed) or
  for the j-th column of an intersection (:class:`~biasamp.IntersectedColumns`,
  joined into labels by :func:`counts_from_group_sums`);
* ``n`` (total weight) and ``n_rows`` (row count);
* ``s_<role>_<j>``: the weighted sum of the j-th indicator column of a task role;
* with ``validate=True``: ``bad_<role>_<j>`` (rows whose value is not 0/1, or
  outside [0, 1] for soft predictions and scores, or missing) and ``bad_weight``;
* optionally ``file`` (the source file; then errors name it).

Score columns (:class:`~biasamp.ScoreColumns`) are binarised in the statement:
a group score column's key is its prediction (``score > threshold``, or the
exclusive decision), 0 or 1; a task score column's sum counts the rows with
``score > threshold``.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import replace
from typing import Any

import numpy as np
import pandas as pd

from biasamp.counts._count_table import JOINT_KEYS, CountTable
from biasamp.engines._derived_roles import joined_intersections
from biasamp.inputs._column_roles import ColumnRoles, RoleColumns
from biasamp.inputs._label_matrix import ERR_MISSING_LABEL_COUNT, ERR_UNKNOWN_LABELS
from biasamp.inputs._roles import GROUP_ROLES, TASK_ROLES

__all__ = ["group_sums_sql", "counts_from_group_sums", "group_sums_columns"]

ERR_DIALECT = "dialect: expected 'spark', 'duckdb' or 'ansi', got {got!r}."
ERR_ROLES_TYPE = (
    "roles: expected a ColumnRoles (for example ColumnRoles(groups='gender', "
    "tasks=['ski', 'cook'])), got {type_name}."
)
ERR_SOURCE_TYPE = "source: expected what goes after FROM as a str, got {type_name}."
ERR_FRAME_TYPE = "frame: expected the group-sums table as a pandas DataFrame, got {type_name}."
ERR_GROUP_SUMS_COLUMNS = "group-sums table: missing column(s) {missing}; was it made by group_sums_sql with the same roles?"
ERR_GROUP_KEY_VALUES = "{where}{role}: indicator columns must hold 0 or 1; found {examples}."
ERR_BAD_VALUES = (
    "{where}{role}: {count} value(s) in column {column!r} are not {allowed} (or are missing)."
)
#: What :data:`ERR_BAD_VALUES` says score columns must hold.
ALLOWED_SCORES = "finite scores"
ERR_BAD_WEIGHTS = "{where}sample_weight: {count} weight(s) are negative, missing or not finite."
ERR_LABEL_NAMES_NEEDED = (
    "group-sums table: pass {kind}_names for the label column of {role} when the table is empty."
)

_QUOTES = {"spark": ("`", "`"), "duckdb": ('"', '"'), "ansi": ('"', '"')}


def _quote(name: str, dialect: str) -> str:
    left, right = _QUOTES[dialect]
    return f"{left}{name.replace(right, right * 2)}{right}"


def _key_aliases(rc: RoleColumns) -> list[str]:
    if rc.label_column is not None:
        return [f"k_{rc.role}"]
    return [f"k_{rc.role}_{j}" for j in range(len(rc.columns))]


def _threshold_sql(value: str, threshold: float) -> str:
    """``1`` when the score is above the threshold, else ``0`` (the threshold as an exact
    double: its shortest repr read back)."""
    return f"CASE WHEN {value} > CAST('{threshold!r}' AS DOUBLE) THEN 1 ELSE 0 END"


def score_keys_sql(rc: RoleColumns, values: Sequence[str]) -> list[str]:
    """The SQL 0/1 prediction of each score column of ``rc`` (``values``: the columns as
    DOUBLE expressions): ``score > threshold``, or one exclusive decision per row (two
    columns: the positive column's score above its threshold; more: the first largest
    ``score - threshold``), as :func:`~biasamp.engines._derived_roles.score_decisions`."""
    assert rc.thresholds is not None  # a score role
    if not rc.exclusive:
        return [_threshold_sql(v, t) for v, t in zip(values, rc.thresholds, strict=True)]
    if len(values) == 2:
        p = rc.indicator_names.index(rc.positive)
        above = _threshold_sql(values[p], rc.thresholds[p])
        return [above if j == p else f"1 - {above}" for j in range(2)]
    margins = [
        f"({v} - CAST('{t!r}' AS DOUBLE))" for v, t in zip(values, rc.thresholds, strict=True)
    ]
    keys = []
    for j, mine in enumerate(margins):  # the first largest margin, as numpy's argmax
        beats = [f"{mine} > {m}" for m in margins[:j]]
        beats += [f"{mine} >= {m}" for m in margins[j + 1 :]]
        keys.append(f"CASE WHEN {' AND '.join(beats)} THEN 1 ELSE 0 END")
    return keys


def _checked(rc: RoleColumns) -> bool:
    """Whether the role's columns get ``bad_`` counts: summed indicators, and scores."""
    return not _is_key(rc) or rc.is_scores


def _is_key(rc: RoleColumns) -> bool:
    return rc.role in GROUP_ROLES or rc.is_label


def renamed_roles(roles: ColumnRoles, alias: dict[str, str]) -> ColumnRoles:
    """``roles`` with every column renamed by ``alias`` (label names unchanged).

    Engines that resolve names their own way (DuckDB and Spark ignore case, parse
    dots) read the role columns under positional aliases; errors still name the
    columns of ``roles``.
    """
    renamed = {
        role: replace(
            rc,
            label_column=None if rc.label_column is None else alias[rc.label_column],
            indicator_columns=tuple(alias[c] for c in rc.indicator_columns),
            intersected_columns=tuple(alias[c] for c in rc.intersected_columns),
        )
        for role, rc in roles.present().items()
    }
    weight = None if roles.sample_weight is None else alias[roles.sample_weight]
    return ColumnRoles(**renamed, sample_weight=weight)


def group_sums_columns(roles: ColumnRoles) -> dict[str, list[str]]:
    """Aliases of the group-sums table: ``keys``, ``sums`` and ``checks`` column names."""
    keys, sums, checks = [], [], []
    for rc in roles.present().values():
        if _is_key(rc):
            keys += _key_aliases(rc)
        else:
            sums += [f"s_{rc.role}_{j}" for j in range(len(rc.indicator_columns))]
        if _checked(rc):
            checks += [f"bad_{rc.role}_{j}" for j in range(len(rc.indicator_columns))]
    return {"keys": keys, "sums": sums, "checks": checks}


def group_sums_sql(
    source: str,
    roles: ColumnRoles,
    *,
    dialect: str = "spark",
    validate: bool = False,
    soft: bool = False,
    file_column: str | None = None,
    boolean_columns: Collection[str] = (),
) -> str:
    """The SQL that aggregates a table of labels into a group-sums table.

    Parameters
    ----------
    source : str
        What goes after ``FROM``: a table name, a view, or (DuckDB)
        ``read_parquet('data/*.parquet')``.
    roles : ColumnRoles
        Which columns hold which role (explicit columns; resolve prefixes first).
    dialect : {"spark", "duckdb", "ansi"}, default "spark"
        Identifier quoting: backticks for Spark SQL, double quotes otherwise.
    validate : bool, default False
        Also count invalid values per indicator column and invalid weights, so
        that :func:`counts_from_group_sums` can refuse them.
    soft : bool, default False
        Predicted task indicators may be probabilities in [0, 1].
    file_column : str, optional
        A column naming each row's source file, added to the keys (errors then
        name the file).
    boolean_columns : collection of str, optional
        Indicator columns of SQL type BOOLEAN: counted with ``COUNT_IF``
        (Spark 3+, DuckDB), faster than a cast and a sum.

    Returns
    -------
    str
        One ``SELECT ... GROUP BY`` statement, portable across SQL engines.

    Examples
    --------
    >>> from biasamp import ColumnRoles, group_sums_sql
    >>> roles = ColumnRoles.resolve(groups="gender", tasks=["ski", "cook"])
    >>> print(group_sums_sql("labels", roles))
    SELECT `gender` AS k_groups, COUNT(*) AS n, COUNT(*) AS n_rows,
      SUM(CAST(`ski` AS DOUBLE)) AS s_tasks_0,
      SUM(CAST(`cook` AS DOUBLE)) AS s_tasks_1
    FROM labels
    GROUP BY `gender`
    """
    if not isinstance(source, str):
        raise TypeError(ERR_SOURCE_TYPE.format(type_name=type(source).__name__))
    if not isinstance(roles, ColumnRoles):
        raise TypeError(ERR_ROLES_TYPE.format(type_name=type(roles).__name__))
    if not isinstance(dialect, str) or dialect not in _QUOTES:
        raise ValueError(ERR_DIALECT.format(got=dialect))

    def q(name: str) -> str:
        return _quote(name, dialect)

    weight = f"CAST({q(roles.sample_weight)} AS DOUBLE)" if roles.sample_weight else None
    boolean = set(boolean_columns)
    select, group_by, aggregates = [], [], []
    if file_column is not None:
        select.append(f"{q(file_column)} AS file")
        group_by.append(q(file_column))
    for rc in roles.present().values():
        if not _is_key(rc):
            continue
        keys = [q(column) for column in rc.columns]
        if rc.thresholds is not None:  # keys are the predictions the scores make
            keys = score_keys_sql(rc, [f"CAST({key} AS DOUBLE)" for key in keys])
            if validate:
                aggregates += [
                    f"{_range_check(q(column))} AS bad_{rc.role}_{j}"
                    for j, column in enumerate(rc.columns)
                ]
        for key, alias in zip(keys, _key_aliases(rc), strict=True):
            select.append(f"{key} AS {alias}")
            group_by.append(key)
    select.append(f"SUM({weight}) AS n" if weight else "COUNT(*) AS n")
    select.append("COUNT(*) AS n_rows")
    for rc in roles.present().values():
        if _is_key(rc):
            continue
        is_soft = soft and rc.role.endswith("_pred")
        for j, column in enumerate(rc.indicator_columns):
            value = f"CAST({q(column)} AS DOUBLE)"
            nulls = f"COUNT(*) - COUNT({q(column)})"
            if rc.thresholds is not None:
                binary = _threshold_sql(value, rc.thresholds[j])
                term = f"{weight} * {binary}" if weight else binary
                aggregates.append(f"SUM(CAST({term} AS DOUBLE)) AS s_{rc.role}_{j}")
                if validate:
                    aggregates.append(f"{_range_check(q(column))} AS bad_{rc.role}_{j}")
                continue
            if column in boolean and not weight:
                aggregates.append(f"COUNT_IF({q(column)}) AS s_{rc.role}_{j}")
            else:
                term = f"{weight} * {value}" if weight else value
                aggregates.append(f"SUM({term}) AS s_{rc.role}_{j}")
            if validate:
                if column in boolean:
                    check = nulls
                else:
                    ok = (
                        f"{value} >= 0 AND {value} <= 1"
                        if is_soft
                        else f"{value} = 0 OR {value} = 1"
                    )
                    check = f"{nulls} + COUNT_IF(NOT ({ok}))"
                aggregates.append(f"{check} AS bad_{rc.role}_{j}")
    if validate and weight and roles.sample_weight:  # one is set whenever the other is
        w = q(roles.sample_weight)
        aggregates.append(
            f"COUNT(*) - COUNT({w}) + COUNT_IF(NOT ({weight} >= 0 AND "
            f"{weight} <= 1e308)) AS bad_weight"
        )
    lines = ["SELECT " + ", ".join(select) + ("," if aggregates else "")]
    lines += [f"  {a}," for a in aggregates[:-1]] + ([f"  {aggregates[-1]}"] if aggregates else [])
    lines.append(f"FROM {source}")
    if group_by:
        lines.append("GROUP BY " + ", ".join(group_by))
    return "\n".join(lines)


def _range_check(column: str) -> str:
    """The SQL count of missing values and values that are not finite (NaN, infinite) of a
    score column (NaN compares false, or above every number as in DuckDB: counted both ways)."""
    value = f"CAST({column} AS DOUBLE)"
    return (
        f"COUNT(*) - COUNT({column}) + COUNT_IF(NOT ({value} >= {-_MAX_DOUBLE!r} "
        f"AND {value} <= {_MAX_DOUBLE!r}))"
    )


#: The largest finite double: a score above it (or below its negative) is infinite.
_MAX_DOUBLE = 1.7976931348623157e308


def _sorted_names(values: Sequence[Any] | np.ndarray) -> tuple[Any, ...]:
    names = tuple(pd.unique(np.asarray(values, dtype=object)))
    try:
        return tuple(sorted(names))
    except TypeError:
        return names


def _where(frame: pd.DataFrame, mask: np.ndarray) -> str:
    if "file" in frame.columns and mask.any():
        files = pd.unique(frame.loc[mask, "file"].astype(str))
        return f"{', '.join(files[:3])}{' ...' if len(files) > 3 else ''}: "
    return ""


def _key_vectors(
    frame: pd.DataFrame, rc: RoleColumns, names: tuple[Any, ...], source: str | None
) -> np.ndarray:
    """(rows, k) 0/1 matrix of a key role: one-hot of a label, or the indicator pattern."""
    if rc.is_label:
        values = frame[f"k_{rc.role}"].to_numpy(dtype=object)
        missing = np.asarray(pd.isna(values), dtype=bool)
        if missing.any():
            raise ValueError(
                _where(frame, missing)
                + ERR_MISSING_LABEL_COUNT.format(
                    arg=rc.role, count=int(frame.loc[missing, "n_rows"].sum())
                )
            )
        codes = pd.Index(names).get_indexer(values)
        unknown = codes < 0
        if unknown.any():
            bad = pd.unique(values[unknown])
            raise ValueError(
                _where(frame, unknown)
                + ERR_UNKNOWN_LABELS.format(
                    arg=rc.role,
                    count=len(bad),
                    source=f"(from {source})" if source else repr(list(names)[:5]),
                    examples=", ".join(repr(b) for b in bad[:5]),
                )
            )
        out = np.zeros((len(frame), len(names)))
        out[np.arange(len(frame)), codes] = 1.0
        return out
    keys = frame[_key_aliases(rc)].to_numpy(dtype=np.float64)
    bad = ~((keys == 0) | (keys == 1))
    if bad.any():
        raise ValueError(
            _where(frame, bad.any(axis=1))
            + ERR_GROUP_KEY_VALUES.format(
                where="",
                role=rc.role,
                examples=", ".join(repr(v) for v in np.unique(keys[bad])[:5]),
            )
        )
    if tuple(names) != rc.indicator_names:
        order = pd.Index(rc.indicator_names).get_indexer(list(names))
        if (order < 0).any() or len(names) != len(rc.indicator_names):
            raise ValueError(
                ERR_UNKNOWN_LABELS.format(
                    arg=rc.role,
                    count=len(rc.indicator_names),
                    source=f"(from {source})" if source else "",
                    examples=", ".join(repr(v) for v in rc.indicator_names[:5]),
                )
            )
        keys = keys[:, order]
    return keys


def _check_validation(frame: pd.DataFrame, roles: ColumnRoles, soft: bool) -> None:
    for rc in roles.present().values():
        if not _checked(rc):
            continue
        for j, column in enumerate(rc.indicator_columns):
            alias = f"bad_{rc.role}_{j}"
            if alias not in frame.columns:
                continue
            counts = frame[alias].to_numpy(dtype=np.float64)
            if counts.sum() > 0:
                allowed = (
                    ALLOWED_SCORES
                    if rc.is_scores
                    else "in [0, 1]"
                    if soft and rc.role.endswith("_pred")
                    else "0 or 1"
                )
                raise ValueError(
                    _where(frame, counts > 0)
                    + ERR_BAD_VALUES.format(
                        where="",
                        role=rc.role,
                        count=int(counts.sum()),
                        column=column,
                        allowed=allowed,
                    )
                )
    if "bad_weight" in frame.columns:
        counts = frame["bad_weight"].to_numpy(dtype=np.float64)
        if counts.sum() > 0:
            raise ValueError(
                _where(frame, counts > 0)
                + ERR_BAD_WEIGHTS.format(where="", count=int(counts.sum()))
            )


def counts_from_group_sums(
    frame: pd.DataFrame,
    roles: ColumnRoles,
    *,
    group_names: Sequence[Any] | None = None,
    task_names: Sequence[Any] | None = None,
    soft: bool = False,
    names_source: str | None = None,
) -> CountTable:
    """Load a group-sums table (the output of :func:`group_sums_sql`) as a :class:`CountTable`.

    Parameters
    ----------
    frame : pandas.DataFrame
        The aggregation result (``spark.sql(...).toPandas()``, a DuckDB
        ``.df()``, or a CSV/Parquet file of it read with pandas).
    roles : ColumnRoles
        The roles the SQL was generated with.
    group_names, task_names : sequence, optional
        Canonical label names (for example a training table's). By default
        indicator columns fix them, and a label column's sorted distinct values.
    soft : bool, default False
        Whether the SQL was generated with ``soft=True`` (for error messages).
    names_source : str, optional
        Where the names came from, named in label-mismatch errors.

    Returns
    -------
    CountTable
        Exactly the table :meth:`CountTable.from_arrays` gives on the same rows.

    Examples
    --------
    >>> import pandas as pd
    >>> from biasamp import ColumnRoles, counts_from_group_sums
    >>> roles = ColumnRoles.resolve(groups="gender", tasks=["ski", "cook"])
    >>> sums = pd.DataFrame({"k_groups": ["m", "w"], "n": [3, 2], "n_rows": [3, 2],
    ...                      "s_tasks_0": [2, 0], "s_tasks_1": [1, 2]})
    >>> counts_from_group_sums(sums, roles).joint_frame()  # doctest: +NORMALIZE_WHITESPACE
    group    m    w
    task
    ski    2.0  0.0
    cook   1.0  2.0
    """
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(ERR_FRAME_TYPE.format(type_name=type(frame).__name__))
    if not isinstance(roles, ColumnRoles):
        raise TypeError(ERR_ROLES_TYPE.format(type_name=type(roles).__name__))
    present = roles.present()
    needed = group_sums_columns(roles)
    missing = [
        c for c in needed["keys"] + needed["sums"] + ["n", "n_rows"] if c not in frame.columns
    ]
    if missing:
        raise ValueError(ERR_GROUP_SUMS_COLUMNS.format(missing=missing))
    _check_validation(frame, roles, soft)
    frame = frame.reset_index(drop=True)
    for role, rc in present.items():
        if rc.intersected_columns:  # the parts' keys -> one label key
            frame = joined_intersections(frame, rc, _key_aliases(rc), f"k_{role}")
            present[role] = replace(rc, label_column=f"k_{role}", intersected_columns=())
    names: dict[str, tuple[Any, ...]] = {}
    for kind, given, role_order in (
        ("group", group_names, GROUP_ROLES),
        ("task", task_names, TASK_ROLES),
    ):
        if given is not None:
            names[kind] = tuple(given)
            continue
        first = next(present[r] for r in role_order if r in present)
        if not first.is_label:
            names[kind] = first.indicator_names
        elif len(frame):
            names[kind] = _sorted_names(frame[f"k_{first.role}"].dropna().to_numpy(dtype=object))
        else:
            raise ValueError(ERR_LABEL_NAMES_NEEDED.format(kind=kind, role=first.role))
    n_rows_weight = frame["n"].to_numpy(dtype=np.float64)
    vectors: dict[str, np.ndarray] = {}  # (rows, k): weighted per result row
    keys: dict[str, np.ndarray] = {}
    for role, rc in present.items():
        kind = "group" if role in GROUP_ROLES else "task"
        if _is_key(rc):
            keys[role] = _key_vectors(
                frame,
                rc,
                names[kind],
                names_source
                if (group_names if kind == "group" else task_names) is not None
                else None,
            )
            vectors[role] = keys[role] * n_rows_weight[:, None]
        else:
            sums = frame[[f"s_{role}_{j}" for j in range(len(rc.indicator_columns))]]
            values = sums.to_numpy(dtype=np.float64)
            if tuple(names[kind]) != rc.indicator_names:
                order = pd.Index(rc.indicator_names).get_indexer(list(names[kind]))
                if (order < 0).any() or len(order) != len(rc.indicator_names):
                    raise ValueError(
                        ERR_UNKNOWN_LABELS.format(
                            arg=role,
                            count=len(rc.indicator_names),
                            source=f"(from {names_source})" if names_source else "",
                            examples=", ".join(repr(v) for v in rc.indicator_names[:5]),
                        )
                    )
                values = values[:, order]
            vectors[role] = values
    totals = {role: v.sum(axis=0) for role, v in vectors.items()}
    joint = {}
    for g, t in JOINT_KEYS:
        if g in keys and t in vectors:
            # a key role's 0/1 vector times the other role's weighted row vector
            joint[(g, t)] = keys[g].T @ vectors[t]
    return CountTable(
        group_names=names["group"],
        task_names=names["task"],
        n=np.asarray(float(n_rows_weight.sum())),
        totals=totals,
        joint=joint,
        n_rows=int(frame["n_rows"].sum()),
    )
