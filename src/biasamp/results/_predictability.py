"""The result of a predictability metric (DPA, leakage amplification)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from biasamp.results._base import (
    MetricNames,
    _json_safe,
    excluded_pair_frame,
    group_sizes_dict,
    group_sizes_lines,
    pair_trust_dict,
    pair_trust_lines,
    significance_dict,
)
from biasamp.results._persist import SavableResult, register_result
from biasamp.results._significance import NullDistribution, chance_text

__all__ = ["PredictabilityResult"]


@register_result("predictability", shapes=lambda r: {"n": r.n, "n_iter": r.n_iter})
@dataclass(repr=False)
class PredictabilityResult(MetricNames, SavableResult):
    """The result of :func:`dpa` or :func:`leakage_amplification`.

    Attributes
    ----------
    metric : {"dpa", "leakage_amplification"}
        The family; ``metric_name`` is the canonical name (``"dpa-t2a"``, ``"leakage"``)
        and ``title`` the display title.
    value : float
        Mean of the per-iteration values; also ``float(result)``.
    values : ndarray of shape (n_iter,)
        The metric in each iteration.
    data_quality, model_quality : ndarray of shape (n_iter,)
        Per-iteration attacker quality on the (perturbed) ground truth and on
        the model's outputs: Psi_D and Psi_M for DPA, lambda_D and lambda_M
        for leakage. ``psi_d``, ``psi_m``, ``lambda_d``, ``lambda_m`` are their
        means.
    direction : str or None
        ``"A->T"`` or ``"T->A"`` for DPA.
    ci : (float, float) or None
        Student-t interval of the mean over iterations (needs ``n_iter >= 2``).
    std : float
        Standard deviation of ``values`` (ddof=1; 0 with one iteration).
    attacker, attacker_reason : str
        The attacker used and why ("auto" records what it picked).
    quality, perturbation : str
    model_accuracy : float or None
        Accuracy of the model's outputs that the perturbation matched.
    n : int
        Number of rows.
    group_sizes : pandas.DataFrame or None
        Rows of each true group (index ``group``, one column ``"evaluation"``:
        every row the attackers use); ``None`` for continuous groups and in
        results saved before sizes were recorded.
    small_groups, min_group_size, never_occurring
        The small-group check, as in :class:`PairwiseResult`.
    missing_groups : dict
        ``{split: (group, ...)}``: the true groups the model never predicts
        (``"predicted"``, DPA T->A); a :class:`MissingGroupWarning` named them.
    """

    @property
    def excluded_pairs(self) -> pd.DataFrame:
        """The groups of ``missing_groups``, one row each (``group``, ``split``)."""
        return excluded_pair_frame(self)

    metric: str
    value: float
    values: np.ndarray
    data_quality: np.ndarray
    model_quality: np.ndarray
    direction: str | None
    ci: tuple[float, float] | None
    ci_level: float
    std: float
    attacker: str
    attacker_reason: str
    quality: str
    perturbation: str
    model_accuracy: float | None
    n: int
    n_iter: int
    test_size: float
    params: dict[str, Any] = field(default_factory=dict)
    group_sizes: pd.DataFrame | None = None
    small_groups: tuple[Any, ...] = ()
    min_group_size: float | None = None
    never_occurring: pd.DataFrame | None = None
    missing_groups: dict[str, tuple[Any, ...]] = field(default_factory=dict)
    p_value: float | None = None
    null: NullDistribution | None = None

    def __float__(self) -> float:
        return float(self.value)

    @property
    def psi_d(self) -> float:
        """Mean data-side quality (Psi_D)."""
        return float(np.mean(self.data_quality))

    @property
    def psi_m(self) -> float:
        """Mean model-side quality (Psi_M)."""
        return float(np.mean(self.model_quality))

    lambda_d = psi_d
    lambda_m = psi_m

    @property
    def name(self) -> str:
        """Display name, the registry's title (``"DPA T->A"``)."""
        return self.title

    def summary(self) -> str:
        d, m = ("Psi_D", "Psi_M") if self.family == "dpa" else ("lambda_D", "lambda_M")
        line = f"{self.name} = {self.value:+.4f}"
        if self.ci is not None:
            line += f"  [{self.ci[0]:+.4f}, {self.ci[1]:+.4f}] ({self.ci_level:.0%} CI)"
        acc = "" if self.model_accuracy is None else f", model accuracy {self.model_accuracy:.4f}"
        return "\n".join(
            [
                line,
                f"  {d} = {self.psi_d:.4f}, {m} = {self.psi_m:.4f} (quality {self.quality!r})",
                f"  attacker {self.attacker!r} ({self.attacker_reason})",
                f"  n={self.n}, n_iter={self.n_iter}, test_size={self.test_size:g}, "
                f"perturbation {self.perturbation!r}{acc}",
                *([f"  {chance_text(self.p_value)}"] if self.p_value is not None else []),
                *group_sizes_lines(self),
                *pair_trust_lines(self),
            ]
        )

    def __repr__(self) -> str:
        return self.summary()

    def plot(self, *, ax: Any = None) -> Any:
        """Data-side against model-side attacker quality per iteration, with the means
        and their t intervals (matplotlib, optional dependency); returns the Axes.

        Parameters
        ----------
        ax : matplotlib Axes, optional
            Where to draw (a new constrained-layout figure by default).
        """
        from biasamp.results._plotting import plot_predictability

        return plot_predictability(self, ax=ax)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dictionary of the result."""
        return _json_safe(
            {
                "metric": self.metric,
                "family": self.family,
                "direction": self.direction,
                "value": self.value,
                "ci": None if self.ci is None else list(self.ci),
                "ci_level": self.ci_level,
                "std": self.std,
                "values": self.values,
                "data_quality": self.data_quality,
                "model_quality": self.model_quality,
                "data_quality_mean": self.psi_d,
                "model_quality_mean": self.psi_m,
                "attacker": self.attacker,
                "attacker_reason": self.attacker_reason,
                "quality": self.quality,
                "perturbation": self.perturbation,
                "model_accuracy": self.model_accuracy,
                "n": self.n,
                "n_iter": self.n_iter,
                "test_size": self.test_size,
                "params": self.params,
                **group_sizes_dict(self),
                **{
                    key: value
                    for key, value in pair_trust_dict(self).items()
                    if key in ("missing_groups", "excluded_pairs", "interval_words")
                },
                **significance_dict(self),
            }
        )


# --- checks and helpers -------------------------------------------------------------------------
