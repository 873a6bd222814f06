"""Result types shared by every metric, their intervals and their plots."""

from __future__ import annotations

from typing import TYPE_CHECKING

from biasamp._lazy import lazy_exports

if TYPE_CHECKING:
    from biasamp.results._base import MetricResult, PairwiseResult
    from biasamp.results._differential_fairness import DifferentialFairnessResult
    from biasamp.results._intervals import BootstrapInterval, interval_from_replicates
    from biasamp.results._load import load_result
    from biasamp.results._multi_attribute import MultiAttributeResult
    from biasamp.results._predictability import PredictabilityResult
    from biasamp.results._retrieval import RetrievalBiasResult
    from biasamp.results._significance import NullDistribution

__all__ = [
    "BootstrapInterval",
    "DifferentialFairnessResult",
    "MetricResult",
    "MultiAttributeResult",
    "NullDistribution",
    "PairwiseResult",
    "PredictabilityResult",
    "RetrievalBiasResult",
    "interval_from_replicates",
    "load_result",
]

if not TYPE_CHECKING:
    __getattr__, __dir__ = lazy_exports(
        __name__,
        {
            "biasamp.results._base": (
                "MetricResult",
                "PairwiseResult",
            ),
            "biasamp.results._differential_fairness": ("DifferentialFairnessResult",),
            "biasamp.results._intervals": (
                "BootstrapInterval",
                "interval_from_replicates",
            ),
            "biasamp.results._load": ("load_result",),
            "biasamp.results._multi_attribute": ("MultiAttributeResult",),
            "biasamp.results._predictability": ("PredictabilityResult",),
            "biasamp.results._retrieval": ("RetrievalBiasResult",),
            "biasamp.results._significance": ("NullDistribution",),
        },
    )
