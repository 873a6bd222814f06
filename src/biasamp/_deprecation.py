"""Old spellings keep working, with a warning that names the new one.

An old keyword (or a keyword passed by position) warns with a :class:`DeprecationWarning`;
an old key of a returned mapping (``dbac_both(...)["A->T"]``, an ``evaluate`` module's
``"bias_amplification"``) with a :class:`FutureWarning`, which Python shows by default,
since the code that reads a result's keys is usually a script or a notebook
(``docs/versioning.md``, "Deprecations").
"""

from __future__ import annotations

import warnings
from typing import Any

__all__ = ["REMOVED_IN", "UNSET", "RenamedKeys", "positional_keywords", "renamed_keyword"]

WARN_RENAMED = (
    "{function}: the keyword {old}= is deprecated; use {new}= (same meaning). "
    "The old spelling will be removed in a future release."
)
WARN_POSITIONAL = (
    "{function}: passing {names} by position is deprecated; pass {keywords} as keyword(s). "
    "Positional use will be removed in a future release."
)
#: The release that removes the spellings deprecated in the coming one (0.3.0): two minor
#: releases later, as ``docs/versioning.md`` says.
REMOVED_IN = "0.5.0"
WARN_RENAMED_KEY = (
    "{where}: the key {old!r} is deprecated; use {new!r} (the same value). "
    "The old key will be removed in {removed}."
)
ERR_BOTH = "{function}: got both {old}= (deprecated) and {new}=; pass only {new}=."
ERR_TOO_MANY = "{function}: takes at most {most} positional argument(s), got {got}."


class _Unset:
    """The default of a deprecated keyword: tells 'not passed' from any value."""

    def __repr__(self) -> str:
        return "<unset>"


UNSET: Any = _Unset()


def renamed_keyword(function: str, *, old: str, old_value: Any, new: str, new_value: Any) -> Any:
    """The value of a renamed keyword: ``new_value`` unless the old spelling was passed.

    ``new_value`` must be :data:`UNSET` when the caller did not pass it.
    """
    if old_value is UNSET:
        return new_value
    warnings.warn(
        WARN_RENAMED.format(function=function, old=old, new=new), DeprecationWarning, stacklevel=3
    )
    if new_value is not UNSET:
        raise TypeError(ERR_BOTH.format(function=function, old=old, new=new))
    return old_value


def positional_keywords(
    function: str, args: tuple[Any, ...], names: tuple[str, ...], given: dict[str, Any]
) -> dict[str, Any]:
    """Map extra positional ``args`` onto the keyword-only ``names`` (with a warning).

    ``given`` holds the keyword values as passed (:data:`UNSET` when not passed);
    returns it updated with the positional values.
    """
    if not args:
        return given
    if len(args) > len(names):
        raise TypeError(
            ERR_TOO_MANY.format(function=function, most=len(names) + 1, got=len(args) + 1)
        )
    used = names[: len(args)]
    warnings.warn(
        WARN_POSITIONAL.format(
            function=function,
            names=", ".join(used),
            keywords=", ".join(f"{n}=" for n in used),
        ),
        DeprecationWarning,
        stacklevel=3,
    )
    out = dict(given)
    for name, value in zip(used, args, strict=True):
        if out.get(name, UNSET) is not UNSET:
            raise TypeError(f"{function}: got multiple values for argument {name!r}.")
        out[name] = value
    return out


class RenamedKeys(dict[Any, Any]):
    """A dict keyed by the new names that still reads its old keys, with a
    :class:`FutureWarning` naming the new key.

    Iterating, ``keys()``, ``len`` and ``==`` see the new keys only; ``d[old]``,
    ``d.get(old)`` and ``old in d`` read the new key's value and warn.

    Examples
    --------
    >>> import warnings
    >>> from biasamp._deprecation import RenamedKeys
    >>> d = RenamedKeys({"dbac-a2t": 1}, renamed={"A->T": "dbac-a2t"}, where="dbac_both",
    ...                 removed="0.5.0")
    >>> list(d)
    ['dbac-a2t']
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     d["A->T"]
    1
    >>> caught[0].category.__name__
    'FutureWarning'
    """

    def __init__(
        self, data: Any = (), *, renamed: dict[Any, Any], where: str, removed: str
    ) -> None:
        super().__init__(data)
        self._renamed, self._where, self._removed = dict(renamed), where, removed

    def _new(self, key: Any) -> Any:
        if dict.__contains__(self, key):
            return key
        try:
            new = self._renamed.get(key)
        except TypeError:  # an unhashable key: dict's own error
            return key
        if new is None:
            return key
        warnings.warn(
            WARN_RENAMED_KEY.format(where=self._where, old=key, new=new, removed=self._removed),
            FutureWarning,
            stacklevel=3,
        )
        return new

    def __getitem__(self, key: Any) -> Any:
        return dict.__getitem__(self, self._new(key))

    def __contains__(self, key: object) -> bool:
        return dict.__contains__(self, self._new(key))

    def get(self, key: Any, default: Any = None) -> Any:
        return dict.get(self, self._new(key), default)

    def __reduce__(self) -> Any:
        return (_renamed_keys, (dict(self), self._renamed, self._where, self._removed))


def _renamed_keys(data: Any, renamed: Any, where: str, removed: str) -> RenamedKeys:
    return RenamedKeys(data, renamed=renamed, where=where, removed=removed)
