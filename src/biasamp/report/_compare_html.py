"""A self-contained HTML page comparing models or checkpoints (:func:`biasamp.compare`).

Same rules as the report (``_html.py``): one file, figures inline, every name
escaped, the report's Content-Security-Policy; this page runs no script.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from biasamp.comparison._compare import ModelComparison
from biasamp.report._html import (
    ERR_IMAGE_FORMAT,
    _e,
    _figure_html,
    _new_figure,
    _num,
    _table,
    html_page,
)
from biasamp.results import _plotting
from biasamp.results._plotting_comparison import plot_model_comparison

__all__ = ["render_comparison", "write_comparison"]

ERR_TABLE_TYPE = "table: expected the ModelComparison biasamp.compare returns, got {type_name}."


def _cell(row: Any) -> str:
    text = _num(row.value)
    if np.isfinite(row.ci_low) and np.isfinite(row.ci_high):
        text += f" [{_num(row.ci_low)}, {_num(row.ci_high)}]"
    return text


def render_comparison(
    table: Any,
    *,
    title: str = "biasamp comparison",
    x: str | None = None,
    image_format: str = "svg",
) -> str:
    """The comparison as one self-contained HTML string.

    Parameters
    ----------
    table : ModelComparison
        From :func:`biasamp.compare`.
    title : str
    x : str, optional
        A numeric performance column (``epoch``, ``step``): each metric is drawn
        along it; by default the models side by side, with their intervals.
    image_format : {"svg", "png"}, default "svg"

    Returns
    -------
    str

    Examples
    --------
    >>> import biasamp
    >>> from biasamp.report import render_comparison
    >>> result = biasamp.mals(groups_train=["w", "m", "w"], tasks_train=["a", "a", "b"],
    ...                       groups_pred=["w", "w", "m"], tasks_pred=["a", "a", "b"])
    >>> page = render_comparison(biasamp.compare({"<m>": result}))
    >>> page.startswith("<!DOCTYPE html>"), "&lt;m&gt;" in page
    (True, True)
    """
    if not isinstance(table, ModelComparison):
        raise TypeError(ERR_TABLE_TYPE.format(type_name=type(table).__name__))
    if image_format not in ("svg", "png"):
        raise ValueError(ERR_IMAGE_FORMAT.format(got=image_format))
    _plotting.require_matplotlib()
    from biasamp._version import __version__

    metrics = table.metrics
    performance = table.performance
    rows = []
    for model in table.models:
        part = table[table["model"] == model].set_index("metric")
        cells = [_e(model)]
        for metric in metrics:
            cells.append(_cell(part.loc[metric]) if metric in part.index else "-")
        first = part.iloc[0]
        cells += [_num(first[c], "{:.4g}") for c in performance]
        rows.append(cells)
    body = [
        f"<h1>{_e(title)}</h1>",
        f'<p class="muted">biasamp {_e(__version__)}: {len(table.models)} models, '
        f"{len(metrics)} metrics. Value [interval] per model and metric; positive values: "
        "the model amplifies the bias of its data.</p>",
        "<h2>Summary</h2>",
        _table(["model", *metrics, *performance], rows),
    ]
    fig, ax = _new_figure(7.5, 4.2)
    plot_model_comparison(table, kind="bars" if x is None else "trajectory", x=x, ax=ax)
    body.append(
        "<h2>Each metric per model</h2>"
        + _figure_html(
            fig,
            alt="each metric per model",
            caption=(
                f"Each metric along {x}; bands are the intervals"
                if x
                else "Each metric per model, side by side; whiskers are the intervals"
            )
            + " (when the results have them).",
            image_format=image_format,
        )
    )
    for column in performance:
        if column == x:
            continue
        fig, ax = _new_figure(7.0, 4.6)
        plot_model_comparison(table, kind="scatter", x=column, ax=ax)
        body.append(
            f"<h2>Amplification against {_e(column)}</h2>"
            + _figure_html(
                fig,
                alt=f"amplification against {column}",
                caption="One point per model and metric; bars are the intervals. The "
                "points farthest from 0 that fit without overlapping are named; the summary "
                "table above has every model's value.",
                image_format=image_format,
            )
        )
    return html_page(title, body)


def write_comparison(path: str | Path, table: Any, **kwargs: Any) -> Path:
    """Write :func:`render_comparison` to ``path`` (UTF-8, atomically); return the path."""
    from biasamp.output._atomic import atomic_output

    path = Path(path)
    page = render_comparison(table, **kwargs)
    with atomic_output(path, "w", encoding="utf-8") as handle:
        handle.write(page)
    return path
