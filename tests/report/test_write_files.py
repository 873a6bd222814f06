"""write_report and write_comparison write exactly what the render functions return."""

from __future__ import annotations

import re

import numpy as np
import pytest

from biasamp import (
    compare,
    directional,
    render_comparison,
    render_report,
    write_comparison,
    write_report,
)

pytest.importorskip("matplotlib")

GROUPS = np.array(["a", "a", "b", "b", "a", "b", "a", "b"])
TASKS = np.array(["x", "y", "x", "y", "x", "x", "y", "y"])
PRED = np.array(["x", "x", "x", "y", "x", "x", "y", "x"])


def _without_figures(page: str) -> str:
    """The page with its inline figures cut out (matplotlib names their parts at random)."""
    return re.sub(r"<svg.*?</svg>|data:image/[^\"']*", "", page, flags=re.DOTALL)


def _result(pred: np.ndarray):
    return directional(direction="A->T", groups=GROUPS, tasks=TASKS, tasks_pred=pred)


def test_write_report_writes_the_rendered_page(tmp_path) -> None:
    result = _result(PRED)
    path = write_report(tmp_path / "report.html", results={"directional-a2t": result})
    assert path == tmp_path / "report.html"
    written = path.read_text(encoding="utf-8")
    expected = render_report(results={"directional-a2t": result})
    assert _without_figures(written) == _without_figures(expected)
    assert written.startswith("<!DOCTYPE html>") and "directional-a2t" in written


def test_write_comparison_writes_the_rendered_page(tmp_path) -> None:
    table = compare({"model <1>": _result(PRED), "labels": _result(TASKS)})
    assert table["model"].tolist() == ["model <1>", "labels"]
    assert table["value"].tolist() == pytest.approx([float(_result(PRED)), 0.0])
    page = render_comparison(table, title="two models")
    assert "model &lt;1&gt;" in page and "<1>" not in page  # names are text, escaped
    path = write_comparison(tmp_path / "compare.html", table, title="two models")
    assert _without_figures(path.read_text(encoding="utf-8")) == _without_figures(page)
