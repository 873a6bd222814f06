"""Ctrl-C while the command line starts: one line and exit code 130, from its first instruction.

Importing the command line (numpy, pandas, pyarrow, rich, every metric) takes
0.5 s or more; a KeyboardInterrupt there would print a traceback and end the
process by SIGINT (exit status -2). When the running program is the ``biasamp``
command (its console script, ``python -m biasamp``), the first lines of the
package install :func:`_on_startup_interrupt` for SIGINT: it writes
``error: interrupted`` and exits with 130 at once (nothing is written yet
during the imports). :func:`biasamp.cli.main.main` puts Python's own handler
back before it parses the arguments, and turns Ctrl-C into the same line and
code from then on, with every temporary file removed. Imported as a library,
the package changes no signal handler.

Only ``os``, ``signal`` and ``sys`` are imported here: this runs before anything else.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from types import FrameType

__all__ = ["EXIT_INTERRUPTED", "INTERRUPTED_LINE", "guard_startup", "release_startup"]

EXIT_INTERRUPTED = 130  # 128 + SIGINT, what a shell reports for a process killed by Ctrl-C
#: The one line of an interrupted command (the command line's ``ERR_INTERRUPTED``).
INTERRUPTED_LINE = "error: interrupted\n"


def _on_startup_interrupt(signum: int, frame: FrameType | None) -> None:
    os.write(2, INTERRUPTED_LINE.encode())
    os._exit(EXIT_INTERRUPTED)


def is_command_line() -> bool:
    """Whether this process is the ``biasamp`` command (console script or ``-m biasamp``)."""
    script = os.path.basename(sys.argv[0]) if sys.argv else ""
    if script in ("biasamp", "biasamp.exe", "biasamp-script.py"):
        return True
    original = list(getattr(sys, "orig_argv", []))
    return any(
        original[i] == "-m" and original[i + 1] == "biasamp" for i in range(len(original) - 1)
    )


def guard_startup() -> None:
    """Install the startup handler of SIGINT when this is the command line (and SIGINT still
    has Python's own handler, in the main thread)."""
    if not is_command_line() or threading.current_thread() is not threading.main_thread():
        return
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, _on_startup_interrupt)


def release_startup() -> None:
    """Put Python's own SIGINT handler back (the command line handles Ctrl-C from here on)."""
    if signal.getsignal(signal.SIGINT) is _on_startup_interrupt:
        signal.signal(signal.SIGINT, signal.default_int_handler)


guard_startup()  # on import: biasamp/__init__.py imports this module first
