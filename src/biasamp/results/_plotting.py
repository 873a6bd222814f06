"""Plots of bias-amplification results (matplotlib, imported lazily).

Every function draws on ``ax`` (a new pyplot figure when ``ax`` is None) and
returns the Axes (several Axes for multi-panel figures). New figures use
matplotlib's constrained layout and a size that grows with the number of rows
shown, so every label stays on the canvas with default ``savefig`` arguments;
on an ``ax`` of yours the layout is yours. Label names are untrusted text: their
invisible and control characters are shown escaped (``\\u202e``, see
``_display.py``), they are shortened (:data:`MAX_LABEL` characters; labels shown
together stay distinct once shortened) and ``$`` is escaped so that matplotlib never
parses them as mathtext.

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
plot_predictability
    DPA / leakage: the data-side and model-side attacker quality per iteration,
    their means and t intervals.
plot_runs
    The spread of one metric across runs, with both confidence intervals.
plot_thresholds
    Calibrated thresholds per label.

The mitigation figures (RBA, oversampling, comparison tables) are in
``_plotting_mitigation.py``.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pandas as pd

from biasamp.results._display import display_text, distinct_short_texts

__all__ = [
    "MAX_LABEL",
    "new_axes",
    "panel_axes",
    "label_largest_points",
    "plot_bias_comparison",
    "plot_by_size",
    "plot_delta_heatmap",
    "plot_multi_attribute",
    "plot_predictability",
    "plot_result",
    "plot_runs",
    "plot_text",
    "plot_texts",
    "plot_threshold_sweep",
    "plot_thresholds",
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

MAX_LABEL = 40
_MAX_LABEL = MAX_LABEL
ERR_PANELS = "ax: expected one Axes or a sequence of {n} Axes, got {got}."


def require_matplotlib() -> Any:
    """Import matplotlib or raise ``ImportError`` with an install hint."""
    try:
        import matplotlib
    except ImportError as exc:
        raise ImportError(ERR_MATPLOTLIB) from exc
    return matplotlib


def new_axes(ax: Any, *, figsize: tuple[float, float] | None = None) -> Any:
    """``ax``, or the Axes of a new constrained-layout figure."""
    require_matplotlib()
    if ax is not None:
        return ax
    import matplotlib.pyplot as plt

    _, ax = plt.subplots(figsize=figsize, layout="constrained")
    return ax


_axes = new_axes


def panel_axes(ax: Any, n: int, *, figsize: tuple[float, float] | None = None) -> list[Any]:
    """``n`` Axes side by side: a new figure's, the ``n`` Axes given, or ``n`` panels
    inset in one given Axes (whose own frame is hidden)."""
    require_matplotlib()
    if ax is None:
        import matplotlib.pyplot as plt

        size = figsize or (max(4.0, 3.2 * n), 3.6)
        _, grid = plt.subplots(1, n, figsize=size, layout="constrained", squeeze=False)
        return list(grid[0])
    if isinstance(ax, (list, tuple, np.ndarray)):
        given = list(np.ravel(np.asarray(ax, dtype=object)))
        if len(given) != n:
            raise ValueError(ERR_PANELS.format(n=n, got=f"{len(given)} Axes"))
        return given
    if n == 1:
        return [ax]
    ax.set_axis_off()
    width = 1.0 / n
    return [ax.inset_axes((i * width + 0.08 * width, 0.12, 0.84 * width, 0.76)) for i in range(n)]


def _delta_label(result: Any, column: str = "delta") -> str:
    """What ``delta`` is for this metric (MALS: a bias-score difference)."""
    if column != "delta":
        return column
    metric = getattr(result, "family", None)
    if metric in ("mals", "distribution_mals", "multi_mals"):
        return "bias-score difference (predicted − training)"
    if metric in ("directional", "multi_directional"):
        return "Δ (predicted − true conditional probability)"
    return "delta (predicted − true)"


def _row_labels(frame: pd.DataFrame) -> list[str]:
    """``group × task`` (or ``group × {combination}``) per row, shortened."""
    if "task" in frame.columns:
        names = [str(t) for t in frame["task"]]
    else:
        names = [" + ".join(str(t) for t in c) for c in frame["combination"]]
    return [
        f"{g} × {t}"
        for g, t in zip(plot_texts(frame["group"], 18), plot_texts(names, 24), strict=True)
    ]


def _bar_height(rows: int) -> float:
    return max(2.6, 0.3 * rows + 1.4)


def t_interval(values: np.ndarray, level: float = 0.95) -> tuple[float, float, float]:
    """Mean and Student-t interval of the mean of ``values`` (NaN bounds with one value)."""
    values = np.asarray(values, dtype=np.float64)
    mean = float(values.mean())
    if len(values) < 2:
        return mean, float("nan"), float("nan")
    from scipy import stats

    half = float(stats.t.ppf((1 + level) / 2, len(values) - 1) * values.std(ddof=1))
    half /= np.sqrt(len(values))
    return mean, mean - half, mean + half


def _no_mathtext(text: str) -> str:
    """Every ``$`` escaped: matplotlib then finds no mathtext and draws ``\\$`` as ``$``
    (a backslash elsewhere is drawn as it is)."""
    return text.replace("$", r"\$")


def plot_text(value: Any, limit: int = _MAX_LABEL) -> str:
    """A label as plain matplotlib text: invisible characters escaped, shortened, ``$``
    escaped (no mathtext)."""
    text = display_text(value)
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return _no_mathtext(text)


def plot_texts(values: Any, limit: int = _MAX_LABEL) -> list[str]:
    """Labels shown together (ticks, legend entries) as plain matplotlib text: like
    :func:`plot_text`, but different labels stay different once shortened."""
    return [_no_mathtext(t) for t in distinct_short_texts(values, limit)]


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


#: Bar colours by the sign of the row's contribution to the value.
RAISES_COLOR, LOWERS_COLOR, NEUTRAL_COLOR = "#b2182b", "#2166ac", "#999999"


def contribution_colors(contribution: np.ndarray) -> np.ndarray:
    """Red where a contribution raises the value, blue where it lowers it, grey at 0 or
    undefined."""
    contribution = np.asarray(contribution, dtype=np.float64)
    return np.where(
        contribution > 0, RAISES_COLOR, np.where(contribution < 0, LOWERS_COLOR, NEUTRAL_COLOR)
    )


def plot_top_pairs(result: Any, *, k: int = 10, ax: Any = None) -> Any:
    """Horizontal bars of ``delta`` for the ``k`` pairs with the largest contributions.

    A bar's length is the pair's ``delta`` (its ``contribution`` when the result has no
    ``delta``); its colour is the sign of its **contribution** to the value: red raises
    the value, blue lowers it, grey adds nothing (a pair whose delta is positive lowers
    a directional value when its training sign ``y`` is -1). In SVG each bar is the
    element ``top-pair-{i}`` (``i``: its row in ``result.top(k)``). The bootstrap
    intervals of ``delta`` are error bars; a pair flagged ``fragile`` (fewer than
    ``min_cell`` rows) is hatched.

    Parameters
    ----------
    result : PairwiseResult
    k : int, default 10
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib Axes
    """
    frame = result.by_pair
    column = "delta" if "delta" in frame.columns else "contribution"
    top = result.top(k)
    top = top[np.isfinite(top[column].to_numpy(dtype=float))]
    if not len(top):
        raise ValueError(ERR_EMPTY_PLOT.format(what="plot_top_pairs"))
    ax = new_axes(ax, figsize=(6.4, _bar_height(len(top))))
    values = top[column].to_numpy(dtype=float)
    labels = _row_labels(top)
    fragile = (
        top["fragile"].to_numpy(dtype=bool)
        if "fragile" in top.columns
        else np.zeros(len(top), dtype=bool)
    )
    y = np.arange(len(top))[::-1]
    signs = top["contribution"].to_numpy(dtype=float) if "contribution" in top else values
    bars = ax.barh(y, values, color=contribution_colors(signs), alpha=0.8)
    for i, bar in enumerate(bars):
        bar.set_gid(f"top-pair-{i}")
        if fragile[i]:  # rests on fewer than min_cell rows: hatched
            bar.set_hatch("///")
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
    ax.set_xlabel(plot_text(_delta_label(result, column), 60))
    what = "combinations" if "combination" in top.columns else "pairs"
    ax.set_title(plot_text(f"{result.name}: top {len(top)} {what}", 60), fontsize=10)
    from matplotlib.patches import Patch

    shown = {c for c in contribution_colors(signs)}
    legend = [
        Patch(color=color, alpha=0.8, label=label)
        for color, label in (
            (RAISES_COLOR, "contribution > 0 (raises the value)"),
            (LOWERS_COLOR, "contribution < 0 (lowers the value)"),
            (NEUTRAL_COLOR, "contribution 0"),
        )
        if color in shown
    ]
    ax.legend(handles=legend, fontsize=7, loc="best")
    return ax


def plot_delta_heatmap(result: Any, *, max_tasks: int = 40, ax: Any = None) -> Any:
    """The group x task ``delta`` matrix of a pairwise result.

    Only the ``max_tasks`` tasks with the largest absolute contribution are
    shown (all of them when there are fewer). Undefined cells are grey.
    """
    frame = result.by_pair
    if "delta" not in frame.columns:
        raise ValueError(ERR_NO_COLUMN.format(what="plot_delta_heatmap", column="delta"))
    ax = new_axes(ax, figsize=(max(6.4, 0.22 * min(max_tasks, frame["task"].nunique()) + 3), 4.8))
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
    ax.set_yticklabels(plot_texts(groups, 20), fontsize=8)
    ax.set_xticks(np.arange(len(tasks)))
    ax.set_xticklabels(plot_texts(tasks, 20), rotation=90, fontsize=7)
    ax.figure.colorbar(image, ax=ax, label=_delta_label(result), shrink=0.8)
    shown = (
        f"{len(tasks)} of {frame['task'].nunique()} tasks"
        if len(tasks) < frame["task"].nunique()
        else f"{len(tasks)} tasks"
    )
    ax.set_title(plot_text(f"{result.name}: per group × task ({shown})", 70), fontsize=10)
    return ax


def plot_bias_comparison(
    frame: pd.DataFrame,
    *,
    margin: float = 0.05,
    group: Any = None,
    n_labels: int = 5,
    ax: Any = None,
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
    n_labels : int, default 5
        Up to this many of the points farthest from the diagonal (largest
        ``|b_pred - b_train|``) carry their task's name (``group: task`` when every
        group is shown); a label that would overlap another (or the legend) is left
        out, so labels never overlap.
    ax : matplotlib Axes, optional
    """
    ax = new_axes(ax, figsize=(5.2, 5.2))
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
    label_largest_points(ax, shown, x, y - x, n=n_labels, with_group=group is None)
    return ax


#: Where a point's label may go, in points from the point: (dx, dy, alignment).
_LABEL_PLACES = ((4, 3, "left"), (-4, 3, "right"), (4, -10, "left"), (-4, -10, "right"))


def label_largest_points(
    ax: Any,
    frame: pd.DataFrame,
    x: np.ndarray,
    distance: np.ndarray,
    *,
    n: int,
    with_group: bool,
    y: np.ndarray | None = None,
) -> list[Any]:
    """Name up to ``n`` of the points ``(x, y)`` (``y`` defaults to ``x + distance``) with
    the largest ``|distance|`` (``frame``'s ``task``, or ``group: task`` with
    ``with_group``); return the annotations.

    Labels never overlap: the points are taken farthest first, and a label whose box
    would overlap one already placed (or leave the axes) is dropped, so the figure
    names at most ``n`` points and a table can list the rest. Each annotation's
    ``row`` attribute is the position of its point in ``frame``.
    """
    if n <= 0 or not len(frame):
        return []
    order = np.argsort(-np.abs(distance), kind="stable")
    candidates = order[: max(4 * n, n)]
    tasks = plot_texts(frame["task"].to_numpy()[candidates], 24)
    if with_group:
        groups = plot_texts(frame["group"].to_numpy()[candidates], 12)
        tasks = [f"{g}: {t}" for g, t in zip(groups, tasks, strict=True)]
    heights = np.asarray(x) + np.asarray(distance) if y is None else np.asarray(y)
    with warnings.catch_warnings():
        # a label with a rare character has no glyph: measured as a box, not an error
        warnings.filterwarnings("ignore", message=r"Glyph \d+ .*missing from", category=UserWarning)
        return _place_labels(ax, x, heights, candidates, tasks, n)


def label_farthest(
    ax: Any,
    x: np.ndarray,
    y: np.ndarray,
    texts: list[str],
    *,
    distance: np.ndarray,
    n: int,
    colors: list[Any] | None = None,
) -> list[Any]:
    """Name up to ``n`` of the points ``(x, y)`` with the largest ``|distance|`` by
    their ``texts`` (already plain matplotlib text), without overlap (as
    :func:`label_largest_points`); return the annotations (``row``: the point's index)."""
    if n <= 0 or not len(texts):
        return []
    finite = np.isfinite(np.asarray(x, dtype=float)) & np.isfinite(np.asarray(y, dtype=float))
    magnitude = np.where(finite, np.abs(np.asarray(distance, dtype=float)), -np.inf)
    order = np.argsort(-magnitude, kind="stable")[: max(4 * n, n)]
    order = order[finite[order]]
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r"Glyph \d+ .*missing from", category=UserWarning)
        return _place_labels(
            ax,
            np.asarray(x, dtype=float),
            np.asarray(y, dtype=float),
            order,
            [texts[i] for i in order],
            n,
            None if colors is None else [colors[i] for i in order],
        )


def _place_labels(
    ax: Any,
    x: np.ndarray,
    heights: np.ndarray,
    candidates: np.ndarray,
    tasks: list[str],
    n: int,
    colors: list[Any] | None = None,
) -> list[Any]:
    """Annotate ``candidates`` in order, each at the first place where its label fits in
    the axes without overlapping a label already placed or the legend; stop at ``n``."""
    figure = ax.figure
    figure.draw_without_rendering()  # final axes positions (constrained layout)
    get_renderer = getattr(figure.canvas, "get_renderer", None)
    # a Figure with no backend's canvas (the report's) measures text with the renderer
    # matplotlib's own draw_without_rendering uses
    renderer = get_renderer() if get_renderer is not None else figure._get_renderer()
    axes_box = ax.get_window_extent(renderer)
    placed: list[Any] = []
    legend = ax.get_legend()
    boxes: list[Any] = [] if legend is None else [legend.get_window_extent(renderer)]
    for j, (i, text) in enumerate(zip(candidates, tasks, strict=True)):
        if len(placed) == n:
            break
        color = "#333333" if colors is None else colors[j]
        for dx, dy, align in _LABEL_PLACES:  # right-above first, then the other corners
            annotation = ax.annotate(
                text,
                (float(x[i]), float(heights[i])),
                xytext=(dx, dy),
                textcoords="offset points",
                fontsize=7,
                color=color,
                ha=align,
            )
            box = annotation.get_window_extent(renderer)
            inside = (
                box.x0 >= axes_box.x0 - 1
                and box.x1 <= axes_box.x1 + 1
                and box.y0 >= axes_box.y0 - 1
                and box.y1 <= axes_box.y1 + 1
            )
            if inside and not any(box.overlaps(other) for other in boxes):
                annotation.row = int(i)
                placed.append(annotation)
                boxes.append(box)
                break
            annotation.remove()
    return placed


def plot_threshold_sweep(frame: pd.DataFrame, *, x: str = "threshold", ax: Any = None) -> Any:
    """Every numeric column of ``frame`` against its ``x`` column."""
    ax = _axes(ax)
    if x not in frame.columns:
        raise ValueError(ERR_NO_COLUMN.format(what="plot_threshold_sweep", column=x))
    columns = [c for c in frame.columns if c != x and pd.api.types.is_numeric_dtype(frame[c])]
    for column, label in zip(columns, plot_texts(columns), strict=True):
        ax.plot(frame[x], frame[column], marker="o", markersize=3, label=label)
    ax.axhline(0.0, color="black", linewidth=0.8)
    ax.set_xlabel(plot_text(x))
    ax.set_ylabel("value")
    ax.set_title("Bias amplification against the decision threshold", fontsize=10)
    ax.legend(fontsize=7)
    return ax


def plot_by_size(frame: pd.DataFrame, *, ax: Any = None, result: Any = None) -> Any:
    """Amplification by combination size: ``value`` (one line per ``metric``) per ``size``.

    With ``ci_low`` / ``ci_high`` columns, interval bars; with ``result``, its
    overall value as a dashed line and, at "all", a point with its interval as an error bar.
    """
    for key in ("size", "value"):
        if key not in frame.columns:
            raise ValueError(ERR_NO_COLUMN.format(what="plot_by_size", column=key))
    ax = new_axes(ax, figsize=(6.0, 3.8))
    series: list[tuple[Any, pd.DataFrame]] = (
        list(frame.groupby("metric", sort=False))
        if "metric" in frame.columns
        else [("by size", frame)]
    )
    for (_, part), label in zip(series, plot_texts([n for n, _ in series]), strict=True):
        x = part["size"].to_numpy(dtype=float)
        y = part["value"].to_numpy(dtype=float)
        line = ax.plot(x, y, marker="o", label=label)[0]
        if {"ci_low", "ci_high"} <= set(part.columns):
            err = np.vstack(
                [y - part["ci_low"].to_numpy(float), part["ci_high"].to_numpy(float) - y]
            )
            ax.errorbar(
                x,
                y,
                yerr=np.nan_to_num(np.clip(err, 0, None)),
                fmt="none",
                ecolor=line.get_color(),
                capsize=3,
            )
    sizes = np.unique(frame["size"].to_numpy())
    ticks, labels = list(sizes), [str(v) for v in sizes]
    if result is not None:
        ax.axhline(float(result.value), color="grey", linestyle="--", linewidth=1)
        x_all = float(sizes.max()) + 1.0 if len(sizes) else 1.0
        overall: np.ndarray | None = None
        if result.ci is not None and np.all(np.isfinite(result.ci)):
            overall = np.clip(
                [[result.value - result.ci[0]], [result.ci[1] - result.value]], 0, None
            )
        ax.errorbar(
            [x_all],
            [float(result.value)],
            yerr=overall,
            fmt="s",
            color="grey",
            capsize=4,
            label=f"all sizes {float(result.value):+.4f}"
            + ("" if overall is None else f" ({result.ci_level:.0%} interval)"),
        )
        ticks.append(x_all)
        labels.append("all")
    ax.axhline(0.0, color="black", linewidth=0.8)
    ax.set_xticks(ticks, labels)
    ax.set_xlabel("number of attributes combined |m|")
    ax.set_ylabel("amplification")
    title = "Amplification by combination size"
    if result is not None:
        title = f"{result.name}: by combination size"
    ax.set_title(plot_text(title, 60), fontsize=10)
    ax.legend(fontsize=7)
    return ax


def plot_multi_attribute(result: Any, *, kind: str = "size", ax: Any = None, **kwargs: Any) -> Any:
    """Dispatch for :meth:`MultiAttributeResult.plot`: ``"size"`` or ``"combinations"``."""
    if kind == "size":
        return plot_by_size(result.by_size, ax=ax, result=result)
    if kind == "combinations":
        return plot_top_pairs(result, ax=ax, **kwargs)
    raise ValueError(ERR_PLOT_KIND.format(choices="size, combinations", got=kind))


def plot_predictability(result: Any, *, ax: Any = None) -> Any:
    """DPA / leakage: data-side and model-side quality per iteration, means and t intervals.

    Each iteration is a pair of points joined by a segment (its amplification
    is the gap, normalised for DPA); the dashed lines are the means over
    iterations, with their Student-t intervals as error bars right of the iterations.
    """
    ax = new_axes(ax, figsize=(6.4, 3.8))
    d_name, m_name = ("Ψ_D", "Ψ_M") if getattr(result, "family", None) == "dpa" else ("λ_D", "λ_M")
    d = np.asarray(result.data_quality, dtype=float)
    m = np.asarray(result.model_quality, dtype=float)
    it = np.arange(1, len(d) + 1)
    ax.vlines(it, np.minimum(d, m), np.maximum(d, m), color="#999999", linewidth=1)
    x_mean = len(it) + 1.0  # the means and their t intervals, as error bars right of the runs
    for offset, (values, name, color) in enumerate(
        ((d, d_name, "#2166ac"), (m, m_name, "#b2182b"))
    ):
        mean, low, high = t_interval(values, float(result.ci_level or 0.95))
        ax.scatter(it, values, color=color, s=22, zorder=3, label=f"{name} per iteration")
        ax.axhline(mean, color=color, linestyle="--", linewidth=1, label=f"{name} mean {mean:.3f}")
        err = [[mean - low], [high - mean]] if np.isfinite(low) else None
        ax.errorbar([x_mean + 0.25 * offset], [mean], yerr=err, fmt="o", color=color, capsize=4)
    ticks = list(it if len(it) <= 20 else np.linspace(1, len(it), 10).round())
    ax.set_xticks([*ticks, x_mean + 0.125], [*(f"{t:g}" for t in ticks), "mean"])
    ax.set_xlabel("iteration (attacker split)")
    ax.set_ylabel(f"attacker quality ({plot_text(result.quality, 20)})")
    head = f"{result.name} = {result.value:+.4f}"
    if result.ci is not None:
        head += f" [{result.ci[0]:+.4f}, {result.ci[1]:+.4f}]"
    ax.set_title(plot_text(head, 70), fontsize=10)
    ax.legend(fontsize=7, ncols=2)
    return ax


def plot_runs(
    summary: Any, *, kind: str = "runs", k: int = 10, quantity: str = "delta", ax: Any = None
) -> Any:
    """Across runs: each run's value, the mean, and both confidence intervals.

    ``kind="pairs"`` draws the ``k`` pairs with the largest absolute mean
    ``quantity`` with their t intervals across runs (needs ``by_pair``).
    """
    if kind == "pairs":
        frame = summary.by_pair
        if frame is None or not len(frame):
            raise ValueError(ERR_NO_COLUMN.format(what="kind='pairs'", column="by_pair"))
        part = frame[frame["quantity"] == quantity] if "quantity" in frame.columns else frame
        part = part[np.isfinite(part["mean"].to_numpy(dtype=float))]
        if not len(part):
            raise ValueError(ERR_EMPTY_PLOT.format(what="plot_runs"))
        order = part["mean"].abs().sort_values(ascending=False, kind="stable").index[:k]
        top = part.loc[order]
        ax = new_axes(ax, figsize=(6.4, _bar_height(len(top))))
        y = np.arange(len(top))[::-1]
        mean = top["mean"].to_numpy(dtype=float)
        err = np.vstack([mean - top["t_low"].to_numpy(float), top["t_high"].to_numpy(float) - mean])
        ax.barh(y, mean, color=np.where(mean > 0, "#b2182b", "#2166ac"), alpha=0.8)
        ax.errorbar(
            mean,
            y,
            xerr=np.nan_to_num(np.clip(err, 0, None)),
            fmt="none",
            ecolor="black",
            capsize=3,
        )
        ax.axvline(0.0, color="black", linewidth=0.8)
        ax.set_yticks(y)
        ax.set_yticklabels(_row_labels(top), fontsize=8)
        ax.set_xlabel(plot_text(f"mean {quantity} over {summary.n_runs} runs (t interval)", 60))
        ax.set_title(plot_text(f"{_runs_name(summary)}: top {len(top)} pairs", 60), fontsize=10)
        return ax
    if kind != "runs":
        raise ValueError(ERR_PLOT_KIND.format(choices="runs, pairs", got=kind))
    ax = new_axes(ax, figsize=(6.4, 3.6))
    values = np.asarray(summary.values, dtype=float)
    runs = np.arange(1, len(values) + 1)
    ax.scatter(runs, values, color="#333333", s=24, zorder=3, label="run")
    ax.axhline(summary.mean, color="#b2182b", linewidth=1.2, label=f"mean {summary.mean:+.4f}")
    level = f"{summary.ci_level:.0%}"
    ax.axhspan(
        *summary.ci_papers, color="#fdae61", alpha=0.25, label=f"{level} CI, 1.96 σ/√n (papers)"
    )
    if np.all(np.isfinite(summary.ci_t)):
        ax.axhline(summary.ci_t[0], color="#2166ac", linestyle=":", linewidth=1)
        ax.axhline(
            summary.ci_t[1],
            color="#2166ac",
            linestyle=":",
            linewidth=1,
            label=f"{level} CI, Student t",
        )
    ax.set_xticks(runs if len(runs) <= 20 else np.linspace(1, len(runs), 10).round())
    ax.set_xlabel("run")
    ax.set_ylabel(plot_text(_runs_name(summary), 40))
    ax.set_title(plot_text(f"{_runs_name(summary)} across {summary.n_runs} runs", 60), fontsize=10)
    ax.legend(fontsize=7)
    return ax


def _runs_name(summary: Any) -> str:
    name = summary.metric or "value"
    return f"{name} {summary.direction}" if summary.direction else str(name)


def plot_thresholds(calibration: Any, *, max_labels: int = 40, ax: Any = None) -> Any:
    """Calibrated thresholds per label (the first ``max_labels``), positive when score > threshold."""
    frame = calibration.to_frame().head(max_labels)
    ax = new_axes(ax, figsize=(6.0, _bar_height(len(frame))))
    y = np.arange(len(frame))[::-1]
    off = (frame["target_count"] != frame["predicted_count"]).to_numpy()
    ax.barh(y, frame["threshold"].to_numpy(dtype=float), color=np.where(off, "#fdae61", "#4393c3"))
    ax.set_yticks(y)
    ax.set_yticklabels(plot_texts(frame.index, 30), fontsize=8)
    ax.set_xlabel("threshold (positive when score > threshold)")
    shown = (
        f"{len(frame)} of {len(calibration.thresholds)}"
        if len(frame) < len(calibration.thresholds)
        else f"{len(frame)}"
    )
    ax.set_title(
        f"Calibrated thresholds, {shown} labels, n={calibration.n}\n(orange: off target by ties)",
        fontsize=9,
    )
    return ax


_KINDS: dict[str, Any] = {"pairs": plot_top_pairs, "heatmap": plot_delta_heatmap}


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
