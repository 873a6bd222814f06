"""The shared counting of the caption attackers: the default pipeline's probabilities.

:class:`~biasamp.text._caption_attacker.CaptionAttacks` counts every caption's n-grams
once and fits each split's TF-IDF weights and classifier on the split's rows and
n-grams; these tests fit the pipeline itself on the same split and compare.
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline

from biasamp.text._caption_attacker import CaptionAttacks, fresh_attacker, shares_vectoriser
from biasamp.text._lic import _default_attacker

WORDS = np.array(["kitchen", "board", "park", "knife", "dog", "street", "cake", "ball", "unk"])


def _captions(rng: np.random.Generator, n: int, lean: float) -> tuple[np.ndarray, np.ndarray]:
    """Captions of 3 to 8 words whose words lean towards one group by ``lean``."""
    codes = rng.integers(0, 2, n)
    texts = []
    for code in codes:
        p = np.full(len(WORDS), 1.0)
        p[: 3 if code else 0] += lean  # group 1 says kitchen, board, park more often
        p[3 if code else 0 : 6 if code else 3] += 0 if code else lean
        size = rng.integers(3, 9)
        texts.append("a " + " ".join(rng.choice(WORDS, size=size, p=p / p.sum())))
    return np.array(texts, dtype=object), codes


def _pipeline_proba(attacker, texts, codes, train, test, seed):
    model = fresh_attacker(attacker, seed)
    model.fit(list(texts[train]), codes[train])
    return np.asarray(model.predict_proba(list(texts[test]))), np.asarray(model.classes_)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_shared_counts_give_the_pipelines_probabilities(seed):
    """Every side and split: the default pipeline fitted on the split's captions gives the
    same probabilities (to rounding: the pipeline's training matrix stores a row's n-grams
    in the order it met them, the shared one in sorted order, so sums may differ in the
    last bit), classes and predictions."""
    rng = np.random.default_rng(seed)
    human, codes = _captions(rng, 400, 1.0)
    model, _ = _captions(rng, 400, 3.0)
    attacker = _default_attacker()
    attacks = CaptionAttacks(attacker, [human, model])
    assert attacks._counts is not None  # the shared path
    for _ in range(2):
        order = rng.permutation(400)
        train, test = order[:320], order[320:]
        for side, texts in enumerate((human, model)):
            got, classes = attacks.proba(side, codes, train, test, seed=seed)
            want, want_classes = _pipeline_proba(attacker, texts, codes, train, test, seed)
            np.testing.assert_array_equal(classes, want_classes)
            np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)
            np.testing.assert_array_equal(got.argmax(axis=1), want.argmax(axis=1))


def test_a_test_caption_with_unseen_ngrams_scores_as_in_the_pipeline():
    """An n-gram only in held-out captions is not a feature of the split (the pipeline's
    vectoriser never saw it); a test caption of unseen words only is all zeros."""
    texts = np.array(
        ["a man on a board", "a woman in a kitchen"] * 10 + ["zebra giraffe", "a kitchen zebra"],
        dtype=object,
    )
    codes = np.array([0, 1] * 11)
    train, test = np.arange(20), np.arange(20, 22)
    attacks = CaptionAttacks(_default_attacker(), [texts])
    got, _ = attacks.proba(0, codes, train, test, seed=0)
    want, _ = _pipeline_proba(_default_attacker(), texts, codes, train, test, 0)
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


def test_other_attackers_are_fitted_on_the_captions_as_given():
    """A vectoriser that drops n-grams by their frequency (min_df=2), a classifier alone, or
    any other estimator: no shared counting, exactly the attacker's own fit."""
    rng = np.random.default_rng(3)
    texts, codes = _captions(rng, 200, 2.0)
    train, test = np.arange(150), np.arange(150, 200)
    pruned = make_pipeline(TfidfVectorizer(min_df=2), LogisticRegression(max_iter=500))
    assert not shares_vectoriser(pruned)
    assert not shares_vectoriser(LogisticRegression())
    assert shares_vectoriser(_default_attacker())
    attacks = CaptionAttacks(pruned, [texts])
    assert attacks._counts is None
    got, classes = attacks.proba(0, codes, train, test, seed=5)
    want, want_classes = _pipeline_proba(pruned, texts, codes, train, test, 5)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(classes, want_classes)


def test_captions_without_words_raise_the_pipelines_error():
    texts = np.array(["", " "] * 5, dtype=object)
    codes = np.array([0, 1] * 5)
    attacks = CaptionAttacks(_default_attacker(), [texts])
    with pytest.raises(ValueError, match="empty vocabulary"):
        attacks.proba(0, codes, np.arange(8), np.arange(8, 10), seed=0)


def test_lic_and_dbac_equal_their_values_with_a_pipeline_per_fit(monkeypatch):
    """The metrics with the shared counting equal the metrics fitting the pipeline on
    every split (the shared path switched off), to rounding."""
    import biasamp
    from biasamp.text import _caption_attacker, dbac_both

    rng = np.random.default_rng(7)
    human, codes = _captions(rng, 300, 1.0)
    model, _ = _captions(rng, 300, 3.0)
    groups = np.array(["man", "woman"])[codes]
    human = [f"a {g} with " + h for g, h in zip(groups, human, strict=True)]

    def run():
        d = dbac_both(captions_human=human, captions_model=model, groups=groups, n_iter=2,
                      random_state=0)  # fmt: skip
        leak = biasamp.lic(captions_human=human, captions_model=list(model), groups=groups,
                           n_iter=2, random_state=0)  # fmt: skip
        return np.concatenate(
            [d["dbac-a2t"].values, d["dbac-t2a"].values, leak.values, [leak.lic_d]]
        )

    shared = run()
    monkeypatch.setattr(_caption_attacker, "shares_vectoriser", lambda attacker: False)
    np.testing.assert_allclose(shared, run(), rtol=1e-9, atol=1e-12)
