"""Atomic output files: write a temporary file beside the target, then rename it.

A run interrupted halfway (an exception, Ctrl-C, ``kill``, a killed worker)
leaves either the previous file or the new one at the target path, never a
half-written one: ``os.replace`` is atomic on POSIX and Windows when source and
target are on the same file system, which a temporary file in the target's
own directory guarantees. The rules (see ``docs/cli.md``, "Output files"):

* the target is checked first (:func:`biasamp.output._targets.check_output`):
  symbolic links are followed, only a regular file the user may write is
  replaced, ``-`` is standard output;
* the new file gets the mode of the file it replaces (and its owner and group
  where the system allows), or ``0o666`` minus the umask for a new file;
* the temporary file, ``.{name}.biasamp-{host}-{pid}-{random}.tmp``, is removed
  on every exception and on SIGTERM, SIGINT and SIGHUP (whose default action
  would kill the process without cleaning up); a run killed by a signal that
  cannot be caught (SIGKILL, a power cut) leaves it behind, and the next run
  writing the same target removes it once the process that wrote it is gone;
* several files (``report --json a --html b``) are written by an
  :class:`OutputBatch`: every temporary file is written and synced first, then
  they are renamed back to back with SIGTERM, SIGINT and SIGHUP held until the
  last rename. Only an uncatchable kill between two renames (a window of one
  system call) leaves the files renamed so far new and the others old, with
  the temporaries of the others beside them. Files are renamed in the order
  they were opened, so the file opened last is the commit marker: when it is
  new, every file is.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import io
import os
import secrets
import signal
import socket
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from types import FrameType
from typing import IO, Any

from ._targets import OutputError, OutputTarget, check_output

__all__ = ["OutputBatch", "atomic_output"]

ERR_ATOMIC_MODE = "mode: expected 'w' or 'wb', got {got!r}."
ERR_ATOMIC_TARGET = "{file}: cannot write the file ({detail})."
ERR_BATCH_DONE = "the output batch is already committed or aborted."

#: Test hook: called as ``hook(index, target)`` just before the ``index``-th rename
#: of a batch (fault injection: the tests kill the process there).
_before_replace: Callable[[int, OutputTarget], None] | None = None

#: Test hook: called as ``hook(target)`` right after a temporary file is created, with the
#: signals held (the tests send SIGINT there).
_after_create: Callable[[OutputTarget], None] | None = None

#: Errors of a write that fails for want of space: reported with the output's name.
_WRITE_FAILURES = frozenset(
    getattr(errno, name) for name in ("ENOSPC", "EDQUOT", "EFBIG", "EIO") if hasattr(errno, name)
)

_CAUGHT_SIGNALS = tuple(
    getattr(signal, name) for name in ("SIGTERM", "SIGINT", "SIGHUP") if hasattr(signal, name)
)
_TEMP_TAG = ".biasamp-"
_MAX_NAME_BYTES = 200  # leaves room for the tag in a 255-byte file name


# --- temporary file names and stale ones ---------------------------------------------


def _host_tag() -> str:
    return hashlib.sha256(socket.gethostname().encode("utf-8", "replace")).hexdigest()[:8]


def _name_prefix(target: Path) -> str:
    """``.{name}`` cut to at most 200 UTF-8 bytes (on a character boundary)."""
    name = target.name.encode("utf-8", "surrogateescape")[:_MAX_NAME_BYTES]
    return "." + name.decode("utf-8", "ignore") + _TEMP_TAG


def _temp_path(target: Path) -> Path:
    token = secrets.token_hex(4)
    return target.with_name(f"{_name_prefix(target)}{_host_tag()}-{os.getpid()}-{token}.tmp")


def _process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # EPERM: alive, another user's
        return True
    return True


def remove_stale_temporaries(target: Path) -> list[Path]:
    """Remove temporaries of ``target`` left by runs of this host whose process is gone.

    Returns the removed paths. Only POSIX systems can tell a dead process
    from a live one safely; elsewhere nothing is removed.
    """
    if os.name != "posix":  # pragma: no cover - os.kill(pid, 0) is not a probe on Windows
        return []
    prefix = _name_prefix(target) + _host_tag() + "-"
    removed = []
    try:
        entries = list(os.scandir(target.parent))
    except OSError:
        return []
    for entry in entries:
        name = entry.name
        if not (name.startswith(prefix) and name.endswith(".tmp")):
            continue
        pid_text = name[len(prefix) :].split("-", 1)[0]
        if not pid_text.isdigit():
            continue
        pid = int(pid_text)
        if pid == os.getpid() or _process_alive(pid):
            continue
        with contextlib.suppress(FileNotFoundError):
            os.unlink(entry.path)
            removed.append(Path(entry.path))
    return removed


# --- signals ------------------------------------------------------------------------

_ACTIVE: set[str] = set()  # temporaries alive in this process
_INSTALLED: dict[int, Any] = {}  # signal -> the handler ours replaced
_GUARDS = 0
_LOCK = threading.Lock()


def _on_signal(signum: int, frame: FrameType | None) -> None:
    """Remove the live temporaries, then die of the signal as the default action would."""
    for name in list(_ACTIVE):
        with contextlib.suppress(OSError):
            os.unlink(name)
    _ACTIVE.clear()
    for sig, previous in list(_INSTALLED.items()):
        with contextlib.suppress(ValueError, OSError):
            signal.signal(sig, previous)
    _INSTALLED.clear()
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)


@contextlib.contextmanager
def _signal_guard() -> Iterator[None]:
    """Install :func:`_on_signal` for the caught signals whose action is the default one.

    Signals with a Python handler (SIGINT raises KeyboardInterrupt) already
    unwind through the writer's cleanup; ignored signals stay ignored. Only the
    main thread may set handlers; elsewhere the guard does nothing.
    """
    global _GUARDS
    main = threading.current_thread() is threading.main_thread()
    with _LOCK:
        if main and _GUARDS == 0:
            for sig in _CAUGHT_SIGNALS:
                with contextlib.suppress(ValueError, OSError):
                    if signal.getsignal(sig) is signal.SIG_DFL:
                        _INSTALLED[sig] = signal.signal(sig, _on_signal)
        _GUARDS += 1
    try:
        yield
    finally:
        with _LOCK:
            _GUARDS -= 1
            if _GUARDS == 0:
                for sig, previous in list(_INSTALLED.items()):
                    with contextlib.suppress(ValueError, OSError):
                        if signal.getsignal(sig) is _on_signal:
                            signal.signal(sig, previous)
                _INSTALLED.clear()


@contextlib.contextmanager
def _signals_held() -> Iterator[None]:
    """Hold SIGTERM, SIGINT and SIGHUP (delivered on exit) where the system allows it."""
    if not hasattr(signal, "pthread_sigmask"):  # pragma: no cover - Windows
        yield
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, _CAUGHT_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def _is_write_failure(exc: OSError) -> bool:
    """A failed write to the temporary file (full disk, quota, size limit), not an input error."""
    return (
        not isinstance(exc, OutputError) and exc.filename is None and exc.errno in _WRITE_FAILURES
    )


def _fsync_folder(folder: Path) -> None:
    if os.name != "posix":  # pragma: no cover
        return
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


# --- the writer ---------------------------------------------------------------------


class _Staged:
    """One written, synced temporary file waiting for its rename."""

    def __init__(self, target: OutputTarget, temp: Path | None) -> None:
        self.target = target
        self.temp = temp


def _stdout_handle(mode: str, open_kwargs: dict[str, Any]) -> tuple[IO[Any], Callable[[], None]]:
    """A handle on standard output and the function that releases it."""
    with contextlib.suppress(AttributeError, ValueError, OSError):
        sys.stdout.flush()
    buffer = getattr(sys.stdout, "buffer", None)
    if mode == "wb":
        if buffer is None:  # pragma: no cover - a text-only replacement of sys.stdout
            raise OutputError(ERR_ATOMIC_TARGET.format(file="-", detail="stdout is text-only"))
        return buffer, buffer.flush
    if buffer is None:
        return sys.stdout, sys.stdout.flush
    wrapper = io.TextIOWrapper(
        buffer,
        encoding=open_kwargs.get("encoding") or "utf-8",
        errors=open_kwargs.get("errors"),
        newline=open_kwargs.get("newline"),
        write_through=True,
    )

    def release() -> None:
        wrapper.flush()
        wrapper.detach()
        buffer.flush()

    return wrapper, release


class OutputBatch:
    """Write several output files together: prepare every temporary, then rename back to back.

    Use as a context manager; open each output with :meth:`open`. The files
    are renamed into place when the ``with`` block ends without an exception
    and in the order they were opened; on an exception every temporary file is
    removed and no target is touched.

    Examples
    --------
    >>> import os, tempfile
    >>> from biasamp.output._atomic import OutputBatch
    >>> folder = tempfile.mkdtemp()
    >>> a, b = os.path.join(folder, "a.json"), os.path.join(folder, "b.html")
    >>> with OutputBatch() as batch:
    ...     with batch.open(a, "w", encoding="utf-8") as handle:
    ...         _ = handle.write("{}")
    ...     with batch.open(b, "w", encoding="utf-8") as handle:
    ...         _ = handle.write("<p>")
    >>> sorted(os.listdir(folder))
    ['a.json', 'b.html']
    """

    def __init__(self) -> None:
        self._staged: list[_Staged] = []
        self._guard: contextlib.ExitStack | None = None
        self._done = False

    def __enter__(self) -> OutputBatch:
        self._guard = contextlib.ExitStack()
        self._guard.enter_context(_signal_guard())
        return self

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        try:
            if exc_type is None:
                self.commit()
            else:
                self.abort()
        finally:
            if self._guard is not None:
                self._guard.close()

    @contextlib.contextmanager
    def open(
        self, path: str | os.PathLike[str] | OutputTarget, mode: str = "wb", **open_kwargs: Any
    ) -> Iterator[IO[Any]]:
        """Open the temporary file of one output (``mode`` ``"w"`` or ``"wb"``)."""
        if self._done:
            raise RuntimeError(ERR_BATCH_DONE)
        if mode not in ("w", "wb"):
            raise ValueError(ERR_ATOMIC_MODE.format(got=mode))
        # checked again (a target checked before a long computation may have changed since)
        target = check_output(path.path if isinstance(path, OutputTarget) else path)
        if target.file is None:
            handle, release = _stdout_handle(mode, open_kwargs)
            try:
                yield handle
            finally:
                release()
            return
        remove_stale_temporaries(target.file)
        staged = _Staged(target, None)
        try:
            # a KeyboardInterrupt (SIGINT) between creating the temporary and recording
            # it would leave it behind: the signals wait until it is recorded, inside
            # the try block whose handler removes it
            with _signals_held():
                fd = self._create(staged, _temp_path(target.file))
            with os.fdopen(fd, mode, **open_kwargs) as handle:
                yield handle
                handle.flush()
                if target.exists and target.uid is not None:
                    with contextlib.suppress(OSError):  # only root may give a file away
                        os.fchown(handle.fileno(), target.uid, target.gid or -1)
                if hasattr(os, "fchmod"):
                    os.fchmod(handle.fileno(), target.mode)
                os.fsync(handle.fileno())
        except BaseException as exc:
            self._discard(staged)
            if isinstance(exc, OSError) and _is_write_failure(exc):
                # a full disk or quota: the system's message names no file
                raise OutputError(
                    ERR_ATOMIC_TARGET.format(file=target.path, detail=exc.strerror or str(exc))
                ) from exc
            raise
        self._staged.append(staged)

    @staticmethod
    def _create(staged: _Staged, temp: Path) -> int:
        """Record ``temp`` for the cleanup, then create it exclusively (signals held).

        Recorded first: holding the signals holds them for this thread only, and a
        signal another thread receives runs its Python handler in this one between
        any two instructions, so the file must be known to the cleanup (SIGTERM's
        and SIGHUP's handler, SIGINT's ``except``) before it exists. Its random name
        is this process's alone, so removing it before it exists removes nothing.
        """
        staged.temp = temp
        _ACTIVE.add(str(temp))
        try:
            fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0))
        except OSError as exc:  # the folder vanished or filled up since the check
            _ACTIVE.discard(str(temp))
            staged.temp = None
            raise OutputError(
                ERR_ATOMIC_TARGET.format(file=staged.target.path, detail=exc.strerror or str(exc))
            ) from exc
        if _after_create is not None:
            _after_create(staged.target)
        return fd

    def _discard(self, staged: _Staged) -> None:
        if staged.temp is not None:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(staged.temp)
            _ACTIVE.discard(str(staged.temp))

    def commit(self) -> list[Path]:
        """Rename every temporary file onto its target, back to back; return the targets."""
        if self._done:
            raise RuntimeError(ERR_BATCH_DONE)
        self._done = True
        replaced: list[Path] = []
        try:
            with _signals_held():
                for index, staged in enumerate(self._staged):
                    assert staged.temp is not None and staged.target.file is not None
                    if _before_replace is not None:
                        _before_replace(index, staged.target)
                    os.replace(staged.temp, staged.target.file)
                    _ACTIVE.discard(str(staged.temp))
                    staged.temp = None
                    replaced.append(staged.target.file)
        except BaseException:
            self.abort()
            raise
        for folder in dict.fromkeys(path.parent for path in replaced):
            _fsync_folder(folder)
        return replaced

    def abort(self) -> None:
        """Remove every temporary file not yet renamed."""
        self._done = True
        for staged in self._staged:
            self._discard(staged)
        self._staged = []


@contextlib.contextmanager
def atomic_output(
    path: str | os.PathLike[str] | OutputTarget, mode: str = "wb", **open_kwargs: Any
) -> Iterator[IO[Any]]:
    """Open a temporary file next to ``path``; rename it to ``path`` only on success.

    Parameters
    ----------
    path : str or path-like
        The final output file; ``"-"`` is standard output. A symbolic link is
        followed (the file it points to is replaced). Directories, devices,
        FIFOs, sockets and files you may not write are refused with an
        ``OSError`` before anything is written.
    mode : {"wb", "w"}, default "wb"
        Binary or text mode.
    **open_kwargs
        Passed to :func:`open` (for example ``encoding="utf-8"``).

    Yields
    ------
    file object
        Write to it; when the ``with`` block raises (or SIGTERM, SIGINT or
        SIGHUP arrive), the temporary file is removed and ``path`` is left
        untouched. The new file keeps the mode of the file it replaces, or gets
        ``0o666`` minus the umask.

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
    with OutputBatch() as batch, batch.open(path, mode, **open_kwargs) as handle:
        yield handle
