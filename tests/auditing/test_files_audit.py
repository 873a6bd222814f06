"""The input contract of files in the engines: one reader, layouts read into rows or counted.

``auditing/_inputs.py`` (rows) and ``auditing/_streaming.py`` (count
tables) read the same layouts through ``engines/_file_reader.py``; these tests
check that the two give the same counts, that the engine reports the rows it
read when it drops unlabelled training rows, and that the API is a library's
(keyword-only options, no command-line objects).
"""

from __future__ import annotations

import ast
import importlib.util
import inspect
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from biasamp import CountTable, counts_from_files
from biasamp.auditing import _inputs as _audit_inputs
from biasamp.auditing import _rba_files, _threshold_files
from biasamp.auditing import _streaming as _audit_streaming
from biasamp.auditing import _sweeps as _audit_sweeps
from biasamp.auditing import _tables as _audit_tables
from biasamp.auditing._inputs import Layout, load_audit
from biasamp.auditing._streaming import (
    ERR_ENGINE,
    load_streamed,
    plan_streaming,
    stream_refusal,
)
from biasamp.engines import _file_reader
from biasamp.engines._files import may_drop_rows

pytest.importorskip("pyarrow")

LIBRARY_MODULES = (
    _file_reader,
    _audit_inputs,
    _audit_streaming,
    _rba_files,
    _threshold_files,
    _audit_sweeps,
    _audit_tables,
)


@pytest.mark.parametrize("module", LIBRARY_MODULES, ids=lambda m: m.__name__)
def test_the_contract_takes_no_command_line_objects(module):
    """No module of the contract imports argparse; every option after the first argument
    of a public function is keyword-only."""
    tree = ast.parse(Path(module.__file__).read_text(encoding="utf-8"))
    imported = {
        alias.name.split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, (ast.Import, ast.ImportFrom))
        for alias in (
            node.names if isinstance(node, ast.Import) else [ast.alias(node.module or "")]
        )
    }
    assert "argparse" not in imported
    for name in module.__all__:
        function = getattr(module, name)
        if not inspect.isfunction(function):
            continue
        params = list(inspect.signature(function).parameters.values())
        positional = [p for p in params if p.kind is not inspect.Parameter.KEYWORD_ONLY]
        assert len(positional) <= 3, (name, [p.name for p in positional])
        assert "Namespace" not in str(inspect.signature(function)), name


def test_may_drop_rows_is_the_one_rule():
    assert may_drop_rows({"groups": False, "tasks": False, "tasks_pred": False})
    assert not may_drop_rows({"groups": True, "tasks": False})
    assert not may_drop_rows({"groups": False, "tasks": True})
    assert not may_drop_rows({"groups": False})  # no tasks: nothing to drop by


def test_the_engine_reports_the_rows_it_read_when_it_drops_some(tmp_path):
    """Five rows, two with neither a group nor a task: three counted, five read."""
    frame = pd.DataFrame(
        {
            "m": [1, 0, 0, 0, 1],
            "w": [0, 1, 0, 0, 0],
            "ski": [1, 1, 0, 0, 0],
            "cook": [0, 0, 0, 0, 1],
        }
    )
    path = tmp_path / "train.csv"
    frame.to_csv(path, index=False)
    chunks: list[int] = []
    table = counts_from_files(
        path,
        groups=["m", "w"],
        tasks=["ski", "cook"],
        rows="labelled",
        chunk_size=2,
        on_rows=chunks.append,
    )
    assert (table.n_rows, chunks) == (3, [2, 2, 1])
    kept = frame.iloc[[0, 1, 4]]
    expected = CountTable.from_arrays(groups=kept[["m", "w"]], tasks=kept[["ski", "cook"]])
    np.testing.assert_array_equal(
        table.joint[("groups", "tasks")], expected.joint[("groups", "tasks")]
    )
    # hand-worked: m co-occurs with ski once and cook once, w with ski once
    np.testing.assert_array_equal(table.joint[("groups", "tasks")], [[1, 1], [1, 0]])
    for engine in ("numpy", "duckdb"):
        if engine == "duckdb":
            pytest.importorskip("duckdb")
        read: list[int] = []
        every = counts_from_files(
            path, groups=["m", "w"], tasks=["ski", "cook"], engine=engine, on_rows=read.append
        )
        assert (every.n_rows, sum(read)) == (5, 5)


def _indicator_files(tmp_path: Path) -> tuple[Path, Path]:
    rng = np.random.default_rng(5)
    n = 40
    is_w = rng.random(n) < 0.5
    frame = pd.DataFrame({"m": (~is_w).astype(int), "w": is_w.astype(int)})
    for task in ("a", "b"):
        frame[task] = (rng.random(n) < np.where(is_w, 0.3, 0.7)).astype(int)
        frame[f"pred_{task}"] = (rng.random(n) < np.where(is_w, 0.2, 0.8)).astype(int)
    frame["pred_m"], frame["pred_w"] = frame["m"], frame["w"]
    train = frame[["m", "w", "a", "b"]].copy()
    train.loc[[3, 7, 11], ["m", "w", "a", "b"]] = 0  # three rows with no group and no task
    train.to_parquet(tmp_path / "train.parquet")
    frame.to_csv(tmp_path / "test.csv", index=False)
    return tmp_path / "test.csv", tmp_path / "train.parquet"


def test_rows_and_tables_read_the_same_counts(tmp_path):
    """load_audit's rows, counted, equal load_streamed's tables; the training file's rows
    are all reported while its unlabelled rows are not counted."""
    data, train = _indicator_files(tmp_path)
    layout = Layout(group_cols=("m", "w"), task_cols=("a", "b"), pred_prefix="pred_")
    rows = load_audit(layout, data=data, train=train)
    plan, reason = plan_streaming(layout, data=data, train=train, engine="numpy")
    assert reason == "" and plan is not None
    tables = load_streamed(plan)
    assert (tables.group_names, tables.task_names) == (rows.group_names, rows.task_names)
    evaluation = CountTable.from_arrays(
        groups=rows.groups,
        tasks=rows.tasks,
        groups_pred=rows.groups_pred,
        tasks_pred=rows.tasks_pred,
        **rows.names(),
    )
    for pair, counts in evaluation.joint.items():
        np.testing.assert_array_equal(tables.evaluation.joint[pair], counts)
    labelled = (np.asarray(rows.groups_train) != 0).any(axis=1) | (
        np.asarray(rows.tasks_train) != 0
    ).any(axis=1)
    training = CountTable.from_arrays(
        groups=rows.groups_train[labelled], tasks=rows.tasks_train[labelled], **rows.names()
    )
    np.testing.assert_array_equal(
        tables.train.joint[("groups", "tasks")], training.joint[("groups", "tasks")]
    )
    assert tables.train.n_rows == 37
    assert {f.role: f.n_rows for f in tables.files} == {f.role: f.n_rows for f in rows.files}
    assert {f.role: f.sha256 for f in tables.files} == {f.role: f.sha256 for f in rows.files}


def test_stream_refusal_names_the_option():
    layout = Layout(group="g", task="t", pred_prefix="pred_")
    assert stream_refusal(layout) is None
    assert stream_refusal(layout, scored=True) is None  # scores are thresholded while counting
    assert stream_refusal(layout, long_tables=True) == (
        "long tables of predicted or training tasks need tasks_long="
    )
    assert stream_refusal(Layout(group="g", task="t")) == (
        "no predictions in the data file (pred_prefix=)"
    )
    # the report's threshold sweeps need the rows of the scores
    plan, reason = plan_streaming(layout, data="unused.csv", scored=True, sweep=True)
    assert plan is None and reason == (
        "the threshold sweeps of prediction scores are computed on the rows"
    )


def test_an_unknown_engine_is_refused(tmp_path):
    data, _ = _indicator_files(tmp_path)
    layout = Layout(group_cols=("m", "w"), task_cols=("a", "b"), pred_prefix="pred_")
    with pytest.raises(ValueError) as info:
        plan_streaming(layout, data=data, engine="spark")
    assert str(info.value) == ERR_ENGINE.format(choices="'auto', 'numpy', 'duckdb'", got="spark")


@pytest.mark.parametrize(
    ("name", "sep", "duckdb_reads"),
    [
        ("test.csv", ",", True),
        ("test.csv.gz", ",", True),
        ("test.csv.bz2", ",", False),
        ("test.csv.xz", ",", False),
        ("test.csv.zst", ",", False),
        ("test.csv.zip", ",", False),
        ("test.tsv", "\t", False),
        ("test.tsv.gz", "\t", False),
        ("test.csv", ";", False),
        ("test.csv", "|", False),
    ],
)
def test_every_file_the_reader_reads_streams_with_the_same_counts(
    name, sep, duckdb_reads, tmp_path
):
    """No compression or delimiter keeps a file from the count tables; DuckDB counts only
    the files it reads (``auto`` chooses numpy for the others, ``duckdb`` says why not for
    another delimiter and counts the compressions it does not read on numpy)."""
    data, train = _indicator_files(tmp_path)
    frame = pd.read_csv(data)
    path = tmp_path / name
    if name.endswith(".zst"):
        import pyarrow as pa

        with pa.CompressedOutputStream(str(path), "zstd") as out:
            out.write(frame.to_csv(sep=sep, index=False).encode())
    else:
        frame.to_csv(path, sep=sep, index=False)
    delimiter = None if sep == ("\t" if ".tsv" in name else ",") else sep
    layout = Layout(
        group_cols=("m", "w"), task_cols=("a", "b"), pred_prefix="pred_", delimiter=delimiter
    )
    rows = load_audit(layout, data=path, train=train)
    plan, reason = plan_streaming(layout, data=path, train=train, engine="numpy")
    assert reason == "" and plan is not None
    tables = load_streamed(plan)
    evaluation = CountTable.from_arrays(
        groups=rows.groups, tasks=rows.tasks, tasks_pred=rows.tasks_pred, **rows.names()
    )
    for pair in (("groups", "tasks"), ("groups", "tasks_pred")):
        np.testing.assert_array_equal(tables.evaluation.joint[pair], evaluation.joint[pair])
    assert [(f.sha256, f.n_rows) for f in tables.files] == [
        (f.sha256, f.n_rows) for f in rows.files
    ]
    if importlib.util.find_spec("duckdb") is None:
        return
    auto, _ = plan_streaming(layout, data=path, train=train, engine="auto")
    assert auto is not None and auto.engine == "numpy"  # a small file: numpy is faster
    forced, why = plan_streaming(layout, data=path, train=train, engine="duckdb")
    if sep != ",":  # another delimiter: DuckDB asked for says why not
        assert forced is None and why.startswith(f"{path}: the DuckDB engine reads")
    else:  # a compression DuckDB does not read is counted by the numpy engine
        assert forced is not None
        assert forced.engine == ("duckdb" if duckdb_reads else "numpy")


def test_csv_label_columns_are_read_as_text_by_the_numpy_engine(tmp_path):
    """A label column pyarrow would infer as numbers ('01', '1') is text, as the in-memory
    reader reads it: '01' and '1' stay two labels, alone, intersected and joined on an id."""
    from biasamp import IntersectedColumns, counts_from_joined_files

    path = tmp_path / "labels.csv"
    pd.DataFrame(
        {"id": ["a", "b", "c"], "g": ["01", "1", "1"], "r": ["5", "5", "05"], "t": ["7", "7", "8"]}
    ).to_csv(path, index=False)
    table = counts_from_files(path, groups="g", tasks="t", engine="numpy")
    assert table.group_names == ("01", "1")
    assert table.task_names == ("7", "8")
    np.testing.assert_array_equal(table.joint[("groups", "tasks")], [[1.0, 0.0], [1.0, 1.0]])
    crossed = counts_from_files(path, groups=IntersectedColumns(("g", "r")), tasks="t")
    assert len(crossed.group_names) == 3
    pred = tmp_path / "pred.csv"
    pd.DataFrame({"id": ["c", "a", "b"], "t": ["8", "8", "08"]}).to_csv(pred, index=False)
    joined = counts_from_joined_files(
        path, pred, on="id", groups="g", tasks="t", tasks_pred="t", task_names=("08", "7", "8")
    )
    # a (01): 8; b (1): 08; c (1): 8
    np.testing.assert_array_equal(
        joined.joint[("groups", "tasks_pred")], [[0.0, 0.0, 1.0], [1.0, 0.0, 1.0]]
    )


def test_the_bootstrap_of_files_counts_every_row(tmp_path):
    """Replicate weights are drawn over every row: rows='labelled' with replicates is
    refused by the pattern and the long-table counters too, as by counts_from_files."""
    from biasamp import pattern_counts_from_files
    from biasamp.counts import PoissonReplicates
    from biasamp.engines._files import ERR_ROWS_REPLICATES
    from biasamp.engines._long_tables import counts_from_long_files

    pd.DataFrame({"id": ["x", "y"], "m": [1, 0], "w": [0, 0], "a": [1, 0]}).to_csv(
        tmp_path / "d.csv", index=False
    )
    pd.DataFrame({"id": ["x"], "label": ["a"]}).to_csv(tmp_path / "l.csv", index=False)
    replicates = PoissonReplicates(3, random_state=1, stream=0)
    calls = [
        lambda: pattern_counts_from_files(
            tmp_path / "d.csv",
            groups=["m", "w"],
            tasks=["a"],
            rows="labelled",
            replicates=replicates,
        ),
        lambda: counts_from_long_files(
            tmp_path / "d.csv",
            {"tasks": tmp_path / "l.csv"},
            on="id",
            groups=["m", "w"],
            rows="labelled",
            replicates=replicates,
        ),
    ]
    for call in calls:
        with pytest.raises(ValueError, match=re.escape(ERR_ROWS_REPLICATES)):
            call()
