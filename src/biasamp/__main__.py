"""``python -m biasamp``: the ``biasamp`` command (see ``biasamp --help``)."""

from __future__ import annotations

import sys

from biasamp.cli.main import main

if __name__ == "__main__":
    sys.exit(main())
