"""retrieval_bias against the blocked argpartition baseline: time and memory, interleaved.

Run: ``python benchmarks/bench_retrieval_blocks.py [--queries 20000] [--items 50000]
[--k 100] [--memmap FOLDER] [--repeat 3] [--baseline-block 256]``. Prints one markdown
table (medians of ``--repeat`` runs of each, run in turn: biasamp, baseline, biasamp,
...), the median of the per-round time ratios, and the load average.

Workload: ``queries x items`` float32 scores (``rng.random``), in memory, or in a
``numpy.memmap`` file in ``--memmap`` (written once and kept; the page cache is warmed
before the runs), four groups of items (shares 0.4, 0.3, 0.2, 0.1), ``k = 100``.

* **biasamp**: ``biasamp.retrieval_bias(scores=..., groups=..., k=...)`` with its
  default blocks.
* **expert baseline**: what one writes with numpy for the same three statistics
  (MaxSkew@k, MinSkew@k, NDKL per query): blocks of ``--baseline-block`` queries,
  ``np.argpartition`` per block, the ``k`` kept items sorted by score (ties by item
  index, ``np.lexsort``), group counts of every prefix by a one-hot cumulative sum,
  then the formulas. No validation, no NaN check, no exact handling of a tie cut by
  the top ``k`` (biasamp keeps the tied items of lowest index).

Memory beyond the scores: numpy's peak allocation during the call (``tracemalloc``)
and the peak of the process's anonymous resident memory (``RssAnon`` of
``/proc/self/status``, sampled every 5 ms) above its level before the call; the scores
themselves (in memory or mapped) count in neither.

Values: MaxSkew@k and MinSkew@k asserted equal on every query, NDKL to 1e-12, except on
the queries where a tie straddles the ``k``-th score (counted and printed: there the
baseline's top ``k`` is not the stable order's).
"""

from __future__ import annotations

import argparse
import os
import time
import tracemalloc
from pathlib import Path
from typing import Any

import numpy as np
from bench_retrieval import PeakSampler  # type: ignore[import-not-found]

import biasamp


def expert(scores: Any, codes: np.ndarray, k: int, shares: np.ndarray, block: int) -> np.ndarray:
    """(queries, 3): MaxSkew@k, MinSkew@k and NDKL, argpartition in blocks of queries."""
    n_queries, n_items = scores.shape
    n_groups = len(shares)
    weights = 1.0 / np.log2(np.arange(2, k + 2))
    weights /= weights.sum()
    out = np.empty((n_queries, 3))
    for start in range(0, n_queries, block):
        rows = np.asarray(scores[start : start + block])
        top = np.argpartition(rows, n_items - k, axis=1)[:, n_items - k :]
        values = np.take_along_axis(rows, top, axis=1)
        order = np.lexsort((top, -values), axis=1)  # by score, then item index
        top = np.take_along_axis(top, order, axis=1)
        onehot = codes[top][:, :, None] == np.arange(n_groups)
        cumulative = np.cumsum(onehot, axis=1)
        share = cumulative / np.arange(1, k + 1)[None, :, None]
        with np.errstate(divide="ignore", invalid="ignore"):
            kl = np.where(cumulative > 0, share * np.log(share / shares), 0.0).sum(axis=2)
            skew = np.log(share[:, -1, :] / shares)
        out[start : start + len(rows)] = np.column_stack(
            [skew.max(axis=1), skew.min(axis=1), kl @ weights]
        )
    return out


def measure(fn: Any) -> tuple[float, float, float, Any]:
    tracemalloc.start()
    with PeakSampler() as sampler:
        start = time.perf_counter()
        value = fn()
        seconds = time.perf_counter() - start
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return seconds, peak / 2**20, sampler.above, value


def make_scores(queries: int, items: int, folder: Path | None) -> Any:
    rng = np.random.default_rng(0)
    if folder is None:
        out = np.empty((queries, items), dtype=np.float32)
        for start in range(0, queries, 100):
            out[start : start + 100] = rng.random((min(100, queries - start), items), np.float32)
        return out
    path = folder / f"retrieval-blocks-{queries}x{items}.f32"
    if not path.exists() or path.stat().st_size != queries * items * 4:
        mapped = np.memmap(path, dtype=np.float32, mode="w+", shape=(queries, items))
        for start in range(0, queries, 100):
            stop = min(queries, start + 100)
            mapped[start:stop] = rng.random((stop - start, items), dtype=np.float32)
        mapped.flush()
        del mapped
    scores = np.memmap(path, dtype=np.float32, mode="r", shape=(queries, items))
    for start in range(0, queries, 100):  # warm the page cache
        np.asarray(scores[start : start + 100]).sum()
    return scores


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--queries", type=int, default=20_000)
    parser.add_argument("--items", type=int, default=50_000)
    parser.add_argument("--k", type=int, default=100)
    parser.add_argument("--memmap", type=Path, default=None, help="folder of the mapped file")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--baseline-block", type=int, default=256, help="queries per block")
    args = parser.parse_args()
    scores = make_scores(args.queries, args.items, args.memmap)
    groups = np.repeat(np.array(["a", "b", "c", "d"]), [4, 3, 2, 1])
    groups = np.tile(groups, args.items // 10 + 1)[: args.items]
    codes = np.unique(groups, return_inverse=True)[1]
    shares = np.bincount(codes) / args.items

    def ours() -> Any:
        return biasamp.retrieval_bias(scores=scores, groups=groups, k=args.k)

    def base() -> Any:
        return expert(scores, codes, args.k, shares, args.baseline_block)

    runs: dict[str, list[tuple[float, float, float]]] = {"ours": [], "base": []}
    result = baseline = None
    for _ in range(args.repeat):
        seconds, traced, anon, result = measure(ours)
        runs["ours"].append((seconds, traced, anon))
        seconds, traced, anon, baseline = measure(base)
        runs["base"].append((seconds, traced, anon))
    assert result is not None and baseline is not None
    frame = result.by_query
    same = (frame["max_skew"].to_numpy() == baseline[:, 0]) & (
        frame["min_skew"].to_numpy() == baseline[:, 1]
    )
    same &= np.isclose(frame["ndkl"].to_numpy(), baseline[:, 2], rtol=0, atol=1e-12)
    straddled = int((~same).sum())
    assert straddled <= max(1, args.queries // 1000), straddled
    ours_runs, base_runs = np.array(runs["ours"]), np.array(runs["base"])
    ratio = float(np.median(ours_runs[:, 0] / base_runs[:, 0]))
    where = "memory-mapped" if args.memmap is not None else "in memory"
    print(
        f"{args.queries:,} x {args.items:,} float32 scores {where} "
        f"({scores.nbytes / 2**30:.2f} GiB), k={args.k}, median of {args.repeat} runs each, "
        f"in turn\n"
    )
    print(
        "| implementation | time (s) | numpy peak, tracemalloc (MiB) | RssAnon peak above start (MiB) |"
    )
    print("|---|---:|---:|---:|")
    for name, arr in (
        ("`biasamp.retrieval_bias` (default blocks)", ours_runs),
        (f"argpartition baseline (blocks of {args.baseline_block} queries)", base_runs),
    ):
        med = np.median(arr, axis=0)
        print(f"| {name} | {med[0]:.2f} | {med[1]:.0f} | {med[2]:.0f} |")
    traced_ratio = float(np.median(ours_runs[:, 1]) / np.median(base_runs[:, 1]))
    print(
        f"\ntime ratio (median of the rounds' ratios) {ratio:.3f}x; numpy peak ratio "
        f"{traced_ratio:.2f}x; queries whose top k cuts a tie (values differ there) "
        f"{straddled}; load average {os.getloadavg()[0]:.1f}"
    )


if __name__ == "__main__":
    main()
