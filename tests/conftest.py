"""Test-suite settings.

Hypothesis runs derandomized under CI (``CI`` set), so a submission's CI run is
reproducible; locally it explores new examples every run.

Tests write only to temporary folders: a check around the whole run compares
``git status`` before and after the run and fails the run when a test created,
changed or deleted a file of the checkout (ignored files, such as caches, aside).
"""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings

settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")

ROOT = Path(__file__).resolve().parents[1]
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
