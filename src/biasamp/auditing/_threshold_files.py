"""Thresholds files and calibration from files: the calibrated side of the input contract.

**One rule for scores** everywhere in biasamp: a prediction is positive when
``score > threshold`` (strict). A fixed threshold, calibrated thresholds, the
threshold sweep and :func:`biasamp.calibrate_thresholds` all use it.

:func:`calibrate_from_files` calibrates one threshold per score column of a
validation file (the layout of an audit's data file: ground-truth indicator
columns and their scores as prediction columns, read by
:func:`~biasamp.auditing._inputs.load_audit`), with
:func:`biasamp.calibrate_thresholds`: as many validation rows are predicted
positive as the ground truth has positives.

Thresholds files (written atomically with :func:`biasamp.atomic_output`):

* ``.json``: ``{"schema": "biasamp-thresholds", "schema_version": 1, "rule":
  "score > threshold", "n": ..., "ties": ..., "source": {...}, "labels": [{"label",
  "threshold", "target_count", "predicted_count"}, ...]}``;
* anything else: CSV with the columns ``label,threshold,target_count,predicted_count``.

Errors are :class:`~biasamp.engines._file_reader.InputError` naming the file.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pandas as pd

from biasamp.auditing._inputs import AuditData, InputError, Layout, load_audit
from biasamp.engines._file_formats import check_field_counts
from biasamp.output._atomic import atomic_output
from biasamp.output._csv import unescape_cell, unescape_cells, write_csv
from biasamp.output._targets import OutputTarget
from biasamp.uncertainty._calibration import ThresholdCalibration, calibrate_thresholds

__all__ = [
    "calibrate_from_files",
    "check_threshold_labels",
    "read_thresholds",
    "write_thresholds",
]

THRESHOLDS_SCHEMA = "biasamp-thresholds"
ERR_NO_SCORES = (
    "{file}: calibration needs score columns: give the group and/or task indicator columns "
    "(group_cols=, task_cols= or task_prefix=) and their scores as prediction columns "
    "(pred_prefix=, or pred=FILE id=COL). Categorical columns and long tables hold no "
    "scores."
)
ERR_DUPLICATE_LABEL = (
    "{file}: the label {label!r} names both a group and a task column; thresholds are keyed "
    "by label name, so the names must differ."
)
ERR_THRESHOLDS_FILE = "{file}: not a thresholds file ({detail})."
ERR_THRESHOLDS_VALUE = "{file}: the threshold of {label!r} is not a finite number ({value!r})."
ERR_THRESHOLDS_LABELS = (
    "{file}: threshold(s) for label(s) {examples} that are not score columns of this audit "
    "(scored labels: {scored})."
)


def _score_frames(data: AuditData) -> tuple[pd.DataFrame, pd.DataFrame]:
    scores, truth = [], []
    if data.group_scores is not None:
        scores.append(pd.DataFrame(data.group_scores, columns=list(data.group_names)))
        truth.append(pd.DataFrame(data.groups, columns=list(data.group_names)))
    if data.task_scores is not None:
        scores.append(pd.DataFrame(data.task_scores, columns=list(data.task_names)))
        truth.append(pd.DataFrame(data.tasks, columns=list(data.task_names)))
    return pd.concat(scores, axis=1), pd.concat(truth, axis=1)


def calibrate_from_files(
    layout: Layout,
    *,
    data: str | Path,
    pred: str | Path | None = None,
    ties: str = "nearest",
    progress: bool = False,
) -> tuple[ThresholdCalibration, AuditData]:
    """Thresholds calibrated on a validation file (see the module docs).

    Parameters
    ----------
    layout : Layout
        The validation file's columns: group and/or task indicator columns,
        their scores as prediction columns.
    data : path
        The validation file.
    pred : path, optional
        A file of scores joined on ``layout.id``.
    ties : str, default "nearest"
        As in :func:`biasamp.calibrate_thresholds`.
    progress : bool, default False
        Show a progress bar while reading.

    Returns
    -------
    (ThresholdCalibration, AuditData)
        The thresholds, and the validation data they were calibrated on.

    Examples
    --------
    >>> import os, tempfile
    >>> import pandas as pd
    >>> path = os.path.join(tempfile.mkdtemp(), "val.csv")
    >>> pd.DataFrame({"m": [1, 0, 1, 0], "w": [0, 1, 0, 1], "ski": [1, 1, 0, 0],
    ...               "s_ski": [0.9, 0.7, 0.4, 0.2]}).to_csv(path, index=False)
    >>> calibration, _ = calibrate_from_files(
    ...     Layout(group_cols=("m", "w"), task_cols=("ski",), pred_prefix="s_"), data=path)
    >>> float(calibration.thresholds["ski"])  # two positives: halfway between 0.7 and 0.4
    0.55
    """
    audit = load_audit(layout, data=data, pred=pred, threshold=0.5, progress=progress)
    if audit.scores is None:
        raise InputError(ERR_NO_SCORES.format(file=pred or data))
    names = [
        *(audit.group_names if audit.group_scores is not None else ()),
        *(audit.task_names if audit.task_scores is not None else ()),
    ]
    seen: set[str] = set()
    for name in names:
        if name in seen:
            raise InputError(ERR_DUPLICATE_LABEL.format(file=data, label=name))
        seen.add(name)
    scores, truth = _score_frames(audit)
    return calibrate_thresholds(scores, labels_val=truth, ties=ties), audit


def write_thresholds(
    path: str | Path | OutputTarget,
    calibration: ThresholdCalibration,
    *,
    source: dict[str, Any] | None = None,
) -> str | Path | OutputTarget:
    """Write thresholds as JSON (``.json``) or CSV, atomically; return the path.

    ``-`` writes CSV to standard output. CSV cells are spreadsheet-safe
    (:func:`biasamp.output._csv.spreadsheet_safe`); :func:`read_thresholds`
    reads them back exactly.
    """
    suffix = Path(path.path if isinstance(path, OutputTarget) else path).suffix
    frame = calibration.to_frame().reset_index(names="label")
    frame["label"] = frame["label"].astype(str)
    if suffix.lower() == ".json":
        doc = {
            "schema": THRESHOLDS_SCHEMA,
            "schema_version": 1,
            "rule": "score > threshold",
            **calibration.to_dict(),
            "source": source or {},
        }
        with atomic_output(path, "w", encoding="utf-8") as handle:
            handle.write(json.dumps(doc, indent=2, ensure_ascii=False, allow_nan=False) + "\n")
    else:
        with atomic_output(path, "w", encoding="utf-8", newline="") as handle:
            write_csv(handle, frame, float_format="%.17g")
    return path


def read_thresholds(path: str | Path) -> dict[str, float]:
    """The ``label -> threshold`` map of a thresholds file (JSON or CSV).

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "thresholds.csv")
    >>> with open(path, "w") as handle:
    ...     _ = handle.write("label,threshold\\nski,0.35\\ncook,0.6\\n")
    >>> read_thresholds(path)
    {'ski': 0.35, 'cook': 0.6}
    """
    path = Path(path)
    if not path.is_file():
        raise InputError(f"{path}: file not found.")
    if path.suffix.lower() == ".json":
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
            # untrusted JSON: anything but a list of objects fails below (TypeError, KeyError)
            rows: Any = doc["labels"] if isinstance(doc, dict) else None
            pairs = [(str(r["label"]), r["threshold"]) for r in rows]
        except (ValueError, KeyError, TypeError, RecursionError) as exc:
            # RecursionError: JSON nested deeper than the parser's recursion limit
            raise InputError(
                ERR_THRESHOLDS_FILE.format(
                    file=path,
                    detail="expected the JSON written by 'biasamp calibrate' with "
                    f"'labels': [{{'label', 'threshold'}}, ...]; {type(exc).__name__}: {exc}",
                )
            ) from exc
    else:
        try:
            check_field_counts(path, delimiter=",")
        except ValueError as exc:
            raise InputError(str(exc)) from None
        try:
            frame = pd.read_csv(path, dtype=str, keep_default_na=False, index_col=False)
        except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
            raise InputError(ERR_THRESHOLDS_FILE.format(file=path, detail=str(exc))) from exc
        frame.columns = [unescape_cell(str(c)) for c in frame.columns]
        if not {"label", "threshold"} <= set(frame.columns):
            raise InputError(
                ERR_THRESHOLDS_FILE.format(
                    file=path,
                    detail=f"expected columns 'label' and 'threshold', got {list(frame.columns)}",
                )
            )
        labels = unescape_cells(frame["label"].astype(str))
        pairs = list(zip(labels, frame["threshold"], strict=True))
    out: dict[str, float] = {}
    for label, value in pairs:
        try:
            number = float(value)
        except (TypeError, ValueError):
            number = math.nan
        if not math.isfinite(number) or isinstance(value, bool):
            raise InputError(ERR_THRESHOLDS_VALUE.format(file=path, label=label, value=value))
        out[label] = number
    if not out:
        raise InputError(ERR_THRESHOLDS_FILE.format(file=path, detail="no thresholds"))
    return out


def check_threshold_labels(path: str | Path, thresholds: dict[str, float], data: AuditData) -> None:
    """Every label of a thresholds file must be a score column of the audit."""
    scored = set(data.thresholds)
    unknown = [label for label in thresholds if label not in scored]
    if unknown:
        shown = ", ".join(repr(u) for u in unknown[:5])
        raise InputError(
            ERR_THRESHOLDS_LABELS.format(
                file=path, examples=shown, scored=", ".join(map(repr, sorted(scored))) or "none"
            )
        )
