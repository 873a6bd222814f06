"""The paired swap test's count tables: each row's labels and outputs swap with probability 1/2.

Under the null hypothesis that a model amplifies nothing beyond its labels, a row's
ground truth and its prediction are exchangeable: swapping them leaves the joint
distribution unchanged. The swap test draws ``n_perm`` vectors of per-row swap
indicators ``s`` in {0, 1} (a fair coin per row), recomputes the metric on each
swapped data set, and compares the observed value with those null values.

Every count of a swapped split is linear in the indicators: a row with ``s = 0``
counts its roles as they are, a row with ``s = 1`` counts ``groups`` as
``groups_pred``, ``tasks`` as ``tasks_pred`` and the other way round. So the
``n_perm`` swapped tables are two replicate tables counted as the bootstrap counts
its replicates (:func:`~biasamp.counts._replicates.replicate_count_table`): the
rows as they are, weighted by ``1 - s``, plus the rows with their roles exchanged,
weighted by ``s``. The metric cores run once on arrays with a leading axis of
length ``n_perm``.

The indicators of row ``i`` depend only on ``(random_state, stream, i, n_perm)``,
drawn by blocks of :data:`~biasamp.counts._poisson.BLOCK_ROWS` global row positions
as the Poisson bootstrap weights are: tables counted chunk by chunk with the chunk's
global row offset and added equal the one-shot table exactly.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from biasamp._memory import check_allocation
from biasamp.counts._count_table import CountTable, check_label_matrices
from biasamp.counts._poisson import (
    BLOCK_ROWS,
    _rows_at_positions,
    _rows_from_blocks,
    seed_entropy,
)
from biasamp.counts._replicates import replicate_count_table
from biasamp.inputs._label_matrix import LabelMatrix, check_same_length

__all__ = [
    "ERR_N_PERM",
    "ERR_N_PERM_LARGE",
    "ERR_N_PERM_POSITIVE",
    "MAX_N_PERM",
    "ERR_SWAP_ROLES",
    "SWAP_PAIRS",
    "SwapReplicates",
    "check_n_perm",
    "swap_count_table",
    "swapped_roles",
    "swapped_table",
]

ERR_N_PERM = "n_perm: expected a non-negative integer (0: no significance test), got {got!r}."
ERR_N_PERM_POSITIVE = "n_perm: expected a positive integer (the swapped data sets), got {got!r}."
#: The most permutations a test draws: a p-value resolves to 1 / (n_perm + 1), and more
#: draws than this only cost time (each is a full recount of the data).
MAX_N_PERM = 10_000_000
ERR_N_PERM_LARGE = (
    "n_perm: expected at most {limit} permutations (a p-value resolves to 1 / (n_perm + 1); "
    "n_perm=999 resolves 0.001), got {got!r}."
)
ERR_SWAP_ROLES = (
    "the swap test needs a label and an output of the same kind on the same rows "
    "(groups and groups_pred, or tasks and tasks_pred); got the roles {roles}."
)

#: The roles a swap exchanges: each ground-truth role and the model's output for it.
SWAP_PAIRS: Mapping[str, str] = {
    "groups": "groups_pred",
    "groups_pred": "groups",
    "tasks": "tasks_pred",
    "tasks_pred": "tasks",
}

#: Domain of the swap indicators' random streams (the bootstrap uses 0, 1 and 2), so a
#: swap test and a bootstrap with one ``random_state`` draw independent numbers.
_SWAP_DOMAIN = 3


def check_n_perm(n_perm: Any) -> int:
    """``n_perm`` as an int: a non-negative integer (0 means no test) up to
    :data:`MAX_N_PERM`."""
    if (
        isinstance(n_perm, (bool, np.bool_))
        or not isinstance(n_perm, (int, np.integer))
        or n_perm < 0
    ):
        raise ValueError(ERR_N_PERM.format(got=n_perm))
    if n_perm > MAX_N_PERM:
        raise ValueError(ERR_N_PERM_LARGE.format(limit=MAX_N_PERM, got=n_perm))
    return int(n_perm)


class SwapReplicates:
    """Fair-coin swap indicators of the paired swap test, reproducible row by row.

    Row ``i`` of permutation ``p`` swaps its labels and outputs when
    ``rows(i, i + 1)[0, p] == 1``; the indicator depends only on ``random_state``,
    ``stream``, ``n_perm`` and ``i``, never on how the rows are cut into chunks.

    Parameters
    ----------
    n_perm : int
        Number of swapped data sets.
    random_state : None, int, Generator, RandomState or SeedSequence
        Seed. Give the same value to every chunk or worker.
    stream : int, default 0
        Independent stream number.
    roles : tuple of str, optional
        The label roles whose outputs a swap exchanges (``("tasks",)``: ``tasks`` and
        ``tasks_pred`` only); default every label present with its output. Read by
        the counting of files, whose chunks hold every role.

    Examples
    --------
    >>> import numpy as np
    >>> from biasamp.counts._swaps import SwapReplicates
    >>> swaps = SwapReplicates(4, random_state=0)
    >>> whole = swaps.rows(0, 10)
    >>> bool(np.array_equal(whole[3:7], SwapReplicates(4, random_state=0).rows(3, 7)))
    True
    >>> sorted(np.unique(whole).tolist())
    [0.0, 1.0]
    """

    method = "swap"

    def __init__(
        self,
        n_perm: int,
        *,
        random_state: Any = None,
        stream: int = 0,
        roles: tuple[str, ...] | None = None,
    ) -> None:
        n_perm = check_n_perm(n_perm)
        if n_perm < 1:
            raise ValueError(ERR_N_PERM_POSITIVE.format(got=n_perm))
        self.n_perm = n_perm
        # a block of BLOCK_ROWS x n_perm indicators as float64, and its bits
        check_allocation(
            9.0 * BLOCK_ROWS * float(n_perm),
            what=f"n_perm={n_perm} swap indicators ({BLOCK_ROWS} rows at a time)",
            advice="use fewer permutations (n_perm=999 resolves p-values to 0.001).",
        )
        self.entropy = seed_entropy(random_state)
        self.stream = int(stream)
        self.roles = None if roles is None else tuple(roles)
        self._last_block: tuple[int, np.ndarray] | None = None

    @property
    def n_boot(self) -> int:
        """The number of weightings (the name :func:`replicate_count_table` reads)."""
        return self.n_perm

    def _block(self, block: int) -> np.ndarray:
        cached = self._last_block
        if cached is not None and cached[0] == block:
            return cached[1]
        seq = np.random.SeedSequence(self.entropy, spawn_key=(self.stream, _SWAP_DOMAIN, block))
        rng = np.random.Generator(np.random.PCG64(seq))
        size = BLOCK_ROWS * self.n_perm
        words = rng.bit_generator.random_raw(-(-size // 64)).astype(np.uint64)
        bits = np.unpackbits(words.view(np.uint8), count=size, bitorder="little")
        values = bits.reshape(BLOCK_ROWS, self.n_perm).astype(np.float64)
        self._last_block = (block, values)
        return values

    def rows(self, start: int, stop: int, *, out: np.ndarray | None = None) -> np.ndarray:
        """Indicators of rows ``start:stop`` as a float64 array of shape (stop - start, n_perm)."""
        return _rows_from_blocks(self._block, start, stop, self.n_perm, out)

    def weights(self, start: int, stop: int) -> np.ndarray:
        """Indicators of rows ``start:stop`` as an array of shape (n_perm, stop - start)."""
        return self.rows(start, stop).T

    def at(self, index: Any) -> np.ndarray:
        """Indicators of the rows at global positions ``index`` (any order), shape
        (len, n_perm): row ``index[j]`` gets the indicators :meth:`rows` gives it (the
        dataset indices a shuffling sampler hands one process)."""
        return _rows_at_positions(self._block, index, self.n_perm)


class _Shifted:
    """Weights of rows ``offset + start : offset + stop`` of a source (a chunk of a stream),
    or one minus them (``keep=True``: the rows that are not swapped)."""

    def __init__(self, source: SwapReplicates, offset: int, *, keep: bool) -> None:
        self.source, self.offset, self.keep = source, int(offset), keep
        self.n_boot = source.n_perm

    def rows(self, start: int, stop: int, *, out: np.ndarray | None = None) -> np.ndarray:
        values = self.source.rows(start + self.offset, stop + self.offset, out=out)
        if self.keep:
            np.subtract(1.0, values, out=values)
        return values


def swapped_roles(roles: Any, *, only: Any = None) -> dict[str, str]:
    """``{role: the role it is counted as after a swap}`` for the roles present: a label
    and its output exchange; a role without its partner stays (``ERR_SWAP_ROLES`` when
    no pair is present). ``only`` (label roles, ``("tasks",)``) limits the pairs that
    exchange."""
    present = set(roles)
    chosen = None if only is None else {r for label in only for r in (label, SWAP_PAIRS[label])}
    out = {
        r: SWAP_PAIRS[r] if SWAP_PAIRS.get(r) in present and (chosen is None or r in chosen) else r
        for r in present
    }
    if all(r == s for r, s in out.items()):
        raise ValueError(ERR_SWAP_ROLES.format(roles=", ".join(sorted(present)) or "none"))
    return out


def swap_count_table(
    matrices: Mapping[str, LabelMatrix],
    *,
    swaps: SwapReplicates,
    sample_weight: Any = None,
    row_offset: int = 0,
    chunk_rows: int | None = None,
    progress: bool = False,
) -> CountTable:
    """The ``n_perm`` swapped count tables of one split, as one table with a leading axis.

    Parameters
    ----------
    matrices : mapping of role -> LabelMatrix
        Validated label matrices with at least one pair of a label and its output
        (``groups`` and ``groups_pred``, or ``tasks`` and ``tasks_pred``) encoded on the
        same label names. Each pair present is exchanged on a swapped row; a role
        without its partner is counted as it is.
    swaps : SwapReplicates
        The swap indicators.
    sample_weight : array-like of shape (n,), optional
        Row weights.
    row_offset : int, default 0
        The global position of the first row (a chunk of a stream): the chunks' tables,
        added, equal the table of every row counted at once.
    chunk_rows : int, optional
        Rows per counting chunk (bounds memory; the result does not depend on it).
    progress : bool, default False
        Show a progress bar.

    Returns
    -------
    CountTable
        Every count has a leading axis of length ``n_perm``; ``n_rows`` is the number
        of rows.
    """
    check_label_matrices(matrices)
    present = {r: m for r, m in matrices.items() if m is not None}
    exchange = swapped_roles(present)
    n = check_same_length(**present)
    kept = replicate_count_table(
        present,
        replicates=_Shifted(swaps, row_offset, keep=True),
        sample_weight=sample_weight,
        chunk_rows=chunk_rows,
        progress=progress,
        description=f"swap test: {swaps.n_perm} permutations",
    )
    swapped = replicate_count_table(
        {exchange[r]: m for r, m in present.items()},
        replicates=_Shifted(swaps, row_offset, keep=False),
        sample_weight=sample_weight,
        chunk_rows=chunk_rows,
        progress=progress,
        description=f"swap test: {swaps.n_perm} permutations (swapped rows)",
    )
    return swapped_table(kept, swapped, n_rows=n)


def swapped_table(kept: CountTable, moved: CountTable, *, n_rows: int) -> CountTable:
    """The swapped data sets' table: the cells of the rows counted as they are
    (``kept``) plus those of the rows counted with their roles exchanged (``moved``),
    over the same ``n_rows`` rows (each row of a replicate is in one of the two)."""
    return CountTable(
        group_names=kept.group_names,
        task_names=kept.task_names,
        n=kept.n + moved.n,
        totals={r: kept.totals[r] + moved.totals[r] for r in kept.totals},
        joint={k: kept.joint[k] + moved.joint[k] for k in kept.joint},
        n_rows=n_rows,
    )
