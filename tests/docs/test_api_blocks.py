"""The API blocks of docs/metrics/*.md and docs/intersectional.md list every parameter of the functions they show.

A block is a ```text fence; each ``biasamp.NAME(`` call in it must name every
parameter of ``biasamp.NAME`` (the first, positional, parameters by name too).
"""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import pytest

import biasamp

ROOT = Path(__file__).resolve().parents[2]
PAGES = sorted((ROOT / "docs" / "metrics").glob("*.md")) + [ROOT / "docs" / "intersectional.md"]
TEXT_BLOCK = re.compile(r"```text\n(.*?)```", re.DOTALL)
CALL = re.compile(r"biasamp\.(\w+)\(")


def api_calls(page: Path) -> list[tuple[str, str]]:
    """(name, text between the call's balanced parentheses) of each call in a text block."""
    calls = []
    for block in TEXT_BLOCK.findall(page.read_text(encoding="utf-8")):
        for match in CALL.finditer(block):
            depth, end = 1, match.end()
            while depth and end < len(block):
                depth += {"(": 1, ")": -1}.get(block[end], 0)
                end += 1
            calls.append((match.group(1), block[match.end() : end - 1]))
    return calls


@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
def test_api_block_lists_every_parameter(page: Path) -> None:
    missing = {}
    for name, arguments in api_calls(page):
        function = getattr(biasamp, name, None)
        if function is None or not callable(function):
            missing[name] = ["<not a public function>"]
            continue
        written = set(re.findall(r"\b([A-Za-z_]\w*)\b", arguments))
        variadic = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
        parameters = inspect.signature(function).parameters.values()
        absent = [p.name for p in parameters if p.kind not in variadic and p.name not in written]
        if absent:
            missing[name] = absent
    assert missing == {}


def test_directional_page_shows_its_functions() -> None:
    names = [name for name, _ in api_calls(ROOT / "docs" / "metrics" / "directional.md")]
    assert names == ["directional", "directional_from_counts"]
