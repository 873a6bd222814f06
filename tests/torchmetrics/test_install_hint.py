"""``import biasamp.torchmetrics`` without torch (or torchmetrics) names the install command.

Runs in a fresh interpreter with the package hidden (``sys.modules[name] = None`` makes
its import fail as if it were not installed), so it needs neither torch nor its absence.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

HINT = 'pip install "biasamp[torch]"'


@pytest.mark.parametrize("hidden", ["torch", "torchmetrics"])
def test_import_without_torch_gives_the_install_command(hidden):
    code = (
        "import sys\n"
        f"sys.modules[{hidden!r}] = None\n"
        "try:\n"
        "    import biasamp.torchmetrics\n"
        "except ImportError as error:\n"
        "    print(type(error).__name__, error.name, error, sep='|')\n"
        "else:\n"
        "    print('imported')\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    ).stdout.strip()
    kind, name, message = out.split("|")
    assert kind == "ImportError" and name == hidden
    assert message == (
        f"biasamp.torchmetrics needs torch and torchmetrics ({hidden} is missing): {HINT}."
    )


def test_import_biasamp_alone_needs_no_torch():
    code = "import sys\nsys.modules['torch'] = None\nimport biasamp\nprint(biasamp.mals.__name__)"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    ).stdout.strip()
    assert out == "mals"
