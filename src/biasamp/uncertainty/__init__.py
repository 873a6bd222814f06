"""Measuring well: summaries across runs, threshold calibration and sweeps.

Bootstrap intervals are an option of every metric (``n_boot``); their replicate
weights live in :mod:`biasamp.counts` and their summaries in :mod:`biasamp.results`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from biasamp._lazy import lazy_exports

if TYPE_CHECKING:
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

if not TYPE_CHECKING:
    __getattr__, __dir__ = lazy_exports(
        __name__,
        {
            "biasamp.uncertainty._calibration": ("ThresholdCalibration", "calibrate_thresholds"),
            "biasamp.uncertainty._runs": ("RunsSummary", "across_runs"),
            "biasamp.uncertainty._sweep": (
                "ThresholdSweep",
                "plot_threshold_sweep",
                "threshold_sweep",
            ),
        },
    )
