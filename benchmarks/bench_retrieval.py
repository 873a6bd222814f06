"""retrieval_bias on memory-mapped scores against the straightforward expert implementation.

Run: ``python benchmarks/bench_retrieval.py [--queries 1000] [--items 1000000] [--k 100]
[--folder /tmp] [--baseline-queries N]``. Prints one markdown table.

Workload: ``queries x items`` float32 scores in a ``numpy.memmap`` file (4 GB at the
defaults, written once and kept in ``--folder``), four groups of items (shares 0.4,
0.3, 0.2, 0.1), ``k = 100``.

* **biasamp**: ``biasamp.retrieval_bias(scores=memmap, groups=..., k=100)``: blocks of
  queries, ``np.argpartition`` per block, only the top ``k`` sorted.
* **expert baseline**: one ``np.argsort(-row, kind="stable")`` per query (the same
  tie rule), then the same statistics with numpy for that query. A full
  ``np.argsort`` of the matrix would need 8 GB of int64 indices alone.

Memory beyond the scores: numpy's peak allocation seen by ``tracemalloc`` during the
call, and the peak of the process's anonymous resident memory (``RssAnon`` of
``/proc/self/status``, sampled every 5 ms by a thread) above its level before the
call. The memory-mapped scores are file-backed pages (``RssFile``) and count in
neither. The page cache is warm (the file was just written or read), so the
times are those of reading 4 GB from memory, not from disk.

The two give the same values (asserted on every query the baseline ran).
"""

from __future__ import annotations

import argparse
import os
import threading
import time
import tracemalloc
from pathlib import Path
from typing import Any

import numpy as np

import biasamp


def rss_kib(field: str) -> int:
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


class PeakSampler:
    """The peak of ``RssAnon`` (KiB) while the block runs, sampled by a thread."""

    def __enter__(self) -> PeakSampler:
        self.before = rss_kib("RssAnon")
        self.peak = self.before
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        return self

    def _run(self) -> None:
        while not self._stop.is_set():
            self.peak = max(self.peak, rss_kib("RssAnon"))
            time.sleep(0.005)

    def __exit__(self, *exc: Any) -> None:
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, rss_kib("RssAnon"))

    @property
    def above(self) -> float:
        return (self.peak - self.before) / 1024  # MiB


def scores_file(folder: Path, queries: int, items: int) -> np.memmap:
    path = folder / f"retrieval-scores-{queries}x{items}.f32"
    if not path.exists() or path.stat().st_size != queries * items * 4:
        out = np.memmap(path, dtype=np.float32, mode="w+", shape=(queries, items))
        rng = np.random.default_rng(0)
        for start in range(0, queries, 50):
            stop = min(queries, start + 50)
            out[start:stop] = rng.random((stop - start, items), dtype=np.float32)
        out.flush()
        del out
    return np.memmap(path, dtype=np.float32, mode="r", shape=(queries, items))


def expert(scores: np.ndarray, codes: np.ndarray, k: int, shares: np.ndarray, queries: int):
    """One stable argsort per query, then Skew@k and NDKL of that query with numpy."""
    weights = 1.0 / np.log2(np.arange(2, k + 2))
    weights /= weights.sum()
    out = np.empty((queries, 3))
    for q in range(queries):
        top = np.argsort(-scores[q], kind="stable")[:k]
        onehot = codes[top][:, None] == np.arange(len(shares))[None, :]
        cumulative = np.cumsum(onehot, axis=0)
        share = cumulative / np.arange(1, k + 1)[:, None]
        with np.errstate(divide="ignore", invalid="ignore"):
            kl = np.where(cumulative > 0, share * np.log(share / shares), 0.0).sum(axis=1)
            skew = np.log(share[-1] / shares)
        out[q] = skew.max(), skew.min(), (kl * weights).sum()
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--queries", type=int, default=1000)
    parser.add_argument("--items", type=int, default=1_000_000)
    parser.add_argument("--k", type=int, default=100)
    parser.add_argument("--folder", type=Path, default=Path("/tmp"))
    parser.add_argument(
        "--baseline-queries", type=int, default=None, help="queries the baseline runs"
    )
    args = parser.parse_args()
    scores = scores_file(args.folder, args.queries, args.items)
    groups = np.repeat(np.array(["a", "b", "c", "d"]), [4, 3, 2, 1])
    groups = np.tile(groups, args.items // 10 + 1)[: args.items]
    codes = np.unique(groups, return_inverse=True)[1]
    shares = np.bincount(codes) / args.items
    for start in range(0, args.queries, 100):  # warm the page cache for both
        np.asarray(scores[start : start + 100]).sum()

    seconds, traced, anon, result = measure(
        lambda: biasamp.retrieval_bias(scores=scores, groups=groups, k=args.k)
    )
    n_base = args.baseline_queries or args.queries
    b_seconds, b_traced, b_anon, base = measure(
        lambda: expert(scores, codes, args.k, shares, n_base)
    )
    frame = result.by_query.iloc[:n_base]
    assert np.array_equal(frame["max_skew"].to_numpy(), base[:, 0])
    assert np.array_equal(frame["min_skew"].to_numpy(), base[:, 1])
    assert np.allclose(frame["ndkl"].to_numpy(), base[:, 2], rtol=0, atol=1e-12)
    scale = args.queries / n_base
    size = (
        f"{args.queries:,} x {args.items:,} float32 ({scores.nbytes / 2**30:.1f} GiB), k={args.k}"
    )
    print(
        "| implementation | time (s) | numpy peak, tracemalloc (MiB) | RssAnon peak above start (MiB) |"
    )
    print("|---|---|---|---|")
    print(f"| biasamp.retrieval_bias ({size}) | {seconds:.1f} | {traced:.0f} | {anon:.0f} |")
    note = "" if n_base == args.queries else f" (run on {n_base} queries, x{scale:g})"
    print(
        f"| np.argsort per query{note} | {b_seconds * scale:.1f} | {b_traced:.0f} | {b_anon:.0f} |"
    )
    print(f"\nspeed-up {b_seconds * scale / seconds:.1f}x; load average {os.getloadavg()[0]:.1f}")
    print(f"mean MaxSkew@{args.k} = {result.value:.6f}, mean NDKL = {result.mean_ndkl:.6f}")


if __name__ == "__main__":
    main()
