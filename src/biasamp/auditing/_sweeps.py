"""Threshold sweeps of an audit read from files: the metrics along a grid of thresholds.

An audit whose predictions are scores (:func:`~biasamp.auditing._inputs.load_audit`
with ``threshold`` or ``thresholds``) is swept with :func:`biasamp.threshold_sweep`
over one grid for every scored label (:func:`sweep_grid`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from biasamp.auditing._inputs import AuditData
from biasamp.engines._exclusive_groups import positive_group
from biasamp.uncertainty._sweep import ThresholdSweep, threshold_sweep

__all__ = ["SWEEP_GRID", "audit_threshold_sweep", "sweep_grid"]

#: The default grid: 0.05, 0.10, ..., 0.95.
SWEEP_GRID = np.round(np.linspace(0.05, 0.95, 19), 2)


def sweep_grid(data: AuditData) -> np.ndarray:
    """0.05, 0.10, ..., 0.95 for scores in [0, 1]; else the 5%, 10%, ..., 95% quantiles."""
    values = np.concatenate(
        [np.ravel(s) for s in (data.group_scores, data.task_scores) if s is not None]
    )
    if values.min() >= 0 and values.max() <= 1:
        return SWEEP_GRID
    return np.unique(np.quantile(values, SWEEP_GRID))


def audit_threshold_sweep(
    data: AuditData,
    metric: str,
    *,
    direction: str | None = None,
    thresholds: np.ndarray | None = None,
    progress: bool = False,
) -> ThresholdSweep | None:
    """The threshold sweep of one co-occurrence metric of an audit whose predictions are scores.

    One grid for every scored label (``score > threshold``); the labels' own
    thresholds are not used along the sweep. A->T sweeps the task scores, T->A
    the group scores, MALS both (the unscored role keeps its predictions).

    Exclusive group score columns (every row in exactly one group, see
    :mod:`biasamp.engines._exclusive_groups`) are one decision: with two groups the
    positive group's score is swept (the other group is predicted below the
    threshold); with more groups the argmax decision does not move with a
    common threshold, so the groups keep their predictions and only task scores
    are swept (T->A has nothing to sweep then).

    Parameters
    ----------
    data : AuditData
        An audit read by :func:`~biasamp.auditing._inputs.load_audit` with
        score columns (``threshold`` or ``thresholds`` given).
    metric : {"mals", "directional"}
        The metric swept, with the audit's training split.
    direction : {"A->T", "T->A"}, optional
        The direction of ``"directional"``.
    thresholds : array of shape (k,), optional
        The grid; default :func:`sweep_grid`.
    progress : bool, default False
        Show a progress bar.

    Returns
    -------
    ThresholdSweep or None
        :func:`biasamp.threshold_sweep`'s result, or None when the audit has no
        scores or the scores of this direction do not move with a threshold.

    Examples
    --------
    >>> import os, tempfile
    >>> import pandas as pd
    >>> from biasamp.auditing._inputs import Layout, load_audit
    >>> path = os.path.join(tempfile.mkdtemp(), "audit.csv")
    >>> pd.DataFrame({"g": ["m", "w", "m", "w"], "ski": [1, 0, 1, 1],
    ...               "s_ski": [0.9, 0.3, 0.6, 0.2]}).to_csv(path, index=False)
    >>> data = load_audit(Layout(group="g", task_cols=("ski",), pred_prefix="s_"),
    ...                   data=path, threshold=0.5)
    >>> sweep = audit_threshold_sweep(data, "directional", direction="A->T",
    ...                               thresholds=np.array([0.25, 0.5]))
    >>> sweep.table["threshold"].tolist()
    [0.25, 0.5]
    """
    if data.scores is None:
        return None
    grid = sweep_grid(data) if thresholds is None else thresholds
    kwargs: dict[str, Any] = {
        **data.names(),
        "groups_train": data.groups_train,
        "tasks_train": data.tasks_train,
    }
    roles = {"groups": data.group_scores, "tasks": data.task_scores}
    group_kwargs: dict[str, Any] = {}
    if data.exclusive_groups and data.group_scores is not None:
        if len(data.group_names) == 2:
            positive = positive_group(data.group_names, data.positive_group)
            column = list(data.group_names).index(positive)
            roles["groups"] = data.group_scores[:, column]
            group_kwargs["positive_group"] = positive
        else:
            roles["groups"] = None  # the argmax decision is fixed along the grid
    if direction == "A->T":
        roles["groups"] = None
        kwargs.update(direction=direction, groups=data.groups, tasks=data.tasks)
    elif direction == "T->A":
        roles["tasks"] = None
        kwargs.update(direction=direction, groups=data.groups, tasks=data.tasks)
    if all(v is None for v in roles.values()):
        return None
    for role, scores in roles.items():
        if scores is None and direction is None:
            kwargs[f"{role}_pred"] = getattr(data, f"{role}_pred")
    return threshold_sweep(
        metric,
        thresholds=grid,
        progress=progress,
        groups_scores=_group_score_frame(roles["groups"], data.group_names),
        **group_kwargs,
        tasks_scores=None
        if roles["tasks"] is None
        else pd.DataFrame(roles["tasks"], columns=list(data.task_names)),
        **kwargs,
    )


def _group_score_frame(scores: np.ndarray | None, names: tuple[str, ...]) -> Any:
    """Scores as ``threshold_sweep`` takes them: 1-D for the positive group, else a frame."""
    if scores is None or scores.ndim == 1:
        return scores
    return pd.DataFrame(scores, columns=list(names))
