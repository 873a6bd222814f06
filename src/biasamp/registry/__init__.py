"""The metric registry: one card per metric, the single source of its vocabulary.

Every surface (results, ``compare``, the command line and its JSON, the HTML report,
the ``evaluate`` modules, the docs and the error messages) names a metric by its
card's canonical :attr:`MetricCard.name` and reads its title, paper, citation,
meaning and sign from here.
"""

from biasamp.registry._metrics import (
    DIRECTION_SPELLINGS,
    DIRECTIONS,
    ERR_DIRECTION,
    ERR_UNKNOWN_METRIC,
    INPUT_KINDS,
    KNOBS,
    METRICS,
    MetricCard,
    card_for,
    contract_table,
    find_card,
    metric_card,
    metric_cards,
    metric_name,
    metric_table,
    normalize_direction,
)

__all__ = [
    "DIRECTIONS",
    "DIRECTION_SPELLINGS",
    "ERR_DIRECTION",
    "ERR_UNKNOWN_METRIC",
    "INPUT_KINDS",
    "KNOBS",
    "METRICS",
    "MetricCard",
    "card_for",
    "contract_table",
    "find_card",
    "metric_card",
    "metric_cards",
    "metric_name",
    "metric_table",
    "normalize_direction",
]
