"""Predictability metrics: DPA and leakage amplification, with their attackers."""

from __future__ import annotations

from typing import TYPE_CHECKING

from biasamp._lazy import lazy_exports

if TYPE_CHECKING:
    from biasamp.predictability._attackers import ExactAttacker, MLPAttacker
    from biasamp.predictability._predictability import dpa, leakage_amplification

__all__ = ["ExactAttacker", "MLPAttacker", "dpa", "leakage_amplification"]

if not TYPE_CHECKING:
    __getattr__, __dir__ = lazy_exports(
        __name__,
        {
            "biasamp.predictability._attackers": ("ExactAttacker", "MLPAttacker"),
            "biasamp.predictability._predictability": ("dpa", "leakage_amplification"),
        },
    )
