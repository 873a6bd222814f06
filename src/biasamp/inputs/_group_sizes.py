"""Group sizes: how many rows (or how much weight) each group has, and a warning when few.

A rate estimated from a handful of rows can set a metric's value on its own: the
log-ratio of differential fairness, a bias score of BiasAmp_MALS or a conditional
rate of BiasAmp-> swing by large amounts when one group has three rows. Intersections
(``race x sex x country``) make such groups common. Results report every group's
size per split and warn (:class:`SmallGroupWarning`) when a group the metric uses
is smaller than ``min_group_size`` (default :data:`DEFAULT_MIN_GROUP_SIZE`).
"""

from __future__ import annotations

import numbers
import warnings
from typing import Any

import numpy as np
import pandas as pd

__all__ = [
    "DEFAULT_MIN_CELL",
    "DEFAULT_MIN_GROUP_SIZE",
    "FragilePairWarning",
    "MissingGroupWarning",
    "SmallGroupWarning",
    "check_min_cell",
    "check_min_group_size",
    "missing_groups_message",
    "small_groups_message",
    "warn_small_groups",
]

#: The default ``min_group_size``: 30 rows, the usual rule of thumb below which a
#: rate's normal-approximation interval is unreliable.
DEFAULT_MIN_GROUP_SIZE = 30

#: The default ``min_cell``: a pair whose value is a rate over fewer predicted (or
#: conditioning) rows than this is flagged ``fragile`` in ``by_pair``.
DEFAULT_MIN_CELL = 5

ERR_MIN_GROUP_SIZE = "min_group_size: expected a number >= 0 or None, got {got!r}."
ERR_MIN_CELL = "min_cell: expected a number >= 0 or None, got {got!r}."
WARN_MISSING_GROUPS = "{count} group(s) of {reference} have no rows in {split}: {examples}. {then}"
#: What a missing group means for the per-pair metrics (the default of the warning).
MISSING_PAIRS = (
    "Their pairs are left out of the value or rest on no rows; see result.missing_groups "
    "and result.excluded_pairs."
)
WARN_SMALL_GROUPS = (
    "{count} group(s) have fewer than min_group_size={limit} rows in {split}: {examples}. "
    "Their rates are noisy; see result.group_sizes (pass min_group_size=None to silence)."
)
_MAX_NAMED = 10


class SmallGroupWarning(UserWarning):
    """A group used by a metric is smaller than ``min_group_size`` in some split."""


class MissingGroupWarning(UserWarning):
    """A group present in the training split (or, for a metric without one, in the
    evaluation ground truth) has no rows in an evaluation split (its ground truth or the
    predictions): the pairs of that group are left out of the value, or rest on no rows.
    The warning names the groups and the split; the result keeps them in
    ``missing_groups`` and the pairs in ``excluded_pairs``."""


class FragilePairWarning(UserWarning):
    """Some of the pairs that contribute most to a value rest on fewer than ``min_cell``
    predicted (or conditioning) rows: ``by_pair["fragile"]`` flags them, and one image
    more or less can move the value."""


def _checked_limit(value: Any, message: str) -> float | None:
    if value is None:
        return None
    if (
        isinstance(value, bool)
        or not isinstance(value, numbers.Real)
        or not np.isfinite(float(value))
        or float(value) < 0
    ):
        raise ValueError(message.format(got=value))
    return float(value)


def check_min_group_size(min_group_size: Any) -> float | None:
    """Validate ``min_group_size`` (a number >= 0, or ``None`` for no check)."""
    return _checked_limit(min_group_size, ERR_MIN_GROUP_SIZE)


def check_min_cell(min_cell: Any) -> float | None:
    """Validate ``min_cell`` (a number >= 0, or ``None``: no pair is flagged fragile)."""
    return _checked_limit(min_cell, ERR_MIN_CELL)


def missing_groups_message(
    groups: Any, *, split: str, reference: str = "the training split", then: str = MISSING_PAIRS
) -> str:
    """The text of a :class:`MissingGroupWarning` about ``groups`` of ``reference`` absent
    from ``split``; ``then`` says what it does to the metric."""
    groups = list(groups)
    shown = ", ".join(str(g) for g in groups[:_MAX_NAMED])
    if len(groups) > _MAX_NAMED:
        shown += f", and {len(groups) - _MAX_NAMED} more"
    return WARN_MISSING_GROUPS.format(
        count=len(groups), reference=reference, split=split, examples=shown, then=then
    )


def warn_small_groups(
    sizes: pd.Series, *, min_group_size: float | None, split: str, stacklevel: int = 3
) -> list[Any]:
    """Warn about the groups of ``sizes`` below ``min_group_size``; return their names.

    Parameters
    ----------
    sizes : pandas.Series
        Size (rows, or total weight) of each group, indexed by group.
    min_group_size : float or None
        The threshold; ``None`` checks nothing.
    split : str
        The split named in the warning (``"the evaluation split"``).

    Examples
    --------
    >>> import warnings
    >>> import pandas as pd
    >>> from biasamp.inputs._group_sizes import warn_small_groups
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     small = warn_small_groups(pd.Series({"a": 100.0, "b": 4.0}), min_group_size=30,
    ...                               split="the evaluation split")
    >>> small, caught[0].category.__name__
    (['b'], 'SmallGroupWarning')
    """
    small, message = small_groups_message(sizes, min_group_size=min_group_size, split=split)
    if message is not None:
        warnings.warn(message, SmallGroupWarning, stacklevel=stacklevel)
    return small


def small_groups_message(
    sizes: pd.Series, *, min_group_size: float | None, split: str
) -> tuple[list[Any], str | None]:
    """The groups of ``sizes`` below ``min_group_size`` and the text of their warning
    (``None`` when there are none): what :func:`warn_small_groups` warns, for reports."""
    if min_group_size is None:
        return [], None
    small = sizes[sizes.to_numpy(dtype=np.float64) < min_group_size]
    if small.empty:
        return [], None
    shown = ", ".join(f"{name!s} ({size:g})" for name, size in small.iloc[:_MAX_NAMED].items())
    if len(small) > _MAX_NAMED:
        shown += f", and {len(small) - _MAX_NAMED} more"
    message = WARN_SMALL_GROUPS.format(
        count=len(small), limit=f"{min_group_size:g}", split=split, examples=shown
    )
    return list(small.index), message
