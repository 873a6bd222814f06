"""Inputs that are not arrays in memory, and the engine that counts them.

The adapter layer recognises a distributed collection (today: a Dask DataFrame,
Series or Array) without importing its library, and the count table asks this
registry for the function that counts it. Engines (:mod:`biasamp.engines`)
register those functions when they are imported, so the count table never
imports an engine and dependencies point one way::

    inputs  <-  counts  <-  engines   (engines register here, counts look up here)
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

__all__ = [
    "ERR_NO_ENGINE",
    "any_dask_collection",
    "collection_kind",
    "counter_for",
    "is_dask_collection",
    "register_counter",
]

ERR_NO_ENGINE = (
    "kind: no engine is registered to count {kind!r} inputs (registered: {known}); "
    "import biasamp.engines first."
)

ERR_KIND = "kind: expected the name of a kind of collection (a non-empty str), got {got!r}."
ERR_COUNTER = "counter: expected a function that counts a collection, got {type_name}."

_COUNTERS: dict[str, Callable[..., Any]] = {}


def is_dask_collection(x: Any) -> bool:
    """True for a Dask collection (DataFrame, Series, Array, ...); never imports dask."""
    if "dask" not in sys.modules or x is None:
        return False
    import dask

    return bool(dask.is_dask_collection(x))


def any_dask_collection(*values: Any) -> bool:
    """True when any of ``values`` is a Dask collection."""
    return any(is_dask_collection(v) for v in values)


def collection_kind(*values: Any) -> str | None:
    """``"dask"`` when any value is a Dask collection, else ``None`` (arrays in memory)."""
    return "dask" if any_dask_collection(*values) else None


def register_counter(kind: str, counter: Callable[..., Any]) -> None:
    """Register the engine function that counts inputs of ``kind`` into a CountTable."""
    if not isinstance(kind, str) or not kind:
        raise TypeError(ERR_KIND.format(got=kind))
    if not callable(counter):
        raise TypeError(ERR_COUNTER.format(type_name=type(counter).__name__))
    _COUNTERS[kind] = counter


def counter_for(kind: str) -> Callable[..., Any]:
    """The registered counting function for ``kind`` (see :func:`register_counter`)."""
    try:
        return _COUNTERS[kind]
    except (KeyError, TypeError):  # TypeError: an unhashable kind
        raise ValueError(ERR_NO_ENGINE.format(kind=kind, known=sorted(_COUNTERS))) from None
