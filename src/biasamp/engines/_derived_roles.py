"""Role values computed while counting: thresholded scores and intersected label columns.

A :class:`~biasamp.ScoreColumns` role holds prediction scores that become 0/1
by ``score > threshold``; an :class:`~biasamp.IntersectedColumns` role holds
several label columns whose combination is the label, as
:func:`biasamp.intersect` makes it. The engines compute these per batch:

* the numpy file engine turns each Arrow batch into the role's 0/1 matrix or
  its labels (:func:`derived_role_values`) and reads the intersection's label
  names in one pass over its columns (:func:`intersection_names_from_files`);
* the SQL engines (DuckDB, Spark) threshold in the ``GROUP BY`` and keep an
  intersection's columns as separate keys; :func:`joined_intersections` turns
  the few result rows into labels.

A label is the parts' ``str`` joined by the separator, as
:func:`biasamp.intersect` joins them; only the distinct values of a batch are
turned into Python objects, never one per row.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from biasamp.engines._exclusive_groups import exclusive_group_predictions
from biasamp.inputs._column_roles import RoleColumns
from biasamp.inputs._intersect import ERR_SEP_COLLISION

__all__ = [
    "ERR_INTERSECTED_MISSING",
    "FIRST_IN_CHUNK",
    "FIRST_IN_FILE",
    "ERR_SCORE_VALUE",
    "derived_role_values",
    "frame_intersections",
    "intersection_labels",
    "intersection_names_from_files",
    "joined_intersections",
    "score_decisions",
]

ERR_SCORE_VALUE = (
    "{role}: column {column!r} holds {value!r} in data row {row} of this chunk; "
    "scores must be finite numbers."
)
ERR_INTERSECTED_MISSING = (
    "{role}: column {column!r} has {count} missing value(s){first}; "
    "an intersection needs a value in every column."
)
#: How :data:`ERR_INTERSECTED_MISSING` names the first missing value of a chunk.
FIRST_IN_CHUNK = ", the first in data row {row} of this chunk"
FIRST_IN_FILE = ", the first in data row {row}"


def _score_matrix(batch: Any, rc: RoleColumns) -> np.ndarray:
    """The role's scores as a (rows, labels) float64 matrix, checked: finite, none missing."""
    import pyarrow as pa

    out = np.empty((batch.num_rows, len(rc.indicator_columns)), dtype=np.float64)
    for j, column in enumerate(rc.indicator_columns):
        array = batch.column(batch.schema.get_field_index(column))
        if isinstance(array, pa.ChunkedArray):
            array = array.combine_chunks()
        values = array.to_numpy(zero_copy_only=False).astype(np.float64, copy=False)
        bad = ~np.isfinite(values)  # missing values are NaN here
        if array.null_count:
            bad |= array.is_null().to_numpy(zero_copy_only=False)
        if bad.any():
            row = int(np.argmax(bad))
            value = None if array[row].as_py() is None else values[row].item()
            raise ValueError(
                ERR_SCORE_VALUE.format(role=rc.role, column=column, value=value, row=row + 1)
            )
        out[:, j] = values
    return out


def _missing_mask(array: Any) -> np.ndarray | None:
    """Rows of an Arrow array that are null (or NaN), or None when there are none."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if pa.types.is_floating(array.type):
        mask = pc.is_null(array, nan_is_null=True)
    elif array.null_count:
        mask = pc.is_null(array)
    else:
        return None
    values = mask.to_numpy(zero_copy_only=False)
    return values if values.any() else None


def _check_parts(arrays: Sequence[Any], rc: RoleColumns, *, offset: int | None = None) -> None:
    """Refuse missing values (``offset``: the first row's data row number minus one, in a
    whole file; else rows are counted in the chunk)."""
    for column, array in zip(rc.intersected_columns, arrays, strict=True):
        missing = _missing_mask(array)
        if missing is not None:
            raise ValueError(
                ERR_INTERSECTED_MISSING.format(
                    role=rc.role,
                    column=column,
                    count=int(missing.sum()),
                    first=(FIRST_IN_CHUNK if offset is None else FIRST_IN_FILE).format(
                        row=int(np.argmax(missing)) + 1 + (offset or 0)
                    ),
                )
            )


def _codes(array: Any) -> tuple[np.ndarray, list[Any]]:
    """Dictionary codes of an Arrow array (no missing values) and its distinct values."""
    import pyarrow as pa
    import pyarrow.compute as pc

    encoded = array if pa.types.is_dictionary(array.type) else pc.dictionary_encode(array)
    codes = encoded.indices.to_numpy(zero_copy_only=False).astype(np.int64)
    return codes, encoded.dictionary.to_pylist()


def _distinct_parts(arrays: Sequence[Any]) -> tuple[np.ndarray, list[tuple[Any, ...]]]:
    """Each row's index into the distinct value tuples of the arrays, and those tuples."""
    n = len(arrays[0])
    combined = np.zeros(n, dtype=np.int64)
    levels = []
    for array in arrays:
        codes, values = _codes(array)
        combined = combined * len(values) + codes
        _, combined = np.unique(combined, return_inverse=True)  # keep the codes small
        levels.append((codes, values))
    used, first, inverse = np.unique(combined, return_index=True, return_inverse=True)
    del used
    tuples = list(
        zip(
            *[np.asarray(values, dtype=object)[codes[first]] for codes, values in levels],
            strict=True,
        )
    )
    return inverse.reshape(-1), tuples


def intersection_labels(tuples: Iterable[Sequence[Any]], sep: str) -> list[str]:
    """The label of each tuple of part values: their ``str`` joined by ``sep``."""
    return [sep.join(str(v) for v in parts) for parts in tuples]


def _ordered_names(tuples: Iterable[tuple[Any, ...]], sep: str) -> tuple[str, ...]:
    """The sorted labels of distinct value tuples (the names ``CountTable.from_arrays``
    gives an :func:`biasamp.intersect` column), checked: two tuples, two labels."""
    distinct = list(dict.fromkeys(tuples))
    labels = pd.Index(intersection_labels(distinct, sep), dtype=object)
    if not labels.is_unique:
        raise ValueError(ERR_SEP_COLLISION.format(sep=sep, label=labels[labels.duplicated()][0]))
    return tuple(sorted(labels))


def score_decisions(scores: np.ndarray, rc: RoleColumns) -> np.ndarray:
    """The (rows, labels) uint8 predictions of a score role's checked (rows, labels) scores:
    ``score > threshold`` per column, or one exclusive decision per row
    (:func:`~biasamp.engines._exclusive_groups.exclusive_group_predictions`)."""
    assert rc.thresholds is not None  # a score role
    if rc.exclusive:
        names = list(rc.indicator_names)
        cuts = {str(name): t for name, t in zip(names, rc.thresholds, strict=True)}
        return exclusive_group_predictions(scores, names, cuts, default=0.5, positive=rc.positive)
    return (scores > np.asarray(rc.thresholds)[None, :]).astype(np.uint8)


def derived_role_values(batch: Any, rc: RoleColumns) -> Any:
    """A score or intersection role of one Arrow batch, as ``CountTable.from_arrays`` takes it.

    Scores become a (rows, labels) uint8 DataFrame (``score > threshold``) whose
    columns are the label names; an intersection becomes a pandas Categorical
    of labels, one per row.

    Examples
    --------
    >>> import pyarrow as pa
    >>> from biasamp import ColumnRoles, IntersectedColumns, ScoreColumns
    >>> from biasamp.engines._derived_roles import derived_role_values
    >>> batch = pa.record_batch({"race": ["a", "b", "a"], "sex": ["f", "f", "m"],
    ...                          "p_ski": [0.2, 0.7, 0.5]})
    >>> roles = ColumnRoles.resolve(batch.schema.names, groups=IntersectedColumns(["race", "sex"]),
    ...                             tasks_pred=ScoreColumns({"p_ski": "ski"}, threshold=0.5))
    >>> list(derived_role_values(batch, roles.groups))
    ['a x f', 'b x f', 'a x m']
    >>> derived_role_values(batch, roles.tasks_pred)["ski"].tolist()
    [0, 1, 0]
    """
    if rc.thresholds is not None:
        binary = score_decisions(_score_matrix(batch, rc), rc)
        return pd.DataFrame(
            binary, columns=pd.Index(list(rc.indicator_names), dtype=object), copy=False
        )
    arrays = [_plain(batch.column(batch.schema.get_field_index(c))) for c in rc.intersected_columns]
    _check_parts(arrays, rc)
    if batch.num_rows == 0:
        return pd.Categorical([])
    inverse, tuples = _distinct_parts(arrays)
    _ordered_names(tuples, rc.sep)  # refuses two tuples with one label
    labels = pd.Index(intersection_labels(tuples, rc.sep), dtype=object)
    return pd.Categorical.from_codes(inverse, categories=labels)  # codes: no object per row


def _plain(array: Any) -> Any:
    import pyarrow as pa

    if isinstance(array, pa.ChunkedArray):
        return array.combine_chunks()
    return array


def intersection_names_from_files(
    paths: Sequence[str], rc: RoleColumns, batches_of: Callable[[str], Iterable[Any]]
) -> tuple[str, ...]:
    """The sorted labels of an intersection role over files.

    ``batches_of(path)`` gives the record batches of the role's columns of one file;
    only each batch's distinct value tuples are kept. A missing value is refused
    naming the file and its data row.
    """
    seen: dict[tuple[Any, ...], None] = {}
    for path in paths:
        start = 0
        for batch in batches_of(path):
            arrays = [_plain(batch.column(j)) for j in range(len(rc.intersected_columns))]
            try:
                _check_parts(arrays, rc, offset=start)
            except ValueError as exc:
                raise ValueError(f"{path}: {exc}") from None
            if batch.num_rows:
                seen.update(dict.fromkeys(_distinct_parts(arrays)[1]))
            start += batch.num_rows
    return _ordered_names(seen, rc.sep)


def frame_intersections(
    frame: pd.DataFrame, rc: RoleColumns, columns: Sequence[str], *, where: str = ""
) -> np.ndarray:
    """The labels of an intersection role in a distinct-rows frame (one row per distinct
    key, its rows in ``__rows``) whose parts are the frame's ``columns``: missing parts and
    two value tuples with one label are refused (``where``: the files, in the message)."""
    parts = pd.DataFrame({f"__part{j}": frame[c] for j, c in enumerate(columns)})
    parts["n_rows"] = frame["__rows"].to_numpy() if "__rows" in frame else 0
    if where:
        parts["file"] = where
    joined = joined_intersections(parts, rc, list(parts.columns[: len(columns)]), "__label")
    return joined["__label"].to_numpy(dtype=object)


def joined_intersections(
    frame: pd.DataFrame, rc: RoleColumns, aliases: Sequence[str], label_alias: str
) -> pd.DataFrame:
    """A group-sums table whose intersection keys (``aliases``, one per column) are joined
    into one label key ``label_alias`` (two value tuples, two labels: checked).

    Missing parts are refused, naming the files of the result rows that hold them.
    """
    for column, alias in zip(rc.intersected_columns, aliases, strict=True):
        missing = np.asarray(pd.isna(frame[alias].to_numpy(dtype=object)), dtype=bool)
        if missing.any():
            files = (
                ", ".join(pd.unique(frame.loc[missing, "file"].astype(str))[:3])
                if "file" in frame.columns
                else ""
            )
            count = int(frame.loc[missing, "n_rows"].sum()) if "n_rows" in frame else 0
            raise ValueError(
                (f"{files}: " if files else "")
                + ERR_INTERSECTED_MISSING.format(role=rc.role, column=column, count=count, first="")
            )
    tuples = list(zip(*[frame[a].to_numpy(dtype=object) for a in aliases], strict=True))
    labels = intersection_labels(tuples, rc.sep)
    _ordered_names(tuples, rc.sep)  # refuses two tuples with one label
    out = frame.drop(columns=list(aliases))
    out[label_alias] = np.asarray(labels, dtype=object)
    return out
