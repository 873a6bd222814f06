"""Mitigation: RBA (corpus-level constraints), oversampling, and comparing methods."""

from biasamp.mitigation._compare import MitigationComparison, compare_mitigations
from biasamp.mitigation._oversampling import Oversampling, oversample
from biasamp.mitigation._rba import RBAConvergenceWarning, rba
from biasamp.mitigation._rba_inference import CandidateOutputs
from biasamp.mitigation._rba_result import RBAResult

__all__ = [
    "CandidateOutputs",
    "MitigationComparison",
    "Oversampling",
    "RBAConvergenceWarning",
    "RBAResult",
    "compare_mitigations",
    "oversample",
    "rba",
]
