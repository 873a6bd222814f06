"""Argument handling shared by the sub-commands: the input contract's options and their types.

``measure``, ``report``, ``calibrate`` and ``mitigate`` declare their options here,
so one option means one thing in every command and no command module imports
another.
"""

from __future__ import annotations

import argparse
import math
import sys
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from biasamp.auditing._inputs import Layout
from biasamp.auditing._metric_specs import SPECS, resolve_metric
from biasamp.auditing._run import STREAM_MODES, streaming_text
from biasamp.auditing._streaming import ENGINES
from biasamp.inputs._group_sizes import DEFAULT_MIN_GROUP_SIZE
from biasamp.output._targets import OutputTarget, check_outputs

from .console import new_console
from .exit_codes import EXIT_CODES
from .flags import to_flags

__all__ = [
    "EXIT_CODES",
    "INPUT_CONTRACT",
    "Gate",
    "add_audit_arguments",
    "add_layout_arguments",
    "check_command_outputs",
    "column_list",
    "console_for",
    "delimiter",
    "layout_from_args",
    "non_negative_int",
    "parse_gate",
    "show_progress",
]

ERR_GATE_FORMAT = "--fail-above: expected METRIC=VALUE (for example mals=0.02), got {got!r}."

ERR_NON_NEGATIVE = "expected a non-negative integer, got {got!r}."

ERR_CI = "--ci: expected a level in (0, 1), got {got!r}."

ERR_THRESHOLD = "--threshold: expected a finite number, got {got!r}."

ERR_DELIMITER_ARG = "--delimiter: expected one character (or '\\t' / tab for a tab), got {got!r}."


INPUT_CONTRACT = """\
Input contract:
  One row per instance, in a CSV (.csv, .tsv, optionally .gz) or Parquet file.
  Group   --group COL              one categorical column (one label per row)
          --group-cols A,B         0/1 indicator columns, one per group
  Tasks   --task COL               one categorical column
          --task-cols T1,T2        0/1 indicator columns
          --task-prefix obj_       every column starting with obj_ (label = rest of the name)
          --tasks-long FILE        long table of (id, label) rows for thousands of labels
                                   (--id names the id column, --long-label the label column)
  Predictions of column C are column {pred-prefix}C:
          --pred-prefix pred_      in the data file itself
          --pred FILE --id ID      in another file joined on ID (every id in both files,
                                   no duplicates); its columns use the ground-truth names
                                   unless --pred-prefix is given
          --pred-tasks-long FILE   predicted tasks as a long (id, label) table
  Scores  prediction indicator columns may hold scores; a prediction is positive when
          score > threshold (one rule everywhere): --threshold 0.5 for every label,
          --thresholds FILE from 'biasamp calibrate', or --calibrate-on VAL_FILE
          (validation file in the data file's layout; --calibrate-pred FILE when
          its scores are in another file joined on --id).
  Train   --train FILE             training ground truth, same layout as the data file
                                   (--train-tasks-long FILE with --tasks-long). Its labels
                                   are canonical: an evaluation or predicted label it
                                   lacks is an error. Without it the evaluation ground
                                   truth is canonical.
  Values  indicators are 0 or 1; labels are text; missing values are errors
          (--missing category: a missing group value is the group '<missing>').
  Errors name the file, the column and the problem; exit code 2.
"""


def _streaming_paragraph() -> str:
    """The input contract's paragraph on streaming, from the library's streaming plan."""
    text = to_flags(streaming_text())
    lines = textwrap.wrap(text, width=88, initial_indent="  ", subsequent_indent=" " * 10)
    return "\n".join(lines) + "\n\n"


INPUT_CONTRACT += _streaming_paragraph()


@dataclass(frozen=True)
class Gate:
    """A ``--fail-above METRIC=VALUE`` bound and its outcome."""

    key: str
    bound: float
    value: float | None = None

    @property
    def failed(self) -> bool:
        # an undefined (NaN) value must not pass a CI gate silently
        return self.value is not None and not self.value <= self.bound

    def to_dict(self) -> dict[str, Any]:
        return {
            "metric": self.key,
            "bound": self.bound,
            "value": self.value,
            "passed": not self.failed,
        }


def split_gate(text: str, *, message: str = ERR_GATE_FORMAT) -> tuple[str, float]:
    """``METRIC=VALUE`` as the metric's text (stripped) and a finite bound; anything
    else raises ``argparse.ArgumentTypeError`` with ``message`` (formatted with ``got``).
    Each command's ``--fail-above`` type then resolves the metric among its own."""
    key, sep, value = text.partition("=")
    try:
        bound = float(value)
    except ValueError:
        bound = math.nan
    if not sep or not key.strip() or not math.isfinite(bound):
        raise argparse.ArgumentTypeError(message.format(got=text))
    return key.strip(), bound


def parse_gate(text: str) -> Gate:
    """Parse ``METRIC=VALUE`` (argparse ``type``: errors exit with code 2)."""
    key, bound = split_gate(text)
    try:
        spec = resolve_metric(key, argument="--fail-above")
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from exc
    return Gate(spec.key, bound)


def non_negative_int(text: str) -> int:
    """The argparse ``type`` of an integer option that may not be negative (``--top``)."""
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:  # argparse names the option: "argument --top: expected ..."
        raise argparse.ArgumentTypeError(ERR_NON_NEGATIVE.format(got=text))
    return value


def min_group_size(text: str) -> int | None:
    """The argparse ``type`` of ``--min-group-size``: a non-negative integer, or ``none``."""
    if text.strip().lower() == "none":
        return None
    return non_negative_int(text)


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


def _ci(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(ERR_CI.format(got=text))
    return value


def _threshold(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value):  # score > nan is never true: every prediction would be 0
        raise argparse.ArgumentTypeError(ERR_THRESHOLD.format(got=text))
    return value


def delimiter(text: str) -> str:
    """One character; the two-character ``\\t`` a shell passes for '\\t', and ``tab``, mean a tab."""
    if text in ("\\t", "tab", "TAB"):
        return "\t"
    if len(text) != 1:  # pandas would read a longer one as a regular expression
        raise argparse.ArgumentTypeError(ERR_DELIMITER_ARG.format(got=text))
    return text


ERR_COLUMN_TWICE = "the column {column!r} is listed twice"


def column_list(text: str) -> tuple[str, ...]:
    columns = tuple(c.strip() for c in text.split(",") if c.strip())
    if not columns:
        raise argparse.ArgumentTypeError("expected a comma-separated list of column names")
    seen: set[str] = set()
    for column in columns:  # a loop over the names given on the command line
        if column in seen:
            raise argparse.ArgumentTypeError(ERR_COLUMN_TWICE.format(column=column))
        seen.add(column)
    return columns


def _metric_name(text: str) -> str:
    try:
        return resolve_metric(text, argument="--metric").key
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from exc


def add_layout_arguments(parser: argparse.ArgumentParser, *, scores_only: bool = False) -> None:
    """The input-contract options: files and columns (``scores_only``: for calibrate)."""
    files = parser.add_argument_group("files")
    files.add_argument(
        "data",
        help=("validation file (CSV or Parquet): ground truth, and scores with --pred-prefix")
        if scores_only
        else "evaluation file (CSV or Parquet): ground truth, and predictions with --pred-prefix",
    )
    files.add_argument("--pred", metavar="FILE", help="predictions file joined on --id")
    if not scores_only:
        files.add_argument(
            "--train",
            metavar="FILE",
            help="training ground truth (same layout); its labels are canonical",
        )
    files.add_argument("--id", metavar="COL", help="id column joining the files")
    files.add_argument(
        "--delimiter",
        metavar="CHAR",
        type=delimiter,
        help="CSV delimiter (default ',' or tab for .tsv)",
    )
    files.add_argument(
        "--chunk-size",
        metavar="ROWS",
        type=int,
        help="rows read per chunk (default: about 4 million cells per chunk); "
        "memory while reading grows with it",
    )
    if not scores_only:
        files.add_argument(
            "--stream",
            choices=STREAM_MODES,
            default="auto",
            help="count the files chunk by chunk with bounded memory: auto "
            "(default) when the layout allows it (see 'Streaming' below), "
            "on (an error says why it does not apply), off (read in memory)",
        )
        files.add_argument(
            "--engine",
            choices=ENGINES,
            default="auto",
            help="streaming counts: auto (default: duckdb where it is installed, reads "
            "the files and is measured faster, else numpy), "
            "numpy (pyarrow chunks) or duckdb (one SQL aggregation; "
            "pip install 'biasamp[duckdb]'); the engine that ran is in the settings",
        )
    columns = parser.add_argument_group("columns")
    group = columns.add_mutually_exclusive_group(required=True)
    group.add_argument(
        "--group",
        metavar="COL",
        help="categorical group column; several comma-separated columns (race,sex) "
        "form their intersections, one group per combination of values ('Black x Female')",
    )
    group.add_argument(
        "--group-cols",
        metavar="A,B",
        type=column_list,
        help="0/1 group indicator columns, comma-separated",
    )
    task = columns.add_mutually_exclusive_group(required=True)
    task.add_argument("--task", metavar="COL", help="categorical task column")
    task.add_argument(
        "--task-cols",
        metavar="T1,T2",
        type=column_list,
        help="0/1 task indicator columns, comma-separated",
    )
    task.add_argument(
        "--task-prefix",
        metavar="PREFIX",
        help="every column starting with PREFIX is a task indicator",
    )
    task.add_argument(
        "--tasks-long", metavar="FILE", help="long table of (id, label) task rows (needs --id)"
    )
    columns.add_argument(
        "--long-label",
        metavar="COL",
        default="label",
        help="label column of the long tables (default 'label')",
    )
    columns.add_argument(
        "--pred-prefix", metavar="PREFIX", help="the prediction of column C is column PREFIX+C"
    )
    if scores_only:
        return
    columns.add_argument(
        "--missing",
        choices=("error", "category"),
        default="error",
        help="a missing value in a group column: an error (default) or the group "
        "'<missing>', as biasamp.intersect(missing='category')",
    )
    columns.add_argument(
        "--pred-tasks-long", metavar="FILE", help="predicted tasks as a long (id, label) table"
    )
    columns.add_argument(
        "--train-tasks-long", metavar="FILE", help="training tasks as a long (id, label) table"
    )
    scores = parser.add_argument_group("scores (predicted positive when score > threshold)")
    scores.add_argument(
        "--threshold",
        type=_threshold,
        metavar="T",
        help="binarise prediction scores: score > T is 1 (labels without a calibrated threshold)",
    )
    calibrated = scores.add_mutually_exclusive_group()
    calibrated.add_argument(
        "--thresholds", metavar="FILE", help="per-label thresholds written by 'biasamp calibrate'"
    )
    calibrated.add_argument(
        "--calibrate-on",
        metavar="VAL_FILE",
        help="calibrate per-label thresholds on this validation file (same "
        "layout as the data file, scores as prediction columns)",
    )
    scores.add_argument(
        "--calibrate-pred",
        metavar="FILE",
        help="validation scores in another file joined on --id (with --calibrate-on)",
    )
    scores.add_argument(
        "--positive-group",
        metavar="GROUP",
        help="exclusive group score columns (one group per row) with two groups: the group "
        "whose score is thresholded (default: the second in sorted order); the other group "
        "is predicted when it is not above its threshold",
    )
    scores.add_argument(
        "--ties",
        choices=("nearest", "fewer", "more"),
        default="nearest",
        help="calibration: count to take when scores tie (default nearest)",
    )


def add_audit_arguments(parser: argparse.ArgumentParser) -> None:
    """The input-contract options (and metric options) shared by measure and report."""
    add_layout_arguments(parser)
    metrics = parser.add_argument_group("metrics")
    metrics.add_argument(
        "--metric",
        action="append",
        type=_metric_name,
        metavar="NAME",
        help="metric to compute, repeatable: "
        + ", ".join(SPECS)
        + " (default: "
        + ", ".join(k for k, s in SPECS.items() if s.default)
        + ", those the inputs allow)",
    )
    metrics.add_argument(
        "--n-boot",
        type=non_negative_int,
        default=0,
        metavar="B",
        help="bootstrap replicates for intervals (default 0: none)",
    )
    metrics.add_argument(
        "--n-perm",
        type=non_negative_int,
        default=0,
        metavar="P",
        help="swapped data sets of the swap test against chance: a p-value for every "
        "metric with a null (default 0: none)",
    )
    metrics.add_argument("--ci", type=_ci, default=0.95, help="interval level (default 0.95)")
    metrics.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    metrics.add_argument(
        "--n-iter",
        type=_positive_int,
        default=10,
        metavar="K",
        help="attacker iterations of dpa-a2t, dpa-t2a, leakage (default 10)",
    )
    metrics.add_argument(
        "--margin",
        type=float,
        default=0.05,
        help="MALS margin for violations and the report's band (default 0.05)",
    )
    metrics.add_argument(
        "--min-cell",
        type=non_negative_int,
        default=5,
        metavar="N",
        help="warn about group x task cells with fewer than N instances, and flag 'fragile' "
        "the pairs whose value rests on fewer than N rows (default 5)",
    )
    metrics.add_argument(
        "--min-group-size",
        type=min_group_size,
        default=DEFAULT_MIN_GROUP_SIZE,
        metavar="N",
        help="warn about groups with fewer than N instances in a split a metric reads "
        f"(default {DEFAULT_MIN_GROUP_SIZE:g}; 'none': no check); every metric reports "
        "its group sizes",
    )
    output = parser.add_argument_group("output")
    output.add_argument("--json", metavar="FILE", help="write the results as JSON (schema v1)")
    output.add_argument(
        "--top",
        type=non_negative_int,
        default=10,
        metavar="K",
        help="pairs shown per metric (default 10)",
    )
    output.add_argument(
        "--fail-above",
        action="append",
        type=parse_gate,
        default=[],
        metavar="METRIC=VALUE",
        help="exit with code 1 when METRIC exceeds VALUE (repeatable)",
    )
    output.add_argument("--no-progress", action="store_true", help="hide progress bars")


def layout_from_args(args: argparse.Namespace) -> Layout:
    return Layout(
        group=args.group,
        group_cols=args.group_cols,
        task=args.task,
        task_cols=args.task_cols,
        task_prefix=args.task_prefix,
        tasks_long=args.tasks_long,
        id=args.id,
        pred_prefix=args.pred_prefix,
        long_label=args.long_label,
        delimiter=args.delimiter,
        chunk_size=args.chunk_size,
    )


def show_progress(args: argparse.Namespace) -> bool:
    """Progress bars on standard error, unless --no-progress or stderr is not a terminal."""
    return not args.no_progress and sys.stderr.isatty()


#: Every option of any command that names an input file (an output may not be one).
INPUT_OPTIONS = (
    ("data", "DATA"),
    ("scores", "SCORES"),
    ("pred", "--pred"),
    ("train", "--train"),
    ("truth", "--truth"),
    ("tasks_long", "--tasks-long"),
    ("pred_tasks_long", "--pred-tasks-long"),
    ("train_tasks_long", "--train-tasks-long"),
    ("thresholds", "--thresholds"),
    ("calibrate_on", "--calibrate-on"),
    ("calibrate_pred", "--calibrate-pred"),
)


def check_command_outputs(
    args: argparse.Namespace, outputs: Sequence[tuple[str, str]]
) -> dict[str, OutputTarget]:
    """Check a command's outputs before any work: ``outputs`` is ``(attribute, option)``.

    Returns the checked targets by attribute (options not given are absent).
    Raises :class:`~biasamp.output._targets.OutputError` for an output that is
    a directory, a device, a FIFO, a read-only file, one of the inputs or
    another output (``docs/cli.md``, "Output files").
    """
    inputs = [(option, getattr(args, attr, None)) for attr, option in INPUT_OPTIONS]
    given = [(attr, option) for attr, option in outputs if getattr(args, attr, None) is not None]
    targets = check_outputs(
        [(option, getattr(args, attr)) for attr, option in given], inputs=inputs
    )
    return {attr: target for (attr, _), target in zip(given, targets, strict=True)}


def console_for(targets: dict[str, OutputTarget]) -> Any:
    """The console of the human-readable output: standard error when an output is ``-``
    (never cut when it is not a terminal: :func:`biasamp.cli.console.new_console`)."""
    return new_console(stderr=any(target.stdout for target in targets.values()))
