"""Untrusted text shown safely (``results/_display.py``): invisible and control
characters escaped visibly, shortened labels kept distinct."""

from __future__ import annotations

import unicodedata

from hypothesis import given
from hypothesis import strategies as st

from biasamp.results._display import (
    INVISIBLE_CATEGORIES,
    display_text,
    distinct_short_texts,
)

RLO = "\u202e"  # RIGHT-TO-LEFT OVERRIDE


def test_bidi_and_invisible_characters_are_escaped_visibly():
    assert display_text(f"man{RLO}evil") == "man\\u202eevil"
    assert display_text("a\u2066b\u2069c") == "a\\u2066b\\u2069c"  # isolates
    assert display_text("zero\u200bwidth\ufeff") == "zero\\u200bwidth\\ufeff"
    assert display_text("tab\tnew\nline\rnul\x00del\x7fc1\x85") == (
        "tab\\tnew\\nline\\rnul\\u0000del\\u007fc1\\u0085"
    )
    assert display_text("tag\U000e0041") == "tag\\U000e0041"
    assert display_text("filler\u3164") == "filler\\u3164"
    assert display_text("line\u2028para\u2029") == "line\\u2028para\\u2029"
    assert display_text("lone\ud800") == "lone\\ud800"  # a lone surrogate: now encodable
    assert display_text("keep\nlines", keep="\n") == "keep\nlines"


def test_ordinary_text_is_unchanged():
    for text in ("café ☕", "名前", "a\\u202e literally", "<b>&</b>", "x y", "مرحبا", 12):
        assert display_text(text) == str(text)


@given(st.text())
def test_no_escaped_category_survives(text):
    shown = display_text(text)
    assert all(unicodedata.category(c) not in INVISIBLE_CATEGORIES for c in shown)
    shown.encode("utf-8")  # never fails, lone surrogates included


def test_long_labels_stay_distinct_when_shortened():
    labels = [
        "man x a rather long object name number one",
        "man x a rather long object name number two",
    ]
    short = distinct_short_texts(labels, 40)
    # cut at the end both read "man x a rather long object name numb…": start and end instead
    assert short == [
        "man x a rather long…ject name number one",
        "man x a rather long…ject name number two",
    ]
    assert len(set(short)) == 2 and all(len(s) <= 40 for s in short)
    assert short[0].endswith("number one") and short[1].endswith("number two")
    # equal labels give equal texts, short labels are left alone
    assert distinct_short_texts(["a", "b", "a"], 40) == ["a", "b", "a"]
    # same start and end: numbered
    same_ends = [
        "abc" + "x" * 30 + "1" + "y" * 30 + "def",
        "abc" + "x" * 30 + "2" + "y" * 30 + "def",
    ]
    short = distinct_short_texts(same_ends, 12)
    assert len(set(short)) == 2 and short[0].endswith(" #1") and short[1].endswith(" #2")


@given(st.lists(st.text(max_size=60), max_size=12), st.integers(1, 30))
def test_distinct_labels_give_distinct_texts(labels, limit):
    short = distinct_short_texts(labels, limit)
    assert len(short) == len(labels)
    by_label = dict(zip(labels, short, strict=True))
    assert len(set(by_label.values())) == len(by_label)
    assert all(RLO not in s for s in short)
