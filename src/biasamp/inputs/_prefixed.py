"""Prediction columns named by a prefix: the file audit's ``pred_`` layout, in memory.

The file audit reads the prediction of column ``C`` from column ``pred_prefix + C``
(:func:`biasamp.audit`, ``--pred-prefix``). The metric functions take the same
keyword: with ``pred_prefix="pred_"``, a frame passed as ``groups_pred`` or
``tasks_pred`` contributes its columns that start with the prefix, each read as
the label its name gives without the prefix (``pred_cup`` is the prediction of
``cup``); its other columns are left out, so one frame may hold the ground truth
and the predictions side by side. A 1-D input (one label per row) has no column
names and is read as it is.
"""

from __future__ import annotations

from typing import Any

__all__ = ["ERR_NO_PREFIXED", "ERR_PREFIX_TYPE", "prediction_columns"]

ERR_PREFIX_TYPE = "pred_prefix: expected a non-empty str, got {got!r}."
ERR_NO_PREFIXED = (
    "{arg}: no column starts with pred_prefix={prefix!r}; the frame has columns {columns}."
)


def prediction_columns(x: Any, prefix: str | None, *, arg: str) -> Any:
    """The columns of the frame ``x`` that start with ``prefix``, named without it.

    Parameters
    ----------
    x : DataFrame (pandas, polars, pyarrow Table) or any other input
        A prediction argument (``groups_pred``, ``tasks_pred``).
    prefix : str or None
        ``None`` returns ``x`` unchanged.
    arg : str
        The argument's name, for messages.

    Returns
    -------
    The frame of the prefixed columns, renamed, in the container it came in; ``x``
    itself when it is not a frame with named columns (1-D labels, arrays, tensors).

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"cup": [1, 0], "pred_cup": [1, 1], "pred_ski": [0, 1]})
    >>> list(prediction_columns(frame, "pred_", arg="tasks_pred").columns)
    ['cup', 'ski']
    """
    if prefix is None or x is None:
        return x
    if not isinstance(prefix, str) or not prefix:
        raise TypeError(ERR_PREFIX_TYPE.format(got=prefix))
    import narwhals.stable.v1 as nw

    frame = nw.from_native(x, eager_only=True, pass_through=True)
    if not isinstance(frame, nw.DataFrame):
        return x
    names = [c for c in frame.columns if isinstance(c, str) and c.startswith(prefix)]
    if not names:
        shown = ", ".join(repr(c) for c in frame.columns[:20])
        raise ValueError(ERR_NO_PREFIXED.format(arg=arg, prefix=prefix, columns=shown))
    renamed = frame.select(names).rename({c: c[len(prefix) :] for c in names})
    return nw.to_native(renamed)
