"""The streamed audit of ``biasamp measure`` and ``biasamp report``: which metrics, from tables.

The library counts the files (:func:`biasamp.auditing._streaming.plan_streaming`,
:func:`~biasamp.auditing._streaming.load_streamed`) when the inputs allow
it; this module adds the command line's rule on metrics (only the
co-occurrence and multi-attribute metrics come from count tables, with their
``--n-boot`` intervals) and computes them from the tables.
"""

from __future__ import annotations

import argparse
from typing import Any

from biasamp.auditing._inputs import Layout
from biasamp.auditing._metric_specs import REGISTRY, Settings
from biasamp.auditing._streaming import (
    ENGINES,
    StreamedData,
    StreamPlan,
    plan_streaming,
    stream_refusal,
)
from biasamp.auditing._tables import metric_from_audit_tables

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
    others = [k for k in _requested_metrics(args) if k not in STREAMED_METRICS]
    if others:
        return (
            f"metric(s) {', '.join(others)} need the rows (streamed: {', '.join(STREAMED_METRICS)})"
        )
    return None


def plan_from_args(
    args: argparse.Namespace,
    layout: Layout,
    *,
    thresholds: dict[str, float] | None = None,
    sweep: bool = False,
) -> tuple[StreamPlan | None, str]:
    """The library's streaming plan for the options, or ``(None, reason)``.

    ``thresholds``: the per-label thresholds of ``--thresholds`` or
    ``--calibrate-on``; ``sweep``: the threshold sweeps are asked for (they need
    the rows of scored predictions).
    """
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
        "sweep": sweep,
    }
    reason = stream_refusal(layout, **options) or _metric_reason(args)
    if reason is not None:
        return None, reason
    return plan_streaming(
        layout,
        data=args.data,
        train=args.train,
        patterns=any(k in MULTI_METRICS for k in _requested_metrics(args)),
        threshold=args.threshold,
        thresholds=thresholds,
        positive_group=getattr(args, "positive_group", None),
        pred_tasks_long=args.pred_tasks_long,
        train_tasks_long=args.train_tasks_long,
        **options,
    )


#: The library metric and direction of each streamed metric key.
_FROM_TABLES = {
    "mals": ("mals", "A->T"),
    "directional-a2t": ("directional", "A->T"),
    "directional-t2a": ("directional", "T->A"),
    "multi-mals": ("multi_mals", "A->T"),
    "multi-a2t": ("multi_directional", "A->T"),
    "multi-t2a": ("multi_directional", "T->A"),
}


def compute_streamed_metric(key: str, data: StreamedData, settings: Settings) -> Any:
    """One metric from the count tables (:func:`~biasamp.auditing._tables.metric_from_audit_tables`),
    as :func:`~biasamp.auditing._metric_specs.compute_metric` gives it on the rows."""
    metric, direction = _FROM_TABLES[key]
    result = metric_from_audit_tables(
        data,
        metric,
        direction=direction,
        margin=float(settings.margin),
        min_group_size=settings.min_group_size,
        ci=settings.ci,
    )
    view = REGISTRY[key].view
    return view(result) if view is not None else result
