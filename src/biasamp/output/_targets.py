"""Output targets: where a file will be written, checked before any work is done.

:func:`check_output` resolves an output path the way a careful Unix tool does
and refuses, with a message naming the path and the problem, every target that
the atomic writer (:mod:`biasamp.output._atomic`) could not replace safely:

* ``-`` is standard output (no file is created);
* a symbolic link is followed: the file it points to is replaced atomically and
  the link stays (``sponge`` writes through a link, not atomically; ``install``
  and ``rsync`` replace the link with a file);
* an existing target must be a regular file the user may write
  (:func:`os.access`): directories, devices, FIFOs and sockets are refused, and
  so is a read-only file (``install``, ``rsync`` and ``sponge`` replace it, since
  renaming needs only the directory to be writable; biasamp takes the file's mode
  as its owner's wish, as ``cp`` does);
* the target's directory must exist and be writable, since the new file is
  written beside the target and renamed over it;
* an output may not be one of the command's inputs (same file, through any
  path, hard link or symbolic link) nor another output of the same command.

The last rule is the one every writer of biasamp keeps, on the command line and in
the library alike: the commands give their input options, and the library's writers
(``result.save``, ``AuditResult.save``, ``write_report``, ``save_counts``) give the
files the object was computed from, which it remembers
(:func:`remember_input_files`, :func:`input_files_of`). An output that is an input is
an :class:`OutputIsInputError`, both an :class:`OutputError` (an ``OSError``, as the
other output problems) and a ``ValueError`` naming the argument and the input.

The mode a new file gets is recorded here too: an existing target keeps its
permission bits, a new one gets ``0o666`` minus the umask, as ``open()`` would
give it.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "STDOUT",
    "OutputError",
    "OutputIsInputError",
    "OutputTarget",
    "check_output",
    "check_outputs",
    "check_written_output",
    "input_files_of",
    "remember_input_files",
    "umask",
]

#: The output path that means standard output.
STDOUT = "-"

ERR_OUTPUT_KIND = "{file}: cannot write the output: it is {kind}, not a regular file."
ERR_OUTPUT_READ_ONLY = (
    "{file}: cannot write the output: the file is not writable by you (mode {mode}); "
    "change its mode or choose another path."
)
ERR_OUTPUT_FOLDER = "{file}: cannot write the output: the folder {folder!r} does not exist."
ERR_OUTPUT_FOLDER_KIND = "{file}: cannot write the output: {folder!r} is not a folder."
ERR_OUTPUT_FOLDER_READ_ONLY = (
    "{file}: cannot write the output: the folder {folder!r} is not writable by you (the file "
    "is written beside its target and renamed over it)."
)
ERR_OUTPUT_IS_INPUT = (
    "{file}: the output {option} is the input {input_option} ({input}); refusing to overwrite "
    "an input."
)
ERR_OUTPUT_TWICE = "{file}: the outputs {first} and {second} are the same file; give two paths."
ERR_OUTPUT_EMPTY = "{option}: expected a file path or '-' (standard output), got ''."


class OutputError(OSError):
    """An output path that cannot be written safely; raised before any work is done."""

    def __str__(self) -> str:  # OSError would prefix "[Errno ...]" when given two args
        return str(self.args[0]) if self.args else ""


class WrittenOutputError(OutputError, ValueError):
    """An output path a library function cannot write (empty, a directory, a device, a
    read-only file): an :class:`OutputError` for the command line and a ``ValueError``
    for library callers, naming the argument."""


class OutputIsInputError(WrittenOutputError):
    """An output that is one of the inputs: refused before anything is written.

    An :class:`OutputError` for the command line (exit code 2, as every other output
    problem) and a ``ValueError`` for library callers, as every other bad argument;
    the message names the argument (or option) and the input it would overwrite.
    """


_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISSOCK, "a socket"),
)


def umask() -> int:
    """The process's umask, read without changing it where the system allows."""
    try:  # Linux >= 4.7: no window in which another thread sees umask 0
        with open("/proc/self/status", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


@dataclass(frozen=True)
class OutputTarget:
    """A checked output: the path as given, the file that will be replaced, its mode.

    ``path`` is the path the user gave (for messages), ``file`` the resolved
    path (symbolic links followed; ``None`` for standard output), ``mode`` the
    permission bits the written file gets, ``exists`` whether a file is
    replaced.
    """

    path: str
    file: Path | None
    mode: int
    exists: bool
    uid: int | None = None
    gid: int | None = None

    @property
    def stdout(self) -> bool:
        return self.file is None


def _kind(mode: int) -> str | None:
    for test, kind in _KINDS:
        if test(mode):
            return kind
    return None if stat.S_ISREG(mode) else "not a regular file"


def check_output(path: str | os.PathLike[str], *, option: str = "output") -> OutputTarget:
    """Resolve and check one output path (see the module docs); raise :class:`OutputError`.

    Examples
    --------
    >>> import os, tempfile
    >>> from biasamp.output._targets import check_output
    >>> folder = tempfile.mkdtemp()
    >>> check_output(folder)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    biasamp.output._targets.OutputError: ...: cannot write the output: it is a directory, not a regular file.
    >>> check_output("-").stdout
    True
    """
    text = os.fspath(path)
    if text == "":
        raise OutputError(ERR_OUTPUT_EMPTY.format(option=option))
    if text == STDOUT:
        return OutputTarget(path=text, file=None, mode=0, exists=False)
    resolved = Path(os.path.realpath(text))
    try:
        info = os.stat(resolved)
    except FileNotFoundError:
        info = None
    except NotADirectoryError as exc:
        raise OutputError(
            ERR_OUTPUT_FOLDER_KIND.format(file=text, folder=str(resolved.parent))
        ) from exc
    if info is not None:
        kind = _kind(info.st_mode)
        if kind is not None:
            raise OutputError(ERR_OUTPUT_KIND.format(file=text, kind=kind))
        if not os.access(resolved, os.W_OK):
            raise OutputError(
                ERR_OUTPUT_READ_ONLY.format(file=text, mode=oct(stat.S_IMODE(info.st_mode)))
            )
    folder = resolved.parent
    if not folder.exists():
        raise OutputError(ERR_OUTPUT_FOLDER.format(file=text, folder=str(folder)))
    if not folder.is_dir():
        raise OutputError(ERR_OUTPUT_FOLDER_KIND.format(file=text, folder=str(folder)))
    if not os.access(folder, os.W_OK | os.X_OK):
        raise OutputError(ERR_OUTPUT_FOLDER_READ_ONLY.format(file=text, folder=str(folder)))
    if info is None:
        return OutputTarget(path=text, file=resolved, mode=0o666 & ~umask(), exists=False)
    return OutputTarget(
        path=text,
        file=resolved,
        mode=stat.S_IMODE(info.st_mode) & 0o777,  # no set-id bits on a data file
        exists=True,
        uid=info.st_uid,
        gid=info.st_gid,
    )


def _same_file(a: Path, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def check_outputs(
    outputs: Sequence[tuple[str, str | os.PathLike[str] | None]],
    *,
    inputs: Iterable[tuple[str, str | os.PathLike[str] | None]] = (),
) -> list[OutputTarget]:
    """Check every output of a command before it starts (see the module docs).

    Parameters
    ----------
    outputs : sequence of (option, path)
        The command's outputs, e.g. ``[("--json", "a.json"), ("--html", "b.html")]``;
        ``None`` paths (options not given) are skipped.
    inputs : iterable of (option, path)
        The command's input files; an output may not be one of them.

    Returns
    -------
    list of OutputTarget
        One per given output, in order.
    """
    given = [(option, path) for option, path in outputs if path is not None]
    targets = [check_output(path, option=option) for option, path in given]
    input_list = [(option, os.fspath(path)) for option, path in inputs if path is not None]
    seen: list[tuple[str, OutputTarget]] = []
    for (option, _), target in zip(given, targets, strict=True):
        if target.file is not None and target.exists:
            for input_option, input_path in input_list:
                if _same_file(target.file, input_path):
                    raise OutputIsInputError(
                        ERR_OUTPUT_IS_INPUT.format(
                            file=target.path,
                            option=option,
                            input_option=input_option,
                            input=input_path,
                        )
                    )
        for other_option, other in seen:
            same = (other.stdout and target.stdout) or (
                other.file is not None and other.file == target.file
            )
            if same:
                raise OutputError(
                    ERR_OUTPUT_TWICE.format(file=target.path, first=other_option, second=option)
                )
        seen.append((option, target))
    return targets


#: Where an object (a result, a count table) keeps the input files it was computed from.
_INPUT_FILES = "_biasamp_input_files"


def remember_input_files(
    obj: object, files: Iterable[tuple[str, str | os.PathLike[str] | None]]
) -> None:
    """Record on ``obj`` the files it was computed from, as ``(argument, path)`` pairs
    (``None`` paths are skipped), so that no writer replaces them with ``obj``'s output.

    The record is an attribute outside the object's fields: it takes no part in
    ``==``, in ``to_dict()`` or in a saved file.
    """
    known = list(getattr(obj, "__dict__", {}).get(_INPUT_FILES, ()))
    for argument, path in files:
        if path is not None and (argument, os.fspath(path)) not in known:
            known.append((argument, os.fspath(path)))
    try:
        vars(obj)[_INPUT_FILES] = tuple(known)
    except TypeError:  # pragma: no cover - an object without a __dict__ keeps no record
        pass


def input_files_of(obj: object) -> tuple[tuple[str, str], ...]:
    """The ``(argument, path)`` input files ``obj`` was computed from (its own
    ``input_files`` when it defines them, as an audit does, else the remembered ones)."""
    own = getattr(type(obj), "input_files", None)
    if isinstance(own, property):
        return tuple(obj.input_files)  # type: ignore[attr-defined]
    return tuple(getattr(obj, "__dict__", {}).get(_INPUT_FILES, ()))


def check_written_output(
    path: str | os.PathLike[str],
    *,
    argument: str = "path",
    inputs: Iterable[tuple[str, str | os.PathLike[str] | None]] = (),
) -> OutputTarget:
    """The check of one file a library function writes: :func:`check_outputs` with the
    argument's name, so that the library refuses what the command line refuses.

    Examples
    --------
    >>> import os, pathlib, tempfile
    >>> from biasamp.output._targets import check_written_output
    >>> data = os.path.join(tempfile.mkdtemp(), "data.csv")
    >>> _ = pathlib.Path(data).write_text("a,b\\n")
    >>> check_written_output(data, argument="path", inputs=[("data", data)])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    biasamp.output._targets.OutputIsInputError: ...data.csv: the output path is the input data (...data.csv); refusing to overwrite an input.
    """
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(ERR_OUTPUT_PATH_TYPE.format(argument=argument, got=type(path).__name__))
    try:
        return check_outputs([(argument, path)], inputs=inputs)[0]
    except OutputError as exc:
        if isinstance(exc, ValueError):
            raise
        raise WrittenOutputError(str(exc)) from exc


ERR_OUTPUT_PATH_TYPE = "{argument}: expected a file path (str or os.PathLike), got {got}."
