"""The metrics of an audit counted from files: point estimates and intervals from count tables.

:func:`~biasamp.auditing._streaming.load_streamed` counts an audit's files
into tables (evaluation, training, bootstrap replicates, task-set patterns);
:func:`metric_from_audit_tables` computes one co-occurrence or multi-attribute
metric from them, the same result as the in-memory function with its defaults
(``train_rows="labelled"``): the point estimate from ``*_from_counts``, the
interval from the metric's batched core on the replicate tables.
:func:`bias_comparison` gives the training and predicted bias of every pair,
for an audit in memory or counted.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from biasamp.auditing._inputs import AuditData
from biasamp.auditing._streaming import StreamedData
from biasamp.counts._count_table import CountTable
from biasamp.inputs._group_sizes import DEFAULT_MIN_CELL, DEFAULT_MIN_GROUP_SIZE
from biasamp.metrics._bootstrap import interval_from_tables
from biasamp.metrics._directional import directional_arrays, directional_from_counts
from biasamp.metrics._mals import bias_score_matrix, mals_arrays, mals_from_counts
from biasamp.metrics._multi_attribute import multi_directional_from_counts, multi_mals_from_counts
from biasamp.results._significance import with_significance

__all__ = ["ERR_AUDIT_METRIC", "bias_comparison", "metric_from_audit_tables"]

ERR_AUDIT_METRIC = (
    "metric: expected 'mals', 'directional', 'multi_mals' or 'multi_directional', got {got!r}."
)


def metric_from_audit_tables(
    data: StreamedData,
    metric: str,
    *,
    direction: str = "A->T",
    margin: float = 0.05,
    min_group_size: float | None = DEFAULT_MIN_GROUP_SIZE,
    ci: float = 0.95,
    min_cell: float | None = DEFAULT_MIN_CELL,
) -> Any:
    """One metric of an audit from its count tables, with its bootstrap interval.

    Parameters
    ----------
    data : StreamedData
        The tables of :func:`~biasamp.auditing._streaming.load_streamed`;
        with replicate tables (``replicates=``), the result has the interval of
        the in-memory ``n_boot`` bootstrap with the same ``random_state``.
    metric : {"mals", "directional", "multi_mals", "multi_directional"}
        The metric (the multi-attribute ones need the plan's pattern tables).
    direction : {"A->T", "T->A"}, default "A->T"
        The direction of the directional metrics.
    margin : float, default 0.05
        MALS's margin.
    min_group_size : float or None
        As in the in-memory metrics.
    ci : float, default 0.95
        The interval's level.
    min_cell : float or None, default 5
        As in the in-memory metrics (the pairs flagged ``fragile``).

    Returns
    -------
    PairwiseResult or MultiAttributeResult
        Equal to ``biasamp.mals`` / ``directional`` / ``multi_mals`` /
        ``multi_directional`` on the same rows.

    Examples
    --------
    >>> import os, tempfile
    >>> import pandas as pd
    >>> from biasamp.auditing._inputs import Layout
    >>> from biasamp.auditing._streaming import load_streamed, plan_streaming
    >>> path = os.path.join(tempfile.mkdtemp(), "audit.csv")
    >>> frame = pd.DataFrame({"g": ["m", "w", "w", "m"], "t": ["ski", "cook", "ski", "ski"],
    ...                       "pred_t": ["ski", "ski", "ski", "cook"]})
    >>> frame.to_csv(path, index=False)
    >>> plan, _ = plan_streaming(Layout(group="g", task="t", pred_prefix="pred_"),
    ...                          data=path, engine="numpy")
    >>> counted = metric_from_audit_tables(load_streamed(plan), "directional")
    >>> import biasamp
    >>> in_memory = biasamp.directional(groups=frame["g"], tasks=frame["t"],
    ...                                 tasks_pred=frame["pred_t"], direction="A->T")
    >>> bool(np.isclose(counted.value, in_memory.value))
    True
    """
    if metric in ("multi_mals", "multi_directional"):
        assert data.patterns is not None  # the plan counted the task-set tables
        train, evaluation = data.patterns
        # an evaluation table with bootstrap replicates gives the interval
        if metric == "multi_mals":
            multi = multi_mals_from_counts(
                train, evaluation, min_group_size=min_group_size, ci=ci, min_cell=min_cell
            )
        else:
            multi = multi_directional_from_counts(
                train,
                evaluation,
                direction=direction,
                min_group_size=min_group_size,
                ci=ci,
                min_cell=min_cell,
            )
        multi.params["train_rows"] = "labelled"  # the library's default
        return multi
    # the directional signs: the training counts, else the evaluation's labelled rows
    signs = data.train if data.train is not None else data.signs
    if metric == "mals":
        assert data.train is not None
        result = mals_from_counts(
            data.train,
            data.evaluation,
            margin=margin,
            min_group_size=min_group_size,
            min_cell=min_cell,
        )

        def compute(ev: CountTable, tr: CountTable | None) -> dict[str, np.ndarray]:
            assert tr is not None
            return mals_arrays(tr, ev, margin=margin)
    elif metric == "directional":
        result = directional_from_counts(
            data.evaluation,
            direction=direction,
            train=signs,
            min_group_size=min_group_size,
            min_cell=min_cell,
        )
        result.params["train_rows"] = "labelled"  # the library's default
        if data.train is None and signs is not None:
            result.params["signs_from"] = "evaluation"
            result.n_train = None

        def compute(ev: CountTable, tr: CountTable | None) -> dict[str, np.ndarray]:
            return directional_arrays(ev, direction=direction, train=tr)
    else:
        raise ValueError(ERR_AUDIT_METRIC.format(got=metric))
    if data.replicates is not None:
        n_boot = int(data.replicates.batch_shape[0])
        result = interval_from_tables(
            result, data.replicates, signs, compute=compute, n_boot=n_boot, ci=ci
        )
    if data.swapped is None:
        return result
    # the swap test: the training side stays; without one, each swapped data set takes
    # its signs from its own labels, as the in-memory test does
    roles = "groups,tasks" if metric == "mals" else ("tasks" if direction == "A->T" else "groups")
    if roles not in data.swapped:
        return result
    values = compute(data.swapped[roles], data.train)["value"]
    tested = with_significance(result, values, method="paired-swap", alternative="greater")
    tested.params = {
        **result.params,
        "significance": {
            "null": "paired-swap",
            "n_perm": int(np.size(values)),
            "alternative": "greater",
        },
    }
    return tested


def bias_comparison(data: AuditData | StreamedData) -> pd.DataFrame | None:
    """Per (group, task): the training bias b*(t, g) and the predicted bias b~(t, g).

    The predicted bias crosses the predicted groups (or the true ones) with the
    predicted tasks (or the true ones); the training bias comes from the
    training split (or the evaluation ground truth without one).

    Parameters
    ----------
    data : AuditData or StreamedData
        An audit read in memory or counted from its files.

    Returns
    -------
    pandas.DataFrame or None
        Columns ``task``, ``group``, ``b_train``, ``b_pred`` (one row per pair;
        ``attrs`` name the reference and the predicted roles), or None without
        predictions.

    Examples
    --------
    >>> import os, tempfile
    >>> import pandas as pd
    >>> from biasamp.auditing._inputs import Layout, load_audit
    >>> path = os.path.join(tempfile.mkdtemp(), "audit.csv")
    >>> pd.DataFrame({"g": ["m", "w", "w", "m"], "t": ["ski", "cook", "ski", "ski"],
    ...               "pred_t": ["ski", "cook", "cook", "ski"]}).to_csv(path, index=False)
    >>> data = load_audit(Layout(group="g", task="t", pred_prefix="pred_"), data=path)
    >>> bias_comparison(data)[["task", "group", "b_train", "b_pred"]].round(3).values.tolist()
    [['cook', 'm', 0.0, 0.0], ['cook', 'w', 1.0, 1.0], ['ski', 'm', 0.667, 1.0], ['ski', 'w', 0.333, 0.0]]
    """
    if not (data.has("groups_pred") or data.has("tasks_pred")):
        return None
    group_role = "groups_pred" if data.has("groups_pred") else "groups"
    task_role = "tasks_pred" if data.has("tasks_pred") else "tasks"
    if isinstance(data, StreamedData):
        reference = data.train if data.train is not None else data.evaluation
        predicted = data.evaluation
    else:
        reference = CountTable.from_arrays(
            groups=data.groups_train if data.has("groups_train") else data.groups,
            tasks=data.tasks_train if data.has("groups_train") else data.tasks,
            **data.names(),
        )
        predicted = CountTable.from_arrays(
            groups=getattr(data, group_role), tasks=getattr(data, task_role), **data.names()
        )
        group_role, task_role = "groups", "tasks"
    b_train = bias_score_matrix(reference.joint[("groups", "tasks")])[0].T
    b_pred = bias_score_matrix(predicted.joint[(group_role, task_role)])[0].T
    names_t = np.asarray(reference.task_names, dtype=object)
    names_g = np.asarray(reference.group_names, dtype=object)
    frame = pd.DataFrame(
        {
            "task": np.repeat(names_t, len(names_g)),
            "group": np.tile(names_g, len(names_t)),
            "b_train": b_train.reshape(-1),
            "b_pred": b_pred.reshape(-1),
        }
    )
    frame.attrs["reference"] = "training" if data.has("groups_train") else "evaluation ground truth"
    frame.attrs["predicted"] = (
        ("predicted groups" if data.has("groups_pred") else "true groups")
        + " x "
        + ("predicted tasks" if data.has("tasks_pred") else "true tasks")
    )
    return frame
