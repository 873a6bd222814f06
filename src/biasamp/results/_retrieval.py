"""The result of retrieval bias (Geyik, Ambler & Kenthapadi, KDD 2019): Skew@k and NDKL."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from biasamp.results._base import MetricNames, _json_safe, frame_records, significance_dict
from biasamp.results._intervals import interval_words
from biasamp.results._persist import SavableResult, register_result
from biasamp.results._significance import NullDistribution, chance_text

__all__ = ["COUNT_PREFIX", "RetrievalBiasResult", "plot_retrieval"]

#: The top-k count of group ``g`` is the column ``COUNT_PREFIX + str(g)`` of ``by_query``.
COUNT_PREFIX = "count_"

ERR_PLOT_KIND = "kind: expected 'skew' or 'ndkl', got {got!r}."


def _shapes(result: RetrievalBiasResult) -> dict[str, Any]:
    return {
        "queries": int(result.n),
        "items": int(result.n_items),
        "groups": len(result.reference_shares),
        "k": int(result.k),
    }


@register_result("retrieval_bias", shapes=_shapes)
@dataclass(repr=False, eq=False)
class RetrievalBiasResult(MetricNames, SavableResult):
    """The result of :func:`biasamp.retrieval_bias`.

    Attributes
    ----------
    metric : str
        ``"retrieval_bias"``.
    value : float
        The mean MaxSkew@k over queries; also ``float(result)``.
    k : int
        The length of the ranked list measured.
    by_query : pandas.DataFrame
        One row per query, indexed by ``query`` (the query names): ``max_skew``,
        ``min_skew`` (``-inf`` when a group of the reference is absent from the
        top k), ``ndkl``, then ``count_<group>``, each group's number of items in
        the top k (the counts of a row sum to ``k``).
    mean_ndkl : float
        The mean NDKL over queries.
    mean_min_skew : float
        The mean MinSkew@k over queries (``-inf`` as soon as one query misses a group).
    pool_shares : pandas.Series
        Each group's share of the items (the pool ranked by every query).
    reference_shares : pandas.Series
        The desired share of each group that Skew@k and NDKL compare with (the
        pool's shares by default).
    reference : str
        ``"pool"``, ``"uniform"`` or ``"mapping"`` (the shares were given).
    n : int
        Number of queries.
    n_items : int
        Number of items in the pool.
    ci, ci_level, se, replicates
        Percentile bootstrap interval of ``value`` over queries (queries drawn
        with replacement), its level, standard error and the replicate values,
        when ``n_boot`` was given; ``None`` otherwise.
    ndkl_ci, ndkl_se, ndkl_replicates
        The same for ``mean_ndkl``.
    params : dict
        Settings used (``k``, ``reference``, ``n_boot``, ``random_state`` when an
        integer, ``input``: ``"scores"`` or ``"rankings"``).
    missing_groups : dict
        ``{"pool": (group, ...)}``: groups of the reference with no item in the pool
        (a :class:`MissingGroupWarning` named them; their Skew@k is always ``-inf``).
    p_value, null
        With ``n_perm``: the p-value of ``value`` against rankings drawn uniformly at
        random from the same pool at the same ``k`` (one-sided: larger is more skewed),
        and the :class:`~biasamp.results.NullDistribution` of the mean MaxSkew@k
        under them (its ``mean`` is the exact expectation when the top-k group counts
        can be enumerated).
    """

    metric: str
    value: float
    k: int
    by_query: pd.DataFrame
    mean_ndkl: float
    mean_min_skew: float
    pool_shares: pd.Series
    reference_shares: pd.Series
    reference: str
    n: int
    n_items: int
    ci: tuple[float, float] | None = None
    ci_level: float | None = None
    se: float | None = None
    replicates: np.ndarray | None = None
    ndkl_ci: tuple[float, float] | None = None
    ndkl_se: float | None = None
    ndkl_replicates: np.ndarray | None = None
    params: dict[str, Any] = field(default_factory=dict)
    missing_groups: dict[str, tuple[Any, ...]] = field(default_factory=dict)
    p_value: float | None = None
    null: NullDistribution | None = None

    def __float__(self) -> float:
        return float(self.value)

    @property
    def name(self) -> str:
        """Display name, for example ``MaxSkew@100``."""
        return f"MaxSkew@{self.k}"

    @property
    def groups(self) -> list[Any]:
        """The groups, in the order of ``reference_shares``."""
        return list(self.reference_shares.index)

    def counts(self) -> pd.DataFrame:
        """Top-k count of each group per query: queries x groups (integers)."""
        columns = [COUNT_PREFIX + str(g) for g in self.groups]
        frame = self.by_query[columns].copy()
        frame.columns = pd.Index(self.groups, name="group")
        return frame

    def skew(self) -> pd.DataFrame:
        """Skew@k of each group per query, ``ln(top-k share / reference share)``:
        queries x groups (``-inf`` for a group absent from a query's top k)."""
        counts = self.counts()
        reference = self.reference_shares.to_numpy(dtype=np.float64)
        with np.errstate(divide="ignore"):
            values = np.log(counts.to_numpy(dtype=np.float64) / self.k / reference)
        return pd.DataFrame(values, index=counts.index, columns=counts.columns)

    def summary(self) -> str:
        """A short human-readable summary."""
        line = f"{self.name} = {self.value:+.4f} (mean over {self.n} queries)"
        if self.ci is not None:
            line += f"  [{self.ci[0]:+.4f}, {self.ci[1]:+.4f}] ({self.ci_level:.0%} CI)"
        ndkl = f"  mean NDKL@{self.k} = {self.mean_ndkl:.4f}"
        if self.ndkl_ci is not None:
            ndkl += f"  [{self.ndkl_ci[0]:.4f}, {self.ndkl_ci[1]:.4f}]"
        absent = int(np.isneginf(self.by_query["min_skew"].to_numpy(dtype=np.float64)).sum())
        lines = [
            line,
            ndkl,
            f"  mean MinSkew@{self.k} = {self.mean_min_skew:+.4f}"
            + (f" ({absent} queries miss a group in their top {self.k})" if absent else ""),
            f"  {self.n_items} items; reference {self.reference!r}: "
            + ", ".join(f"{g!s} {s:.3f}" for g, s in self.reference_shares.items()),
        ]
        words = interval_words(self.ci, self.ci_level)
        if words:
            lines.insert(1, f"  {words}")
        for split, groups in self.missing_groups.items():
            lines.append(f"  no items in the {split}: " + ", ".join(map(str, groups)))
        if self.p_value is not None and self.null is not None:
            lines.append(
                f"  {chance_text(self.p_value)} (random rankings give "
                f"{self.null.mean:+.4f} on average)"
            )
        return "\n".join(lines)

    def __repr__(self) -> str:
        return self.summary()

    def plot(self, kind: str = "skew", *, ax: Any = None) -> Any:
        """Plot the result with matplotlib (an optional dependency); return the Axes.

        Parameters
        ----------
        kind : {"skew", "ndkl"}, default "skew"
            ``"skew"``: each group's Skew@k over the queries (a box of the finite
            values, the number of queries that miss the group in its label).
            ``"ndkl"``: the distribution of NDKL over the queries, with its mean.
        ax : matplotlib Axes, optional
            Where to draw; a new figure by default.

        Returns
        -------
        matplotlib.axes.Axes
        """
        return plot_retrieval(self, kind=kind, ax=ax)

    def to_dict(self, *, queries: bool = True) -> dict[str, Any]:
        """A JSON-safe dictionary of the result (``queries=False`` leaves out ``by_query``;
        ``-inf`` becomes ``None``)."""
        out: dict[str, Any] = {
            "metric": self.metric,
            "family": self.family,
            "value": self.value,
            "k": self.k,
            "mean_ndkl": self.mean_ndkl,
            "mean_min_skew": self.mean_min_skew,
            "reference": self.reference,
            "pool_shares": {str(g): float(s) for g, s in self.pool_shares.items()},
            "reference_shares": {str(g): float(s) for g, s in self.reference_shares.items()},
            "n": self.n,
            "n_items": self.n_items,
            "ci": None if self.ci is None else list(self.ci),
            "ci_level": self.ci_level,
            "se": self.se,
            "ndkl_ci": None if self.ndkl_ci is None else list(self.ndkl_ci),
            "ndkl_se": self.ndkl_se,
            "n_boot": None if self.replicates is None else int(len(self.replicates)),
            "params": self.params,
            "missing_groups": {
                str(split): [str(g) for g in groups]
                for split, groups in self.missing_groups.items()
            },
            "interval_words": interval_words(self.ci, self.ci_level),
            **significance_dict(self),
        }
        if queries:
            out["by_query"] = frame_records(self.by_query.reset_index())
        return _json_safe(out)


def plot_retrieval(result: RetrievalBiasResult, *, kind: str = "skew", ax: Any = None) -> Any:
    """The figure of :meth:`RetrievalBiasResult.plot`."""
    from biasamp.results._plotting import new_axes, plot_texts

    if kind not in ("skew", "ndkl"):
        raise ValueError(ERR_PLOT_KIND.format(got=kind))
    if kind == "ndkl":
        ax = new_axes(ax, figsize=(6.0, 3.6))
        values = result.by_query["ndkl"].to_numpy(dtype=np.float64)
        ax.hist(values, bins=min(30, max(5, len(values) // 5)), color="#4c72b0", edgecolor="white")
        ax.axvline(result.mean_ndkl, color="black", linestyle="--", linewidth=1)
        ax.set_xlabel(f"NDKL@{result.k} per query (0: the reference distribution)")
        ax.set_ylabel("queries")
        ax.set_title(f"mean NDKL@{result.k} = {result.mean_ndkl:.4f}")
        return ax
    skew = result.skew()
    groups = list(skew.columns)
    ax = new_axes(ax, figsize=(max(4.5, 0.9 * len(groups) + 2.0), 3.8))
    finite = [skew[g].to_numpy()[np.isfinite(skew[g].to_numpy())] for g in groups]
    absent = [int(np.isneginf(skew[g].to_numpy()).sum()) for g in groups]
    shown = [v if len(v) else np.array([np.nan]) for v in finite]
    ax.boxplot(shown, showfliers=True)
    labels = plot_texts(groups)
    ax.set_xticks(
        range(1, len(groups) + 1),
        [f"{label}\n({a} absent)" if a else label for label, a in zip(labels, absent, strict=True)],
    )
    ax.axhline(0.0, color="grey", linewidth=0.8)
    ax.set_ylabel(f"Skew@{result.k} = ln(top-{result.k} share / reference)")
    ax.set_title(f"{result.name} = {result.value:+.4f}")
    return ax
