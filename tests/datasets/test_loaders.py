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
