"""The streaming path of ``biasamp measure`` and ``biasamp report``: count tables, bounded memory.

The in-memory path (:func:`~biasamp.cli.inputs.load_audit`) keeps every needed
column of every row as compact arrays, so its memory grows with rows x columns.
The co-occurrence metrics (``mals``, ``directional-a2t``, ``directional-t2a``)
only need additive counts, so when the layout allows it the files are counted
chunk by chunk with :func:`biasamp.counts_from_files` and the metrics come
from the tables (:func:`biasamp.mals_from_counts`,
:func:`biasamp.directional_from_counts`); memory is about
``chunk_size x columns`` whatever the number of rows.

When it applies (:func:`plan_streaming` says why not otherwise): the data file
(CSV with ``,`` as delimiter, plain or ``.gz``, or Parquet) holds the group,
the tasks (``--task``, ``--task-cols`` or ``--task-prefix``) and the 0/1
predictions (``--pred-prefix``), or the predictions are in a file joined on
``--id`` (:func:`biasamp.engines._files.counts_from_joined_files`); optional
``--train`` in the same layout; no long tables, no score thresholds; only the
metrics above and the multi-attribute ones (from pattern count tables, without
``--n-boot``); label columns are text and indicator columns
numeric or boolean in pyarrow's reading of the file. Training rows with neither
a group nor a task are dropped, as the library's ``train_rows="labelled"`` does.

Passes over a file: a SHA-256 pass over its bytes, a pass over the label
columns (categorical layouts: the label sets and their checks, with the same
messages as the in-memory path), one counting pass, and with ``--n-boot`` one
more counting pass under Poisson replicate weights
(:func:`biasamp.counts._replicates.evaluation_replicates`), drawn by global row index,
so the interval equals the in-memory bootstrap exactly. The bootstrap pass
always runs on the numpy engine (its weights are per row). ``--engine auto`` (the
default) counts with DuckDB when it is installed (``biasamp[duckdb]``) and with
numpy otherwise; the engine that ran is in the output's settings (``engine``). When the streaming
layer refuses a value, the file is re-read chunk by chunk by the in-memory
validator (without keeping the chunks), which names the column and data row
as the in-memory path does.
"""

from __future__ import annotations

import argparse
import importlib.util
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from biasamp.counts._count_table import CountTable
from biasamp.counts._pattern_counts import PatternCountTable
from biasamp.engines._file_formats import RaggedRowError, file_schema
from biasamp.engines._file_reader import (
    _CHUNK_CELLS,
    _FORMAT_CSV,
    _MIN_CHUNK_ROWS,
    ERR_NO_ROWS,
    ColumnBlock,
    FileInfo,
    InputError,
    _check_columns,
    _compression,
    _default_delimiter,
    _file_format,
    file_sha256,
    read_blocks,
    read_header,
)
from biasamp.engines._files import (
    counts_from_files,
    counts_from_joined_files,
    iter_file_batches,
    pattern_counts_from_files,
)
from biasamp.metrics._bootstrap import evaluation_replicates, interval_from_tables
from biasamp.metrics._directional import directional_arrays, directional_from_counts
from biasamp.metrics._mals import mals_arrays, mals_from_counts
from biasamp.metrics._multi_attribute import multi_directional_from_counts, multi_mals_from_counts

from .inputs import (
    ERR_NO_PREDICTIONS_FOUND,
    LabelNames,
    Layout,
    _canonical_names,
    _check_pred_labels,
    _check_same_columns,
    _pred_column,
    _prediction_blocks,
    _sources,
)
from .metrics import REGISTRY, Settings

__all__ = [
    "ENGINES",
    "STREAM_MODES",
    "STREAMED_METRICS",
    "StreamPlan",
    "StreamRefused",
    "StreamedData",
    "compute_streamed_metric",
    "load_streamed",
    "plan_streaming",
]

#: The metrics the streaming path computes from count tables.
MULTI_METRICS = ("multi-mals", "multi-a2t", "multi-t2a")
STREAMED_METRICS = ("mals", "directional-a2t", "directional-t2a", *MULTI_METRICS)
STREAM_MODES = ("auto", "on", "off")
ENGINES = ("auto", "numpy", "duckdb")

ERR_STREAM_NOT_APPLICABLE = "--stream on: the streaming path does not apply: {reason}."
ERR_ENGINE_NEEDS_STREAM = (
    "--engine duckdb counts the files by streaming, which does not apply here: {reason}. "
    "Use --engine auto or numpy."
)
ERR_NO_DUCKDB = "--engine duckdb needs duckdb: pip install 'biasamp[duckdb]'."
ERR_STREAM_VALUE = "{detail} (the in-memory reader accepts the file: run with --stream off)"

_PYARROW_CODECS = (None, "gzip")  # compressions pyarrow and DuckDB both read


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
    #: predictions in another file joined on ``layout.id`` (``--pred``), and their blocks
    pred: Path | None = None
    pred_blocks: tuple[ColumnBlock, ...] = ()
    #: a multi-attribute metric is asked for: pattern count tables are counted too
    multi: bool = False


class StreamRefused(Exception):
    """The streamed join refused a value: the in-memory reader names the file, column and row."""


@dataclass
class StreamedData:
    """The audit data of the streaming path: count tables instead of rows.

    Offers what the outputs and the metric registry read from
    :class:`~biasamp.cli.inputs.AuditData` (names, files, ``has``).
    """

    group_names: tuple[str, ...]
    task_names: tuple[str, ...]
    evaluation: CountTable
    train: CountTable | None
    #: without a training file, the evaluation ground truth's labelled rows when they are
    #: fewer than its rows (the directional signs, as ``train_rows="labelled"`` takes them)
    signs: CountTable | None = None
    replicates: CountTable | None = None
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


def _requested_metrics(args: argparse.Namespace) -> list[str]:
    if args.metric:
        return list(dict.fromkeys(args.metric))
    return [k for k, spec in REGISTRY.items() if spec.default]


def _layout_reason(args: argparse.Namespace, layout: Layout) -> str | None:
    """Why the options rule streaming out (None: they allow it)."""
    if layout.tasks_long or args.pred_tasks_long or args.train_tasks_long:
        return "long task tables are read in memory"
    if layout.intersected:
        return "the intersections of several --group columns are formed in memory"
    if layout.id is not None and not args.pred:
        return "--id without --pred: unique ids are checked in memory"
    if args.pred and (layout.id is None or layout.pred_prefix):
        return "--pred needs --id, and its columns are read under the ground truth's names"
    if args.pred and getattr(args, "engine", "auto") == "duckdb":
        return "predictions joined on --id are counted by the numpy engine"
    if args.threshold is not None or args.thresholds or args.calibrate_on or args.calibrate_pred:
        return "prediction scores (--threshold, --thresholds, --calibrate-on) are read in memory"
    if not layout.pred_prefix and not args.pred:
        return "no predictions in the data file (--pred-prefix)"
    multi = [k for k in _requested_metrics(args) if k in MULTI_METRICS]
    n_boot: int = getattr(args, "n_boot", 0)
    if multi and n_boot:
        return f"metric(s) {', '.join(multi)} with --n-boot are computed in memory"
    others = [k for k in _requested_metrics(args) if k not in STREAMED_METRICS]
    if others:
        return (
            f"metric(s) {', '.join(others)} need the rows (streamed: {', '.join(STREAMED_METRICS)})"
        )
    return None


def _file_reason(
    path: Path, fmt: str, layout: Layout, blocks: tuple[ColumnBlock, ...]
) -> str | None:
    """Why a file cannot be streamed (None: it can); header errors are raised as InputError."""
    import pyarrow as pa

    if fmt == _FORMAT_CSV:
        if _default_delimiter(path, layout.delimiter) != ",":
            return f"{path}: only ',' delimited CSV is streamed"
        if _compression(path) not in _PYARROW_CODECS:
            return f"{path}: only plain or .gz CSV is streamed"
    try:
        schema = file_schema(str(path), fmt)
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
                if not (pa.types.is_string(kind) or pa.types.is_large_string(kind)):
                    return f"{path}: label column {column!r} is read as {kind}, not text"
            elif not (
                pa.types.is_integer(kind) or pa.types.is_floating(kind) or pa.types.is_boolean(kind)
            ):
                return f"{path}: indicator column {column!r} is read as {kind}"
    return None


def _id_reason(paths: tuple[Path, Path], formats: dict[Path, str], column: str) -> str | None:
    """Why the id columns cannot be joined by the engine (None: they can).

    The in-memory reader compares ids as text: the engine joins text ids, and
    integer ids stored as integers in Parquet files (no parsing, so ``007`` and
    ``7`` cannot meet as they would once a CSV reader has parsed them).
    """
    import pyarrow as pa

    kinds = [file_schema(str(path), formats[path]).field(column).type for path in paths]
    text = all(pa.types.is_string(k) or pa.types.is_large_string(k) for k in kinds)
    stored_integers = all(pa.types.is_integer(k) for k in kinds) and all(
        formats[path] != _FORMAT_CSV for path in paths
    )
    if text or stored_integers:
        return None
    shown = ", ".join(f"{path}: {kind}" for path, kind in zip(paths, kinds, strict=True))
    return f"--id {column!r} is read as {shown}; such ids are joined in memory, as text"


def plan_streaming(args: argparse.Namespace, layout: Layout) -> tuple[StreamPlan | None, str]:
    """The streaming plan of an audit, or ``(None, reason)`` when it does not apply.

    Header problems (missing columns, no prediction columns, task columns that
    differ between files) raise the in-memory path's :class:`InputError`.
    """
    reason = _layout_reason(args, layout)
    if reason is not None:
        return None, reason
    data_path = Path(args.data)
    formats = {data_path: _file_format(data_path)}
    _, header = read_header(data_path, delimiter=layout.delimiter)
    group_cols = layout.group_columns()
    task_cols, task_option = layout.task_columns(data_path, header)
    truth = (
        ColumnBlock("groups", layout.group_kind, group_cols, layout.group_option()),
        ColumnBlock("tasks", layout.task_kind, task_cols, task_option),
    )
    _check_columns(data_path, header, truth)
    pred_path = Path(args.pred) if args.pred else None
    pred_file, pred_header = data_path, header
    if pred_path is not None:
        formats[pred_path] = _file_format(pred_path)
        _, pred_header = read_header(pred_path, delimiter=layout.delimiter)
        pred_file = pred_path
        id_block = ColumnBlock("id", "id", (str(layout.id),), "--id")
        _check_columns(data_path, header, (id_block,))
        _check_columns(pred_path, pred_header, (id_block,))
    pred_blocks = _prediction_blocks(layout, pred_file, pred_header, group_cols, task_cols, False)
    if not pred_blocks:
        raise InputError(
            ERR_NO_PREDICTIONS_FOUND.format(
                file=pred_file,
                group_col=repr(_pred_column(layout, group_cols[0])),
                task_col=repr(_pred_column(layout, task_cols[0])),
            )
        )
    blocks = truth if pred_path is not None else truth + tuple(pred_blocks)
    train_path = Path(args.train) if args.train else None
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
    if pred_path is not None:
        reason = _id_reason((data_path, pred_path), formats, str(layout.id))
        if reason is not None:
            return None, reason
    engine = "numpy" if pred_path is not None else resolve_engine(getattr(args, "engine", "auto"))
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
        multi=any(k in MULTI_METRICS for k in _requested_metrics(args)),
    ), ""


def resolve_engine(engine: str) -> str:
    """The streaming engine that runs: ``auto`` is DuckDB when it is installed, else numpy."""
    has_duckdb = importlib.util.find_spec("duckdb") is not None
    if engine == "auto":
        return "duckdb" if has_duckdb else "numpy"
    if engine == "duckdb" and not has_duckdb:
        raise ImportError(ERR_NO_DUCKDB)
    return engine


# --- counting --------------------------------------------------------------------------


def _chunk_rows(layout: Layout, blocks: tuple[ColumnBlock, ...], n_boot: int = 0) -> int:
    """``--chunk-size``, or about four million cells (columns plus weights) per chunk."""
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
    columns = [b.columns[0] for b in labels]
    n_rows = 0
    chunk = _chunk_rows(plan.layout, tuple(labels))
    try:
        for batch in iter_file_batches(
            str(path), columns, chunk_size=chunk, file_format=plan.formats[path]
        ):
            n_rows += batch.num_rows
            for block, values in zip(labels, batch.columns, strict=True):
                if values.null_count:
                    raise ValueError(f"column {block.columns[0]!r} has missing values")
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


def _role_specs(plan: StreamPlan, blocks: tuple[ColumnBlock, ...]) -> dict[str, Any]:
    """The ``counts_from_files`` roles of the column blocks (label names as in memory)."""
    layout = plan.layout
    specs: dict[str, Any] = {}
    for block in blocks:
        if block.kind == "label":
            specs[block.role] = block.columns[0]
            continue
        truth = (
            layout.group_columns()
            if block.role.startswith("groups")
            else [b for b in plan.blocks if b.role == "tasks"][0].columns
        )
        name = (lambda c: c) if block.role.startswith("groups") else layout.task_name
        specs[block.role] = {
            column: name(t) for column, t in zip(block.columns, truth, strict=True)
        }
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
) -> CountTable:
    """Count one file's blocks (default engine: the plan's; chunks: :func:`_chunk_rows`)."""
    engine = _rows_engine(engine or plan.engine, blocks, rows)
    chunk_size = chunk_size or _chunk_rows(plan.layout, blocks)
    try:
        return counts_from_files(
            str(path),
            **_role_specs(plan, blocks),
            **names,
            chunk_size=chunk_size,
            engine=engine,
            file_format=plan.formats[path],
            replicates=replicates,
            rows=rows,
            names_source=f"the {'training' if role == 'train' else 'data'} file {path}",
            progress=progress,
        )
    except ImportError as exc:
        raise ImportError(ERR_NO_DUCKDB) from exc
    except Exception as exc:
        # DuckDB's conversion errors are its own classes (duckdb.Error), not ValueError
        if not isinstance(exc, (ValueError, TypeError)) and not _is_duckdb_error(exc):
            raise
        raise _diagnose(plan, path, blocks, role, exc) from exc


def _count_patterns(
    plan: StreamPlan, path: Path, blocks: tuple[ColumnBlock, ...], names: LabelNames
) -> PatternCountTable:
    """The pattern count table of one file (the training file's rows with a group or a task)."""
    rows = "labelled" if path == plan.train else "all"
    try:
        return pattern_counts_from_files(
            str(path),
            **_role_specs(plan, blocks),
            **names,
            chunk_size=_chunk_rows(plan.layout, blocks),
            engine=_rows_engine(plan.engine, blocks, rows),
            file_format=plan.formats[path],
            rows=rows,
            names_source=f"the {'training' if path == plan.train else 'data'} file {path}",
        )
    except Exception as exc:
        if not isinstance(exc, (ValueError, TypeError)) and not _is_duckdb_error(exc):
            raise
        raise _diagnose(plan, path, blocks, "train" if path == plan.train else "data", exc) from exc


def _count_joined(
    plan: StreamPlan,
    names: LabelNames,
    *,
    replicates: Any = None,
    n_boot: int = 0,
    patterns: bool = False,
) -> Any:
    """The evaluation table of a data file whose predictions are joined on ``--id``."""
    assert plan.pred is not None and plan.layout.id is not None
    specs = _role_specs(plan, plan.blocks + plan.pred_blocks)
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
            names_source=f"the data file {plan.data}",
        )
    except (ValueError, TypeError) as exc:
        # repeated or missing ids, a value that is not 0/1: the in-memory reader names
        # the file, the column and the data row
        raise StreamRefused(str(exc)) from exc


def _file_rows(plan: StreamPlan, path: Path, blocks: tuple[ColumnBlock, ...]) -> int:
    """The number of data rows of a file (a pass over one column)."""
    column = blocks[0].columns[0]
    return sum(
        batch.num_rows
        for batch in iter_file_batches(
            str(path), [column], chunk_size=1 << 20, file_format=plan.formats[path]
        )
    )


def _rows_engine(engine: str, blocks: tuple[ColumnBlock, ...], rows: str) -> str:
    """``engine``, or numpy when ``rows="labelled"`` can drop rows (the engine that drops
    rows with neither a group nor a task)."""
    return "numpy" if rows == "labelled" and _drops_rows(blocks) else engine


def _drops_rows(blocks: tuple[ColumnBlock, ...]) -> bool:
    """Whether a row can have neither a group nor a task: both are indicator columns."""
    kinds = {b.role: b.kind for b in blocks}
    return kinds.get("groups") == "indicator" and kinds.get("tasks") == "indicator"


def _is_duckdb_error(exc: Exception) -> bool:
    """Whether ``exc`` is a DuckDB error (its module is imported when the engine ran)."""
    import sys

    duckdb = sys.modules.get("duckdb")
    return duckdb is not None and isinstance(exc, duckdb.Error)


def _names(plan: StreamPlan) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Group and task names by the library's rule (the training file's are canonical)."""
    layout = plan.layout
    data_labels: dict[str, np.ndarray] = {}
    train_labels: dict[str, np.ndarray] = {}
    if any(b.kind == "label" for b in plan.blocks):
        data_labels, n_rows = _label_sets(plan, plan.data, plan.blocks, "data")
        if n_rows == 0:
            raise InputError(ERR_NO_ROWS.format(file=plan.data))
        if plan.train is not None:
            train_labels, n_train = _label_sets(plan, plan.train, plan.train_blocks, "train")
            if n_train == 0:
                raise InputError(ERR_NO_ROWS.format(file=plan.train))
    if plan.pred is not None and any(b.kind == "label" for b in plan.pred_blocks):
        pred_labels, _ = _label_sets(plan, plan.pred, plan.pred_blocks, "predictions")
        data_labels.update(pred_labels)
    out = []
    for truth, pred, fixed in (
        ("groups", "groups_pred", layout.group_columns()),
        ("tasks", "tasks_pred", None),
    ):
        block = next(b for b in plan.blocks if b.role == truth)
        if block.kind != "label":
            out.append(
                tuple(fixed)
                if fixed is not None
                else tuple(layout.task_name(c) for c in block.columns)
            )
            continue
        names = _canonical_names(
            data_labels[truth], train_labels.get(truth), plan.data, block.columns[0], plan.train
        )
        if pred in data_labels:
            _check_pred_labels(
                data_labels[pred],
                names,
                plan.pred or plan.data,
                _pred_column(layout, block.columns[0]),
                _sources(plan.train),
            )
        out.append(names)
    return out[0], out[1]


def load_streamed(
    plan: StreamPlan, *, n_boot: int = 0, seed: int | None = 0, progress: bool = False
) -> StreamedData:
    """Count the training and evaluation files of a plan into tables (and replicate tables)."""
    group_names, task_names = _names(plan)
    names: LabelNames = {"group_names": group_names, "task_names": task_names}
    files: list[FileInfo] = []
    train = None
    if plan.train is not None:
        # rows="labelled": the library's train_rows default
        train = _count(
            plan,
            plan.train,
            plan.train_blocks,
            "train",
            names=names,
            rows="labelled",
            progress=progress,
        )
        if train.n_rows == 0:
            raise InputError(ERR_NO_ROWS.format(file=plan.train))
    if plan.pred is not None:
        evaluation = _count_joined(plan, names)
    else:
        evaluation = _count(plan, plan.data, plan.blocks, "data", names=names, progress=progress)
    if evaluation.n_rows == 0:
        raise InputError(ERR_NO_ROWS.format(file=plan.data))
    train_rows = None
    if train is not None and plan.train is not None:
        train_rows = (
            _file_rows(plan, plan.train, plan.train_blocks)
            if _drops_rows(plan.train_blocks)
            else int(train.n_rows)
        )
    # the join checked that the predictions hold the data file's ids, once each
    for role, path, n_rows in (
        ("data", plan.data, int(evaluation.n_rows)),
        ("predictions", plan.pred, int(evaluation.n_rows)),
        ("train", plan.train, train_rows),
    ):
        if path is not None and n_rows is not None:
            files.append(
                FileInfo(
                    role=role,
                    path=str(path),
                    format=plan.formats[path],
                    sha256=file_sha256(path),
                    n_rows=n_rows,
                )
            )
    signs = None
    truth = tuple(b for b in plan.blocks if b.role in ("groups", "tasks"))
    if train is None and _drops_rows(truth):
        # no training file: the signs come from the evaluation ground truth's labelled rows
        kept = _count(plan, plan.data, truth, "data", names=names, rows="labelled")
        if float(kept.n) != float(evaluation.n):
            signs = kept
    patterns = None
    tasks_block = next(b for b in plan.blocks if b.role == "tasks")
    if plan.multi and plan.train is not None and tasks_block.kind == "indicator":
        patterns = (
            _count_patterns(plan, plan.train, plan.train_blocks, names),
            _count_joined(plan, names, patterns=True)
            if plan.pred is not None
            else _count_patterns(plan, plan.data, plan.blocks, names),
        )
    replicates = None
    if n_boot and plan.pred is not None:
        weights = evaluation_replicates(n_boot, random_state=seed)
        replicates = _count_joined(plan, names, replicates=weights, n_boot=n_boot)
    elif n_boot:
        # per-row Poisson weights: the numpy engine, whatever --engine says
        replicates = _count(
            plan,
            plan.data,
            plan.blocks,
            "data",
            names=names,
            engine="numpy",
            chunk_size=_chunk_rows(plan.layout, plan.blocks, n_boot),
            replicates=evaluation_replicates(n_boot, random_state=seed),
            progress=progress,
        )
    return StreamedData(
        group_names=group_names,
        task_names=task_names,
        evaluation=evaluation,
        train=train,
        signs=signs,
        replicates=replicates,
        patterns=patterns,
        files=files,
    )


# --- metrics ---------------------------------------------------------------------------


def compute_streamed_metric(key: str, data: StreamedData, settings: Settings) -> Any:
    """One co-occurrence metric from the count tables, with its bootstrap interval.

    The same result as :func:`~biasamp.cli.metrics.compute_metric` on the rows
    (``biasamp.mals`` / ``biasamp.directional`` with ``n_boot`` and
    ``random_state``): the point estimate from ``*_from_counts``, the interval
    from the metric's batched core on the replicate tables.
    """
    if key in MULTI_METRICS:
        assert data.patterns is not None  # has("tasks_multilabel") checked it
        train, evaluation = data.patterns
        if key == "multi-mals":
            multi = multi_mals_from_counts(
                train, evaluation, min_group_size=settings.min_group_size
            )
        else:
            direction = "A->T" if key == "multi-a2t" else "T->A"
            multi = multi_directional_from_counts(
                train, evaluation, direction=direction, min_group_size=settings.min_group_size
            )
        multi.params["train_rows"] = "labelled"  # the library's default
        view = REGISTRY[key].view
        return view(multi) if view is not None else multi
    # the directional signs: the training counts, else the evaluation's labelled rows
    signs = data.train if data.train is not None else data.signs
    if key == "mals":
        assert data.train is not None
        margin = float(settings.margin)
        result = mals_from_counts(
            data.train, data.evaluation, margin=margin, min_group_size=settings.min_group_size
        )

        def compute(ev: CountTable, tr: CountTable | None) -> dict[str, np.ndarray]:
            assert tr is not None
            return mals_arrays(tr, ev, margin=margin)
    else:
        direction = "A->T" if key == "directional-a2t" else "T->A"
        result = directional_from_counts(
            data.evaluation,
            direction=direction,
            train=signs,
            min_group_size=settings.min_group_size,
        )
        result.params["train_rows"] = "labelled"  # the library's default
        if data.train is None and signs is not None:
            result.params["signs_from"] = "evaluation"
            result.n_train = None

        def compute(ev: CountTable, tr: CountTable | None) -> dict[str, np.ndarray]:
            return directional_arrays(ev, direction=direction, train=tr)

    if data.replicates is None:
        return result
    return interval_from_tables(
        result,
        data.replicates,
        signs,
        compute=compute,
        n_boot=settings.n_boot,
        ci=settings.ci,
    )
