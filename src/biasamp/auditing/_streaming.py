"""An audit's files counted into tables, chunk by chunk: the bounded-memory side of the contract.

The in-memory side (:func:`~biasamp.auditing._inputs.load_audit`) keeps every needed
column of every row as compact arrays, so its memory grows with rows x columns.
The co-occurrence metrics (``mals``, ``directional-a2t``, ``directional-t2a``)
only need additive counts, so when the layout allows it the files are counted
chunk by chunk with :func:`biasamp.counts_from_files` and the metrics come
from the tables (:func:`biasamp.mals_from_counts`,
:func:`biasamp.directional_from_counts`); memory is about
``chunk_size x columns`` whatever the number of rows.

When it applies (:func:`plan_streaming` says why not otherwise): the data file
(any file the validating reader reads: CSV or TSV with any delimiter, plain or
compressed, or Parquet) holds the group,
the tasks (one label column or indicator columns) and the 0/1 predictions
(``pred_prefix``), or the predictions are in a file joined on the id column
(:func:`biasamp.engines._files.counts_from_joined_files`); an optional training
file has the same layout; label columns are text (a CSV file's are read as
text, on the numpy engine when pyarrow would infer numbers) and indicator
columns numeric or boolean in pyarrow's reading of the file. Training rows with neither a group nor a task are not counted, as the
library's ``train_rows="labelled"`` does; the engine still reports how many
rows the file holds.

Passes over a file: one counting pass, the SHA-256 of its bytes read in a thread
alongside (:class:`_Digests`), and with ``replicates`` one more counting pass
under Poisson replicate weights (a
:class:`~biasamp.counts.PoissonReplicates`), drawn by global row index, so an
interval equals the in-memory bootstrap exactly. Label columns (categorical
layouts) need their label sets, checked with the same messages as the in-memory
path: the numpy engine finds them while counting (:func:`_discovers`; the table
is then laid out by the canonical names), the other roads (DuckDB, ``pred=``
joins, long tables, intersections) read the label columns in a pass of their
own first, which also spares DuckDB its ragged-row check. The bootstrap pass always
runs on the numpy engine (its weights are per row). The engine ``auto`` counts
with DuckDB when it is installed (``biasamp[duckdb]``), reads the files
(Parquet, ``,``-delimited CSV, plain or ``.gz``) and is measured to be faster
(:func:`~biasamp.engines._files.choose_engine`: many rows, few role columns),
and with numpy otherwise; ``engine="duckdb"`` on another delimiter is refused
with the reason, on another compression counted by numpy. When the
counting engine refuses a value, the file is re-read chunk by chunk by the
validating reader (:mod:`biasamp.engines._file_reader`, without
keeping the chunks), which names the column and data row as the in-memory
path does.
"""

from __future__ import annotations

import dataclasses
import importlib.util
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from biasamp.auditing._inputs import (
    LabelNames,
    Layout,
    _canonical_names,
    _check_pred_labels,
    _check_same_columns,
    _pred_column,
    _prediction_blocks,
    _sources,
    no_predictions_error,
)
from biasamp.counts._count_table import CountTable, with_label_names
from biasamp.counts._pattern_counts import PatternCountTable
from biasamp.counts._poisson import PoissonReplicates
from biasamp.engines._derived_roles import derived_role_values
from biasamp.engines._exclusive_groups import positive_group
from biasamp.engines._file_formats import (
    RaggedRowError,
    compression_of,
    default_delimiter,
    file_schema,
)
from biasamp.engines._file_reader import (
    _CHUNK_CELLS,
    _FORMAT_CSV,
    _MIN_CHUNK_ROWS,
    ERR_NO_ROWS,
    ColumnBlock,
    FileInfo,
    InputError,
    _check_columns,
    _file_format,
    file_sha256,
    read_blocks,
    read_header,
)
from biasamp.engines._files import (
    choose_engine,
    counts_from_files,
    counts_from_joined_files,
    iter_file_batches,
    may_drop_rows,
    pattern_counts_from_files,
)
from biasamp.engines._long_tables import counts_from_long_files, pattern_counts_from_long_files
from biasamp.inputs._column_roles import IntersectedColumns, ScoreColumns, role_columns

__all__ = [
    "ENGINES",
    "StreamPlan",
    "StreamRefused",
    "StreamedData",
    "load_streamed",
    "plan_streaming",
    "resolve_engine",
    "stream_refusal",
]

#: The counting engines: ``auto`` is DuckDB when it is installed, else numpy.
ENGINES = ("auto", "numpy", "duckdb")

ERR_NO_DUCKDB = "engine=\"duckdb\" needs duckdb: pip install 'biasamp[duckdb]'."
ERR_ENGINE = "engine: expected one of {choices}, got {got!r}."
ERR_SWAP_STREAM = (
    "the swap test against chance (n_perm=) streams one data file holding its predictions "
    "(pred_prefix=); predictions joined from pred= are swapped in memory"
)
ERR_STREAM_VALUE = '{detail} (the in-memory reader accepts the file: run with stream="off")'

_DUCKDB_CODECS = (None, "gzip")  # compressions of ','-delimited files DuckDB reads


@dataclass(frozen=True)
class StreamPlan:
    """What the streaming path reads: files, their formats and column blocks, the roles."""

    data: Path
    train: Path | None
    formats: dict[Path, str]
    blocks: tuple[ColumnBlock, ...]
    train_blocks: tuple[ColumnBlock, ...]
    layout: Layout
    engine: str
    #: predictions in another file joined on ``layout.id`` (``pred=``), and their blocks
    pred: Path | None = None
    pred_blocks: tuple[ColumnBlock, ...] = ()
    #: a multi-attribute metric is asked for: pattern count tables are counted too
    multi: bool = False
    #: score predictions: ``score > threshold``, ``thresholds`` per label, else ``threshold``
    #: (else 0.5); ``exclusive`` group scores are one decision (set by :func:`load_streamed`)
    threshold: float | None = None
    thresholds: dict[str, float] = field(default_factory=dict)
    positive_group: str | None = None
    exclusive: bool = False
    #: the data file's ids are checked unique (``id=`` without ``pred=``)
    check_ids: bool = False
    #: long ``(id, label)`` task tables by role: ``tasks``, ``tasks_pred``, ``tasks_train``
    long: dict[str, Path] = field(default_factory=dict)

    def cut(self, name: str) -> float:
        """The threshold of label ``name``."""
        default = 0.5 if self.threshold is None else float(self.threshold)
        return float(self.thresholds.get(str(name), default))


class StreamRefused(Exception):
    """The streamed join refused a value: the in-memory reader names the file, column and row."""


@dataclass
class StreamedData:
    """The audit data of the streaming path: count tables instead of rows.

    Offers what a caller reads from the in-memory
    :class:`~biasamp.auditing._inputs.AuditData` (names, files, ``has``).
    """

    group_names: tuple[str, ...]
    task_names: tuple[str, ...]
    evaluation: CountTable
    train: CountTable | None
    #: without a training file, the evaluation ground truth's labelled rows when they are
    #: fewer than its rows (the directional signs, as ``train_rows="labelled"`` takes them)
    signs: CountTable | None = None
    replicates: CountTable | None = None
    #: the evaluation rows under the swap test's indicators (``n_perm`` swapped tables),
    #: by the label roles a swap exchanges (``"tasks"``, ``"groups"``, ``"groups,tasks"``)
    swapped: dict[str, CountTable] | None = None
    #: task-set (pattern) counts of the multi-attribute metrics, training and evaluation
    patterns: tuple[PatternCountTable, PatternCountTable] | None = None
    files: list[FileInfo] = field(default_factory=list)
    thresholds: dict[str, float] = field(default_factory=dict)
    group_scores: None = None
    task_scores: None = None
    scores: None = None

    @property
    def n(self) -> int:
        return int(self.evaluation.n_rows)

    @property
    def n_train(self) -> int | None:
        return None if self.train is None else int(self.train.n_rows)

    def has(self, role: str) -> bool:
        if role in ("groups_train", "tasks_train"):
            return self.train is not None
        if role == "tasks_multilabel":
            return self.patterns is not None
        return role in self.evaluation.roles

    def names(self) -> LabelNames:
        return {"group_names": self.group_names, "task_names": self.task_names}


# --- planning ------------------------------------------------------------------------


def stream_refusal(
    layout: Layout,
    *,
    pred: str | Path | None = None,
    long_tables: bool = False,
    scored: bool = False,
    engine: str = "auto",
    sweep: bool = False,
) -> str | None:
    """Why the inputs rule counting out, read from the options alone (None: they allow it).

    :func:`plan_streaming` asks first, then reads the headers. The arguments
    are those of :func:`plan_streaming`.

    Examples
    --------
    >>> stream_refusal(Layout(group="g", task="t", pred_prefix="pred_"), scored=True, sweep=True)
    'the threshold sweeps of prediction scores are computed on the rows'
    """
    del engine  # every engine counts every layout that streams
    if layout.missing == "category":
        return 'missing="category" reads the group columns in memory'
    if scored and sweep:
        return "the threshold sweeps of prediction scores are computed on the rows"
    if long_tables and not layout.tasks_long:
        return "long tables of predicted or training tasks need tasks_long="
    if pred is not None and layout.id is None:
        return "pred= needs id= (the in-memory reader says so)"
    if not layout.pred_prefix and pred is None and not long_tables:
        return "no predictions in the data file (pred_prefix=)"
    return None


def _file_reason(
    path: Path, fmt: str, layout: Layout, blocks: tuple[ColumnBlock, ...]
) -> str | None:
    """Why a file cannot be streamed (None: it can); header errors are raised as InputError."""
    import pyarrow as pa

    try:
        schema = file_schema(str(path), fmt, delimiter=layout.delimiter)
    except RaggedRowError as exc:
        raise InputError(str(exc)) from None
    except Exception as exc:  # pyarrow cannot read it: the in-memory reader explains why
        return f"{path}: pyarrow cannot read it ({str(exc).strip()})"
    for block in blocks:
        for column in block.columns:
            if schema.names.count(column) != 1:
                return f"{path}: column {column!r} is not read as one column by pyarrow"
            kind = schema.field(column).type
            if block.kind == "label":
                if not _is_text(kind) and fmt != _FORMAT_CSV:
                    return f"{path}: label column {column!r} is read as {kind}, not text"
            elif not (
                pa.types.is_integer(kind) or pa.types.is_floating(kind) or pa.types.is_boolean(kind)
            ):
                return f"{path}: indicator column {column!r} is read as {kind}"
    return None


def _long_reason(path: Path, fmt: str, layout: Layout) -> str | None:
    """Why a long table cannot be counted by the engines (None: it can): its id and label
    columns must be there, the labels text (a CSV file's are read as text, as the in-memory
    reader reads them)."""
    try:
        schema = file_schema(str(path), fmt, delimiter=layout.delimiter)
    except Exception as exc:  # pyarrow cannot read it: the in-memory reader explains why
        return f"{path}: pyarrow cannot read it ({str(exc).strip()})"
    for column in (str(layout.id), layout.long_label):
        if schema.names.count(column) != 1:
            return f"{path}: column {column!r} is not read as one column by pyarrow"
    kind = schema.field(layout.long_label).type
    if not _is_text(kind) and fmt != _FORMAT_CSV:
        return f"{path}: label column {layout.long_label!r} is read as {kind}, not text"
    return None


def _is_text(kind: Any) -> bool:
    import pyarrow as pa

    return bool(pa.types.is_string(kind) or pa.types.is_large_string(kind))


def _label_text_reason(
    files: list[tuple[Path, list[str]]], formats: dict[Path, str], layout: Layout
) -> str | None:
    """Why DuckDB cannot count the files (None: it can): pyarrow infers a CSV label or id
    column as numbers, which the numpy engine reads as text (``01`` stays ``"01"``, as in
    memory) and DuckDB's reader would read as numbers."""
    import pyarrow as pa

    for path, columns in files:
        if formats[path] != _FORMAT_CSV:
            continue
        schema = file_schema(str(path), formats[path], delimiter=layout.delimiter)
        for column in columns:
            kind = schema.field(column).type
            if pa.types.is_binary(kind):
                continue  # not UTF-8: every engine refuses it with the reader's error
            if not _is_text(kind):
                return (
                    f"{path}: column {column!r} is read as {schema.field(column).type} "
                    "by inference; the numpy engine reads it as text"
                )
    return None


def _duckdb_reason(formats: dict[Path, str], layout: Layout) -> str | None:
    """Why the DuckDB engine cannot read the files (None: it can): it reads Parquet and
    ``,``-delimited CSV; the numpy engine reads the others."""
    for path, fmt in formats.items():
        if fmt == _FORMAT_CSV and default_delimiter(path, layout.delimiter) != ",":
            return f"{path}: the DuckDB engine reads ','-delimited CSV only"
    return None


def _compression_reason(formats: dict[Path, str]) -> str | None:
    """Why DuckDB cannot decompress a file (None: it can): it reads plain or ``.gz`` CSV; the
    numpy engine counts the others, even when DuckDB is asked for (the same tables)."""
    for path, fmt in formats.items():
        if fmt == _FORMAT_CSV and compression_of(path) not in _DUCKDB_CODECS:
            return f"{path}: the DuckDB engine reads plain or .gz CSV only"
    return None


def _id_reason(
    paths: tuple[Path, ...], formats: dict[Path, str], column: str, delimiter: str | None
) -> str | None:
    """Why the id columns cannot be joined by the engine (None: they can).

    The in-memory reader compares ids as text: the engine joins text ids (a CSV
    file's ids are read as text, whatever pyarrow would infer), and integer ids
    stored as integers in Parquet files (no parsing, so ``007`` and ``7`` cannot
    meet as they would once a CSV reader has parsed them).
    """
    import pyarrow as pa

    kinds = [
        file_schema(str(path), formats[path], delimiter=delimiter).field(column).type
        for path in paths
    ]
    text = all(
        _is_text(k) or formats[path] == _FORMAT_CSV for path, k in zip(paths, kinds, strict=True)
    )
    stored_integers = all(pa.types.is_integer(k) for k in kinds) and all(
        formats[path] != _FORMAT_CSV for path in paths
    )
    if text or stored_integers:
        return None
    shown = ", ".join(f"{path}: {kind}" for path, kind in zip(paths, kinds, strict=True))
    return f"id={column!r} is read as {shown}; such ids are joined in memory, as text"


def plan_streaming(
    layout: Layout,
    *,
    data: str | Path,
    pred: str | Path | None = None,
    train: str | Path | None = None,
    long_tables: bool = False,
    scored: bool = False,
    engine: str = "auto",
    patterns: bool = False,
    threshold: float | None = None,
    thresholds: dict[str, float] | None = None,
    positive_group: str | None = None,
    sweep: bool = False,
    pred_tasks_long: str | Path | None = None,
    train_tasks_long: str | Path | None = None,
) -> tuple[StreamPlan | None, str]:
    """How an audit's files are counted into tables, or ``(None, reason)`` when they cannot be.

    Reads the headers (and the schemas pyarrow infers) only; the counting is
    :func:`load_streamed`.

    Parameters
    ----------
    layout : Layout
        Which columns hold what.
    data, pred, train : path
        The evaluation file, a predictions file joined on ``layout.id``, the
        training file (as in :func:`~biasamp.auditing._inputs.load_audit`).
    long_tables : bool, default False
        Long ``(id, label)`` tables of predicted or training tasks are given
        (``pred_tasks_long``, ``train_tasks_long``: their paths).
    scored : bool, default False
        Predictions are scores to threshold (also implied by ``threshold`` or
        ``thresholds``).
    engine : {"auto", "numpy", "duckdb"}, default "auto"
        The counting engine (:func:`resolve_engine`).
    patterns : bool, default False
        Count the task-set (pattern) tables of the multi-attribute metrics too.
    threshold, thresholds, positive_group
        Score predictions: ``score > threshold`` (default 0.5), per-label
        ``thresholds`` first; the positive group of two exclusive group score
        columns (as in :func:`~biasamp.auditing._inputs.load_audit`).
    sweep : bool, default False
        Threshold sweeps are asked for: they need the rows of scored predictions.
    pred_tasks_long, train_tasks_long : path, optional
        Long ``(id, label)`` tables of the predicted and training tasks, with
        ``layout.tasks_long`` (counted by
        :func:`~biasamp.engines._long_tables.counts_from_long_files`).

    Returns
    -------
    (StreamPlan or None, str)
        The plan and ``""``, or None and why the files are read in memory.

    Raises
    ------
    InputError
        Header problems, with the in-memory path's messages: missing columns,
        no prediction columns, task columns that differ between files.

    Examples
    --------
    >>> import os, tempfile
    >>> import pandas as pd
    >>> path = os.path.join(tempfile.mkdtemp(), "audit.csv")
    >>> pd.DataFrame({"g": ["m", "w"], "ski": [1, 0], "pred_ski": [1, 1]}).to_csv(path, index=False)
    >>> plan, reason = plan_streaming(Layout(group="g", task_cols=("ski",), pred_prefix="pred_"),
    ...                               data=path, engine="numpy")
    >>> plan.engine, [b.role for b in plan.blocks]
    ('numpy', ['groups', 'tasks', 'tasks_pred'])
    """
    pred_path = Path(pred) if pred is not None else None
    scored = scored or threshold is not None or bool(thresholds)
    reason = stream_refusal(
        layout, pred=pred_path, long_tables=long_tables, scored=scored, engine=engine, sweep=sweep
    )
    if reason is not None:
        return None, reason
    data_path = Path(data)
    long: dict[str, Path] = {}
    if layout.tasks_long is not None:
        long = {
            role: Path(path)
            for role, path in (
                ("tasks", layout.tasks_long),
                ("tasks_pred", pred_tasks_long),
                ("tasks_train", train_tasks_long),
            )
            if path is not None
        }
        if (train is None) != ("tasks_train" not in long):
            return None, "train= and train_tasks_long= go together"  # in memory: the error
    formats = {data_path: _file_format(data_path)}
    for long_path in long.values():
        formats[long_path] = _file_format(long_path)
    _, header = read_header(data_path, delimiter=layout.delimiter)
    group_cols = layout.group_columns()
    task_cols, task_option = layout.task_columns(data_path, header)
    truth = (
        ColumnBlock("groups", layout.group_kind, group_cols, layout.group_option()),
        ColumnBlock("tasks", layout.task_kind, task_cols, task_option),
    )
    _check_columns(data_path, header, truth)
    check_ids = layout.id is not None and pred_path is None
    if check_ids:
        _check_columns(data_path, header, (ColumnBlock("id", "id", (str(layout.id),), "id="),))
    pred_file, pred_header = data_path, header
    if pred_path is not None:
        formats[pred_path] = _file_format(pred_path)
        _, pred_header = read_header(pred_path, delimiter=layout.delimiter)
        pred_file = pred_path
        id_block = ColumnBlock("id", "id", (str(layout.id),), "id=")
        _check_columns(data_path, header, (id_block,))
        _check_columns(pred_path, pred_header, (id_block,))
    pred_blocks = (
        _prediction_blocks(layout, pred_file, pred_header, group_cols, task_cols, scored)
        if pred_path is not None or layout.pred_prefix
        else []
    )
    if not pred_blocks and "tasks_pred" not in long:
        if pred_path is None and not layout.pred_prefix:
            return None, "no predictions (pred_prefix=, pred= or pred_tasks_long=)"
        raise no_predictions_error(layout, pred_file, group_cols, task_cols)
    blocks = truth if pred_path is not None else truth + tuple(pred_blocks)
    train_path = Path(train) if train is not None else None
    train_blocks: tuple[ColumnBlock, ...] = ()
    if train_path is not None:
        formats[train_path] = _file_format(train_path)
        _, train_header = read_header(train_path, delimiter=layout.delimiter)
        train_task_cols, _ = layout.task_columns(train_path, train_header)
        if layout.task_prefix is not None:
            _check_same_columns(train_path, train_task_cols, data_path, task_cols, "task")
        train_blocks = truth
        _check_columns(train_path, train_header, train_blocks)
    streamed_files: list[tuple[Path | None, tuple[ColumnBlock, ...]]] = [
        (data_path, blocks),
        (train_path, train_blocks),
        (pred_path, tuple(pred_blocks)),
    ]
    for path, file_blocks in streamed_files:
        if path is not None:
            reason = _file_reason(path, formats[path], layout, file_blocks)
            if reason is not None:
                return None, reason
    for long_path in long.values():
        reason = _long_reason(long_path, formats[long_path], layout)
        if reason is not None:
            return None, reason
    id_files = [p for p in (data_path, pred_path, long.get("tasks"), long.get("tasks_pred")) if p]
    for files in (id_files, [p for p in (train_path, long.get("tasks_train")) if p]):
        if len(files) > 1:
            reason = _id_reason(tuple(files), formats, str(layout.id), layout.delimiter)
            if reason is not None:
                return None, reason
    if engine not in ENGINES:
        raise ValueError(ERR_ENGINE.format(choices=", ".join(map(repr, ENGINES)), got=engine))
    label_files = [
        (path, [c for b in file_blocks if b.kind == "label" for c in b.columns])
        for path, file_blocks in streamed_files
        if path is not None
    ]
    label_files += [(long_path, [layout.long_label]) for long_path in long.values()]
    if layout.id is not None and (check_ids or pred_path is not None or long):
        # the ids are read as text too
        label_files += [
            (path, [str(layout.id)])
            for path in (data_path, pred_path, train_path if long else None, *long.values())
            if path is not None
        ]
    duckdb_reason = _duckdb_reason(formats, layout) or _label_text_reason(
        label_files, formats, layout
    )
    if engine == "duckdb" and duckdb_reason is not None:
        return None, duckdb_reason
    # the numpy engine reads every file the reader reads
    unread = duckdb_reason or _compression_reason(formats)
    if unread is not None:
        engine = "numpy"
    elif engine == "auto":  # DuckDB where it is measured to be faster
        widest = max(len(b.columns) for _, file_blocks in streamed_files for b in file_blocks)
        wide = sum(len(b.columns) for b in blocks)
        engine = choose_engine(
            [str(path) for path in formats], max(widest, wide), delimiter=layout.delimiter
        )
    else:
        engine = resolve_engine(engine)
    return StreamPlan(
        data=data_path,
        train=train_path,
        formats=formats,
        blocks=blocks,
        train_blocks=train_blocks,
        layout=layout,
        engine=engine,
        pred=pred_path,
        pred_blocks=tuple(pred_blocks) if pred_path is not None else (),
        multi=patterns,
        threshold=threshold,
        thresholds=dict(thresholds or {}),
        positive_group=positive_group,
        check_ids=check_ids and not long,
        long=long,
    ), ""


def resolve_engine(engine: str) -> str:
    """The streaming engine that runs: ``auto`` is DuckDB when it is installed, else numpy
    (:func:`plan_streaming` asks :func:`~biasamp.engines._files.choose_engine` instead, which
    picks DuckDB only where it is measured to be faster).

    Examples
    --------
    >>> resolve_engine("numpy")
    'numpy'
    """
    if engine not in ENGINES:
        raise ValueError(ERR_ENGINE.format(choices=", ".join(map(repr, ENGINES)), got=engine))
    has_duckdb = importlib.util.find_spec("duckdb") is not None
    if engine == "auto":
        return "duckdb" if has_duckdb else "numpy"
    if engine == "duckdb" and not has_duckdb:
        raise ImportError(ERR_NO_DUCKDB)
    return engine


# --- counting --------------------------------------------------------------------------


def _chunk_rows(layout: Layout, blocks: tuple[ColumnBlock, ...], n_boot: int = 0) -> int:
    """``chunk_size=``, or about four million cells (columns plus weights) per chunk."""
    if layout.chunk_size is not None:
        return layout.chunk_size
    n_cols = max(1, sum(len(b.columns) for b in blocks))
    return max(_MIN_CHUNK_ROWS, _CHUNK_CELLS // (n_cols + 3 * n_boot))


def _diagnose(
    plan: StreamPlan, path: Path, blocks: tuple[ColumnBlock, ...], role: str, exc: Exception
) -> InputError:
    """The in-memory validator's error for a file the streaming layer refused.

    Re-reads the file chunk by chunk without keeping the chunks; raises its
    :class:`InputError` (file, column, data row) when it finds the problem, else
    returns an error with the streaming layer's message (which names the file
    and the chunk).
    """
    read_blocks(
        path,
        blocks,
        role=role,
        delimiter=plan.layout.delimiter,
        chunk_rows=_chunk_rows(plan.layout, blocks),
        keep=False,
    )
    detail = str(exc)
    if not detail.startswith(str(path)):
        detail = f"{path}: {detail}"
    return InputError(ERR_STREAM_VALUE.format(detail=detail))


def _label_sets(
    plan: StreamPlan, path: Path, blocks: tuple[ColumnBlock, ...], role: str
) -> tuple[dict[str, np.ndarray], int]:
    """Distinct values of each label block of a file (one pass over those columns only)."""
    import pyarrow.compute as pc

    labels = [b for b in blocks if b.kind == "label"]
    seen: dict[str, set[Any]] = {b.role: set() for b in labels}
    columns = [c for b in labels for c in b.columns]
    n_rows = 0
    chunk = _chunk_rows(plan.layout, tuple(labels))
    try:
        for batch in iter_file_batches(
            str(path),
            columns,
            chunk_size=chunk,
            file_format=plan.formats[path],
            delimiter=plan.layout.delimiter,
            label_columns=columns,
        ):
            n_rows += batch.num_rows
            for block in labels:
                for column in block.columns:
                    values = batch.column(batch.schema.get_field_index(column))
                    if values.null_count or (len(block.columns) > 1 and _has_empty(values)):
                        raise ValueError(f"column {column!r} has missing values")
                if len(block.columns) > 1:  # the intersections' labels, a few per batch
                    rc = role_columns(block.role, IntersectedColumns(block.columns))
                    seen[block.role].update(derived_role_values(batch, rc).categories)
                else:
                    seen[block.role].update(pc.unique(values).to_pylist())
    except (ValueError, TypeError) as exc:
        raise _diagnose(plan, path, blocks, role, exc) from exc
    for block in labels:
        if "" in seen[block.role]:  # an empty CSV field: missing in the in-memory reader
            raise _diagnose(
                plan,
                path,
                blocks,
                role,
                ValueError(f"column {block.columns[0]!r} has missing values"),
            )
    return {r: np.array(sorted(v), dtype=object) for r, v in seen.items()}, n_rows


def _has_empty(values: Any) -> bool:
    """Whether a text column holds an empty string (an empty CSV field: missing in memory)."""
    import pyarrow.compute as pc

    return bool(pc.any(pc.equal(values, "")).as_py())


def _role_specs(plan: StreamPlan, blocks: tuple[ColumnBlock, ...]) -> dict[str, Any]:
    """The ``counts_from_files`` roles of the column blocks (label names as in memory):
    a label column, the intersection of several (``group=A,B``), indicator columns, or
    score columns thresholded as the in-memory path does."""
    layout = plan.layout
    specs: dict[str, Any] = {}
    for block in blocks:
        if block.kind == "label":
            specs[block.role] = (
                block.columns[0] if len(block.columns) == 1 else IntersectedColumns(block.columns)
            )
            continue
        truth = (
            layout.group_columns()
            if block.role.startswith("groups")
            else [b for b in plan.blocks if b.role == "tasks"][0].columns
        )
        name = (lambda c: c) if block.role.startswith("groups") else layout.task_name
        columns = {column: name(t) for column, t in zip(block.columns, truth, strict=True)}
        if block.kind == "score":
            exclusive = plan.exclusive and block.role == "groups_pred"
            specs[block.role] = ScoreColumns(
                columns,
                threshold={label: plan.cut(label) for label in columns.values()},
                exclusive=exclusive,
                positive=plan.positive_group if exclusive else None,
            )
        else:
            specs[block.role] = columns
    return specs


def _count(
    plan: StreamPlan,
    path: Path,
    blocks: tuple[ColumnBlock, ...],
    role: str,
    *,
    names: LabelNames,
    engine: str | None = None,
    chunk_size: int | None = None,
    replicates: Any = None,
    rows: str = "all",
    progress: bool = False,
    on_labels: Callable[[dict[str, tuple[Any, ...]]], None] | None = None,
) -> tuple[CountTable, int]:
    """Count one file's blocks (default engine: the plan's; chunks: :func:`_chunk_rows`);
    return the table and the number of rows read (``rows="labelled"`` may keep fewer).
    ``on_labels``: the label names None in ``names`` are found while counting (numpy)."""
    engine = _rows_engine(engine or plan.engine, blocks, rows)
    chunk_size = chunk_size or _chunk_rows(plan.layout, blocks)
    rows_read = [0]

    def read(n: int) -> None:
        rows_read[0] += n

    try:
        table = counts_from_files(
            str(path),
            **_role_specs(plan, blocks),
            **names,
            chunk_size=chunk_size,
            engine=engine,
            file_format=plan.formats[path],
            delimiter=plan.layout.delimiter,
            replicates=replicates,
            rows=rows,
            names_source=f"the {'training' if role == 'train' else 'data'} file {path}",
            progress=progress,
            on_rows=read,
            on_labels=on_labels,
        )
    except Exception as exc:
        raise _engine_error(exc, lambda e: _diagnose(plan, path, blocks, role, e)) from exc
    return table, rows_read[0]


def _count_patterns(
    plan: StreamPlan,
    path: Path,
    blocks: tuple[ColumnBlock, ...],
    names: LabelNames,
    replicates: PoissonReplicates | None = None,
) -> PatternCountTable:
    """The pattern count table of one file (the training file's rows with a group or a task;
    ``replicates``: the evaluation rows under their bootstrap weights, numpy engine)."""
    rows = "labelled" if path == plan.train else "all"
    n_boot = 0 if replicates is None else replicates.n_boot
    engine = "numpy" if replicates is not None else _rows_engine(plan.engine, blocks, rows)
    try:
        return pattern_counts_from_files(
            str(path),
            **_role_specs(plan, blocks),
            **names,
            chunk_size=_chunk_rows(plan.layout, blocks, n_boot),
            engine=engine,
            replicates=replicates,
            file_format=plan.formats[path],
            delimiter=plan.layout.delimiter,
            rows=rows,
            names_source=f"the {'training' if path == plan.train else 'data'} file {path}",
        )
    except Exception as exc:
        role = "train" if path == plan.train else "data"
        raise _engine_error(exc, lambda e: _diagnose(plan, path, blocks, role, e)) from exc


def _count_joined(
    plan: StreamPlan,
    names: LabelNames,
    *,
    replicates: Any = None,
    n_boot: int = 0,
    patterns: bool = False,
) -> Any:
    """The evaluation table of a data file whose predictions are joined on ``id=``."""
    assert plan.pred is not None and plan.layout.id is not None
    blocks = plan.blocks + plan.pred_blocks
    specs = _role_specs(plan, blocks)
    # the bootstrap's weights are per row: the numpy join
    engine = "numpy" if replicates is not None else plan.engine
    try:
        return counts_from_joined_files(
            str(plan.data),
            str(plan.pred),
            on=plan.layout.id,
            **specs,
            **names,
            replicates=replicates,
            patterns=patterns,
            chunk_size=_chunk_rows(plan.layout, plan.blocks + plan.pred_blocks, n_boot),
            file_format=plan.formats[plan.data],
            pred_file_format=plan.formats[plan.pred],
            delimiter=plan.layout.delimiter,
            names_source=f"the data file {plan.data}",
            engine=engine,
        )
    except Exception as exc:
        # repeated or missing ids, a value that is not 0/1: the in-memory reader names
        # the file, the column and the data row
        raise _engine_error(exc, lambda e: StreamRefused(str(e))) from exc


def _rows_engine(engine: str, blocks: tuple[ColumnBlock, ...], rows: str) -> str:
    """``engine``, or numpy when ``rows="labelled"`` can drop rows (the engine that drops
    rows with neither a group nor a task)."""
    return "numpy" if rows == "labelled" and _drops_rows(blocks) else engine


def _drops_rows(blocks: tuple[ColumnBlock, ...]) -> bool:
    """:func:`~biasamp.engines._files.may_drop_rows` of the blocks' roles."""
    return may_drop_rows({b.role: b.kind == "label" for b in blocks})


def _engine_error(exc: Exception, refused: Callable[[Exception], Exception]) -> Exception:
    """What a counting engine's exception becomes: duckdb missing, :data:`ERR_NO_DUCKDB`; a
    refused value (ValueError, TypeError, DuckDB's conversion errors, which are its own
    classes), ``refused(exc)``; anything else is raised again as it is."""
    if isinstance(exc, ImportError):
        return ImportError(ERR_NO_DUCKDB)
    if isinstance(exc, (ValueError, TypeError)) or _is_duckdb_error(exc):
        return refused(exc)
    raise exc


def _is_duckdb_error(exc: Exception) -> bool:
    """Whether ``exc`` is a DuckDB error (its module is imported when the engine ran)."""
    import sys

    duckdb = sys.modules.get("duckdb")
    return duckdb is not None and isinstance(exc, duckdb.Error)


def _fixed_names(plan: StreamPlan, truth: str) -> tuple[str, ...] | None:
    """The names of a role whose columns fix them (indicator columns, long tables); None
    for a label column, whose names are its labels."""
    layout = plan.layout
    block = next(b for b in plan.blocks if b.role == truth)
    if block.kind == "sparse":
        return _long_names(plan)
    if block.kind == "label":
        return None
    if truth == "groups":
        return tuple(layout.group_columns())
    return tuple(layout.task_name(c) for c in block.columns)


def _names(
    plan: StreamPlan,
    found: tuple[dict[str, np.ndarray], dict[str, np.ndarray]] | None = None,
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Group and task names by the library's rule (the training file's are canonical).

    ``found``: the label sets of the data and the training file, found while counting
    (:func:`_discovers`); else one pass over each file's label columns finds them."""
    layout = plan.layout
    data_labels: dict[str, np.ndarray] = {}
    train_labels: dict[str, np.ndarray] = {}
    if found is not None:
        data_labels, train_labels = found
    elif any(b.kind == "label" for b in plan.blocks):
        data_labels, n_rows = _label_sets(plan, plan.data, plan.blocks, "data")
        if n_rows == 0:
            raise InputError(ERR_NO_ROWS.format(file=plan.data))
        if plan.train is not None:
            train_labels, n_train = _label_sets(plan, plan.train, plan.train_blocks, "train")
            if n_train == 0:
                raise InputError(ERR_NO_ROWS.format(file=plan.train))
    if found is None and plan.pred is not None and any(b.kind == "label" for b in plan.pred_blocks):
        pred_labels, _ = _label_sets(plan, plan.pred, plan.pred_blocks, "predictions")
        data_labels.update(pred_labels)
    out = []
    for truth, pred in (("groups", "groups_pred"), ("tasks", "tasks_pred")):
        fixed = _fixed_names(plan, truth)
        if fixed is not None:
            out.append(fixed)
            continue
        block = next(b for b in plan.blocks if b.role == truth)
        names = _canonical_names(
            data_labels[truth],
            train_labels.get(truth),
            plan.data,
            ",".join(block.columns),
            plan.train,
        )
        if pred in data_labels:
            _check_pred_labels(
                data_labels[pred],
                names,
                plan.pred or plan.data,
                ",".join(_pred_column(layout, c) for c in block.columns),
                _sources(plan.train),
            )
        out.append(names)
    return out[0], out[1]


def _discovers(plan: StreamPlan) -> bool:
    """Whether the labels are found while counting (one pass over each file instead of a
    pass over its label columns first): the numpy engine counts the data file and the
    training file, whose label roles are single columns."""
    labels = [b for b in plan.blocks + plan.train_blocks if b.kind == "label"]
    return (
        plan.engine == "numpy"
        and plan.pred is None
        and not plan.long
        and bool(labels)
        and all(len(b.columns) == 1 for b in labels)
    )


def _count_found(
    plan: StreamPlan,
    path: Path,
    blocks: tuple[ColumnBlock, ...],
    role: str,
    *,
    rows: str = "all",
    progress: bool = False,
) -> tuple[CountTable, int, dict[str, np.ndarray]]:
    """:func:`_count` of a file whose label names are found in the same pass: the table
    (in the names of the labels found), the rows read and each label role's labels."""
    found: dict[str, np.ndarray] = {}

    def keep(labels: dict[str, tuple[Any, ...]]) -> None:
        found.update({r: np.array(v, dtype=object) for r, v in labels.items()})

    names: LabelNames = {
        "group_names": _fixed_names(plan, "groups"),  # type: ignore[typeddict-item]
        "task_names": _fixed_names(plan, "tasks"),  # type: ignore[typeddict-item]
    }
    table, n_rows = _count(
        plan, path, blocks, role, names=names, engine="numpy", rows=rows, progress=progress,
        on_labels=keep,
    )  # fmt: skip
    if n_rows == 0:
        raise InputError(ERR_NO_ROWS.format(file=path))
    return table, n_rows, found


def _long_labels(path: Path, plan: StreamPlan) -> tuple[np.ndarray, int]:
    """The distinct labels of a long table and its number of rows (one pass over the label
    column); a missing label goes to the in-memory reader (:class:`StreamRefused`)."""
    import pyarrow.compute as pc

    seen: set[Any] = set()
    n_rows = 0
    for batch in iter_file_batches(
        str(path),
        [plan.layout.long_label],
        chunk_size=_chunk_rows(plan.layout, ()),
        file_format=plan.formats[path],
        delimiter=plan.layout.delimiter,
        label_columns=[plan.layout.long_label],
    ):
        values = batch.column(0)
        if values.null_count:
            raise StreamRefused(f"{path}: missing labels")
        seen.update(pc.unique(values).to_pylist())
        n_rows += batch.num_rows
    if "" in seen:
        raise StreamRefused(f"{path}: missing labels")
    return np.array(sorted(seen), dtype=object), n_rows


def _long_names(plan: StreamPlan) -> tuple[str, ...]:
    """The task names of long tables by the in-memory rule (the training table's are
    canonical; the others' labels must be among them)."""
    labels = {role: _long_labels(path, plan)[0] for role, path in plan.long.items()}
    train = labels.get("tasks_train")
    names = _canonical_names(
        labels["tasks"],
        train,
        plan.long["tasks"],
        plan.layout.long_label,
        plan.long.get("tasks_train"),
    )
    if "tasks_pred" in labels:
        _check_pred_labels(
            labels["tasks_pred"],
            names,
            plan.long["tasks_pred"],
            plan.layout.long_label,
            "the training long table" if train is not None else "the ground-truth long table",
        )
    return names


def _count_long(
    plan: StreamPlan,
    names: LabelNames,
    *,
    split: str,
    rows: str = "all",
    predictions: bool = True,
    patterns: bool = False,
    replicates: PoissonReplicates | None = None,
) -> Any:
    """The table of a file whose tasks are long tables (``split``: "data" or "train"):
    :func:`~biasamp.engines._long_tables.counts_from_long_files`. A value the engine
    refuses goes to the in-memory reader (:class:`StreamRefused`), which names the file,
    the column and the row."""
    train = split == "train"
    path = plan.train if train else plan.data
    assert path is not None and plan.layout.id is not None
    long = {"tasks": plan.long["tasks_train" if train else "tasks"]}
    blocks = plan.train_blocks if train else plan.blocks + plan.pred_blocks
    if predictions and not train and "tasks_pred" in plan.long:
        long["tasks_pred"] = plan.long["tasks_pred"]
    if not predictions:
        blocks = tuple(b for b in blocks if b.role == "groups")
    specs = _role_specs(plan, tuple(b for b in blocks if b.role in ("groups", "groups_pred")))
    pred_path = plan.pred if not train and "groups_pred" in specs else None
    engine = (
        "numpy"
        if pred_path is not None or rows == "labelled" or replicates is not None
        else plan.engine
    )
    options: dict[str, Any] = {
        "on": plan.layout.id,
        "groups": specs["groups"],
        "groups_pred": specs.get("groups_pred"),
        "label": plan.layout.long_label,
        "names_source": f"the {'training' if train else 'data'} file {path}",
        "file_format": plan.formats[path],
        "pred_path": None if pred_path is None else str(pred_path),
        "pred_file_format": None if pred_path is None else plan.formats[pred_path],
        "rows": rows,
        "delimiter": plan.layout.delimiter,
    }
    # the task sets and the bootstrap: one chunk x tasks at a time (numpy)
    width = len(plan.layout.group_columns()) * 2 + 2 * len(names["task_names"])
    n_boot = 0 if replicates is None else replicates.n_boot
    dense_chunk = plan.layout.chunk_size or max(
        _MIN_CHUNK_ROWS, _CHUNK_CELLS // (width + 3 * n_boot)
    )
    try:
        if replicates is not None and not patterns:
            return counts_from_long_files(
                str(path),
                {role: str(p) for role, p in long.items()},
                **options,
                **names,
                engine="numpy",
                chunk_size=dense_chunk,
                replicates=replicates,
            )
        if patterns:
            return pattern_counts_from_long_files(
                str(path),
                {role: str(p) for role, p in long.items()},
                **options,
                **names,
                chunk_size=dense_chunk,
                replicates=replicates,
            )
        return counts_from_long_files(
            str(path),
            {role: str(p) for role, p in long.items()},
            **options,
            **names,
            engine=engine,
            chunk_size=_chunk_rows(plan.layout, blocks),
        )
    except Exception as exc:
        raise _engine_error(exc, lambda e: StreamRefused(str(e))) from exc


def _load_long(
    plan: StreamPlan,
    names: LabelNames,
    replicates: PoissonReplicates | None = None,
    digests: _Digests | None = None,
) -> StreamedData:
    """:func:`load_streamed` of a layout whose tasks are long tables (``replicates``: the
    evaluation rows counted once more under the bootstrap weights of their data-file row)."""
    train = None
    if plan.train is not None:
        train = _count_long(plan, names, split="train", rows="labelled")
    evaluation = _count_long(plan, names, split="data")
    signs = None
    if train is None and plan.layout.group_kind == "indicator":
        kept = _count_long(plan, names, split="data", rows="labelled", predictions=False)
        if float(kept.n) != float(evaluation.n):
            signs = kept
    files = []
    sources: list[tuple[str, Path | None, int | None]] = [
        ("data", plan.data, int(evaluation.n_rows)),
        ("predictions", plan.pred, int(evaluation.n_rows)),
        ("train", plan.train, None),
    ]
    sources += [
        (
            f"{role.replace('tasks_', '')}_tasks_long" if role != "tasks" else "tasks_long",
            path,
            None,
        )
        for role, path in plan.long.items()
    ]
    for role, path, n_rows in sources:
        if path is None:
            continue
        if n_rows is None:
            n_rows = (
                _long_labels(path, plan)[1] if role.endswith("long") else _file_rows(plan, path)
            )
        files.append(_file_info(plan, role, path, n_rows, digests))
    patterns = None
    if plan.multi and plan.train is not None:
        patterns = (
            _count_long(plan, names, split="train", rows="labelled", patterns=True),
            _with_replicates(
                _count_long(plan, names, split="data", patterns=True),
                replicates,
                lambda: _count_long(
                    plan, names, split="data", patterns=True, replicates=replicates
                ),
            ),
        )
    return StreamedData(
        group_names=names["group_names"],
        task_names=names["task_names"],
        evaluation=evaluation,
        train=train,
        signs=signs,
        replicates=None
        if replicates is None
        else _count_long(plan, names, split="data", replicates=replicates),
        patterns=patterns,
        files=files,
        thresholds={
            str(name): plan.cut(name)
            for b in plan.blocks + plan.pred_blocks
            if b.kind == "score" and b.role == "groups_pred"
            for name in names["group_names"]
        },
    )


def _with_replicates(
    table: PatternCountTable,
    replicates: PoissonReplicates | None,
    count: Callable[[], PatternCountTable],
) -> PatternCountTable:
    """The evaluation's pattern table with its bootstrap replicates (``count()``: the table
    counted under the replicate weights), as an online bootstrap leaves them: the
    multi-attribute metrics read their interval from it."""
    if replicates is None:
        return table
    return dataclasses.replace(table, bootstrap=replicates, replicates=count())


def _file_info(
    plan: StreamPlan, role: str, path: Path, n_rows: int, digests: _Digests | None = None
) -> FileInfo:
    """The provenance of one input file (its SHA-256: one pass over its bytes, in a thread
    while the files are counted when ``digests`` holds it)."""
    return FileInfo(
        role=role,
        path=str(path),
        format=plan.formats[path],
        sha256=file_sha256(path) if digests is None else digests.sha256(path),
        n_rows=n_rows,
    )


def _file_rows(plan: StreamPlan, path: Path) -> int:
    """The number of data rows of a file (a pass over its first group column)."""
    column = plan.layout.group_columns()[0]
    return sum(
        batch.num_rows
        for batch in iter_file_batches(
            str(path),
            [column],
            chunk_size=_chunk_rows(plan.layout, ()),
            file_format=plan.formats[path],
            delimiter=plan.layout.delimiter,
        )
    )


def _check_unique_ids(plan: StreamPlan) -> None:
    """``id=`` without ``pred=``: the data file's ids, once each (one Arrow column of ids,
    no Python object per row); a repeated or missing id goes to the in-memory reader,
    which names the file, the column and the ids (:class:`StreamRefused`)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    column = str(plan.layout.id)
    chunks = [
        batch.column(0)
        for batch in iter_file_batches(
            str(plan.data),
            [column],
            chunk_size=_chunk_rows(plan.layout, ()),
            file_format=plan.formats[plan.data],
            delimiter=plan.layout.delimiter,
            label_columns=[column],  # text, as in memory
        )
    ]
    if not chunks:
        return
    ids = pa.chunked_array(chunks)
    empty = _is_text(ids.type) and bool(pc.any(pc.equal(ids, "")).as_py())
    if empty or ids.null_count or pc.count_distinct(ids).as_py() != len(ids):
        raise StreamRefused(f"{plan.data}: id={column!r} has repeated or missing ids")


def _groups_exclusive(plan: StreamPlan) -> bool:
    """Whether every ground-truth row (evaluation and training) has exactly one group, as
    :func:`~biasamp.engines._exclusive_groups.groups_are_exclusive` asks (one pass over
    the group columns)."""
    columns = list(plan.layout.group_columns())
    for path in (plan.data, plan.train):
        if path is None:
            continue
        for batch in iter_file_batches(
            str(path),
            columns,
            chunk_size=_chunk_rows(plan.layout, ()),
            file_format=plan.formats[path],
            delimiter=plan.layout.delimiter,
        ):
            matrix = np.column_stack(
                [
                    batch.column(j).to_numpy(zero_copy_only=False).astype(np.float64)
                    for j in range(len(columns))
                ]
            )
            if not (matrix.sum(axis=1) == 1).all():
                return False
    return True


def load_streamed(
    plan: StreamPlan,
    *,
    replicates: PoissonReplicates | None = None,
    progress: bool = False,
    swaps: Any = None,
) -> StreamedData:
    """Count the training and evaluation files of a plan into tables.

    Parameters
    ----------
    plan : StreamPlan
        From :func:`plan_streaming`.
    replicates : PoissonReplicates, optional
        Bootstrap weights by global row index of the evaluation file (as
        ``metrics._bootstrap.evaluation_replicates`` draws them): the
        evaluation rows are counted once more under them, on the numpy engine,
        so an interval equals the in-memory bootstrap exactly (with the pattern
        tables, the evaluation's carries its replicates too; long tables: a row
        is the data file's row).
    progress : bool, default False
        Show a progress bar.
    swaps : sequence of SwapReplicates, optional
        The swap test's indicators by global row index of the data file, one for
        each set of label roles to exchange (their ``roles``): the rows are counted
        once more per set, each label and its output exchanged on the rows a
        permutation swaps (numpy engine; one data file with its predictions), so the
        null values equal the in-memory swap test's with the same ``random_state``.

    Returns
    -------
    StreamedData
        The tables, the label names (the training file's are canonical) and
        the files read, with their SHA-256 and number of data rows. Training
        rows with neither a group nor a task are not counted (the metrics'
        ``train_rows="labelled"``).

    Examples
    --------
    >>> import os, tempfile
    >>> import pandas as pd
    >>> path = os.path.join(tempfile.mkdtemp(), "audit.csv")
    >>> pd.DataFrame({"g": ["m", "w", "w"], "ski": [1, 0, 1],
    ...               "pred_ski": [1, 1, 1]}).to_csv(path, index=False)
    >>> plan, _ = plan_streaming(Layout(group="g", task_cols=("ski",), pred_prefix="pred_"),
    ...                          data=path, engine="numpy")
    >>> data = load_streamed(plan)
    >>> data.evaluation.joint[("groups", "tasks_pred")].tolist(), data.files[0].n_rows
    ([[1.0], [2.0]], 3)
    """
    with _Digests(plan) as digests:
        return _load_streamed(plan, digests, replicates=replicates, progress=progress, swaps=swaps)


class _Digests:
    """The SHA-256 of the files of a plan, each read in a thread of its own while the
    files are counted (hashing releases the GIL): the provenance costs no pass of the
    counting's time on a free core."""

    def __init__(self, plan: StreamPlan) -> None:
        self._paths = [p for p in (plan.data, plan.pred, plan.train, *plan.long.values()) if p]
        self._pool: Any = None
        self._futures: dict[Path, Any] = {}

    def __enter__(self) -> _Digests:
        from concurrent.futures import ThreadPoolExecutor

        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="biasamp-sha256")
        self._futures = {path: self._pool.submit(file_sha256, path) for path in self._paths}
        return self

    def __exit__(self, *exc: object) -> None:
        for future in self._futures.values():
            future.cancel()
        self._pool.shutdown(wait=True)

    def sha256(self, path: Path) -> str:
        future = self._futures.get(path)
        return str(future.result()) if future is not None else file_sha256(path)


def _load_streamed(
    plan: StreamPlan,
    digests: _Digests,
    *,
    replicates: PoissonReplicates | None,
    progress: bool,
    swaps: Any = None,
) -> StreamedData:
    """:func:`load_streamed` with the files' digests under way."""
    if plan.check_ids:
        _check_unique_ids(plan)
    files: list[FileInfo] = []
    train = None
    train_rows = None
    evaluation = None
    if _discovers(plan):
        # one pass over each file: the labels are found while counting
        train_labels: dict[str, np.ndarray] = {}
        if plan.train is not None:
            train, train_rows, train_labels = _count_found(
                plan, plan.train, plan.train_blocks, "train", rows="labelled", progress=progress
            )
        evaluation, _, data_labels = _count_found(
            plan, plan.data, plan.blocks, "data", progress=progress
        )
        group_names, task_names = _names(plan, (data_labels, train_labels))
        train = (
            None
            if train is None
            else with_label_names(train, group_names=group_names, task_names=task_names)
        )
        evaluation = with_label_names(evaluation, group_names=group_names, task_names=task_names)
    else:
        group_names, task_names = _names(plan)
    names: LabelNames = {"group_names": group_names, "task_names": task_names}
    scored = {b.role for b in plan.blocks + plan.pred_blocks if b.kind == "score"}
    if "groups_pred" in scored and _groups_exclusive(plan):
        if len(group_names) == 2:
            positive_group(group_names, plan.positive_group)  # the in-memory path's check
        plan = dataclasses.replace(plan, exclusive=True)
    if plan.long:
        return _load_long(plan, names, replicates, digests)
    if plan.train is not None and train is None:
        # rows="labelled": the library's train_rows default
        train, train_rows = _count(
            plan,
            plan.train,
            plan.train_blocks,
            "train",
            names=names,
            rows="labelled",
            progress=progress,
        )
    if train is not None and train.n_rows == 0:
        raise InputError(ERR_NO_ROWS.format(file=plan.train))
    if evaluation is not None:
        pass  # counted with its labels
    elif plan.pred is not None:
        evaluation = _count_joined(plan, names)
    else:
        evaluation, _ = _count(plan, plan.data, plan.blocks, "data", names=names, progress=progress)
    if evaluation.n_rows == 0:
        raise InputError(ERR_NO_ROWS.format(file=plan.data))
    # the join checked that the predictions hold the data file's ids, once each
    for role, path, n_rows in (
        ("data", plan.data, int(evaluation.n_rows)),
        ("predictions", plan.pred, int(evaluation.n_rows)),
        ("train", plan.train, train_rows),
    ):
        if path is not None and n_rows is not None:
            files.append(_file_info(plan, role, path, n_rows, digests))
    signs = None
    truth = tuple(b for b in plan.blocks if b.role in ("groups", "tasks"))
    if train is None and _drops_rows(truth):
        # no training file: the signs come from the evaluation ground truth's labelled rows
        kept, _ = _count(plan, plan.data, truth, "data", names=names, rows="labelled")
        if float(kept.n) != float(evaluation.n):
            signs = kept
    patterns = None
    tasks_block = next(b for b in plan.blocks if b.role == "tasks")
    if plan.multi and plan.train is not None and tasks_block.kind == "indicator":
        patterns = (
            _count_patterns(plan, plan.train, plan.train_blocks, names),
            _with_replicates(
                _count_joined(plan, names, patterns=True)
                if plan.pred is not None
                else _count_patterns(plan, plan.data, plan.blocks, names),
                replicates,
                lambda: (
                    _count_joined(
                        plan, names, patterns=True, replicates=replicates, n_boot=replicates.n_boot
                    )
                    if plan.pred is not None and replicates is not None
                    else _count_patterns(plan, plan.data, plan.blocks, names, replicates)
                ),
            ),
        )
    replicate_table = None
    if replicates is not None and plan.pred is not None:
        replicate_table = _count_joined(
            plan, names, replicates=replicates, n_boot=replicates.n_boot
        )
    elif replicates is not None:
        # per-row Poisson weights: the numpy engine, whatever the plan's engine
        replicate_table, _ = _count(
            plan,
            plan.data,
            plan.blocks,
            "data",
            names=names,
            engine="numpy",
            chunk_size=_chunk_rows(plan.layout, plan.blocks, replicates.n_boot),
            replicates=replicates,
            progress=progress,
        )
    swapped = None
    if swaps:
        if plan.pred is not None:
            raise StreamRefused(ERR_SWAP_STREAM)
        swapped = {}
        for source in swaps:  # one pass per set of exchanged roles
            swapped[",".join(source.roles or ())], _ = _count(
                plan,
                plan.data,
                plan.blocks,
                "data",
                names=names,
                engine="numpy",
                chunk_size=_chunk_rows(plan.layout, plan.blocks, source.n_perm),
                replicates=source,
                progress=progress,
            )
    return StreamedData(
        group_names=group_names,
        task_names=task_names,
        evaluation=evaluation,
        train=train,
        signs=signs,
        replicates=replicate_table,
        swapped=swapped,
        patterns=patterns,
        files=files,
        thresholds={
            str(name): plan.cut(name)
            for role, role_names in (("groups_pred", group_names), ("tasks_pred", task_names))
            if role in scored
            for name in role_names
        },
    )
