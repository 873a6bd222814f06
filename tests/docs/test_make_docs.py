"""benchmarks/make_docs.py dates every generated table with its commit and machine."""

from __future__ import annotations

import importlib.util
import re
from datetime import datetime, timezone
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]


def make_docs() -> ModuleType:
    spec = importlib.util.spec_from_file_location("make_docs", ROOT / "benchmarks" / "make_docs.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_stamp_names_date_commit_and_machine() -> None:
    line = make_docs().stamp(datetime(2026, 11, 25, 19, 5, tzinfo=timezone.utc))
    assert re.fullmatch(
        r"Measured 2026-11-25 19:05 UTC at commit `[0-9a-f]{4,}( \+ uncommitted changes)?` "
        r"on \w+, \d+ cores(, \d+ GB)?, Python [\d.]+(, load average [\d.]+)?\.",
        line,
    ), line


def test_splice_replaces_only_the_generated_block() -> None:
    module = make_docs()
    page = f"# B\n\nhand-written\n\n{module.BEGIN}\nold\n{module.END}\ntail\n"
    block = f"{module.BEGIN}\nnew\n{module.END}\n"
    assert module.splice(page, block) == f"# B\n\nhand-written\n\n{block}tail\n"
    assert module.splice("# B\n", block) == f"# B\n\n{block}"
