"""Predictability metrics: DPA and leakage amplification, with their attackers."""

from biasamp.predictability._attackers import ExactAttacker, MLPAttacker
from biasamp.predictability._predictability import dpa, leakage_amplification

__all__ = ["ExactAttacker", "MLPAttacker", "dpa", "leakage_amplification"]
