"""The check of tests/conftest.py sees a file a test writes into a checkout."""

from __future__ import annotations

import shutil
import subprocess
import time
from pathlib import Path

import pytest

from tests.conftest import checkout_state, written_since

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


def test_guard_lists_new_changed_and_deleted_files(tmp_path: Path) -> None:
    repo = tmp_path / "checkout"
    repo.mkdir()
    _git(repo, "init", "-q")
    (repo / ".gitignore").write_text("cache/\n")
    (repo / "kept.png").write_bytes(b"a")
    (repo / "gone.md").write_text("x")
    _git(repo, "add", ".")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "init")
    (repo / "dirty.txt").write_text("before the run")  # untracked before: not the run's doing
    before = checkout_state(repo)
    start = time.time_ns()
    assert before is not None and set(before) == {"dirty.txt"}

    (repo / "kept.png").write_bytes(b"rewritten")
    (repo / "gone.md").unlink()
    (repo / "docs").mkdir()
    (repo / "docs" / "generated.rst").write_text("y")
    (repo / "cache").mkdir()
    (repo / "cache" / "ignored.bin").write_bytes(b"z")
    after = checkout_state(repo)
    assert after is not None
    assert written_since(before, after, start) == ["docs/generated.rst", "gone.md", "kept.png"]


def test_guard_is_off_outside_a_checkout(tmp_path: Path) -> None:
    assert checkout_state(tmp_path) is None
