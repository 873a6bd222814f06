"""One rule for keys that print alike: every mapping keyed by labels, models or words."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

import biasamp
from biasamp.inputs._keys import ERR_KEY_TWICE, ERR_KEYS_PRINT_ALIKE, key_names
from biasamp.text import caption_bias_amplification, caption_bias_table, caption_labels

TRUTH = {"groups": ["m", "w", "w", "m", "w", "m"], "tasks": ["a", "a", "b", "b", "a", "b"]}
R1 = biasamp.directional(direction="A->T", **TRUTH, tasks_pred=["a", "a", "b", "b", "a", "b"])
R2 = biasamp.directional(direction="A->T", **TRUTH, tasks_pred=["b", "a", "a", "b", "a", "b"])


def alike(arg: str, first, second) -> str:
    return ERR_KEYS_PRINT_ALIKE.format(
        arg=arg,
        first=first,
        first_type=type(first).__name__,
        second=second,
        second_type=type(second).__name__,
        text=str(first),
    )


def test_key_names_are_the_printed_keys() -> None:
    assert key_names({"a": 0, 2: 0, 2.5: 0, None: 0}, arg="x") == ["a", "2", "2.5", "None"]
    assert key_names(pd.Index(["b", "a"]), arg="x") == ["b", "a"]


@pytest.mark.parametrize(
    ("first", "second"),
    [(1, "1"), ("1", 1), (True, "True"), (1.5, "1.5"), (np.int64(3), "3"), (None, "None")],
)
def test_keys_that_print_alike_are_refused(first, second) -> None:
    with pytest.raises(ValueError) as info:
        key_names({first: 0, second: 1}, arg="results")
    assert str(info.value) == alike("results", first, second)


def test_a_repeated_column_is_refused() -> None:
    with pytest.raises(ValueError) as info:
        key_names(pd.DataFrame([[1, 2]], columns=["a", "a"]).columns, arg="captions")
    assert str(info.value) == ERR_KEY_TWICE.format(arg="captions", key="a")


@given(st.lists(st.one_of(st.integers(-5, 5), st.text(max_size=2), st.booleans()), max_size=8))
def test_accepted_keys_always_give_distinct_names(keys) -> None:
    mapping = dict.fromkeys(keys, 0)
    try:
        names = key_names(mapping, arg="x")
    except ValueError:
        assert len({str(k) for k in mapping}) < len(mapping)
    else:
        assert names == [str(k) for k in mapping]
        assert len(set(names)) == len(mapping)


def test_compare_refuses_model_names_that_print_alike() -> None:
    with pytest.raises(ValueError) as info:
        biasamp.compare({1: R1, "1": R2})
    assert str(info.value) == alike("results", 1, "1")
    with pytest.raises(ValueError) as info:
        biasamp.compare({"m": {2: R1, "2": R2}})
    assert str(info.value) == alike("results['m']", 2, "2")
    with pytest.raises(ValueError) as info:
        biasamp.compare({"1": R1, "2": R2}, performance={1: {"acc": 0.5}, "1": {"acc": 0.6}})
    assert str(info.value) == alike("performance", 1, "1")
    frame = pd.DataFrame({"acc": [0.5, 0.6]}, index=pd.Index([1, "1"], dtype=object))
    with pytest.raises(ValueError) as info:
        biasamp.compare({"1": R1, "2": R2}, performance=frame)
    assert str(info.value) == alike("performance", 1, "1")
    # distinct keys of any type still work, named by their str()
    table = biasamp.compare({1: R1, "2": R2}, performance={1: {"acc": 0.5}, "2": {"acc": 0.6}})
    assert table["model"].tolist() == ["1", "2"]
    assert table["acc"].tolist() == [0.5, 0.6]


CAPTIONS = ["a man on skis", "a woman", "a man with a dog"]
GROUPS = ["man", "woman", "man"]
TASKS = pd.DataFrame({"skis": [1, 0, 0], "dog": [0, 0, 1]})


def test_caption_bias_table_refuses_models_that_print_alike() -> None:
    with pytest.raises(ValueError) as info:
        caption_bias_table({1: CAPTIONS, "1": CAPTIONS}, groups=GROUPS, tasks=TASKS,
                           metrics="A->T")  # fmt: skip
    assert str(info.value) == alike("captions", 1, "1")
    frame = pd.DataFrame({1: CAPTIONS, "1": CAPTIONS})
    with pytest.raises(ValueError) as info:
        caption_bias_table(frame, groups=GROUPS, tasks=TASKS, metrics="A->T")
    assert str(info.value) == alike("captions", 1, "1")
    twice = pd.DataFrame([CAPTIONS, CAPTIONS]).T.set_axis(["a", "a"], axis=1)
    with pytest.raises(ValueError) as info:
        caption_bias_table(twice, groups=GROUPS, tasks=TASKS, metrics="A->T")
    assert str(info.value) == ERR_KEY_TWICE.format(arg="captions", key="a")
    tasks = pd.DataFrame([[1, 0, 0], [0, 0, 1]]).T.set_axis([1, "1"], axis=1)
    with pytest.raises(ValueError) as info:
        caption_bias_amplification(captions=CAPTIONS, groups=GROUPS, tasks=tasks)
    assert str(info.value) == alike("tasks", 1, "1")


def test_caption_words_keyed_alike_are_refused() -> None:
    with pytest.raises(ValueError) as info:
        caption_labels(["a man"], group_words={1: ["man"], "1": ["woman"]})
    assert str(info.value) == alike("group_words", 1, "1")
    with pytest.raises(ValueError) as info:
        caption_labels(["a dog"], task_words={1: ["dog"], "1": ["cat"]})
    assert str(info.value) == alike("task_words", 1, "1")
    # integer keys alone still work and read as their str()
    labels = caption_labels(["a man", "a woman"], group_words={1: ["man"], 2: ["woman"]})
    assert labels.groups.tolist() == ["1", "2"]


def test_render_report_refuses_names_that_print_alike() -> None:
    pytest.importorskip("matplotlib")
    result = biasamp.mals(groups_train=["w", "m", "w"], tasks_train=["c", "c", "s"],
                          groups_pred=["w", "w", "m"], tasks_pred=["c", "c", "s"])  # fmt: skip
    with pytest.raises(ValueError) as info:
        biasamp.render_report(results={1: result, "1": result})
    assert str(info.value) == alike("results", 1, "1")
