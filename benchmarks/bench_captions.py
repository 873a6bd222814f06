"""Parsing captions into groups and objects: ``biasamp.text.caption_labels`` at scale.

The bundled real captions (six models x 5,473 COCO images, 32,838 captions) are
repeated to N captions (default 1,000,000) and parsed with the default lexicons
(the directional paper's gendered words, the 80 COCO categories with synonyms:
about 300 words and phrases, 40 of them multi-word). Timed:

* ``one caption per row``: N strings;
* ``five captions per row``: N / 5 rows of five captions each (the human-caption
  layout of COCO), objects unioned and groups compared per row;
* ``per-caption Python loop``: the obvious implementation (normalise, split, scan
  each caption, looking up phrases of 3, 2, 1 words in a dict) on 50,000 captions,
  scaled to N, as the baseline.

Wall-clock seconds, best of ``--repeat`` runs, on whatever machine runs it (see
``docs/benchmarks.md`` for the recorded figures).

Usage: python benchmarks/bench_captions.py [--captions N] [--repeat R]
"""

from __future__ import annotations

import argparse
import re
import time

import numpy as np
import pandas as pd

from biasamp.datasets import load_coco_captions
from biasamp.text import COCO_TASK_WORDS, DIRECTIONAL_GROUP_WORDS, caption_labels

BASELINE_ROWS = 50_000


def real_captions(n: int) -> list[str]:
    frame = pd.concat([load_coco_captions("val"), load_coco_captions("test")])
    pool = frame.drop(columns="image_id").to_numpy().ravel().tolist()
    return (pool * (n // len(pool) + 1))[:n]


def python_loop(captions: list[str]) -> None:
    """One caption at a time with dictionary lookups: the baseline a user writes by hand."""
    phrases = {tuple(p.split()): k for lex in (DIRECTIONAL_GROUP_WORDS, COCO_TASK_WORDS)
               for k, ps in lex.items() for p in ps}  # fmt: skip
    longest = max(len(p) for p in phrases)
    for caption in captions:
        words = re.sub(r"[^a-z0-9 ]", " ", caption.lower()).split()
        found, i = set(), 0
        while i < len(words):
            for size in range(longest, 0, -1):  # longest phrase first
                label = phrases.get(tuple(words[i : i + size]))
                if label is not None:
                    found.add(label)
                    i += size
                    break
            else:
                i += 1


def best(run, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--captions", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    n = args.captions
    flat = real_captions(n)
    rows = np.array(flat, dtype=object).reshape(-1, 5).tolist()
    one = best(lambda: caption_labels(flat), args.repeat)
    five = best(lambda: caption_labels(rows), args.repeat)
    loop = best(lambda: python_loop(flat[:BASELINE_ROWS]), 1) * n / BASELINE_ROWS
    print(f"| parse {n:,} real captions | seconds | captions / s |")
    print("|---|---|---|")
    print(f"| `caption_labels`, one caption per row | {one:.2f} | {n / one:,.0f} |")
    print(f"| `caption_labels`, five captions per row | {five:.2f} | {n / five:,.0f} |")
    print(f"| per-caption Python loop (50,000 timed, scaled) | {loop:.1f} | {n / loop:,.0f} |")


if __name__ == "__main__":
    main()
