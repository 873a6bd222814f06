"""Comparing models and checkpoints: one tidy table of metrics, intervals and performance
(:func:`compare`), and the expected calibration error to read beside it."""

from biasamp.comparison._calibration_error import calibration_error
from biasamp.comparison._compare import ModelComparison, compare, plot_comparison

__all__ = ["ModelComparison", "calibration_error", "compare", "plot_comparison"]
