"""Result types shared by every metric, their intervals and their plots."""

from biasamp.results._base import MetricResult, PairwiseResult
from biasamp.results._differential_fairness import DifferentialFairnessResult
from biasamp.results._intervals import BootstrapInterval, interval_from_replicates
from biasamp.results._load import load_result
from biasamp.results._multi_attribute import MultiAttributeResult
from biasamp.results._predictability import PredictabilityResult
from biasamp.results._retrieval import RetrievalBiasResult

__all__ = [
    "BootstrapInterval",
    "DifferentialFairnessResult",
    "MetricResult",
    "MultiAttributeResult",
    "PairwiseResult",
    "PredictabilityResult",
    "RetrievalBiasResult",
    "interval_from_replicates",
    "load_result",
]
