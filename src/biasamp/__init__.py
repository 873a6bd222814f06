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

from ._atomic_write import atomic_output
from ._attackers import ExactAttacker, MLPAttacker
from ._bootstrap import interval_from_replicates, replicate_weights
from ._column_roles import ColumnRoles
from ._compare import compare_mitigations
from ._count_io import load_counts, save_counts
from ._counts import CountTable
from ._dask_counts import counts_from_dask
from ._directional import directional, directional_from_counts
from ._group_sums import counts_from_group_sums, group_sums_sql
from ._mals import bias_scores, mals, mals_from_counts
from ._multi_attribute import (
    MultiAttributeResult,
    multi_directional,
    multi_directional_from_counts,
    multi_mals,
    multi_mals_from_counts,
)
from ._oversampling import Oversampling, oversample
from ._pattern_counts import PatternCountTable
from ._predictability import PredictabilityResult, dpa, leakage_amplification
from ._rba import CandidateOutputs, RBAResult, rba
from ._results import PairwiseResult
from ._runs import RunsSummary, across_runs
from ._streaming import counts_from_files, pattern_counts_from_files
from ._thresholds import (
    ThresholdCalibration,
    ThresholdSweep,
    calibrate_thresholds,
    plot_threshold_sweep,
    threshold_sweep,
)

__version__ = "0.1.0"

__all__ = [
    "CountTable",
    "PairwiseResult",
    "bias_scores",
    "directional",
    "directional_from_counts",
    "mals",
    "mals_from_counts",
    "MultiAttributeResult",
    "PatternCountTable",
    "multi_directional",
    "multi_directional_from_counts",
    "multi_mals",
    "multi_mals_from_counts",
    "CandidateOutputs",
    "RBAResult",
    "rba",
    "Oversampling",
    "oversample",
    "compare_mitigations",
    "ExactAttacker",
    "MLPAttacker",
    "PredictabilityResult",
    "dpa",
    "leakage_amplification",
    "ColumnRoles",
    "atomic_output",
    "counts_from_dask",
    "counts_from_files",
    "counts_from_group_sums",
    "group_sums_sql",
    "load_counts",
    "pattern_counts_from_files",
    "save_counts",
    "RunsSummary",
    "ThresholdCalibration",
    "ThresholdSweep",
    "across_runs",
    "calibrate_thresholds",
    "interval_from_replicates",
    "plot_threshold_sweep",
    "replicate_weights",
    "threshold_sweep",
    "__version__",
]
