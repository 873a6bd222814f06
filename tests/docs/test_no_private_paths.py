"""The documentation never points users at private modules or outside the project."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.docs.test_doc_blocks import ROOT, doc_pages

# biasamp._x, biasamp.sub._x, "from biasamp._x import", "from biasamp.sub._x import":
# an import path into a private module. (Naming a source file, as the contributor page
# docs/architecture.md does to say where code lives, is not telling users to import it.)
PRIVATE = re.compile(r"biasamp(?:\.[a-z][a-z0-9_]*)*\._[a-z0-9]\w*")
OUTSIDE = re.compile(r"/work/|shared/papers|shared/data")


def find(pattern: re.Pattern[str], text: str) -> list[str]:
    return [
        f"line {text.count(chr(10), 0, m.start()) + 1}: {m.group(0)}"
        for m in pattern.finditer(text)
        if m.group(0) != "biasamp._version"
    ]


@pytest.mark.parametrize("page", doc_pages(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_no_private_module_in_docs(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    assert find(PRIVATE, text) == [], f"{page.relative_to(ROOT)} names private modules"
    assert find(OUTSIDE, text) == [], f"{page.relative_to(ROOT)} names paths outside the project"


def test_pattern_catches_private_imports() -> None:
    assert find(PRIVATE, "from biasamp._report import x")
    assert find(PRIVATE, "biasamp.counts._replicates.PoissonReplicates")
    assert find(PRIVATE, "import biasamp.metrics._mals as m")
    assert find(PRIVATE, "biasamp.PoissonReplicates, biasamp.counts.CountTable") == []
    assert find(PRIVATE, "examples/_gallery.py is not a module of biasamp") == []
