"""Assembling an audit from its input files: the input contract, read into rows.

Layouts
-------
A :class:`Layout` says which columns hold what (its fields are the command
line's options, named in parentheses and in the error messages). One row per instance in a wide CSV (``.csv``, ``.tsv``, optionally ``.gz``) or
Parquet file.

* **Group**: one categorical column (``group=COL``, one label per row) or
  0/1 indicator columns (``group_cols=A,B``).
* **Tasks**: one categorical column (``task=COL``), 0/1 indicator columns
  (``task_cols=`` or every column starting with ``task_prefix=``; the prefix
  is stripped from the label name), or a long table of ``(id, label)`` rows
  (``tasks_long=FILE``, for thousands of labels; read into a
  scipy.sparse matrix). An instance with no row in a long table has no task.
* **Predictions** of column ``C`` are the column ``{pred_prefix}C``, in the
  same file (``pred_prefix=``) or in another file joined on ``id=``
  (``pred=FILE``; without ``pred_prefix=`` its columns carry the ground
  truth names). Predicted groups, predicted tasks or both may be given.
  Prediction indicator columns may hold scores, binarised with ``threshold=``
  or with calibrated per-label thresholds: a prediction is positive when
  ``score > threshold`` (strict, the rule of :func:`biasamp.calibrate_thresholds`
  and :func:`biasamp.threshold_sweep`).
* **Training** ground truth (``train=FILE``) has the layout of the data file.

Label sets
----------
The library's rule (:mod:`biasamp.inputs._label_matrix`): the training split's names are
canonical. With ``train=``, the group and task names are those of the
training file, and a label of the evaluation ground truth, the predictions or a
long table that the training file does not have is an error naming the file and
the column. Without ``train=``, the evaluation ground truth is canonical.

Every file is read once by :mod:`biasamp.engines._file_reader` (formats, streamed
chunks of the needed columns, SHA-256); this module decides which columns each
file must have, joins files on ``id=``, checks the label sets and thresholds
scores, and returns an :class:`AuditData`.

Errors are :class:`InputError` (a ``ValueError``) whose messages, module
constants, name the file, the column and the problem.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypedDict

import numpy as np
import pandas as pd
import scipy.sparse as sp

from biasamp.engines._exclusive_groups import exclusive_group_predictions, groups_are_exclusive
from biasamp.engines._file_reader import (
    ColumnBlock,
    FileInfo,
    InputError,
    _check_columns,
    _columns_text,
    _shown,
    read_blocks,
    read_header,
    read_long_table,
)

__all__ = [
    "AuditData",
    "ColumnBlock",
    "FileInfo",
    "InputError",
    "Layout",
    "load_audit",
    "read_blocks",
    "read_header",
    "read_long_table",
]

# --- error messages (reused by the tests) ---------------------------------
ERR_NO_PREFIX_COLUMNS = (
    "{file}: no column starts with {prefix!r} ({option}); the file has columns {columns}."
)
ERR_DUPLICATE_IDS = "{file}, column {column!r}: {count} duplicate id(s), for example {examples}."
ERR_ID_MISSING = (
    "id={column!r}: {count} id(s) of {file_a} are missing from {file_b}, for example {examples}."
)
ERR_UNKNOWN_PRED_LABELS = (
    "{file}, column {column!r}: predicted label(s) {examples} never occur in the ground truth "
    "({sources}); predictions must use the ground-truth labels."
)
ERR_UNKNOWN_EVAL_LABELS = (
    "{file}, column {column!r}: label(s) {examples} do not occur in the training file {train}; "
    "the training split's labels are canonical (add them to the training file or drop "
    "those rows)."
)
ERR_COLUMN_SETS = (
    "{file}: its {what} columns differ from those of {reference}: missing {missing}, "
    "unexpected {unexpected}. Label sets must line up across files."
)
ERR_NO_PREDICTIONS_FOUND = (
    "{file}: no prediction columns found: expected {group_col} for the predicted group or "
    "{task_col} (and the other task columns) for the predicted tasks."
)
ERR_NO_PREDICTIONS_LONG = (
    "{file}: no prediction columns found: expected {group_col} for the predicted group; "
    "the predicted tasks of long task tables come from pred_tasks_long=FILE."
)
ERR_PARTIAL_PREDICTIONS = (
    "{file}: predicted {role} columns are incomplete: {column!r} ({option}) not found, while "
    "{present!r} is present."
)
ERR_NEEDS_ID = "{option} needs id= (the column that joins the files)."
ERR_LAYOUT = "{what}: give exactly one of {options}."
ERR_LONG_PRED_GROUPS = (
    "pred_tasks_long= gives predicted tasks; predicted groups come from pred_prefix= or pred=."
)

ERR_MISSING_RULE = "missing=: expected 'error' or 'category', got {got!r}."
ERR_CHUNK_SIZE = "chunk_size=: expected a positive number of rows, got {got}."


# --- layout -----------------------------------------------------------------------


@dataclass(frozen=True)
class Layout:
    """Which columns hold what (the command-line options of the input contract)."""

    group: str | None = None
    group_cols: tuple[str, ...] | None = None
    task: str | None = None
    task_cols: tuple[str, ...] | None = None
    task_prefix: str | None = None
    tasks_long: str | None = None
    id: str | None = None
    pred_prefix: str | None = None
    long_label: str = "label"
    delimiter: str | None = None
    chunk_size: int | None = None
    missing: str = "error"

    def __post_init__(self) -> None:
        if self.missing not in ("error", "category"):
            raise InputError(ERR_MISSING_RULE.format(got=self.missing))
        if self.chunk_size is not None and self.chunk_size <= 0:
            raise InputError(ERR_CHUNK_SIZE.format(got=self.chunk_size))
        if (self.group is None) == (self.group_cols is None):
            raise InputError(ERR_LAYOUT.format(what="group", options="group=, group_cols="))
        task_options = [self.task, self.task_cols, self.task_prefix, self.tasks_long]
        if sum(option is not None for option in task_options) != 1:
            raise InputError(
                ERR_LAYOUT.format(
                    what="tasks", options="task=, task_cols=, task_prefix=, tasks_long="
                )
            )
        if self.tasks_long is not None and self.id is None:
            raise InputError(ERR_NEEDS_ID.format(option="tasks_long="))

    @property
    def group_kind(self) -> str:
        return "label" if self.group is not None else "indicator"

    @property
    def task_kind(self) -> str:
        if self.task is not None:
            return "label"
        return "sparse" if self.tasks_long is not None else "indicator"

    def group_columns(self) -> tuple[str, ...]:
        """The group's columns: one categorical column, the categorical columns whose
        intersections are the groups (``group="race,sex"``), or the indicator columns."""
        if self.group is not None:
            return tuple(self.group.split(","))
        return tuple(self.group_cols or ())

    @property
    def intersected(self) -> bool:
        """Whether the groups are the intersections of several categorical columns."""
        return self.group is not None and len(self.group_columns()) > 1

    def group_option(self) -> str:
        return "group=" if self.group is not None else "group_cols="

    def task_columns(self, path: Path, header: Sequence[str]) -> tuple[tuple[str, ...], str]:
        """The task columns of a file and the option that named them (long tables: none)."""
        if self.task is not None:
            return (self.task,), "task="
        if self.task_cols is not None:
            return tuple(self.task_cols), "task_cols="
        if self.task_prefix is not None:
            excluded = set(self.group_columns()) | {self.id}
            found = tuple(
                c
                for c in header
                if c.startswith(self.task_prefix)
                and c not in excluded
                and not (self.pred_prefix and c.startswith(self.pred_prefix))
            )
            if not found:
                raise InputError(
                    ERR_NO_PREFIX_COLUMNS.format(
                        file=path,
                        prefix=self.task_prefix,
                        option="task_prefix=",
                        columns=_columns_text(header),
                    )
                )
            return found, "task_prefix="
        return (), "tasks_long="

    def task_name(self, column: str) -> str:
        if self.task_prefix:
            return column[len(self.task_prefix) :]
        return column


# --- the audit data ------------------------------------------------------------------


class LabelNames(TypedDict):
    """The ``group_names`` / ``task_names`` keyword arguments of the count tables."""

    group_names: tuple[str, ...]
    task_names: tuple[str, ...]


@dataclass
class AuditData:
    """Everything read from the files, as arrays ready for the metrics.

    Groups and tasks are 1-D label arrays (categorical layout), ``(n, k)``
    uint8 matrices (indicator layout) or CSR matrices (long tables); their
    names are ``group_names`` and ``task_names``. ``group_scores`` /
    ``task_scores`` hold raw prediction scores when predictions were
    thresholded.
    """

    groups: Any
    tasks: Any
    group_names: tuple[str, ...]
    task_names: tuple[str, ...]
    groups_pred: Any = None
    tasks_pred: Any = None
    groups_train: Any = None
    tasks_train: Any = None
    group_scores: np.ndarray | None = None
    task_scores: np.ndarray | None = None
    files: list[FileInfo] = field(default_factory=list)
    thresholds: dict[str, float] = field(default_factory=dict)
    exclusive_groups: bool = False
    positive_group: str | None = None

    @property
    def n(self) -> int:
        return int(np.shape(self.groups)[0])

    @property
    def n_train(self) -> int | None:
        return None if self.groups_train is None else int(np.shape(self.groups_train)[0])

    @property
    def tasks_multilabel(self) -> Any:
        """The evaluation tasks when they are multi-label (indicators or a long table), else
        None: the multi-attribute metrics need sets of tasks per instance."""
        return None if np.ndim(self.tasks) == 1 else self.tasks

    @property
    def groups_single(self) -> Any:
        """The evaluation groups when there is one per row (a categorical column or the
        intersections of several), else None: differential fairness needs them."""
        return self.groups if np.ndim(self.groups) == 1 else None

    @property
    def tasks_single(self) -> Any:
        """The evaluation tasks when there is one per row (a categorical column), else None."""
        return self.tasks if np.ndim(self.tasks) == 1 else None

    @property
    def tasks_pred_single(self) -> Any:
        """The predicted tasks when there is one per row, else None."""
        if self.tasks_pred is None or np.ndim(self.tasks_pred) != 1:
            return None
        return self.tasks_pred

    @property
    def scores(self) -> bool | None:
        """True when predictions were thresholded from scores (None otherwise)."""
        return True if (self.group_scores is not None or self.task_scores is not None) else None

    def has(self, role: str) -> bool:
        return getattr(self, role) is not None

    def names(self) -> LabelNames:
        return {"group_names": self.group_names, "task_names": self.task_names}


def _pred_column(layout: Layout, column: str) -> str:
    return f"{layout.pred_prefix or ''}{column}"


def no_predictions_error(
    layout: Layout, file: Path, group_cols: Sequence[str], task_cols: Sequence[str]
) -> InputError:
    """The error for a file that holds none of the prediction columns the layout names
    (with long task tables, the predicted tasks are a long table, not columns)."""
    group_col = repr(_pred_column(layout, group_cols[0]))
    if not task_cols:
        return InputError(ERR_NO_PREDICTIONS_LONG.format(file=file, group_col=group_col))
    task_col = repr(_pred_column(layout, task_cols[0]))
    return InputError(
        ERR_NO_PREDICTIONS_FOUND.format(file=file, group_col=group_col, task_col=task_col)
    )


def _prediction_blocks(
    layout: Layout,
    path: Path,
    header: Sequence[str],
    group_cols: tuple[str, ...],
    task_cols: tuple[str, ...],
    scored: bool,
) -> list[ColumnBlock]:
    """Blocks of the predicted groups / tasks found in ``header`` (at least one)."""
    option = "pred_prefix=" if layout.pred_prefix else "pred="
    present = set(header)
    blocks: list[ColumnBlock] = []
    for role, cols, kind in (
        ("groups_pred", group_cols, layout.group_kind),
        ("tasks_pred", task_cols, layout.task_kind),
    ):
        if not cols:
            continue
        wanted = tuple(_pred_column(layout, c) for c in cols)
        found = [c for c in wanted if c in present]
        if not found:
            continue
        if len(found) < len(wanted):
            missing = next(c for c in wanted if c not in present)
            raise InputError(
                ERR_PARTIAL_PREDICTIONS.format(
                    file=path,
                    role=role.split("_")[0],
                    column=missing,
                    option=option,
                    present=found[0],
                )
            )
        block_kind = "label" if kind == "label" else ("score" if scored else "indicator")
        missing_rule = layout.missing if role == "groups_pred" else "error"
        blocks.append(ColumnBlock(role, block_kind, wanted, option, missing=missing_rule))
    return blocks


def _check_ids(ids: np.ndarray, path: Path, column: str) -> pd.Index:
    index = pd.Index(ids)
    if not index.is_unique:
        dups = pd.unique(ids[index.duplicated()])
        raise InputError(
            ERR_DUPLICATE_IDS.format(
                file=path, column=column, count=len(dups), examples=_shown(dups)
            )
        )
    return index


def _align(
    index_a: pd.Index,
    ids_b: np.ndarray,
    path_a: Path,
    path_b: Path,
    column: str,
    *,
    both_ways: bool = True,
) -> np.ndarray:
    """Positions in ``ids_b`` of each id of ``index_a`` (every id must be in both)."""
    index_b = pd.Index(ids_b)
    positions = index_b.get_indexer(index_a)
    if (positions < 0).any():
        raise _ids_missing(list(index_a[positions < 0]), path_a, path_b, column)
    if both_ways:
        extra = index_b.difference(index_a)
        if len(extra):
            raise _ids_missing(list(extra), path_b, path_a, column)
    return positions


def _ids_missing(missing: Sequence[Any], file_a: Path, file_b: Path, column: str) -> InputError:
    """The error for ids of ``file_a`` that ``file_b`` does not have."""
    return InputError(
        ERR_ID_MISSING.format(
            column=column,
            count=len(missing),
            file_a=file_a,
            file_b=file_b,
            examples=_shown(missing),
        )
    )


def _long_to_sparse(
    ids: np.ndarray,
    labels: np.ndarray,
    row_index: pd.Index,
    names: tuple[str, ...],
    path: Path,
    main_path: Path,
    column: str,
) -> sp.csr_matrix:
    # pandas takes any array-like (its own annotation is Axes); pandas-stubs asks for an Index
    rows = row_index.get_indexer(ids)  # type: ignore[arg-type]
    if (rows < 0).any():
        raise _ids_missing(list(pd.unique(ids[rows < 0])), path, main_path, column)
    cols = pd.Index(names).get_indexer(labels)
    matrix = sp.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(len(row_index), len(names)))
    matrix.sum_duplicates()
    matrix.data[:] = 1.0  # a label listed twice for an id is still one label
    return matrix


def _label_names(*arrays: np.ndarray | None) -> tuple[str, ...]:
    present = [a for a in arrays if a is not None]
    return tuple(sorted(set().union(*(pd.unique(a) for a in present))))


def _sources(train_path: Path | None) -> str:
    return f"the training file {train_path}" if train_path is not None else "the data file"


def _canonical_names(
    evaluation: np.ndarray,
    train: np.ndarray | None,
    eval_path: Path,
    column: str,
    train_path: Path | None,
) -> tuple[str, ...]:
    """The training labels when there is a training split (evaluation labels must be among
    them), else the evaluation labels; sorted."""
    if train is None:
        return _label_names(evaluation)
    names = _label_names(train)
    unknown = pd.Index(pd.unique(evaluation)).difference(pd.Index(names))
    if len(unknown):
        raise InputError(
            ERR_UNKNOWN_EVAL_LABELS.format(
                file=eval_path, column=column, examples=_shown(list(unknown)), train=train_path
            )
        )
    return names


def _check_pred_labels(
    pred: np.ndarray, names: tuple[str, ...], path: Path, column: str, sources: str
) -> None:
    unknown = pd.Index(pd.unique(pred)).difference(pd.Index(names))
    if len(unknown):
        raise InputError(
            ERR_UNKNOWN_PRED_LABELS.format(
                file=path, column=column, examples=_shown(list(unknown)), sources=sources
            )
        )


def _check_same_columns(
    path: Path, cols: Sequence[str], reference: Path, ref_cols: Sequence[str], what: str
) -> None:
    if set(cols) != set(ref_cols):
        missing = [c for c in ref_cols if c not in set(cols)]
        unexpected = [c for c in cols if c not in set(ref_cols)]
        raise InputError(
            ERR_COLUMN_SETS.format(
                file=path,
                what=what,
                reference=reference,
                missing=_shown(missing) or "none",
                unexpected=_shown(unexpected) or "none",
            )
        )


def load_audit(
    layout: Layout,
    *,
    data: str | Path,
    pred: str | Path | None = None,
    train: str | Path | None = None,
    pred_tasks_long: str | Path | None = None,
    train_tasks_long: str | Path | None = None,
    threshold: float | None = None,
    thresholds: dict[str, float] | None = None,
    positive_group: str | None = None,
    progress: bool = False,
) -> AuditData:
    """Read and validate every input file of an audit.

    Parameters
    ----------
    layout : Layout
        The column options.
    data : path
        The evaluation file: ground truth, and predictions with ``pred_prefix=``.
    pred : path, optional
        A predictions file joined on ``layout.id``.
    train : path, optional
        The training file (ground truth, same layout as ``data``).
    pred_tasks_long, train_tasks_long : path, optional
        Long ``(id, label)`` tables of predicted / training tasks (with
        ``layout.tasks_long``).
    threshold : float, optional
        Binarise prediction score columns: ``score > threshold`` is 1.
    thresholds : dict, optional
        Per-label thresholds (label name -> threshold), e.g. from calibration;
        labels not in it use ``threshold`` (or 0.5).
    progress : bool, default False
        Show a progress bar while reading.
    """
    data_path = Path(data)
    scored = threshold is not None or bool(thresholds)
    if pred is not None and layout.id is None:
        raise InputError(ERR_NEEDS_ID.format(option="pred="))
    if (pred_tasks_long or train_tasks_long) and layout.tasks_long is None:
        raise InputError(
            ERR_LAYOUT.format(what="long task tables", options="tasks_long= with them")
        )
    _, header = read_header(data_path, delimiter=layout.delimiter)
    group_cols = layout.group_columns()
    task_cols, task_option = layout.task_columns(data_path, header)
    blocks = [
        ColumnBlock(
            "groups", layout.group_kind, group_cols, layout.group_option(), missing=layout.missing
        )
    ]
    if task_cols:
        blocks.append(ColumnBlock("tasks", layout.task_kind, task_cols, task_option))
    if layout.id is not None:
        blocks.append(ColumnBlock("id", "id", (layout.id,), "id="))
    _check_columns(data_path, header, blocks)  # ground truth first, then predictions
    pred_blocks: list[ColumnBlock] = []
    if layout.pred_prefix and pred is None:
        pred_blocks = _prediction_blocks(layout, data_path, header, group_cols, task_cols, scored)
        if not pred_blocks and pred_tasks_long is None:
            raise no_predictions_error(layout, data_path, group_cols, task_cols)
    arrays, info = read_blocks(
        data_path,
        blocks + pred_blocks,
        role="data",
        delimiter=layout.delimiter,
        header=header,
        progress=progress,
        chunk_rows=layout.chunk_size,
    )
    files = [info]
    index = _check_ids(arrays["id"], data_path, layout.id) if layout.id is not None else None

    if pred is not None:
        # checked above: pred= needs id=, so the data file's ids were read
        assert layout.id is not None and index is not None
        pred_path = Path(pred)
        _, pred_header = read_header(pred_path, delimiter=layout.delimiter)
        pred_blocks = _prediction_blocks(
            layout, pred_path, pred_header, group_cols, task_cols, scored
        )
        if not pred_blocks:
            raise no_predictions_error(layout, pred_path, group_cols, task_cols)
        id_block = ColumnBlock("id", "id", (layout.id,), "id=")
        pred_arrays, pred_info = read_blocks(
            pred_path,
            [id_block, *pred_blocks],
            role="predictions",
            delimiter=layout.delimiter,
            header=pred_header,
            progress=progress,
            chunk_rows=layout.chunk_size,
        )
        files.append(pred_info)
        _check_ids(pred_arrays["id"], pred_path, layout.id)
        positions = _align(index, pred_arrays["id"], data_path, pred_path, layout.id)
        for block in pred_blocks:
            arrays[block.role] = pred_arrays[block.role][positions]

    train_arrays: dict[str, np.ndarray] = {}
    train_path = Path(train) if train is not None else None
    train_index = None
    if train_path is not None:
        _, train_header = read_header(train_path, delimiter=layout.delimiter)
        train_task_cols, _ = layout.task_columns(train_path, train_header)
        if layout.task_prefix is not None:
            _check_same_columns(train_path, train_task_cols, data_path, task_cols, "task")
        train_blocks = [
            ColumnBlock(
                "groups",
                layout.group_kind,
                group_cols,
                layout.group_option(),
                missing=layout.missing,
            )
        ]
        if train_task_cols:
            train_blocks.append(ColumnBlock("tasks", layout.task_kind, task_cols, task_option))
        if layout.tasks_long is not None:
            assert layout.id is not None  # Layout requires id= with tasks_long=
            train_blocks.append(ColumnBlock("id", "id", (layout.id,), "id="))
        train_arrays, train_info = read_blocks(
            train_path,
            train_blocks,
            role="train",
            delimiter=layout.delimiter,
            header=train_header,
            progress=progress,
            chunk_rows=layout.chunk_size,
        )
        files.append(train_info)
        if layout.tasks_long is not None:
            assert layout.id is not None  # as above
            train_index = _check_ids(train_arrays["id"], train_path, layout.id)

    # --- groups: names and label checks
    thresholds = dict(thresholds or {})
    group_scores = task_scores = None
    exclusive = False
    if layout.group_kind == "label":
        group_names = _canonical_names(
            arrays["groups"],
            train_arrays.get("groups"),
            data_path,
            ",".join(group_cols),
            train_path,
        )
        if "groups_pred" in arrays:
            _check_pred_labels(
                arrays["groups_pred"],
                group_names,
                Path(pred) if pred else data_path,
                ",".join(_pred_column(layout, c) for c in group_cols),
                _sources(train_path),
            )
    else:
        group_names = group_cols
        if scored and "groups_pred" in arrays:
            group_scores = arrays["groups_pred"]
            if groups_are_exclusive(arrays["groups"], train_arrays.get("groups")):
                exclusive = True
                arrays["groups_pred"] = exclusive_group_predictions(
                    group_scores,
                    group_names,
                    thresholds,
                    default=0.5 if threshold is None else float(threshold),
                    positive=positive_group,
                )
            else:
                arrays["groups_pred"] = _binarise(group_scores, group_names, threshold, thresholds)

    # --- tasks
    tasks: np.ndarray | sp.csr_matrix
    tasks_train: np.ndarray | sp.csr_matrix | None = train_arrays.get("tasks")
    matrices: dict[str, sp.csr_matrix] = {}  # the long tables (task_kind "sparse")
    if layout.task_kind == "label":
        task_names = _canonical_names(
            arrays["tasks"], train_arrays.get("tasks"), data_path, task_cols[0], train_path
        )
        if "tasks_pred" in arrays:
            _check_pred_labels(
                arrays["tasks_pred"],
                task_names,
                Path(pred) if pred else data_path,
                _pred_column(layout, task_cols[0]),
                _sources(train_path),
            )
        tasks = arrays["tasks"]
    elif layout.task_kind == "indicator":
        task_names = tuple(layout.task_name(c) for c in task_cols)
        tasks = arrays["tasks"]
        if scored and "tasks_pred" in arrays:
            task_scores = arrays["tasks_pred"]
            arrays["tasks_pred"] = _binarise(task_scores, task_names, threshold, thresholds)
    else:
        # task_kind "sparse": tasks_long=, which Layout accepts only with id= (so the data
        # file's ids were read)
        assert layout.tasks_long is not None and layout.id is not None and index is not None
        id_col = layout.id

        def read_long(path: str | Path, role: str, option: str) -> tuple[np.ndarray, np.ndarray]:
            ids, labels, info = read_long_table(
                path,
                id_col=id_col,
                label_col=layout.long_label,
                delimiter=layout.delimiter,
                role=role,
                option=option,
                progress=progress,
                chunk_rows=layout.chunk_size,
            )
            files.append(info)
            return ids, labels

        long_path = Path(layout.tasks_long)
        ids, labels = read_long(long_path, "tasks_long", "tasks_long=")
        long_tables: dict[str, tuple[Path, np.ndarray, np.ndarray, pd.Index, Path]] = {
            "tasks": (long_path, ids, labels, index, data_path)
        }
        if pred_tasks_long is not None:
            p_ids, p_labels = read_long(pred_tasks_long, "pred_tasks_long", "pred_tasks_long=")
            long_tables["tasks_pred"] = (Path(pred_tasks_long), p_ids, p_labels, index, data_path)
        if train_tasks_long is not None:
            if train_index is None or train_path is None:  # train_index comes with train_path
                raise InputError(
                    ERR_LAYOUT.format(what="train_tasks_long=", options="train= with it")
                )
            t_ids, t_labels = read_long(train_tasks_long, "train_tasks_long", "train_tasks_long=")
            long_tables["tasks_train"] = (
                Path(train_tasks_long),
                t_ids,
                t_labels,
                train_index,
                train_path,
            )
        train_long = long_tables.get("tasks_train")
        task_names = _canonical_names(
            labels,
            None if train_long is None else train_long[2],
            long_path,
            layout.long_label,
            None if train_long is None else train_long[0],
        )
        if "tasks_pred" in long_tables:
            _check_pred_labels(
                p_labels,
                task_names,
                long_tables["tasks_pred"][0],
                layout.long_label,
                "the training long table"
                if train_long is not None
                else "the ground-truth long table",
            )
        matrices = {
            role: _long_to_sparse(i, lab, row_index, task_names, path, main, layout.id)
            for role, (path, i, lab, row_index, main) in long_tables.items()
        }
        tasks = matrices["tasks"]
        tasks_train = matrices.get("tasks_train")
    tasks_pred = matrices.get("tasks_pred", arrays.get("tasks_pred"))
    if train_path is not None and tasks_train is None:
        raise InputError(
            ERR_LAYOUT.format(what="train= with tasks_long=", options="train_tasks_long=")
        )
    used = {}
    if scored:
        names = (group_names if group_scores is not None else ()) + (
            task_names if task_scores is not None else ()
        )
        used = {
            str(name): float(thresholds.get(str(name), 0.5 if threshold is None else threshold))
            for name in names
        }
    return AuditData(
        groups=arrays["groups"],
        tasks=tasks,
        group_names=tuple(group_names),
        task_names=tuple(task_names),
        groups_pred=arrays.get("groups_pred"),
        tasks_pred=tasks_pred,
        groups_train=train_arrays.get("groups"),
        tasks_train=tasks_train,
        group_scores=group_scores,
        task_scores=task_scores,
        files=files,
        thresholds=used,
        exclusive_groups=exclusive,
        positive_group=positive_group,
    )


def _binarise(
    scores: np.ndarray, names: Sequence[str], threshold: float | None, thresholds: dict[str, float]
) -> np.ndarray:
    default = 0.5 if threshold is None else float(threshold)
    cut = np.array([float(thresholds.get(str(name), default)) for name in names])
    return (scores > cut[None, :]).astype(np.uint8)
