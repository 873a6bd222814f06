"""``biasamp measure`` and ``biasamp report``: flags -> :func:`biasamp.audit` -> presentation.

:func:`audit_keywords` turns the parsed flags into the keywords of
:func:`biasamp.audit` (the input contract's options are declared in
``arguments.py``); :func:`run_audit` calls it, checks the ``--fail-above``
gates (the command line's) and returns an :class:`Audit` that the terminal,
JSON and HTML outputs render: the library's :class:`~biasamp.AuditResult`,
its results wrapped for the outputs, and its messages with the flags in place
of the keywords (``flags.py``).
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from biasamp.auditing._metric_specs import SPECS
from biasamp.auditing._result import AuditResult
from biasamp.auditing._run import audit

from .arguments import Gate
from .flags import to_flags

__all__ = ["Audit", "audit_keywords", "run_audit"]

ERR_GATE_METRIC = (
    "--fail-above {key}: the metric is not computed in this run (computed: {computed})."
)


@dataclass(frozen=True)
class InputFile:
    """One input file of the audit, as the terminal prints it."""

    role: str
    path: str
    n_rows: int
    record: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return dict(self.record)


@dataclass(frozen=True)
class AuditInputs:
    """What the outputs show of the inputs: files, label names, thresholds."""

    files: list[InputFile]
    group_names: tuple[str, ...]
    task_names: tuple[str, ...]
    thresholds: dict[str, float]


@dataclass
class Audit:
    """One audit for the terminal, JSON and HTML outputs."""

    result: AuditResult
    data: AuditInputs
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

    def document(self, command: str) -> dict[str, Any]:
        """The JSON document: exactly the library's ``AuditResult.to_dict()``, as written
        by ``command`` with its gates."""
        return self.result.with_command(command, gates=[g.to_dict() for g in self.gates]).to_dict()


def audit_keywords(args: argparse.Namespace) -> dict[str, Any]:
    """The keywords of :func:`biasamp.audit` for the parsed flags (``--seed`` is
    ``random_state``, ``--metric`` is ``metrics``)."""
    return {
        "data": args.data,
        "group": args.group,
        "group_cols": args.group_cols,
        "task": args.task,
        "task_cols": args.task_cols,
        "task_prefix": args.task_prefix,
        "tasks_long": args.tasks_long,
        "pred_prefix": args.pred_prefix,
        "pred": args.pred,
        "pred_tasks_long": args.pred_tasks_long,
        "id": args.id,
        "train": args.train,
        "train_tasks_long": args.train_tasks_long,
        "long_label": args.long_label,
        "delimiter": args.delimiter,
        "chunk_size": args.chunk_size,
        "missing": args.missing,
        "metrics": args.metric,
        "threshold": args.threshold,
        "thresholds": args.thresholds,
        "calibrate_on": args.calibrate_on,
        "calibrate_pred": args.calibrate_pred,
        "positive_group": args.positive_group,
        "ties": args.ties,
        "n_boot": args.n_boot,
        "n_perm": args.n_perm,
        "ci": args.ci,
        "random_state": args.seed,
        "n_iter": args.n_iter,
        "margin": args.margin,
        "min_cell": args.min_cell,
        "min_group_size": args.min_group_size,
        "engine": args.engine,
        "stream": args.stream,
    }


def _check_gates(gates: list[Gate], computed: list[str]) -> None:
    for gate in gates:
        if gate.key not in computed:
            raise ValueError(ERR_GATE_METRIC.format(key=gate.key, computed=", ".join(computed)))


def _view(key: str, result: Any) -> Any:
    view = SPECS[key].view if key in SPECS else None
    return view(result) if view is not None else result


def present(result: AuditResult, gates: list[Gate]) -> Audit:
    """The :class:`Audit` the outputs render, from the library's result and the gates."""
    files = [
        InputFile(role=f["role"], path=f["path"], n_rows=int(f["rows"]), record=f)
        for f in result.inputs
    ]
    labels = result.labels
    return Audit(
        result=result,
        data=AuditInputs(
            files=files,
            group_names=tuple(labels.get("groups", ())),
            task_names=tuple(labels.get("tasks", ())),
            thresholds=result.thresholds,
        ),
        results={key: _view(key, r) for key, r in result.results.items()},
        settings=result.settings,
        gates=gates,
        warnings=[to_flags(w) for w in result.warnings],
        skipped={k: to_flags(why) for k, why in result.skipped.items()},
        comparison=result.comparison,
        sweep=result.sweeps,
        by_size=result.by_size,
    )


def run_audit(args: argparse.Namespace, *, progress: bool, sweep: bool = False) -> Audit:
    """Run :func:`biasamp.audit` with the flags' keywords and check the ``--fail-above`` gates.

    ``sweep``: also compute the threshold sweeps (the report does) when the
    predictions are scores.
    """
    if args.metric:  # a gate on a metric not asked for fails before any work
        _check_gates(args.fail_above, list(dict.fromkeys(args.metric)))
    result = audit(**audit_keywords(args), sweeps=sweep, progress=progress)
    _check_gates(args.fail_above, list(result.results))
    gates = [Gate(g.key, g.bound, float(result.results[g.key].value)) for g in args.fail_above]
    return present(result, gates)
