"""Accuracy matching: perturb the ground truth until it is as accurate as the model.

Both predictability papers compare an attacker trained on the ground truth
with one trained on the model's outputs. The model's outputs contain errors
that the ground truth does not, and random errors alone lower predictability.
To keep model errors apart from bias, the ground truth is perturbed at random
until its accuracy equals the model's (Wang et al. 2019; Tokas et al. section
3.1). A fresh perturbation is drawn in every iteration.

Accuracy
--------
* **Multiclass** (one label per row): the share of rows whose predicted label
  (argmax of scores) equals the true one.
* **Multilabel** (0/1 indicators, rows may hold zero or several labels): the
  share of (row, label) entries where the prediction (score ``>= 0.5``) agrees
  with the truth, i.e. one minus the Hamming loss.

Schemes
-------
``"paper"`` (DPA, Tokas et al. 2025; the peer package ``permuteData``)
    Flip exactly ``round((1 - accuracy) * n)`` rows chosen without replacement
    (multiclass; a flipped row gets a label drawn uniformly from the *other*
    labels, which for two labels is the opposite one), or exactly
    ``round((1 - accuracy) * n * k)`` entries (multilabel; 0 <-> 1). The
    perturbed truth has the model's accuracy up to rounding.
``"per_entry"`` (Wang et al. 2019, ``natural_leakage.py``)
    Every row (multiclass) or entry (multilabel) flips independently with
    probability ``1 - accuracy``; the accuracy matches in expectation.
    Wang et al. chose the flip probability by matching macro F1 on COCO; we
    match accuracy, as the DPA paper does, so both schemes target one number.
``"confusion"`` (biasamp)
    Within each true label (multiclass) or each (label, true value) cell
    (multilabel), the model's outputs are shuffled among the rows. The result
    has exactly the model's confusion matrix, per label, but its errors are
    placed at random, independent of the other variable.
``"none"``
    No perturbation (required for continuous targets).
"""

from __future__ import annotations

import numpy as np

from biasamp.predictability._targets import Target

__all__ = ["PERTURBATIONS", "match_accuracy", "model_accuracy"]

PERTURBATIONS = ("paper", "per_entry", "confusion", "none")
ERR_PERTURBATION = "perturbation: expected one of {choices}, got {got!r}."
ERR_PERTURB_CONTINUOUS = (
    "perturbation={got!r} needs label targets; continuous targets take perturbation='none'."
)


def model_accuracy(truth: Target, pred: Target) -> float:
    """Accuracy of the model's hard outputs against the truth (module docs)."""
    if truth.kind == "continuous":
        return float("nan")
    hard = pred.hard()
    if truth.kind == "multiclass":
        return float(np.mean(truth.values == hard.values))
    return float(np.mean(truth.values == hard.values))


def _paper(truth: Target, accuracy: float, rng: np.random.Generator) -> np.ndarray:
    values = truth.values.copy()
    if truth.kind == "multiclass":
        n = values.shape[0]
        m = int(round((1.0 - accuracy) * n))
        rows = rng.choice(n, size=m, replace=False)
        values[rows] = (values[rows] + rng.integers(1, truth.k, size=m)) % truth.k
        return values
    flat = values.reshape(-1)
    m = int(round((1.0 - accuracy) * flat.size))
    entries = rng.choice(flat.size, size=m, replace=False)
    flat[entries] = 1.0 - flat[entries]
    return values


def _per_entry(truth: Target, accuracy: float, rng: np.random.Generator) -> np.ndarray:
    values = truth.values.copy()
    flip = rng.random(values.shape) < (1.0 - accuracy)
    if truth.kind == "multiclass":
        shift = rng.integers(1, truth.k, size=values.shape[0])
        return np.where(flip, (values + shift) % truth.k, values)
    return np.where(flip, 1.0 - values, values)


def _confusion(truth: Target, pred: Target, rng: np.random.Generator) -> np.ndarray:
    hard = pred.hard().values
    true = truth.values
    if truth.kind == "multiclass":
        # sort rows by (true label, random key): rows of one label form a block in
        # random order; giving each block the model's outputs of that label in
        # sorted order places them at random within the label
        order = np.lexsort((rng.random(int(true.shape[0])), true))
        by_label = np.argsort(true, kind="stable")
        out = np.empty_like(true)
        out[order] = hard[by_label]
        return out
    keys = rng.random(true.shape)
    order = np.argsort(true * 2.0 + keys, axis=0, kind="stable")
    by_value = np.argsort(true, axis=0, kind="stable")
    out = np.empty_like(true)
    cols = np.arange(true.shape[1])[None, :]
    out[order, cols] = hard[by_value, cols]
    return out


def match_accuracy(
    truth: Target,
    pred: Target,
    *,
    scheme: str,
    rng: np.random.Generator,
    accuracy: float | None = None,
) -> Target:
    """A perturbed copy of ``truth`` as accurate as ``pred`` (module docs).

    Parameters
    ----------
    truth : Target
        Hard ground truth (multiclass or multilabel).
    pred : Target
        The model's outputs on the same rows.
    scheme : {"paper", "per_entry", "confusion", "none"}
    rng : numpy.random.Generator
    accuracy : float, optional
        The model's accuracy, if already computed.
    """
    if scheme not in PERTURBATIONS:
        raise ValueError(ERR_PERTURBATION.format(choices=PERTURBATIONS, got=scheme))
    if scheme == "none":
        return truth
    if truth.kind == "continuous":
        raise ValueError(ERR_PERTURB_CONTINUOUS.format(got=scheme))
    if scheme == "confusion":
        return truth.with_values(_confusion(truth, pred, rng))
    acc = model_accuracy(truth, pred) if accuracy is None else accuracy
    if acc >= 1.0:
        return truth
    if scheme == "paper":
        return truth.with_values(_paper(truth, acc, rng))
    return truth.with_values(_per_entry(truth, acc, rng))
