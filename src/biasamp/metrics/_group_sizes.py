"""Group sizes of the splits a metric uses, and the small-group check, from count tables.

Every metric counts its splits into :class:`CountTable` objects; their group totals
are the group sizes. :func:`group_sizes` collects them into one frame (one column per
split) and :func:`check_group_sizes` also warns (:class:`SmallGroupWarning`) about
the groups below ``min_group_size`` in any split, so a result can carry
``group_sizes`` and ``small_groups``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from biasamp.counts._count_table import CountTable
from biasamp.inputs._group_sizes import warn_small_groups

__all__ = ["check_group_sizes", "group_sizes"]

_SPLIT_NAMES = {"train": "the training split", "evaluation": "the evaluation split"}


def group_sizes(splits: Mapping[str, CountTable], *, role: str = "groups") -> pd.DataFrame:
    """Size of each group (rows, or total weight) in each split: groups x splits.

    Parameters
    ----------
    splits : mapping of split name -> CountTable
        For example ``{"train": train_table, "evaluation": evaluation_table}``.
        Replicate tables (a leading bootstrap axis) are not group sizes; pass the
        point tables.
    role : str, default "groups"
        The group role whose totals are the sizes.

    Examples
    --------
    >>> from biasamp import CountTable
    >>> from biasamp.metrics._group_sizes import group_sizes
    >>> table = CountTable.from_arrays(groups=["m", "w", "m"], tasks=["a", "b", "b"])
    >>> group_sizes({"evaluation": table})
           evaluation
    group
    m             2.0
    w             1.0
    """
    columns = {
        split: pd.Series(
            np.asarray(table.totals[role], dtype=np.float64), index=pd.Index(table.group_names)
        )
        for split, table in splits.items()
    }
    frame = pd.DataFrame(columns).fillna(0.0)
    frame.index.name = "group"
    return frame


def check_group_sizes(
    splits: Mapping[str, CountTable],
    *,
    min_group_size: float | None,
    role: str = "groups",
    stacklevel: int = 4,
) -> tuple[pd.DataFrame, tuple[Any, ...]]:
    """:func:`group_sizes` and the groups below ``min_group_size`` in any split (warned).

    Groups of size 0 in a split (absent from it) are not small: they do not occur.
    """
    sizes = group_sizes(splits, role=role)
    small: list[Any] = []
    for split in sizes.columns:  # one warning per split: a loop over splits
        column = sizes[split]
        named = warn_small_groups(
            column[column > 0],
            min_group_size=min_group_size,
            split=_SPLIT_NAMES.get(split, f"the {split} split"),
            stacklevel=stacklevel,
        )
        small += [g for g in named if g not in small]
    return sizes, tuple(small)
