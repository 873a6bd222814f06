"""``biasamp report``: the metrics of ``biasamp measure`` plus a self-contained HTML report."""

from __future__ import annotations

import argparse

from biasamp.output._atomic import OutputBatch
from biasamp.report._html import render_report

from .arguments import (
    EXIT_CODES,
    INPUT_CONTRACT,
    add_audit_arguments,
    check_command_outputs,
    console_for,
    show_progress,
)
from .audit import Audit, run_audit
from .json_output import audit_document, json_text
from .terminal import print_audit

__all__ = ["add_parser", "render_audit_report", "run"]

HELP = f"""Compute bias-amplification metrics and write a self-contained HTML report.

Everything 'biasamp measure' does, plus --html FILE: one HTML file with no
external request (figures inline, no CDN; pair tables sorted, filtered and
paged by one inline script) holding the summary,
warnings, training vs predicted bias per task with the margin band (Zhao et al.
2017, figures 2-3), per metric what its value means, which sign is
amplification and its paper, the group x task delta heatmap, the top pairs
(bars coloured by the sign of their contribution: red raises the value, blue
lowers it; per-pair bootstrap intervals with --n-boot) and the pair table with
each column's meaning, the threshold
sweep of each co-occurrence metric when predictions are scores (--threshold,
--thresholds or --calibrate-on), amplification by combination size when a
multi-attribute metric is asked for (--metric multi-mals, multi-a2t, multi-t2a),
and the inputs and settings used (with file SHA-256s).

Needs matplotlib, the [plot] extra: pip install 'biasamp[plot]' (without it the
command stops before any work with this hint; 'biasamp measure' does not need it).

{INPUT_CONTRACT}
Examples:
  biasamp report test.csv --group gender --task-prefix obj_ --pred-prefix pred_ \\
      --train train.csv --html report.html
  biasamp report test.parquet --group-cols man,woman --task-cols cup,ski \\
      --pred scores.parquet --id image_id --threshold 0.5 --n-boot 500 \\
      --html report.html --json report.json --fail-above mals=0.02
  # thresholds calibrated on a validation file, multi-attribute metrics, DPA
  biasamp report test.csv --group-cols man,woman --task-prefix obj_ --pred-prefix score_ \\
      --train train.csv --calibrate-on val.csv --metric mals --metric multi-mals \\
      --metric multi-a2t --metric dpa-a2t --n-iter 5 --html report.html
"""


def render_audit_report(audit: Audit, *, top: int, title: str, image_format: str = "svg") -> str:
    """The HTML report of an audit: :func:`biasamp.render_report` of the library's
    ``AuditResult`` (as written by this command, with its gates), its warnings and
    skipped metrics in the flags' words. Everything else on the page comes from the
    result itself, so ``render_report(biasamp.audit(...))`` has the same sections."""
    result = audit.result.with_command("report", gates=[g.to_dict() for g in audit.gates])
    return render_report(
        result,
        warnings=audit.warnings,
        skipped=audit.skipped,
        title=title,
        top=top,
        image_format=image_format,
    )


def run(args: argparse.Namespace) -> int:
    from biasamp.results._plotting import require_matplotlib

    require_matplotlib()  # fail before the work, with an install hint
    targets = check_command_outputs(args, [("html", "--html"), ("json", "--json")])
    audit = run_audit(args, progress=show_progress(args), sweep=True)
    console = console_for(targets)
    print_audit(console, audit, top=args.top)
    page = render_audit_report(
        audit, top=args.top, title=args.title, image_format=args.image_format
    )
    json_document = audit_document(audit, command="report") if "json" in targets else None
    # every temporary first, then the renames back to back; the JSON, renamed last, is
    # the commit marker: when it is new, so is the HTML (docs/cli.md, "Output files")
    with OutputBatch() as batch:
        with batch.open(targets["html"], "w", encoding="utf-8") as handle:
            handle.write(page)
        if json_document is not None:
            with batch.open(targets["json"], "w", encoding="utf-8") as handle:
                handle.write(json_text(json_document))
    console.print(f"report written to {args.html}", markup=False, highlight=False)
    return 1 if audit.failed_gates else 0


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "report",
        help="compute the metrics and write a self-contained HTML report",
        description=HELP,
        epilog=EXIT_CODES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_audit_arguments(parser)
    report = parser.add_argument_group("report")
    report.add_argument("--html", metavar="FILE", required=True, help="the HTML file to write")
    report.add_argument("--title", default="biasamp report", help="title of the report")
    report.add_argument(
        "--image-format",
        choices=("svg", "png"),
        default="svg",
        help="format of the inline figures (default svg)",
    )
    parser.set_defaults(run=run)
