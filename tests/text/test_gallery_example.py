"""The captioning gallery example runs and reproduces its key numbers (examples/12)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.examples.test_examples import load

pytest.importorskip("matplotlib")


def test_12_captioning_models(tmp_path: Path) -> None:
    key = load("12_captioning_models").main(
        output_dir=tmp_path, n_boot=100, n_iter=2, n_iter_human=2
    )
    assert (tmp_path / "12_captioning_models.png").stat().st_size > 10_000
    assert (tmp_path / "12_captioning_models_human.png").stat().st_size > 10_000
    assert "628 test images with human captions" in (
        tmp_path / "12_captioning_models.md"
    ).read_text(encoding="utf-8")
    # The data README's figures.
    assert key["baseline_ft: one_group"] == 4354
    assert key["equalizer: one_group"] == 3594
    assert round(key["baseline_ft: group_accuracy"], 3) == 0.838
    assert round(key["equalizer: group_accuracy"], 3) == 0.893
    # Aggregated, the Equalizer's T->A is above the baseline's (baseline's interval below 0).
    assert key["equalizer: directional-t2a"] > key["baseline_ft: directional-t2a"]
    assert key["baseline_ft: directional-t2a ci_high"] < 0
    assert key["equalizer: directional-t2a ci_low"] < 0 < key["equalizer: directional-t2a ci_high"]
    for model in ("baseline_ft", "equalizer", "confident", "upweight", "balanced", "confusion"):
        assert -0.007 < key[f"{model}: directional-a2t"] < -0.003
        assert key[f"{model}: LIC_M"] > 0.35  # masked captions still leak the gender
    assert key["baseline_ft: LIC vs baseline"] == 0.0
    assert key["pairs where T->A falls and A->T rises"] == 17
    assert key["pairs where T->A falls and A->T rises (reference rows)"] == 15
    # The 628 images with human captions: LIC against the real human captions, DBAC.
    for model in ("baseline_ft", "equalizer", "confident", "upweight", "balanced", "confusion"):
        row = {k.split(": ", 1)[1]: v for k, v in key.items()
               if k.startswith(f"human subset {model}: ")}  # fmt: skip
        assert row["n"] == 628
        assert 0.3 < row["LIC_D"] < 0.42 and row["LIC_M"] > row["LIC_D"]
        assert 0.0 < row["dbac-t2a"] < 0.06
        assert -0.4 < row["dbac-a2t"] < -0.15
    assert key["human subset: mean interval width directional-t2a"] > 0.05
