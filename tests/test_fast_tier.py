"""The fast tier (``python -m pytest -m "not slow"``) still calls every public name.

The rule, cheap and checked here: every name of ``biasamp.__all__`` appears as a word in
the source that the fast tier runs: the test files not listed in ``tests/conftest.py``'s
``SLOW_FILES``, without the test functions that are slow as a whole (``tests/slow_tests.txt``,
and hypothesis tests of more than ``FAST_MAX_EXAMPLES`` examples). Files that loop over
``__all__`` without naming the functions (this one, the layout and import checks) do not
count. Naming is not calling (a helper may name a function that no fast test reaches), so
keep at least one plain, quick test per public function.
"""

from __future__ import annotations

import ast
import re
from functools import cache

import biasamp
from tests.conftest import FAST_MAX_EXAMPLES, SLOW_FILES, SLOW_TESTS, TESTS

#: Files that name public functions generically (loops over ``__all__``), not by calling them.
GENERIC = {"test_fast_tier.py", "test_package_layout.py", "test_import_cost.py", "conftest.py"}

ROOT = TESTS.parent


def _many_examples(function: ast.FunctionDef) -> bool:
    """A hypothesis test of more than FAST_MAX_EXAMPLES examples (read from @settings)."""
    for decorator in function.decorator_list:
        for node in ast.walk(decorator):
            if isinstance(node, ast.keyword) and node.arg == "max_examples":
                value = node.value
                if isinstance(value, ast.Constant) and isinstance(value.value, int):
                    return value.value > FAST_MAX_EXAMPLES
    return False


def _slow_function(path: str, function: ast.FunctionDef) -> bool:
    marks = " ".join(ast.unparse(d) for d in function.decorator_list)
    return (
        f"{path}::{function.name}" in SLOW_TESTS
        or _many_examples(function)
        or "mark.spark" in marks
        or "mark.slow" in marks
    )


@cache
def fast_tier_sources() -> str:
    texts = []
    for path in sorted(TESTS.rglob("*.py")):
        rel = path.relative_to(TESTS).as_posix()
        if rel in SLOW_FILES or path.name in GENERIC:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        tree.body = [
            node
            for node in tree.body
            if not (isinstance(node, ast.FunctionDef) and _slow_function(f"tests/{rel}", node))
        ]
        texts.append(ast.unparse(tree))
    return "\n".join(texts)


def test_slow_files_exist() -> None:
    missing = [rel for rel in SLOW_FILES if not (TESTS / rel).exists()]
    assert missing == [], f"tests/conftest.py SLOW_FILES lists files that are gone: {missing}"


def test_one_slow_marker_definition() -> None:
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert len(re.findall(r'^\s*"slow:', text, re.MULTILINE)) == 1


def test_every_public_name_is_in_the_fast_tier() -> None:
    source = fast_tier_sources()
    missing = [
        name
        for name in sorted(set(biasamp.__all__) - {"__version__"})
        if not re.search(rf"\b{re.escape(name)}\b", source)
    ]
    assert missing == [], f"public names in no fast-tier test: {missing}"


def test_slow_tests_are_test_functions() -> None:
    """Every line of tests/slow_tests.txt names a test function that exists."""
    gone = []
    for node_id in SLOW_TESTS:
        path, name = node_id.split("::", 1)
        source = (ROOT / path).read_text(encoding="utf-8") if (ROOT / path).exists() else ""
        if not re.search(rf"^def {re.escape(name.split('[', 1)[0])}\(", source, re.MULTILINE):
            gone.append(node_id)
    assert gone == [], f"tests/slow_tests.txt names tests that are gone: {gone}"


def test_the_fast_tier_leaves_out_the_slow_files() -> None:
    from tests.conftest import _excludes_slow

    assert _excludes_slow("not slow") and _excludes_slow("not slow and not spark")
    assert not _excludes_slow("") and not _excludes_slow("slow")
    assert not _excludes_slow("not spark")  # slow tests that are not Spark are still wanted
    assert not _excludes_slow("spark or not slow")
