"""Single-threaded BLAS for the small, memory-bound products of the count tables.

The count tables' products are ``(|G|, n) @ (n, |T|)`` with few groups: memory
bound, so BLAS threads gain nothing, and on a machine with more runnable
processes than cores OpenBLAS's spinning threads make them 10-100x slower
(measured: 32 s instead of 0.3 s for the crossproducts of a 500k-row CSV on a
loaded 2-core machine). :func:`single_threaded_blas` limits BLAS to one thread
for a block, through ``threadpoolctl`` (a scikit-learn dependency); it costs a
few microseconds per use and is a no-op when threadpoolctl is unavailable.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

__all__ = ["single_threaded_blas"]

_CONTROLLER: list[Any] = []


def _controller() -> Any:
    if not _CONTROLLER:
        try:
            from threadpoolctl import ThreadpoolController

            _CONTROLLER.append(ThreadpoolController())
        except (ImportError, AttributeError):  # threadpoolctl < 3 has no controller
            _CONTROLLER.append(None)
    return _CONTROLLER[0]


@contextlib.contextmanager
def single_threaded_blas() -> Iterator[None]:
    """Run the block with one BLAS thread (restored afterwards)."""
    controller = _controller()
    if controller is None:
        yield
        return
    with controller.limit(limits=1, user_api="blas"):
        yield
