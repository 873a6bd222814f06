"""Co-occurrence metrics: count tables in, results out.

Single-attribute: :func:`bias_scores`, :func:`mals` (BiasAmp_MALS),
:func:`directional` (BiasAmp->). Multi-attribute: :func:`multi_mals`,
:func:`multi_directional`, :func:`multi_attribute` (all three from one
:class:`CombinationSpace`). Intersectional: :func:`differential_fairness` and
:func:`differential_fairness_amplification`. Each has a ``*_from_counts`` form.
Ranked retrieval: :func:`retrieval_bias` (Skew@k, MaxSkew@k, MinSkew@k, NDKL).
In distribution: :func:`distribution_mals` (MALS of the posterior mass), with
:func:`distribution_counts` and :func:`distribution_mals_from_counts` for streams.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from biasamp._lazy import lazy_exports

if TYPE_CHECKING:
    from biasamp.metrics._combination_space import CombinationSpace
    from biasamp.metrics._differential_fairness import (
        differential_fairness,
        differential_fairness_amplification,
        differential_fairness_amplification_from_counts,
        differential_fairness_from_counts,
    )
    from biasamp.metrics._directional import directional, directional_from_counts
    from biasamp.metrics._distribution_mals import (
        distribution_counts,
        distribution_mals,
        distribution_mals_from_counts,
    )
    from biasamp.metrics._mals import bias_scores, mals, mals_from_counts
    from biasamp.metrics._multi_attribute import (
        multi_attribute,
        multi_directional,
        multi_directional_from_counts,
        multi_mals,
        multi_mals_from_counts,
    )
    from biasamp.metrics._retrieval import retrieval_bias

__all__ = [
    "CombinationSpace",
    "bias_scores",
    "differential_fairness",
    "differential_fairness_amplification",
    "differential_fairness_amplification_from_counts",
    "differential_fairness_from_counts",
    "directional",
    "directional_from_counts",
    "distribution_counts",
    "distribution_mals",
    "distribution_mals_from_counts",
    "mals",
    "mals_from_counts",
    "multi_attribute",
    "multi_directional",
    "multi_directional_from_counts",
    "multi_mals",
    "multi_mals_from_counts",
    "retrieval_bias",
]

if not TYPE_CHECKING:
    __getattr__, __dir__ = lazy_exports(
        __name__,
        {
            "biasamp.metrics._combination_space": ("CombinationSpace",),
            "biasamp.metrics._differential_fairness": (
                "differential_fairness",
                "differential_fairness_amplification",
                "differential_fairness_amplification_from_counts",
                "differential_fairness_from_counts",
            ),
            "biasamp.metrics._directional": (
                "directional",
                "directional_from_counts",
            ),
            "biasamp.metrics._distribution_mals": (
                "distribution_counts",
                "distribution_mals",
                "distribution_mals_from_counts",
            ),
            "biasamp.metrics._mals": (
                "bias_scores",
                "mals",
                "mals_from_counts",
            ),
            "biasamp.metrics._multi_attribute": (
                "multi_attribute",
                "multi_directional",
                "multi_directional_from_counts",
                "multi_mals",
                "multi_mals_from_counts",
            ),
            "biasamp.metrics._retrieval": ("retrieval_bias",),
        },
    )
