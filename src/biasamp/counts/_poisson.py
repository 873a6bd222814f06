"""Poisson(1) bootstrap weights keyed by global row position (see :mod:`biasamp.counts._replicates`).

A leaf module (it knows nothing of count tables) so that both the count table's
online bootstrap (:meth:`biasamp.CountTable.empty` with ``n_boot``) and the
replicate counting of :mod:`biasamp.counts._replicates` draw the same weights.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from biasamp._memory import check_allocation

__all__ = [
    "ERR_RANDOM_STATE_NEGATIVE",
    "checked_generator",
    "BLOCK_ROWS",
    "ERR_N_BOOT",
    "ERR_RANDOM_STATE",
    "ERR_INDEX",
    "ERR_RANGE",
    "PoissonReplicates",
    "check_n_boot",
    "seed_entropy",
]

#: Rows per random block: the unit of reproducibility of the replicate weights.
BLOCK_ROWS = 4096

ERR_N_BOOT = "n_boot: expected a positive integer, got {got!r}."
ERR_RANGE = "rows {start}:{stop} are outside 0:{n_rows}."
ERR_INDEX = "row_index: expected a 1-D array of non-negative integer row positions, got {got}."
ERR_RANDOM_STATE = (
    "random_state: expected None, an int, a numpy Generator, RandomState or SeedSequence, "
    "got {type_name}."
)


ERR_RANDOM_STATE_NEGATIVE = "random_state: expected a non-negative integer, got {got!r}."


def checked_generator(random_state: Any) -> np.random.Generator:
    """``numpy.random.default_rng(random_state)``, with errors that name the argument (one
    rule for every procedure that draws: an int >= 0, a Generator, a RandomState, a
    SeedSequence, a BitGenerator or None)."""
    accepted = (
        int,
        np.integer,
        np.random.Generator,
        np.random.RandomState,
        np.random.SeedSequence,
        np.random.BitGenerator,
    )
    if random_state is not None and (
        isinstance(random_state, (bool, np.bool_)) or not isinstance(random_state, accepted)
    ):
        raise TypeError(ERR_RANDOM_STATE.format(type_name=type(random_state).__name__))
    if isinstance(random_state, (int, np.integer)) and random_state < 0:
        raise ValueError(ERR_RANDOM_STATE_NEGATIVE.format(got=random_state))
    return np.random.default_rng(random_state)


def seed_entropy(random_state: Any) -> int:
    """The integer entropy behind ``random_state`` (a fresh one for ``None``).

    An int is used as is; a ``numpy.random.Generator`` or ``RandomState`` is
    advanced by one draw; a ``SeedSequence`` gives 128 bits of its state.
    """
    if random_state is None:
        return int(np.random.SeedSequence().entropy)  # type: ignore[arg-type]
    if isinstance(random_state, (bool, np.bool_)):
        raise TypeError(ERR_RANDOM_STATE.format(type_name=type(random_state).__name__))
    if isinstance(random_state, (int, np.integer)):
        if random_state < 0:
            raise ValueError(f"random_state: expected a non-negative integer, got {random_state}.")
        return int(random_state)
    if isinstance(random_state, np.random.Generator):
        return int(random_state.integers(0, 2**63 - 1))
    if isinstance(random_state, np.random.RandomState):
        return int(random_state.randint(0, 2**31 - 1))
    if isinstance(random_state, np.random.SeedSequence):
        return int.from_bytes(random_state.generate_state(4, np.uint32).tobytes(), "little")
    raise TypeError(ERR_RANDOM_STATE.format(type_name=type(random_state).__name__))


def check_n_boot(n_boot: Any) -> int:
    if (
        isinstance(n_boot, (bool, np.bool_))
        or not isinstance(n_boot, (int, np.integer))
        or n_boot < 1
    ):
        raise ValueError(ERR_N_BOOT.format(got=n_boot))
    return int(n_boot)


# --------------------------------------------------------------- Poisson(1)
def _poisson_tables() -> tuple[np.ndarray, np.ndarray]:
    """Inversion tables for Poisson(1) with 32-bit uniforms.

    ``thresholds[j] = round(2**32 * P(X <= j))``; a uniform ``u`` in
    [0, 2**32) maps to ``#{j : u >= thresholds[j]}``. ``by_high[h]`` is that
    value for every ``u`` whose top 16 bits are ``h``, or 255 when a threshold
    falls inside the bucket (then the low 16 bits decide).
    """
    pmf = [math.exp(-1.0) / math.factorial(k) for k in range(40)]
    cdf = np.cumsum(pmf)
    thresholds = np.round(cdf * 2.0**32).astype(np.int64)
    thresholds = thresholds[thresholds < 2**32]
    starts = np.arange(65536, dtype=np.int64) << 16
    low_k = np.searchsorted(thresholds, starts, side="right")
    high_k = np.searchsorted(thresholds, starts + 65535, side="right")
    by_high = np.where(low_k == high_k, low_k, 255).astype(np.uint8)
    return thresholds, by_high


_POISSON_THRESHOLDS, _POISSON_BY_HIGH = _poisson_tables()


def _poisson1(rng: np.random.Generator, size: int) -> np.ndarray:
    """``size`` Poisson(1) draws as uint8, by table inversion (see :func:`_poisson_tables`)."""
    n_words = -(-size // 4)
    high = rng.bit_generator.random_raw(n_words).view(np.uint16)[:size]
    out = _POISSON_BY_HIGH[high]
    ambiguous = np.flatnonzero(out == 255)
    if ambiguous.size:
        low = rng.integers(0, 65536, size=ambiguous.size, dtype=np.int64)
        u = (high[ambiguous].astype(np.int64) << 16) | low
        out[ambiguous] = np.searchsorted(_POISSON_THRESHOLDS, u, side="right")
    return out


def _output(out: np.ndarray | None, rows: int, n_boot: int) -> np.ndarray:
    if out is None:
        return np.empty((rows, n_boot), dtype=np.float64)
    if out.shape != (rows, n_boot) or out.dtype != np.float64 or not out.flags.c_contiguous:
        raise ValueError(f"out: expected a C-contiguous float64 array of shape {(rows, n_boot)}.")
    return out


def _rows_from_blocks(
    block: Callable[[int], np.ndarray],
    start: int,
    stop: int,
    width: int,
    out: np.ndarray | None,
) -> np.ndarray:
    """Rows ``start:stop`` (shape (stop - start, width)) cut from the blocks of
    ``BLOCK_ROWS`` global rows that ``block(b)`` draws."""
    start, stop = int(start), int(stop)
    if start < 0 or stop < start:
        raise ValueError(ERR_RANGE.format(start=start, stop=stop, n_rows="inf"))
    out = _output(out, stop - start, width)
    first, last = start // BLOCK_ROWS, -(-stop // BLOCK_ROWS)
    for b in range(first, last):  # loop over blocks of 4096 rows, not rows
        lo, hi = b * BLOCK_ROWS, (b + 1) * BLOCK_ROWS
        lo_row, hi_row = max(lo, start), min(hi, stop)
        out[lo_row - start : hi_row - start] = block(b)[lo_row - lo : hi_row - lo]
    return out


def _rows_at_positions(block: Callable[[int], np.ndarray], index: Any, width: int) -> np.ndarray:
    """The rows at global positions ``index`` (any order, repeats allowed), shape
    (len, width), gathered from the blocks ``block(b)`` draws: each distinct block
    touched is drawn once."""
    index = np.asarray(index)
    if index.ndim != 1 or (index.size and index.dtype.kind not in "iu"):
        raise ValueError(ERR_INDEX.format(got=f"shape {index.shape}, dtype {index.dtype}"))
    index = index.astype(np.int64)
    if index.size and index.min() < 0:
        raise ValueError(ERR_INDEX.format(got=f"a negative position {int(index.min())}"))
    out = np.empty((index.size, width), dtype=np.float64)
    blocks = index // BLOCK_ROWS
    order = np.argsort(blocks, kind="stable")
    unique, first = np.unique(blocks[order], return_index=True)
    bounds = np.append(first, index.size)
    for k, b in enumerate(unique):  # loop over distinct blocks, not rows
        rows = order[bounds[k] : bounds[k + 1]]
        out[rows] = block(int(b))[index[rows] - int(b) * BLOCK_ROWS]
    return out


class PoissonReplicates:
    """Poisson(1) bootstrap weights, reproducible row by row.

    Parameters
    ----------
    n_boot : int
        Number of replicates B.
    random_state : None, int, Generator, RandomState or SeedSequence
        Seed. Give the same value to every chunk or worker.
    stream : int, default 0
        Independent stream number (for example 0 for the evaluation split and
        1 for the training split of one bootstrap).

    Examples
    --------
    Chunked counting equals one-shot counting:

    >>> import numpy as np
    >>> from biasamp import CountTable
    >>> from biasamp import PoissonReplicates
    >>> groups, tasks = ["m", "w", "w", "m", "w"], ["ski", "cook", "ski", "cook", "cook"]
    >>> reps = PoissonReplicates(100, random_state=0)
    >>> whole = CountTable.from_arrays(groups=groups, tasks=tasks,
    ...                                replicate_weights=reps.weights(0, 5))
    >>> names = dict(group_names=whole.group_names, task_names=whole.task_names)
    >>> first = CountTable.from_arrays(groups=groups[:2], tasks=tasks[:2],
    ...                                replicate_weights=reps.weights(0, 2), **names)
    >>> rest = CountTable.from_arrays(groups=groups[2:], tasks=tasks[2:],
    ...                               replicate_weights=reps.weights(2, 5), **names)
    >>> bool(np.array_equal((first + rest).joint[("groups", "tasks")],
    ...                     whole.joint[("groups", "tasks")]))
    True
    """

    method = "poisson"

    def __init__(self, n_boot: int, *, random_state: Any = None, stream: int = 0) -> None:
        self.n_boot = check_n_boot(n_boot)
        # a block of BLOCK_ROWS x B draws: 2 bytes of random bits, 1 of result, 1 of mask each
        check_allocation(
            4.0 * BLOCK_ROWS * self.n_boot,
            what=f"n_boot={self.n_boot} Poisson replicate weights ({BLOCK_ROWS} rows at a time)",
            advice="use fewer replicates (n_boot).",
        )
        self.entropy = seed_entropy(random_state)
        self.stream = int(stream)
        self._last_block: tuple[int, np.ndarray] | None = None

    def _block(self, block: int) -> np.ndarray:
        cached = self._last_block
        if cached is not None and cached[0] == block:
            return cached[1]  # small sequential chunks (batches) reuse their block
        seq = np.random.SeedSequence(self.entropy, spawn_key=(self.stream, 0, block))
        rng = np.random.Generator(np.random.PCG64(seq))
        values = _poisson1(rng, BLOCK_ROWS * self.n_boot).reshape(BLOCK_ROWS, self.n_boot)
        self._last_block = (block, values)
        return values

    def rows(self, start: int, stop: int, *, out: np.ndarray | None = None) -> np.ndarray:
        """Weights of rows ``start:stop`` as a float64 array of shape (stop - start, B).

        ``out``, a C-contiguous float64 array of that shape, is filled and
        returned instead of a new array (reused buffers avoid page faults).
        """
        return _rows_from_blocks(self._block, start, stop, self.n_boot, out)

    def weights(self, start: int, stop: int) -> np.ndarray:
        """Weights of rows ``start:stop`` as an array of shape (B, stop - start)."""
        return self.rows(start, stop).T

    def at(self, index: Any) -> np.ndarray:
        """Weights of the rows at global positions ``index`` (any order), shape (len, B).

        Row ``index[j]`` gets the same weights as in :meth:`rows`; positions
        may repeat and need not be sorted (for example the dataset indices a
        shuffling ``DistributedSampler`` hands one process). Each distinct
        block of ``BLOCK_ROWS`` positions touched is drawn once per call.
        """
        return _rows_at_positions(self._block, index, self.n_boot)
