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
    assert "on 2026-11-26 at commit 757d906" in text
    assert f"the fast tier ran {n_fast} tests in 48 s (53 s with the interpreter's start)" in text
    assert f"the full suite {full.group(1)} tests in {full.group(2)} s (7 min 15 s)" in text
    assert "under a minute" not in README
    newest = [r for r in tiers.splitlines() if r.startswith("| 52f8020 + ")][0]
    cells = [c.strip() for c in newest.strip("|").split("|")]
    assert cells[1:3] == ["3,484", "52.3 s (59.2 s with the interpreter's start)"]
    full = re.search(
        r"The full suite at commit defdf68.*?: ([\d,]+) tests\s.*? in (\d+) s", tiers, re.S
    )
    assert full is not None and full.groups() == ("5,479", "543")
    assert "at commit defdf68" in text and "fast tier ran 3,484 tests in 52 s" in text
    assert "the full suite 5,479 tests in 543 s (9 min 3 s" in text
