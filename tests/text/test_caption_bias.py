"""Bias amplification of captioning models: hand-worked values, the explicit path, the real captions."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import biasamp
from biasamp.datasets import load_coco_captions, load_coco_gender
from biasamp.registry import ERR_UNKNOWN_METRIC
from biasamp.text import caption_bias_amplification, caption_bias_table, caption_labels
from biasamp.text._caption_bias import (
    ALL_METRICS,
    ERR_EXCLUDE,
    ERR_GROUP_LABELS,
    ERR_LENGTH,
    ERR_METRICS,
    ERR_MODELS,
    ERR_NO_GROUP_ROWS,
    ERR_TASKS_FRAME,
    METRICS,
)

CAPTIONS = ["a man riding skis", "a woman with a dog", "a man with a dog",
            "a person on skis", "a woman on skis", "a man with skis"]  # fmt: skip
GROUPS = ["man", "woman", "woman", "man", "woman", "man"]
TASKS = pd.DataFrame({"skis": [1, 0, 0, 1, 1, 1], "dog": [0, 1, 1, 0, 0, 0]})


def test_hand_worked_example() -> None:
    result = caption_bias_amplification(captions=CAPTIONS, groups=GROUPS, tasks=TASKS)
    assert (result.n, result.n_one_group, result.n_no_group, result.n_conflict) == (6, 5, 1, 0)
    assert result.n_excluded == 1
    assert result.group_accuracy == pytest.approx(4 / 5)
    # T->A on the 5 rows with a group; signs from all 6 image labels: y(man, skis) = y(woman, dog)
    # = 1. Skis: P(man) 2/3 true and predicted (delta 0); dog: P(woman) 1 true, 1/2 predicted.
    assert result["T->A"].value == pytest.approx((0 + 0 - 0.5 - 0.5) / 4)
    assert result["T->A"].n == 5
    # A->T: every caption names exactly the image's objects -> no change in any task rate.
    assert result["A->T"].value == pytest.approx(0.0)
    assert result["A->T"].n == 6
    # MALS: training bias b(man, skis) = 3/4, b(woman, dog) = 1; predicted 2/3 and 1/2.
    assert result["MALS"].value == pytest.approx(((2 / 3 - 3 / 4) + (1 / 2 - 1)) / 2)
    assert list(result.table()["metric"]) == list(METRICS)


def test_exclude_no_group_all_leaves_the_rows_out_of_a_to_t() -> None:
    result = caption_bias_amplification(
        captions=CAPTIONS, groups=GROUPS, tasks=TASKS, exclude_no_group="all", metrics="A->T"
    )
    assert list(result.results) == ["directional-a2t"]  # the canonical name of "A->T"
    assert result["A->T"].n == 5 and result["directional-a2t"] is result["A->T"]


def test_equals_the_explicit_path_on_real_captions() -> None:
    captions, truth = load_coco_captions("test"), load_coco_gender("test")
    train = load_coco_gender("val")
    objects = [c for c in truth.columns if c not in ("image_id", "gender")]
    result = caption_bias_amplification(
        captions=captions["equalizer"], groups=truth["gender"], tasks=truth[objects],
        groups_train=train["gender"], tasks_train=train[objects], mask=True,
    )  # fmt: skip
    labels = caption_labels(captions["equalizer"], mask=True)
    one = labels.has_group
    t_to_a = biasamp.directional(
        direction="T->A", groups=truth["gender"][one], tasks=truth[objects][one],
        groups_pred=labels.groups[one].astype(str), groups_train=train["gender"],
        tasks_train=train[objects],
    )  # fmt: skip
    a_to_t = biasamp.directional(
        direction="A->T", groups=truth["gender"], tasks=truth[objects],
        tasks_pred=labels.tasks[objects], groups_train=train["gender"], tasks_train=train[objects],
    )  # fmt: skip
    mals = biasamp.mals(
        groups_train=train["gender"], tasks_train=train[objects],
        groups_pred=labels.groups[one].astype(str), tasks_pred=labels.tasks[objects][one],
    )  # fmt: skip
    assert result["T->A"].value == pytest.approx(t_to_a.value)
    assert result["A->T"].value == pytest.approx(a_to_t.value)
    assert result["MALS"].value == pytest.approx(mals.value)
    assert result.n_one_group == 3594
    assert round(result.group_accuracy, 3) == 0.893


def test_intervals_save_load_and_plot(tmp_path) -> None:
    result = caption_bias_amplification(
        captions=CAPTIONS * 20, groups=GROUPS * 20, tasks=pd.concat([TASKS] * 20),
        n_boot=50, random_state=0,
    )  # fmt: skip
    again = caption_bias_amplification(
        captions=CAPTIONS * 20, groups=GROUPS * 20, tasks=pd.concat([TASKS] * 20),
        n_boot=50, random_state=0,
    )  # fmt: skip
    for key in METRICS:
        low, high = result[key].ci
        assert low <= result[key].value <= high or np.isclose(low, high)
        assert result[key].ci == again[key].ci
    path = result.save(tmp_path / "captions.json")
    loaded = biasamp.load_result(path)
    assert type(loaded).__name__ == "CaptionBiasResult"
    assert loaded.to_dict() == result.to_dict()
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    ax = result.plot()
    assert len(ax.patches) == 3
    assert "directional-t2a" in repr(result)


def test_side_by_side_table() -> None:
    frame = pd.DataFrame({"good": CAPTIONS, "silent": ["a person"] * 6})
    table, results = caption_bias_table(frame, groups=GROUPS, tasks=TASKS, metrics=["A->T"])
    assert table["model"].tolist() == ["good", "silent"]
    assert table["no_group"].tolist() == [1, 6]
    assert np.isnan(table["group_accuracy"].iloc[1])
    assert set(results) == {"good", "silent"}
    with pytest.raises(TypeError) as info:
        caption_bias_table(CAPTIONS, groups=GROUPS, tasks=TASKS)
    assert str(info.value) == ERR_MODELS.format(got="list")


def test_bad_input_names_the_argument() -> None:
    kwargs = {"captions": CAPTIONS, "groups": GROUPS, "tasks": TASKS}
    with pytest.raises(TypeError) as info:
        caption_bias_amplification(**{**kwargs, "tasks": TASKS.to_numpy()})
    assert str(info.value) == ERR_TASKS_FRAME.format(got="ndarray")
    with pytest.raises(ValueError) as info:
        caption_bias_amplification(**{**kwargs, "groups": GROUPS[:5]})
    assert str(info.value) == ERR_LENGTH.format(arg="groups", got=5, n=6)
    with pytest.raises(ValueError) as info:
        caption_bias_amplification(**{**kwargs, "tasks": TASKS.iloc[:4]})
    assert str(info.value) == ERR_LENGTH.format(arg="tasks", got=4, n=6)
    with pytest.raises(ValueError, match=r"^tasks: no words for the column\(s\) \['frobnicator'\]"):
        caption_bias_amplification(**{**kwargs, "tasks": TASKS.assign(frobnicator=0)})
    with pytest.raises(ValueError) as info:
        caption_bias_amplification(**{**kwargs, "groups": ["M", "W"] * 3})
    assert str(info.value) == ERR_GROUP_LABELS.format(unknown=["M", "W"], known=["man", "woman"])
    with pytest.raises(ValueError) as info:
        caption_bias_amplification(**{**kwargs, "metrics": ["A->T", "B"]})
    assert str(info.value) == ERR_UNKNOWN_METRIC.format(
        argument="metrics", got="B", choices=", ".join(ALL_METRICS)
    )
    with pytest.raises(ValueError) as info:
        caption_bias_amplification(**{**kwargs, "metrics": []})
    assert str(info.value) == ERR_METRICS.format(choices=ALL_METRICS, got=[])
    with pytest.raises(ValueError) as info:
        caption_bias_amplification(**kwargs, exclude_no_group="some")
    assert str(info.value) == ERR_EXCLUDE.format(choices=("group-side", "all"), got="some")
    with pytest.raises(ValueError) as info:
        caption_bias_amplification(**{**kwargs, "captions": ["a person"] * 6})
    assert str(info.value) == ERR_NO_GROUP_ROWS.format(metrics=["directional-t2a", "mals"])


def test_dbac_metrics_in_the_table_save_and_need_human_captions(tmp_path) -> None:
    import biasamp
    from biasamp.datasets import load_coco_captions, load_coco_gender, load_coco_human_captions
    from biasamp.text import caption_bias_amplification, caption_bias_table, dbac
    from biasamp.text._caption_bias import ERR_NO_HUMAN

    data = load_coco_human_captions("test").merge(load_coco_gender("test"), on="image_id")
    data = data.merge(load_coco_captions("test"), on="image_id")
    objects = [c for c in load_coco_gender("test").columns if c not in ("image_id", "gender")]
    human = data[[f"human_{i}" for i in range(1, 6)]].to_numpy().tolist()
    table, results = caption_bias_table(
        data[["baseline_ft", "equalizer"]], groups=data["gender"], tasks=data[objects],
        metrics=["A->T", "DBAC A->T", "DBAC T->A"], captions_human=human,
        dbac_params={"n_iter": 2}, random_state=0,
    )  # fmt: skip
    single = dbac(direction="T->A", captions_human=human, captions_model=data["equalizer"],
                  groups=data["gender"], n_iter=2, random_state=0)  # fmt: skip
    assert table.loc[1, "dbac-t2a"] == pytest.approx(single.value, abs=1e-12)
    assert list(results["equalizer"].table()["metric"]) == [
        "directional-a2t",
        "dbac-a2t",
        "dbac-t2a",
    ]
    saved = results["equalizer"].save(tmp_path / "captions.json")
    assert biasamp.load_result(saved) == results["equalizer"]
    assert results["equalizer"].to_dict()["results"]["dbac-t2a"]["direction"] == "T->A"
    with pytest.raises(ValueError) as info:
        caption_bias_amplification(captions=data["equalizer"], groups=data["gender"],
                                   tasks=data[objects], metrics="DBAC A->T")  # fmt: skip
    assert str(info.value) == ERR_NO_HUMAN.format(metrics=["dbac-a2t"])
