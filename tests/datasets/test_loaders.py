"""The bundled data match the counts stated in shared/data/README.md."""

import pytest

from biasamp.datasets import load_coco_gender, load_imsitu_gender, load_mals_coco_results
from biasamp.datasets._loaders import ERR_SPLIT


@pytest.mark.parametrize(("split", "rows", "men"), [("val", 5367, 3813), ("test", 5473, 3894)])
def test_coco(split, rows, men):
    frame = load_coco_gender(split)
    assert frame.shape == (rows, 81)
    assert (frame["gender"] == "man").sum() == men
    objects = frame.drop(columns=["image_id", "gender"])
    assert "person" not in objects.columns
    assert set(objects.stack().unique()) == {0, 1}
    assert 2.0 < objects.sum(axis=1).mean() < 2.6  # about 2.3 objects per image


def test_imsitu():
    train = load_imsitu_gender("train")
    assert len(train) == 24301
    assert train["gender"].value_counts().to_dict() == {"man": 14199, "woman": 10102}
    assert train["verb"].nunique() == 211
    assert len(load_imsitu_gender("val")) == 7730 and len(load_imsitu_gender("test")) == 7669


def test_mals_results_and_bad_split():
    assert len(load_mals_coco_results()) == 66
    with pytest.raises(ValueError, match="split: expected one of"):
        load_coco_gender("train")
    assert "{choices}" in ERR_SPLIT


@pytest.mark.parametrize(("split", "rows"), [("val", 606), ("test", 628)])
def test_coco_human_captions(split, rows):
    from biasamp.datasets import load_coco_captions, load_coco_human_captions

    human = load_coco_human_captions(split)
    assert list(human.columns) == ["image_id"] + [f"human_{i}" for i in range(1, 6)]
    assert len(human) == rows and human["image_id"].is_unique
    assert human.drop(columns="image_id").notna().all().all()
    joined = human.merge(load_coco_captions(split), on="image_id").merge(
        load_coco_gender(split)[["image_id", "gender"]], on="image_id"
    )
    assert len(joined) == rows  # every image has the six models' captions and a gender
    with pytest.raises(ValueError, match="split: expected one of"):
        load_coco_human_captions("train")


@pytest.mark.parametrize("split", ["val", "test"])
def test_bundled_human_captions_are_the_shared_data(split):
    from pathlib import Path

    import pandas as pd

    from biasamp.datasets import load_coco_human_captions

    found = [
        p / "shared" / "data" / "coco2014-captions" / f"human_{split}.csv.gz"
        for p in Path(__file__).resolve().parents
    ]
    path = next((f for f in found if f.exists()), None)
    if path is None:
        pytest.skip("no shared/data folder above this checkout")
    pd.testing.assert_frame_equal(load_coco_human_captions(split), pd.read_csv(path))


#: Wang et al.'s articles per lean (left, center, right) by the argmax rule at the paper's
#: generations 0, 6 and 10, counted from the classifier scores in shared/data/llm-generations.
WANG_COUNTS = {
    "none": {0: (164, 528, 826), 6: (63, 430, 1025), 10: (69, 551, 898)},
    "preservation": {0: (164, 528, 826), 6: (152, 706, 660), 10: (160, 707, 651)},
    "accumulation": {0: (164, 528, 826), 6: (192, 675, 651), 10: (208, 661, 649)},
    "overfitting": {0: (260, 526, 732), 6: (266, 388, 864), 10: (353, 227, 938)},
}


def test_llm_generations_right_share_as_the_paper_states():
    import biasamp
    from biasamp.datasets import load_llm_generations

    frame = load_llm_generations("none")
    result = biasamp.share_trajectory(groups=frame["lean"], steps=frame["generation"])
    right = (result.shares["right"] * 100).round(1)
    assert (right[0], right[6], right[10]) == (54.4, 67.5, 59.2)


@pytest.mark.parametrize("setup", sorted(WANG_COUNTS))
def test_llm_generations_give_wang_et_al_shares(setup):
    import biasamp
    from biasamp.datasets import load_llm_generations

    frame = load_llm_generations(setup)
    assert frame.shape == (11 * 1518, 4)
    assert frame.groupby("generation").size().eq(1518).all()
    result = biasamp.share_trajectory(groups=frame["lean"], steps=frame["generation"])
    for generation, counts in WANG_COUNTS[setup].items():
        got = result.shares.loc[generation, ["left", "center", "right"]].to_numpy()
        assert got.tolist() == pytest.approx([c / 1518 for c in counts], abs=1e-15)
        assert result.counts.loc[generation, ["left", "center", "right"]].tolist() == list(counts)


def test_llm_generations_all_and_bad_setup():
    from biasamp.datasets import load_llm_generations

    frame = load_llm_generations(None)
    assert sorted(frame["setup"].unique()) == sorted(WANG_COUNTS)
    with pytest.raises(ValueError, match="setup: expected one of"):
        load_llm_generations("synthetic")


@pytest.mark.parametrize(
    ("setup", "file"),
    [("none", "Synthetic"), ("preservation", "Preservation"),
     ("accumulation", "Accumulation"), ("overfitting", "Overfitting")],
)  # fmt: skip
def test_bundled_llm_generations_are_the_argmax_of_the_shared_scores(setup, file):
    from pathlib import Path

    import numpy as np
    import pandas as pd

    from biasamp.datasets import load_llm_generations

    found = [
        p / "shared" / "data" / "llm-generations" / f"{file}_Bias_Performance.csv.gz"
        for p in Path(__file__).resolve().parents
    ]
    path = next((f for f in found if f.exists()), None)
    if path is None:
        pytest.skip("no shared/data folder above this checkout")
    scores = pd.read_csv(path)
    lean = np.array(["left", "center", "right"])[
        scores[["Left_Score", "Center_Score", "Right_Score"]].to_numpy().argmax(axis=1)
    ]
    bundled = load_llm_generations(setup)
    assert bundled["generation"].tolist() == (scores["Generation"] - 1).tolist()
    assert bundled["article_id"].tolist() == scores["Article_ID"].tolist()
    assert bundled["lean"].tolist() == lean.tolist()
