"""The input files of RBA (Reducing Bias Amplification): scores, training and test labels.

Scores file layout (one row per instance, CSV or Parquet; ``SEP`` is ``sep``,
default ``|``; group and task names are the training file's, which are
canonical):

* ``structure="single"`` (each instance gets one group and one task, as the
  imSitu verb + agent CRF): one column per (group, task) pair, named
  ``{group}{SEP}{task}``, holding the score (log-potential) of that joint output.
* ``structure="multilabel"`` (one group and any set of tasks, as the COCO CRF):
  one column per group named ``{group}`` (the group's score), and per
  (group, task) the column ``{group}{SEP}{task}`` (score of the task present
  given the group) and, optionally for all pairs or for none,
  ``{group}{SEP}{task}{SEP}absent`` (score of the task absent; 0 when the
  columns are left out). An output's score is its group score plus, per task,
  the present or absent score.

The training file and the optional test ground truth use the audit's
:class:`~biasamp.auditing._inputs.Layout` (a group column or group
indicator columns; a task column, single structure only, or task indicator
columns). Every file is read by :mod:`biasamp.engines._file_reader`; errors
name the file and the column.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from biasamp.auditing._inputs import (
    Layout,
    _align,
    _canonical_names,
    _check_ids,
    _label_names,
)
from biasamp.engines._file_reader import (
    ColumnBlock,
    FileInfo,
    InputError,
    _columns_text,
    read_blocks,
    read_header,
)

__all__ = ["RBAInputs", "load_rba_inputs", "read_rba_scores"]

ERR_SCORE_COLUMN = (
    "{file}: score column {column!r} ({what}) not found; with structure={structure} and "
    "sep={sep!r} the file needs one column per {per}. The file has columns {columns}."
)
ERR_PARTIAL_ABSENT = (
    "{file}: absent-score columns must be given for every (group, task) pair or for none: "
    "{column!r} is missing while {present!r} is present."
)
ERR_MULTILABEL_TASKS = (
    'structure="multilabel" needs task indicator columns (task_cols= or task_prefix=) in the '
    "training file, not task=."
)
ERR_ROWS = "{file}: has {got} rows but the scores file {scores} has {expected}; give id= to join."
ERR_SEP = "sep=: expected a non-empty separator, got {got!r}."


@dataclass
class RBAInputs:
    """What :func:`biasamp.rba` needs, read from files.

    ``scores`` is an (n, |G|, |T|) array (``"single"``) or the pair
    ``(group_scores (n, |G|), task_scores (n, |G|, |T|, 2))`` (``"multilabel"``);
    ``ids`` the id column of the scores file (or None); ``truth`` the test
    ground truth aligned with the scores (``{"groups", "tasks"}``, empty without
    a truth file); ``task_columns`` the training file's task columns.
    """

    scores: Any
    ids: np.ndarray | None
    groups_train: Any
    tasks_train: Any
    group_names: tuple[str, ...]
    task_names: tuple[str, ...]
    task_columns: tuple[str, ...]
    truth: dict[str, Any]
    n_rows: int


def _score_matrix(
    path: Path, header: list[str], columns: list[str], what: str, per: str, structure: str, sep: str
) -> tuple[str, ...]:
    present = set(header)
    for column in columns:
        if column not in present:
            raise InputError(
                ERR_SCORE_COLUMN.format(
                    file=path,
                    column=column,
                    what=what,
                    structure=structure,
                    sep=sep,
                    per=per,
                    columns=_columns_text(header),
                )
            )
    return tuple(columns)


def read_rba_scores(
    path: str | Path,
    *,
    structure: str,
    group_names: tuple[str, ...],
    task_names: tuple[str, ...],
    sep: str = "|",
    id_col: str | None = None,
    delimiter: str | None = None,
    progress: bool = False,
) -> tuple[Any, np.ndarray | None, Any]:
    """The scores of :func:`biasamp.rba` from a scores file (layout in the module docs).

    Returns ``(scores, ids, info)``: ``scores`` is an (n, |G|, |T|) array for
    ``"single"``, a pair ``(group_scores (n, |G|), task_scores (n, |G|, |T|, 2))``
    for ``"multilabel"``; ``ids`` the ``id_col`` column (or None); ``info`` the
    file's :class:`~biasamp.engines._file_reader.FileInfo`.

    Examples
    --------
    >>> import os, tempfile
    >>> import pandas as pd
    >>> path = os.path.join(tempfile.mkdtemp(), "scores.csv")
    >>> pd.DataFrame({"m|ski": [0.2, 0.9], "w|ski": [0.8, 0.1]}).to_csv(path, index=False)
    >>> scores, ids, info = read_rba_scores(path, structure="single",
    ...                                     group_names=("m", "w"), task_names=("ski",))
    >>> scores.shape, ids, info.n_rows
    ((2, 2, 1), None, 2)
    """
    path = Path(path)
    _, header = read_header(path, delimiter=delimiter)
    n_g, n_t = len(group_names), len(task_names)
    pair_cols = [f"{g}{sep}{t}" for g in group_names for t in task_names]
    blocks = []
    if id_col is not None:
        blocks.append(ColumnBlock("id", "id", (id_col,), "id="))
    if structure == "single":
        blocks.append(
            ColumnBlock(
                "pairs",
                "score",
                _score_matrix(
                    path,
                    header,
                    pair_cols,
                    "(group, task) score",
                    "(group, task) pair",
                    structure,
                    sep,
                ),
                'structure="single"',
            )
        )
    else:
        blocks.append(
            ColumnBlock(
                "group",
                "score",
                _score_matrix(
                    path,
                    header,
                    [str(g) for g in group_names],
                    "group score",
                    "group",
                    structure,
                    sep,
                ),
                'structure="multilabel"',
            )
        )
        blocks.append(
            ColumnBlock(
                "present",
                "score",
                _score_matrix(
                    path,
                    header,
                    pair_cols,
                    "task-present score",
                    "(group, task) pair",
                    structure,
                    sep,
                ),
                'structure="multilabel"',
            )
        )
        absent_cols = [f"{c}{sep}absent" for c in pair_cols]
        found = [c for c in absent_cols if c in set(header)]
        if found and len(found) < len(absent_cols):
            missing = next(c for c in absent_cols if c not in set(header))
            raise InputError(ERR_PARTIAL_ABSENT.format(file=path, column=missing, present=found[0]))
        if found:
            blocks.append(
                ColumnBlock("absent", "score", tuple(absent_cols), 'structure="multilabel"')
            )
    arrays, info = read_blocks(
        path, blocks, role="scores", delimiter=delimiter, header=header, progress=progress
    )
    ids = arrays.get("id")
    if structure == "single":
        return arrays["pairs"].reshape(-1, n_g, n_t), ids, info
    present = arrays["present"].reshape(-1, n_g, n_t)
    absent = (
        arrays["absent"].reshape(-1, n_g, n_t) if "absent" in arrays else np.zeros_like(present)
    )
    return (arrays["group"], np.stack([present, absent], axis=-1)), ids, info


def _read_truth(
    path: Path,
    layout: Layout,
    task_cols: tuple[str, ...],
    task_option: str,
    *,
    id_col: str | None,
    progress: bool,
) -> tuple[dict[str, np.ndarray], FileInfo]:
    """The group and task columns (and ids) of a ground-truth file."""
    blocks = [
        ColumnBlock("groups", layout.group_kind, layout.group_columns(), layout.group_option()),
        ColumnBlock("tasks", layout.task_kind, task_cols, task_option),
    ]
    if id_col is not None:
        blocks.append(ColumnBlock("id", "id", (id_col,), "id="))
    return read_blocks(path, blocks, role=path.name, delimiter=layout.delimiter, progress=progress)


def load_rba_inputs(
    layout: Layout,
    *,
    scores: str | Path,
    train: str | Path,
    structure: str,
    truth: str | Path | None = None,
    sep: str = "|",
    progress: bool = False,
) -> RBAInputs:
    """Read the scores, the training labels and the optional test labels of RBA.

    Parameters
    ----------
    layout : Layout
        The group and task columns of the training and truth files;
        ``layout.id`` joins the scores and the truth (and is carried to the
        output), ``layout.delimiter`` is the delimiter of every file.
    scores : path
        The scores file (layout in the module docs).
    train : path
        The training ground truth; its labels are canonical.
    structure : {"single", "multilabel"}
        The output structure (``"multilabel"`` needs task indicator columns).
    truth : path, optional
        The test ground truth, for the performance columns of RBA's table.
    sep : str, default "|"
        The separator of the score column names.
    progress : bool, default False
        Show a progress bar while reading.

    Returns
    -------
    RBAInputs

    Examples
    --------
    >>> import os, tempfile
    >>> import pandas as pd
    >>> folder = tempfile.mkdtemp()
    >>> train, scores = os.path.join(folder, "train.csv"), os.path.join(folder, "scores.csv")
    >>> pd.DataFrame({"g": ["m", "w", "w"], "t": ["ski", "cook", "ski"]}).to_csv(train, index=False)
    >>> pd.DataFrame({"m|cook": [0.1], "m|ski": [0.5], "w|cook": [0.2],
    ...               "w|ski": [0.9]}).to_csv(scores, index=False)
    >>> inputs = load_rba_inputs(Layout(group="g", task="t"), scores=scores, train=train,
    ...                          structure="single")
    >>> inputs.group_names, inputs.task_names, inputs.scores.shape
    (('m', 'w'), ('cook', 'ski'), (1, 2, 2))
    """
    if not sep:
        raise ValueError(ERR_SEP.format(got=sep))
    if structure == "multilabel" and layout.task_kind != "indicator":
        raise InputError(ERR_MULTILABEL_TASKS)
    delimiter = layout.delimiter
    train_path = Path(train)
    _, train_header = read_header(train_path, delimiter=delimiter)
    task_cols, task_option = layout.task_columns(train_path, train_header)
    train_arrays, _ = _read_truth(
        train_path, layout, task_cols, task_option, id_col=None, progress=progress
    )
    group_names = (
        _label_names(train_arrays["groups"])
        if layout.group_kind == "label"
        else tuple(layout.group_columns())
    )
    task_names = (
        _label_names(train_arrays["tasks"])
        if layout.task_kind == "label"
        else tuple(layout.task_name(c) for c in task_cols)
    )
    scores_path = Path(scores)
    score_arrays, ids, info = read_rba_scores(
        scores_path,
        structure=structure,
        group_names=group_names,
        task_names=task_names,
        sep=sep,
        id_col=layout.id,
        delimiter=delimiter,
        progress=progress,
    )
    # ids are carried to the output: duplicates would only surface when it is measured
    index = _check_ids(ids, scores_path, str(layout.id)) if ids is not None else None
    truth_arrays: dict[str, Any] = {}
    if truth is not None:
        truth_path = Path(truth)
        found, truth_info = _read_truth(
            truth_path, layout, task_cols, task_option, id_col=layout.id, progress=progress
        )
        # the training labels are canonical: name the file and column of an unknown one
        for role, column in (("groups", layout.group), ("tasks", layout.task)):
            if column is not None:
                _canonical_names(found[role], train_arrays[role], truth_path, column, train_path)
        if index is not None:
            assert layout.id is not None  # the scores' ids were read with it
            _check_ids(found["id"], truth_path, layout.id)
            positions = _align(index, found["id"], scores_path, truth_path, layout.id)
            found = {k: v[positions] for k, v in found.items()}
        elif truth_info.n_rows != info.n_rows:
            raise InputError(
                ERR_ROWS.format(
                    file=truth_path, got=truth_info.n_rows, scores=scores, expected=info.n_rows
                )
            )
        truth_arrays = {"groups": found["groups"], "tasks": found["tasks"]}
    return RBAInputs(
        scores=score_arrays,
        ids=ids,
        groups_train=train_arrays["groups"],
        tasks_train=train_arrays["tasks"],
        group_names=group_names,
        task_names=task_names,
        task_columns=task_cols,
        truth=truth_arrays,
        n_rows=info.n_rows,
    )
