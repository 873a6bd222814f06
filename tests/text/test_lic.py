"""LIC: planted leakage behind masked gendered words, identical caption sets, choices, bad input."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.naive_bayes import MultinomialNB
from sklearn.pipeline import make_pipeline

import biasamp
from biasamp.text import lic
from biasamp.text._lic import (
    ERR_ATTACKER,
    ERR_HUMAN_COUNT,
    ERR_LENGTH,
    ERR_MODEL_ONE,
    ERR_N_ITER,
    ERR_ONE_GROUP,
    ERR_TEST_SIZE,
    ERR_TOO_SMALL,
    _align,
)

N = 600
GROUPS = np.array(["man", "woman"] * (N // 2))
WORD = {"man": "man", "woman": "woman"}
PLACES = np.array(["kitchen", "skatepark", "office", "beach"])


def planted(rng: np.random.Generator) -> tuple[list[str], list[str]]:
    """Human captions: the place is independent of the group. Model captions: kitchen for
    women and skatepark for men, 80% of the time; the group word itself is always masked."""
    human = [f"a {WORD[g]} in the {p}" for g, p in zip(GROUPS, rng.choice(PLACES, N), strict=True)]
    biased = np.where(GROUPS == "woman", "kitchen", "skatepark")
    place = np.where(rng.random(N) < 0.8, biased, rng.choice(PLACES, N))
    model = [f"a {WORD[g]} in the {p}" for g, p in zip(GROUPS, place, strict=True)]
    return human, model


def test_planted_leakage_behind_masked_words_is_positive() -> None:
    human, model = planted(np.random.default_rng(0))
    result = lic(captions_human=human, captions_model=model, groups=GROUPS, n_iter=4,
                 random_state=0)  # fmt: skip
    assert result.value > 0.2
    assert result.ci is not None and result.ci[0] > 0
    # masked human captions carry no signal: the attacker is right half the time, with
    # confidence near 1/2, so LIC_D is near 1/4; unmasked, "man"/"woman" would give ~1.
    assert result.lic_d == pytest.approx(0.25, abs=0.08)
    assert result.lic_m > 0.5
    assert result.params["accuracy_d"] == pytest.approx(0.5, abs=0.12)
    assert result.value == pytest.approx(result.lic_m - result.lic_d)
    assert np.allclose(result.values, result.model_quality - result.data_quality)


def test_leakage_only_in_gendered_words_is_masked_away() -> None:
    human = ["a person in the park"] * N
    model = [f"a {WORD[g]} in the park" for g in GROUPS]  # only the masked word differs
    result = lic(captions_human=human, captions_model=model, groups=GROUPS, n_iter=2,
                 random_state=0)  # fmt: skip
    assert result.lic_m <= 0.5 + 1e-9
    assert result.value == pytest.approx(0.0, abs=1e-9)


def test_identical_caption_sets_give_exactly_zero() -> None:
    human, _ = planted(np.random.default_rng(0))
    result = lic(captions_human=human, captions_model=human, groups=GROUPS, n_iter=3,
                 random_state=5)  # fmt: skip
    assert np.array_equal(result.values, np.zeros(3))
    assert result.lic_d == result.lic_m


def test_several_human_captions_per_image_average_per_position() -> None:
    human, model = planted(np.random.default_rng(0))
    human_b, _ = planted(np.random.default_rng(1))
    rows = [[a, b] for a, b in zip(human, human_b, strict=True)]
    two = lic(captions_human=rows, captions_model=model, groups=GROUPS, n_iter=2, random_state=3)
    first = lic(captions_human=human, captions_model=model, groups=GROUPS, n_iter=2,
                random_state=3)  # fmt: skip
    second = lic(captions_human=human_b, captions_model=model, groups=GROUPS, n_iter=2,
                 random_state=3)  # fmt: skip
    assert two.params["human_captions_per_row"] == 2
    assert np.allclose(two.data_quality, (first.data_quality + second.data_quality) / 2)
    assert np.allclose(two.model_quality, first.model_quality)


def test_normalised_variant_and_reproducibility() -> None:
    human, model = planted(np.random.default_rng(0))
    plain = lic(captions_human=human, captions_model=model, groups=GROUPS, n_iter=3,
                random_state=7)  # fmt: skip
    norm = lic(captions_human=human, captions_model=model, groups=GROUPS, n_iter=3,
               random_state=7, normalized=True)  # fmt: skip
    d, m = plain.data_quality, plain.model_quality
    assert np.allclose(norm.values, (m - d) / (m + d))
    assert norm.name == "LIC (normalised)"
    again = lic(captions_human=human, captions_model=model, groups=GROUPS, n_iter=3,
                random_state=7)  # fmt: skip
    assert np.array_equal(plain.values, again.values)
    other = lic(captions_human=human, captions_model=model, groups=GROUPS, n_iter=3,
                random_state=8)  # fmt: skip
    assert not np.array_equal(plain.values, other.values)


def test_any_pipeline_and_unbalanced_splits() -> None:
    human, model = planted(np.random.default_rng(0))
    attacker = make_pipeline(CountVectorizer(token_pattern=r"\S+"), MultinomialNB())
    result = lic(captions_human=human, captions_model=model, groups=GROUPS, n_iter=2,
                 random_state=0, attacker=attacker, balance=False, test_size=0.25)  # fmt: skip
    assert result.value > 0.2
    assert result.attacker.startswith("Pipeline")
    assert result.attacker_reason == "given"


def test_shared_vocabulary_unknown_words() -> None:
    import pandas as pd

    assert _align(["a rare zebra", "a b", "c"], pd.Index(["a", "b"])) == ["a unk unk", "a b", "unk"]


def test_result_saves_loads_and_plots(tmp_path) -> None:
    human, model = planted(np.random.default_rng(0))
    result = biasamp.lic(captions_human=human, captions_model=model, groups=GROUPS, n_iter=2,
                         random_state=0)  # fmt: skip
    loaded = biasamp.load_result(result.save(tmp_path / "lic.json"))
    assert isinstance(loaded, biasamp.LICResult)
    assert loaded.to_dict() == result.to_dict()
    assert loaded.lic_d == result.lic_d
    assert "LIC_D" in repr(result)
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    assert result.plot() is not None


def test_bad_input_names_the_argument() -> None:
    human, model = planted(np.random.default_rng(0))
    kwargs = {"captions_human": human, "captions_model": model, "groups": GROUPS}
    for bad, message in ((0, ERR_N_ITER.format(got=0)), (1.5, ERR_N_ITER.format(got=1.5))):
        with pytest.raises(ValueError) as info:
            lic(**kwargs, n_iter=bad)
        assert str(info.value) == message
    with pytest.raises(ValueError) as info:
        lic(**kwargs, test_size=1.0)
    assert str(info.value) == ERR_TEST_SIZE.format(got=1.0)
    with pytest.raises(ValueError) as info:
        lic(**{**kwargs, "captions_model": model[:-1]})
    assert str(info.value) == ERR_LENGTH.format(arg="captions_model", got=N - 1, n=N)
    with pytest.raises(ValueError) as info:
        lic(**{**kwargs, "captions_model": [[m, m] for m in model]})
    assert str(info.value) == ERR_MODEL_ONE.format(row=0, k=2)
    with pytest.raises(ValueError) as info:
        lic(**{**kwargs, "captions_human": [[h] for h in human[:-1]] + [[human[-1]] * 2]})
    assert str(info.value) == ERR_HUMAN_COUNT.format(first=1, row=N - 1, k=2)
    with pytest.raises(ValueError) as info:
        lic(**{**kwargs, "captions_human": [3] + human[1:]})
    assert str(info.value).startswith("captions_human: row 0 is 3 (int)")
    with pytest.raises(ValueError) as info:
        lic(**{**kwargs, "groups": ["man"] * N})
    assert str(info.value) == ERR_ONE_GROUP.format(got=["man"])
    with pytest.raises(ValueError) as info:
        lic(**{**kwargs, "groups": ["man"] * (N - 3) + ["woman"] * 3})
    assert str(info.value) == ERR_TOO_SMALL.format(group="woman", count=3, test_size=0.1)
    with pytest.raises(ValueError, match=r"^groups: contains 200 missing value\(s\)"):
        lic(**{**kwargs, "groups": ["man", "woman", None] * (N // 3)})
    with pytest.raises(TypeError) as info:
        lic(**kwargs, attacker="logistic")
    assert str(info.value) == ERR_ATTACKER.format(got="logistic")
    with pytest.raises(TypeError, match="^mask_words: expected"):
        lic(**kwargs, mask_words="man")


def test_lic_tokens_are_lower_case_without_punctuation_on_both_sides() -> None:
    """Unlike the reference (nltk tokens, punctuation kept, model captions not lower-cased)."""
    from biasamp.text._lic import mask_words_in

    assert mask_words_in(["A Man's HAT.", "Her dad, on skis!"], ["man", "her", "dad"]) == [
        "a genderword s hat",
        "genderword genderword on skis",
    ]


def test_ci_is_the_interval_keyword_and_ci_level_a_deprecated_alias():
    """One spelling of the interval level for every metric: ``ci=`` (as mals, directional,
    dpa, differential_fairness ...); ``ci_level=`` still works, with a DeprecationWarning."""
    import inspect
    import re

    from biasamp.text._lic import ERR_CI

    rng = np.random.default_rng(3)
    human, model = planted(rng)
    kwargs = {"captions_human": human, "captions_model": model, "groups": GROUPS, "n_iter": 3}
    new = lic(**kwargs, ci=0.8, random_state=0)
    assert new.ci_level == 0.8
    with pytest.deprecated_call(
        match=re.escape("lic: the keyword ci_level= is deprecated; use ci=")
    ):
        old = lic(**kwargs, ci_level=0.8, random_state=0)
    assert old == new
    with pytest.raises(TypeError, match="got both ci_level= .deprecated. and ci="):
        with pytest.deprecated_call():
            lic(**kwargs, ci=0.8, ci_level=0.8)
    for bad in (1.5, 0, True, "0.9"):
        with pytest.raises(ValueError, match=re.escape(ERR_CI.format(got=bad))):
            lic(**kwargs, ci=bad)
    # every public metric with an interval level spells it ci= (the deprecated aliases last)
    spelled = {
        name: [
            p
            for p in inspect.signature(getattr(biasamp, name)).parameters
            if p in ("ci", "ci_level", "confidence", "level")
        ]
        for name in biasamp.__all__
        if callable(getattr(biasamp, name)) and not isinstance(getattr(biasamp, name), type)
    }
    levels = {name: names for name, names in spelled.items() if names}
    assert {"lic", "mals", "directional", "dpa", "differential_fairness"} <= set(levels)
    assert all(names[0] == "ci" for names in levels.values()), levels
    assert {name for name, names in levels.items() if len(names) > 1} == {
        "dpa",
        "leakage_amplification",
        "lic",
    }


def test_lic_reads_caption_columns_as_dbac_does():
    """One reader of caption pairs for LIC and DBAC: several human caption columns as a
    DataFrame, a list of Series or a list of lists per row give the same LIC, and 2-D groups
    are refused as DBAC refuses them."""
    import re

    from biasamp.text._lic import ERR_GROUPS_SHAPE

    rng = np.random.default_rng(3)
    human, model = planted(rng)
    frame = pd.DataFrame({"a": human, "b": human})
    rows = [[h, h] for h in human]
    kwargs = {"captions_model": model, "groups": GROUPS, "n_iter": 2, "random_state": 0}
    by_rows = lic(captions_human=rows, **kwargs)
    assert lic(captions_human=frame, **kwargs) == by_rows
    assert lic(captions_human=[frame["a"], frame["b"]], **kwargs) == by_rows
    with pytest.raises(
        ValueError, match=re.escape(ERR_GROUPS_SHAPE.format(shape=(len(GROUPS), 2)))
    ):
        lic(captions_human=human, captions_model=model, groups=np.column_stack([GROUPS, GROUPS]))
