"""Rows with more or fewer fields than the header are refused on every CSV path.

pandas and pyarrow, asked for some columns only, silently drop a row's extra
fields (and pandas pads a short row); every reader of biasamp refuses the file
instead, naming the file and the line (the header is line 1).
"""

from __future__ import annotations

import gzip
import lzma
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from biasamp import CountTable, counts_from_files, pattern_counts_from_files
from biasamp.auditing._threshold_files import read_thresholds
from biasamp.cli.main import EXIT_USAGE, main
from biasamp.engines._file_formats import (
    ERR_FIELD_COUNT,
    RaggedRowError,
    _check_with_csv_module,
    check_field_counts,
)
from biasamp.engines._file_reader import ColumnBlock, InputError, read_blocks

pytest.importorskip("pyarrow")

HEADER = "g,t,pg,pt"
ROWS = ["m,a,m,a", "w,b,w,b", "m,a,w,b", "w,a,m,a"]


def _ragged(tmp_path: Path, n_rows: int, bad_row: int, bad: str, name: str = "r.csv") -> Path:
    """A CSV of ``n_rows`` data rows whose data row ``bad_row`` (0-based) is ``bad``."""
    rows = [ROWS[i % len(ROWS)] for i in range(n_rows)]
    rows[bad_row] = bad
    path = tmp_path / name
    text = HEADER + "\n" + "\n".join(rows) + "\n"
    if name.endswith(".gz"):
        path.write_bytes(gzip.compress(text.encode()))
    elif name.endswith(".xz"):
        path.write_bytes(lzma.compress(text.encode()))
    elif name.endswith(".zip"):
        with zipfile.ZipFile(path, "w") as archive:
            archive.writestr(name[: -len(".zip")], text)
    else:
        path.write_text(text)
    return path


def _message(path: Path, line: int, got: int, text: str) -> str:
    return ERR_FIELD_COUNT.format(file=path, line=line, got=got, expected=4, text=text)


@pytest.mark.parametrize("bad, got", [("m,a,w,b,9", 5), ("m,a,w,b,", 5), ("m,a,w", 3), ("m", 1)])
@pytest.mark.parametrize("name", ["r.csv", "r.csv.gz", "r.csv.xz", "r.csv.zip"])
def test_the_check_names_file_and_line(tmp_path, bad, got, name):
    """pyarrow reads plain, .gz (and .bz2, .zst) files; the csv-module fallback the rest."""
    path = _ragged(tmp_path, 10, 6, bad, name)
    with pytest.raises(RaggedRowError) as info:
        check_field_counts(path)
    assert str(info.value) == _message(path, 8, got, bad)


def test_the_fallback_without_pyarrow_agrees(tmp_path):
    path = _ragged(tmp_path, 10, 6, "m,a,w", "plain.csv")
    with pytest.raises(RaggedRowError) as info:
        _check_with_csv_module(path, ",", None)
    assert str(info.value) == _message(path, 8, 3, "m,a,w")


def test_quoted_delimiters_and_newlines_are_not_fields(tmp_path):
    path = tmp_path / "q.csv"
    path.write_text('g,t,pg,pt\n"m,x","a\nb",m,a\nw,b,w,b\n')
    check_field_counts(path)  # no error
    assert pd.read_csv(path).shape == (2, 4)


def test_in_memory_reader(tmp_path):
    path = _ragged(tmp_path, 10, 3, "m,a,w,b,9")
    blocks = [ColumnBlock("groups", "label", ("g",), "--group")]
    with pytest.raises(InputError) as info:
        read_blocks(path, blocks, role="data")
    assert str(info.value) == _message(path, 5, 5, "m,a,w,b,9")


def test_streamed_library_reader_beyond_the_first_block(tmp_path):
    """The bad row sits far past pyarrow's first block, so the schema read cannot see it."""
    path = _ragged(tmp_path, 300_000, 250_000, "m,a,w")
    with pytest.raises(ValueError, match="line 250002: 3 field"):
        counts_from_files(path, groups="g", tasks="t", groups_pred="pg", tasks_pred="pt")
    with pytest.raises(ValueError, match="line 250002: 3 field"):
        pattern_counts_from_files(path, groups="g", tasks="t", groups_pred="pg", tasks_pred="pt")


def test_duckdb_reader(tmp_path):
    pytest.importorskip("duckdb")
    path = _ragged(tmp_path, 10, 3, "m,a,w,b,9")
    with pytest.raises(ValueError) as info:
        counts_from_files(
            path, groups="g", tasks="t", groups_pred="pg", tasks_pred="pt", engine="duckdb"
        )
    assert str(info.value) == _message(path, 5, 5, "m,a,w,b,9")


@pytest.mark.parametrize(
    "stream, engine", [("on", "numpy"), ("on", "duckdb"), ("off", "numpy"), ("auto", "numpy")]
)
def test_every_cli_path(tmp_path, capsys, stream, engine):
    if engine == "duckdb":
        pytest.importorskip("duckdb")
    path = _ragged(tmp_path, 10, 2, "m,a,w,b,9")
    code = main(
        [
            "measure",
            str(path),
            "--group",
            "g",
            "--task",
            "t",
            "--pred-prefix",
            "p",
            "--stream",
            stream,
            "--engine",
            engine,
        ]
    )
    assert code == EXIT_USAGE
    err = " ".join(capsys.readouterr().err.split())
    assert " ".join(_message(path, 4, 5, "m,a,w,b,9").split()) in err


def test_thresholds_file(tmp_path):
    path = tmp_path / "th.csv"
    path.write_text("label,threshold\nman,0.5\nwoman,0.4,9\n")
    with pytest.raises(InputError, match=r"th\.csv, line 3: 3 field"):
        read_thresholds(path)


def test_well_formed_files_are_untouched(tmp_path):
    path = _ragged(tmp_path, 10, 3, "m,b,m,b")
    table = counts_from_files(path, groups="g", tasks="t", groups_pred="pg", tasks_pred="pt")
    frame = pd.read_csv(path)
    expected = CountTable.from_arrays(
        groups=frame["g"], tasks=frame["t"], groups_pred=frame["pg"], tasks_pred=frame["pt"]
    )
    np.testing.assert_array_equal(
        table.joint[("groups", "tasks")], expected.joint[("groups", "tasks")]
    )
