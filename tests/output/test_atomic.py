"""Atomic output files (biasamp.output._atomic)."""

from __future__ import annotations

import pytest

from biasamp import atomic_output
from biasamp.cli.main import EXIT_USAGE, main
from biasamp.output._atomic import ERR_ATOMIC_TARGET


def test_missing_output_folder_names_the_output_not_the_temporary_file(tmp_path):
    target = tmp_path / "no_such_dir" / "out.json"
    with pytest.raises(OSError) as info:
        with atomic_output(target, "w", encoding="utf-8") as handle:
            handle.write("x")
    assert str(info.value) == ERR_ATOMIC_TARGET.format(
        file=target, detail=f"the folder {str(target.parent)!r} does not exist"
    )
    assert ".tmp" not in str(info.value)


def test_cli_reports_the_output_path_with_exit_2(tmp_path, capsys):
    data = tmp_path / "val.csv"
    data.write_text(
        "a,b,t,s_a,s_b,s_t\n1,0,1,0.9,0.2,0.6\n0,1,0,0.3,0.8,0.1\n1,0,1,0.7,0.4,0.9\n",
        encoding="utf-8",
    )
    out = tmp_path / "missing" / "thresholds.json"
    code = main(
        [
            "calibrate",
            str(data),
            "--group-cols",
            "a,b",
            "--task-cols",
            "t",
            "--pred-prefix",
            "s_",
            "--output",
            str(out),
        ]
    )
    assert code == EXIT_USAGE
    err = capsys.readouterr().err
    assert "thresholds.json" in err and ".tmp" not in err
