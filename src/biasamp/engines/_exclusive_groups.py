"""Exclusive group score columns (``group_cols="man,woman"`` with scores): one decision.

When every ground-truth row has exactly one group, the group score columns describe
one exclusive decision, not independent labels, so each row must be predicted into
exactly one group:

* **Two groups**: the decision is binary. The *positive group* is ``positive_group=``
  or, as in scikit-learn, the second group in sorted order; a row is predicted
  positive when the positive group's score is above its threshold, else the other
  group. The other column's score is not used. The report's sweep moves this one
  threshold.
* **More than two groups**: the row goes to the group with the largest score minus
  its threshold (``argmax_g score_g - t_g``; the first group on ties). A common
  threshold moves every score equally and never changes the argmax, so the sweep
  keeps this decision fixed and sweeps the task scores only.

Group columns whose ground truth is multi-label (a row in several groups or none)
keep the per-column rule ``score > threshold``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

__all__ = [
    "ERR_POSITIVE_GROUP",
    "exclusive_group_predictions",
    "groups_are_exclusive",
    "positive_group",
]

ERR_POSITIVE_GROUP = "positive_group=: {got!r} is not one of the group columns {names}."


def groups_are_exclusive(*truths: Any) -> bool:
    """Whether every row of every given (n, |G|) 0/1 ground truth has exactly one group."""
    seen = False
    for truth in truths:
        if truth is None:
            continue
        matrix = np.asarray(truth.toarray() if hasattr(truth, "toarray") else truth)
        if matrix.ndim != 2 or not (matrix.sum(axis=1) == 1).all():
            return False
        seen = True
    return seen


def positive_group(names: Sequence[str], requested: str | None) -> str:
    """``requested`` (checked against ``names``) or the second name in sorted order."""
    if requested is not None:
        if requested not in names:
            raise ValueError(ERR_POSITIVE_GROUP.format(got=requested, names=list(names)))
        return requested
    return sorted(names)[1]


def exclusive_group_predictions(
    scores: np.ndarray,
    names: Sequence[str],
    thresholds: Mapping[str, float],
    *,
    default: float,
    positive: str | None = None,
) -> np.ndarray:
    """One group per row as an (n, |G|) uint8 indicator matrix (see the module rule).

    Examples
    --------
    >>> import numpy as np
    >>> scores = np.array([[0.9, 0.2], [0.4, 0.7], [0.8, 0.6]])
    >>> exclusive_group_predictions(scores, ["man", "woman"], {}, default=0.5).tolist()
    [[1, 0], [0, 1], [0, 1]]
    >>> three = np.array([[0.2, 0.5, 0.4], [0.9, 0.1, 0.3]])
    >>> exclusive_group_predictions(three, ["a", "b", "c"], {"c": 0.0}, default=0.5).tolist()
    [[0, 0, 1], [1, 0, 0]]
    """
    names = list(names)
    cut = np.array([float(thresholds.get(str(name), default)) for name in names])
    out = np.zeros(scores.shape, dtype=np.uint8)
    rows = np.arange(scores.shape[0])
    if len(names) == 2:
        p = names.index(positive_group(names, positive))
        chosen = np.where(scores[:, p] > cut[p], p, 1 - p)
    else:
        chosen = np.argmax(scores - cut[None, :], axis=1)
    out[rows, chosen] = 1
    return out
