"""The code is formatted and linted (ruff, configured in pyproject.toml), as CI checks.

``ruff format --check`` and ``ruff check`` over the package, the tests, the examples,
the benchmarks and the documentation's Python (conf.py and its extensions).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PATHS = ["src", "tests", "examples", "benchmarks", "docs/conf.py", "docs/sphinxext"]


def ruff() -> list[str]:
    try:
        import ruff as _ruff  # noqa: F401

        return [sys.executable, "-m", "ruff"]
    except ImportError:
        exe = shutil.which("ruff")
        if exe is None:
            pytest.skip("ruff is not installed (pip install -e '.[test]')")
        return [exe]


@pytest.mark.parametrize("command", [["format", "--check"], ["check"]], ids=["format", "lint"])
def test_ruff(command: list[str]) -> None:
    done = subprocess.run(
        [*ruff(), *command, *PATHS], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, f"ruff {' '.join(command)}:\n{done.stdout}\n{done.stderr}"
