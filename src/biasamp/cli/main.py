"""``biasamp`` command: sub-command dispatch.

Each sub-command lives in its own module with ``add_parser(subparsers)`` and
``run(args) -> int``. Exit codes (``docs/cli.md``, "Exit codes"): 0 success,
1 a ``--fail-above`` gate was exceeded (and nothing else), 2 a usage or input
error, 3 an internal error (a bug: one line, no traceback unless
``BIASAMP_TRACEBACK=1``), 130 interrupted (Ctrl-C).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import sys
import threading
import traceback
from collections.abc import Iterator, Sequence
from types import FrameType

from rich.markup import escape

from biasamp._interrupts import EXIT_INTERRUPTED, INTERRUPTED_LINE, release_startup
from biasamp._version import __version__
from biasamp.results._display import display_text

from . import calibrate, captions, compare, demo, measure, mitigate, report
from .arguments import EXIT_CODES
from .console import new_console
from .flags import to_flags

EXIT_OK = 0
EXIT_GATE = 1
EXIT_USAGE = 2
EXIT_INTERNAL = 3

ERR_INTERNAL = (
    "internal error: {kind}: {detail} (this is a bug in biasamp; set BIASAMP_TRACEBACK=1 "
    "for the traceback and report it)"
)
ERR_INTERRUPTED = "interrupted"
ERR_MEMORY = (
    "out of memory: {detail}; use fewer --n-boot replicates, a smaller --chunk-size or fewer labels"
)

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
            "Run 'biasamp COMMAND --help' for the input contract and more examples.\n\n"
            + EXIT_CODES
        ),
    )
    parser.add_argument("--version", action="version", version=f"biasamp {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module in _COMMANDS:
        module.add_parser(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``biasamp`` command; return its exit code (130 with one line on Ctrl-C)."""
    release_startup()  # Python's SIGINT handler again: Ctrl-C is KeyboardInterrupt
    try:
        return _main(argv)
    except KeyboardInterrupt:  # outside a command's run (parsing the arguments)
        sys.stderr.write(INTERRUPTED_LINE)
        return EXIT_INTERRUPTED


def _main(argv: Sequence[str] | None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return EXIT_USAGE
    console = new_console(stderr=True)

    def fail(message: str, code: int) -> int:
        console.print(
            f"[bold red]error:[/] {escape(display_text(message, keep=chr(10)))}",
            markup=True,
            highlight=False,
            soft_wrap=True,
        )
        return code

    interrupts: list[int] = []
    try:
        with _recording_interrupts(interrupts):
            code = int(args.run(args))
    except KeyboardInterrupt:
        return fail(ERR_INTERRUPTED, EXIT_INTERRUPTED)
    except Exception as exc:
        if interrupts:  # a library turned Ctrl-C into its own error (DuckDB: "Query interrupted")
            return fail(ERR_INTERRUPTED, EXIT_INTERRUPTED)
        return fail(*_failure(exc))
    if code not in (EXIT_OK, EXIT_GATE):  # pragma: no cover - every command returns 0 or 1
        return fail(f"internal error: unexpected exit code {code}", EXIT_INTERNAL)
    return code


@contextlib.contextmanager
def _recording_interrupts(interrupts: list[int]) -> Iterator[None]:
    """Raise ``KeyboardInterrupt`` on SIGINT as Python does, and remember that it came."""
    previous = signal.getsignal(signal.SIGINT)
    if previous is not signal.default_int_handler or (
        threading.current_thread() is not threading.main_thread()
    ):
        yield
        return

    def on_sigint(signum: int, frame: FrameType | None) -> None:
        interrupts.append(signum)
        raise KeyboardInterrupt

    signal.signal(signal.SIGINT, on_sigint)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _failure(exc: Exception) -> tuple[str, int]:
    """The one-line message and the exit code of an exception out of a command."""
    if isinstance(exc, (ValueError, TypeError, OSError, ImportError)):
        return to_flags(str(exc)), EXIT_USAGE  # the library names keywords, we show flags
    if isinstance(exc, MemoryError):
        return ERR_MEMORY.format(detail=str(exc) or "an allocation failed"), EXIT_USAGE
    if os.environ.get("BIASAMP_TRACEBACK"):
        traceback.print_exception(exc)
    first_line = (str(exc).strip().splitlines() or [""])[0]
    return ERR_INTERNAL.format(kind=type(exc).__name__, detail=first_line), EXIT_INTERNAL


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
