"""BiasAmp_MALS in distribution (Jia, Meng, Zhao & Chang, ACL 2020, "Mitigating Gender Bias
Amplification in Distribution by Posterior Regularization").

Top-1 predictions hide part of the amplification: the model's posterior can be more
biased than its argmax. The metric is BiasAmp_MALS (:mod:`biasamp.metrics._mals`) with
the predicted bias read from the posterior mass instead of the top-1 labels:

.. math::

    \\tilde b(t, g) = \\frac{\\sum_i p_i(t, g)}{\\sum_i \\sum_{g'} p_i(t, g')}

where ``p_i(t, g)`` is row ``i``'s posterior probability of the (task, group) pair.
The posterior mass is counted into an ordinary :class:`CountTable` (roles
``groups_pred`` and ``tasks_pred``), so the formula, the threshold, the divisor
``|T|``, the violations at a margin, ``by_pair`` and the intervals are those of
:func:`biasamp.mals_from_counts`, unchanged. On one-hot posteriors the table holds
the top-1 counts and the value is :func:`biasamp.mals`'s, exactly.

Chunks counted with :func:`distribution_counts` add (``table_a + table_b``), so a
posterior that does not fit in memory is streamed; with ``n_boot`` each chunk
carries the online bootstrap's Poisson replicates of its rows (``row_offset``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from biasamp.counts._count_table import CountTable
from biasamp.counts._row_record import RowRecord
from biasamp.inputs._group_sizes import (
    DEFAULT_MIN_CELL,
    DEFAULT_MIN_GROUP_SIZE,
    check_min_cell,
    check_min_group_size,
)
from biasamp.inputs._readers import check_knob, read_posteriors, read_row_offset, read_weights
from biasamp.metrics._bootstrap import evaluation_replicates
from biasamp.metrics._mals import ERR_MALS_TRAIN, mals_from_counts
from biasamp.metrics._splits import count_training_split
from biasamp.results._base import PairwiseResult
from biasamp.results._intervals import check_ci

__all__ = ["distribution_counts", "distribution_mals", "distribution_mals_from_counts"]

ERR_JOINT_AXIS = "joint_proba: axis {axis} has {got} {what}, but there are {n} {what} ({names})."
ERR_PREDICTIONS = (
    "predictions: expected a table of posterior mass (distribution_counts) or of predicted "
    "labels with the roles groups_pred and tasks_pred."
)

#: Entries of the (replicates x rows) weight block multiplied at once.
REPLICATE_ENTRIES = 4_000_000


def _masses(proba: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per row: the (|G|, |T|) pair mass flattened, each task's mass and the row's group
    distribution (its group mass over its total mass; 0 for a row without mass)."""
    n = proba.shape[0]
    pairs = np.ascontiguousarray(proba.transpose(0, 2, 1)).reshape(n, -1)  # (n, |G| * |T|)
    tasks = proba.sum(axis=2)  # (n, |T|)
    groups = proba.sum(axis=1)  # (n, |G|)
    total = groups.sum(axis=1, keepdims=True)
    shares = np.divide(groups, total, out=np.zeros_like(groups), where=total > 0)
    return pairs, tasks, shares


def distribution_counts(
    joint_proba: Any,
    *,
    task_names: Sequence[Any],
    group_names: Sequence[Any],
    sample_weight: Any = None,
    n_boot: int | None = None,
    random_state: Any = None,
    row_offset: int | None = None,
) -> CountTable:
    """A prediction table of posterior mass, for :func:`distribution_mals_from_counts`.

    Parameters
    ----------
    joint_proba : array-like of shape (n, |T|, |G|)
        Each row's posterior probability of every (task, group) pair, in the order
        of ``task_names`` and ``group_names``. With one task per row (a verb, a
        class) a row is a distribution over the pairs; with several tasks per row
        (objects), entry (t, g) is the probability that the row has task t and group g.
    task_names, group_names : sequence
        The label names of the axes (those of the training table).
    sample_weight : array-like of shape (n,), optional
        Row weights.
    n_boot : int, optional
        Keep the online bootstrap's Poisson(1) replicates of these rows (the
        weights of :func:`biasamp.mals`'s bootstrap for the same rows and seed).
    random_state : None, int, numpy Generator, RandomState or SeedSequence
        Seed of the replicate weights; every chunk of a stream needs the same one.
    row_offset : int, optional
        Global position of the chunk's first row (default 0). Chunks of a stream with
        ``n_boot`` give each its own, so that every row gets its own weights; a table
        with a ``row_offset`` (or ``n_boot``) records its rows, and adding two tables
        that counted a row twice (overlapping ranges) is refused, as for
        :meth:`CountTable.update`.

    Returns
    -------
    CountTable
        Roles ``groups_pred`` and ``tasks_pred``: the joint count of (g, t) is the
        summed posterior mass ``sum_i w_i p_i(t, g)``, the task totals the summed mass
        of each task, the group totals each row's group distribution summed (its
        group mass over its total mass), ``n`` the summed row weights. Tables of
        chunks add (``+``) to the table of all rows.

    Examples
    --------
    >>> import numpy as np
    >>> from biasamp.metrics import distribution_counts
    >>> proba = np.array([[[0.6, 0.2]], [[0.3, 0.5]]])  # 2 rows, 1 task, groups m, w
    >>> table = distribution_counts(proba, task_names=["cook"], group_names=["m", "w"])
    >>> table.joint[("groups_pred", "tasks_pred")].ravel().round(4).tolist()  # m, w
    [0.9, 0.7]
    """
    task_names, group_names = tuple(task_names), tuple(group_names)
    proba = read_posteriors(
        joint_proba,
        arg="joint_proba",
        ndim=3,
        axes=(task_names, group_names),
        axis_labels=("task", "group"),
    )
    for axis, (got, names, what) in enumerate(
        ((proba.shape[1], task_names, "tasks"), (proba.shape[2], group_names, "groups")), start=1
    ):
        if got != len(names):
            shown = list(names[:6]) + (["..."] if len(names) > 6 else [])
            raise ValueError(
                ERR_JOINT_AXIS.format(axis=axis, got=got, what=what, n=len(names), names=shown)
            )
    n = proba.shape[0]
    stated = row_offset is not None or n_boot is not None
    first_row = 0 if row_offset is None else read_row_offset(row_offset, arg="row_offset")
    weight = read_weights(sample_weight, n, arg="sample_weight", of="joint_proba")
    pairs, tasks, shares = _masses(proba)
    n_g, n_t = len(group_names), len(task_names)

    def table(w: np.ndarray) -> CountTable:  # w: (n,) or (B, n)
        return CountTable(
            group_names=group_names,
            task_names=task_names,
            n=np.asarray(w.sum(axis=-1), dtype=np.float64),
            totals={"groups_pred": w @ shares, "tasks_pred": w @ tasks},
            joint={("groups_pred", "tasks_pred"): (w @ pairs).reshape(w.shape[:-1] + (n_g, n_t))},
            n_rows=n,
        )

    if n_boot is not None:
        n_boot = check_knob(
            "n_boot",
            n_boot,
            bytes_each=8.0 * 3 * (1 + n_g + n_t + n_g * n_t),
            fixed_bytes=8.0 * REPLICATE_ENTRIES,
            what=f"replicate tables of {n_g} x {n_t} posterior masses",
            advice="use fewer replicates (n_boot).",
        )
    out = table(weight)
    out.next_row = first_row + n
    # the rows counted, as CountTable.update records them: a merge that counts a row twice
    # (overlapping row ranges) is refused when either table stated its rows
    out.rows_counted = RowRecord(
        (np.array([first_row], dtype=np.int64), np.array([first_row + n], dtype=np.int64)),
        stated=stated,
    )
    if n_boot is None:
        return out
    bootstrap = evaluation_replicates(n_boot, random_state=random_state)
    step = max(1, REPLICATE_ENTRIES // n_boot)
    replicates: CountTable | None = None
    for start in range(0, n, step):  # blocks of rows: (B, step) weights at a time
        stop = min(n, start + step)
        w = bootstrap.weights(first_row + start, first_row + stop) * weight[None, start:stop]
        part = CountTable(
            group_names=group_names,
            task_names=task_names,
            n=w.sum(axis=1),
            totals={"groups_pred": w @ shares[start:stop], "tasks_pred": w @ tasks[start:stop]},
            joint={
                ("groups_pred", "tasks_pred"): (w @ pairs[start:stop]).reshape(n_boot, n_g, n_t)
            },
            n_rows=stop - start,
        )
        replicates = part if replicates is None else replicates.merge(part)
    out.bootstrap = bootstrap
    out.replicates = replicates
    return out


def distribution_mals_from_counts(
    train: CountTable,
    predictions: CountTable,
    *,
    margin: float = 0.05,
    ci: float = 0.95,
    min_group_size: float | None = DEFAULT_MIN_GROUP_SIZE,
    min_cell: float | None = DEFAULT_MIN_CELL,
) -> PairwiseResult:
    """BiasAmp_MALS in distribution from a training table and a table of posterior mass
    (:func:`distribution_counts`, or the sum of the tables of chunks); see
    :func:`distribution_mals`. With the replicates of ``n_boot`` in ``predictions`` the
    result has the percentile interval.

    Examples
    --------
    >>> import numpy as np
    >>> from biasamp import CountTable
    >>> from biasamp.metrics import distribution_counts, distribution_mals_from_counts
    >>> train = CountTable.from_arrays(groups=["w", "w", "m"], tasks=["cook"] * 3)
    >>> first = distribution_counts([[[0.1, 0.9]]], task_names=["cook"], group_names=["m", "w"])
    >>> second = distribution_counts([[[0.2, 0.8]]], task_names=["cook"], group_names=["m", "w"])
    >>> result = distribution_mals_from_counts(train, first + second, min_group_size=None)
    >>> round(result.value, 4)  # b~(cook, w) = 1.7 / 2 = 0.85, b*(cook, w) = 2/3
    0.1833
    """
    if not isinstance(predictions, CountTable) or ("groups_pred", "tasks_pred") not in getattr(
        predictions, "joint", {}
    ):
        raise ValueError(ERR_PREDICTIONS)
    result = mals_from_counts(
        train,
        predictions,
        margin=margin,
        ci=ci,
        min_group_size=min_group_size,
        min_cell=min_cell,
    )
    result.metric = "distribution-mals"
    result.params["source"] = "posterior mass"
    return result


def distribution_mals(
    *,
    joint_proba: Any,
    groups_train: Any = None,
    tasks_train: Any = None,
    task_names: Sequence[Any] | None = None,
    group_names: Sequence[Any] | None = None,
    counts_train: CountTable | pd.DataFrame | None = None,
    sample_weight: Any = None,
    sample_weight_train: Any = None,
    margin: float = 0.05,
    n_boot: int | None = None,
    ci: float = 0.95,
    random_state: Any = None,
    min_group_size: float | None = DEFAULT_MIN_GROUP_SIZE,
    min_cell: float | None = DEFAULT_MIN_CELL,
) -> PairwiseResult:
    """BiasAmp_MALS in distribution (Jia et al., ACL 2020): MALS of the posterior mass.

    The predicted bias of a (task, group) pair is the posterior mass the model puts
    on the pair over the mass it puts on the task,
    ``b~(t, g) = sum_i p_i(t, g) / sum_i sum_g' p_i(t, g')``, instead of the share
    of top-1 predictions; the rest is :func:`biasamp.mals` (biased pairs
    ``b*(t, g) > 1/|G|`` from training, divided by ``|T|``, violations at a margin).

    Parameters
    ----------
    joint_proba : array-like of shape (n, |T|, |G|)
        Each evaluation row's posterior over (task, group) pairs, tasks and groups
        in the order of ``task_names`` and ``group_names`` (by default the training
        labels in biasamp's usual order: sorted). One-hot rows are top-1 predictions.
    groups_train, tasks_train : array-like of shape (n_train,) or (n_train, k)
        Training ground truth; fixes ``b*`` and the label names.
    task_names, group_names : sequence, optional
        Canonical label names (the axes of ``joint_proba``).
    counts_train : CountTable or DataFrame, optional
        The training side as counts instead of labels.
    sample_weight : array-like of shape (n,), optional
        Weights of the evaluation rows.
    sample_weight_train : array-like of shape (n_train,), optional
        Weights of the training rows.
    margin : float, default 0.05
        Tolerance for ``violations``.
    n_boot : int, optional
        Poisson(1) bootstrap replicates of the evaluation rows (the training side
        fixed), as :func:`biasamp.mals`; ``None`` computes no interval.
    ci : float, default 0.95
        Level of the percentile interval.
    random_state : None, int, numpy Generator, RandomState or SeedSequence
        Seed of the bootstrap (the same seed gives :func:`biasamp.mals`'s row weights).
    min_group_size : float or None, default 30
        Warn about training groups, or predicted groups (their summed posterior
        share), below this size.
    min_cell : float or None, default 5
        Flag ``fragile`` the biased pairs whose task has less posterior mass than
        this (``support``), as :func:`biasamp.mals` does with predicted rows.

    Returns
    -------
    PairwiseResult
        ``metric="distribution-mals"``; ``value``, ``violations``, ``by_pair``
        (``b_train``, ``b_pred`` = b~, ``biased``, ``delta``, ``contribution``,
        ``violation``, ``empty``) and, with ``n_boot``, ``ci``, ``se``,
        ``replicates`` and per-pair ``ci_low`` / ``ci_high``, as :func:`biasamp.mals`.

    Examples
    --------
    Cooking is 2/3 women in training. Both rows' top-1 prediction is (cook, w), so
    top-1 MALS is 1 - 2/3 = 1/3; the posterior puts 0.9 + 0.6 = 1.5 of the 2.0 of
    cooking's mass on women: b~ = 0.75, and MALS in distribution is 0.75 - 2/3.

    >>> from biasamp import distribution_mals
    >>> result = distribution_mals(
    ...     joint_proba=[[[0.1, 0.9]], [[0.4, 0.6]]],  # rows x tasks (cook) x groups (m, w)
    ...     groups_train=["w", "w", "m"], tasks_train=["cook"] * 3, min_group_size=None)
    >>> round(result.value, 4)
    0.0833
    """
    limit = check_min_group_size(min_group_size)
    check_min_cell(min_cell)
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
    if n_boot is not None:
        check_knob("n_boot", n_boot)
        check_ci(ci)
    table = distribution_counts(
        joint_proba,
        task_names=train.task_names,
        group_names=train.group_names,
        sample_weight=sample_weight,
        n_boot=n_boot,
        random_state=random_state,
    )
    result = distribution_mals_from_counts(
        train, table, margin=margin, ci=ci, min_group_size=limit, min_cell=min_cell
    )
    if n_boot is not None:
        result.params["n_boot"] = int(n_boot)
        if isinstance(random_state, (int, np.integer)):
            result.params["random_state"] = int(random_state)
    return result
