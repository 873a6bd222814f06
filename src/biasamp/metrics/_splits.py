"""Count the training and evaluation splits of a metric call with one label space.

The training split fixes the canonical label names (see :mod:`biasamp.inputs._label_matrix`
for the rule); the evaluation split is validated against them.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import scipy.sparse as sp

from biasamp._memory import ALWAYS_FITS, check_allocation
from biasamp.counts._count_table import CountTable, label_matrices
from biasamp.inputs._alignment import align_pandas_indexes
from biasamp.inputs._collections import any_dask_collection
from biasamp.inputs._label_matrix import (
    ERR_EMPTY_SPLIT,
    WARN_SINGLE_GROUP,
    LabelMatrix,
    LabelWarning,
    as_label_matrix,
    as_sample_weight,
    check_same_length,
)

__all__ = [
    "EVALUATION_ARGS",
    "TRAINING_ARGS",
    "EvaluationSplit",
    "align_splits",
    "check_table_memory",
    "count_split",
    "split_label_matrices",
    "aligned_arguments",
    "count_training_split",
    "evaluation_split",
    "evaluation_label_matrices",
    "check_not_empty",
]

ERR_TRAIN_PAIR = "groups_train and tasks_train must be given together (got only {given})."
ERR_TRAIN_TWICE = (
    "Give the training side either as groups_train/tasks_train or as counts_train, not both."
)
ERR_COUNTS_TYPE = (
    "counts_train: expected a CountTable or a DataFrame of tasks x groups counts, got {type_name}."
)
ERR_COUNTS_NAMES = "counts_train: its {kind} names {got} differ from {kind}_names {expected}."
ERR_TRAIN_ROWS = "train_rows: expected 'labelled', 'with_task' or 'all', got {got!r}."
ERR_TRAIN_ROWS_EMPTY = "train_rows={rule!r} keeps none of the {n} rows of {arg}: no row has {what}."

#: Which rows of the split that fixes the signs ``y_at`` count (docs/metrics/directional.md).
TRAIN_ROWS = ("labelled", "with_task", "all")

_TRAIN_SOURCE = "the training split"

#: The arguments that describe the rows of one split (their pandas indexes must agree).
EVALUATION_ARGS = ("groups", "tasks", "groups_pred", "tasks_pred", "sample_weight")
TRAINING_ARGS = ("groups_train", "tasks_train", "sample_weight_train")


def align_splits(arrays: dict[str, Any]) -> dict[str, Any]:
    """``arrays`` (argument name -> value) with the pandas arguments of each split put in
    the index order of the split's first pandas argument (:mod:`biasamp.inputs._alignment`);
    ``ValueError`` names two arguments of one split whose index labels differ."""
    out = dict(arrays)
    for split in (EVALUATION_ARGS, TRAINING_ARGS):
        out.update(align_pandas_indexes(**{arg: out[arg] for arg in split if arg in out}))
    return out


def aligned_arguments(*values: Any, train: bool = False) -> tuple[Any, ...]:
    """:func:`align_splits` of one split's values, given and returned in the order of
    :data:`EVALUATION_ARGS` (or :data:`TRAINING_ARGS` with ``train``)."""
    names = TRAINING_ARGS if train else EVALUATION_ARGS
    out = align_pandas_indexes(**dict(zip(names, values, strict=True)))
    return tuple(out[arg] for arg in names)


def check_table_memory(matrices: dict[str, LabelMatrix]) -> None:
    """Refuse (``ValueError`` with the estimate) label matrices whose count table would not
    fit in memory: a dense ``|G| x |T|`` table per (group role, task role) pair, and about
    as much again for the metric that reads it. A million distinct "groups" are most
    often row ids or scores passed as labels."""
    groups = [m for role, m in matrices.items() if role.startswith("group")]
    tasks = [m for role, m in matrices.items() if role.startswith("task")]
    if not groups or not tasks:
        return
    n_groups, n_tasks = groups[0].n_labels, tasks[0].n_labels
    nbytes = 8.0 * n_groups * n_tasks * (len(groups) * len(tasks) + 2)
    if nbytes < ALWAYS_FITS:  # not checked: skip building the message too
        return
    check_allocation(
        nbytes,
        what=(
            f"a count table of {n_groups} distinct groups ({groups[0].arg}) x "
            f"{n_tasks} distinct tasks ({tasks[0].arg})"
        ),
        advice=(
            "check that these arguments hold labels (not row ids or scores), or merge rare "
            "labels into fewer."
        ),
    )


def check_not_empty(table: CountTable, arg: str) -> None:
    """Raise ``ValueError`` when a split's total weight is zero."""
    if np.any(np.asarray(table.n) <= 0):
        raise ValueError(ERR_EMPTY_SPLIT.format(arg=arg))


def warn_single_group(table: Any, arg: str) -> None:
    """Warn (:class:`~biasamp.inputs.LabelWarning`) when every row of a split is in one group
    (``table``: a CountTable, or a PatternCountTable of the multi-attribute metrics)."""
    if "groups" not in table.roles or len(table.group_names) != 1:
        return
    by_role = getattr(table, "group_totals", None) or table.totals
    totals = np.asarray(by_role["groups"])[..., 0]
    if np.allclose(totals, np.asarray(table.n)):
        warnings.warn(
            WARN_SINGLE_GROUP.format(arg=arg, name=table.group_names[0]),
            LabelWarning,
            stacklevel=4,
        )


def check_train_rows(train_rows: Any) -> str:
    """Validate ``train_rows`` (one of :data:`TRAIN_ROWS`)."""
    if train_rows not in TRAIN_ROWS:
        raise ValueError(ERR_TRAIN_ROWS.format(got=train_rows))
    return str(train_rows)


def _has_label(matrix: LabelMatrix) -> np.ndarray:
    """Rows with at least one positive entry (one pass over the stored entries)."""
    values = matrix.values
    if sp.issparse(values):
        csr = sp.csr_matrix(values)
        positive = csr.data > 0
        if positive.all():  # no stored zeros: a row has a label iff it stores an entry
            return np.diff(csr.indptr) > 0
        rows = np.repeat(np.arange(csr.shape[0]), np.diff(csr.indptr))
        return np.bincount(rows[positive], minlength=csr.shape[0]) > 0
    return np.asarray(np.asarray(values).any(axis=1), dtype=bool)


def kept_training_rows(
    groups: LabelMatrix, tasks: LabelMatrix, train_rows: str, *, arg: str = "groups_train"
) -> np.ndarray | None:
    """The rows ``train_rows`` keeps (a boolean mask), or ``None`` when it keeps every row.

    ``"labelled"``: rows with a group or a task; ``"with_task"``: rows with a
    task; ``"all"``: every row.
    """
    if train_rows == "all" or (train_rows == "labelled" and groups.codes is not None):
        return None  # 1-D groups (one-hot codes): every row has a group
    keep = _has_label(tasks)
    if train_rows == "labelled":
        keep = keep | _has_label(groups)
    if keep.all():
        return None
    if not keep.any():
        what = "a task" if train_rows == "with_task" else "a group or a task"
        raise ValueError(
            ERR_TRAIN_ROWS_EMPTY.format(rule=train_rows, n=keep.size, arg=arg, what=what)
        )
    return keep


def select_training_rows(
    *,
    groups_train: Any,
    tasks_train: Any,
    sample_weight_train: Any,
    group_names: Sequence[Any] | None,
    task_names: Sequence[Any] | None,
    train_rows: str,
    compact: bool = False,
) -> tuple[Any, Any, Any]:
    """The training arrays restricted to the rows ``train_rows`` keeps.

    Returns ``(groups_train, tasks_train, sample_weight_train)``, unchanged when
    every row is kept, no training rows are given, or they are Dask collections.
    With ``compact``, dense 0/1 indicators are validated into ``uint8`` label
    matrices (one byte per cell; the multi-attribute metrics only count them).
    """
    check_train_rows(train_rows)
    aligned = align_splits(
        {
            "groups_train": groups_train,
            "tasks_train": tasks_train,
            "sample_weight_train": sample_weight_train,
        }
    )
    groups_train, tasks_train, sample_weight_train = (aligned[arg] for arg in TRAINING_ARGS)
    if (
        train_rows == "all"
        or groups_train is None
        or tasks_train is None
        or any_dask_collection(groups_train, tasks_train, sample_weight_train)
    ):
        return groups_train, tasks_train, sample_weight_train
    matrices = split_label_matrices(
        groups=groups_train,
        tasks=tasks_train,
        group_names=group_names,
        task_names=task_names,
        suffix="_train",
        compact=compact,
    )
    check_same_length(groups_train=matrices["groups"], tasks_train=matrices["tasks"])
    keep = kept_training_rows(matrices["groups"], matrices["tasks"], train_rows)
    if keep is None:  # the encoded matrices, so the training split is not encoded twice
        return matrices["groups"], matrices["tasks"], sample_weight_train
    n = matrices["groups"].n_rows
    weight = None
    if sample_weight_train is not None:
        weight = as_sample_weight(sample_weight_train, n, arg="sample_weight_train")[keep]
    return matrices["groups"].take(keep), matrices["tasks"].take(keep), weight


def split_label_matrices(
    *,
    groups: Any,
    tasks: Any,
    group_names: Sequence[Any] | None = None,
    task_names: Sequence[Any] | None = None,
    suffix: str = "",
    names_source: str | None = None,
    compact: bool = False,
) -> dict[str, LabelMatrix]:
    """The ``groups`` / ``tasks`` label matrices of one ground-truth split, with messages that
    name the caller's arguments (``suffix="_train"``: ``groups_train``, ``tasks_train``)."""
    matrices: dict[str, LabelMatrix] = {}
    for role, value, names, kind in (
        ("groups", groups, group_names, "group"),
        ("tasks", tasks, task_names, "task"),
    ):
        source = (names_source or f"{kind}_names") if names is not None else None
        matrices[role] = as_label_matrix(
            value, arg=f"{role}{suffix}", names=names, source=source, compact=compact
        )
    return matrices


def count_split(
    *,
    groups: Any,
    tasks: Any,
    sample_weight: Any = None,
    group_names: Sequence[Any] | None = None,
    task_names: Sequence[Any] | None = None,
    train: bool = False,
) -> CountTable:
    """The ground-truth table of one split (``train``: the arguments are named
    ``groups_train``, ... in messages), its size checked before it is allocated."""
    if any_dask_collection(groups, tasks, sample_weight):
        return CountTable.from_arrays(
            groups=groups,
            tasks=tasks,
            sample_weight=sample_weight,
            group_names=group_names,
            task_names=task_names,
        )
    suffix = "_train" if train else ""
    matrices = split_label_matrices(
        groups=groups, tasks=tasks, group_names=group_names, task_names=task_names, suffix=suffix
    )
    check_table_memory(matrices)
    n = check_same_length(
        **{f"groups{suffix}": matrices["groups"], f"tasks{suffix}": matrices["tasks"]}
    )
    weight = None
    if sample_weight is not None:
        weight = as_sample_weight(sample_weight, n, arg=f"sample_weight{suffix}")
    return CountTable.from_label_matrices(matrices, sample_weight=weight)


def count_training_split(
    *,
    groups_train: Any,
    tasks_train: Any,
    counts_train: CountTable | pd.DataFrame | None = None,
    sample_weight_train: Any = None,
    group_names: Sequence[Any] | None = None,
    task_names: Sequence[Any] | None = None,
) -> CountTable | None:
    """The training split's count table, or ``None`` when no training side is given."""
    if counts_train is not None:
        if groups_train is not None or tasks_train is not None:
            raise ValueError(ERR_TRAIN_TWICE)
        if isinstance(counts_train, pd.DataFrame):
            counts_train = CountTable.from_joint(counts_train)
        if not isinstance(counts_train, CountTable):
            raise TypeError(ERR_COUNTS_TYPE.format(type_name=type(counts_train).__name__))
        for kind, names, got in (
            ("group", group_names, counts_train.group_names),
            ("task", task_names, counts_train.task_names),
        ):
            if names is not None and tuple(names) != tuple(got):
                raise ValueError(
                    ERR_COUNTS_NAMES.format(kind=kind, got=list(got), expected=list(names))
                )
        counts_train.require("groups", "tasks", metric="counts_train")
        check_not_empty(counts_train, "counts_train")
        return counts_train
    if groups_train is None and tasks_train is None:
        return None
    if groups_train is None or tasks_train is None:
        given = "groups_train" if groups_train is not None else "tasks_train"
        raise ValueError(ERR_TRAIN_PAIR.format(given=given))
    table = count_split(
        groups=groups_train,
        tasks=tasks_train,
        sample_weight=sample_weight_train,
        group_names=group_names,
        task_names=task_names,
        train=True,
    )
    check_not_empty(table, "groups_train" if sample_weight_train is None else "sample_weight_train")
    warn_single_group(table, "groups_train")
    return table


def count_kept_rows(
    matrices: dict[str, LabelMatrix],
    *,
    sample_weight: Any = None,
    train_rows: str,
    arg: str = "groups_train",
    table: CountTable | None = None,
) -> CountTable:
    """Count the ``groups`` / ``tasks`` matrices of the rows ``train_rows`` keeps.

    ``table``, when given, is the count table of every row of ``matrices`` (and
    ``sample_weight``); its counts are then reused instead of counted again where
    that gives the same numbers: when every row is kept, and for unweighted rows
    under ``"labelled"`` (a row left out has no group and no task, so it adds
    nothing but 1 to ``n``; counts are integers, exact in any order).
    """
    keep = kept_training_rows(matrices["groups"], matrices["tasks"], train_rows, arg=arg)
    if table is not None and (keep is None or (sample_weight is None and train_rows == "labelled")):
        return CountTable(
            group_names=table.group_names,
            task_names=table.task_names,
            n=table.n if keep is None else np.asarray(float(np.count_nonzero(keep))),
            totals={role: table.totals[role] for role in ("groups", "tasks")},
            joint={("groups", "tasks"): table.joint[("groups", "tasks")]},
            n_rows=table.n_rows if keep is None else int(np.count_nonzero(keep)),
        )
    if keep is None:
        return CountTable.from_label_matrices(matrices, sample_weight=sample_weight)
    n = matrices["groups"].n_rows
    weight = as_sample_weight(sample_weight, n) if sample_weight is not None else None
    return CountTable.from_label_matrices(
        {role: matrices[role].take(keep) for role in ("groups", "tasks")},
        sample_weight=None if weight is None else weight[keep],
    )


@dataclass(frozen=True)
class EvaluationSplit:
    """The evaluation split of a metric call: its count table and, for in-memory
    inputs, the validated label matrices (the bootstrap reweights their rows).
    For Dask inputs ``matrices`` is ``None`` and ``dask_arrays`` keeps the
    collections, which the bootstrap counts again per partition."""

    table: CountTable
    matrices: dict[str, LabelMatrix] | None
    dask_arrays: dict[str, Any] | None = None


def evaluation_split(
    *,
    train: CountTable | None,
    groups: Any = None,
    tasks: Any = None,
    groups_pred: Any = None,
    tasks_pred: Any = None,
    sample_weight: Any = None,
    group_names: Sequence[Any] | None = None,
    task_names: Sequence[Any] | None = None,
    soft: bool = False,
    positive_group: Any = None,
    positive_label: Any = None,
) -> EvaluationSplit:
    """Validate and count the evaluation split in the training split's label space."""
    # rows exist (0 rows fail earlier), so total weight 0 comes from the weights
    empty_arg = (
        "sample_weight"
        if sample_weight is not None
        else "groups"
        if groups is not None
        else "groups_pred"
    )
    if any_dask_collection(groups, tasks, groups_pred, tasks_pred, sample_weight):
        # Dask inputs: CountTable.from_arrays counts them partition by partition
        table = CountTable.from_arrays(
            groups=groups,
            tasks=tasks,
            groups_pred=groups_pred,
            tasks_pred=tasks_pred,
            sample_weight=sample_weight,
            soft=soft,
            **_label_space(train, group_names, task_names),
        )
        check_not_empty(table, empty_arg)
        dask_arrays = {
            "groups": groups,
            "tasks": tasks,
            "groups_pred": groups_pred,
            "tasks_pred": tasks_pred,
            "sample_weight": sample_weight,
            "soft": soft,
            "group_names": table.group_names,
            "task_names": table.task_names,
        }
        return EvaluationSplit(table, None, dask_arrays)
    matrices = evaluation_label_matrices(
        train=train,
        groups=groups,
        tasks=tasks,
        groups_pred=groups_pred,
        tasks_pred=tasks_pred,
        group_names=group_names,
        task_names=task_names,
        soft=soft,
        positive_group=positive_group,
        positive_label=positive_label,
    )
    check_table_memory(matrices)
    table = CountTable.from_label_matrices(matrices, sample_weight=sample_weight)
    check_not_empty(table, empty_arg)
    if train is None:
        warn_single_group(table, "groups" if groups is not None else "groups_pred")
    return EvaluationSplit(table, matrices)


def _label_space(
    train: CountTable | None, group_names: Sequence[Any] | None, task_names: Sequence[Any] | None
) -> dict[str, Any]:
    if train is not None:
        return {
            "group_names": train.group_names,
            "task_names": train.task_names,
            "names_source": _TRAIN_SOURCE,
        }
    return {"group_names": group_names, "task_names": task_names, "names_source": None}


def evaluation_label_matrices(
    *,
    train: CountTable | None,
    groups: Any = None,
    tasks: Any = None,
    groups_pred: Any = None,
    tasks_pred: Any = None,
    group_names: Sequence[Any] | None = None,
    task_names: Sequence[Any] | None = None,
    soft: bool = False,
    positive_group: Any = None,
    positive_label: Any = None,
) -> dict[str, LabelMatrix]:
    """The evaluation split's validated label matrices, in the training split's label space."""
    source = None
    if train is not None:
        group_names, task_names, source = train.group_names, train.task_names, _TRAIN_SOURCE
    return label_matrices(
        groups=groups,
        tasks=tasks,
        groups_pred=groups_pred,
        tasks_pred=tasks_pred,
        group_names=group_names,
        task_names=task_names,
        soft=soft,
        names_source=source,
        positive_group=positive_group,
        positive_label=positive_label,
    )
