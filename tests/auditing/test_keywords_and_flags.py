"""The library names keywords, the command line names flags, and one table joins them.

No message string in ``engines/`` or ``auditing/`` names a command-line flag;
the command line translates the keywords in one place (``cli/flags.py``), every
keyword of ``biasamp.audit`` mirrors a flag of ``biasamp measure``, the errors
the command line prints still name flags, and the ``--help`` text on streaming
is generated from the streaming plan and true.
"""

from __future__ import annotations

import argparse
import ast
import inspect
import re
import textwrap
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import biasamp
from biasamp.auditing._run import STREAMED_METRICS, streaming_text
from biasamp.auditing._streaming import ENGINES
from biasamp.cli.flags import KEYWORD_FLAGS, flag_for, to_flags
from biasamp.cli.main import build_parser, main

PACKAGE = Path(biasamp.__file__).parent
FLAG = re.compile(r"(?<![\w-])--[a-z]")
#: Keywords of other commands' library functions (RBA score files, calibration truth).
OTHER_COMMANDS = {"structure", "sep", "truth"}
#: Options of ``measure`` that are presentation or gating: the command line's own.
CLI_ONLY = {"json", "top", "fail_above", "no_progress", "command", "run"}


def _message_strings(path: Path) -> list[tuple[int, str]]:
    """Every string constant of a module that is not a docstring (f-string parts included)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                docstrings.add(id(body[0].value))
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in docstrings
    ]


@pytest.mark.parametrize("room", ["engines", "auditing"])
def test_no_library_message_names_a_flag(room):
    found = [
        f"{path.relative_to(PACKAGE)}:{line}: {text!r}"
        for path in sorted((PACKAGE / room).glob("*.py"))
        for line, text in _message_strings(path)
        if FLAG.search(text)
    ]
    assert found == []


def test_the_flag_check_sees_a_flag(tmp_path):
    module = tmp_path / "module.py"
    module.write_text(
        'ERR = "--pred needs --id"\n'
        'def f():\n    """Docstrings may name --flags."""\n    return f"{ERR} --stream off"\n',
        encoding="utf-8",
    )
    found = [text for _, text in _message_strings(module) if FLAG.search(text)]
    assert found == ["--pred needs --id", " --stream off"]


def _measure_parser() -> argparse.ArgumentParser:
    parser = build_parser()
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return action.choices["measure"]


def test_every_keyword_of_audit_mirrors_a_flag_of_measure():
    parser = _measure_parser()
    flags = {
        action.dest: [s for s in action.option_strings if s.startswith("--")]
        for action in parser._actions
    }
    keywords = set(inspect.signature(biasamp.audit).parameters) - {"data", "progress", "sweeps"}
    for keyword in keywords:
        dest = {"metrics": "metric", "random_state": "seed"}.get(keyword, keyword)
        assert dest in flags, keyword
        assert flag_for(keyword) in flags[dest], keyword
    measure_options = set(flags) - CLI_ONLY - {"help", "data", "metric", "seed"}
    assert measure_options <= keywords, measure_options - keywords
    # the table holds nothing else
    assert set(KEYWORD_FLAGS) == keywords | OTHER_COMMANDS


def test_to_flags_by_hand():
    assert to_flags("pred= needs id= (the column that joins the files).") == (
        "--pred needs --id (the column that joins the files)."
    )
    assert to_flags('run with stream="off"; engine="duckdb" needs duckdb') == (
        "run with --stream off; --engine duckdb needs duckdb"
    )
    assert to_flags("id='image_id': 3 id(s); n_iter=5, random_state=None, metrics=") == (
        "--id 'image_id': 3 id(s); --n-iter 5, --seed None, --metric"
    )
    # a keyword inside a longer name, or an attribute, is left alone
    assert (
        to_flags("groups_pred=, tasks.pred=, predicted=") == "groups_pred=, tasks.pred=, predicted="
    )


@pytest.fixture
def data(tmp_path):
    rng = np.random.default_rng(2)
    n = 60
    frame = pd.DataFrame(
        {
            "id": [f"i{i}" for i in range(n)],
            "g": rng.choice(["m", "w"], n),
            "t": rng.choice(["a", "b"], n),
        }
    )
    frame["pred_g"], frame["pred_t"] = frame["g"], frame["t"]
    path = tmp_path / "data.csv"
    frame.to_csv(path, index=False)
    frame[["id", "pred_g", "pred_t"]].to_csv(tmp_path / "pred.csv", index=False)
    return path


def _error(capsys) -> str:
    return " ".join(capsys.readouterr().err.split())


def test_the_library_names_keywords_and_the_command_line_names_flags(data, capsys):
    pred = data.with_name("pred.csv")
    cases = [
        (
            {"pred": pred},
            ["--pred", str(pred)],
            "pred= needs id= (the column that joins the files).",
            "--pred needs --id (the column that joins the files).",
        ),
        (
            {"pred_prefix": "pred_", "metrics": "dpa-a2t", "stream": "on"},
            ["--pred-prefix", "pred_", "--metric", "dpa-a2t", "--stream", "on"],
            'stream="on": the streaming path does not apply',
            "--stream on: the streaming path does not apply",
        ),
        (
            {"pred_prefix": "pred_", "chunk_size": 0},
            ["--pred-prefix", "pred_", "--chunk-size", "0"],
            "chunk_size=: expected a positive number of rows, got 0.",
            "--chunk-size: expected a positive number of rows, got 0.",
        ),
        (
            {"metrics": "mals"},
            ["--metric", "mals"],
            'metrics="mals": needs groups_train',
            "--metric mals: needs groups_train",
        ),
    ]
    for keywords, flags, library, command_line in cases:
        with pytest.raises(ValueError) as caught:
            biasamp.audit(data, group="g", task="t", min_group_size=None, **keywords)
        assert library in str(caught.value)
        assert not FLAG.search(str(caught.value))
        assert main(["measure", str(data), "--group", "g", "--task", "t", *flags]) == 2
        shown = _error(capsys)
        assert command_line in shown, shown
        assert "=" not in shown.split("error:", 1)[1].split(":", 1)[0], shown


def test_the_streaming_help_is_the_plans(capsys):
    with pytest.raises(SystemExit):
        main(["measure", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    paragraph = " ".join(to_flags(streaming_text()).split())
    assert paragraph in text
    for metric in STREAMED_METRICS:
        assert metric in paragraph
    assert "|".join(ENGINES) in paragraph
    # the old text said long tables and thresholds do not stream
    assert "no long tables or thresholds" not in text
    assert textwrap.dedent(paragraph).startswith("Streaming:")


def test_what_the_help_says_streams_streams(tmp_path):
    """Long tables and thresholds stream; missing="category" and the rows' metrics do not."""
    rng = np.random.default_rng(3)
    n = 80
    frame = pd.DataFrame({"id": [f"i{i}" for i in range(n)], "g": rng.choice(["m", "w"], n)})
    for task in ("a", "b"):
        frame[f"obj_{task}"] = (rng.random(n) < 0.5).astype(int)
        frame[f"score_obj_{task}"] = rng.random(n).round(3)
        frame[f"pred_obj_{task}"] = (frame[f"score_obj_{task}"] > 0.5).astype(int)
    frame.to_csv(tmp_path / "data.csv", index=False)
    long = frame.melt(id_vars="id", value_vars=["obj_a", "obj_b"], var_name="label")
    long = long[long["value"] == 1][["id", "label"]]
    long.to_csv(tmp_path / "long.csv", index=False)
    pred = frame.melt(id_vars="id", value_vars=["pred_obj_a", "pred_obj_b"], var_name="label")
    pred = pred[pred["value"] == 1][["id", "label"]]
    pred["label"] = pred["label"].str.removeprefix("pred_")
    pred.to_csv(tmp_path / "pred_long.csv", index=False)
    common = {"group": "g", "min_group_size": None, "stream": "on"}
    long_tables = biasamp.audit(
        tmp_path / "data.csv",
        tasks_long=tmp_path / "long.csv",
        pred_tasks_long=tmp_path / "pred_long.csv",
        id="id",
        metrics="directional-a2t",
        n_boot=5,
        **common,
    )
    assert long_tables.settings["streamed"] is True
    scores = biasamp.audit(
        tmp_path / "data.csv",
        task_prefix="obj_",
        pred_prefix="score_",
        threshold=0.5,
        metrics="directional-a2t",
        **common,
    )
    assert scores.settings["streamed"] is True
    in_memory = biasamp.audit(
        tmp_path / "data.csv",
        task_prefix="obj_",
        pred_prefix="pred_",
        metrics="directional-a2t",
        **{**common, "stream": "auto"},
    )
    assert in_memory.settings["streamed"] is True
    assert float(in_memory["directional-a2t"].value) == pytest.approx(
        float(scores["directional-a2t"].value)
    )
    with pytest.raises(ValueError, match='missing="category" reads the group columns in memory'):
        biasamp.audit(
            tmp_path / "data.csv",
            task_prefix="obj_",
            pred_prefix="pred_",
            missing="category",
            **common,
        )
