"""Generated outputs: amplification against a reference, across generations, corrected.

Generative models have no per-output ground truth; their outputs are judged
against their training data or an outside reference.

* :func:`output_amplification`: per concept, the outputs' share of the group the
  reference favours minus its reference share (Seshadri, Singh & Elazar, 2023).
* :func:`corrected_shares`: group shares corrected for the classifier that assigned
  the groups (CLEAM, Teo, Abdollahzadeh & Cheung, NeurIPS 2023).
* :func:`bias_transfer`: the line of the outputs' bias per concept on the
  reference's (Girrbach et al., 2025).
* :func:`share_trajectory`: group shares per model generation or checkpoint, with a
  trend (Wang et al., IJCNLP-AACL 2025).
* :func:`feedback_bound`: Theorem 1 of Taori & Hashimoto (ICML 2023), the bias
  bound of a data feedback loop.

Text outputs reach ``groups`` through :func:`biasamp.text.text_groups`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from biasamp._lazy import lazy_exports

if TYPE_CHECKING:
    from biasamp.generated._bias_transfer import bias_transfer
    from biasamp.generated._output_amplification import output_amplification
    from biasamp.generated._results import (
        BiasTransferResult,
        OutputAmplificationResult,
        ShareTrajectoryResult,
    )
    from biasamp.generated._shares import corrected_shares
    from biasamp.generated._trajectory import feedback_bound, share_trajectory

__all__ = [
    "BiasTransferResult",
    "OutputAmplificationResult",
    "ShareTrajectoryResult",
    "bias_transfer",
    "corrected_shares",
    "feedback_bound",
    "output_amplification",
    "share_trajectory",
]

if not TYPE_CHECKING:
    __getattr__, __dir__ = lazy_exports(
        __name__,
        {
            "biasamp.generated._bias_transfer": ("bias_transfer",),
            "biasamp.generated._output_amplification": ("output_amplification",),
            "biasamp.generated._results": (
                "BiasTransferResult",
                "OutputAmplificationResult",
                "ShareTrajectoryResult",
            ),
            "biasamp.generated._shares": ("corrected_shares",),
            "biasamp.generated._trajectory": ("feedback_bound", "share_trajectory"),
        },
    )
