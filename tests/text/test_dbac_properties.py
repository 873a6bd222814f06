"""dbac on the project's standard properties, with a small deterministic attacker (word counts
and naive Bayes): captions and groups in every container give the numpy value; several human
caption columns as a DataFrame, a list of Series or lists per row agree; the value does not
depend on row order once the split holds the same images; pandas arguments follow the
library's alignment rule (the order of the first pandas argument, ``groups``).

The random splits are drawn over row positions (``docs/text.md``, DBAC): a permutation of
the rows with the same ``random_state`` holds other images out, and a learned attacker then
gives another value. Everything else (masking, alignment, priors, attackers) is tested here
to be independent of row order."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.naive_bayes import MultinomialNB
from sklearn.pipeline import make_pipeline

import biasamp.text._dbac as dbac_module
from biasamp.inputs._alignment import ERR_INDEX_DIFFERS
from biasamp.text import dbac_both
from biasamp.text._lic import ERR_GROUPS_SHAPE, ERR_HUMAN_COLUMNS_INDEX
from tests.inputs.test_containers import ONE_D

pl = pytest.importorskip("polars")
torch = pytest.importorskip("torch")

N = 40
RNG = np.random.default_rng(0)
GROUPS = np.array(["m", "w"] * (N // 2))
PLACES = np.array(["kitchen with a knife", "park with a dog", "bench", "skateboard"])
HUMAN = [f"a person in a {p}" for p in RNG.choice(PLACES, N)]
HUMAN_2 = [f"someone at a {p}" for p in RNG.choice(PLACES, N)]
MODEL = [
    f"a {'woman' if g == 'w' else 'man'} in a {PLACES[0] if g == 'w' else RNG.choice(PLACES)}"
    for g in GROUPS
]


def _attacker() -> Any:
    return make_pipeline(CountVectorizer(), MultinomialNB())


KW: dict[str, Any] = {"n_iter": 2, "random_state": 0}


def _values(**kw: Any) -> dict[str, np.ndarray]:
    out = dbac_both(attacker=_attacker(), **KW, **kw)
    return {d: np.concatenate([r.values, r.data_quality, r.model_quality]) for d, r in out.items()}


def _assert_same(got: dict[str, np.ndarray], expected: dict[str, np.ndarray]) -> None:
    for direction, values in expected.items():
        np.testing.assert_array_equal(got[direction], values, err_msg=direction)


@pytest.fixture(scope="module")
def reference() -> dict[str, np.ndarray]:
    out = _values(captions_human=HUMAN, captions_model=MODEL, groups=GROUPS)
    assert all(v[0] > 0.1 for v in out.values())  # the model amplifies: not a trivial 0
    return out


CAPTIONS: dict[str, Callable[[list[str]], Any]] = {
    "list": lambda x: x,
    "tuple": tuple,
    "numpy_object": lambda x: np.array(x, dtype=object),
    "numpy_str": np.array,
    "pandas_series": pd.Series,
    "pandas_string_pyarrow": lambda x: pd.Series(x, dtype="string[pyarrow]"),
    "pandas_string_python": lambda x: pd.Series(x, dtype="string[python]"),
    "pandas_str": lambda x: pd.Series(x, dtype="str"),
    "pandas_categorical": lambda x: pd.Series(x, dtype="category"),
    "polars_series": pl.Series,
    "polars_categorical": lambda x: pl.Series(x, dtype=pl.Categorical),
    "pyarrow_array": pa.array,
    "pyarrow_chunked": lambda x: pa.chunked_array([x[:7], x[7:]]),
    "pyarrow_large_string": lambda x: pa.array(x, pa.large_string()),
}


@pytest.mark.parametrize("container", list(CAPTIONS))
def test_captions_in_every_container(container, reference):
    convert = CAPTIONS[container]
    got = _values(captions_human=convert(HUMAN), captions_model=convert(MODEL), groups=GROUPS)
    _assert_same(got, reference)


GROUP_CONTAINERS = {
    **ONE_D,
    "pyarrow_chunked": lambda x: pa.chunked_array([x[:7].tolist(), x[7:].tolist()]),
}


@pytest.mark.parametrize("container", list(GROUP_CONTAINERS))
def test_groups_in_every_container(container, reference):
    got = _values(
        captions_human=HUMAN, captions_model=MODEL, groups=GROUP_CONTAINERS[container](GROUPS)
    )
    _assert_same(got, reference)


def test_several_human_caption_columns_in_every_form():
    rows = [[a, b] for a, b in zip(HUMAN, HUMAN_2, strict=True)]
    expected = _values(captions_human=rows, captions_model=MODEL, groups=GROUPS)
    frame = pd.DataFrame({"human_1": HUMAN, "human_2": HUMAN_2})
    forms = {
        "pandas_frame": frame,
        "pandas_arrow_frame": frame.astype("string[pyarrow]"),
        "polars_frame": pl.DataFrame(frame),
        "list_of_series": [frame["human_1"], frame["human_2"]],
        "series_of_lists": pd.Series(rows),
        "tuples_per_row": [tuple(r) for r in rows],
        "arrays_per_row": list(frame.to_numpy()),
    }
    for name, human in forms.items():
        got = _values(captions_human=human, captions_model=MODEL, groups=GROUPS)
        for direction, values in expected.items():
            np.testing.assert_array_equal(got[direction], values, err_msg=name)


def test_human_columns_on_other_rows_are_refused():
    index = np.arange(100, 100 + N)
    first = pd.Series(HUMAN, index=index)
    second = pd.Series(HUMAN_2, index=index[::-1])
    with pytest.raises(ValueError, match=re.escape(ERR_HUMAN_COLUMNS_INDEX.format(j=1))):
        dbac_both(captions_human=[first, second], captions_model=MODEL, groups=GROUPS, **KW)
    with pytest.raises(ValueError, match=re.escape(ERR_GROUPS_SHAPE.format(shape=(N, 2)))):
        dbac_both(
            captions_human=HUMAN,
            captions_model=MODEL,
            groups=pd.DataFrame({"a": GROUPS, "b": GROUPS}),
            **KW,
        )


def _split_of_the_same_images(monkeypatch: Any, codes_before: np.ndarray, perm: np.ndarray):
    """Make the permuted call hold out the images the unpermuted call holds out."""
    original = dbac_module._stratified
    position = np.argsort(perm)  # position[row before] = row after the permutation

    def same_images(codes: np.ndarray, test_size: float, rng: Any) -> Any:
        assert np.array_equal(codes, codes_before[perm])
        train, test = original(codes_before, test_size, rng)  # the same draws
        return np.sort(position[train]), np.sort(position[test])

    monkeypatch.setattr(dbac_module, "_stratified", same_images)


@settings(max_examples=10, deadline=None)
@given(perm=st.permutations(list(range(N))), two_columns=st.booleans())
def test_row_order_does_not_matter_for_the_same_split(perm, two_columns):
    perm = np.asarray(perm)
    human = [[a, b] for a, b in zip(HUMAN, HUMAN_2, strict=True)] if two_columns else HUMAN
    expected = _values(captions_human=human, captions_model=MODEL, groups=GROUPS)
    codes = pd.factorize(pd.Series(GROUPS), sort=True)[0]
    with pytest.MonkeyPatch.context() as monkeypatch:
        _split_of_the_same_images(monkeypatch, codes, perm)
        got = _values(
            captions_human=[human[i] for i in perm],
            captions_model=[MODEL[i] for i in perm],
            groups=GROUPS[perm],
        )
    for direction, values in expected.items():
        np.testing.assert_allclose(got[direction], values, rtol=0, atol=1e-12, err_msg=direction)


def test_the_random_split_is_drawn_over_row_positions():
    # the documented rule: the same random_state on permuted rows holds out other images
    perm = np.random.default_rng(1).permutation(N)
    base = dbac_both(captions_human=HUMAN, captions_model=MODEL, groups=GROUPS,
                     attacker=_attacker(), **KW)  # fmt: skip
    moved = dbac_both(captions_human=[HUMAN[i] for i in perm],
                      captions_model=[MODEL[i] for i in perm], groups=GROUPS[perm],
                      attacker=_attacker(), **KW)  # fmt: skip
    assert not np.array_equal(base["dbac-t2a"].data_quality, moved["dbac-t2a"].data_quality)


def test_pandas_arguments_follow_the_order_of_groups():
    index = np.arange(500, 500 + N)
    order = np.random.default_rng(3).permutation(N)
    human = pd.Series(HUMAN, index=index)
    model = pd.Series(MODEL, index=index)
    groups = pd.Series(GROUPS, index=index).iloc[order]  # the first pandas argument
    aligned = _values(captions_human=human, captions_model=model, groups=groups)
    in_groups_order = _values(
        captions_human=[HUMAN[i] for i in order],
        captions_model=[MODEL[i] for i in order],
        groups=GROUPS[order],
    )
    _assert_same(aligned, in_groups_order)
    # several human columns as a DataFrame on the same index follow the same rule
    frame = pd.DataFrame({"h1": HUMAN, "h2": HUMAN_2}, index=index)
    aligned = _values(captions_human=frame, captions_model=model, groups=groups)
    rows = [[HUMAN[i], HUMAN_2[i]] for i in order]
    in_groups_order = _values(
        captions_human=rows, captions_model=[MODEL[i] for i in order], groups=GROUPS[order]
    )
    _assert_same(aligned, in_groups_order)
    assert ERR_INDEX_DIFFERS.startswith("{first} and {other} are pandas objects")
    with pytest.raises(ValueError, match="^groups and captions_human are pandas objects"):
        dbac_both(
            captions_human=human.reset_index(drop=True),
            captions_model=model,
            groups=groups,
            attacker=_attacker(),
            **KW,
        )
