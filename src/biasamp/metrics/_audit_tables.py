"""The metrics of an audit counted from files: point estimates and intervals from count tables.

:func:`~biasamp.engines._audit_streaming.load_streamed` counts an audit's files
into tables (evaluation, training, bootstrap replicates, task-set patterns);
:func:`metric_from_audit_tables` computes one co-occurrence or multi-attribute
metric from them, the same result as the in-memory function with its defaults
(``train_rows="labelled"``): the point estimate from ``*_from_counts``, the
interval from the metric's batched core on the replicate tables.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from biasamp.counts._count_table import CountTable
from biasamp.engines._audit_streaming import StreamedData
from biasamp.inputs._group_sizes import DEFAULT_MIN_GROUP_SIZE
from biasamp.metrics._bootstrap import interval_from_tables
from biasamp.metrics._directional import directional_arrays, directional_from_counts
from biasamp.metrics._mals import mals_arrays, mals_from_counts
from biasamp.metrics._multi_attribute import multi_directional_from_counts, multi_mals_from_counts

__all__ = ["ERR_AUDIT_METRIC", "metric_from_audit_tables"]

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
) -> Any:
    """One metric of an audit from its count tables, with its bootstrap interval.

    Parameters
    ----------
    data : StreamedData
        The tables of :func:`~biasamp.engines._audit_streaming.load_streamed`;
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

    Returns
    -------
    PairwiseResult or MultiAttributeResult
        Equal to ``biasamp.mals`` / ``directional`` / ``multi_mals`` /
        ``multi_directional`` on the same rows.

    Examples
    --------
    >>> import os, tempfile
    >>> import pandas as pd
    >>> from biasamp.engines._audit_inputs import Layout
    >>> from biasamp.engines._audit_streaming import load_streamed, plan_streaming
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
        if metric == "multi_mals":
            multi = multi_mals_from_counts(train, evaluation, min_group_size=min_group_size)
        else:
            multi = multi_directional_from_counts(
                train, evaluation, direction=direction, min_group_size=min_group_size
            )
        multi.params["train_rows"] = "labelled"  # the library's default
        return multi
    # the directional signs: the training counts, else the evaluation's labelled rows
    signs = data.train if data.train is not None else data.signs
    if metric == "mals":
        assert data.train is not None
        result = mals_from_counts(
            data.train, data.evaluation, margin=margin, min_group_size=min_group_size
        )

        def compute(ev: CountTable, tr: CountTable | None) -> dict[str, np.ndarray]:
            assert tr is not None
            return mals_arrays(tr, ev, margin=margin)
    elif metric == "directional":
        result = directional_from_counts(
            data.evaluation, direction=direction, train=signs, min_group_size=min_group_size
        )
        result.params["train_rows"] = "labelled"  # the library's default
        if data.train is None and signs is not None:
            result.params["signs_from"] = "evaluation"
            result.n_train = None

        def compute(ev: CountTable, tr: CountTable | None) -> dict[str, np.ndarray]:
            return directional_arrays(ev, direction=direction, train=tr)
    else:
        raise ValueError(ERR_AUDIT_METRIC.format(got=metric))
    if data.replicates is None:
        return result
    n_boot = int(data.replicates.batch_shape[0])
    return interval_from_tables(
        result, data.replicates, signs, compute=compute, n_boot=n_boot, ci=ci
    )
