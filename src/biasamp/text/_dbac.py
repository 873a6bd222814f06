"""DBAC: directional bias amplification in captioning (Nair, Tokas & Kerner, WACV 2026).

DBAC carries the directional predictability amplification of the same authors
(DPA) to captions. The group words of every caption are masked and an attacker
learns the image's group from the rest of the caption, once on the human
captions (the data side, D) and once on the model's captions (the model side, M).
For a held-out caption :math:`c_i` of an image with group :math:`a_i`, the
attacker gives :math:`p(a_i \\mid c_i)`:

.. math::

    \\Psi^{T\\to A} = \\frac{1}{|\\mathcal{D}_{test}|}\\sum_i p(a_i \\mid c_i),
    \\qquad
    \\Psi^{A\\to T} = \\frac{1}{|\\mathcal{D}_{test}|}\\sum_i
        \\frac{p(a_i \\mid c_i)\\,P(t_i)}{P(a_i)},

    \\mathrm{DBAC}_{dir} = \\frac{\\Psi^{dir}_M - \\Psi^{dir}_D}{\\Psi^{dir}_M + \\Psi^{dir}_D}.

T->A asks how well the caption's context (its objects, places, activities)
predicts the group. A->T turns the same attacker around with Bayes' rule,
:math:`P(t \\mid a) = P(a \\mid t)\\,P(t) / P(a)`: :math:`t_i` is the set of
objects the caption mentions (read with the task lexicon, COCO's 80 categories by
default) and :math:`P(t_i)` how often that set occurs among the side's captions,
:math:`P(a_i)` the share of the image's group. The priors are fixed: computed
once on every row of a side, not per split. Every choice, and where the peer
package's code differs, is in ``docs/text.md`` (section DBAC).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from biasamp._deprecation import REMOVED_IN, RenamedKeys
from biasamp.counts._swaps import check_n_perm
from biasamp.inputs._readers import check_knob
from biasamp.metrics._significance import check_refit_memory, refit_swap_test
from biasamp.registry import card_for, normalize_direction
from biasamp.results import PredictabilityResult
from biasamp.results._intervals import check_ci
from biasamp.results._persist import register_result
from biasamp.results._significance import chance_text
from biasamp.text._caption_attacker import CaptionAttacks
from biasamp.text._caption_labels import caption_labels
from biasamp.text._lexicons import COCO_TASK_WORDS
from biasamp.text._lic import (
    BYTES_PER_ITERATION,
    ERR_SWAP_ONE_CAPTION,
    ERR_TEST_SIZE,
    MASK_TOKEN,
    _align,
    _gender_words,
    _stratified,
    amplification_over_splits,
    mask_words_in,
    read_caption_pairs,
    split_seeds,
)

__all__ = ["DIRECTIONS", "DBACResult", "dbac", "dbac_both"]

DIRECTIONS = ("A->T", "T->A")
ALIGN_CHOICES = ("both", "human", "none")

ERR_ALIGN = "align: expected one of {choices}, got {got!r}."
ERR_N_ITER = "n_iter: expected an integer >= 1, got {got!r}."
ERR_TOO_SMALL = (
    "groups: the group {group!r} has {count} rows, too few for a split with "
    "test_size={test_size} (training and test each need at least one row of every group)."
)


@register_result("dbac", shapes=lambda r: {"n": r.n, "n_iter": r.n_iter})
@dataclass(repr=False)
class DBACResult(PredictabilityResult):
    """The result of :func:`dbac`: a :class:`PredictabilityResult` with DBAC names.

    ``value`` is the mean DBAC over the ``n_iter`` splits (``values`` per split),
    ``ci`` its Student-t interval; ``psi_d`` / ``psi_m`` the mean data-side (human
    captions) and model-side attacker scores (``data_quality`` /
    ``model_quality`` per split); ``direction`` is ``"A->T"`` or ``"T->A"``.
    ``params`` records what was masked (``masked_words``, ``n_masked_human``,
    ``n_masked_model``), the vocabulary alignment (``align``,
    ``n_unknown_human``, ``n_unknown_model``), the priors and the attacker's
    accuracies.
    """

    @property
    def name(self) -> str:
        return f"DBAC {self.direction}" + (
            "" if self.params.get("normalized", True) else " (difference)"
        )

    def summary(self) -> str:
        line = f"{self.name} = {self.value:+.4f}"
        if self.ci is not None:
            line += f"  [{self.ci[0]:+.4f}, {self.ci[1]:+.4f}] ({self.ci_level:.0%} CI)"
        return "\n".join(
            [
                line,
                f"  Psi_D = {self.psi_d:.4f} (human captions), Psi_M = {self.psi_m:.4f} (model)",
                f"  masked {self.params.get('n_masked_human', 0)} human and "
                f"{self.params.get('n_masked_model', 0)} model words; attacker {self.attacker!r}",
                f"  n={self.n}, n_iter={self.n_iter}, test_size={self.test_size:g}",
                *([f"  {chance_text(self.p_value)}"] if self.p_value is not None else []),
            ]
        )


def _pattern_codes(tasks: np.ndarray) -> np.ndarray:
    """One integer per distinct row of a 0/1 matrix (rows packed to fixed-width bytes)."""
    if tasks.shape[1] == 0:
        return np.zeros(len(tasks), dtype=np.int64)
    packed = np.ascontiguousarray(np.packbits(tasks.astype(bool), axis=1))
    keys = packed.view(f"S{packed.shape[1]}").ravel()  # equal widths: distinct rows stay distinct
    return np.unique(keys, return_inverse=True)[1].ravel()


def _pattern_prior(tasks: np.ndarray) -> np.ndarray:
    """Share of the rows that mention exactly the same set of objects as each row."""
    codes = _pattern_codes(tasks)
    return np.bincount(codes)[codes] / len(tasks)


def _true_group_proba(
    attacks: CaptionAttacks, side: int, codes: np.ndarray, train: np.ndarray, test: np.ndarray,
    seed: int,
) -> tuple[np.ndarray, float]:  # fmt: skip
    """The attacker's probability of the true group of every test row, and its accuracy."""
    proba, classes = attacks.proba(side, codes, train, test, seed=seed)  # every group: stratified
    truth = proba[np.arange(len(test)), np.searchsorted(classes, codes[test])]
    right = classes[proba.argmax(axis=1)] == codes[test]
    return truth, float(right.mean())


def dbac_both(
    *,
    captions_human: Any,
    captions_model: Any,
    groups: Any,
    mask_words: Mapping[Any, Sequence[str]] | Sequence[str] | None = None,
    task_words: Mapping[Any, Any] | Sequence[str] | None = None,
    attacker: Any = None,
    align: str = "both",
    n_iter: int = 5,
    test_size: float = 0.2,
    normalized: bool = True,
    ci: float = 0.95,
    random_state: Any = None,
) -> dict[str, DBACResult]:
    """DBAC in both directions from one set of attackers: ``{"dbac-a2t": ..., "dbac-t2a": ...}``,
    keyed by the registry's canonical names (the keys ``"A->T"`` and ``"T->A"`` of
    earlier releases still read the same results, with a ``FutureWarning``, until 0.5.0).

    The two directions share the masking, the splits and the attackers (A->T
    reweights the scores that T->A averages), so asking for both costs no more
    than asking for one. Parameters as :func:`dbac`.
    """
    n_iter = check_knob(
        "n_iter",
        n_iter,
        bytes_each=BYTES_PER_ITERATION,
        what="iterations (one seed and six values each)",
        advice="use fewer iterations (n_iter).",
    )
    seeds = split_seeds(random_state, n_iter)
    ci = check_ci(ci)
    if not isinstance(test_size, (float, int)) or isinstance(test_size, bool):
        raise ValueError(ERR_TEST_SIZE.format(got=test_size))
    if not 0 < test_size < 1:
        raise ValueError(ERR_TEST_SIZE.format(got=test_size))
    if align not in ALIGN_CHOICES:
        raise ValueError(ERR_ALIGN.format(choices=ALIGN_CHOICES, got=align))
    pairs = read_caption_pairs(
        groups=groups, captions_human=captions_human, captions_model=captions_model,
        attacker=attacker,
    )  # fmt: skip
    codes, names, human, model = pairs.codes, pairs.names, pairs.human, pairs.model
    n, attacker, attacker_name = pairs.n, pairs.attacker, pairs.attacker_name
    per_human = np.full(n, pairs.k)
    counts = np.bincount(codes, minlength=len(names))
    too_small = np.flatnonzero(counts - np.maximum(1, np.round(counts * test_size)) < 1)
    if len(too_small):
        g = int(too_small[0])
        raise ValueError(ERR_TOO_SMALL.format(group=names[g], count=counts[g], test_size=test_size))
    k = int(per_human[0])

    # masking (the text room's tokeniser), then the vocabulary alignment
    words = _gender_words(mask_words)
    human_masked = mask_words_in(human, words)
    model_masked = mask_words_in(model, words)
    n_masked_human = " ".join(human_masked).split().count(MASK_TOKEN)
    n_masked_model = " ".join(model_masked).split().count(MASK_TOKEN)
    human_vocab = pd.Index(pd.unique(np.array(" ".join(human_masked).split(), dtype=object)))
    model_vocab = pd.Index(pd.unique(np.array(" ".join(model_masked).split(), dtype=object)))
    human_text = _align(human_masked, model_vocab) if align != "none" else human_masked
    model_text = _align(model_masked, human_vocab) if align == "both" else model_masked
    n_unknown_human = " ".join(human_text).split().count("unk") - " ".join(
        human_masked).split().count("unk")  # fmt: skip
    n_unknown_model = " ".join(model_text).split().count("unk") - " ".join(
        model_masked).split().count("unk")  # fmt: skip

    # fixed priors: P(a) over every row, P(t) over every caption of a side
    task_lexicon = COCO_TASK_WORDS if task_words is None else task_words
    human_tasks = caption_labels(human, task_words=task_lexicon, mask=True).tasks.to_numpy()
    model_tasks = caption_labels(model, task_words=task_lexicon, mask=True).tasks.to_numpy()
    prior_a = (counts / n)[codes]
    weight_human = (_pattern_prior(human_tasks) / np.repeat(prior_a, k)).reshape(n, k)
    weight_model = _pattern_prior(model_tasks) / prior_a
    human_by_position = np.array(human_text, dtype=object).reshape(n, k)
    model_array = np.array(model_text, dtype=object)
    # the captions of every side counted once, for every split (sides 0..k-1: the human
    # caption positions; side k: the model's)
    attacks = CaptionAttacks(attacker, [human_by_position[:, j] for j in range(k)] + [model_array])

    psi = {(d, side): np.empty(n_iter) for d in DIRECTIONS for side in "DM"}
    accuracy = {"D": np.empty(n_iter), "M": np.empty(n_iter)}
    for it, seq in enumerate(seeds):  # a loop over splits: each trains fresh attackers
        rng = np.random.default_rng(seq)
        train, test = _stratified(codes, test_size, rng)
        seed = int(rng.integers(2**31 - 1))
        ta, at, acc = [], [], []
        for j in range(k):  # one attacker per human caption position (COCO: five)
            p, a = _true_group_proba(attacks, j, codes, train, test, seed)
            ta.append(p.mean())
            at.append((p * weight_human[test, j]).mean())
            acc.append(a)
        psi["T->A", "D"][it], psi["A->T", "D"][it] = np.mean(ta), np.mean(at)
        accuracy["D"][it] = np.mean(acc)
        p, accuracy["M"][it] = _true_group_proba(attacks, k, codes, train, test, seed)
        psi["T->A", "M"][it], psi["A->T", "M"][it] = p.mean(), (p * weight_model[test]).mean()

    common_params = {
        "normalized": normalized,
        "align": align,
        "mask_token": MASK_TOKEN,
        "masked_words": sorted(set(words)),
        "n_masked_human": int(n_masked_human),
        "n_masked_model": int(n_masked_model),
        "n_unknown_human": int(n_unknown_human),
        "n_unknown_model": int(n_unknown_model),
        "human_captions_per_row": k,
        "vocabulary_size_human": len(human_vocab),
        "vocabulary_size_model": len(model_vocab),
        "groups": [str(g) for g in names],
        "group_priors": [float(c / n) for c in counts],
        "n_task_words": len(task_lexicon),
        "object_patterns_human": int(_pattern_codes(human_tasks).max(initial=-1) + 1),
        "object_patterns_model": int(_pattern_codes(model_tasks).max(initial=-1) + 1),
        "accuracy_d": float(accuracy["D"].mean()),
        "accuracy_m": float(accuracy["M"].mean()),
    }
    out: dict[str, DBACResult] = RenamedKeys(
        renamed={d: card_for("dbac", d).name for d in DIRECTIONS},
        where="dbac_both",
        removed=REMOVED_IN,
    )
    for direction in DIRECTIONS:
        out[card_for("dbac", direction).name] = DBACResult(
            metric="dbac",
            direction=direction,
            **amplification_over_splits(
                psi[direction, "D"],
                psi[direction, "M"],
                normalized=normalized,
                ci=ci,
                attacker_name=attacker_name,
            ),  # fmt: skip
            quality=(
                "attacker's probability of the true group"
                if direction == "T->A"
                else "p(true group | caption) x P(object set) / P(group)"
            ),
            n=n,
            n_iter=n_iter,
            test_size=float(test_size),
            params=dict(common_params),
        )
    return out


def dbac(
    *,
    direction: str,
    captions_human: Any,
    captions_model: Any,
    groups: Any,
    mask_words: Mapping[Any, Sequence[str]] | Sequence[str] | None = None,
    task_words: Mapping[Any, Any] | Sequence[str] | None = None,
    attacker: Any = None,
    align: str = "both",
    n_iter: int = 5,
    test_size: float = 0.2,
    normalized: bool = True,
    ci: float = 0.95,
    random_state: Any = None,
    n_perm: int = 0,
) -> DBACResult:
    """DBAC: directional bias amplification of a captioning model, from its captions.

    The group words are masked in the human and in the model captions; an
    attacker learns the image's group from the rest of each caption (the
    context), separately on each side, and scores held-out captions by its
    probability of the true group. T->A averages those probabilities; A->T
    turns them into :math:`P(t \\mid a)` with Bayes' rule and fixed priors (the
    share of the caption's object set on its side over the share of the group).
    DBAC = (Psi_M - Psi_D) / (Psi_M + Psi_D) per split (Nair, Tokas & Kerner,
    WACV 2026). Every choice is documented in ``docs/text.md``.

    Parameters
    ----------
    direction : {"A->T", "T->A"}
        Any spelling :func:`biasamp.registry.normalize_direction` accepts
        (``"a2t"``, ``"T→A"``, ...).
    captions_human : sequence of str, or of lists of str, shape (n,); or DataFrame
        Human captions of each image; with several per image (the same number
        in every row), Psi_D averages one attacker per caption position.
        Several positions may also come as the columns of a pandas or polars
        DataFrame, or as a list of pandas Series on the same index.
    captions_model : sequence of str, shape (n,)
        The model's caption of each image.
    groups : array-like of shape (n,)
        The group of the person in each image.
    mask_words : dict {group: [words]} or list of words, optional
        Words to mask; default :data:`biasamp.text.LIC_GENDER_WORDS`.
    task_words : dict {task: [words or phrases]} or list of names, optional
        The objects a caption mentions (A->T's prior); default the 80 COCO
        categories, :data:`biasamp.text.COCO_TASK_WORDS`.
    attacker : scikit-learn estimator or pipeline, optional
        Takes a list of strings and has ``predict_proba``; default TF-IDF of
        words and word pairs + logistic regression (offline). Cloned for every
        fit; every ``random_state`` parameter is set per split.
    align : {"both", "human", "none"}, default "both"
        Vocabulary alignment: a word of one side's masked captions that never
        occurs in the other side's becomes ``"unk"`` (``"both"``, as the peer
        code's bidirectional alignment; ``"human"``: only human-caption words,
        as LIC).
    n_iter : int, default 5
        Random stratified splits (each trains fresh attackers); they give the
        interval.
    test_size : float, default 0.2
        Held-out share of every group (the peer code: 20%).
    normalized : bool, default True
        DBAC's normalised difference; ``False`` gives Psi_M - Psi_D.
    ci : float, default 0.95
        Level of the Student-t interval over splits.
    random_state : None, int or numpy Generator
        Seeds every split and every attacker, and the swaps of ``n_perm``.
    n_perm : int, default 0
        Swapped data sets of the paired swap test against chance (0: no test):
        each image's human and model captions swap with probability 1/2 and the
        attackers are fitted again (``n_perm`` times the cost). Needs one human
        caption per image. The result then has ``p_value`` (one-sided: larger is
        amplification) and ``null``.

    Returns
    -------
    DBACResult
        ``value``, ``ci``, ``values`` (per split), ``psi_d``, ``psi_m``,
        ``params`` (what was masked, alignment, priors), ``plot()``, ``save()``.

    Examples
    --------
    Human captions put men and women in random places; the model puts women in
    kitchens and men on skateboards. With "man" and "woman" masked, the model's
    captions still give the group away, so DBAC is positive in both directions:

    >>> import numpy as np
    >>> from biasamp import dbac
    >>> rng = np.random.default_rng(0)
    >>> groups = np.array(["man", "woman"] * 200)
    >>> places = np.array(["a kitchen with a knife", "a skatepark with a skateboard"])
    >>> human = [f"a {g} in {p}" for g, p in zip(groups, rng.choice(places, 400))]
    >>> model = [f"a {g} in {places[0] if g == 'woman' else places[1]}" for g in groups]
    >>> t2a = dbac(direction="T->A", captions_human=human, captions_model=model,
    ...            groups=groups, n_iter=3, random_state=0)
    >>> round(t2a.psi_d, 1), t2a.psi_m > 0.9, t2a.value > 0.2
    (0.5, True, True)
    >>> a2t = dbac(direction="A->T", captions_human=human, captions_model=model,
    ...            groups=groups, n_iter=3, random_state=0)
    >>> a2t.value > 0.2, a2t.params["n_masked_model"]
    (True, 400)
    """
    direction = normalize_direction(direction)  # before any work
    n_perm = check_n_perm(n_perm)
    human: list[str] = []
    model: list[str] = []
    labels: Any = None
    if n_perm:  # the captions in row order, one human caption per image, read once
        pairs = read_caption_pairs(
            groups=groups, captions_human=captions_human, captions_model=captions_model,
            attacker=attacker,
        )  # fmt: skip
        if pairs.k != 1:
            raise ValueError(ERR_SWAP_ONE_CAPTION.format(k=pairs.k))
        check_refit_memory(n_perm, pairs.n)
        human, model = list(pairs.human), list(pairs.model)
        labels = np.asarray(pairs.names, dtype=object)[pairs.codes]

    def run(human: Any, model: Any, seed: Any) -> float:
        return dbac_both(
            captions_human=list(human), captions_model=list(model), groups=labels,
            mask_words=mask_words, task_words=task_words, attacker=attacker, align=align,
            n_iter=n_iter, test_size=test_size, normalized=normalized, ci=ci,
            random_state=seed,
        )[card_for("dbac", direction).name].value  # fmt: skip

    result = dbac_both(
        captions_human=captions_human, captions_model=captions_model, groups=groups,
        mask_words=mask_words, task_words=task_words, attacker=attacker, align=align,
        n_iter=n_iter, test_size=test_size, normalized=normalized, ci=ci,
        random_state=random_state,
    )[card_for("dbac", direction).name]  # fmt: skip
    return refit_swap_test(
        result, run=run, label=human, output=model,
        label_arg="captions_human", output_arg="captions_model", n_perm=n_perm,
        random_state=random_state,
    )  # fmt: skip
