"""Bias scores and BiasAmp_MALS (Zhao et al., EMNLP 2017, "Men Also Like Shopping").

.. math::

    b(t, g) = \\frac{c(t, g)}{\\sum_{g'} c(t, g')}

    \\mathrm{BiasAmp}_{MALS} = \\frac{1}{|T|} \\sum_g \\sum_{t : b^*(t,g) > 1/|G|}
    \\tilde b(t, g) - b^*(t, g)

``b*`` comes from the training ground truth, ``b~`` from the predicted groups
crossed with the predicted tasks. Rules (see ``docs/metrics/mals.md``):

* The threshold is strict: a pair with ``b*(t, g) = 1/|G|`` exactly is not
  biased and does not count (decided on counts, so it is exact).
* The sum is divided by ``|T|``, the number of tasks in the label space,
  including tasks that never occur in training (they have no biased pair).
* A task that is never predicted has no ``b~``: its pairs contribute 0 while
  the divisor stays ``|T|``, as the reference's ``nansum / len`` does. Such
  pairs are counted in ``result.n_empty`` and flagged ``empty=True``.
* ``violations`` counts tasks whose predicted bias is more than ``margin``
  from the training bias for some group (Table 2, "Viol."), among tasks that
  occur both in training and in the predictions.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import Any, cast

import numpy as np
import pandas as pd

from biasamp._deprecation import UNSET, positional_keywords
from biasamp.counts._count_table import CountTable, check_count_table
from biasamp.counts._swaps import check_n_perm
from biasamp.inputs._group_sizes import (
    DEFAULT_MIN_CELL,
    DEFAULT_MIN_GROUP_SIZE,
    check_min_cell,
    check_min_group_size,
)
from biasamp.inputs._label_matrix import ERR_EMPTY_SPLIT
from biasamp.inputs._prefixed import prediction_columns
from biasamp.metrics._bootstrap import (
    bootstrap_pairwise,
    check_bootstrap_args,
    interval_from_streamed_tables,
)
from biasamp.metrics._group_sizes import (
    SplitSizes,
    attach_group_sizes,
    check_sizes,
    never_occurring_of,
    split_sizes,
)
from biasamp.metrics._pair_counts import pair_count_columns, warn_fragile_pairs
from biasamp.metrics._significance import ERR_SWAP_NEEDS, swap_test_pairwise
from biasamp.metrics._splits import (
    aligned_arguments,
    count_split,
    count_training_split,
    evaluation_split,
    warn_single_group,
)
from biasamp.results._base import PairwiseResult, pair_frame

__all__ = ["bias_scores", "mals", "mals_from_counts"]

ERR_MARGIN = "margin: expected a number in [0, 1], got {got!r}."
ERR_MALS_TRAIN = "mals needs the training side: groups_train and tasks_train, or counts_train."
ERR_BIAS_SCORES_TASKS = "bias_scores: missing the keyword argument tasks=."
ERR_EMPTY_TASKS = "empty: expected 'drop', 'nan' or 'error', got {got!r}."
ERR_EMPTY_TASK_ROWS = (
    "{count} task(s) never co-occur with any group, so their bias score is undefined: {examples}. "
    "Pass empty='drop' or empty='nan'."
)


def bias_score_matrix(joint: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``b(t, g)`` as a (..., |G|, |T|) array from joint counts, and the defined mask (|T|,)."""
    per_task = joint.sum(axis=-2, keepdims=True)
    defined = per_task > 0
    scores = np.where(defined, joint / np.where(defined, per_task, 1.0), np.nan)
    return scores, np.broadcast_to(defined, joint.shape)


def is_biased(joint: np.ndarray) -> np.ndarray:
    """``b(t, g) > 1/|G|``, decided on counts: ``|G| c(t, g) > sum_g' c(t, g')``.

    Scale-free: each task's counts are divided by a power of two near their
    total (exact), so huge weights cannot overflow ``|G| c(t, g)``, and the
    comparison has a tolerance of 1e-12 relative to the total, so a tie is a tie
    whatever the scale of the weights (their sums round differently).
    """
    per_task = joint.sum(axis=-2, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        exponent = np.floor(np.log2(np.where(per_task > 0, per_task, 1.0)))
    scale = np.exp2(-exponent)
    scaled, total = joint * scale, per_task * scale
    return joint.shape[-2] * scaled - total > 1e-12 * total


def mals_arrays(
    train: CountTable, predictions: CountTable, *, margin: float = 0.05
) -> dict[str, np.ndarray]:
    """Per-pair arrays of BiasAmp_MALS (works on tables with a replicate axis)."""
    train.require("groups", "tasks", metric="mals (training side)")
    predictions.require("groups_pred", "tasks_pred", metric="mals (predictions)")
    joint_train = train.joint[("groups", "tasks")]
    joint_pred = predictions.joint[("groups_pred", "tasks_pred")]
    b_train, def_train = bias_score_matrix(joint_train)
    b_pred, def_pred = bias_score_matrix(joint_pred)
    biased = is_biased(joint_train)
    delta = b_pred - b_train
    used = biased & def_pred
    # C order whatever the tables' layout (a transposed BLAS product is Fortran-ordered), so
    # the sum below adds in one order: equal counts give a bit-identical value on every path
    values = np.ascontiguousarray(np.where(used, delta, 0.0))
    n_tasks = joint_train.shape[-1]
    both = def_train & def_pred
    off = np.where(both, np.abs(delta), 0.0) > margin
    violations = off.any(axis=-2).sum(axis=-1)
    return {
        "b_train": b_train,
        "b_pred": b_pred,
        "biased": np.broadcast_to(biased, joint_pred.shape),
        "delta": delta,
        "contribution": values / n_tasks,
        "empty": np.broadcast_to(biased & ~def_pred, joint_pred.shape),
        "violation": np.broadcast_to(off.any(axis=-2, keepdims=True), joint_pred.shape),
        "value": values.sum(axis=(-2, -1)) / n_tasks,
        "violations": violations,
    }


def mals_group_sizes(train: CountTable, predictions: CountTable) -> SplitSizes | pd.DataFrame:
    """Group sizes of BiasAmp_MALS: ``"train"``, ``"evaluation"`` (when the predictions'
    table has ground-truth ``groups``) and ``"predicted"`` (``groups_pred``)."""
    return split_sizes(
        {
            "train": (train, "groups"),
            "evaluation": (predictions, "groups"),
            "predicted": (predictions, "groups_pred"),
        }
    )


def mals_counts(
    train: CountTable,
    predictions: CountTable,
    arrays: dict[str, np.ndarray],
    *,
    min_cell: float | None,
) -> dict[str, np.ndarray]:
    """The count columns of BiasAmp_MALS's ``by_pair`` (:mod:`biasamp.metrics._pair_counts`):
    ``b~(t, g)`` rests on the rows where the task is predicted."""
    joint_pred = np.asarray(predictions.joint[("groups_pred", "tasks_pred")], dtype=np.float64)
    support = np.broadcast_to(joint_pred.sum(axis=-2, keepdims=True), joint_pred.shape)
    return pair_count_columns(
        train=train,
        evaluation=predictions,
        pred_roles=("groups_pred", "tasks_pred"),
        support=support,
        used=arrays["biased"] & ~arrays["empty"],
        min_cell=min_cell,
    )


def mals_from_counts(
    train: CountTable,
    predictions: CountTable,
    *,
    margin: float = 0.05,
    ci: float = 0.95,
    min_group_size: float | None = DEFAULT_MIN_GROUP_SIZE,
    min_cell: float | None = DEFAULT_MIN_CELL,
) -> PairwiseResult:
    """BiasAmp_MALS from a training table (``groups``, ``tasks``) and a prediction
    table (``groups_pred``, ``tasks_pred``); see :func:`mals`.

    When ``predictions`` carries the replicates of an online bootstrap
    (:meth:`CountTable.empty` with ``n_boot``), the result has the ``ci``-level
    percentile interval, ``se`` and ``replicates``, as ``mals(..., n_boot=...)``;
    a ``train`` table with replicates of its own is resampled too.
    ``result.group_sizes`` holds the group totals of ``train`` (``"train"``) and
    of ``predictions`` (``"evaluation"`` when it has ``groups``, ``"predicted"``
    for ``groups_pred``); ``min_group_size`` and ``min_cell`` as in :func:`mals`.

    Examples
    --------
    >>> from biasamp import CountTable, mals_from_counts
    >>> train = CountTable.from_arrays(groups=["w", "w", "m"], tasks=["cook", "cook", "cook"])
    >>> stream = CountTable.empty(group_names=["m", "w"], task_names=["cook"],
    ...                           n_boot=100, random_state=0)
    >>> stream = stream.update(groups_pred=["w", "w", "w", "m"], tasks_pred=["cook"] * 4)
    >>> result = mals_from_counts(train, stream, min_group_size=None)
    >>> round(result.value, 4), len(result.replicates)
    (0.0833, 100)
    """
    if not isinstance(margin, (int, float, np.number)) or not 0 <= float(margin) <= 1:
        raise ValueError(ERR_MARGIN.format(got=margin))
    limit = check_min_group_size(min_group_size)
    cell = check_min_cell(min_cell)
    check_count_table(train, arg="train")
    check_count_table(predictions, arg="predictions")
    arrays = mals_arrays(train, predictions, margin=float(margin))
    columns = ("b_train", "b_pred", "biased", "delta", "contribution", "violation", "empty")
    counts = mals_counts(train, predictions, arrays, min_cell=cell)
    # built on first read (pandas costs more than the metric on small inputs)
    by_pair = partial(
        pair_frame, predictions, {**{name: arrays[name] for name in columns}, **counts}
    )
    result = PairwiseResult(
        metric="mals",
        value=float(arrays["value"]),
        by_pair=by_pair,
        n=float(predictions.n),
        n_train=float(train.n),
        n_pairs=int(arrays["biased"].sum()),
        n_empty=int(arrays["empty"].sum()),
        params={"margin": float(margin), "threshold": 1.0 / len(train.group_names)},
        extras={"violations": int(arrays["violations"]), "n_tasks": len(train.task_names)},
        min_cell=cell,
    )
    attach_group_sizes(result, mals_group_sizes(train, predictions), min_group_size=limit)
    warn_fragile_pairs(
        contribution=arrays["contribution"],
        fragile=counts["fragile"],
        support=counts["support"],
        group_names=predictions.group_names,
        task_names=predictions.task_names,
        metric="BiasAmp_MALS",
        min_cell=cell,
    )
    return interval_from_streamed_tables(
        result,
        predictions,
        train,
        compute=lambda ev, tr: mals_arrays(train if tr is None else tr, ev, margin=float(margin)),
        ci=ci,
    )


def mals(
    *,
    groups_train: Any = None,
    tasks_train: Any = None,
    groups_pred: Any,
    tasks_pred: Any,
    pred_prefix: str | None = None,
    groups: Any = None,
    tasks: Any = None,
    margin: float = 0.05,
    counts_train: CountTable | pd.DataFrame | None = None,
    sample_weight: Any = None,
    sample_weight_train: Any = None,
    group_names: Sequence[Any] | None = None,
    task_names: Sequence[Any] | None = None,
    soft: bool = False,
    positive_group: Any = None,
    positive_label: Any = None,
    n_boot: int | None = None,
    ci: float = 0.95,
    random_state: Any = None,
    bootstrap: str = "poisson",
    resample_train: bool = False,
    progress: bool = False,
    min_group_size: float | None = DEFAULT_MIN_GROUP_SIZE,
    min_cell: float | None = DEFAULT_MIN_CELL,
    n_perm: int = 0,
) -> PairwiseResult:
    """BiasAmp_MALS, the mean bias amplification of Zhao et al. (2017).

    Parameters
    ----------
    groups_train, tasks_train : array-like of shape (n_train,) or (n_train, k)
        Training ground truth; fixes ``b*`` and the label names.
    groups_pred, tasks_pred : array-like of shape (n,) or (n, k)
        The model's predicted groups and tasks on the evaluation rows.
    groups, tasks : array-like of shape (n,) or (n, k), optional
        Evaluation ground truth, as :func:`biasamp.multi_mals` takes it:
        validated against the label space and the prediction rows; BiasAmp_MALS
        itself compares predictions with training only, so they do not change
        the value.
    margin : float, default 0.05
        Tolerance for ``violations``.
    counts_train : CountTable or DataFrame, optional
        The training side as counts (tasks x groups) instead of labels.
    sample_weight : array-like of shape (n,), optional
        Weights of the prediction rows.
    sample_weight_train : array-like of shape (n_train,), optional
        Weights of the training rows.
    group_names, task_names : sequence, optional
        Canonical label names (otherwise the training split fixes them).
    soft : bool, default False
        Accept predicted probabilities (expected counts).
        A 1-D score for a role with two labels is the probability of the
        second label in sorted order (scikit-learn's ``classes_[1]``);
        ``p`` and ``[1 - p, p]`` give identical results.
    positive_group, positive_label : label, optional
        With ``soft``, the group (``groups_pred``) or task (``tasks_pred``) a
        1-D score is the probability of, instead of the second label.
    n_boot : int, optional
        Number of bootstrap replicates; ``None`` (default) computes no interval.
    ci : float, default 0.95
        Level of the percentile interval.
    random_state : None, int, numpy Generator, RandomState or SeedSequence
        Seed of the bootstrap and of the swap test.
    bootstrap : {"poisson", "multinomial"}, default "poisson"
        Replicate weights: Poisson(1) per row, or the classic bootstrap.
    resample_train : bool, default False
        Also resample the training rows (by default ``b*`` and the set of
        biased pairs are fixed and only the prediction rows are resampled).
    n_perm : int, default 0
        Swapped data sets of the paired swap test against chance (0: no test):
        each evaluation row's labels (``groups``, ``tasks``, which it then needs)
        and predictions swap with probability 1/2; the training side stays. The
        result then has ``p_value`` (one-sided: larger values are amplification)
        and ``null`` (``docs/uncertainty.md``, "Significance against chance").
    progress : bool, default False
        Show a progress bar while counting the replicates.
    min_group_size : float or None, default 30
        Warn (:class:`SmallGroupWarning`) about the groups with fewer rows (or
        less total weight) than this in the training split, or in the
        evaluation split (``groups``; the predicted groups when ``groups`` is
        not given); ``None`` checks nothing. Groups absent from a split are not
        small: a group of the training split absent from the predictions (or the
        evaluation ground truth) warns :class:`MissingGroupWarning` instead.
    min_cell : float or None, default 5
        Flag ``fragile`` the biased pairs whose task is predicted on fewer rows
        (or less weight) than this: ``b~(t, g)`` is a share of those rows.
        A :class:`FragilePairWarning` names the fragile pairs among the ten
        largest contributions; ``None`` flags none.
    pred_prefix : str, optional
        Read the predictions as the file audit does (:func:`biasamp.audit`'s
        ``pred_prefix``): a frame passed as ``groups_pred`` or ``tasks_pred``
        gives, for each column ``C`` of the ground truth's frame, its column
        ``pred_prefix + C``, read as ``C`` (``pred_cup`` predicts ``cup``); its
        other columns are left out, so the evaluation frame itself may be passed.

    Returns
    -------
    PairwiseResult
        ``group_sizes`` (groups x ``"train"``, ``"evaluation"``, ``"predicted"``),
        ``small_groups``; ``value``, ``violations`` (also ``result.extras["violations"]``), and
        ``by_pair`` with ``b_train``, ``b_pred``, ``biased`` (b* > 1/|G|),
        ``delta``, ``contribution``, ``violation`` (the task violates the margin)
        and ``empty`` (a biased pair whose task is never predicted), and the
        counts each value rests on: ``n_train``, ``n_true`` (NaN without
        ``groups`` and ``tasks``), ``n_pred``, ``support`` (the task's predicted
        rows) and ``fragile``; ``missing_groups`` and ``excluded_pairs``.
        With ``n_boot``: ``ci`` (low, high), ``ci_level``, ``se``,
        ``replicates`` (B,), and ``by_pair`` columns ``ci_low`` / ``ci_high``,
        the percentile interval of the pair's ``delta`` (``docs/uncertainty.md``).

    Examples
    --------
    Zhao et al.'s example: cooking is 66% women in training, 84% in predictions.

    >>> from biasamp import mals
    >>> result = mals(groups_train=["w", "m"], tasks_train=["cook", "cook"],
    ...               sample_weight_train=[66, 34],
    ...               groups_pred=["w", "m"], tasks_pred=["cook", "cook"],
    ...               sample_weight=[84, 16])
    >>> round(result.value, 2), result.violations
    (0.18, 1)
    """
    groups_pred = prediction_columns(
        groups_pred, pred_prefix, arg="groups_pred", truth=(groups, groups_train)
    )
    tasks_pred = prediction_columns(
        tasks_pred, pred_prefix, arg="tasks_pred", truth=(tasks, tasks_train)
    )
    limit = check_min_group_size(min_group_size)
    check_min_cell(min_cell)
    never = never_occurring_of(groups_train, groups, groups_pred)
    # pandas arguments of one split are matched by index label (docs/counts.md)
    aligned = aligned_arguments(groups, tasks, groups_pred, tasks_pred, sample_weight)
    groups, tasks, groups_pred, tasks_pred, sample_weight = aligned
    train_side = aligned_arguments(groups_train, tasks_train, sample_weight_train, train=True)
    groups_train, tasks_train, sample_weight_train = train_side
    train = count_training_split(
        groups_train=groups_train,
        tasks_train=tasks_train,
        counts_train=counts_train,
        sample_weight_train=sample_weight_train,
        group_names=group_names,
        task_names=task_names,
    )
    if train is None:
        raise ValueError(ERR_MALS_TRAIN)
    n_perm = check_n_perm(n_perm)
    if n_perm and (groups is None or tasks is None):
        raise ValueError(ERR_SWAP_NEEDS.format(metric="mals", needs="groups= and tasks="))
    if n_boot is not None:
        check_bootstrap_args(
            n_boot=n_boot,
            ci=ci,
            bootstrap=bootstrap,
            resample_train=resample_train,
            progress=progress,
        )
    split = evaluation_split(
        train=train,
        groups=groups,
        tasks=tasks,
        groups_pred=groups_pred,
        tasks_pred=tasks_pred,
        sample_weight=sample_weight,
        soft=soft,
        positive_group=positive_group,
        positive_label=positive_label,
    )
    result = mals_from_counts(
        train, split.table, margin=margin, min_group_size=limit, min_cell=min_cell
    )
    result.never_occurring = never
    result = swap_test_pairwise(
        result,
        split=split,
        compute=lambda swapped: mals_arrays(train, swapped, margin=float(margin))["value"],
        n_perm=n_perm,
        random_state=random_state,
        sample_weight=sample_weight,
        progress=progress,
    )
    if n_boot is None:
        return result
    return bootstrap_pairwise(
        result,
        split=split,
        metric="mals",
        compute=lambda ev, tr: mals_arrays(cast(CountTable, tr), ev, margin=float(margin)),
        n_boot=n_boot,
        ci=ci,
        random_state=random_state,
        bootstrap=bootstrap,
        resample_train=resample_train,
        progress=progress,
        sample_weight=sample_weight,
        train=train,
        groups_train=groups_train,
        tasks_train=tasks_train,
        sample_weight_train=sample_weight_train,
    )


def bias_scores(
    groups: Any,
    *args: Any,
    tasks: Any = UNSET,
    sample_weight: Any = None,
    group_names: Sequence[Any] | None = None,
    task_names: Sequence[Any] | None = None,
    empty: str = "drop",
    min_group_size: float | None = DEFAULT_MIN_GROUP_SIZE,
) -> pd.DataFrame:
    """Bias scores ``b(t, g) = P(g | t)`` (Zhao et al. 2017, eq. 1).

    Parameters
    ----------
    groups : array-like of shape (n,) or (n, |G|)
    tasks : array-like of shape (n,) or (n, |T|), DataFrame or scipy.sparse
        Keyword-only (passing it by position is deprecated).
    sample_weight : array-like of shape (n,), optional
    group_names, task_names : sequence, optional
        Canonical label names.
    empty : {"drop", "nan", "error"}, default "drop"
        Tasks that co-occur with no group have no score: drop their rows,
        keep them as NaN rows, or raise.
    min_group_size : float or None, default 30
        Warn (:class:`SmallGroupWarning`) about the groups with fewer rows (or
        less total weight) than this; ``None`` checks nothing.

    Returns
    -------
    pandas.DataFrame
        Tasks as rows, groups as columns; each row sums to 1.
        ``frame.attrs["group_sizes"]`` holds each group's size as
        ``{"evaluation": {group: size}}`` (rows, or the sum of
        ``sample_weight``), ``frame.attrs["small_groups"]`` the groups below
        ``min_group_size``.

    Examples
    --------
    >>> from biasamp import bias_scores
    >>> bias_scores(["m", "w", "w", "m"], tasks=["cook", "cook", "cook", "ski"],
    ...             min_group_size=None)  # doctest: +NORMALIZE_WHITESPACE
    group         m         w
    task
    cook   0.333333  0.666667
    ski    1.000000  0.000000
    """
    tasks = positional_keywords("bias_scores", args, ("tasks",), {"tasks": tasks})["tasks"]
    if tasks is UNSET:
        raise TypeError(ERR_BIAS_SCORES_TASKS)
    if empty not in ("drop", "nan", "error"):
        raise ValueError(ERR_EMPTY_TASKS.format(got=empty))
    limit = check_min_group_size(min_group_size)
    groups, tasks, _, _, sample_weight = aligned_arguments(groups, tasks, None, None, sample_weight)
    table = count_split(
        groups=groups,
        tasks=tasks,
        sample_weight=sample_weight,
        group_names=group_names,
        task_names=task_names,
    )
    warn_single_group(table, "groups")
    if float(table.n) <= 0:
        raise ValueError(ERR_EMPTY_SPLIT.format(arg="groups"))
    scores, defined = bias_score_matrix(table.joint[("groups", "tasks")])
    frame = pd.DataFrame(
        scores.T,
        index=pd.Index(table.task_names, name="task"),
        columns=pd.Index(table.group_names, name="group"),
    )
    missing = ~defined[0]
    if missing.any():
        if empty == "error":
            names = [table.task_names[i] for i in np.nonzero(missing)[0]]
            raise ValueError(ERR_EMPTY_TASK_ROWS.format(count=len(names), examples=names[:5]))
        if empty == "drop":
            frame = frame.loc[~missing]
    totals = np.asarray(table.totals["groups"], dtype=np.float64)
    small: tuple[Any, ...] = ()
    if limit is not None and bool(((totals > 0) & (totals < limit)).any()):  # else none warn
        small = check_sizes(split_sizes({"evaluation": (table, "groups")}), min_group_size=limit)
    # plain values (not frames) in attrs: pandas compares attrs when it combines frames
    frame.attrs["group_sizes"] = {
        "evaluation": {g: float(v) for g, v in zip(table.group_names, totals, strict=True)}
    }
    frame.attrs["small_groups"] = list(small)
    return frame
