"""The streamed audit of ``biasamp measure`` and ``biasamp report``: which metrics, from tables.

The library counts the files (:func:`biasamp.engines._audit_streaming.plan_streaming`,
:func:`~biasamp.engines._audit_streaming.load_streamed`) when the inputs allow
it; this module adds the command line's rule on metrics (only the
co-occurrence and multi-attribute metrics come from count tables, the latter
without ``--n-boot``) and computes them from the tables.
"""

from __future__ import annotations

import argparse
from typing import Any

import numpy as np

from biasamp.counts._count_table import CountTable
from biasamp.engines._audit_inputs import Layout
from biasamp.engines._audit_streaming import (
    ENGINES,
    StreamedData,
    StreamPlan,
    plan_streaming,
    stream_refusal,
)
from biasamp.metrics._bootstrap import interval_from_tables
from biasamp.metrics._directional import directional_arrays, directional_from_counts
from biasamp.metrics._mals import mals_arrays, mals_from_counts
from biasamp.metrics._multi_attribute import multi_directional_from_counts, multi_mals_from_counts

from .metrics import REGISTRY, Settings

__all__ = [
    "ENGINES",
    "STREAMED_METRICS",
    "STREAM_MODES",
    "compute_streamed_metric",
    "plan_from_args",
]

#: The metrics the streaming path computes from count tables.
MULTI_METRICS = ("multi-mals", "multi-a2t", "multi-t2a")
STREAMED_METRICS = ("mals", "directional-a2t", "directional-t2a", *MULTI_METRICS)
STREAM_MODES = ("auto", "on", "off")

ERR_STREAM_NOT_APPLICABLE = "--stream on: the streaming path does not apply: {reason}."
ERR_ENGINE_NEEDS_STREAM = (
    "--engine duckdb counts the files by streaming, which does not apply here: {reason}. "
    "Use --engine auto or numpy."
)


def _requested_metrics(args: argparse.Namespace) -> list[str]:
    if args.metric:
        return list(dict.fromkeys(args.metric))
    return [k for k, spec in REGISTRY.items() if spec.default]


def _metric_reason(args: argparse.Namespace) -> str | None:
    """Why the requested metrics rule streaming out (None: they allow it)."""
    multi = [k for k in _requested_metrics(args) if k in MULTI_METRICS]
    n_boot: int = getattr(args, "n_boot", 0)
    if multi and n_boot:
        return f"metric(s) {', '.join(multi)} with --n-boot are computed in memory"
    others = [k for k in _requested_metrics(args) if k not in STREAMED_METRICS]
    if others:
        return (
            f"metric(s) {', '.join(others)} need the rows (streamed: {', '.join(STREAMED_METRICS)})"
        )
    return None


def plan_from_args(args: argparse.Namespace, layout: Layout) -> tuple[StreamPlan | None, str]:
    """The library's streaming plan for the options, or ``(None, reason)``."""
    options: dict[str, Any] = {
        "pred": args.pred,
        "long_tables": bool(args.pred_tasks_long or args.train_tasks_long),
        "scored": bool(
            args.threshold is not None
            or args.thresholds
            or args.calibrate_on
            or args.calibrate_pred
        ),
        "engine": getattr(args, "engine", "auto"),
    }
    reason = stream_refusal(layout, **options) or _metric_reason(args)
    if reason is not None:
        return None, reason
    return plan_streaming(
        layout,
        data=args.data,
        train=args.train,
        patterns=any(k in MULTI_METRICS for k in _requested_metrics(args)),
        **options,
    )


def compute_streamed_metric(key: str, data: StreamedData, settings: Settings) -> Any:
    """One co-occurrence metric from the count tables, with its bootstrap interval.

    The same result as :func:`~biasamp.cli.metrics.compute_metric` on the rows
    (``biasamp.mals`` / ``biasamp.directional`` with ``n_boot`` and
    ``random_state``): the point estimate from ``*_from_counts``, the interval
    from the metric's batched core on the replicate tables.
    """
    if key in MULTI_METRICS:
        assert data.patterns is not None  # has("tasks_multilabel") checked it
        train, evaluation = data.patterns
        if key == "multi-mals":
            multi = multi_mals_from_counts(
                train, evaluation, min_group_size=settings.min_group_size
            )
        else:
            direction = "A->T" if key == "multi-a2t" else "T->A"
            multi = multi_directional_from_counts(
                train, evaluation, direction=direction, min_group_size=settings.min_group_size
            )
        multi.params["train_rows"] = "labelled"  # the library's default
        view = REGISTRY[key].view
        return view(multi) if view is not None else multi
    # the directional signs: the training counts, else the evaluation's labelled rows
    signs = data.train if data.train is not None else data.signs
    if key == "mals":
        assert data.train is not None
        margin = float(settings.margin)
        result = mals_from_counts(
            data.train, data.evaluation, margin=margin, min_group_size=settings.min_group_size
        )

        def compute(ev: CountTable, tr: CountTable | None) -> dict[str, np.ndarray]:
            assert tr is not None
            return mals_arrays(tr, ev, margin=margin)
    else:
        direction = "A->T" if key == "directional-a2t" else "T->A"
        result = directional_from_counts(
            data.evaluation,
            direction=direction,
            train=signs,
            min_group_size=settings.min_group_size,
        )
        result.params["train_rows"] = "labelled"  # the library's default
        if data.train is None and signs is not None:
            result.params["signs_from"] = "evaluation"
            result.n_train = None

        def compute(ev: CountTable, tr: CountTable | None) -> dict[str, np.ndarray]:
            return directional_arrays(ev, direction=direction, train=tr)

    if data.replicates is None:
        return result
    return interval_from_tables(
        result,
        data.replicates,
        signs,
        compute=compute,
        n_boot=settings.n_boot,
        ci=settings.ci,
    )
