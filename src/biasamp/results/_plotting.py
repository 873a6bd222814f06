"""Plots of bias-amplification results (matplotlib, imported lazily).

Every function draws on ``ax`` (a new pyplot Axes when ``ax`` is None) and
returns the Axes. Label names are untrusted text: they are shortened and
``$`` is escaped so that matplotlib never parses them as mathtext.

Functions
---------
plot_top_pairs
    The pairs with the largest contributions, their ``delta`` as bars, with
    interval bars when ``by_pair`` has the bootstrap's ``ci_low`` / ``ci_high``
    (the percentile interval of each pair's ``delta``; ``delta_ci_low`` /
    ``delta_ci_high`` are accepted too).
plot_delta_heatmap
    The group x task ``delta`` matrix (diverging colours centred on 0).
plot_bias_comparison
    Training bias against predicted bias per task with the margin band
    (Zhao et al. 2017, figures 2 and 3).
plot_threshold_sweep
    Metric values against the decision threshold.
plot_by_size
    Amplification by combination size (multi-attribute metrics).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

__all__ = [
    "plot_bias_comparison",
    "plot_by_size",
    "plot_delta_heatmap",
    "plot_result",
    "plot_threshold_sweep",
    "plot_top_pairs",
    "require_matplotlib",
]

ERR_MATPLOTLIB = (
    "Plotting needs matplotlib, which is not installed: pip install 'biasamp[plot]' "
    "(or pip install matplotlib)."
)
ERR_PLOT_KIND = "kind: expected one of {choices}, got {got!r}."
ERR_NO_COLUMN = "{what}: the result has no {column!r} column to plot."
ERR_EMPTY_PLOT = "{what}: nothing to plot (no defined pairs)."

_MAX_LABEL = 40


def require_matplotlib() -> Any:
    """Import matplotlib or raise ``ImportError`` with an install hint."""
    try:
        import matplotlib
    except ImportError as exc:
        raise ImportError(ERR_MATPLOTLIB) from exc
    return matplotlib


def _axes(ax: Any) -> Any:
    require_matplotlib()
    if ax is not None:
        return ax
    import matplotlib.pyplot as plt

    _, ax = plt.subplots()
    return ax


def plot_text(value: Any, limit: int = _MAX_LABEL) -> str:
    """A label as plain matplotlib text: shortened, ``$`` escaped (no mathtext)."""
    text = str(value)
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return text.replace("\\", "\\\\").replace("$", r"\$")


def pair_interval_columns(frame: pd.DataFrame, column: str = "delta") -> tuple[str, str] | None:
    """The columns of ``frame`` holding per-pair intervals of ``column``, if any.

    The bootstrap of :func:`biasamp.mals` / :func:`biasamp.directional` names
    them ``ci_low`` / ``ci_high`` (intervals of ``delta``); ``{column}_ci_low`` /
    ``{column}_ci_high`` are accepted as well.
    """
    for low, high in ((f"{column}_ci_low", f"{column}_ci_high"), ("ci_low", "ci_high")):
        if {low, high} <= set(frame.columns):
            if low == "ci_low" and column != "delta":
                continue
            return low, high
    return None


def plot_top_pairs(result: Any, *, k: int = 10, ax: Any = None) -> Any:
    """Horizontal bars of ``delta`` for the ``k`` pairs with the largest contributions.

    Parameters
    ----------
    result : PairwiseResult
    k : int, default 10
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib Axes
    """
    ax = _axes(ax)
    frame = result.by_pair
    column = "delta" if "delta" in frame.columns else "contribution"
    top = result.top(k)
    top = top[np.isfinite(top[column].to_numpy(dtype=float))]
    if not len(top):
        raise ValueError(ERR_EMPTY_PLOT.format(what="plot_top_pairs"))
    values = top[column].to_numpy(dtype=float)
    labels = [
        f"{plot_text(g, 18)} × {plot_text(t, 24)}"
        for g, t in zip(top["group"], top["task"], strict=True)
    ]
    y = np.arange(len(top))[::-1]
    colors = np.where(values > 0, "#b2182b", "#2166ac")
    ax.barh(y, values, color=colors, alpha=0.8)
    bounds = pair_interval_columns(top, column)
    if bounds is not None:
        low = top[bounds[0]].to_numpy(dtype=float)
        high = top[bounds[1]].to_numpy(dtype=float)
        err = np.vstack([np.clip(values - low, 0, None), np.clip(high - values, 0, None)])
        ax.errorbar(
            values, y, xerr=np.nan_to_num(err), fmt="none", ecolor="black", capsize=3, linewidth=1
        )
    ax.axvline(0.0, color="black", linewidth=0.8)
    ax.set_yticks(y)
    ax.set_yticklabels(labels, fontsize=8)
    ax.set_xlabel(plot_text(f"{column} (predicted - true)" if column == "delta" else column))
    ax.set_title(plot_text(f"{result.name}: top {len(top)} pairs", 80), fontsize=10)
    return ax


def plot_delta_heatmap(result: Any, *, max_tasks: int = 40, ax: Any = None) -> Any:
    """The group x task ``delta`` matrix of a pairwise result.

    Only the ``max_tasks`` tasks with the largest absolute contribution are
    shown (all of them when there are fewer). Undefined cells are grey.
    """
    ax = _axes(ax)
    frame = result.by_pair
    if "delta" not in frame.columns:
        raise ValueError(ERR_NO_COLUMN.format(what="plot_delta_heatmap", column="delta"))
    weight = frame.assign(_abs=frame["contribution"].abs()).groupby("task", sort=False)["_abs"]
    tasks = weight.sum().sort_values(ascending=False).index[:max_tasks]
    groups = pd.unique(frame["group"])
    matrix = (
        frame.pivot(index="group", columns="task", values="delta")
        .reindex(index=groups, columns=tasks)
        .to_numpy(dtype=float)
    )
    finite = np.isfinite(matrix)
    limit = float(np.abs(matrix[finite]).max()) if finite.any() else 1.0
    limit = limit if limit > 0 else 1.0
    import matplotlib as mpl

    cmap = mpl.colormaps["RdBu_r"].with_extremes(bad="#dddddd")
    image = ax.imshow(
        np.ma.masked_invalid(matrix),
        cmap=cmap,
        vmin=-limit,
        vmax=limit,
        aspect="auto",
        interpolation="nearest",
    )
    ax.set_yticks(np.arange(len(groups)))
    ax.set_yticklabels([plot_text(g, 20) for g in groups], fontsize=8)
    ax.set_xticks(np.arange(len(tasks)))
    ax.set_xticklabels([plot_text(t, 20) for t in tasks], rotation=90, fontsize=7)
    ax.figure.colorbar(image, ax=ax, label="delta (predicted - true)", shrink=0.8)
    shown = (
        f"{len(tasks)} of {frame['task'].nunique()} tasks"
        if len(tasks) < frame["task"].nunique()
        else f"{len(tasks)} tasks"
    )
    ax.set_title(plot_text(f"{result.name}: delta per group x task ({shown})", 90), fontsize=10)
    return ax


def plot_bias_comparison(
    frame: pd.DataFrame, *, margin: float = 0.05, group: Any = None, ax: Any = None
) -> Any:
    """Training bias against predicted bias, one point per task (MALS figures 2-3).

    Parameters
    ----------
    frame : DataFrame
        Columns ``group``, ``task``, ``b_train`` and ``b_pred`` (the ``by_pair``
        of :func:`biasamp.mals`, or any frame with those columns).
    margin : float, default 0.05
        Half-width of the band around the diagonal.
    group : label, optional
        The group whose bias is plotted; by default the first group when there
        are two groups (their scores mirror each other), else every group.
    ax : matplotlib Axes, optional
    """
    ax = _axes(ax)
    groups = list(pd.unique(frame["group"]))
    if group is None and len(groups) == 2:
        group = groups[0]
    shown = frame if group is None else frame[frame["group"] == group]
    shown = shown[
        np.isfinite(shown["b_train"].to_numpy(dtype=float))
        & np.isfinite(shown["b_pred"].to_numpy(dtype=float))
    ]
    grid = np.linspace(0.0, 1.0, 2)
    ax.fill_between(
        grid, grid - margin, grid + margin, color="#9ecae1", alpha=0.35, label=f"margin ±{margin:g}"
    )
    for offset in (-margin, margin):
        ax.plot(grid, grid + offset, color="#3182bd", linewidth=0.8, linestyle=":")
    ax.plot(grid, grid, color="black", linewidth=0.8, linestyle="--")
    x = shown["b_train"].to_numpy(dtype=float)
    y = shown["b_pred"].to_numpy(dtype=float)
    outside = np.abs(y - x) > margin
    ax.scatter(x[~outside], y[~outside], s=14, color="#1a9850", label="within margin")
    ax.scatter(x[outside], y[outside], s=18, color="#d73027", label="outside margin")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_aspect("equal")
    who = "every group" if group is None else plot_text(group, 20)
    ax.set_xlabel(f"training bias b*(t, {who})")
    ax.set_ylabel(f"predicted bias b~(t, {who})")
    ax.set_title(f"Bias per task ({len(shown)} points, {int(outside.sum())} outside)", fontsize=10)
    ax.legend(loc="upper left", fontsize=7)
    return ax


def plot_threshold_sweep(frame: pd.DataFrame, *, x: str = "threshold", ax: Any = None) -> Any:
    """Every numeric column of ``frame`` against its ``x`` column."""
    ax = _axes(ax)
    if x not in frame.columns:
        raise ValueError(ERR_NO_COLUMN.format(what="plot_threshold_sweep", column=x))
    for column in frame.columns:
        if column == x or not pd.api.types.is_numeric_dtype(frame[column]):
            continue
        ax.plot(frame[x], frame[column], marker="o", markersize=3, label=plot_text(column))
    ax.axhline(0.0, color="black", linewidth=0.8)
    ax.set_xlabel(plot_text(x))
    ax.set_ylabel("value")
    ax.set_title("Bias amplification against the decision threshold", fontsize=10)
    ax.legend(fontsize=7)
    return ax


def plot_by_size(frame: pd.DataFrame, *, ax: Any = None) -> Any:
    """Amplification by combination size: ``value`` (and ``metric``) per ``size``."""
    ax = _axes(ax)
    for key in ("size", "value"):
        if key not in frame.columns:
            raise ValueError(ERR_NO_COLUMN.format(what="plot_by_size", column=key))
    series = frame.groupby("metric") if "metric" in frame.columns else [("value", frame)]
    for name, part in series:
        ax.plot(part["size"], part["value"], marker="o", label=plot_text(name))
    ax.axhline(0.0, color="black", linewidth=0.8)
    ax.set_xlabel("number of attributes combined")
    ax.set_ylabel("amplification")
    ax.set_title("Amplification by combination size", fontsize=10)
    ax.legend(fontsize=7)
    return ax


_KINDS = {"pairs": plot_top_pairs, "heatmap": plot_delta_heatmap}


def plot_result(result: Any, *, kind: str = "pairs", ax: Any = None, **kwargs: Any) -> Any:
    """Dispatch for :meth:`PairwiseResult.plot`: ``kind`` is pairs, heatmap or bias."""
    if kind == "bias":
        if not {"b_train", "b_pred"} <= set(result.by_pair.columns):
            raise ValueError(ERR_NO_COLUMN.format(what="kind='bias'", column="b_train"))
        margin = kwargs.pop("margin", result.params.get("margin", 0.05))
        return plot_bias_comparison(result.by_pair, margin=margin, ax=ax, **kwargs)
    if kind not in _KINDS:
        raise ValueError(ERR_PLOT_KIND.format(choices=", ".join([*_KINDS, "bias"]), got=kind))
    return _KINDS[kind](result, ax=ax, **kwargs)
