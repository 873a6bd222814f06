"""Group sizes of the splits a metric uses, and the small-group check, from count tables.

Every metric counts its splits into :class:`CountTable` (or, for the multi-attribute
metrics, :class:`PatternCountTable`) objects; their group totals are the group sizes:
rows, or the sum of ``sample_weight`` when weights are given. :func:`group_sizes`
collects them into one frame (one column per split) and :func:`check_group_sizes`
also warns (:class:`SmallGroupWarning`) about the groups below ``min_group_size`` in
any split, so a result can carry ``group_sizes`` and ``small_groups``.
:func:`attach_group_sizes` does both for a result and adds the intersections that
never occur (groups from :func:`biasamp.intersect`).

The split columns: ``"train"`` (the training ground truth), ``"evaluation"`` (the
evaluation ground truth) and ``"predicted"`` (the groups the model predicts on the
evaluation rows, when the metric reads them). The check covers the ground-truth
splits; a metric whose evaluation side has predicted groups only (BiasAmp_MALS and
Multi_MALS without ``groups``) checks ``"predicted"`` instead
(:func:`checked_splits`).
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from biasamp.counts._count_table import CountTable
from biasamp.counts._pattern_counts import PatternCountTable
from biasamp.inputs._group_sizes import (
    MissingGroupWarning,
    missing_groups_message,
    small_groups_message,
    warn_small_groups,
)
from biasamp.inputs._intersect import intersection_of
from biasamp.inputs._label_matrix import LabelMatrix
from biasamp.results._base import MetricResult

__all__ = [
    "attach_group_sizes",
    "check_group_sizes",
    "checked_splits",
    "check_sizes",
    "group_sizes",
    "missing_groups",
    "missing_messages",
    "reference_split",
    "matrix_group_sizes",
    "never_occurring_of",
    "size_messages",
    "SplitSizes",
    "split_sizes",
    "table_group_sizes",
    "warn_missing_groups",
]

_SPLIT_NAMES = {
    "train": "the training split",
    "evaluation": "the evaluation split",
    "predicted": "the predicted groups",
}


def checked_splits(columns: Sequence[Any]) -> tuple[Any, ...]:
    """The split columns checked against ``min_group_size``: every column but
    ``"predicted"``, which is checked only when there is no ``"evaluation"`` column (the
    metric's evaluation side has predicted groups only)."""
    if "evaluation" in columns:
        return tuple(c for c in columns if c != "predicted")
    return tuple(columns)


def split_name(split: str) -> str:
    """How a warning names a split column (``"train"`` -> ``"the training split"``)."""
    return _SPLIT_NAMES.get(split, f"the {split} split")


def table_group_sizes(table: CountTable | PatternCountTable, role: str = "groups") -> pd.Series:
    """Size of each group of ``role`` in a point table (rows, or total weight), by group."""
    totals = table.group_totals if isinstance(table, PatternCountTable) else table.totals
    values = np.asarray(totals[role], dtype=np.float64)
    return pd.Series(values, index=pd.Index(table.group_names))


def _frame(columns: Mapping[str, pd.Series]) -> pd.DataFrame:
    frame = pd.DataFrame(dict(columns)).fillna(0.0).astype(np.float64)
    frame.index.name = "group"
    frame.columns.name = None
    return frame


def group_sizes(splits: Mapping[str, CountTable], *, role: str = "groups") -> pd.DataFrame:
    """Size of each group (rows, or total weight) in each split: groups x splits.

    Parameters
    ----------
    splits : mapping of split name -> CountTable
        For example ``{"train": train_table, "evaluation": evaluation_table}``.
        Replicate tables (a leading bootstrap axis) are not group sizes; pass the
        point tables.
    role : str, default "groups"
        The group role whose totals are the sizes.

    Examples
    --------
    >>> from biasamp import CountTable
    >>> from biasamp.metrics._group_sizes import group_sizes
    >>> table = CountTable.from_arrays(groups=["m", "w", "m"], tasks=["a", "b", "b"])
    >>> group_sizes({"evaluation": table})
           evaluation
    group
    m             2.0
    w             1.0
    """
    return _frame({split: table_group_sizes(table, role) for split, table in splits.items()})


class SplitSizes:
    """Group sizes per split as one ``(groups, splits)`` array, the frame of
    :func:`group_sizes` built only when :meth:`frame` is first called (a result's
    ``group_sizes`` reads it on first access: pandas costs more than a small call's
    metric). The small-group check reads the array."""

    def __init__(self, names: Sequence[Any], columns: Sequence[str], values: np.ndarray) -> None:
        self.names = tuple(names)
        self.columns = list(columns)
        self.values = values
        self._frame: pd.DataFrame | None = None

    def frame(self) -> pd.DataFrame:
        """groups x splits, indexed by ``group``."""
        if self._frame is None:
            index = pd.Index(self.names, name="group")
            self._frame = pd.DataFrame(self.values, index=index, columns=self.columns)
        return self._frame


def split_sizes(
    tables: Mapping[str, tuple[CountTable | PatternCountTable | None, str]],
) -> SplitSizes | pd.DataFrame:
    """groups x splits from ``{split: (table, role)}`` (splits whose table is ``None`` or
    lacks the role are left out); one label space, the common case, as :class:`SplitSizes`
    (arrays, the frame built when read)."""
    used = {
        split: (table, role)
        for split, (table, role) in tables.items()
        if table is not None and role in table.roles
    }
    tables_used = [table for table, _ in used.values()]
    first = tables_used[0].group_names
    if all(table.group_names == first for table in tables_used[1:]):  # one label space
        values = np.column_stack([_group_totals(table, role) for table, role in used.values()])
        if np.isnan(values).any():
            values = np.nan_to_num(values, nan=0.0)
        return SplitSizes(first, list(used), values)
    return _frame({split: table_group_sizes(table, role) for split, (table, role) in used.items()})


def _sizes_frame(sizes: SplitSizes | pd.DataFrame) -> pd.DataFrame:
    return sizes.frame() if isinstance(sizes, SplitSizes) else sizes


def _sizes_array(sizes: SplitSizes | pd.DataFrame) -> tuple[np.ndarray, list[Any]]:
    """The sizes as a float64 ``(groups, splits)`` array and the split names."""
    if isinstance(sizes, SplitSizes):
        return np.asarray(sizes.values, dtype=np.float64), sizes.columns
    return sizes.to_numpy(dtype=np.float64), list(sizes.columns)


def _group_totals(table: CountTable | PatternCountTable, role: str) -> np.ndarray:
    totals = table.group_totals if isinstance(table, PatternCountTable) else table.totals
    return np.asarray(totals[role], dtype=np.float64).reshape(-1)


def matrix_group_sizes(matrix: LabelMatrix, split: str = "evaluation") -> pd.DataFrame:
    """groups x ``split``: the rows of each group of a label matrix (column sums)."""
    if matrix.codes is not None:
        counts = np.bincount(matrix.codes, minlength=len(matrix.names)).astype(np.float64)
    else:
        counts = np.asarray(matrix.values.sum(axis=0), dtype=np.float64).reshape(-1)
    return _frame({split: pd.Series(counts, index=pd.Index(matrix.names))})


def _outside_level() -> int:
    """The ``stacklevel`` of :func:`warn_small_groups`, called from the caller of this
    function, that points at the first frame outside biasamp (the user's call)."""
    frame = sys._getframe(1)  # the caller, which calls warn_small_groups (level 2)
    level = 2
    while frame is not None and frame.f_globals.get("__name__", "").startswith("biasamp"):
        frame = frame.f_back  # type: ignore[assignment]
        level += 1
    return level


def _any_small(
    values: np.ndarray, columns: Sequence[Any], limit: float, checked: Sequence[str] | None
) -> bool:
    """Whether a size in a ``checked`` column of ``values`` is above 0 and below ``limit``."""
    if checked is not None:
        keep = [i for i, split in enumerate(columns) if split in checked]
        values = values[:, keep]
    return bool(((values > 0) & (values < limit)).any())


def check_sizes(
    sizes: SplitSizes | pd.DataFrame,
    *,
    min_group_size: float | None,
    checked: Sequence[str] | None = None,
    stacklevel: int | None = None,
) -> tuple[Any, ...]:
    """Warn (one :class:`SmallGroupWarning` per split) about the groups of ``sizes`` below
    ``min_group_size`` in the ``checked`` columns (default: every column); return them.

    Groups of size 0 in a split (absent from it) are not small: they do not occur.
    ``stacklevel=None`` points the warning at the first caller outside biasamp.
    """
    small: list[Any] = []
    if min_group_size is None:
        return ()
    values, columns = _sizes_array(sizes)
    if not _any_small(values, columns, min_group_size, checked):
        return ()  # nothing to warn about (what the loop below finds, without pandas)
    level = _outside_level() if stacklevel is None else stacklevel
    frame = _sizes_frame(sizes)
    for j, split in enumerate(columns):  # one warning per split: a loop over splits
        if checked is not None and split not in checked:
            continue
        column = values[:, j]
        if not bool(((column > 0) & (column < min_group_size)).any()):
            continue  # no small group in this split: no warning
        occurs = column > 0
        named = warn_small_groups(
            pd.Series(column[occurs], index=frame.index[occurs], name=split),
            min_group_size=min_group_size,
            split=split_name(str(split)),
            stacklevel=level,
        )
        small += [g for g in named if g not in small]
    return tuple(small)


def reference_split(sizes: SplitSizes | pd.DataFrame | None) -> str | None:
    """The split the other splits of ``sizes`` are checked against for missing groups:
    ``"train"`` when there is one, else ``"evaluation"`` (the ground truth the
    predictions are compared with); ``None`` when neither is a column."""
    if sizes is None:
        return None
    for split in ("train", "evaluation"):
        if split in sizes.columns:
            return split
    return None


def missing_groups(sizes: SplitSizes | pd.DataFrame | None) -> dict[str, tuple[Any, ...]]:
    """The groups of the reference split (:func:`reference_split`: training, else the
    evaluation ground truth) absent from each other split of ``sizes``:
    ``{split: (group, ...)}`` for the splits where some are (size > 0 in the
    reference, 0 in the split)."""
    reference = reference_split(sizes)
    if reference is None or sizes is None or len(sizes.columns) < 2:
        return {}
    if isinstance(sizes, SplitSizes):  # the arrays, without building the frame
        values, labels = np.asarray(sizes.values, dtype=np.float64), list(sizes.names)
    else:
        values, labels = sizes.to_numpy(dtype=np.float64), list(sizes.index)
    names = np.empty(len(labels), dtype=object)  # one object per group, tuples included
    names[:] = labels
    if values.size == 0:
        return {}
    columns = list(sizes.columns)
    present = values[:, columns.index(reference)] > 0
    absent = present[:, None] & (values <= 0)
    out: dict[str, tuple[Any, ...]] = {}
    for j in np.nonzero(absent.any(axis=0))[0].tolist():  # a loop over the splits
        out[str(columns[j])] = tuple(names[absent[:, j]].tolist())
    return out


def missing_messages(
    missing: Mapping[str, Sequence[Any]] | None, *, reference: str | None = "train"
) -> list[str]:
    """The text of each :class:`MissingGroupWarning` of ``missing`` (``{split: groups}``,
    groups of the ``reference`` split)."""
    return [
        missing_groups_message(
            groups, split=split_name(split), reference=split_name(reference or "train")
        )
        for split, groups in (missing or {}).items()
        if len(groups)
    ]


def warn_missing_groups(
    sizes: SplitSizes | pd.DataFrame | None, *, stacklevel: int | None = None
) -> dict[str, tuple[Any, ...]]:
    """Warn (one :class:`MissingGroupWarning` per split) about the groups of the reference
    split (training, else the evaluation ground truth) absent from another split of
    ``sizes``; return them as :func:`missing_groups` does. ``stacklevel=None`` points the
    warning at the first caller outside biasamp."""
    missing = missing_groups(sizes)
    if missing:
        level = _outside_level() if stacklevel is None else stacklevel
        for message in missing_messages(missing, reference=reference_split(sizes)):
            warnings.warn(message, MissingGroupWarning, stacklevel=level)
    return missing


def size_messages(sizes: pd.DataFrame | None, min_group_size: float | None) -> list[str]:
    """The text of each :class:`SmallGroupWarning` the sizes give (for reports), one per
    checked split (:func:`checked_splits`) with groups below ``min_group_size``."""
    if sizes is None or min_group_size is None:
        return []
    out = []
    for split in checked_splits(list(sizes.columns)):
        column = sizes[split]
        _, message = small_groups_message(
            column[column > 0], min_group_size=min_group_size, split=split_name(str(split))
        )
        if message is not None:
            out.append(message)
    return out


def check_group_sizes(
    splits: Mapping[str, CountTable],
    *,
    min_group_size: float | None,
    role: str = "groups",
    stacklevel: int = 4,
) -> tuple[pd.DataFrame, tuple[Any, ...]]:
    """:func:`group_sizes` and the groups below ``min_group_size`` in any split (warned).

    Groups of size 0 in a split (absent from it) are not small: they do not occur.
    """
    sizes = group_sizes(splits, role=role)
    small = check_sizes(sizes, min_group_size=min_group_size, stacklevel=stacklevel)
    return sizes, small


def attach_group_sizes(
    result: Any,
    sizes: SplitSizes | pd.DataFrame,
    *,
    min_group_size: float | None,
    checked: Sequence[str] | None = None,
    groups: Sequence[Any] = (),
) -> Any:
    """Set ``group_sizes``, ``small_groups``, ``min_group_size``, ``missing_groups`` and
    ``never_occurring`` of ``result`` (warning about the small groups of the ``checked``
    splits, by default :func:`checked_splits`, and about the training groups absent from
    another split); return it.

    ``groups``: the group arguments of the call; the first made by
    :func:`biasamp.intersect` gives the intersections that never occur.
    """
    # a result type with a lazy group_sizes field takes the builder (the frame is made
    # when first read); any other gets the frame
    lazy = isinstance(sizes, SplitSizes) and isinstance(result, MetricResult)
    result.group_sizes = sizes.frame if lazy else _sizes_frame(sizes)
    result.min_group_size = min_group_size
    if checked is None:
        checked = checked_splits(list(sizes.columns))
    result.small_groups = check_sizes(sizes, min_group_size=min_group_size, checked=checked)
    result.missing_groups = warn_missing_groups(sizes)
    result.never_occurring = never_occurring_of(*groups) if groups else None
    return result


def never_occurring_of(*values: Any) -> pd.DataFrame | None:
    """The intersections that never occur, from the first of ``values`` made by
    :func:`biasamp.intersect` (``None`` when none is)."""
    for value in values:
        if not isinstance(value, pd.Series):  # only a pandas Series carries one (its attrs)
            continue  # (and asking polars for attrs goes through its expression namespace)
        intersection = intersection_of(value)
        if intersection is not None:
            return intersection.never_occurring()
    return None
