"""Rows of one split matched by their pandas index, never silently by position.

The arguments of one split (``groups``, ``tasks``, ``groups_pred``,
``tasks_pred``, ``sample_weight``; or the ``*_train`` ones) describe the same
rows. When several of them are pandas objects (Series, DataFrame) their
indexes say which row is which, so:

* every pandas argument has the same index: nothing to do;
* they hold the same labels in another order (``df.g`` and
  ``df.g.sort_values()``): each is put in the order of the first pandas
  argument, so rows are matched by label;
* otherwise (different labels, or repeated labels in a different order):
  :data:`ERR_INDEX_DIFFERS` names the two arguments.

Arguments without an index (numpy arrays, lists, tensors, polars, pyarrow) are
matched by position, as they always are; put them in the pandas order yourself.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

__all__ = ["ERR_INDEX_DIFFERS", "align_pandas_indexes"]

ERR_INDEX_DIFFERS = (
    "{first} and {other} are pandas objects with different indexes ({detail}); biasamp "
    "matches the rows of one split by index label and will not pair them by position. "
    "Select the same rows in both (for example {other}.loc[{first}.index]), or pass "
    ".reset_index(drop=True) / .to_numpy() of both to pair them by position."
)


def _index_detail(first: pd.Index, other: pd.Index) -> str:
    if len(first) != len(other):
        return f"{len(first)} and {len(other)} rows"
    if not first.is_unique or not other.is_unique:
        return "repeated labels in a different order"
    missing = first.difference(other, sort=False)
    label = missing[0] if len(missing) else other.difference(first, sort=False)[0]
    where = "the first" if len(missing) else "the second"
    return f"label {label!r} is only in {where}"


def align_pandas_indexes(**arrays: Any) -> dict[str, Any]:
    """The arguments of one split, pandas ones put in the index order of the first.

    Parameters
    ----------
    **arrays
        Argument name -> value (``None`` and non-pandas values pass unchanged).

    Returns
    -------
    dict
        The same keys; a pandas Series or DataFrame whose index holds the
        first pandas argument's labels in another order is reindexed to that
        order.

    Raises
    ------
    ValueError
        :data:`ERR_INDEX_DIFFERS`, naming both arguments, when two pandas
        arguments hold different index labels.

    Examples
    --------
    >>> import pandas as pd
    >>> from biasamp.inputs._alignment import align_pandas_indexes
    >>> g = pd.Series(["m", "w", "w"], index=[10, 11, 12])
    >>> aligned = align_pandas_indexes(groups=g, groups_pred=g.sort_values(ascending=False))
    >>> aligned["groups_pred"].index.tolist()
    [10, 11, 12]
    """
    first_name: str | None = None
    first: pd.Index | None = None
    out = dict(arrays)
    for name, value in arrays.items():
        if not isinstance(value, (pd.Series, pd.DataFrame)):
            continue
        index = value.index
        if first is None or first_name is None:
            first_name, first = name, index
            continue
        if index is first or index.equals(first):
            continue
        same_labels = (
            len(index) == len(first)
            and first.is_unique
            and index.is_unique
            and len(first.difference(index, sort=False)) == 0
        )
        if not same_labels:
            raise ValueError(
                ERR_INDEX_DIFFERS.format(
                    first=first_name, other=name, detail=_index_detail(first, index)
                )
            )
        out[name] = value.reindex(first)
    return out
