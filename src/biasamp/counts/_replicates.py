"""Bootstrap replicates from weighted count tables, and percentile intervals.

Every co-occurrence metric is a function of additive counts (a
:class:`~biasamp.CountTable`). A bootstrap replicate of the data is the same
rows with integer *replicate weights*, so B replicates of every count are one
product ``W @ X`` of a ``(B, n)`` weight matrix with the ``(n, k)`` matrix of
per-row count contributions. The metric cores (``directional_arrays``,
``mals_arrays``) work on tables with a leading replicate axis, so the metric is
evaluated once on arrays of shape ``(B, |G|, |T|)``, never B times in Python.

Public API (stable; other metric modules build on it)
-----------------------------------------------------
``replicate_weights(n_rows, n_boot, *, random_state, method="poisson")``
    The ``(n_boot, n_rows)`` weight matrix in one go.
``PoissonReplicates(n_boot, *, random_state, stream=0)``
    The chunk-friendly form of the Poisson bootstrap: ``.weights(start, stop)``
    returns the ``(n_boot, stop - start)`` weights of rows ``start:stop``. The
    weight of row ``i`` depends only on ``(random_state, stream, i, n_boot)``,
    never on how the rows are cut into chunks, so tables counted chunk by
    chunk with ``CountTable.from_arrays(..., replicate_weights=reps.weights(s, e))``
    and merged with ``+`` equal the one-shot table exactly, on any partition of
    the rows, in any order, on any worker (give each worker the same
    ``random_state`` and the global row offset of its rows).
``MultinomialReplicates(n_rows, n_boot, *, random_state, stream=0)``
    The classic bootstrap (each replicate draws exactly ``n_rows`` rows with
    replacement), in the same chunk-friendly form; it must know ``n_rows``
    up front.
``replicate_count_table(matrices, *, replicates, sample_weight=None, ...)``
    A :class:`CountTable` with a leading replicate axis, counted in chunks of
    rows so memory stays bounded (``W`` is never materialised for all rows).
``interval_from_replicates(replicates, *, ci=0.95)``
    Percentile interval and bootstrap standard error along the leading axis.

Choices
-------
* **Poisson(1) weights** (default): each row gets an independent Poisson(1)
  count in each replicate. Replicate sizes vary around n (by about sqrt(n)),
  which is asymptotically equivalent to the multinomial bootstrap and is what
  makes replicates additive across chunks and partitions. Draws are exact
  inversion of the Poisson(1) CDF with 32-bit uniforms (probabilities exact to
  2**-32; values above 12, probability < 1e-10, are not produced). Rows are
  drawn in fixed blocks of ``BLOCK_ROWS`` rows, each from its own
  ``numpy.random.SeedSequence(entropy, spawn_key=(stream, 0, block))``.
* **Multinomial weights**: per replicate, the counts of the row blocks are one
  multinomial draw, then the rows of each block are drawn uniformly given the
  block's count, which is the classic bootstrap exactly.
* **Interval**: the percentile interval, ``quantile(replicates, (1-ci)/2)``
  and ``quantile(replicates, (1+ci)/2)`` with numpy's default linear
  interpolation; ``se`` is the standard deviation of the replicates (ddof=1).
* **NaN replicates** (a cell that is empty in a replicate, for example a group
  with no rows in it): they are left out element by element, so the interval
  is conditional on the statistic being defined. If fewer than ``min_valid``
  (default half) of the replicates of an element are finite, that element's
  low, high and se are NaN: the interval is reported as undefined rather than
  computed from a handful of replicates. The number of finite replicates per
  element is ``count_valid(replicates)``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol

import numpy as np
import scipy.sparse as sp

from biasamp._memory import check_allocation
from biasamp._progress import progress_iter
from biasamp.counts._count_table import JOINT_KEYS, CountTable, check_label_matrices
from biasamp.counts._poisson import (
    BLOCK_ROWS,
    ERR_N_BOOT,
    ERR_RANDOM_STATE,
    ERR_RANGE,
    PoissonReplicates,
    _output,
    seed_entropy,
)
from biasamp.counts._poisson import check_n_boot as _check_n_boot
from biasamp.inputs._label_matrix import LabelMatrix, as_sample_weight, check_same_length
from biasamp.inputs._roles import GROUP_ROLES, TASK_ROLES

__all__ = [
    "BLOCK_ROWS",
    "ERR_N_BOOT",
    "ERR_RANDOM_STATE",
    "MultinomialReplicates",
    "PoissonReplicates",
    "make_replicates",
    "replicate_count_table",
    "replicate_weights",
    "seed_entropy",
]

ERR_N_ROWS = "n_rows: expected a positive integer, got {got!r}."
ERR_METHOD = "bootstrap: expected 'poisson' or 'multinomial', got {got!r}."
ERR_REPLICATES_TYPE = (
    "replicates: expected PoissonReplicates or MultinomialReplicates (an object with "
    "n_boot and rows(start, stop)), got {type_name}."
)


class RowReplicates(Protocol):
    """What :func:`replicate_count_table` needs: replicate weights of a row range."""

    n_boot: int

    def rows(
        self, start: int, stop: int, *, out: np.ndarray | None = None
    ) -> np.ndarray:  # pragma: no cover - protocol
        ...


class MultinomialReplicates:
    """Classic (multinomial) bootstrap weights, reproducible row by row.

    Each replicate draws exactly ``n_rows`` rows with replacement. The counts
    of the blocks of ``BLOCK_ROWS`` rows are one multinomial draw per
    replicate; the rows inside a block are then drawn uniformly given the
    block's count. Weights of any row range are available without drawing the
    others, so the classic bootstrap can be counted in chunks too.

    Parameters
    ----------
    n_rows : int
        Total number of rows of the split.
    n_boot : int
        Number of replicates B.
    random_state, stream
        As for :class:`PoissonReplicates`.
    """

    method = "multinomial"

    def __init__(
        self, n_rows: int, n_boot: int, *, random_state: Any = None, stream: int = 0
    ) -> None:
        if (
            isinstance(n_rows, (bool, np.bool_))
            or not isinstance(n_rows, (int, np.integer))
            or n_rows < 1
        ):
            raise ValueError(ERR_N_ROWS.format(got=n_rows))
        self.n_rows = int(n_rows)
        self.n_boot = _check_n_boot(n_boot)
        self.entropy = seed_entropy(random_state)
        self.stream = int(stream)
        n_blocks = -(-self.n_rows // BLOCK_ROWS)
        check_allocation(
            16.0 * n_blocks * (self.n_boot + 1),
            what=f"n_rows={self.n_rows}, n_boot={self.n_boot} multinomial replicates "
            f"({n_blocks} blocks of rows per replicate)",
            advice="use fewer replicates (n_boot) or the Poisson bootstrap.",
        )
        sizes = np.full(n_blocks, BLOCK_ROWS, dtype=np.int64)
        sizes[-1] = self.n_rows - BLOCK_ROWS * (n_blocks - 1)
        self._sizes = sizes
        rng = self._rng((self.stream, 1))
        # (B, n_blocks): how many of the n draws of each replicate land in each block
        self._block_counts = rng.multinomial(self.n_rows, sizes / self.n_rows, size=self.n_boot)

    def _rng(self, key: tuple[int, ...]) -> np.random.Generator:
        return np.random.Generator(
            np.random.PCG64(np.random.SeedSequence(self.entropy, spawn_key=key))
        )

    def _block(self, block: int) -> np.ndarray:
        size = int(self._sizes[block])
        counts = self._block_counts[:, block]
        rng = self._rng((self.stream, 2, block))
        which = np.repeat(np.arange(self.n_boot, dtype=np.int64), counts)
        rows = rng.integers(0, size, size=which.size)
        flat = np.bincount(rows * self.n_boot + which, minlength=size * self.n_boot)
        return flat.reshape(size, self.n_boot)

    def rows(self, start: int, stop: int, *, out: np.ndarray | None = None) -> np.ndarray:
        """Weights of rows ``start:stop`` as a float64 array of shape (stop - start, B)
        (written into ``out`` when given, as for :meth:`PoissonReplicates.rows`)."""
        start, stop = int(start), int(stop)
        if start < 0 or stop < start or stop > self.n_rows:
            raise ValueError(ERR_RANGE.format(start=start, stop=stop, n_rows=self.n_rows))
        out = _output(out, stop - start, self.n_boot)
        first, last = start // BLOCK_ROWS, -(-stop // BLOCK_ROWS)
        for block in range(first, last):
            lo = block * BLOCK_ROWS
            a, b = max(lo, start), min(lo + BLOCK_ROWS, stop)
            out[a - start : b - start] = self._block(block)[a - lo : b - lo]
        return out

    def weights(self, start: int, stop: int) -> np.ndarray:
        """Weights of rows ``start:stop`` as an array of shape (B, stop - start)."""
        return self.rows(start, stop).T


def make_replicates(
    n_rows: int,
    n_boot: int,
    *,
    random_state: Any = None,
    method: str = "poisson",
    stream: int = 0,
) -> PoissonReplicates | MultinomialReplicates:
    """The replicate-weight source for ``method`` (``"poisson"`` or ``"multinomial"``)."""
    if method == "poisson":
        return PoissonReplicates(n_boot, random_state=random_state, stream=stream)
    if method == "multinomial":
        return MultinomialReplicates(n_rows, n_boot, random_state=random_state, stream=stream)
    raise ValueError(ERR_METHOD.format(got=method))


def replicate_weights(
    n_rows: int, n_boot: int, *, random_state: Any = None, method: str = "poisson"
) -> np.ndarray:
    """Bootstrap weights for ``n_rows`` rows, one row of weights per replicate.

    Parameters
    ----------
    n_rows : int
        Number of rows n.
    n_boot : int
        Number of replicates B.
    random_state : None, int, Generator, RandomState or SeedSequence
        Seed; the same seed gives the same weights.
    method : {"poisson", "multinomial"}, default "poisson"
        ``"poisson"``: independent Poisson(1) counts (additive across chunks,
        see :class:`PoissonReplicates`). ``"multinomial"``: the classic
        bootstrap, every replicate sums to ``n_rows``.

    Returns
    -------
    ndarray of shape (n_boot, n_rows)
        Non-negative integer weights (float64), ready for
        ``CountTable.from_arrays(..., replicate_weights=...)``.

    Examples
    --------
    >>> from biasamp import replicate_weights
    >>> w = replicate_weights(10, 3, random_state=0, method="multinomial")
    >>> w.shape, w.sum(axis=1).tolist()
    ((3, 10), [10.0, 10.0, 10.0])
    """
    if (
        isinstance(n_rows, (bool, np.bool_))
        or not isinstance(n_rows, (int, np.integer))
        or n_rows < 1
    ):
        raise ValueError(ERR_N_ROWS.format(got=n_rows))
    n_boot = _check_n_boot(n_boot)
    check_allocation(
        8.0 * float(n_rows) * float(n_boot),
        what=f"replicate_weights: an n_boot x n_rows = {n_boot} x {n_rows} float64 matrix",
        advice=(
            "draw the weights of a range of rows at a time "
            "(PoissonReplicates(n_boot, random_state=...).rows(start, stop)), or use fewer "
            "replicates or rows."
        ),
    )
    source = make_replicates(int(n_rows), n_boot, random_state=random_state, method=method)
    return np.ascontiguousarray(source.weights(0, int(n_rows)))


# ------------------------------------------------------- replicate tables
def _row_contributions(
    chunk: Mapping[str, np.ndarray | sp.csr_matrix],
    joint_keys: list[tuple[str, str]],
    weight: np.ndarray,
) -> tuple[sp.csr_matrix, list[tuple[str, Any, int, int]]]:
    """The (rows, K) matrix of every count's per-row contribution, and its column layout."""
    pieces: list[sp.csr_matrix] = [sp.csr_matrix(weight[:, None])]
    layout: list[tuple[str, Any, int, int]] = [("n", None, 0, 1)]
    col = 1
    scale = sp.diags(weight)
    for role, values in chunk.items():
        piece = sp.csr_matrix(scale @ sp.csr_matrix(values))
        pieces.append(piece)
        layout.append(("totals", role, col, col + piece.shape[1]))
        col += piece.shape[1]
    for g_role, t_role in joint_keys:
        g = chunk[g_role]
        g = g.toarray() if sp.issparse(g) else np.asarray(g)
        t = sp.csr_matrix(scale @ sp.csr_matrix(chunk[t_role]))
        start = col
        for j in range(g.shape[1]):  # groups are few: one block of |T| columns per group
            piece = sp.csr_matrix(sp.diags(g[:, j]) @ t)
            pieces.append(piece)
            col += piece.shape[1]
        layout.append(("joint", (g_role, t_role), start, col))
    return sp.hstack(pieces, format="csr"), layout


def default_chunk_rows(n_boot: int) -> int:
    """Rows per chunk (a multiple of ``BLOCK_ROWS``): about 32 MB of weights per chunk."""
    rows = (4_000_000 // max(n_boot, 1)) // BLOCK_ROWS * BLOCK_ROWS
    return max(BLOCK_ROWS, rows)


def _accumulate(acc: np.ndarray, contrib: sp.csr_matrix, rows: np.ndarray) -> None:
    """``acc += contrib.T @ rows`` for ``contrib`` (r, K) sparse and ``rows`` (r, B) dense.

    With ``contrib.T`` in CSR form each output row of ``acc`` is summed while it
    sits in cache; scipy's ``csr_matvecs`` kernel adds into ``acc`` in place
    (no (K, B) temporary per chunk). Falls back to the public product if that
    kernel is unavailable.
    """
    transposed = contrib.T.tocsr()
    rows = np.ascontiguousarray(rows, dtype=np.float64)
    if _CSR_MATVECS is not None and acc.flags.c_contiguous:
        k, r = transposed.shape
        _CSR_MATVECS(
            k,
            r,
            acc.shape[1],
            transposed.indptr,
            transposed.indices,
            transposed.data,
            rows.ravel(),
            acc.reshape(-1),
        )
    else:  # pragma: no cover - depends on the scipy build
        acc += transposed @ rows


_CSR_MATVECS: Callable[..., None] | None
try:  # scipy's private kernel: Y += A @ X for CSR A; stable for many releases
    from scipy.sparse._sparsetools import csr_matvecs as _CSR_MATVECS
except ImportError:  # pragma: no cover
    _CSR_MATVECS = None


def replicate_count_table(
    matrices: Mapping[str, LabelMatrix],
    *,
    replicates: RowReplicates,
    sample_weight: Any = None,
    chunk_rows: int | None = None,
    progress: bool = False,
    description: str = "bootstrap",
) -> CountTable:
    """Count validated label matrices under B replicate weightings, in chunks of rows.

    The result equals ``CountTable.from_label_matrices(matrices,
    sample_weight=sample_weight, replicate_weights=W)`` with ``W =
    replicates.rows(0, n).T``, but ``W`` is drawn and used one chunk at a time
    and every count of a chunk comes from one sparse product.

    Parameters
    ----------
    matrices : mapping of role -> LabelMatrix
        Roles among ``groups``, ``groups_pred``, ``tasks``, ``tasks_pred``.
    replicates : PoissonReplicates or MultinomialReplicates
        The source of replicate weights.
    sample_weight : array-like of shape (n,), optional
        Row weights, multiplied into the replicate weights.
    chunk_rows : int, optional
        Rows per chunk (default: about 32 MB of weights per chunk).
    progress : bool, default False
        Show a progress bar over the chunks.

    Returns
    -------
    CountTable
        Every count has a leading axis of length B.
    """
    check_label_matrices(matrices)
    if not (callable(getattr(replicates, "rows", None)) and hasattr(replicates, "n_boot")):
        raise TypeError(ERR_REPLICATES_TYPE.format(type_name=type(replicates).__name__))
    present = {r: m for r, m in matrices.items() if m is not None}
    n = check_same_length(**present)
    weight = as_sample_weight(sample_weight, n)
    group_roles = [r for r in GROUP_ROLES if r in present]
    task_roles = [r for r in TASK_ROLES if r in present]
    if not group_roles or not task_roles:
        raise ValueError(
            f"A count table needs a group role and a task role; got {sorted(present)}."
        )
    joint_keys = [(g, t) for g, t in JOINT_KEYS if g in present and t in present]
    roles = group_roles + task_roles
    n_boot = replicates.n_boot
    step = default_chunk_rows(n_boot) if chunk_rows is None else max(1, int(chunk_rows))
    inner = max(64, 1_000_000 // n_boot)  # rows per product: about 8 MB of weights, cache-sized
    starts = range(0, n, step)
    acc: np.ndarray | None = None
    layout: list[tuple[str, Any, int, int]] = []
    for start in progress_iter(
        starts, total=len(starts), description=description, enabled=progress
    ):
        stop = min(start + step, n)
        chunk = {r: present[r].values[start:stop] for r in roles}
        contrib, layout = _row_contributions(chunk, joint_keys, weight[start:stop])
        if acc is None:
            acc = np.zeros((contrib.shape[1], n_boot), dtype=np.float64)
            buffer = np.empty((min(step, n), n_boot), dtype=np.float64)
        rows = replicates.rows(start, stop, out=buffer[: stop - start])  # (rows, B), C order
        for a in range(0, stop - start, inner):
            _accumulate(acc, contrib[a : a + inner], rows[a : a + inner])
    assert acc is not None
    out = acc.T  # (B, K)
    totals: dict[str, np.ndarray] = {}
    joint: dict[tuple[str, str], np.ndarray] = {}
    n_total = out[:, 0].copy()
    for kind, key, a, b in layout[1:]:
        if kind == "totals":
            totals[key] = np.ascontiguousarray(out[:, a:b])
        else:
            g_role, t_role = key
            n_g, n_t = present[g_role].n_labels, present[t_role].n_labels
            joint[key] = np.ascontiguousarray(out[:, a:b]).reshape(n_boot, n_g, n_t)
    return CountTable(
        group_names=present[group_roles[0]].names,
        task_names=present[task_roles[0]].names,
        n=n_total,
        totals=totals,
        joint=joint,
        n_rows=n,
    )
