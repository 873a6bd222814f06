"""Result objects: headline number, per-pair table, summary, JSON-safe dictionary."""

import json

import numpy as np
import pytest

from biasamp import directional, mals


def _result(**kw):
    groups = np.array([[1, 0], [1, 0], [0, 1], [0, 1], [0, 0]])
    tasks = np.array([[1, 0], [0, 1], [1, 1], [0, 0], [1, 0]])
    pred = np.array([[1, 1], [0, 1], [0, 1], [0, 0], [1, 0]])
    return directional(
        direction="A->T",
        groups=groups,
        tasks=tasks,
        tasks_pred=pred,
        group_names=["m", "w"],
        task_names=["x", "y"],
        **kw,
    )


def test_float_value_top_and_contributions():
    result = _result()
    assert float(result) == result.value
    assert result.by_pair["contribution"].sum() == pytest.approx(result.value)
    top = result.top(2)
    assert len(top) == 2
    assert (
        list(top["contribution"].abs())
        == sorted(result.by_pair["contribution"].abs(), reverse=True)[:2]
    )
    assert result.name == "BiasAmp A->T"


def test_to_dict_is_strict_json_even_with_empty_pairs():
    groups = np.array([[1, 0, 0], [1, 0, 0]])  # groups 1 and 2 have no rows: NaN deltas
    result = directional(
        direction="A->T", groups=groups, tasks=np.array([[1], [0]]), tasks_pred=np.array([[1], [1]])
    )
    assert result.n_empty == 2
    doc = result.to_dict()
    text = json.dumps(doc, allow_nan=False)  # NaN becomes null, never a bare NaN
    back = json.loads(text)
    assert back["value"] == pytest.approx(result.value)
    assert [row["delta"] for row in back["by_pair"]][1:] == [None, None]
    assert back["n_boot"] is None and back["ci"] is None


def test_summary_and_interval_fields():
    result = _result(n_boot=50, random_state=0)
    text = repr(result)
    assert text.startswith("BiasAmp A->T = ")
    assert "(95% CI)" in text and "top pairs:" in text
    low, high = result.ci
    assert low <= high and result.se > 0 and len(result.replicates) == 50
    assert json.loads(json.dumps(result.to_dict(pairs=False), allow_nan=False))["n_boot"] == 50


def test_extras_are_attributes():
    result = mals(
        groups_train=["m", "w"],
        tasks_train=["x", "x"],
        sample_weight_train=[3, 1],
        groups_pred=["m"],
        tasks_pred=["x"],
    )
    assert result.violations == result.extras["violations"] == 1
    with pytest.raises(AttributeError, match="has no attribute 'nope'"):
        _ = result.nope


def test_top_refuses_a_negative_k_in_every_result_type():
    """``head(-1)`` returns every row but one: ``top`` refuses a negative ``k`` instead, as
    the command line's ``--top`` does, in every result type that has a ``top``."""
    import re

    from biasamp import multi_mals
    from biasamp.results._base import ERR_TOP_BY, ERR_TOP_K

    tasks = np.array([[1, 1], [1, 1], [1, 0], [0, 1]])
    multi = multi_mals(
        groups_train=["g", "h", "g", "h"], tasks_train=tasks, tasks=tasks,
        groups_pred=["g", "g", "h", "g"], tasks_pred=tasks, min_group_size=None,
    )  # fmt: skip
    for result in (_result(), mals(groups_train=["m", "w", "m"], tasks_train=["a", "a", "b"],
                                   groups_pred=["m", "m", "m"], tasks_pred=["a", "a", "b"]),
                   multi):  # fmt: skip
        n = len(result.by_pair)
        assert len(result.top(0)) == 0 and len(result.top(n + 5)) == n
        assert len(result.top(np.int64(1))) == 1
        with pytest.raises(ValueError, match=re.escape(ERR_TOP_K.format(got=-1))):
            result.top(-1)
        for bad in (1.5, True, "2"):
            with pytest.raises(TypeError, match=re.escape(ERR_TOP_K.format(got=bad))):
                result.top(bad)
        with pytest.raises(ValueError, match=re.escape("top: by must be a column of by_pair")):
            result.top(2, by="nope")
    assert ERR_TOP_BY.startswith("top: by")
