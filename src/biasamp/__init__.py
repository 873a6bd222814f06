"""biasamp: measure and mitigate bias amplification.

The path from data to a number is short and the same for every co-occurrence metric::

    label arrays --(_inputs)--> LabelMatrix --(_counts)--> CountTable --(metric)--> Result

Public API
----------
Counts
    :class:`CountTable`
Single-attribute co-occurrence metrics
    :func:`bias_scores`, :func:`mals`, :func:`directional` and their
    ``*_from_counts`` forms.
"""

from ._counts import CountTable
from ._directional import directional, directional_from_counts
from ._mals import bias_scores, mals, mals_from_counts
from ._results import PairwiseResult

__version__ = "0.1.0"

__all__ = [
    "CountTable",
    "PairwiseResult",
    "bias_scores",
    "directional",
    "directional_from_counts",
    "mals",
    "mals_from_counts",
    "__version__",
]
