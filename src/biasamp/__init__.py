"""biasamp: measure and mitigate bias amplification.

The path from data to a number is short and the same for every co-occurrence metric::

    label arrays --(inputs)--> LabelMatrix --(counts)--> CountTable --(metrics)--> result

Public API, by concern
----------------------
The metric registry
    :func:`metric_card`, :func:`metric_cards`: every metric's
    canonical name (the one every surface prints), paper, citation, meaning and sign.
Counts (additive, mergeable state)
    :class:`CountTable`, :class:`PatternCountTable` (task sets, for the
    multi-attribute metrics).
Single-attribute co-occurrence metrics
    :func:`bias_scores`, :func:`mals`, :func:`directional`, and the
    ``*_from_counts`` forms; :func:`distribution_mals` (MALS of the posterior mass,
    Jia et al. 2020) with :func:`distribution_counts` and
    :func:`distribution_mals_from_counts`.
Multi-attribute co-occurrence metrics
    :func:`multi_mals`, :func:`multi_directional` and their ``*_from_counts`` forms.
Intersectional groups and differential fairness
    :func:`intersect` (several categorical columns -> one group per row, with
    :func:`intersection_of`), :func:`differential_fairness`,
    :func:`differential_fairness_amplification` and their ``*_from_counts`` forms;
    :class:`SmallGroupWarning` for groups below ``min_group_size``,
    :class:`MissingGroupWarning` for training groups absent from an evaluation split,
    :class:`FragilePairWarning` for top pairs resting on fewer than ``min_cell`` rows.
Ranked retrieval
    :func:`retrieval_bias` (Skew@k, MaxSkew@k, MinSkew@k and NDKL of ranked lists,
    Geyik et al. 2019), with :class:`RetrievalBiasResult`.
Predictability metrics
    :func:`dpa`, :func:`leakage_amplification`, the attackers
    :class:`ExactAttacker` and :class:`MLPAttacker`.
Captioning and other text-output models
    :func:`caption_bias_amplification` (T->A, A->T, MALS read from captions),
    :func:`lic` (LIC, leakage of masked captions), :func:`dbac` (DBAC, directional);
    the parser and word lists in :mod:`biasamp.text` (:func:`biasamp.text.caption_labels`).
Generated outputs (text-to-image, language models, generations of self-training)
    :func:`output_amplification` (outputs against a reference, per concept),
    :func:`corrected_shares` (the group classifier's errors, CLEAM),
    :func:`bias_transfer` (output bias regressed on data bias),
    :func:`share_trajectory` (group shares across generations),
    :func:`feedback_bound` (the data-feedback-loop bound), in :mod:`biasamp.generated`.
Uncertainty and thresholds
    :func:`replicate_weights`, :func:`interval_from_replicates` (every metric also
    takes ``n_boot``), :func:`across_runs`, :func:`calibrate_thresholds`,
    :func:`threshold_sweep`, :func:`plot_threshold_sweep`; row-reproducible
    replicate weights for chunked or distributed bootstraps:
    :class:`PoissonReplicates`, :class:`MultinomialReplicates`.
Mitigation
    :func:`rba` (with :class:`CandidateOutputs`), :func:`oversample`,
    :func:`compare_mitigations`.
Comparing models and checkpoints
    :func:`compare` (one tidy table of metrics, intervals and performance, with
    bars, scatter and trajectory plots), :func:`calibration_error` (ECE),
    :func:`evaluate_module_path` (the Hugging Face ``evaluate`` modules).
Reports
    :func:`render_report`, :func:`write_report` (one self-contained HTML file, with
    sortable, filterable, paged pair tables); :func:`render_comparison`,
    :func:`write_comparison` (a page comparing models).
Data larger than memory
    :func:`counts_from_files`, :func:`pattern_counts_from_files` (numpy or DuckDB
    engine), :func:`counts_from_dask`, :func:`counts_from_spark` and
    :func:`pattern_counts_from_spark` (a Spark DataFrame), :func:`group_sums_sql` and
    :func:`counts_from_group_sums` (other SQL engines),
    :func:`save_counts` / :func:`load_counts`, :func:`atomic_output`.

Keeping results
    ``result.save(path)`` on every result type and :func:`load_result` (JSON;
    also reads the command line's ``--json`` files).

Bundled data: :mod:`biasamp.datasets`. Command line: ``biasamp --help``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

# first: Ctrl-C while the command line imports is one line and exit code 130 (importing
# the module installs the guard when this process is the biasamp command)
from biasamp import _interrupts  # noqa: F401
from biasamp._lazy import lazy_exports
from biasamp._version import __version__
from biasamp.inputs._collections import register_counter

if TYPE_CHECKING:
    # the metric registry: one card per metric (names, paper, meaning, sign)
    from biasamp.registry import MetricCard, metric_card, metric_cards

    # counts
    from biasamp.counts import CountTable, PatternCountTable
    from biasamp.results import PairwiseResult, load_result

    # single-attribute co-occurrence metrics
    from biasamp.metrics import (
        bias_scores,
        directional,
        directional_from_counts,
        mals,
        mals_from_counts,
        distribution_counts,
        distribution_mals,
        distribution_mals_from_counts,
        retrieval_bias,
    )
    from biasamp.results import RetrievalBiasResult

    # multi-attribute co-occurrence metrics
    from biasamp.results import MultiAttributeResult
    from biasamp.metrics import (
        CombinationSpace,
        multi_attribute,
        multi_directional,
        multi_directional_from_counts,
        multi_mals,
        multi_mals_from_counts,
    )

    # intersectional groups and differential fairness
    from biasamp.inputs import (
        FragilePairWarning,
        MissingGroupWarning,
        SmallGroupWarning,
        intersect,
        intersection_of,
    )
    from biasamp.results import DifferentialFairnessResult
    from biasamp.metrics import (
        differential_fairness,
        differential_fairness_amplification,
        differential_fairness_amplification_from_counts,
        differential_fairness_from_counts,
    )

    # predictability metrics
    from biasamp.results import PredictabilityResult
    from biasamp.predictability import ExactAttacker, MLPAttacker, dpa, leakage_amplification

    # captioning and other text-output models
    from biasamp.text import (
        CaptionBiasResult,
        DBACResult,
        LICResult,
        caption_bias_amplification,
        dbac,
        lic,
    )

    # generated outputs
    from biasamp.generated import (
        BiasTransferResult,
        OutputAmplificationResult,
        ShareTrajectoryResult,
        bias_transfer,
        corrected_shares,
        feedback_bound,
        output_amplification,
        share_trajectory,
    )

    # uncertainty and thresholds
    from biasamp.results import interval_from_replicates
    from biasamp.counts import MultinomialReplicates, PoissonReplicates, replicate_weights
    from biasamp.uncertainty import (
        RunsSummary,
        ThresholdCalibration,
        ThresholdSweep,
        across_runs,
        calibrate_thresholds,
        plot_threshold_sweep,
        threshold_sweep,
    )

    # mitigation
    from biasamp.mitigation import (
        CandidateOutputs,
        MitigationComparison,
        Oversampling,
        RBAConvergenceWarning,
        RBAResult,
        compare_mitigations,
        oversample,
        rba,
    )

    # comparing models and checkpoints
    from biasamp.comparison import ModelComparison, calibration_error, compare, plot_comparison

    # auditing files (what biasamp measure runs)
    from biasamp.auditing import AuditResult, audit

    # Hugging Face evaluate modules (shipped; evaluate itself is not imported)
    from biasamp.hf_evaluate import evaluate_module_path

    # reports
    from biasamp.report import render_comparison, render_report, write_comparison, write_report

    # data larger than memory
    from biasamp.output import atomic_output
    from biasamp.inputs import ColumnRoles, IntersectedColumns, LabelWarning, ScoreColumns
    from biasamp.counts import load_counts, save_counts
    from biasamp.engines import (
        counts_from_dask,
        counts_from_files,
        counts_from_group_sums,
        counts_from_joined_files,
        counts_from_long_files,
        counts_from_spark,
        group_sums_sql,
        pattern_counts_from_files,
        pattern_counts_from_spark,
    )

__all__ = [
    # the metric registry
    "MetricCard",
    "metric_card",
    "metric_cards",
    # counts
    "CountTable",
    "PatternCountTable",
    "PairwiseResult",
    "load_result",
    # single-attribute
    "bias_scores",
    "directional",
    "directional_from_counts",
    "mals",
    "mals_from_counts",
    "distribution_counts",
    "distribution_mals",
    "distribution_mals_from_counts",
    # ranked retrieval
    "RetrievalBiasResult",
    "retrieval_bias",
    # multi-attribute
    "CombinationSpace",
    "MultiAttributeResult",
    "multi_attribute",
    "multi_directional",
    "multi_directional_from_counts",
    "multi_mals",
    "multi_mals_from_counts",
    # intersectional groups and differential fairness
    "DifferentialFairnessResult",
    "FragilePairWarning",
    "MissingGroupWarning",
    "SmallGroupWarning",
    "differential_fairness",
    "differential_fairness_amplification",
    "differential_fairness_amplification_from_counts",
    "differential_fairness_from_counts",
    "intersect",
    "intersection_of",
    # predictability
    "ExactAttacker",
    "MLPAttacker",
    "PredictabilityResult",
    "dpa",
    "leakage_amplification",
    # captioning models
    "CaptionBiasResult",
    "DBACResult",
    "LICResult",
    "caption_bias_amplification",
    "dbac",
    "lic",
    # generated outputs
    "BiasTransferResult",
    "OutputAmplificationResult",
    "ShareTrajectoryResult",
    "bias_transfer",
    "corrected_shares",
    "feedback_bound",
    "output_amplification",
    "share_trajectory",
    # uncertainty and thresholds
    "MultinomialReplicates",
    "PoissonReplicates",
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
    "MitigationComparison",
    "Oversampling",
    "RBAConvergenceWarning",
    "RBAResult",
    "compare_mitigations",
    # comparing models
    "ModelComparison",
    "calibration_error",
    "compare",
    "plot_comparison",
    "evaluate_module_path",
    # auditing files
    "AuditResult",
    "audit",
    "oversample",
    "rba",
    # reports
    "render_comparison",
    "render_report",
    "write_comparison",
    "write_report",
    # data larger than memory
    "ColumnRoles",
    "IntersectedColumns",
    "LabelWarning",
    "ScoreColumns",
    "atomic_output",
    "counts_from_dask",
    "counts_from_files",
    "counts_from_group_sums",
    "counts_from_joined_files",
    "counts_from_long_files",
    "counts_from_spark",
    "group_sums_sql",
    "load_counts",
    "pattern_counts_from_files",
    "pattern_counts_from_spark",
    "save_counts",
    "__version__",
]

#: The package's rooms, reachable as ``biasamp.<room>`` without importing them first.
_ROOMS = (
    "auditing",
    "cli",
    "comparison",
    "counts",
    "datasets",
    "engines",
    "generated",
    "hf_evaluate",
    "inputs",
    "metrics",
    "mitigation",
    "output",
    "predictability",
    "registry",
    "report",
    "results",
    "text",
    "torchmetrics",
    "uncertainty",
)

if not TYPE_CHECKING:
    # each public name is imported from its room on first use (biasamp.mals, from biasamp
    # import mals), so `import biasamp` imports no numerical library
    __getattr__, __dir__ = lazy_exports(
        __name__,
        {
            "biasamp.registry": ("MetricCard", "metric_card", "metric_cards"),
            "biasamp.auditing": ("AuditResult", "audit"),
            "biasamp.counts": (
                "CountTable",
                "PatternCountTable",
                "MultinomialReplicates",
                "PoissonReplicates",
                "replicate_weights",
                "load_counts",
                "save_counts",
            ),
            "biasamp.results": (
                "PairwiseResult",
                "load_result",
                "MultiAttributeResult",
                "DifferentialFairnessResult",
                "PredictabilityResult",
                "RetrievalBiasResult",
                "interval_from_replicates",
            ),
            "biasamp.metrics": (
                "bias_scores",
                "directional",
                "directional_from_counts",
                "mals",
                "mals_from_counts",
                "distribution_counts",
                "distribution_mals",
                "distribution_mals_from_counts",
                "retrieval_bias",
                "CombinationSpace",
                "multi_attribute",
                "multi_directional",
                "multi_directional_from_counts",
                "multi_mals",
                "multi_mals_from_counts",
                "differential_fairness",
                "differential_fairness_amplification",
                "differential_fairness_amplification_from_counts",
                "differential_fairness_from_counts",
            ),
            "biasamp.inputs": (
                "FragilePairWarning",
                "MissingGroupWarning",
                "SmallGroupWarning",
                "intersect",
                "intersection_of",
                "ColumnRoles",
                "IntersectedColumns",
                "LabelWarning",
                "ScoreColumns",
            ),
            "biasamp.predictability": (
                "ExactAttacker",
                "MLPAttacker",
                "dpa",
                "leakage_amplification",
            ),
            "biasamp.text": (
                "CaptionBiasResult",
                "DBACResult",
                "LICResult",
                "caption_bias_amplification",
                "dbac",
                "lic",
            ),
            "biasamp.generated": (
                "BiasTransferResult",
                "OutputAmplificationResult",
                "ShareTrajectoryResult",
                "bias_transfer",
                "corrected_shares",
                "feedback_bound",
                "output_amplification",
                "share_trajectory",
            ),
            "biasamp.uncertainty": (
                "RunsSummary",
                "ThresholdCalibration",
                "ThresholdSweep",
                "across_runs",
                "calibrate_thresholds",
                "plot_threshold_sweep",
                "threshold_sweep",
            ),
            "biasamp.mitigation": (
                "CandidateOutputs",
                "MitigationComparison",
                "Oversampling",
                "RBAConvergenceWarning",
                "RBAResult",
                "compare_mitigations",
                "oversample",
                "rba",
            ),
            "biasamp.comparison": (
                "ModelComparison",
                "calibration_error",
                "compare",
                "plot_comparison",
            ),
            "biasamp.hf_evaluate": ("evaluate_module_path",),
            "biasamp.report": (
                "render_comparison",
                "render_report",
                "write_comparison",
                "write_report",
            ),
            "biasamp.output": ("atomic_output",),
            "biasamp.engines": (
                "counts_from_dask",
                "counts_from_files",
                "counts_from_group_sums",
                "counts_from_joined_files",
                "counts_from_long_files",
                "counts_from_spark",
                "group_sums_sql",
                "pattern_counts_from_files",
                "pattern_counts_from_spark",
            ),
        },
        submodules=_ROOMS,
    )


def _count_dask(*args: Any, **kwargs: Any) -> Any:
    """Count a Dask collection: the Dask engine, imported on first use."""
    from biasamp.engines import counts_from_dask

    return counts_from_dask(*args, **kwargs)


# Dask collections are counted by the Dask engine; the adapter layer recognises them without
# importing dask, and the engine is imported only when a collection comes in.
register_counter("dask", _count_dask)
