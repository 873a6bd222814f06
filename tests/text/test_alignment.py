"""The caption metrics read pandas arguments by index label, as every metric does."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import biasamp

RNG = np.random.default_rng(2)
N = 120
GROUPS = RNG.choice(["man", "woman"], N)
DOGS = RNG.integers(0, 2, N)
CAPTIONS = [
    f"a {g} with a dog" if d and RNG.random() < 0.8 else f"a {g} on a bench"
    for g, d in zip(GROUPS, DOGS, strict=True)
]
INDEX = RNG.permutation(np.arange(500, 500 + N))


def test_caption_bias_aligns_a_reordered_series_by_index():
    frame = pd.DataFrame({"caption": CAPTIONS, "gender": GROUPS, "dog": DOGS}, index=INDEX)
    kw = {"task_words": ["dog"], "metrics": ("T->A", "A->T")}
    plain = biasamp.caption_bias_amplification(
        captions=CAPTIONS, groups=GROUPS, tasks=pd.DataFrame({"dog": DOGS}), **kw
    )
    shuffled = frame.sample(frac=1, random_state=0)
    aligned = biasamp.caption_bias_amplification(
        captions=shuffled["caption"], groups=frame["gender"], tasks=frame[["dog"]], **kw
    )
    for metric in ("T->A", "A->T"):
        assert aligned[metric].value == pytest.approx(plain[metric].value, abs=1e-12)
    with pytest.raises(ValueError, match="captions and groups are pandas objects"):
        biasamp.caption_bias_amplification(
            captions=frame["caption"].reset_index(drop=True),
            groups=frame["gender"],
            **kw,
            tasks=frame[["dog"]],
        )


def test_lic_refuses_different_indexes_naming_both_arguments():
    groups = pd.Series(GROUPS, index=INDEX)
    with pytest.raises(ValueError, match="groups and captions_model are pandas objects"):
        biasamp.lic(
            captions_human=CAPTIONS,
            captions_model=pd.Series(CAPTIONS),
            groups=groups,
            n_iter=1,
            random_state=0,
        )
