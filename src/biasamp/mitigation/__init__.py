"""Mitigation: RBA (corpus-level constraints), oversampling, and comparing methods."""

from biasamp.mitigation._compare import compare_mitigations
from biasamp.mitigation._oversampling import Oversampling, oversample
from biasamp.mitigation._rba import CandidateOutputs, RBAResult, rba

__all__ = [
    "CandidateOutputs",
    "Oversampling",
    "RBAResult",
    "compare_mitigations",
    "oversample",
    "rba",
]
