"""``biasamp calibrate``: per-label decision thresholds from a validation file.

The validation file has the layout of the data file of ``biasamp measure``:
ground-truth group / task indicator columns (``--group-cols``, ``--task-cols``,
``--task-prefix``) and the model's scores for them, as prediction columns
(``--pred-prefix`` in the same file, or ``--pred FILE --id COL``). Each score
column gets the threshold of :func:`biasamp.calibrate_thresholds`: as many
validation rows are predicted positive as the ground truth has positives.

**One rule for scores** everywhere in biasamp: a prediction is positive when
``score > threshold`` (strict). ``--threshold``, calibrated thresholds, the
threshold sweep and :func:`biasamp.calibrate_thresholds` all use it.

Thresholds files (written atomically with :func:`biasamp.atomic_output`):

* ``.json``: ``{"schema": "biasamp-thresholds", "schema_version": 1, "rule":
  "score > threshold", "n": ..., "ties": ..., "source": {...}, "labels": [{"label",
  "threshold", "target_count", "predicted_count"}, ...]}``;
* anything else: CSV with the columns ``label,threshold,target_count,predicted_count``.

``biasamp measure`` / ``report`` read them with ``--thresholds FILE``, or
calibrate on the fly with ``--calibrate-on VAL_FILE`` (and
``--calibrate-pred FILE`` when the validation scores are in another file).
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path
from typing import Any

import pandas as pd
from rich.console import Console
from rich.table import Table
from rich.text import Text

from biasamp.engines._audit_inputs import AuditData, InputError, Layout, load_audit
from biasamp.engines._file_formats import check_field_counts
from biasamp.output._atomic import atomic_output
from biasamp.output._csv import unescape_cell, unescape_cells, write_csv
from biasamp.output._targets import OutputTarget
from biasamp.uncertainty._calibration import ThresholdCalibration, calibrate_thresholds

from .arguments import (
    EXIT_CODES,
    add_layout_arguments,
    check_command_outputs,
    console_for,
    layout_from_args,
)

__all__ = ["add_parser", "calibrate_from_files", "read_thresholds", "run", "write_thresholds"]

THRESHOLDS_SCHEMA = "biasamp-thresholds"
ERR_NO_SCORES = (
    "{file}: calibration needs score columns: give the group and/or task indicator columns "
    "(--group-cols, --task-cols or --task-prefix) and their scores as prediction columns "
    "(--pred-prefix, or --pred FILE --id COL). Categorical columns and long tables hold no "
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

HELP = """Calibrate per-label decision thresholds on a validation file.

For every score column (the predictions of the group and task indicator
columns), the threshold predicts as many validation rows positive as the
ground truth has positives (Wang & Russakovsky 2021, section 3.3; ties at the
cut follow --ties). A prediction is positive when score > threshold, the one
rule used by --threshold, --thresholds, --calibrate-on and the report's
threshold sweep. The thresholds are printed and, with --output, written as
JSON (.json) or CSV (label,threshold,target_count,predicted_count), atomically.

Validation file layout: as the data file of 'biasamp measure': 0/1 ground-truth
indicator columns (--group-cols, --task-cols or --task-prefix) and their scores,
column C's score being column {pred-prefix}C in the same file, or in another
file joined on --id (--pred FILE). Errors name the file and the column; exit 2.

Examples:
  # scores next to the truth, prefixed score_
  biasamp calibrate val.csv --group-cols man,woman --task-prefix obj_ \\
      --pred-prefix score_ --output thresholds.json
  # scores in another file joined on image_id; then use them
  biasamp calibrate val.parquet --group-cols man,woman --task-cols cup,ski \\
      --pred val_scores.parquet --id image_id --output thresholds.csv
  biasamp measure test.parquet --group-cols man,woman --task-cols cup,ski \\
      --pred test_scores.parquet --id image_id --thresholds thresholds.csv
  # or calibrate on the fly
  biasamp report test.csv --group-cols man,woman --task-prefix obj_ --pred-prefix score_ \\
      --calibrate-on val.csv --html report.html
"""


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
    """Thresholds calibrated on a validation file (see the module docs)."""
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
    """The ``label -> threshold`` map of a thresholds file (JSON or CSV)."""
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


def print_calibration(console: Console, calibration: ThresholdCalibration) -> None:
    table = Table(
        title=Text(
            f"Thresholds (score > threshold is positive), n={calibration.n}, "
            f"ties={calibration.ties}"
        ),
        title_justify="left",
    )
    for name in ("label", "threshold", "target count", "predicted count"):
        table.add_column(name, justify="left" if name == "label" else "right")
    frame = calibration.to_frame()
    for label, row in frame.iterrows():
        table.add_row(
            Text(str(label)),
            f"{row['threshold']:.6g}",
            f"{int(row['target_count'])}",
            f"{int(row['predicted_count'])}",
        )
    console.print(table)


def run(args: argparse.Namespace) -> int:
    targets = check_command_outputs(args, [("output", "--output")])  # before any work
    layout = layout_from_args(args)
    calibration, audit = calibrate_from_files(
        layout, data=args.data, pred=args.pred, ties=args.ties
    )
    console = console_for(targets)
    print_calibration(console, calibration)
    if "output" in targets:
        source = {
            f.role: {"path": f.path, "sha256": f.sha256, "rows": f.n_rows} for f in audit.files
        }
        write_thresholds(targets["output"], calibration, source=source)
        console.print(Text(f"thresholds written to {args.output}"))
    return 0


def add_parser(subparsers: argparse._SubParsersAction) -> None:

    parser = subparsers.add_parser(
        "calibrate",
        help="per-label decision thresholds from a validation file",
        description=HELP,
        epilog=EXIT_CODES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_layout_arguments(parser, scores_only=True)
    out = parser.add_argument_group("calibration")
    out.add_argument(
        "--ties",
        choices=("nearest", "fewer", "more"),
        default="nearest",
        help="achievable count to take when scores tie at the cut (default nearest)",
    )
    out.add_argument(
        "--output", "-o", metavar="FILE", help="write the thresholds: .json, or CSV otherwise"
    )
    parser.set_defaults(run=run)
