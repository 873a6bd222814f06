"""The package type-checks: ``mypy`` with the configuration in pyproject.toml is clean.

Runs mypy's API in-process on ``src/biasamp`` (skipped when mypy is not installed;
``pip install -e '.[test]'`` installs it with pandas-stubs and scipy-stubs).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_package_ships_py_typed() -> None:
    assert (ROOT / "src" / "biasamp" / "py.typed").exists()
    assert '"py.typed"' in (ROOT / "pyproject.toml").read_text(encoding="utf-8")


def test_mypy_is_clean() -> None:
    api = pytest.importorskip("mypy.api")
    cwd = os.getcwd()
    os.chdir(ROOT)  # mypy reads [tool.mypy] from pyproject.toml in the working directory
    try:
        # the default incremental cache (.mypy_cache) makes repeated runs take seconds
        stdout, stderr, status = api.run(["--no-error-summary", "src/biasamp"])
    finally:
        os.chdir(cwd)
    assert status == 0, f"mypy found errors:\n{stdout}{stderr}"
