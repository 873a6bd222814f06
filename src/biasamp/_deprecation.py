"""Old keyword spellings keep working, with a :class:`DeprecationWarning` that names the new one."""

from __future__ import annotations

import warnings
from typing import Any

__all__ = ["UNSET", "positional_keywords", "renamed_keyword"]

WARN_RENAMED = (
    "{function}: the keyword {old}= is deprecated; use {new}= (same meaning). "
    "The old spelling will be removed in a future release."
)
WARN_POSITIONAL = (
    "{function}: passing {names} by position is deprecated; pass {keywords} as keyword(s). "
    "Positional use will be removed in a future release."
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
