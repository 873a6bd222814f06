"""Figures of the generated-output results: amplification per concept, bias transfer,
share trajectories (with a feedback bound beside them)."""

from __future__ import annotations

from typing import Any

import numpy as np

from biasamp.results._plotting import new_axes, plot_texts

__all__ = ["plot_bias_transfer", "plot_output_amplification", "plot_share_trajectory"]

ERR_BOUND = "bound: expected {n} values (one per step) or more, got {got}."


def _label_farthest(
    ax: Any, x: np.ndarray, y: np.ndarray, names: list[Any], distance: np.ndarray, label: int
) -> None:
    if label <= 0 or not len(names):
        return
    order = np.argsort(-np.abs(distance), kind="stable")[:label]
    texts = plot_texts([names[i] for i in order])
    for i, text in zip(order, texts, strict=True):
        ax.annotate(text, (x[i], y[i]), fontsize=7, xytext=(3, 3), textcoords="offset points")


def plot_output_amplification(result: Any, *, ax: Any = None, label: int = 10) -> Any:
    """Reference share (x) against output share (y) of each concept's majority group."""
    ax = new_axes(ax, figsize=(5.2, 4.6))
    frame = result.by_concept
    x = frame["reference_share"].to_numpy(dtype=np.float64)
    y = frame["output_share"].to_numpy(dtype=np.float64)
    delta = frame["delta"].to_numpy(dtype=np.float64)
    colours = np.where(delta > 0, "#b2182b", "#2166ac")
    ax.plot([0, 1], [0, 1], color="grey", linewidth=0.8, linestyle="--")
    ax.scatter(x, y, c=colours, s=18, zorder=3)
    _label_farthest(ax, x, y, list(frame.index), delta, label)
    ax.set_xlim(0, 1.02)
    ax.set_ylim(0, 1.02)
    ax.set_xlabel("reference share of the majority group")
    ax.set_ylabel("output share of that group")
    ax.set_title(f"{result.name} = {result.value:+.4f}")
    return ax


def plot_bias_transfer(result: Any, *, ax: Any = None, label: int = 10) -> Any:
    """Reference bias (x) against output bias (y), the fitted line and the diagonal."""
    ax = new_axes(ax, figsize=(5.2, 4.6))
    frame = result.by_concept
    x = frame["reference_bias"].to_numpy(dtype=np.float64)
    y = frame["output_bias"].to_numpy(dtype=np.float64)
    ax.plot([-1, 1], [-1, 1], color="grey", linewidth=0.8, linestyle="--", label="y = x")
    ax.scatter(x, y, s=16, color="#4c72b0", zorder=3)
    line = np.array([-1.0, 1.0])
    ax.plot(
        line,
        result.intercept + result.slope * line,
        color="#b2182b",
        label=f"fit: slope {result.slope:.2f}, R² {result.r2:.2f}",
    )
    _label_farthest(
        ax, x, y, list(frame.index), frame["residual"].to_numpy(dtype=np.float64), label
    )
    ax.set_xlim(-1.05, 1.05)
    ax.set_ylim(-1.05, 1.05)
    ax.set_xlabel(f"reference bias toward {plot_texts([result.group])[0]}")
    ax.set_ylabel(f"output bias toward {plot_texts([result.group])[0]}")
    ax.legend(fontsize=8, loc="upper left")
    ax.set_title(result.name)
    return ax


def plot_share_trajectory(
    result: Any, *, ax: Any = None, bound: Any = None, bound_center: float | None = None
) -> Any:
    """Each group's share per step with its band; optionally a bound band beside the
    majority group's trajectory."""
    ax = new_axes(ax, figsize=(6.4, 4.0))
    shares = result.shares
    x = np.asarray(result.step_values, dtype=np.float64)
    names = plot_texts(list(shares.columns))
    for column, name in zip(shares.columns, names, strict=True):
        (line,) = ax.plot(x, shares[column].to_numpy(dtype=np.float64), marker="o", label=name)
        if result.shares_low is not None and result.shares_high is not None:
            ax.fill_between(
                x,
                result.shares_low[column].to_numpy(dtype=np.float64),
                result.shares_high[column].to_numpy(dtype=np.float64),
                color=line.get_color(),
                alpha=0.2,
                linewidth=0,
            )
    if bound is not None:
        values = np.asarray(bound, dtype=np.float64).ravel()
        if values.shape[0] < len(x):
            raise ValueError(ERR_BOUND.format(n=len(x), got=values.shape[0]))
        values = values[: len(x)]
        centre = (
            float(shares[result.majority_group].iloc[0])
            if bound_center is None
            else float(bound_center)
        )
        ax.fill_between(
            x,
            np.clip(centre - values, 0, 1),
            np.clip(centre + values, 0, 1),
            color="grey",
            alpha=0.15,
            label="feedback bound",
        )
    if not result.params.get("numeric_steps", True):
        ax.set_xticks(x, plot_texts([str(s) for s in shares.index]))
    ax.set_ylim(0, 1)
    ax.set_xlabel("step")
    ax.set_ylabel("share of outputs")
    ax.legend(fontsize=8)
    ax.set_title(f"{result.name}: slope {result.value:+.4f} per step")
    return ax
