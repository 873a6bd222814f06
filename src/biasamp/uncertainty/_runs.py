"""Summaries of one metric over several runs (for example 5 training seeds).

The bias-amplification papers report a mean and a 95% interval over a handful of
runs. Two conventions are in use and :func:`across_runs` reports both, labelled:

* **papers** (Wang & Russakovsky 2021; Zhao et al. 2023; Hirota et al.): ``mean
  +- 1.96 * std / sqrt(n)`` with the *population* standard deviation (ddof=0),
  a normal approximation. For another ``ci`` the 1.96 becomes the normal
  quantile ``z_{(1+ci)/2}``.
* **t**: ``mean +- t_{n-1, (1+ci)/2} * s / sqrt(n)`` with the *sample*
  standard deviation ``s`` (ddof=1), the Student t interval, which is the
  correct small-sample interval for the mean of normal runs. With 5 runs it is
  about 1.58 times wider than the papers' interval (2.776 / 1.96 * sqrt(5/4)).

Per-pair summaries use the same formulas on each (group, task) pair's value
across runs; runs where a pair is undefined (NaN, an empty cell) are left out
for that pair and ``n_runs`` counts the runs used; with fewer than 2 finite
runs the pair's standard deviations and intervals are NaN.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from biasamp.results._base import (
    MetricNames,
    MetricResult,
    PairwiseResult,
    _json_safe,
    frame_records,
)
from biasamp.results._intervals import check_ci
from biasamp.results._persist import SavableResult, register_result
from biasamp.results._predictability import PredictabilityResult

__all__ = ["RunsSummary", "across_runs"]

ERR_FEW_RUNS = "results: need at least 2 runs to summarise, got {n}."
ERR_RUN_TYPE = "results[{i}]: expected a metric result or a number, got {type_name}."
ERR_MIXED_METRICS = "results: runs of different metrics cannot be summarised together ({a} vs {b})."
ERR_PAIRS_DIFFER = (
    "results: run {i} has other (group, task) pairs than run 0 ({count} differ); "
    "summarise runs of one label space."
)
ERR_NOT_FINITE = "results: run values must be finite; run(s) {runs} are NaN or infinite."
ERR_COLUMN = "columns: {column!r} is not a by_pair column of the results (have {have})."
ERR_COLUMN_NUMERIC = (
    "columns: {column!r} is not a numeric by_pair column; only numbers can be summarised "
    "(the pairs are matched by group and task)."
)

_PAPERS_Z95 = 1.96


def _z(ci: float) -> float:
    from scipy import stats  # lazy: keeps `import biasamp` fast

    return _PAPERS_Z95 if ci == 0.95 else float(stats.norm.ppf(0.5 + ci / 2))


def _summary_arrays(values: np.ndarray, ci: float) -> dict[str, np.ndarray]:
    """Mean, stds and both intervals along axis 0, NaN-aware (see the module docs)."""
    finite = np.isfinite(values)
    n = finite.sum(axis=0)
    safe_n = np.maximum(n, 1)
    mean = np.where(finite, values, 0.0).sum(axis=0) / safe_n
    ss = (np.where(finite, values - mean, 0.0) ** 2).sum(axis=0)
    ok = n >= 2
    std_pop = np.where(ok, np.sqrt(ss / safe_n), np.nan)
    std_sample = np.where(ok, np.sqrt(ss / np.maximum(n - 1, 1)), np.nan)
    root_n = np.sqrt(safe_n)
    half_papers = _z(ci) * std_pop / root_n
    from scipy import stats

    t_quantile = stats.t.ppf(0.5 + ci / 2, np.maximum(n - 1, 1))
    half_t = np.where(ok, t_quantile * std_sample / root_n, np.nan)
    return {
        "n_runs": n,
        "mean": np.where(n > 0, mean, np.nan),
        "std": std_pop,
        "std_sample": std_sample,
        "papers_low": mean - half_papers,
        "papers_high": mean + half_papers,
        "t_low": mean - half_t,
        "t_high": mean + half_t,
    }


@register_result("runs_summary", shapes=lambda r: {"n_runs": r.n_runs})
@dataclass(repr=False)
class RunsSummary(MetricNames, SavableResult):
    """Several runs of one metric, summarised (see :func:`across_runs`).

    Attributes
    ----------
    metric, direction : str or None
        What was summarised.
    values : ndarray of shape (n_runs,)
        The runs' headline values, in the order given.
    mean : float
    std : float
        Population standard deviation (ddof=0), as in the papers.
    std_sample : float
        Sample standard deviation (ddof=1).
    ci_level : float
    ci_papers : tuple of float
        ``mean +- 1.96 * std / sqrt(n)`` (the papers' convention).
    ci_t : tuple of float
        ``mean +- t_{n-1} * std_sample / sqrt(n)`` (Student t).
    by_pair : pandas.DataFrame or None
        Long table: ``group``, ``task``, ``quantity`` (a by_pair column such as
        ``delta``), ``n_runs``, ``mean``, ``std``, ``std_sample``,
        ``papers_low``, ``papers_high``, ``t_low``, ``t_high``.
    """

    metric: str | None
    direction: str | None
    values: np.ndarray
    mean: float
    std: float
    std_sample: float
    ci_level: float
    ci_papers: tuple[float, float]
    ci_t: tuple[float, float]
    by_pair: pd.DataFrame | None = None
    params: dict[str, Any] = field(default_factory=dict)

    @property
    def n_runs(self) -> int:
        return int(len(self.values))

    def __float__(self) -> float:
        return float(self.mean)

    def summary(self) -> str:
        name = self.metric or "value"
        if self.direction:
            name += f" {self.direction}"
        level = f"{self.ci_level:.0%}"
        return "\n".join(
            [
                f"{name} over {self.n_runs} runs: mean {self.mean:+.4f}, "
                f"std {self.std:.4f} (population; sample {self.std_sample:.4f})",
                f"  {level} CI, papers' convention (1.96 x population std / sqrt(n)): "
                f"[{self.ci_papers[0]:+.4f}, {self.ci_papers[1]:+.4f}]",
                f"  {level} CI, Student t (t_(n-1) x sample std / sqrt(n)):        "
                f"[{self.ci_t[0]:+.4f}, {self.ci_t[1]:+.4f}]",
            ]
        )

    def __repr__(self) -> str:
        return self.summary()

    def plot(self, kind: str = "runs", *, ax: Any = None, **kwargs: Any) -> Any:
        """The spread across runs (matplotlib, optional dependency); returns the Axes.

        Parameters
        ----------
        kind : {"runs", "pairs"}, default "runs"
            ``"runs"``: each run's value, the mean and both intervals (papers'
            and Student t). ``"pairs"``: the ``k`` pairs with the largest mean
            ``quantity`` (default ``"delta"``) with their t intervals.
        ax : matplotlib Axes, optional
            Where to draw (a new constrained-layout figure by default).
        **kwargs
            ``k`` and ``quantity`` for ``"pairs"``.
        """
        from biasamp.results._plotting import plot_runs

        return plot_runs(self, kind=kind, ax=ax, **kwargs)

    def to_dict(self, *, pairs: bool = True) -> dict[str, Any]:
        """A JSON-safe dictionary (``pairs=False`` leaves out ``by_pair``)."""
        out: dict[str, Any] = {
            "metric": self.metric,
            "family": self.family,
            "direction": self.direction,
            "n_runs": self.n_runs,
            "values": self.values,
            "mean": self.mean,
            "std": self.std,
            "std_sample": self.std_sample,
            "ci_level": self.ci_level,
            "ci_papers": list(self.ci_papers),
            "ci_t": list(self.ci_t),
            "params": self.params,
        }
        if pairs and self.by_pair is not None:
            out["by_pair"] = frame_records(self.by_pair)
        return _json_safe(out)


def across_runs(
    results: Sequence[MetricResult | PredictabilityResult | float],
    *,
    ci: float = 0.95,
    columns: str | Sequence[str] | None = None,
) -> RunsSummary:
    """Summarise runs of one metric (for example 5 seeds) into mean, std and intervals.

    Parameters
    ----------
    results : sequence of metric results or float
        At least 2 runs of one metric (same ``metric`` and ``direction``, same
        label space), or plain numbers. Any result (``PairwiseResult``,
        ``MultiAttributeResult``, ``PredictabilityResult``) gives its headline
        ``value``; only ``PairwiseResult`` runs also give ``by_pair``.
    ci : float, default 0.95
        Interval level.
    columns : str or sequence of str, optional
        Numeric ``by_pair`` columns to summarise per (group, task) pair; by
        default ``delta`` and ``contribution`` (those present).

    Returns
    -------
    RunsSummary
        ``mean``, ``std`` (population), ``std_sample``, ``ci_papers``
        (1.96 x population std / sqrt(n)), ``ci_t`` (Student t), and a per-pair
        ``by_pair`` table when results carry one.

    Examples
    --------
    >>> from biasamp import across_runs
    >>> summary = across_runs([0.1, 0.2, 0.3, 0.4, 0.5])
    >>> round(summary.mean, 4), round(summary.std, 4)
    (0.3, 0.1414)
    >>> [round(v, 4) for v in summary.ci_papers], [round(v, 4) for v in summary.ci_t]
    ([0.176, 0.424], [0.1037, 0.4963])
    """
    level = check_ci(ci)
    runs = list(results)
    if len(runs) < 2:
        raise ValueError(ERR_FEW_RUNS.format(n=len(runs)))
    values = np.empty(len(runs))
    frames: list[pd.DataFrame] = []
    metric: str | None = None
    direction: str | None = None
    n_results = 0
    for i, run in enumerate(runs):
        if isinstance(run, (MetricResult, PredictabilityResult)):
            key = (run.metric, run.direction)
            if i and (metric, direction) != key:
                first = runs[0]
                raise ValueError(
                    ERR_MIXED_METRICS.format(a=first.metric_name, b=run.metric_name)  # type: ignore[union-attr]
                )
            metric, direction = key
            values[i] = run.value
            n_results += 1
            if isinstance(run, PairwiseResult):
                frames.append(run.by_pair)
        elif isinstance(run, (int, float, np.number)) and not isinstance(run, (bool, np.bool_)):
            if n_results:
                raise ValueError(ERR_MIXED_METRICS.format(a=(metric, direction), b="number"))
            values[i] = float(run)
        else:
            raise TypeError(ERR_RUN_TYPE.format(i=i, type_name=type(run).__name__))
    if n_results and n_results != len(runs):
        raise ValueError(ERR_MIXED_METRICS.format(a="number", b=(metric, direction)))
    if frames and len(frames) != len(runs):  # pairwise runs mixed with other results
        raise ValueError(ERR_MIXED_METRICS.format(a="pairwise", b="multi-attribute"))
    bad = np.flatnonzero(~np.isfinite(values))
    if bad.size:
        raise ValueError(ERR_NOT_FINITE.format(runs=bad.tolist()))
    overall = _summary_arrays(values, level)
    by_pair = _pair_summary(frames, columns, level) if frames else None
    return RunsSummary(
        metric=metric,
        direction=direction,
        values=values,
        mean=float(overall["mean"]),
        std=float(overall["std"]),
        std_sample=float(overall["std_sample"]),
        ci_level=level,
        ci_papers=(float(overall["papers_low"]), float(overall["papers_high"])),
        ci_t=(float(overall["t_low"]), float(overall["t_high"])),
        by_pair=by_pair,
        params={
            "papers": f"mean +- {_z(level):.4g} * population std / sqrt(n)",
            "t": f"mean +- t(n-1, {0.5 + level / 2:.4g}) * sample std / sqrt(n)",
        },
    )


def _pair_summary(
    frames: list[pd.DataFrame], columns: str | Sequence[str] | None, ci: float
) -> pd.DataFrame:
    first = frames[0]
    if columns is None:
        columns = [c for c in ("delta", "contribution") if c in first.columns]
    elif isinstance(columns, str):  # one column name, not a sequence of characters
        columns = [columns]
    for column in columns:
        if column not in first.columns:
            raise ValueError(ERR_COLUMN.format(column=column, have=list(first.columns)))
        if column in ("group", "task") or not (
            pd.api.types.is_numeric_dtype(first[column])
            or pd.api.types.is_bool_dtype(first[column])
        ):
            raise ValueError(ERR_COLUMN_NUMERIC.format(column=column))
    keys = pd.MultiIndex.from_frame(first[["group", "task"]])
    stacked = []
    for i, frame in enumerate(frames):
        index = pd.MultiIndex.from_frame(frame[["group", "task"]])
        if len(index) != len(keys) or not index.isin(keys).all():
            raise ValueError(
                ERR_PAIRS_DIFFER.format(
                    i=i, count=int((~index.isin(keys)).sum()) + abs(len(index) - len(keys))
                )
            )
        aligned = frame.set_index(["group", "task"]).reindex(keys)
        stacked.append(aligned[list(columns)].to_numpy(dtype=np.float64))
    values = np.stack(stacked)  # (runs, pairs, columns)
    arrays = _summary_arrays(values, ci)
    n_pairs, n_cols = values.shape[1], values.shape[2]
    out = pd.DataFrame(
        {
            "group": np.repeat(first["group"].to_numpy(dtype=object), n_cols),
            "task": np.repeat(first["task"].to_numpy(dtype=object), n_cols),
            "quantity": np.tile(np.asarray(columns, dtype=object), n_pairs),
        }
    )
    for name, arr in arrays.items():
        out[name] = np.asarray(arr).reshape(-1)
    return out
