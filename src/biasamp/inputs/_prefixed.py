"""Prediction columns named by a prefix: the file audit's ``pred_`` layout, in memory.

The file audit reads the prediction of column ``C`` from column ``pred_prefix + C``
(:func:`biasamp.audit`, ``--pred-prefix``). The metric functions take the same
keyword: with ``pred_prefix="pred_"``, a frame passed as ``groups_pred`` or
``tasks_pred`` gives, for each column ``C`` of the ground truth's frame (``tasks``,
else ``tasks_train``; ``groups``, else ``groups_train``), its column ``pred_C``, read
as ``C``; without a ground-truth frame (1-D labels), every column that starts with
the prefix, named without it. Its other columns are left out, so one frame may hold
the ground truth and the predictions side by side. A 1-D prediction (one label per
row) has no column names and is read as it is.
"""

from __future__ import annotations

from typing import Any

__all__ = ["ERR_MISSING_PREDICTION", "ERR_NO_PREFIXED", "ERR_PREFIX_TYPE", "prediction_columns"]

ERR_PREFIX_TYPE = "pred_prefix: expected a non-empty str, got {got!r}."
ERR_NO_PREFIXED = (
    "{arg}: no column starts with pred_prefix={prefix!r}; the frame has columns {columns}."
)
ERR_MISSING_PREDICTION = (
    "{arg}: no column {column!r}, the prediction of {label!r} (pred_prefix={prefix!r}); "
    "the frame has columns {columns}."
)


def _frame(x: Any) -> Any:
    """``x`` as a narwhals DataFrame, or ``None`` when it is not a frame."""
    if x is None:
        return None
    import narwhals.stable.v1 as nw

    frame = nw.from_native(x, eager_only=True, pass_through=True)
    return frame if isinstance(frame, nw.DataFrame) else None


def _shown(columns: Any) -> str:
    return ", ".join(repr(c) for c in list(columns)[:20])


def prediction_columns(x: Any, prefix: str | None, *, arg: str, truth: Any = ()) -> Any:
    """The prediction columns of the frame ``x`` named by ``prefix``, named without it.

    Parameters
    ----------
    x : DataFrame (pandas, polars, pyarrow Table) or any other input
        A prediction argument (``groups_pred``, ``tasks_pred``).
    prefix : str or None
        ``None`` returns ``x`` unchanged.
    arg : str
        The argument's name, for messages.
    truth : sequence
        The ground truth of the same role (``(tasks, tasks_train)``): the columns
        of the first frame among them name the predictions to read, in its order.

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
    >>> list(prediction_columns(frame, "pred_", arg="tasks_pred", truth=[frame[["cup"]]]).columns)
    ['cup']
    """
    if prefix is None or x is None:
        return x
    if not isinstance(prefix, str) or not prefix:
        raise TypeError(ERR_PREFIX_TYPE.format(got=prefix))
    import narwhals.stable.v1 as nw

    frame = _frame(x)
    if frame is None:
        return x
    labels = next((f.columns for f in map(_frame, truth) if f is not None), None)
    if labels is None:
        names = [c for c in frame.columns if isinstance(c, str) and c.startswith(prefix)]
        if not names:
            raise ValueError(
                ERR_NO_PREFIXED.format(arg=arg, prefix=prefix, columns=_shown(frame.columns))
            )
    else:
        names = [f"{prefix}{label}" for label in labels]
        for label, name in zip(labels, names, strict=True):
            if name not in frame.columns:
                raise ValueError(
                    ERR_MISSING_PREDICTION.format(
                        arg=arg, column=name, label=label, prefix=prefix,
                        columns=_shown(frame.columns),
                    )
                )  # fmt: skip
    renamed = frame.select(names).rename({c: c[len(prefix) :] for c in names})
    return nw.to_native(renamed)
