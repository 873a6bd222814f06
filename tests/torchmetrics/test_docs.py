"""Every ```python block of docs/training_loop.md runs as written (in one namespace, in order)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("torchmetrics")
pytest.importorskip("matplotlib")

PAGE = Path(__file__).resolve().parents[2] / "docs" / "training_loop.md"


def _blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", PAGE.read_text(encoding="utf-8"), flags=re.S)


def test_the_page_has_runnable_blocks():
    assert len(_blocks()) >= 3


def test_every_python_block_runs(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, object] = {"__name__": "__docs__"}
    for block in _blocks():
        exec(compile(block, str(PAGE), "exec"), namespace)
    out = capsys.readouterr().out
    assert "BiasAmp T->A" in out and "plot saved to bias_amplification.png" in out
    assert "True True" in out  # streamed tables equal the in-memory bootstrap
    import matplotlib.pyplot as plt

    plt.close("all")
