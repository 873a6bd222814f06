"""The one caption normaliser: every Unicode space is a space, case is folded, NUL is refused."""

from __future__ import annotations

import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from biasamp.text import caption_labels, lic
from biasamp.text._lic import mask_words_in
from biasamp.text._tokenize import (
    ERR_TEXT_NUL,
    UNICODE_SPACES,
    mask_words,
    normalize_caption,
    normalize_phrase,
)

#: The spaces the fuzz pass found read as word breaks by ``str.split`` but not by the regexes.
ODD_SPACES = ["\u00a0", "\u2009", "\u3000", "\u2028", "\u0085", "\t", "\u202f", "\x1c"]


def test_unicode_spaces_are_every_character_split_splits_on() -> None:
    every = "".join(chr(c) for c in range(sys.maxunicode + 1) if chr(c).isspace())
    assert UNICODE_SPACES == every
    assert normalize_caption("a" + UNICODE_SPACES + "b").split() == ["a", "b"]
    assert set(normalize_caption(UNICODE_SPACES)) == {" "}


def test_case_is_folded_not_only_lowered() -> None:
    assert normalize_caption("STRASSE Straße ΣΊΣΥΦΟΣ") == "strasse strasse σίσυφοσ"
    labels = caption_labels(["eine Straße"], task_words={"street": ["STRASSE"]})
    assert labels.tasks["street"].tolist() == [1]


@pytest.mark.parametrize("space", ODD_SPACES)
def test_a_phrase_across_any_space_is_the_phrase(space: str) -> None:
    labels = caption_labels([f"a man eating a{space}hot{space}dog"], task_words=["dog", "hot_dog"])
    assert labels.tasks.to_numpy().tolist() == [[0, 1]]
    assert labels.groups.tolist() == ["man"]


@pytest.mark.parametrize("space", ODD_SPACES)
def test_masking_sees_words_after_any_space(space: str) -> None:
    assert mask_words_in([f"a{space}man and a{space}WOMAN{space}here"], ["man", "woman"]) == [
        "a genderword and a genderword here"
    ]


def test_lexicon_words_with_odd_spaces_read_as_phrases() -> None:
    assert normalize_phrase("Hot\u00a0\u3000Dog") == "hot dog"
    labels = caption_labels(["a hot dog"], task_words={"hot_dog": ["hot\u2009dog"]})
    assert labels.tasks["hot_dog"].tolist() == [1]


def test_lic_of_captions_that_differ_only_by_no_break_spaces_is_zero() -> None:
    rng = np.random.default_rng(0)
    groups = np.array(["man", "woman"] * 150)
    places = rng.choice(["kitchen", "skatepark", "office", "beach"], len(groups))
    human = [f"a {g} in the {p}" for g, p in zip(groups, places, strict=True)]
    model = [c.replace(" ", "\u00a0") for c in human]
    result = lic(captions_human=human, captions_model=model, groups=groups, n_iter=2,
                 random_state=0)  # fmt: skip
    assert np.array_equal(result.values, np.zeros(2))


@pytest.mark.parametrize(
    ("call", "arg", "text"),
    [
        (lambda: caption_labels(["a man"], task_words=["d\x00og"]), "task_words", "d\x00og"),
        (lambda: caption_labels(["a man"], task_words={"x": ["\x00"]}), "task_words", "\x00"),
        (lambda: caption_labels(["a man"], group_words={"m": ["man", "\x00"], "w": ["woman"]}),
         "group_words", "\x00"),
        (lambda: mask_words(["a man"], ["m\x00n"], token="x", arg="captions"),
         "mask_words", "m\x00n"),
        (lambda: normalize_caption("a\x00b"), "caption", "a\x00b"),
    ],
)  # fmt: skip
def test_nul_in_words_is_a_clear_value_error(call, arg: str, text: str) -> None:
    with pytest.raises(ValueError) as info:
        call()
    assert str(info.value) == ERR_TEXT_NUL.format(arg=arg, text=text)


WORDS = ["a", "man", "woman", "hot", "dog", "boy", "girl", "on", "the", "teddy", "bear",
         "Lady", "car", "cart", "with", "skis", "MEN"]  # fmt: skip
TASKS = {"dog": ["dog"], "hot_dog": ["hot dog"], "teddy_bear": ["teddy bear"], "car": ["car"],
         "bear": ["bear"], "skis": ["skis"]}  # fmt: skip
spaces = st.text(alphabet=st.sampled_from(UNICODE_SPACES), min_size=1, max_size=3)
captions = st.lists(st.lists(st.sampled_from(WORDS), min_size=1, max_size=8), min_size=1,
                    max_size=6)  # fmt: skip


@settings(max_examples=60, deadline=None)
@given(captions=captions, data=st.data())
def test_unicode_spaces_between_words_change_nothing(captions, data) -> None:
    plain = [" ".join(words) for words in captions]
    odd = [
        data.draw(spaces)
        + "".join(w + data.draw(spaces) for w in words[:-1])
        + words[-1]
        + data.draw(spaces)
        for words in captions
    ]
    a = caption_labels(plain, task_words=TASKS, mask=True)
    b = caption_labels(odd, task_words=TASKS, mask=True)
    assert a.tasks.equals(b.tasks)
    assert a.group_hits.equals(b.group_hits)
    assert a.groups.equals(b.groups)
    assert mask_words_in(plain, ["man", "woman", "lady", "men"]) == mask_words_in(
        odd, ["man", "woman", "lady", "men"]
    )


GROUPS = np.array(["man", "woman"] * 40)


@settings(max_examples=5, deadline=None)
@given(space=spaces, seed=st.integers(0, 2**16))
def test_unicode_spaces_do_not_change_lic(space: str, seed: int) -> None:
    rng = np.random.default_rng(seed)
    places = rng.choice(["kitchen", "skatepark", "office"], len(GROUPS))
    biased = np.where(GROUPS == "woman", "kitchen", "skatepark")
    human = [f"a {g} in the {p}" for g, p in zip(GROUPS, places, strict=True)]
    model = [f"a {g} in a {p}" for g, p in zip(GROUPS, biased, strict=True)]
    odd_model = [c.replace(" ", space) for c in model]
    odd_human = [c.replace(" ", space) for c in human]
    kwargs = {"groups": GROUPS, "n_iter": 2, "random_state": seed}
    a = lic(captions_human=human, captions_model=model, **kwargs)
    b = lic(captions_human=odd_human, captions_model=odd_model, **kwargs)
    assert np.array_equal(a.values, b.values)
    assert a.params["vocabulary_size"] == b.params["vocabulary_size"]
