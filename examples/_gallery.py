"""Shared plumbing of the example scripts: where the gallery is, markdown tables, pyplot.

The examples import this module by name (``import _gallery``); running a script
puts ``examples/`` on ``sys.path``, and the smoke tests add it.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pandas as pd

GALLERY = Path(__file__).resolve().parents[1] / "docs" / "gallery"
#: Data the examples read that the package does not bundle (each folder notes its source).
DATA = Path(__file__).resolve().parent / "data"
#: The documentation build (docs/conf.py) sets this so that the scripts write their
#: figures and tables into a scratch directory, not into docs/gallery.
OUTPUT_ENV = "BIASAMP_GALLERY_OUTPUT"

ERR_MATPLOTLIB = (
    "The examples draw their figures with matplotlib: pip install 'biasamp[plot]' (or matplotlib)."
)


def output_dir(path: Path | str | None) -> Path:
    """The directory to write into, created if needed.

    ``path`` when given, else ``$BIASAMP_GALLERY_OUTPUT`` when set (the
    documentation build), else ``docs/gallery``.
    """
    if path is None:
        path = os.environ.get(OUTPUT_ENV) or GALLERY
    out = Path(path)
    out.mkdir(parents=True, exist_ok=True)
    return out


def pyplot() -> Any:
    """``matplotlib.pyplot`` on the non-interactive Agg backend."""
    try:
        import matplotlib
    except ImportError as error:  # pragma: no cover - depends on the environment
        raise ImportError(ERR_MATPLOTLIB) from error
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _cell(value: Any, floatfmt: str) -> str:
    if isinstance(value, float):
        return "" if pd.isna(value) else format(value, floatfmt)
    return str(value)


def markdown_table(frame: pd.DataFrame, floatfmt: str = ".4f") -> str:
    """A GitHub markdown table of ``frame`` (no index), without the tabulate package."""
    header = "| " + " | ".join(str(c) for c in frame.columns) + " |"
    rule = "|" + "|".join("---" for _ in frame.columns) + "|"
    body = [
        "| " + " | ".join(_cell(v, floatfmt) for v in row) + " |"
        for row in frame.itertuples(index=False, name=None)
    ]
    return "\n".join([header, rule, *body])
