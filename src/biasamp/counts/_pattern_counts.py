"""Pattern count tables: the additive, mergeable state of the multi-attribute metrics.

A row's *pattern* is its exact task set (see :mod:`biasamp.counts._combinations`).
Every multi-attribute statistic is a sum over rows whose pattern contains a
combination, so a split is summarised, losslessly for these metrics, by

* ``n``: the total weight of the rows;
* ``group_totals[group_role]``: per-group totals, shape (*batch, |G|);
* ``pattern_totals[task_role]``: weight per distinct pattern of a task role
  (all rows, with or without a group), shape (*batch, P_role);
* ``joint[(group_role, task_role)]``: weight per group and pattern, shape
  (*batch, |G|, P_role).

Patterns are keyed by fixed-width bytes, so tables of chunks or workers merge
by key (:meth:`PatternCountTable.merge`, ``+``). As in
:class:`biasamp.CountTable`, ``replicate_weights`` of shape (B, n) add a
leading replicate axis of length B.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.sparse as sp

from biasamp.counts._combinations import (
    key_positions,
    keys_to_indicator,
    pattern_keys,
    union_keys,
    unique_keys,
)
from biasamp.counts._count_table import (
    ERR_NO_ROLES,
    ERR_REPLICATE_SHAPE,
    JOINT_KEYS,
    MergeableCounts,
    RowRecord,
    check_finite_counts,
    check_label_matrices,
    label_matrices,
)
from biasamp.counts._poisson import PoissonReplicates
from biasamp.inputs._label_matrix import LabelMatrix, as_sample_weight, check_same_length
from biasamp.inputs._roles import GROUP_ROLES, TASK_ROLES

__all__ = ["PatternCountTable"]


def _as_dense(values: np.ndarray | sp.csr_matrix) -> np.ndarray:
    if sp.issparse(values):
        return np.asarray(values.toarray(), dtype=np.float64)
    return np.asarray(values, dtype=np.float64)


def _merge_keys(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Union of two sorted unique key arrays and the positions of each in it."""
    union = union_keys(a, b)
    return union, key_positions(union, a), key_positions(union, b)


def _per_pattern(inverse: np.ndarray, size: int, w: np.ndarray) -> np.ndarray:
    """Sums of the row weights ``w`` (n,) or (B, n) per pattern: (size,) or (B, size).

    One weighted ``bincount`` for plain weights; replicate weights go through a
    sparse (P, n) membership product. Both add each pattern's rows in row order.
    """
    if w.ndim == 1:
        return np.bincount(inverse, weights=w, minlength=size)
    n = inverse.shape[0]
    members = sp.csr_matrix((np.ones(n), (inverse, np.arange(n))), shape=(size, n))
    return np.asarray((members @ w.T).T)


def _scatter(values: np.ndarray, index: np.ndarray, size: int) -> np.ndarray:
    out = np.zeros(values.shape[:-1] + (size,), dtype=np.float64)
    out[..., index] = values  # index is unique within one table
    return out


@dataclass
class PatternCountTable(MergeableCounts):
    """Weighted counts per distinct task pattern (and group) of one split.

    Build one with :meth:`from_arrays`, grow it with :meth:`update`, combine
    tables with :meth:`merge` (or ``+``), and pass train and evaluation tables
    to :func:`biasamp.multi_mals_from_counts` or
    :func:`biasamp.multi_directional_from_counts`.

    Attributes
    ----------
    group_names, task_names : tuple
        Label names in column order.
    n : ndarray of shape batch_shape
        Total weight of the rows.
    patterns : dict of task role -> ndarray of shape (P_role,)
        Sorted unique pattern keys (fixed-width bytes).
    group_totals : dict of group role -> ndarray of shape batch_shape + (|G|,)
    pattern_totals : dict of task role -> ndarray of shape batch_shape + (P_role,)
    joint : dict of (group_role, task_role) -> ndarray of shape batch_shape + (|G|, P_role)
    n_rows : int
        Number of input rows seen (unweighted).

    Examples
    --------
    >>> import numpy as np
    >>> from biasamp import PatternCountTable
    >>> tasks = np.array([[1, 1, 0], [1, 1, 0], [0, 1, 1]])
    >>> table = PatternCountTable.from_arrays(groups=["m", "w", "w"], tasks=tasks)
    >>> table.pattern_sets("tasks")
    [(0, 1), (1, 2)]
    >>> table.pattern_totals["tasks"]
    array([2., 1.])
    >>> half = PatternCountTable.from_arrays(groups=["m"], tasks=tasks[:1],
    ...                                      group_names=["m", "w"], task_names=[0, 1, 2])
    >>> rest = half.update(groups=["w", "w"], tasks=tasks[1:])
    >>> bool(np.array_equal(rest.joint[("groups", "tasks")], table.joint[("groups", "tasks")]))
    True
    """

    group_names: tuple[Any, ...]
    task_names: tuple[Any, ...]
    n: np.ndarray
    patterns: dict[str, np.ndarray] = field(default_factory=dict)
    group_totals: dict[str, np.ndarray] = field(default_factory=dict)
    pattern_totals: dict[str, np.ndarray] = field(default_factory=dict)
    joint: dict[tuple[str, str], np.ndarray] = field(default_factory=dict)
    n_rows: int = 0
    bootstrap: PoissonReplicates | None = field(default=None, repr=False)
    replicates: PatternCountTable | None = field(default=None, repr=False)
    next_row: int = 0
    rows_counted: RowRecord | None = field(default=None, repr=False, compare=False)

    _accepts_soft = False

    def __post_init__(self) -> None:
        check_finite_counts(self.n, self.group_totals, self.pattern_totals, self.joint)

    # ------------------------------------------------------------------ build
    @classmethod
    def _declared(
        cls, group_names: Sequence[Any], task_names: Sequence[Any], bootstrap: Any
    ) -> PatternCountTable:
        return cls(
            group_names=tuple(group_names),
            task_names=tuple(task_names),
            n=np.asarray(0.0),
            bootstrap=bootstrap,
        )

    @classmethod
    def from_label_matrices(
        cls,
        matrices: Mapping[str, LabelMatrix | None],
        *,
        sample_weight: np.ndarray | None = None,
        replicate_weights: np.ndarray | None = None,
    ) -> PatternCountTable:
        """Count already-validated 0/1 label matrices of one split (see :meth:`from_arrays`)."""
        check_label_matrices(matrices)
        present = {role: m for role, m in matrices.items() if m is not None}
        groups = [r for r in GROUP_ROLES if r in present]
        tasks = [r for r in TASK_ROLES if r in present]
        if not groups or not tasks:
            raise ValueError(ERR_NO_ROLES.format(have=sorted(present)))
        n = check_same_length(**present)
        w = as_sample_weight(sample_weight, n) if sample_weight is not None else np.ones(n)
        if replicate_weights is not None:
            rw = np.asarray(replicate_weights, dtype=np.float64)
            if rw.ndim != 2 or rw.shape[1] != n:
                raise ValueError(ERR_REPLICATE_SHAPE.format(n=n, shape=rw.shape))
            w = rw * w[None, :]
        task_names = present[tasks[0]].names
        group_dense = {r: _as_dense(present[r].values) for r in groups}
        patterns, inverse = {}, {}
        for role in tasks:
            keys = pattern_keys(present[role].values, len(task_names))
            patterns[role], inverse[role] = unique_keys(keys)
        pattern_totals = {
            role: _per_pattern(inverse[role], len(patterns[role]), w) for role in tasks
        }
        joint = {}
        for g, t in JOINT_KEYS:
            if g not in present or t not in present:
                continue
            gd = group_dense[g]
            size = len(patterns[t])
            # one sum per group column: (*batch, P) each
            cols = [_per_pattern(inverse[t], size, w * gd[:, j]) for j in range(gd.shape[1])]
            joint[(g, t)] = np.stack(cols, axis=-2)
        return cls(
            group_names=tuple(present[groups[0]].names),
            task_names=tuple(task_names),
            n=np.asarray(w.sum(axis=-1), dtype=np.float64),
            patterns=patterns,
            group_totals={r: np.asarray(w @ group_dense[r]) for r in groups},
            pattern_totals=pattern_totals,
            joint=joint,
            n_rows=n,
        )

    @classmethod
    def from_arrays(
        cls,
        *,
        groups: Any = None,
        tasks: Any = None,
        groups_pred: Any = None,
        tasks_pred: Any = None,
        sample_weight: Any = None,
        group_names: Sequence[Any] | None = None,
        task_names: Sequence[Any] | None = None,
        replicate_weights: np.ndarray | None = None,
        names_source: str | None = None,
    ) -> PatternCountTable:
        """Validate label arrays of one split and count their patterns.

        Parameters
        ----------
        groups, groups_pred : array-like of shape (n,) or (n, |G|), optional
            Ground-truth and predicted groups.
        tasks, tasks_pred : array-like of shape (n,) or (n, |T|), optional
            Ground-truth and predicted 0/1 tasks (dense, DataFrame or scipy.sparse).
        sample_weight : array-like of shape (n,), optional
            Non-negative row weights.
        group_names, task_names : sequence, optional
            Canonical label names (by default the ground truth fixes them).
        replicate_weights : ndarray of shape (B, n), optional
            Bootstrap weights; every count gains a leading axis of length B.
        names_source : str, optional
            Where the names came from, for label-mismatch errors.
        """
        matrices = label_matrices(
            groups=groups,
            tasks=tasks,
            groups_pred=groups_pred,
            tasks_pred=tasks_pred,
            group_names=group_names,
            task_names=task_names,
            names_source=names_source,
        )
        return cls.from_label_matrices(
            matrices, sample_weight=sample_weight, replicate_weights=replicate_weights
        )

    # ----------------------------------------------------------- combine
    @property
    def roles(self) -> frozenset[str]:
        """The roles this table holds counts for."""
        return frozenset(self.group_totals) | frozenset(self.pattern_totals)

    def merge(self, other: PatternCountTable) -> PatternCountTable:
        """The table of both splits' rows together (counts add, patterns unite by key).

        Replicates of the online bootstrap merge too; a table with no roles yet
        (from :meth:`empty`) is the identity.
        """
        self.check_merge_type(other)
        if not self.roles or not other.roles:
            return self._merge_blank(other)
        self.check_mergeable(other)
        patterns, pattern_totals, joint = {}, {}, {}
        for role in self.patterns:
            union, ia, ib = _merge_keys(self.patterns[role], other.patterns[role])
            patterns[role] = union
            size = len(union)
            pattern_totals[role] = _scatter(self.pattern_totals[role], ia, size) + _scatter(
                other.pattern_totals[role], ib, size
            )
            for key in self.joint:
                if key[1] == role:
                    joint[key] = _scatter(self.joint[key], ia, size) + _scatter(
                        other.joint[key], ib, size
                    )
        return PatternCountTable(
            group_names=self.group_names,
            task_names=self.task_names,
            n=self.n + other.n,
            patterns=patterns,
            group_totals={
                r: self.group_totals[r] + other.group_totals[r] for r in self.group_totals
            },
            pattern_totals=pattern_totals,
            joint=joint,
            n_rows=self.n_rows + other.n_rows,
            **self._merge_stream_fields(other),
        )

    # ----------------------------------------------------------- views
    def pattern_sets(self, role: str = "tasks") -> list[tuple[Any, ...]]:
        """The patterns of a task role as tuples of task names (their stored order)."""
        self.require(role, metric="pattern_sets")
        indicator = keys_to_indicator(self.patterns[role], len(self.task_names))
        names = np.asarray(self.task_names, dtype=object)
        return [tuple(names[row].tolist()) for row in indicator]

    def __repr__(self) -> str:
        batch = f", replicates={self.batch_shape}" if self.batch_shape else ""
        sizes = ", ".join(f"{r}={len(k)}" for r, k in self.patterns.items())
        return (
            f"PatternCountTable(n={float(np.sum(self.n)) if not self.batch_shape else '...'}, "
            f"groups={len(self.group_names)}, tasks={len(self.task_names)}, "
            f"patterns: {sizes}{batch})"
        )
