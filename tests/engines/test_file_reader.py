"""The validating reader reads delimited text through the engines' batch reader.

Label cells are read as they are written (``NA``, ``null``, ``01`` are labels, an
empty field is missing), numbers as pandas' parser read them (``1.0``, `` 1 ``,
``1e0``; ``nan`` is missing), every compression and delimiter the reader takes gives
the same arrays, the SHA-256 is the one of the file's bytes, and every refusal names
the file, the column and the data row (or the line of a ragged row).
"""

from __future__ import annotations

import bz2
import csv
import gzip
import hashlib
import io
import lzma
import zipfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from biasamp.engines._file_formats import (
    ERR_COMPRESSED,
    ERR_FIELD_COUNT,
    ERR_NOT_COMPRESSED,
    ERR_NOT_UTF8,
    ERR_ZIP_MEMBERS,
)
from biasamp.engines._file_reader import (
    ERR_CSV,
    ERR_MISSING_VALUES,
    ERR_NOT_BINARY,
    ERR_NOT_NUMERIC,
    HINT_SCORES,
    ColumnBlock,
    InputError,
    read_blocks,
    read_header,
)
from biasamp.engines._files import iter_file_batches

GROUP = ColumnBlock("groups", "label", ("g",), "--group")


def _blocks(kind: str, role: str = "tasks") -> list[ColumnBlock]:
    return [GROUP, ColumnBlock(role, kind, ("t",), "--task")]


def _write(path: Path, text: str) -> Path:
    path.write_bytes(text.encode("utf-8"))
    return path


@pytest.mark.parametrize(
    ("cell", "label"),
    [
        ("NA", "NA"),
        ("null", "null"),
        ("None", "None"),
        ("N/A", "N/A"),
        ("nan", "nan"),
        ("01", "01"),
        ("1.0", "1.0"),
        (" x ", " x "),
        ('"a,b"', "a,b"),
        ('"a\nb"', "a\nb"),
        ('"a""b"', 'a"b'),
        ("'=1", "=1"),  # spreadsheet-safe form of '=1'
        ("'x", "'x"),  # not an escape: kept
    ],
)
def test_label_cells_are_read_as_written(cell, label, tmp_path):
    path = _write(tmp_path / "d.csv", f"g,t\nm,a\n{cell},b\n")
    arrays, info = read_blocks(path, _blocks("label"), role="data")
    assert arrays["groups"].tolist() == ["m", label]
    assert arrays["tasks"].tolist() == ["a", "b"]
    assert info.n_rows == 2


@pytest.mark.parametrize("cell", ["", '""'])
def test_an_empty_label_is_missing(cell, tmp_path):
    path = _write(tmp_path / "d.csv", f"g,t\nm,a\nw,b\n{cell},c\n")
    with pytest.raises(InputError) as info:
        read_blocks(path, _blocks("label"), role="data")
    assert str(info.value) == ERR_MISSING_VALUES.format(file=path, column="g", count=1, row=3)


@pytest.mark.parametrize(
    ("cell", "value"),
    [
        ("1", 1),
        ("0", 0),
        ("1.0", 1),
        ("0.0", 0),
        ("-0", 0),
        (" 1", 1),
        ("1 ", 1),
        ("+1", 1),
        ("1e0", 1),
        ('"1"', 1),
        ("True", 1),
        ("true", 1),
        ("FALSE", 0),
    ],
)
def test_indicator_cells_that_are_0_or_1(cell, value, tmp_path):
    path = _write(tmp_path / "d.csv", f"g,t\nm,1\nw,{cell}\n")
    arrays, _ = read_blocks(path, _blocks("indicator"), role="data")
    assert arrays["tasks"].dtype == np.uint8
    assert arrays["tasks"].tolist() == [[1], [value]]


@pytest.mark.parametrize(
    ("cell", "shown"),
    [("NA", "'NA'"), ("null", "'null'"), ("0x1", "'0x1'"), ("2", "2"), ("1.5", "1.5")],
)
def test_indicator_cells_that_are_not_0_or_1(cell, shown, tmp_path):
    path = _write(tmp_path / "d.csv", f"g,t\nm,1\nw,0\nm,{cell}\n")
    with pytest.raises(InputError) as info:
        read_blocks(path, _blocks("indicator", "tasks_pred"), role="data")
    expected = ERR_NOT_BINARY.format(file=path, column="t", value="X", row=3)
    assert str(info.value) == expected.replace("'X'", shown) + HINT_SCORES


@pytest.mark.parametrize("cell", ["", '""', "nan", "NaN"])
def test_empty_and_nan_numbers_are_missing(cell, tmp_path):
    path = _write(tmp_path / "d.csv", f"g,t\nm,1\n{'w'},{cell}\n")
    with pytest.raises(InputError) as info:
        read_blocks(path, _blocks("indicator"), role="data")
    assert str(info.value) == ERR_MISSING_VALUES.format(file=path, column="t", count=1, row=2)


@pytest.mark.parametrize(("cell", "shown"), [("True", "'True'"), ("inf", "inf"), ("NA", "'NA'")])
def test_scores_must_be_finite_numbers(cell, shown, tmp_path):
    path = _write(tmp_path / "d.csv", f"g,t\nm,0.25\nw,{cell}\n")
    with pytest.raises(InputError) as info:
        read_blocks(path, _blocks("score"), role="data")
    expected = ERR_NOT_NUMERIC.format(file=path, column="t", value="X", row=2)
    assert str(info.value) == expected.replace("'X'", shown)
    good = _write(tmp_path / "good.csv", "g,t\nm,0.25\nw, 1e-1\n")
    arrays, _ = read_blocks(good, _blocks("score"), role="data")
    assert arrays["tasks"].tolist() == [[0.25], [0.1]]


def test_a_bad_value_is_named_by_its_data_row_across_chunks(tmp_path):
    rows = "".join(f"m,{i % 2}\n" for i in range(9)) + "w,2\n"
    path = _write(tmp_path / "d.csv", "g,t\n" + rows)
    with pytest.raises(InputError) as info:
        read_blocks(path, _blocks("indicator"), role="data", chunk_rows=3)
    assert str(info.value) == ERR_NOT_BINARY.format(file=path, column="t", value=2, row=10)


def test_bom_and_crlf_line_ends(tmp_path):
    plain = _write(tmp_path / "plain.csv", "g,t\nm,1\nw,0\n")
    windows = _write(tmp_path / "windows.csv", "\ufeffg,t\r\nm,1\r\nw,0\r\n")
    assert read_header(windows) == ("csv", ["g", "t"])
    expected, _ = read_blocks(plain, _blocks("indicator"), role="data")
    got, info = read_blocks(windows, _blocks("indicator"), role="data")
    assert got["groups"].tolist() == expected["groups"].tolist() == ["m", "w"]
    assert np.array_equal(got["tasks"], expected["tasks"])
    assert info.sha256 == hashlib.sha256(windows.read_bytes()).hexdigest()


TEXT = "g;t\nm;1\nw;0\n'=x;1\n"


def _compressed(folder: Path, suffix: str, data: bytes) -> Path:
    path = folder / f"d.csv{suffix}"
    if suffix == ".gz":
        path.write_bytes(gzip.compress(data))
    elif suffix == ".bz2":
        path.write_bytes(bz2.compress(data))
    elif suffix == ".xz":
        path.write_bytes(lzma.compress(data))
    elif suffix == ".zst":
        import pyarrow as pa

        with pa.CompressedOutputStream(str(path), "zstd") as out:
            out.write(data)
    elif suffix == ".zip":
        with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
            archive.writestr("d.csv", data)
    else:
        path.write_bytes(data)
    return path


@pytest.mark.parametrize("suffix", ["", ".gz", ".bz2", ".xz", ".zst", ".zip"])
def test_every_compression_gives_the_same_arrays_and_hashes_the_file(suffix, tmp_path):
    path = _compressed(tmp_path, suffix, TEXT.encode())
    assert read_header(path, delimiter=";") == ("csv", ["g", "t"])
    arrays, info = read_blocks(path, _blocks("indicator"), role="data", delimiter=";")
    assert arrays["groups"].tolist() == ["m", "w", "=x"]
    assert arrays["tasks"].tolist() == [[1], [0], [1]]
    assert (info.n_rows, info.format) == (3, "csv")
    assert info.sha256 == hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize("suffix", [".gz", ".xz", ".zip"])
def test_a_ragged_row_of_a_compressed_file_is_named_by_its_line(suffix, tmp_path):
    path = _compressed(tmp_path, suffix, b"g;t\nm;1\nw;0;1\n")
    with pytest.raises(InputError) as info:
        read_blocks(path, _blocks("indicator"), role="data", delimiter=";")
    assert str(info.value) == ERR_FIELD_COUNT.format(
        file=path, line=3, got=3, expected=2, text="w;0;1"
    )


def test_a_zip_file_must_hold_one_file(tmp_path):
    path = tmp_path / "d.csv.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("a.csv", "g,t\nm,1\n")
        archive.writestr("b.csv", "g,t\nw,0\n")
    with pytest.raises(InputError) as info:
        read_header(path)
    detail = ERR_ZIP_MEMBERS.format(file=path, count=2)
    assert str(info.value) == ERR_CSV.format(file=path, detail=detail)


def test_a_tsv_file_is_tab_delimited_for_the_reader_and_the_count_tables(tmp_path):
    path = _write(tmp_path / "d.tsv", "g\tt\nm,x\t1\nw\t0\n")
    arrays, _ = read_blocks(path, _blocks("indicator"), role="data")
    assert arrays["groups"].tolist() == ["m,x", "w"]
    batch = next(iter_file_batches(str(path), ["g", "t"], chunk_size=10, file_format="csv"))
    assert batch.column("g").to_pylist() == ["m,x", "w"]
    assert batch.column("t").to_pylist() == [1, 0]


@settings(max_examples=40, deadline=None)
@given(
    labels=st.lists(
        st.text(
            alphabet=st.characters(codec="utf-8", exclude_characters="\r\x00"),
            min_size=1,
            max_size=6,
        ).filter(lambda s: s.strip() != "" or s == " "),
        min_size=1,
        max_size=8,
    ),
    delimiter=st.sampled_from([",", ";", "\t", "|"]),
)
def test_quoted_labels_round_trip(labels, delimiter, tmp_path_factory):
    """Labels written by Python's csv module (quoting delimiters, quotes and newlines) read
    back as they were written, with any delimiter."""
    folder = tmp_path_factory.mktemp("round")
    text = io.StringIO()
    writer = csv.writer(text, delimiter=delimiter, lineterminator="\n")
    writer.writerow(["g", "t"])
    writer.writerows([label, "1"] for label in labels)
    path = _write(folder / "d.csv", text.getvalue())
    arrays, info = read_blocks(path, _blocks("indicator"), role="data", delimiter=delimiter)
    escaped = {"=", "+", "-", "@", "\t", "\r", "'"}
    expected = [x[1:] if x[:1] == "'" and x[1:2] in escaped else x for x in labels]
    assert arrays["groups"].tolist() == expected
    assert info.n_rows == len(labels)


def test_the_duckdb_engine_refuses_files_it_does_not_read_as_delimited(tmp_path):
    duckdb = pytest.importorskip("duckdb")
    assert duckdb is not None
    from biasamp import counts_from_files
    from biasamp.engines._files import ERR_DELIMITER_ENGINE

    path = _write(tmp_path / "d.tsv", "g\tt\tp\nm\t1\t1\nw\t0\t1\n")
    roles = {"groups": "g", "tasks": ["t"], "tasks_pred": {"p": "t"}}
    with pytest.raises(ValueError) as info:
        counts_from_files(path, **roles, engine="duckdb")
    assert str(info.value) == ERR_DELIMITER_ENGINE.format(got="\t")
    table = counts_from_files(path, **roles, engine="numpy")
    assert table.joint[("groups", "tasks_pred")].tolist() == [[1.0], [1.0]]


@pytest.mark.parametrize(
    ("name", "fmt"),
    [
        ("d.csv", "csv"),
        ("d.tsv", "csv"),
        ("d.csv.gz", "csv"),
        ("d.tsv.bz2", "csv"),
        ("d.csv.xz", "csv"),
        ("d.CSV.ZST", "csv"),
        ("d.csv.zip", "csv"),
        ("d.parquet", "parquet"),
    ],
)
def test_the_engines_know_every_delimited_name(name, fmt):
    from biasamp.engines._file_formats import file_format_of

    assert file_format_of(name) == fmt


def test_the_count_tables_read_quoted_newlines_and_delimiters(tmp_path):
    """The engines' reader takes what the validating reader takes: a label with the
    delimiter and a newline inside quotes, in a ';'-delimited .xz file."""
    from biasamp import counts_from_files

    data = b'g;t;p\n"m;\nx";1;1\nw;0;1\n"m;\nx";0;0\n'
    path = _compressed(tmp_path, ".xz", data)
    table = counts_from_files(
        path, groups="g", tasks=["t"], tasks_pred={"p": "t"}, delimiter=";", chunk_size=1
    )
    assert table.group_names == ("m;\nx", "w")
    assert table.joint[("groups", "tasks_pred")].tolist() == [[1.0], [1.0]]
    arrays, _ = read_blocks(path, _blocks("indicator"), role="data", delimiter=";")
    assert arrays["groups"].tolist() == ["m;\nx", "w", "m;\nx"]


@pytest.mark.parametrize(
    ("name", "data", "message"),
    [
        ("empty.csv.gz", gzip.compress(b"", mtime=0), "{file}: the file is empty."),
        ("blank.csv", b"\n\n", "{file}: the file is empty."),
        (
            "header.csv.xz",
            lzma.compress(b"g,t\n"),
            "{file}: the file has a header but no data rows.",
        ),
        (
            "corrupt.csv.gz",
            b"\x1f\x8b\x08\x00" + b"garbage" * 8,
            ERR_COMPRESSED.split("(")[0].replace("{compression}", "gzip"),
        ),
        (
            "not.csv.zip",
            b"hello",
            ERR_NOT_COMPRESSED.split("(")[0].format(
                file="{file}", suffix=".zip", compression="zip"
            ),
        ),
        ("latin.csv", b"g,t\nm\xff,1\n", ERR_NOT_UTF8.split("(")[0]),
    ],
)
def test_unreadable_files_are_input_errors_naming_the_file(name, data, message, tmp_path):
    path = tmp_path / name
    path.write_bytes(data)
    with pytest.raises(InputError) as info:
        read_blocks(path, _blocks("indicator"), role="data")
    assert str(info.value).startswith(message.format(file=path))
