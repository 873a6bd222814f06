"""Old keys of a returned mapping keep reading their values, with a FutureWarning."""

from __future__ import annotations

import copy
import pickle
import warnings

import pytest

from biasamp._deprecation import REMOVED_IN, WARN_RENAMED_KEY, RenamedKeys


def _mapping() -> RenamedKeys:
    return RenamedKeys(
        {"dbac-a2t": 1, "dbac-t2a": 2}, renamed={"A->T": "dbac-a2t"}, where="f", removed="0.5.0"
    )


def test_new_keys_read_silently_and_old_keys_warn():
    d = _mapping()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert d["dbac-a2t"] == 1 and "dbac-t2a" in d and d.get("x", 7) == 7
        assert list(d) == ["dbac-a2t", "dbac-t2a"] and len(d) == 2
        assert d == {"dbac-a2t": 1, "dbac-t2a": 2}
        assert "T->A" not in d  # not renamed: an unknown key, as in a dict
    message = WARN_RENAMED_KEY.format(where="f", old="A->T", new="dbac-a2t", removed=REMOVED_IN)
    for read in (lambda: d["A->T"], lambda: d.get("A->T"), lambda: "A->T" in d):
        with pytest.warns(FutureWarning) as caught:
            assert read() in (1, True)
        assert str(caught[0].message) == message
        assert caught[0].filename == __file__  # the warning points at the caller's line
    with pytest.raises(KeyError):
        d["missing"]
    with pytest.raises(TypeError):
        d[[1]]  # an unhashable key: dict's own error


def test_copies_and_pickles_keep_the_old_keys():
    d = _mapping()
    for other in (copy.copy(d), copy.deepcopy(d), pickle.loads(pickle.dumps(d))):
        assert type(other) is RenamedKeys and other == d
        with pytest.warns(FutureWarning):
            assert other["A->T"] == 1


def test_removed_in_is_two_minor_releases_on():
    import biasamp

    major, minor, _ = (int(p) for p in biasamp.__version__.split("."))
    assert REMOVED_IN == f"{major}.{minor + 3}.0"  # deprecated in the coming minor release
