"""The result of a multi-attribute metric (Multi_MALS, Multi->)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import pandas as pd

from biasamp.results._base import (
    LazyResultFrame,
    MetricResult,
    _json_safe,
    frame_records,
    group_sizes_dict,
    group_sizes_lines,
    pair_trust_dict,
    pair_trust_lines,
    rows_text,
    significance_dict,
)
from biasamp.results._persist import register_result
from biasamp.results._significance import chance_text

__all__ = ["MultiAttributeResult"]


def _shapes(result: MultiAttributeResult) -> dict[str, Any]:
    frame = result.by_combination
    return {
        "n": result.n,
        "n_train": result.n_train,
        "groups": int(frame["group"].nunique()) if "group" in frame.columns else 0,
        "n_combinations": result.n_combinations,
        "n_boot": 0 if result.replicates is None else int(len(result.replicates)),
    }


#: The paper's direction names and biasamp's, both ways.
_PAPER = {"A->T": "G->M", "T->A": "M->G", "G->M": "G->M", "M->G": "M->G"}
_OURS = {"A->T": "A->T", "T->A": "T->A", "G->M": "A->T", "M->G": "T->A"}


@register_result("multi_attribute", shapes=lambda r: _shapes(r))
@dataclass(repr=False, kw_only=True)
class MultiAttributeResult(MetricResult):
    """The result of a multi-attribute bias amplification metric.

    Attributes
    ----------
    metric : str
        The family, ``"multi_mals"`` or ``"multi_directional"``; ``metric_name`` is the
        canonical name (``"multi-mals"``, ``"multi-a2t"``, ``"multi-t2a"``).
    value : float
        X, the mean over (group, combination) pairs (also ``float(result)``).
    variance : float
        Population variance of the raw signed ``Delta_gm`` (the reference
        code's ``nanvar``); see the module docs for the pairs it covers.
    by_combination : pandas.DataFrame
        One row per (combination, group): ``combination`` (tuple of task
        names), ``size``, ``group``, ``support_train`` / ``support_eval``
        (rows containing the combination), the statistics of the metric,
        ``delta``, ``term`` and ``contribution`` (sums to ``value``). The
        metrics build it when it is first read (it can have millions of rows);
        the constructor also takes a function returning the frame.
    by_size : pandas.DataFrame
        Per combination size: ``n_combinations``, ``value`` (the metric over
        the combinations of that size only), ``variance`` (the paper's figure 2).
    direction : str or None
        The direction as passed: ``"G->M"`` / ``"M->G"`` (the paper's names)
        or ``"A->T"`` / ``"T->A"`` (the same directions).
    absolute : bool
        Whether the terms are absolute differences.
    n, n_train : float
        Total weight of the evaluation and training rows.
    n_combinations : int
        |M|.
    n_pairs, n_empty : int
        Pairs in the mean (biased pairs for MALS) and pairs left out as empty.
    params, extras : dict
        Settings used and metric-specific numbers.
    ci, ci_level, se, replicates
        Bootstrap interval, level, standard error and replicate values.
    group_sizes, small_groups, min_group_size, never_occurring
        Size of each group per split and the small-group check, as in
        :class:`PairwiseResult`.
    """

    variance: float
    by_combination: LazyResultFrame = LazyResultFrame()
    by_size: pd.DataFrame
    absolute: bool = True
    n_combinations: int = 0

    @property
    def by_pair(self) -> pd.DataFrame:
        """Alias of :attr:`by_combination` (the name the pairwise results use)."""
        return self.by_combination

    @property
    def direction_ours(self) -> str | None:
        """The direction in biasamp's names, ``"A->T"`` or ``"T->A"`` (whichever name was passed)."""
        return _OURS.get(str(self.direction), self.direction)

    @property
    def direction_paper(self) -> str | None:
        """The direction in the paper's names, ``"G->M"`` or ``"M->G"``."""
        return _PAPER.get(str(self.direction), self.direction)

    @property
    def name(self) -> str:
        """Display name: the registry's title, ``Multi_MALS`` or ``Multi A->T (G->M)`` (with
        the paper's name of the direction), ``[raw]`` added for raw differences."""
        base = self.title
        if self.direction is not None:
            base = f"{base} ({self.direction_paper})"
        return base if self.absolute else f"{base} [raw]"

    def summary(self, k: int = 5) -> str:
        """A short human-readable summary."""
        head = f"{self.name} = {self.value:+.4f}, variance {self.variance:.4f}"
        if self.ci is not None:
            head += f"  [{self.ci[0]:+.4f}, {self.ci[1]:+.4f}] ({self.ci_level:.0%} CI)"
        lines = [
            head,
            (
                f"  n={self.n:g}"
                + (f", n_train={self.n_train:g}" if self.n_train is not None else "")
                + f", combinations={self.n_combinations} ({self.params.get('combinations')}), "
                + f"pairs={self.n_pairs}"
                + (f", empty left out={self.n_empty}" if self.n_empty else "")
            ),
        ]
        if self.p_value is not None:
            lines.append(f"  {chance_text(self.p_value)}")
        if len(self.by_size) > 1:
            # pandas-stubs types row attributes as the union of every scalar type
            size_rows: Iterable[Any] = self.by_size.itertuples(index=False)
            sizes = ", ".join(
                f"|m|={int(r.size)}: {r.value:+.4f} ({int(r.n_combinations)})" for r in size_rows
            )
            lines.append(f"  by size: {sizes}")
        lines += group_sizes_lines(self)
        lines += pair_trust_lines(self, k=k)
        top = self.top(k)
        if len(top):
            lines.append("  top combinations:")
            row: Any
            fragile = top["fragile"] if "fragile" in top.columns else [False] * len(top)
            for row, flag in zip(top.itertuples(index=False), fragile, strict=True):
                combo = "{" + ", ".join(str(t) for t in row.combination) + "}"
                lines.append(
                    f"    {row.group!s:>12} x {combo:<40} delta {row.delta:+.4f}"
                    f"  contribution {row.contribution:+.4f}"
                    + (f"  fragile ({rows_text(row.support)})" if flag else "")
                )
        return "\n".join(lines)

    def __repr__(self) -> str:
        return self.summary()

    def plot(self, kind: str = "size", *, ax: Any = None, **kwargs: Any) -> Any:
        """Plot with matplotlib (optional dependency); returns the Axes.

        Parameters
        ----------
        kind : {"size", "combinations"}, default "size"
            ``"size"``: the metric over the combinations of each size (the
            paper's figure 2), with the overall value and its interval.
            ``"combinations"``: the top combinations' ``delta`` as bars (``k=10``),
            with interval bars when the bootstrap gave them.
        ax : matplotlib Axes, optional
            Where to draw (a new constrained-layout figure by default).
        **kwargs
            Passed on (``k`` for ``"combinations"``).
        """
        from biasamp.results._plotting import plot_multi_attribute

        return plot_multi_attribute(self, kind=kind, ax=ax, **kwargs)

    def to_dict(self, *, combinations: bool = True) -> dict[str, Any]:
        """A JSON-safe dictionary (``combinations=False`` leaves out ``by_combination``)."""
        out: dict[str, Any] = {
            "metric": self.metric,
            "family": self.family,
            "direction": self.direction,
            "absolute": self.absolute,
            "value": self.value,
            "variance": self.variance,
            "n": self.n,
            "n_train": self.n_train,
            "n_combinations": self.n_combinations,
            "n_pairs": self.n_pairs,
            "n_empty": self.n_empty,
            "params": self.params,
            "extras": self.extras,
            "ci": list(self.ci) if self.ci is not None else None,
            "ci_level": self.ci_level,
            "se": self.se,
            "n_boot": None if self.replicates is None else int(len(self.replicates)),
            "by_size": frame_records(self.by_size),
            **group_sizes_dict(self),
            **pair_trust_dict(self),
            **significance_dict(self),
        }
        if combinations:
            frame = self.by_combination.copy()
            frame["combination"] = [list(c) for c in frame["combination"]]
            out["by_combination"] = frame_records(frame)
        return _json_safe(out)


# ----------------------------------------------------------------------------- M
