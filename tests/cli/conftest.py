"""Shared fixtures of the command-line tests: the console script and one written report."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

XSS_GROUP = "<script>alert(1)</script>"
XSS_TASK = '"><img src=x onerror=alert(2)>'


def _script() -> list[str]:
    exe = shutil.which("biasamp", path=os.path.dirname(sys.executable)) or shutil.which("biasamp")
    return [exe] if exe else [sys.executable, "-m", "biasamp.cli.main"]


def run_cli(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": "200", "NO_COLOR": "1"}
    return subprocess.run(
        [*_script(), *map(str, args)], cwd=cwd, capture_output=True, text=True, timeout=120, env=env
    )


@pytest.fixture(scope="session")
def indicator_report(tmp_path_factory) -> dict[str, Path]:
    """``biasamp report`` on the indicator layout with a prediction file, untrusted names."""
    root = tmp_path_factory.mktemp("report")
    rng = np.random.default_rng(7)
    n = 300
    is_first = rng.random(n) < 0.55
    truth = pd.DataFrame(
        {
            "image_id": [f"im{i}" for i in range(n)],
            XSS_GROUP: is_first.astype(int),
            "other": (~is_first).astype(int),
        }
    )
    scores = pd.DataFrame({"image_id": truth["image_id"]})
    for task, p in (("cup", 0.3), ("ski", 0.75), (XSS_TASK, 0.5), ("$x^2$ \\alpha", 0.6)):
        present = rng.random(n) < np.where(is_first, p, 1 - p)
        truth[task] = present.astype(int)
        noise = rng.random(n)
        scores[task] = np.clip(0.6 * present + 0.5 * noise + 0.15 * is_first, 0, 1).round(4)
    truth.to_parquet(root / "truth.parquet")
    train = truth.drop(columns="image_id").sample(n=200, random_state=1)
    train.to_csv(root / "train.csv", index=False)
    scores.sample(frac=1.0, random_state=3).to_parquet(root / "scores.parquet")
    task_cols = ",".join(["cup", "ski", XSS_TASK, "$x^2$ \\alpha"])
    proc = run_cli(
        "report",
        "truth.parquet",
        "--train",
        "train.csv",
        "--group-cols",
        f"{XSS_GROUP},other",
        "--task-cols",
        task_cols,
        "--pred",
        "scores.parquet",
        "--id",
        "image_id",
        "--threshold",
        "0.5",
        "--n-boot",
        "40",
        "--html",
        "report.html",
        "--json",
        "report.json",
        "--title",
        "audit <b>bold</b>",
        cwd=root,
    )
    assert proc.returncode == 0, proc.stderr
    return {
        "root": root,
        "html": root / "report.html",
        "json": root / "report.json",
        "stdout": proc.stdout,
    }
