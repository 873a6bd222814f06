"""Result objects returned by the metrics.

A result carries the headline number (``value``, ``float(result)``), the
per-pair table (``by_pair``) whose ``contribution`` column sums to the value,
the settings used, and, when a bootstrap was asked for, the interval.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, overload

import numpy as np
import pandas as pd

from biasamp.registry import MetricCard, find_card, normalize_direction
from biasamp.results._persist import SavableResult, register_result
from biasamp.results._significance import NullDistribution, chance_text

if TYPE_CHECKING:
    from biasamp.counts._count_table import CountTable

__all__ = [
    "LazyResultFrame",
    "MetricNames",
    "MetricResult",
    "MetricResults",
    "PairwiseResult",
    "group_sizes_dict",
    "group_sizes_from_dict",
    "group_sizes_lines",
    "pair_frame",
    "pair_trust_dict",
    "pair_trust_lines",
    "rows_text",
    "significance_dict",
]

ERR_TOP_K = "top: k must be a non-negative integer (the number of rows), got {got!r}."
ERR_TOP_BY = "top: by must be a column of by_pair ({columns}), got {got!r}."


def _json_safe(value: Any) -> Any:
    """Convert numpy / pandas scalars and containers into JSON-safe Python objects."""
    if isinstance(value, dict):
        return {str(k): _json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_safe(v) for v in value]
    if isinstance(value, np.ndarray):
        return [_json_safe(v) for v in value.tolist()]
    if isinstance(value, (np.bool_, bool)):
        return bool(value)
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        value = float(value)
        return value if math.isfinite(value) else None
    if isinstance(value, (str, int)) or value is None:
        return value
    return str(value)


def significance_dict(result: Any) -> dict[str, Any]:
    """``p_value``, ``null`` (its JSON form) and ``chance`` (the p-value in words) of a
    result; ``None`` each when no significance test was run."""
    p = getattr(result, "p_value", None)
    null = getattr(result, "null", None)
    return {
        "p_value": None if p is None else _json_safe(p),
        "null": None if null is None else null.to_dict(),
        "chance": chance_text(p),
    }


def frame_records(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """A DataFrame as JSON-safe records (NaN becomes None)."""
    return [_json_safe(r) for r in frame.to_dict(orient="records")]


def group_sizes_dict(result: Any) -> dict[str, Any]:
    """The group-size fields of a result as JSON-safe values: ``group_sizes`` as
    ``{split: {group: size}}`` (``None`` when not recorded), ``small_groups``,
    ``min_group_size`` and ``never_occurring`` (the number of intersections that
    never occur, ``None`` for groups not made by :func:`biasamp.intersect`)."""
    sizes = getattr(result, "group_sizes", None)
    never = getattr(result, "never_occurring", None)
    return {
        "group_sizes": None
        if sizes is None
        else {
            str(split): {str(g): float(v) for g, v in column.items()}
            for split, column in sizes.items()
        },
        "small_groups": [str(g) for g in getattr(result, "small_groups", ())],
        "min_group_size": getattr(result, "min_group_size", None),
        "never_occurring": None if never is None else len(never),
    }


def group_sizes_from_dict(sizes: Any) -> pd.DataFrame | None:
    """The ``group_sizes`` frame from its :func:`group_sizes_dict` form
    ``{split: {group: size}}`` (``None`` stays ``None``); for readers of JSON
    documents, where group names are strings."""
    if sizes is None:
        return None
    frame = pd.DataFrame(
        {str(split): pd.Series(column, dtype=np.float64) for split, column in sizes.items()}
    ).fillna(0.0)
    frame.index.name = "group"
    return frame


def group_sizes_lines(result: Any) -> list[str]:
    """Summary lines: the smallest group per split, the groups below ``min_group_size``
    and the intersections that never occur."""
    sizes = getattr(result, "group_sizes", None)
    lines = []
    if sizes is not None and len(sizes):
        parts = []
        for split, column in sizes.items():
            present = column[column > 0]
            if len(present):
                parts.append(f"{split} {present.min():g} ({present.idxmin()!s})")
        if parts:
            lines.append("  smallest group: " + ", ".join(parts))
    small = getattr(result, "small_groups", ())
    if small:
        limit = getattr(result, "min_group_size", None)
        shown = ", ".join(str(g) for g in small[:5]) + (", ..." if len(small) > 5 else "")
        lines.append(f"  {len(small)} group(s) below min_group_size={limit:g}: {shown}")
    never = getattr(result, "never_occurring", None)
    if never is not None and len(never):
        lines.append(f"  {len(never)} intersection(s) never occur")
    return lines


def rows_text(count: float) -> str:
    """``"1 row"``, ``"3 rows"``, ``"2.5 rows"``."""
    return f"{count:g} row" + ("" if count == 1 else "s")


def _pair_names(frame: pd.DataFrame) -> list[str]:
    """``"group x task"`` (or ``"group x combination"``) of each row of a per-pair table."""
    other = next((c for c in ("task", "combination", "label") if c in frame.columns), None)
    if "group" not in frame.columns or other is None:
        return []
    return [f"{g!s} x {_pair_part(t)}" for g, t in zip(frame["group"], frame[other], strict=True)]


def _pair_part(value: Any) -> str:
    """A task, or a combination of tasks (``"a & b"``), as a pair's name shows it."""
    return " & ".join(map(str, value)) if isinstance(value, tuple) else str(value)


def _by_pair(result: Any) -> pd.DataFrame | None:
    """``result.by_pair`` when the result type has one (``None`` otherwise)."""
    return getattr(result, "by_pair", None)


def excluded_pair_frame(result: Any) -> pd.DataFrame:
    """The rows of ``result.by_pair`` whose group is absent from a split
    (``result.missing_groups``), with the split named: the pairs those groups leave
    without rows (``group``, ``task``, ``split``; a result without a per-pair table gives
    one row per missing group, ``task`` None)."""
    missing = getattr(result, "missing_groups", None) or {}
    empty = pd.DataFrame({"group": [], "task": [], "split": []}, dtype=object)
    if not missing:
        return empty
    frame = _by_pair(result)
    if frame is None or "group" not in frame.columns:
        rows = [(g, None, split) for split, groups in missing.items() for g in groups]
        return pd.DataFrame(rows, columns=["group", "task", "split"], dtype=object)
    other = next((c for c in ("task", "combination", "label") if c in frame.columns), "task")
    parts = []
    for split, groups in missing.items():  # a loop over the splits
        rows = frame.loc[frame["group"].isin(list(groups)), ["group", other]]
        parts.append(rows.assign(split=split))
    return pd.concat(parts, ignore_index=True).rename(columns={other: "task"})


def pair_trust_dict(result: Any) -> dict[str, Any]:
    """The JSON-safe fields that say how far a result can be trusted: ``min_cell``,
    ``fragile_pairs`` (names of the pairs flagged ``fragile``), ``missing_groups``
    (``{split: [group, ...]}``), ``excluded_pairs`` and ``interval_words``
    (:func:`biasamp.results._intervals.interval_words`)."""
    from biasamp.results._intervals import interval_words

    frame = _by_pair(result)
    fragile: list[str] = []
    if frame is not None and "fragile" in frame.columns:
        fragile = _pair_names(frame.loc[frame["fragile"].to_numpy(dtype=bool)])
    missing = getattr(result, "missing_groups", None) or {}
    excluded = excluded_pair_frame(result)
    return {
        "min_cell": getattr(result, "min_cell", None),
        "fragile_pairs": fragile,
        "missing_groups": {str(s): [str(g) for g in groups] for s, groups in missing.items()},
        "excluded_pairs": [
            f"{g!s} x {_pair_part(t)}" if t is not None else str(g)
            for g, t in zip(excluded["group"], excluded["task"], strict=True)
        ],
        "interval_words": interval_words(
            getattr(result, "ci", None), getattr(result, "ci_level", None)
        ),
    }


def pair_trust_lines(result: Any, *, k: int = 5) -> list[str]:
    """Summary lines: the interval in words, the fragile pairs among the top ``k``, the
    groups missing from a split and how many pairs they leave without rows."""
    from biasamp.results._intervals import interval_words

    lines = []
    words = interval_words(getattr(result, "ci", None), getattr(result, "ci_level", None))
    if words:
        lines.append(f"  {words}")
    frame = _by_pair(result)
    if frame is not None and "fragile" in frame.columns and bool(frame["fragile"].any()):
        n_fragile = int(frame["fragile"].sum())
        top = result.top(k)
        named = _pair_names(top.loc[top["fragile"].to_numpy(dtype=bool)])
        limit = getattr(result, "min_cell", None)
        line = f"  {n_fragile} fragile pair(s) (fewer than min_cell={limit:g} rows)"
        if named:
            line += ", among the top: " + ", ".join(named)
        lines.append(line)
    for split, groups in (getattr(result, "missing_groups", None) or {}).items():
        shown = ", ".join(str(g) for g in list(groups)[:5]) + (", ..." if len(groups) > 5 else "")
        line = f"  missing from {split}: {shown}"
        if frame is not None and "group" in frame.columns:
            n_pairs = int(frame["group"].isin(list(groups)).sum())
            line += f" ({n_pairs} pair(s) without rows, see excluded_pairs)"
        lines.append(line)
    return lines


def pair_frame(table: CountTable, columns: dict[str, np.ndarray]) -> pd.DataFrame:
    """A tidy (group, task) frame from (|G|, |T|) arrays, groups varying slowest."""
    n_g, n_t = len(table.group_names), len(table.task_names)
    data: dict[str, Any] = {
        "group": np.repeat(np.asarray(table.group_names, dtype=object), n_t),
        "task": np.tile(np.asarray(table.task_names, dtype=object), n_g),
    }
    for name, arr in columns.items():
        data[name] = np.asarray(arr).reshape(-1)
    return pd.DataFrame(data)


class LazyResultFrame:
    """A DataFrame field that may be given as a function that builds the frame.

    The per-pair and per-combination tables of a result are built with pandas,
    which costs more than the metric itself on inputs of real audits (COCO's
    5,473 x 79). The metrics pass a builder, so the table is only made, once,
    when it is first read (``result.by_pair``, ``top``, ``to_dict``, ``save``,
    ``==``); ``value``, ``ci`` and ``float(result)`` never need it. A DataFrame
    passed in is kept as it is.
    """

    def __set_name__(self, owner: type, name: str) -> None:
        self._slot = f"_{name}_frame"

    @overload
    def __get__(self, obj: None, objtype: Any = None) -> LazyResultFrame: ...

    @overload
    def __get__(self, obj: object, objtype: Any = None) -> pd.DataFrame: ...

    def __get__(self, obj: object | None, objtype: Any = None) -> pd.DataFrame | LazyResultFrame:
        if obj is None:
            # no class-level default: the dataclass field stays required
            raise AttributeError(self._slot)
        value = obj.__dict__[self._slot]
        if not isinstance(value, pd.DataFrame):
            value = value()
            obj.__dict__[self._slot] = value
        return value

    def __set__(self, obj: object, value: pd.DataFrame | Callable[[], pd.DataFrame]) -> None:
        obj.__dict__[self._slot] = value


class OptionalLazyFrame(LazyResultFrame):
    """:class:`LazyResultFrame` for a field that defaults to ``None`` (``group_sizes``):
    ``None``, a DataFrame, or a function that builds the frame when first read."""

    def __get__(self, obj: object | None, objtype: Any = None) -> Any:
        if obj is None:
            return None  # the dataclass field's default
        value = obj.__dict__.get(self._slot)
        if value is not None and not isinstance(value, pd.DataFrame):
            value = value()
            obj.__dict__[self._slot] = value
        return value

    def __set__(self, obj: object, value: Any) -> None:
        obj.__dict__[self._slot] = value


class MetricNames:
    """The registry's names of a result: ``metric`` (canonical), ``family``, ``title``, ``card``.

    A result's ``metric`` is its metric's canonical name in the registry
    (``"directional-t2a"``, ``"mals"``), on every surface: a family given to the
    constructor with its ``direction`` (``metric="directional", direction="T->A"``,
    as results saved by earlier releases store it) or any accepted spelling becomes
    the canonical name. ``family`` is the library function's family
    (``"directional"``); ``title`` the display title (``"BiasAmp T->A"``).
    """

    if TYPE_CHECKING:  # the fields of the result classes, which are dataclasses
        metric: str | None

    def __post_init__(self) -> None:
        card = find_card(getattr(self, "metric", None), getattr(self, "direction", None))
        if card is not None:
            self.metric = card.name

    @property
    def card(self) -> MetricCard | None:
        """The metric's card in :data:`biasamp.registry.METRICS` (``None`` for a metric
        the registry does not know, such as a custom function's)."""
        return find_card(getattr(self, "metric", None), getattr(self, "direction", None))

    @property
    def family(self) -> str | None:
        """The metric's family, the library function that computes it (``"directional"``
        for ``"directional-t2a"``); the stored ``metric`` when the registry does not
        know it."""
        card = self.card
        return card.family if card is not None else getattr(self, "metric", None)

    @property
    def metric_name(self) -> str:
        """The canonical name of the metric (``"directional-t2a"``, ``"mals"``), as every
        surface prints it: the same as ``metric`` (``"value"`` when there is none)."""
        card = self.card
        if card is not None:
            return card.name
        metric = getattr(self, "metric", None)
        return "value" if metric is None else str(metric)

    @property
    def title(self) -> str:
        """The metric's display title from the registry (``"BiasAmp T->A"``)."""
        card = self.card
        return card.title if card is not None else self.metric_name


class MetricResults(dict[str, Any]):
    """A dict ``{canonical metric name: result}`` that any spelling of a metric indexes.

    ``results["multi-a2t"]``, ``results["Multi G->M"]`` and, when one metric of the
    mapping has that direction, the direction alone (``results["A->T"]``, the key of
    earlier releases) read the same result; ``in`` and ``get`` resolve them too.
    Iterating gives the canonical names.
    """

    def _resolve(self, key: Any) -> Any:
        if dict.__contains__(self, key):
            return key
        card = find_card(key)
        if card is not None and dict.__contains__(self, card.name):
            return card.name
        try:
            direction = normalize_direction(key)
        except ValueError:
            return key
        named = [k for k in self if (c := find_card(k)) is not None and c.direction == direction]
        return named[0] if len(named) == 1 else key

    def __getitem__(self, key: Any) -> Any:
        return dict.__getitem__(self, self._resolve(key))

    def __contains__(self, key: object) -> bool:
        return dict.__contains__(self, self._resolve(key))

    def get(self, key: Any, default: Any = None) -> Any:
        return dict.get(self, self._resolve(key), default)


@dataclass(repr=False, kw_only=True)
class MetricResult(MetricNames, SavableResult):
    """What every co-occurrence result shares: the headline number, sizes, the
    settings, metric-specific extras, the bootstrap interval when asked for, and
    the size of every group per split (``group_sizes``, see :func:`group_sizes_dict`).

    Subclasses add their per-pair (or per-combination) table; ``top(k)`` ranks
    the rows of ``by_pair`` by the absolute value of a column.
    """

    metric: str
    value: float
    direction: str | None = None
    n: float = 0.0
    n_train: float | None = None
    n_pairs: int = 0
    n_empty: int = 0
    params: dict[str, Any] = field(default_factory=dict)
    extras: dict[str, Any] = field(default_factory=dict)
    ci: tuple[float, float] | None = None
    ci_level: float | None = None
    se: float | None = None
    replicates: np.ndarray | None = None
    group_sizes: OptionalLazyFrame = OptionalLazyFrame()  # a DataFrame (or None) when read
    small_groups: tuple[Any, ...] = ()
    min_group_size: float | None = None
    never_occurring: pd.DataFrame | None = None
    min_cell: float | None = None
    missing_groups: dict[str, tuple[Any, ...]] = field(default_factory=dict)
    p_value: float | None = None
    null: NullDistribution | None = None

    def __float__(self) -> float:
        return float(self.value)

    @property
    def fragile_pairs(self) -> pd.DataFrame:
        """The rows of ``by_pair`` flagged ``fragile``: pairs that count in the value and
        rest on fewer than ``min_cell`` rows (empty when the table has no such flag)."""
        frame = self.by_pair
        if "fragile" not in frame.columns:
            return frame.iloc[:0]
        return frame.loc[frame["fragile"].to_numpy(dtype=bool)].reset_index(drop=True)

    @property
    def excluded_pairs(self) -> pd.DataFrame:
        """The pairs that groups of the training split absent from an evaluation split
        (``missing_groups``) leave without rows: ``group``, ``task`` (or the
        combination) and ``split``; empty when no group is missing."""
        return excluded_pair_frame(self)

    def __getstate__(self) -> dict[str, Any]:
        """Pickled and copied with its tables built (a builder may be a local function)."""
        state = dict(self.__dict__)
        for key, value in state.items():
            if key.endswith("_frame") and callable(value):  # a builder, not yet read
                state[key] = value()
        return state

    def __getattr__(self, name: str) -> Any:
        extras = self.__dict__.get("extras", {})
        if name in extras:
            return extras[name]
        raise AttributeError(f"{type(self).__name__!s} has no attribute {name!r}")

    def top(self, k: int = 10, *, by: str = "contribution") -> pd.DataFrame:
        """The ``k`` rows of ``by_pair`` with the largest absolute ``by``, largest first
        (ties keep their table order).

        Raises
        ------
        TypeError
            When ``k`` is not an integer.
        ValueError
            When ``k`` is negative (``head(-1)`` would return every row but one), or
            ``by`` is not a column.
        """
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)):
            raise TypeError(ERR_TOP_K.format(got=k))
        if k < 0:
            raise ValueError(ERR_TOP_K.format(got=k))
        frame = self.by_pair
        if by not in frame.columns:
            raise ValueError(ERR_TOP_BY.format(columns=", ".join(map(str, frame.columns)), got=by))
        order = (
            frame[by].abs().sort_values(ascending=False, na_position="last", kind="stable").index
        )
        return frame.loc[order].head(k).reset_index(drop=True)


def _labels(frame: pd.DataFrame, column: str) -> int:
    return int(frame[column].nunique()) if column in frame.columns else 0


def _pairwise_shapes(result: PairwiseResult) -> dict[str, Any]:
    return {
        "n": result.n,
        "n_train": result.n_train,
        "groups": _labels(result.by_pair, "group"),
        "tasks": _labels(result.by_pair, "task"),
        "n_boot": 0 if result.replicates is None else int(len(result.replicates)),
    }


@register_result("pairwise", shapes=lambda r: _pairwise_shapes(r))
@dataclass(repr=False, kw_only=True)
class PairwiseResult(MetricResult):
    """The result of a pairwise (group x task) co-occurrence metric.

    Attributes
    ----------
    metric : str
        The metric's canonical name in the registry (``"mals"``,
        ``"directional-t2a"``, ``"distribution-mals"``); ``family`` is the function's
        family (``"directional"``) and ``title`` the display title.
    value : float
        The headline number; also ``float(result)``.
    by_pair : pandas.DataFrame
        One row per (group, task) pair with the statistics that produced it and
        ``contribution``, the pair's share of ``value`` (the column sums to it).
        The metrics build it when it is first read; the constructor also takes
        a function returning the frame.
    direction : str or None
        ``"A->T"`` or ``"T->A"`` for directional metrics.
    n : float
        Total weight of the evaluation (or prediction) rows.
    n_train : float or None
        Total weight of the training rows.
    n_pairs : int
        Pairs averaged over (the denominator of the mean).
    n_empty : int
        Pairs left out because their conditioning set is empty (see the docs
        of each metric for the rule).
    params : dict
        Settings used.
    extras : dict
        Metric-specific numbers (for example ``violations`` for MALS).
    ci, ci_level, se, replicates
        Bootstrap interval, its level, standard error and replicate values,
        when ``n_boot`` was given.
    p_value, null
        With ``n_perm``: the p-value against chance and the metric's
        :class:`~biasamp.results.NullDistribution` under the paired swap test
        (``docs/uncertainty.md``, "Significance against chance").
    group_sizes : pandas.DataFrame or None
        Size of each group (rows, or the sum of ``sample_weight``), indexed by
        ``group``, one column per split the metric read: ``"train"``,
        ``"evaluation"`` (ground truth) and ``"predicted"`` (the model's groups,
        when the metric reads them). ``None`` in results saved before sizes
        were recorded.
    small_groups : tuple
        The groups below ``min_group_size`` in a checked split (a
        :class:`SmallGroupWarning` named them).
    min_group_size : float or None
        The threshold used (``None``: not checked).
    never_occurring : pandas.DataFrame or None
        For groups from :func:`biasamp.intersect`: the combinations of the
        columns' values that no row has.
    min_cell : float or None
        Pairs that count in the value and rest on fewer rows than this (the
        ``support`` column) are flagged ``fragile`` in ``by_pair`` (``None``: not
        checked, or a result saved before the flag); ``fragile_pairs`` lists them
        and a :class:`FragilePairWarning` named those among the top contributors.
    missing_groups : dict
        ``{split: (group, ...)}``: the groups of the training split with no rows in
        another split (a :class:`MissingGroupWarning` named them);
        ``excluded_pairs`` lists the pairs they leave without rows.

    The per-pair counts in ``by_pair``: ``n_train`` (training rows of the pair),
    ``n_true`` (evaluation ground truth), ``n_pred`` (the roles read from the
    model), ``support`` (the rows the pair's value is a rate over) and
    ``fragile`` (see ``docs/uncertainty.md``, "Counts behind each pair").
    """

    by_pair: LazyResultFrame = LazyResultFrame()

    @property
    def name(self) -> str:
        """Display name, the registry's title, for example ``BiasAmp A->T``."""
        if self.card is not None:
            return self.title
        return f"{self.metric} {self.direction}" if self.direction else str(self.metric)

    def summary(self, k: int = 5) -> str:
        """A short human-readable summary."""
        lines = [f"{self.name} = {self.value:+.4f}"]
        if self.ci is not None:
            lines[0] += f"  [{self.ci[0]:+.4f}, {self.ci[1]:+.4f}] ({self.ci_level:.0%} CI)"
        lines.append(
            f"  n={self.n:g}"
            + (f", n_train={self.n_train:g}" if self.n_train is not None else "")
            + f", pairs={self.n_pairs}"
            + (f", empty pairs left out={self.n_empty}" if self.n_empty else "")
        )
        if self.p_value is not None:
            lines.append(f"  {chance_text(self.p_value)}")
        for key, val in self.extras.items():
            if np.isscalar(val):
                lines.append(f"  {key}={format(val)}")
        lines += group_sizes_lines(self)
        lines += pair_trust_lines(self, k=k)
        top = self.top(k)
        if len(top):
            lines.append("  top pairs:")
            fragile = top["fragile"] if "fragile" in top.columns else [False] * len(top)
            for row, flag in zip(top.itertuples(index=False), fragile, strict=True):
                lines.append(
                    f"    {row.group!s:>12} x {row.task!s:<20} contribution {row.contribution:+.4f}"
                    + (f"  fragile ({rows_text(float(row.support))})" if flag else "")  # type: ignore[arg-type]
                )
        return "\n".join(lines)

    def __repr__(self) -> str:
        return self.summary()

    def plot(self, kind: str = "pairs", *, ax: Any = None, **kwargs: Any) -> Any:
        """Plot the result with matplotlib (an optional dependency); return the Axes.

        Parameters
        ----------
        kind : {"pairs", "heatmap", "bias"}, default "pairs"
            ``"pairs"``: the top pairs' ``delta`` as bars (``k=10``), with
            interval bars when available. ``"heatmap"``: the group x task
            ``delta`` matrix (``max_tasks=40``). ``"bias"``: training against
            predicted bias per task with the margin band (MALS results only).
        ax : matplotlib Axes, optional
            Where to draw; a new figure by default.
        **kwargs
            Passed to the plotting function of ``kind``.

        Returns
        -------
        matplotlib.axes.Axes
        """
        from biasamp.results._plotting import plot_result

        return plot_result(self, kind=kind, ax=ax, **kwargs)

    def to_dict(self, *, pairs: bool = True) -> dict[str, Any]:
        """A JSON-safe dictionary of the result (``pairs=False`` leaves out ``by_pair``)."""
        out: dict[str, Any] = {
            "metric": self.metric,
            "family": self.family,
            "direction": self.direction,
            "value": self.value,
            "n": self.n,
            "n_train": self.n_train,
            "n_pairs": self.n_pairs,
            "n_empty": self.n_empty,
            "params": self.params,
            "extras": self.extras,
            "ci": list(self.ci) if self.ci is not None else None,
            "ci_level": self.ci_level,
            "se": self.se,
            "n_boot": None if self.replicates is None else int(len(self.replicates)),
            **group_sizes_dict(self),
            **pair_trust_dict(self),
            **significance_dict(self),
        }
        if pairs:
            out["by_pair"] = frame_records(self.by_pair)
        return _json_safe(out)
