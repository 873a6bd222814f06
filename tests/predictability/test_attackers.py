import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.linear_model import LogisticRegression
from sklearn.naive_bayes import GaussianNB
from sklearn.tree import DecisionTreeClassifier

from biasamp.predictability._attackers import (
    ERR_ATTACKER,
    ERR_EXACT_CONTINUOUS,
    ERR_SOFT_UNSUPPORTED,
    ExactAttacker,
    MLPAttacker,
    SklearnAttacker,
    pattern_codes,
    resolve_attacker,
)
from biasamp.predictability._targets import Target

binary_rows = st.integers(1, 60).flatmap(
    lambda n: st.lists(st.lists(st.integers(0, 1), min_size=3, max_size=3), min_size=n, max_size=n)
)


@settings(max_examples=40, deadline=None)
@given(binary_rows, st.booleans())
def test_pattern_codes_group_equal_rows(rows, sparse):
    X = np.array(rows, dtype=float)
    codes, n_patterns = pattern_codes(sp.csr_matrix(X) if sparse else X)
    assert n_patterns == len({tuple(r) for r in rows})
    for i in range(len(rows)):  # brute force: equal codes <=> equal rows
        for j in range(len(rows)):
            assert (codes[i] == codes[j]) == (rows[i] == rows[j])


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**31 - 1), st.integers(1, 140), st.integers(1, 300))
def test_pattern_codes_of_0_1_rows_are_their_sorted_byte_order(seed, n_tasks, n):
    """0/1 rows of any width (one word, several words, a partial last word) are coded in
    the order numpy.unique gives their packed bytes, the same for every dtype they come in."""
    rng = np.random.default_rng(seed)
    X = (rng.random((n, n_tasks)) < 0.2).astype(np.int8)
    X[: n // 3] = X[n // 3 : 2 * (n // 3)]  # repeated rows
    packed = np.ascontiguousarray(np.packbits(X != 0, axis=1))
    rows = packed.view(np.dtype((np.void, packed.shape[1]))).ravel()
    distinct, expected = np.unique(rows, return_inverse=True)
    for dtype in (np.int8, np.int64, bool, np.float32, np.float64):
        codes, n_patterns = pattern_codes(X.astype(dtype))
        assert n_patterns == distinct.size
        np.testing.assert_array_equal(codes, expected.ravel())


def test_pattern_codes_one_hot_and_integers():
    onehot = sp.csr_matrix(np.eye(3)[[2, 0, 2, 1]])
    codes, n = pattern_codes(onehot)
    assert n == 3 and codes.tolist() == [2, 0, 2, 1]
    codes, n = pattern_codes(np.array([[3, 1], [3, 1], [2, 5]]))
    assert n == 2 and codes[0] == codes[1] != codes[2]
    assert pattern_codes(np.array([[0.5], [1.0]])) is None
    assert pattern_codes(np.array([[2, 0], [0, 1]], dtype=np.int8))[1] == 2  # not 0/1: bytes


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**31 - 1), st.integers(2, 4), st.floats(0.0, 3.0))
def test_exact_attacker_is_the_smoothed_conditional_frequency(seed, k, alpha):
    rng = np.random.default_rng(seed)
    n = 40
    c = rng.integers(0, 5, n)
    y = rng.integers(0, k, n)
    train, test = np.arange(30), np.arange(30, 40)
    target = Target("multiclass", y, tuple(range(k)))
    got = ExactAttacker(alpha=alpha).fit_predict(c[train], target.take(train), c[test], 0)
    prior = np.bincount(y[train], minlength=k) / 30
    for row, code in zip(got, c[test], strict=True):  # straight from the formula
        members = y[train][c[train] == code]
        counts = np.bincount(members, minlength=k)
        denom = members.size + alpha
        expected = (counts + alpha * prior) / denom if denom > 0 else prior
        np.testing.assert_allclose(row, expected)
    # multilabel / soft path gives the same numbers as the bincount path
    soft = Target("multiclass", np.eye(k)[y], tuple(range(k)), soft=True)
    np.testing.assert_allclose(
        ExactAttacker(alpha=alpha).fit_predict(c[train], soft.take(train), c[test], 0), got
    )


def test_logistic_matches_scikit_learn_multinomial():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 4))
    y = np.argmax(X[:, :3] + rng.normal(scale=1.0, size=(300, 3)), axis=1)
    target = Target("multiclass", y, (0, 1, 2))
    ours = MLPAttacker(max_iter=500).fit_predict(X, target, X, seed=0)
    ref = LogisticRegression(C=1.0, max_iter=2000, tol=1e-10).fit(X, y).predict_proba(X)
    np.testing.assert_allclose(ours, ref, atol=2e-3)


def test_logistic_learns_soft_and_multilabel_targets():
    rng = np.random.default_rng(1)
    X = rng.integers(0, 2, size=(500, 3)).astype(float)
    p = 1 / (1 + np.exp(-(2 * X[:, 0] - 1)))
    soft = Target("multilabel", np.column_stack([p, 1 - p]), ("a", "b"), soft=True)
    out = MLPAttacker(alpha=1e-6, max_iter=500).fit_predict(X, soft, X, 0)
    np.testing.assert_allclose(out, soft.values, atol=0.02)


def test_mlp_is_seeded_and_fresh():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(200, 2))
    y = Target("multiclass", (X[:, 0] * X[:, 1] > 0).astype(np.int64), (0, 1))
    mlp = MLPAttacker(hidden_layer_sizes=(8,), max_iter=50)
    a, b = mlp.fit_predict(X, y, X, 3), mlp.fit_predict(X, y, X, 3)
    np.testing.assert_array_equal(a, b)  # nothing carried over between fits
    assert not np.allclose(a, mlp.fit_predict(X, y, X, 4))


def test_sklearn_estimator_is_cloned_and_columns_aligned():
    est = DecisionTreeClassifier(max_depth=2)
    att = SklearnAttacker(est)
    X = np.array([[0.0], [1.0], [0.0], [1.0]])
    y = Target("multiclass", np.array([2, 0, 2, 0]), ("a", "b", "c"))
    out = att.fit_predict(X, y, X, seed=1)
    np.testing.assert_allclose(out, np.eye(3)[[2, 0, 2, 0]])  # class "b" absent: column of 0
    assert not hasattr(est, "classes_")  # the user's estimator is never fitted
    multi = Target("multilabel", np.array([[1, 0], [0, 0], [1, 0], [0, 0]], float), ("x", "y"))
    np.testing.assert_allclose(att.fit_predict(X, multi, X, 1), [[1, 0], [0, 0], [1, 0], [0, 0]])


def test_sklearn_soft_targets_need_sample_weight():
    class NoWeights(GaussianNB):
        def fit(self, X, y):  # noqa: D102 - hides sample_weight
            return super().fit(X, y)

    soft = Target("multiclass", np.array([[0.3, 0.7], [0.6, 0.4]]), (0, 1), soft=True)
    with pytest.raises(TypeError) as info:
        SklearnAttacker(NoWeights()).fit_predict(np.eye(2), soft, np.eye(2), 0)
    assert info.value.args[0] == ERR_SOFT_UNSUPPORTED.format(name="NoWeights")
    out = SklearnAttacker(LogisticRegression()).fit_predict(np.eye(2), soft, np.eye(2), 0)
    assert out.shape == (2, 2)


def test_auto_choice_and_reason():
    few = sp.csr_matrix(np.eye(3)[np.arange(300) % 3])
    att, why = resolve_attacker("auto", [few], "multiclass")
    assert att.name == "exact" and "3 patterns" in why
    cont = np.random.default_rng(0).normal(size=(300, 2))
    att, why = resolve_attacker("auto", [few, cont], "multiclass")
    assert att.name == "logistic" and "continuous" in why
    many = np.random.default_rng(0).integers(0, 2, size=(300, 12))
    att, why = resolve_attacker("auto", [many], "multilabel")
    assert att.name == "logistic" and "patterns" in why
    assert resolve_attacker("auto", [cont], "continuous")[0].name == "linear"


def test_bad_attackers():
    with pytest.raises(ValueError) as info:
        resolve_attacker("svm", [np.eye(2)], "multiclass")
    assert info.value.args[0] == ERR_ATTACKER.format(got="svm")
    with pytest.raises(TypeError):
        resolve_attacker(object(), [np.eye(2)], "multiclass")
    with pytest.raises(ValueError) as info:
        ExactAttacker().prepare(np.array([[0.5]]), arg="groups")
    assert info.value.args[0] == ERR_EXACT_CONTINUOUS.format(arg="groups")
