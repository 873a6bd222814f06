"""LIC and DBAC against a plain scikit-learn pipeline fitted on the same splits.

The data: ``--pairs`` real (human caption, model caption) pairs of the bundled COCO
captions with the image's gender (``bench_dbac.real_pairs``; one human caption per
row). The baseline is what an expert writes for the attacker part of these
metrics: the captions masked once (outside the clock: the baseline gets that
for free), then for every split and both sides a fresh
``make_pipeline(TfidfVectorizer(token_pattern=r"\\S+", ngram_range=(1, 2),
sublinear_tf=True), LogisticRegression(C=1.0, max_iter=1000))`` fitted on the
training captions and asked for ``predict_proba`` on the held-out ones: the same
splits (the metrics' own split functions and seeds), the same attacker.

Timed in one process, alternating, ``--repeat`` times each (median reported, with the
median of the per-pair ratios): ``biasamp.lic`` (whole call: checks, masking,
vocabulary alignment, attackers) against the baseline of its splits, and
``biasamp.text.dbac_both`` (both directions: also the object priors) against the
baseline of its splits. CPU seconds are the process's (every thread).

``--gallery``: instead, the captioning gallery example (``examples/12``, ``main()`` with
its defaults, figures written to a temporary folder), timed in a fresh process after its
imports, ``--repeat`` times.

Usage: python benchmarks/bench_caption_attackers.py [--pairs 20000] [--n-iter 5] [--repeat 3]
       python benchmarks/bench_caption_attackers.py --gallery [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import numpy as np
from bench_dbac import real_pairs

from biasamp import lic
from biasamp.text import LIC_GENDER_WORDS, dbac_both
from biasamp.text._lic import _default_attacker, _split, _stratified, mask_words_in


def pipeline_baseline(
    texts: list[np.ndarray],
    codes: np.ndarray,
    n_iter: int,
    splitter,
    random_state: int,
    one_thread: bool = False,
) -> None:
    """One fresh default pipeline per split and side, on the metric's own splits
    (``one_thread``: BLAS limited to one thread, as ``threadpoolctl`` does it)."""
    if one_thread:
        from threadpoolctl import threadpool_limits

        with threadpool_limits(limits=1, user_api="blas"):
            pipeline_baseline(texts, codes, n_iter, splitter, random_state)
        return
    from sklearn.base import clone

    seeds = np.random.SeedSequence(random_state).spawn(n_iter)
    for seq in seeds:
        rng = np.random.default_rng(seq)
        train, test = splitter(codes, rng)
        seed = int(rng.integers(2**31 - 1))
        for side in texts:
            model = clone(_default_attacker()).set_params(logisticregression__random_state=seed)
            model.fit(list(side[train]), codes[train])
            model.predict_proba(list(side[test]))


GALLERY = r"""
import runpy, sys, tempfile, time
sys.path.insert(0, sys.argv[1])
module = runpy.run_path(sys.argv[1] + "/12_captioning_models.py", run_name="gallery")
import biasamp.text, sklearn.linear_model, matplotlib.pyplot  # imported before the clock
wall, cpu = time.perf_counter(), time.process_time()
module["main"](output_dir=tempfile.mkdtemp())
print(f"{time.perf_counter() - wall:.2f} {time.process_time() - cpu:.2f}")
"""


def gallery(repeat: int) -> None:
    import subprocess
    import sys
    from pathlib import Path

    examples = str(Path(__file__).resolve().parents[1] / "examples")
    print(f"examples/12_captioning_models.py main(); load average: {os.getloadavg()[0]:.1f}")
    for rep in range(repeat):
        out = subprocess.run(
            [sys.executable, "-c", GALLERY, examples], check=True, capture_output=True, text=True
        )
        wall, cpu = out.stdout.split()[-2:]
        print(f"  {rep} wall {wall} s  cpu {cpu} s", flush=True)
    print(f"load average after: {os.getloadavg()[0]:.1f}")


def timed(fn) -> tuple[float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - wall, time.process_time() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=20_000)
    parser.add_argument("--n-iter", type=int, default=5)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--gallery", action="store_true", help="time examples/12 instead")
    args = parser.parse_args()
    if args.gallery:
        gallery(args.repeat)
        return
    pairs = real_pairs(args.pairs)
    groups = pairs["gender"].to_numpy()
    codes = np.unique(groups.astype(str), return_inverse=True)[1]
    words = [w for ws in LIC_GENDER_WORDS.values() for w in ws]
    masked = [
        np.array(mask_words_in(list(pairs[c]), words), dtype=object) for c in ("human", "model")
    ]
    print(
        f"{args.pairs:,} caption pairs, n_iter={args.n_iter}; {os.cpu_count()} cores; "
        f"load average before: {os.getloadavg()[0]:.1f}"
    )
    runs = {
        "lic": lambda: lic(
            captions_human=pairs["human"],
            captions_model=pairs["model"],
            groups=groups,
            n_iter=args.n_iter,
            random_state=0,
        ),  # fmt: skip
        "lic baseline": lambda: pipeline_baseline(
            masked, codes, args.n_iter, lambda c, rng: _split(c, 2, 0.1, rng), 0
        ),
        "lic baseline 1t": lambda: pipeline_baseline(
            masked, codes, args.n_iter, lambda c, rng: _split(c, 2, 0.1, rng), 0, True
        ),
        "dbac_both": lambda: dbac_both(
            captions_human=pairs["human"],
            captions_model=pairs["model"],
            groups=groups,
            n_iter=args.n_iter,
            random_state=0,
        ),  # fmt: skip
        "dbac baseline": lambda: pipeline_baseline(
            masked, codes, args.n_iter, lambda c, rng: _stratified(c, 0.2, rng), 0
        ),
        "dbac baseline 1t": lambda: pipeline_baseline(
            masked, codes, args.n_iter, lambda c, rng: _stratified(c, 0.2, rng), 0, True
        ),
    }
    _default_attacker().fit(["a b", "b c"], [0, 1])  # scikit-learn imported before the clock
    times: dict[str, list[tuple[float, float]]] = {k: [] for k in runs}
    for rep in range(args.repeat):
        for name, fn in runs.items():
            times[name].append(timed(fn))
            wall, cpu = times[name][-1]
            print(f"  {rep} {name:14s} wall {wall:6.2f} s  cpu {cpu:6.2f} s", flush=True)
    print(f"load average after: {os.getloadavg()[0]:.1f}")
    print("| call | wall s (median) | CPU s (median) | wall / baseline | CPU / baseline |")
    print("|---|---:|---:|---:|---:|")
    for name in ("lic", "dbac_both"):
        base = times[f"{name.split('_')[0]} baseline"]
        one = times[f"{name.split('_')[0]} baseline 1t"]
        for label, rows in (
            (name, times[name]),
            ("  its baseline", base),
            ("  its baseline, one BLAS thread", one),
        ):
            ratio = [a[0] / b[0] for a, b in zip(rows, base, strict=True)]
            ratio_cpu = [a[1] / b[1] for a, b in zip(rows, base, strict=True)]
            print(
                f"| {label} | {statistics.median(w for w, _ in rows):.2f} | "
                f"{statistics.median(c for _, c in rows):.2f} | {statistics.median(ratio):.2f} | "
                f"{statistics.median(ratio_cpu):.2f} |"
            )


if __name__ == "__main__":
    main()
