"""MALS: unused categories are not groups; ``group_names`` counts them on purpose.

Groups m, m, w, m (categories m, w, x; x never occurs); tasks a, a, b, b.
Without x, |G| = 2 and the threshold is 1/2; naming x in ``group_names`` makes
|G| = 3 and the threshold 1/3.
"""

import pandas as pd
import polars as pl
import pytest

from biasamp import mals

TASKS = ["a", "a", "b", "b"]
PRED = ["a", "b", "b", "b"]
LABELS = ["m", "m", "w", "m"]


@pytest.mark.parametrize(
    "groups",
    [
        pd.Series(pd.Categorical(LABELS, categories=["m", "w", "x"])),
        pl.Series(LABELS, dtype=pl.Enum(["m", "w", "x"])),
    ],
    ids=["pandas-categorical", "polars-enum"],
)
def test_unused_categories_are_dropped(groups):
    result = mals(groups_train=groups, tasks_train=TASKS, groups_pred=groups, tasks_pred=PRED)
    assert result.params["threshold"] == pytest.approx(1 / 2)
    assert set(result.by_pair["group"]) == {"m", "w"}


def test_group_names_counts_a_group_that_never_occurs():
    result = mals(
        groups_train=LABELS,
        tasks_train=TASKS,
        groups_pred=LABELS,
        tasks_pred=PRED,
        group_names=["m", "w", "x"],
    )
    assert result.params["threshold"] == pytest.approx(1 / 3)
