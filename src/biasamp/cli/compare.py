"""``biasamp compare``: saved results or CLI JSON files side by side (:func:`biasamp.compare`)."""

from __future__ import annotations

import argparse
import math
from pathlib import Path
from typing import Any

from biasamp.comparison import compare
from biasamp.output._atomic import OutputBatch
from biasamp.output._targets import check_outputs
from biasamp.report._compare_html import render_comparison
from biasamp.results._display import display_text

from .arguments import EXIT_CODES

__all__ = ["add_parser", "run", "terminal_table"]

ERR_NAMES = "--name: given {names} times for {files} files; give one name per file or none."
ERR_SAME_NAME = "the files {first} and {second} give the same model name {name!r}; use --name."
ERR_PERF_FILE = "{file}: cannot read the --performance file as CSV ({detail})."
ERR_PERF_MODEL_COLUMN = (
    "{file}: the --performance file needs a 'model' column naming the models; "
    "it has the columns {columns}."
)

HELP = """Compare models or checkpoints: one table of every metric with its interval.

Each FILE is a result saved with result.save() or the --json file of 'biasamp
measure' / 'biasamp report'. A model's name is its file name without the
extension, or the --name given in the same order. --performance CSV adds
columns (a 'model' column naming the models, then numbers such as accuracy,
F1, ECE or epoch). The terminal table has one row per model and, per metric,
its value with its interval, "+0.1234 [+0.0100, +0.2300]" (when the results
have one: saved with n_boot or run with --n-boot). --html writes a
self-contained page (summary table, each metric per model with its interval:
bars side by side, or along --x as bands, amplification against each
performance column); --json writes the table (biasamp.load_result reads it back).

Examples:
  biasamp compare base.json rba.json oversampled.json --html compare.html
  biasamp compare ep1.json ep2.json ep3.json --name 1 --name 2 --name 3 \\
      --performance perf.csv --x epoch --html compare.html --json compare.json
"""


def run(args: argparse.Namespace) -> int:
    from biasamp.results._plotting import require_matplotlib

    if args.html is not None:
        require_matplotlib()
    files = [Path(f) for f in args.files]
    names = args.name or [f.stem for f in files]
    if len(names) != len(files):
        raise ValueError(ERR_NAMES.format(names=len(names), files=len(files)))
    seen: dict[str, Path] = {}
    for name, file in zip(names, files, strict=True):
        if name in seen:
            raise ValueError(ERR_SAME_NAME.format(first=seen[name], second=file, name=name))
        seen[name] = file
    inputs = [("FILE", f) for f in files] + [("--performance", args.performance)]
    given = [(o, p) for o, p in (("--html", args.html), ("--json", args.json)) if p is not None]
    checked = dict(zip((o for o, _ in given), check_outputs(given, inputs=inputs), strict=True))
    html, json_out = checked.get("--html"), checked.get("--json")
    performance = None
    if args.performance is not None:
        performance = _read_performance(args.performance)
    table = compare(dict(zip(names, map(str, files), strict=True)), performance=performance)
    if html is not None:
        with OutputBatch() as batch, batch.open(html, "w", encoding="utf-8") as handle:
            handle.write(render_comparison(table, title=args.title, x=args.x))
    if json_out is not None:  # written last: when it is new, so is the page
        table.save(json_out.path)
    from rich.text import Text

    from .console import new_console

    console = new_console()
    console.print(Text(display_text(terminal_table(table).to_string(), keep="\n"), no_wrap=True))
    return 0


def _cell(value: float, low: float, high: float) -> str:
    """``+0.1234 [+0.0100, +0.2300]``, or the value alone without an interval."""
    if not math.isfinite(value):
        return "nan"
    text = f"{value:+.4f}"
    if math.isfinite(low) and math.isfinite(high):
        text += f" [{low:+.4f}, {high:+.4f}]"
    return text


def terminal_table(table: Any) -> Any:
    """One row per model: each metric's value with its interval, then the performance."""
    import pandas as pd

    cells = [
        _cell(float(v), float(lo), float(hi))
        for v, lo, hi in zip(table["value"], table["ci_low"], table["ci_high"], strict=True)
    ]
    frame = pd.DataFrame({"model": table["model"], "metric": table["metric"], "cell": cells})
    wide = frame.pivot(index="model", columns="metric", values="cell")
    wide = wide.reindex(index=table.models, columns=table.metrics).fillna("-")
    wide.index.name, wide.columns.name = None, None
    if table.performance:
        perf = pd.DataFrame(table).drop_duplicates("model").set_index("model")
        wide = wide.join(perf[table.performance].round(4))
    return wide


def _read_performance(path: str) -> object:
    """The ``--performance`` table indexed by its ``model`` column; a file that cannot be
    read, or has no such column, is refused naming the file (exit code 2)."""
    import pandas as pd

    try:
        frame = pd.read_csv(path, dtype={"model": str})
    except (OSError, ValueError, UnicodeDecodeError) as exc:
        raise ValueError(ERR_PERF_FILE.format(file=path, detail=str(exc).strip())) from exc
    if "model" not in frame.columns:
        shown = ", ".join(repr(str(c)) for c in list(frame.columns)[:12]) or "none"
        raise ValueError(ERR_PERF_MODEL_COLUMN.format(file=path, columns=shown))
    return frame.set_index("model")


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "compare",
        help="compare saved results of several models or checkpoints",
        description=HELP,
        epilog=EXIT_CODES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("files", nargs="+", metavar="FILE", help="saved results or CLI JSON")
    parser.add_argument("--name", action="append", help="a model name per FILE, in order")
    parser.add_argument("--performance", metavar="CSV", help="model column + numeric columns")
    parser.add_argument(
        "--x", help="numeric performance column (epoch, step): each metric drawn along it"
    )
    parser.add_argument("--html", metavar="FILE", help="the HTML page to write")
    parser.add_argument("--json", metavar="FILE", help="the table to write (load_result)")
    parser.add_argument("--title", default="biasamp comparison", help="title of the page")
    parser.set_defaults(run=run)
