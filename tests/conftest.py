"""Test-suite settings.

Hypothesis runs derandomized under CI (``CI`` set), so a submission's CI run is
reproducible; locally it explores new examples every run.

Two tiers: ``python -m pytest -n auto --dist loadgroup`` runs everything (CI runs this);
``python -m pytest -n auto --dist loadgroup -m "not slow"`` is the fast tier (docs/benchmarks.md,
"Test tiers", says what each costs). A test is
``slow`` when its file is in :data:`SLOW_FILES` (Spark, the real browser,
``torch.distributed``, Dask clusters, the gallery, the documentation build, mypy, long
property tests), when it is listed in ``tests/slow_tests.txt`` (single tests measured
slower than 0.6 s: large files, command-line runs in subprocesses, Dask clients), when it is
marked ``spark``, or when it is a hypothesis test of more than :data:`FAST_MAX_EXAMPLES`
examples. A new test that takes more than about 0.2 s on an idle machine belongs in
``tests/slow_tests.txt``. The fast tier does not even import the files of
:data:`SLOW_FILES`. Every public name of ``biasamp`` still appears in a file of the fast tier
(tests/test_fast_tier.py).

Tests write only to temporary folders: a check around the whole run compares
``git status`` before and after the run and fails the run when a test created,
changed or deleted a file of the checkout (ignored files, such as caches, aside).
"""

from __future__ import annotations

import functools
import inspect
import itertools
import os
import re
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _pytest.mark.expression import Expression
from hypothesis import settings

settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")

ROOT = Path(__file__).resolve().parents[1]
TESTS = Path(__file__).resolve().parent

#: Test files (relative to tests/) whose every test is slow, and why.
SLOW_FILES = {
    "engines/test_spark.py": "Spark: a local SparkSession and its jobs",
    "engines/test_spark_derived_roles.py": "Spark: a local SparkSession and its jobs",
    "engines/test_dask_cluster.py": "a Dask LocalCluster",
    "cli/test_report_browser.py": "headless Chromium",
    "torchmetrics/test_distributed.py": "torch.distributed processes (gloo)",
    "examples/test_examples.py": "the gallery examples, end to end",
    "text/test_gallery_example.py": "a gallery example, end to end",
    "docs/test_sphinx_build.py": "the documentation site build",
    "docs/test_doc_blocks.py": "every code block of the docs, Spark and Dask included",
    "torchmetrics/test_docs.py": "the training-loop page's code blocks",
    "test_typing.py": "mypy over the package",
    "results/test_load_fuzz.py": "hundreds of edited files through load_result",
    "results/test_json_schema.py": "a long property test against jsonschema",
    "cli/test_output_round_trip.py": "a property test of every output format through the CLI",
    "cli/test_terminal_labels.py": "command-line runs in subprocesses",
    "inputs/test_container_properties.py": "long property tests over every container",
    "mitigation/test_rba_logistic.py": "RBA on a trained logistic regression",
}

#: Single tests of the full suite only (measured slower than 0.6 s under load): node ids,
#: ``path::function`` (every parameter) or ``path::function[parameter]``.
SLOW_TESTS = frozenset(
    line.split("#", 1)[0].strip()
    for line in (TESTS / "slow_tests.txt").read_text(encoding="utf-8").splitlines()
    if line.split("#", 1)[0].strip()
)

#: Hypothesis tests of more examples than this are slow (the fast tier keeps the short ones).
FAST_MAX_EXAMPLES = 30


def _is_long_property_test(item: pytest.Item) -> bool:
    test = getattr(item, "obj", None)
    chosen = getattr(test, "_hypothesis_internal_use_settings", None)
    return chosen is not None and chosen.max_examples > FAST_MAX_EXAMPLES


@functools.cache
def _relative(path: str) -> str:
    """A test file's path relative to tests/, in POSIX form (one resolve per file)."""
    return Path(path).resolve().relative_to(TESTS).as_posix()


def is_slow(item: pytest.Item) -> bool:
    """Whether ``item`` runs in the full suite only."""
    rel = _relative(str(item.path))
    function = "tests/" + rel + "::" + item.name.split("[", 1)[0]
    return (
        rel in SLOW_FILES
        or function in SLOW_TESTS
        or "tests/" + rel + "::" + item.name in SLOW_TESTS
        or "spark" in item.keywords
        or _is_long_property_test(item)
    )


#: Shared fixtures cheap enough to build in every worker (grouping their tests is not needed).
CHEAP_SHARED_FIXTURES = frozenset({"checkout_untouched", "_in_a_scratch_folder"})


def _ours(fixturedef: Any) -> bool:
    """Whether a fixture is defined in this test suite (not pytest's or a plugin's, such as
    ``tmp_path_factory``, scoped to the whole run, on which every ``tmp_path`` rests)."""
    function = getattr(fixturedef, "func", None)
    known = _OURS.get(function)
    if known is None:
        try:
            source = inspect.getsourcefile(inspect.unwrap(function))  # type: ignore[arg-type]
        except TypeError:
            source = None
        known = source is not None and Path(source).resolve().is_relative_to(TESTS)
        _OURS[function] = known
    return known


#: fixture function -> whether this suite defines it (one source lookup per fixture)
_OURS: dict[Any, bool] = {}


def shared_fixture_group(item: pytest.Item) -> str | None:
    """The worker group of a test that uses a session- or module-scoped fixture.

    The README runs the suite in parallel (``-n auto --dist loadgroup``, pytest-xdist):
    every worker builds the shared fixtures its own tests need, so the tests of one
    costly fixture (the SparkSession, a documentation build, a report rendered once
    per file) are grouped to run in one worker, which builds it once. A session
    fixture groups its tests across files (``session:spark``), a module fixture the
    tests of its file (``module:<path>``); ``None`` for every other test.
    """
    info = getattr(item, "_fixtureinfo", None)
    if info is None:
        return None
    module = None
    for name in getattr(item, "fixturenames", ()):
        definitions = info.name2fixturedefs.get(name)
        if not definitions or name in CHEAP_SHARED_FIXTURES or not _ours(definitions[-1]):
            continue
        scope = definitions[-1].scope
        if scope == "session":
            return f"session:{name}"
        if scope == "module":
            module = f"module:{_relative(str(item.path))}"
    return module


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads the groups
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    slow = set()
    for item in items:
        if is_slow(item):
            item.add_marker(pytest.mark.slow)
            slow.add(item.nodeid)
        group = shared_fixture_group(item)
        if group is not None:
            item.add_marker(pytest.mark.xdist_group(group))
    # the slow tests first (a stable sort: each file keeps its order), so that a parallel
    # run hands out its longest tests early and ends with short ones on both workers
    items.sort(key=lambda item: item.nodeid not in slow)


def _excludes_slow(markexpr: str) -> bool:
    """True when ``-m markexpr`` deselects every test marked slow, whatever its other marks."""
    if not markexpr:
        return False
    expression = Expression.compile(markexpr)
    others = sorted(set(re.findall(r"[A-Za-z_][\w.]*", markexpr)) - {"and", "or", "not", "slow"})
    for values in itertools.product((False, True), repeat=len(others)):
        marks = dict(zip(others, values, strict=True), slow=True)
        if expression.evaluate(lambda name, marks=marks: marks.get(name, False)):
            return False
    return True


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """The fast tier skips importing the slow files (Spark, torch.distributed, ...)."""
    try:
        rel = collection_path.resolve().relative_to(TESTS).as_posix()
    except ValueError:
        return None
    if rel in SLOW_FILES and _excludes_slow(config.getoption("markexpr", "") or ""):
        return True
    return None


ERR_TREE_CHANGED = (
    "The test run wrote into the checkout (tests must write only to temporary "
    "folders, e.g. tmp_path), or these files were edited while the tests ran: {paths}"
)


def checkout_state(root: Path = ROOT) -> dict[str, int | None] | None:
    """Each changed or untracked, not ignored, path of the checkout -> its mtime (ns).

    ``None`` outside a git checkout (an unpacked sdist), where nothing is checked.
    """
    try:
        done = subprocess.run(
            ["git", "status", "--porcelain", "-z", "--untracked-files=all"],
            cwd=root, capture_output=True, text=True, timeout=120,
        )  # fmt: skip
    except (OSError, subprocess.TimeoutExpired):
        return None
    if done.returncode != 0:
        return None
    state: dict[str, int | None] = {}
    for entry in done.stdout.split("\0"):
        if len(entry) > 3 and entry[2] == " ":
            path = root / entry[3:]
            state[entry[3:]] = path.stat().st_mtime_ns if path.exists() else None
    return state


def written_since(
    before: dict[str, int | None], after: dict[str, int | None], start_ns: int
) -> list[str]:
    """Paths of ``after`` that appeared, changed or were deleted after ``start_ns``.

    A path dirty before and clean after was committed meanwhile: not listed.
    """
    return sorted(
        path
        for path, stamp in after.items()
        if before.get(path, -1) != stamp and (stamp is None or stamp >= start_ns)
    )


@pytest.fixture(scope="session", autouse=True)
def checkout_untouched() -> Iterator[None]:
    start = time.time_ns()
    before = checkout_state()
    yield
    after = checkout_state()
    if before is None or after is None:
        return
    written = written_since(before, after, start)
    assert written == [], ERR_TREE_CHANGED.format(paths=", ".join(written))
