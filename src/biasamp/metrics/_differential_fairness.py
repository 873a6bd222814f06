"""Differential fairness (Foulds, Islam, Keya and Pan, ICDE 2020) and its amplification.

.. math::

    P_\\alpha(y | s) = \\frac{N_{y,s} + \\alpha / K}{N_s + \\alpha}

    \\varepsilon = \\max_{y} \\max_{s_i, s_j} |\\log P_\\alpha(y | s_i) - \\log P_\\alpha(y | s_j)|

over the groups ``s`` that occur and the K label classes (smoothed empirical
differential fairness, eq. 5 with Dirichlet smoothing, ``alpha`` the
concentration). The amplification is ``epsilon(predictions) - epsilon(labels)``
on the same rows and groups (Foulds et al., section 6; AIF360's
``differential_fairness_bias_amplification``).

Choices (see ``docs/intersectional.md``):

* **Groups** (``empty_groups``): by default (``"drop"``) the groups with a
  positive weight in the rows counted; a group with no weight has no data and no
  rate. ``"smooth"`` keeps every group of the label space (every group some row
  has, whatever its weight, and every group named in ``group_names``) and gives
  a group of weight 0 the smoothed rate ``1/K`` of every class, as AIF360 does
  for a group whose rows all have weight 0 (AIF360's groups are ``np.unique`` of
  the protected attributes, weights aside). Groups from :func:`biasamp.intersect`
  also list the intersections that never occur.
* **Classes**: every class of the label space (the labels' classes, or
  ``label_names``), K of them; binary labels give both classes, the positive and
  the negative rate, as AIF360's ``pos_ratio`` and ``neg_ratio``.
* **Weights** multiply the counts, as AIF360's ``instance_weights``.
* **Bootstrap**: the rows are resampled (Poisson or multinomial replicate
  weights); the set of groups stays that of the data, and a group with no weight
  in a replicate leaves that replicate's maximum.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from biasamp.counts._count_table import CountTable, check_count_table, label_matrices
from biasamp.counts._swaps import SwapReplicates, check_n_perm, swap_count_table
from biasamp.inputs._alignment import align_pandas_indexes
from biasamp.inputs._group_sizes import (
    DEFAULT_MIN_GROUP_SIZE,
    MissingGroupWarning,
    check_min_group_size,
    missing_groups_message,
)
from biasamp.inputs._intersect import Intersection, intersection_of
from biasamp.inputs._label_matrix import LabelMatrix, as_sample_weight, check_same_length
from biasamp.metrics._bootstrap import check_bootstrap_args, replicate_splits
from biasamp.metrics._group_sizes import check_group_sizes
from biasamp.metrics._significance import check_swap_memory
from biasamp.results._differential_fairness import DifferentialFairnessResult, epsilon_driver
from biasamp.results._intervals import interval_from_replicates
from biasamp.results._significance import with_significance

__all__ = [
    "differential_fairness",
    "differential_fairness_amplification",
    "differential_fairness_amplification_from_counts",
    "differential_fairness_arrays",
    "differential_fairness_from_counts",
]

ERR_INFINITE_EPSILON = (
    "concentration={concentration:g}: epsilon of labels and of labels_pred are both infinite "
    "(a group never has a label that another group has, and nothing smooths the rate 0), so "
    "their difference is not a number; use concentration > 0 (the default 1 is Foulds et "
    "al.'s)."
)
ERR_REQUIRED = "{arg}: expected an array-like of one label per row, got None."
ERR_CONCENTRATION = "concentration: expected a finite number >= 0, got {got!r}."
ERR_ONE_LABEL_PER_ROW = (
    "{arg}: differential fairness needs one label per row (a 1-D array of classes), "
    "got {k} indicator columns."
)
ERR_ONE_GROUP_PER_ROW = (
    "groups: differential fairness needs one group per row, got {k} indicator columns; "
    "to intersect several categorical columns use biasamp.intersect(...)."
)
ERR_GROUP_COLUMNS = (
    "groups: got {k} columns of categories ({columns}); differential fairness needs one "
    "group per row: intersect the columns first, groups=biasamp.intersect(frame[[{quoted}]])."
)
ERR_TABLE_ROLES = "{what}: the count table needs the roles {need}; it has {have}."
ERR_NO_GROUPS = "groups: no group has a positive weight; differential fairness is undefined."
ERR_EMPTY_GROUPS = "empty_groups: expected 'drop' or 'smooth', got {got!r}."


def _check_empty_groups(empty_groups: Any) -> str:
    if empty_groups not in ("drop", "smooth"):
        raise ValueError(ERR_EMPTY_GROUPS.format(got=empty_groups))
    return str(empty_groups)


_SPLIT = "evaluation"
# the count table's role names, as this module's arguments call them
_ARGUMENTS = {"tasks_pred": "labels_pred", "tasks": "labels", "task_names": "label_names"}
_ROLE_WORDS = re.compile(r"\b(?:tasks_pred|task_names|tasks)\b")


def _check_concentration(concentration: Any) -> float:
    try:
        value = float(concentration)
    except (TypeError, ValueError):
        raise ValueError(ERR_CONCENTRATION.format(got=concentration)) from None
    if isinstance(concentration, bool) or not np.isfinite(value) or value < 0:
        raise ValueError(ERR_CONCENTRATION.format(got=concentration))
    return value


def differential_fairness_arrays(
    counts: np.ndarray, sizes: np.ndarray, *, concentration: float, keep_empty: bool = False
) -> dict[str, np.ndarray]:
    """Smoothed rates, log-rates and epsilon from counts (batched over leading axes).

    Parameters
    ----------
    counts : ndarray of shape (..., |G|, K)
        Weighted count of each class in each group.
    sizes : ndarray of shape (..., |G|)
        Weighted size of each group; groups of size 0 leave the maximum, unless
        ``keep_empty``.
    concentration : float
        Dirichlet concentration; each class gets ``concentration / K``.
    keep_empty : bool, default False
        Keep groups of size 0 with their smoothed rate ``1/K`` (``empty_groups="smooth"``);
        with ``concentration=0`` their rate is undefined and they leave the maximum.

    Returns
    -------
    dict
        ``rate`` (..., |G|, K), ``log_rate`` (..., |G|, K) (NaN for empty
        groups) and ``epsilon`` (...): the largest absolute log-ratio of a
        class's rate between two groups.

    Examples
    --------
    >>> import numpy as np
    >>> out = differential_fairness_arrays(np.array([[3.0, 1.0], [1.0, 3.0]]),
    ...                                    np.array([4.0, 4.0]), concentration=1.0)
    >>> out["rate"]
    array([[0.7, 0.3],
           [0.3, 0.7]])
    >>> round(float(out["epsilon"]), 6)  # log(0.7 / 0.3)
    0.847298
    """
    k = counts.shape[-1]
    present = sizes > 0
    if keep_empty and concentration > 0:
        present = np.ones_like(present)
    with np.errstate(divide="ignore", invalid="ignore"):
        rate = (counts + concentration / k) / (sizes[..., None] + concentration)
        log_rate = np.where(present[..., None], np.log(rate), np.nan)
    high = np.max(np.where(np.isnan(log_rate), -np.inf, log_rate), axis=-2)
    low = np.min(np.where(np.isnan(log_rate), np.inf, log_rate), axis=-2)
    with np.errstate(invalid="ignore"):
        spread = high - low  # (..., K); inf - inf (every group at rate 0) is no spread
    spread = np.where(np.isnan(spread) | (high == low), 0.0, spread)
    return {"rate": rate, "log_rate": log_rate, "epsilon": spread.max(axis=-1)}


def _roles(table: CountTable, pred: bool, what: str) -> None:
    need = [("groups", "tasks")] + ([("groups", "tasks_pred")] if pred else [])
    missing = [key for key in need if key not in table.joint]
    if missing:
        raise ValueError(
            ERR_TABLE_ROLES.format(
                what=what,
                need=", ".join(f"{g} x {t}" for g, t in need),
                have=", ".join(f"{g} x {t}" for g, t in table.joint) or "none",
            )
        )


def _evaluate(
    table: CountTable,
    *,
    pred: bool,
    concentration: float,
    min_group_size: float | None,
    intersection: Intersection | None,
    ci: float,
    params: dict[str, Any],
    replicates: CountTable | None = None,
    stacklevel: int = 4,
    empty_groups: str = "drop",
) -> DifferentialFairnessResult:
    sizes_all = np.asarray(table.totals["groups"], dtype=np.float64)
    present = sizes_all > 0
    if not present.any():
        raise ValueError(ERR_NO_GROUPS)
    keep_empty = empty_groups == "smooth" and concentration > 0
    if keep_empty:  # every group of the label space, a weightless one at rate 1/K
        present = np.ones_like(present)
    params["empty_groups"] = empty_groups
    groups = [g for g, keep in zip(table.group_names, present, strict=True) if keep]
    sizes = sizes_all[present]
    sources = {"labels": table.joint[("groups", "tasks")][present]}
    if pred:
        sources["pred"] = table.joint[("groups", "tasks_pred")][present]
    arrays = {
        s: differential_fairness_arrays(
            c, sizes, concentration=concentration, keep_empty=keep_empty
        )
        for s, c in sources.items()
    }
    classes = tuple(table.task_names)
    k = len(classes)
    rates = pd.DataFrame(
        {
            "group": np.repeat(np.asarray(groups, dtype=object), k),
            "label": np.tile(np.asarray(classes, dtype=object), len(groups)),
        }
    )
    for s in sources:
        rates[f"count_{s}"] = sources[s].reshape(-1)
        rates[f"rate_{s}"] = arrays[s]["rate"].reshape(-1)
    group_sizes, small = check_group_sizes(
        {_SPLIT: table}, min_group_size=min_group_size, stacklevel=stacklevel + 1
    )
    absent = tuple(g for g, size in zip(table.group_names, sizes_all, strict=True) if size <= 0)
    if absent:  # named in group_names (or every row weighs 0): no rate of its own
        warnings.warn(
            missing_groups_message(
                absent,
                split="the evaluation split",
                reference="group_names",
                then="They have no rate of their own (empty_groups='smooth' gives them 1/K); "
                "see result.missing_groups.",
            ),
            MissingGroupWarning,
            stacklevel=stacklevel + 1,
        )
    if not keep_empty:
        group_sizes = group_sizes[group_sizes[_SPLIT] > 0]
    eps_labels = float(arrays["labels"]["epsilon"])
    eps_pred = float(arrays["pred"]["epsilon"]) if pred else None
    if eps_pred is not None and np.isinf(eps_pred) and np.isinf(eps_labels):
        # rates of 0 without smoothing: both epsilons are infinite, and their
        # difference is no number (inf - inf = NaN)
        raise ValueError(ERR_INFINITE_EPSILON.format(concentration=concentration))
    value = eps_pred - eps_labels if eps_pred is not None else eps_labels
    parts, never = None, None
    if intersection is not None:
        parts = intersection.parts.reindex(pd.Index(groups))
        parts.index.name = "group"
        never = intersection.never_occurring()
    result = DifferentialFairnessResult(
        metric="differential_fairness_amplification" if pred else "differential_fairness",
        value=float(value),
        epsilon_labels=eps_labels,
        epsilon_pred=eps_pred,
        concentration=concentration,
        classes=classes,
        rates=rates,
        group_sizes=group_sizes,
        small_groups=tuple(small),
        min_group_size=min_group_size,
        group_parts=parts,
        never_occurring=never,
        n=float(np.asarray(table.n)),
        ci_level=float(ci),
        params=params,
        driver_labels=epsilon_driver(
            arrays["labels"]["log_rate"], groups, classes, epsilon=eps_labels
        ),
        driver_pred=None
        if eps_pred is None
        else epsilon_driver(arrays["pred"]["log_rate"], groups, classes, epsilon=eps_pred),
        missing_groups={_SPLIT: absent} if absent else {},
    )
    if replicates is not None:
        _add_interval(result, replicates, present=present, pred=pred, ci=ci, keep_empty=keep_empty)
    return result


def _add_interval(
    result: DifferentialFairnessResult,
    replicates: CountTable,
    *,
    present: np.ndarray,
    pred: bool,
    ci: float,
    keep_empty: bool = False,
) -> None:
    sizes = np.asarray(replicates.totals["groups"], dtype=np.float64)[..., present]
    eps = {
        s: differential_fairness_arrays(
            replicates.joint[("groups", role)][..., present, :],
            sizes,
            concentration=result.concentration,
            keep_empty=keep_empty,
        )["epsilon"]
        for s, role in (("labels", "tasks"), ("pred", "tasks_pred"))
        if s == "labels" or pred
    }
    values = eps["pred"] - eps["labels"] if pred else eps["labels"]
    overall = interval_from_replicates(values, ci=ci)
    result.ci = (float(overall.low), float(overall.high))
    result.se = float(overall.se)
    result.replicates = np.asarray(values, dtype=np.float64)
    labels = interval_from_replicates(eps["labels"], ci=ci)
    result.ci_labels = (float(labels.low), float(labels.high))
    if pred:
        predicted = interval_from_replicates(eps["pred"], ci=ci)
        result.ci_pred = (float(predicted.low), float(predicted.high))


def _check_group_columns(groups: Any) -> None:
    """Several categorical columns (``df[["race", "sex"]]``) are refused with a pointer to
    :func:`biasamp.intersect`, not read as an indicator matrix (which must be numeric)."""
    frame = _as_frame(groups)
    if frame is None or frame.shape[1] < 2:
        return
    categorical = [
        column
        for column in frame.columns
        if not (
            pd.api.types.is_numeric_dtype(frame[column])
            or pd.api.types.is_bool_dtype(frame[column])
        )
    ]
    if categorical:
        names = [str(c) for c in frame.columns]
        raise TypeError(
            ERR_GROUP_COLUMNS.format(
                k=len(names),
                columns=", ".join(names),
                quoted=", ".join(repr(c) for c in frame.columns),
            )
        )


def _as_frame(groups: Any) -> pd.DataFrame | None:
    """A 2-D ``groups`` (pandas or polars frame, 2-D array) as a pandas frame, else None."""
    if isinstance(groups, pd.DataFrame):
        return groups
    if type(groups).__module__.split(".")[0] == "polars" and hasattr(groups, "to_pandas"):
        if getattr(groups, "ndim", 2) == 2 and hasattr(groups, "columns"):
            return groups.to_pandas()
        return None
    if isinstance(groups, np.ndarray) and groups.ndim == 2:
        return pd.DataFrame(groups)
    return None


def _matrices(
    *,
    groups: Any,
    labels: Any,
    labels_pred: Any,
    group_names: Sequence[Any] | None,
    label_names: Sequence[Any] | None,
) -> dict[str, LabelMatrix]:
    _check_group_columns(groups)
    try:
        matrices = label_matrices(
            groups=groups,
            tasks=labels,
            tasks_pred=labels_pred,
            group_names=group_names,
            task_names=label_names,
        )
    except (ValueError, TypeError) as error:  # name the arguments of this function
        renamed = _ROLE_WORDS.sub(lambda m: _ARGUMENTS[m.group(0)], str(error))
        raise type(error)(renamed) from error
    for role, arg in (("groups", "groups"), ("tasks", "labels")):
        if role not in matrices:  # None given
            raise TypeError(ERR_REQUIRED.format(arg=arg))
    if matrices["groups"].codes is None:
        raise ValueError(ERR_ONE_GROUP_PER_ROW.format(k=len(matrices["groups"].names)))
    for role, arg in (("tasks", "labels"), ("tasks_pred", "labels_pred")):
        if role in matrices and matrices[role].codes is None:
            raise ValueError(ERR_ONE_LABEL_PER_ROW.format(arg=arg, k=len(matrices[role].names)))
    return matrices


def _count_codes(matrices: dict[str, LabelMatrix], sample_weight: Any) -> CountTable:
    """The count table of one-label-per-row roles: a ``bincount`` of group x class codes.

    Equal to ``CountTable.from_label_matrices`` on these roles, in O(rows) time and
    O(|G| K) memory (no (rows, |G|) indicator matrix).
    """
    groups = matrices["groups"]
    check_same_length(**{_ARGUMENTS.get(role, role): m for role, m in matrices.items()})
    codes_g = np.asarray(groups.codes, dtype=np.intp)
    n_groups, n_rows = len(groups.names), codes_g.size
    weights = None if sample_weight is None else as_sample_weight(sample_weight, n_rows)
    totals = {"groups": np.bincount(codes_g, weights=weights, minlength=n_groups).astype(float)}
    joint: dict[tuple[str, str], np.ndarray] = {}
    for role in ("tasks", "tasks_pred"):
        if role not in matrices:
            continue
        k = len(matrices[role].names)
        codes = np.asarray(matrices[role].codes, dtype=np.intp)
        totals[role] = np.bincount(codes, weights=weights, minlength=k).astype(float)
        key = codes_g * k + codes
        joint[("groups", role)] = (
            np.bincount(key, weights=weights, minlength=n_groups * k)
            .astype(float)
            .reshape(n_groups, k)
        )
    n = float(n_rows) if weights is None else float(weights.sum())
    return CountTable(
        group_names=tuple(groups.names),
        task_names=tuple(matrices["tasks"].names),
        n=np.asarray(n),
        totals=totals,
        joint=joint,
        n_rows=n_rows,
    )


def _compute(
    *,
    groups: Any,
    labels: Any,
    labels_pred: Any,
    concentration: Any,
    sample_weight: Any,
    group_names: Sequence[Any] | None,
    label_names: Sequence[Any] | None,
    min_group_size: Any,
    n_boot: int | None,
    ci: float,
    random_state: Any,
    bootstrap: str,
    progress: bool,
    empty_groups: str = "drop",
    n_perm: Any = 0,
) -> DifferentialFairnessResult:
    alpha = _check_concentration(concentration)
    n_perm = check_n_perm(n_perm)
    limit = check_min_group_size(min_group_size)
    empty_groups = _check_empty_groups(empty_groups)
    if n_boot is not None:
        check_bootstrap_args(
            n_boot=n_boot, ci=ci, bootstrap=bootstrap, resample_train=False, progress=progress
        )
    pred = labels_pred is not None
    aligned = align_pandas_indexes(
        groups=groups, labels=labels, labels_pred=labels_pred, sample_weight=sample_weight
    )
    groups, labels = aligned["groups"], aligned["labels"]
    labels_pred, sample_weight = aligned["labels_pred"], aligned["sample_weight"]
    matrices = _matrices(
        groups=groups,
        labels=labels,
        labels_pred=labels_pred,
        group_names=group_names,
        label_names=label_names,
    )
    table = _count_codes(matrices, sample_weight)
    replicates = None
    params: dict[str, Any] = {"concentration": alpha}
    if n_boot is not None:
        replicates, _ = replicate_splits(
            evaluation=matrices,
            n_boot=n_boot,
            random_state=random_state,
            bootstrap=bootstrap,
            sample_weight=sample_weight,
            progress=progress,
            metric="differential_fairness",
        )
        params["bootstrap"] = {"method": bootstrap, "n_boot": int(n_boot)}
    result = _evaluate(
        table,
        pred=pred,
        concentration=alpha,
        min_group_size=limit,
        intersection=intersection_of(groups),
        ci=ci,
        params=params,
        replicates=replicates,
        stacklevel=5,
        empty_groups=empty_groups,
    )
    if not (n_perm and pred):
        return result
    return _swap_test(
        result, matrices, table, sample_weight=sample_weight, n_perm=n_perm,
        random_state=random_state, keep_empty=empty_groups == "smooth" and alpha > 0,
        progress=progress,
    )  # fmt: skip


def _swap_test(
    result: DifferentialFairnessResult,
    matrices: dict[str, LabelMatrix],
    table: CountTable,
    *,
    sample_weight: Any,
    n_perm: int,
    random_state: Any,
    keep_empty: bool,
    progress: bool,
) -> DifferentialFairnessResult:
    """``p_value`` and ``null`` of the paired swap test: the swapped tables (each row's
    label and predicted class swapped with probability 1/2) counted at once; the group
    sizes, and so the groups kept, do not change under a swap."""
    check_swap_memory(n_perm, table)
    sizes = np.asarray(table.totals["groups"], dtype=np.float64)
    present = np.ones_like(sizes, dtype=bool) if keep_empty else sizes > 0
    swapped = swap_count_table(
        matrices,
        swaps=SwapReplicates(n_perm, random_state=random_state),
        sample_weight=sample_weight,
        progress=progress,
    )
    eps = {
        role: differential_fairness_arrays(
            swapped.joint[("groups", role)][..., present, :],
            sizes[present],
            concentration=result.concentration,
            keep_empty=keep_empty,
        )["epsilon"]
        for role in ("tasks", "tasks_pred")
    }
    with np.errstate(invalid="ignore"):
        values = eps["tasks_pred"] - eps["tasks"]  # inf - inf (no smoothing) is NaN: left out
    out = with_significance(result, values, method="paired-swap", alternative="greater")
    out.params = {
        **result.params,
        "significance": {"null": "paired-swap", "n_perm": n_perm, "alternative": "greater"},
    }
    return out


def differential_fairness(
    *,
    groups: Any,
    labels: Any,
    concentration: float = 1.0,
    sample_weight: Any = None,
    group_names: Sequence[Any] | None = None,
    label_names: Sequence[Any] | None = None,
    min_group_size: float | None = DEFAULT_MIN_GROUP_SIZE,
    n_boot: int | None = None,
    ci: float = 0.95,
    random_state: Any = None,
    bootstrap: str = "poisson",
    progress: bool = False,
    empty_groups: str = "drop",
) -> DifferentialFairnessResult:
    """Smoothed empirical differential fairness, epsilon (Foulds et al., ICDE 2020).

    epsilon is the largest absolute log-ratio of a class's smoothed rate
    ``P(y | s) = (N_ys + concentration / K) / (N_s + concentration)`` between any
    two groups ``s`` that occur; 0 means every group has the same label rates.

    Parameters
    ----------
    groups : array-like of shape (n,)
        One group per row; for intersections of several columns, the output of
        :func:`biasamp.intersect`.
    labels : array-like of shape (n,)
        One class per row (binary or multiclass).
    concentration : float, default 1.0
        Dirichlet concentration (>= 0); each of the K classes gets
        ``concentration / K``, as AIF360's ``smoothed_empirical_differential_fairness``.
    sample_weight : array-like of shape (n,), optional
        Non-negative row weights (they multiply the counts).
    group_names, label_names : sequence, optional
        The label spaces (for example both classes of a binary label that one
        split lacks); groups named but absent have no rate.
    min_group_size : float or None, default 30
        Groups smaller than this (rows, or weight) raise a
        :class:`SmallGroupWarning`; ``None`` checks nothing.
    n_boot : int, optional
        Bootstrap replicates of the rows for the ``ci`` interval.
    ci : float, default 0.95
    random_state : None, int, numpy Generator, RandomState or SeedSequence
        Seed of the bootstrap.
    bootstrap : {"poisson", "multinomial"}, default "poisson"
    progress : bool, default False
    empty_groups : {"drop", "smooth"}, default "drop"
        A group whose rows all have weight 0 (or a group named in ``group_names``
        that no row has): ``"drop"`` leaves it out (it has no data);
        ``"smooth"`` keeps it with the smoothed rate ``1/K`` of every class, as
        AIF360 does (with ``concentration=0`` it has no rate and is left out).

    Returns
    -------
    DifferentialFairnessResult
        ``value`` = epsilon; ``by_pair`` the log-ratio of every group pair and
        class; ``rates``, ``group_sizes``, ``plot()``.

    Examples
    --------
    >>> import biasamp
    >>> r = biasamp.differential_fairness(groups=["a", "a", "a", "a", "b", "b", "b", "b"],
    ...                                   labels=[1, 1, 1, 0, 1, 0, 0, 0], min_group_size=None)
    >>> round(r.value, 4)  # log(0.7 / 0.3): rates (3 + .5) / 5 and (1 + .5) / 5
    0.8473
    """
    return _compute(
        groups=groups,
        labels=labels,
        labels_pred=None,
        concentration=concentration,
        sample_weight=sample_weight,
        group_names=group_names,
        label_names=label_names,
        min_group_size=min_group_size,
        n_boot=n_boot,
        ci=ci,
        random_state=random_state,
        bootstrap=bootstrap,
        progress=progress,
        empty_groups=empty_groups,
    )


def differential_fairness_amplification(
    *,
    groups: Any,
    labels: Any,
    labels_pred: Any,
    concentration: float = 1.0,
    sample_weight: Any = None,
    group_names: Sequence[Any] | None = None,
    label_names: Sequence[Any] | None = None,
    min_group_size: float | None = DEFAULT_MIN_GROUP_SIZE,
    n_boot: int | None = None,
    ci: float = 0.95,
    random_state: Any = None,
    bootstrap: str = "poisson",
    progress: bool = False,
    empty_groups: str = "drop",
    n_perm: int = 0,
) -> DifferentialFairnessResult:
    """Differential-fairness bias amplification: epsilon(labels_pred) - epsilon(labels).

    Both epsilons (:func:`differential_fairness`) are computed on the same rows
    and groups, as Foulds et al. (section 6) and AIF360's
    ``ClassificationMetric.differential_fairness_bias_amplification``. Positive:
    the model's predictions differ more between groups than the labels do.

    Parameters
    ----------
    groups : array-like of shape (n,)
        One group per row (see :func:`biasamp.intersect`).
    labels, labels_pred : array-like of shape (n,)
        True and predicted class of each row.
    concentration, sample_weight, group_names, label_names, min_group_size
        As :func:`differential_fairness`.
    n_boot, ci, random_state, bootstrap, progress
        Bootstrap of the rows: an interval for the amplification (``ci``) and
        for each epsilon (``ci_labels``, ``ci_pred``).
    empty_groups : {"drop", "smooth"}, default "drop"
        As :func:`differential_fairness`.
    n_perm : int, default 0
        Swapped data sets of the paired swap test against chance (0: no test):
        each row's label and predicted class swap with probability 1/2 (seeded by
        ``random_state``). The result then has ``p_value`` (one-sided: a larger
        amplification than chance gives) and ``null``.

    Returns
    -------
    DifferentialFairnessResult
        ``value`` = the amplification, ``epsilon_labels``, ``epsilon_pred``,
        ``by_pair`` (both log-ratios of every pair and class, and their change).

    Examples
    --------
    >>> import biasamp
    >>> r = biasamp.differential_fairness_amplification(
    ...     groups=["a"] * 4 + ["b"] * 4, labels=[1, 1, 0, 0, 1, 1, 0, 0],
    ...     labels_pred=[1, 1, 1, 0, 1, 0, 0, 0], min_group_size=None)
    >>> round(r.epsilon_labels, 4), round(r.epsilon_pred, 4), round(r.value, 4)
    (0.0, 0.8473, 0.8473)
    """
    if labels_pred is None:  # else the plain epsilon of labels would come back
        raise TypeError(ERR_REQUIRED.format(arg="labels_pred"))
    return _compute(
        groups=groups,
        labels=labels,
        labels_pred=labels_pred,
        concentration=concentration,
        sample_weight=sample_weight,
        group_names=group_names,
        label_names=label_names,
        min_group_size=min_group_size,
        n_boot=n_boot,
        ci=ci,
        random_state=random_state,
        bootstrap=bootstrap,
        progress=progress,
        empty_groups=empty_groups,
        n_perm=n_perm,
    )


def differential_fairness_from_counts(
    table: CountTable,
    *,
    concentration: float = 1.0,
    min_group_size: float | None = DEFAULT_MIN_GROUP_SIZE,
    ci: float = 0.95,
    empty_groups: str = "drop",
) -> DifferentialFairnessResult:
    """:func:`differential_fairness` from a count table (streamed, merged, or from an engine).

    ``table`` needs ``groups`` (one group per row) and ``tasks`` (the labels,
    one class per row). A table grown with an online bootstrap
    (``CountTable.empty(..., n_boot=...)``) gives the interval too. With
    ``empty_groups="smooth"`` every group of ``table.group_names`` is kept (a
    group of weight 0 at rate ``1/K``).

    Examples
    --------
    >>> import biasamp
    >>> table = biasamp.CountTable.from_arrays(groups=["a", "a", "b", "b"], tasks=[1, 0, 0, 0])
    >>> r = biasamp.differential_fairness_from_counts(table, min_group_size=None)
    >>> round(r.value, 4)  # P(1 | a) = (1 + .5) / 3 over P(1 | b) = (0 + .5) / 3: log 3
    1.0986
    """
    check_count_table(table, arg="table")
    _roles(table, False, "differential_fairness_from_counts")
    return _evaluate(
        table,
        pred=False,
        concentration=_check_concentration(concentration),
        min_group_size=check_min_group_size(min_group_size),
        intersection=None,
        ci=ci,
        params={"concentration": float(concentration), "from_counts": True},
        replicates=table.replicates,
        empty_groups=_check_empty_groups(empty_groups),
    )


def differential_fairness_amplification_from_counts(
    table: CountTable,
    *,
    concentration: float = 1.0,
    min_group_size: float | None = DEFAULT_MIN_GROUP_SIZE,
    ci: float = 0.95,
    empty_groups: str = "drop",
) -> DifferentialFairnessResult:
    """:func:`differential_fairness_amplification` from a count table.

    ``table`` needs ``groups``, ``tasks`` (the labels) and ``tasks_pred`` (the
    predictions), one value per row each.

    Examples
    --------
    >>> import biasamp
    >>> table = biasamp.CountTable.from_arrays(groups=["a", "a", "b", "b"],
    ...     tasks=[1, 0, 1, 0], tasks_pred=[1, 1, 0, 0])
    >>> r = biasamp.differential_fairness_amplification_from_counts(table, min_group_size=None)
    >>> round(r.value, 4)  # rates (2 + .5) / 3 against (0 + .5) / 3
    1.6094
    """
    check_count_table(table, arg="table")
    _roles(table, True, "differential_fairness_amplification_from_counts")
    return _evaluate(
        table,
        pred=True,
        concentration=_check_concentration(concentration),
        min_group_size=check_min_group_size(min_group_size),
        intersection=None,
        ci=ci,
        params={"concentration": float(concentration), "from_counts": True},
        replicates=table.replicates,
        empty_groups=_check_empty_groups(empty_groups),
    )
