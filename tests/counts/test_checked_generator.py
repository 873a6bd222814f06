"""One rule for ``random_state`` where a procedure draws from a numpy Generator: the
retrieval bootstrap and the predictability attackers accept and refuse the same values."""

from __future__ import annotations

import numpy as np
import pytest

import biasamp
from biasamp.counts._poisson import ERR_RANDOM_STATE, ERR_RANDOM_STATE_NEGATIVE, checked_generator

SCORES = np.random.default_rng(0).random((5, 12))
GROUPS = ["m", "w"] * 6
G = np.array([0, 1] * 20)
T = np.array([0, 0, 1, 1] * 10)


def _retrieval(random_state):
    return biasamp.retrieval_bias(
        scores=SCORES, groups=GROUPS, k=4, n_boot=20, random_state=random_state
    )


def _dpa(random_state):
    return biasamp.dpa(
        direction="A->T", groups=G, tasks=T, tasks_pred=T, n_iter=2, random_state=random_state
    )


@pytest.mark.parametrize("run", [_retrieval, _dpa])
def test_the_same_random_state_rule_in_every_room(run):
    # a RandomState is read the same way everywhere: as numpy's default_rng reads it
    def drawn(random_state):
        result = run(random_state)
        return result.value, result.ci

    assert drawn(np.random.RandomState(3)) == drawn(np.random.RandomState(3))
    assert drawn(7) == drawn(np.random.SeedSequence(7))
    with pytest.raises(ValueError) as info:
        run(-1)
    assert str(info.value) == ERR_RANDOM_STATE_NEGATIVE.format(got=-1)
    with pytest.raises(TypeError) as info:
        run("7")
    assert str(info.value) == ERR_RANDOM_STATE.format(type_name="str")


def test_checked_generator_equals_default_rng():
    assert checked_generator(5).random() == np.random.default_rng(5).random()
    with pytest.raises(TypeError):
        checked_generator(True)
