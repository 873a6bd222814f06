"""Mitigation: RBA (corpus-level constraints), oversampling, and comparing methods."""

from __future__ import annotations

from typing import TYPE_CHECKING

from biasamp._lazy import lazy_exports

if TYPE_CHECKING:
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

if not TYPE_CHECKING:
    __getattr__, __dir__ = lazy_exports(
        __name__,
        {
            "biasamp.mitigation._compare": ("MitigationComparison", "compare_mitigations"),
            "biasamp.mitigation._oversampling": ("Oversampling", "oversample"),
            "biasamp.mitigation._rba": ("RBAConvergenceWarning", "rba"),
            "biasamp.mitigation._rba_inference": ("CandidateOutputs",),
            "biasamp.mitigation._rba_result": ("RBAResult",),
        },
    )
