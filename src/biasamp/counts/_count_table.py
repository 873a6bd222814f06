"""The count table: the additive, mergeable state behind every co-occurrence metric.

Every co-occurrence metric in biasamp (bias scores, BiasAmp_MALS, BiasAmp->)
is a function of a handful of weighted counts of one split:

* ``n``: the total weight of the rows (the number of instances);
* ``totals[role]``: per-label totals of a role, ``sum_i w_i X_i``;
* ``joint[(group_role, task_role)]``: the group x task co-occurrence counts
  ``sum_i w_i G_i^T T_i`` for ground truth, predictions, and ground truth
  crossed with predictions.

Counts add up, so a table can be filled chunk by chunk (:meth:`CountTable.update`),
tables of separate chunks or workers can be merged (:meth:`CountTable.merge`,
``+``), and the metric is computed once from the total. This mirrors the
update / merge / compute state of torchmetrics.

A table may carry a leading *replicate* axis: with ``replicate_weights`` of
shape ``(B, n)`` every count gets shape ``(B, ...)``. The metric cores are
written for arbitrary leading axes, so a bootstrap is one matrix product.

Streaming and the online bootstrap
----------------------------------
:meth:`CountTable.empty` declares the label names up front (so a chunk may
lack any label) and takes its roles from the first chunk. With ``n_boot=B``
the table also keeps ``replicates``: B Poisson(1)-weighted copies of itself,
updated with every chunk. Row ``i`` of the stream gets the weights
``PoissonReplicates(B, random_state=...).weights(i, i + 1)``, which depend only
on ``(random_state, i)``; the table tracks the global position of its next row
(``next_row``), and a worker that counts rows elsewhere in the stream passes
``row_offset=``. So the replicates, and the interval the ``*_from_counts``
metrics then return, do not depend on how the rows were chunked or split across
processes, and equal those of ``biasamp.directional(..., n_boot=B,
random_state=...)`` on the same rows in the same order.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from typing import Any, cast

import numpy as np
import pandas as pd
import scipy.sparse as sp

from biasamp._memory import ALWAYS_FITS, check_allocation
from biasamp._threads import single_threaded_blas
from biasamp.counts._digit_counts import digit_joint_counts, digit_plan
from biasamp.counts._poisson import BLOCK_ROWS, PoissonReplicates, check_n_boot
from biasamp.counts._row_record import (
    ERR_POSITION_RANGE,
    ERR_ROWS_TWICE,
    POSITION_LIMIT,
    RowRecord,
)
from biasamp.inputs._collections import collection_kind, counter_for
from biasamp.inputs._label_matrix import (
    LabelMatrix,
    as_label_matrix,
    as_sample_weight,
    check_same_length,
)
from biasamp.inputs._readers import read_row_offset
from biasamp.inputs._roles import GROUP_ROLES, TASK_ROLES

__all__ = [
    "CountTable",
    "empty_count_table",
    "with_label_names",
    "MergeableCounts",
    "ERR_ROWS_TWICE",
    "RowRecord",
    "GROUP_ROLES",
    "TASK_ROLES",
    "JOINT_KEYS",
    "check_count_table",
    "label_matrices",
]

#: The group x task cross products a table keeps, when both roles are present.
JOINT_KEYS = (
    ("groups", "tasks"),
    ("groups_pred", "tasks_pred"),
    ("groups", "tasks_pred"),
    ("groups_pred", "tasks"),
)

ERR_NOT_COUNT_TABLE = "{arg}: expected a CountTable, got {type_name}."
ERR_MATRICES = (
    "matrices: expected a mapping of role ({roles}) -> LabelMatrix (biasamp.inputs."
    "as_label_matrix), got {got}."
)
ERR_MISSING_ROLE = "{metric} needs {role}, which this count table does not hold (it has {have})."
ERR_MERGE_NAMES = "Cannot merge count tables: their {what} names differ ({a} vs {b})."
ERR_MERGE_ROLES = "Cannot merge count tables: they hold different roles ({a} vs {b})."
ERR_MERGE_BATCH = "Cannot merge count tables: replicate shapes differ ({a} vs {b})."
ERR_MERGE_TYPE = "Cannot merge a {cls} with a {other} (merge and + take a {cls})."
ERR_NO_ROLES = "A count table needs at least one group role and one task role; got {have}."
ERR_REPLICATE_SHAPE = "replicate_weights: expected shape (B, {n}), got {shape}."
ERR_COLLECTION_REPLICATE_WEIGHTS = (
    "replicate_weights: a (B, n) array cannot be split over Dask partitions; "
    "pass replicates=PoissonReplicates(...) to counts_from_dask instead."
)
ERR_MERGE_BOOTSTRAP = (
    "Cannot merge count tables: their online bootstraps differ ({a} vs {b}); create every "
    "table with the same n_boot and the same integer random_state."
)
ERR_ROW_OFFSET = "row_offset: expected a non-negative integer, got {got!r}."
ERR_ROW_INDEX = "row_index: expected one non-negative integer position per row, got {got}."
ERR_OFFSET_AND_INDEX = "Give row_offset or row_index, not both."
ERR_UPDATE_REPLICATE_WEIGHTS = (
    "replicate_weights: this table draws its own replicate weights (it was created with "
    "n_boot); pass the rows only."
)
ERR_UPDATE_COLLECTION = (
    "update: a table with n_boot counts arrays in memory; count a Dask collection with "
    "counts_from_dask(..., replicates=PoissonReplicates(...)) instead."
)
ERR_EMPTY_NAMES = "{arg}: expected a non-empty sequence of distinct label names, got {got!r}."

#: Replicate weights drawn at a time by the online bootstrap (float64 entries, 32 MB).
_REPLICATE_CHUNK_ENTRIES = 4_000_000

ERR_COUNT_OVERFLOW = (
    "sample_weight: the weighted counts overflow float64 (a total is {value}); the metrics do "
    "not depend on the scale of the weights, so divide the weights by a constant (for example "
    "by their largest value)."
)
ERR_JOINT_FRAME = (
    "joint: expected a DataFrame with tasks as rows and groups as columns, got {what}."
)


def _as_dense(values: np.ndarray | sp.csr_matrix) -> np.ndarray:
    if sp.issparse(values):
        return np.asarray(values.toarray(), dtype=np.float64)
    return np.asarray(values, dtype=np.float64)


def _group_dense(matrix: LabelMatrix) -> np.ndarray:
    """A group role as a dense float64 matrix; a one-hot role is built from its codes.

    The (n, |G|) matrix is checked against the memory available first: a million
    groups over a million rows would need terabytes."""
    n, k = matrix.n_rows, matrix.n_labels
    if 8.0 * n * k >= ALWAYS_FITS:  # smaller ones are not checked (nor their message built)
        _check_group_matrix(matrix)
    if matrix.codes is None:
        return _as_dense(matrix.values)
    if k <= 256:  # rows of the identity, gathered (faster than a scatter into zeros)
        return np.take(np.eye(k), matrix.codes, axis=0)
    out = np.zeros(n * k, dtype=np.float64)
    out[np.arange(0, n * k, k) + matrix.codes] = 1.0
    return out.reshape(n, k)


def _check_group_matrix(matrix: LabelMatrix) -> None:
    n, k = matrix.n_rows, matrix.n_labels
    check_allocation(
        8.0 * n * k,
        what=f"{matrix.arg}: {k} groups over {n} rows (a dense {n} x {k} matrix of the groups)",
        advice="count fewer groups (merge the rare ones, or intersect fewer columns), or "
        "count them in chunks of rows with CountTable.update.",
    )


#: Products of at most this many multiply-adds run on one BLAS thread anyway (OpenBLAS's
#: own threshold, 4 x 65536): setting the limit would cost more than the product.
_SMALL_PRODUCT = 4 * 65536


def _one_blas_thread(work: float) -> contextlib.AbstractContextManager[None]:
    """:func:`single_threaded_blas` for a product of ``work`` multiply-adds, a no-op for a
    small one (a torchmetrics batch)."""
    return single_threaded_blas() if work > _SMALL_PRODUCT else contextlib.nullcontext()


def _weighted_totals(x: np.ndarray | sp.csr_matrix, w: np.ndarray) -> np.ndarray:
    """``w @ x``: shape (k,) for w of shape (n,), (B, k) for w of shape (B, n)."""
    if sp.issparse(x):
        return np.asarray((x.T @ w.T).T, dtype=np.float64)
    with _one_blas_thread(w.size * x.shape[1]):
        return np.asarray(w @ x, dtype=np.float64)


def _weighted_crossprod(g: np.ndarray, t: np.ndarray | sp.csr_matrix, w: np.ndarray) -> np.ndarray:
    """``G^T diag(w) T``: (|G|, |T|) for w of shape (n,), (B, |G|, |T|) for w of shape (B, n)."""
    with _one_blas_thread(w.size * g.shape[1] * t.shape[1]):
        return _crossprod(g, t, w)


def _crossprod(g: np.ndarray, t: np.ndarray | sp.csr_matrix, w: np.ndarray) -> np.ndarray:
    if w.ndim == 1:
        gw = g * w[:, None]
        if sp.issparse(t):
            return np.asarray((t.T @ gw).T, dtype=np.float64)
        # einsum, not BLAS: with |G| rows the product is memory-bound, and BLAS threads
        # spin on a busy machine (2.5 s instead of 2 ms for 20,000 x 66 under load)
        return np.einsum("ig,it->gt", gw, np.asarray(t, dtype=np.float64))
    # replicate weights: one product per group column, each (B, n) @ (n, |T|)
    out = np.empty((w.shape[0], g.shape[1], t.shape[1]), dtype=np.float64)
    for j in range(g.shape[1]):  # loop over groups (few), never over rows or pairs
        wg = w * g[:, j][None, :]
        if sp.issparse(t):
            out[:, j, :] = np.asarray((t.T @ wg.T).T)
        else:
            out[:, j, :] = wg @ t
    return out


def _unit_weight_counts(
    present: Mapping[str, LabelMatrix], group_roles: Sequence[str]
) -> tuple[dict[str, np.ndarray], dict[tuple[str, str], np.ndarray]]:
    """``totals`` and ``joint`` of one split without weights (each row counts 1).

    The same numbers as the weighted products with ``w = 1``, cheaper: no
    weighted copy of the groups; a one-hot group role's totals by ``bincount``
    over its codes; a 0/1 task role's totals as the column sums of its joint
    counts with a one-hot group role (every row is in exactly one group). All of
    these are integer counts, exact in any order of summation. A sparse 0/1 task
    role with one-hot group roles is counted by :func:`_sparse_pattern_counts`
    (one integer product per task matrix). Each other group role is made dense
    once (float32 straight from the codes when every product is exact in
    float32), each 0/1 task role converted once, and BLAS limited to one thread
    once for all the products (not at all when no BLAS product is left).
    """
    joint: dict[tuple[str, str], np.ndarray] = _sparse_pattern_counts(present, group_roles)
    as_float32: dict[str, np.ndarray] = {}  # each 0/1 role converted once
    dense: dict[tuple[str, bool], np.ndarray] = {}  # each group role made dense once
    n = next(iter(present.values())).n_rows
    left = [(g, t) for g, t in JOINT_KEYS if g in present and t in present and (g, t) not in joint]
    widest = max(m.n_labels for m in present.values())
    with _one_blas_thread(4.0 * n * widest * widest if left else 0.0):
        for g, t in left:
            zero_one = _is_zero_one(present[g]) and _is_zero_one(present[t])
            values = present[t].counting_values() if zero_one else present[t].values
            exact32 = zero_one and n < FLOAT32_EXACT_ROWS and not sp.issparse(values)
            if exact32 and t not in as_float32:
                as_float32[t] = _zero_one_float32(cast(np.ndarray, values))
            if exact32:
                values = as_float32[t]
            if (g, exact32) not in dense:
                dense[(g, exact32)] = _dense_groups(present[g], float32=exact32)
            joint[(g, t)] = _unweighted_crossprod(dense[(g, exact32)], values, zero_one=zero_one)
    ones = None
    totals: dict[str, np.ndarray] = {}
    for role, matrix in present.items():
        if matrix.codes is not None:
            totals[role] = _code_counts(matrix.codes, matrix.n_labels)
            continue
        one_hot = [
            joint[(g, role)]
            for g in GROUP_ROLES
            if (g, role) in joint and present[g].codes is not None
        ]
        if one_hot and matrix.validated and not matrix.soft:
            totals[role] = one_hot[0].sum(axis=0)
            continue
        if ones is None:
            ones = np.ones(matrix.n_rows)
        if role in group_roles:
            values = dense[(role, False)] if (role, False) in dense else _group_dense(matrix)
        else:
            values = matrix.values
        if sp.issparse(values):
            totals[role] = np.asarray(values.T @ ones, dtype=np.float64)
        else:
            with _one_blas_thread(values.size):
                totals[role] = np.asarray(ones @ values, dtype=np.float64)
    return totals, joint


def _code_counts(codes: np.ndarray, k: int) -> np.ndarray:
    """Rows of each of ``k`` labels (float64) from one-hot codes: one count of the nonzero
    codes for two labels, a ``bincount`` otherwise (which first widens the codes)."""
    if k == 2:
        second = np.count_nonzero(codes)
        return np.array([codes.shape[0] - second, second], dtype=np.float64)
    return np.bincount(codes, minlength=k).astype(np.float64)


def sparse_pattern(matrix: LabelMatrix) -> sp.csr_matrix | None:
    """The CSR matrix of a sparse 0/1 role whose stored entries are all 1 (each stored
    once), or None: a checked, not soft, sparse matrix (scipy input with explicit
    zeros was pruned when it was checked)."""
    if not matrix.is_sparse or matrix.codes is not None or not _is_zero_one(matrix):
        return None
    pattern = matrix.ones_pattern()
    return pattern if pattern is not None else cast(sp.csr_matrix, matrix.values)


def _sparse_pattern_counts(
    present: Mapping[str, LabelMatrix], group_roles: Sequence[str]
) -> dict[tuple[str, str], np.ndarray]:
    """The joint counts of each sparse 0/1 task role with the one-hot group roles, by
    :func:`~biasamp.counts._digit_counts.digit_joint_counts` (one pass over the task
    matrix per vector of digits instead of one product per group role); ``{}`` when a
    group role is not one-hot or no task role is such a matrix. A role needing more
    vectors than there are group roles keeps the products."""
    groups = [g for g in group_roles if g in present]
    if not groups or any(present[g].codes is None for g in groups):
        return {}
    patterns: dict[str, sp.csr_matrix] = {}
    for t in TASK_ROLES:
        pattern = sparse_pattern(present[t]) if t in present else None
        if pattern is not None:
            patterns[t] = pattern
    if not patterns:
        return {}
    n = next(iter(present.values())).n_rows
    if n == 0:  # nothing to count (an empty chunk of a stream): the products give zeros
        return {}
    sizes = {g: present[g].n_labels for g in groups}
    plan = digit_plan(n, sizes)
    if len(plan.vectors) > len(groups):
        return {}
    codes = {g: cast(np.ndarray, present[g].codes) for g in groups}
    joint: dict[tuple[str, str], np.ndarray] = {}
    for t, (_, by_role) in digit_joint_counts(patterns, codes, sizes, plan).items():
        joint.update({(g, t): counts for g, counts in by_role.items()})
    return joint


def _dense_groups(matrix: LabelMatrix, *, float32: bool) -> np.ndarray:
    """:func:`_group_dense`, or with ``float32`` (0/1 products exact in float32) a one-hot
    role's float32 rows of the identity, gathered from its codes without a float64 copy."""
    if float32 and matrix.codes is not None and matrix.n_labels <= 256:
        k = matrix.n_labels
        if 4.0 * matrix.n_rows * k >= ALWAYS_FITS:
            _check_group_matrix(matrix)
        return np.take(np.eye(k, dtype=np.float32), matrix.codes, axis=0)
    return _group_dense(matrix)


def _zero_one_float32(values: np.ndarray) -> np.ndarray:
    """A checked 0/1 array as float32. Wide integers go through int8 (exact for 0 and 1):
    numpy casts int64 to int8 and int8 to float32 in about two thirds of the time of its
    direct int64 to float32 cast."""
    if values.dtype.kind in "iu" and values.dtype.itemsize > 1:
        values = values.astype(np.int8)
    return np.asarray(values, dtype=np.float32)


#: Below this many rows a product of 0/1 matrices is exact in float32: every partial
#: sum is an integer of at most n < 2**24, which float32 holds exactly.
FLOAT32_EXACT_ROWS = 1 << 24


def _is_zero_one(matrix: LabelMatrix) -> bool:
    """Whether every entry of ``matrix`` is 0 or 1 (one-hot, or checked and not soft)."""
    return matrix.codes is not None or (matrix.validated and not matrix.soft)


def _unweighted_crossprod(
    g: np.ndarray, t: np.ndarray | sp.csr_matrix, *, zero_one: bool
) -> np.ndarray:
    """``G^T T`` of one split, (|G|, |T|): :func:`_crossprod` with unit weights.

    With ``zero_one`` (both matrices hold only 0 and 1) and fewer than
    :data:`FLOAT32_EXACT_ROWS` rows, the product runs in float32 BLAS, which is
    exact there and several times faster than the float64 ``einsum`` on the small
    inputs of real audits; otherwise (probabilities, or more rows) as the weighted
    product does, so that unit weights give the same numbers bit for bit.
    """
    if sp.issparse(t):
        return np.asarray((t.T @ g).T, dtype=np.float64)
    if zero_one and g.shape[0] < FLOAT32_EXACT_ROWS:
        g32 = g.astype(np.float32, copy=False)
        # (T^T G)^T: BLAS reads T along its rows' length, faster than G^T T in either layout
        return np.asarray((np.asarray(t, dtype=np.float32).T @ g32).T, dtype=np.float64)
    # einsum, as the weighted product with unit weights: the same order of summation
    return np.einsum("ig,it->gt", g, np.asarray(t, dtype=np.float64))


def label_matrices(
    *,
    groups: Any = None,
    tasks: Any = None,
    groups_pred: Any = None,
    tasks_pred: Any = None,
    group_names: Sequence[Any] | None = None,
    task_names: Sequence[Any] | None = None,
    soft: bool = False,
    names_source: str | None = None,
    positive_group: Any = None,
    positive_label: Any = None,
    compact: bool = False,
) -> dict[str, LabelMatrix]:
    """Validate the label arrays of one split into one label space (see :meth:`CountTable.from_arrays`).

    With ``soft``, a 1-D float prediction of a role with two labels is the
    probability of the second label in sorted order, or of ``positive_group``
    (``groups_pred``) / ``positive_label`` (``tasks_pred``).

    With ``compact``, dense 0/1 indicators are kept as ``uint8`` (see
    :func:`~biasamp.inputs.as_label_matrix`).

    Returns a dict of role -> :class:`LabelMatrix` for the roles given.
    """
    positives = {
        "groups_pred": ("positive_group", positive_group),
        "tasks_pred": ("positive_label", positive_label),
    }
    arrays = {
        "groups": groups,
        "tasks": tasks,
        "groups_pred": groups_pred,
        "tasks_pred": tasks_pred,
    }
    matrices: dict[str, LabelMatrix] = {}
    for kind, roles, names in (
        ("group", GROUP_ROLES, group_names),
        ("task", TASK_ROLES, task_names),
    ):
        source = (names_source or f"{kind}_names") if names is not None else None
        for role in roles:
            if arrays[role] is None:
                continue
            param, positive = positives.get(role, ("positive_label", None))
            matrices[role] = as_label_matrix(
                arrays[role],
                arg=role,
                names=names,
                source=source,
                soft=soft and role.endswith("_pred"),
                positive=positive,
                positive_param=param,
                compact=compact,
            )
            if names is None:
                names, source = matrices[role].names, role
    return matrices


def check_finite_counts(*groups: Any) -> None:
    """Raise :data:`ERR_COUNT_OVERFLOW` when a count (array, sparse matrix or dict of them)
    is not finite: the weights' totals do not fit in float64."""
    for group in groups:
        values = group.values() if isinstance(group, Mapping) else [group]
        for value in values:
            data = value.data if sp.issparse(value) else np.asarray(value, dtype=np.float64)  # type: ignore[attr-defined]
            if np.isfinite(data).all():  # the common case: one pass, no mask kept
                continue
            bad = ~np.isfinite(data)
            if bad.any():
                raise ValueError(ERR_COUNT_OVERFLOW.format(value=float(data[bad].flat[0])))


class MergeableCounts:
    """What every additive count table shares: roles, the replicate axis, merge
    checks, ``update`` and ``+``. Subclasses define ``roles``, ``merge`` and
    ``from_arrays``; :class:`CountTable` and ``PatternCountTable`` are the two."""

    group_names: tuple[Any, ...]
    task_names: tuple[Any, ...]
    n: np.ndarray
    joint: dict[tuple[str, str], np.ndarray]
    n_rows: int

    @property
    def roles(self) -> frozenset[str]:  # pragma: no cover - overridden
        raise NotImplementedError

    @property
    def batch_shape(self) -> tuple[int, ...]:
        """Leading replicate shape of every count (``()`` for a plain table)."""
        return tuple(np.shape(self.n))

    def require(self, *roles: str, metric: str) -> None:
        """Raise ``ValueError`` unless every role in ``roles`` is present."""
        for role in roles:
            if role not in self.roles:
                raise ValueError(
                    ERR_MISSING_ROLE.format(metric=metric, role=role, have=sorted(self.roles))
                )

    def check_merge_type(self, other: Any) -> None:
        """Raise ``TypeError`` unless ``other`` is a table of the same kind."""
        if type(other) is not type(self):
            raise TypeError(
                ERR_MERGE_TYPE.format(cls=type(self).__name__, other=type(other).__name__)
            )

    def check_mergeable(self, other: MergeableCounts) -> None:
        """Raise ``ValueError`` unless ``other`` has the same names, roles and replicate shape."""
        if self.group_names != other.group_names:
            raise ValueError(
                ERR_MERGE_NAMES.format(what="group", a=self.group_names, b=other.group_names)
            )
        if self.task_names != other.task_names:
            raise ValueError(
                ERR_MERGE_NAMES.format(what="task", a=self.task_names, b=other.task_names)
            )
        if self.roles != other.roles or set(self.joint) != set(other.joint):
            raise ValueError(ERR_MERGE_ROLES.format(a=sorted(self.roles), b=sorted(other.roles)))
        if self.batch_shape != other.batch_shape:
            raise ValueError(ERR_MERGE_BATCH.format(a=self.batch_shape, b=other.batch_shape))

    def merge(self, other: Any) -> Any:  # pragma: no cover - overridden
        raise NotImplementedError

    def __add__(self, other: Any) -> Any:
        if not isinstance(other, MergeableCounts):
            return NotImplemented  # Python then raises TypeError naming both types
        return self.merge(other)

    def __radd__(self, other: Any) -> Any:
        if isinstance(other, int) and not isinstance(other, bool) and other == 0:
            return self  # sum(tables) starts from 0
        return NotImplemented

    # ------------------------------------------------------- streaming
    bootstrap: PoissonReplicates | None
    replicates: Any
    next_row: int
    rows_counted: RowRecord | None

    @classmethod
    def _declared(
        cls, group_names: Sequence[Any], task_names: Sequence[Any], bootstrap: Any
    ) -> Any:  # pragma: no cover - overridden
        raise NotImplementedError

    @classmethod
    def empty(
        cls,
        *,
        group_names: Sequence[Any],
        task_names: Sequence[Any],
        n_boot: int | None = None,
        random_state: Any = None,
    ) -> Any:
        """A table with no rows yet whose label names are declared up front.

        Its roles come from the first chunk given to :meth:`update`; every
        chunk may use any subset of the declared labels. With ``n_boot`` the
        table keeps B Poisson(1)-weighted replicate tables (the online
        bootstrap, see the module docs); the ``*_from_counts`` metrics then
        return an interval.

        Parameters
        ----------
        group_names, task_names : sequence
            The label names, in column order (1-D chunks may hold any of them;
            2-D chunks have one column per name, in this order).
        n_boot : int, optional
            Number of bootstrap replicates B kept alongside the counts.
        random_state : None, int, Generator, RandomState or SeedSequence
            Seed of the replicate weights. Tables that will be merged (chunks
            counted by different workers) need the same integer seed.

        Returns
        -------
        CountTable or PatternCountTable
            A table with ``n_rows == 0`` and no roles; it is the identity of
            :meth:`merge`.
        """
        names = {}
        for arg, values in (("group_names", group_names), ("task_names", task_names)):
            if isinstance(values, (str, bytes)) or values is None:
                raise ValueError(ERR_EMPTY_NAMES.format(arg=arg, got=values))
            values = tuple(v.item() if isinstance(v, np.generic) else v for v in values)
            if not values or len(set(values)) != len(values):
                raise ValueError(ERR_EMPTY_NAMES.format(arg=arg, got=values))
            names[arg] = values
        bootstrap = None
        if n_boot is not None:
            n_boot = check_n_boot(n_boot)
            g, t = len(names["group_names"]), len(names["task_names"])
            counts = 1 + 2 * (g + t) + 4 * g * t  # n, totals and joint counts of every role
            # B replicate tables (a chunk's, the running sum and their merge: 3 copies) and a
            # block of Poisson draws (see PoissonReplicates)
            check_allocation(
                float(n_boot) * (8.0 * 3 * counts + 4.0 * BLOCK_ROWS),
                what=f"n_boot={n_boot} online-bootstrap replicates of {g} x {t} counts",
                advice="use fewer replicates (n_boot).",
            )
            bootstrap = PoissonReplicates(n_boot, random_state=random_state, stream=0)
        return cls._declared(names["group_names"], names["task_names"], bootstrap)

    @property
    def n_boot(self) -> int | None:
        """Number of online-bootstrap replicates kept (``None`` without them)."""
        return None if self.bootstrap is None else self.bootstrap.n_boot

    def _check_bootstrap(self, other: MergeableCounts) -> None:
        a, b = self.bootstrap, other.bootstrap
        key_a = None if a is None else (a.n_boot, a.entropy, a.stream)
        key_b = None if b is None else (b.n_boot, b.entropy, b.stream)
        if key_a != key_b:
            raise ValueError(ERR_MERGE_BOOTSTRAP.format(a=key_a, b=key_b))

    def _merge_blank(self, other: MergeableCounts) -> Any:
        """``merge`` when either side has no rows and no roles yet (a declared empty table)."""
        if self.group_names != other.group_names:
            raise ValueError(
                ERR_MERGE_NAMES.format(what="group", a=self.group_names, b=other.group_names)
            )
        if self.task_names != other.task_names:
            raise ValueError(
                ERR_MERGE_NAMES.format(what="task", a=self.task_names, b=other.task_names)
            )
        self._check_bootstrap(other)
        filled: Any = other if not self.roles else self
        return replace(
            filled,
            n_rows=self.n_rows + other.n_rows,
            next_row=max(self.next_row, other.next_row),
            rows_counted=self._merged_record(other),
        )

    def _merged_record(self, other: MergeableCounts) -> RowRecord | None:
        """The positions of ``self + other``: the union of both records (refused when they
        overlap and either states its positions); unknown (``None``) when a table with rows
        has no record (a table made by ``from_arrays``: its rows have no stream positions)."""
        a, b = self.rows_counted, other.rows_counted
        if a is None and self.n_rows == 0:
            return b
        if b is None and other.n_rows == 0:
            return a
        if a is None or b is None:
            return None
        return a.union(b)

    def _merge_stream_fields(self, other: MergeableCounts) -> dict[str, Any]:
        """The streaming fields of ``self + other`` (bootstrap, replicates, next row)."""
        self._check_bootstrap(other)
        replicates = None
        if self.replicates is not None and other.replicates is not None:
            replicates = self.replicates.merge(other.replicates)
        return {
            "bootstrap": self.bootstrap,
            "replicates": replicates,
            "next_row": max(self.next_row, other.next_row),
            "rows_counted": self._merged_record(other),
        }

    def _start_row(self, row_offset: Any) -> int:
        if row_offset is None:
            return int(self.next_row)
        return read_row_offset(row_offset, arg="row_offset")

    def update(self, *, row_offset: int | None = None, row_index: Any = None, **arrays: Any) -> Any:
        """Count another chunk of rows (same keywords as ``from_arrays``) and merge it.

        Returns the merged table (this table is not changed). The chunk's
        labels must lie within this table's label names; labels absent from
        the chunk count zero.

        Parameters
        ----------
        row_offset : int, optional
            Global position (0-based) of the chunk's first row in the whole
            stream. By default the chunk follows the rows counted so far
            (``next_row``). Only the online bootstrap (``n_boot``) uses it:
            give it when workers count different parts of one stream, so that
            every row gets the replicate weights of its global position.
        row_index : array-like of int of shape (n,), optional
            The global position of every row of the chunk, when the rows are
            not contiguous (for example the dataset indices a shuffling or
            distributed sampler gives one process). Not with ``row_offset``.
        **arrays
            ``groups``, ``tasks``, ``groups_pred``, ``tasks_pred``,
            ``sample_weight`` and the other keywords of ``from_arrays``.
        """
        start = self._start_row(row_offset)
        index = None
        if row_index is not None:
            if row_offset is not None:
                raise ValueError(ERR_OFFSET_AND_INDEX)
            index = np.asarray(row_index)
            if index.ndim != 1 or (index.size and index.dtype.kind not in "iu"):
                raise ValueError(
                    ERR_ROW_INDEX.format(got=f"shape {index.shape}, dtype {index.dtype}")
                )
            if index.size and index.min() < 0:
                raise ValueError(
                    ERR_ROW_INDEX.format(got=f"a negative position {int(index.min())}")
                )
        arrays.setdefault("group_names", self.group_names)
        arrays.setdefault("task_names", self.task_names)
        if self.bootstrap is None:
            chunk = type(self).from_arrays(**arrays)  # type: ignore[attr-defined]
        else:
            chunk = self._count_with_replicates(arrays, start, self.bootstrap, index)
        if index is not None:
            if len(index) != chunk.n_rows:
                raise ValueError(
                    ERR_ROW_INDEX.format(got=f"{len(index)} positions for {chunk.n_rows} rows")
                )
            chunk.next_row = max(self.next_row, int(index.max()) + 1 if index.size else 0)
        else:
            chunk.next_row = start + chunk.n_rows
        # the positions counted: stated (row_offset, row_index, or every position with a
        # bootstrap) ones refuse any position counted before, in this stream or a merge
        stated = self.bootstrap is not None or row_offset is not None or index is not None
        record = self.rows_counted
        if record is None:
            if self.n_rows and self.next_row < self.n_rows:  # rows of unknown positions
                record = None
            else:
                record = RowRecord.prefix(int(self.next_row) if self.n_rows else 0, stated=False)
        if index is None and start + chunk.n_rows > POSITION_LIMIT:
            raise ValueError(
                ERR_POSITION_RANGE.format(arg="row_offset", start=start, stop=start + chunk.n_rows)
            )
        chunk.rows_counted = None
        merged = self.merge(chunk) if self.roles else self._merge_blank(chunk)
        if record is not None:  # each position once (O(batch log n))
            if index is not None:
                record.add(index.astype(np.int64, copy=False), arg="row_index", stated=stated)
            else:
                arg = "row_offset" if row_offset is not None else "update (next_row)"
                record.add_range(start, start + chunk.n_rows, arg=arg, stated=stated)
        merged.rows_counted = record
        return merged

    def _count_with_replicates(
        self,
        arrays: dict[str, Any],
        start: int,
        bootstrap: PoissonReplicates,
        index: np.ndarray | None = None,
    ) -> Any:
        """One chunk's table and its replicate table (weights of rows ``start:start + n``)."""
        if arrays.pop("replicate_weights", None) is not None:
            raise ValueError(ERR_UPDATE_REPLICATE_WEIGHTS)
        sample_weight = arrays.pop("sample_weight", None)
        roles = {r: arrays.pop(r, None) for r in GROUP_ROLES + TASK_ROLES}
        if collection_kind(*roles.values(), sample_weight) is not None:
            raise ValueError(ERR_UPDATE_COLLECTION)
        matrices = label_matrices(**roles, **arrays)
        n = check_same_length(**matrices)
        if index is not None and len(index) != n:
            raise ValueError(ERR_ROW_INDEX.format(got=f"{len(index)} positions for {n} rows"))
        weight = as_sample_weight(sample_weight, n)
        cls = type(self)
        if arrays.get("soft") and not getattr(cls, "_accepts_soft", False):
            raise TypeError(f"{cls.__name__}.update() got an unexpected keyword argument 'soft'")
        chunk = cls.from_label_matrices(matrices, sample_weight=weight)  # type: ignore[attr-defined]
        step = max(1, _REPLICATE_CHUNK_ENTRIES // bootstrap.n_boot)
        replicates = None
        for a in range(0, n, step):  # bounded memory: (B, step) weights at a time
            b = min(a + step, n)
            part = cls.from_label_matrices(  # type: ignore[attr-defined]
                {r: m.take(slice(a, b)) for r, m in matrices.items()},  # type: ignore[arg-type]
                sample_weight=weight[a:b],
                replicate_weights=bootstrap.weights(start + a, start + b)
                if index is None
                else bootstrap.at(index[a:b]).T,
            )
            replicates = part if replicates is None else replicates.merge(part)
        chunk.bootstrap = bootstrap
        chunk.replicates = replicates
        return chunk


@dataclass
class CountTable(MergeableCounts):
    """Additive group x task counts of one split.

    Build one with :meth:`from_arrays`, grow it with :meth:`update`, combine
    tables with :meth:`merge` (or ``+``), and pass it to a metric's
    ``*_from_counts`` function, or as ``counts_train=`` to a metric.

    Attributes
    ----------
    group_names, task_names : tuple
        Label names in column order.
    n : ndarray of shape batch_shape
        Total weight of the rows.
    totals : dict of role -> ndarray of shape batch_shape + (k,)
        Per-label weighted totals of each role present.
    joint : dict of (group_role, task_role) -> ndarray of shape batch_shape + (|G|, |T|)
        Weighted co-occurrence counts.
    n_rows : int
        Number of input rows seen (unweighted).

    Examples
    --------
    >>> import numpy as np
    >>> from biasamp import CountTable
    >>> table = CountTable.from_arrays(groups=["m", "w", "m"], tasks=["ski", "cook", "cook"])
    >>> table.joint[("groups", "tasks")]
    array([[1., 1.],
           [1., 0.]])
    >>> chunked = CountTable.from_arrays(groups=["m"], tasks=["ski"],
    ...     group_names=["m", "w"], task_names=["cook", "ski"])
    >>> chunked = chunked.update(groups=["w", "m"], tasks=["cook", "cook"])
    >>> bool(np.array_equal(chunked.joint[("groups", "tasks")], table.joint[("groups", "tasks")]))
    True
    """

    group_names: tuple[Any, ...]
    task_names: tuple[Any, ...]
    n: np.ndarray
    totals: dict[str, np.ndarray] = field(default_factory=dict)
    joint: dict[tuple[str, str], np.ndarray] = field(default_factory=dict)
    n_rows: int = 0
    bootstrap: PoissonReplicates | None = field(default=None, repr=False)
    replicates: CountTable | None = field(default=None, repr=False)
    next_row: int = 0
    rows_counted: RowRecord | None = field(default=None, repr=False, compare=False)

    _accepts_soft = True

    def __post_init__(self) -> None:
        check_finite_counts(self.n, self.totals, self.joint)

    # ------------------------------------------------------------------ build
    @classmethod
    def _declared(
        cls, group_names: Sequence[Any], task_names: Sequence[Any], bootstrap: Any
    ) -> CountTable:
        return cls(
            group_names=tuple(group_names),
            task_names=tuple(task_names),
            n=np.asarray(0.0),
            bootstrap=bootstrap,
        )

    @classmethod
    def from_label_matrices(
        cls,
        matrices: Mapping[str, LabelMatrix],
        *,
        sample_weight: np.ndarray | None = None,
        replicate_weights: np.ndarray | None = None,
    ) -> CountTable:
        """Count already-validated label matrices of one split.

        ``matrices`` maps roles (``groups``, ``tasks``, ``groups_pred``,
        ``tasks_pred``) to :class:`LabelMatrix` objects of equal length.
        ``replicate_weights`` of shape ``(B, n)`` multiplies ``sample_weight``
        row-wise and gives every count a leading axis of length B.
        """
        check_label_matrices(matrices)
        present = {role: m for role, m in matrices.items() if m is not None}
        groups = [r for r in GROUP_ROLES if r in present]
        tasks = [r for r in TASK_ROLES if r in present]
        if not groups or not tasks:
            raise ValueError(ERR_NO_ROLES.format(have=sorted(present)))
        n = check_same_length(**present)
        group_names = present[groups[0]].names
        task_names = present[tasks[0]].names
        n_joint = sum(1 for g, t in JOINT_KEYS if g in present and t in present)
        shape = () if replicate_weights is None else np.shape(replicate_weights)
        n_copies = shape[0] if len(shape) == 2 else 1  # another shape: refused below
        nbytes = 8.0 * n_joint * n_copies * len(group_names) * len(task_names)
        if nbytes >= ALWAYS_FITS:  # smaller ones are not checked (nor their message built)
            check_allocation(
                nbytes,
                what=f"{present[groups[0]].arg} x {present[tasks[0]].arg}: "
                f"{len(group_names)} groups x {len(task_names)} tasks counts",
                advice="count fewer groups or tasks (merge the rare ones).",
            )
        if sample_weight is None and replicate_weights is None:
            totals, joint = _unit_weight_counts(present, groups)
            return cls(
                group_names=tuple(group_names),
                task_names=tuple(task_names),
                n=np.asarray(float(n)),
                totals=totals,
                joint=joint,
                n_rows=n,
            )
        dense_groups = {r: _group_dense(present[r]) for r in groups}
        w = as_sample_weight(sample_weight, n) if sample_weight is not None else np.ones(n)
        if replicate_weights is not None:
            rw = np.asarray(replicate_weights, dtype=np.float64)
            if rw.ndim != 2 or rw.shape[1] != n:
                raise ValueError(ERR_REPLICATE_SHAPE.format(n=n, shape=rw.shape))
            w = rw * w[None, :]
        with np.errstate(over="ignore", invalid="ignore"):  # overflow: a clear error below
            totals = {r: _weighted_totals(dense_groups[r], w) for r in groups}
            totals.update({r: _weighted_totals(present[r].values, w) for r in tasks})
            joint = {
                (g, t): _weighted_crossprod(dense_groups[g], present[t].values, w)
                for g, t in JOINT_KEYS
                if g in present and t in present
            }
            n_total = np.asarray(w.sum(axis=-1), dtype=np.float64)
        return cls(
            group_names=tuple(group_names),
            task_names=tuple(task_names),
            n=n_total,
            totals=totals,
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
        soft: bool = False,
        replicate_weights: np.ndarray | None = None,
        names_source: str | None = None,
    ) -> CountTable:
        """Validate label arrays of one split and count them.

        Parameters
        ----------
        groups, groups_pred : array-like of shape (n,) or (n, |G|), optional
            Ground-truth and predicted groups.
        tasks, tasks_pred : array-like of shape (n,) or (n, |T|), optional
            Ground-truth and predicted tasks (dense, DataFrame or scipy.sparse).
        sample_weight : array-like of shape (n,), optional
            Non-negative row weights.
        group_names, task_names : sequence, optional
            Canonical label names; by default the ground truth (or, without
            it, the predictions) fixes them.
        soft : bool, default False
            Accept probabilities in [0, 1] for the predicted roles.
        replicate_weights : ndarray of shape (B, n), optional
            Bootstrap weights; every count gains a leading axis of length B.
        names_source : str, optional
            Where ``group_names`` / ``task_names`` came from (for example
            ``"the training split"``), named in label-mismatch errors.
        """
        kind = collection_kind(groups, tasks, groups_pred, tasks_pred, sample_weight)
        if kind is not None:
            # a distributed collection: the engine registered for it counts it
            # (Dask: one table per partition, tree-merged; biasamp.engines)
            if replicate_weights is not None:
                raise ValueError(ERR_COLLECTION_REPLICATE_WEIGHTS)
            return counter_for(kind)(
                groups=groups,
                tasks=tasks,
                groups_pred=groups_pred,
                tasks_pred=tasks_pred,
                sample_weight=sample_weight,
                group_names=group_names,
                task_names=task_names,
                soft=soft,
                names_source=names_source,
            )
        matrices = label_matrices(
            groups=groups,
            tasks=tasks,
            groups_pred=groups_pred,
            tasks_pred=tasks_pred,
            group_names=group_names,
            task_names=task_names,
            soft=soft,
            names_source=names_source,
        )
        return cls.from_label_matrices(
            matrices, sample_weight=sample_weight, replicate_weights=replicate_weights
        )

    @classmethod
    def from_joint(
        cls,
        joint: pd.DataFrame,
        *,
        group_totals: Mapping[Any, float] | Sequence[float] | None = None,
        task_totals: Mapping[Any, float] | Sequence[float] | None = None,
        n: float | None = None,
    ) -> CountTable:
        """A ground-truth table from co-occurrence counts or rates (tasks x groups).

        Use it for a training side known only as aggregate statistics, such as
        occupation x gender counts from labour statistics (Wang et al. 2021,
        section 5.3). By default each instance is taken to have one group and
        one task: group totals are column sums, task totals are row sums, and
        ``n`` is the grand total. Pass the totals for multi-label tasks.
        """
        if not isinstance(joint, pd.DataFrame):
            raise TypeError(ERR_JOINT_FRAME.format(what=type(joint).__name__))
        counts = joint.to_numpy(dtype=np.float64).T  # (|G|, |T|)
        if not np.isfinite(counts).all():
            raise ValueError(
                f"joint: contains NaN or infinite values ({int((~np.isfinite(counts)).sum())} entries)."
            )
        if (counts < 0).any():
            raise ValueError("joint: counts must be non-negative.")
        g_names, t_names = tuple(joint.columns), tuple(joint.index)

        def _totals(values: Any, names: tuple[Any, ...], default: np.ndarray) -> np.ndarray:
            if values is None:
                return default
            if isinstance(values, Mapping):
                return np.array([float(values[k]) for k in names])
            return np.asarray(values, dtype=np.float64)

        g_tot = _totals(group_totals, g_names, counts.sum(axis=1))
        t_tot = _totals(task_totals, t_names, counts.sum(axis=0))
        total = float(counts.sum()) if n is None else float(n)
        if total <= 0:
            raise ValueError("joint: the table is empty (total count 0).")
        return cls(
            group_names=g_names,
            task_names=t_names,
            n=np.asarray(total),
            totals={"groups": g_tot, "tasks": t_tot},
            joint={("groups", "tasks"): counts},
            n_rows=0,
        )

    # ----------------------------------------------------------- combine
    @property
    def roles(self) -> frozenset[str]:
        """The roles this table holds counts for."""
        return frozenset(self.totals)

    def merge(self, other: CountTable) -> CountTable:
        """The table of both splits' rows together (counts add).

        Replicates of the online bootstrap add too (both tables need the same
        ``n_boot`` and seed). A table with no roles yet (from :meth:`empty`)
        is the identity.
        """
        self.check_merge_type(other)
        if not self.roles or not other.roles:
            return self._merge_blank(other)
        self.check_mergeable(other)
        return CountTable(
            group_names=self.group_names,
            task_names=self.task_names,
            n=self.n + other.n,
            totals={r: self.totals[r] + other.totals[r] for r in self.totals},
            joint={k: self.joint[k] + other.joint[k] for k in self.joint},
            n_rows=self.n_rows + other.n_rows,
            **self._merge_stream_fields(other),
        )

    def replicate(self, index: int | tuple[int, ...]) -> CountTable:
        """One replicate of a table with a replicate axis, as a plain table."""
        return CountTable(
            group_names=self.group_names,
            task_names=self.task_names,
            n=np.asarray(self.n[index]),
            totals={r: v[index] for r, v in self.totals.items()},
            joint={k: v[index] for k, v in self.joint.items()},
            n_rows=self.n_rows,
        )

    def joint_frame(self, key: tuple[str, str] = ("groups", "tasks")) -> pd.DataFrame:
        """One joint count matrix as a DataFrame with tasks as rows and groups as columns."""
        self.require(*key, metric="joint_frame")
        if self.batch_shape:
            raise ValueError(
                "joint_frame: the table has a replicate axis; take .replicate(i) first."
            )
        return pd.DataFrame(
            self.joint[key].T,
            index=pd.Index(self.task_names, name="task"),
            columns=pd.Index(self.group_names, name="group"),
        )

    def __repr__(self) -> str:
        batch = f", replicates={self.batch_shape}" if self.batch_shape else ""
        if self.bootstrap is not None:
            batch += f", n_boot={self.bootstrap.n_boot}"
        return (
            f"CountTable(n={float(np.sum(self.n)) if not self.batch_shape else '...'}, "
            f"groups={len(self.group_names)}, tasks={len(self.task_names)}, "
            f"roles={sorted(self.roles)}{batch})"
        )


def empty_count_table(
    roles: Sequence[str], group_names: Sequence[Any], task_names: Sequence[Any]
) -> CountTable:
    """A table of zeros with the given roles and label names (the identity of ``merge``)."""
    ng, nt = len(group_names), len(task_names)
    totals = {r: np.zeros(ng if r in GROUP_ROLES else nt) for r in roles}
    joint = {(g, t): np.zeros((ng, nt)) for g, t in JOINT_KEYS if g in roles and t in roles}
    return CountTable(
        group_names=tuple(group_names),
        task_names=tuple(task_names),
        n=np.asarray(0.0),
        totals=totals,
        joint=joint,
        n_rows=0,
    )


ERR_REINDEX_NAMES = "{kind} names: the table's label(s) {missing} are not among the new names."


def with_label_names(
    table: CountTable,
    *,
    group_names: Sequence[Any] | None = None,
    task_names: Sequence[Any] | None = None,
) -> CountTable:
    """``table`` with its counts laid out by other label names (every label of the table
    among them; a new label counts 0), as counting the same rows under those names gives.

    A table counted under the labels a file turned out to hold is put in the order of the
    canonical names (for example the training split's) without counting again. Raises
    ``ValueError`` naming the labels that the new names lack.

    Examples
    --------
    >>> table = CountTable.from_arrays(groups=["w", "m"], tasks=["ski", "ski"])
    >>> with_label_names(table, group_names=["m", "x", "w"]).joint[("groups", "tasks")].tolist()
    [[1.0], [0.0], [1.0]]
    """
    new_groups = table.group_names if group_names is None else tuple(group_names)
    new_tasks = table.task_names if task_names is None else tuple(task_names)
    if new_groups == table.group_names and new_tasks == table.task_names:
        return table
    positions = {}
    for kind, old, new in (
        ("group", table.group_names, new_groups),
        ("task", table.task_names, new_tasks),
    ):
        index = {name: j for j, name in enumerate(new)}
        missing = [name for name in old if name not in index]
        if missing:
            raise ValueError(ERR_REINDEX_NAMES.format(kind=kind, missing=missing))
        positions[kind] = (np.array([index[name] for name in old], dtype=np.intp), len(new))

    def laid_out(values: np.ndarray, *kinds: str) -> np.ndarray:
        shape = values.shape[: values.ndim - len(kinds)] + tuple(positions[k][1] for k in kinds)
        out = np.zeros(shape, dtype=values.dtype)
        index: Any = (Ellipsis,) + tuple(np.ix_(*(positions[k][0] for k in kinds)))
        out[index] = values
        return out

    replicates = table.replicates
    if replicates is not None:
        replicates = with_label_names(replicates, group_names=new_groups, task_names=new_tasks)
    out = replace(
        table,
        group_names=new_groups,
        task_names=new_tasks,
        totals={
            r: laid_out(v, "group" if r in GROUP_ROLES else "task") for r, v in table.totals.items()
        },
        joint={k: laid_out(v, "group", "task") for k, v in table.joint.items()},
        replicates=replicates,
    )
    # what is recorded on the table outside its fields (the files it was counted from)
    names = {f.name for f in fields(table)}
    vars(out).update({k: v for k, v in vars(table).items() if k not in names})
    return out


def check_label_matrices(matrices: Any) -> None:
    """Raise a ``TypeError`` unless ``matrices`` maps roles to :class:`LabelMatrix` (or None)."""
    roles = GROUP_ROLES + TASK_ROLES
    if not isinstance(matrices, Mapping):
        got = type(matrices).__name__
    else:
        bad = [
            (role, m)
            for role, m in matrices.items()
            if role not in roles or not (m is None or isinstance(m, LabelMatrix))
        ]
        if not bad:
            return
        got = f"{bad[0][0]!r} -> {type(bad[0][1]).__name__}"
    raise TypeError(ERR_MATRICES.format(roles=", ".join(roles), got=got))


def check_count_table(table: Any, *, arg: str) -> None:
    """Raise a ``TypeError`` naming ``arg`` when ``table`` is not a :class:`CountTable`."""
    if not isinstance(table, CountTable):
        raise TypeError(ERR_NOT_COUNT_TABLE.format(arg=arg, type_name=type(table).__name__))
