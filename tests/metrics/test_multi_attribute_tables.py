"""``by_combination`` built when first read and ``by_size`` computed from the arrays."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pytest

import biasamp
from biasamp.results._multi_attribute import MultiAttributeResult

from .multi_attribute_data import three_group_splits


def _data(n: int = 600, n_tasks: int = 7, seed: int = 0) -> dict[str, Any]:
    return three_group_splits(n, n_tasks, seed, base=0.25, lift=0.25, dtype=np.int8, weighted=True)


def _by_size_from_frame(frame: pd.DataFrame, metric: str) -> pd.DataFrame:
    """by_size as a groupby over the tidy frame (how it was computed before commit cd967ed)."""
    rows = []
    for size, part in frame.groupby("size", sort=True):
        n_comb = part["combination"].nunique()
        keep = ~part["empty"].to_numpy()
        if metric == "multi_mals":
            value = part["term"].sum() / n_comb
            deltas = np.where(part["biased"].to_numpy(), part["delta"].to_numpy(), 0.0)[keep]
            n_pairs = int(part["biased"].sum())
        else:
            value = part["term"].to_numpy()[keep].mean() if keep.any() else np.nan
            deltas = part["delta"].to_numpy()[keep]
            n_pairs = int(keep.sum())
        rows.append(
            {
                "size": int(size),  # type: ignore[arg-type]
                "n_combinations": int(n_comb),
                "n_pairs": n_pairs,
                "value": float(value),
                "variance": float(np.var(deltas)) if deltas.size else np.nan,
            }
        )
    return pd.DataFrame(rows, columns=["size", "n_combinations", "n_pairs", "value", "variance"])


@pytest.mark.parametrize("mode", ["observed", "subsets"])
@pytest.mark.parametrize("absolute", [True, False])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_by_size_equals_the_groupby_of_by_combination(mode: str, absolute: bool, seed: int):
    """To the last bit: each size's pairs are summed in the frame's row order."""
    results = biasamp.multi_attribute(
        **_data(seed=seed),
        combinations=mode,
        max_size=3 if mode == "subsets" else None,
        absolute=absolute,
        baseline="train" if seed == 2 else "evaluation",
    )
    for result in results.values():
        expected = _by_size_from_frame(result.by_combination, result.family)
        pd.testing.assert_frame_equal(result.by_size, expected, check_exact=True)


def test_frame_is_built_once_when_first_read() -> None:
    calls: list[int] = []
    frame = pd.DataFrame({"combination": [("a",)], "group": ["g"], "delta": [0.5]})

    def build() -> pd.DataFrame:
        calls.append(1)
        return frame

    result = MultiAttributeResult(
        metric="multi_mals",
        value=0.5,
        variance=0.0,
        by_combination=build,  # type: ignore[arg-type]
        by_size=pd.DataFrame(),
        n=1.0,
        n_combinations=1,
    )
    assert calls == []
    assert result.by_combination is frame and result.by_pair is frame
    assert calls == [1]
    result.by_combination  # noqa: B018
    assert calls == [1]
    other = frame.iloc[:0]
    result.by_combination = other
    assert result.by_combination is other


def test_frame_field_is_required() -> None:
    with pytest.raises(TypeError, match="by_combination"):
        MultiAttributeResult(  # type: ignore[call-arg]
            metric="multi_mals", value=0.0, variance=0.0, by_size=pd.DataFrame(), n=1.0
        )


def test_lazy_frames_equal_the_single_calls_and_save(tmp_path: Any) -> None:
    """Each metric's frame (built on read) is the one of its single call; save/load keeps it."""
    d = _data(seed=3)
    together = biasamp.multi_attribute(**d)
    mals = biasamp.multi_mals(**{k: v for k, v in d.items() if k != "groups"})
    pd.testing.assert_frame_equal(
        together["multi_mals"].by_combination, mals.by_combination, check_exact=True
    )
    for direction in ("A->T", "T->A"):
        single = biasamp.multi_directional(direction=direction, **d)
        pd.testing.assert_frame_equal(
            together[direction].by_combination, single.by_combination, check_exact=True
        )
    path = together["T->A"].save(tmp_path / "r.json")
    loaded = biasamp.load_result(path)
    pd.testing.assert_frame_equal(loaded.by_combination, together["T->A"].by_combination)
    assert loaded.to_dict() == together["T->A"].to_dict()
