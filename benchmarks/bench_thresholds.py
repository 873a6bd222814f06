"""Speed of ``threshold_sweep`` against evaluating the metric once per threshold.

Run: ``python benchmarks/bench_thresholds.py``. Prints a markdown table.

Workload: COCO test split (5,473 x 79, real labels; training side = the bundled val
split) with synthetic scores: a gender score (1-D, "man") and a score per object.
101 thresholds in [0, 1]. The vectorised sweep bins every score once against the
sorted grid and evaluates the metric core on a count table with a threshold axis;
the naive way thresholds the scores and calls the metric once per threshold (the
same values, asserted here).
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd

import biasamp
from biasamp.datasets import load_coco_gender

GRID = np.linspace(0, 1, 101)


def workload(seed: int = 0) -> dict:
    val, test = load_coco_gender("val"), load_coco_gender("test")
    objects = [c for c in val.columns if c not in ("image_id", "gender")]
    rng = np.random.default_rng(seed)
    logit = 1.5 * np.where(test["gender"] == "man", 1, -1) + 0.5 + rng.normal(0, 1.5, len(test))
    man_score = 1 / (1 + np.exp(-logit))
    truth = test[objects].to_numpy()
    object_scores = pd.DataFrame(
        np.clip(truth * 0.6 + rng.random(truth.shape) * 0.5, 0, 1), columns=objects
    )
    return dict(
        val=val, test=test, objects=objects, man_score=man_score, object_scores=object_scores
    )


def timed(function, **kwargs):
    start = time.perf_counter()
    out = function(**kwargs)
    return out, time.perf_counter() - start


def main() -> None:
    d = workload()
    cases = {
        "mals, gender threshold swept": (
            biasamp.mals,
            dict(
                groups_scores=d["man_score"],
                positive_group="man",
                groups_train=d["val"]["gender"],
                tasks_train=d["val"][d["objects"]],
                tasks_pred=d["test"][d["objects"]],
            ),
        ),
        "directional A->T, object thresholds swept": (
            biasamp.directional,
            dict(
                direction="A->T",
                groups=d["test"]["gender"],
                tasks=d["test"][d["objects"]],
                tasks_scores=d["object_scores"],
                groups_train=d["val"]["gender"],
                tasks_train=d["val"][d["objects"]],
            ),
        ),
    }
    print(
        "| workload (COCO test, 101 thresholds) | threshold_sweep (s) | "
        "metric per threshold (s) | speed-up |"
    )
    print("|---|---|---|---|")
    for name, (metric, kwargs) in cases.items():
        fast, fast_s = timed(biasamp.threshold_sweep, metric=metric, thresholds=GRID, **kwargs)
        slow, slow_s = timed(
            biasamp.threshold_sweep,
            metric=lambda m=metric, **kw: m(**kw),
            thresholds=GRID,
            **kwargs,
        )
        np.testing.assert_allclose(fast.values, slow.values, rtol=1e-10, atol=1e-12)
        print(f"| {name} | {fast_s:.3f} | {slow_s:.2f} | {slow_s / fast_s:.0f}x |")


if __name__ == "__main__":
    main()
