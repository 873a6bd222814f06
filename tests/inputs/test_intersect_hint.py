"""Two categorical group columns passed as ``groups`` are refused with the hint to intersect
them; tasks of text are refused without it (the hint is about groups)."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

import biasamp
from biasamp.inputs._label_matrix import ERR_NON_NUMERIC, HINT_INTERSECT

polars = pytest.importorskip("polars")

FRAME = pd.DataFrame(
    {
        "race": ["a", "b", "a", "b"] * 10,
        "sex": ["m", "f", "f", "m"] * 10,
        "cup": [1, 0, 1, 0] * 10,
        "pred_cup": [1, 1, 0, 0] * 10,
    }
)


def _message(arg: str, columns: str) -> str:
    hint = HINT_INTERSECT.format(arg=arg, columns=columns)
    return ERR_NON_NUMERIC.format(arg=arg, dtype="object") + hint


@pytest.mark.parametrize(
    "groups",
    [
        FRAME[["race", "sex"]],
        polars.from_pandas(FRAME[["race", "sex"]]),
        FRAME[["race", "sex"]].to_numpy(),
    ],
    ids=["pandas", "polars", "numpy"],
)
def test_object_frame_as_groups_hints_at_intersect(groups) -> None:
    # a frame's columns are named in the hint; a numpy array has no names
    columns = "..." if isinstance(groups, np.ndarray) else "'race', 'sex'"
    with pytest.raises(TypeError, match=re.escape(_message("groups", columns))):
        biasamp.directional(direction="A->T", groups=groups, tasks=FRAME[["cup"]],
                            tasks_pred=FRAME[["pred_cup"]], pred_prefix="pred_")  # fmt: skip
    with pytest.raises(TypeError, match=re.escape(_message("groups_train", columns))):
        biasamp.mals(groups_train=groups, tasks_train=FRAME[["cup"]],
                     groups_pred=FRAME["race"], tasks_pred=FRAME[["cup"]])  # fmt: skip


def test_the_hint_works_and_tasks_get_no_hint() -> None:
    groups = biasamp.intersect(FRAME[["race", "sex"]])
    result = biasamp.directional(direction="A->T", groups=groups, tasks=FRAME[["cup"]],
                                 tasks_pred=FRAME, pred_prefix="pred_", min_group_size=None)  # fmt: skip
    # cup: truth 1 for (a, m) and (a, f), predicted 1 for (a, m) and (b, f): P(cup | group)
    # stays for a x m and b x m, falls by 1 for a x f, rises by 1 for b x f
    delta = result.by_pair.set_index("group")["delta"]
    assert delta.to_dict() == {"a x f": -1.0, "a x m": 0.0, "b x f": 1.0, "b x m": 0.0}
    with pytest.raises(TypeError) as caught:
        biasamp.directional(direction="A->T", groups=FRAME["race"], tasks=FRAME[["race", "sex"]],
                            tasks_pred=FRAME[["race", "sex"]])  # fmt: skip
    assert str(caught.value) == ERR_NON_NUMERIC.format(arg="tasks", dtype="object")
