"""Every ```python block of README.md and docs/**/*.md runs as written.

The blocks of one page run in order, in one namespace, in a fresh temporary
directory (pages that write files write there); bundled data and ``docs/``
pages are reached from the repository root through the ``biasamp`` package,
never through the working directory. A page added under ``docs/`` is picked up
automatically. Blocks that cannot run on one machine are written as
```text or ```console fences, which this test does not run.
"""

from __future__ import annotations

import doctest
import os
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SKIP_DIRS = {"_build", "api", "auto_examples"}
FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>[^\n`]*)$")


def doc_pages() -> list[Path]:
    """README.md and every Markdown page under docs/ (generated output excluded)."""
    pages = [ROOT / "README.md"]
    for page in sorted((ROOT / "docs").rglob("*.md")):
        if not SKIP_DIRS.intersection(page.relative_to(ROOT / "docs").parts):
            pages.append(page)
    return pages


def python_blocks(text: str) -> list[tuple[int, str]]:
    """(first line number, source) of every ```python / ```py fence, in order."""
    blocks: list[tuple[int, str]] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        match = FENCE.match(lines[i])
        if match is None:
            i += 1
            continue
        fence, info, indent = match["fence"], match["info"].strip(), match["indent"]
        body: list[str] = []
        j = i + 1
        while j < len(lines) and not lines[j].strip().startswith(fence):
            body.append(lines[j][len(indent) :] if lines[j].startswith(indent) else lines[j])
            j += 1
        if info.split(" ")[0].strip("{}") in ("python", "py"):
            blocks.append((i + 2, "\n".join(body) + "\n"))
        i = j + 1
    return blocks


def run_session(source: str, namespace: dict[str, object], rel: str, line: int) -> None:
    """Run a ``>>>`` block as a doctest in the page's namespace; its outputs must match."""
    test = doctest.DocTestParser().get_doctest(source, namespace, rel, rel, line - 1)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    report: list[str] = []
    runner.run(test, out=report.append, clear_globs=False)
    assert runner.failures == 0, f"{rel}, block at line {line}:\n" + "".join(report)


PAGES = [p for p in doc_pages() if python_blocks(p.read_text(encoding="utf-8"))]


def test_finds_the_pages() -> None:
    names = {p.relative_to(ROOT).as_posix() for p in PAGES}
    assert {"README.md", "docs/metrics/mals.md", "docs/uncertainty.md"} <= names


def test_fence_parser() -> None:
    text = "a\n```python\nx = 1\n```\n```text\nnot run\n```\n  ```py\n  y = x\n  ```\n"
    assert python_blocks(text) == [(3, "x = 1\n"), (9, "y = x\n")]


@pytest.mark.parametrize("page", PAGES, ids=[p.relative_to(ROOT).as_posix() for p in PAGES])
def test_page_blocks_run(page: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("BIASAMP_DOCS_ROOT", str(ROOT))
    # a block that starts Spark must choose its workers' Python itself
    # (docs/scale.md sets PYSPARK_PYTHON before the session), not rely on a test fixture's environment
    monkeypatch.delenv("PYSPARK_PYTHON", raising=False)
    monkeypatch.delenv("PYSPARK_DRIVER_PYTHON", raising=False)
    namespace: dict[str, object] = {"__name__": "__doc_page__"}
    rel = page.relative_to(ROOT).as_posix()
    try:
        for line, source in python_blocks(page.read_text(encoding="utf-8")):
            if source.lstrip().startswith(">>>"):
                run_session(source, namespace, rel, line)
                continue
            code = compile(source, f"{rel}:{line}", "exec")
            try:
                exec(code, namespace)
            except Exception as error:
                raise AssertionError(
                    f"{rel}, block at line {line} failed: {type(error).__name__}: {error}"
                ) from error
    finally:
        plt.close("all")
        os.chdir(ROOT)


#: Test-only packages: a reader who installed biasamp has none of them.
TEST_ONLY = ("pytest", "hypothesis")


def imported_modules(source: str) -> set[str]:
    """The top-level modules a block imports (``>>>`` sessions read as their code)."""
    import ast

    if source.lstrip().startswith(">>>"):
        examples = doctest.DocTestParser().get_examples(source)
        source = "".join(example.source for example in examples)
    names: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module.split(".")[0])
    return names


def test_imported_modules_reads_code_and_sessions() -> None:
    assert imported_modules("import pytest\nfrom hypothesis import given\n") == {
        "pytest",
        "hypothesis",
    }
    assert imported_modules(">>> import pytest.mark as m\n>>> 1\n1\n") == {"pytest"}
    assert imported_modules("x = 'import pytest'\n") == set()


def test_no_block_imports_a_test_only_package() -> None:
    """Every ```python block runs with the package alone: a reader has no pytest or
    hypothesis, so an error is shown with try/except or as a doctest, not pytest.raises."""
    found = [
        f"{page.relative_to(ROOT).as_posix()}:{line} imports {name}"
        for page in doc_pages()
        for line, source in python_blocks(page.read_text(encoding="utf-8"))
        for name in sorted(imported_modules(source) & set(TEST_ONLY))
    ]
    assert found == []
