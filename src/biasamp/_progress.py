"""Optional progress bars for long computations (bootstraps, threshold sweeps).

The library is quiet by default; ``progress=True`` (which the CLI passes)
shows a `rich <https://rich.readthedocs.io>`_ progress bar on stderr.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TypeVar

__all__ = ["progress_iter"]

T = TypeVar("T")


def progress_iter(
    items: Iterable[T],
    *,
    total: int | None = None,
    description: str = "working",
    enabled: bool = False,
) -> Iterator[T]:
    """Yield ``items``, showing a progress bar when ``enabled`` is true.

    Parameters
    ----------
    items : iterable
        What to iterate over.
    total : int, optional
        Number of items, when ``items`` has no ``len``.
    description : str
        Label shown next to the bar.
    enabled : bool, default False
        Show the bar; otherwise this is a plain iteration.
    """
    if not enabled:
        yield from items
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    if total is None and hasattr(items, "__len__"):
        total = len(items)  # type: ignore[arg-type]
    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task(description, total=total)
        for item in items:
            yield item
            bar.advance(task)
