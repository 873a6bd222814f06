"""``biasamp mitigate``: Reducing Bias Amplification (RBA) from files.

RBA (Zhao et al. 2017) recalibrates a structured predictor's outputs on the
evaluation corpus so that each (group, task) bias stays within ``--margin`` of
its training value. It needs the model's *scores* for every possible output.

The scores file (one row per instance, CSV or Parquet; one column per
(group, task) pair with ``--structure single``, group, task-present and
optional task-absent columns with ``--structure multilabel``, names joined by
``--sep``) is described and read in :mod:`biasamp.auditing._rba_files`.

``--id COL`` is carried to the output (and joins ``--truth``). The training
file (``--train``) uses the input contract's group and task options; with
``--group COL`` the group is one categorical column, with ``--group-cols`` 0/1
indicators; tasks are ``--task COL`` (single only) or indicators
(``--task-cols`` / ``--task-prefix``).

Output (``--output FILE``, CSV, written atomically): the calibrated predictions
in the wide layout ``biasamp measure`` reads, with ``--pred-prefix`` (default
``pred_``) before the training file's column names: ``{prefix}{group column}``
holding the group label (``--group``) or one 0/1 column per group
(``--group-cols``), and ``{prefix}{task column}`` holding the task label
(``--task``) or one 0/1 column per task column. ``--output-before FILE``
writes the uncalibrated predictions the same way.
"""

from __future__ import annotations

import argparse
import warnings
from typing import Any, SupportsFloat, SupportsInt, cast

import numpy as np
import pandas as pd
from rich.table import Table
from rich.text import Text

from biasamp.auditing._inputs import Layout
from biasamp.auditing._rba_files import ERR_SEP, load_rba_inputs
from biasamp.mitigation._rba import RBAConvergenceWarning, rba
from biasamp.output._atomic import OutputBatch
from biasamp.output._csv import write_csv

from .arguments import (
    EXIT_CODES,
    check_command_outputs,
    column_list,
    console_for,
    delimiter,
    show_progress,
)

__all__ = ["add_parser", "run"]

HELP = """Reduce bias amplification with RBA (Zhao et al. 2017) from a scores file.

Recalibrates the model's outputs on the evaluation corpus by Lagrangian
relaxation so that every (group, task) bias stays within --margin of the
training bias, writes the calibrated predictions (CSV, atomically) in the wide
layout 'biasamp measure' reads, and prints the before/after row of the paper's
table 2 (violations, BiasAmp_MALS, and performance with --truth).

Scores file (one row per instance; names from the training file; SEP = --sep):
  --structure single       one column per (group, task) pair: "{group}SEP{task}"
                           (the score of that joint output)
  --structure multilabel   per group "{group}" (group score); per (group, task)
                           "{group}SEP{task}" (task present) and, for all pairs or
                           none, "{group}SEP{task}SEPabsent" (task absent; else 0)
Training file (--train): --group COL or --group-cols A,B; --task COL (single),
  --task-cols or --task-prefix. Its labels are canonical.
Output: --pred-prefix (default pred_) + the training column names: the group
  label (--group) or 0/1 group columns, the task label (--task) or 0/1 task
  columns; --id is carried over.

Examples:
  # imSitu-like: one (agent, verb) output per image
  biasamp mitigate scores.csv --structure single --train train.csv --group gender \\
      --task verb --id image_id --output calibrated.csv
  biasamp measure test.csv --group gender --task verb --train train.csv \\
      --pred calibrated.csv --id image_id --pred-prefix pred_
  # COCO-like: a gender and a set of objects per image, columns man|cup, ...
  biasamp mitigate scores.parquet --structure multilabel --train train.csv \\
      --group-cols man,woman --task-prefix obj_ --margin 0.05 --eta 0.5 \\
      --max-iter 200 --truth test.csv --id image_id --output calibrated.csv
"""


def _prediction_frame(
    layout: Layout,
    task_cols: tuple[str, ...],
    groups_pred: Any,
    tasks_pred: Any,
    group_names: tuple[str, ...],
    task_names: tuple[str, ...],
    prefix: str,
) -> pd.DataFrame:
    out: dict[str, Any] = {}
    groups_pred = np.asarray(groups_pred, dtype=object)
    if layout.group is not None:
        out[f"{prefix}{layout.group}"] = groups_pred
    else:
        for name in group_names:
            out[f"{prefix}{name}"] = (groups_pred == name).astype(np.uint8)
    if isinstance(tasks_pred, pd.DataFrame):
        for column, name in zip(task_cols, task_names, strict=True):
            out[f"{prefix}{column}"] = tasks_pred[name].to_numpy().astype(np.uint8)
    elif layout.task is not None:
        out[f"{prefix}{layout.task}"] = np.asarray(tasks_pred, dtype=object)
    else:
        tasks_pred = np.asarray(tasks_pred, dtype=object)
        for column, name in zip(task_cols, task_names, strict=True):
            out[f"{prefix}{column}"] = (tasks_pred == name).astype(np.uint8)
    return pd.DataFrame(out)


def run(args: argparse.Namespace) -> int:
    targets = check_command_outputs(  # before any work
        args, [("output_before", "--output-before"), ("output", "--output")]
    )
    progress = show_progress(args)
    layout = Layout(
        group=args.group,
        group_cols=args.group_cols,
        task=args.task,
        task_cols=args.task_cols,
        task_prefix=args.task_prefix,
        id=args.id,
        delimiter=args.delimiter,
    )
    inputs = load_rba_inputs(
        layout,
        scores=args.scores,
        train=args.train,
        structure=args.structure,
        truth=args.truth,
        sep=args.sep,
        progress=progress,
    )
    group_names, task_names, ids = inputs.group_names, inputs.task_names, inputs.ids
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", RBAConvergenceWarning)
        result = rba(
            inputs.scores,
            structure=args.structure,
            groups_train=inputs.groups_train,
            tasks_train=inputs.tasks_train,
            group_names=group_names,
            task_names=task_names,
            margin=args.margin,
            eta=args.eta,
            max_iter=args.max_iter,
            schedule=args.schedule,
            select=args.select,
            progress=progress,
            **inputs.truth,
        )
    prefix = args.pred_prefix
    frames = {"output": (result.groups_pred, result.tasks_pred)}
    if "output_before" in targets:
        frames["output_before"] = (result.groups_pred_before, result.tasks_pred_before)
    # every temporary first, then the renames back to back, --output (the calibrated
    # predictions) last: when it is new, so is --output-before (docs/cli.md, "Output files")
    with OutputBatch() as batch:
        for attr in ("output_before", "output"):
            if attr not in frames:
                continue
            g_pred, t_pred = frames[attr]
            frame = _prediction_frame(
                layout, inputs.task_columns, g_pred, t_pred, group_names, task_names, prefix
            )
            if ids is not None:
                frame.insert(0, args.id, ids)
            with batch.open(targets[attr], "w", encoding="utf-8", newline="") as handle:
                write_csv(handle, frame)
    console = console_for(targets)
    for warning in caught:  # the numbers of a run that did not converge, on the console
        if issubclass(warning.category, RBAConvergenceWarning):
            console.print(Text(f"warning: {warning.message}"))
    status = "converged" if result.converged else "constraints still violated"
    console.print(
        Text(
            f"RBA ({args.structure}, margin {args.margin:g}, eta {args.eta:g}, "
            f"schedule {args.schedule}): {result.n_iter} iterations, returned iteration "
            f"{result.selected_iteration} ({args.select}), {status}; {inputs.n_rows} instances, "
            f"{len(group_names)} groups, {len(task_names)} tasks"
        )
    )
    table = Table(title="Table 2 row (Zhao et al. 2017)", title_justify="left")
    frame = result.table()
    table.add_column("")
    for column in frame.columns:
        table.add_column(Text(str(column)), justify="right")
    for label in frame.index:
        table.add_row(
            str(label),
            *(
                f"{int(cast(SupportsInt, frame.at[label, c]))}"  # numeric columns only
                if pd.api.types.is_integer_dtype(frame[c])
                else f"{float(cast(SupportsFloat, frame.at[label, c])):.4f}"
                for c in frame.columns
            ),
        )
    console.print(table)
    console.print(Text(f"calibrated predictions written to {args.output}"))
    return 0


def _sep(text: str) -> str:
    if not text:
        raise argparse.ArgumentTypeError(ERR_SEP.format(got=text))
    return text


def add_parser(subparsers: argparse._SubParsersAction) -> None:

    parser = subparsers.add_parser(
        "mitigate",
        help="reduce bias amplification with RBA (calibrated predictions)",
        description=HELP,
        epilog=EXIT_CODES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    files = parser.add_argument_group("files")
    files.add_argument("scores", help="scores file (CSV or Parquet), layout above")
    files.add_argument(
        "--train",
        metavar="FILE",
        required=True,
        help="training ground truth (fixes the training bias and the names)",
    )
    files.add_argument(
        "--truth",
        metavar="FILE",
        help="evaluation ground truth (training layout) for the performance columns",
    )
    files.add_argument(
        "--id", metavar="COL", help="id column (carried to the output; joins --truth)"
    )
    files.add_argument(
        "--delimiter", metavar="CHAR", type=delimiter, help="CSV delimiter (default ',')"
    )
    files.add_argument(
        "--output", "-o", metavar="FILE", required=True, help="CSV of calibrated predictions"
    )
    files.add_argument(
        "--output-before", metavar="FILE", help="CSV of the uncalibrated predictions (same layout)"
    )
    columns = parser.add_argument_group("columns")
    group = columns.add_mutually_exclusive_group(required=True)
    group.add_argument("--group", metavar="COL", help="categorical group column of --train")
    group.add_argument(
        "--group-cols",
        metavar="A,B",
        type=column_list,
        help="0/1 group indicator columns of --train",
    )
    task = columns.add_mutually_exclusive_group(required=True)
    task.add_argument("--task", metavar="COL", help="categorical task column (single)")
    task.add_argument(
        "--task-cols", metavar="T1,T2", type=column_list, help="0/1 task indicator columns"
    )
    task.add_argument(
        "--task-prefix",
        metavar="PREFIX",
        help="every column starting with PREFIX is a task indicator",
    )
    columns.add_argument(
        "--sep", default="|", type=_sep, help="separator in score column names (default '|')"
    )
    columns.add_argument(
        "--pred-prefix",
        default="pred_",
        metavar="PREFIX",
        help="prefix of the output's prediction columns (default pred_)",
    )
    rba_group = parser.add_argument_group("RBA")
    rba_group.add_argument(
        "--structure",
        choices=("single", "multilabel"),
        required=True,
        help="the output structure (see the layout above)",
    )
    rba_group.add_argument(
        "--margin", type=float, default=0.05, help="allowed bias change (gamma, default 0.05)"
    )
    rba_group.add_argument(
        "--max-iter", type=int, default=100, metavar="K", help="maximum inferences (default 100)"
    )
    rba_group.add_argument(
        "--eta", type=float, default=1.0, help="multiplier step size (default 1.0; see biasamp.rba)"
    )
    rba_group.add_argument(
        "--schedule",
        choices=("adaptive", "decay", "constant"),
        default="adaptive",
        help="step sizes: adaptive (halve a constraint's step when it overshoots; default), "
        "decay (eta / sqrt(t)) or constant (the paper)",
    )
    rba_group.add_argument(
        "--select",
        choices=("best", "last"),
        default="best",
        help="the iterate written: best (fewest violated constraints, then the model's "
        "score; default) or last (the paper)",
    )
    parser.add_argument("--no-progress", action="store_true", help="hide progress bars")
    parser.set_defaults(run=run)
