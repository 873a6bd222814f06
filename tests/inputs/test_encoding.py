"""The fast label factorisation equals pandas' on fixed-width strings and falls back safely."""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from biasamp.inputs import _encoding
from biasamp.inputs._encoding import factorize_labels


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text(min_size=0, max_size=6), min_size=1, max_size=40))
def test_fixed_width_strings_match_pandas(labels):
    arr = np.array(labels)
    codes, uniques = factorize_labels(arr)
    # compared with pandas on the same array's values: numpy's fixed-width strings drop
    # trailing NUL characters, so np.array(["\x00"]) already holds "" (found by hypothesis)
    want_codes, want_uniques = pd.factorize(arr.astype(object))
    np.testing.assert_array_equal(codes, want_codes)
    assert list(uniques) == list(want_uniques)


def test_hash_collision_falls_back_to_pandas(monkeypatch):
    # a multiplier of 0 hashes every string to its last character: collisions on purpose
    monkeypatch.setattr(_encoding, "_MULTIPLIER", np.uint64(0))
    arr = np.array(["abc", "xbc", "abc", "zzc"])
    codes, uniques = factorize_labels(arr)
    assert codes.tolist() == [0, 1, 0, 2]
    assert list(uniques) == ["abc", "xbc", "zzc"]


def test_objects_and_missing_use_pandas():
    codes, uniques = factorize_labels(np.array(["a", None, "b", "a"], dtype=object))
    assert codes.tolist() == [0, -1, 1, 0]
    assert list(uniques) == ["a", "b"]
