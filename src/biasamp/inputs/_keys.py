"""Names that print alike: one rule for every mapping keyed by labels, models or words.

Label arrays refuse the int 1 and the string ``'1'`` together (:data:`ERR_MIXED_TYPES`
in :mod:`biasamp.inputs._containers`): they would print as one label but count as
two. Mappings keyed by labels, model names or group words (``compare``'s results,
``caption_bias_table``'s models, ``group_words``, ``task_words``, ``render_report``'s
results, a DataFrame's columns) follow the same rule here: every key is shown by its
``str()``, so two different keys whose ``str()`` is the same are refused, never
merged (one silently dropped) or shown twice.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

__all__ = ["ERR_KEY_TWICE", "ERR_KEYS_PRINT_ALIKE", "key_names"]

ERR_KEYS_PRINT_ALIKE = (
    "{arg}: the keys {first!r} ({first_type}) and {second!r} ({second_type}) are different "
    "but print alike as {text!r}, so one would hide the other; rename one of them (for "
    "example make every key a str)."
)
ERR_KEY_TWICE = "{arg}: the key {key!r} appears more than once; every key must be distinct."


def _same(a: Any, b: Any) -> bool:
    try:
        return type(a) is type(b) and bool(a == b)
    except (TypeError, ValueError):  # a key whose == is not a truth value
        return False


def key_names(keys: Iterable[Any], *, arg: str) -> list[str]:
    """The printed name (``str(key)``) of each key, in order, checked to be distinct.

    Parameters
    ----------
    keys : iterable
        The keys of a mapping, or the columns of a DataFrame.
    arg : str
        The argument named by the error.

    Returns
    -------
    list of str
        ``[str(key) for key in keys]``.

    Raises
    ------
    ValueError
        Two different keys print alike (``1`` and ``"1"``, ``True`` and
        ``"True"``), or one key appears twice (the columns of a DataFrame).

    Examples
    --------
    >>> from biasamp.inputs._keys import key_names
    >>> key_names({"a": 1, 2: 3}, arg="results")
    ['a', '2']
    >>> key_names({1: "x", "1": "y"}, arg="results")
    Traceback (most recent call last):
    ...
    ValueError: results: the keys 1 (int) and '1' (str) are different but print alike as '1', ...
    """
    names: list[str] = []
    first_of: dict[str, Any] = {}
    for key in keys:  # a loop over the keys of a mapping (models, labels, words), not rows
        name = str(key)
        if name in first_of:
            first = first_of[name]
            if _same(first, key):
                raise ValueError(ERR_KEY_TWICE.format(arg=arg, key=key))
            raise ValueError(
                ERR_KEYS_PRINT_ALIKE.format(
                    arg=arg,
                    first=first,
                    first_type=type(first).__name__,
                    second=key,
                    second_type=type(key).__name__,
                    text=name,
                )
            )
        first_of[name] = key
        names.append(name)
    return names
