"""The counts behind each pair (n_train, n_true, n_pred, support) and the fragile flag.

Hand-worked cases for BiasAmp_MALS, BiasAmp-> (both directions) and the
multi-attribute metrics, the FragilePairWarning, and the demo-style COCO audit whose
largest MALS contributions each rest on one predicted image.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import biasamp
from biasamp import FragilePairWarning, MissingGroupWarning
from biasamp.inputs._group_sizes import DEFAULT_MIN_CELL, ERR_MIN_CELL
from biasamp.metrics import _pair_counts
from biasamp.results._intervals import interval_words

QUIET = {"min_group_size": None}

# training: cook is w w w m (b* w = 3/4), ski is m m w (b* m = 2/3), run is m w (a tie)
G_TRAIN = ["w", "w", "w", "m", "m", "m", "w", "m", "w"]
T_TRAIN = ["cook", "cook", "cook", "cook", "ski", "ski", "ski", "run", "run"]
# evaluation ground truth and predictions on six rows
G_EVAL = ["w", "w", "m", "m", "m", "w"]
T_EVAL = ["cook", "cook", "cook", "ski", "ski", "run"]
G_PRED = ["w", "w", "w", "m", "w", "w"]
T_PRED = ["cook", "cook", "cook", "ski", "ski", "ski"]


def _mals(**kwargs):
    return biasamp.mals(
        groups_train=G_TRAIN,
        tasks_train=T_TRAIN,
        groups=G_EVAL,
        tasks=T_EVAL,
        groups_pred=G_PRED,
        tasks_pred=T_PRED,
        **QUIET,
        **kwargs,
    )


def test_mals_counts_by_hand():
    result = _mals(min_cell=3)
    frame = result.by_pair.set_index(["group", "task"])
    # training cells: (m, cook) 1, (m, run) 1, (m, ski) 2, (w, cook) 3, (w, run) 1, (w, ski) 1
    assert frame["n_train"].to_dict() == {
        ("m", "cook"): 1.0,
        ("m", "run"): 1.0,
        ("m", "ski"): 2.0,
        ("w", "cook"): 3.0,
        ("w", "run"): 1.0,
        ("w", "ski"): 1.0,
    }
    # evaluation ground truth: (m, cook) 1, (m, ski) 2, (w, cook) 2, (w, run) 1
    assert frame["n_true"].to_dict() == {
        ("m", "cook"): 1.0,
        ("m", "run"): 0.0,
        ("m", "ski"): 2.0,
        ("w", "cook"): 2.0,
        ("w", "run"): 1.0,
        ("w", "ski"): 0.0,
    }
    # predictions: (w, cook) 3, (m, ski) 1, (w, ski) 2; run is never predicted
    assert frame["n_pred"].to_dict() == {
        ("m", "cook"): 0.0,
        ("m", "run"): 0.0,
        ("m", "ski"): 1.0,
        ("w", "cook"): 3.0,
        ("w", "run"): 0.0,
        ("w", "ski"): 2.0,
    }
    # b~(t, g) is a share of the rows where t is predicted: cook 3, ski 3, run 0
    assert frame["support"].to_dict() == {
        ("m", "cook"): 3.0,
        ("m", "run"): 0.0,
        ("m", "ski"): 3.0,
        ("w", "cook"): 3.0,
        ("w", "run"): 0.0,
        ("w", "ski"): 3.0,
    }
    # biased pairs (b* > 1/2): (w, cook) and (m, ski), both on 3 predicted rows; with
    # min_cell=3 neither is fragile, with min_cell=4 both are (run is a tie: not biased)
    assert not frame["fragile"].any()
    flagged = _mals(min_cell=4).by_pair.set_index(["group", "task"])["fragile"]
    assert flagged[flagged].index.tolist() == [("m", "ski"), ("w", "cook")]
    assert result.min_cell == 3.0
    # the value is unchanged by the counts: (1 - 3/4) + (1/3 - 2/3) over |T| = 3
    assert result.value == pytest.approx((0.25 - 1 / 3) / 3)


def test_fragile_pairs_warn_and_are_named_in_repr_and_dict():
    with pytest.warns(FragilePairWarning) as caught:
        result = _mals(min_cell=4)
    message = str(next(w.message for w in caught if w.category is FragilePairWarning))
    assert message.startswith(
        "2 of the 2 pairs that contribute most to BiasAmp_MALS rest on fewer than min_cell=4 "
        "rows: m x ski (3 rows), w x cook (3 rows)."
    )
    assert {w.filename for w in caught if w.category is FragilePairWarning} == {__file__}
    assert result.fragile_pairs[["group", "task"]].values.tolist() == [
        ["m", "ski"],
        ["w", "cook"],
    ]
    text = repr(result)
    assert "2 fragile pair(s) (fewer than min_cell=4 rows)" in text
    assert "fragile (3 rows)" in text
    as_dict = result.to_dict()
    assert as_dict["min_cell"] == 4.0 and as_dict["fragile_pairs"] == ["m x ski", "w x cook"]
    assert [r["fragile"] for r in as_dict["by_pair"]].count(True) == 2


def test_min_cell_none_flags_nothing_and_is_validated():
    with warnings.catch_warnings():
        warnings.simplefilter("error", FragilePairWarning)
        result = _mals(min_cell=None)
    assert not result.by_pair["fragile"].any() and result.min_cell is None
    assert DEFAULT_MIN_CELL == 5 and _mals().min_cell == 5.0
    for bad in (-1, "5", True, float("nan")):
        with pytest.raises(ValueError) as info:
            _mals(min_cell=bad)
        assert str(info.value) == ERR_MIN_CELL.format(got=bad)


@pytest.mark.parametrize("direction", ["A->T", "T->A"])
def test_directional_counts_by_hand(direction):
    kwargs = dict(
        groups_train=G_TRAIN, tasks_train=T_TRAIN, groups=G_EVAL, tasks=T_EVAL, min_cell=3, **QUIET
    )
    if direction == "A->T":
        result = biasamp.directional(direction="A->T", tasks_pred=T_PRED, **kwargs)
    else:
        result = biasamp.directional(direction="T->A", groups_pred=G_PRED, **kwargs)
    frame = result.by_pair.set_index(["group", "task"])
    if direction == "A->T":
        # P(T^ | A): a share of the group's rows (m 3, w 3); n_pred: the true group with
        # the predicted task
        assert frame["support"].to_dict() == {
            (g, t): 3.0 for g in ("m", "w") for t in ("cook", "run", "ski")
        }
        assert frame["n_pred"].to_dict() == {
            ("m", "cook"): 1.0,  # row 3 (m, cook predicted)
            ("m", "run"): 0.0,
            ("m", "ski"): 2.0,
            ("w", "cook"): 2.0,
            ("w", "run"): 0.0,
            ("w", "ski"): 1.0,
        }
        assert not frame["fragile"].any()  # every group has 3 rows, min_cell 3
    else:
        # P(A^ | T): a share of the task's rows (cook 3, ski 2, run 1); n_pred: the
        # predicted group with the true task
        assert frame["support"].to_dict() == {
            (g, t): {"cook": 3.0, "run": 1.0, "ski": 2.0}[t]
            for g in ("m", "w")
            for t in ("cook", "run", "ski")
        }
        assert frame["n_pred"].to_dict() == {
            ("m", "cook"): 0.0,
            ("m", "run"): 0.0,
            ("m", "ski"): 1.0,
            ("w", "cook"): 3.0,
            ("w", "run"): 1.0,
            ("w", "ski"): 1.0,
        }
        flagged = frame["fragile"]
        assert flagged[flagged].index.tolist() == [
            ("m", "run"),
            ("m", "ski"),
            ("w", "run"),
            ("w", "ski"),
        ]
    np.testing.assert_array_equal(frame["support"], frame["condition_count"])
    assert frame["n_train"][("w", "cook")] == 3.0 and frame["n_true"][("w", "cook")] == 2.0


def test_from_counts_and_streamed_tables_carry_the_same_counts():
    train = biasamp.CountTable.from_arrays(groups=G_TRAIN, tasks=T_TRAIN)
    evaluation = biasamp.CountTable.from_arrays(
        groups=G_EVAL, tasks=T_EVAL, groups_pred=G_PRED, tasks_pred=T_PRED
    )
    counted = biasamp.mals_from_counts(train, evaluation, min_cell=4, **QUIET)
    columns = ["group", "task", "n_train", "n_true", "n_pred", "support", "fragile"]
    pd.testing.assert_frame_equal(counted.by_pair[columns], _mals(min_cell=4).by_pair[columns])


def test_multi_attribute_counts_by_hand():
    # rows: tasks {a, b} for g g h, {a} for h; the combination (a, b) is predicted on the
    # rows 0 and 1 (both g) only
    tasks = np.array([[1, 1], [1, 1], [1, 1], [1, 0]])
    result = biasamp.multi_mals(
        groups_train=["g", "g", "h", "h"],
        tasks_train=tasks,
        tasks=tasks,
        groups_pred=["g", "g", "h", "h"],
        tasks_pred=np.array([[1, 1], [1, 1], [1, 0], [1, 0]]),
        combinations="subsets",
        min_size=2,
        min_cell=3,
        **QUIET,
    )
    frame = result.by_combination.set_index("group")
    assert frame["n_train"].to_dict() == {"g": 2.0, "h": 1.0}
    assert frame["n_pred"].to_dict() == {"g": 2.0, "h": 0.0}
    assert frame["support"].to_dict() == {"g": 2.0, "h": 2.0}
    # (g, {a, b}) is biased (b* = 2/3) and rests on 2 predicted rows < 3: fragile
    assert frame["fragile"].to_dict() == {"g": True, "h": False}
    assert result.to_dict()["fragile_pairs"] == ["g x 0 & 1"]


def test_saved_results_keep_the_counts_and_the_flags(tmp_path):
    result = _mals(min_cell=4, n_boot=20, random_state=0)
    again = biasamp.load_result(result.save(tmp_path / "mals.json"))
    assert again == result
    assert again.min_cell == 4.0 and again.fragile_pairs.equals(result.fragile_pairs)


def _coco_demo_case():
    """Training: COCO val; evaluation: the first 1,000 test images without a zebra, a
    toothbrush or a toilet, plus one image of a woman with each (a model that predicts
    the true labels): each of the three objects is predicted on one image."""
    from biasamp.datasets import load_coco_gender

    train, test = load_coco_gender("val"), load_coco_gender("test")
    objects = [c for c in train.columns if c not in ("image_id", "gender")]
    rare = ["zebra", "toothbrush", "toilet"]
    head = test.head(1000)
    base = head[head[rare].sum(axis=1) == 0]
    ones = []
    for name in rare:
        others = [r for r in rare if r != name]
        chosen = test[(test[name] == 1) & (test["gender"] == "woman")]
        ones.append(chosen[chosen[others].sum(axis=1) == 0].head(1))
    evaluation = pd.concat([base, *ones])
    assert evaluation[rare].sum().to_dict() == {"zebra": 1, "toothbrush": 1, "toilet": 1}
    return train, evaluation, objects


def test_coco_demo_case_top_contributors_rest_on_one_predicted_image():
    train, evaluation, objects = _coco_demo_case()
    with pytest.warns(FragilePairWarning) as caught:
        result = biasamp.mals(
            groups_train=train["gender"],
            tasks_train=train[objects],
            groups_pred=evaluation["gender"],
            tasks_pred=evaluation[objects],
            n_boot=50,
            random_state=0,
        )
    top = result.top(4).set_index(["group", "task"])
    for task, b_train in (("zebra", 6 / 8), ("toothbrush", 33 / 51), ("toilet", 27 / 45)):
        row = top.loc[("man", task)]
        # one predicted image, of a woman: b~(task, man) = 0, delta = -b*
        assert row["support"] == 1.0 and row["n_pred"] == 0.0 and bool(row["fragile"])
        assert row["delta"] == pytest.approx(-b_train)
        # every replicate that draws the image gives the same delta: a zero-width interval
        assert row["ci_low"] == row["ci_high"] == pytest.approx(-b_train)
    zebra = top.loc[("man", "zebra")]
    assert interval_words((zebra["ci_low"], zebra["ci_high"])) == (
        "95% interval [-0.7500, -0.7500] has zero width: the resampled rows never changed "
        "the value (too few rows to measure its uncertainty)"
    )
    message = str(next(w.message for w in caught if w.category is FragilePairWarning))
    for name in ("man x zebra (1 row)", "man x toothbrush (1 row)", "man x toilet (1 row)"):
        assert name in message
    assert {"man x zebra", "man x toothbrush", "man x toilet"} <= set(
        result.to_dict()["fragile_pairs"]
    )
    assert "fragile (1 row)" in repr(result)


@pytest.mark.filterwarnings("ignore::biasamp.MissingGroupWarning")
def test_fragile_flags_in_the_audit_json_and_terminal(tmp_path, capsys):
    from biasamp.cli.main import main

    train, evaluation, objects = _coco_demo_case()
    columns = ["gender", *objects]
    evaluation = evaluation[columns].copy()
    for name in ["gender", *objects]:  # a model that predicts the true labels
        evaluation[f"pred_{name}"] = evaluation[name]
    evaluation.to_csv(tmp_path / "test.csv", index=False)
    train[columns].to_csv(tmp_path / "train.csv", index=False)
    audit = biasamp.audit(
        str(tmp_path / "test.csv"),
        group="gender",
        task_cols=objects,
        pred_prefix="pred_",
        train=str(tmp_path / "train.csv"),
        metrics=["mals"],
        min_group_size=None,
    )
    assert "man x zebra" in audit["mals"].to_dict()["fragile_pairs"]
    assert any("rest on fewer than min_cell=5 rows" in w for w in audit.warnings)
    document = audit.to_dict()
    record = document["results"]["mals"]
    assert "man x zebra" in record["fragile_pairs"] and record["min_cell"] == 5
    zebra = next(p for p in record["pairs"] if p["group"] == "man" and p["task"] == "zebra")
    assert zebra["fragile"] is True and zebra["support"] == 1.0
    # the command line: the pair table has a fragile column, the warning is printed
    code = main(
        [
            "measure",
            str(tmp_path / "test.csv"),
            "--group",
            "gender",
            "--task-cols",
            ",".join(objects),
            "--pred-prefix",
            "pred_",
            "--train",
            str(tmp_path / "train.csv"),
            "--metric",
            "mals",
            "--json",
            str(tmp_path / "out.json"),
        ]
    )
    assert code == 0
    out = capsys.readouterr().out
    assert "fragile" in out  # the column of the pair table and the summary line
    assert "rest on fewer than --min-cell 5 rows: " in out and "man x zebra (1 row)" in out
    import json

    written = json.loads((tmp_path / "out.json").read_text())
    assert "man x zebra" in written["results"]["mals"]["fragile_pairs"]
    again = biasamp.load_result(tmp_path / "out.json")  # the document read back
    assert again["mals"].min_cell == 5.0
    assert set(again["mals"].fragile_pairs["task"]) == set(audit["mals"].fragile_pairs["task"])


def test_no_fragile_warning_when_missing_groups_only():
    # a pair that adds nothing is no top contributor: no warning for zero contributions
    with warnings.catch_warnings():
        warnings.simplefilter("error", FragilePairWarning)
        warnings.simplefilter("ignore", MissingGroupWarning)
        result = biasamp.mals(
            groups_train=["m", "w"] * 20,
            tasks_train=["a", "a"] * 20,
            groups_pred=["m"] * 2,
            tasks_pred=["a"] * 2,
            min_cell=5,
            **QUIET,
        )
    assert result.value == 0.0 and not result.by_pair["fragile"].any()


def test_the_top_pairs_plot_marks_fragile_pairs():
    pytest.importorskip("matplotlib")
    result = _mals(min_cell=4, n_boot=20, random_state=0)
    ax = result.plot("pairs")
    hatched = [p for p in ax.patches if p.get_hatch() == "///"]
    assert len(hatched) == 2
    assert len(ax.collections) >= 1  # the intervals of delta as error bars


@settings(max_examples=60, deadline=None)
@given(
    values=st.lists(st.sampled_from([0.0, 0.5, 1.0, 2.0, 3.25]), max_size=40),
    top=st.integers(0, 12),
)
def test_largest_first_is_the_stable_descending_order(values: list[float], top: int) -> None:
    """The top positions (ties in position order) equal a full stable descending sort's."""
    array = np.asarray(values)
    expected = np.argsort(-array, kind="stable")[:top]
    np.testing.assert_array_equal(_pair_counts._largest_first(array, top), expected)
