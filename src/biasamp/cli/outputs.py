"""``biasamp outputs``: amplification in generated outputs, against a reference, from files."""

from __future__ import annotations

import argparse
import math
from typing import Any

import pandas as pd

from biasamp.engines._file_reader import ColumnBlock, read_blocks, read_header
from biasamp.inputs._paths import checked_path
from biasamp.output._atomic import OutputBatch
from biasamp.registry import metric_card
from biasamp.results._persist import saved_document

from .arguments import EXIT_CODES, Gate, column_list, console_for, non_negative_int
from .json_output import json_text

__all__ = ["add_parser", "run"]

METRIC = "output-amplification"
ERR_GATE_FORMAT = (
    "--fail-above: expected METRIC=VALUE (for example output-amplification=0.05), got {got!r}."
)
ERR_REFERENCE_LAYOUT = (
    "--reference-concept and --reference-group: give both (the reference as rows, one per "
    "training caption), or neither (the reference as a concept x group table)."
)
ERR_TABLE_COLUMNS = (
    "{file}: a concept x group table needs a concept column ({option}) and at least one group "
    "column; the file has columns {columns}."
)

HELP = """Measure how generated outputs push each concept toward the group its reference favours.

OUTPUTS holds one row per generated output (an image, a text): the concept it was
generated for (--concept, a prompt's occupation) and its assigned group (--group).
--reference FILE is the reference, either a concept x group table (one row per
concept: the concept column, --reference-index, default the first column, and one
column of counts or shares per group) or rows (one per training caption) with
--reference-concept COL and --reference-group COL. Per concept, with g* the group
the reference favours, delta = output share of g* - reference share of g*; the
value (output-amplification) is the mean delta over concepts. Concepts whose
reference has no strict majority are left out and named.

--confusion FILE (same table layout: rows the true group, columns the assigned
group, counts from a labelled validation set) corrects the output shares for the
group classifier's errors (CLEAM) before the metric; with counts the interval
includes the correction's uncertainty. --n-boot gives a bootstrap interval
(outputs resampled within concepts; reference rows too when given as rows).
--json writes the result as biasamp.load_result reads it back; --html the report;
--fail-above output-amplification=VALUE exits with code 1 when the value exceeds
VALUE. Files: CSV, TSV (optionally compressed) or Parquet, read as 'biasamp
measure' reads them (errors name the file, column and data row).

Examples:
  biasamp outputs images.csv --concept occupation --group gender \\
      --reference laion_counts.csv --n-boot 1000 --seed 0 --json out.json
  biasamp outputs images.parquet --concept occupation --group gender \\
      --reference captions.parquet --reference-concept occupation \\
      --reference-group gender --confusion gender_classifier.csv \\
      --html report.html --fail-above output-amplification=0.05
"""


def _gate(text: str) -> Gate:
    key, sep, value = text.partition("=")
    try:
        bound = float(value)
    except ValueError:
        bound = math.nan
    if not sep or not key.strip() or not math.isfinite(bound):
        raise argparse.ArgumentTypeError(ERR_GATE_FORMAT.format(got=text))
    try:
        card = metric_card(key.strip(), among=[METRIC], argument="--fail-above")
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc).removeprefix("--fail-above: ")) from exc
    return Gate(card.name, bound)


def _labels(
    path: str, columns: dict[str, tuple[str, str]], role: str
) -> tuple[dict[str, Any], Any]:
    """Label columns of a file: ``columns`` maps a role to (column, option)."""
    blocks = [ColumnBlock(r, "label", (c,), option) for r, (c, option) in columns.items()]
    return read_blocks(checked_path(path, arg=role), blocks, role=role)


def _table(path: str, *, index: str | None, option: str, role: str) -> tuple[pd.DataFrame, Any]:
    """A concept x group table: the index column (labels) and every other column (numbers)."""
    file = checked_path(path, arg=role)
    _, header = read_header(file)
    index = header[0] if index is None and header else index
    groups = [c for c in header if c != index]
    if index is None or not groups:
        raise ValueError(ERR_TABLE_COLUMNS.format(file=file, option=option, columns=header))
    arrays, info = read_blocks(
        file,
        [
            ColumnBlock("index", "label", (index,), option),
            ColumnBlock("values", "score", tuple(groups), role),
        ],
        role=role,
    )
    frame = pd.DataFrame(
        arrays["values"], columns=groups, index=pd.Index(arrays["index"], name=index)
    )
    return frame, info


def run(args: argparse.Namespace) -> int:
    from biasamp.generated import output_amplification
    from biasamp.output._targets import check_outputs

    given = [(k, f"--{k}", getattr(args, k)) for k in ("json", "html") if getattr(args, k)]
    checked = check_outputs(
        [(option, path) for _, option, path in given],
        inputs=[
            ("OUTPUTS", args.outputs),
            ("--reference", args.reference),
            ("--confusion", args.confusion),
        ],
    )  # before any work
    targets = dict(zip([k for k, _, _ in given], checked, strict=True))
    if args.html:
        from biasamp.results._plotting import require_matplotlib

        require_matplotlib()
    if (args.reference_concept is None) != (args.reference_group is None):
        raise ValueError(ERR_REFERENCE_LAYOUT)
    outputs, outputs_info = _labels(
        args.outputs,
        {"concepts": (args.concept, "--concept"), "groups": (args.group, "--group")},
        "OUTPUTS",
    )
    files = [outputs_info]
    reference: dict[str, Any]
    if args.reference_concept is not None:
        rows, info = _labels(
            args.reference,
            {
                "reference_concepts": (args.reference_concept, "--reference-concept"),
                "reference_groups": (args.reference_group, "--reference-group"),
            },
            "--reference",
        )
        reference = dict(rows)
    else:
        table, info = _table(
            args.reference,
            index=args.reference_index,
            option="--reference-index",
            role="--reference",
        )
        reference = {"reference": table}
    files.append(info)
    confusion = None
    if args.confusion is not None:
        confusion, info = _table(
            args.confusion, index=None, option="--confusion", role="--confusion"
        )
        files.append(info)
    result = output_amplification(
        concepts=outputs["concepts"],
        groups=outputs["groups"],
        **reference,
        group_names=list(args.group_names) if args.group_names else None,
        attribute_confusion=confusion,
        n_boot=args.n_boot,
        ci=args.ci,
        random_state=args.seed,
    )
    gates = [Gate(f"{gate.key}", gate.bound, float(result.value)) for gate in args.fail_above]
    result.params["files"] = [f.to_dict() for f in files]
    if gates:
        result.params["gates"] = [gate.to_dict() for gate in gates]
    console = console_for(targets)
    console.print(result.summary(), markup=False, highlight=False, soft_wrap=True)
    console.print(
        result.by_concept.round(4).to_string(), markup=False, highlight=False, soft_wrap=True
    )
    for gate in gates:
        verdict = "FAILED" if gate.failed else "passed"
        console.print(
            f"gate {gate.key} <= {gate.bound:g}: {verdict} (value {gate.value:+.4f})",
            style="bold red" if gate.failed else "green",
            markup=False,
            highlight=False,
        )
    with OutputBatch() as batch:
        if "html" in targets:
            from biasamp.report._html import render_report

            page = render_report(
                {METRIC: result},
                inputs=[f.to_dict() for f in files],
                settings={
                    "outputs": args.outputs,
                    "concept column": args.concept,
                    "group column": args.group,
                    "reference": args.reference,
                    "confusion": args.confusion or "-",
                    "n_boot": args.n_boot or "-",
                },
                gates=gates,
                title=args.title,
            )
            with batch.open(targets["html"], "w", encoding="utf-8") as handle:
                handle.write(page)
        if "json" in targets:
            document = saved_document(result)
            with batch.open(targets["json"], "w", encoding="utf-8") as handle:
                handle.write(json_text(document))
    return 1 if any(gate.failed for gate in gates) else 0


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "outputs",
        help="amplification in generated outputs against a reference (per concept)",
        description=HELP,
        epilog=EXIT_CODES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "outputs", metavar="OUTPUTS", help="CSV, TSV or Parquet file, one row per output"
    )
    parser.add_argument(
        "--concept", required=True, help="column of the concept (prompt) of each output"
    )
    parser.add_argument(
        "--group", required=True, help="column of the assigned group of each output"
    )
    parser.add_argument(
        "--reference", required=True, help="the reference: a concept x group table or rows"
    )
    parser.add_argument(
        "--reference-index", help="concept column of a reference table (default the first)"
    )
    parser.add_argument("--reference-concept", help="concept column of a reference given as rows")
    parser.add_argument("--reference-group", help="group column of a reference given as rows")
    parser.add_argument("--group-names", type=column_list, help="the groups, in order (A,B,...)")
    parser.add_argument(
        "--confusion", help="the group classifier's confusion table (true x assigned)"
    )
    parser.add_argument("--n-boot", type=int, help="bootstrap replicates (default: no interval)")
    parser.add_argument("--ci", type=float, default=0.95, help="interval level (default 0.95)")
    parser.add_argument("--seed", type=non_negative_int, help="bootstrap seed")
    parser.add_argument("--json", help="write the result as JSON ('-': standard output)")
    parser.add_argument("--html", help="write the HTML report")
    parser.add_argument("--title", default="biasamp outputs report", help="title of the report")
    parser.add_argument(
        "--fail-above",
        action="append",
        type=_gate,
        default=[],
        metavar="METRIC=VALUE",
        help="exit with code 1 when output-amplification exceeds VALUE",
    )
    parser.set_defaults(run=run)
