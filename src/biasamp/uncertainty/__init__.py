"""Measuring well: summaries across runs, threshold calibration and sweeps.

Bootstrap intervals are an option of every metric (``n_boot``); their replicate
weights live in :mod:`biasamp.counts` and their summaries in :mod:`biasamp.results`.
"""

from biasamp.uncertainty._calibration import ThresholdCalibration, calibrate_thresholds
from biasamp.uncertainty._runs import RunsSummary, across_runs
from biasamp.uncertainty._sweep import ThresholdSweep, plot_threshold_sweep, threshold_sweep

__all__ = [
    "RunsSummary",
    "ThresholdCalibration",
    "ThresholdSweep",
    "across_runs",
    "calibrate_thresholds",
    "plot_threshold_sweep",
    "threshold_sweep",
]
