"""``biasamp`` command: sub-command dispatch.

Each sub-command lives in its own module with ``add_parser(subparsers)`` and
``run(args) -> int``. Exit codes: 0 success, 1 a ``--fail-above`` gate
tripped, 2 a usage or input error.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from rich.console import Console
from rich.markup import escape

from biasamp._version import __version__
from biasamp.results._display import display_text

from . import calibrate, captions, compare, demo, measure, mitigate, report

EXIT_OK = 0
EXIT_GATE = 1
EXIT_USAGE = 2

_COMMANDS = (measure, report, compare, calibrate, mitigate, captions, demo)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="biasamp",
        description="Measure and mitigate bias amplification in classifiers.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=(
            "Examples:\n  biasamp demo\n"
            "  biasamp measure test.csv --group gender --task-prefix obj_ --pred-prefix pred_ "
            "--train train.csv\n"
            "  biasamp report test.csv --group gender --task-prefix obj_ --pred-prefix pred_ "
            "--html report.html\n"
            "  biasamp calibrate val.csv --group-cols man,woman --task-prefix obj_ "
            "--pred-prefix score_ --output thresholds.json\n"
            "  biasamp mitigate scores.csv --structure single --train train.csv --group gender "
            "--task activity --output calibrated.csv\n"
            "Run 'biasamp COMMAND --help' for the input contract and more examples."
        ),
    )
    parser.add_argument("--version", action="version", version=f"biasamp {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module in _COMMANDS:
        module.add_parser(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return EXIT_USAGE
    console = Console(stderr=True)
    try:
        return int(args.run(args))
    except (ValueError, TypeError, OSError, ImportError) as exc:
        console.print(
            f"[bold red]error:[/] {escape(display_text(exc, keep=chr(10)))}",
            markup=True,
            highlight=False,
            soft_wrap=True,
        )
        return EXIT_USAGE


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
