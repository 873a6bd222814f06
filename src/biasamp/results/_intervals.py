"""Percentile intervals and standard errors from bootstrap replicates.

``interval_from_replicates(replicates, *, ci=0.95)`` summarises the leading
replicate axis of any array of metric values: the percentile interval
(``numpy.quantile`` with linear interpolation) and the standard deviation of the
replicates (ddof=1). NaN replicates (an empty cell in a replicate) are left out
element by element; an element with fewer than ``min_valid`` finite replicates
gets a NaN interval (see docs/uncertainty.md).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

__all__ = [
    "BootstrapInterval",
    "check_ci",
    "count_valid",
    "interval_from_replicates",
    "interval_words",
]

ERR_CI = "ci: expected a confidence level strictly between 0 and 1, got {got!r}."
ERR_MIN_VALID = "min_valid: expected a fraction in [0, 1], got {got!r}."
ERR_NO_REPLICATES = (
    "replicates: expected an array with a leading replicate axis, got shape {shape}."
)


#: How :func:`interval_words` says that an interval includes 0.
WORDS_INCLUDES_ZERO = (
    "{level}interval [{low}, {high}] includes 0: not distinguishable from "
    "no amplification at this sample size"
)
#: How :func:`interval_words` says that an interval lies on one side of 0.
WORDS_EXCLUDES_ZERO = "{level}interval [{low}, {high}] lies {side} 0"
#: How :func:`interval_words` says that an interval has zero width.
WORDS_ZERO_WIDTH = (
    "{level}interval [{low}, {high}] has zero width: the resampled rows never "
    "changed the value (too few rows to measure its uncertainty)"
)


def interval_words(ci: Any, level: Any = 0.95, *, digits: int = 4) -> str | None:
    """The interval in words: whether it includes 0 (the value then cannot be told apart
    from no amplification at this sample size), lies above or below 0, or has zero width.

    The one sentence every surface (``repr``, the command line, the report) prints.

    Parameters
    ----------
    ci : tuple of two floats, or None
        ``(low, high)``; ``None`` (no interval) or a NaN bound gives ``None``.
    level : float or None, default 0.95
        The interval's level (``None``: not named).
    digits : int, default 4
        Decimal places of the bounds.

    Returns
    -------
    str or None

    Examples
    --------
    >>> from biasamp.results._intervals import interval_words
    >>> interval_words((-0.0195, 0.0522), 0.95)
    '95% interval [-0.0195, +0.0522] includes 0: not distinguishable from no amplification at this sample size'
    >>> interval_words((0.01, 0.03), 0.9)
    '90% interval [+0.0100, +0.0300] lies above 0'
    """  # noqa: E501
    if ci is None:
        return None
    low, high = (float(v) for v in ci)
    if not (np.isfinite(low) and np.isfinite(high)):
        return None
    fields = {
        "level": "" if level is None else f"{float(level):.0%} ",
        "low": f"{low:+.{digits}f}",
        "high": f"{high:+.{digits}f}",
    }
    if low == high:
        return WORDS_ZERO_WIDTH.format(**fields)
    if low <= 0.0 <= high:
        return WORDS_INCLUDES_ZERO.format(**fields)
    return WORDS_EXCLUDES_ZERO.format(side="above" if low > 0 else "below", **fields)


class BootstrapInterval(NamedTuple):
    """A percentile interval: ``low``, ``high`` and the bootstrap standard error ``se``."""

    low: Any
    high: Any
    se: Any


def count_valid(replicates: Any) -> np.ndarray:
    """Number of finite replicates of each element (shape ``replicates.shape[1:]``)."""
    return np.isfinite(np.asarray(replicates, dtype=np.float64)).sum(axis=0)


def check_ci(ci: Any) -> float:
    """Validate a confidence level in (0, 1)."""
    if (
        isinstance(ci, (bool, np.bool_))
        or not isinstance(ci, (int, float, np.number))
        or not 0 < float(ci) < 1
    ):
        raise ValueError(ERR_CI.format(got=ci))
    return float(ci)


def interval_from_replicates(
    replicates: Any, *, ci: float = 0.95, min_valid: float = 0.5
) -> BootstrapInterval:
    """Percentile bootstrap interval and standard error along the leading axis.

    Parameters
    ----------
    replicates : array-like of shape (B,) or (B, ...)
        Replicate values; the leading axis indexes replicates, so per-pair
        intervals of a ``(B, |G|, |T|)`` array come in one call.
    ci : float, default 0.95
        Confidence level.
    min_valid : float, default 0.5
        NaN or infinite replicates (a statistic undefined in that replicate)
        are left out element by element; an element with fewer than
        ``min_valid * B`` finite replicates (or fewer than 2) gets NaN.

    Returns
    -------
    BootstrapInterval
        ``(low, high, se)``, each a float for 1-D input or an array of shape
        ``replicates.shape[1:]``: the ``(1-ci)/2`` and ``(1+ci)/2`` quantiles
        (linear interpolation, as ``numpy.quantile``) and the standard
        deviation (ddof=1) of the finite replicates.

    Examples
    --------
    >>> import numpy as np
    >>> from biasamp import interval_from_replicates
    >>> low, high, se = interval_from_replicates(np.arange(101.0), ci=0.9)
    >>> float(low), float(high)
    (5.0, 95.0)
    >>> interval_from_replicates(np.array([[1.0, np.nan], [3.0, np.nan], [2.0, 1.0]])).low
    array([1.05,  nan])
    """
    level = check_ci(ci)
    if isinstance(min_valid, (bool, np.bool_)) or not 0 <= float(min_valid) <= 1:
        raise ValueError(ERR_MIN_VALID.format(got=min_valid))
    values = np.asarray(replicates, dtype=np.float64)
    if values.ndim == 0 or values.shape[0] == 0:
        raise ValueError(ERR_NO_REPLICATES.format(shape=values.shape))
    n_boot = values.shape[0]
    finite = np.isfinite(values)
    m = finite.sum(axis=0)
    ok = m >= max(2.0, float(min_valid) * n_boot)
    ordered = np.sort(np.where(finite, values, np.inf), axis=0)  # invalid ones sort last

    def _quantile(q: float) -> np.ndarray:
        pos = (np.maximum(m, 1) - 1) * q
        lo = np.floor(pos).astype(np.int64)
        hi = np.minimum(lo + 1, np.maximum(m, 1) - 1)
        frac = pos - lo
        a = np.take_along_axis(ordered, lo[None, ...], axis=0)[0]
        b = np.take_along_axis(ordered, hi[None, ...], axis=0)[0]
        # a + frac * (b - a) with b == a when frac == 0 (b may be inf only then)
        return np.where(frac > 0, a + frac * (b - a), a)

    alpha = round((1.0 - level) / 2.0, 12)  # 0.05 for ci=0.9, not 0.04999...
    with np.errstate(invalid="ignore"):
        low = np.where(ok, _quantile(alpha), np.nan)
        high = np.where(ok, _quantile(1.0 - alpha), np.nan)
    zeroed = np.where(finite, values, 0.0)
    mean = zeroed.sum(axis=0) / np.maximum(m, 1)
    ss = (np.where(finite, values - mean, 0.0) ** 2).sum(axis=0)
    se = np.where(ok, np.sqrt(ss / np.maximum(m - 1, 1)), np.nan)
    if values.ndim == 1:
        return BootstrapInterval(float(low), float(high), float(se))
    return BootstrapInterval(low, high, se)
