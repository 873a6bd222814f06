"""``biasamp captions``: bias amplification of captioning models, side by side."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import pandas as pd

from biasamp._version import __version__
from biasamp.output._targets import check_outputs
from biasamp.registry import metric_card
from biasamp.report import write_report
from biasamp.results import PairwiseResult
from biasamp.results._base import _json_safe
from biasamp.results._cli_document import CAPTIONS_SCHEMA, CAPTIONS_SCHEMA_VERSION
from biasamp.results._persist import typed_result
from biasamp.text import caption_bias_table
from biasamp.text._caption_bias import ALL_METRICS, EXCLUDE_CHOICES, METRICS

from .arguments import EXIT_CODES, column_list, console_for
from .json_output import write_json

__all__ = ["add_parser", "run"]

ERR_COLUMNS = "{path}: no column(s) {missing} (columns: {columns})."

HELP = """Measure captioning models on their captions, side by side.

DATA holds one row per image: the image's group (--group), its 0/1 task columns
(--task-cols; default every other numeric column but --id) and
one caption column per model (--caption-cols). Each caption is read into a
predicted group (gendered words) and predicted tasks (object mentions), and
directional-t2a, directional-a2t and mals (the names 'biasamp measure' uses; the
paper's 'T->A', 'A->T', 'MALS' are accepted too, quoted for the shell) are computed
against the image labels. --json writes a file biasamp.load_result reads back.
Captions that name no group (or two) are left out of T->A and MALS; the table
says how many. Signs and MALS training bias come from --train, else from DATA.
With human captions of the same images (--human-cols, one or several columns),
"--metric dbac-a2t" and "--metric dbac-t2a" add DBAC (masked captions,
attackers over --dbac-iter splits seeded by --seed).

Examples:
  biasamp captions captions.csv --group gender --id image_id \\
      --caption-cols baseline_ft,equalizer --n-boot 500 --seed 0 --json out.json
  biasamp captions captions.parquet --group gender --caption-cols model_a \\
      --task-cols dog,skis --train train.csv --html report.html
  biasamp captions captions.csv --group gender --id image_id --caption-cols equalizer \
      --human-cols human_1,human_2,human_3,human_4,human_5 --metric dbac-t2a --seed 0
"""

ERR_NO_HUMAN_COLS = "--metric {metrics}: needs --human-cols (the human captions of each image)."
ERR_HTML_METRICS = (
    "--html: the report draws T->A, A->T or MALS and lists DBAC beside them; add one of "
    "them with --metric."
)


def _read(path: str) -> pd.DataFrame:
    suffixes = Path(path).suffixes
    if ".parquet" in suffixes:
        return pd.read_parquet(path)
    return pd.read_csv(path, sep="\t" if ".tsv" in suffixes else ",")


def _is_numeric(column: pd.Series) -> bool:
    return bool(pd.api.types.is_numeric_dtype(column))


def _columns(frame: pd.DataFrame, wanted: list[str], path: str) -> None:
    missing = [c for c in wanted if c not in frame.columns]
    if missing:
        raise ValueError(ERR_COLUMNS.format(path=path, missing=missing, columns=list(frame)[:20]))


def _caption_metric(text: str) -> str:
    """``--metric``: a caption metric's canonical name, from any spelling of the registry."""
    try:
        return metric_card(text, among=ALL_METRICS, argument="--metric").name
    except ValueError as exc:  # argparse names the option itself
        raise argparse.ArgumentTypeError(str(exc).removeprefix("--metric: ")) from exc


def run(args: argparse.Namespace) -> int:
    given = [(k, f"--{k}", getattr(args, k)) for k in ("json", "html") if getattr(args, k)]
    checked = check_outputs(
        [(option, path) for _, option, path in given],
        inputs=[("DATA", args.data), ("--train", args.train)],
    )  # before any work
    targets = dict(zip([k for k, _, _ in given], checked, strict=True))
    data = _read(args.data)
    captions = list(args.caption_cols)
    human_cols = list(args.human_cols or [])
    chosen = args.metric or list(METRICS)
    text_metrics = [m for m in chosen if m not in METRICS]
    if text_metrics and not human_cols:
        raise ValueError(ERR_NO_HUMAN_COLS.format(metrics=text_metrics))
    if "html" in targets and len(text_metrics) == len(chosen):
        raise ValueError(ERR_HTML_METRICS)
    skip = {args.group, *captions, *human_cols, *(args.id or ())}
    tasks = list(args.task_cols or [c for c in data if c not in skip and _is_numeric(data[c])])
    _columns(data, [args.group, *captions, *tasks, *human_cols], args.data)
    human: dict[str, Any] = {}
    if human_cols:
        rows = data[human_cols].astype(object).to_numpy()
        human = {
            "captions_human": list(rows) if len(human_cols) > 1 else rows[:, 0],
            "dbac_params": {"n_iter": args.dbac_iter},
        }
    train: dict[str, Any] = {}
    if args.train:
        frame = _read(args.train)
        _columns(frame, [args.group, *tasks], args.train)
        train = {"groups_train": frame[args.group].to_numpy(), "tasks_train": frame[tasks]}
    table, results = caption_bias_table(
        data[captions], groups=data[args.group].to_numpy(), tasks=data[tasks], **train,
        metrics=chosen, mask=args.mask, exclude_no_group=args.exclude_no_group,
        n_boot=args.n_boot, random_state=args.seed, **human,
    )  # fmt: skip
    console_for(targets).print(
        table.round(4).to_string(index=False), highlight=False, soft_wrap=True
    )
    if "json" in targets:
        document = {
            "schema": CAPTIONS_SCHEMA,
            "schema_version": CAPTIONS_SCHEMA_VERSION,
            "biasamp_version": __version__,
            "data": args.data,
            "table": _json_safe(table.to_dict(orient="records")),
            "models": _json_safe({name: res.to_dict() for name, res in results.items()}),
            "results": {name: typed_result(res) for name, res in results.items()},
        }
        write_json(targets["json"], document)
    if "html" in targets:
        settings = {"data": args.data, "caption columns": ", ".join(captions)}
        for row in table.itertuples(index=False):
            settings[f"{row.model}: captions with one group / none / two"] = (
                f"{row.one_group} / {row.no_group} / {row.conflict}"
            )
            settings[f"{row.model}: gender accuracy"] = f"{row.group_accuracy:.4f}"
        for name, res in results.items():  # DBAC has no per-pair table: a line each
            for key, result in res.results.items():
                if not isinstance(result, PairwiseResult):
                    ci = "" if result.ci is None else f" [{result.ci[0]:+.4f}, {result.ci[1]:+.4f}]"
                    settings[f"{name}: {key}"] = f"{result.value:+.4f}{ci}"
        write_report(
            targets["html"].path,
            results={
                f"{m} {k}": r
                for m, res in results.items()
                for k, r in res.results.items()
                if isinstance(r, PairwiseResult)
            },
            settings=settings, title="biasamp captions report",
        )  # fmt: skip
    return 0


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "captions",
        help="bias amplification of captioning models, read from their captions",
        description=HELP,
        epilog=EXIT_CODES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("data", metavar="DATA", help="CSV, TSV or Parquet file, one row per image")
    parser.add_argument("--caption-cols", type=column_list, required=True, help="model columns")
    parser.add_argument("--group", required=True, help="column of the image's group")
    parser.add_argument("--task-cols", type=column_list, help="0/1 task columns")
    parser.add_argument("--id", type=column_list, help="id column(s), not tasks")
    parser.add_argument("--train", help="training labels (group and task columns)")
    parser.add_argument(
        "--metric",
        action="append",
        type=_caption_metric,
        metavar="NAME",
        help=f"one of {', '.join(ALL_METRICS)} (repeatable; default the first three)",
    )
    parser.add_argument("--human-cols", type=column_list, help="human caption column(s), for DBAC")
    parser.add_argument("--dbac-iter", type=int, default=5, help="DBAC splits (default 5)")
    parser.add_argument("--mask", action="store_true", help="drop group words before objects")
    parser.add_argument("--exclude-no-group", choices=EXCLUDE_CHOICES, default="group-side")
    parser.add_argument("--n-boot", type=int, help="bootstrap replicates for intervals")
    parser.add_argument("--seed", type=int, help="bootstrap seed")
    parser.add_argument("--json", help="write the results as JSON ('-': standard output)")
    parser.add_argument("--html", help="write the HTML report")
    parser.set_defaults(run=run)
