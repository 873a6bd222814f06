"""Exit codes: 1 only for a --fail-above gate; input errors 2, internal errors 3, Ctrl-C 130.

Every failure is one line on standard error, never a traceback.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from biasamp.cli import measure
from biasamp.cli.arguments import ERR_NON_NEGATIVE
from biasamp.cli.main import (
    ERR_INTERNAL,
    ERR_INTERRUPTED,
    EXIT_GATE,
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_USAGE,
    main,
)

DATA = "g,t,pred_g,pred_t\nm,a,m,a\nw,b,w,b\nm,a,m,b\nw,b,w,a\nm,b,m,b\nw,a,w,a\n"
MEASURE = ["--group", "g", "--task", "t", "--pred-prefix", "pred_"]


def _one_line_error(err: str) -> str:
    lines = [line for line in err.splitlines() if line.strip()]
    assert "Traceback" not in err
    assert lines and lines[-1].startswith("error:") or "error:" in err
    return " ".join(err.split())


@pytest.fixture
def data(tmp_path: Path) -> Path:
    path = tmp_path / "d.csv"
    path.write_text(DATA)
    return path


def test_success_and_the_gate_are_the_only_codes_0_and_1(data, capsys):
    assert main(["measure", str(data), *MEASURE, "--metric", "a2t"]) == EXIT_OK
    code = main(["measure", str(data), *MEASURE, "--metric", "a2t", "--fail-above", "a2t=-1"])
    assert code == EXIT_GATE


def test_a_deeply_nested_thresholds_file_is_an_input_error(data, tmp_path, capsys):
    nested = tmp_path / "thresholds.json"
    nested.write_text("[" * 100_000 + "]" * 100_000)
    args = ["measure", str(data), "--group", "g", "--task", "t", "--pred-prefix", "pred_"]
    code = main([*args, "--thresholds", str(nested)])
    err = _one_line_error(capsys.readouterr().err)
    assert code == EXIT_USAGE
    assert str(nested) in err and "RecursionError" in err


def test_a_huge_n_boot_is_refused_in_one_line(tmp_path, capsys):
    """10^9 replicates of 200 rows need terabytes: refused with the estimate, exit 2."""
    data = tmp_path / "d200.csv"
    rows = DATA.strip().splitlines()
    data.write_text("\n".join([rows[0], *(rows[1:] * 34)[:200]]) + "\n")
    code = main(["measure", str(data), *MEASURE, "--metric", "a2t", "--n-boot", "1000000000"])
    err = _one_line_error(capsys.readouterr().err)
    assert code == EXIT_USAGE
    assert "memory" in err and "TiB" in err and "n_boot" in err


@pytest.mark.parametrize("option", ["--top", "--min-cell", "--n-boot"])
def test_negative_options_are_refused(option, data, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["measure", str(data), *MEASURE, option, "-1"])
    assert exit_info.value.code == EXIT_USAGE
    err = " ".join(capsys.readouterr().err.split())
    assert f"argument {option}: " + ERR_NON_NEGATIVE.format(got="-1") in err


def test_demo_refuses_a_negative_top(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["demo", "--top", "-1"])
    assert exit_info.value.code == EXIT_USAGE
    assert ERR_NON_NEGATIVE.format(got="-1") in capsys.readouterr().err


def test_an_internal_error_exits_3_in_one_line(data, capsys, monkeypatch):
    """A bug (here a fault injected into the command) is neither a gate nor an input error."""

    def broken(args):
        raise KeyError("a bug")

    monkeypatch.setattr(measure, "run", broken)
    monkeypatch.delenv("BIASAMP_TRACEBACK", raising=False)
    code = main(["measure", str(data), *MEASURE])
    err = " ".join(capsys.readouterr().err.split())
    assert code == EXIT_INTERNAL
    assert ERR_INTERNAL.format(kind="KeyError", detail="'a bug'") in err
    assert "Traceback" not in err
    monkeypatch.setenv("BIASAMP_TRACEBACK", "1")
    assert main(["measure", str(data), *MEASURE]) == EXIT_INTERNAL
    assert "Traceback" in capsys.readouterr().err


def test_ctrl_c_in_a_command_exits_130_without_a_traceback(data, capsys, monkeypatch):
    def interrupted(args):
        os.kill(os.getpid(), signal.SIGINT)  # a real SIGINT, as Ctrl-C sends
        time.sleep(5)  # pragma: no cover - the interrupt comes first

    monkeypatch.setattr(measure, "run", interrupted)
    # Python's own handler (a SparkContext started earlier in this process installs its own)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        assert main(["measure", str(data), *MEASURE]) == EXIT_INTERRUPTED
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # restored
    finally:
        signal.signal(signal.SIGINT, previous)
    err = capsys.readouterr().err
    assert "Traceback" not in err and ERR_INTERRUPTED in err


def _wait_until_reading(pid: int, path: Path, timeout: float = 60) -> None:
    """Wait until process ``pid`` has ``path`` open: its imports are done, the command runs."""
    fds = Path(f"/proc/{pid}/fd")
    if not fds.exists():  # pragma: no cover - no /proc: wait a while instead
        time.sleep(5)
        return
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for fd in list(fds.iterdir()) if fds.exists() else []:
            try:
                if Path(os.readlink(fd)) == path:
                    return
            except OSError:
                continue
        time.sleep(0.05)
    raise AssertionError(f"process {pid} never opened {path}")  # pragma: no cover


def test_ctrl_c_during_a_duckdb_query_exits_130(tmp_path):
    """DuckDB turns Ctrl-C into RuntimeError('Query interrupted'): still 130, no traceback."""
    pytest.importorskip("duckdb")
    rng = np.random.default_rng(0)
    n = 2_000_000
    frame = pd.DataFrame({"g": rng.integers(0, 3, n).astype(str)})
    for j in range(6):
        frame[f"obj_{j}"] = rng.integers(0, 2, n, dtype=np.int8)
        frame[f"pred_obj_{j}"] = rng.integers(0, 2, n, dtype=np.int8)
    frame["pred_g"] = frame["g"]
    frame.to_parquet(tmp_path / "big.parquet")
    args = ["big.parquet", "--group", "g", "--task-prefix", "obj_", "--pred-prefix", "pred_"]
    command = [sys.executable, "-m", "biasamp", "measure", *args, "--engine", "duckdb"]
    command += ["--n-boot", "30", "--no-progress", "--json", "out.json"]
    env = {**os.environ, "PYTHONPATH": str(Path(measure.__file__).parents[2])}
    started = time.monotonic()
    proc = subprocess.Popen(command, cwd=tmp_path, stderr=subprocess.PIPE, text=True, env=env)
    _wait_until_reading(proc.pid, tmp_path / "big.parquet")
    time.sleep(0.5)  # the counting query running (any phase of the command must give 130)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    if proc.returncode == EXIT_OK:  # pragma: no cover - a machine fast enough to finish first
        pytest.skip(f"the command finished in {time.monotonic() - started:.1f} s")
    assert proc.returncode == EXIT_INTERRUPTED, err
    assert "Traceback" not in err and ERR_INTERRUPTED in err
    assert not (tmp_path / "out.json").exists()
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


def test_python_dash_m_biasamp_runs_the_command(data):
    env = {**os.environ, "PYTHONPATH": str(Path(measure.__file__).parents[2])}
    proc = subprocess.run(
        [sys.executable, "-m", "biasamp", "measure", str(data), *MEASURE, "--json", "-"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert proc.returncode == EXIT_OK, proc.stderr
    assert json.loads(proc.stdout)["schema"] == "biasamp-result"
    help_text = subprocess.run(
        [sys.executable, "-m", "biasamp", "--help"], capture_output=True, text=True, env=env
    ).stdout
    assert "130 interrupted" in " ".join(help_text.split())


def test_help_documents_the_exit_codes(capsys):
    for command in ("measure", "report", "compare", "calibrate", "mitigate", "captions", "demo"):
        with pytest.raises(SystemExit):
            main([command, "--help"])
        text = " ".join(capsys.readouterr().out.split())
        assert "1 a --fail-above bound was exceeded (only that)" in text
        assert "3 internal error" in text and "130 interrupted" in text


def test_report_without_matplotlib_says_to_install_the_plot_extra(data, tmp_path, capsys):
    """matplotlib made unimportable in a child interpreter: a real ImportError, exit 2."""
    from biasamp.results._plotting import ERR_MATPLOTLIB

    html = tmp_path / "r.html"
    code = (
        "import sys; sys.modules['matplotlib'] = None\n"
        "from biasamp.cli.main import main\n"
        f"sys.exit(main(['report', {str(data)!r}, *{MEASURE!r}, '--html', {str(html)!r}]))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(Path(measure.__file__).parents[2]), "COLUMNS": "300"}
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120
    )
    assert proc.returncode == EXIT_USAGE
    assert ERR_MATPLOTLIB in " ".join(proc.stderr.split()) and "Traceback" not in proc.stderr
    assert not html.exists()
    with pytest.raises(SystemExit):
        main(["report", "--help"])
    assert "pip install 'biasamp[plot]'" in capsys.readouterr().out


#: The console script's own lines (pip writes them into bin/biasamp).
_CONSOLE_SCRIPT = """import sys
from biasamp.cli.main import main
if __name__ == "__main__":
    sys.exit(main())
"""


def _wait_until_importing_numpy(pid: int, timeout: float = 60.0) -> None:
    """Until the process has loaded numpy's core (biasamp's first import after its first
    line): the interpreter's own start-up, before any of biasamp's code, is over."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if "_multiarray_umath" in Path(f"/proc/{pid}/maps").read_text():
                return
        except OSError:
            return
        time.sleep(0.002)


@pytest.mark.skipif(not Path("/proc/self/maps").exists(), reason="needs /proc")
@pytest.mark.parametrize("how", ["console-script", "python -m"])
@pytest.mark.parametrize("delay", [0.0, 0.1])
def test_ctrl_c_while_the_command_imports_is_one_line_and_130(how, delay, tmp_path):
    """SIGINT while ``biasamp`` imports numpy, pandas and the metrics (0.5 s or more): it
    printed a KeyboardInterrupt traceback and died by SIGINT (exit status -2)."""
    from biasamp._interrupts import INTERRUPTED_LINE

    script = tmp_path / "biasamp"
    script.write_text(_CONSOLE_SCRIPT)
    command = (
        [sys.executable, str(script)]
        if how == "console-script"
        else [sys.executable, "-m", "biasamp"]
    )
    env = {**os.environ, "PYTHONPATH": str(Path(measure.__file__).parents[2])}
    proc = subprocess.Popen(
        [*command, "measure", "--help"],
        cwd=tmp_path,
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
        env=env,
    )
    _wait_until_importing_numpy(proc.pid)
    time.sleep(delay)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    if proc.returncode == EXIT_OK:  # pragma: no cover - imported and done before the signal
        pytest.skip("the command finished before the signal")
    assert proc.returncode == EXIT_INTERRUPTED, err
    assert err == INTERRUPTED_LINE, err


def test_importing_biasamp_as_a_library_keeps_the_sigint_handler():
    code = (
        "import signal, biasamp; "
        "print(signal.getsignal(signal.SIGINT) is signal.default_int_handler)"
    )
    env = {**os.environ, "PYTHONPATH": str(Path(measure.__file__).parents[2])}
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert run.stdout.strip() == "True", run.stderr
