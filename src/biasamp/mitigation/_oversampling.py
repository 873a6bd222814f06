"""Greedy oversampling that balances each single attribute over the groups.

Zhao et al. (2023, "Men also do not always like shopping", section 5, appendices C and F.1)
oversample the training set "greedily, until bias_train(a, g) lies in [1/|G| +- epsilon]
for every (attribute, group) pair". The paper gives no more detail; this module makes
the procedure exact:

1. Count the current multiset of rows (every original row once, plus the copies drawn
   so far): ``c(g, t)``, and the shares ``b(t, g) = c(g, t) / sum_g' c(g', t)``.
2. A task is *off* when some group's share lies outside ``[1/|G| - eps, 1/|G| + eps]``
   by more than rounding; its deviation is the largest distance to the interval.
   A task is *fixable* when its lowest-share group has at least one original row with
   the task (copies can only be drawn from such rows).
3. Take the fixable off task with the largest deviation (ties: the first), and its
   lowest-share group ``g``. Draw ``k`` rows with replacement, uniformly among the
   original rows that have group ``g`` and the task, where ``k`` is the fewest copies
   that bring this task into the interval if the copies carried only this task (the
   copies also carry their other tasks, which later rounds take care of).
4. Repeat until no fixable task is off, or ``max_rounds``.

The loop runs over rounds (one task fixed per round), never over rows. The result
lists the tasks left off (unfixable, or still off at ``max_rounds``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np
import pandas as pd
import scipy.sparse as sp

from biasamp._deprecation import UNSET, positional_keywords
from biasamp.inputs._label_matrix import as_label_matrix, check_same_length
from biasamp.results._base import _json_safe, frame_records
from biasamp.results._persist import SavableResult, register_result

__all__ = ["oversample", "Oversampling"]

ERR_OVERSAMPLE_TASKS = "oversample: missing the keyword argument tasks=."

ERR_EPSILON = "epsilon: expected a number in [0, 1), got {got!r}."
ERR_MAX_ROUNDS = "max_rounds: expected a positive integer, got {got!r}."
ERR_ONE_GROUP = "groups: every row needs exactly one group; {count} row(s) have {what}."


def _shapes(result: Oversampling) -> dict[str, Any]:
    return {
        "n": int(result.indices.max()) + 1 if len(result.indices) else 0,  # rows 0..n-1 first
        "n_resampled": int(len(result.indices)),
        "groups": int(result.bias_before.shape[1]),
        "tasks": int(result.bias_before.shape[0]),
    }


@register_result("oversampling", shapes=lambda r: _shapes(r))
@dataclass
class Oversampling(SavableResult):
    """The result of :func:`oversample`.

    Attributes
    ----------
    indices : ndarray of int, shape (n_resampled,)
        Row indices into the original data: every row once (``0 .. n-1`` in order),
        then the drawn copies. ``np.asarray(result)`` gives the same array.
    bias_before, bias_after : DataFrame
        ``b(t, g)`` (tasks x groups) of the original and the resampled rows.
    balanced : bool
        Every task that occurs lies within ``1/|G| +- epsilon``.
    off_tasks : list
        Tasks still outside the interval (with the reason in ``off_reason``).
    off_reason : dict
        ``"no row of the group to copy"`` or ``"max_rounds reached"`` per off task.
    n_rounds : int
        Number of rounds run.
    params : dict
        ``epsilon``, ``max_rounds`` and ``random_state`` used.
    """

    indices: np.ndarray
    bias_before: pd.DataFrame
    bias_after: pd.DataFrame
    balanced: bool
    off_tasks: list[Any]
    off_reason: dict[Any, str]
    n_rounds: int
    params: dict[str, Any] = field(default_factory=dict)

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        return self.indices if dtype is None else self.indices.astype(dtype)

    def __len__(self) -> int:
        return int(self.indices.shape[0])

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dictionary (the row indices are left out; ``save()`` keeps them)."""
        return _json_safe(
            {
                "n_resampled": len(self),
                "n_rounds": self.n_rounds,
                "balanced": self.balanced,
                "off_tasks": self.off_tasks,
                "off_reason": self.off_reason,
                "params": self.params,
                "bias_before": frame_records(self.bias_before.reset_index()),
                "bias_after": frame_records(self.bias_after.reset_index()),
            }
        )

    def plot(self, *, max_tasks: int = 30, ax: Any = None) -> Any:
        """Per task, the largest distance of a group's share from ``1/|G|`` before and
        after, against the target band; returns the matplotlib Axes.

        Parameters
        ----------
        max_tasks : int, default 30
            The tasks furthest from balance before oversampling.
        ax : matplotlib Axes, optional
            Where to draw (a new constrained-layout figure by default).
        """
        from biasamp.results._plotting_mitigation import plot_oversampling

        return plot_oversampling(self, max_tasks=max_tasks, ax=ax)


def _shares(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    total = counts.sum(axis=0)
    occurs = total > 0
    return counts / np.where(occurs, total, 1.0), occurs


def oversample(
    groups: Any,
    *args: Any,
    tasks: Any = UNSET,
    epsilon: float = 0.025,
    random_state: Any = None,
    max_rounds: int = 100_000,
    group_names: Sequence[Any] | None = None,
    task_names: Sequence[Any] | None = None,
) -> Oversampling:
    """Greedy oversampling until every task's group shares lie within ``1/|G| +- epsilon``.

    Parameters
    ----------
    groups : array-like of shape (n,) or (n, |G|)
        One group per row.
    tasks : array-like of shape (n,) or (n, |T|), DataFrame or scipy.sparse
        The single attributes (tasks) of each row. Keyword-only (passing it
        by position is deprecated).
    epsilon : float, default 0.025
        Half-width of the target interval (0.025 for COCO and imSitu in the paper,
        0.07 for CelebA's three groups).
    random_state : None, int or numpy Generator
        Seeds the draws.
    max_rounds : int, default 100000
        Safety cap on the number of rounds.
    group_names, task_names : sequence, optional
        Canonical label names.

    Returns
    -------
    Oversampling
        ``indices`` into the original rows, bias scores before and after, and the
        tasks left off.

    Examples
    --------
    "cook": 3 rows of w, 1 of m; "ski": 1 of each.

    >>> from biasamp import oversample
    >>> result = oversample(["w", "w", "w", "m", "m", "w"],
    ...                 tasks=["cook", "cook", "cook", "cook", "ski", "ski"], random_state=0)
    >>> result.indices.tolist()
    [0, 1, 2, 3, 4, 5, 3, 3]
    >>> result.bias_after.loc["cook"].tolist(), result.balanced
    ([0.5, 0.5], True)
    """
    tasks = positional_keywords("oversample", args, ("tasks",), {"tasks": tasks})["tasks"]
    if tasks is UNSET:
        raise TypeError(ERR_OVERSAMPLE_TASKS)
    if (
        isinstance(epsilon, bool)
        or not isinstance(epsilon, (int, float, np.number))
        or not 0 <= float(epsilon) < 1
    ):
        raise ValueError(ERR_EPSILON.format(got=epsilon))
    if (
        isinstance(max_rounds, bool)
        or not isinstance(max_rounds, (int, np.integer))
        or max_rounds < 1
    ):
        raise ValueError(ERR_MAX_ROUNDS.format(got=max_rounds))
    g_matrix = as_label_matrix(groups, arg="groups", names=group_names)
    t_matrix = as_label_matrix(tasks, arg="tasks", names=task_names)
    check_same_length(groups=g_matrix, tasks=t_matrix)
    g_dense = g_matrix.dense()
    per_row = g_dense.sum(axis=1)
    if not np.all(per_row == 1):
        bad = per_row != 1
        raise ValueError(ERR_ONE_GROUP.format(count=int(bad.sum()), what="no group or several"))
    g_index = g_dense.argmax(axis=1)
    t_csr = cast("sp.csr_matrix", t_matrix.values) if t_matrix.is_sparse else None
    t_dense = None if t_csr is not None else t_matrix.dense()
    n_groups, n_tasks = g_dense.shape[1], t_matrix.n_labels
    rng = np.random.default_rng(random_state)

    def count(rows: np.ndarray) -> np.ndarray:
        out = np.zeros((n_groups, n_tasks))
        if t_csr is not None:
            t_rows = np.asarray(t_csr[rows].toarray())
        else:
            assert t_dense is not None
            t_rows = t_dense[rows]
        np.add.at(out, g_index[rows], t_rows)
        return out

    original = count(np.arange(g_dense.shape[0]))
    has_pair = original > 0  # (g, t) pairs with a row to copy
    counts = original.copy()
    lo, hi = 1.0 / n_groups - epsilon, 1.0 / n_groups + epsilon
    tol = 1e-12
    drawn: list[np.ndarray] = []
    unfixable: set[int] = set()
    rounds = 0
    pools: dict[tuple[int, int], np.ndarray] = {}
    while rounds < max_rounds:
        share, occurs = _shares(counts)
        deviation = np.maximum(np.maximum(lo - share, share - hi), 0.0).max(axis=0)
        deviation = np.where(occurs, deviation, 0.0)
        lowest = np.where(occurs[None], share, np.inf).argmin(axis=0)
        fixable = has_pair[lowest, np.arange(n_tasks)]
        unfixable = set(np.nonzero((deviation > tol) & ~fixable)[0].tolist())
        candidates = np.where(fixable, deviation, 0.0)
        t = int(candidates.argmax())
        if candidates[t] <= tol:
            break
        g = int(lowest[t])
        n_t, c_g, c_max = counts[:, t].sum(), counts[g, t], np.delete(counts[:, t], g).max()
        k_low = (lo * n_t - c_g) / (1.0 - lo) if lo < 1 else 0.0  # g's share up to lo
        k_high = c_max / hi - n_t if hi > 0 else 0.0  # the largest other share down to hi
        k = max(1, math.ceil(max(k_low, k_high) - 1e-9))
        k_cap = (hi * n_t - c_g) / (1.0 - hi) if hi < 1 else math.inf  # g not above hi
        if k_cap >= 1:
            k = min(k, math.floor(k_cap + 1e-9))
        if (g, t) not in pools:
            if t_csr is not None:
                col = np.asarray(t_csr[:, t].toarray()).ravel()
            else:
                assert t_dense is not None
                col = t_dense[:, t]
            pools[(g, t)] = np.nonzero((g_index == g) & (col > 0))[0]
        rows = rng.choice(pools[(g, t)], size=k, replace=True)
        drawn.append(rows)
        counts += count(rows)
        rounds += 1

    share, occurs = _shares(counts)
    deviation = np.where(
        occurs, np.maximum(np.maximum(lo - share, share - hi), 0.0).max(axis=0), 0.0
    )
    off = np.nonzero(deviation > tol)[0]
    t_names, g_names = list(t_matrix.names), list(g_matrix.names)
    reason = {
        t_names[i]: ("no row of the group to copy" if i in unfixable else "max_rounds reached")
        for i in off
    }
    n = g_dense.shape[0]
    indices = np.concatenate([np.arange(n)] + drawn) if drawn else np.arange(n)

    def frame(c: np.ndarray) -> pd.DataFrame:
        s, occ = _shares(c)
        return pd.DataFrame(
            s.T, index=pd.Index(t_names, name="task"), columns=pd.Index(g_names, name="group")
        ).loc[occ]

    return Oversampling(
        indices=indices.astype(np.int64),
        bias_before=frame(original),
        bias_after=frame(counts),
        balanced=not len(off),
        off_tasks=[t_names[i] for i in off],
        off_reason=reason,
        n_rounds=rounds,
        params={
            "epsilon": float(epsilon),
            "max_rounds": int(max_rounds),
            "random_state": _seed(random_state),
        },
    )


def _seed(random_state: Any) -> Any:
    """The seed when it is a plain integer (JSON-safe), else its type name."""
    if random_state is None or isinstance(random_state, (int, np.integer)):
        return None if random_state is None else int(random_state)
    return type(random_state).__name__
