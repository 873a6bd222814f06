"""text_groups: the route from generated texts to groups (gendered nouns and pronouns)."""

from __future__ import annotations

import pandas as pd
import pytest

import biasamp
from biasamp.text import LIC_GENDER_WORDS, caption_labels, text_groups

TEXTS = [
    "She fixed the bridge; her design held.",
    "The engineer said he would check it himself.",
    "He and his sister built it.",
    "The engineer checked the design.",
    "THE NURSE SAID SHE WAS TIRED",
    "Theresa and the heron",  # 'he' inside words is not a pronoun
]


def test_pronouns_and_nouns_with_the_caption_conflict_rule():
    read = text_groups(TEXTS)
    assert read["group"].tolist() == ["woman", "man", pd.NA, pd.NA, "woman", pd.NA]
    assert read["status"].tolist() == ["one", "one", "conflict", "none", "one", "none"]


def test_same_reading_as_the_caption_parser_with_the_same_words():
    labels = caption_labels(TEXTS, group_words=LIC_GENDER_WORDS, task_words=["dog"])
    read = text_groups(TEXTS)
    assert read["group"].equals(labels.groups.rename(None)) or (
        read["group"].fillna("-").tolist() == labels.groups.fillna("-").tolist()
    )
    assert read["status"].tolist() == labels.group_status.tolist()


def test_series_index_is_kept_and_custom_words():
    texts = pd.Series(["they went", "zie went", "he went"], index=[10, 11, 12])
    read = text_groups(texts, group_words={"neo": ["zie", "zir"], "m": ["he"]})
    assert list(read.index) == [10, 11, 12]
    assert read["group"].fillna("-").tolist() == ["-", "neo", "m"]


def test_route_to_output_amplification():
    texts = ["The engineer said he was late."] * 8 + ["The engineer said she was late."] * 2
    texts += ["The nurse, she said, was late."] * 6 + ["He was the nurse."] * 3 + ["No one."]
    concepts = ["engineer"] * 10 + ["nurse"] * 10
    read = text_groups(texts)
    keep = read["status"].eq("one").to_numpy()
    reference = pd.DataFrame({"man": [70, 20], "woman": [30, 80]}, index=["engineer", "nurse"])
    result = biasamp.output_amplification(
        concepts=[c for c, k in zip(concepts, keep, strict=True) if k],
        groups=read["group"][keep].astype(str).tolist(),
        reference=reference,
    )
    assert result.value == pytest.approx(((0.8 - 0.7) + (6 / 9 - 0.8)) / 2)


def test_bad_texts_are_refused():
    with pytest.raises(ValueError, match=r"^texts: row 0 is 1 \(int\)"):
        text_groups([1, 2])
    with pytest.raises(ValueError, match="group_words"):
        text_groups(["a"], group_words={"a": ["he"], "b": ["he"]})
