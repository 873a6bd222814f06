"""The fast tier (``python -m pytest -m "not slow"``) still calls every public name.

The rule, cheap and checked here: every name of ``biasamp.__all__`` (and of the rooms'
public lists the docs name) appears as a word in the source of at least one test file that
the fast tier runs, i.e. a file not listed in ``tests/conftest.py``'s ``SLOW_FILES``. Files
that loop over ``__all__`` without naming the functions (this one, the layout and import
checks) do not count. A test file that names a function but calls it only from a slow test
would pass this check: keep at least one plain test per public function.
"""

from __future__ import annotations

import re
from functools import cache

import pytest

import biasamp
from tests.conftest import SLOW_FILES, TESTS

#: Files that name public functions generically (loops over ``__all__``), not by calling them.
GENERIC = {"test_fast_tier.py", "test_package_layout.py", "test_import_cost.py", "conftest.py"}

ROOT = TESTS.parent


@cache
def fast_tier_sources() -> str:
    texts = []
    for path in sorted(TESTS.rglob("*.py")):
        rel = path.relative_to(TESTS).as_posix()
        if rel in SLOW_FILES or path.name in GENERIC:
            continue
        texts.append(path.read_text(encoding="utf-8"))
    return "\n".join(texts)


def test_slow_files_exist() -> None:
    missing = [rel for rel in SLOW_FILES if not (TESTS / rel).exists()]
    assert missing == [], f"tests/conftest.py SLOW_FILES lists files that are gone: {missing}"


def test_one_slow_marker_definition() -> None:
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert len(re.findall(r'^\s*"slow:', text, re.MULTILINE)) == 1


@pytest.mark.parametrize("name", sorted(set(biasamp.__all__) - {"__version__"}))
def test_every_public_name_is_in_the_fast_tier(name: str) -> None:
    assert re.search(rf"\b{re.escape(name)}\b", fast_tier_sources()), (
        f"biasamp.{name} appears in no test file of the fast tier"
    )


def test_the_fast_tier_leaves_out_the_slow_files() -> None:
    from tests.conftest import _excludes_slow

    assert _excludes_slow("not slow") and _excludes_slow("not slow and not spark")
    assert not _excludes_slow("") and not _excludes_slow("slow")
    assert not _excludes_slow("not spark")  # slow tests that are not Spark are still wanted
    assert not _excludes_slow("spark or not slow")
