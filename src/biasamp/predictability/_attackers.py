"""Attackers: the models that predict one variable from another.

Every predictability metric trains an attacker twice per iteration, on the
data side and on the model side. Here an attacker is a *recipe*: each
``fit_predict`` call builds a new model from scratch (a fresh initialisation
seeded by the iteration), so nothing learnt in one fit leaks into the next (the
peer package re-used its trained torch modules across trials).

Built-in attackers
------------------
``"exact"`` (:class:`ExactAttacker`)
    Conditional frequencies: the prediction for an input pattern is the mean
    of the training targets with that pattern, shrunk towards the overall mean
    by ``alpha`` pseudo-rows (``alpha=1``; patterns unseen in training get the
    overall mean). For discrete inputs with few distinct patterns this is the
    Bayes-optimal attacker under cross-entropy, it is deterministic, and it is
    instant: patterns are hashed once (bit-packed rows and ``np.unique``) and
    fitted with ``bincount`` / one sparse product.
``"logistic"`` (:class:`MLPAttacker` with no hidden layer)
    Softmax regression (multiclass), independent sigmoids (multilabel, all
    labels at once) or ridge regression (continuous), L2 penalty ``alpha=1``
    (``C=1`` in scikit-learn terms), fitted by L-BFGS from zero weights. It
    trains on soft targets (probabilities) directly.
``"mlp"`` (:class:`MLPAttacker`, two tanh hidden layers of 32)
    The same with hidden layers (the DPA paper's "MLP with two hidden
    layers"), Glorot-initialised from the iteration's seed.
scikit-learn estimators
    Any classifier with ``fit`` / ``predict_proba`` (or regressor with
    ``predict`` for continuous targets) is cloned (``sklearn.base.clone``) for
    every fit, its ``random_state`` set to the iteration's seed. Multilabel
    targets are fitted one label at a time; soft targets need ``fit`` to take
    ``sample_weight`` (each row is split into one weighted row per label).
``"auto"``
    ``"exact"`` when the inputs are discrete (integer-valued) and at least 95%
    of the rows fall in input patterns seen 10 or more times; ``"logistic"``
    otherwise. The choice and the reason are recorded on the result.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.sparse as sp

from biasamp.predictability._targets import Target

__all__ = ["ExactAttacker", "MLPAttacker", "SklearnAttacker", "pattern_codes", "resolve_attacker"]

ERR_ATTACKER = (
    "attacker: expected 'auto', 'exact', 'logistic', 'mlp', an ExactAttacker / MLPAttacker, "
    "or a scikit-learn estimator with fit and predict_proba, got {got!r}."
)
ERR_EXACT_CONTINUOUS = (
    "attacker='exact' needs discrete inputs (integer values such as labels or 0/1 "
    "indicators); {arg} has non-integer values. Use attacker='logistic' or 'mlp'."
)
ERR_NO_PREDICT_PROBA = (
    "attacker: {name} has no predict_proba; label targets need a classifier with "
    "predict_proba (for continuous targets, a regressor with predict)."
)
ERR_SOFT_UNSUPPORTED = (
    "attacker: {name}.fit takes no sample_weight, so it cannot learn from soft targets "
    "(scores); pass hard labels or use attacker='logistic' / 'mlp' / 'exact'."
)

#: "auto" uses the exact attacker when this share of rows ...
AUTO_MIN_COVERED_SHARE = 0.95
#: ... lies in input patterns seen at least this many times.
AUTO_MIN_PATTERN_COUNT = 10


# --- input patterns ----------------------------------------------------------------------


def _is_discrete(X: np.ndarray | sp.csr_matrix) -> bool:
    data = X.data if sp.issparse(X) else X
    return bool(np.all(data == np.round(data)))


def pattern_codes(X: np.ndarray | sp.csr_matrix) -> tuple[np.ndarray, int] | None:
    """Integer codes of the distinct rows of a discrete ``X`` and their number.

    Returns ``None`` when ``X`` has non-integer values. One-hot rows are coded
    by their column; 0/1 rows are bit-packed; other integer rows are compared
    as raw bytes. Codes follow the sorted order of the packed rows.
    """
    zero_one = not sp.issparse(X) and _all_zero_one(X)
    if not zero_one and not _is_discrete(X):  # 0/1 values are discrete: one pass, not two
        return None
    if sp.issparse(X):
        X = sp.csr_matrix(X)
        X.eliminate_zeros()
        counts = np.diff(X.indptr)
        if np.all(counts == 1) and np.all(X.data == 1):
            cols = X.indices
            uniq, codes = np.unique(cols, return_inverse=True)
            return codes.astype(np.int64), int(uniq.size)
        X = X.toarray()
        zero_one = bool(np.all((X == 0) | (X == 1)))
    X = np.asarray(X)
    if X.ndim == 1:
        X = X[:, None]
    if zero_one:
        packed = np.ascontiguousarray(np.packbits(X != 0, axis=1))
        return _byte_row_codes(packed)
    packed = np.ascontiguousarray(X.astype(np.float64))
    rows = packed.view(np.dtype((np.void, packed.dtype.itemsize * packed.shape[1]))).ravel()
    uniq, codes = np.unique(rows, return_inverse=True)
    return codes.reshape(-1).astype(np.int64), int(uniq.size)


def _all_zero_one(X: np.ndarray) -> bool:
    """Whether every entry is 0 or 1: the minimum and the maximum for integers and booleans
    (two cheap passes, no mask), the comparisons for floats (0.5 lies between)."""
    if X.dtype == np.bool_ or X.size == 0:
        return True
    if X.dtype.kind in "iu":
        return bool(X.min() >= 0 and X.max() <= 1)
    return bool(np.all((X == 0) | (X == 1)))


def _byte_row_codes(packed: np.ndarray) -> tuple[np.ndarray, int]:
    """Codes of the distinct rows of a (n, B) uint8 array in the byte order of the rows
    (``numpy.unique`` of the rows as raw bytes), sorted as integers: the rows zero-padded
    to whole 8-byte words read big-endian, so comparing the words compares the bytes."""
    n, width = packed.shape
    n_words = max(1, -(-width // 8))
    padded = np.zeros((n, 8 * n_words), dtype=np.uint8)
    padded[:, :width] = packed
    words = padded.view(">u8").astype(np.uint64)  # (n, W)
    order = np.lexsort(words.T[::-1])  # the first word decides first
    ordered = words[order]
    first = np.ones(n, dtype=bool)
    if n > 1:
        np.any(ordered[1:] != ordered[:-1], axis=1, out=first[1:])
    codes = np.empty(n, dtype=np.int64)
    codes[order] = np.cumsum(first) - 1
    return codes, int(first.sum())


def exact_is_suitable(codes: tuple[np.ndarray, int] | None) -> tuple[bool, str]:
    """Whether "auto" should use the exact attacker on these pattern codes, and why."""
    if codes is None:
        return False, "inputs are continuous"
    c, n_patterns = codes
    sizes = np.bincount(c, minlength=n_patterns)
    covered = sizes[c] >= AUTO_MIN_PATTERN_COUNT
    share = float(covered.mean())
    if share >= AUTO_MIN_COVERED_SHARE:
        return True, (
            f"discrete inputs, {n_patterns} patterns, {share:.1%} of rows in patterns "
            f"seen >= {AUTO_MIN_PATTERN_COUNT} times"
        )
    return False, (
        f"discrete inputs but {n_patterns} patterns; only {share:.1%} of rows in "
        f"patterns seen >= {AUTO_MIN_PATTERN_COUNT} times"
    )


# --- the exact attacker -------------------------------------------------------------------


@dataclass
class ExactAttacker:
    """Conditional-frequency attacker for discrete inputs (module docs).

    Parameters
    ----------
    alpha : float, default 1.0
        Pseudo-rows of the overall training mean added to every pattern.
    """

    alpha: float = 1.0
    name: str = field(default="exact", init=False)

    def prepare(self, X: np.ndarray | sp.csr_matrix, *, arg: str = "inputs") -> np.ndarray:
        codes = pattern_codes(X)
        if codes is None:
            raise ValueError(ERR_EXACT_CONTINUOUS.format(arg=arg))
        return codes[0]

    def fit_predict(
        self, c_train: np.ndarray, y: Target, c_test: np.ndarray, seed: int
    ) -> np.ndarray:
        n_patterns = int(max(c_train.max(initial=0), c_test.max(initial=0))) + 1
        n_rows = np.bincount(c_train, minlength=n_patterns).astype(np.float64)
        if y.kind == "multiclass" and not y.soft:
            k = y.k
            sums = np.bincount(c_train * k + y.values, minlength=n_patterns * k)
            sums = sums.reshape(n_patterns, k).astype(np.float64)
        else:
            values = np.asarray(y.values, dtype=np.float64)
            onehot = sp.csr_matrix(
                (np.ones(c_train.size), (c_train, np.arange(c_train.size))),
                shape=(n_patterns, c_train.size),
            )
            sums = np.asarray(onehot @ values)
        prior = sums.sum(axis=0) / max(c_train.size, 1)
        denom = n_rows + self.alpha
        seen = denom > 0  # with alpha=0 an unseen pattern has no rows: predict the prior
        table = np.empty_like(sums)
        table[seen] = (sums[seen] + self.alpha * prior) / denom[seen, None]
        table[~seen] = prior
        return table[c_test]


# --- logistic regression and MLP ------------------------------------------------------------


def _glorot(rng: np.random.Generator, n_in: int, n_out: int) -> np.ndarray:
    bound = np.sqrt(6.0 / (n_in + n_out))
    return rng.uniform(-bound, bound, size=(n_in, n_out))


@dataclass
class MLPAttacker:
    """A small neural attacker trained by L-BFGS; no hidden layer is logistic regression.

    Parameters
    ----------
    hidden_layer_sizes : sequence of int, default ()
        Widths of the hidden layers; ``()`` gives softmax / logistic / ridge
        regression (a convex problem, started from zero weights).
    activation : {"tanh", "relu"}, default "tanh"
    alpha : float, optional
        L2 penalty ``alpha / (2 n) * ||W||^2`` added to the mean loss; default
        1.0 without hidden layers (scikit-learn's ``C=1``), 1e-4 with them.
    max_iter : int, default 200
        L-BFGS iterations.
    """

    hidden_layer_sizes: Sequence[int] = ()
    activation: str = "tanh"
    alpha: float | None = None
    max_iter: int = 200
    name: str = "logistic"

    def prepare(self, X: np.ndarray | sp.csr_matrix, *, arg: str = "inputs") -> Any:
        if sp.issparse(X):
            return sp.csr_matrix(X, dtype=np.float64)
        X = np.asarray(X, dtype=np.float64)
        if X.ndim == 1:
            X = X[:, None]
        if np.all((X == 0) | (X == 1)):
            # sparse 0/1 inputs (multi-label tasks): CSR products are several times faster
            return sp.csr_matrix(X) if X.mean() < 0.2 else X
        scale = X.std(axis=0)
        return (X - X.mean(axis=0)) / np.where(scale > 0, scale, 1.0)

    def _shapes(self, d_in: int, d_out: int) -> list[tuple[int, int]]:
        sizes = [d_in, *[int(h) for h in self.hidden_layer_sizes], d_out]
        return [(a, b) for a, b in zip(sizes[:-1], sizes[1:], strict=True)]

    def fit_predict(self, X_train: Any, y: Target, X_test: Any, seed: int) -> np.ndarray:
        n, d_in = X_train.shape
        kind = y.kind
        if kind == "multiclass":
            d_out = y.k
            Y = y.values if y.soft else None
            codes = None if y.soft else y.values
        else:
            Y = np.asarray(y.values, dtype=np.float64)
            d_out = Y.shape[1]
            codes = None
        y_mean = y_std = None
        if kind == "continuous":
            assert Y is not None  # set above for every kind but "multiclass"
            y_mean, y_std = Y.mean(axis=0), Y.std(axis=0)
            y_std = np.where(y_std > 0, y_std, 1.0)
            Y = (Y - y_mean) / y_std
        shapes = self._shapes(d_in, d_out)
        hidden = len(shapes) > 1
        alpha = self.alpha if self.alpha is not None else (1e-4 if hidden else 1.0)
        rng = np.random.default_rng(seed)
        parts = []
        for a, b in shapes:
            w = _glorot(rng, a, b) if hidden else np.zeros((a, b))
            parts += [w.ravel(), np.zeros(b)]
        theta0 = np.concatenate(parts)
        act = np.tanh if self.activation == "tanh" else (lambda z: np.maximum(z, 0.0))

        def unpack(theta: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
            out, pos = [], 0
            for a, b in shapes:
                W = theta[pos : pos + a * b].reshape(a, b)
                pos += a * b
                out.append((W, theta[pos : pos + b]))
                pos += b
            return out

        def forward(theta: np.ndarray, X: Any) -> tuple[list[Any], np.ndarray]:
            layers = unpack(theta)
            acts = [X]
            h = X
            for W, b in layers[:-1]:
                h = act(np.asarray(h @ W) + b)
                acts.append(h)
            W, b = layers[-1]
            return acts, np.asarray(h @ W) + b

        def loss_grad(theta: np.ndarray) -> tuple[float, np.ndarray]:
            layers = unpack(theta)
            acts, z = forward(theta, X_train)
            if kind == "multiclass":
                z = z - z.max(axis=1, keepdims=True)
                logp = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
                p = np.exp(logp)
                if codes is not None:
                    loss = -logp[np.arange(n), codes].mean()
                    g = p
                    g[np.arange(n), codes] -= 1.0
                else:
                    loss = -(Y * logp).sum(axis=1).mean()
                    g = p - Y
            elif kind == "multilabel":
                # stable BCE with logits, summed over labels, mean over rows
                loss = (np.maximum(z, 0) - z * Y + np.log1p(np.exp(-np.abs(z)))).sum(axis=1).mean()
                g = 1.0 / (1.0 + np.exp(-z)) - Y
            else:
                r = z - Y
                loss = 0.5 * (r**2).sum(axis=1).mean()
                g = r
            g = g / n
            reg = 0.5 * alpha / n * sum(float((W**2).sum()) for W, _ in layers)
            grads: list[np.ndarray] = []
            for i in range(len(layers) - 1, -1, -1):
                W, _ = layers[i]
                h = acts[i]
                gW = np.asarray(h.T @ g) + alpha / n * W
                gb = g.sum(axis=0)
                grads = [gW.ravel(), gb, *grads]
                if i > 0:
                    g = np.asarray(g @ W.T)
                    if self.activation == "tanh":
                        g = g * (1.0 - acts[i] ** 2)
                    else:
                        g = g * (acts[i] > 0)
            return float(loss + reg), np.concatenate(grads)

        from scipy.optimize import minimize  # lazy: keeps `import biasamp` fast
        from threadpoolctl import threadpool_limits

        # L-BFGS-B makes many tiny BLAS calls; threaded BLAS makes them much slower
        with threadpool_limits(limits=1, user_api="blas"):
            res = minimize(
                loss_grad, theta0, jac=True, method="L-BFGS-B", options={"maxiter": self.max_iter}
            )
        _, z = forward(res.x, X_test)
        if kind == "multiclass":
            z = z - z.max(axis=1, keepdims=True)
            e = np.exp(z)
            return e / e.sum(axis=1, keepdims=True)
        if kind == "multilabel":
            return 1.0 / (1.0 + np.exp(-z))
        return z * y_std + y_mean


# --- scikit-learn estimators ------------------------------------------------------------------


@dataclass
class SklearnAttacker:
    """A scikit-learn estimator, cloned for every fit (module docs)."""

    estimator: Any
    name: str = ""

    def __post_init__(self) -> None:
        if not self.name:
            self.name = type(self.estimator).__name__

    def prepare(self, X: np.ndarray | sp.csr_matrix, *, arg: str = "inputs") -> Any:
        return X

    def _new(self, seed: int) -> Any:
        from sklearn.base import clone

        est = clone(self.estimator)
        if "random_state" in est.get_params(deep=False):
            est.set_params(random_state=seed)
        return est

    def _fit_proba(
        self, X: Any, labels: np.ndarray, weights: np.ndarray | None, X_test: Any, k: int, seed: int
    ) -> np.ndarray:
        out = np.zeros((X_test.shape[0], k))
        present = np.unique(labels if weights is None else labels[weights > 0])
        if present.size == 1:
            out[:, int(present[0])] = 1.0
            return out
        est = self._new(seed)
        if not hasattr(est, "predict_proba"):
            raise TypeError(ERR_NO_PREDICT_PROBA.format(name=self.name))
        if weights is None:
            est.fit(X, labels)
        else:
            from sklearn.utils.validation import has_fit_parameter

            if not has_fit_parameter(est, "sample_weight"):
                raise TypeError(ERR_SOFT_UNSUPPORTED.format(name=self.name))
            est.fit(X, labels, sample_weight=weights)
        proba = est.predict_proba(X_test)
        out[:, np.asarray(est.classes_, dtype=np.int64)] = proba
        return out

    @staticmethod
    def _expand(X: Any, P: np.ndarray) -> tuple[Any, np.ndarray, np.ndarray]:
        rows, labels = np.nonzero(P > 0)
        # scipy-stubs' issparse narrows Any to SparseABC, which csr_matrix() does not take
        Xe = X[rows] if not sp.issparse(X) else sp.csr_matrix(X)[rows]  # type: ignore[call-overload]
        return Xe, labels, P[rows, labels]

    def fit_predict(self, X_train: Any, y: Target, X_test: Any, seed: int) -> np.ndarray:
        if y.kind == "continuous":
            est = self._new(seed)
            Y = y.values if y.values.shape[1] > 1 else y.values.ravel()
            est.fit(X_train, Y)
            return np.asarray(est.predict(X_test), dtype=np.float64).reshape(X_test.shape[0], -1)
        if y.kind == "multiclass":
            if not y.soft:
                return self._fit_proba(X_train, y.values, None, X_test, y.k, seed)
            Xe, labels, w = self._expand(X_train, y.values)
            return self._fit_proba(Xe, labels, w, X_test, y.k, seed)
        cols = []
        for j in range(y.values.shape[1]):  # one binary problem per label
            col = y.values[:, j]
            if y.soft:
                Xe, labels, w = self._expand(X_train, np.column_stack([1.0 - col, col]))
                cols.append(self._fit_proba(Xe, labels, w, X_test, 2, seed)[:, 1])
            else:
                cols.append(
                    self._fit_proba(X_train, col.astype(np.int64), None, X_test, 2, seed)[:, 1]
                )
        return np.column_stack(cols)


# --- resolution ---------------------------------------------------------------------------------

Attacker = ExactAttacker | MLPAttacker | SklearnAttacker


def builtin_attacker(name: str, kind: str) -> Attacker:
    if name == "exact":
        return ExactAttacker()
    if name == "logistic":
        return MLPAttacker(name="linear" if kind == "continuous" else "logistic")
    if name == "mlp":
        return MLPAttacker(hidden_layer_sizes=(32, 32), name="mlp")
    raise ValueError(ERR_ATTACKER.format(got=name))


def resolve_attacker(attacker: Any, inputs: Sequence[Any], kind: str) -> tuple[Attacker, str]:
    """The attacker to use and why; ``inputs`` are the attacker inputs of every side."""
    if isinstance(attacker, (ExactAttacker, MLPAttacker, SklearnAttacker)):
        return attacker, "given"
    if isinstance(attacker, str):
        key = attacker.strip().lower()
        if key != "auto":
            return builtin_attacker(key, kind), "given"
        reasons = []
        for X in inputs:
            ok, why = exact_is_suitable(pattern_codes(X))
            reasons.append(why)
            if not ok:
                return builtin_attacker("logistic", kind), f"auto: {why}"
        return ExactAttacker(), "auto: " + "; ".join(dict.fromkeys(reasons))
    if hasattr(attacker, "fit") and (
        hasattr(attacker, "predict_proba") or hasattr(attacker, "predict")
    ):
        if kind != "continuous" and not hasattr(attacker, "predict_proba"):
            raise TypeError(ERR_NO_PREDICT_PROBA.format(name=type(attacker).__name__))
        return SklearnAttacker(attacker), "given"
    raise TypeError(ERR_ATTACKER.format(got=attacker))
