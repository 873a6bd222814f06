"""File paths given to biasamp: one check of their type and of their existence.

An input file that does not exist is an input problem like any other: a
``ValueError`` whose message names the file (:class:`MissingFileError`, also a
``FileNotFoundError`` for code that catches those). A path of another type is a
``TypeError``: in particular an integer, which :func:`open` would read as a file
descriptor (``open(2)`` is the process's standard error).
"""

from __future__ import annotations

import os
from typing import Any

__all__ = [
    "ERR_NO_SUCH_FILE",
    "ERR_NOT_A_FILE",
    "ERR_PATH_TYPE",
    "MissingFileError",
    "checked_path",
]

ERR_NO_SUCH_FILE = "{path}: no such file."
ERR_NOT_A_FILE = "{path}: not a file (a directory?)."
ERR_PATH_TYPE = "{arg}: expected a file path (str or os.PathLike), got {type_name}."


class MissingFileError(ValueError, FileNotFoundError):
    """An input file that does not exist: a ``ValueError`` naming the file, as every other
    input problem, and a ``FileNotFoundError`` for code that catches those."""


def checked_path(path: Any, *, arg: str = "path", must_exist: bool = True) -> str:
    """``path`` as a str, checked to be a path (not an int, which :func:`open` would take
    for a file descriptor) and, with ``must_exist``, a file that exists.

    Raises
    ------
    TypeError
        ``path`` is not a str or an ``os.PathLike``.
    MissingFileError
        The file does not exist.
    ValueError
        ``path`` names a directory.
    """
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(ERR_PATH_TYPE.format(arg=arg, type_name=type(path).__name__))
    text = os.fspath(path)
    if not isinstance(text, str):  # a bytes path
        raise TypeError(ERR_PATH_TYPE.format(arg=arg, type_name=type(text).__name__))
    if must_exist:
        if os.path.isdir(text):
            raise ValueError(ERR_NOT_A_FILE.format(path=text))
        if not os.path.exists(text):
            raise MissingFileError(ERR_NO_SUCH_FILE.format(path=text))
    return text
