import numpy as np
import pytest

from biasamp.predictability._perturbation import (
    ERR_PERTURB_CONTINUOUS,
    ERR_PERTURBATION,
    match_accuracy,
    model_accuracy,
)
from biasamp.predictability._targets import Target


def mc(codes, k):
    return Target("multiclass", np.asarray(codes, dtype=np.int64), tuple(range(k)))


def ml(values):
    values = np.asarray(values, dtype=float)
    return Target("multilabel", values, tuple(range(values.shape[1])))


@pytest.fixture
def multiclass_pair():
    rng = np.random.default_rng(1)
    truth = mc(rng.integers(0, 5, 1000), 5)
    pred = truth.values.copy()
    wrong = rng.random(1000) < 0.27
    pred[wrong] = (pred[wrong] + 1) % 5
    return truth, mc(pred, 5)


@pytest.fixture
def multilabel_pair():
    rng = np.random.default_rng(2)
    truth = ml(rng.random((400, 6)) < 0.2)
    flip = rng.random((400, 6)) < 0.1
    return truth, ml(np.where(flip, 1 - truth.values, truth.values))


def test_paper_scheme_hits_the_accuracy_exactly(multiclass_pair, multilabel_pair):
    truth, pred = multiclass_pair
    acc = model_accuracy(truth, pred)
    out = match_accuracy(truth, pred, scheme="paper", rng=np.random.default_rng(0))
    assert np.sum(out.values != truth.values) == round((1 - acc) * 1000)
    assert model_accuracy(truth, out) == pytest.approx(acc)
    truth2, pred2 = multilabel_pair
    acc2 = model_accuracy(truth2, pred2)  # Hamming accuracy
    assert acc2 == np.mean(truth2.values == pred2.values)
    out2 = match_accuracy(truth2, pred2, scheme="paper", rng=np.random.default_rng(0))
    assert np.sum(out2.values != truth2.values) == round((1 - acc2) * truth2.values.size)


def test_per_entry_matches_in_expectation(multiclass_pair):
    truth, pred = multiclass_pair
    acc = model_accuracy(truth, pred)
    accs = [
        model_accuracy(
            truth, match_accuracy(truth, pred, scheme="per_entry", rng=np.random.default_rng(s))
        )
        for s in range(30)
    ]
    assert np.mean(accs) == pytest.approx(acc, abs=0.01)
    assert np.std(accs) > 0  # not an exact count


def test_confusion_scheme_reproduces_the_confusion_matrix(multiclass_pair, multilabel_pair):
    truth, pred = multiclass_pair
    out = match_accuracy(truth, pred, scheme="confusion", rng=np.random.default_rng(0))

    def confusion(a, b):
        return np.bincount(a * 5 + b, minlength=25)

    assert np.array_equal(confusion(truth.values, out.values), confusion(truth.values, pred.values))
    assert not np.array_equal(out.values, pred.values)  # errors moved to other rows
    truth2, pred2 = multilabel_pair
    out2 = match_accuracy(truth2, pred2, scheme="confusion", rng=np.random.default_rng(0))
    for value in (0, 1):
        rows = truth2.values == value
        assert np.array_equal((out2.values * rows).sum(axis=0), (pred2.values * rows).sum(axis=0))


def test_reproducible_and_fresh(multiclass_pair):
    truth, pred = multiclass_pair
    a = match_accuracy(truth, pred, scheme="paper", rng=np.random.default_rng(5)).values
    b = match_accuracy(truth, pred, scheme="paper", rng=np.random.default_rng(5)).values
    c = match_accuracy(truth, pred, scheme="paper", rng=np.random.default_rng(6)).values
    assert np.array_equal(a, b) and not np.array_equal(a, c)


def test_perfect_model_and_none_leave_truth(multiclass_pair):
    truth, pred = multiclass_pair
    assert match_accuracy(truth, truth, scheme="paper", rng=np.random.default_rng(0)) is truth
    assert match_accuracy(truth, pred, scheme="none", rng=np.random.default_rng(0)) is truth


def test_soft_predictions_use_argmax():
    truth = mc([0, 1, 1, 0], 2)
    soft = Target(
        "multiclass", np.array([[0.8, 0.2], [0.3, 0.7], [0.6, 0.4], [0.9, 0.1]]), (0, 1), soft=True
    )
    assert model_accuracy(truth, soft) == 0.75


def test_errors():
    truth = mc([0, 1], 2)
    with pytest.raises(ValueError) as info:
        match_accuracy(truth, truth, scheme="flip", rng=np.random.default_rng(0))
    assert "flip" in info.value.args[0] and ERR_PERTURBATION.split(":")[0] in info.value.args[0]
    cont = Target("continuous", np.zeros((2, 1)), (0,))
    with pytest.raises(ValueError, match=ERR_PERTURB_CONTINUOUS.format(got="paper")[:30]):
        match_accuracy(cont, cont, scheme="paper", rng=np.random.default_rng(0))
