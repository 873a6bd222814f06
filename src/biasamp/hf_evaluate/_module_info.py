"""The ``evaluate.MetricInfo`` every shipped module returns (``evaluate`` imported only here,
when a module is loaded)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["metric_info"]


def metric_info(
    *,
    description: str,
    citation: str,
    inputs_description: str,
    columns: Sequence[str],
    reference_url: str,
) -> Any:
    """The module's ``MetricInfo``: one ``Sequence(float64)`` feature per column (a row of
    0/1 indicators, or of probabilities with ``soft=True``). ``float64``, not an integer
    type, so that ``evaluate`` hands over every value as given: an integer feature would
    cast a probability of 0.9 to 0 before biasamp sees it; biasamp then refuses what is not
    0/1 (``biasamp.hf_evaluate._compute``)."""
    import evaluate

    import datasets

    return evaluate.MetricInfo(
        description=description,
        citation=citation,
        inputs_description=inputs_description,
        features=datasets.Features(
            {name: datasets.Sequence(datasets.Value("float64")) for name in columns}
        ),
        reference_urls=[reference_url],
    )
