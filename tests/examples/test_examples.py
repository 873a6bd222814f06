"""Smoke tests of the example scripts: each runs and reproduces its key numbers.

Every example is imported from ``examples/`` and its ``main(output_dir=...)``
is called with a temporary directory, so the tests never touch docs/gallery.
The expected numbers come from the papers or were worked out by hand (see each
example's docstring).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

pytest.importorskip("matplotlib")


def load(name: str) -> ModuleType:
    """Import ``examples/<name>.py`` as a module (``examples/`` goes on sys.path)."""
    if str(EXAMPLES) not in sys.path:
        sys.path.insert(0, str(EXAMPLES))
    spec = importlib.util.spec_from_file_location(f"example_{name}", EXAMPLES / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_01_painting(tmp_path: Path) -> None:
    key = load("01_painting_fairness_metrics").main(output_dir=tmp_path)
    assert (tmp_path / "01_painting.png").stat().st_size > 10_000
    assert (tmp_path / "01_painting.csv").exists()
    # Standard metrics: one-sided (FPR, TPR) or equal at both ends (mean per-class accuracy).
    assert key["fpr_difference@0"] == pytest.approx(0.0)
    assert key["fpr_difference@1"] == pytest.approx(-1.0)
    assert key["tpr_difference@0"] == pytest.approx(1.0)
    assert key["tpr_difference@1"] == pytest.approx(0.0)
    assert key["accuracy_difference@0"] == pytest.approx(0.75)
    assert key["accuracy_difference@1"] == pytest.approx(0.25)
    assert key["mean_per_class_accuracy@0"] == pytest.approx(0.75)
    assert key["mean_per_class_accuracy@1"] == pytest.approx(0.75)
    assert key["mean_per_class_accuracy@0.75"] == pytest.approx(1.0)
    # Amplification: negative below the truth, 0 at it, positive above (hand-computed ends).
    assert key["biasamp_mals@0"] == pytest.approx((-0.75 + (30 / 70 - 0.75)) / 2)
    assert key["biasamp_mals@0.75"] == pytest.approx(0.0, abs=1e-12)
    assert key["biasamp_mals@1"] == pytest.approx(0.15)
    assert key["biasamp_a_to_t@0"] == pytest.approx(-0.375)
    assert key["biasamp_a_to_t@0.75"] == pytest.approx(0.0, abs=1e-12)
    assert key["biasamp_a_to_t@1"] == pytest.approx(0.125)


def test_01_painting_curves_are_monotone(tmp_path: Path) -> None:
    table = load("01_painting_fairness_metrics").curve()
    assert len(table) == 41
    assert table["biasamp_a_to_t"].is_monotonic_increasing
    assert table["biasamp_mals"].is_monotonic_increasing


def test_02_mals_shortcomings(tmp_path: Path) -> None:
    key = load("02_mals_shortcomings").main(output_dir=tmp_path)
    assert (tmp_path / "02_mals_shortcomings.md").exists()
    # Section 3.2 / 4.1 of Wang & Russakovsky.
    assert key["1_mals"] == pytest.approx(0.0, abs=1e-12)
    assert key["1_a_to_t"] == pytest.approx(0.1778, abs=5e-5)
    assert key["1_t_to_a"] == pytest.approx(0.0, abs=1e-12)
    assert key["1b_mals"] == pytest.approx(0.2)
    assert key["1c_mals"] == pytest.approx(50 / 60 - 40 / 50)
    assert key["1b_a_to_t"] == pytest.approx(key["1c_a_to_t"]) == pytest.approx(0.1)
    assert key["2_mals"] == pytest.approx(-0.6)
    assert key["2_a_to_t"] == pytest.approx(1 / 3)
    assert key["2_t_to_a"] == pytest.approx(0.0, abs=1e-12)
    # Shortcoming 3: same sign of MALS, opposite directions.
    assert key["3X_mals"] == pytest.approx(0.15)
    assert key["3Y_mals"] == pytest.approx(0.125)
    assert (key["3X_a_to_t"], key["3X_t_to_a"]) == (pytest.approx(0.125), pytest.approx(0.0))
    assert (key["3Y_a_to_t"], key["3Y_t_to_a"]) == (pytest.approx(0.0), pytest.approx(0.125))
    # Real COCO: oven is a "man's object" for MALS but negatively correlated with men.
    assert "oven" in key["coco_wrong_group_objects"]
    assert len(key["coco_wrong_group_objects"]) == 41


def test_03_dataset_bias(tmp_path: Path) -> None:
    key = load("03_dataset_bias_analysis").main(output_dir=tmp_path)
    assert (tmp_path / "03_dataset_bias.png").exists()
    assert key["published_coco_dev_mals"] == pytest.approx(0.031743, abs=1e-6)
    # The paper's own COCO ratios: 57 of 66 favour men, 24 reach 0.7, 30 beyond 2:1.
    assert key["coco_published_n"] == 66
    assert key["coco_published_favour_men"] == pytest.approx(57 / 66)
    assert key["coco_published_men_at_least_0.7"] == pytest.approx(24 / 66)
    assert key["coco_published_beyond_2_to_1"] == pytest.approx(30 / 66)
    # Bundled labels (counted from the bundled files).
    assert key["imsitu_n"] == 211
    assert key["imsitu_beyond_2_to_1"] == pytest.approx(119 / 211)
    assert key["imsitu_at_least_0.7"] == pytest.approx(101 / 211)
    assert key["imsitu_favour_men"] == pytest.approx(137 / 211)
    assert key["imsitu_mean_b_man_where_men_favoured"] == pytest.approx(0.7171, abs=1e-4)
    assert key["coco79_n"] == 79
    assert key["coco79_beyond_2_to_1"] == pytest.approx(35 / 79)
    assert key["coco79_favour_men"] == pytest.approx(67 / 79)


def test_08_rba(tmp_path: Path) -> None:
    key = load("08_rba_before_after").main(output_dir=tmp_path)
    assert (tmp_path / "08_rba.png").exists()
    for tag in ("imsitu", "coco"):
        # RBA reduces violations and amplification, at (almost) no cost in performance.
        assert key[f"{tag}: Viol. after"] < key[f"{tag}: Viol. before"]
        assert key[f"{tag}: Amp. bias after"] < 0.75 * key[f"{tag}: Amp. bias before"]
        assert key[f"{tag}: group accuracy after"] == pytest.approx(
            key[f"{tag}: group accuracy before"], abs=0.01
        )
    assert key["imsitu: task accuracy after"] == pytest.approx(
        key["imsitu: task accuracy before"], abs=0.01
    )
    assert key["coco: task macro-F1 after"] == pytest.approx(
        key["coco: task macro-F1 before"], abs=0.03
    )
    # The simulated models start where the paper's CRFs did (table 2: 0.042-0.050, 0.032-0.040).
    assert key["imsitu: Amp. bias before"] == pytest.approx(0.0548, abs=0.002)
    assert key["coco: Amp. bias before"] == pytest.approx(0.0395, abs=0.002)
    assert (key["imsitu: Viol. before"], key["coco: Viol. before"]) == (134, 41)


def test_04_multi_attribute_digits(tmp_path: Path) -> None:
    key = load("04_multi_attribute_digits").main(output_dir=tmp_path)
    assert (tmp_path / "04_multi_attribute_digits.png").exists()
    # Table 1's training biases, built into the data.
    for m, b in (("{a1,a2}", 0.80), ("{a1,a3}", 0.49), ("{a2,a3}", 0.80), ("{a1,a2,a3}", 0.94)):
        assert key[f"advantage 1: b_train {m}"] == pytest.approx(b, abs=0.015)
    # Advantage 1: single attributes balanced, so BiasAmp_MALS is exactly 0 and BA-> about 0,
    # while the multi-attribute metrics (x100) are clearly positive.
    assert key["advantage 1: BiasAmp_MALS"] == 0.0
    assert abs(key["advantage 1: BiasAmp A->T"]) < 0.2
    assert key["advantage 1: Multi_MALS"] > 1.0
    assert key["advantage 1: Multi T->A"] > 1.0
    # This MLP under-predicts the combination bias: only the signed version shows it.
    assert key["advantage 1: Multi_MALS raw (signed)"] < 0
    # Appendix B: blurring hides the group, the model leans on the attributes (M->G rises).
    assert key["blurred: group accuracy"] < key["advantage 1: group accuracy"] - 0.05
    assert key["blurred: Multi T->A"] > key["advantage 1: Multi T->A"]
    # Advantage 2: signed single-attribute deltas cancel, absolute ones do not.
    assert (
        key["advantage 2: absolute mean of single-attribute deltas"]
        > abs(key["advantage 2: signed mean of single-attribute deltas"]) + 0.5
    )


def test_05_directional_heatmaps(tmp_path: Path) -> None:
    key = load("05_directional_heatmaps").main(output_dir=tmp_path)
    assert (tmp_path / "05_directional_heatmaps.png").exists()
    # BA-> reads 0 on balanced data whatever the model does; DPA does not.
    assert key["BA-> max |value| on balanced data"] == 0.0
    assert key["DPA max |value| on balanced data"] > 0.1
    # Multi-> is never negative; BA-> and DPA are, and mostly agree in sign.
    assert key["Multi-> min"] >= 0.0
    assert key["BA-> min"] < -0.1 and key["DPA min"] < -0.1
    assert key["sign agreement BA-> vs DPA off balanced data"] > 0.9
    # A model that reproduces the data exactly amplifies nothing.
    assert key["BA-> max |value| on the diagonal"] == pytest.approx(0.0, abs=1e-12)
    assert key["Multi-> max on the diagonal"] == pytest.approx(0.0, abs=1e-12)


def test_07_coco_t_to_a(tmp_path: Path) -> None:
    key = load("07_coco_gender_from_objects").main(output_dir=tmp_path, seeds=(0, 1, 2))
    assert (tmp_path / "07_coco_t_to_a.png").exists()
    for model in ("logistic C=0.05", "logistic C=1", "MLP (8)", "MLP (32)"):
        # Every gender-from-objects model amplifies T->A (interval above 0) ...
        assert key[f"{model}: BA-> T->A low"] > 0.0
        assert 0.6 < key[f"{model}: accuracy mean"] < 0.75
        # ... and a model of the tasks alone is very predictable from the tasks.
        assert key[f"{model}: DPA T->A mean"] > 0.2
    # Linear models amplify more than the MLPs, and a linear attacker mimics them better.
    assert key["logistic C=1: BA-> T->A mean"] > key["MLP (32): BA-> T->A mean"]
    assert key["logistic C=1: DPA T->A mean"] > key["MLP (32): DPA T->A mean"]


def test_09_mitigations(tmp_path: Path) -> None:
    key = load("09_mitigation_comparison").main(output_dir=tmp_path, seeds=(0, 1, 2))
    assert (tmp_path / "09_mitigations.md").exists()
    methods = ("original", "oversampling", "calibrated thresholds", "RBA")
    assert all(key[f"{m}: n_runs"] == 3 for m in methods)
    # The original model amplifies (it over-predicts men); every mitigation lowers the violations.
    assert key["original: BiasAmp_MALS"] > 0.03
    for method in methods[1:]:
        assert key[f"{method}: Viol."] < key["original: Viol."]
    assert key["RBA: BiasAmp_MALS"] < key["original: BiasAmp_MALS"]
    # Calibrated thresholds do best on BiasAmp_MALS (Wang section 3.3) and on task performance.
    assert abs(key["calibrated thresholds: BiasAmp_MALS"]) < 0.02
    assert key["calibrated thresholds: task performance"] > key["original: task performance"] + 0.1
    # Single-attribute mitigation does not remove multi-attribute amplification (Multi, sec. 6).
    for method in ("oversampling", "RBA"):
        assert key[f"{method}: Multi_MALS"] > 0.8 * key["original: Multi_MALS"]


def test_06_attacker_robustness(tmp_path: Path) -> None:
    key = load("06_dpa_attacker_robustness").main(output_dir=tmp_path)
    assert (tmp_path / "06_attacker_robustness.csv").exists()
    # T_hat is the better function of A: positive amplification with every attacker.
    assert key["relative: min"] > 0 and key["absolute: min"] > 0
    # Relative change varies less across attackers than absolute change ...
    assert key["relative: CV"] < 0.75 * key["absolute: CV"]
    # ... and does not depend on the unit of T (inverse-RMSE quality).
    assert key["relative, T x10 / T x1"] == pytest.approx(1.0, abs=1e-3)
    assert key["absolute, T x10 / T x1"] == pytest.approx(0.1, abs=1e-3)


def test_10_compas_table6(tmp_path: Path) -> None:
    key = load("10_compas_table6").main(output_dir=tmp_path)
    assert (tmp_path / "10_compas_table6.png").exists()
    rows = ("unbalanced T->A", "unbalanced A->T", "balanced T->A", "balanced A->T")
    # BA-> and Multi-> depend on Table 6's counts only: Table 7 exactly (3 decimals).
    for row in rows:
        assert key[f"{row}: BA-> biasamp"] == pytest.approx(key[f"{row}: BA-> paper"], abs=5e-4)
        assert key[f"{row}: Multi-> biasamp"] == pytest.approx(
            key[f"{row}: Multi-> paper"], abs=5e-4
        )
    # DPA with the stated 1/CE quality: about a fifth of the printed values ...
    for row in ("unbalanced T->A", "balanced T->A", "balanced A->T"):
        ratio = key[f"{row}: DPA, 1/CE (paper, stated)"] / key[f"{row}: DPA paper"]
        assert 0.1 < ratio < 0.3, row
        # ... while thresholded qualities come close (within 25%).
        for quality in ("accuracy", "1/MSE thresholded"):
            assert key[f"{row}: DPA, {quality}"] == pytest.approx(
                key[f"{row}: DPA paper"], rel=0.25
            ), (row, quality)
    # unbalanced A->T: about zero with every quality, as printed (-0.004)
    for quality in ("1/CE (paper, stated)", "accuracy", "1/MSE thresholded"):
        assert abs(key[f"unbalanced A->T: DPA, {quality}"]) < 0.01


def test_11_metric_pictures(tmp_path: Path) -> None:
    key = load("11_metric_pictures").main(output_dir=tmp_path)
    for name in ("11_per_pair_deltas", "11_mals_bias", "11_threshold_sweep"):
        assert (tmp_path / f"{name}.png").stat().st_size > 10_000
    # The README's numbers: T->A -0.030 at 0.5 (interval below 0), +0.157 calibrated.
    assert key["T->A at 0.5"] == pytest.approx(-0.0302, abs=5e-4)
    assert key["T->A at 0.5 ci high"] < 0
    assert key["T->A calibrated"] == pytest.approx(0.1566, abs=5e-4)
    assert key["MALS at 0.5"] == pytest.approx(0.1231, abs=5e-4)
    # The threshold alone changes the sign of both metrics.
    assert key["T->A sweep min"] < -0.1 < 0.1 < key["T->A sweep max"]
    assert key["MALS sweep min"] < -0.1 < 0.1 < key["MALS sweep max"]


def test_13_adult_intersectional(tmp_path: Path) -> None:
    key = load("13_adult_intersectional").main(output_dir=tmp_path)
    assert (tmp_path / "13_adult_intersectional.png").stat().st_size > 10_000
    assert "log_ratio_pred" in (tmp_path / "13_adult_intersectional.md").read_text()
    # epsilon of the test labels, by a loop over the groups' smoothed rates
    import numpy as np
    import pandas as pd

    test = pd.read_csv(EXAMPLES / "data" / "adult" / "test.csv.gz")
    country = test["native-country"].fillna("<missing>")
    groups = test["race"] + " x " + test["sex"] + " x " + country
    logs = {}
    for group, labels in test["income"].groupby(groups):
        logs[group] = [
            np.log(((labels == y).sum() + 0.5) / (len(labels) + 1)) for y in (">50K", "<=50K")
        ]
    table = np.array(list(logs.values()))
    assert key["groups"] == len(logs) == 167
    assert key["epsilon labels"] == pytest.approx(
        float((table.max(0) - table.min(0)).max()), rel=1e-12
    )
    assert key["never occurring"] == 5 * 2 * 41 - 167  # 40 test countries + missing
    # the model amplifies; the interval is wide because most intersections are tiny
    assert key["amplification"] == pytest.approx(0.99, abs=0.05)
    assert key["ci low"] < key["amplification"] < key["ci high"]
    assert key["small groups"] == 146
    assert key["amplification, groups of 30+"] > 0.5


def test_14_llm_generations(tmp_path: Path) -> None:
    key = load("14_llm_generations").main(output_dir=tmp_path)
    assert (tmp_path / "14_llm_generations.png").stat().st_size > 10_000
    table = (tmp_path / "14_llm_generations.md").read_text()
    assert "| none | 54.4 | 67.5 | 59.2 |" in table
    # Wang et al.'s right-leaning share without mitigation, argmax rule: 826, 1025, 898 of 1518
    assert key["none right gen 0"] == pytest.approx(826 / 1518)
    assert key["none right gen 6"] == pytest.approx(1025 / 1518)
    assert key["none right gen 10"] == pytest.approx(898 / 1518)
    assert key["accumulation right gen 10"] == pytest.approx(649 / 1518)
    # the accumulation run stays inside the feedback bound drawn beside it
    assert key["accumulation drift"] < key["accumulation bound 10"]


def test_15_engineer_arithmetic(tmp_path: Path) -> None:
    key = load("15_engineer_arithmetic").main(output_dir=tmp_path)
    assert (tmp_path / "15_engineer_arithmetic.png").stat().st_size > 10_000
    # 25% women in the captions, 10% in the images: men 0.75 -> 0.90
    assert key["amplification"] == pytest.approx(0.15)
    assert key["ci low"] < 0.15 < key["ci high"]
    assert key["matched 0.2"] == pytest.approx(0.10)
    assert key["matched 0.1"] == pytest.approx(0.0, abs=1e-12)
    # CLEAM: (0.10 + 0.98 - 1) / (0.90 + 0.98 - 1) = 1/11
    assert key["corrected women"] == pytest.approx(1 / 11) == pytest.approx(key["cleam women"])
    assert key["corrected amplification"] == pytest.approx(10 / 11 - 0.75)


def test_16_text_outputs(tmp_path: Path) -> None:
    key = load("16_text_outputs").main(output_dir=tmp_path)
    assert (tmp_path / "16_text_outputs.png").stat().st_size > 10_000
    # read by hand: engineer 7 men, 2 women, 2 without, 1 both; nurse 8 women, 1 man
    assert key["engineer output share"] == pytest.approx(7 / 9)
    assert key["nurse output share"] == pytest.approx(8 / 9)
    assert (key["no group"], key["conflict"]) == (4.0, 2.0)
    assert key["amplification"] == pytest.approx(((7 / 9 - 0.84) + (8 / 9 - 0.87)) / 2)
