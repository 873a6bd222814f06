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

__all__ = ["KINDS", "TABLE_COLUMNS", "plot_model_comparison"]

#: The columns of a comparison table that are not performance (:func:`biasamp.compare`).
TABLE_COLUMNS = ("model", "metric", "title", "value", "ci_low", "ci_high", "ci_level", "n")

#: Points named in the scatter (the farthest from 0 that fit without overlapping).
MAX_NAMED = 8

ERR_X = "x: expected one of the performance columns {known}, got {got!r}."
ERR_NO_PERFORMANCE = (
    "kind='scatter': the table has no performance column; give compare(..., performance=...)."
)
ERR_METRICS = "metrics: unknown metric {got!r}; known: {known}."
ERR_TRAJECTORY_X = (
    "kind='trajectory' draws lines along an ordered column: give x= a numeric performance "
    "column such as epoch or step (compare(..., performance=...)); the table has {known}. "
    "To show models side by side, use kind='bars' (the default without a performance column)."
)
ERR_TRAJECTORY_VALUES = (
    "x={x!r}: kind='trajectory' needs a number for every model; found {got!r} for model {model!r}."
)
#: The kinds of figure, and the default: scatter with a performance column, else bars.
KINDS = ("scatter", "trajectory", "bars")


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


def _ordered(table: pd.DataFrame, x: str | None, performance: list[str]) -> None:
    """A trajectory's ``x``: a numeric column with a finite number for every row."""
    if x is None:
        raise ValueError(ERR_TRAJECTORY_X.format(known=performance or "no performance column"))
    values = pd.to_numeric(table[x], errors="coerce").to_numpy(dtype=float)
    bad = ~np.isfinite(values)
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise ValueError(
            ERR_TRAJECTORY_VALUES.format(
                x=x, got=table[x].iloc[row], model=table["model"].iloc[row]
            )
        )


def _bars(table: pd.DataFrame, chosen: list[str], models: list[str], ax: Any) -> None:
    """Each model side by side: one bar per metric in each model's group, interval whiskers."""
    width = 0.8 / max(len(chosen), 1)
    for i, (metric, label) in enumerate(zip(chosen, plot_texts(chosen, 30), strict=True)):
        part = table[table["metric"] == metric]
        pos = np.array([models.index(m) for m in part["model"]], dtype=float)
        offset = (i - (len(chosen) - 1) / 2) * width
        ax.bar(
            pos + offset, part["value"].to_numpy(dtype=float), width=width, label=label,
            yerr=_errors(part), capsize=3, error_kw={"linewidth": 0.9},
        )  # fmt: skip


def plot_model_comparison(
    table: pd.DataFrame,
    *,
    kind: str | None = None,
    x: str | None = None,
    metrics: Any = None,
    ax: Any = None,
) -> Any:
    """Draw a :class:`ModelComparison`.

    Parameters
    ----------
    table : ModelComparison
    kind : {"scatter", "trajectory", "bars"}, optional
        ``"scatter"``: each metric's value (y, with its interval as a bar) against
        the performance column ``x``, one colour per metric (legend); the points
        farthest from 0 (up to :data:`MAX_NAMED`) that fit without overlapping are
        named by their model. ``"trajectory"``: each metric along ``x``, a numeric
        performance column such as ``epoch`` or ``step`` (required: the models of a
        table have no order of their own), its intervals as error bars. ``"bars"``: the
        models side by side, one bar per metric with its interval as a whisker.
        Default: ``"scatter"`` when the table has a performance column, else ``"bars"``.
    x : str, optional
        Performance column on the horizontal axis (scatter: default the first).
    metrics : str or list of str, optional
        The metrics drawn (default all).
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib Axes
    """
    performance = [c for c in table.columns if c not in TABLE_COLUMNS]
    if kind is None:
        kind = "scatter" if performance else "bars"
    if kind not in KINDS:
        raise ValueError(ERR_PLOT_KIND.format(choices=", ".join(KINDS), got=kind))
    if x is not None and x not in performance:
        raise ValueError(ERR_X.format(known=performance, got=x))
    chosen = _chosen(table, metrics)
    models = list(pd.unique(table["model"]))
    if kind == "scatter":
        if not performance:
            raise ValueError(ERR_NO_PERFORMANCE)
        x = x or performance[0]
    if kind == "trajectory":
        _ordered(table, x, performance)
    ax = new_axes(ax, figsize=(6.4, 4.2))
    names = dict(zip(models, plot_texts(models, 20), strict=True))
    if kind == "bars":
        _bars(table[table["metric"].isin(chosen)], chosen, models, ax)
        ax.set_xticks(np.arange(len(models)))
        ax.set_xticklabels(list(names.values()), rotation=45 if len(models) > 6 else 0, fontsize=8)
        ax.set_title("Bias amplification per model", fontsize=10)
        ax.axhline(0.0, color="black", linewidth=0.8)
        ax.set_ylabel("amplification (whiskers: intervals)")
        ax.legend(fontsize=7)
        return ax
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
            pos = pd.to_numeric(part[x]).to_numpy(dtype=float)
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
