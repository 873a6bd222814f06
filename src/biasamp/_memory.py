"""Memory estimates before large allocations.

A call whose arrays would not fit in memory is refused before it allocates,
with an error that names the argument and gives the estimate, instead of a
``MemoryError`` (or the operating system's out-of-memory killer) later on.
"""

from __future__ import annotations

import os

__all__ = ["ALWAYS_FITS", "MEMORY_ERROR", "available_memory", "check_allocation", "format_bytes"]

#: Allocations below this size are not checked: reading the available memory
#: (``/proc/meminfo``) costs more than a small call's whole work, and no machine
#: that runs Python lacks 16 MiB.
ALWAYS_FITS = 16 * 2**20

#: The message of the error raised by :func:`check_allocation`.
MEMORY_ERROR = (
    "{what} would need about {needed} of memory, more than the {available} available "
    "on this machine; {advice}"
)


def format_bytes(n: float) -> str:
    """``n`` bytes as a short human-readable size (``"1.5 GiB"``)."""
    for unit in ("bytes", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if abs(n) < 1024 or unit == "PiB":
            return f"{n:.0f} {unit}" if unit == "bytes" else f"{n:.1f} {unit}"
        n /= 1024
    raise AssertionError("unreachable")  # pragma: no cover


def available_memory() -> int | None:
    """Bytes of physical memory available now, or ``None`` where it cannot be read."""
    try:
        with open("/proc/meminfo", encoding="ascii") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return int(os.sysconf("SC_AVPHYS_PAGES")) * int(os.sysconf("SC_PAGE_SIZE"))
    except (AttributeError, OSError, ValueError):
        return None


def check_allocation(nbytes: float, *, what: str, advice: str) -> None:
    """Raise a ``ValueError`` when ``nbytes`` exceed the memory available now.

    Parameters
    ----------
    nbytes : float
        The estimated size of the allocation, in bytes (a float, so that an
        estimate may exceed any integer type).
    what : str
        What would be allocated, naming the argument that sets its size, e.g.
        ``"n_boot=1000000000 replicate tables of 80 x 2 counts"``.
    advice : str
        How to make the call fit, e.g. ``"use fewer replicates"``.

    Raises
    ------
    ValueError
        When the estimate is larger than the memory available now (estimates
        below :data:`ALWAYS_FITS` are not checked).
    """
    if nbytes < ALWAYS_FITS:
        return
    available = available_memory()
    if available is None or nbytes <= available:
        return
    raise ValueError(
        MEMORY_ERROR.format(
            what=what,
            needed=format_bytes(nbytes),
            available=format_bytes(available),
            advice=advice,
        )
    )
