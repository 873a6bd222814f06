"""``biasamp captions``: bias amplification of captioning models, side by side."""

from __future__ import annotations

import argparse
import math
import re
from pathlib import Path
from typing import Any

import pandas as pd

from biasamp.output._targets import check_outputs
from biasamp.registry import metric_card, metric_name
from biasamp.report import write_report
from biasamp.results._base import _json_safe
from biasamp.results._cli_document import CAPTIONS_SCHEMA, CAPTIONS_SCHEMA_VERSION
from biasamp.results._persist import envelope, metrics_of, typed_result
from biasamp.text import caption_bias_table
from biasamp.text._caption_bias import ALL_METRICS, EXCLUDE_CHOICES, METRICS

from .arguments import ERR_GATE_FORMAT, EXIT_CODES, Gate, column_list, console_for, non_negative_int
from .json_output import write_json

__all__ = ["add_parser", "run"]

ERR_COLUMNS = "{path}: no column(s) {missing} (columns: {columns})."
ERR_ID_AS_TASK = (
    "{path}: column {column!r} looks like an id ({why}), not a 0/1 task column; "
    "name it with --id {column} (or list the task columns with --task-cols)."
)
ERR_GATE_METRIC = (
    "--fail-above: {metric} is not computed here (computed: {computed}); ask for it with --metric."
)

HELP = """Measure captioning models on their captions, side by side.

DATA holds one row per image: the image's group (--group), its 0/1 task columns
(--task-cols; default every other numeric column but --id: a column that looks
like an id, a different whole number in each row or named like an id, is refused
then, with the hint to name it with --id) and one caption column per model
(--caption-cols). Each caption is read into a
predicted group (gendered words) and predicted tasks (object mentions), and
directional-t2a, directional-a2t and mals (the names 'biasamp measure' uses; the
paper's 'T->A', 'A->T', 'MALS' are accepted too, quoted for the shell) are computed
against the image labels. --json writes a file biasamp.load_result reads back.
Captions that name no group (or two) are left out of T->A and MALS; the table
says how many. Signs and MALS training bias come from --train, else from DATA.
With human captions of the same images (--human-cols, one or several columns),
"--metric dbac-a2t" and "--metric dbac-t2a" add DBAC and "--metric lic" adds
LIC (masked captions, attackers over --dbac-iter splits seeded by --seed).
--fail-above METRIC=VALUE works as in 'biasamp measure' (same metric names):
exit code 1 when any model's METRIC exceeds VALUE.

Examples:
  biasamp captions captions.csv --group gender --id image_id \\
      --caption-cols baseline_ft,equalizer --n-boot 500 --seed 0 --json out.json \\
      --fail-above directional-t2a=0.02
  biasamp captions captions.parquet --group gender --caption-cols model_a \\
      --task-cols dog,skis --train train.csv --html report.html
  biasamp captions captions.csv --group gender --id image_id --caption-cols equalizer \
      --human-cols human_1,human_2,human_3,human_4,human_5 --metric dbac-t2a --seed 0
"""

ERR_NO_HUMAN_COLS = "--metric {metrics}: needs --human-cols (the human captions of each image)."


def _read(path: str) -> pd.DataFrame:
    suffixes = Path(path).suffixes
    if ".parquet" in suffixes:
        return pd.read_parquet(path)
    return pd.read_csv(path, sep="\t" if ".tsv" in suffixes else ",")


def _is_numeric(column: pd.Series) -> bool:
    return bool(pd.api.types.is_numeric_dtype(column))


def _id_reason(column: pd.Series, name: str) -> str | None:
    """Why a numeric column that is not 0/1 looks like an id (None: it does not)."""
    values = column.dropna()
    if not len(values) or bool(values.isin((0, 1)).all()):
        return None
    named = bool(re.search(r"(^|[^a-z0-9])id($|[^a-z0-9])", name, re.IGNORECASE)) or bool(
        re.search(r"[a-z]Id$", name)
    )
    whole = bool((values == values.round()).all())
    unique = bool(values.is_unique) and len(values) == len(column)
    if unique and whole:
        return "a different whole number in each row"
    if named:
        return "named like an id, with values other than 0 and 1"
    return None


def _check_no_id_tasks(frame: pd.DataFrame, tasks: list[str], path: str) -> None:
    """Without --id and --task-cols, an id-like column is refused, not read as a task."""
    for name in tasks:
        why = _id_reason(frame[name], str(name))
        if why is not None:
            raise ValueError(ERR_ID_AS_TASK.format(path=path, column=name, why=why))


def _check_gates(wanted: list[Gate], metrics: Any) -> None:
    """Before any work: every ``--fail-above`` metric is one that is computed."""
    computed = {metric_name(m): str(m) for m in metrics}
    for gate in wanted:
        if metric_name(gate.key) not in computed:
            raise ValueError(
                ERR_GATE_METRIC.format(metric=gate.key, computed=", ".join(computed.values()))
            )


def _gates(wanted: list[Gate], results: dict[str, Any]) -> list[Gate]:
    """One outcome per model for each ``--fail-above`` bound (the metric named as in
    ``measure``: ``directional-t2a``, ``T->A``, ``mals``, ...)."""
    gates = []
    for gate in wanted:
        canonical = metric_name(gate.key)
        for model, result in results.items():
            keys = {metric_name(key): key for key in result.results}
            key = keys[canonical]
            gates.append(Gate(f"{model} {key}", gate.bound, float(result.results[key].value)))
    return gates


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


def _caption_gate(text: str) -> Gate:
    """``--fail-above METRIC=VALUE`` of a caption metric (DBAC and LIC included)."""
    key, sep, value = text.partition("=")
    try:
        bound = float(value)
    except ValueError:
        bound = math.nan
    if not sep or not key.strip() or not math.isfinite(bound):
        raise argparse.ArgumentTypeError(ERR_GATE_FORMAT.format(got=text))
    try:
        name = metric_card(key.strip(), among=ALL_METRICS, argument="--fail-above").name
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from exc
    return Gate(name, bound)


def run(args: argparse.Namespace) -> int:
    given = [(k, f"--{k}", getattr(args, k)) for k in ("json", "html") if getattr(args, k)]
    checked = check_outputs(
        [(option, path) for _, option, path in given],
        inputs=[("DATA", args.data), ("--train", args.train)],
    )  # before any work
    targets = dict(zip([k for k, _, _ in given], checked, strict=True))
    _check_gates(args.fail_above, args.metric or METRICS)
    data = _read(args.data)
    captions = list(args.caption_cols)
    human_cols = list(args.human_cols or [])
    chosen = args.metric or list(METRICS)
    text_metrics = [m for m in chosen if m not in METRICS]
    if text_metrics and not human_cols:
        raise ValueError(ERR_NO_HUMAN_COLS.format(metrics=", ".join(text_metrics)))
    skip = {args.group, *captions, *human_cols, *(args.id or ())}
    tasks = list(args.task_cols or [c for c in data if c not in skip and _is_numeric(data[c])])
    _columns(data, [args.group, *captions, *tasks, *human_cols], args.data)
    if not args.task_cols and not args.id:
        _check_no_id_tasks(data, tasks, args.data)
    human: dict[str, Any] = {}
    if human_cols:
        rows = data[human_cols].astype(object).to_numpy()
        human = {
            "captions_human": list(rows) if len(human_cols) > 1 else rows[:, 0],
            "dbac_params": {"n_iter": args.dbac_iter},
            "lic_params": {"n_iter": args.dbac_iter},
        }
    train: dict[str, Any] = {}
    if args.train:
        frame = _read(args.train)
        _columns(frame, [args.group, *tasks], args.train)
        train = {"groups_train": frame[args.group].to_numpy(), "tasks_train": frame[tasks]}
    table, results = caption_bias_table(
        data[captions], groups=data[args.group].to_numpy(), tasks=data[tasks], **train,
        metrics=chosen, mask=args.mask, exclude_no_group=args.exclude_no_group,
        n_boot=args.n_boot, random_state=args.seed, n_perm=args.n_perm, **human,
    )  # fmt: skip
    gates = _gates(args.fail_above, results)
    console = console_for(targets)
    console.print(table.round(4).to_string(index=False), highlight=False, soft_wrap=True)
    for gate in gates:
        verdict = "FAILED" if gate.failed else "passed"
        console.print(
            f"gate {gate.key} <= {gate.bound:g}: {verdict} (value {gate.value:+.4f})",
            style="bold red" if gate.failed else "green",
            markup=False,
            highlight=False,
        )
    if "json" in targets:
        names = dict.fromkeys(m for res in results.values() for m in metrics_of(res))
        document = {
            **envelope(
                CAPTIONS_SCHEMA,
                CAPTIONS_SCHEMA_VERSION,
                metrics=list(names),
                settings={"n_boot": args.n_boot, "random_state": args.seed, "mask": args.mask},
            ),
            "data": args.data,
            "table": _json_safe(table.to_dict(orient="records")),
            "models": _json_safe({name: res.to_dict() for name, res in results.items()}),
            "results": {name: typed_result(res) for name, res in results.items()},
        }
        if gates:
            document["gates"] = [gate.to_dict() for gate in gates]
        write_json(targets["json"], _json_safe(document))
    if "html" in targets:
        # each model's section shows how its captions were read beside its metrics
        write_report(
            targets["html"].path,
            results=results,
            settings={"data": args.data, "caption columns": ", ".join(captions)},
            gates=gates,
            title="biasamp captions report",
        )
    return 1 if any(gate.failed for gate in gates) else 0


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
    parser.add_argument(
        "--dbac-iter", type=int, default=5, help="DBAC and LIC attacker splits (default 5)"
    )
    parser.add_argument("--mask", action="store_true", help="drop group words before objects")
    parser.add_argument("--exclude-no-group", choices=EXCLUDE_CHOICES, default="group-side")
    parser.add_argument("--n-boot", type=int, help="bootstrap replicates for intervals")
    parser.add_argument(
        "--n-perm",
        type=non_negative_int,
        default=0,
        metavar="P",
        help="swapped data sets of the swap test against chance: a p-value per metric "
        "(default 0: none)",
    )
    parser.add_argument("--seed", type=int, help="seed of the bootstrap and the swap test")
    parser.add_argument("--json", help="write the results as JSON ('-': standard output)")
    parser.add_argument("--html", help="write the HTML report")
    parser.add_argument(
        "--fail-above",
        action="append",
        type=_caption_gate,
        default=[],
        metavar="METRIC=VALUE",
        help="exit with code 1 when METRIC exceeds VALUE for any model (repeatable; "
        "the names of 'biasamp measure': directional-t2a, directional-a2t, mals, "
        "and dbac-a2t, dbac-t2a, lic)",
    )
    parser.set_defaults(run=run)
