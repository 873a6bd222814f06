"""Retrieval bias: Skew@k, MaxSkew@k, MinSkew@k and NDKL (Geyik, Ambler & Kenthapadi,
KDD 2019, "Fairness-Aware Ranking in Search & Recommendation Systems").

For one query, with ``p_g`` the share of group ``g`` in the top ``k`` items and
``r_g`` its reference (desired) share:

.. math::

    \\mathrm{Skew@k}(g) = \\ln \\frac{p_g}{r_g}, \\quad
    \\mathrm{MaxSkew@k} = \\max_g \\mathrm{Skew@k}(g), \\quad
    \\mathrm{MinSkew@k} = \\min_g \\mathrm{Skew@k}(g)

    \\mathrm{NDKL} = \\frac{1}{Z} \\sum_{i=1}^{k} \\frac{1}{\\log_2(i + 1)}
    d_{KL}(D_i \\,\\|\\, r), \\quad Z = \\sum_{i=1}^{k} \\frac{1}{\\log_2(i + 1)}

with ``D_i`` the group shares of the top ``i`` items and
``d_KL(D || r) = sum_g D_g ln(D_g / r_g)`` (``0 ln 0 = 0``). Rules (see
``docs/metrics/retrieval.md``):

* Items are ranked by score, highest first; equal scores rank by item index,
  lowest first (a stable descending order).
* A group absent from the top ``k`` has Skew@k ``-inf`` (the paper adds a small
  constant to avoid it; here it is reported as it is), so MinSkew@k may be
  ``-inf``; MaxSkew@k is always finite.
* Every group of the reference needs a positive reference share.

The scores may be a memory-mapped matrix larger than memory: queries are read in
blocks, each row's ``k`` best items are found with ``numpy.argpartition`` and
only those ``k`` are sorted.
"""

from __future__ import annotations

import dataclasses
import math
import warnings
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from biasamp._memory import check_allocation
from biasamp.counts._poisson import checked_generator
from biasamp.counts._swaps import check_n_perm
from biasamp.inputs._group_sizes import MissingGroupWarning, missing_groups_message
from biasamp.inputs._keys import key_names
from biasamp.inputs._readers import (
    ERR_SCORES_DTYPE,
    ERR_SCORES_NAN,
    check_knob,
    check_score_block,
    read_labels,
    read_scores,
)
from biasamp.results._intervals import check_ci, interval_from_replicates
from biasamp.results._retrieval import COUNT_PREFIX, RetrievalBiasResult
from biasamp.results._significance import null_distribution, permutation_p_value

__all__ = [
    "ERR_SCORES_DTYPE",
    "ERR_SCORES_NAN",
    "block_bytes",
    "first_nan",
    "ndkl_weights",
    "random_ranking_null",
    "retrieval_bias",
    "retrieval_statistics",
    "top_k_items",
]

ERR_INPUT = "retrieval_bias: give exactly one of scores= and rankings=."
ERR_RANKINGS_SHAPE = "rankings: expected a 2-D array (queries x ranks), got shape {shape}."
ERR_RANKINGS_DTYPE = "rankings: expected integer item indices, got dtype {dtype}."
ERR_RANKINGS_RANGE = (
    "rankings: row {row} holds item {got}, outside the {n_items} items of groups (0 .. {last})."
)
ERR_RANKINGS_REPEAT = "rankings: row {row} ranks item {item} twice in its top {k}."
ERR_RANKINGS_SHORT = "rankings: rows rank {width} items, fewer than k={k}."
ERR_GROUPS_LENGTH = (
    "groups: expected one group per item (the {n_items} columns of scores), got {got}."
)
ERR_GROUPS_ALIGN = "groups: the items {missing} of scores' columns have no group."
ERR_K = "k: expected an integer in 1 .. {n_items} (the number of items), got {got!r}."
ERR_REFERENCE = "reference: expected 'pool', 'uniform' or a mapping group -> share, got {got!r}."
ERR_REFERENCE_SHARE = (
    "reference: the share of group {group!r} must be a positive number, got {got!r}."
)
ERR_REFERENCE_MISSING = "reference: no share for the group(s) {missing} of groups."
ERR_REFERENCE_SUM = "reference: the shares must sum to 1, they sum to {got!r}."
ERR_GROUP_NAMES_POOL = (
    "group_names: {missing} have no item in the pool, so their pool share is 0 and "
    "Skew@k = ln(p / 0) is undefined; pass reference='uniform' or a mapping to keep them."
)
ERR_QUERY_NAMES = "query_names: expected one name per query ({n}), got {got}."
ERR_BLOCK = "block_size: expected a positive integer (queries per block), got {got!r}."

#: Working memory of one block of queries, in bytes, when the last-level cache size
#: cannot be read (the argpartition indices dominate it).
BLOCK_BYTES = 8 * 2**20
#: At least this many scores a block (so that a block's fixed cost, tens of
#: microseconds, stays a few percent of its work) unless the queries run out ...
MIN_BLOCK_ITEMS = 1 << 20
#: ... or the block's working memory would pass this.
MAX_BLOCK_BYTES = 64 * 2**20
#: Bytes of the bootstrap's resampled query indices drawn at once.
BOOT_BYTES = 64 * 2**20
#: Bytes kept per bootstrap replicate: two replicate arrays (MaxSkew, NDKL) in the result
#: and the copy each percentile interval sorts.
BYTES_PER_REPLICATE = 32


def ndkl_weights(k: int) -> np.ndarray:
    """The NDKL rank weights ``1 / log2(i + 1)`` for ``i = 1 .. k``, divided by their sum."""
    weights = 1.0 / np.log2(np.arange(2, k + 2, dtype=np.float64))
    return weights / weights.sum()


def top_k_items(block: np.ndarray, k: int) -> np.ndarray:
    """The ``k`` best items of each row of ``block``: (rows, k) item indices, highest
    score first, equal scores by lowest item index (as a stable descending sort).

    ``numpy.argpartition`` finds each row's ``k`` largest scores without sorting the
    row, and in the same pass the largest score left out (the partition is cut one
    place below the ``k`` kept items, where that score lands). When that score
    equals the ``k``-th largest, a tie straddles the cut and the tied items with the
    lowest indices are kept (those rows only, all at once); no other pass over the
    block is made. Only the ``k`` kept items are sorted. A NaN score sorts above every
    number, so a row holding one has it among its ``k`` items (see :func:`first_nan`).
    """
    rows, n = block.shape
    if k == n:
        candidates = np.broadcast_to(np.arange(n), (rows, n)).copy()
        values = np.array(block)
    else:
        # the cut one place lower: the k items after it are the k largest, the item at
        # it the largest left out (one selection, as for the k alone)
        part = np.argpartition(block, n - k - 1, axis=1)
        left_out = np.take_along_axis(block, part[:, n - k - 1 : n - k], axis=1)[:, 0]
        candidates = part[:, n - k :].copy()
        del part  # the block's indices: only the k kept ones stay
        values = np.take_along_axis(block, candidates, axis=1)
        threshold = values.min(axis=1)
        straddle = np.flatnonzero(left_out == threshold)
        if straddle.size:  # the boundary tie is cut: keep the tied items of lowest index
            cut = threshold[straddle, None]
            tied = values[straddle] == cut
            tied_in = tied.sum(axis=1)
            equal = block[straddle] == cut
            order = np.cumsum(equal, axis=1, dtype=np.int32)
            keep = equal & (order <= tied_in[:, None])
            _, lowest = np.nonzero(keep)  # row by row, tied_in of them per row, ascending
            chosen = candidates[straddle]
            chosen[tied] = lowest
            candidates[straddle] = chosen
            values = np.take_along_axis(block, candidates, axis=1)
    # ascending by (score, -index), reversed: highest score first, ties by lowest index,
    # in the scores' own dtype (a float cast would merge int64 scores above 2**53)
    descending = np.lexsort((-candidates, values), axis=1)[:, ::-1]
    return np.take_along_axis(candidates, descending, axis=1)


def first_nan(block: np.ndarray, top: np.ndarray) -> tuple[int, int] | None:
    """The first (row, item) of ``block`` holding NaN, read from each row's top items
    ``top`` (:func:`top_k_items`: NaN ranks first), or ``None``."""
    if block.dtype.kind != "f":
        return None
    bad = np.isnan(np.take_along_axis(block, top[:, :1], axis=1)[:, 0])
    if not bad.any():
        return None
    row = int(np.flatnonzero(bad)[0])
    return row, int(np.flatnonzero(np.isnan(block[row]))[0])


def block_bytes() -> int:
    """Working memory of a block of queries: a quarter of the last-level cache (the
    block's indices are written while the cache also holds the rows being partitioned;
    measured on 20,000 items a query, blocks of 5-20 MiB ran fastest, 80 MiB 20% slower),
    within 4 and 64 MiB, or :data:`BLOCK_BYTES` when the cache size cannot be read."""
    if not _CACHE_BYTES:
        cache = _last_level_cache()
        _CACHE_BYTES.append(BLOCK_BYTES if cache is None else cache // 4)
    return min(MAX_BLOCK_BYTES, max(4 * 2**20, _CACHE_BYTES[0]))


_CACHE_BYTES: list[int] = []


def _last_level_cache() -> int | None:
    """The size of the largest CPU cache in bytes (Linux sysfs), or ``None``."""
    import glob

    sizes = []
    for path in glob.glob("/sys/devices/system/cpu/cpu0/cache/index*/size"):
        try:
            with open(path, encoding="ascii") as size:
                text = size.read().strip()
        except OSError:
            continue
        scale = {"K": 2**10, "M": 2**20, "G": 2**30}.get(text[-1:], 1)
        digits = text[:-1] if text[-1:] in "KMG" else text
        if digits.isdigit():
            sizes.append(int(digits) * scale)
    return max(sizes) if sizes else None


def retrieval_statistics(
    top: np.ndarray, codes: np.ndarray, reference: np.ndarray
) -> dict[str, np.ndarray]:
    """MaxSkew@k, MinSkew@k, NDKL and the top-k counts of each query, from the (queries, k)
    ranked item indices ``top``, the group code of every item and the reference shares."""
    rows, k = top.shape
    n_groups = len(reference)
    ranked = codes[top]  # (rows, k) group of the item at each rank
    onehot = ranked[:, :, None] == np.arange(n_groups)[None, None, :]
    cumulative = np.cumsum(onehot, axis=1, dtype=np.int32)  # (rows, k, |G|) top-i counts
    shares = cumulative / np.arange(1, k + 1, dtype=np.float64)[None, :, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(cumulative > 0, shares * np.log(shares / reference), 0.0)
        skew = np.log(shares[:, -1, :] / reference)
    kl = terms.sum(axis=2)  # (rows, k): d_KL(D_i || reference)
    return {
        "max_skew": skew.max(axis=1),
        "min_skew": skew.min(axis=1),
        "ndkl": (kl * ndkl_weights(k)).sum(axis=1),  # not BLAS: the same sum in any block
        "counts": cumulative[:, -1, :].astype(np.int64),
    }


#: Top-k group-count vectors enumerated for the exact null, at most (else the null is drawn).
MAX_SUPPORT = 1_000_000
#: Partial count vectors held while enumerating, at most.
_MAX_PARTIAL = 20_000_000
#: Bytes of null draws made at once (a block of permutations x queries).
NULL_BYTES = 64 * 2**20


def top_k_count_support(pool_counts: np.ndarray, k: int) -> np.ndarray | None:
    """Every vector of top-k group counts a ranking of the pool can give: (m, |G|) ints
    with ``0 <= c_g <= pool_counts[g]`` summing to ``k``; ``None`` when there are more
    than :data:`MAX_SUPPORT` of them (enumerated group by group, never count by count)."""
    pool_counts = np.asarray(pool_counts, dtype=np.int64)
    n_groups = len(pool_counts)
    if math.comb(k + n_groups - 1, n_groups - 1) > MAX_SUPPORT:
        return None
    vectors = np.zeros((1, 0), dtype=np.int64)
    for g in range(n_groups):  # a loop over groups; each step extends every vector at once
        used = vectors.sum(axis=1)
        cap = int(min(pool_counts[g], k))
        if g == n_groups - 1:
            last = k - used
            keep = (last >= 0) & (last <= cap)
            vectors = np.column_stack([vectors[keep], last[keep]])
            break
        if len(vectors) * (cap + 1) > _MAX_PARTIAL:
            return None
        counts = np.arange(cap + 1, dtype=np.int64)
        extended = np.column_stack(
            [np.repeat(vectors, cap + 1, axis=0), np.tile(counts, len(vectors))]
        )
        vectors = extended[np.repeat(used, cap + 1) + np.tile(counts, len(vectors)) <= k]
    return vectors


def _log_hypergeometric(vectors: np.ndarray, pool_counts: np.ndarray, k: int) -> np.ndarray:
    """log P(top-k counts = vector) for a uniformly random ranking of the pool."""
    from scipy.special import gammaln

    def log_comb(n: Any, r: Any) -> Any:
        return gammaln(n + 1.0) - gammaln(r + 1.0) - gammaln(n - r + 1.0)

    pool = np.asarray(pool_counts, dtype=np.float64)
    terms = log_comb(pool[None, :], vectors.astype(np.float64)).sum(axis=1)
    return terms - log_comb(pool.sum(), float(k))


def max_skew_of_counts(counts: np.ndarray, k: int, shares: np.ndarray) -> np.ndarray:
    """MaxSkew@k of top-k group counts (..., |G|) against reference shares (|G|,)."""
    with np.errstate(divide="ignore"):
        return np.log(counts / float(k) / shares).max(axis=-1)


def random_ranking_null(
    pool_counts: Any,
    *,
    k: int,
    shares: Any,
    n_queries: int,
    n_perm: int,
    random_state: Any = None,
) -> tuple[np.ndarray, float]:
    """The mean MaxSkew@k over ``n_queries`` queries whose rankings are drawn uniformly at
    random from the pool, ``n_perm`` times; and its exact expectation (NaN when the
    top-k group counts are too many to enumerate).

    Under a random ranking the top ``k`` is a uniform ``k``-subset of the pool, so a
    query's top-k group counts follow the multivariate hypergeometric distribution
    and its MaxSkew@k depends only on them; queries are independent. When the counts
    can be enumerated (:func:`top_k_count_support`) a query's MaxSkew@k is drawn from
    that exact distribution, else its counts are drawn
    (``Generator.multivariate_hypergeometric``).

    Returns
    -------
    values : ndarray of shape (n_perm,)
    exact_mean : float
        ``E[MaxSkew@k]`` of one random ranking, the expectation of every value.
    """
    pool_counts = np.asarray(pool_counts, dtype=np.int64)
    shares = np.asarray(shares, dtype=np.float64)
    rng = checked_generator(random_state)
    support = top_k_count_support(pool_counts, k)
    step = max(1, NULL_BYTES // (8 * max(n_queries, 1) * (len(pool_counts) + 1)))
    values = np.empty(n_perm)
    if support is not None:
        probs = np.exp(_log_hypergeometric(support, pool_counts, k))
        skew = max_skew_of_counts(support, k, shares)
        exact = float((probs * skew).sum() / probs.sum())
        cdf = np.cumsum(probs)
        cdf /= cdf[-1]
        for start in range(0, n_perm, step):  # blocks of permutations, not of queries
            stop = min(n_perm, start + step)
            u = rng.random((stop - start, n_queries))
            index = np.minimum(np.searchsorted(cdf, u, side="right"), len(cdf) - 1)
            values[start:stop] = skew[index].mean(axis=1)
        return values, exact
    for start in range(0, n_perm, step):
        stop = min(n_perm, start + step)
        counts = rng.multivariate_hypergeometric(pool_counts, k, size=(stop - start, n_queries))
        values[start:stop] = max_skew_of_counts(counts, k, shares).mean(axis=1)
    return values, math.nan


def _bootstrap_means(
    columns: Sequence[np.ndarray], n_boot: int, random_state: Any
) -> list[np.ndarray]:
    """Means of each column over ``n_boot`` resamples of the queries (with replacement)."""
    rng = checked_generator(random_state)
    n = len(columns[0])
    out = [np.empty(n_boot) for _ in columns]
    step = max(1, BOOT_BYTES // (8 * n))
    for start in range(0, n_boot, step):  # blocks of replicates, not of queries
        stop = min(n_boot, start + step)
        draws = rng.integers(0, n, size=(stop - start, n))
        for values, target in zip(columns, out, strict=True):
            target[start:stop] = values[draws].mean(axis=1)
    return out


def _aligned_groups(groups: Any, items: pd.Index | None) -> Any:
    """``groups``, a Series matched to the items (the score frame's columns) when both are
    labelled."""
    if isinstance(groups, pd.Series) and items is not None:
        key_names(list(groups.index), arg="groups (its index)")
        missing = items.difference(groups.index)
        if len(missing):
            raise ValueError(ERR_GROUPS_ALIGN.format(missing=list(missing[:5])))
        return groups.reindex(items)
    return groups


def _reference_shares(reference: Any, names: list[Any], pool: np.ndarray) -> tuple[np.ndarray, str]:
    if isinstance(reference, str):
        if reference == "pool":
            if (pool == 0).any():
                missing = [g for g, s in zip(names, pool, strict=True) if s == 0]
                raise ValueError(ERR_GROUP_NAMES_POOL.format(missing=missing))
            return pool, "pool"
        if reference == "uniform":
            return np.full(len(names), 1.0 / len(names)), "uniform"
        raise ValueError(ERR_REFERENCE.format(got=reference))
    if not isinstance(reference, (Mapping, pd.Series)):
        raise ValueError(ERR_REFERENCE.format(got=reference))
    given = dict(reference.items())
    missing = [g for g in names if g not in given]
    if missing:
        raise ValueError(ERR_REFERENCE_MISSING.format(missing=missing))
    shares = []
    for g in names:
        v = given[g]
        ok = isinstance(v, (int, float, np.number)) and not isinstance(v, (bool, np.bool_))
        if not ok or not np.isfinite(float(v)) or float(v) <= 0:
            raise ValueError(ERR_REFERENCE_SHARE.format(group=g, got=v))
        shares.append(float(v))
    extra = [g for g in given if g not in names]
    for g in extra:  # a group of the reference with no item in the pool: Skew -inf
        v = given[g]
        ok = isinstance(v, (int, float, np.number)) and not isinstance(v, (bool, np.bool_))
        if not ok or not np.isfinite(float(v)) or float(v) <= 0:
            raise ValueError(ERR_REFERENCE_SHARE.format(group=g, got=v))
        names.append(g)
        shares.append(float(v))
    total = float(np.sum(shares))
    if abs(total - 1.0) > 1e-9:
        raise ValueError(ERR_REFERENCE_SUM.format(got=total))
    return np.asarray(shares, dtype=np.float64), "mapping"


def _check_k(k: Any, n_items: int) -> int:
    if isinstance(k, (bool, np.bool_)) or not isinstance(k, (int, np.integer)):
        raise ValueError(ERR_K.format(n_items=n_items, got=k))
    if not 1 <= int(k) <= n_items:
        raise ValueError(ERR_K.format(n_items=n_items, got=k))
    return int(k)


def _block_rows(n_items: int, k: int, n_groups: int, block_size: Any) -> int:
    if block_size is not None:
        if (
            isinstance(block_size, (bool, np.bool_))
            or not isinstance(block_size, (int, np.integer))
            or block_size < 1
        ):
            raise ValueError(ERR_BLOCK.format(got=block_size))
        return int(block_size)
    # per query: argpartition's int64 indices over the items, and the (k, |G|)
    # cumulative counts with their shares and KL terms; enough queries that a block's
    # fixed cost is small next to its work, as many as fit in the cache-sized budget
    per_query = _per_query_bytes(n_items, k, n_groups)
    rows = max(block_bytes() // per_query, -(-MIN_BLOCK_ITEMS // n_items))
    return max(1, min(rows, MAX_BLOCK_BYTES // per_query))


def _per_query_bytes(n_items: int, k: int, n_groups: int) -> int:
    return 8 * n_items + 28 * k * n_groups


def retrieval_bias(
    *,
    scores: Any = None,
    groups: Any,
    k: int,
    rankings: Any = None,
    reference: str | Mapping[Any, float] = "pool",
    group_names: Sequence[Any] | None = None,
    query_names: Sequence[Any] | None = None,
    n_boot: int | None = None,
    ci: float = 0.95,
    random_state: Any = None,
    block_size: int | None = None,
    n_perm: int = 0,
) -> RetrievalBiasResult:
    """Skew@k, MaxSkew@k, MinSkew@k and NDKL of ranked retrieval (Geyik et al., KDD 2019).

    Each query ranks the same pool of items; every item belongs to one group.
    Skew@k of a group is ``ln(p / r)``, its share ``p`` of the query's top ``k``
    against its reference share ``r``; MaxSkew@k and MinSkew@k are the largest and
    smallest over the groups. NDKL averages, over ranks ``i = 1 .. k`` with
    weights ``1 / log2(i + 1)``, the KL divergence of the group shares of the top
    ``i`` from the reference (natural log, ``0 ln 0 = 0``); it is 0 when every
    prefix of the ranking has the reference distribution.

    Parameters
    ----------
    scores : array-like or DataFrame of shape (n_queries, n_items)
        Relevance scores, higher first. Items with equal scores rank by item index,
        lowest first. A ``numpy.memmap`` is read in blocks of queries and never
        sorted as a whole. A DataFrame's index names the queries and its columns
        the items (a ``groups`` Series is then matched to the columns).
    groups : array-like of shape (n_items,) or Series
        The group of each item.
    k : int
        Length of the ranked list measured (1 .. n_items).
    rankings : array-like of int, shape (n_queries, >= k), optional
        Instead of ``scores``: each query's items in rank order (item indices into
        ``groups``); only the first ``k`` are read and must be distinct.
    reference : "pool", "uniform" or mapping group -> share, default "pool"
        The desired group distribution: the pool's shares (each group's share of
        the items), equal shares, or given shares (positive, summing to 1; a group
        of the mapping with no item is allowed and always has Skew@k ``-inf``; a
        :class:`MissingGroupWarning` names it, and ``result.missing_groups``).
    group_names : sequence, optional
        The groups, in the order of the result (default: sorted); with
        ``reference="uniform"`` a listed group with no item counts in the
        uniform share.
    query_names : sequence, optional
        A name per query (default: the DataFrame's index, or 0 .. n_queries - 1).
    n_boot : int, optional
        Bootstrap replicates over queries (queries drawn with replacement) for the
        intervals of the mean MaxSkew@k and the mean NDKL; ``None`` computes none.
    ci : float, default 0.95
        Level of the percentile intervals.
    random_state : None, int, numpy Generator or SeedSequence
        Seed of the bootstrap and of the random rankings of ``n_perm``.
    block_size : int, optional
        Queries read at once (default: as many as fit in a quarter of the last-level
        CPU cache, and at least 2**20 scores a block, within 64 MiB of working memory).
    n_perm : int, default 0
        Draws of the null against chance (0: no test): every query's ranking drawn
        uniformly at random from the same pool at the same ``k``. The result then
        has ``p_value`` (one-sided: a larger mean MaxSkew@k than random rankings
        give) and ``null``, whose ``mean`` is what a random ranking gives on
        average (exact when the top-k group counts can be enumerated).

    Returns
    -------
    RetrievalBiasResult
        ``value`` (mean MaxSkew@k), ``mean_ndkl``, ``mean_min_skew``,
        ``by_query`` (``max_skew``, ``min_skew``, ``ndkl``, ``count_<group>``),
        ``pool_shares``, ``reference_shares``; with ``n_boot``, ``ci``, ``se``,
        ``replicates``, ``ndkl_ci``, ``ndkl_se``, ``ndkl_replicates``.

    Raises
    ------
    ValueError
        On NaN scores, rankings outside the pool or with a repeated item in the top
        ``k``, an item without a group, ``k`` out of range, or a reference share
        that is not positive.

    Examples
    --------
    Two queries over six items, three of each group (pool shares 1/2). The first
    ranks two women first: Skew@2 is ln(1 / 0.5) for "w" and -inf for "m", and both
    prefixes have KL ln 2, so NDKL = ln 2. The second alternates: Skew@2 is 0 for
    both, and only the first prefix diverges: NDKL = ln 2 / (1 + 1/log2 3) = 0.4250.

    >>> import numpy as np
    >>> from biasamp import retrieval_bias
    >>> groups = ["w", "w", "w", "m", "m", "m"]
    >>> scores = np.array([[6, 5, 4, 3, 2, 1], [6, 1, 2, 5, 3, 4]])
    >>> result = retrieval_bias(scores=scores, groups=groups, k=2)
    >>> result.by_query.round(4)  # doctest: +NORMALIZE_WHITESPACE
           max_skew  min_skew    ndkl  count_m  count_w
    query
    0        0.6931      -inf  0.6931        0        2
    1        0.0000       0.0  0.4250        1        1
    >>> round(result.value, 4)
    0.3466
    """
    if (scores is None) == (rankings is None):
        raise TypeError(ERR_INPUT)
    read = None if scores is None else read_scores(scores, arg="scores", scan=False, allow_inf=True)
    items = None if read is None else read.columns
    labels = read_labels(_aligned_groups(groups, items), arg="groups", names=group_names)
    n_items = len(labels)
    names, codes = list(labels.names), labels.codes
    if isinstance(reference, (Mapping, pd.Series)):
        key_names(list(reference.keys()), arg="reference")
    if group_names is None and isinstance(reference, (Mapping, pd.Series)):
        extra = [g for g in reference.keys() if g not in names]  # groups with no item
        if extra:
            try:
                every = sorted([*names, *extra])
            except TypeError:
                every = [*names, *extra]
            position = {g: i for i, g in enumerate(every)}
            codes = np.asarray([position[g] for g in names], dtype=np.int64)[codes]
            names = every
    codes = np.asarray(codes, dtype=np.int64).reshape(-1)
    pool = np.bincount(codes, minlength=len(names)) / n_items
    shares, kind = _reference_shares(reference, names, pool)
    pool = np.concatenate([pool, np.zeros(len(names) - len(pool))])
    k = _check_k(k, n_items)
    n_perm = check_n_perm(n_perm)
    if n_perm:
        checked_generator(random_state)  # refuse a bad seed before the work
    if n_boot is not None:
        n_boot = check_knob(
            "n_boot",
            n_boot,
            bytes_each=BYTES_PER_REPLICATE,
            fixed_bytes=BOOT_BYTES,
            what="bootstrap replicates (two values each, sorted for the intervals)",
            advice="use fewer replicates (n_boot).",
        )
        level = check_ci(ci)
        checked_generator(random_state)  # refuse a bad seed before the work
    if read is not None:
        matrix = read.values
        if matrix.shape[1] != n_items:
            raise ValueError(ERR_GROUPS_LENGTH.format(n_items=matrix.shape[1], got=n_items))
        n_queries = matrix.shape[0]
    else:
        matrix = np.asarray(rankings)
        if matrix.ndim != 2:
            raise ValueError(ERR_RANKINGS_SHAPE.format(shape=matrix.shape))
        if matrix.dtype.kind not in "iu":
            raise ValueError(ERR_RANKINGS_DTYPE.format(dtype=matrix.dtype))
        if matrix.shape[1] < k:
            raise ValueError(ERR_RANKINGS_SHORT.format(width=matrix.shape[1], k=k))
        n_queries = matrix.shape[0]
    if query_names is not None:
        query_index = pd.Index(list(query_names), name="query")
    elif read is not None and read.rows is not None:
        query_index = pd.Index(read.rows, name="query")
    else:
        query_index = pd.RangeIndex(n_queries, name="query")
    if len(query_index) != n_queries:
        raise ValueError(ERR_QUERY_NAMES.format(n=n_queries, got=len(query_index)))
    if query_names is not None:
        key_names(list(query_index), arg="query_names")
    rows = _block_rows(n_items, k, len(names), block_size)
    check_allocation(
        float(rows) * _per_query_bytes(n_items, k, len(names)) + 8.0 * n_queries * (len(names) + 3),
        what=f"retrieval_bias on blocks of {rows} queries x {n_items} items",
        advice="pass a smaller block_size.",
    )
    max_skew = np.empty(n_queries)
    min_skew = np.empty(n_queries)
    ndkl = np.empty(n_queries)
    counts = np.empty((n_queries, len(names)), dtype=np.int64)
    for start in range(0, n_queries, rows):
        stop = min(n_queries, start + rows)
        if read is not None:
            block = np.asarray(matrix[start:stop])
            top = top_k_items(block, k)
            if first_nan(block, top) is not None:  # NaN ranks first: no pass over the block
                check_score_block(  # refuses it, naming the first query and item
                    read, block, start=start, arg="scores", allow_inf=True, row_names=query_index
                )
            del block
        else:
            top = _checked_rankings(matrix[start:stop, :k], n_items, k, start)
        stats = retrieval_statistics(top, codes, shares)
        max_skew[start:stop] = stats["max_skew"]
        min_skew[start:stop] = stats["min_skew"]
        ndkl[start:stop] = stats["ndkl"]
        counts[start:stop] = stats["counts"]
    frame = pd.DataFrame(
        {"max_skew": max_skew, "min_skew": min_skew, "ndkl": ndkl}, index=query_index
    )
    for j, g in enumerate(names):
        frame[COUNT_PREFIX + str(g)] = counts[:, j]
    group_index = pd.Index(names, name="group")
    params: dict[str, Any] = {
        "k": k,
        "reference": kind,
        "input": "scores" if read is not None else "rankings",
        "ties": "item index",
        "n_boot": n_boot,
    }
    result = RetrievalBiasResult(
        metric="retrieval_bias",
        value=float(max_skew.mean()) if n_queries else float("nan"),
        k=k,
        by_query=frame,
        mean_ndkl=float(ndkl.mean()) if n_queries else float("nan"),
        mean_min_skew=float(min_skew.mean()) if n_queries else float("nan"),
        pool_shares=pd.Series(pool, index=group_index, name="pool_share"),
        reference_shares=pd.Series(shares, index=group_index, name="reference_share"),
        reference=kind,
        n=int(n_queries),
        n_items=int(n_items),
        params=params,
    )
    absent = (pool <= 0) & (shares > 0)
    if absent.any():  # a group of the reference with no item: its Skew@k is always -inf
        result.missing_groups = {"pool": tuple(group_index[absent])}
        warnings.warn(
            missing_groups_message(
                result.missing_groups["pool"],
                split="the pool of ranked items",
                reference="the reference distribution",
                then="Their Skew@k is -inf in every query; see result.missing_groups.",
            ),
            MissingGroupWarning,
            stacklevel=2,
        )
    if n_boot is not None and n_queries:
        if isinstance(random_state, (int, np.integer)):
            params["random_state"] = int(random_state)
        value_reps, ndkl_reps = _bootstrap_means([max_skew, ndkl], n_boot, random_state)
        low, high, se = interval_from_replicates(value_reps, ci=level)
        result.ci, result.ci_level, result.se, result.replicates = (
            (low, high),
            level,
            se,
            value_reps,
        )
        low, high, se = interval_from_replicates(ndkl_reps, ci=level)
        result.ndkl_ci, result.ndkl_se, result.ndkl_replicates = (low, high), se, ndkl_reps
    if n_perm and n_queries:
        _random_ranking_test(result, codes, shares, n_perm=n_perm, random_state=random_state)
    return result


def _random_ranking_test(
    result: RetrievalBiasResult,
    codes: np.ndarray,
    shares: np.ndarray,
    *,
    n_perm: int,
    random_state: Any,
) -> None:
    """Fill ``p_value`` and ``null`` of a retrieval result from random rankings."""
    n_groups = len(shares)
    check_allocation(
        24.0 * float(n_perm) + min(8.0 * float(n_perm) * result.n * (n_groups + 1), NULL_BYTES),
        what=f"n_perm={n_perm} random rankings of {result.n} queries",
        advice="use fewer draws (n_perm=999 resolves p-values to 0.001).",
    )
    pool_counts = np.bincount(codes, minlength=n_groups)
    values, exact = random_ranking_null(
        pool_counts,
        k=result.k,
        shares=shares,
        n_queries=result.n,
        n_perm=n_perm,
        random_state=random_state,
    )
    null = null_distribution(values, method="random-ranking", alternative="greater")
    if math.isfinite(exact):
        null = dataclasses.replace(null, mean=exact)
    result.p_value = permutation_p_value(result.value, values, alternative="greater")
    result.null = null
    result.params["significance"] = {
        "null": "random-ranking",
        "n_perm": n_perm,
        "alternative": "greater",
        "exact_mean": math.isfinite(exact),
    }


def _checked_rankings(block: Any, n_items: int, k: int, start: int) -> np.ndarray:
    top = np.asarray(block, dtype=np.int64)
    outside = (top < 0) | (top >= n_items)
    if outside.any():
        row, col = (int(v[0]) for v in np.nonzero(outside))
        raise ValueError(
            ERR_RANKINGS_RANGE.format(
                row=start + row, got=int(top[row, col]), n_items=n_items, last=n_items - 1
            )
        )
    ordered = np.sort(top, axis=1)
    repeated = ordered[:, 1:] == ordered[:, :-1]
    if repeated.any():
        row, col = (int(v[0]) for v in np.nonzero(repeated))
        raise ValueError(
            ERR_RANKINGS_REPEAT.format(row=start + row, item=int(ordered[row, col]), k=k)
        )
    return top
