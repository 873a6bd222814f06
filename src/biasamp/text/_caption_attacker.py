"""The caption attackers of LIC and DBAC, fitted once per split and side.

Both metrics fit a fresh attacker on every split of every side (the model's
captions, each position of the human captions) and read its probability of the
true group of the held-out captions. With the default attacker (TF-IDF of words
and word pairs + logistic regression) most of a fit used to be the tokenising:
the pipeline's vectoriser cut the same captions into the same n-grams on every
split. :class:`CaptionAttacks` counts the n-grams of every caption once, over one
vocabulary (sorted, as the vectoriser sorts its own), and gives each fit the
rows of its split and the columns of the n-grams its training rows hold: exactly
the count matrix the pipeline's vectoriser builds from the split's training
captions (the same n-grams, in the same order, with the same counts). The
TF-IDF weights are fitted by scikit-learn's own ``TfidfTransformer`` on those
counts, and a fresh clone of the pipeline's classifier is fitted on them, so the
probabilities are the pipeline's, bit for bit (``tests/text`` compares them).

Any other attacker is cloned and fitted on the split's captions as given.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from biasamp._threads import single_threaded_blas

__all__ = ["CaptionAttacks", "fresh_attacker", "shares_vectoriser"]

#: The vectoriser options the counts depend on (the others weight them: TF-IDF's).
_TFIDF_ONLY = ("norm", "use_idf", "smooth_idf", "sublinear_tf")


def fresh_attacker(attacker: Any, seed: int) -> Any:
    """A clone of ``attacker`` with every ``random_state`` parameter set to ``seed``."""
    from sklearn.base import clone

    model = clone(attacker)
    seeds = {k: seed for k in model.get_params(deep=True) if k.split("__")[-1] == "random_state"}
    if seeds:
        model.set_params(**seeds)
    return model


def shares_vectoriser(attacker: Any) -> bool:
    """Whether ``attacker`` is a scikit-learn pipeline of a ``TfidfVectorizer`` over words
    (no vocabulary of its own, every n-gram kept: ``min_df=1``, ``max_df=1.0``,
    ``max_features=None``) and a classifier, whose fits :class:`CaptionAttacks` can share
    the counting of."""
    try:
        from sklearn.feature_extraction.text import TfidfVectorizer
        from sklearn.pipeline import Pipeline
    except ImportError:  # pragma: no cover - scikit-learn is a dependency of the text room
        return False
    if type(attacker) is not Pipeline or len(attacker.steps) != 2:
        return False
    vectoriser = attacker.steps[0][1]
    if type(vectoriser) is not TfidfVectorizer:
        return False
    params = vectoriser.get_params()
    return (
        params["vocabulary"] is None
        and params["min_df"] in (1, 1.0)
        and params["max_df"] in (1, 1.0)
        and params["max_features"] is None
        and params["analyzer"] in ("word", "char", "char_wb")
        and params["input"] == "content"
    )


class CaptionAttacks:
    """Attackers of one set of caption sides, fitted split by split (see the module).

    Parameters
    ----------
    attacker : estimator
        The attacker each fit clones (:func:`fresh_attacker`).
    sides : sequence of object arrays of str, each of shape (n,)
        The captions of each side (the model's, a position of the human captions).

    Examples
    --------
    >>> import numpy as np
    >>> from biasamp.text._lic import _default_attacker
    >>> texts = np.array(["a man on a board", "a woman in a kitchen"] * 10, dtype=object)
    >>> codes = np.array([0, 1] * 10)
    >>> attacks = CaptionAttacks(_default_attacker(), [texts])
    >>> proba, classes = attacks.proba(0, codes, np.arange(16), np.arange(16, 20), seed=0)
    >>> proba.shape, classes.tolist(), bool((proba.argmax(axis=1) == codes[16:]).all())
    ((4, 2), [0, 1], True)
    """

    def __init__(self, attacker: Any, sides: Sequence[np.ndarray]) -> None:
        self.attacker = attacker
        self.sides = list(sides)
        self._counts: list[Any] | None = None
        if shares_vectoriser(attacker):
            self._counts = self._count_ngrams()

    def _count_ngrams(self) -> list[Any] | None:
        """Each side's n-gram counts over one sorted vocabulary of every side (None when
        the captions hold no n-gram at all: the pipeline raises its own error)."""
        from sklearn.feature_extraction.text import CountVectorizer

        vectoriser = self.attacker.steps[0][1]
        options = {k: v for k, v in vectoriser.get_params().items() if k not in _TFIDF_ONLY}
        counter = CountVectorizer(**options)
        texts = [str(t) for side in self.sides for t in side]
        try:
            counts = counter.fit_transform(texts).tocsr()
        except ValueError:  # an empty vocabulary
            return None
        bounds = np.cumsum([0] + [len(side) for side in self.sides])
        return [counts[bounds[j] : bounds[j + 1]] for j in range(len(self.sides))]

    def proba(
        self, side: int, codes: np.ndarray, train: np.ndarray, test: np.ndarray, *, seed: int
    ) -> tuple[np.ndarray, np.ndarray]:
        """The probabilities of a fresh attacker fitted on ``train`` rows of ``side``, for
        its ``test`` rows, (len(test), classes), and its classes.

        BLAS runs on one thread: the solver's vector operations are far too small to gain
        from threads, and on a busy machine spinning BLAS threads made each step of the
        default attacker's L-BFGS about 25 ms instead of well under one."""
        with single_threaded_blas():
            return self._proba(side, codes, train, test, seed=seed)

    def _proba(
        self, side: int, codes: np.ndarray, train: np.ndarray, test: np.ndarray, *, seed: int
    ) -> tuple[np.ndarray, np.ndarray]:
        if self._counts is None:
            model = fresh_attacker(self.attacker, seed)
            texts = self.sides[side]
            model.fit(list(texts[train]), codes[train])
            proba = model.predict_proba(list(texts[test]))
            return np.asarray(proba, dtype=float), np.asarray(model.classes_)
        from sklearn.feature_extraction.text import TfidfTransformer

        counts = self._counts[side]
        fit_rows = counts[train]
        held_out = counts[test]
        # the n-grams of the training captions: the split's vocabulary, in sorted order
        columns = np.flatnonzero(np.bincount(fit_rows.indices, minlength=counts.shape[1]))
        if not len(columns):  # no n-gram in the training captions: the pipeline's error
            self._counts = None
            return self._proba(side, codes, train, test, seed=seed)
        vectoriser = self.attacker.steps[0][1]
        dtype = vectoriser.get_params()["dtype"]
        weights = TfidfTransformer(
            **{k: v for k, v in vectoriser.get_params().items() if k in _TFIDF_ONLY}
        )
        fit_x = fit_rows[:, columns].astype(dtype)
        weights.fit(fit_x)
        model = fresh_attacker(self.attacker.steps[1][1], seed)
        model.fit(weights.transform(fit_x, copy=False), codes[train])
        test_x = weights.transform(held_out[:, columns].astype(dtype), copy=False)
        proba = np.asarray(model.predict_proba(test_x), dtype=float)
        return proba, np.asarray(model.classes_)
