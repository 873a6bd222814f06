"""Every docstring example in the package runs and prints what it shows.

One test per module of ``src/biasamp`` (private modules included: that is where the
public functions' docstrings live). A module whose optional dependency is missing
(torch, pyspark, ...) is skipped, not failed.
"""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import biasamp

OPTIONAL = {"torch", "torchmetrics", "pyspark", "dask", "distributed", "duckdb", "pyarrow"}


def module_names() -> list[str]:
    names = ["biasamp"]
    for info in pkgutil.walk_packages(biasamp.__path__, prefix="biasamp."):
        names.append(info.name)
    return sorted(names)


@pytest.mark.parametrize("name", module_names())
def test_docstring_examples(name: str, monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    try:
        module = importlib.import_module(name)
    except ImportError as error:
        missing = (error.name or "").split(".")[0]
        if missing in OPTIONAL:
            pytest.skip(f"{name} needs {missing}")
        raise
    monkeypatch.chdir(tmp_path)  # examples that write files write here
    flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(optionflags=flags)
    report: list[str] = []
    for test in finder.find(module, name):  # globs: a copy of the module namespace
        runner.run(test, out=report.append)
    assert runner.failures == 0, "".join(report)
