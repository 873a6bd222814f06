"""The additive state behind every co-occurrence metric.

:class:`CountTable` (group x task counts) and :class:`PatternCountTable` (counts
of task *sets*, for the multi-attribute metrics) are filled from label matrices,
updated chunk by chunk, merged with ``+``, saved and loaded. Replicate weights
give every count a leading bootstrap axis; :mod:`biasamp.counts._combinations`
builds the combination space M of the multi-attribute metrics.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from biasamp._lazy import lazy_exports

if TYPE_CHECKING:
    from biasamp.counts._count_table import CountTable, empty_count_table
    from biasamp.counts._io import load_counts, save_counts
    from biasamp.counts._pattern_counts import PatternCountTable
    from biasamp.counts._poisson import PoissonReplicates
    from biasamp.counts._replicates import (
        MultinomialReplicates,
        replicate_count_table,
        replicate_weights,
    )

__all__ = [
    "CountTable",
    "MultinomialReplicates",
    "PatternCountTable",
    "PoissonReplicates",
    "empty_count_table",
    "load_counts",
    "replicate_count_table",
    "replicate_weights",
    "save_counts",
]

if not TYPE_CHECKING:
    __getattr__, __dir__ = lazy_exports(
        __name__,
        {
            "biasamp.counts._count_table": ("CountTable", "empty_count_table"),
            "biasamp.counts._io": ("load_counts", "save_counts"),
            "biasamp.counts._pattern_counts": ("PatternCountTable",),
            "biasamp.counts._poisson": ("PoissonReplicates",),
            "biasamp.counts._replicates": (
                "MultinomialReplicates",
                "replicate_count_table",
                "replicate_weights",
            ),
        },
    )
