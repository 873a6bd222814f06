"""Public names of a package loaded when first used, so ``import biasamp`` stays light.

A package's ``__init__`` lists where each public name lives; :func:`lazy_exports` gives it
the module ``__getattr__`` and ``__dir__`` (PEP 562) that import the defining module on the
first access of a name and keep the value in the package, so later accesses are plain
attribute reads. ``import biasamp`` then imports no numerical library; ``biasamp.mals`` (or
``from biasamp import mals``) imports what ``mals`` needs, once. Type checkers read the same
names from ``if TYPE_CHECKING:`` imports in the ``__init__``.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Iterable, Mapping
from typing import Any

__all__ = ["ERR_NO_ATTRIBUTE", "lazy_exports"]

ERR_NO_ATTRIBUTE = "module {module!r} has no attribute {name!r}"


def lazy_exports(
    package: str,
    exports: Mapping[str, Iterable[str]],
    *,
    submodules: Iterable[str] = (),
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``__getattr__`` and ``__dir__`` for ``package`` that load its names on first use.

    Parameters
    ----------
    package : str
        The package's ``__name__``.
    exports : mapping of str to iterable of str
        Defining module (absolute name) -> the public names it defines.
    submodules : iterable of str, optional
        Subpackages reachable as attributes (``biasamp.text``) without importing them first.

    Returns
    -------
    (__getattr__, __dir__)
        Assign both at the package's top level.

    Examples
    --------
    >>> import biasamp
    >>> getattr_, dir_ = lazy_exports("biasamp", {"biasamp.metrics": ["mals"]})
    >>> getattr_("mals") is biasamp.mals
    True
    >>> "mals" in dir_()
    True
    """
    where = {name: module for module, names in exports.items() for name in names}
    subpackages = frozenset(submodules)

    def __getattr__(name: str) -> Any:
        module = where.get(name)
        if module is not None:
            value = getattr(importlib.import_module(module), name)
        elif name in subpackages:
            value = importlib.import_module(f"{package}.{name}")
        else:
            raise AttributeError(ERR_NO_ATTRIBUTE.format(module=package, name=name))
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        return sorted(set(vars(sys.modules[package])) | set(where) | subpackages)

    return __getattr__, __dir__
