"""No writer of biasamp replaces an input with its output: one rule on every path.

The command line refuses an output that is one of the command's input files
(``check_command_outputs``); the library's writers keep the same rule
(``check_written_output``, the same ``check_outputs``) against the files the object
was computed from: ``AuditResult.save``, the ``save`` of each result of an audit,
``write_report`` (of an audit, or given ``inputs`` records) and ``save_counts`` of a
table counted from files. Each refusal is a ``ValueError`` (and an ``OutputError``)
whose message names the argument and the input, through any path, symbolic link or
hard link, and leaves the input as it was.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

import biasamp
from biasamp.cli.main import main
from biasamp.output._targets import (
    ERR_OUTPUT_IS_INPUT,
    OutputError,
    OutputIsInputError,
    check_written_output,
    input_files_of,
    remember_input_files,
)

RNG = np.random.default_rng(5)
N = 60


def _data(folder: Path) -> Path:
    frame = pd.DataFrame({"gender": RNG.choice(["m", "w"], N)})
    for task in ("ski", "cook"):
        frame[task] = RNG.integers(0, 2, N)
        frame[f"pred_{task}"] = RNG.integers(0, 2, N)
    frame["pred_gender"] = RNG.choice(["m", "w"], N)
    path = folder / "data.csv"
    frame.to_csv(path, index=False)
    return path


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _audit(data: Path) -> Any:
    return biasamp.audit(
        data, group="gender", task_cols=["ski", "cook"], pred_prefix="pred_",
        metrics=["directional-a2t", "directional-t2a"], min_group_size=None,
    )  # fmt: skip


def _message(output: Path, argument: str, role: str, data: Path) -> str:
    return ERR_OUTPUT_IS_INPUT.format(file=output, option=argument, input_option=role, input=data)


def _aliases(tmp_path: Path, data: Path) -> list[Path]:
    """The input by its own path, a symbolic link and a hard link."""
    (tmp_path / "alias.csv").symlink_to(data)
    os.link(data, tmp_path / "hard.csv")
    return [data, tmp_path / "alias.csv", tmp_path / "hard.csv"]


def _refused(write: Callable[[Path], Any], output: Path, expected: str, data: Path) -> None:
    before = _sha(data)
    with pytest.raises(ValueError) as info:
        write(output)
    assert isinstance(info.value, OutputIsInputError) and isinstance(info.value, OutputError)
    assert str(info.value) == expected
    assert _sha(data) == before  # nothing was written


def test_every_library_writer_refuses_the_audited_file(tmp_path):
    data = _data(tmp_path)
    audit = _audit(data)
    assert audit.input_files == (("data", str(data)),)
    writers: dict[str, Callable[[Path], Any]] = {
        "AuditResult.save": audit.save,
        "result.save": audit["directional-a2t"].save,
        "write_report": lambda path: biasamp.write_report(path, audit),
        "write_report of a mapping": lambda path: biasamp.write_report(path, dict(audit)),
    }
    for output in _aliases(tmp_path, data):
        for name, write in writers.items():
            _refused(write, output, _message(output, "path", "data", data), data)
            assert name  # every writer was tried on every alias
    # the same outputs elsewhere are written
    assert biasamp.load_result(audit.save(tmp_path / "audit.json")) == audit
    assert biasamp.write_report(tmp_path / "report.html", audit).read_text().startswith("<!DOC")


def test_a_loaded_audit_still_knows_its_files(tmp_path):
    data = _data(tmp_path)
    loaded = biasamp.load_result(_audit(data).save(tmp_path / "audit.json"))
    assert loaded.input_files == (("data", str(data)),)
    expected = _message(data, "path", "data", data)
    _refused(loaded.save, data, expected, data)
    _refused(loaded["directional-t2a"].save, data, expected, data)


def test_write_report_refuses_its_inputs_records(tmp_path):
    data = _data(tmp_path)
    result = biasamp.mals(
        groups_train=["m", "w", "m", "w"], tasks_train=["a", "a", "b", "b"],
        groups_pred=["m", "m", "w", "w"], tasks_pred=["a", "a", "b", "b"], min_group_size=None,
    )  # fmt: skip
    inputs = [{"role": "data", "path": str(data), "format": "csv", "rows": N}]
    _refused(
        lambda path: biasamp.write_report(path, {"mals": result}, inputs=inputs),
        data,
        _message(data, "path", "inputs (data)", data),
        data,
    )
    # a result computed from arrays knows no file: any path may be written
    assert result.input_files == () and result.save(tmp_path / "r.json").exists()


def test_save_counts_refuses_the_files_a_table_was_counted_from(tmp_path):
    data = _data(tmp_path)
    for engine in ("numpy", "duckdb"):
        table = biasamp.counts_from_files(
            data, groups="gender", tasks=["ski", "cook"], engine=engine
        )
        assert input_files_of(table) == (("paths", str(data)),)
        _refused(
            lambda path, t=table: biasamp.save_counts(t, path),
            data,
            _message(data, "path", "paths", data),
            data,
        )
    biasamp.save_counts(table, tmp_path / "counts.npz")
    # a table loaded back may be saved over its own file (a checkpoint, not an input)
    again = biasamp.load_counts(tmp_path / "counts.npz")
    biasamp.save_counts(again, tmp_path / "counts.npz")


def test_save_counts_of_joined_files_refuses_both_files(tmp_path):
    data = _data(tmp_path)
    frame = pd.read_csv(data)
    frame.insert(0, "id", range(N))
    frame.to_csv(data, index=False)
    preds = tmp_path / "preds.csv"
    frame[["id", "pred_gender"]].to_csv(preds, index=False)
    table = biasamp.counts_from_joined_files(
        data, preds, on="id", groups="gender", tasks=["ski", "cook"], groups_pred="pred_gender"
    )
    assert dict(input_files_of(table)) == {"path": str(data), "pred_path": str(preds)}
    _refused(
        lambda path: biasamp.save_counts(table, path),
        preds,
        _message(preds, "path", "pred_path", preds),
        preds,
    )


def test_the_command_line_and_the_library_give_one_message(tmp_path, capsys):
    """``biasamp measure DATA --json DATA`` and ``audit.save(DATA)`` are refused by the
    same rule, each naming its own argument."""
    data = _data(tmp_path)
    code = main(
        ["measure", str(data), "--group", "gender", "--task-cols", "ski,cook",
         "--pred-prefix", "pred_", "--json", str(data)]
    )  # fmt: skip
    assert code == 2
    err = " ".join(capsys.readouterr().err.split())
    assert " ".join(_message(data, "--json", "DATA", data).split()) in err
    _refused(_audit(data).save, data, _message(data, "path", "data", data), data)


def test_the_rule_itself(tmp_path):
    data = _data(tmp_path)
    obj = type("Thing", (), {})()
    remember_input_files(obj, [("data", data), ("train", None), ("data", data)])
    assert input_files_of(obj) == (("data", str(data)),)  # None skipped, once each
    with pytest.raises(TypeError, match="^path: expected a file path"):
        check_written_output(3, inputs=input_files_of(obj))  # type: ignore[arg-type]
    target = check_written_output(tmp_path / "new.json", inputs=input_files_of(obj))
    assert target.file == tmp_path / "new.json" and not target.exists


def test_a_comparison_refuses_the_files_it_read(tmp_path):
    result = biasamp.mals(
        groups_train=["m", "w", "m", "w"], tasks_train=["a", "a", "b", "b"],
        groups_pred=["m", "m", "w", "w"], tasks_pred=["a", "a", "b", "b"], min_group_size=None,
    )  # fmt: skip
    saved = result.save(tmp_path / "run.json")
    table = biasamp.compare({"run": saved})
    assert table.input_files == (("results['run']", str(saved)),)
    _refused(table.save, saved, _message(saved, "path", "results['run']", saved), saved)
    assert biasamp.load_result(table.save(tmp_path / "table.json")).equals(table)


def test_library_writers_refuse_an_unwritable_path_as_a_value_error(tmp_path):
    # the command line's OutputError reaches library callers as a ValueError naming the argument
    from biasamp.output._targets import OutputError, WrittenOutputError
    from biasamp.report import write_report

    for path in ("", str(tmp_path)):  # empty, a directory
        with pytest.raises(ValueError, match=r"^path: |directory") as info:
            write_report(path, None)
        assert isinstance(info.value, WrittenOutputError)
        assert isinstance(info.value, OutputError)
