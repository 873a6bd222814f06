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
    "DEFAULT_MIN_GROUP_SIZE",
    "SmallGroupWarning",
    "check_min_group_size",
    "small_groups_message",
    "warn_small_groups",
]

#: The default ``min_group_size``: 30 rows, the usual rule of thumb below which a
#: rate's normal-approximation interval is unreliable.
DEFAULT_MIN_GROUP_SIZE = 30

ERR_MIN_GROUP_SIZE = "min_group_size: expected a number >= 0 or None, got {got!r}."
WARN_SMALL_GROUPS = (
    "{count} group(s) have fewer than min_group_size={limit} rows in {split}: {examples}. "
    "Their rates are noisy; see result.group_sizes (pass min_group_size=None to silence)."
)
_MAX_NAMED = 10


class SmallGroupWarning(UserWarning):
    """A group used by a metric is smaller than ``min_group_size`` in some split."""


def check_min_group_size(min_group_size: Any) -> float | None:
    """Validate ``min_group_size`` (a number >= 0, or ``None`` for no check)."""
    if min_group_size is None:
        return None
    if (
        isinstance(min_group_size, bool)
        or not isinstance(min_group_size, numbers.Real)
        or not np.isfinite(float(min_group_size))
        or float(min_group_size) < 0
    ):
        raise ValueError(ERR_MIN_GROUP_SIZE.format(got=min_group_size))
    return float(min_group_size)


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
