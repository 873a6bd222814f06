"""Single-threaded BLAS for the small, memory-bound products of the count tables.

The count tables' products are ``(|G|, n) @ (n, |T|)`` with few groups: memory
bound, so BLAS threads gain nothing, and on a machine with more runnable
processes than cores OpenBLAS's spinning threads make them 10-100x slower
(measured: 32 s instead of 0.3 s for the crossproducts of a 500k-row CSV on a
loaded 2-core machine). :func:`single_threaded_blas` limits BLAS to one thread
for a block, through ``threadpoolctl`` (a scikit-learn dependency), and is a
no-op when threadpoolctl is unavailable.

One limit per call: the BLAS libraries are found once per process (threadpoolctl's
search of the loaded libraries costs more than the products of a small call), a
block sets and restores their thread counts directly (about a microsecond each),
and a block inside another one changes nothing.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from typing import Any

__all__ = ["single_threaded_blas"]

_CONTROLLERS: list[list[Any]] = []
_DEPTH = [0]  # blocks open now, in any thread (the BLAS setting is per process)
_LOCK = threading.Lock()
_SAVED: list[tuple[Any, int]] = []  # each BLAS library's thread count before the block


def _blas_controllers() -> list[Any]:
    """threadpoolctl's controllers of the BLAS libraries loaded (found once)."""
    if not _CONTROLLERS:
        try:
            from threadpoolctl import ThreadpoolController

            found = ThreadpoolController().lib_controllers
            _CONTROLLERS.append([c for c in found if c.user_api == "blas"])
        except (ImportError, AttributeError):  # threadpoolctl < 3 has no controller
            _CONTROLLERS.append([])
    return _CONTROLLERS[0]


@contextlib.contextmanager
def single_threaded_blas() -> Iterator[None]:
    """Run the block with one BLAS thread (restored afterwards); nested blocks are free."""
    with _LOCK:
        if _DEPTH[0] == 0:
            controllers = _blas_controllers()
            _SAVED[:] = [(c, c.num_threads) for c in controllers]
            for controller, threads in _SAVED:
                if threads != 1:
                    controller.set_num_threads(1)
        _DEPTH[0] += 1
    try:
        yield
    finally:
        with _LOCK:
            _DEPTH[0] -= 1
            if _DEPTH[0] == 0:
                for controller, threads in _SAVED:
                    if threads != 1:
                        controller.set_num_threads(threads)
                _SAVED.clear()
