"""The metrics the command line can compute: a registry with one entry per metric.

Adding a metric is one :class:`MetricSpec` in :data:`REGISTRY`: its command-line
key, what it needs from the files (roles of :class:`~biasamp.auditing._inputs.AuditData`)
and a function that computes it. ``--metric`` picks entries; without it every
entry with ``default=True`` whose inputs are present is computed.

Bootstrap options (``--n-boot``, ``--ci``, ``--seed``) and ``progress`` are
passed to a metric function only when its signature accepts them; asking for
a bootstrap of a metric that has none is a usage error, never silently ignored.
The predictability metrics (``dpa-*``, ``leakage``) train attackers: they are
opt-in (not in the default set), take ``--seed`` and ``--n-iter``, and their
interval is over the attacker iterations (``--n-boot`` does not apply to them and
the audit says so in a warning).

Results that are not :class:`~biasamp.PairwiseResult` go through a small view
(:class:`CombinationView`, :class:`PredictabilityView`) that gives the outputs
the same attributes: ``value``, ``ci``, ``n``, ``n_pairs``, ``by_pair`` (with
``group``, ``task`` and ``contribution`` columns) and ``top(k)``.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

import pandas as pd

from biasamp.auditing._inputs import AuditData
from biasamp.inputs._group_sizes import DEFAULT_MIN_GROUP_SIZE
from biasamp.metrics import _directional, _mals, _multi_attribute
from biasamp.predictability import _predictability

__all__ = [
    "CombinationView",
    "MetricSpec",
    "PredictabilityView",
    "REGISTRY",
    "ROLE_HINTS",
    "Settings",
    "check_metric_inputs",
    "compute_metric",
    "resolve_metric",
]

ERR_UNKNOWN_METRIC = "--metric: unknown metric {name!r}; choose from {choices}."
ERR_METRIC_NEEDS = "--metric {key}: needs {missing} ({hint})."
ERR_NO_BOOTSTRAP = (
    "--n-boot: the metric {key} has no bootstrap interval in this version of biasamp."
)

ROLE_HINTS = {
    "groups_pred": "predicted groups: --pred-prefix or --pred",
    "tasks_pred": "predicted tasks: --pred-prefix, --pred or --pred-tasks-long",
    "groups_train": "training ground truth: --train",
    "tasks_train": "training ground truth: --train",
    "tasks_multilabel": "multi-label tasks: --task-cols, --task-prefix or --tasks-long",
}


@dataclass(frozen=True)
class Settings:
    """Options shared by every metric."""

    n_boot: int = 0
    ci: float = 0.95
    seed: int | None = 0
    margin: float = 0.05
    progress: bool = False
    n_iter: int = 10
    min_group_size: float | None = DEFAULT_MIN_GROUP_SIZE


class HoldsRoles(Protocol):
    """Data that can say which roles it holds (in-memory ``AuditData`` and streamed data)."""

    def has(self, role: str) -> bool: ...


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
    description : str
        One line for ``--help`` and the docs.
    view : callable, optional
        Wraps the library result for the outputs (non-pairwise results).
    iterations : bool
        The metric trains attackers: ``--seed`` and ``--n-iter`` apply, its
        interval is over the iterations, and progress bars are on.
    """

    key: str
    title: str
    needs: tuple[str, ...]
    function: Callable[..., Any]
    arguments: Callable[[AuditData, Settings], dict[str, Any]]
    default: bool = True
    aliases: tuple[str, ...] = ()
    description: str = ""
    view: Callable[[Any], Any] | None = None
    iterations: bool = False

    def missing(self, data: HoldsRoles) -> list[str]:
        return [role for role in self.needs if not data.has(role)]


def _train(data: AuditData) -> dict[str, Any]:
    return {"groups_train": data.groups_train, "tasks_train": data.tasks_train}


def _mals_arguments(data: AuditData, settings: Settings) -> dict[str, Any]:
    return {
        **_train(data),
        "groups_pred": data.groups_pred,
        "tasks_pred": data.tasks_pred,
        "groups": data.groups,  # the evaluation ground truth: its group sizes are checked
        "margin": settings.margin,
        **data.names(),
    }


def _predicted_side(data: AuditData, direction: str) -> dict[str, Any]:
    """The predicted role a direction compares: tasks for A->T, groups for T->A."""
    return (
        {"tasks_pred": data.tasks_pred}
        if direction == "A->T"
        else {"groups_pred": data.groups_pred}
    )


def _directional_arguments(direction: str) -> Callable[[AuditData, Settings], dict[str, Any]]:
    def arguments(data: AuditData, settings: Settings) -> dict[str, Any]:
        pred = _predicted_side(data, direction)
        return {
            "direction": direction,
            "groups": data.groups,
            "tasks": data.tasks,
            **pred,
            **_train(data),
            **data.names(),
        }

    return arguments


def _multi_mals_arguments(data: AuditData, settings: Settings) -> dict[str, Any]:
    return {
        **_train(data),
        "groups": data.groups,
        "tasks": data.tasks,
        "groups_pred": data.groups_pred,
        "tasks_pred": data.tasks_pred,
        **data.names(),
    }


def _iteration_settings(settings: Settings) -> dict[str, Any]:
    return {"n_iter": settings.n_iter, "ci": settings.ci, "random_state": settings.seed}


def _dpa_arguments(direction: str) -> Callable[[AuditData, Settings], dict[str, Any]]:
    def arguments(data: AuditData, settings: Settings) -> dict[str, Any]:
        pred = _predicted_side(data, direction)
        return {
            "direction": direction,
            "groups": data.groups,
            "tasks": data.tasks,
            **pred,
            **_iteration_settings(settings),
        }

    return arguments


def _leakage_arguments(data: AuditData, settings: Settings) -> dict[str, Any]:
    return {
        "groups": data.groups,
        "tasks": data.tasks,
        "tasks_pred": data.tasks_pred,
        **_iteration_settings(settings),
    }


class _View:
    """Forwards every attribute to the wrapped result."""

    def __init__(self, result: Any) -> None:
        self.result = result

    def __getattr__(self, name: str) -> Any:
        return getattr(self.result, name)

    def __float__(self) -> float:
        return float(self.result.value)


class CombinationView(_View):
    """A :class:`~biasamp.MultiAttributeResult` as the outputs expect it.

    ``by_pair`` is ``by_combination`` with ``task`` = the combination's task
    names joined by `` + `` (a string) instead of the ``combination`` tuple.
    """

    @property
    def by_pair(self) -> pd.DataFrame:
        frame = self.result.by_combination
        names = [" + ".join(str(t) for t in combo) for combo in frame["combination"]]
        out = frame.drop(columns=["combination"]).copy()
        out.insert(1, "task", names)
        return out[["group", "task", *[c for c in out.columns if c not in ("group", "task")]]]

    def top(self, k: int = 10, *, by: str = "contribution") -> pd.DataFrame:
        frame = self.by_pair
        order = (
            frame[by].abs().sort_values(ascending=False, na_position="last", kind="stable").index
        )
        return frame.loc[order].head(k).reset_index(drop=True)


_EMPTY_PAIRS = pd.DataFrame(
    {
        "group": pd.Series([], dtype=object),
        "task": pd.Series([], dtype=object),
        "contribution": pd.Series([], dtype=float),
    }
)


class PredictabilityView(_View):
    """A :class:`~biasamp.PredictabilityResult` as the outputs expect it: no pairs, the
    interval over the attacker iterations, the attacker qualities in ``extras``."""

    n_train = None
    n_pairs = 0
    n_empty = 0
    se = None
    replicates = None

    @property
    def by_pair(self) -> pd.DataFrame:
        return _EMPTY_PAIRS.copy()

    def top(self, k: int = 10, **_: Any) -> pd.DataFrame:
        return _EMPTY_PAIRS.copy()

    @property
    def extras(self) -> dict[str, Any]:
        r = self.result
        quality = ("psi_d", "psi_m") if r.metric == "dpa" else ("lambda_d", "lambda_m")
        out: dict[str, Any] = {
            quality[0]: r.psi_d,
            quality[1]: r.psi_m,
            "n_iter": r.n_iter,
            "std": r.std,
            "attacker": r.attacker,
            "quality": r.quality,
            "perturbation": r.perturbation,
        }
        if r.model_accuracy is not None:
            out["model_accuracy"] = float(r.model_accuracy)
        return out

    @property
    def params(self) -> dict[str, Any]:
        return {
            k: v
            for k, v in self.result.params.items()
            if isinstance(v, (str, int, float, bool, type(None)))
        }


REGISTRY: dict[str, MetricSpec] = {
    spec.key: spec
    for spec in (
        MetricSpec(
            key="mals",
            title="BiasAmp_MALS",
            needs=("groups_train", "tasks_train", "groups_pred", "tasks_pred"),
            function=_mals.mals,
            arguments=_mals_arguments,
            description="Zhao et al. 2017: predicted vs training bias of the biased pairs",
        ),
        MetricSpec(
            key="directional-a2t",
            title="BiasAmp A->T",
            needs=("groups", "tasks", "tasks_pred"),
            function=_directional.directional,
            arguments=_directional_arguments("A->T"),
            aliases=("a2t", "A->T", "a->t", "directional-A->T"),
            description="Wang & Russakovsky 2021: does the group change the task predictions?",
        ),
        MetricSpec(
            key="directional-t2a",
            title="BiasAmp T->A",
            needs=("groups", "tasks", "groups_pred"),
            function=_directional.directional,
            arguments=_directional_arguments("T->A"),
            aliases=("t2a", "T->A", "t->a", "directional-T->A"),
            description="Wang & Russakovsky 2021: does the task change the group predictions?",
        ),
        MetricSpec(
            key="multi-mals",
            title="Multi_MALS",
            needs=("groups_train", "tasks_train", "tasks_multilabel", "groups_pred", "tasks_pred"),
            function=_multi_attribute.multi_mals,
            arguments=_multi_mals_arguments,
            default=False,
            view=CombinationView,
            aliases=("multi_mals",),
            description="Zhao et al. 2023: MALS over combinations of tasks",
        ),
        MetricSpec(
            key="multi-a2t",
            title="Multi A->T",
            needs=("groups_train", "tasks_train", "tasks_multilabel", "tasks_pred"),
            function=_multi_attribute.multi_directional,
            arguments=_directional_arguments("A->T"),
            default=False,
            view=CombinationView,
            aliases=("multi-directional-a2t", "multi-G->M"),
            description="Zhao et al. 2023: does the group change the predicted combinations?",
        ),
        MetricSpec(
            key="multi-t2a",
            title="Multi T->A",
            needs=("groups_train", "tasks_train", "tasks_multilabel", "groups_pred"),
            function=_multi_attribute.multi_directional,
            arguments=_directional_arguments("T->A"),
            default=False,
            view=CombinationView,
            aliases=("multi-directional-t2a", "multi-M->G"),
            description="Zhao et al. 2023: do task combinations change the group predictions?",
        ),
        MetricSpec(
            key="dpa-a2t",
            title="DPA A->T",
            needs=("groups", "tasks", "tasks_pred"),
            function=_predictability.dpa,
            arguments=_dpa_arguments("A->T"),
            default=False,
            view=PredictabilityView,
            iterations=True,
            aliases=("dpa-A->T",),
            description="Tokas et al.: predictability of the task outputs from the group "
            "(trains attackers)",
        ),
        MetricSpec(
            key="dpa-t2a",
            title="DPA T->A",
            needs=("groups", "tasks", "groups_pred"),
            function=_predictability.dpa,
            arguments=_dpa_arguments("T->A"),
            default=False,
            view=PredictabilityView,
            iterations=True,
            aliases=("dpa-T->A",),
            description="Tokas et al.: predictability of the group outputs from the tasks "
            "(trains attackers)",
        ),
        MetricSpec(
            key="leakage",
            title="Leakage amplification",
            needs=("groups", "tasks", "tasks_pred"),
            function=_predictability.leakage_amplification,
            arguments=_leakage_arguments,
            default=False,
            view=PredictabilityView,
            iterations=True,
            aliases=("leakage-amplification", "la"),
            description="Wang et al. 2019: group leakage of the task outputs minus that of "
            "the truth (trains attackers)",
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


def check_metric_inputs(spec: MetricSpec, data: Any) -> None:
    """Raise a usage error naming the inputs a metric needs that the audit lacks."""
    missing = spec.missing(data)
    if missing:
        hints = "; ".join(dict.fromkeys(ROLE_HINTS.get(r, r) for r in missing))
        raise ValueError(
            ERR_METRIC_NEEDS.format(key=spec.key, missing=", ".join(missing), hint=hints)
        )


def compute_metric(spec: MetricSpec, data: AuditData, settings: Settings) -> Any:
    """Compute one metric on the audit data with the shared settings."""
    check_metric_inputs(spec, data)
    kwargs = spec.arguments(data, settings)
    if settings.n_boot and not spec.iterations:
        if not _accepts(spec.function, "n_boot"):
            raise ValueError(ERR_NO_BOOTSTRAP.format(key=spec.key))
        kwargs.update(n_boot=settings.n_boot)
        for name, value in (("ci", settings.ci), ("random_state", settings.seed)):
            if _accepts(spec.function, name):
                kwargs[name] = value
    if _accepts(spec.function, "min_group_size"):
        kwargs["min_group_size"] = settings.min_group_size
    if (settings.progress or spec.iterations) and _accepts(spec.function, "progress"):
        kwargs["progress"] = settings.progress
    result = spec.function(**kwargs)
    return spec.view(result) if spec.view is not None else result
