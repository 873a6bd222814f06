"""LIC: leakage for image captioning (Hirota, Nakashima & Garcia, CVPR 2022).

LIC asks how much more a caption *model's* captions give away a person's group
than human captions of the same images do, once the words that name the group
are masked:

.. math::

    \\mathrm{LIC} = \\mathrm{LIC}_M - \\mathrm{LIC}_D, \\qquad
    \\mathrm{LIC}_{\\cdot} = \\frac{1}{|\\mathcal{D}_{test}|}\\sum_{i}
        s_i\\,[\\arg\\max_a p(a \\mid c_i) = a_i], \\quad s_i = p(a_i \\mid c_i),

where an attacker trained on masked captions gives the probability
:math:`p(a \\mid c)` of each group, so a caption scores the attacker's confidence
in its true group when the attacker is right and 0 when it is wrong.

Choices (and where they follow the paper's released code, rebnej/lick-caption-bias)
---------------------------------------------------------------------------------
* **Masking.** Every whole-word occurrence of a gendered word in both caption
  sets becomes one token (``"genderword"``, as the reference). The default
  list is :data:`LIC_GENDER_WORDS`: the reference's list (man, men, boy, ...,
  he, his, him; woman, ..., she, her, pregnant) with a few plurals and
  compounds added.
* **One vocabulary.** The vocabulary is the set of words of the masked model
  captions; a human-caption word outside it becomes ``"unk"``, as the
  reference aligns the human captions to the model's vocabulary. An attacker
  therefore cannot score higher on human captions merely because humans use
  rarer words.
* **Balanced splits.** Each iteration draws, per group, the same number of
  rows (the smallest group's size), and holds out ``test_size`` of them (the
  reference: 10%). Both sides use the *same* split of images in an
  iteration, so the difference is paired and identical caption sets give
  exactly 0.
* **Several human captions per image** (COCO has five): the data side trains
  one attacker per caption position and averages their scores, as the
  reference does; the model side has one caption per image.
* **Attacker.** The reference trains an LSTM or fine-tunes BERT; the default
  here is offline and fast: TF-IDF of words and word pairs, then logistic
  regression (``C=1``). Any scikit-learn estimator or pipeline that takes a
  list of strings and has ``predict_proba`` can be passed; it is cloned for
  every fit and every parameter named ``random_state`` is set to the
  iteration's seed. Values depend on the attacker, so compare models only
  under the same attacker.
* **Scale.** The reference reports LIC x 100; here the raw fraction in [-1, 1].
  ``normalized=True`` gives (LIC_M - LIC_D) / (LIC_M + LIC_D), the peer
  package's normalised variant, in [-1, 1].
* **Interval.** ``n_iter`` splits; the value is the mean and ``ci`` the
  Student-t interval of the mean over iterations (the reference averages
  seeds).
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from biasamp._deprecation import UNSET, renamed_keyword
from biasamp.counts._poisson import checked_generator
from biasamp.counts._swaps import check_n_perm
from biasamp.inputs._alignment import align_pandas_indexes
from biasamp.inputs._containers import to_native_numpy
from biasamp.inputs._label_matrix import LabelWarning
from biasamp.inputs._readers import check_knob, read_labels
from biasamp.metrics._significance import check_refit_memory, refit_swap_test
from biasamp.results import PredictabilityResult
from biasamp.results._persist import register_result
from biasamp.results._plotting import t_interval
from biasamp.results._significance import chance_text
from biasamp.text._caption_attacker import CaptionAttacks
from biasamp.text._lexicons import LIC_GENDER_WORDS
from biasamp.text._tokenize import SEPARATOR, as_caption_rows, mask_words

__all__ = ["LICResult", "lic"]

MASK_TOKEN = "genderword"
#: Bytes kept per iteration (values, seeds), checked against the memory available first.
BYTES_PER_ITERATION = 256
UNKNOWN_TOKEN = "unk"

ERR_N_ITER = "n_iter: expected an integer >= 1, got {got!r}."
ERR_SWAP_ONE_CAPTION = (
    "n_perm: the swap test exchanges an image's human and model captions, so it needs one "
    "human caption per image; captions_human has {k} per image (pass one of them)."
)
ERR_CI = "ci: expected a level strictly between 0 and 1 (0.95 for 95%), got {got!r}."
ERR_TEST_SIZE = "test_size: expected a fraction strictly between 0 and 1, got {got!r}."
ERR_LENGTH = "{arg}: {got} rows, but groups has {n}."
ERR_MODEL_ONE = "captions_model: row {row} holds {k} captions; give one model caption per row."
ERR_HUMAN_COUNT = (
    "captions_human: every row needs the same number of captions (row 0 has {first}, "
    "row {row} has {k}); LIC_D trains one attacker per caption position."
)
ERR_ONE_GROUP = "groups: LIC needs at least two groups, got {got!r}."
ERR_TOO_SMALL = (
    "groups: the smallest group ({group!r}) has {count} rows, too few for a split with "
    "test_size={test_size} (each side needs at least one row per group)."
)
ERR_MASK_WORDS = "mask_words: expected a dict {{group: [words]}} or a list of words, got {got}."
ERR_GROUPS_SHAPE = "groups: expected one group per row (1-D), got shape {shape}."
ERR_HUMAN_COLUMNS_INDEX = (
    "captions_human: the Series of caption position {j} has another index than the first; "
    "several human caption columns need the same rows."
)
ERR_ATTACKER = (
    "attacker: expected a scikit-learn estimator or pipeline with fit and predict_proba "
    "that takes a list of strings, got {got!r}."
)


@register_result("lic", shapes=lambda r: {"n": r.n, "n_iter": r.n_iter})
@dataclass(repr=False)
class LICResult(PredictabilityResult):
    """The result of :func:`lic`: a :class:`PredictabilityResult` with LIC names.

    ``lic_d`` and ``lic_m`` are the mean data-side (human captions) and
    model-side scores (``data_quality`` / ``model_quality`` hold them per
    iteration); ``value`` is the mean LIC (``values`` per iteration), ``ci`` its
    Student-t interval. ``params`` records the attacker's accuracies
    (``accuracy_d``, ``accuracy_m``), the vocabulary size and the settings.
    """

    @property
    def lic_d(self) -> float:
        """Mean LIC_D: leakage of the masked human captions."""
        return float(np.mean(self.data_quality))

    @property
    def lic_m(self) -> float:
        """Mean LIC_M: leakage of the masked model captions."""
        return float(np.mean(self.model_quality))

    @property
    def name(self) -> str:
        return f"{self.title} (normalised)" if self.params.get("normalized") else self.title

    def summary(self) -> str:
        line = f"{self.name} = {self.value:+.4f}"
        if self.ci is not None:
            line += f"  [{self.ci[0]:+.4f}, {self.ci[1]:+.4f}] ({self.ci_level:.0%} CI)"
        return "\n".join(
            [
                line,
                f"  LIC_D = {self.lic_d:.4f} (human captions), LIC_M = {self.lic_m:.4f} (model)",
                f"  attacker {self.attacker!r}",
                f"  n={self.n}, n_iter={self.n_iter}, test_size={self.test_size:g}",
                *([f"  {chance_text(self.p_value)}"] if self.p_value is not None else []),
            ]
        )


def _default_attacker() -> Any:
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline

    return make_pipeline(
        TfidfVectorizer(token_pattern=r"\S+", ngram_range=(1, 2), sublinear_tf=True),
        LogisticRegression(C=1.0, max_iter=1000),
    )


def _gender_words(words: Any) -> list[str]:
    if words is None:
        words = LIC_GENDER_WORDS
    if isinstance(words, Mapping):
        return [w for ws in words.values() for w in ws]
    if isinstance(words, (list, tuple)) and all(isinstance(w, str) for w in words):
        return list(words)
    raise TypeError(ERR_MASK_WORDS.format(got=type(words).__name__))


def _align(captions: list[str], vocabulary: pd.Index) -> list[str]:
    """Words outside ``vocabulary`` become UNKNOWN_TOKEN (one pass over all words)."""
    tokens = np.array(f" {SEPARATOR} ".join(captions).split(" "), dtype=object)
    codes, uniques = pd.factorize(tokens)
    keep = vocabulary.get_indexer(pd.Index(uniques)) >= 0
    keep |= pd.Series(uniques, dtype=object).isin([SEPARATOR, ""]).to_numpy()  # numpy drops NULs
    mapped = np.where(keep, uniques, UNKNOWN_TOKEN)[codes]
    return [part.strip() for part in " ".join(mapped).split(SEPARATOR)]


def _split(codes: np.ndarray, n_groups: int, test_size: float, rng: np.random.Generator) -> Any:
    counts = np.bincount(codes, minlength=n_groups)
    n_test = max(1, int(round(counts.min() * test_size)))
    n_train = counts.min() - n_test
    train, test = [], []
    for g in range(n_groups):  # a loop over groups (a handful), not rows
        rows = rng.permutation(np.flatnonzero(codes == g))
        train.append(rows[:n_train])
        test.append(rows[n_train : n_train + n_test])
    return rng.permutation(np.concatenate(train)), rng.permutation(np.concatenate(test))


def _stratified(codes: np.ndarray, test_size: float, rng: np.random.Generator) -> Any:
    order = rng.permutation(len(codes))
    in_test = np.zeros(len(codes), dtype=bool)
    for g in np.unique(codes):  # a loop over groups
        rows = order[codes[order] == g]
        in_test[rows[: max(1, int(round(len(rows) * test_size)))]] = True
    return np.flatnonzero(~in_test), np.flatnonzero(in_test)


def _score(
    attacks: CaptionAttacks, side: int, codes: np.ndarray, train: np.ndarray, test: np.ndarray,
    seed: int,
) -> tuple[float, float]:  # fmt: skip
    proba, classes = attacks.proba(side, codes, train, test, seed=seed)
    column = np.searchsorted(classes, codes[test])
    truth = proba[np.arange(len(test)), column]
    right = classes[proba.argmax(axis=1)] == codes[test]
    return float(np.where(right, truth, 0.0).mean()), float(right.mean())


def _human_columns(captions: Any) -> Any:
    """Several human caption columns as one pandas DataFrame (a column per position): a
    polars DataFrame, or a list of pandas Series on the same index; anything else as is."""
    if type(captions).__name__ == "DataFrame" and type(captions).__module__.startswith("polars"):
        return pd.DataFrame(
            {f"caption_{j}": column.to_list() for j, column in enumerate(captions.get_columns())}
        )
    if (
        isinstance(captions, (list, tuple))
        and len(captions) > 0
        and all(isinstance(c, pd.Series) for c in captions)
    ):
        first = captions[0].index
        for j, column in enumerate(captions[1:], start=1):
            if not column.index.equals(first):
                raise ValueError(ERR_HUMAN_COLUMNS_INDEX.format(j=j))
        return pd.DataFrame(
            {f"caption_{j}": c.to_numpy(dtype=object) for j, c in enumerate(captions)}, index=first
        )
    return captions


@dataclass(frozen=True)
class CaptionPairs:
    """The captions of LIC and DBAC, read once: group codes, and the caption rows of both sides.

    ``human`` holds ``k`` captions per image, image by image; ``model`` one per image.
    """

    codes: np.ndarray
    names: pd.Index
    human: list[str]
    model: list[str]
    n: int
    k: int
    attacker: Any
    attacker_name: str


def read_caption_pairs(
    *, groups: Any, captions_human: Any, captions_model: Any, attacker: Any
) -> CaptionPairs:
    """Check and read the inputs LIC and DBAC share (one rule for both: containers, index
    alignment, missing groups, one model caption and the same number of human captions per
    image), and the attacker (the default, or any estimator with ``fit``/``predict_proba``)."""
    if attacker is not None and not (
        hasattr(attacker, "fit") and hasattr(attacker, "predict_proba")
    ):
        raise TypeError(ERR_ATTACKER.format(got=attacker))
    aligned = align_pandas_indexes(
        groups=groups, captions_human=_human_columns(captions_human), captions_model=captions_model
    )
    if isinstance(aligned["captions_human"], pd.DataFrame):  # one column per caption position
        frame = aligned["captions_human"]
        aligned["captions_human"] = pd.Series(
            list(frame.astype(object).to_numpy()), index=frame.index, dtype=object
        )
    group_array = to_native_numpy(aligned["groups"], arg="groups").values
    if getattr(group_array, "ndim", 1) != 1:
        raise ValueError(ERR_GROUPS_SHAPE.format(shape=group_array.shape))
    # the boundary's labels reader: missing groups, 1 with '1', True with 1 refused
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", LabelWarning)  # one group: refused just below
        labels = read_labels(group_array, arg="groups")
    codes, names = labels.codes, labels.names
    n = len(labels)
    if len(names) < 2:
        raise ValueError(ERR_ONE_GROUP.format(got=list(names)))
    human, human_row, human_index = as_caption_rows(aligned["captions_human"], arg="captions_human")
    model, model_row, model_index = as_caption_rows(aligned["captions_model"], arg="captions_model")
    for arg, index in (("captions_human", human_index), ("captions_model", model_index)):
        if len(index) != n:
            raise ValueError(ERR_LENGTH.format(arg=arg, got=len(index), n=n))
    per_model = np.bincount(model_row, minlength=n)
    if (per_model != 1).any():
        row = int(np.flatnonzero(per_model != 1)[0])
        raise ValueError(ERR_MODEL_ONE.format(row=row, k=int(per_model[row])))
    per_human = np.bincount(human_row, minlength=n)
    if (per_human != per_human[0]).any():
        row = int(np.flatnonzero(per_human != per_human[0])[0])
        raise ValueError(ERR_HUMAN_COUNT.format(first=int(per_human[0]), row=row, k=per_human[row]))
    if attacker is None:  # built after the inputs are read (it imports scikit-learn)
        attacker = _default_attacker()
        attacker_name = "TF-IDF (words and word pairs) + logistic regression"
    else:
        attacker_name = repr(attacker)
    return CaptionPairs(
        codes=np.asarray(codes), names=pd.Index(names), human=list(human), model=list(model),
        n=n, k=int(per_human[0]), attacker=attacker, attacker_name=attacker_name,
    )  # fmt: skip


def split_seeds(random_state: Any, n_iter: int) -> list[np.random.SeedSequence]:
    """One seed per split, checked before any work (the one random_state rule: an int >= 0,
    a Generator, a RandomState, a SeedSequence, a BitGenerator or None); an int seeds the
    splits as it always has."""
    rng = checked_generator(random_state)  # refuses a bad seed, naming random_state
    if random_state is None or isinstance(random_state, (int, np.integer)):
        return np.random.SeedSequence(random_state).spawn(n_iter)
    return np.random.SeedSequence(int(rng.integers(2**63))).spawn(n_iter)


def amplification_over_splits(
    data_quality: np.ndarray,
    model_quality: np.ndarray,
    *,
    normalized: bool,
    ci: float,
    attacker_name: str,
) -> dict[str, Any]:
    """The fields LIC and DBAC share: per-split values (the model side's attacker score
    minus the data side's, over their sum when ``normalized``), their mean, Student-t
    interval and spread, and the attacker's description."""
    values = model_quality - data_quality
    if normalized:
        total = model_quality + data_quality
        values = np.divide(values, total, out=np.zeros_like(values), where=total > 0)
    mean, low, high = t_interval(values, ci)
    several = len(values) > 1
    return {
        "value": mean,
        "values": values,
        "data_quality": data_quality,
        "model_quality": model_quality,
        "ci": (low, high) if several else None,
        "ci_level": ci,
        "std": float(values.std(ddof=1)) if several else 0.0,
        "attacker": attacker_name,
        "attacker_reason": "default" if attacker_name.startswith("TF-IDF") else "given",
        "perturbation": "none",
        "model_accuracy": None,
    }


def lic(
    *,
    captions_human: Any,
    captions_model: Any,
    groups: Any,
    mask_words: Mapping[Any, Sequence[str]] | Sequence[str] | None = None,
    attacker: Any = None,
    n_iter: int = 5,
    test_size: float = 0.1,
    balance: bool = True,
    normalized: bool = False,
    ci: Any = UNSET,
    random_state: Any = None,
    ci_level: Any = UNSET,
    n_perm: int = 0,
) -> LICResult:
    """LIC: how much more a captioning model's captions leak the group than human captions.

    Gendered words are masked in both caption sets, which share one vocabulary;
    an attacker predicts the group from the masked human captions (LIC_D) and,
    separately, from the masked model captions (LIC_M). A test caption scores
    the attacker's confidence in its true group when the attacker is right and 0
    when it is wrong; LIC = LIC_M - LIC_D (Hirota, Nakashima & Garcia, CVPR
    2022). Every choice is documented in ``docs/text.md``.

    Parameters
    ----------
    captions_human : sequence of str, or of lists of str, shape (n,)
        Human captions of each image; with several per image (the same number
        in every row), LIC_D averages one attacker per caption position.
    captions_model : sequence of str, shape (n,)
        The model's caption of each image.
    groups : array-like of shape (n,)
        The group of the person in each image.
    mask_words : dict {group: [words]} or list of words, optional
        Words to mask; default :data:`biasamp.text.LIC_GENDER_WORDS`.
    attacker : scikit-learn estimator or pipeline, optional
        Takes a list of strings, has ``predict_proba``; default TF-IDF of words
        and word pairs + logistic regression.
    n_iter : int, default 5
        Random splits (each trains fresh attackers); they give the interval.
    n_perm : int, default 0
        Swapped data sets of the paired swap test against chance (0: no test):
        each image's human and model captions swap with probability 1/2 and the
        attackers are fitted again (``n_perm`` times the cost). Needs one human
        caption per image. The result then has ``p_value`` (one-sided: larger is
        amplification) and ``null``.
    test_size : float, default 0.1
        Held-out share (of the smallest group's size, with ``balance``).
    balance : bool, default True
        Equal numbers of rows per group in training and test (the reference);
        ``False``: a stratified split of every row.
    normalized : bool, default False
        Report (LIC_M - LIC_D) / (LIC_M + LIC_D) per iteration instead.
    ci : float, default 0.95
        Level of the Student-t interval over iterations (the keyword every metric
        uses).
    random_state : None, int or numpy Generator
        Seeds every split and every attacker.
    ci_level : float
        Deprecated spelling of ``ci`` (a :class:`DeprecationWarning`).

    Returns
    -------
    LICResult
        ``value`` (mean LIC), ``ci``, ``lic_d``, ``lic_m``, per-iteration
        ``values``, ``plot()``, ``save()``.

    Examples
    --------
    Model captions that put women in kitchens and men on skateboards leak the
    group through the context, even with "man" and "woman" masked:

    >>> import numpy as np
    >>> from biasamp import lic
    >>> rng = np.random.default_rng(0)
    >>> groups = np.array(["man", "woman"] * 200)
    >>> places = np.array(["kitchen", "skatepark"])
    >>> human = [f"a {g} in a {p}" for g, p in zip(groups, rng.choice(places, 400))]
    >>> model = [f"a {g} in a {'kitchen' if g == 'woman' else 'skatepark'}" for g in groups]
    >>> result = lic(captions_human=human, captions_model=model, groups=groups,
    ...              n_iter=3, random_state=0)
    >>> result.lic_m > 0.6, abs(result.lic_d - 0.25) < 0.15, result.value > 0.3
    (True, True, True)
    """
    level = renamed_keyword("lic", old="ci_level", old_value=ci_level, new="ci", new_value=ci)
    level = 0.95 if level is UNSET else level
    if isinstance(level, bool) or not isinstance(level, (float, np.floating)) or not 0 < level < 1:
        raise ValueError(ERR_CI.format(got=level))
    ci_level = float(level)
    n_iter = check_knob(
        "n_iter",
        n_iter,
        bytes_each=BYTES_PER_ITERATION,
        what="iterations",
        advice="use fewer iterations (n_iter).",
    )
    seeds = split_seeds(random_state, n_iter)
    if not isinstance(test_size, (float, int)) or not 0 < test_size < 1:
        raise ValueError(ERR_TEST_SIZE.format(got=test_size))
    n_perm = check_n_perm(n_perm)
    pairs = read_caption_pairs(
        groups=groups, captions_human=captions_human, captions_model=captions_model,
        attacker=attacker,
    )  # fmt: skip
    if n_perm and pairs.k != 1:
        raise ValueError(ERR_SWAP_ONE_CAPTION.format(k=pairs.k))
    if n_perm:
        check_refit_memory(n_perm, pairs.n)
    codes, names, human, model = pairs.codes, pairs.names, pairs.human, pairs.model
    n, attacker, attacker_name = pairs.n, pairs.attacker, pairs.attacker_name
    per_human = np.full(n, pairs.k)
    counts = np.bincount(codes, minlength=len(names))
    smallest = int(counts.argmin())
    if counts[smallest] * min(test_size, 1 - test_size) < 1:
        raise ValueError(
            ERR_TOO_SMALL.format(group=names[smallest], count=counts[smallest], test_size=test_size)
        )
    words = _gender_words(mask_words)
    model_text = mask_words_in(model, words)
    vocabulary = pd.Index(pd.unique(np.array(" ".join(model_text).split(), dtype=object)))
    human_text = _align(mask_words_in(human, words), vocabulary)
    k = int(per_human[0])
    human_by_position = np.array(human_text, dtype=object).reshape(n, k)
    model_array = np.array(model_text, dtype=object)
    # the captions of every side counted once, for every split (sides 0..k-1: the human
    # caption positions; side k: the model's)
    attacks = CaptionAttacks(attacker, [human_by_position[:, j] for j in range(k)] + [model_array])

    lic_d = np.empty(n_iter)
    lic_m = np.empty(n_iter)
    acc_d = np.empty(n_iter)
    acc_m = np.empty(n_iter)
    for it, seq in enumerate(seeds):  # a loop over iterations: each trains fresh attackers
        rng = np.random.default_rng(seq)
        train, test = (
            _split(codes, len(names), test_size, rng) if balance
            else _stratified(codes, test_size, rng)
        )  # fmt: skip
        seed = int(rng.integers(2**31 - 1))
        sides = [_score(attacks, j, codes, train, test, seed) for j in range(k)]
        lic_d[it] = np.mean([s for s, _ in sides])
        acc_d[it] = np.mean([a for _, a in sides])
        lic_m[it], acc_m[it] = _score(attacks, k, codes, train, test, seed)
    result = LICResult(
        metric="lic",
        direction=None,
        **amplification_over_splits(
            lic_d, lic_m, normalized=normalized, ci=ci_level, attacker_name=attacker_name
        ),
        quality="confidence in the true group when right, else 0",
        n=n,
        n_iter=int(n_iter),
        test_size=float(test_size),
        params={
            "normalized": normalized,
            "balance": balance,
            "mask_token": MASK_TOKEN,
            "human_captions_per_row": k,
            "vocabulary_size": len(vocabulary),
            "groups": [str(g) for g in names],
            "accuracy_d": float(acc_d.mean()),
            "accuracy_m": float(acc_m.mean()),
        },
    )

    labels = np.asarray(names, dtype=object)[codes]  # the groups in the captions' row order

    def run(human: Any, model: Any, seed: int) -> float:
        return lic(
            captions_human=list(human), captions_model=list(model), groups=labels,
            mask_words=mask_words, attacker=attacker, n_iter=n_iter, test_size=test_size,
            balance=balance, normalized=normalized, ci=ci_level, random_state=seed,
        ).value  # fmt: skip

    return refit_swap_test(
        result, run=run, label=list(pairs.human), output=list(pairs.model),
        label_arg="captions_human", output_arg="captions_model", n_perm=n_perm,
        random_state=random_state,
    )  # fmt: skip


def mask_words_in(captions: list[str], words: list[str]) -> list[str]:
    """Normalised captions with the gendered ``words`` replaced by the mask token."""
    return mask_words(captions, words, token=MASK_TOKEN, arg="captions")
