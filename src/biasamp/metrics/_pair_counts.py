"""The counts behind each pair of a result, and the pairs that rest on too few rows.

Every per-pair value is a rate over some rows: BiasAmp_MALS's predicted bias
``b~(t, g)`` is a share of the rows where the model predicts task ``t``;
BiasAmp->'s ``P(T^ | A)`` a share of the rows of group ``a`` (A->T) and
``P(A^ | T)`` a share of the rows of task ``t`` (T->A). The per-pair tables carry
the counts each value rests on:

* ``n_train``: the pair's training rows (ground-truth group and task);
* ``n_true``: the pair's evaluation rows (ground truth), when the metric has it;
* ``n_pred``: the pair's predicted rows (the roles the metric reads from the model:
  predicted group and predicted task for MALS, true group and predicted task for
  A->T, predicted group and true task for T->A);
* ``support``: the rows the pair's value is a rate over (MALS: the rows where the
  task is predicted; A->T: the group's rows; T->A: the task's rows);
* ``fragile``: the pair counts in the value and its ``support`` is below
  ``min_cell`` (default :data:`~biasamp.inputs.DEFAULT_MIN_CELL`, 5): one row more or
  less moves it by ``1 / support`` or more.

A :class:`~biasamp.inputs.FragilePairWarning` names the fragile pairs among the
pairs that contribute most to the value (:data:`TOP_CONTRIBUTORS`).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from biasamp.counts._count_table import CountTable
from biasamp.inputs._group_sizes import FragilePairWarning
from biasamp.metrics._group_sizes import _outside_level

__all__ = [
    "TOP_CONTRIBUTORS",
    "WARN_FRAGILE_PAIRS",
    "fragile_message",
    "pair_count_columns",
    "warn_fragile_pairs",
]

#: How many of the largest contributions the :class:`FragilePairWarning` looks at.
TOP_CONTRIBUTORS = 10
_MAX_NAMED = 5

WARN_FRAGILE_PAIRS = (
    "{count} of the {top} pairs that contribute most to {metric} rest on fewer than "
    "min_cell={limit} rows: {examples}. One row more or less moves them; see "
    'result.by_pair["fragile"] and its support column (pass min_cell=None to silence).'
)


def _rows(value: float) -> str:
    return f"{value:g} row" + ("" if value == 1 else "s")


def _joint(table: CountTable | None, roles: tuple[str, str], shape: tuple[int, ...]) -> np.ndarray:
    """The point joint counts of ``roles`` in ``table`` (NaN when absent)."""
    if table is None or roles not in table.joint:
        return np.full(shape, np.nan)
    return np.asarray(table.joint[roles], dtype=np.float64)


def pair_count_columns(
    *,
    train: CountTable | None,
    evaluation: CountTable,
    pred_roles: tuple[str, str],
    support: np.ndarray,
    used: np.ndarray,
    min_cell: float | None,
    true_roles: tuple[str, str] | None = ("groups", "tasks"),
) -> dict[str, np.ndarray]:
    """The count columns of a per-pair table, as (|G|, |T|) arrays.

    Parameters
    ----------
    train : CountTable or None
        The training split (``groups`` x ``tasks``); ``None``: ``n_train`` is NaN.
    evaluation : CountTable
        The evaluation split; its ``groups`` x ``tasks`` joint gives ``n_true``
        (NaN when absent) and ``pred_roles`` gives ``n_pred``.
    pred_roles : tuple of two str
        The (group role, task role) the metric reads from the model.
    support : ndarray of shape (|G|, |T|)
        The rows each pair's value is a rate over.
    used : ndarray of bool, shape (|G|, |T|)
        The pairs that count in the value.
    min_cell : float or None
        Pairs that count and rest on fewer rows are ``fragile``; ``None`` flags none.
    true_roles : tuple of two str, or None
        The roles of ``n_true`` (``None``: the metric reads no ground truth of the
        evaluation rows, ``n_true`` is NaN).

    Returns
    -------
    dict
        ``n_train``, ``n_true``, ``n_pred``, ``support`` (floats: weighted rows) and
        ``fragile`` (bool), each of shape (|G|, |T|).
    """
    shape = np.shape(used)
    support = np.broadcast_to(np.asarray(support, dtype=np.float64), shape)
    if min_cell is None:
        fragile = np.zeros(shape, dtype=bool)
    else:
        fragile = np.asarray(used, dtype=bool) & (support < min_cell)
    return {
        "n_train": _joint(train, ("groups", "tasks"), shape),
        "n_true": np.full(shape, np.nan)
        if true_roles is None
        else _joint(evaluation, true_roles, shape),
        "n_pred": _joint(evaluation, pred_roles, shape),
        "support": support,
        "fragile": fragile,
    }


def _largest_first(values: np.ndarray, top: int) -> np.ndarray:
    """``np.argsort(-values, kind="stable")[:top]`` without sorting every value: the
    positions of the ``top`` largest values, ties in position order (a partition finds
    the ``top``-th largest value; only the values at least as large are sorted)."""
    if top <= 0 or values.size == 0:
        return np.zeros(0, dtype=np.intp)
    if values.size > top:
        cutoff = np.partition(values, values.size - top)[values.size - top]
        candidates = np.flatnonzero(values >= cutoff)
    else:
        candidates = np.arange(values.size)
    return candidates[np.argsort(-values[candidates], kind="stable")][:top]


def fragile_message(
    *,
    contribution: np.ndarray,
    fragile: np.ndarray,
    support: np.ndarray,
    name_of: Callable[[int], str],
    metric: str,
    min_cell: float | None,
    top: int = TOP_CONTRIBUTORS,
) -> tuple[tuple[str, ...], str | None]:
    """The fragile pairs among the ``top`` largest absolute contributions (flat arrays in
    table order; ``name_of(i)`` the display name of pair ``i``) and the text of their
    warning (``None`` when none is)."""
    if min_cell is None or not bool(np.any(fragile)):
        return (), None
    magnitude = np.abs(np.nan_to_num(np.asarray(contribution, dtype=np.float64), nan=0.0))
    order = _largest_first(magnitude, top)
    order = order[magnitude[order] > 0]  # a pair that adds nothing is no top contributor
    chosen = order[np.asarray(fragile)[order]]
    if chosen.size == 0:
        return (), None
    named = tuple(name_of(i) for i in chosen.tolist())  # at most ``top`` names
    shown = ", ".join(
        f"{named[j]} ({_rows(support[i])})" for j, i in enumerate(chosen[:_MAX_NAMED].tolist())
    ) + (", ..." if chosen.size > _MAX_NAMED else "")
    message = WARN_FRAGILE_PAIRS.format(
        count=chosen.size,
        top=order.size,
        metric=metric,
        limit=f"{min_cell:g}",
        examples=shown,
    )
    return named, message


def warn_fragile_pairs(
    *,
    contribution: np.ndarray,
    fragile: np.ndarray,
    support: np.ndarray,
    group_names: Sequence[Any],
    task_names: Sequence[Any],
    metric: str,
    min_cell: float | None,
) -> tuple[str, ...]:
    """Warn (:class:`FragilePairWarning`) about the fragile pairs among the largest
    contributions of (|G|, |T|) arrays; return their names (``"group x task"``)."""
    if min_cell is None or not bool(np.any(fragile)):
        return ()
    n_t = len(task_names)

    def name_of(i: int) -> str:
        return f"{group_names[i // n_t]!s} x {task_names[i % n_t]!s}"

    named, message = fragile_message(
        contribution=np.asarray(contribution).reshape(-1),
        fragile=np.asarray(fragile).reshape(-1),
        support=np.broadcast_to(np.asarray(support, dtype=np.float64), np.shape(fragile)).reshape(
            -1
        ),
        name_of=name_of,
        metric=metric,
        min_cell=min_cell,
    )
    if message is not None:
        warnings.warn(message, FragilePairWarning, stacklevel=_outside_level())
    return named
