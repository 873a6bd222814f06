"""What the report's numbers mean: each metric's card from the registry and the meaning of
each column of its pair table.

The sentences on a metric (what its value measures, which sign is amplification, its
paper) are the registry's (:mod:`biasamp.registry`), never a copy; the column meanings
are the report's own, worded for the metric and direction at hand (``p_true`` is
P(task | group) for A->T and P(group | task) for T->A).
"""

from __future__ import annotations

from typing import Any

from biasamp.registry import MetricCard, card_for, metric_card, normalize_direction

__all__ = ["column_meanings", "result_card"]


def result_card(result: Any, key: str | None = None) -> MetricCard | None:
    """The registry card of a result: by its ``metric`` and ``direction``, else by the
    name it is shown under (``key``); ``None`` when neither names a registered metric."""
    card = getattr(result, "card", None)
    if isinstance(card, MetricCard):
        return card
    family = getattr(result, "family", getattr(result, "metric", None))
    if isinstance(family, str):
        direction = getattr(result, "direction", None)
        try:
            return card_for(family, direction)
        except ValueError:
            pass
    for name in (getattr(result, "name", None), key):
        if isinstance(name, str):
            try:
                return metric_card(name)
            except ValueError:
                continue
    return None


def _direction(result: Any) -> str | None:
    try:
        return normalize_direction(getattr(result, "direction", None))
    except ValueError:
        return None


def column_meanings(result: Any, frame_columns: Any) -> dict[str, str]:
    """The meaning of each column of a result's pair (or combination) table, for the
    columns it has."""
    family = str(getattr(result, "family", getattr(result, "metric", "")))
    combination = "combination" in frame_columns
    task = "task combination" if combination else "task"
    direction = _direction(result)
    if direction == "T->A":
        conditional = f"P(group | {task})"
    else:
        conditional = f"P({task} | group)"
    mals_like = family in ("mals", "multi_mals", "distribution_mals")
    meanings = {
        "group": "the group (protected attribute value)",
        "task": "the task (label)",
        "combination": "the combination of tasks",
        "size": "the number of tasks in the combination",
        "b_train": (
            f"training bias b*({task}, group): P(group | {task}) in the training labels"
            if mals_like
            else f"P(group | {task}) in the training labels"
        ),
        "b_pred": (
            f"predicted bias b~({task}, group): P(group | {task}) in the predictions"
            if mals_like
            else f"P(group | {task}) in the predictions"
        ),
        "p_true": f"{conditional} in the true labels",
        "p_pred": f"{conditional} in the predictions",
        "delta": (
            "b_pred - b_train: how far the predictions move the group's share of the task"
            if mals_like
            else "p_pred - p_true: how far the predictions move the conditional probability"
        ),
        "ci_low": "lower bound of the bootstrap interval of delta",
        "ci_high": "upper bound of the bootstrap interval of delta",
        "y": (
            "the training sign y: +1 when the group and the task co-occur in the training "
            "data more often than if they were independent (P(group, task) > P(group) "
            "P(task)), else -1; the pair counts as y x delta"
        ),
        "contribution": (
            "the row's share of the value: the contributions of all rows sum to the "
            "metric's value (positive raises it, negative lowers it)"
        ),
        "n_train": f"training rows with the group and the {task}",
        "n_true": f"evaluation rows with the group and the {task} (ground truth)",
        "n_pred": (
            f"evaluation rows the model gives the group and the {task}"
            if mals_like
            else (
                f"evaluation rows of the {task} the model gives the group"
                if direction == "T->A"
                else f"evaluation rows of the group the model gives the {task}"
            )
        ),
        "support": (
            f"the rows the pair's value is a share of: the rows where the {task} is predicted"
            if mals_like
            else (
                f"the rows the pair's value is a share of: the {task}'s evaluation rows"
                if direction == "T->A"
                else "the rows the pair's value is a share of: the group's evaluation rows"
            )
        ),
        "fragile": (
            "the pair counts in the value and rests on fewer than min_cell rows: one row "
            "more or less moves it"
        ),
    }
    if mals_like:
        meanings["contribution"] += (
            "; only pairs whose group is the task's training majority contribute"
            if not combination
            else "; only each combination's training-majority group contributes"
        )
    elif "y" in frame_columns:
        meanings["contribution"] += "; it is y x delta divided by the number of pairs"
    return {column: meanings[column] for column in frame_columns if column in meanings}
