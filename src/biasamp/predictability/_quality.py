"""Quality functions Q: how well an attacker predicts its target.

DPA divides by ``Psi_M + Psi_D``, so a quality function must satisfy the rule
of section 3.2 of Tokas et al.: **0 is the worst possible attacker (no
predictability) and higher means more predictable**, with values in
``[0, inf)``. Then DPA lies in [-1, 1].

Built-in functions (``y`` is the held-out target, ``p`` the attacker's output):

``"accuracy"``
    Multiclass: share of rows whose most probable label is the true one
    (argmax of a soft target). Multilabel: share of (row, label) entries where
    ``p >= 0.5`` agrees with ``y >= 0.5`` (Hamming accuracy). In [0, 1].
``"f1"``
    Macro F1 over labels, from the same hard decisions. A label with no true
    and no predicted positives is left out of the mean (scikit-learn would
    warn and count it as 0). In [0, 1].
``"inverse_ce"`` (the DPA paper's choice, appendix I)
    ``1 / CE``. CE is the mean cross-entropy of the rows (multiclass,
    ``-sum_k y_k log p_k``) or the mean binary cross-entropy of the entries
    (multilabel, as torch's ``BCELoss``). Probabilities are clipped to
    ``[1e-12, 1 - 1e-12]``. In (0, inf).
``"one_minus_ce"``
    ``1 - CE`` (also named in section 3.2). It is negative when CE > 1,
    which breaks the [-1, 1] bound of DPA: a negative value raises
    ``ValueError`` rather than giving a meaningless number.
``"inverse_rmse"``
    ``1 / RMSE`` between target and output (appendix D.1, continuous
    targets; on labels it is one over the root Brier score). In (0, inf).

A callable ``quality(y_true, y_pred) -> float`` receives dense ``(n, k)``
arrays (one-hot for multiclass labels). Its orientation is checked once per
call of a metric: it must score a perfect attacker higher than one that only
knows the label frequencies, otherwise a ``ValueError`` says to pass, for a
loss, its inverse. Every value it returns must be finite and ``>= 0``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from biasamp.predictability._targets import Target

__all__ = ["QUALITY_FUNCTIONS", "Quality", "resolve_quality"]

ERR_QUALITY_NAME = "quality: expected one of {choices} or a callable, got {got!r}."
ERR_QUALITY_KIND = "quality={name!r} does not apply to {kind} targets; use {choices}."
ERR_QUALITY_NEGATIVE = (
    "quality={name!r} returned {value!r} on the {side} side; a quality must be finite and "
    ">= 0 (0 = no predictability). {hint}"
)
ERR_QUALITY_ORIENTATION = (
    "quality={name!r} scores a perfect attacker ({perfect:.6g}) no higher than one that only "
    "knows the label frequencies ({prior:.6g}); higher must mean more predictable "
    "(section 3.2). For a loss pass its inverse, for example lambda y, p: 1 / loss(y, p)."
)

_EPS = 1e-12


def _hard(y: Target, p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """True and predicted hard labels: codes for multiclass, 0/1 matrices for multilabel."""
    if y.kind == "multiclass":
        true = np.argmax(y.values, axis=1) if y.soft else y.values
        return true, np.argmax(p, axis=1)
    return y.values >= 0.5, p >= 0.5


def accuracy(y: Target, p: np.ndarray) -> float:
    true, pred = _hard(y, p)
    return float(np.mean(true == pred))


def macro_f1(y: Target, p: np.ndarray) -> float:
    true, pred = _hard(y, p)
    if y.kind == "multiclass":
        k = p.shape[1]
        tp = np.bincount(true[true == pred], minlength=k)
        n_true = np.bincount(true, minlength=k)
        n_pred = np.bincount(pred, minlength=k)
    else:
        tp = np.sum(true & pred, axis=0)
        n_true = true.sum(axis=0)
        n_pred = pred.sum(axis=0)
    denom = n_true + n_pred
    used = denom > 0
    if not used.any():
        return 1.0  # nothing to find and nothing predicted: every label perfectly right
    return float(np.mean(2.0 * tp[used] / denom[used]))


def cross_entropy(y: Target, p: np.ndarray) -> float:
    if y.kind == "multiclass" and not y.soft:
        p_true = np.clip(p[np.arange(y.n), y.values], _EPS, 1.0)
        return float(-np.mean(np.log(p_true)))
    p = np.clip(p, _EPS, 1.0 - _EPS)
    if y.kind == "multiclass":
        return float(-np.mean(np.sum(y.values * np.log(p), axis=1)))
    t = y.values
    return float(-np.mean(t * np.log(p) + (1.0 - t) * np.log1p(-p)))


def inverse_ce(y: Target, p: np.ndarray) -> float:
    return 1.0 / max(cross_entropy(y, p), _EPS)


def one_minus_ce(y: Target, p: np.ndarray) -> float:
    return 1.0 - cross_entropy(y, p)


def rmse(y: Target, p: np.ndarray) -> float:
    return float(np.sqrt(np.mean((y.dense() - p) ** 2)))


def inverse_rmse(y: Target, p: np.ndarray) -> float:
    return 1.0 / max(rmse(y, p), _EPS)


@dataclass(frozen=True)
class Quality:
    """A named quality function and the target kinds it applies to."""

    name: str
    func: Callable[..., float]
    kinds: tuple[str, ...]
    builtin: bool = True

    def _raw(self, y: Target, p: np.ndarray) -> float:
        return float(self.func(y, p)) if self.builtin else float(self.func(y.dense(), p))

    def __call__(self, y: Target, p: np.ndarray, *, side: str = "") -> float:
        value = self._raw(y, p)
        if not np.isfinite(value) or value < 0:
            hint = (
                "1 - cross-entropy is negative once the cross-entropy exceeds 1; "
                "use quality='inverse_ce'."
                if self.name == "one_minus_ce"
                else ""
            )
            raise ValueError(
                ERR_QUALITY_NEGATIVE.format(name=self.name, value=value, side=side, hint=hint)
            )
        return value

    def check_orientation(self, y: Target) -> None:
        """Raise unless a perfect attacker scores higher than a frequency-only one."""
        dense = y.dense()
        if y.kind == "continuous":
            perfect = dense
        else:
            perfect = np.clip(dense, 1e-6, 1 - 1e-6)
            if y.kind == "multiclass":
                perfect = perfect / perfect.sum(axis=1, keepdims=True)
        prior = np.broadcast_to(dense.mean(axis=0), dense.shape).copy()
        if np.allclose(prior, dense):
            return  # a constant target: nothing to compare
        q_perfect, q_prior = self._raw(y, perfect), self._raw(y, prior)
        if not float(q_perfect) > float(q_prior):
            raise ValueError(
                ERR_QUALITY_ORIENTATION.format(
                    name=self.name, perfect=float(q_perfect), prior=float(q_prior)
                )
            )


_LABEL_KINDS = ("multiclass", "multilabel")
QUALITY_FUNCTIONS: dict[str, Quality] = {
    "accuracy": Quality("accuracy", accuracy, _LABEL_KINDS),
    "f1": Quality("f1", macro_f1, _LABEL_KINDS),
    "inverse_ce": Quality("inverse_ce", inverse_ce, _LABEL_KINDS),
    "one_minus_ce": Quality("one_minus_ce", one_minus_ce, _LABEL_KINDS),
    "inverse_rmse": Quality(
        "inverse_rmse", inverse_rmse, ("multiclass", "multilabel", "continuous")
    ),
}
_ALIASES = {
    "macro_f1": "f1",
    "1/ce": "inverse_ce",
    "1-ce": "one_minus_ce",
    "1/rmse": "inverse_rmse",
    "acc": "accuracy",
}


def resolve_quality(quality: str | Callable[..., float], kind: str) -> Quality:
    """The :class:`Quality` for a name or callable, checked against the target kind."""
    if callable(quality):
        name = getattr(quality, "__name__", type(quality).__name__)
        return Quality(name, quality, ("multiclass", "multilabel", "continuous"), builtin=False)
    key = _ALIASES.get(str(quality).lower(), str(quality).lower())
    if key not in QUALITY_FUNCTIONS:
        raise ValueError(ERR_QUALITY_NAME.format(choices=sorted(QUALITY_FUNCTIONS), got=quality))
    q = QUALITY_FUNCTIONS[key]
    if kind not in q.kinds:
        ok = sorted(n for n, f in QUALITY_FUNCTIONS.items() if kind in f.kinds)
        raise ValueError(ERR_QUALITY_KIND.format(name=key, kind=kind, choices=ok))
    return q
