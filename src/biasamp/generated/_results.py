"""The result types of the generated-output metrics (saved, loaded, compared, plotted).

Each registers with :func:`biasamp.results._persist.register_result`, so ``save`` /
:func:`biasamp.load_result` and :func:`biasamp.compare` take it; its ``plot`` draws
with :mod:`biasamp.results._plotting_generated`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from biasamp.results._base import MetricNames, _json_safe, frame_records
from biasamp.results._persist import SavableResult, register_result

__all__ = ["BiasTransferResult", "OutputAmplificationResult", "ShareTrajectoryResult"]


def _interval_text(result: Any) -> str:
    if result.ci is None:
        return ""
    return f"  [{result.ci[0]:+.4f}, {result.ci[1]:+.4f}] ({result.ci_level:.0%} CI)"


def _excluded_text(excluded: pd.Series) -> str:
    if not len(excluded):
        return ""
    shown = ", ".join(f"{c!s} ({r})" for c, r in list(excluded.items())[:5])
    more = "" if len(excluded) <= 5 else f", and {len(excluded) - 5} more"
    return f"\n  left out: {shown}{more}"


@register_result(
    "output_amplification",
    shapes=lambda r: {"n": int(r.n), "concepts": int(r.n_concepts), "groups": len(r.groups)},
)
@dataclass(repr=False, eq=False)
class OutputAmplificationResult(MetricNames, SavableResult):
    """The result of :func:`biasamp.output_amplification`.

    Attributes
    ----------
    metric : str
        ``"output_amplification"``.
    value : float
        The mean over the concepts kept of ``delta = o_c(g*) - r_c(g*)``: the
        outputs' share of the reference's majority group minus its reference share.
    by_concept : pandas.DataFrame
        One row per concept kept (index: the concepts): ``majority_group``,
        ``reference_share``, ``output_share``, ``delta``, ``n_reference`` (the
        reference row's total: rows or counts, 1 for a row of shares),
        ``n_outputs``; with ``n_boot``, ``delta_ci_low`` and ``delta_ci_high``.
    excluded : pandas.Series
        The concepts left out (index) and why: ``"no strict majority"`` (two groups
        tie for the largest reference share), ``"empty reference"``, ``"no outputs"``.
    groups : list
        The groups, in the order of the tables.
    n : int
        Number of outputs measured (in the concepts kept).
    n_concepts : int
        Number of concepts kept.
    corrected : bool
        Whether the output shares were corrected with ``attribute_confusion``.
    ci, ci_level, se, replicates
        Percentile bootstrap interval of ``value``, its level, standard error and
        the replicate values (``n_boot``); ``None`` otherwise.
    params : dict
        Settings used.
    """

    metric: str
    value: float
    by_concept: pd.DataFrame
    excluded: pd.Series
    groups: list[Any]
    n: int
    n_concepts: int
    corrected: bool = False
    ci: tuple[float, float] | None = None
    ci_level: float | None = None
    se: float | None = None
    replicates: np.ndarray | None = None
    params: dict[str, Any] = field(default_factory=dict)

    def __float__(self) -> float:
        return float(self.value)

    @property
    def name(self) -> str:
        """Display name."""
        return "Output amplification" + (" (corrected)" if self.corrected else "")

    def summary(self) -> str:
        """A short human-readable summary."""
        return (
            f"{self.name} = {self.value:+.4f}{_interval_text(self)} "
            f"(mean over {self.n_concepts} concepts, {self.n} outputs)"
            + _excluded_text(self.excluded)
        )

    def __repr__(self) -> str:
        return self.summary()

    def statistics(self) -> list[tuple[str, Any]]:
        """The numbers behind the value, for the report."""
        return [
            ("concepts kept", self.n_concepts),
            ("concepts left out", len(self.excluded)),
            ("outputs", self.n),
            ("corrected for the group classifier", str(bool(self.corrected))),
            ("concepts with delta > 0", int((self.by_concept["delta"] > 0).sum())),
        ]

    def table(self) -> pd.DataFrame:
        """The per-concept table (``by_concept``)."""
        return self.by_concept

    def plot(self, *, ax: Any = None, label: int = 10) -> Any:
        """Each concept's reference share of its majority group (x) against its output
        share (y), with the diagonal: points above it push the concept further toward
        the group its reference favours. The ``label`` farthest points are named."""
        from biasamp.results._plotting_generated import plot_output_amplification

        return plot_output_amplification(self, ax=ax, label=label)

    def to_dict(self, *, concepts: bool = True) -> dict[str, Any]:
        """A JSON-safe dictionary (``concepts=False`` leaves out ``by_concept``)."""
        out: dict[str, Any] = {
            "metric": self.metric,
            "family": self.family,
            "value": self.value,
            "n": self.n,
            "n_concepts": self.n_concepts,
            "groups": [str(g) for g in self.groups],
            "corrected": self.corrected,
            "excluded": {str(c): str(r) for c, r in self.excluded.items()},
            "ci": None if self.ci is None else list(self.ci),
            "ci_level": self.ci_level,
            "se": self.se,
            "n_boot": None if self.replicates is None else int(len(self.replicates)),
            "params": self.params,
        }
        if concepts:
            out["by_concept"] = frame_records(self.by_concept.reset_index())
        return _json_safe(out)


@register_result("bias_transfer", shapes=lambda r: {"concepts": int(r.n_concepts), "n": int(r.n)})
@dataclass(repr=False, eq=False)
class BiasTransferResult(MetricNames, SavableResult):
    """The result of :func:`biasamp.bias_transfer`.

    Attributes
    ----------
    metric : str
        ``"bias_transfer"``.
    value : float
        The slope (also ``slope``).
    slope, intercept : float
        The least-squares line ``output_bias = intercept + slope * reference_bias``
        over the concepts kept.
    r, r2 : float
        Pearson's correlation of the two biases and its square (the share of the
        outputs' bias variance the line explains).
    n_concepts : int
        Number of concepts kept.
    group : str
        The group whose bias is measured, ``(n_group - n_rest) / (n_group + n_rest)``.
    by_concept : pandas.DataFrame
        One row per concept kept: ``reference_bias``, ``output_bias``, ``fitted``,
        ``residual`` (output minus fitted), ``n_reference``, ``n_outputs``.
    excluded : pandas.Series
        Concepts left out and why (``"fewer than min_count reference rows"``,
        ``"no outputs"``, ``"not in reference"``).
    n : int
        Total outputs over the concepts kept.
    min_count : float
        The smallest reference total a concept needs.
    ci, ci_level, se, replicates
        ``None`` (no interval is computed); kept so every surface reads them alike.
    params : dict
        Settings used.
    """

    metric: str
    value: float
    slope: float
    intercept: float
    r: float
    r2: float
    n_concepts: int
    group: str
    by_concept: pd.DataFrame
    excluded: pd.Series
    n: int
    min_count: float
    ci: tuple[float, float] | None = None
    ci_level: float | None = None
    se: float | None = None
    replicates: np.ndarray | None = None
    params: dict[str, Any] = field(default_factory=dict)

    def __float__(self) -> float:
        return float(self.value)

    @property
    def name(self) -> str:
        """Display name."""
        return f"Bias transfer ({self.group})"

    def summary(self) -> str:
        """A short human-readable summary."""
        return (
            f"{self.name}: slope {self.slope:+.4f}, intercept {self.intercept:+.4f}, "
            f"r {self.r:+.4f}, R^2 {self.r2:.4f} over {self.n_concepts} concepts"
            + _excluded_text(self.excluded)
        )

    def __repr__(self) -> str:
        return self.summary()

    def statistics(self) -> list[tuple[str, Any]]:
        """The numbers behind the value, for the report."""
        return [
            ("slope", self.slope),
            ("intercept", self.intercept),
            ("r", self.r),
            ("R^2", self.r2),
            ("concepts kept", self.n_concepts),
            ("concepts left out", len(self.excluded)),
            ("min_count", self.min_count),
        ]

    def table(self) -> pd.DataFrame:
        """The per-concept table (``by_concept``)."""
        return self.by_concept

    def plot(self, *, ax: Any = None, label: int = 10) -> Any:
        """Reference bias (x) against output bias (y) per concept, the fitted line and
        the diagonal (a slope above 1 reads as amplifying transfer)."""
        from biasamp.results._plotting_generated import plot_bias_transfer

        return plot_bias_transfer(self, ax=ax, label=label)

    def to_dict(self, *, concepts: bool = True) -> dict[str, Any]:
        """A JSON-safe dictionary (``concepts=False`` leaves out ``by_concept``)."""
        out: dict[str, Any] = {
            "metric": self.metric,
            "family": self.family,
            "value": self.value,
            "slope": self.slope,
            "intercept": self.intercept,
            "r": self.r,
            "r2": self.r2,
            "n_concepts": self.n_concepts,
            "group": self.group,
            "n": self.n,
            "min_count": self.min_count,
            "excluded": {str(c): str(r) for c, r in self.excluded.items()},
            "ci": None,
            "ci_level": None,
            "params": self.params,
        }
        if concepts:
            out["by_concept"] = frame_records(self.by_concept.reset_index())
        return _json_safe(out)


@register_result(
    "share_trajectory",
    shapes=lambda r: {"n": int(r.n), "steps": len(r.shares), "groups": r.shares.shape[1]},
)
@dataclass(repr=False, eq=False)
class ShareTrajectoryResult(MetricNames, SavableResult):
    """The result of :func:`biasamp.share_trajectory`.

    Attributes
    ----------
    metric : str
        ``"share_trajectory"``.
    value : float
        The trend: the least-squares slope of the first step's majority group's
        share over the steps (share per unit of step; steps that are not numbers
        are placed at 0, 1, 2, ...).
    shares : pandas.DataFrame
        Index: the steps (sorted), one column per group; each row sums to 1.
    counts : pandas.DataFrame
        The outputs of each group per step.
    change : pandas.DataFrame
        Each group's share minus its share at the first step.
    shares_low, shares_high : pandas.DataFrame or None
        Percentile bootstrap bounds of each share (``n_boot``).
    majority_group : object
        The group with the largest share at the first step.
    step_values : numpy.ndarray
        The x of each step in the slope.
    n : int
        Number of outputs.
    ci, ci_level, se, replicates
        The bootstrap interval, level, standard error and replicates of the slope.
    params : dict
        Settings used.
    """

    metric: str
    value: float
    shares: pd.DataFrame
    counts: pd.DataFrame
    change: pd.DataFrame
    majority_group: Any
    step_values: np.ndarray
    n: int
    shares_low: pd.DataFrame | None = None
    shares_high: pd.DataFrame | None = None
    ci: tuple[float, float] | None = None
    ci_level: float | None = None
    se: float | None = None
    replicates: np.ndarray | None = None
    params: dict[str, Any] = field(default_factory=dict)

    def __float__(self) -> float:
        return float(self.value)

    @property
    def name(self) -> str:
        """Display name."""
        return f"Share trajectory ({self.majority_group!s})"

    def summary(self) -> str:
        """A short human-readable summary."""
        first = self.shares.iloc[0][self.majority_group]
        last = self.shares.iloc[-1][self.majority_group]
        return (
            f"{self.name}: slope {self.value:+.5f} per step{_interval_text(self)}; "
            f"share {first:.3f} at step {self.shares.index[0]!s} -> {last:.3f} at step "
            f"{self.shares.index[-1]!s} ({len(self.shares)} steps, {self.n} outputs)"
        )

    def __repr__(self) -> str:
        return self.summary()

    def statistics(self) -> list[tuple[str, Any]]:
        """The numbers behind the value, for the report."""
        column = self.shares[self.majority_group]
        return [
            ("majority group at the first step", str(self.majority_group)),
            ("slope of its share per step", self.value),
            ("its share at the first step", float(column.iloc[0])),
            ("its share at the last step", float(column.iloc[-1])),
            ("its largest share", float(column.max())),
            ("steps", len(self.shares)),
            ("outputs", self.n),
        ]

    def table(self) -> pd.DataFrame:
        """Shares per step, with each share's interval when bootstrapped."""
        if self.shares_low is None or self.shares_high is None:
            return self.shares
        parts = {}
        for group in self.shares.columns:
            parts[f"{group!s}"] = self.shares[group]
            parts[f"{group!s} low"] = self.shares_low[group]
            parts[f"{group!s} high"] = self.shares_high[group]
        return pd.DataFrame(parts, index=self.shares.index)

    def plot(self, *, ax: Any = None, bound: Any = None, bound_center: float | None = None) -> Any:
        """Each group's share per step with its bootstrap band.

        Parameters
        ----------
        ax : matplotlib Axes, optional
        bound : array-like, optional
            A bound on the majority group's drift per step (for example
            :func:`biasamp.feedback_bound` for rounds 0 .. steps - 1), drawn as a
            band ``bound_center +- bound`` beside the measured trajectory.
        bound_center : float, optional
            Centre of the band (default: the majority group's share at the first step).
        """
        from biasamp.results._plotting_generated import plot_share_trajectory

        return plot_share_trajectory(self, ax=ax, bound=bound, bound_center=bound_center)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dictionary."""

        def rows(frame: pd.DataFrame | None) -> Any:
            if frame is None:
                return None
            return frame_records(
                frame.set_axis([str(c) for c in frame.columns], axis=1).reset_index()
            )

        return _json_safe(
            {
                "metric": self.metric,
                "family": self.family,
                "value": self.value,
                "majority_group": str(self.majority_group),
                "n": self.n,
                "steps": [str(s) for s in self.shares.index],
                "step_values": self.step_values,
                "shares": rows(self.shares),
                "counts": rows(self.counts),
                "change": rows(self.change),
                "shares_low": rows(self.shares_low),
                "shares_high": rows(self.shares_high),
                "ci": None if self.ci is None else list(self.ci),
                "ci_level": self.ci_level,
                "se": self.se,
                "n_boot": None if self.replicates is None else int(len(self.replicates)),
                "params": self.params,
            }
        )
