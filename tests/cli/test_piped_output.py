"""Output that is not a terminal (a pipe, ``| tee``, a CI log) is whole: metric names and
numbers are never cut at 80 columns (``directional…``, ``-0.00…``)."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys

import numpy as np
import pandas as pd

from biasamp.cli.console import PIPE_WIDTH, new_console

from .conftest import _script

LONG_TASK = "a_task_name_much_longer_than_any_terminal_column_would_leave_room_for"


def test_measure_piped_prints_whole_names_and_numbers(tmp_path):
    rng = np.random.default_rng(5)
    n = 200
    frame = pd.DataFrame(
        {
            "gender": rng.choice(["woman", "man"], n),
            "activity": rng.choice([LONG_TASK, "ski", "surf"], n),
        }
    )
    frame.to_csv(tmp_path / "train.csv", index=False)
    frame.assign(
        pred_gender=frame["gender"], pred_activity=rng.permutation(frame["activity"].to_numpy())
    ).to_csv(tmp_path / "test.csv", index=False)
    args = ["measure", "test.csv", "--train", "train.csv", "--group", "gender"]
    args += ["--task", "activity", "--pred-prefix", "pred_"]
    args += ["--metric", "mals", "--metric", "directional-a2t", "--metric", "directional-t2a"]
    # a CI runner's environment: a pipe, COLUMNS=80
    env = {**os.environ, "COLUMNS": "80", "NO_COLOR": "1", "TERM": "dumb"}
    proc = subprocess.run(
        [*_script(), *args], cwd=tmp_path, capture_output=True, text=True, timeout=120, env=env
    )
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "…" not in out and "..." not in out
    lines = out.splitlines()
    for name in ("mals", "directional-a2t", "directional-t2a"):
        # the summary row holds the whole metric name and its whole value, on one line
        rows = [
            line for line in lines if re.search(rf"│ {name} \(.*\) *│ *[+-]\d\.\d{{4}} │", line)
        ]
        assert len(rows) == 1, (name, out)
    # the long task name is printed whole in the top-pairs tables
    assert LONG_TASK in out
    assert max(map(len, lines)) > 80


def test_new_console_is_wide_when_not_a_terminal_and_keeps_a_terminal_width():
    piped = new_console()
    assert not piped.is_terminal and piped.width == PIPE_WIDTH
    from rich.console import Console
    from rich.table import Table

    table = Table()
    table.add_column("metric")
    table.add_column("value", justify="right")
    table.add_row("directional-t2a (BiasAmp T->A) " + "x" * 90, "-0.0012345")
    buffer = io.StringIO()
    Console(file=buffer, width=PIPE_WIDTH).print(table)
    text = buffer.getvalue()
    assert "x" * 90 in text and "-0.0012345" in text and "…" not in text
    # a terminal keeps its own width (rich reads it); forced here, as a pseudo-terminal would
    terminal = Console(file=io.StringIO(), force_terminal=True, width=57)
    assert terminal.is_terminal and terminal.width == 57
    assert sys.stdout is not None
