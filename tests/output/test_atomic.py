"""Safe output files (biasamp.output): targets checked first, atomic writes, modes, signals."""

from __future__ import annotations

import contextlib
import errno
import json
import os
import resource
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest

from biasamp import atomic_output
from biasamp.cli.main import EXIT_USAGE, main
from biasamp.output import _atomic
from biasamp.output._atomic import ERR_ATOMIC_TARGET, OutputBatch, remove_stale_temporaries
from biasamp.output._targets import (
    ERR_OUTPUT_FOLDER,
    ERR_OUTPUT_IS_INPUT,
    ERR_OUTPUT_KIND,
    ERR_OUTPUT_READ_ONLY,
    ERR_OUTPUT_TWICE,
    OutputError,
    check_output,
    check_outputs,
)

DATA = "a,b,t,s_a,s_b,s_t\n1,0,1,0.9,0.2,0.6\n0,1,0,0.3,0.8,0.1\n1,0,1,0.7,0.4,0.9\n0,1,1,0.2,0.9,0.8\n"
MEASURE = ["--group-cols", "a,b", "--task-cols", "t", "--pred-prefix", "s_", "--threshold", "0.5"]


def _temporaries(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


def _in_child(body: Callable[[], None]) -> int:
    """Run ``body`` in a forked child; return its raw wait status."""
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        code = 0
        try:
            body()
        except BaseException:
            code = 3
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    return status


@pytest.fixture
def umask_022():
    previous = os.umask(0o022)
    yield
    os.umask(previous)


# --- modes -------------------------------------------------------------------------------


@pytest.mark.parametrize("mask, mode", [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_a_new_file_gets_0666_minus_the_umask(tmp_path, mask, mode):
    previous = os.umask(mask)
    try:
        with atomic_output(tmp_path / "out.json", "w") as handle:
            handle.write("{}")
    finally:
        os.umask(previous)
    assert stat.S_IMODE(os.stat(tmp_path / "out.json").st_mode) == mode


def test_a_replaced_file_keeps_its_mode(tmp_path, umask_022):
    target = tmp_path / "out.json"
    target.write_text("old")
    os.chmod(target, 0o640)
    with atomic_output(target, "w") as handle:
        handle.write("new")
    assert target.read_text() == "new"
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o640


def test_cli_outputs_are_readable_by_the_team_under_umask_022(tmp_path, umask_022, capsys):
    (tmp_path / "val.csv").write_text(DATA)
    out = tmp_path / "res.json"
    assert main(["measure", str(tmp_path / "val.csv"), *MEASURE, "--json", str(out)]) == 0
    assert stat.S_IMODE(os.stat(out).st_mode) == 0o644


# --- targets -------------------------------------------------------------------------------


def test_a_symbolic_link_is_followed_and_stays_a_link(tmp_path):
    real = tmp_path / "real.json"
    real.write_text("old")
    link = tmp_path / "link.json"
    link.symlink_to(real)
    with atomic_output(link, "w") as handle:
        handle.write("new")
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert real.read_text() == "new"


def test_a_dangling_link_creates_its_target(tmp_path):
    link = tmp_path / "link.json"
    link.symlink_to(tmp_path / "made.json")
    with atomic_output(link, "w") as handle:
        handle.write("x")
    assert link.is_symlink() and (tmp_path / "made.json").read_text() == "x"


def test_a_directory_is_refused_before_anything_is_written(tmp_path):
    with pytest.raises(OutputError) as info:
        check_output(tmp_path)
    assert str(info.value) == ERR_OUTPUT_KIND.format(file=tmp_path, kind="a directory")
    with pytest.raises(OutputError):
        with atomic_output(tmp_path, "w") as handle:
            handle.write("x")
    assert _temporaries(tmp_path) == []


def test_a_fifo_is_refused(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(OutputError) as info:
        check_output(fifo)
    assert str(info.value) == ERR_OUTPUT_KIND.format(file=fifo, kind="a FIFO (named pipe)")
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)


def test_a_link_to_a_fifo_is_refused(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    (tmp_path / "link").symlink_to(fifo)
    with pytest.raises(OutputError, match="FIFO"):
        check_output(tmp_path / "link")


def test_a_missing_folder_names_the_output_not_the_temporary_file(tmp_path):
    target = tmp_path / "no_such_dir" / "out.json"
    with pytest.raises(OSError) as info:
        with atomic_output(target, "w", encoding="utf-8") as handle:
            handle.write("x")
    assert str(info.value) == ERR_OUTPUT_FOLDER.format(file=target, folder=str(target.parent))
    assert ".tmp" not in str(info.value)


def _read_only_case(folder: Path) -> None:
    target = folder / "locked.json"
    with pytest.raises(OutputError) as info:
        check_output(target)
    assert str(info.value) == ERR_OUTPUT_READ_ONLY.format(file=target, mode="0o444")
    with pytest.raises(OutputError):
        with atomic_output(target, "w") as handle:
            handle.write("new")
    assert target.read_text() == "old"


def test_a_read_only_file_is_refused(tmp_path):
    """As a user who may write the folder but not the file (a forked child as 'nobody' when
    the tests run as root, whom no mode stops)."""
    if os.geteuid() != 0:
        (tmp_path / "locked.json").write_text("old")
        os.chmod(tmp_path / "locked.json", 0o444)
        _read_only_case(tmp_path)
        return
    folder = Path(tempfile.mkdtemp(dir="/tmp"))
    try:
        nobody = 65534
        os.chmod(folder, 0o755)
        os.chown(folder, nobody, nobody)
        target = folder / "locked.json"
        target.write_text("old")
        os.chown(target, nobody, nobody)
        os.chmod(target, 0o444)

        def as_nobody() -> None:
            os.setgid(nobody)
            os.setuid(nobody)
            _read_only_case(folder)

        status = _in_child(as_nobody)
        assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
        assert target.read_text() == "old"
    finally:
        for path in folder.iterdir():
            path.unlink()
        folder.rmdir()


def test_the_access_check_uses_the_real_permission(tmp_path):
    target = tmp_path / "t.json"
    target.write_text("old")
    os.chmod(target, 0o644)
    assert check_output(target).mode == 0o644
    if os.geteuid() != 0:
        os.chmod(target, 0o444)
        with pytest.raises(OutputError):
            check_output(target)


def test_standard_output_is_dash(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "val.csv").write_text(DATA)
    assert main(["measure", "val.csv", *MEASURE, "--json", "-"]) == 0
    captured = capsys.readouterr()
    doc = json.loads(captured.out)  # only the document on stdout: the table went to stderr
    assert doc["schema"] == "biasamp-result"
    assert "directional" in captured.err.lower() or "A->T" in captured.err
    assert not (tmp_path / "-").exists()


def test_an_input_as_output_is_refused_before_the_work(tmp_path, capsys):
    data = tmp_path / "val.csv"
    data.write_text(DATA)
    (tmp_path / "alias.csv").symlink_to(data)
    os.link(data, tmp_path / "hard.csv")
    for output in (data, tmp_path / "alias.csv", tmp_path / "hard.csv"):
        code = main(["measure", str(data), *MEASURE, "--json", str(output)])
        assert code == EXIT_USAGE
        err = " ".join(capsys.readouterr().err.split())
        expected = ERR_OUTPUT_IS_INPUT.format(
            file=output, option="--json", input_option="DATA", input=data
        )
        assert " ".join(expected.split()) in err
    assert data.read_text() == DATA


def test_output_errors_come_before_the_computation(tmp_path, capsys):
    """The data file does not even exist: the output is named, so nothing was read."""
    code = main(["measure", str(tmp_path / "missing.csv"), *MEASURE, "--json", str(tmp_path)])
    assert code == EXIT_USAGE
    err = capsys.readouterr().err
    assert "it is a directory" in err and "missing.csv" not in err


@pytest.mark.parametrize(
    "command",
    [
        ["calibrate", "{data}", "--group-cols", "a,b", "--task-cols", "t", "--pred-prefix", "s_"],
        ["report", "{data}", *MEASURE, "--html", "{tmp}/ok.html"],
        [
            "mitigate",
            "{data}",
            "--structure",
            "single",
            "--train",
            "{data}",
            "--group",
            "a",
            "--task",
            "t",
        ],
    ],
)
def test_every_command_checks_its_outputs_first(tmp_path, capsys, command):
    args = [a.format(data=tmp_path / "missing.csv", tmp=tmp_path) for a in command]
    flag = {"calibrate": "--output", "report": "--json", "mitigate": "--output"}[command[0]]
    assert main([*args, flag, str(tmp_path)]) == EXIT_USAGE
    err = capsys.readouterr().err
    assert "it is a directory" in err and "missing.csv" not in err


def test_two_outputs_on_one_file_are_refused(tmp_path):
    with pytest.raises(OutputError) as info:
        check_outputs([("--html", tmp_path / "x"), ("--json", tmp_path / "x")])
    assert str(info.value) == ERR_OUTPUT_TWICE.format(
        file=tmp_path / "x", first="--html", second="--json"
    )
    with pytest.raises(OutputError):
        check_outputs([("--html", "-"), ("--json", "-")])


# --- exceptions, signals, stale temporaries -------------------------------------------------


def test_an_exception_removes_the_temporary_and_keeps_the_old_file(tmp_path):
    target = tmp_path / "out.json"
    target.write_text("old")
    with pytest.raises(RuntimeError):
        with atomic_output(target, "w") as handle:
            handle.write("half")
            raise RuntimeError("boom")
    assert target.read_text() == "old" and _temporaries(tmp_path) == []


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_a_signal_while_writing_removes_the_temporary(tmp_path, signum):
    target = tmp_path / "out.json"
    target.write_text("old")

    def body() -> None:
        signal.signal(signum, signal.SIG_DFL)
        with atomic_output(target, "w") as handle:
            handle.write("half")
            handle.flush()
            os.kill(os.getpid(), signum)
            handle.write("never")  # pragma: no cover

    status = _in_child(body)
    assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signum
    assert target.read_text() == "old" and _temporaries(tmp_path) == []


#: A writer with a second thread busy in Python (as pyarrow's, DuckDB's or rich's threads
#: are in the command line): a process signal may reach that thread, whose Python handler
#: then runs in the main thread between any two instructions, signals held or not.
_THREADED_WRITER = """
import sys, threading
from pathlib import Path
from biasamp.output._atomic import atomic_output

def spin():
    while True:
        sum(range(1000))

threading.Thread(target=spin, daemon=True).start()
with atomic_output(Path(sys.argv[1]) / "out.json", "w") as handle:
    handle.write("x" * 2_000_000)
"""


@pytest.mark.slow
def test_a_signal_the_moment_the_temporary_appears_leaves_nothing(tmp_path):
    """A real signal sent as soon as the temporary file is seen, 20 times: it was created
    before it was recorded for the cleanup, so a signal in between left it (2 runs in 20)."""
    env = {**os.environ, "PYTHONPATH": str(Path(_atomic.__file__).parents[2])}
    killed = 0
    for trial in range(20):
        folder = tmp_path / str(trial)
        folder.mkdir()
        child = subprocess.Popen([sys.executable, "-c", _THREADED_WRITER, str(folder)], env=env)
        try:
            while child.poll() is None:
                if _temporaries(folder):
                    child.send_signal(signal.SIGTERM)
                    killed += 1
                    break
        finally:
            child.wait(timeout=120)
        assert _temporaries(folder) == [], trial
        assert not (folder / "out.json").exists() or child.returncode == 0
    assert killed >= 15  # the signal came while the file was being written


def test_ctrl_c_removes_the_temporary(tmp_path):
    target = tmp_path / "out.json"
    with pytest.raises(KeyboardInterrupt):
        with atomic_output(target, "w") as handle:
            handle.write("half")
            raise KeyboardInterrupt
    assert not target.exists() and _temporaries(tmp_path) == []


def test_sigint_right_after_the_temporary_is_created_removes_it(tmp_path, monkeypatch):
    """A real SIGINT between creating the temporary and entering its cleanup."""
    target = tmp_path / "out.json"
    target.write_text("old")
    sent: list[str] = []

    def hook(created) -> None:
        sent.append(created.path)
        os.kill(os.getpid(), signal.SIGINT)  # held until the temporary is recorded

    monkeypatch.setattr(_atomic, "_after_create", hook)
    # Python's own handler (a SparkContext started earlier in this process installs its own)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            with atomic_output(target, "w") as handle:
                handle.write("never")  # pragma: no cover - the interrupt comes first
    finally:
        signal.signal(signal.SIGINT, previous)
    assert sent == [str(target)]
    assert target.read_text() == "old" and _temporaries(tmp_path) == []
    assert _atomic._ACTIVE == set()


@pytest.fixture
def full_disk(tmp_path):
    """A 64 KiB tmpfs filled up (mounting needs root: skipped elsewhere)."""
    folder = tmp_path / "full"
    folder.mkdir()
    if os.geteuid() != 0 or not shutil.which("mount"):
        pytest.skip("mounting a tmpfs needs root")
    proc = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(folder)], capture_output=True
    )
    if proc.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs: {proc.stderr!r}")
    try:
        with open(folder / "filler", "wb") as handle:
            with contextlib.suppress(OSError):
                handle.write(b"x" * (1 << 20))
        yield folder
    finally:
        subprocess.run(["umount", str(folder)], check=True)


def test_a_full_disk_names_the_output_file(full_disk, tmp_path, capsys):
    (tmp_path / "val.csv").write_text(DATA)
    out = full_disk / "res.json"
    code = main(["measure", str(tmp_path / "val.csv"), *MEASURE, "--json", str(out)])
    err = capsys.readouterr().err
    assert code == EXIT_USAGE
    expected = ERR_ATOMIC_TARGET.format(file=out, detail=os.strerror(errno.ENOSPC))
    assert " ".join(expected.split()) in " ".join(err.split())
    assert "Traceback" not in err
    assert not out.exists() and _temporaries(full_disk) == []


def test_a_file_size_limit_names_the_output_file(tmp_path):
    """EFBIG (a size limit, no root needed): the error names the file, no temporary is left."""
    target = tmp_path / "big.bin"

    def body() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))
        try:
            with atomic_output(target, "wb") as handle:
                handle.write(b"x" * 100_000)
        except OutputError as exc:
            expected = ERR_ATOMIC_TARGET.format(file=target, detail=os.strerror(errno.EFBIG))
            os._exit(0 if str(exc) == expected else 5)
        os._exit(6)  # pragma: no cover

    status = _in_child(body)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
    assert not target.exists() and _temporaries(tmp_path) == []


def _write_pair(folder: Path, text: str) -> None:
    with OutputBatch() as batch:
        with batch.open(folder / "report.html", "w") as handle:
            handle.write(text)
        with batch.open(folder / "report.json", "w") as handle:
            handle.write(text)


def test_a_kill_between_the_renames_leaves_the_first_new_and_the_last_old(tmp_path, monkeypatch):
    """SIGKILL cannot be caught: the documented window. The JSON, renamed last, is old."""
    _write_pair(tmp_path, "old")

    def hook(index: int, target) -> None:
        if index == 1:
            os.kill(os.getpid(), signal.SIGKILL)

    monkeypatch.setattr(_atomic, "_before_replace", hook)
    status = _in_child(lambda: _write_pair(tmp_path, "new"))
    assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL
    assert (tmp_path / "report.html").read_text() == "new"
    assert (tmp_path / "report.json").read_text() == "old"
    left = _temporaries(tmp_path)
    assert len(left) == 1 and left[0].startswith(".report.json.biasamp-")
    # the next run removes the dead run's temporary
    monkeypatch.setattr(_atomic, "_before_replace", None)
    _write_pair(tmp_path, "again")
    assert _temporaries(tmp_path) == []
    assert (tmp_path / "report.json").read_text() == "again"


def test_sigterm_between_the_renames_waits_for_the_last_rename(tmp_path, monkeypatch):
    _write_pair(tmp_path, "old")

    def hook(index: int, target) -> None:
        if index == 0:
            os.kill(os.getpid(), signal.SIGTERM)

    monkeypatch.setattr(_atomic, "_before_replace", hook)

    def body() -> None:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        _write_pair(tmp_path, "new")

    status = _in_child(body)
    assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGTERM
    assert (tmp_path / "report.html").read_text() == "new"
    assert (tmp_path / "report.json").read_text() == "new"
    assert _temporaries(tmp_path) == []


def test_an_error_before_the_renames_touches_no_file(tmp_path, monkeypatch):
    _write_pair(tmp_path, "old")
    with pytest.raises(RuntimeError):
        with OutputBatch() as batch:
            with batch.open(tmp_path / "report.html", "w") as handle:
                handle.write("new")
            raise RuntimeError("the JSON could not be made")
    assert (tmp_path / "report.html").read_text() == "old"
    assert _temporaries(tmp_path) == []


def test_stale_temporaries_of_dead_runs_only_are_removed(tmp_path):
    target = tmp_path / "out.json"
    host = _atomic._host_tag()
    dead_pid = _dead_pid()
    dead = tmp_path / f".out.json.biasamp-{host}-{dead_pid}-0badc0de.tmp"
    live = tmp_path / f".out.json.biasamp-{host}-{os.getppid()}-0badc0de.tmp"
    other_host = tmp_path / f".out.json.biasamp-ffffffff-{dead_pid}-0badc0de.tmp"
    other_target = tmp_path / f".other.json.biasamp-{host}-{dead_pid}-0badc0de.tmp"
    for path in (dead, live, other_host, other_target):
        path.write_text("x")
    assert remove_stale_temporaries(target) == [dead]
    assert sorted(_temporaries(tmp_path)) == sorted(
        p.name for p in (live, other_host, other_target)
    )


def _dead_pid() -> int:
    pid = os.fork()
    if pid == 0:  # pragma: no cover
        os._exit(0)
    os.waitpid(pid, 0)
    return pid


def test_report_writes_html_and_json_as_one_batch(tmp_path, capsys, monkeypatch):
    """The CLI goes through the batch: a kill before the JSON's rename leaves it old."""
    pytest.importorskip("matplotlib")
    data = tmp_path / "val.csv"
    data.write_text(DATA)
    html, js = tmp_path / "r.html", tmp_path / "r.json"
    html.write_text("old")
    js.write_text("old")
    seen: list[str] = []

    def hook(index: int, target) -> None:
        seen.append(Path(target.path).name)
        if index == 1:
            os.kill(os.getpid(), signal.SIGKILL)

    monkeypatch.setattr(_atomic, "_before_replace", hook)
    status = _in_child(
        lambda: main(["report", str(data), *MEASURE, "--html", str(html), "--json", str(js)])
    )
    assert os.WIFSIGNALED(status)
    assert html.read_text().startswith("<!DOCTYPE html>") and js.read_text() == "old"
