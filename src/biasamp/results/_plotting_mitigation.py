"""Figures of mitigation results: RBA, oversampling, and comparison tables.

Same conventions as ``_plotting.py``: matplotlib is imported lazily, new
figures use constrained layout, labels are shortened and escaped, and ``ax``
may be one Axes (multi-panel figures are then inset in it) or a sequence of
Axes, one per panel.

Functions
---------
plot_rba
    ``kind="table"``: the paper's table 2 (violations, amplified bias,
    performance) before and after RBA, one panel per column.
    ``kind="history"``: violated constraints and BiasAmp_MALS per iteration, the
    returned iteration marked. ``kind="bias"``: training against predicted bias
    per task, before and after (Zhao et al. 2017, figure 3).
plot_oversampling
    Per task, the largest distance of a group's share from ``1/|G|``, before
    and after oversampling, against the target band ``epsilon``.
plot_comparison
    One panel per metric of a :func:`biasamp.compare_mitigations` table, a bar
    per method with its t interval over runs.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from biasamp.results._plotting import (
    ERR_EMPTY_PLOT,
    ERR_PLOT_KIND,
    new_axes,
    panel_axes,
    plot_text,
    plot_texts,
    require_matplotlib,
)

__all__ = ["plot_comparison", "plot_oversampling", "plot_rba"]

ERR_COMPARISON_METRIC = "metrics: {got!r} is not a metric column of the table ({known})."

_BEFORE, _AFTER = "#bdbdbd", "#2166ac"


def plot_rba(result: Any, *, kind: str = "table", ax: Any = None) -> Any:
    """Figures of an :class:`RBAResult` (see the module docs); returns the Axes (a list
    for the multi-panel ``"table"`` and ``"history"``)."""
    if kind == "table":
        return _rba_table(result, ax)
    if kind == "history":
        return _rba_history(result, ax)
    if kind == "bias":
        return _rba_bias(result, ax)
    raise ValueError(ERR_PLOT_KIND.format(choices="table, history, bias", got=kind))


def _rba_table(result: Any, ax: Any) -> list[Any]:
    table = result.table()
    axes = panel_axes(ax, table.shape[1], figsize=(max(4.0, 2.6 * table.shape[1]), 3.4))
    for panel, column in zip(axes, table.columns, strict=True):
        values = table[column].to_numpy(dtype=float)
        bars = panel.bar([0, 1], values, color=[_BEFORE, _AFTER], width=0.6)
        panel.bar_label(bars, labels=[_short_number(v) for v in values], fontsize=7, padding=2)
        panel.set_xticks([0, 1])
        panel.set_xticklabels(["before", "after"], fontsize=8)
        panel.set_title(plot_text(column, 24), fontsize=9)
        panel.axhline(0.0, color="black", linewidth=0.8)
        panel.margins(y=0.2)
    status = "converged" if result.converged else "constraints still violated"
    axes[0].figure.suptitle(
        plot_text(f"RBA: iteration {result.selected_iteration} of {result.n_iter} ({status})", 70),
        fontsize=10,
    )
    return axes


def _short_number(value: float) -> str:
    if not np.isfinite(value):
        return "n/a"
    return f"{value:.0f}" if float(value).is_integer() else f"{value:.3f}"


def _rba_history(result: Any, ax: Any) -> list[Any]:
    history = result.history
    axes = panel_axes(ax, 2, figsize=(8.0, 3.4))
    it = history["iteration"].to_numpy()
    for panel, column, label in (
        (axes[0], "violated_constraints", "violated constraints"),
        (axes[1], "mals", "BiasAmp_MALS"),
    ):
        panel.plot(it, history[column].to_numpy(dtype=float), color=_AFTER, linewidth=1.2)
        panel.axvline(
            result.selected_iteration,
            color="#b2182b",
            linestyle="--",
            linewidth=1,
            label=f"returned ({result.params.get('select', 'last')})",
        )
        panel.set_xlabel("iteration")
        panel.set_ylabel(label)
        panel.set_title(label, fontsize=9)
    axes[1].axhline(0.0, color="black", linewidth=0.8)
    axes[0].legend(fontsize=7)
    return axes


def _rba_bias(result: Any, ax: Any) -> Any:
    ax = new_axes(ax, figsize=(5.2, 5.2))
    margin = float(result.params.get("margin", 0.05))
    before = result.mals_before.by_pair
    after = result.mals_after.by_pair
    group = before["group"].iloc[0] if len(before) else None
    grid = np.linspace(0.0, 1.0, 2)
    ax.fill_between(
        grid, grid - margin, grid + margin, color="#9ecae1", alpha=0.35, label=f"margin ±{margin:g}"
    )
    ax.plot(grid, grid, color="black", linewidth=0.8, linestyle="--")
    for frame, color, label in ((before, "#d73027", "before RBA"), (after, _AFTER, "after RBA")):
        part = frame[frame["group"] == group]
        x = part["b_train"].to_numpy(dtype=float)
        y = part["b_pred"].to_numpy(dtype=float)
        keep = np.isfinite(x) & np.isfinite(y)
        ax.scatter(x[keep], y[keep], s=16, color=color, label=label, alpha=0.8)
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_aspect("equal")
    who = plot_text(group, 20)
    ax.set_xlabel(f"training bias b*(t, {who})")
    ax.set_ylabel(f"predicted bias b~(t, {who})")
    ax.set_title("Bias per task before and after RBA", fontsize=10)
    ax.legend(loc="upper left", fontsize=7)
    return ax


def plot_oversampling(result: Any, *, max_tasks: int = 30, ax: Any = None) -> Any:
    """Per task, the largest distance of a group's share from ``1/|G|``, before and after."""
    before, after = result.bias_before, result.bias_after
    if not len(before):
        raise ValueError(ERR_EMPTY_PLOT.format(what="plot_oversampling"))
    even = 1.0 / before.shape[1]
    dev_before = (before - even).abs().max(axis=1)
    dev_after = (after.reindex(before.index) - even).abs().max(axis=1)
    order = dev_before.sort_values(ascending=False, kind="stable").index[:max_tasks]
    dev_before, dev_after = dev_before.loc[order], dev_after.loc[order]
    ax = new_axes(ax, figsize=(6.4, max(2.6, 0.28 * len(order) + 1.4)))
    y = np.arange(len(order))[::-1]
    ax.hlines(y, dev_after.to_numpy(float), dev_before.to_numpy(float), color="#999999")
    ax.scatter(
        dev_before.to_numpy(float),
        y,
        color=_BEFORE,
        edgecolor="black",
        s=26,
        label="before",
        zorder=3,
    )
    ax.scatter(dev_after.to_numpy(float), y, color=_AFTER, s=26, label="after", zorder=3)
    epsilon = result.params.get("epsilon") if hasattr(result, "params") else None
    if epsilon is not None:
        ax.axvspan(0, float(epsilon), color="#a1d99b", alpha=0.35, label=f"target ±{epsilon:g}")
    ax.set_yticks(y)
    ax.set_yticklabels(plot_texts(order, 30), fontsize=8)
    ax.set_xlabel(f"largest |share − 1/{before.shape[1]}| over groups")
    shown = f"{len(order)} of {len(before)}" if len(order) < len(before) else f"{len(order)}"
    ax.set_title(
        f"Oversampling: {shown} tasks, {len(result)} rows "
        f"({'balanced' if result.balanced else f'{len(result.off_tasks)} off'})",
        fontsize=10,
    )
    ax.legend(fontsize=7)
    return ax


def plot_comparison(table: pd.DataFrame, *, metrics: Any = None, ax: Any = None) -> Any:
    """One panel per metric column: a bar per method, with its ``±`` half-width when given."""
    known = [c for c in table.columns if c != "n_runs" and not str(c).endswith(" ±")]
    if metrics is None:
        chosen = known
    else:
        chosen = [metrics] if isinstance(metrics, str) else list(metrics)
        for name in chosen:
            if name not in known:
                raise ValueError(ERR_COMPARISON_METRIC.format(got=name, known=known))
    if not chosen or not len(table):
        raise ValueError(ERR_EMPTY_PLOT.format(what="plot_comparison"))
    rows = len(table)
    cols = min(len(chosen), 4)
    if ax is None:
        require_matplotlib()
        import matplotlib.pyplot as plt

        n_rows = int(np.ceil(len(chosen) / cols))
        fig, grid = plt.subplots(
            n_rows,
            cols,
            figsize=(3.4 * cols, max(2.4, 0.3 * rows + 1.6) * n_rows),
            layout="constrained",
            squeeze=False,
        )
        axes = list(grid.ravel())
        for extra in axes[len(chosen) :]:
            extra.set_axis_off()
        axes = axes[: len(chosen)]
    else:
        axes = panel_axes(ax, len(chosen))
    y = np.arange(rows)[::-1]
    methods = plot_texts(table.index, 24)
    for i, (panel, name) in enumerate(zip(axes, chosen, strict=True)):
        values = table[name].to_numpy(dtype=float)
        panel.barh(y, values, color="#4393c3", alpha=0.85)
        half = f"{name} ±"
        if half in table.columns:
            err = np.nan_to_num(table[half].to_numpy(dtype=float))
            panel.errorbar(values, y, xerr=err, fmt="none", ecolor="black", capsize=3)
        panel.axvline(0.0, color="black", linewidth=0.8)
        panel.set_yticks(y)
        panel.set_yticklabels(methods if i % cols == 0 else [], fontsize=8)
        panel.set_title(plot_text(name, 26), fontsize=9)
    level = getattr(table, "ci_level", None)
    if any(f"{name} ±" in table.columns for name in chosen) and level:
        axes[0].figure.suptitle(
            f"bars: mean over runs; whiskers: {level:.0%} t interval", fontsize=9
        )
    return axes if len(axes) > 1 else axes[0]
