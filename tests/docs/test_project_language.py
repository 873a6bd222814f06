"""Docs, code comments, tests and benchmarks speak of the project only.

A reader knows the project's dates, commits and machines, not the work sessions
or tracker numbers that produced a change; measurements are dated with a
commit instead (docs/benchmarks.md).
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SUFFIXES = {".py", ".md", ".rst", ".toml", ".txt", ".cfg"}
FOLDERS = ("docs", "src", "tests", "benchmarks", "examples")
WORK_WORDS = re.compile(
    r"\bissue\s*#?\s*\d+"
    # "before the session starts" is Spark's session (the workers' Python is set before it)
    r"|(?<!before )\b(?:first|second|third|fourth|fifth|this|that|previous|next|earlier|later|the)"
    r"\s+sessions?\b(?!\s*[=(])"
    r"|\bthe\s+issue\b"
    r"|\brounds?\s+of\s+work\b"
    r"|\bround\s+\d+\b",
    re.IGNORECASE,
)


def project_files() -> list[Path]:
    done = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "README.md", *FOLDERS],
        cwd=ROOT, capture_output=True, text=True,
    )  # fmt: skip
    if done.returncode != 0:
        pytest.skip("not a git checkout")
    here = Path(__file__).resolve()
    files = [ROOT / line for line in done.stdout.splitlines() if line]
    return [f for f in files if f.suffix in SUFFIXES and f.resolve() != here and f.exists()]


def test_pattern_catches_work_words() -> None:
    for text in ("issue 18", "Issue #25", "third session", "the issue's case", "round 2"):
        assert WORK_WORDS.search(text), text
    for text in (
        'scope="session"',
        "SparkSession",
        "set it before the session starts",
        "a Spark Connect session works",
        "round(x, 2)",
    ):
        assert not WORK_WORDS.search(text), text


def test_no_work_words_in_the_project() -> None:
    found = []
    for path in project_files():
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            match = WORK_WORDS.search(line)
            if match:
                found.append(f"{path.relative_to(ROOT)}:{number}: {match.group(0)!r}")
    assert found == []
