"""The ``evaluate.MetricInfo`` every shipped module returns (``evaluate`` imported only here,
when a module is loaded). The description, citation and paper link come from the metric
registry (:mod:`biasamp.registry`), so a module says what every other surface says."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from biasamp.registry import metric_cards

__all__ = ["module_description", "registry_metric_info"]


def module_description(family: str) -> str:
    """The description of the module computing ``family``: each of its metrics' canonical
    name, title, meaning and sign, from the registry."""
    cards = metric_cards(family=family)
    parts = [
        f"{card.title} (biasamp name {card.name}): {card.meaning} {card.sign}" for card in cards
    ]
    return "\n\n".join(parts) + f"\n\nComputed by biasamp (biasamp.{cards[0].function})."


def registry_metric_info(family: str, *, inputs_description: str, columns: Sequence[str]) -> Any:
    """The module's ``MetricInfo``: description, citation and paper link of ``family`` from
    the registry, one ``Sequence(float64)`` feature per column (a row of 0/1 indicators, or
    of probabilities with ``soft=True``). ``float64``, not an integer type, so that
    ``evaluate`` hands over every value as given: an integer feature would cast a
    probability of 0.9 to 0 before biasamp sees it; biasamp then refuses what is not 0/1
    (``biasamp.hf_evaluate._compute``)."""
    import evaluate

    import datasets

    card = metric_cards(family=family)[0]
    return evaluate.MetricInfo(
        description=module_description(family),
        citation=card.citation,
        inputs_description=inputs_description,
        features=datasets.Features(
            {name: datasets.Sequence(datasets.Value("float64")) for name in columns}
        ),
        reference_urls=[card.url],
    )
