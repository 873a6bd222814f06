"""The exit codes' text, shown in every command's ``--help`` and in docs/cli.md ("Exit codes").

Its own module so that ``biasamp --help`` prints it without importing the commands.
"""

from __future__ import annotations

EXIT_CODES = (
    "Exit codes: 0 success, 1 a --fail-above bound was exceeded (only that),\n"
    "  2 usage or input error, 3 internal error (please report it; set\n"
    "  BIASAMP_TRACEBACK=1 for the traceback), 130 interrupted (Ctrl-C)."
)
