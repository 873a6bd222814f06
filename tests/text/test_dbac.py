"""DBAC: hand-computed values, identical sets, planted amplification, order, containers, errors."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.base import BaseEstimator, ClassifierMixin

import biasamp
from biasamp.text import dbac, dbac_both
from biasamp.text._dbac import (
    ERR_ALIGN,
    ERR_N_ITER,
    ERR_TOO_SMALL,
    _pattern_prior,
)
from biasamp.text._lic import ERR_ATTACKER, ERR_LENGTH, ERR_TEST_SIZE


class KitchenAttacker(ClassifierMixin, BaseEstimator):
    """A deterministic attacker: P(woman) = 0.8 for a caption with "kitchen", else 0.4."""

    def fit(self, texts: list[str], codes: np.ndarray) -> KitchenAttacker:
        self.classes_ = np.unique(codes)
        return self

    def predict_proba(self, texts: list[str]) -> np.ndarray:
        woman = np.array([0.8 if "kitchen" in t.split() else 0.4 for t in texts])
        return np.column_stack([1 - woman, woman])


TINY_GROUPS = np.array(["man", "woman"] * 5)
TINY_HUMAN = ["a person in a kitchen with a knife"] * 10
TINY_MODEL = [
    "a woman in a kitchen with a knife" if g == "woman" else "a man in a park with a dog"
    for g in TINY_GROUPS
]


def test_tiny_corpus_against_hand_computed_values() -> None:
    # Human captions all say "kitchen": p(true group) is 0.2 for a man, 0.8 for a woman; one
    # test row per group (test_size 0.2 of five), so Psi_D(T->A) = (0.2 + 0.8) / 2 = 0.5.
    # Model: a woman is in the kitchen (0.8), a man is not (P(man) = 0.6): Psi_M = 0.7.
    # DBAC T->A = (0.7 - 0.5) / (0.7 + 0.5) = 1/6.
    # A->T: every human caption mentions {person, knife}: P(t) = 1, P(a) = 1/2, so
    # Psi_D = 2 * 0.5 = 1. The model mentions {knife} for women and {dog} for men:
    # P(t) = 1/2, Psi_M = 0.7 * (1/2) / (1/2) = 0.7. DBAC A->T = (0.7 - 1) / 1.7 = -3/17.
    both = dbac_both(captions_human=TINY_HUMAN, captions_model=TINY_MODEL, groups=TINY_GROUPS,
                     attacker=KitchenAttacker(), n_iter=3, random_state=0)  # fmt: skip
    t2a, a2t = both["dbac-t2a"], both["dbac-a2t"]
    assert list(both) == ["dbac-a2t", "dbac-t2a"]  # keyed by the registry's canonical names
    assert (t2a.metric, t2a.family, a2t.metric) == ("dbac-t2a", "dbac", "dbac-a2t")
    # the keys of earlier releases still read the same results, with a FutureWarning
    for old, new in (("T->A", "dbac-t2a"), ("A->T", "dbac-a2t")):
        with pytest.warns(FutureWarning, match=f"'{old}' is deprecated; use '{new}'"):
            assert both[old] is both[new]
        with pytest.warns(FutureWarning):
            assert old in both and both.get(old) is both[new]
    assert np.allclose(t2a.data_quality, 0.5) and np.allclose(t2a.model_quality, 0.7)
    assert np.allclose(t2a.values, 1 / 6)
    assert t2a.value == pytest.approx(1 / 6)
    assert np.allclose(a2t.data_quality, 1.0) and np.allclose(a2t.model_quality, 0.7)
    assert a2t.value == pytest.approx(-3 / 17)
    assert t2a.ci == pytest.approx((1 / 6, 1 / 6))
    plain = dbac(direction="T->A", captions_human=TINY_HUMAN, captions_model=TINY_MODEL,
                 groups=TINY_GROUPS, attacker=KitchenAttacker(), n_iter=2, normalized=False,
                 random_state=0)  # fmt: skip
    assert plain.value == pytest.approx(0.2)
    assert plain.name == "DBAC T->A (difference)"
    # what was masked: "woman" and "man" in the five + five model captions, nothing human
    assert t2a.params["n_masked_model"] == 10 and t2a.params["n_masked_human"] == 0
    # alignment: "genderword", "park", "dog" are not human words (10 + 5 + 5 = 20 unk);
    # "person" is not a model word (10 unk)
    assert t2a.params["n_unknown_model"] == 20 and t2a.params["n_unknown_human"] == 10
    assert t2a.params["object_patterns_human"] == 1 and t2a.params["object_patterns_model"] == 2


def test_pattern_prior_is_the_share_of_rows_with_the_same_object_set() -> None:
    tasks = np.array([[1, 0], [1, 0], [0, 0], [1, 1]])
    assert np.allclose(_pattern_prior(tasks), [0.5, 0.5, 0.25, 0.25])


N = 600
GROUPS = np.array(["man", "woman"] * (N // 2))
PLACES = np.array(["a kitchen with a knife", "a skatepark with a skateboard", "an office",
                   "a beach with a surfboard"])  # fmt: skip


def planted(rng: np.random.Generator) -> tuple[list[str], list[str]]:
    """Human captions: the place is independent of the group. Model captions: kitchen and
    knife for women, skatepark and skateboard for men, 80% of the time."""
    human = [f"a {g} in {p}" for g, p in zip(GROUPS, rng.choice(PLACES, N), strict=True)]
    biased = np.where(GROUPS == "woman", PLACES[0], PLACES[1])
    place = np.where(rng.random(N) < 0.8, biased, rng.choice(PLACES, N))
    return human, [f"a {g} in {p}" for g, p in zip(GROUPS, place, strict=True)]


def test_identical_caption_sets_give_zero_in_both_directions() -> None:
    human, _ = planted(np.random.default_rng(0))
    both = dbac_both(captions_human=human, captions_model=list(human), groups=GROUPS, n_iter=3,
                     random_state=4)  # fmt: skip
    for result in both.values():
        assert np.array_equal(result.values, np.zeros(3))
        assert result.psi_d == result.psi_m


def test_planted_amplification_is_found_in_both_directions() -> None:
    human, model = planted(np.random.default_rng(1))
    both = dbac_both(captions_human=human, captions_model=model, groups=GROUPS, n_iter=4,
                     random_state=0)  # fmt: skip
    t2a, a2t = both["dbac-t2a"], both["dbac-a2t"]
    assert t2a.psi_d == pytest.approx(0.5, abs=0.05)  # masked human captions carry nothing
    assert t2a.psi_m > 0.75
    assert t2a.value > 0.15 and t2a.ci is not None and t2a.ci[0] > 0
    assert a2t.value > 0.15 and a2t.ci is not None and a2t.ci[0] > 0
    # reversed roles: the model is less biased than the humans
    back = dbac(direction="T->A", captions_human=model, captions_model=human, groups=GROUPS,
                n_iter=4, random_state=0)  # fmt: skip
    assert back.value < -0.15


def test_several_human_captions_per_image_average_one_attacker_per_position() -> None:
    human, model = planted(np.random.default_rng(0))
    other, _ = planted(np.random.default_rng(2))
    rows = [[a, b] for a, b in zip(human, other, strict=True)]
    two = dbac(direction="T->A", captions_human=rows, captions_model=model, groups=GROUPS,
               n_iter=2, random_state=3, align="none")  # fmt: skip
    first = dbac(direction="T->A", captions_human=human, captions_model=model, groups=GROUPS,
                 n_iter=2, random_state=3, align="none")  # fmt: skip
    second = dbac(direction="T->A", captions_human=other, captions_model=model, groups=GROUPS,
                  n_iter=2, random_state=3, align="none")  # fmt: skip
    assert two.params["human_captions_per_row"] == 2
    assert np.allclose(two.data_quality, (first.data_quality + second.data_quality) / 2)
    assert np.allclose(two.model_quality, first.model_quality)


def test_reproducible_from_random_state() -> None:
    human, model = planted(np.random.default_rng(0))
    kwargs = {"direction": "A->T", "captions_human": human, "captions_model": model,
              "groups": GROUPS, "n_iter": 3}  # fmt: skip
    a, b = dbac(**kwargs, random_state=7), dbac(**kwargs, random_state=7)
    assert np.array_equal(a.values, b.values)
    assert not np.array_equal(a.values, dbac(**kwargs, random_state=8).values)


@settings(max_examples=15, deadline=None)
@given(st.permutations(list(range(10))))
def test_row_order_does_not_matter(order: list[int]) -> None:
    index = np.array(order)
    kwargs = {"attacker": KitchenAttacker(), "n_iter": 2, "random_state": 0}
    base = dbac_both(captions_human=TINY_HUMAN, captions_model=TINY_MODEL, groups=TINY_GROUPS,
                     **kwargs)  # fmt: skip
    moved = dbac_both(captions_human=[TINY_HUMAN[i] for i in index],
                      captions_model=[TINY_MODEL[i] for i in index],
                      groups=TINY_GROUPS[index], **kwargs)  # fmt: skip
    for direction in ("dbac-a2t", "dbac-t2a"):
        assert moved[direction].value == pytest.approx(base[direction].value, abs=1e-12)


def test_any_container_equals_numpy() -> None:
    human, model = planted(np.random.default_rng(0))
    index = pd.RangeIndex(N)
    forms = [
        (np.array(human, dtype=object), np.array(model, dtype=object), GROUPS),
        (human, model, list(GROUPS)),
        (pd.Series(human, index=index), pd.Series(model, index=index), pd.Series(GROUPS)),
        (tuple(human), tuple(model), tuple(GROUPS)),
    ]
    values = [
        dbac(direction="T->A", captions_human=h, captions_model=m, groups=g, n_iter=2,
             random_state=1).values
        for h, m, g in forms
    ]  # fmt: skip
    for other in values[1:]:
        assert np.array_equal(values[0], other)


def test_result_saves_loads_compares_and_plots(tmp_path) -> None:
    human, model = planted(np.random.default_rng(0))
    both = dbac_both(captions_human=human, captions_model=model, groups=GROUPS, n_iter=2,
                     random_state=0)  # fmt: skip
    result = both["dbac-a2t"]
    loaded = biasamp.load_result(result.save(tmp_path / "dbac.json"))
    assert isinstance(loaded, biasamp.DBACResult)
    assert loaded == result
    assert loaded.to_dict() == result.to_dict()
    assert loaded != both["dbac-t2a"]
    assert "Psi_D" in repr(result) and "DBAC A->T" in repr(result)
    table = biasamp.compare({"model": [both["dbac-a2t"], both["dbac-t2a"]]})
    assert list(table["metric"]) == ["dbac-a2t", "dbac-t2a"]
    assert table["value"].tolist() == [both["dbac-a2t"].value, both["dbac-t2a"].value]
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    assert result.plot() is not None


def test_bad_input_names_the_argument() -> None:
    kwargs = {"captions_human": TINY_HUMAN, "captions_model": TINY_MODEL, "groups": TINY_GROUPS}
    with pytest.raises(ValueError, match="direction: expected one of 'A->T'") as info:
        dbac(direction="A-T", **kwargs)
    assert "'T->A'" in str(info.value) and "got 'A-T'" in str(info.value)
    spelled = dbac(direction="t2a", **kwargs, attacker=KitchenAttacker(), n_iter=2)
    assert spelled.direction == "T->A"
    for bad in (0, 2.0, True):
        with pytest.raises(ValueError) as info:
            dbac(direction="T->A", **kwargs, n_iter=bad)
        assert str(info.value) == ERR_N_ITER.format(got=bad)
    with pytest.raises(ValueError) as info:
        dbac(direction="T->A", **kwargs, test_size=0.0)
    assert str(info.value) == ERR_TEST_SIZE.format(got=0.0)
    with pytest.raises(ValueError) as info:
        dbac(direction="T->A", **kwargs, align="left")
    assert str(info.value) == ERR_ALIGN.format(choices=("both", "human", "none"), got="left")
    with pytest.raises(TypeError) as info:
        dbac(direction="T->A", **kwargs, attacker="logreg")
    assert str(info.value) == ERR_ATTACKER.format(got="logreg")
    with pytest.raises(ValueError) as info:
        dbac(direction="T->A", **{**kwargs, "captions_model": TINY_MODEL[:-1]})
    assert str(info.value) == ERR_LENGTH.format(arg="captions_model", got=9, n=10)
    with pytest.raises(ValueError) as info:
        dbac(direction="T->A", **{**kwargs, "groups": ["man"] * 9 + ["woman"]})
    assert str(info.value) == ERR_TOO_SMALL.format(group="woman", count=1, test_size=0.2)
    with pytest.raises(ValueError, match="captions_human: row 1"):
        dbac(direction="T->A", **{**kwargs, "captions_human": ["a", 3] + TINY_HUMAN[2:]})


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 40), st.integers(0, 20), st.integers(0, 2**32 - 1))
def test_packed_pattern_prior_equals_brute_force(n_rows: int, n_tasks: int, seed: int) -> None:
    tasks = (np.random.default_rng(seed).random((n_rows, n_tasks)) < 0.3).astype(np.int8)
    rows = [tuple(r) for r in tasks.tolist()]
    expected = [rows.count(r) / n_rows for r in rows]
    assert np.allclose(_pattern_prior(tasks), expected)
