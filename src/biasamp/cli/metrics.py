"""The metrics the command line can compute: a registry with one entry per metric.

Adding a metric is one :class:`MetricSpec` in :data:`REGISTRY`: its command-line
key, what it needs from the files (roles of :class:`~biasamp.cli.inputs.AuditData`)
and a function that computes it. ``--metric`` picks entries; without it every
entry with ``default=True`` whose inputs are present is computed.

Bootstrap options (``--n-boot``, ``--ci``, ``--seed``) and ``progress`` are
passed to a metric function only when its signature accepts them; asking for
a bootstrap of a metric that has none is a usage error, never silently ignored.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .. import _directional, _mals
from .inputs import AuditData

__all__ = ["MetricSpec", "REGISTRY", "Settings", "compute_metric", "resolve_metric"]

ERR_UNKNOWN_METRIC = "--metric: unknown metric {name!r}; choose from {choices}."
ERR_METRIC_NEEDS = "--metric {key}: needs {missing} ({hint})."
ERR_NO_BOOTSTRAP = "--n-boot: the metric {key} has no bootstrap interval in this version of biasamp."

_ROLE_HINTS = {
    "groups_pred": "predicted groups: --pred-prefix or --pred",
    "tasks_pred": "predicted tasks: --pred-prefix, --pred or --pred-tasks-long",
    "groups_train": "training ground truth: --train",
    "tasks_train": "training ground truth: --train",
}


@dataclass(frozen=True)
class Settings:
    """Options shared by every metric."""

    n_boot: int = 0
    ci: float = 0.95
    seed: int | None = 0
    margin: float = 0.05
    progress: bool = False


@dataclass(frozen=True)
class MetricSpec:
    """One metric of the command line.

    Attributes
    ----------
    key : str
        The name used by ``--metric`` and ``--fail-above``.
    title : str
        Display name.
    needs : tuple of str
        Roles of :class:`AuditData` that must be present.
    function : callable
        The library function (its signature decides which options it gets).
    arguments : callable
        ``(data, settings) -> dict`` of keyword arguments for ``function``.
    default : bool
        Part of the default set (every co-occurrence metric).
    aliases : tuple of str
        Other accepted spellings of ``key``.
    """

    key: str
    title: str
    needs: tuple[str, ...]
    function: Callable[..., Any]
    arguments: Callable[[AuditData, Settings], dict[str, Any]]
    default: bool = True
    aliases: tuple[str, ...] = ()
    description: str = ""

    def missing(self, data: AuditData) -> list[str]:
        return [role for role in self.needs if not data.has(role)]


def _train(data: AuditData) -> dict[str, Any]:
    return {"groups_train": data.groups_train, "tasks_train": data.tasks_train}


def _mals_arguments(data: AuditData, settings: Settings) -> dict[str, Any]:
    return {**_train(data), "groups_pred": data.groups_pred, "tasks_pred": data.tasks_pred,
            "margin": settings.margin, **data.names()}


def _directional_arguments(direction: str) -> Callable[[AuditData, Settings], dict[str, Any]]:
    def arguments(data: AuditData, settings: Settings) -> dict[str, Any]:
        pred = ({"tasks_pred": data.tasks_pred} if direction == "A->T"
                else {"groups_pred": data.groups_pred})
        return {"direction": direction, "groups": data.groups, "tasks": data.tasks, **pred,
                **_train(data), **data.names()}
    return arguments


REGISTRY: dict[str, MetricSpec] = {
    spec.key: spec
    for spec in (
        MetricSpec(
            key="mals", title="BiasAmp_MALS",
            needs=("groups_train", "tasks_train", "groups_pred", "tasks_pred"),
            function=_mals.mals, arguments=_mals_arguments,
            description="Zhao et al. 2017: predicted vs training bias of the biased pairs",
        ),
        MetricSpec(
            key="directional-a2t", title="BiasAmp A->T",
            needs=("groups", "tasks", "tasks_pred"),
            function=_directional.directional, arguments=_directional_arguments("A->T"),
            aliases=("a2t", "A->T", "a->t", "directional-A->T"),
            description="Wang & Russakovsky 2021: does the group change the task predictions?",
        ),
        MetricSpec(
            key="directional-t2a", title="BiasAmp T->A",
            needs=("groups", "tasks", "groups_pred"),
            function=_directional.directional, arguments=_directional_arguments("T->A"),
            aliases=("t2a", "T->A", "t->a", "directional-T->A"),
            description="Wang & Russakovsky 2021: does the task change the group predictions?",
        ),
    )
}


def resolve_metric(name: str) -> MetricSpec:
    """The registry entry of a metric key or alias (``ValueError`` if unknown)."""
    if name in REGISTRY:
        return REGISTRY[name]
    for spec in REGISTRY.values():
        if name in spec.aliases or name.lower() in (a.lower() for a in spec.aliases):
            return spec
    raise ValueError(ERR_UNKNOWN_METRIC.format(name=name, choices=", ".join(REGISTRY)))


def _accepts(function: Callable[..., Any], name: str) -> bool:
    try:
        return name in inspect.signature(function).parameters
    except (TypeError, ValueError):  # pragma: no cover - builtins
        return False


def compute_metric(spec: MetricSpec, data: AuditData, settings: Settings) -> Any:
    """Compute one metric on the audit data with the shared settings."""
    missing = spec.missing(data)
    if missing:
        hints = "; ".join(dict.fromkeys(_ROLE_HINTS.get(r, r) for r in missing))
        raise ValueError(ERR_METRIC_NEEDS.format(key=spec.key, missing=", ".join(missing),
                                                 hint=hints))
    kwargs = spec.arguments(data, settings)
    if settings.n_boot:
        if not _accepts(spec.function, "n_boot"):
            raise ValueError(ERR_NO_BOOTSTRAP.format(key=spec.key))
        kwargs.update(n_boot=settings.n_boot)
        for name, value in (("ci", settings.ci), ("random_state", settings.seed)):
            if _accepts(spec.function, name):
                kwargs[name] = value
    if settings.progress and _accepts(spec.function, "progress"):
        kwargs["progress"] = True
    return spec.function(**kwargs)
