"""The command line's console: output that is not a terminal is never cut.

A pipe, ``| tee``, a CI log or a file gets a width no table reaches, so metric names
and numbers stay whole (rich would cut them at 80 columns: ``directional…``,
``-0.00…``); a terminal keeps its own width.
"""

from __future__ import annotations

from rich.console import Console

__all__ = ["PIPE_WIDTH", "new_console"]

#: The width of output that is not a terminal: wide enough that no table is cut (rich
#: sizes each table to its content, so short output stays short).
PIPE_WIDTH = 10_000


def new_console(*, stderr: bool = False) -> Console:
    """The console of the command line's human-readable output.

    A terminal keeps its width (rich reads it); anything else (a pipe, a file, a CI
    log, even with ``COLUMNS`` set) gets :data:`PIPE_WIDTH`, so nothing is cut at 80
    columns.
    """
    console = Console(stderr=stderr)
    if console.is_terminal:
        return console
    return Console(stderr=stderr, width=PIPE_WIDTH)
