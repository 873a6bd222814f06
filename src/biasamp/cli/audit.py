"""The audit behind ``biasamp measure`` and ``biasamp report``: options, inputs, metrics, gates.

:func:`add_audit_arguments` declares the input contract's options on a
sub-command parser; :func:`run_audit` reads the files, computes the metrics of
the registry, checks the cells and the ``--fail-above`` gates, and returns an
:class:`Audit` that the terminal, JSON and HTML outputs render.
"""

from __future__ import annotations

import argparse
import warnings as python_warnings
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np
import pandas as pd

from biasamp.auditing._inputs import AuditData, Layout, load_audit
from biasamp.auditing._metric_specs import (
    REGISTRY,
    ROLE_HINTS,
    CombinationView,
    Settings,
    check_metric_inputs,
    compute_metric,
)
from biasamp.auditing._streaming import StreamedData, StreamPlan, StreamRefused, load_streamed
from biasamp.auditing._sweeps import audit_threshold_sweep, sweep_grid
from biasamp.auditing._tables import bias_comparison
from biasamp.auditing._threshold_files import (
    calibrate_from_files,
    check_threshold_labels,
    read_thresholds,
)
from biasamp.counts._count_table import CountTable
from biasamp.inputs._group_sizes import SmallGroupWarning
from biasamp.inputs._label_matrix import WARN_SINGLE_GROUP, LabelWarning
from biasamp.metrics._bootstrap import evaluation_replicates

from .arguments import Gate, layout_from_args
from .streaming import (
    ERR_ENGINE_NEEDS_STREAM,
    ERR_STREAM_NOT_APPLICABLE,
    compute_streamed_metric,
    plan_from_args,
)

__all__ = ["Audit", "run_audit"]

ERR_GATE_METRIC = (
    "--fail-above {key}: the metric is not computed in this run (computed: {computed})."
)

ERR_NO_METRICS = (
    "No metric can be computed from these inputs: {reasons}. Give predictions with "
    "--pred-prefix, --pred or --pred-tasks-long."
)

ERR_CALIBRATE_PRED = "--calibrate-pred needs --calibrate-on (the validation file it scores)."


@dataclass
class Audit:
    """Everything one audit computed, for the terminal, JSON and HTML outputs."""

    data: AuditData | StreamedData
    results: dict[str, Any]
    settings: dict[str, Any]
    gates: list[Gate] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)
    comparison: pd.DataFrame | None = None
    sweep: dict[str, Any] | None = None
    by_size: pd.DataFrame | None = None

    @property
    def failed_gates(self) -> list[Gate]:
        return [g for g in self.gates if g.failed]


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


def _settings_dict(args: argparse.Namespace, keys: list[str]) -> dict[str, Any]:
    names = (
        "group",
        "group_cols",
        "task",
        "task_cols",
        "task_prefix",
        "tasks_long",
        "id",
        "pred_prefix",
        "pred_tasks_long",
        "train_tasks_long",
        "long_label",
        "delimiter",
        "threshold",
        "thresholds",
        "calibrate_on",
        "calibrate_pred",
        "ties",
        "positive_group",
        "n_boot",
        "ci",
        "seed",
        "n_iter",
        "margin",
        "min_cell",
        "min_group_size",
        "engine",
    )
    out = {name: getattr(args, name, None) for name in names}
    out = {k: list(v) if isinstance(v, tuple) else v for k, v in out.items()}
    out["metrics"] = keys
    out["fail_above"] = [f"{g.key}={g.bound:g}" for g in args.fail_above]
    return out


def _thresholds(
    args: argparse.Namespace, layout: Layout, *, progress: bool
) -> tuple[dict[str, float], str | None]:
    """Per-label thresholds from --thresholds or --calibrate-on (and where they came from)."""
    if getattr(args, "calibrate_pred", None) and not args.calibrate_on:
        raise ValueError(ERR_CALIBRATE_PRED)
    if args.thresholds:
        return read_thresholds(args.thresholds), args.thresholds
    if args.calibrate_on:
        calibration, _ = calibrate_from_files(
            layout,
            data=args.calibrate_on,
            pred=args.calibrate_pred,
            ties=args.ties,
            progress=progress,
        )
        return {str(k): float(v) for k, v in calibration.thresholds.items()}, args.calibrate_on
    return {}, None


_SWEPT = {
    "mals": ("mals", None),
    "directional-a2t": ("directional", "A->T"),
    "directional-t2a": ("directional", "T->A"),
}


def threshold_sweeps(
    data: AuditData, results: dict[str, Any], *, progress: bool = False
) -> dict[str, Any] | None:
    """The threshold sweep of each computed co-occurrence metric whose predictions are scores
    (:func:`biasamp.auditing._sweeps.audit_threshold_sweep`), by metric key."""
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


def sizes_table(results: dict[str, Any]) -> pd.DataFrame | None:
    """``by_size`` of the multi-attribute results, stacked with a ``metric`` column."""
    frames = [
        r.by_size.assign(metric=key) for key, r in results.items() if isinstance(r, CombinationView)
    ]
    return pd.concat(frames, ignore_index=True) if frames else None


def _streaming_plan(
    args: argparse.Namespace, layout: Layout, *, thresholds: dict[str, float], sweep: bool
) -> StreamPlan | None:
    """The streaming plan when ``--stream`` and the inputs allow it (None: read in memory)."""
    mode = getattr(args, "stream", "auto")
    engine = getattr(args, "engine", "auto")
    if mode == "off":
        plan, reason = None, "--stream off"
    else:
        plan, reason = plan_from_args(args, layout, thresholds=thresholds, sweep=sweep)
    if plan is None:
        if mode == "on":
            raise ValueError(ERR_STREAM_NOT_APPLICABLE.format(reason=reason))
        if engine == "duckdb":
            raise ValueError(ERR_ENGINE_NEEDS_STREAM.format(reason=reason))
    return plan


def _metric_keys(
    args: argparse.Namespace, data: AuditData | StreamedData
) -> tuple[list[str], dict[str, str]]:
    """The metrics to compute (``--metric`` or the default set the inputs allow), the skipped
    ones with why, after checking that every ``--fail-above`` gate names a computed one."""
    skipped: dict[str, str] = {}
    if args.metric:
        keys = list(dict.fromkeys(args.metric))
    else:
        keys = []
        for spec in REGISTRY.values():
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
    for gate in args.fail_above:
        if gate.key not in keys:
            raise ValueError(ERR_GATE_METRIC.format(key=gate.key, computed=", ".join(keys)))
    return keys, skipped


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


def _metric_warnings(args: argparse.Namespace, results: dict[str, Any]) -> list[str]:
    warnings: list[str] = []
    for key in results:
        if args.n_boot and REGISTRY[key].iterations:
            warnings.append(
                f"{key}: --n-boot does not apply; its interval is over the "
                f"--n-iter {args.n_iter} attacker iterations (Student t)."
            )
    for key, result in results.items():
        n_empty = getattr(result, "n_empty", 0)
        if n_empty:
            warnings.append(
                f"{key}: {n_empty} pair(s) have an empty conditioning set "
                "(see the metric's docs for how they count)."
            )
    return warnings


def _settings(args: argparse.Namespace, *, progress: bool) -> Settings:
    return Settings(
        n_boot=args.n_boot,
        ci=args.ci,
        seed=args.seed,
        margin=args.margin,
        progress=progress,
        n_iter=args.n_iter,
        min_group_size=args.min_group_size,
    )


def run_streamed_audit(
    plan: StreamPlan,
    args: argparse.Namespace,
    *,
    progress: bool,
    thresholds_source: str | None = None,
) -> Audit:
    """The audit from count tables of the files (``biasamp.auditing._streaming``): bounded memory."""
    replicates = evaluation_replicates(args.n_boot, random_state=args.seed) if args.n_boot else None
    data = load_streamed(plan, replicates=replicates, progress=progress)
    if plan.thresholds:
        assert thresholds_source is not None  # from --thresholds or --calibrate-on
        check_threshold_labels(thresholds_source, plan.thresholds, cast(Any, data))
    keys, skipped = _metric_keys(args, data)
    settings = _settings(args, progress=progress)
    results = {}
    with python_warnings.catch_warnings(record=True) as caught:
        python_warnings.simplefilter("always", SmallGroupWarning)
        for key in keys:
            check_metric_inputs(REGISTRY[key], data)
            results[key] = compute_streamed_metric(key, data, settings)
    size_notes = _noted(caught, SmallGroupWarning)
    splits = [("evaluation", data.evaluation)]
    if data.train is not None:
        splits.append(("training", data.train))
    warnings = (
        _single_group_warnings(splits)
        + size_notes
        + table_cell_warnings(splits, min_cell=args.min_cell)
        + _metric_warnings(args, results)
    )
    gates = [Gate(g.key, g.bound, float(results[g.key].value)) for g in args.fail_above]
    return Audit(
        data=data,
        results=results,
        settings={**_settings_dict(args, keys), "streamed": True, "engine": plan.engine},
        gates=gates,
        warnings=warnings,
        skipped=skipped,
        comparison=bias_comparison(data),
        by_size=sizes_table(results),
    )


def run_audit(args: argparse.Namespace, *, progress: bool, sweep: bool = False) -> Audit:
    """Read the inputs named by ``args``, compute the metrics and check the gates.

    The files are counted chunk by chunk when the layout allows it
    (:mod:`biasamp.cli.streaming`, ``--stream``); otherwise read in memory.
    ``sweep``: also compute the threshold sweeps (the report does) when the
    predictions are scores.
    """
    layout = layout_from_args(args)
    thresholds, source = _thresholds(args, layout, progress=progress)
    plan = _streaming_plan(args, layout, thresholds=thresholds, sweep=sweep)
    if plan is not None:
        try:
            return run_streamed_audit(plan, args, progress=progress, thresholds_source=source)
        except StreamRefused:
            pass  # the in-memory reader below names the file, column and row of the problem
    data = load_audit(
        layout,
        data=args.data,
        pred=args.pred,
        train=args.train,
        pred_tasks_long=args.pred_tasks_long,
        train_tasks_long=args.train_tasks_long,
        threshold=args.threshold,
        thresholds=thresholds,
        positive_group=getattr(args, "positive_group", None),
        progress=progress,
    )
    if thresholds:
        assert source is not None  # thresholds come from --thresholds or --calibrate-on
        check_threshold_labels(source, thresholds, data)
    settings = _settings(args, progress=progress)
    keys, skipped = _metric_keys(args, data)
    with python_warnings.catch_warnings(record=True) as caught:
        python_warnings.simplefilter("always", LabelWarning)
        python_warnings.simplefilter("always", SmallGroupWarning)
        results = {key: compute_metric(REGISTRY[key], data, settings) for key in keys}
    warnings = (
        _noted(caught, (LabelWarning, SmallGroupWarning))
        + cell_warnings(data, min_cell=args.min_cell)
        + _metric_warnings(args, results)
    )
    gates = [Gate(g.key, g.bound, float(results[g.key].value)) for g in args.fail_above]
    return Audit(
        data=data,
        results=results,
        settings={**_settings_dict(args, keys), "streamed": False, "engine": "in-memory"},
        gates=gates,
        warnings=warnings,
        skipped=skipped,
        comparison=bias_comparison(data),
        sweep=threshold_sweeps(data, results, progress=progress) if sweep else None,
        by_size=sizes_table(results),
    )
