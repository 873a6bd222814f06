"""The README's first commands: the demo, then the fast tier as the first check, each with
what it costs as docs/benchmarks.md records it."""

from __future__ import annotations

import re

from biasamp.cli.main import COMMANDS

from .test_doc_blocks import ROOT

README = (ROOT / "README.md").read_text(encoding="utf-8")
BENCHMARKS = (ROOT / "docs" / "benchmarks.md").read_text(encoding="utf-8")


def _first_block() -> list[str]:
    block = README.split("```bash\n", 1)[1].split("```", 1)[0]
    return [line.split("#", 1)[0].strip() for line in block.splitlines() if line.strip()]


def test_the_first_commands_are_the_demo_then_the_fast_tier() -> None:
    commands = _first_block()
    assert commands[0] == "pip install -e . && biasamp demo"
    assert "demo" in COMMANDS
    install, fast = commands[1].rsplit(" && ", 1)
    assert install == 'pip install torch==2.13.0 && pip install -e ".[test,docs]"'
    # in parallel (pytest-xdist), the tests of one shared fixture in one worker
    assert fast == 'python -m pytest -n auto --dist loadgroup -m "not slow" -q'
    assert commands[2] == "python -m pytest -n auto --dist loadgroup -q"  # the full suite


def test_ci_runs_the_readme_full_suite_command() -> None:
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert f"\n{_first_block()[2]}\n" in ci


def test_the_costs_stated_are_those_docs_benchmarks_records() -> None:
    tiers = BENCHMARKS.split("## Test tiers", 1)[1].split("\n## ", 1)[0]
    last_row = [r for r in tiers.splitlines() if r.startswith("| 757d906 + ")][0]
    cells = [c.strip() for c in last_row.strip("|").split("|")]
    n_fast, wall = cells[1], cells[2]
    assert (n_fast, wall) == ("2,408", "47.6 s (52.8 s with the interpreter's start)")
    full = re.search(r"The full suite at the same commit: ([\d,]+) tests in (\d+) s", tiers)
    assert full is not None and full.groups() == ("2,976", "435")
    text = " ".join(README.split())
    assert "under a minute" not in README
    newest = [r for r in tiers.splitlines() if r.startswith("| d8b689b, in parallel")][0]
    cells = [c.strip() for c in newest.strip("|").split("|")]
    assert cells[1:3] == ["3,529", "32.7-34.2 s (35.1-36.6 s with the interpreter's start)"]
    full = re.search(r"the full suite ([\d,]+)\s+tests .*? in (\d+) s \(273.7 s", tiers, re.S)
    assert full is not None and full.groups() == ("5,519", "271")
    assert "on 2026-11-28 at commit d8b689b, from a clean clone" in text
    assert "the fast tier ran 3,529 tests in 34 s (37 s with the interpreter's start)" in text
    assert "the full suite 5,519 tests in 271 s (4 min 31 s; 455 s of CPU)" in text
    assert "In one process, at commit defdf68, they took 52 s and 543 s." in text
