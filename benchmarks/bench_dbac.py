"""DBAC at scale: ``biasamp.text.dbac_both`` on N caption pairs (default 100,000).

The pairs are real captions: every (human caption, model caption) pair of the
1,234 COCO 2014 images (val and test halves) that have both five human captions
and the six models' captions (37,020 distinct pairs), cycled to N rows, with the
image's gender as the group. One human caption per row.

Timed (wall clock, best of ``--repeat`` runs):

* ``preparation``: ``dbac_both`` with one split and a constant attacker
  (scikit-learn's ``DummyClassifier``), i.e. checks, masking of both sides, the
  two-way vocabulary alignment and the object priors;
* ``two attacker fits``: the default attacker fitted once on each side's 80%;
* ``dbac_both, n_iter=K``: both directions with the default attacker (TF-IDF of
  words and word pairs + logistic regression), K splits of 80/20.

Peak resident memory of the process is printed at the end (``ru_maxrss``).

Usage: python benchmarks/bench_dbac.py [--pairs N] [--n-iter K] [--repeat R]
"""

from __future__ import annotations

import argparse
import resource
import time

import numpy as np
import pandas as pd

from biasamp.datasets import load_coco_captions, load_coco_gender, load_coco_human_captions
from biasamp.text import dbac_both
from biasamp.text._lic import _default_attacker

MODELS = ("baseline_ft", "equalizer", "confident", "upweight", "balanced", "confusion")


def real_pairs(n: int) -> pd.DataFrame:
    frames = []
    for split in ("val", "test"):
        data = load_coco_human_captions(split).merge(load_coco_captions(split), on="image_id")
        data = data.merge(load_coco_gender(split)[["image_id", "gender"]], on="image_id")
        for j in range(1, 6):
            for model in MODELS:
                frames.append(
                    pd.DataFrame(
                        {
                            "human": data[f"human_{j}"],
                            "model": data[model],
                            "gender": data["gender"],
                        }
                    )  # fmt: skip
                )
    pool = pd.concat(frames, ignore_index=True)
    return pool.iloc[np.arange(n) % len(pool)].reset_index(drop=True)


def best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=100_000)
    parser.add_argument("--n-iter", type=int, default=5)
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    data = real_pairs(args.pairs)
    human, model, groups = data["human"].tolist(), data["model"].tolist(), data["gender"]
    print(f"{len(data):,} caption pairs ({data['gender'].value_counts().to_dict()})")

    def run(n_iter: int) -> dict:
        return dbac_both(captions_human=human, captions_model=model, groups=groups,
                         n_iter=n_iter, random_state=0)  # fmt: skip

    from sklearn.dummy import DummyClassifier

    prep = best(
        lambda: dbac_both(captions_human=human, captions_model=model, groups=groups, n_iter=1,
                          random_state=0, attacker=DummyClassifier()),
        args.repeat,
    )  # fmt: skip
    train = np.arange(int(0.8 * len(data)))

    def fits() -> None:
        for texts in (human, model):
            _default_attacker().fit([texts[i] for i in train], groups.to_numpy()[train])

    fit_time = best(fits, args.repeat)
    print(f"preparation (masking, alignment, priors): {prep:.1f} s")
    print(f"two attacker fits on {len(train):,} captions: {fit_time:.1f} s")
    results: dict = {}

    def full() -> None:
        results.update(run(args.n_iter))

    total = best(full, args.repeat)
    print(f"dbac_both, n_iter={args.n_iter} (both directions): {total:.1f} s")
    for direction, result in results.items():
        print(f"  DBAC {direction} = {result.value:+.4f}  CI {result.ci}")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak resident memory: {peak:.0f} MB")


if __name__ == "__main__":
    main()
