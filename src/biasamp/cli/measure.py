"""``biasamp measure``: compute bias-amplification metrics from files."""

from __future__ import annotations

import argparse

from .arguments import (
    EXIT_CODES,
    INPUT_CONTRACT,
    add_audit_arguments,
    check_command_outputs,
    console_for,
    show_progress,
)
from .audit import run_audit
from .json_output import audit_document, write_json
from .terminal import print_audit

__all__ = ["add_parser", "run"]


def _metric_lines() -> str:
    from biasamp.auditing._metric_specs import SPECS

    return "\n".join(
        f"  {k:<22} {s.description}" + ("" if s.default else " [opt-in]") for k, s in SPECS.items()
    )


HELP = """Compute bias-amplification metrics from prediction files.

Runs biasamp.audit(...) with the options as its keywords (--seed is random_state,
--metric is metrics) and prints its AuditResult; --json writes AuditResult.to_dict().

Reads the evaluation ground truth, the model's predictions and (optionally) the
training ground truth, computes the chosen metrics (--metric, repeatable; by
default every co-occurrence metric the inputs allow: mals needs --train and
predicted groups and tasks, directional-a2t predicted tasks, directional-t2a
predicted groups), and prints each with its interval, n, number of pairs and
top pairs, plus warnings for empty or tiny cells.

{INPUT_CONTRACT}
Examples:
  # categorical group, task indicators with prefix, predictions in the same file
  biasamp measure test.csv --group gender --task-prefix obj_ --pred-prefix pred_ \\
      --train train.csv
  # indicator groups, predictions in another file joined on image_id, scores at 0.5
  biasamp measure test.parquet --group-cols man,woman --task-cols cup,ski \\
      --pred preds.parquet --id image_id --threshold 0.5
  # thousands of labels as long tables, bootstrap interval, JSON, CI gate
  biasamp measure images.csv --id image_id --group gender --tasks-long labels.csv \\
      --pred-tasks-long predicted.csv --metric directional-a2t --n-boot 1000 --seed 1 \\
      --json result.json --fail-above directional-a2t=0.01
  # thresholds from 'biasamp calibrate'; opt-in metrics that train attackers
  biasamp measure test.csv --group-cols man,woman --task-prefix obj_ --pred-prefix score_ \\
      --thresholds thresholds.json --metric directional-a2t --metric leakage --n-iter 5
  # multi-attribute metrics (multi-label tasks and --train)
  biasamp measure test.csv --group gender --task-prefix obj_ --pred-prefix pred_ \\
      --train train.csv --metric multi-mals --metric multi-a2t --metric multi-t2a
  # differential fairness of intersected groups; a missing value is its own group
  biasamp measure test.csv --group race,sex --task outcome --pred-prefix pred_ \\
      --metric differential-fairness --metric df-amplification --missing category

Metrics (--metric):
{METRICS}
"""


HELP = HELP.replace("{INPUT_CONTRACT}", INPUT_CONTRACT).replace("{METRICS}", _metric_lines())


def run(args: argparse.Namespace) -> int:
    targets = check_command_outputs(args, [("json", "--json")])  # before any work
    audit = run_audit(args, progress=show_progress(args))
    print_audit(console_for(targets), audit, top=args.top)
    if "json" in targets:
        write_json(targets["json"], audit_document(audit, command="measure"))
    return 1 if audit.failed_gates else 0


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "measure",
        help="compute bias-amplification metrics from files",
        description=HELP,
        epilog=EXIT_CODES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_audit_arguments(parser)
    parser.set_defaults(run=run)
