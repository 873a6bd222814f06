"""biasamp: measure and mitigate bias amplification.

The path from data to a number is short and the same for every co-occurrence metric::

    label arrays --(_inputs)--> LabelMatrix --(_counts)--> CountTable --(metric)--> result

Public API, by concern
----------------------
Counts (additive, mergeable state)
    :class:`CountTable`, :class:`PatternCountTable` (task sets, for the
    multi-attribute metrics).
Single-attribute co-occurrence metrics
    :func:`bias_scores`, :func:`mals`, :func:`directional`, and the
    ``*_from_counts`` forms.
Multi-attribute co-occurrence metrics
    :func:`multi_mals`, :func:`multi_directional` and their ``*_from_counts`` forms.
Predictability metrics
    :func:`dpa`, :func:`leakage_amplification`, the attackers
    :class:`ExactAttacker` and :class:`MLPAttacker`.
Uncertainty and thresholds
    :func:`replicate_weights`, :func:`interval_from_replicates` (every metric also
    takes ``n_boot``), :func:`across_runs`, :func:`calibrate_thresholds`,
    :func:`threshold_sweep`, :func:`plot_threshold_sweep`.
Mitigation
    :func:`rba` (with :class:`CandidateOutputs`), :func:`oversample`,
    :func:`compare_mitigations`.
Data larger than memory
    :func:`counts_from_files`, :func:`pattern_counts_from_files` (numpy or DuckDB
    engine), :func:`counts_from_dask`, :func:`group_sums_sql` and
    :func:`counts_from_group_sums` (Spark and other SQL engines),
    :func:`save_counts` / :func:`load_counts`, :func:`atomic_output`.

Bundled data: :mod:`biasamp.datasets`. Command line: ``biasamp --help``.
"""

# counts
from ._counts import CountTable
from ._pattern_counts import PatternCountTable
from ._results import PairwiseResult

# single-attribute co-occurrence metrics
from ._directional import directional, directional_from_counts
from ._mals import bias_scores, mals, mals_from_counts

# multi-attribute co-occurrence metrics
from ._multi_attribute import (
    MultiAttributeResult,
    multi_directional,
    multi_directional_from_counts,
    multi_mals,
    multi_mals_from_counts,
)

# predictability metrics
from ._attackers import ExactAttacker, MLPAttacker
from ._predictability import PredictabilityResult, dpa, leakage_amplification

# uncertainty and thresholds
from ._bootstrap import interval_from_replicates, replicate_weights
from ._runs import RunsSummary, across_runs
from ._thresholds import (
    ThresholdCalibration,
    ThresholdSweep,
    calibrate_thresholds,
    plot_threshold_sweep,
    threshold_sweep,
)

# mitigation
from ._compare import compare_mitigations
from ._oversampling import Oversampling, oversample
from ._rba import CandidateOutputs, RBAResult, rba

# data larger than memory
from ._atomic_write import atomic_output
from ._column_roles import ColumnRoles
from ._count_io import load_counts, save_counts
from ._dask_counts import counts_from_dask
from ._group_sums import counts_from_group_sums, group_sums_sql
from ._streaming import counts_from_files, pattern_counts_from_files

__version__ = "0.1.0"

__all__ = [
    # counts
    "CountTable",
    "PatternCountTable",
    "PairwiseResult",
    # single-attribute
    "bias_scores",
    "directional",
    "directional_from_counts",
    "mals",
    "mals_from_counts",
    # multi-attribute
    "MultiAttributeResult",
    "multi_directional",
    "multi_directional_from_counts",
    "multi_mals",
    "multi_mals_from_counts",
    # predictability
    "ExactAttacker",
    "MLPAttacker",
    "PredictabilityResult",
    "dpa",
    "leakage_amplification",
    # uncertainty and thresholds
    "RunsSummary",
    "ThresholdCalibration",
    "ThresholdSweep",
    "across_runs",
    "calibrate_thresholds",
    "interval_from_replicates",
    "plot_threshold_sweep",
    "replicate_weights",
    "threshold_sweep",
    # mitigation
    "CandidateOutputs",
    "Oversampling",
    "RBAResult",
    "compare_mitigations",
    "oversample",
    "rba",
    # data larger than memory
    "ColumnRoles",
    "atomic_output",
    "counts_from_dask",
    "counts_from_files",
    "counts_from_group_sums",
    "group_sums_sql",
    "load_counts",
    "pattern_counts_from_files",
    "save_counts",
    "__version__",
]
