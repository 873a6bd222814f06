"""dpa / leakage_amplification: cv= like scikit-learn, ci (ci_level deprecated), 1-D scores."""

import re

import numpy as np
import pytest
from sklearn.model_selection import KFold, StratifiedKFold

from biasamp import dpa, leakage_amplification
from biasamp.predictability._predictability import ERR_CI_LEVEL, ERR_CV, ERR_CV_AND_ITER

RNG = np.random.default_rng(5)
N = 400
G = RNG.choice(["m", "w"], N)
T = np.where(
    G == "m", RNG.choice(["x", "y"], N, p=[0.7, 0.3]), RNG.choice(["x", "y"], N, p=[0.4, 0.6])
)
T_PRED = np.where(RNG.random(N) < 0.15, np.where(T == "x", "y", "x"), T)
G_PRED = np.where(RNG.random(N) < 0.1, np.where(G == "m", "w", "m"), G)
P_W = np.clip(np.where(G_PRED == "w", 0.8, 0.2) + RNG.normal(0, 0.1, N), 0, 1)


def _dpa(**kw):
    return dpa(direction="A->T", groups=G, tasks=T, tasks_pred=T_PRED, random_state=0, **kw)


def test_cv_forms_agree():
    folds = list(KFold(4, shuffle=True, random_state=1).split(np.zeros((N, 1))))
    from_pairs = _dpa(cv=folds)
    from_splitter = _dpa(cv=KFold(4, shuffle=True, random_state=1))
    assert from_pairs.n_iter == 4 and len(from_pairs.values) == 4
    np.testing.assert_array_equal(from_pairs.values, from_splitter.values)
    assert from_splitter.params["cv"] == "KFold"
    # an int k: k shuffled folds seeded by random_state (reproducible)
    a, b = _dpa(cv=5), _dpa(cv=5)
    assert a.n_iter == 5 and a.params["cv"] == 5
    np.testing.assert_array_equal(a.values, b.values)
    assert a.test_size == pytest.approx(0.2)


def test_stratified_splitter_gets_the_targets():
    result = leakage_amplification(
        groups=G, tasks=T, tasks_pred=T_PRED, cv=StratifiedKFold(3), random_state=0
    )
    assert result.n_iter == 3


def test_cv_errors():
    with pytest.raises(ValueError, match=re.escape(ERR_CV_AND_ITER.format(cv=3))):
        _dpa(cv=3, n_iter=5)
    with pytest.raises(ValueError, match=re.escape(ERR_CV.format(got=1))):
        _dpa(cv=1)
    with pytest.raises(ValueError, match="cv: fold 0 is not a pair"):
        _dpa(cv=[(np.arange(10), np.array([], dtype=int))])
    with pytest.raises(ValueError, match="cv: fold 0 is not a pair"):
        _dpa(cv=[(np.arange(10), np.array([N + 3]))])


def test_ci_level_is_deprecated_for_ci():
    with pytest.deprecated_call(match="ci_level= is deprecated; use ci="):
        old = _dpa(n_iter=3, ci_level=0.9)
    new = _dpa(n_iter=3, ci=0.9)
    assert old.ci == new.ci and new.ci_level == 0.9
    with pytest.deprecated_call(match="ci_level= is deprecated"):
        leakage_amplification(groups=G, tasks=T, tasks_pred=T_PRED, n_iter=2, ci_level=0.8)
    with pytest.raises(ValueError, match=re.escape(ERR_CI_LEVEL.format(got=2.0))):
        _dpa(n_iter=2, ci=2.0)
    with pytest.raises(TypeError, match="got both ci_level= .deprecated. and ci="):
        with pytest.deprecated_call():
            _dpa(n_iter=2, ci=0.9, ci_level=0.9)


def test_one_d_score_equals_two_columns_in_dpa_and_leakage():
    two = np.column_stack([1 - P_W, P_W])
    kw = {"direction": "T->A", "groups": G, "tasks": T, "random_state": 0, "n_iter": 3}
    for use_scores in (False, True):
        one_d = dpa(groups_pred=P_W, use_scores=use_scores, **kw)
        two_d = dpa(groups_pred=two, use_scores=use_scores, **kw)
        flipped = dpa(groups_pred=1 - P_W, positive_group="m", use_scores=use_scores, **kw)
        np.testing.assert_allclose(one_d.values, two_d.values, atol=1e-12, rtol=0)
        np.testing.assert_allclose(one_d.values, flipped.values, atol=1e-12, rtol=0)
    p_y = np.where(T_PRED == "y", 0.9, 0.1)
    kw = {"groups": G, "tasks": T, "random_state": 0, "n_iter": 3}
    one_d = leakage_amplification(tasks_pred=p_y, **kw)
    two_d = leakage_amplification(tasks_pred=np.column_stack([1 - p_y, p_y]), **kw)
    flipped = leakage_amplification(tasks_pred=1 - p_y, positive_label="x", **kw)
    np.testing.assert_allclose(one_d.values, two_d.values, atol=1e-12, rtol=0)
    np.testing.assert_allclose(one_d.values, flipped.values, atol=1e-12, rtol=0)
    with pytest.raises(ValueError, match="positive_label: 'q' is not one of the labels"):
        leakage_amplification(tasks_pred=p_y, positive_label="q", **kw)
