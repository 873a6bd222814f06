"""``biasamp`` command: sub-command dispatch.

Each sub-command lives in its own module with ``add_parser(subparsers)`` and
``run(args) -> int``; only the module of the command that runs is imported, so
``biasamp --help`` and ``biasamp --version`` answer without importing the metrics.
Exit codes (``docs/cli.md``, "Exit codes"): 0 success, 1 a ``--fail-above`` gate
was exceeded (and nothing else), 2 a usage or input error, 3 an internal error
(a bug: one line, no traceback unless ``BIASAMP_TRACEBACK=1``), 130 interrupted
(Ctrl-C).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import signal
import sys
import threading
import traceback
from collections.abc import Collection, Iterator, Sequence
from types import FrameType, ModuleType

from biasamp._interrupts import EXIT_INTERRUPTED, INTERRUPTED_LINE, release_startup
from biasamp._version import __version__

from .exit_codes import EXIT_CODES
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
ERR_COMMAND = "command: expected one of {known}, got {got!r}."
ERR_MEMORY = (
    "out of memory: {detail}; use fewer --n-boot replicates, a smaller --chunk-size or fewer labels"
)

#: The sub-commands in the order of ``biasamp --help``, with the one-line help each module's
#: ``add_parser`` gives (tests/cli/test_startup.py checks they agree).
COMMANDS = {
    "measure": "compute bias-amplification metrics from files",
    "report": "compute the metrics and write a self-contained HTML report",
    "compare": "compare saved results of several models or checkpoints",
    "calibrate": "per-label decision thresholds from a validation file",
    "mitigate": "reduce bias amplification with RBA (calibrated predictions)",
    "captions": "bias amplification of captioning models, read from their captions",
    "outputs": "amplification in generated outputs against a reference (per concept)",
    "demo": "audit a real gender-from-objects model on bundled COCO labels",
}


def command_module(name: str) -> ModuleType:
    """The module of the sub-command ``name`` (``biasamp.cli.<name>``), imported now."""
    if name not in COMMANDS:
        raise ValueError(ERR_COMMAND.format(known=sorted(COMMANDS), got=name))
    return importlib.import_module(f"biasamp.cli.{name}")


def build_parser(commands: Collection[str] = tuple(COMMANDS)) -> argparse.ArgumentParser:
    """The ``biasamp`` parser, with the full parsers of ``commands``.

    The other sub-commands get only their name and one-line help: enough for
    ``biasamp --help``, without importing their modules.
    """
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
    for name, help_line in COMMANDS.items():
        if name in commands:
            command_module(name).add_parser(subparsers)
        else:
            subparsers.add_parser(name, help=help_line)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``biasamp`` command; return its exit code (130 with one line on Ctrl-C)."""
    try:
        return _main(argv)
    except KeyboardInterrupt:  # outside a command's run (parsing the arguments)
        sys.stderr.write(INTERRUPTED_LINE)
        return EXIT_INTERRUPTED


def _main(argv: Sequence[str] | None) -> int:
    args_given = sys.argv[1:] if argv is None else list(argv)
    # the command, if any, is the first argument (the top level has only --help and --version)
    parser = build_parser([a for a in args_given[:1] if a in COMMANDS])
    # the command's module is imported: Python's SIGINT handler again (Ctrl-C is a
    # KeyboardInterrupt). Released before, a Ctrl-C inside a C extension's import (numpy's
    # datetime capsule) surfaced as an ImportError with a traceback instead of one line.
    release_startup()
    args = parser.parse_args(args_given)
    if args.command is None:
        parser.print_help()
        return EXIT_USAGE
    from rich.markup import escape

    from biasamp.results._display import display_text

    from .console import new_console

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
