"""Multi-attribute bias amplification, Zhao, Andrews & Xiang (ICML 2023).

Both metrics are the single-attribute ones computed over a set M of task
*combinations* instead of single tasks: a row belongs to combination ``m``
when its task set contains every task of ``m``.

.. math::

    \\mathrm{Multi}_{MALS} = \\frac{1}{|M|} \\sum_{g} \\sum_{m \\in M} |\\Delta_{gm}|,
    \\quad \\Delta_{gm} = 1[b_{train}(m, g) > 1/|G|]\\,(b_{pred}(m, g) - b_{train}(m, g))

    \\mathrm{Multi}_{\\to} = \\frac{1}{|G||M|} \\sum_{g} \\sum_{m \\in M} |\\Delta_{gm}|,
    \\quad \\Delta_{gm} = P(\\hat m | g) - P(m | g) \\;(G\\to M) \\text{ or }
    P(\\hat g | m) - P(g | m) \\;(M\\to G)

``absolute=False`` replaces ``|Delta|`` by the raw terms of the single-attribute
metrics (``Delta`` for MALS, ``y_gm Delta`` for the directional metric), the
"raw" row of the paper's table 3. Choices (all in ``docs/metrics/multi_attribute.md``):

* **Threshold 1/|G|** (the paper), not the reference code's 1/(|G|-1),
  which makes Multi_MALS 0 for every binary group.
* **Directional baseline**: ``P(m | g)`` and ``P(g | m)`` come from the
  evaluation ground truth (``baseline="evaluation"``, as the reference code
  and Wang & Russakovsky do); ``baseline="train"`` follows the paper's formula
  literally (training ground truth).
* **variance** is the population variance of the raw signed ``Delta_gm``
  (what the reference reports): over all |G| x |M| pairs for Multi_MALS
  (0 for pairs that are not biased), over the pairs with a non-empty
  conditioning set for Multi->. A biased pair whose combination is never
  predicted is left out (the reference's ``nanvar`` of its NaN); unbiased
  pairs stay in with 0.
* **Empty pairs**: a combination never predicted (MALS) contributes 0 while
  the divisor stays |M|; a pair with an empty conditioning set (directional)
  leaves the mean, as in the single-attribute metrics.
* **Bootstrap**: the evaluation rows are resampled; M and the training side
  stay fixed.
"""

from __future__ import annotations

import dataclasses
import functools
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from biasamp.counts._combinations import (
    check_combination_options,
)
from biasamp.counts._count_table import CountTable
from biasamp.counts._pattern_counts import PatternCountTable
from biasamp.counts._swaps import check_n_perm, swapped_table
from biasamp.inputs._group_sizes import (
    DEFAULT_MIN_CELL,
    DEFAULT_MIN_GROUP_SIZE,
    MissingGroupWarning,
    check_min_cell,
    check_min_group_size,
)
from biasamp.inputs._label_matrix import (
    LabelMatrix,
)
from biasamp.inputs._prefixed import prediction_columns
from biasamp.metrics._combination_space import (
    _DEFAULT_MAX_COMBINATIONS,
    _TRAIN_SOURCE,
    ERR_SPACE_OPTIONS,
    ERR_SPACE_TYPE,
    CombinationSpace,
    _arrays_or_space,
    _count_dask_split,
    _DaskEvaluation,
    _space_for,
)
from biasamp.metrics._directional import (
    ERR_ALL_EMPTY,
    _check_rules,
    check_predictions,
    directional_arrays,
    directional_columns,
    directional_counts,
    normalize_direction,
)
from biasamp.metrics._group_sizes import (
    SplitSizes,
    attach_group_sizes,
    never_occurring_of,
    split_sizes,
)
from biasamp.metrics._mals import mals_arrays
from biasamp.metrics._pair_counts import pair_count_columns, warn_fragile_pairs
from biasamp.metrics._significance import ERR_SWAP_NEEDS
from biasamp.metrics._splits import select_training_rows
from biasamp.results._base import MetricResults
from biasamp.results._multi_attribute import MultiAttributeResult

__all__ = [
    "CombinationSpace",
    "MultiAttributeResult",
    "multi_attribute",
    "multi_directional",
    "multi_directional_from_counts",
    "multi_mals",
    "multi_mals_from_counts",
]

ERR_BASELINE = "baseline: expected 'evaluation' or 'train', got {got!r}."
ERR_ABSOLUTE = "absolute: expected True or False, got {got!r}."
ERR_EMPTY_MULTI_PAIRS = (
    "{count} (group, combination) pair(s) have an empty conditioning set ({what} never occurs), "
    "for example {examples}. Pass empty='exclude' to leave them out."
)
ERR_DASK_MULTI_BOOTSTRAP = (
    "n_boot with Dask inputs supports bootstrap='poisson' only (Poisson weights are drawn per "
    "partition by global row index); got bootstrap={got!r}."
)
ERR_SPACE_NO_ROWS = (
    "n_boot: this CombinationSpace was built from count tables, so it has no rows to "
    "resample; build it with CombinationSpace.from_arrays to bootstrap."
)

_BOOT_CHUNK = 16  # replicates per pass (bounds memory: chunk x |G| x patterns)
_WEIGHT_CHUNK_BYTES = 1 << 25  # float64 replicate weights drawn at a time (32 MB)


# ----------------------------------------------------------------------------- space


# ----------------------------------------------------------------------------- cores
def _directional_core(
    train: CountTable,
    evaluation: CountTable,
    *,
    direction: str,
    absolute: bool,
    tie_rule: str,
    baseline: str,
) -> dict[str, np.ndarray]:
    arrays = directional_arrays(evaluation, direction=direction, train=train, tie_rule=tie_rule)
    defined = arrays["defined"]
    p_true = arrays["p_true"]
    if baseline == "train":
        joint = train.joint[("groups", "tasks")]
        if direction == "A->T":
            cond = np.broadcast_to(train.totals["groups"][..., :, None], joint.shape)
        else:
            cond = np.broadcast_to(train.totals["tasks"][..., None, :], joint.shape)
        defined = defined & (cond > 0)
        p_true = np.broadcast_to(
            np.where(cond > 0, joint / np.where(cond > 0, cond, 1.0), np.nan), defined.shape
        )
    delta = np.where(defined, arrays["p_pred"] - p_true, np.nan)
    y = arrays["y"]
    if absolute:
        terms = np.abs(delta)
    elif tie_rule == "paper":
        terms = np.where(y > 0, delta, -delta)
    else:
        terms = y * delta
    n_defined = defined.sum(axis=(-2, -1))
    total = np.where(defined, terms, 0.0).sum(axis=(-2, -1))
    value = np.where(n_defined > 0, total / np.maximum(n_defined, 1), np.nan)
    return {
        **arrays,
        "p_true": p_true,
        "defined": defined,
        "delta": delta,
        "terms": terms,
        "value": value,
        "variance": _variance(delta, defined),
    }


def _mals_core(
    train: CountTable, predictions: CountTable, *, absolute: bool
) -> dict[str, np.ndarray]:
    arrays = mals_arrays(train, predictions)
    biased = arrays["biased"]
    raw = arrays["delta"]  # b_pred - b_train, NaN where the combination is never predicted
    empty = arrays["empty"]  # biased and never predicted
    masked = np.where(biased, raw, 0.0)  # Delta_gm; NaN only on empty pairs
    terms = np.where(biased & ~empty, np.abs(masked) if absolute else masked, 0.0)
    n_comb = raw.shape[-1]
    return {
        **arrays,
        "masked": masked,
        "terms": terms,
        "value": terms.sum(axis=(-2, -1)) / n_comb,
        "variance": _variance(masked, ~empty),
    }


def _variance(values: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Population variance of ``values`` over ``mask`` along the last two axes."""
    mask = np.broadcast_to(mask, values.shape)
    count = mask.sum(axis=(-2, -1))
    safe = np.where(mask, values, 0.0)
    mean = safe.sum(axis=(-2, -1)) / np.maximum(count, 1)
    dev = np.where(mask, values - mean[..., None, None], 0.0)
    var = (dev**2).sum(axis=(-2, -1)) / np.maximum(count, 1)
    return np.where(count > 0, var, np.nan)


# ----------------------------------------------------------------------------- frames
def _frame(
    names: Sequence[tuple[Any, ...]],
    sizes: np.ndarray,
    train: CountTable,
    evaluation: CountTable,
    columns: dict[str, np.ndarray],
) -> pd.DataFrame:
    """Tidy (combination, group) rows from (|G|, |M|) arrays, combinations varying slowest."""
    n_g, n_m = len(train.group_names), len(names)
    combos = np.empty(n_m, dtype=object)
    combos[:] = names
    data: dict[str, Any] = {
        "combination": np.repeat(combos, n_g),
        "size": np.repeat(sizes, n_g),
        "group": np.tile(np.asarray(train.group_names, dtype=object), n_m),
        "support_train": np.repeat(train.totals["tasks"], n_g),
        "support_eval": np.repeat(evaluation.totals["tasks"], n_g)
        if "tasks" in evaluation.totals
        else np.full(n_m * n_g, np.nan),
    }
    for name, arr in columns.items():
        data[name] = _flat(arr, n_g, n_m)
    return pd.DataFrame(data)


def _flat(arr: Any, n_g: int, n_m: int) -> np.ndarray:
    """A (|G|, |M|) (or broadcastable) array in the frame's row order, combinations slowest."""
    return np.broadcast_to(np.asarray(arr), (n_g, n_m)).T.reshape(-1)


def _mals_counts(
    train: CountTable, evaluation: CountTable, arrays: dict[str, np.ndarray], min_cell: float | None
) -> dict[str, np.ndarray]:
    """The counts behind each (group, combination) pair of Multi_MALS: ``b~`` is a share
    of the rows where the combination is predicted. ``n_true`` is NaN: Multi_MALS reads
    no ground-truth groups of the evaluation rows (a shared space may hold them)."""
    joint_pred = np.asarray(evaluation.joint[("groups_pred", "tasks_pred")], dtype=np.float64)
    return pair_count_columns(
        train=train,
        evaluation=evaluation,
        pred_roles=("groups_pred", "tasks_pred"),
        support=np.broadcast_to(joint_pred.sum(axis=-2, keepdims=True), joint_pred.shape),
        used=arrays["biased"] & ~arrays["empty"],
        min_cell=min_cell,
        true_roles=None,
    )


def _mals_columns(
    train: CountTable,
    evaluation: CountTable,
    arrays: dict[str, np.ndarray],
    min_cell: float | None = DEFAULT_MIN_CELL,
) -> dict[str, np.ndarray]:
    """The metric columns of Multi_MALS's ``by_combination``."""
    n_comb = arrays["terms"].shape[-1]
    return {
        "count_train": train.joint[("groups", "tasks")],
        "b_train": arrays["b_train"],
        "count_pred": evaluation.joint[("groups_pred", "tasks_pred")],
        "b_pred": arrays["b_pred"],
        "biased": arrays["biased"],
        "delta": arrays["delta"],
        "term": arrays["terms"],
        "contribution": arrays["terms"] / n_comb,
        "empty": arrays["empty"],
        **_mals_counts(train, evaluation, arrays, min_cell),
    }


def _directional_columns(
    train: CountTable,
    arrays: dict[str, np.ndarray],
    evaluation: CountTable | None = None,
    direction: str = "A->T",
    min_cell: float | None = DEFAULT_MIN_CELL,
) -> dict[str, np.ndarray]:
    """The metric columns of Multi->'s ``by_combination``: the single metric's per-pair
    columns, the training count, each pair's term and (with ``evaluation``) the counts
    behind each pair."""
    columns = directional_columns(arrays, arrays["terms"])
    counts = (
        {}
        if evaluation is None
        else directional_counts(evaluation, train, arrays, direction=direction, min_cell=min_cell)
    )
    return {
        "count_train": train.joint[("groups", "tasks")],
        **{k: v for k, v in columns.items() if k not in ("contribution", "empty")},
        "term": arrays["terms"],
        "contribution": columns["contribution"],
        "empty": columns["empty"],
        **counts,
    }


def _mals_frame(
    names: Sequence[tuple[Any, ...]],
    sizes: np.ndarray,
    train: CountTable,
    evaluation: CountTable,
    absolute: bool,
    min_cell: float | None = DEFAULT_MIN_CELL,
) -> pd.DataFrame:
    """Multi_MALS's ``by_combination``, recomputed from the combination count tables."""
    arrays = _mals_core(train, evaluation, absolute=absolute)
    columns = _mals_columns(train, evaluation, arrays, min_cell)
    return _frame(names, sizes, train, evaluation, columns)


def _directional_frame(
    names: Sequence[tuple[Any, ...]],
    sizes: np.ndarray,
    train: CountTable,
    evaluation: CountTable,
    core: dict[str, Any],
    min_cell: float | None = DEFAULT_MIN_CELL,
) -> pd.DataFrame:
    """Multi->'s ``by_combination``, recomputed from the combination count tables."""
    arrays = _directional_core(train, evaluation, **core)
    columns = _directional_columns(train, arrays, evaluation, core["direction"], min_cell)
    return _frame(names, sizes, train, evaluation, columns)


def _by_size(
    sizes: np.ndarray,
    *,
    term: np.ndarray,
    delta: np.ndarray,
    empty: np.ndarray,
    biased: np.ndarray | None = None,
) -> pd.DataFrame:
    """The metric restricted to the combinations of each size, from the (|G|, |M|) arrays.

    ``biased`` is given for Multi_MALS (the value is the sum of the terms over
    the size's combinations), left out for Multi-> (the mean over the pairs
    that are not empty). Each size's pairs are taken in ``by_combination``'s
    row order, so the sums are the frame's to the last bit. A loop over the
    distinct sizes, not the combinations.
    """
    n_g, n_m = term.shape[-2], term.shape[-1]
    flat_term, flat_delta = _flat(term, n_g, n_m), _flat(delta, n_g, n_m)
    flat_keep = ~_flat(empty, n_g, n_m)
    flat_biased = None if biased is None else _flat(biased, n_g, n_m)
    pair_size = np.repeat(sizes, n_g)
    rows = []
    for size in np.unique(sizes).tolist():
        part = pair_size == size
        n_comb = int(np.count_nonzero(sizes == size))
        keep = flat_keep[part]
        if flat_biased is not None:
            part_biased = flat_biased[part]
            value = np.nansum(flat_term[part]) / n_comb  # as pandas sums: NaN skipped
            deltas = np.where(part_biased, flat_delta[part], 0.0)[keep]
            n_pairs = int(part_biased.sum())
        else:
            value = flat_term[part][keep].mean() if keep.any() else np.nan
            deltas = flat_delta[part][keep]
            n_pairs = int(keep.sum())
        variance = float(np.var(deltas)) if deltas.size else np.nan
        rows.append(
            {
                "size": int(size),
                "n_combinations": n_comb,
                "n_pairs": n_pairs,
                "value": float(value),
                "variance": variance,
            }
        )
    return pd.DataFrame(rows, columns=["size", "n_combinations", "n_pairs", "value", "variance"])


# ----------------------------------------------------------------------------- from counts


def _check_absolute(absolute: Any) -> bool:
    if not isinstance(absolute, (bool, np.bool_)):
        raise TypeError(ERR_ABSOLUTE.format(got=absolute))
    return bool(absolute)


def _multi_group_sizes(space: CombinationSpace, *, predicted: bool) -> SplitSizes | pd.DataFrame:
    """Group sizes of a multi-attribute metric: ``"train"``, ``"evaluation"``, and
    ``"predicted"`` when the metric reads ``groups_pred``."""
    evaluation = space.evaluation
    return split_sizes(
        {
            "train": (space.train, "groups"),
            "evaluation": (evaluation, "groups"),
            "predicted": (evaluation if predicted else None, "groups_pred"),
        }
    )


def _attach_sizes(
    result: MultiAttributeResult,
    space: CombinationSpace,
    *,
    min_group_size: float | None,
    never: pd.DataFrame | None = None,
) -> MultiAttributeResult:
    predicted = (
        result.family == "multi_mals" or normalize_direction(str(result.direction)) == "T->A"
    )
    sizes = _multi_group_sizes(space, predicted=predicted)
    attach_group_sizes(result, sizes, min_group_size=min_group_size)
    result.never_occurring = never
    return result


def multi_mals_from_counts(
    train: PatternCountTable | None = None,
    evaluation: PatternCountTable | None = None,
    *,
    combinations: str = "observed",
    min_size: int = 1,
    max_size: int | None = None,
    min_count: float = 1,
    max_combinations: int = _DEFAULT_MAX_COMBINATIONS,
    absolute: bool = True,
    ci: float = 0.95,
    space: CombinationSpace | None = None,
    progress: bool = False,
    min_group_size: float | None = DEFAULT_MIN_GROUP_SIZE,
    min_cell: float | None = DEFAULT_MIN_CELL,
) -> MultiAttributeResult:
    """Multi_MALS from pattern count tables (see :func:`multi_mals`).

    ``train`` needs ``groups`` and ``tasks``; ``evaluation`` needs ``tasks``
    (ground truth, to choose M), ``groups_pred`` and ``tasks_pred``. With
    ``space`` (a :class:`CombinationSpace` built from these tables) the tables
    may be omitted and M is not rebuilt.

    When ``evaluation`` carries the replicates of an online bootstrap
    (:meth:`PatternCountTable.empty` with ``n_boot``), the result has the
    ``ci``-level percentile interval, ``se`` and ``replicates`` (M and the
    training side stay fixed).
    """
    absolute = _check_absolute(absolute)
    options = dict(
        combinations=combinations,
        min_size=min_size,
        max_size=max_size,
        min_count=min_count,
        max_combinations=max_combinations,
        progress=progress,
    )
    limit = check_min_group_size(min_group_size)
    built = _space_for(space, train, evaluation, options)
    result, compute = _multi_mals(built, absolute=absolute, min_cell=check_min_cell(min_cell))
    _attach_sizes(result, built, min_group_size=limit)
    return _streamed_interval(result, compute, built, ci=ci)


def _multi_mals(
    space: CombinationSpace, *, absolute: bool, min_cell: float | None = DEFAULT_MIN_CELL
) -> tuple[MultiAttributeResult, Any]:
    """The result and a function of a combination-count replicate table -> replicate values."""
    evaluation = space.evaluation
    evaluation.require("groups_pred", "tasks_pred", metric="multi_mals (predictions)")
    train_ct, eval_ct = space.train_counts, space.eval_counts
    arrays = _mals_core(train_ct, eval_ct, absolute=absolute)
    counts = _mals_counts(train_ct, eval_ct, arrays, min_cell)
    _warn_fragile(space, arrays["terms"] / len(space), counts, "Multi_MALS", min_cell)
    n_comb = len(space)
    result = MultiAttributeResult(
        metric="multi_mals",
        value=float(arrays["value"]),
        variance=float(arrays["variance"]),
        # built when first read, from the count tables (not the space or these arrays)
        by_combination=functools.partial(
            _mals_frame, space.names, space.sizes, train_ct, eval_ct, absolute, min_cell
        ),
        by_size=_by_size(
            space.sizes,
            term=arrays["terms"],
            delta=arrays["delta"],
            empty=arrays["empty"],
            biased=arrays["biased"],
        ),
        absolute=absolute,
        n=float(evaluation.n),
        n_train=float(space.train.n),
        n_combinations=n_comb,
        n_pairs=int(arrays["biased"].sum()),
        n_empty=int(arrays["empty"].sum()),
        params={
            "combinations": space.combinations,
            "min_size": space.min_size,
            "max_size": space.max_size,
            "min_count": space.min_count,
            "threshold": 1.0 / len(space.train.group_names),
        },
        min_cell=min_cell,
    )
    return result, lambda reps: _mals_core(train_ct, reps, absolute=absolute)["value"]


def _warn_fragile(
    space: CombinationSpace,
    contribution: np.ndarray,
    counts: dict[str, np.ndarray],
    metric: str,
    min_cell: float | None,
) -> None:
    """:class:`FragilePairWarning` about the fragile (group, combination) pairs among the
    largest contributions."""
    warn_fragile_pairs(
        contribution=contribution,
        fragile=counts["fragile"],
        support=counts["support"],
        group_names=space.train.group_names,
        task_names=_CombinationNames(space.names),
        metric=metric,
        min_cell=min_cell,
    )


class _CombinationNames(Sequence[str]):
    """The display names of combinations (``"a & b"``), made only for the items read."""

    def __init__(self, names: Sequence[tuple[Any, ...]]) -> None:
        self._names = names

    def __len__(self) -> int:
        return len(self._names)

    def __getitem__(self, i: Any) -> Any:
        return " & ".join(map(str, self._names[i]))


def multi_directional_from_counts(
    train: PatternCountTable | None = None,
    evaluation: PatternCountTable | None = None,
    *,
    direction: str,
    combinations: str = "observed",
    min_size: int = 1,
    max_size: int | None = None,
    min_count: float = 1,
    max_combinations: int = _DEFAULT_MAX_COMBINATIONS,
    absolute: bool = True,
    tie_rule: str = "zero",
    empty: str = "exclude",
    baseline: str = "evaluation",
    ci: float = 0.95,
    space: CombinationSpace | None = None,
    progress: bool = False,
    min_group_size: float | None = DEFAULT_MIN_GROUP_SIZE,
    min_cell: float | None = DEFAULT_MIN_CELL,
) -> MultiAttributeResult:
    """Multi-> from pattern count tables (see :func:`multi_directional`).

    ``train`` needs ``groups`` and ``tasks``; ``evaluation`` needs ``groups``,
    ``tasks`` and ``tasks_pred`` (A->T) or ``groups_pred`` (T->A). With
    ``space`` (a :class:`CombinationSpace` built from these tables) the tables
    may be omitted and M is not rebuilt.

    When ``evaluation`` carries the replicates of an online bootstrap
    (:meth:`PatternCountTable.empty` with ``n_boot``), the result has the
    ``ci``-level percentile interval, ``se`` and ``replicates`` (M and the
    training side stay fixed).
    """
    absolute = _check_absolute(absolute)
    _check_rules(tie_rule, empty)
    direction = normalize_direction(direction)
    if baseline not in ("evaluation", "train"):
        raise ValueError(ERR_BASELINE.format(got=baseline))
    options = dict(
        combinations=combinations,
        min_size=min_size,
        max_size=max_size,
        min_count=min_count,
        max_combinations=max_combinations,
        progress=progress,
    )
    built = _space_for(space, train, evaluation, options)
    result, compute = _multi_directional(
        built,
        direction=direction,
        absolute=absolute,
        tie_rule=tie_rule,
        empty=empty,
        baseline=baseline,
        min_cell=check_min_cell(min_cell),
    )
    _attach_sizes(result, built, min_group_size=check_min_group_size(min_group_size))
    result = _streamed_interval(result, compute, built, ci=ci)
    result.direction = _reported_direction(direction)
    return result


def _streamed_interval(
    result: MultiAttributeResult, compute: Any, space: CombinationSpace, *, ci: float
) -> MultiAttributeResult:
    """Fill ``ci``, ``se`` and ``replicates`` from the online bootstrap of the evaluation table."""
    evaluation = space.evaluation
    if evaluation.replicates is None or evaluation.bootstrap is None:
        return result
    from biasamp.results._intervals import check_ci, interval_from_replicates

    level = check_ci(ci)
    reps = np.atleast_1d(compute(space.counts(evaluation.replicates)))
    low, high, se = interval_from_replicates(reps, ci=level)
    result.ci, result.ci_level, result.se, result.replicates = (
        (float(low), float(high)),
        level,
        float(se),
        reps,
    )
    result.params.update({"n_boot": int(evaluation.bootstrap.n_boot), "bootstrap": "poisson"})
    return result


def _multi_directional(
    space: CombinationSpace,
    *,
    direction: str,
    absolute: bool,
    tie_rule: str,
    empty: str,
    baseline: str,
    min_cell: float | None = DEFAULT_MIN_CELL,
) -> tuple[MultiAttributeResult, Any]:
    """The result and a function of a combination-count replicate table -> replicate values."""
    train, evaluation = space.train, space.evaluation
    pred_role = "tasks_pred" if direction == "A->T" else "groups_pred"
    evaluation.require("groups", pred_role, metric=f"multi_directional({direction})")
    train_ct, eval_ct = space.train_counts, space.eval_counts
    core: dict[str, Any] = dict(
        direction=direction, absolute=absolute, tie_rule=tie_rule, baseline=baseline
    )
    arrays = _directional_core(train_ct, eval_ct, **core)
    defined = arrays["defined"]
    if not defined.any():
        raise ValueError(ERR_ALL_EMPTY)
    n_empty = int((~defined).sum())
    if n_empty and empty == "error":
        gi, mi = np.nonzero(~defined)
        examples = ", ".join(
            f"({train.group_names[g]!r}, {space.names[m]!r})"
            for g, m in list(zip(gi, mi, strict=True))[:3]
        )
        what = "the group" if direction == "A->T" else "the combination"
        raise ValueError(ERR_EMPTY_MULTI_PAIRS.format(count=n_empty, what=what, examples=examples))
    n_defined = int(defined.sum())
    counts = directional_counts(eval_ct, train_ct, arrays, direction=direction, min_cell=min_cell)
    contribution = np.where(defined, arrays["terms"], 0.0) / max(n_defined, 1)
    _warn_fragile(space, contribution, counts, f"Multi {direction}", min_cell)
    result = MultiAttributeResult(
        metric="multi_directional",
        value=float(arrays["value"]),
        variance=float(arrays["variance"]),
        # built when first read, from the count tables (not the space or these arrays)
        by_combination=functools.partial(
            _directional_frame, space.names, space.sizes, train_ct, eval_ct, core, min_cell
        ),
        by_size=_by_size(space.sizes, term=arrays["terms"], delta=arrays["delta"], empty=~defined),
        direction=direction,
        absolute=absolute,
        n=float(evaluation.n),
        n_train=float(train.n),
        n_combinations=len(space),
        n_pairs=n_defined,
        n_empty=n_empty,
        params={
            "combinations": space.combinations,
            "min_size": space.min_size,
            "max_size": space.max_size,
            "min_count": space.min_count,
            "tie_rule": tie_rule,
            "empty": empty,
            "baseline": baseline,
        },
        min_cell=min_cell,
    )
    return result, lambda reps: _directional_core(train_ct, reps, **core)["value"]


# ----------------------------------------------------------------------------- arrays


def _replicate_range(table: PatternCountTable, start: int, stop: int) -> PatternCountTable:
    """Replicates ``start:stop`` of a table with a leading replicate axis."""
    return dataclasses.replace(
        table,
        n=table.n[start:stop],
        group_totals={k: v[start:stop] for k, v in table.group_totals.items()},
        pattern_totals={k: v[start:stop] for k, v in table.pattern_totals.items()},
        joint={k: v[start:stop] for k, v in table.joint.items()},
    )


def _compact_weights(source: Any, n_rows: int) -> np.ndarray:
    """All replicate weights, shape (B, n), drawn in row chunks and stored as uint8
    (an eighth of float64; Poisson weights never exceed 12). Falls back to float64
    if a weight does not fit (a multinomial draw on very few rows)."""
    out = np.empty((source.n_boot, n_rows), dtype=np.uint8)
    step = max(1, _WEIGHT_CHUNK_BYTES // (8 * source.n_boot))
    for start in range(0, n_rows, step):
        chunk = source.rows(start, min(start + step, n_rows))  # (rows, B) float64
        if chunk.max(initial=0.0) > np.iinfo(np.uint8).max:
            return source.weights(0, n_rows)
        out[:, start : start + chunk.shape[0]] = chunk.T
    return out


def _bootstrap(
    results: Sequence[MultiAttributeResult],
    computes: Sequence[Any],
    space: CombinationSpace,
    *,
    n_boot: int | None,
    ci: float,
    random_state: Any,
    bootstrap: str,
    progress: bool = False,
) -> None:
    """Fill ``ci``, ``se`` and ``replicates`` of every result by resampling the evaluation
    rows once: each replicate chunk is counted per combination once for all metrics."""
    if n_boot is None:
        return
    if space._eval_matrices is None or space._eval_weights is None:
        raise ValueError(ERR_SPACE_NO_ROWS)
    from biasamp._memory import check_allocation
    from biasamp._progress import progress_iter
    from biasamp.counts._poisson import BLOCK_ROWS, check_n_boot
    from biasamp.counts._replicates import make_replicates
    from biasamp.results._intervals import check_ci, interval_from_replicates

    level = check_ci(ci)
    n_boot = check_n_boot(n_boot)
    eval_m, weights = space._eval_matrices, space._eval_weights
    values: list[list[np.ndarray]] = [[] for _ in computes]
    chunks: list[PatternCountTable | tuple[dict[str, LabelMatrix], np.ndarray]]
    if isinstance(eval_m, _DaskEvaluation):
        # Dask: each partition draws the Poisson weights of its global rows
        if bootstrap != "poisson":
            raise ValueError(ERR_DASK_MULTI_BOOTSTRAP.format(got=bootstrap))
        arrays = dict(eval_m.arrays)
        names = {"group_names": arrays.pop("group_names"), "task_names": arrays.pop("task_names")}
        replicates = make_replicates(1, n_boot, random_state=random_state, method="poisson")
        whole = _count_dask_split(arrays, **names, source=_TRAIN_SOURCE, replicates=replicates)
        chunks = [
            _replicate_range(whole, start, start + _BOOT_CHUNK)
            for start in range(0, n_boot, _BOOT_CHUNK)
        ]
    else:
        n_rows = next(iter(eval_m.values())).n_rows
        check_allocation(  # a byte per row and replicate, a float64 chunk, a block of draws
            float(n_boot) * n_rows
            + 8.0 * min(n_boot, _BOOT_CHUNK) * n_rows
            + 16.0 * BLOCK_ROWS * n_boot,
            what=f"n_boot={n_boot} replicate weights of {n_rows} evaluation rows",
            advice="use fewer replicates (n_boot=1000 gives a stable 95% interval).",
        )
        source = make_replicates(n_rows, n_boot, random_state=random_state, method=bootstrap)
        all_weights = _compact_weights(source, n_rows)
        chunks = [
            (eval_m, all_weights[start : start + _BOOT_CHUNK])
            for start in range(0, all_weights.shape[0], _BOOT_CHUNK)
        ]
    for chunk in progress_iter(chunks, description="bootstrap", enabled=progress):
        if isinstance(chunk, PatternCountTable):
            table = chunk
        else:
            table = PatternCountTable.from_label_matrices(
                chunk[0], sample_weight=weights, replicate_weights=chunk[1].astype(np.float64)
            )
        counts = space.counts(table)
        for out, compute in zip(values, computes, strict=True):
            out.append(np.atleast_1d(compute(counts)))
    for result, parts in zip(results, values, strict=True):
        reps = np.concatenate(parts)
        low, high, se = interval_from_replicates(reps, ci=level)
        result.ci, result.ci_level, result.se, result.replicates = (
            (float(low), float(high)),
            level,
            float(se),
            reps,
        )
        result.params.update({"n_boot": int(n_boot), "bootstrap": bootstrap})


#: The label roles the swap test of each direction exchanges with the model's outputs.
_EXCHANGED: dict[str, tuple[str, ...]] = {"A->T": ("tasks",), "T->A": ("groups",)}


def _swap_test(
    results: Sequence[MultiAttributeResult],
    computes: Sequence[Any],
    space: CombinationSpace,
    *,
    n_perm: int,
    random_state: Any,
    exchanged: Sequence[tuple[str, ...] | None],
    progress: bool = False,
) -> None:
    """Fill ``p_value`` and ``null`` of every result from the paired swap test: each
    evaluation row's labels and outputs swap with probability 1/2 (M and the training
    side stay fixed); ``exchanged[i]`` names the label roles result ``i``'s swap
    exchanges (``("tasks",)`` for G->M, ``("groups",)`` for M->G, ``None``: every
    label with its output, Multi_MALS), as the single-attribute metrics do. The swapped
    pattern tables are counted per chunk of permutations, the rows kept weighted by
    ``1 - s`` and the rows with their roles exchanged by ``s``; their combination
    counts add."""
    if not n_perm:
        return
    from biasamp._memory import check_allocation
    from biasamp._progress import progress_iter
    from biasamp.counts._poisson import BLOCK_ROWS
    from biasamp.counts._swaps import SwapReplicates, swapped_roles
    from biasamp.metrics._significance import ERR_SWAP_DASK
    from biasamp.results._significance import with_significance

    eval_m, weights = space._eval_matrices, space._eval_weights
    if isinstance(eval_m, _DaskEvaluation):
        raise ValueError(ERR_SWAP_DASK)
    if eval_m is None or weights is None:
        raise ValueError(ERR_SPACE_NO_ROWS.replace("n_boot", "n_perm"))
    present = {role: m for role, m in eval_m.items() if m is not None}
    n_rows = next(iter(present.values())).n_rows
    check_allocation(
        float(n_perm) * n_rows
        + 16.0 * min(n_perm, _BOOT_CHUNK) * n_rows
        + 9.0 * BLOCK_ROWS * n_perm,
        what=f"n_perm={n_perm} swap indicators of {n_rows} evaluation rows",
        advice="use fewer permutations (n_perm=999 resolves p-values to 0.001).",
    )
    swaps = SwapReplicates(n_perm, random_state=random_state)
    indicators = _compact_weights(swaps, n_rows)  # (n_perm, n) uint8
    values: list[list[np.ndarray]] = [[] for _ in computes]
    for only in dict.fromkeys(exchanged):  # one counting per set of exchanged roles
        exchange = swapped_roles(present, only=only)
        swapped = {exchange[role]: m for role, m in present.items()}
        mine = [i for i, roles in enumerate(exchanged) if roles == only]
        starts = range(0, n_perm, _BOOT_CHUNK)
        for start in progress_iter(starts, description="swap test", enabled=progress):
            chunk = indicators[start : start + _BOOT_CHUNK].astype(np.float64)
            kept = space.counts(
                PatternCountTable.from_label_matrices(
                    present, sample_weight=weights, replicate_weights=1.0 - chunk
                )
            )
            moved = space.counts(
                PatternCountTable.from_label_matrices(
                    swapped, sample_weight=weights, replicate_weights=chunk
                )
            )
            counts = swapped_table(kept, moved, n_rows=n_rows)
            for i in mine:
                values[i].append(np.atleast_1d(computes[i](counts)))
    for result, parts in zip(results, values, strict=True):
        tested = with_significance(
            result, np.concatenate(parts), method="paired-swap", alternative="greater"
        )
        result.p_value, result.null = tested.p_value, tested.null
        result.params["significance"] = {
            "null": "paired-swap",
            "n_perm": int(n_perm),
            "alternative": "greater",
        }


def multi_mals(
    *,
    groups_train: Any = None,
    tasks_train: Any = None,
    tasks: Any = None,
    groups_pred: Any = None,
    tasks_pred: Any = None,
    pred_prefix: str | None = None,
    groups: Any = None,
    combinations: str = "observed",
    min_size: int = 1,
    max_size: int | None = None,
    min_count: float = 1,
    max_combinations: int = _DEFAULT_MAX_COMBINATIONS,
    absolute: bool = True,
    sample_weight: Any = None,
    sample_weight_train: Any = None,
    group_names: Sequence[Any] | None = None,
    task_names: Sequence[Any] | None = None,
    n_boot: int | None = None,
    ci: float = 0.95,
    random_state: Any = None,
    bootstrap: str = "poisson",
    space: CombinationSpace | None = None,
    progress: bool = False,
    min_group_size: float | None = DEFAULT_MIN_GROUP_SIZE,
    min_cell: float | None = DEFAULT_MIN_CELL,
    n_perm: int = 0,
) -> MultiAttributeResult:
    """Undirected multi-attribute bias amplification, Multi_MALS (Zhao et al., 2023, eq. 2).

    Parameters
    ----------
    groups_train : array-like of shape (n_train,) or (n_train, |G|)
        Training ground-truth groups; fix ``b_train`` and the label names.
    tasks_train : array-like of shape (n_train, |T|), DataFrame or scipy.sparse
        Training ground-truth 0/1 tasks.
    tasks : array-like of shape (n, |T|)
        Evaluation ground-truth tasks: M keeps combinations that occur in them.
    groups_pred, tasks_pred : array-like of shape (n,) / (n, |G|) and (n, |T|)
        The model's predicted groups and 0/1 tasks on the evaluation rows;
        ``b_pred(m, g)`` is the share of group ``g`` among the rows whose
        predicted tasks contain ``m``.
    groups : array-like, optional
        Evaluation ground-truth groups (validated, shown in ``n``; not used
        by the metric).
    combinations : {"observed", "subsets"}, default "observed"
        How M is built: ``"observed"`` as the reference code (the distinct
        exact training task sets), ``"subsets"`` every combination of
        ``min_size..max_size`` tasks occurring in both splits (the paper's
        footnote 2). See ``docs/metrics/multi_attribute.md``.
    min_size, max_size : int, default 1 and None
        Sizes of the combinations in M (``max_size=None``: no limit).
    min_count : float, default 1
        A combination must occur (by containment, or as an exact training set in
        "observed" mode) in at least this many rows (sum of weights, so in the
        weights' unit: multiplying every weight by ``c`` needs ``min_count * c``
        for the same M; sums within 1e-12 of it count).
    max_combinations : int, default 1_000_000
        Raise instead of building more combinations than this.
    absolute : bool, default True
        ``|Delta|`` (the paper's metric) or the raw ``Delta`` (table 3, row a).
    sample_weight, sample_weight_train : array-like, optional
        Non-negative row weights of the evaluation and training rows.
    group_names, task_names : sequence, optional
        Canonical label names.
    n_boot : int, optional
        Bootstrap replicates of the evaluation rows for ``ci`` and ``se``.
    ci : float, default 0.95
        Confidence level of the percentile interval.
    random_state : int, Generator or None
        Seed of the bootstrap and of the swap test.
    n_perm : int, default 0
        Swapped data sets of the paired swap test against chance (0: no test):
        each evaluation row's labels and outputs swap with probability 1/2 (M and
        the training side stay fixed). The result then has ``p_value``
        (one-sided: larger values are more amplification, or with ``absolute``
        more change, than chance gives) and ``null``.
    bootstrap : {"poisson", "multinomial"}, default "poisson"
        Replicate weights (see :func:`biasamp.replicate_weights`).
    space : CombinationSpace, optional
        M and its counts, built once (:meth:`CombinationSpace.from_arrays`) and
        shared with :func:`multi_directional`; then pass no arrays, and the
        combination options come from the space.
    progress : bool, default False
        Show progress bars while combinations are counted and bootstrapped.
    min_group_size : float or None, default 30
        Warn (:class:`SmallGroupWarning`) about the groups with fewer rows (or
        less total weight) than this in the training split or the evaluation
        split (``groups``; the predicted groups when ``groups`` is not given);
        ``None`` checks nothing.
    min_cell : float or None, default 5
        Flag ``fragile`` (``by_combination``) the pairs that count and rest on
        fewer rows than this (``support``: the rows where the combination is
        predicted for Multi_MALS, the conditioning set for Multi->); a
        :class:`FragilePairWarning` names those among the ten largest
        contributions. ``None`` flags none.
    pred_prefix : str, optional
        Read the predictions as the file audit does (:func:`biasamp.audit`'s
        ``pred_prefix``): a frame passed as ``groups_pred`` or ``tasks_pred``
        gives, for each column ``C`` of the ground truth's frame, its column
        ``pred_prefix + C``, read as ``C`` (``pred_cup`` predicts ``cup``); its
        other columns are left out, so the evaluation frame itself may be passed.

    Returns
    -------
    MultiAttributeResult
        ``group_sizes`` (groups x ``"train"``, ``"evaluation"``,
        ``"predicted"``) and ``small_groups``. ``value`` = X, ``variance``
        (population variance of the raw signed
        Delta over all |G| x |M| pairs, 0 for unbiased pairs),
        ``by_combination`` (``count_train``, ``b_train``, ``count_pred``,
        ``b_pred``, ``biased`` = b_train > 1/|G|, ``delta`` = b_pred - b_train,
        ``term``, ``contribution``, ``empty``), ``by_size``, ``top(k)``.

    Examples
    --------
    Two groups; {a, b} is 80% group g in training and 100% in the predictions:

    >>> import numpy as np
    >>> from biasamp import multi_mals
    >>> tasks = np.array([[1, 1], [1, 1], [1, 0], [0, 1]])
    >>> result = multi_mals(groups_train=["g", "h", "g", "h"], tasks_train=tasks,
    ...                     sample_weight_train=[8, 2, 1, 1],
    ...                     tasks=tasks, groups_pred=["g", "g", "h", "g"], tasks_pred=tasks,
    ...                     combinations="subsets", min_size=2, min_group_size=None)
    >>> result.n_combinations, round(result.value, 2)
    (1, 0.2)
    """
    groups_pred = prediction_columns(
        groups_pred, pred_prefix, arg="groups_pred", truth=(groups, groups_train)
    )
    tasks_pred = prediction_columns(
        tasks_pred, pred_prefix, arg="tasks_pred", truth=(tasks, tasks_train)
    )
    absolute = _check_absolute(absolute)
    n_perm = check_n_perm(n_perm)
    held = getattr(space, "_eval_matrices", None)  # a space holds its rows (checked below)
    if n_perm and groups is None and not (isinstance(held, dict) and "groups" in held):
        raise ValueError(ERR_SWAP_NEEDS.format(metric="multi_mals", needs="groups="))
    limit = check_min_group_size(min_group_size)
    cell = check_min_cell(min_cell)
    never = never_occurring_of(groups_train, groups, groups_pred)
    built = _arrays_or_space(
        space,
        {
            "groups_train": groups_train,
            "tasks_train": tasks_train,
            "tasks": tasks,
            "groups_pred": groups_pred,
            "tasks_pred": tasks_pred,
            "groups": groups,
            "sample_weight": sample_weight,
            "sample_weight_train": sample_weight_train,
            "group_names": group_names,
            "task_names": task_names,
        },
        ("groups_train", "tasks_train", "tasks", "groups_pred", "tasks_pred"),
        {
            "combinations": combinations,
            "min_size": min_size,
            "max_size": max_size,
            "min_count": min_count,
            "max_combinations": max_combinations,
            "progress": progress,
        },
    )
    result, replicate_values = _multi_mals(built, absolute=absolute, min_cell=cell)
    _attach_sizes(result, built, min_group_size=limit, never=never)
    _bootstrap(
        [result],
        [replicate_values],
        built,
        n_boot=n_boot,
        ci=ci,
        random_state=random_state,
        bootstrap=bootstrap,
        progress=progress,
    )
    _swap_test(
        [result],
        [replicate_values],
        built,
        n_perm=n_perm,
        random_state=random_state,
        exchanged=[None],
        progress=progress,
    )
    return result


def multi_directional(
    *,
    direction: str,
    groups_train: Any = None,
    tasks_train: Any = None,
    groups: Any = None,
    tasks: Any = None,
    groups_pred: Any = None,
    tasks_pred: Any = None,
    pred_prefix: str | None = None,
    combinations: str = "observed",
    min_size: int = 1,
    max_size: int | None = None,
    min_count: float = 1,
    max_combinations: int = _DEFAULT_MAX_COMBINATIONS,
    absolute: bool = True,
    tie_rule: str = "zero",
    empty: str = "exclude",
    baseline: str = "evaluation",
    train_rows: str = "labelled",
    sample_weight: Any = None,
    sample_weight_train: Any = None,
    group_names: Sequence[Any] | None = None,
    task_names: Sequence[Any] | None = None,
    n_boot: int | None = None,
    ci: float = 0.95,
    random_state: Any = None,
    bootstrap: str = "poisson",
    space: CombinationSpace | None = None,
    progress: bool = False,
    min_group_size: float | None = DEFAULT_MIN_GROUP_SIZE,
    min_cell: float | None = DEFAULT_MIN_CELL,
    n_perm: int = 0,
) -> MultiAttributeResult:
    """Directional multi-attribute bias amplification, Multi-> (Zhao et al., 2023, eq. 3).

    Parameters
    ----------
    direction : {"A->T", "T->A"}
        ``"A->T"`` (the paper's ``"G->M"``): does the group change the
        predicted combinations? Needs ``tasks_pred``. ``"T->A"`` (``"M->G"``):
        do the combinations change the group predictions? Needs ``groups_pred``.
    groups_train, tasks_train : array-like
        Training ground truth: chooses M ("observed") and fixes the signs
        ``y_gm = sign(P(g, m) - P(g) P(m))``.
    groups, tasks : array-like of shape (n,) / (n, |G|) and (n, |T|)
        Evaluation ground truth.
    groups_pred, tasks_pred : array-like, optional
        The model's predictions on the evaluation rows (0/1).
    combinations, min_size, max_size, min_count, max_combinations
        How M is built (see :func:`multi_mals`).
    absolute : bool, default True
        ``|Delta|`` (the paper) or the raw ``y_gm Delta`` terms of BiasAmp->.
    tie_rule : {"zero", "paper"}, default "zero"
        Raw terms of pairs with no training correlation (as :func:`biasamp.directional`).
    empty : {"exclude", "error"}, default "exclude"
        Pairs whose conditioning set is empty in the evaluation split.
    baseline : {"evaluation", "train"}, default "evaluation"
        Where ``P(m | g)`` / ``P(g | m)`` of ``Delta`` come from: the evaluation
        ground truth (reference code, BiasAmp->) or the training split (the
        paper's formula read literally).
    train_rows : {"labelled", "with_task", "all"}, default "labelled"
        Which training rows count: rows with a group or a task (default, as the
        reference code's ``keep_indices``), rows with a task, or every row (see
        :func:`biasamp.directional`). Not with ``space`` (it holds its rows).
    sample_weight, sample_weight_train, group_names, task_names
        As in :func:`biasamp.directional`.
    n_boot, ci, random_state, bootstrap
        Bootstrap of the evaluation rows (see :func:`multi_mals`).
    space, progress
        A shared :class:`CombinationSpace` and progress bars (see :func:`multi_mals`).
    min_group_size : float or None, default 30
        Warn (:class:`SmallGroupWarning`) about the groups with fewer rows (or
        less total weight) than this in the training or the evaluation split;
        ``None`` checks nothing.
    min_cell : float or None, default 5
        Flag ``fragile`` (``by_combination``) the pairs that count and rest on
        fewer rows than this (``support``: the rows where the combination is
        predicted for Multi_MALS, the conditioning set for Multi->); a
        :class:`FragilePairWarning` names those among the ten largest
        contributions. ``None`` flags none.
    pred_prefix : str, optional
        Read the predictions as the file audit does (:func:`biasamp.audit`'s
        ``pred_prefix``): a frame passed as ``groups_pred`` or ``tasks_pred``
        gives, for each column ``C`` of the ground truth's frame, its column
        ``pred_prefix + C``, read as ``C`` (``pred_cup`` predicts ``cup``); its
        other columns are left out, so the evaluation frame itself may be passed.
    n_perm : int, default 0
        The paired swap test against chance (see :func:`multi_mals`): each
        evaluation row's label (``tasks`` for A->T, ``groups`` for T->A) and the
        model's output swap with probability 1/2.

    Returns
    -------
    MultiAttributeResult
        ``group_sizes`` (groups x ``"train"``, ``"evaluation"`` and, for T->A,
        ``"predicted"``) and ``small_groups``. ``value`` = X (mean over the
        (group, combination) pairs with a
        non-empty conditioning set), ``variance`` (population variance of the
        raw ``Delta`` over those pairs), ``by_combination`` with the columns of
        :func:`biasamp.directional`'s ``by_pair`` plus ``term``.

    Examples
    --------
    Group g has {a, b} in 4 of its 5 rows, group h in 1 of 5; the model
    predicts {a, b} for every row of g and none of h:

    >>> import numpy as np
    >>> from biasamp import multi_directional
    >>> tasks = np.array([[1, 1], [1, 0]] * 2)
    >>> result = multi_directional(direction="G->M",
    ...     groups_train=["g", "g", "h", "h"], tasks_train=tasks,
    ...     sample_weight_train=[4, 1, 1, 4],
    ...     groups=["g", "g", "h", "h"], tasks=tasks, sample_weight=[4, 1, 1, 4],
    ...     tasks_pred=np.array([[1, 1], [1, 1], [1, 0], [1, 0]]),
    ...     combinations="subsets", min_size=2, min_group_size=None)
    >>> result.direction, round(result.value, 2)
    ('G->M', 0.2)
    """
    groups_pred = prediction_columns(
        groups_pred, pred_prefix, arg="groups_pred", truth=(groups, groups_train)
    )
    tasks_pred = prediction_columns(
        tasks_pred, pred_prefix, arg="tasks_pred", truth=(tasks, tasks_train)
    )
    absolute = _check_absolute(absolute)
    n_perm = check_n_perm(n_perm)
    _check_rules(tie_rule, empty)
    limit = check_min_group_size(min_group_size)
    cell = check_min_cell(min_cell)
    never = never_occurring_of(groups_train, groups)
    reported = _reported_direction(direction)
    direction = normalize_direction(direction)
    if baseline not in ("evaluation", "train"):
        raise ValueError(ERR_BASELINE.format(got=baseline))
    if space is None:
        check_combination_options(combinations, min_size, max_size, min_count, max_combinations)
        check_predictions(direction, groups_pred=groups_pred, tasks_pred=tasks_pred)
        groups_train, tasks_train, sample_weight_train = select_training_rows(
            groups_train=groups_train,
            tasks_train=tasks_train,
            sample_weight_train=sample_weight_train,
            group_names=group_names,
            task_names=task_names,
            train_rows=train_rows,
            compact=True,
        )
    elif not isinstance(space, CombinationSpace):
        raise TypeError(ERR_SPACE_TYPE.format(type_name=type(space).__name__))
    elif train_rows != space.train_rows:
        raise ValueError(
            ERR_SPACE_OPTIONS.format(name="train_rows", got=train_rows, have=space.train_rows)
        )
    built = _arrays_or_space(
        space,
        {
            "groups_train": groups_train,
            "tasks_train": tasks_train,
            "tasks": tasks,
            "groups": groups,
            "groups_pred": groups_pred if direction == "T->A" else None,
            "tasks_pred": tasks_pred if direction == "A->T" else None,
            "sample_weight": sample_weight,
            "sample_weight_train": sample_weight_train,
            "group_names": group_names,
            "task_names": task_names,
        },
        ("groups_train", "tasks_train", "groups", "tasks"),
        {
            "combinations": combinations,
            "min_size": min_size,
            "max_size": max_size,
            "min_count": min_count,
            "max_combinations": max_combinations,
            "progress": progress,
        },
    )
    result, replicate_values = _multi_directional(
        built,
        direction=direction,
        absolute=absolute,
        tie_rule=tie_rule,
        empty=empty,
        baseline=baseline,
        min_cell=cell,
    )
    _attach_sizes(result, built, min_group_size=limit, never=never)
    _bootstrap(
        [result],
        [replicate_values],
        built,
        n_boot=n_boot,
        ci=ci,
        random_state=random_state,
        bootstrap=bootstrap,
        progress=progress,
    )
    _swap_test(
        [result],
        [replicate_values],
        built,
        n_perm=n_perm,
        random_state=random_state,
        exchanged=[_EXCHANGED[normalize_direction(direction)]],
        progress=progress,
    )
    result.direction = reported
    result.params["train_rows"] = train_rows
    return result


def _reported_direction(direction: str) -> str:
    """The direction as the user spelt its family: ``"G->M"`` / ``"M->G"`` for the
    paper's names, else ``"A->T"`` / ``"T->A"``."""
    canonical = normalize_direction(direction)
    key = str(direction).strip().upper().replace("→", "->").replace(" ", "")
    if "M" in key:  # the paper's G->M / M->G
        return "G->M" if canonical == "A->T" else "M->G"
    return canonical


def multi_attribute(
    *,
    groups_train: Any = None,
    tasks_train: Any = None,
    groups: Any = None,
    tasks: Any = None,
    groups_pred: Any = None,
    tasks_pred: Any = None,
    combinations: str = "observed",
    min_size: int = 1,
    max_size: int | None = None,
    min_count: float = 1,
    max_combinations: int = _DEFAULT_MAX_COMBINATIONS,
    absolute: bool = True,
    tie_rule: str = "zero",
    empty: str = "exclude",
    baseline: str = "evaluation",
    train_rows: str = "labelled",
    sample_weight: Any = None,
    sample_weight_train: Any = None,
    group_names: Sequence[Any] | None = None,
    task_names: Sequence[Any] | None = None,
    n_boot: int | None = None,
    ci: float = 0.95,
    random_state: Any = None,
    bootstrap: str = "poisson",
    space: CombinationSpace | None = None,
    progress: bool = False,
    min_group_size: float | None = DEFAULT_MIN_GROUP_SIZE,
    min_cell: float | None = DEFAULT_MIN_CELL,
    n_perm: int = 0,
) -> dict[str, MultiAttributeResult]:
    """Multi_MALS and Multi-> in both directions from one combination space.

    M and its counts are built once (or taken from ``space``) and one
    bootstrap serves all three metrics, so this costs about a third of three
    separate calls. Arguments as in :func:`multi_mals` and
    :func:`multi_directional`; every role is needed. One
    :class:`SmallGroupWarning` per split serves the three results.

    Returns
    -------
    MetricResults (a dict of str -> MultiAttributeResult)
        ``"multi-mals"``, ``"multi-a2t"`` (G->M) and ``"multi-t2a"`` (M->G), the
        registry's canonical names; each equals the result of the corresponding
        single call. The keys of earlier releases, ``"multi_mals"``, ``"A->T"``
        and ``"T->A"``, and every spelling of the registry index it too.

    Examples
    --------
    >>> import numpy as np
    >>> import biasamp
    >>> tasks = np.array([[1, 1], [1, 0]] * 2)
    >>> results = biasamp.multi_attribute(
    ...     groups_train=["g", "g", "h", "h"], tasks_train=tasks, sample_weight_train=[4, 1, 1, 4],
    ...     groups=["g", "g", "h", "h"], tasks=tasks, sample_weight=[4, 1, 1, 4],
    ...     groups_pred=["g", "g", "h", "g"], tasks_pred=np.array([[1, 1], [1, 1], [1, 0], [1, 0]]),
    ...     combinations="subsets", min_size=2, min_group_size=None)
    >>> list(results), round(results["multi-a2t"].value, 2), results["A->T"] is results["multi-a2t"]
    (['multi-mals', 'multi-a2t', 'multi-t2a'], 0.2, True)
    """
    absolute = _check_absolute(absolute)
    n_perm = check_n_perm(n_perm)
    _check_rules(tie_rule, empty)
    limit = check_min_group_size(min_group_size)
    cell = check_min_cell(min_cell)
    never = never_occurring_of(groups_train, groups)
    if baseline not in ("evaluation", "train"):
        raise ValueError(ERR_BASELINE.format(got=baseline))
    if space is None:
        groups_train, tasks_train, sample_weight_train = select_training_rows(
            groups_train=groups_train,
            tasks_train=tasks_train,
            sample_weight_train=sample_weight_train,
            group_names=group_names,
            task_names=task_names,
            train_rows=train_rows,
            compact=True,
        )
    elif not isinstance(space, CombinationSpace):
        raise TypeError(ERR_SPACE_TYPE.format(type_name=type(space).__name__))
    elif train_rows != space.train_rows:
        raise ValueError(
            ERR_SPACE_OPTIONS.format(name="train_rows", got=train_rows, have=space.train_rows)
        )
    built = _arrays_or_space(
        space,
        {
            "groups_train": groups_train,
            "tasks_train": tasks_train,
            "tasks": tasks,
            "groups": groups,
            "groups_pred": groups_pred,
            "tasks_pred": tasks_pred,
            "sample_weight": sample_weight,
            "sample_weight_train": sample_weight_train,
            "group_names": group_names,
            "task_names": task_names,
        },
        ("groups_train", "tasks_train", "groups", "tasks", "groups_pred", "tasks_pred"),
        {
            "combinations": combinations,
            "min_size": min_size,
            "max_size": max_size,
            "min_count": min_count,
            "max_combinations": max_combinations,
            "progress": progress,
        },
    )
    mals_result, mals_values = _multi_mals(built, absolute=absolute, min_cell=cell)
    results = MetricResults({"multi-mals": mals_result})
    computes = [mals_values]
    for direction in ("A->T", "T->A"):
        result, values = _multi_directional(
            built,
            direction=direction,
            absolute=absolute,
            tie_rule=tie_rule,
            empty=empty,
            baseline=baseline,
            min_cell=cell,
        )
        result.params["train_rows"] = train_rows
        results[result.metric_name] = result
        computes.append(values)
    # one warning per split for the three results (their checked splits are the same)
    for i, result in enumerate(results.values()):
        with warnings.catch_warnings():
            if i > 0:  # the first result warned about the missing groups
                warnings.simplefilter("ignore", MissingGroupWarning)
            _attach_sizes(result, built, min_group_size=limit if i == 0 else None, never=never)
        result.min_group_size = limit
        result.small_groups = mals_result.small_groups
    _bootstrap(
        list(results.values()),
        computes,
        built,
        n_boot=n_boot,
        ci=ci,
        random_state=random_state,
        bootstrap=bootstrap,
        progress=progress,
    )
    _swap_test(
        list(results.values()),
        computes,
        built,
        n_perm=n_perm,
        random_state=random_state,
        exchanged=[None, _EXCHANGED["A->T"], _EXCHANGED["T->A"]],
        progress=progress,
    )
    return results
