"""BiasAmp-> (directional bias amplification), Wang & Russakovsky, ICML 2021.

.. math::

    \\mathrm{BiasAmp}_{\\to} = \\frac{1}{|A||T|} \\sum_{a,t} y_{at}\\Delta_{at}
    + (1 - y_{at})(-\\Delta_{at})

    y_{at} = 1[P(A_a=1, T_t=1) > P(A_a=1) P(T_t=1)]  \\quad \\text{(training split)}

    \\Delta_{at} = P(\\hat T_t=1 | A_a=1) - P(T_t=1 | A_a=1)  \\quad (A\\to T)

    \\Delta_{at} = P(\\hat A_a=1 | T_t=1) - P(A_a=1 | T_t=1)  \\quad (T\\to A)

Choices where the paper and the reference code differ (see ``docs/metrics/directional.md``):

* **Ties** (``P(a,t) = P(a)P(t)`` on the training split, including groups or
  tasks absent from it): ``tie_rule="zero"`` (default) gives ``y = 0`` so a
  tied pair contributes 0 and still counts in the mean, what the reference
  code's ``sign`` means; ties are decided on counts, whereas the reference's
  ``np.sign`` on floats can read an exact tie as +1 or -1.
  ``tie_rule="paper"`` follows eq. 2 literally: ``y = 0`` so the pair
  contributes ``-Delta``.
* **Empty conditioning sets** (a group with no evaluation rows for A->T, a
  task with no evaluation rows for T->A): ``empty="exclude"`` (default) leaves
  the pair out of the mean, like the reference's ``nanmean``; the number left
  out is ``result.n_empty`` and those rows of ``by_pair`` have ``empty=True``.
  ``empty="error"`` raises instead. If every pair is empty, it raises.
* **Training rows** (``train_rows``): the released reference code (since its
  commit 33ac9ae) first keeps the rows of the sign split with at least one
  task or at least one group, in both directions, then computes ``y_at`` on
  them. ``"labelled"`` (default) does the same; ``"with_task"`` keeps rows
  with a task (the reference's earliest filter); ``"all"`` keeps every row
  (the paper). With 1-D groups every row has a group, so ``"labelled"``
  equals ``"all"``. A ``counts_train`` table is taken as given.
* **No training side**: the signs come from the evaluation ground truth, as
  the reference code does.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from biasamp.counts._count_table import CountTable, check_count_table
from biasamp.counts._swaps import check_n_perm
from biasamp.inputs._group_sizes import (
    DEFAULT_MIN_CELL,
    DEFAULT_MIN_GROUP_SIZE,
    MissingGroupWarning,
    check_min_cell,
    check_min_group_size,
)
from biasamp.inputs._prefixed import prediction_columns
from biasamp.metrics._bootstrap import (
    bootstrap_pairwise,
    check_bootstrap_args,
    interval_from_streamed_tables,
)
from biasamp.metrics._group_sizes import (
    SplitSizes,
    attach_group_sizes,
    never_occurring_of,
    split_sizes,
)
from biasamp.metrics._pair_counts import pair_count_columns, warn_fragile_pairs
from biasamp.metrics._significance import swap_test_pairwise
from biasamp.metrics._splits import (
    aligned_arguments,
    check_train_rows,
    count_kept_rows,
    count_training_split,
    evaluation_split,
    select_training_rows,
)
from biasamp.registry import normalize_direction as _registry_direction
from biasamp.results._base import PairwiseResult, pair_frame

__all__ = ["directional", "directional_from_counts", "normalize_direction"]

ERR_NEEDS_PRED = "direction={direction!r} needs {arg} (the model's predictions)."
ERR_TIE_RULE = "tie_rule: expected 'zero' or 'paper', got {got!r}."
ERR_EMPTY_RULE = "empty: expected 'exclude' or 'error', got {got!r}."
ERR_EMPTY_PAIRS = (
    "{count} (group, task) pair(s) have an empty conditioning set in the evaluation split "
    "({what} never occurs), for example {examples}. Pass empty='exclude' to leave them out."
)
ERR_ALL_EMPTY = "Every (group, task) pair has an empty conditioning set; the metric is undefined."


def normalize_direction(direction: str) -> str:
    """Return ``"A->T"`` or ``"T->A"`` for every spelling the registry accepts."""
    return _registry_direction(direction)


def check_predictions(direction: str, *, groups_pred: Any, tasks_pred: Any) -> None:
    """The predictions a direction needs: ``tasks_pred`` for A->T, ``groups_pred`` for T->A."""
    if direction == "A->T" and tasks_pred is None:
        raise ValueError(ERR_NEEDS_PRED.format(direction=direction, arg="tasks_pred"))
    if direction == "T->A" and groups_pred is None:
        raise ValueError(ERR_NEEDS_PRED.format(direction=direction, arg="groups_pred"))


def _check_rules(tie_rule: str, empty: str) -> None:
    if tie_rule not in ("zero", "paper"):
        raise ValueError(ERR_TIE_RULE.format(got=tie_rule))
    if empty not in ("exclude", "error"):
        raise ValueError(ERR_EMPTY_RULE.format(got=empty))


def training_signs(train: CountTable) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``y_at`` in {-1, 0, 1}, ``P(a, t)`` and ``P(a)P(t)`` of a training table.

    The sign is decided on counts (``n * c(a,t)`` against ``c(a) c(t)``) with a
    tolerance of 1e-12 relative to the larger of the two, so exact ties are ties
    whatever the scale of the weights. The counts are first divided by a power
    of two near ``n`` (exact in floating point), so that huge weights do not
    overflow the products and tiny ones do not underflow them.
    """
    n_raw = np.asarray(train.n, dtype=np.float64)
    positive = n_raw > 0
    exponent = np.floor(np.log2(np.where(positive, n_raw, 1.0)))
    scale = np.exp2(-exponent)[..., None, None]
    n = n_raw[..., None, None] * scale
    joint = train.joint[("groups", "tasks")] * scale
    expected = (train.totals["groups"][..., :, None] * scale) * (
        train.totals["tasks"][..., None, :] * scale
    )
    observed = n * joint
    diff = observed - expected
    tolerance = 1e-12 * np.maximum(observed, expected)
    y = np.where(np.abs(diff) <= tolerance, 0.0, np.sign(diff))
    safe_n = np.where(n > 0, n, 1.0)
    return y, joint / safe_n, expected / (safe_n * safe_n)


def directional_columns(arrays: dict[str, np.ndarray], terms: np.ndarray) -> dict[str, np.ndarray]:
    """The per-pair columns of a directional result (``by_pair`` of :func:`directional`,
    ``by_combination`` of ``multi_directional``): the statistics of
    :func:`directional_arrays`, each pair's ``delta`` and its ``contribution``
    (``terms`` over the defined pairs; 0 on empty pairs, flagged in ``empty``)."""
    defined = arrays["defined"]
    return {
        "p_joint_train": arrays["p_joint_train"],
        "p_expected_train": arrays["p_expected_train"],
        "y": arrays["y"].astype(np.int64),
        "condition_count": arrays["condition_count"],
        "p_true": arrays["p_true"],
        "p_pred": arrays["p_pred"],
        "delta": arrays["delta"],
        "contribution": np.where(defined, terms / max(int(defined.sum()), 1), 0.0),
        "empty": ~defined,
    }


def directional_arrays(
    evaluation: CountTable,
    *,
    direction: str,
    train: CountTable | None = None,
    tie_rule: str = "zero",
) -> dict[str, np.ndarray]:
    """The per-pair arrays of BiasAmp-> (works on tables with a replicate axis).

    Returns a dict with ``y``, ``p_true``, ``p_pred``, ``delta``, ``values``
    (the pair terms), ``defined`` (non-empty conditioning set),
    ``condition_count`` and ``value``; the last has the table's batch shape.
    """
    direction = normalize_direction(direction)
    pred_role = "tasks_pred" if direction == "A->T" else "groups_pred"
    evaluation.require("groups", "tasks", pred_role, metric=f"directional({direction})")
    signs_from = train if train is not None else evaluation
    y, p_joint_train, p_expected_train = training_signs(signs_from)
    joint = evaluation.joint[("groups", "tasks")]
    if direction == "A->T":
        joint_pred = evaluation.joint[("groups", "tasks_pred")]
        cond = np.broadcast_to(evaluation.totals["groups"][..., :, None], joint.shape)
    else:
        joint_pred = evaluation.joint[("groups_pred", "tasks")]
        cond = np.broadcast_to(evaluation.totals["tasks"][..., None, :], joint.shape)
    defined = cond > 0
    safe = np.where(defined, cond, 1.0)
    p_true = np.where(defined, joint / safe, np.nan)
    p_pred = np.where(defined, joint_pred / safe, np.nan)
    delta = p_pred - p_true
    if tie_rule == "paper":
        values = np.where(y > 0, delta, -delta)
    else:
        values = y * delta
    n_defined = defined.sum(axis=(-2, -1))
    total = np.where(defined, values, 0.0).sum(axis=(-2, -1))
    value = np.where(n_defined > 0, total / np.maximum(n_defined, 1), np.nan)
    return {
        "y": np.broadcast_to(y, joint.shape),
        "p_joint_train": np.broadcast_to(p_joint_train, joint.shape),
        "p_expected_train": np.broadcast_to(p_expected_train, joint.shape),
        "p_true": p_true,
        "p_pred": p_pred,
        "delta": delta,
        "values": np.where(defined, values, np.nan),
        "defined": defined,
        "condition_count": cond,
        "value": value,
    }


def directional_counts(
    evaluation: CountTable,
    train: CountTable | None,
    arrays: dict[str, np.ndarray],
    *,
    direction: str,
    min_cell: float | None,
) -> dict[str, np.ndarray]:
    """The count columns of BiasAmp->'s ``by_pair`` and Multi->'s ``by_combination``
    (:mod:`biasamp.metrics._pair_counts`):
    a pair's rates are shares of its conditioning set (the group's rows for A->T, the
    task's for T->A)."""
    return pair_count_columns(
        train=train,
        evaluation=evaluation,
        pred_roles=("groups", "tasks_pred") if direction == "A->T" else ("groups_pred", "tasks"),
        support=arrays["condition_count"],
        used=arrays["defined"],
        min_cell=min_cell,
    )


def directional_group_sizes(
    evaluation: CountTable, train: CountTable | None, direction: str
) -> SplitSizes | pd.DataFrame:
    """Group sizes of BiasAmp->: ``"train"`` (when a training table fixes the signs),
    ``"evaluation"`` and, for T->A, ``"predicted"`` (``groups_pred``)."""
    return split_sizes(
        {
            "train": (train, "groups"),
            "evaluation": (evaluation, "groups"),
            "predicted": (evaluation if direction == "T->A" else None, "groups_pred"),
        }
    )


def directional_from_counts(
    evaluation: CountTable,
    *,
    direction: str,
    train: CountTable | None = None,
    tie_rule: str = "zero",
    empty: str = "exclude",
    ci: float = 0.95,
    min_group_size: float | None = DEFAULT_MIN_GROUP_SIZE,
    min_cell: float | None = DEFAULT_MIN_CELL,
) -> PairwiseResult:
    """BiasAmp-> from count tables (see :func:`directional`).

    Parameters
    ----------
    evaluation : CountTable
        Evaluation split with ``groups``, ``tasks`` and ``tasks_pred`` (A->T)
        or ``groups_pred`` (T->A).
    direction : {"A->T", "T->A"}
    train : CountTable, optional
        Training split with ``groups`` and ``tasks``; fixes the signs. Without
        it the evaluation ground truth fixes them.
    tie_rule, empty : str
        See :func:`directional`.
    ci : float, default 0.95
        Level of the percentile interval, used when ``evaluation`` carries the
        replicates of an online bootstrap (:meth:`CountTable.empty` with
        ``n_boot``); the result then has ``ci``, ``se`` and ``replicates`` as
        with ``directional(..., n_boot=...)``. A ``train`` table with
        replicates of its own is resampled too (``resample_train``).
    min_group_size : float or None, default 30
        As in :func:`directional`; ``result.group_sizes`` holds the group
        totals of ``train`` (``"train"``) and ``evaluation`` (``"evaluation"``,
        and ``"predicted"`` for T->A).
    min_cell : float or None, default 5
        As in :func:`directional`.

    Examples
    --------
    >>> import numpy as np
    >>> from biasamp import CountTable, directional_from_counts
    >>> table = CountTable.empty(group_names=["m", "w"], task_names=["cook", "ski"],
    ...                          n_boot=200, random_state=0)
    >>> for _ in range(3):  # three batches of a stream
    ...     table = table.update(groups=["m", "w", "w", "m"], tasks=["ski", "cook", "cook", "ski"],
    ...                          tasks_pred=["ski", "cook", "ski", "ski"])
    >>> result = directional_from_counts(table, direction="A->T", min_group_size=None)
    >>> round(result.value, 3), result.replicates.shape
    (-0.25, (200,))
    """
    _check_rules(tie_rule, empty)
    direction = normalize_direction(direction)
    limit = check_min_group_size(min_group_size)
    cell = check_min_cell(min_cell)
    check_count_table(evaluation, arg="evaluation")
    if train is not None:
        check_count_table(train, arg="train")
    arrays = directional_arrays(evaluation, direction=direction, train=train, tie_rule=tie_rule)
    defined = arrays["defined"]
    n_empty = int((~defined).sum())
    if not defined.any():
        raise ValueError(ERR_ALL_EMPTY)
    if n_empty and empty == "error":
        gi, ti = np.nonzero(~defined)
        examples = ", ".join(
            f"({evaluation.group_names[g]!r}, {evaluation.task_names[t]!r})"
            for g, t in list(zip(gi, ti, strict=True))[:3]
        )
        what = "the group" if direction == "A->T" else "the task"
        raise ValueError(ERR_EMPTY_PAIRS.format(count=n_empty, what=what, examples=examples))
    n_defined = int(defined.sum())
    counts = directional_counts(evaluation, train, arrays, direction=direction, min_cell=cell)
    columns = directional_columns(arrays, arrays["values"])

    def by_pair() -> pd.DataFrame:  # built on first read (pandas costs more than the metric)
        return pair_frame(evaluation, {**columns, **counts})

    result = PairwiseResult(
        metric="directional",
        value=float(arrays["value"]),
        by_pair=by_pair,
        direction=direction,
        n=float(evaluation.n),
        n_train=None if train is None else float(train.n),
        n_pairs=n_defined,
        n_empty=n_empty,
        params={
            "tie_rule": tie_rule,
            "empty": empty,
            "signs_from": "train" if train is not None else "evaluation",
        },
        min_cell=cell,
    )
    attach_group_sizes(
        result, directional_group_sizes(evaluation, train, direction), min_group_size=limit
    )
    warn_fragile_pairs(
        contribution=columns["contribution"],
        fragile=counts["fragile"],
        support=counts["support"],
        group_names=evaluation.group_names,
        task_names=evaluation.task_names,
        metric=f"BiasAmp {direction}",
        min_cell=cell,
    )
    return interval_from_streamed_tables(
        result,
        evaluation,
        train,
        compute=lambda ev, tr: directional_arrays(
            ev, direction=direction, train=tr, tie_rule=tie_rule
        ),
        ci=ci,
    )


def directional(
    *,
    direction: str,
    groups: Any,
    tasks: Any,
    groups_pred: Any = None,
    tasks_pred: Any = None,
    pred_prefix: str | None = None,
    groups_train: Any = None,
    tasks_train: Any = None,
    counts_train: CountTable | pd.DataFrame | None = None,
    sample_weight: Any = None,
    sample_weight_train: Any = None,
    group_names: Sequence[Any] | None = None,
    task_names: Sequence[Any] | None = None,
    soft: bool = False,
    positive_group: Any = None,
    positive_label: Any = None,
    tie_rule: str = "zero",
    empty: str = "exclude",
    train_rows: str = "labelled",
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
    """Directional bias amplification, BiasAmp-> (Wang & Russakovsky, 2021).

    Parameters
    ----------
    direction : {"A->T", "T->A"}
        ``"A->T"``: does the group change the task predictions? Needs
        ``tasks_pred``. ``"T->A"``: does the task change the group
        predictions? Needs ``groups_pred``.
    groups : array-like of shape (n,) or (n, |A|)
        Ground-truth groups of the evaluation split (labels or 0/1 indicators).
    tasks : array-like of shape (n,) or (n, |T|), DataFrame or scipy.sparse
        Ground-truth tasks of the evaluation split.
    groups_pred, tasks_pred : array-like, optional
        The model's predictions on the same rows; with ``soft=True``,
        probabilities in [0, 1] (expected counts, Wang et al. appendix A.3).
    groups_train, tasks_train : array-like, optional
        Ground truth of the training split; fixes the sign ``y_at``. Without
        a training side the evaluation ground truth fixes it.
    counts_train : CountTable or DataFrame, optional
        The training side as counts instead of labels (for example labour
        statistics, tasks as rows and groups as columns).
    sample_weight, sample_weight_train : array-like of shape (n,), optional
        Non-negative row weights (zero allowed).
    group_names, task_names : sequence, optional
        Canonical label names when there is no training side.
    soft : bool, default False
        Accept probabilities as predictions.
        A 1-D score for a role with two labels is the probability of the
        second label in sorted order (scikit-learn's ``classes_[1]``);
        ``p`` and ``[1 - p, p]`` give identical results.
    positive_group, positive_label : label, optional
        With ``soft``, the group (``groups_pred``) or task (``tasks_pred``) a
        1-D score is the probability of, instead of the second label.
    tie_rule : {"zero", "paper"}, default "zero"
        How a pair with no training correlation counts (module docs).
    empty : {"exclude", "error"}, default "exclude"
        What happens to pairs whose conditioning set is empty (module docs).
        In bootstrap replicates, pairs empty in a replicate are always left
        out of that replicate's mean.
    train_rows : {"labelled", "with_task", "all"}, default "labelled"
        Which rows of the split that fixes the signs ``y_at`` (training, or
        the evaluation ground truth without one) count: rows with a group or a
        task (the released reference code, both directions), rows with a task
        (the reference's earliest filter), or every row (the paper); see
        ``docs/metrics/directional.md``.
    n_boot : int, optional
        Number of bootstrap replicates; ``None`` (default) computes no interval.
    ci : float, default 0.95
        Level of the percentile interval.
    random_state : None, int, numpy Generator, RandomState or SeedSequence
        Seed of the bootstrap and of the swap test.
    bootstrap : {"poisson", "multinomial"}, default "poisson"
        Replicate weights: Poisson(1) per row, or the classic bootstrap.
    resample_train : bool, default False
        Also resample the training rows (by default the training side, and so
        the signs ``y_at``, are fixed and only evaluation rows are resampled).
    n_perm : int, default 0
        Swapped data sets of the paired swap test against chance (0: no test):
        each evaluation row's label (``tasks`` for A->T, ``groups`` for T->A)
        and the model's output swap with probability 1/2. The result then has
        ``p_value`` (one-sided: larger values are amplification) and ``null``
        (``docs/uncertainty.md``, "Significance against chance").
    progress : bool, default False
        Show a progress bar while counting the replicates.
    min_group_size : float or None, default 30
        Warn (:class:`SmallGroupWarning`) about the groups with fewer rows (or
        less total weight) than this in the training or the evaluation split
        (ground truth); ``None`` checks nothing. Groups absent from a split
        are not small: a group of the training split absent from the evaluation
        split (or, for T->A, the predicted groups) warns
        :class:`MissingGroupWarning` instead, and its pairs (left out of the mean
        as empty for A->T) are named in ``result.excluded_pairs``.
    min_cell : float or None, default 5
        Flag ``fragile`` the pairs whose conditioning set (the group's rows for
        A->T, the task's for T->A) has fewer rows (or less weight) than this.
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
        ``group_sizes`` (groups x ``"train"``, ``"evaluation"`` and, for T->A,
        ``"predicted"``) and ``small_groups``. ``value`` is the mean of the
        pair terms; ``by_pair`` holds, per
        (group, task): ``p_joint_train`` = P(a, t) and ``p_expected_train`` =
        P(a)P(t) on the training split, ``y`` (the sign), ``condition_count``
        (the evaluation count of the conditioning group or task), ``p_true`` and
        ``p_pred`` (the conditional probabilities of ``delta``), ``delta``, and
        ``contribution`` (the pair's term divided by the number of pairs), and the
        counts each value rests on: ``n_train``, ``n_true``, ``n_pred`` (the true
        group with the predicted task for A->T, the predicted group with the
        true task for T->A), ``support`` (= ``condition_count``) and ``fragile``.
        With ``n_boot``: ``ci`` (low, high), ``ci_level``, ``se``,
        ``replicates`` (B,), and ``by_pair`` columns ``ci_low`` / ``ci_high``,
        the percentile interval of the pair's ``delta`` (``docs/uncertainty.md``).

    Examples
    --------
    Shortcoming 2 of Wang & Russakovsky (section 3.2): group 1 has 60 instances
    with T=0 and 30 with T=1, group 2 has 10 and 20; the model predicts T=0 for
    every member of group 1 and T=1 for every member of group 2.

    >>> import numpy as np
    >>> from biasamp import directional
    >>> groups = ["g1", "g1", "g2", "g2"]
    >>> tasks = np.array([[0], [1], [0], [1]])
    >>> weights = [60, 30, 10, 20]
    >>> result = directional(direction="A->T", groups=groups, tasks=tasks,
    ...                      tasks_pred=np.array([[0], [0], [1], [1]]), sample_weight=weights)
    >>> round(result.value, 4)
    0.3333
    """
    groups_pred = prediction_columns(
        groups_pred, pred_prefix, arg="groups_pred", truth=(groups, groups_train)
    )
    tasks_pred = prediction_columns(
        tasks_pred, pred_prefix, arg="tasks_pred", truth=(tasks, tasks_train)
    )
    check_train_rows(train_rows)
    limit = check_min_group_size(min_group_size)
    cell = check_min_cell(min_cell)
    never = never_occurring_of(groups_train, groups)
    # pandas arguments of one split are matched by index label (docs/counts.md)
    aligned = aligned_arguments(groups, tasks, groups_pred, tasks_pred, sample_weight)
    groups, tasks, groups_pred, tasks_pred, sample_weight = aligned
    train_side = aligned_arguments(groups_train, tasks_train, sample_weight_train, train=True)
    groups_train, tasks_train, sample_weight_train = train_side
    groups_train, tasks_train, sample_weight_train = select_training_rows(
        groups_train=groups_train,
        tasks_train=tasks_train,
        sample_weight_train=sample_weight_train,
        group_names=group_names,
        task_names=task_names,
        train_rows=train_rows,
    )
    train = count_training_split(
        groups_train=groups_train,
        tasks_train=tasks_train,
        counts_train=counts_train,
        sample_weight_train=sample_weight_train,
        group_names=group_names,
        task_names=task_names,
    )
    _check_rules(tie_rule, empty)
    direction = normalize_direction(direction)
    check_predictions(direction, groups_pred=groups_pred, tasks_pred=tasks_pred)
    n_perm = check_n_perm(n_perm)
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
        groups_pred=groups_pred if direction == "T->A" else None,
        tasks_pred=tasks_pred if direction == "A->T" else None,
        sample_weight=sample_weight,
        group_names=group_names,
        task_names=task_names,
        soft=soft,
        positive_group=positive_group,
        positive_label=positive_label,
    )
    signs = train
    if train is None and train_rows != "all" and split.matrices is not None:
        # no training side: the evaluation ground truth fixes the signs, on its kept rows
        kept = count_kept_rows(
            {role: split.matrices[role] for role in ("groups", "tasks")},
            sample_weight=sample_weight,
            train_rows=train_rows,
            arg="groups",
            table=split.table,
        )
        if float(kept.n) != float(split.table.n):
            signs = kept
    with warnings.catch_warnings():
        if signs is not train:  # the kept rows are no training split: sizes come below
            warnings.simplefilter("ignore", MissingGroupWarning)
        result = directional_from_counts(
            split.table,
            direction=direction,
            train=signs,
            tie_rule=tie_rule,
            empty=empty,
            # the sizes of the splits as given (not of the rows train_rows keeps for the signs)
            min_group_size=limit if signs is train else None,
            min_cell=cell,
        )
    if signs is not train:
        attach_group_sizes(
            result, directional_group_sizes(split.table, train, direction), min_group_size=limit
        )
    result.never_occurring = never
    result.params["train_rows"] = train_rows
    if signs is not None and train is None:
        result.params["signs_from"] = "evaluation"
        result.n_train = None
    result = swap_test_pairwise(
        result,
        split=split,
        # the training signs stay fixed; without a training side each swapped data set
        # takes its signs from its own (swapped) labels, as the observed value does
        compute=lambda swapped: directional_arrays(
            swapped, direction=direction, train=train, tie_rule=tie_rule
        )["value"],
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
        metric=f"directional {direction}",
        compute=lambda ev, tr: directional_arrays(
            ev, direction=direction, train=tr, tie_rule=tie_rule
        ),
        n_boot=n_boot,
        ci=ci,
        random_state=random_state,
        bootstrap=bootstrap,
        resample_train=resample_train,
        progress=progress,
        sample_weight=sample_weight,
        train=signs,
        groups_train=groups_train,
        tasks_train=tasks_train,
        sample_weight_train=sample_weight_train,
    )
