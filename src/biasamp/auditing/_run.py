"""``biasamp.audit``: the file audit that ``biasamp measure`` and ``biasamp report`` run.

One function reads the files of a layout, counts them chunk by chunk when the
layout allows it (:func:`~biasamp.auditing._streaming.plan_streaming`) or reads
the rows (:func:`~biasamp.auditing._inputs.load_audit`), computes each metric
asked for (:data:`~biasamp.auditing._metric_specs.SPECS`, keyed by the
registry's canonical names), notes the warnings about empty cells and small
groups, and returns an :class:`~biasamp.auditing._result.AuditResult`. The
command line parses its flags into these keywords and presents the result;
the ``--fail-above`` gates are the command line's.

Messages name the keywords (``pred=``, ``id=``, ``stream="off"``), never the
command line's flags; the command line translates them (``cli/flags.py``).
"""

from __future__ import annotations

import os
import warnings as python_warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, cast

import numpy as np
import pandas as pd

from biasamp.auditing._frames import (
    ERR_FRAME_TYPE,
    FRAME_ARGUMENTS,
    frame_kind,
    frames_as_files,
    shown_frames,
)
from biasamp.auditing._inputs import AuditData, Layout, load_audit
from biasamp.auditing._metric_specs import (
    ROLE_HINTS,
    SPECS,
    CombinationView,
    Settings,
    check_metric_inputs,
    compute_metric,
    resolve_metric,
)
from biasamp.auditing._result import AuditResult, audit_document
from biasamp.auditing._streaming import (
    ENGINES,
    StreamedData,
    StreamPlan,
    StreamRefused,
    load_streamed,
    plan_streaming,
    stream_refusal,
)
from biasamp.auditing._sweeps import audit_threshold_sweep, sweep_grid
from biasamp.auditing._tables import bias_comparison, metric_from_audit_tables
from biasamp.auditing._threshold_files import (
    calibrate_from_files,
    check_threshold_labels,
    read_thresholds,
)
from biasamp.counts._count_table import CountTable
from biasamp.counts._swaps import SwapReplicates
from biasamp.inputs._group_sizes import (
    DEFAULT_MIN_GROUP_SIZE,
    FragilePairWarning,
    MissingGroupWarning,
    SmallGroupWarning,
)
from biasamp.inputs._label_matrix import WARN_SINGLE_GROUP, LabelWarning
from biasamp.metrics._bootstrap import evaluation_replicates

__all__ = [
    "ERR_NO_METRICS",
    "ERR_STREAM_NOT_APPLICABLE",
    "STREAMED_METRICS",
    "STREAM_MODES",
    "audit",
    "streaming_text",
]

#: The multi-attribute metrics (counted into pattern tables when streamed).
MULTI_METRICS = ("multi-mals", "multi-a2t", "multi-t2a")
#: The metrics the streaming path computes from count tables.
STREAMED_METRICS = ("mals", "directional-a2t", "directional-t2a", *MULTI_METRICS)
#: The metrics whose swap test against chance (n_perm=) is counted chunk by chunk too.
SWAP_STREAMED_METRICS = ("mals", "directional-a2t", "directional-t2a")
STREAM_MODES = ("auto", "on", "off")

ERR_STREAM_NOT_APPLICABLE = 'stream="on": the streaming path does not apply: {reason}.'
ERR_ENGINE_NEEDS_STREAM = (
    'engine="duckdb" counts the files by streaming, which does not apply here: {reason}. '
    'Use engine="auto" or engine="numpy".'
)
ERR_STREAM_MODE = "stream: expected one of {choices}, got {got!r}."
ERR_NO_METRICS = (
    "No metric can be computed from these inputs: {reasons}. Give predictions with "
    "pred_prefix=, pred= or pred_tasks_long=."
)
ERR_CALIBRATE_PRED = "calibrate_pred= needs calibrate_on= (the validation file it scores)."
ERR_BOTH_THRESHOLDS = "thresholds= and calibrate_on= exclude each other; give one."
#: ``data=`` (or another keyword that names a file) given neither a path nor a frame.
ERR_DATA_PATH = ERR_FRAME_TYPE.format(argument="data", got="{got}")
ERR_NON_NEGATIVE = "{argument}=: expected a non-negative integer, got {got!r}."
ERR_POSITIVE = "{argument}=: expected a positive integer, got {got!r}."
ERR_CI = "ci=: expected a level in (0, 1), got {got!r}."


def streaming_text() -> str:
    """What the audit counts chunk by chunk and what it reads in memory, from the plan's
    rules (:data:`STREAMED_METRICS`, :data:`~biasamp.auditing._streaming.ENGINES`,
    :func:`~biasamp.auditing._streaming.stream_refusal`): the command line's help shows it."""
    return (
        "Streaming: every layout in CSV or Parquet (a categorical group, its intersections "
        "or indicators; categorical or indicator tasks, or long tables with tasks_long=; "
        "predictions with pred_prefix= or in pred= joined on id=; scores with threshold=, "
        "thresholds= or calibrate_on=; train=) is counted chunk by chunk (memory ~ "
        f"chunk_size= x columns; engine= {'|'.join(ENGINES)}) for the metrics "
        f"{', '.join(STREAMED_METRICS)}, their bootstrap (n_boot=) included, and the swap "
        f"test against chance (n_perm=) of {', '.join(SWAP_STREAMED_METRICS)}. The rows are "
        "read in memory for the other metrics, the swap test against chance (n_perm=) of "
        "the others or of predictions joined from pred=, the threshold sweeps of scores "
        "(the report), "
        'pred= without id=, missing="category", and a file pyarrow cannot read in the '
        'layout. stream="on" requires counting; stream="off" reads every row in memory.'
    )


@dataclass(frozen=True)
class _Request:
    """Every option of one audit (the keywords of :func:`audit`, checked)."""

    data: str
    layout: Layout
    pred: str | None
    train: str | None
    pred_tasks_long: str | None
    train_tasks_long: str | None
    metrics: tuple[str, ...] | None
    threshold: float | None
    thresholds: Mapping[str, float] | str | None
    calibrate_on: str | None
    calibrate_pred: str | None
    ties: str
    positive_group: str | None
    n_boot: int
    ci: float
    random_state: int | None
    n_iter: int
    n_perm: int
    margin: float
    min_cell: int
    min_group_size: float | None
    stream: str
    engine: str
    progress: bool
    sweeps: bool

    def requested(self) -> list[str]:
        if self.metrics is not None:
            return list(self.metrics)
        return [key for key, spec in SPECS.items() if spec.default]

    def settings(self) -> Settings:
        return Settings(
            n_boot=self.n_boot,
            ci=self.ci,
            seed=self.random_state,
            margin=self.margin,
            progress=self.progress,
            n_iter=self.n_iter,
            min_group_size=self.min_group_size,
            min_cell=self.min_cell,
            n_perm=self.n_perm,
        )

    def settings_dict(self, keys: list[str]) -> dict[str, Any]:
        """The settings recorded in the result (the keywords, as given)."""
        layout = self.layout
        out: dict[str, Any] = {
            "group": layout.group,
            "group_cols": layout.group_cols,
            "task": layout.task,
            "task_cols": layout.task_cols,
            "task_prefix": layout.task_prefix,
            "tasks_long": layout.tasks_long,
            "id": layout.id,
            "pred_prefix": layout.pred_prefix,
            "pred_tasks_long": self.pred_tasks_long,
            "train_tasks_long": self.train_tasks_long,
            "long_label": layout.long_label,
            "delimiter": layout.delimiter,
            "missing": layout.missing,
            "threshold": self.threshold,
            "thresholds": self.thresholds if isinstance(self.thresholds, str) else None,
            "calibrate_on": self.calibrate_on,
            "calibrate_pred": self.calibrate_pred,
            "ties": self.ties,
            "positive_group": self.positive_group,
            "n_boot": self.n_boot,
            "ci": self.ci,
            "random_state": self.random_state,
            "n_iter": self.n_iter,
            "n_perm": self.n_perm,
            "margin": self.margin,
            "min_cell": self.min_cell,
            "min_group_size": self.min_group_size,
        }
        out = {k: list(v) if isinstance(v, tuple) else v for k, v in out.items()}
        out["metrics"] = keys
        return out


def _columns(value: str | Sequence[str] | None) -> tuple[str, ...] | None:
    """``"a,b"`` or ``["a", "b"]`` as a tuple of column names."""
    if value is None:
        return None
    parts = value.split(",") if isinstance(value, str) else [str(v) for v in value]
    return tuple(p.strip() for p in parts if p.strip())


def _path(value: Any, argument: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, (str, os.PathLike)):
        raise TypeError(ERR_FRAME_TYPE.format(argument=argument, got=type(value).__name__))
    return os.fspath(value)


def _renamed(exc: BaseException, shown: Mapping[str, str]) -> BaseException:
    """``exc`` with the temporary files of frames shown as their frames."""
    text = str(exc.args[0]) if len(exc.args) == 1 else str(exc)
    renamed = shown_frames(text, shown)
    if renamed == text:
        return exc
    try:
        return type(exc)(renamed)
    except Exception:  # an exception type that needs other arguments
        return (ValueError if isinstance(exc, ValueError) else TypeError)(renamed)


def _shown_document(value: Any, shown: Mapping[str, str]) -> Any:
    """The document with the temporary files of frames shown as their frames."""
    if isinstance(value, str):
        return shown_frames(value, shown)
    if isinstance(value, list):
        return [_shown_document(v, shown) for v in value]
    if isinstance(value, dict):
        return {k: _shown_document(v, shown) for k, v in value.items()}
    return value


def _audit_frames(given: dict[str, Any]) -> AuditResult:
    """:func:`audit` of frames: each written to a temporary Parquet file and audited as
    that file (:mod:`biasamp.auditing._frames`)."""
    with frames_as_files({k: given[k] for k in FRAME_ARGUMENTS}) as (paths, shown):
        try:
            result = audit(**{**given, **paths})
        except (ValueError, TypeError) as exc:
            renamed = _renamed(exc, shown)
            if renamed is exc:
                raise
            raise renamed from None
        document = _shown_document(result.to_dict(), shown)
        for record in document["inputs"]:
            if record["path"].startswith("<"):
                record["format"] = "parquet"
    return replace(result, document=document)


def _non_negative(value: Any, argument: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
        raise ValueError(ERR_NON_NEGATIVE.format(argument=argument, got=value))
    return int(value)


def _positive(value: Any, argument: str) -> int:
    if _non_negative(value, argument) < 1:
        raise ValueError(ERR_POSITIVE.format(argument=argument, got=value))
    return int(value)


def _metric_names(metrics: str | Sequence[str] | None) -> tuple[str, ...] | None:
    if metrics is None:
        return None
    names = [metrics] if isinstance(metrics, str) else list(metrics)
    return tuple(dict.fromkeys(resolve_metric(name).key for name in names))


def _thresholds(request: _Request) -> tuple[dict[str, float], str | None]:
    """Per-label thresholds from ``thresholds=`` or ``calibrate_on=`` (and where they came from)."""
    if request.calibrate_pred and not request.calibrate_on:
        raise ValueError(ERR_CALIBRATE_PRED)
    if request.thresholds is not None and request.calibrate_on:
        raise ValueError(ERR_BOTH_THRESHOLDS)
    if isinstance(request.thresholds, str):
        return read_thresholds(request.thresholds), request.thresholds
    if request.thresholds is not None:
        return {str(k): float(v) for k, v in request.thresholds.items()}, "thresholds="
    if request.calibrate_on:
        calibration, _ = calibrate_from_files(
            request.layout,
            data=request.calibrate_on,
            pred=request.calibrate_pred,
            ties=request.ties,
            progress=request.progress,
        )
        return {str(k): float(v) for k, v in calibration.thresholds.items()}, request.calibrate_on
    return {}, None


def _metric_reason(request: _Request) -> str | None:
    """Why the requested metrics rule streaming out (None: they allow it)."""
    if request.n_perm:
        swapped = [k for k in request.requested() if k not in SWAP_STREAMED_METRICS]
        if swapped:
            return (
                f"the swap test against chance (n_perm=) of {', '.join(swapped)} swaps the "
                f"rows in memory (streamed: {', '.join(SWAP_STREAMED_METRICS)})"
            )
        if request.pred is not None or request.pred_tasks_long or request.train_tasks_long:
            return (
                "the swap test against chance (n_perm=) streams one data file with its "
                "predictions (pred_prefix=); it swaps joined or long predictions in memory"
            )
        if request.layout.tasks_long:
            return "the swap test against chance (n_perm=) swaps long tables in memory"
    others = [k for k in request.requested() if k not in STREAMED_METRICS]
    if others:
        return (
            f"metric(s) {', '.join(others)} need the rows (streamed: {', '.join(STREAMED_METRICS)})"
        )
    return None


def _plan(request: _Request, *, thresholds: dict[str, float]) -> tuple[StreamPlan | None, str]:
    """The streaming plan of the request, or ``(None, reason)``."""
    options: dict[str, Any] = {
        "pred": request.pred,
        "long_tables": bool(request.pred_tasks_long or request.train_tasks_long),
        "scored": bool(
            request.threshold is not None
            or request.thresholds is not None
            or request.calibrate_on
            or request.calibrate_pred
        ),
        "engine": request.engine,
        "sweep": request.sweeps,
    }
    reason = stream_refusal(request.layout, **options) or _metric_reason(request)
    if reason is not None:
        return None, reason
    return plan_streaming(
        request.layout,
        data=request.data,
        train=request.train,
        patterns=any(k in MULTI_METRICS for k in request.requested()),
        threshold=request.threshold,
        thresholds=thresholds,
        positive_group=request.positive_group,
        pred_tasks_long=request.pred_tasks_long,
        train_tasks_long=request.train_tasks_long,
        **options,
    )


def _streaming_plan(request: _Request, *, thresholds: dict[str, float]) -> StreamPlan | None:
    """The streaming plan when ``stream=`` and the inputs allow it (None: read in memory)."""
    if request.stream == "off":
        plan, reason = None, 'stream="off"'
    else:
        plan, reason = _plan(request, thresholds=thresholds)
    if plan is None:
        if request.stream == "on":
            raise ValueError(ERR_STREAM_NOT_APPLICABLE.format(reason=reason))
        if request.engine == "duckdb":
            raise ValueError(ERR_ENGINE_NEEDS_STREAM.format(reason=reason))
    return plan


def _metric_keys(
    request: _Request, data: AuditData | StreamedData
) -> tuple[list[str], dict[str, str]]:
    """The metrics to compute (``metrics=`` or the default set the inputs allow) and the
    skipped ones with why."""
    skipped: dict[str, str] = {}
    if request.metrics is not None:
        return list(request.metrics), skipped
    keys = []
    for spec in SPECS.values():
        if not spec.default:
            continue
        missing = spec.missing(data)
        if missing:
            skipped[spec.key] = "needs " + "; ".join(
                dict.fromkeys(ROLE_HINTS.get(role, role) for role in missing)
            )
        else:
            keys.append(spec.key)
    if not keys:
        reasons = "; ".join(f"{k} {why}" for k, why in skipped.items())
        raise ValueError(ERR_NO_METRICS.format(reasons=reasons))
    return keys, skipped


# --------------------------------------------------------------- warnings


def _examples(pairs: list[tuple[Any, Any]], k: int = 3) -> str:
    shown = ", ".join(f"({g}, {t})" for g, t in pairs[:k])
    return shown + (", ..." if len(pairs) > k else "")


def cell_warnings(data: AuditData, *, min_cell: int) -> list[str]:
    """Warnings about empty or tiny group x task cells of the ground truth."""
    splits = [
        ("evaluation", CountTable.from_arrays(groups=data.groups, tasks=data.tasks, **data.names()))
    ]
    if data.has("groups_train"):
        splits.append(
            (
                "training",
                CountTable.from_arrays(
                    groups=data.groups_train, tasks=data.tasks_train, **data.names()
                ),
            )
        )
    return table_cell_warnings(splits, min_cell=min_cell)


def table_cell_warnings(splits: list[tuple[str, CountTable]], *, min_cell: int) -> list[str]:
    """:func:`cell_warnings` from the count tables of the splits (``groups`` x ``tasks``)."""
    out: list[str] = []
    for name, table in splits:
        joint = table.joint[("groups", "tasks")]
        for label, mask in (
            ("empty", joint == 0),
            (f"tiny (< {min_cell} instances)", (joint > 0) & (joint < min_cell)),
        ):
            if mask.any():
                gi, ti = np.nonzero(mask)
                pairs = [
                    (table.group_names[g], table.task_names[t]) for g, t in zip(gi, ti, strict=True)
                ]
                out.append(
                    f"{name} split: {len(pairs)} of {joint.size} group x task cells are "
                    f"{label}, for example {_examples(pairs)}."
                )
        empty_groups = [
            g for g, c in zip(table.group_names, table.totals["groups"], strict=True) if c == 0
        ]
        if empty_groups:
            out.append(
                f"{name} split: group(s) with no instances: {', '.join(map(str, empty_groups))}."
            )
    return out


def _single_group_warnings(splits: list[tuple[str, CountTable]]) -> list[str]:
    """The library's one-group warning, for the streamed path (counted tables)."""
    out = []
    for name, table in splits:
        totals = np.asarray(table.totals["groups"]) if "groups" in table.roles else None
        if totals is not None and totals.shape[-1] == 1 and np.allclose(totals[..., 0], table.n):
            arg = "groups_train" if name == "training" else "groups"
            out.append(WARN_SINGLE_GROUP.format(arg=arg, name=table.group_names[0]))
    return out


def _noted(
    caught: list[python_warnings.WarningMessage],
    categories: type[Warning] | tuple[type[Warning], ...],
) -> list[str]:
    """The messages of the caught warnings of ``categories``, each once, in order; the
    others are issued again as they came."""
    noted = [str(w.message) for w in caught if issubclass(w.category, categories)]
    for w in caught:
        if not issubclass(w.category, categories):
            python_warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    return list(dict.fromkeys(noted))


def _metric_warnings(request: _Request, results: dict[str, Any]) -> list[str]:
    warnings: list[str] = []
    for key in results:
        if request.n_boot and SPECS[key].iterations:
            warnings.append(
                f"{key}: n_boot= does not apply; its interval is over the "
                f"n_iter={request.n_iter} attacker iterations (Student t)."
            )
    for key, result in results.items():
        n_empty = getattr(result, "n_empty", 0)
        if n_empty:
            warnings.append(
                f"{key}: {n_empty} pair(s) have an empty conditioning set "
                "(see the metric's docs for how they count)."
            )
    return warnings


_SWEPT = {
    "mals": ("mals", None),
    "directional-a2t": ("directional", "A->T"),
    "directional-t2a": ("directional", "T->A"),
}


def threshold_sweeps(
    data: AuditData, results: Mapping[str, Any], *, progress: bool = False
) -> dict[str, Any] | None:
    """The threshold sweep of each computed co-occurrence metric whose predictions are scores
    (:func:`biasamp.auditing._sweeps.audit_threshold_sweep`), by metric name."""
    if data.scores is None:
        return None
    grid = sweep_grid(data)
    sweeps: dict[str, Any] = {}
    for key in results:
        if key in _SWEPT:
            metric, direction = _SWEPT[key]
            sweep = audit_threshold_sweep(
                data, metric, direction=direction, thresholds=grid, progress=progress
            )
            if sweep is not None:
                sweeps[key] = sweep
    return sweeps or None


def sizes_table(results: Mapping[str, Any]) -> pd.DataFrame | None:
    """``by_size`` of the multi-attribute results, stacked with a ``metric`` column."""
    frames = [
        r.by_size.assign(metric=key) for key, r in results.items() if isinstance(r, CombinationView)
    ]
    return pd.concat(frames, ignore_index=True) if frames else None


#: The library metric and direction of each streamed metric.
_FROM_TABLES = {
    "mals": ("mals", "A->T"),
    "directional-a2t": ("directional", "A->T"),
    "directional-t2a": ("directional", "T->A"),
    "multi-mals": ("multi_mals", "A->T"),
    "multi-a2t": ("multi_directional", "A->T"),
    "multi-t2a": ("multi_directional", "T->A"),
}


def compute_streamed_metric(key: str, data: StreamedData, settings: Settings) -> Any:
    """One metric from the count tables, as :func:`compute_metric` gives it on the rows."""
    metric, direction = _FROM_TABLES[key]
    result = metric_from_audit_tables(
        data,
        metric,
        direction=direction,
        margin=float(settings.margin),
        min_group_size=settings.min_group_size,
        ci=settings.ci,
        min_cell=settings.min_cell,
    )
    view = SPECS[key].view
    return view(result) if view is not None else result


# --------------------------------------------------------------- the two paths


#: The warnings of the metrics an audit notes in ``AuditResult.warnings`` (once each).
_NOTED = (SmallGroupWarning, MissingGroupWarning, FragilePairWarning)


def _streamed(plan: StreamPlan, request: _Request, *, thresholds_source: str | None) -> AuditResult:
    """The audit from count tables of the files: bounded memory."""
    replicates = (
        evaluation_replicates(request.n_boot, random_state=request.random_state)
        if request.n_boot
        else None
    )
    # the label roles each streamed metric's swap exchanges, as its in-memory test does
    exchanged = {"mals": ("groups", "tasks"), "directional-a2t": ("tasks",),
                 "directional-t2a": ("groups",)}  # fmt: skip
    present = {block.role for block in plan.blocks}
    wanted = [
        exchanged[k]
        for k in (request.requested() if request.n_perm else [])
        if k in exchanged and all(f"{role}_pred" in present for role in exchanged[k])
    ]
    swaps = [
        SwapReplicates(request.n_perm, random_state=request.random_state, roles=roles)
        for roles in dict.fromkeys(wanted)
    ]
    data = load_streamed(plan, replicates=replicates, progress=request.progress, swaps=swaps)
    if plan.thresholds:
        assert thresholds_source is not None  # from thresholds= or calibrate_on=
        check_threshold_labels(thresholds_source, plan.thresholds, cast(Any, data))
    keys, skipped = _metric_keys(request, data)
    settings = request.settings()
    results = {}
    with python_warnings.catch_warnings(record=True) as caught:
        for category in _NOTED:
            python_warnings.simplefilter("always", category)
        for key in keys:
            check_metric_inputs(SPECS[key], data)
            results[key] = compute_streamed_metric(key, data, settings)
    size_notes = _noted(caught, _NOTED)
    splits = [("evaluation", data.evaluation)]
    if data.train is not None:
        splits.append(("training", data.train))
    warnings = (
        _single_group_warnings(splits)
        + size_notes
        + table_cell_warnings(splits, min_cell=request.min_cell)
        + _metric_warnings(request, results)
    )
    return _result(
        request,
        data,
        results,
        settings={**request.settings_dict(keys), "streamed": True, "engine": plan.engine},
        warnings=warnings,
        skipped=skipped,
        sweeps=None,
    )


def _in_memory(
    request: _Request, *, thresholds: dict[str, float], source: str | None
) -> AuditResult:
    """The audit from the rows the metrics need."""
    data = load_audit(
        request.layout,
        data=request.data,
        pred=request.pred,
        train=request.train,
        pred_tasks_long=request.pred_tasks_long,
        train_tasks_long=request.train_tasks_long,
        threshold=request.threshold,
        thresholds=thresholds,
        positive_group=request.positive_group,
        progress=request.progress,
    )
    if thresholds:
        assert source is not None  # thresholds come from thresholds= or calibrate_on=
        check_threshold_labels(source, thresholds, data)
    settings = request.settings()
    keys, skipped = _metric_keys(request, data)
    with python_warnings.catch_warnings(record=True) as caught:
        python_warnings.simplefilter("always", LabelWarning)
        for category in _NOTED:
            python_warnings.simplefilter("always", category)
        results = {key: compute_metric(SPECS[key], data, settings) for key in keys}
    warnings = (
        _noted(caught, (LabelWarning, *_NOTED))
        + cell_warnings(data, min_cell=request.min_cell)
        + _metric_warnings(request, results)
    )
    return _result(
        request,
        data,
        results,
        settings={**request.settings_dict(keys), "streamed": False, "engine": "in-memory"},
        warnings=warnings,
        skipped=skipped,
        sweeps=threshold_sweeps(data, results, progress=request.progress)
        if request.sweeps
        else None,
    )


def _result(
    request: _Request,
    data: AuditData | StreamedData,
    views: dict[str, Any],
    *,
    settings: dict[str, Any],
    warnings: list[str],
    skipped: dict[str, str],
    sweeps: dict[str, Any] | None,
) -> AuditResult:
    comparison = bias_comparison(data)
    by_size = sizes_table(views)
    document = audit_document(
        views,
        inputs=[f.to_dict() for f in data.files],
        settings=settings,
        labels={
            "groups": [str(g) for g in data.group_names],
            "tasks": [str(t) for t in data.task_names],
        },
        thresholds=dict(data.thresholds) if data.thresholds else None,
        skipped=skipped,
        warnings=warnings,
        sweeps=sweeps,
        random_state=request.random_state,
    )
    return AuditResult(
        results={key: getattr(view, "result", view) for key, view in views.items()},
        document=document,
        comparison=comparison,
        by_size=by_size,
        sweeps=sweeps,
    )


def audit(
    data: str | os.PathLike[str] | Any,
    *,
    group: str | Sequence[str] | None = None,
    group_cols: str | Sequence[str] | None = None,
    task: str | None = None,
    task_cols: str | Sequence[str] | None = None,
    task_prefix: str | None = None,
    tasks_long: str | os.PathLike[str] | None = None,
    pred_prefix: str | None = None,
    pred: str | os.PathLike[str] | None = None,
    pred_tasks_long: str | os.PathLike[str] | None = None,
    id: str | None = None,
    train: str | os.PathLike[str] | None = None,
    train_tasks_long: str | os.PathLike[str] | None = None,
    long_label: str = "label",
    delimiter: str | None = None,
    chunk_size: int | None = None,
    missing: str = "error",
    metrics: str | Sequence[str] | None = None,
    threshold: float | None = None,
    thresholds: str | os.PathLike[str] | Mapping[str, float] | None = None,
    calibrate_on: str | os.PathLike[str] | None = None,
    calibrate_pred: str | os.PathLike[str] | None = None,
    positive_group: str | None = None,
    ties: str = "nearest",
    n_boot: int = 0,
    ci: float = 0.95,
    random_state: int | None = 0,
    n_iter: int = 10,
    margin: float = 0.05,
    min_cell: int = 5,
    min_group_size: float | None = DEFAULT_MIN_GROUP_SIZE,
    engine: str = "auto",
    n_perm: int = 0,
    stream: str = "auto",
    sweeps: bool = False,
    progress: bool = False,
) -> AuditResult:
    """Audit prediction files or frames: every bias-amplification metric the inputs allow.

    This is what ``biasamp measure`` runs; each keyword mirrors a flag of the
    command (``group_cols=`` is ``--group-cols``, ``metrics=`` is ``--metric``,
    ``random_state=`` is ``--seed``), and ``biasamp measure --json`` writes
    ``audit(...).to_dict()``. Each input is a CSV (``.csv``, ``.tsv``, optionally
    ``.gz``) or Parquet file with one row per instance, or a frame in memory
    holding the same columns: a pandas or polars ``DataFrame`` or a pyarrow
    ``Table``, with the same keywords. A frame is written to a temporary Parquet
    file and read by the same reader, so its audit equals the audit of the frame
    written to a file (values, pairs, checks, messages); the result and the
    messages show it as ``<pandas.DataFrame data=>``.

    Parameters
    ----------
    data : path or frame
        The evaluation file or frame: ground truth, and predictions with ``pred_prefix``.
    group : str or sequence of str, optional
        One categorical group column; several (``"race,sex"`` or a list) make
        their intersections the groups (``"Black x Female"``), as
        :func:`biasamp.intersect` does. Exactly one of ``group`` / ``group_cols``.
    group_cols : str or sequence of str, optional
        0/1 group indicator columns (``"man,woman"`` or a list).
    task, task_cols, task_prefix, tasks_long : optional
        The tasks: one categorical column, 0/1 indicator columns, every column
        starting with a prefix (the label is the rest of the name), or a long
        table of ``(id, label)`` rows (needs ``id``). Exactly one.
    pred_prefix : str, optional
        The prediction of column ``C`` is column ``pred_prefix + C``.
    pred : path or frame, optional
        Predictions in another file (or frame) joined on ``id``.
    pred_tasks_long, train_tasks_long : path or frame, optional
        Predicted / training tasks as long ``(id, label)`` tables.
    id : str, optional
        The id column that joins the files.
    train : path or frame, optional
        The training ground truth, same layout (its labels are canonical).
    long_label : str, default "label"
        The label column of the long tables.
    delimiter : str, optional
        The CSV delimiter (default ``,``, or a tab for ``.tsv``).
    chunk_size : int, optional
        Rows read per chunk (default: about four million cells per chunk).
    missing : {"error", "category"}, default "error"
        A missing value of a group column is an error naming the file, column
        and row, or, with ``"category"``, the group ``"<missing>"``, as
        ``biasamp.intersect(missing="category")`` does.
    metrics : str or sequence of str, optional
        The metrics to compute, by any name the registry accepts
        (``"directional-a2t"``, ``"T->A"``, ``"differential-fairness"``, ...).
        Default: ``mals``, ``directional-a2t``, ``directional-t2a``, those the
        inputs allow. The others are opt-in: ``multi-mals``, ``multi-a2t``,
        ``multi-t2a``, ``dpa-a2t``, ``dpa-t2a``, ``leakage`` (attackers),
        ``differential-fairness``, ``df-amplification``.
    threshold : float, optional
        Prediction scores above it are positive (labels without a calibrated threshold).
    thresholds : path or mapping, optional
        Per-label thresholds: a file written by ``biasamp calibrate`` or ``{label: t}``.
    calibrate_on, calibrate_pred : path or frame, optional
        Calibrate per-label thresholds on this validation file (its scores in
        ``calibrate_pred``, joined on ``id``, when not in the file).
    positive_group : str, optional
        Exclusive group score columns with two groups: the group whose score is thresholded.
    ties : {"nearest", "fewer", "more"}, default "nearest"
        Calibration: the count to take when scores tie.
    n_boot : int, default 0
        Bootstrap replicates for the intervals.
    ci : float, default 0.95
        The interval level.
    random_state : int or None, default 0
        Seed of the bootstrap, of the attackers and of the swap test.
    n_iter : int, default 10
        Attacker iterations of ``dpa-*`` and ``leakage``.
    margin : float, default 0.05
        MALS margin for violations.
    min_cell : int, default 5
        Warn about group x task cells with fewer instances, and flag ``fragile``
        the pairs of each metric that rest on fewer rows (``by_pair``; a
        :class:`FragilePairWarning` names those among the top contributors).
    min_group_size : float or None, default 30
        Warn about groups with fewer instances in a split a metric reads.
    engine : {"auto", "numpy", "duckdb"}, default "auto"
        The engine of streamed counts.
    stream : {"auto", "on", "off"}, default "auto"
        Count the files chunk by chunk when the layout allows it (``"on"``:
        an error says why it does not apply; ``"off"``: read the rows).
    sweeps : bool, default False
        Also compute the threshold sweeps of the co-occurrence metrics when the
        predictions are scores (as ``biasamp report`` does).
    progress : bool, default False
        Show progress bars.
    n_perm : int, default 0
        The swap test against chance (``biasamp measure --n-perm``): every computed
        metric with a null (its registry card's ``null``) gets ``p_value`` and
        ``null`` from ``n_perm`` swapped data sets, each row's labels and the
        model's outputs swapped with probability 1/2 (``docs/uncertainty.md``).
        The rows are read in memory.

    Returns
    -------
    AuditResult
        ``.results`` maps each metric's canonical name to its result
        (:class:`~biasamp.PairwiseResult`, :class:`~biasamp.MultiAttributeResult`,
        :class:`~biasamp.PredictabilityResult`, :class:`~biasamp.DifferentialFairnessResult`).

    Raises
    ------
    ValueError
        For a layout, a file or a value that does not fit; the message names the
        keyword, the file, the column and the row.

    Examples
    --------
    >>> import os, tempfile
    >>> import pandas as pd
    >>> import biasamp
    >>> path = os.path.join(tempfile.mkdtemp(), "test.csv")
    >>> pd.DataFrame({"gender": ["m"] * 4 + ["w"] * 4, "cup": [1, 1, 1, 0, 1, 0, 0, 0],
    ...               "pred_cup": [1, 1, 1, 1, 0, 0, 0, 0]}).to_csv(path, index=False)
    >>> result = biasamp.audit(path, group="gender", task_cols="cup", pred_prefix="pred_",
    ...                        min_group_size=None)
    >>> list(result.results), result.skipped["directional-t2a"]
    (['directional-a2t'], 'needs predicted groups: pred_prefix= or pred=')
    >>> round(float(result["directional-a2t"].value), 4)
    0.25

    The same frame in memory, without the file:

    >>> frame = pd.read_csv(path)
    >>> same = biasamp.audit(frame, group="gender", task_cols="cup", pred_prefix="pred_",
    ...                      min_group_size=None)
    >>> float(same["directional-a2t"].value), same.inputs[0]["path"]
    (0.25, '<pandas.DataFrame data=>')
    """
    given = dict(locals())
    if any(frame_kind(given[k]) is not None for k in FRAME_ARGUMENTS):
        return _audit_frames(given)
    for value, argument, choices in (
        (stream, "stream", STREAM_MODES),
        (engine, "engine", ENGINES),
        (missing, "missing", ("error", "category")),
        (ties, "ties", ("nearest", "fewer", "more")),
    ):
        if value not in choices:
            raise ValueError(
                ERR_STREAM_MODE.replace("stream", argument).format(
                    choices=", ".join(map(repr, choices)), got=value
                )
            )
    if not (isinstance(ci, (int, float)) and 0 < ci < 1):
        raise ValueError(ERR_CI.format(got=ci))
    thresholds_given: Mapping[str, float] | str | None = (
        thresholds if isinstance(thresholds, Mapping) else _path(thresholds, "thresholds")
    )
    group_text = None if group is None else ",".join(_columns(group) or ())
    layout = Layout(
        group=group_text,
        group_cols=_columns(group_cols),
        task=task,
        task_cols=_columns(task_cols),
        task_prefix=task_prefix,
        tasks_long=_path(tasks_long, "tasks_long"),
        id=id,
        pred_prefix=pred_prefix,
        long_label=long_label,
        delimiter=delimiter,
        chunk_size=chunk_size,
        missing=missing,
    )
    request = _Request(
        data=cast(str, _path(data, "data")),
        layout=layout,
        pred=_path(pred, "pred"),
        train=_path(train, "train"),
        pred_tasks_long=_path(pred_tasks_long, "pred_tasks_long"),
        train_tasks_long=_path(train_tasks_long, "train_tasks_long"),
        metrics=_metric_names(metrics),
        threshold=None if threshold is None else float(threshold),
        thresholds=thresholds_given,
        calibrate_on=_path(calibrate_on, "calibrate_on"),
        calibrate_pred=_path(calibrate_pred, "calibrate_pred"),
        ties=ties,
        positive_group=positive_group,
        n_boot=_non_negative(n_boot, "n_boot"),
        ci=float(ci),
        random_state=random_state,
        n_iter=_positive(n_iter, "n_iter"),
        n_perm=_non_negative(n_perm, "n_perm"),
        margin=float(margin),
        min_cell=_non_negative(min_cell, "min_cell"),
        min_group_size=min_group_size,
        stream=stream,
        engine=engine,
        progress=bool(progress),
        sweeps=bool(sweeps),
    )
    resolved, source = _thresholds(request)
    plan = _streaming_plan(request, thresholds=resolved)
    if plan is not None:
        try:
            return _streamed(plan, request, thresholds_source=source)
        except StreamRefused:
            pass  # the in-memory reader below names the file, column and row of the problem
    return _in_memory(request, thresholds=resolved, source=source)
