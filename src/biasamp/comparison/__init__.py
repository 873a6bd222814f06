"""Comparing models and checkpoints: one tidy table of metrics, intervals and performance
(:func:`compare`), and the expected calibration error to read beside it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from biasamp._lazy import lazy_exports

if TYPE_CHECKING:
    from biasamp.comparison._calibration_error import calibration_error
    from biasamp.comparison._compare import ModelComparison, compare, plot_comparison

__all__ = [
    "ModelComparison",
    "calibration_error",
    "compare",
    "plot_comparison",
]

if not TYPE_CHECKING:
    __getattr__, __dir__ = lazy_exports(
        __name__,
        {
            "biasamp.comparison._calibration_error": ("calibration_error",),
            "biasamp.comparison._compare": (
                "ModelComparison",
                "compare",
                "plot_comparison",
            ),
        },
    )
