"""bias_transfer: Girrbach et al.'s data bias and the least-squares line of the outputs' bias."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import biasamp
from biasamp.generated._bias_transfer import (
    ERR_CONSTANT,
    ERR_GROUP,
    ERR_TOO_FEW,
    REASON_FEW,
    REASON_NO_OUTPUTS,
    REASON_NOT_IN_REFERENCE,
)

REFERENCE = pd.DataFrame(
    {"f": [150, 100, 50, 10], "m": [50, 100, 150, 30]}, index=["nurse", "teacher", "pilot", "rare"]
)
OUTPUTS = pd.DataFrame(
    {"f": [18, 10, 1, 3, 5], "m": [2, 10, 19, 1, 5]},
    index=["nurse", "teacher", "pilot", "rare", "extra"],
)


def test_hand_worked_line():
    result = biasamp.bias_transfer(reference=REFERENCE, outputs=OUTPUTS, group="f")
    assert isinstance(result, biasamp.BiasTransferResult)
    # reference bias (150-50)/200 = 0.5, 0, -0.5; output bias 0.8, 0, -0.9
    assert result.by_concept["reference_bias"].tolist() == pytest.approx([0.5, 0.0, -0.5])
    assert result.by_concept["output_bias"].tolist() == pytest.approx([0.8, 0.0, -0.9])
    assert result.slope == pytest.approx(1.7)  # (0.5*0.8 + 0.5*0.9) / 0.5
    assert result.intercept == pytest.approx(-0.1 / 3)
    r = 0.85 / np.sqrt(0.5 * (0.8**2 + 0.9**2 - 0.01 / 3))
    assert result.r == pytest.approx(r) and result.r2 == pytest.approx(r * r)
    assert result.value == result.slope and result.n_concepts == 3
    assert result.excluded.to_dict() == {"rare": REASON_FEW, "extra": REASON_NOT_IN_REFERENCE}
    residual = result.by_concept["output_bias"] - result.by_concept["fitted"]
    assert result.by_concept["residual"].tolist() == pytest.approx(residual.tolist())


def test_group_bias_is_girrbachs_for_two_groups_and_one_against_the_rest_for_more():
    reference = pd.DataFrame({"f": [300, 10, 60], "m": [100, 90, 60], "x": [0, 0, 80]})
    outputs = pd.DataFrame({"f": [9, 1, 5], "m": [1, 9, 3], "x": [0, 0, 2]})
    result = biasamp.bias_transfer(reference=reference, outputs=outputs, group="f", min_count=0)
    assert result.by_concept["reference_bias"].tolist() == pytest.approx(
        [(300 - 100) / 400, (10 - 90) / 100, (60 - 140) / 200]
    )
    assert result.by_concept["output_bias"].tolist() == pytest.approx([0.8, -0.8, 0.0])


@pytest.mark.parametrize("seed", range(6))
def test_random_cases_against_numpy(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(4, 40))
    reference = pd.DataFrame(rng.integers(0, 300, size=(n, 2)), columns=["w", "m"])
    outputs = pd.DataFrame(rng.integers(1, 50, size=(n, 2)), columns=["w", "m"])
    result = biasamp.bias_transfer(reference=reference, outputs=outputs, group="w", min_count=100)
    keep = reference.sum(axis=1) >= 100
    x = ((reference["w"] - reference["m"]) / reference.sum(axis=1))[keep]
    y = ((outputs["w"] - outputs["m"]) / outputs.sum(axis=1))[keep]
    slope, intercept = np.polyfit(x, y, 1)
    assert result.slope == pytest.approx(slope)
    assert result.intercept == pytest.approx(intercept)
    assert result.r == pytest.approx(np.corrcoef(x, y)[0, 1])
    assert result.n_concepts == int(keep.sum())


@settings(max_examples=20, deadline=None)
@given(st.randoms(use_true_random=False))
def test_row_order_does_not_matter(random):
    a = biasamp.bias_transfer(reference=REFERENCE, outputs=OUTPUTS, group="f")
    seed = random.randrange(1000)
    b = biasamp.bias_transfer(
        reference=REFERENCE.sample(frac=1.0, random_state=seed),
        outputs=OUTPUTS.sample(frac=1.0, random_state=seed + 1),
        group="f",
    )
    assert (b.slope, b.intercept, b.r) == (
        pytest.approx(a.slope), pytest.approx(a.intercept), pytest.approx(a.r)
    )  # fmt: skip


def test_mapping_tables_and_groups_that_print_alike():
    reference = {c: row.to_dict() for c, row in REFERENCE.iterrows()}
    outputs = {c: row.to_dict() for c, row in OUTPUTS.iterrows()}
    a = biasamp.bias_transfer(reference=reference, outputs=outputs, group="f")
    assert a.slope == pytest.approx(1.7)
    numbered = REFERENCE.set_axis([1, 0], axis=1)
    b = biasamp.bias_transfer(
        reference=numbered, outputs=OUTPUTS.set_axis(["1", "0"], axis=1), group=1
    )
    assert b.slope == pytest.approx(1.7)  # 1 and "1" of different tables are one group


def test_concepts_without_outputs_are_left_out():
    outputs = OUTPUTS.copy()
    outputs.loc["teacher"] = 0
    reference = pd.concat([REFERENCE, pd.DataFrame({"f": [120], "m": [80]}, index=["chef"])])
    outputs.loc["chef"] = [3, 7]
    result = biasamp.bias_transfer(reference=reference, outputs=outputs, group="f")
    assert result.excluded["teacher"] == REASON_NO_OUTPUTS
    assert list(result.by_concept.index) == ["nurse", "pilot", "chef"]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"group": "x"}, ERR_GROUP.format(group="x", arg="reference", columns=["f", "m"])),
        ({"group": "f", "min_count": 1000}, ERR_TOO_FEW.split("(")[0].format(n=0)),
        ({"group": "f", "min_count": -1}, "min_count: expected a number >= 0, got -1."),
        ({"group": "f", "min_count": True}, "min_count: expected a number >= 0, got True."),
        ({"group": "f", "min_count": "many"}, "min_count: expected a number >= 0, got 'many'."),
    ],
)
def test_bad_arguments(kwargs, message):
    with pytest.raises(ValueError, match="^" + re.escape(message)):
        biasamp.bias_transfer(reference=REFERENCE, outputs=OUTPUTS, **kwargs)


def test_constant_bias_is_refused():
    outputs = pd.DataFrame({"f": [5, 5, 5], "m": [5, 5, 5]}, index=["nurse", "teacher", "pilot"])
    with pytest.raises(
        ValueError, match="^" + re.escape(ERR_CONSTANT.split("(")[0].format(side="output", value=0))
    ):
        biasamp.bias_transfer(reference=REFERENCE, outputs=outputs, group="f")
    with pytest.raises(ValueError, match="^outputs: row 'nurse', column 'f' is missing"):
        biasamp.bias_transfer(
            reference=REFERENCE, outputs=OUTPUTS.astype(float).replace(18.0, np.nan), group="f"
        )


def test_save_load_plot_compare(tmp_path):
    result = biasamp.bias_transfer(reference=REFERENCE, outputs=OUTPUTS, group="f")
    assert biasamp.load_result(result.save(tmp_path / "t.json")) == result
    assert biasamp.compare({"clip": result})["metric"].tolist() == ["bias-transfer"]
