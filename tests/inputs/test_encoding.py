"""The fast label factorisation equals pandas' on fixed-width strings and falls back safely."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from biasamp.inputs import _encoding
from biasamp.inputs._encoding import factorize_labels, sorted_short_string_codes


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


def _check_against_pandas_and_unique(arr):
    """Codes/uniques equal pandas' first-seen factorisation and agree with np.unique."""
    codes, uniques = factorize_labels(arr)
    want_codes, want_uniques = pd.factorize(arr.astype(object))
    np.testing.assert_array_equal(codes, want_codes)
    assert [u.item() if isinstance(u, np.generic) else u for u in uniques] == list(want_uniques)
    sorted_uniques, inverse = np.unique(arr, return_inverse=True)
    # the same partition of the rows as np.unique, and the same distinct labels
    assert sorted(uniques.tolist()) == sorted_uniques.tolist()
    order = np.argsort(np.asarray(uniques.tolist(), dtype=arr.dtype), kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    np.testing.assert_array_equal(rank[codes], inverse.ravel())
    return codes, uniques


# every packing of the exact path (code points < 256 up to 8 characters, < 65,536 up
# to 4, any up to 2) and the hashed path beyond them; empty strings and NUL characters
_ALPHABETS = {
    "latin1": st.characters(max_codepoint=255),
    "bmp": st.characters(max_codepoint=0xFFFF, exclude_categories=("Cs",)),
    "any": st.characters(exclude_categories=("Cs",)),
    "nul_and_a": st.sampled_from(["\x00", "a", "\xff"]),
}


@settings(max_examples=80, deadline=None)
@given(
    st.sampled_from(sorted(_ALPHABETS)).flatmap(
        lambda name: st.lists(
            st.text(_ALPHABETS[name], min_size=0, max_size=10), min_size=1, max_size=40
        )
    )
)
def test_unicode_strings_every_packing(labels):
    _check_against_pandas_and_unique(np.array(labels))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.binary(min_size=0, max_size=10), min_size=1, max_size=40))
def test_byte_strings(labels):
    codes, uniques = _check_against_pandas_and_unique(np.array(labels, dtype="S"))
    assert uniques.dtype.kind in "SO"


@pytest.mark.parametrize(
    "labels",
    [
        ["man", "woman", "woman", "man"],  # ragged widths, 8 characters or fewer
        ["a\x00b", "ab", "a", "a\x00b"],  # NUL inside a label is part of it
        ["\x00a", "a", "\x00a"],
        ["", "x", ""],  # the empty string is a label
        ["é", "e", "ß", "é"],  # Latin-1
        ["żółw", "жук", "żółw"],  # up to 4 characters below 65,536
        ["🙂", "a🙂", "🙂"],  # astral code points, 2 characters
        ["🙂🙂🙂", "🙂🙂", "🙂🙂🙂"],  # astral, beyond the packing: hashed
        ["abcdefghi", "abcdefgh", "abcdefghi"],  # 9 characters: hashed
        ["x" * 40, "y" * 40, "x" * 40],
    ],
)
def test_fixed_width_cases(labels):
    arr = np.array(labels)
    codes, uniques = _check_against_pandas_and_unique(arr)
    assert uniques.dtype == arr.dtype
    # also as big-endian strings and as a strided (non-contiguous) view
    _check_against_pandas_and_unique(arr.astype(arr.dtype.newbyteorder(">")))
    _check_against_pandas_and_unique(np.repeat(arr, 2)[::2])
    # and object arrays of the same strings go through pandas with the same result
    object_codes, object_uniques = factorize_labels(arr.astype(object))
    np.testing.assert_array_equal(object_codes, codes)
    assert list(object_uniques) == uniques.tolist()


def test_packed_path_is_taken_and_exact(monkeypatch):
    # a multiplier of 0 would break the hashed path; short labels never reach it
    monkeypatch.setattr(_encoding, "_MULTIPLIER", np.uint64(0))
    arr = np.array(["abc", "xbc", "abc", "zzc", "żbc"])
    codes, uniques = factorize_labels(arr)
    assert codes.tolist() == [0, 1, 0, 2, 3]
    assert uniques.tolist() == ["abc", "xbc", "zzc", "żbc"]
    assert _encoding._factorize_packed(_encoding._words(arr), arr.dtype) is not None
    wide = np.array(["🙂🙂🙂"])
    assert _encoding._factorize_packed(_encoding._words(wide), wide.dtype) is None


def test_large_array_first_seen_order():
    rng = np.random.default_rng(0)
    arr = rng.choice(np.array(["woman", "man", "nonbinary", "", "é"]), size=100_000)
    _check_against_pandas_and_unique(arr)


@pytest.mark.parametrize(
    "keys",
    [[7, 7, 7], [7, 3, 7, 3], [3, 7, 7], [7, 3, 9, 3, 7], [5], [2, 1, 1, 0, 2, 3]],
)
def test_factorize_keys_few_and_many(keys):
    keys = np.array(keys, dtype=np.uint64)
    codes, uniques = _encoding._factorize_keys(keys)
    want_codes, want_uniques = pd.factorize(keys)
    np.testing.assert_array_equal(codes, want_codes)
    np.testing.assert_array_equal(uniques, want_uniques)
    assert codes.dtype.kind == "i"


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.sampled_from(["w", "m", "", "x y", "é", "w\x00"]), min_size=1, max_size=40),
    st.booleans(),
)
def test_two_arrow_strings_match_pandas(labels, with_null):
    """Arrow-held pandas strings with one or two labels are coded as pandas codes them;
    nulls and a third label are left to pandas (None)."""
    pytest.importorskip("pyarrow")
    values = labels + ([None] if with_null else [])
    series = pd.Series(values, dtype="string[pyarrow]")
    got = _encoding.factorize_two_arrow_strings(series.array.__arrow_array__())
    want_codes, want_uniques = pd.factorize(series)
    if with_null or len(set(labels)) > 2:
        assert got is None
        return
    assert got is not None
    np.testing.assert_array_equal(got[0], want_codes)
    assert list(got[1]) == list(want_uniques)


# --- few short strings: codes in sorted order, block by block --------------------------


def _check_sorted_codes(arr):
    """Codes and uniques of :func:`sorted_short_string_codes` equal ``np.unique``'s."""
    found = sorted_short_string_codes(arr)
    assert found is not None
    codes, uniques = found
    want_uniques, inverse = np.unique(arr, return_inverse=True)
    assert uniques.tolist() == want_uniques.tolist()
    assert uniques.tolist() == sorted(set(arr.tolist()))  # Python's order of str / bytes
    np.testing.assert_array_equal(codes, inverse.ravel())
    assert codes.dtype == np.int32
    return codes, uniques


@settings(max_examples=30, deadline=None)
@given(
    st.sampled_from(sorted(_ALPHABETS)).flatmap(
        lambda name: st.lists(
            st.text(_ALPHABETS[name], min_size=0, max_size=4), min_size=1, max_size=60
        )
    ),
    st.integers(1, 8),
    st.integers(1, 5),
)
def test_sorted_short_strings_match_unique(labels, block, sample):
    # tiny blocks (several per array) and a sample that misses labels (more rounds)
    arr = np.array(labels)
    with pytest.MonkeyPatch.context() as monkeypatch:
        monkeypatch.setattr(_encoding, "_BLOCK_ROWS", block)
        monkeypatch.setattr(_encoding, "_SAMPLE_ROWS", sample)
        found = sorted_short_string_codes(arr)
    if found is not None:
        _check_sorted_codes(arr)
    # sampling every row (the default for so few), it refuses only what it cannot key
    words = _encoding._words(arr)
    fits = any(
        int(words.max()) < limit and words.shape[1] * size <= 8
        for limit, size in _encoding._PACKINGS
    )
    if fits and len(set(labels)) <= _encoding._FEW_LABELS:
        _check_sorted_codes(arr)
    else:
        assert sorted_short_string_codes(arr) is None


@pytest.mark.parametrize(
    "labels",
    [
        ["man", "woman", "woman", "man"],
        ["woman"] * 5,  # one label
        ["a\x00b", "ab", "a", "a\x00b"],  # NUL inside a label; a prefix sorts first
        ["", "x", ""],
        ["é", "e", "ß", "é"],
        ["żółw", "жук", "żółw"],  # two bytes a character
        ["🙂", "a🙂", "🙂"],  # four bytes a character, two characters
        ["asian", "black", "white", "latino", "black"],  # more than two labels
    ],
)
def test_sorted_short_strings_cases(labels):
    arr = np.array(labels)
    codes, uniques = _check_sorted_codes(arr)
    assert uniques.dtype == arr.dtype
    # big-endian, strided and byte strings give the same codes
    np.testing.assert_array_equal(
        sorted_short_string_codes(arr.astype(arr.dtype.newbyteorder(">")))[0], codes
    )
    np.testing.assert_array_equal(sorted_short_string_codes(np.repeat(arr, 2)[::2])[0], codes)
    if all(ord(c) < 128 for label in labels for c in label):
        _check_sorted_codes(arr.astype("S"))


def test_sorted_short_strings_refuse_what_they_cannot_key():
    assert sorted_short_string_codes(np.array(["abcdefghi", "x"])) is None  # 9 characters
    assert sorted_short_string_codes(np.array(["🙂🙂🙂"])) is None  # 12 bytes
    many = np.array([f"l{i}" for i in range(_encoding._FEW_LABELS + 1)])
    assert sorted_short_string_codes(many) is None  # more labels than looked up
    assert sorted_short_string_codes(np.array([1, 2])) is None
    assert sorted_short_string_codes(np.array([], dtype="U3")) is None


def test_sorted_short_strings_a_late_wide_character_is_refused():
    # the first block holds code points below 256 only and fixes one byte a character; a
    # later block holding a wider one is not narrowed (that would alias "š" with "a"):
    # the general path takes the array
    arr = np.array(["a"] * 7 + ["š"] + ["a"] * 3)
    with pytest.MonkeyPatch.context() as monkeypatch:
        monkeypatch.setattr(_encoding, "_BLOCK_ROWS", 4)
        assert sorted_short_string_codes(arr) is None
    codes, uniques = factorize_labels(arr)
    assert uniques.tolist() == ["a", "š"] and codes.tolist() == [0] * 7 + [1] + [0] * 3


def test_sorted_short_strings_labels_found_late_are_renumbered():
    # labels first seen after the first block join under the next ids; the codes are
    # renumbered to the sorted order at the end
    arr = np.array(["m", "m", "m", "m", "w", "a", "m", "z", "b", "a"])
    with pytest.MonkeyPatch.context() as monkeypatch:
        monkeypatch.setattr(_encoding, "_BLOCK_ROWS", 4)
        codes, uniques = sorted_short_string_codes(arr)
    assert uniques.tolist() == ["a", "b", "m", "w", "z"]
    assert codes.tolist() == [2, 2, 2, 2, 3, 0, 2, 4, 1, 0]


def test_sorted_short_strings_over_several_blocks():
    rng = np.random.default_rng(0)
    arr = rng.choice(np.array(["woman", "man", "nonbi"]), size=3 * _encoding._BLOCK_ROWS + 5)
    _check_sorted_codes(arr)
