"""Atomic output files: write to a temporary file beside the target, then rename.

A run interrupted halfway (an exception, Ctrl-C, a killed worker) leaves either
the previous file or no file at the target path, never a half-written one:
``os.replace`` is atomic on POSIX and Windows when source and target are on
the same file system, which a sibling temporary file guarantees.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

__all__ = ["atomic_output"]

ERR_ATOMIC_MODE = "mode: expected 'w' or 'wb', got {got!r}."
ERR_ATOMIC_TARGET = "{file}: cannot write the file ({detail})."


@contextlib.contextmanager
def atomic_output(
    path: str | os.PathLike[str], mode: str = "wb", **open_kwargs: Any
) -> Iterator[IO[Any]]:
    """Open a temporary file next to ``path``; rename it to ``path`` only on success.

    Parameters
    ----------
    path : str or path-like
        The final output file.
    mode : {"wb", "w"}, default "wb"
        Binary or text mode.
    **open_kwargs
        Passed to :func:`open` (for example ``encoding="utf-8"``).

    Yields
    ------
    file object
        Write to it; when the ``with`` block raises, the temporary file is
        removed and ``path`` is left untouched.

    Examples
    --------
    >>> import os, tempfile
    >>> from biasamp import atomic_output
    >>> target = os.path.join(tempfile.mkdtemp(), "out.txt")
    >>> with atomic_output(target, "w", encoding="utf-8") as handle:
    ...     _ = handle.write("done")
    >>> with open(target, encoding="utf-8") as handle:
    ...     handle.read()
    'done'
    """
    if mode not in ("w", "wb"):
        raise ValueError(ERR_ATOMIC_MODE.format(got=mode))
    target = Path(path)
    try:
        fd, tmp_name = tempfile.mkstemp(
            prefix=f".{target.name}.",
            suffix=".tmp",
            dir=target.parent if str(target.parent) else ".",
        )
    except OSError as exc:  # name the output, not the temporary file
        detail = exc.strerror or str(exc)
        if isinstance(exc, FileNotFoundError):
            detail = f"the folder {str(target.parent)!r} does not exist"
        raise OSError(ERR_ATOMIC_TARGET.format(file=target, detail=detail)) from exc
    try:
        with os.fdopen(fd, mode, **open_kwargs) as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp_name, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp_name)
        raise
