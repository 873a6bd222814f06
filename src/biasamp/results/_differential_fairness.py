"""The result of differential fairness and its amplification (Foulds et al., ICDE 2020)."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

import numpy as np
import pandas as pd

from biasamp.results._base import (
    ERR_TOP_K,
    MetricNames,
    _json_safe,
    excluded_pair_frame,
    frame_records,
    significance_dict,
)
from biasamp.results._intervals import interval_words
from biasamp.results._persist import SavableResult, encode_value, register_result
from biasamp.results._significance import NullDistribution, chance_text

__all__ = [
    "DifferentialFairnessResult",
    "driver_words",
    "epsilon_driver",
    "pair_log_ratios",
    "plot_log_ratio_heatmap",
]

ERR_SOURCE = "source: expected one of {choices}, got {got!r}."
ERR_CLASS = "label: {got!r} is not one of the classes {classes}."


def _shapes(result: DifferentialFairnessResult) -> dict[str, Any]:
    return {
        "n": result.n,
        "groups": int(result.group_sizes.shape[0]),
        "classes": len(result.classes),
    }


@register_result("differential_fairness", shapes=_shapes)
@dataclass(repr=False, eq=False)
class DifferentialFairnessResult(MetricNames, SavableResult):
    """The result of :func:`differential_fairness` or :func:`differential_fairness_amplification`.

    Attributes
    ----------
    metric : {"differential_fairness", "differential_fairness_amplification"}
        The family; ``metric_name`` is the canonical name (``"differential-fairness"``,
        ``"df-amplification"``), ``title`` and ``name`` the display title.
    value : float
        epsilon (differential fairness) or ``epsilon_pred - epsilon_labels``
        (amplification); also ``float(result)``.
    epsilon_labels : float
        Smoothed empirical differential fairness of ``labels``.
    epsilon_pred : float or None
        The same of ``labels_pred`` (amplification only).
    concentration : float
        The Dirichlet concentration; each class gets ``concentration / n_classes``.
    classes : tuple
        The label classes, in column order.
    rates : pandas.DataFrame
        One row per (group, class): ``group``, ``label``, ``count_labels``,
        ``rate_labels`` (smoothed ``P(y | group)``) and, for amplification,
        ``count_pred``, ``rate_pred``.
    group_sizes : pandas.DataFrame
        Size (rows, or total weight with ``sample_weight``) of each group that
        occurs, indexed by group, one column per split (``"evaluation"``).
    small_groups : tuple
        The groups below ``min_group_size`` (a :class:`SmallGroupWarning` named them).
    min_group_size : float or None
    group_parts : pandas.DataFrame or None
        For groups from :func:`biasamp.intersect`: each group's value of each
        intersected column (index: group).
    never_occurring : pandas.DataFrame or None
        For groups from :func:`biasamp.intersect`: the combinations of the
        columns' values that no row has (they have no rate and do not enter
        epsilon).
    ci, ci_level, se, replicates
        Bootstrap interval of ``value`` (``n_boot``), its standard error and the
        replicate values; ``ci_labels`` / ``ci_pred`` are the intervals of the
        two epsilons.
    n : float
        Total weight (rows without ``sample_weight``).
    driver_labels, driver_pred : dict or None
        What sets epsilon of the labels (and of the predictions, amplification
        only): ``group_a`` (the group with the higher smoothed rate), ``group_b``
        (the lower), ``label`` (the class), ``rate_a``, ``rate_b`` and
        ``log_ratio`` (``log rate_a - log rate_b``, epsilon itself). ``None`` when
        epsilon is 0 (every group has the same rates). ``driver`` is the one of the
        headline epsilon (the predictions' for amplification); ``top_pairs(k)``
        the ``k`` largest rows of ``by_pair``.
    missing_groups : dict
        ``{"evaluation": (group, ...)}``: groups named in ``group_names`` that no
        row has (a :class:`MissingGroupWarning` named them; they have no rate,
        or the smoothed ``1/K`` with ``empty_groups="smooth"``).
    p_value, null
        Amplification with ``n_perm``: the p-value against chance and the
        :class:`~biasamp.results.NullDistribution` of the paired swap test
        (``docs/uncertainty.md``, "Significance against chance").
    """

    metric: str
    value: float
    epsilon_labels: float
    epsilon_pred: float | None
    concentration: float
    classes: tuple[Any, ...]
    rates: pd.DataFrame
    group_sizes: pd.DataFrame
    small_groups: tuple[Any, ...]
    min_group_size: float | None
    group_parts: pd.DataFrame | None
    never_occurring: pd.DataFrame | None
    n: float
    ci: tuple[float, float] | None = None
    ci_level: float = 0.95
    se: float | None = None
    replicates: np.ndarray | None = None
    ci_labels: tuple[float, float] | None = None
    ci_pred: tuple[float, float] | None = None
    params: dict[str, Any] = field(default_factory=dict)
    driver_labels: dict[str, Any] | None = None
    driver_pred: dict[str, Any] | None = None
    missing_groups: dict[str, tuple[Any, ...]] = field(default_factory=dict)
    p_value: float | None = None
    null: NullDistribution | None = None

    def __float__(self) -> float:
        return float(self.value)

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return all(
            encode_value(getattr(self, f.name)) == encode_value(getattr(other, f.name))
            for f in fields(self)
        )

    __hash__ = None  # type: ignore[assignment]

    @property
    def name(self) -> str:
        """Display name, the registry's title (``"Differential fairness amplification"``)."""
        return self.title

    @property
    def is_amplification(self) -> bool:
        return self.family == "differential_fairness_amplification"

    @property
    def driver(self) -> dict[str, Any] | None:
        """What sets the headline epsilon: ``driver_pred`` for amplification (the
        model's epsilon), ``driver_labels`` otherwise."""
        return self.driver_pred if self.is_amplification else self.driver_labels

    def top_pairs(self, k: int = 5) -> pd.DataFrame:
        """The ``k`` rows of ``by_pair`` with the largest absolute log-ratio (of the
        predictions for amplification), largest first.

        Raises
        ------
        TypeError
            When ``k`` is not an integer.
        ValueError
            When ``k`` is negative.
        """
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)):
            raise TypeError(ERR_TOP_K.format(got=k))
        if k < 0:
            raise ValueError(ERR_TOP_K.format(got=k))
        return self.by_pair.head(int(k))

    @property
    def excluded_pairs(self) -> pd.DataFrame:
        """The rows of ``by_pair``-like pairs left without rows: one row per group of
        ``missing_groups`` (``group``, ``split``)."""
        return excluded_pair_frame(self)

    @property
    def groups(self) -> tuple[Any, ...]:
        """The groups that occur, in order."""
        return tuple(self.group_sizes.index)

    @property
    def by_pair(self) -> pd.DataFrame:
        """The log-ratio of every group pair and class, largest first.

        One row per unordered pair of groups (``group_a``, ``group_b``) and
        class (``label``): ``log_ratio_labels`` = log P(y | a) - log P(y | b)
        of the smoothed label rates and its absolute value; for amplification
        also ``log_ratio_pred``, ``abs_log_ratio_pred`` and ``change`` (the
        absolute predicted minus the absolute label log-ratio). ``sets_epsilon``
        marks the rows whose absolute log-ratio equals an epsilon. With
        intersected groups, each group's columns follow (``race_a``, ``race_b``, ...).
        Rows: |G| (|G| - 1) / 2 x classes.
        """
        return pair_log_ratios(self)

    def log_ratio_matrix(self, *, source: str | None = None, label: Any = None) -> pd.DataFrame:
        """Group x group matrix of log-ratios: row group over column group.

        Parameters
        ----------
        source : {"labels", "pred", "change"}, optional
            Which rates: the labels, the predictions (default for
            amplification) or the change of the absolute log-ratio
            (predictions minus labels).
        label : class, optional
            One class; by default, per pair, the class with the largest
            absolute log-ratio (its signed value).
        """
        return _log_ratio_matrix(self, source=source, label=label)

    def plot(self, *, source: str | None = None, label: Any = None, max_groups: int = 40,
             ax: Any = None) -> Any:  # fmt: skip
        """Heatmap of the group x group log-ratios (matplotlib); returns the Axes.

        Parameters
        ----------
        source, label
            As :meth:`log_ratio_matrix`.
        max_groups : int, default 40
            The largest groups shown (by size); the pair that sets epsilon is always
            among them.
        ax : matplotlib Axes, optional
        """
        return plot_log_ratio_heatmap(
            self, source=source, label=label, max_groups=max_groups, ax=ax
        )

    def summary(self) -> str:
        def interval(ci: tuple[float, float] | None) -> str:
            if ci is None:
                return ""
            return f"  [{ci[0]:.4f}, {ci[1]:.4f}] ({self.ci_level:.0%} CI)"

        lines = []
        if self.is_amplification:
            lines.append(f"{self.name} = {self.value:+.4f}{interval(self.ci)}")
            lines.append(f"  epsilon(labels) = {self.epsilon_labels:.4f}{interval(self.ci_labels)}")
            lines.append(f"  epsilon(pred)   = {self.epsilon_pred:.4f}{interval(self.ci_pred)}")
            if self.p_value is not None:
                lines.append(f"  {chance_text(self.p_value)}")
        else:
            lines.append(f"{self.name} epsilon = {self.value:.4f}{interval(self.ci)}")
        words = interval_words(self.ci, self.ci_level)
        if words:
            lines.append(f"  {words}")
        for source, driver in (("labels", self.driver_labels), ("pred", self.driver_pred)):
            if driver is not None:
                what = f"epsilon({source})" if self.is_amplification else "epsilon"
                lines.append(f"  {what} set by {driver_words(driver)}")
        top = self.top_pairs(3)
        if len(top):
            column = "log_ratio_pred" if self.is_amplification else "log_ratio_labels"
            lines.append("  top pairs:")
            for a, b, label, ratio in zip(
                top["group_a"], top["group_b"], top["label"], top[column], strict=True
            ):
                lines.append(f"    {a!s} / {b!s}, label {label!s}: {ratio:+.4f}")
        lines.append(
            f"  {len(self.groups)} groups, {len(self.classes)} classes, n={self.n:g}, "
            f"concentration {self.concentration:g}"
        )
        if self.small_groups:
            lines.append(
                f"  {len(self.small_groups)} group(s) below min_group_size={self.min_group_size:g}"
            )
        if self.never_occurring is not None and len(self.never_occurring):
            lines.append(f"  {len(self.never_occurring)} intersection(s) never occur")
        for split, groups in self.missing_groups.items():
            lines.append(f"  no rows in the {split} split: " + ", ".join(map(str, groups)))
        return "\n".join(lines)

    def __repr__(self) -> str:
        return self.summary()

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dictionary of the result (the per-pair table left out: see ``by_pair``)."""
        return _json_safe(
            {
                "metric": self.metric,
                "family": self.family,
                "value": self.value,
                "epsilon_labels": self.epsilon_labels,
                "epsilon_pred": self.epsilon_pred,
                "ci": None if self.ci is None else list(self.ci),
                "ci_labels": None if self.ci_labels is None else list(self.ci_labels),
                "ci_pred": None if self.ci_pred is None else list(self.ci_pred),
                "ci_level": self.ci_level,
                "se": self.se,
                "concentration": self.concentration,
                "classes": list(self.classes),
                "n": self.n,
                "group_sizes": {
                    str(split): {str(g): float(v) for g, v in column.items()}
                    for split, column in self.group_sizes.items()
                },
                "small_groups": [str(g) for g in self.small_groups],
                "min_group_size": self.min_group_size,
                "never_occurring": 0 if self.never_occurring is None else len(self.never_occurring),
                "params": self.params,
                "driver": self.driver,
                "driver_labels": self.driver_labels,
                "driver_pred": self.driver_pred,
                "top_pairs": frame_records(self.top_pairs(5)),
                "missing_groups": {
                    str(split): [str(g) for g in groups]
                    for split, groups in self.missing_groups.items()
                },
                "interval_words": interval_words(self.ci, self.ci_level),
                **significance_dict(self),
            }
        )


# --------------------------------------------------------------- what sets epsilon
def epsilon_driver(
    log_rate: np.ndarray, groups: Any, classes: Any, *, epsilon: float
) -> dict[str, Any] | None:
    """The group pair and class that give epsilon, from the (|G|, K) log smoothed rates
    (NaN: a group without a rate): the class with the largest spread (the first on a
    tie), the groups with the highest and the lowest rate of it (the first on a tie).
    ``None`` when epsilon is 0 or there is no pair."""
    values = np.asarray(log_rate, dtype=np.float64)
    if values.ndim != 2 or values.shape[0] < 2 or values.shape[1] == 0 or epsilon == 0:
        return None
    high_rates = np.where(np.isnan(values), -np.inf, values)
    low_rates = np.where(np.isnan(values), np.inf, values)
    high, low = high_rates.max(axis=0), low_rates.min(axis=0)
    with np.errstate(invalid="ignore"):
        spread = high - low
    spread = np.where(np.isnan(spread) | (high == low), 0.0, spread)
    k = int(np.argmax(spread))
    if spread[k] <= 0:
        return None
    a, b = int(np.argmax(high_rates[:, k])), int(np.argmin(low_rates[:, k]))
    groups, classes = list(groups), list(classes)
    return {
        "group_a": groups[a],
        "group_b": groups[b],
        "label": classes[k],
        "rate_a": float(np.exp(values[a, k])),
        "rate_b": float(np.exp(values[b, k])),
        "log_ratio": float(spread[k]),
    }


def driver_words(driver: dict[str, Any]) -> str:
    """One line naming what sets epsilon: the groups, the class, the rates, the log-ratio."""
    return (
        f"{driver['group_a']!s} over {driver['group_b']!s}, label {driver['label']!s}: "
        f"P(y | {driver['group_a']!s}) = {driver['rate_a']:.4f}, "
        f"P(y | {driver['group_b']!s}) = {driver['rate_b']:.4f}, "
        f"log-ratio {driver['log_ratio']:+.4f}"
    )


# --------------------------------------------------------------- tables
def _rate_matrix(result: DifferentialFairnessResult, source: str) -> np.ndarray:
    """(|G|, K) smoothed rates of ``labels`` or ``pred`` in group and class order."""
    column = "rate_labels" if source == "labels" else "rate_pred"
    return (
        result.rates[column]
        .to_numpy(dtype=np.float64)
        .reshape(len(result.groups), len(result.classes))
    )


def _pair_frame(result: DifferentialFairnessResult) -> tuple[pd.DataFrame, dict[str, np.ndarray]]:
    groups = np.asarray(result.groups, dtype=object)
    k = len(result.classes)
    a, b = np.triu_indices(len(groups), 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        logs = {s: np.log(_rate_matrix(result, s)) for s in _sources(result)}
        ratios = {s: (v[a] - v[b]).reshape(-1) for s, v in logs.items()}
    frame = pd.DataFrame(
        {
            "group_a": np.repeat(groups[a], k),
            "group_b": np.repeat(groups[b], k),
            "label": np.tile(np.asarray(result.classes, dtype=object), len(a)),
        }
    )
    return frame, ratios


def _sources(result: DifferentialFairnessResult) -> tuple[str, ...]:
    return ("labels", "pred") if result.is_amplification else ("labels",)


def pair_log_ratios(result: DifferentialFairnessResult) -> pd.DataFrame:
    """The ``by_pair`` table of a :class:`DifferentialFairnessResult`."""
    frame, ratios = _pair_frame(result)
    sets = np.zeros(len(frame), dtype=bool)
    for source, values in ratios.items():
        frame[f"log_ratio_{source}"] = values
        frame[f"abs_log_ratio_{source}"] = np.abs(values)
        epsilon = result.epsilon_labels if source == "labels" else result.epsilon_pred
        if epsilon is not None and len(values):
            sets |= np.isclose(np.abs(values), epsilon, rtol=1e-12, atol=0.0) | (
                np.isinf(epsilon) & np.isinf(values)
            )
    if result.is_amplification:
        frame["change"] = frame["abs_log_ratio_pred"] - frame["abs_log_ratio_labels"]
    frame["sets_epsilon"] = sets
    if result.group_parts is not None:
        for column in result.group_parts.columns:
            parts = result.group_parts[column]
            frame[f"{column}_a"] = parts.reindex(frame["group_a"]).to_numpy()
            frame[f"{column}_b"] = parts.reindex(frame["group_b"]).to_numpy()
    key = "abs_log_ratio_pred" if result.is_amplification else "abs_log_ratio_labels"
    return frame.sort_values(key, ascending=False, kind="stable").reset_index(drop=True)


def _log_ratio_matrix(
    result: DifferentialFairnessResult, *, source: str | None, label: Any
) -> pd.DataFrame:
    choices = ("labels", "pred", "change") if result.is_amplification else ("labels",)
    source = source or ("pred" if result.is_amplification else "labels")
    if source not in choices:
        raise ValueError(ERR_SOURCE.format(choices=choices, got=source))
    with np.errstate(divide="ignore", invalid="ignore"):
        if source == "change":
            logs_p = np.log(_rate_matrix(result, "pred"))
            logs_l = np.log(_rate_matrix(result, "labels"))
            signed = np.abs(logs_p[:, None, :] - logs_p[None, :, :]) - np.abs(
                logs_l[:, None, :] - logs_l[None, :, :]
            )
        else:
            logs = np.log(_rate_matrix(result, source))
            signed = logs[:, None, :] - logs[None, :, :]  # (|G|, |G|, K)
    if label is not None:
        if label not in result.classes:
            raise ValueError(ERR_CLASS.format(got=label, classes=list(result.classes)))
        matrix = signed[:, :, list(result.classes).index(label)]
    else:
        pick = np.nanargmax(np.where(np.isnan(signed), -np.inf, np.abs(signed)), axis=2)
        matrix = np.take_along_axis(signed, pick[:, :, None], axis=2)[:, :, 0]
    index = pd.Index(result.groups, name="group")
    return pd.DataFrame(matrix, index=index, columns=index.rename("over"))


def plot_log_ratio_heatmap(
    result: DifferentialFairnessResult,
    *,
    source: str | None = None,
    label: Any = None,
    max_groups: int = 40,
    ax: Any = None,
) -> Any:
    """Heatmap of :meth:`DifferentialFairnessResult.log_ratio_matrix`; returns the Axes."""
    from biasamp.results._plotting import new_axes, plot_text

    matrix = result.log_ratio_matrix(source=source, label=label)
    if len(matrix) > max_groups:
        sizes = result.group_sizes.iloc[:, 0]
        keep = list(sizes.sort_values(ascending=False, kind="stable").index[:max_groups])
        top = result.by_pair.iloc[0]
        required = [top["group_a"], top["group_b"]]  # the pair that sets epsilon stays
        for group in required:
            if group not in keep:
                drop = next(g for g in reversed(keep) if g not in required)
                keep[keep.index(drop)] = group
        chosen = matrix.index.isin(keep)
        matrix = matrix.loc[chosen, chosen]
    n = len(matrix)
    size = min(3.0 + 0.32 * n, 16.0)
    ax = new_axes(ax, figsize=(size + 1.5, size))
    values = matrix.to_numpy(dtype=np.float64)
    finite = values[np.isfinite(values)]
    bound = float(np.max(np.abs(finite))) if finite.size else 1.0
    image = ax.imshow(
        np.where(np.isfinite(values), values, np.nan),
        cmap="RdBu_r",
        vmin=-bound or -1.0,
        vmax=bound or 1.0,
    )
    labels = [plot_text(g) for g in matrix.index]
    ax.set_xticks(range(n), labels, rotation=90, fontsize=7 if n > 15 else 9)
    ax.set_yticks(range(n), labels, fontsize=7 if n > 15 else 9)
    which = source or ("pred" if result.is_amplification else "labels")
    what = {"labels": "labels", "pred": "predictions", "change": "|pred| - |labels|"}[which]
    title = "log-ratio of smoothed rates, row over column"
    if label is not None:
        title += f", label {plot_text(label)}"
    ax.set_title(f"{title} ({what})", fontsize=10)
    ax.figure.colorbar(image, ax=ax, shrink=0.8, label="log P(y | row) - log P(y | column)")
    return ax
