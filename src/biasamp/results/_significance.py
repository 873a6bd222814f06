"""Significance against chance: the null distribution of a metric and its p-value.

A metric with a null (its registry card names it: ``"paired-swap"`` or
``"random-ranking"``) takes ``n_perm`` and ``random_state``; its result then
carries ``p_value`` and ``null``, a :class:`NullDistribution` (mean, standard
deviation and quantiles of the metric's ``n_perm`` values under the null).

The p-value counts the observed data set among the null ones, so it is never 0:

* ``alternative="greater"`` (a metric whose larger values mean amplification):
  ``(1 + #{null >= observed}) / (1 + n_valid)``;
* ``alternative="two-sided"`` (a metric whose sign is not amplification):
  ``(1 + #{|null - m| >= |observed - m|}) / (1 + n_valid)`` with ``m`` the mean
  of the null values.

Null values that are undefined (NaN: a metric undefined on a swapped data set)
are left out; ``n_valid`` is the number of finite ones.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

__all__ = [
    "ALTERNATIVES",
    "ERR_ALTERNATIVE",
    "ERR_NULL_RECORD",
    "ERR_QUANTILE",
    "NULL_QUANTILES",
    "SIGNIFICANCE_LEVEL",
    "NullDistribution",
    "chance_text",
    "format_p_value",
    "null_distribution",
    "permutation_p_value",
    "with_significance",
]

#: The quantiles of the null values a :class:`NullDistribution` keeps.
NULL_QUANTILES = (0.025, 0.05, 0.5, 0.95, 0.975)
#: The level under which a value is "distinguishable from chance" in words.
SIGNIFICANCE_LEVEL = 0.05
ALTERNATIVES = ("greater", "two-sided")
ERR_ALTERNATIVE = "alternative: expected one of {choices}, got {got!r}."
ERR_NULL_RECORD = "data: not the record of a NullDistribution: {problem}."
ERR_QUANTILE = "q: expected one of {choices} (the stored quantiles), got {got!r}."


def _finite(values: Any) -> np.ndarray:
    flat = np.asarray(values, dtype=np.float64).reshape(-1)
    return flat[np.isfinite(flat)]


def permutation_p_value(
    observed: float, null_values: Any, *, alternative: str = "greater"
) -> float:
    """The p-value of ``observed`` among ``null_values`` (module docs); NaN when the
    observed value is undefined.

    Examples
    --------
    >>> from biasamp.results._significance import permutation_p_value
    >>> permutation_p_value(0.5, [0.1, 0.6, 0.2, 0.5])  # (1 + 2) / (1 + 4)
    0.6
    >>> permutation_p_value(-0.3, [0.1, -0.1, 0.0, 0.6], alternative="two-sided")  # 0.6 as far
    0.4
    """
    if alternative not in ALTERNATIVES:
        raise ValueError(ERR_ALTERNATIVE.format(choices=", ".join(ALTERNATIVES), got=alternative))
    null = _finite(null_values)
    observed = float(observed)
    if not math.isfinite(observed):
        return math.nan
    if alternative == "greater":
        # a relative tolerance so that a null value equal to the observed one in exact
        # arithmetic counts as >= whatever the order of the floating-point sums
        tolerance = 1e-12 * max(1.0, abs(observed))
        extreme = int(np.count_nonzero(null >= observed - tolerance))
    else:
        centre = float(null.mean()) if null.size else 0.0
        distance = abs(observed - centre)
        tolerance = 1e-12 * max(1.0, distance)
        extreme = int(np.count_nonzero(np.abs(null - centre) >= distance - tolerance))
    return (1.0 + extreme) / (1.0 + null.size)


class Quantiles(dict[str, float]):
    """The quantiles of a null distribution, keyed by ``"0.975"``; a number (``0.975``)
    reads the same entry."""

    @staticmethod
    def _key(key: Any) -> Any:
        if isinstance(key, (int, float, np.floating)) and not isinstance(key, bool):
            return f"{float(key):g}"
        return key

    def __getitem__(self, key: Any) -> float:
        return dict.__getitem__(self, self._key(key))

    def __contains__(self, key: object) -> bool:
        return dict.__contains__(self, self._key(key))

    def get(self, key: Any, default: Any = None) -> Any:
        return dict.get(self, self._key(key), default)


@dataclass(frozen=True, repr=False, kw_only=True)
class NullDistribution:
    """A metric's distribution under its null hypothesis (summary of ``n_perm`` draws).

    Attributes
    ----------
    method : str
        The null: ``"paired-swap"`` (each row's labels and outputs swap with
        probability 1/2) or ``"random-ranking"`` (rankings drawn uniformly at random
        from the same pool at the same k).
    alternative : str
        ``"greater"`` (larger values are amplification) or ``"two-sided"``.
    n_perm : int
        Draws made.
    n_valid : int
        Draws whose value is defined (the p-value counts these).
    mean, sd : float
        Mean and standard deviation (ddof=1) of the defined null values.
    quantiles : dict of str to float
        ``{"0.025": ..., "0.05": ..., "0.5": ..., "0.95": ..., "0.975": ...}``
        (``quantiles[0.975]`` reads ``quantiles["0.975"]``).

    ``null["mean"]`` reads ``null.mean``: the record reads as a mapping too.

    Examples
    --------
    >>> import numpy as np
    >>> from biasamp import directional
    >>> rng = np.random.default_rng(0)
    >>> groups = rng.integers(0, 2, 300)
    >>> tasks = np.where(rng.random(300) < 0.5, groups, rng.integers(0, 3, 300))
    >>> pred = np.where(rng.random(300) < 0.3, groups, tasks)  # pushed towards the group
    >>> result = directional(direction="A->T", groups=groups, tasks=tasks, tasks_pred=pred,
    ...                      n_perm=199, random_state=0, min_group_size=None)
    >>> null = result.null
    >>> null.method, null.n_perm, result.p_value
    ('paired-swap', 199, 0.005)
    >>> bool(null.quantiles[0.975] < result.value), null["mean"] == null.mean
    (True, True)
    """

    method: str
    alternative: str
    n_perm: int
    n_valid: int
    mean: float
    sd: float
    quantiles: dict[str, float]

    #: Saved inside a result as its :meth:`to_dict` and rebuilt with :meth:`from_dict`.
    saved_as_record: ClassVar[bool] = True

    def __post_init__(self) -> None:
        if isinstance(self.quantiles, Mapping) and not isinstance(self.quantiles, Quantiles):
            object.__setattr__(self, "quantiles", Quantiles(self.quantiles))

    def __getitem__(self, key: str) -> Any:
        """``null["mean"]`` reads ``null.mean`` (the record's keys, as :meth:`to_dict`)."""
        if key not in self.to_dict():
            raise KeyError(key)
        return getattr(self, key)

    def keys(self) -> list[str]:
        """The record's keys (``method``, ``alternative``, ``n_perm``, ``n_valid``, ``mean``,
        ``sd``, ``quantiles``)."""
        return list(self.to_dict())

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> NullDistribution:
        """The inverse of :meth:`to_dict` (``None`` numbers become NaN).

        Raises
        ------
        TypeError, ValueError
            When ``data`` is not such a mapping (naming ``data`` and the key).
        """
        if not isinstance(data, Mapping):
            raise TypeError(ERR_NULL_RECORD.format(problem=f"got {type(data).__name__}"))
        names = [f.name for f in dataclasses.fields(cls)]
        unknown = sorted(set(map(str, data)) - set(names))
        missing = [name for name in names if name not in data]
        if unknown or missing:
            problem = f"unknown keys {unknown}" if unknown else f"missing keys {missing}"
            raise ValueError(ERR_NULL_RECORD.format(problem=problem))

        def number(key: str, x: Any) -> float:
            if x is None:
                return math.nan
            if isinstance(x, bool) or not isinstance(x, (int, float)):
                raise TypeError(
                    ERR_NULL_RECORD.format(problem=f"{key}: expected a number, got {x!r}")
                )
            return float(x)

        def count(key: str) -> int:
            x = data[key]
            if isinstance(x, bool) or not isinstance(x, int) or x < 0:
                raise ValueError(
                    ERR_NULL_RECORD.format(problem=f"{key}: expected a count, got {x!r}")
                )
            return x

        texts = {key: data[key] for key in ("method", "alternative")}
        for key, text in texts.items():
            if not isinstance(text, str):
                raise TypeError(
                    ERR_NULL_RECORD.format(problem=f"{key}: expected a string, got {text!r}")
                )
        quantiles = data["quantiles"]
        if not isinstance(quantiles, Mapping):
            raise TypeError(
                ERR_NULL_RECORD.format(problem=f"quantiles: expected an object, got {quantiles!r}")
            )
        return cls(
            method=texts["method"],
            alternative=texts["alternative"],
            n_perm=count("n_perm"),
            n_valid=count("n_valid"),
            mean=number("mean", data["mean"]),
            sd=number("sd", data["sd"]),
            quantiles={str(k): number(f"quantiles[{k!r}]", v) for k, v in quantiles.items()},
        )

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self.to_dict() == other.to_dict()  # NaN equal to NaN (both None)

    __hash__ = None  # type: ignore[assignment]

    def quantile(self, q: float) -> float:
        """The stored quantile ``q`` (one of :data:`NULL_QUANTILES`)."""
        key = f"{float(q):g}"
        if key not in self.quantiles:  # noqa: SIM118
            raise ValueError(ERR_QUANTILE.format(choices=", ".join(self.quantiles), got=q))
        return self.quantiles[key]

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe (undefined numbers as ``None``)."""

        def number(x: float) -> float | None:
            return float(x) if math.isfinite(x) else None

        return {
            "method": self.method,
            "alternative": self.alternative,
            "n_perm": int(self.n_perm),
            "n_valid": int(self.n_valid),
            "mean": number(self.mean),
            "sd": number(self.sd),
            "quantiles": {k: number(v) for k, v in self.quantiles.items()},
        }

    def __repr__(self) -> str:
        low, high = self.quantiles.get("0.025", math.nan), self.quantiles.get("0.975", math.nan)
        return (
            f"NullDistribution({self.method}, n_perm={self.n_perm}: mean {self.mean:+.4f}, "
            f"95% of draws in [{low:+.4f}, {high:+.4f}])"
        )


def null_distribution(values: Any, *, method: str, alternative: str) -> NullDistribution:
    """Summarise the null values of ``n_perm`` draws (NaN left out).

    Examples
    --------
    >>> import numpy as np
    >>> from biasamp.results._significance import null_distribution
    >>> null = null_distribution(np.arange(11.0), method="paired-swap",
    ...                          alternative="greater")
    >>> null.mean, null.quantiles["0.5"], null.quantiles["0.975"], null.n_valid
    (5.0, 5.0, 9.75, 11)
    """
    if alternative not in ALTERNATIVES:
        raise ValueError(ERR_ALTERNATIVE.format(choices=", ".join(ALTERNATIVES), got=alternative))
    flat = np.asarray(values, dtype=np.float64).reshape(-1)
    finite = flat[np.isfinite(flat)]
    if finite.size:
        qs = np.quantile(finite, NULL_QUANTILES)
        mean = float(finite.mean())
        sd = float(finite.std(ddof=1)) if finite.size > 1 else math.nan
    else:
        qs, mean, sd = np.full(len(NULL_QUANTILES), np.nan), math.nan, math.nan
    return NullDistribution(
        method=method,
        alternative=alternative,
        n_perm=int(flat.size),
        n_valid=int(finite.size),
        mean=mean,
        sd=sd,
        quantiles={f"{q:g}": float(v) for q, v in zip(NULL_QUANTILES, qs, strict=True)},
    )


def with_significance(
    result: Any, null_values: Any, *, method: str, alternative: str, observed: float | None = None
) -> Any:
    """A copy of a (dataclass) result with ``p_value`` and ``null`` from ``null_values``;
    ``observed`` defaults to ``result.value``."""
    value = float(result.value if observed is None else observed)
    null = null_distribution(null_values, method=method, alternative=alternative)
    p = permutation_p_value(value, null_values, alternative=alternative)
    return dataclasses.replace(result, p_value=p, null=null)


def format_p_value(p: float) -> str:
    """``p`` with two significant digits and no exponent (``"0.003"``, ``"0.41"``).

    Examples
    --------
    >>> from biasamp.results._significance import format_p_value
    >>> format_p_value(0.00299), format_p_value(0.41), format_p_value(1.0)
    ('0.003', '0.41', '1')
    """
    if not math.isfinite(p):
        return "undefined"
    return np.format_float_positional(float(f"{p:.2g}"), trim="-")


def chance_text(p_value: float | None, *, level: float = SIGNIFICANCE_LEVEL) -> str | None:
    """The p-value in words: ``"distinguishable from chance: p = 0.003"`` when
    ``p <= level``, ``"not distinguishable from chance: p = 0.41"`` otherwise
    (``None`` when no test was run).

    Examples
    --------
    >>> from biasamp.results._significance import chance_text
    >>> chance_text(0.003), chance_text(0.41)
    ('distinguishable from chance: p = 0.003', 'not distinguishable from chance: p = 0.41')
    """
    if p_value is None:
        return None
    if not math.isfinite(p_value):
        return "significance against chance undefined (the metric is undefined)"
    words = "distinguishable" if p_value <= level else "not distinguishable"
    return f"{words} from chance: p = {format_p_value(p_value)}"
