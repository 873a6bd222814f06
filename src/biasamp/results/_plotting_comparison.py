"""Figures of :func:`biasamp.compare`: amplification against performance, and over training.

Same conventions as ``_plotting.py``: matplotlib imported lazily, a new
constrained-layout figure when ``ax`` is None, labels shown safely and kept
distinct when shortened.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from biasamp.results._plotting import (
    ERR_PLOT_KIND,
    label_farthest,
    new_axes,
    plot_text,
    plot_texts,
)

__all__ = ["TABLE_COLUMNS", "plot_model_comparison"]

#: The columns of a comparison table that are not performance (:func:`biasamp.compare`).
TABLE_COLUMNS = ("model", "metric", "title", "value", "ci_low", "ci_high", "ci_level", "n")

#: Points named in the scatter (the farthest from 0 that fit without overlapping).
MAX_NAMED = 8

ERR_X = "x: expected one of the performance columns {known}, got {got!r}."
ERR_NO_PERFORMANCE = (
    "kind='scatter': the table has no performance column; give compare(..., performance=...)."
)
ERR_METRICS = "metrics: unknown metric {got!r}; known: {known}."


def _chosen(table: pd.DataFrame, metrics: Any) -> list[str]:
    known = list(pd.unique(table["metric"]))
    if metrics is None:
        return known
    chosen = [metrics] if isinstance(metrics, str) else list(metrics)
    for name in chosen:
        if name not in known:
            raise ValueError(ERR_METRICS.format(got=name, known=known))
    return chosen


def _errors(part: pd.DataFrame) -> np.ndarray:
    value = part["value"].to_numpy(dtype=float)
    low = part["ci_low"].to_numpy(dtype=float)
    high = part["ci_high"].to_numpy(dtype=float)
    return np.nan_to_num(np.clip(np.vstack([value - low, high - value]), 0, None))


def plot_model_comparison(
    table: pd.DataFrame,
    *,
    kind: str = "scatter",
    x: str | None = None,
    metrics: Any = None,
    ax: Any = None,
) -> Any:
    """Draw a :class:`ModelComparison`.

    Parameters
    ----------
    table : ModelComparison
    kind : {"scatter", "trajectory"}, default "scatter"
        ``"scatter"``: each metric's value (y, with its interval as a bar) against
        the performance column ``x``, one colour per metric (legend); the points
        farthest from 0 (up to :data:`MAX_NAMED`) that fit without overlapping are
        named by their model. ``"trajectory"``: each metric over ``x`` (a numeric
        performance column such as ``epoch`` or ``step``; by default the models
        in their order), its intervals as error bars.
    x : str, optional
        Performance column on the horizontal axis (scatter: default the first).
    metrics : str or list of str, optional
        The metrics drawn (default all).
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib Axes
    """
    if kind not in ("scatter", "trajectory"):
        raise ValueError(ERR_PLOT_KIND.format(choices="scatter, trajectory", got=kind))
    performance = [c for c in table.columns if c not in TABLE_COLUMNS]
    if x is not None and x not in performance:
        raise ValueError(ERR_X.format(known=performance, got=x))
    chosen = _chosen(table, metrics)
    models = list(pd.unique(table["model"]))
    if kind == "scatter":
        if not performance:
            raise ValueError(ERR_NO_PERFORMANCE)
        x = x or performance[0]
    ax = new_axes(ax, figsize=(6.4, 4.2))
    names = dict(zip(models, plot_texts(models, 20), strict=True))
    points: list[tuple[float, float, str, Any]] = []  # scatter: (x, value, model, colour)
    for metric, label in zip(chosen, plot_texts(chosen, 30), strict=True):
        part = table[table["metric"] == metric]
        value = part["value"].to_numpy(dtype=float)
        if kind == "scatter":
            assert x is not None
            pos = part[x].to_numpy(dtype=float)
            bars = ax.errorbar(
                pos, value, yerr=_errors(part), fmt="o", capsize=3, markersize=5, label=label
            )
            color = bars.lines[0].get_color()
            points += [
                (px, py, names[m], color)
                for px, py, m in zip(pos, value, part["model"], strict=True)
            ]
        else:
            if x is None:
                pos = np.array([models.index(m) for m in part["model"]], dtype=float)
            else:
                pos = part[x].to_numpy(dtype=float)
            order = np.argsort(pos, kind="stable")
            line = ax.plot(pos[order], value[order], marker="o", markersize=4, label=label)[0]
            low = part["ci_low"].to_numpy(dtype=float)[order]
            high = part["ci_high"].to_numpy(dtype=float)[order]
            if np.isfinite(low).any():  # the intervals as error bars
                err = np.nan_to_num(
                    np.clip(np.vstack([value[order] - low, high - value[order]]), 0, None)
                )
                ax.errorbar(
                    pos[order],
                    value[order],
                    yerr=err,
                    fmt="none",
                    ecolor=line.get_color(),
                    capsize=3,
                )
    ax.axhline(0.0, color="black", linewidth=0.8)
    if kind == "scatter":
        ax.set_xlabel(plot_text(x, 40))
        ax.set_title("Bias amplification against performance", fontsize=10)
    elif x is None:
        ax.set_xticks(np.arange(len(models)))
        ax.set_xticklabels(list(names.values()), rotation=45 if len(models) > 6 else 0, fontsize=8)
        ax.set_title("Bias amplification per model", fontsize=10)
    else:
        ax.set_xlabel(plot_text(x, 40))
        ax.set_title(plot_text(f"Bias amplification over {x}", 60), fontsize=10)
    ax.set_ylabel("amplification (bars: intervals)")
    ax.legend(fontsize=7)
    if points:  # the models farthest from 0 that fit are named; the table lists every one
        xs, ys, texts, colors = (list(c) for c in zip(*points, strict=True))
        label_farthest(
            ax, np.array(xs), np.array(ys), texts, distance=np.array(ys), n=MAX_NAMED, colors=colors
        )
    return ax
