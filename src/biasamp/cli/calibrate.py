"""``biasamp calibrate``: per-label decision thresholds from a validation file.

The validation file has the layout of the data file of ``biasamp measure``:
ground-truth group / task indicator columns (``--group-cols``, ``--task-cols``,
``--task-prefix``) and the model's scores for them, as prediction columns
(``--pred-prefix`` in the same file, or ``--pred FILE --id COL``). Each score
column gets the threshold of :func:`biasamp.calibrate_thresholds`: as many
validation rows are predicted positive as the ground truth has positives.

The thresholds file (JSON for ``.json``, else CSV) and the one rule for
scores (``score > threshold``) are described in
:mod:`biasamp.auditing._threshold_files`, which reads and writes them.

``biasamp measure`` / ``report`` read them with ``--thresholds FILE``, or
calibrate on the fly with ``--calibrate-on VAL_FILE`` (and
``--calibrate-pred FILE`` when the validation scores are in another file).
"""

from __future__ import annotations

import argparse

from rich.console import Console
from rich.table import Table
from rich.text import Text

from biasamp.auditing._threshold_files import calibrate_from_files, write_thresholds
from biasamp.uncertainty._calibration import ThresholdCalibration

from .arguments import (
    EXIT_CODES,
    add_layout_arguments,
    check_command_outputs,
    console_for,
    layout_from_args,
)

__all__ = ["add_parser", "run"]

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
