"""The metrics an audit can compute: one :class:`MetricSpec` per metric of the registry.

Adding a metric to the audit is one :class:`MetricSpec` in :data:`SPECS`: the
registry card it computes (its canonical name, title and every accepted
spelling come from :mod:`biasamp.registry`), what it needs from the files
(roles of :class:`~biasamp.auditing._inputs.AuditData`) and a function that
computes it. ``metrics=`` picks specs; without it every spec with
``default=True`` whose inputs are present is computed.

Bootstrap options (``n_boot=``, ``ci=``, ``random_state=``) and ``progress`` are
passed to a metric function only when its signature accepts them; asking for
a bootstrap of a metric that has none is a usage error, never silently ignored.
The predictability metrics (``dpa-*``, ``leakage``) train attackers: they are
opt-in (not in the default set), take ``random_state=`` and ``n_iter=``, and their
interval is over the attacker iterations (``n_boot=`` does not apply to them and
the audit says so in a warning). Differential fairness and its amplification
(``differential-fairness``, ``df-amplification``) are opt-in too: they need one
group and one task per row.

Results that are not :class:`~biasamp.PairwiseResult` go through a small view
(:class:`CombinationView`, :class:`PredictabilityView`,
:class:`DifferentialFairnessView`) that gives the outputs the same attributes:
``value``, ``ci``, ``n``, ``n_pairs``, ``by_pair`` (with ``group``, ``task`` and
``contribution`` columns) and ``top(k)``.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

import pandas as pd

from biasamp.auditing._inputs import AuditData
from biasamp.inputs._group_sizes import DEFAULT_MIN_CELL, DEFAULT_MIN_GROUP_SIZE
from biasamp.metrics import _differential_fairness, _directional, _mals, _multi_attribute
from biasamp.predictability import _predictability
from biasamp.registry import MetricCard, metric_card

__all__ = [
    "CombinationView",
    "DifferentialFairnessView",
    "MetricSpec",
    "PredictabilityView",
    "REGISTRY",
    "SPECS",
    "ROLE_HINTS",
    "Settings",
    "check_metric_inputs",
    "compute_metric",
    "resolve_metric",
]

ERR_METRIC_NEEDS = 'metrics="{key}": needs {missing} ({hint}).'
ERR_NO_BOOTSTRAP = "n_boot=: the metric {key} has no bootstrap interval in this version of biasamp."

ROLE_HINTS = {
    "groups_pred": "predicted groups: pred_prefix= or pred=",
    "tasks_pred": "predicted tasks: pred_prefix=, pred= or pred_tasks_long=",
    "groups_train": "training ground truth: train=",
    "tasks_train": "training ground truth: train=",
    "tasks_multilabel": "multi-label tasks: task_cols=, task_prefix= or tasks_long=",
    "groups_single": "one group per row: group= (several columns: their intersections)",
    "tasks_single": "one task per row: task=",
    "tasks_pred_single": "one predicted task per row: task= with pred_prefix= or pred=",
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
    min_cell: float | None = DEFAULT_MIN_CELL
    n_perm: int = 0


class HoldsRoles(Protocol):
    """Data that can say which roles it holds (in-memory ``AuditData`` and streamed data)."""

    def has(self, role: str) -> bool: ...


@dataclass(frozen=True)
class MetricSpec:
    """One metric of the audit.

    Attributes
    ----------
    card : MetricCard
        The registry's card: ``key`` (its canonical name, used by ``metrics=``),
        ``title``, ``aliases`` and ``description`` come from it.
    needs : tuple of str
        Roles of :class:`AuditData` that must be present.
    function : callable
        The library function (its signature decides which options it gets).
    arguments : callable
        ``(data, settings) -> dict`` of keyword arguments for ``function``.
    default : bool
        Part of the default set (every co-occurrence metric).
    view : callable, optional
        Wraps the library result for the outputs (non-pairwise results).
    iterations : bool
        The metric trains attackers: ``random_state`` and ``n_iter`` apply, its
        interval is over the iterations, and progress bars are on.
    """

    card: MetricCard
    needs: tuple[str, ...]
    function: Callable[..., Any]
    arguments: Callable[[AuditData, Settings], dict[str, Any]]
    default: bool = True
    view: Callable[[Any], Any] | None = None
    iterations: bool = False

    @property
    def key(self) -> str:
        """The canonical name (``metrics=``, the JSON's ``results`` keys)."""
        return self.card.name

    @property
    def title(self) -> str:
        return self.card.title

    @property
    def aliases(self) -> tuple[str, ...]:
        """Every other accepted spelling (the registry's)."""
        return tuple(s for s in self.card.spellings if s != self.card.name)

    @property
    def description(self) -> str:
        """One line for ``--help`` and the docs: the title and the paper."""
        return f"{self.card.title}: {self.card.paper}"

    def missing(self, data: HoldsRoles) -> list[str]:
        return [role for role in self.needs if not data.has(role)]


def _train(data: AuditData) -> dict[str, Any]:
    return {"groups_train": data.groups_train, "tasks_train": data.tasks_train}


def _mals_arguments(data: AuditData, settings: Settings) -> dict[str, Any]:
    return {
        **_train(data),
        "groups_pred": data.groups_pred,
        "tasks_pred": data.tasks_pred,
        # the evaluation ground truth: its group sizes are checked, its pairs give each
        # pair's n_true (as the streamed audit's tables do), and the swap test exchanges it
        # with the predictions
        "groups": data.groups,
        "tasks": data.tasks,
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
        quality = ("psi_d", "psi_m") if r.family == "dpa" else ("lambda_d", "lambda_m")
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


def _df_arguments(data: AuditData, settings: Settings) -> dict[str, Any]:
    return {
        "groups": data.groups,
        "labels": data.tasks,
        "group_names": data.group_names,
        "label_names": data.task_names,
    }


def _df_amplification_arguments(data: AuditData, settings: Settings) -> dict[str, Any]:
    return {**_df_arguments(data, settings), "labels_pred": data.tasks_pred}


class DifferentialFairnessView(_View):
    """A :class:`~biasamp.DifferentialFairnessResult` as the outputs expect it: one row per
    group pair and class, ``group`` = ``"a vs b"``, ``task`` = the class, and ``contribution``
    = the absolute log-ratio (the amplification's: its change from the labels to the
    predictions), the quantity whose largest value is epsilon."""

    n_train = None
    n_empty = 0
    direction = None

    @property
    def name(self) -> str:
        """The registry's title of the metric."""
        return str(self.result.title)

    @property
    def by_pair(self) -> pd.DataFrame:
        frame = self.result.by_pair
        column = "change" if "change" in frame.columns else "abs_log_ratio_labels"
        return pd.DataFrame(
            {
                "group": [
                    f"{a} vs {b}" for a, b in zip(frame["group_a"], frame["group_b"], strict=True)
                ],
                "task": frame["label"].astype(str).to_numpy(dtype=object),
                "contribution": frame[column].to_numpy(dtype=float),
            }
        )

    @property
    def n_pairs(self) -> int:
        return int(len(self.result.by_pair))

    def top(self, k: int = 10, **_: Any) -> pd.DataFrame:
        frame = self.by_pair
        order = (
            frame["contribution"]
            .abs()
            .sort_values(ascending=False, na_position="last", kind="stable")
            .index
        )
        return frame.loc[order].head(k).reset_index(drop=True)

    @property
    def extras(self) -> dict[str, Any]:
        r = self.result
        return {
            "epsilon_labels": r.epsilon_labels,
            "epsilon_pred": r.epsilon_pred,
            "concentration": r.concentration,
            "classes": [str(c) for c in r.classes],
        }

    @property
    def params(self) -> dict[str, Any]:
        return {
            k: v
            for k, v in self.result.params.items()
            if isinstance(v, (str, int, float, bool, type(None)))
        }


def _spec(name: str, **kwargs: Any) -> MetricSpec:
    return MetricSpec(card=metric_card(name), **kwargs)


#: The audit's metrics by canonical name, in the registry's order.
SPECS: dict[str, MetricSpec] = {
    spec.key: spec
    for spec in (
        _spec(
            "mals",
            needs=("groups_train", "tasks_train", "groups_pred", "tasks_pred"),
            function=_mals.mals,
            arguments=_mals_arguments,
        ),
        _spec(
            "directional-a2t",
            needs=("groups", "tasks", "tasks_pred"),
            function=_directional.directional,
            arguments=_directional_arguments("A->T"),
        ),
        _spec(
            "directional-t2a",
            needs=("groups", "tasks", "groups_pred"),
            function=_directional.directional,
            arguments=_directional_arguments("T->A"),
        ),
        _spec(
            "multi-mals",
            needs=("groups_train", "tasks_train", "tasks_multilabel", "groups_pred", "tasks_pred"),
            function=_multi_attribute.multi_mals,
            arguments=_multi_mals_arguments,
            default=False,
            view=CombinationView,
        ),
        _spec(
            "multi-a2t",
            needs=("groups_train", "tasks_train", "tasks_multilabel", "tasks_pred"),
            function=_multi_attribute.multi_directional,
            arguments=_directional_arguments("A->T"),
            default=False,
            view=CombinationView,
        ),
        _spec(
            "multi-t2a",
            needs=("groups_train", "tasks_train", "tasks_multilabel", "groups_pred"),
            function=_multi_attribute.multi_directional,
            arguments=_directional_arguments("T->A"),
            default=False,
            view=CombinationView,
        ),
        _spec(
            "dpa-a2t",
            needs=("groups", "tasks", "tasks_pred"),
            function=_predictability.dpa,
            arguments=_dpa_arguments("A->T"),
            default=False,
            view=PredictabilityView,
            iterations=True,
        ),
        _spec(
            "dpa-t2a",
            needs=("groups", "tasks", "groups_pred"),
            function=_predictability.dpa,
            arguments=_dpa_arguments("T->A"),
            default=False,
            view=PredictabilityView,
            iterations=True,
        ),
        _spec(
            "leakage",
            needs=("groups", "tasks", "tasks_pred"),
            function=_predictability.leakage_amplification,
            arguments=_leakage_arguments,
            default=False,
            view=PredictabilityView,
            iterations=True,
        ),
        _spec(
            "differential-fairness",
            needs=("groups_single", "tasks_single"),
            function=_differential_fairness.differential_fairness,
            arguments=_df_arguments,
            default=False,
            view=DifferentialFairnessView,
        ),
        _spec(
            "df-amplification",
            needs=("groups_single", "tasks_single", "tasks_pred_single"),
            function=_differential_fairness.differential_fairness_amplification,
            arguments=_df_amplification_arguments,
            default=False,
            view=DifferentialFairnessView,
        ),
    )
}

#: The name the command line has always used for the specs.
REGISTRY = SPECS


def resolve_metric(name: str, *, argument: str = "metrics") -> MetricSpec:
    """The spec of a metric named by any spelling the registry accepts (``ValueError``
    naming ``argument`` and the audit's metrics if unknown)."""
    return SPECS[metric_card(name, among=SPECS, argument=argument).name]


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
    if settings.n_perm and spec.card.null and _accepts(spec.function, "n_perm"):
        kwargs.update(n_perm=settings.n_perm, random_state=settings.seed)
    if _accepts(spec.function, "min_group_size"):
        kwargs["min_group_size"] = settings.min_group_size
    if _accepts(spec.function, "min_cell"):
        kwargs["min_cell"] = settings.min_cell
    if (settings.progress or spec.iterations) and _accepts(spec.function, "progress"):
        kwargs["progress"] = settings.progress
    result = spec.function(**kwargs)
    return spec.view(result) if spec.view is not None else result
