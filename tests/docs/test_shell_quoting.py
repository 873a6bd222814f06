"""Metric names in shell examples are quoted or canonical.

``biasamp measure data.csv --metric T->A`` makes the shell redirect the output to a
file named ``A`` (and pass ``--metric T-``). Every command line of README.md and
docs/**/*.md (fenced shell blocks and inline code that starts with ``biasamp`` or a
flag) and every example in the command line's ``--help`` texts writes a ``->`` only
inside quotes (``--metric 'T->A'``) or uses the canonical name (``directional-t2a``).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from biasamp.cli import captions, compare, measure, report

from .test_doc_blocks import ROOT, doc_pages

SHELL_FENCES = {"bash", "sh", "shell", "console", "zsh", "text", ""}
FENCE = re.compile(r"^```(?P<info>[\w-]*)[^\n]*\n(?P<body>.*?)^```", re.S | re.M)
INLINE = re.compile(r"`([^`\n]+)`")


def unquoted_arrows(line: str) -> list[int]:
    """Positions of each ``->`` outside quotes, before a shell comment."""
    found, quote, i = [], "", 0
    while i < len(line):
        char = line[i]
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == "\\":
            i += 1  # an escaped character is not special
        elif char == "#" and (i == 0 or line[i - 1].isspace()):
            break
        elif char == ">" and i and line[i - 1] == "-":
            found.append(i - 1)
        i += 1
    return found


def _is_command(line: str) -> bool:
    text = line.strip().removeprefix("$ ")
    return text.startswith(("biasamp ", "python -m biasamp", "--")) or " --metric" in text


def shell_lines(text: str) -> list[tuple[int, str]]:
    """(line number, text) of every command line in shell fences and inline code."""
    lines: list[tuple[int, str]] = []
    for block in FENCE.finditer(text):
        if block.group("info") not in SHELL_FENCES:
            continue
        first = text.count("\n", 0, block.start("body")) + 1
        for k, line in enumerate(block.group("body").splitlines()):
            if _is_command(line):
                lines.append((first + k, line))
    for span in INLINE.finditer(text):
        if _is_command(span.group(1)):
            lines.append((text.count("\n", 0, span.start()) + 1, span.group(1)))
    return lines


def test_the_scanner_finds_an_unquoted_arrow_and_only_it() -> None:
    page = (
        "```bash\nbiasamp measure t.csv --metric T->A --json out.json\n"
        "biasamp measure t.csv --metric 'T->A'   # quoted: T->A\n"
        'biasamp measure t.csv --metric "A->T"\n```\n'
        "Run `biasamp measure t.csv --metric A->T` or `--metric 'T->A'`.\n"
    )
    assert shell_lines(page) == [
        (2, "biasamp measure t.csv --metric T->A --json out.json"),
        (3, "biasamp measure t.csv --metric 'T->A'   # quoted: T->A"),
        (4, 'biasamp measure t.csv --metric "A->T"'),
        (6, "biasamp measure t.csv --metric A->T"),
        (6, "--metric 'T->A'"),
    ]
    flagged = [n for n, line in shell_lines(page) if unquoted_arrows(line)]
    assert flagged == [2, 6]


@pytest.mark.parametrize("page", doc_pages(), ids=lambda p: str(p.relative_to(ROOT)))
def test_shell_examples_quote_metric_names(page: Path) -> None:
    bad = [
        f"{page.relative_to(ROOT)}:{number}: {line.strip()}"
        for number, line in shell_lines(page.read_text(encoding="utf-8"))
        if unquoted_arrows(line)
    ]
    assert not bad, "quote the metric name ('T->A') or use its canonical name:\n" + "\n".join(bad)


@pytest.mark.parametrize("module", [measure, report, captions, compare], ids=lambda m: m.__name__)
def test_help_examples_quote_metric_names(module) -> None:
    examples = module.HELP.split("Examples:", 1)[-1]
    bad = [line for line in examples.splitlines() if _is_command(line) and unquoted_arrows(line)]
    assert not bad
