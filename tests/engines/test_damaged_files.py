"""Damaged files through the library's engines: one InputError naming the file and the problem.

A truncated or corrupt compressed file, a compressed file whose name lacks its
suffix (and a plain file named as compressed), text that is not UTF-8, an empty
label field and a field larger than the reader's first block: each reaches the
user as :class:`~biasamp.engines._file_formats.InputError` (a ``ValueError``),
never as the decompressors', pyarrow's or DuckDB's own exceptions. The full
matrix of variants over every reader path is ``tests/engines/test_file_variants.py``.
"""

from __future__ import annotations

import bz2
import gzip
import hashlib
import io
import lzma
import zipfile

import pytest

from biasamp import counts_from_files, pattern_counts_from_files
from biasamp.engines._file_formats import (
    ERR_COMPRESSED,
    ERR_COMPRESSED_NAME,
    ERR_MISSING_VALUES,
    ERR_NOT_COMPRESSED,
    ERR_NOT_UTF8,
    ERR_ROW_TOO_LARGE,
    MAX_BLOCK_BYTES,
    ForwardOnce,
    InputError,
    grown_block_size,
)
from biasamp.engines._file_reader import ColumnBlock, read_blocks
from biasamp.engines._files import iter_file_batches

pa = pytest.importorskip("pyarrow")

ENGINES = ["numpy", "duckdb"]
ROWS = 40
TEXT = "g,t,pred_t\n" + "".join(f"{'mw'[i % 2]},{i % 3 % 2},{i % 5 % 2}\n" for i in range(ROWS))
ROLES = dict(groups="g", tasks=["t"], tasks_pred={"pred_t": "t"})


def zstd(data: bytes) -> bytes:
    sink = pa.BufferOutputStream()
    with pa.CompressedOutputStream(sink, "zstd") as stream:
        stream.write(data)
    return sink.getvalue().to_pybytes()


def zipped(data: bytes) -> bytes:
    sink = io.BytesIO()
    with zipfile.ZipFile(sink, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("labels.csv", data)
    return sink.getvalue()


COMPRESS = {
    ".gz": ("gzip", gzip.compress),
    ".bz2": ("bz2", bz2.compress),
    ".xz": ("xz", lzma.compress),
    ".zst": ("zstd", zstd),
    ".zip": ("zip", zipped),
}


def prefix(template: str, **values: object) -> str:
    """The message of ``template`` up to its first ``(``: what every variant shares."""
    return template.split("(")[0].format(**values)


def _messages(path, engine):
    with pytest.raises(InputError) as info:
        counts_from_files(str(path), **ROLES, engine=engine)
    return str(info.value)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("suffix", list(COMPRESS))
def test_truncated_compressed_files_name_the_file(suffix, engine, tmp_path):
    compression, compress = COMPRESS[suffix]
    path = tmp_path / f"labels.csv{suffix}"
    path.write_bytes(compress(TEXT.encode())[:-25])
    message = _messages(path, engine)
    assert message.startswith(prefix(ERR_COMPRESSED, file=path, compression=compression))


@pytest.mark.parametrize("engine", ENGINES)
def test_corrupt_gzip_and_zip_name_the_file(engine, tmp_path):
    good = gzip.compress(TEXT.encode())
    path = tmp_path / "labels.csv.gz"
    path.write_bytes(good[:12] + b"\xff" * 30 + good[42:])
    assert _messages(path, engine).startswith(prefix(ERR_COMPRESSED, file=path, compression="gzip"))
    archive = zipped(TEXT.encode())
    path = tmp_path / "labels.csv.zip"
    path.write_bytes(archive[:40] + b"\x00" * 20 + archive[60:])  # bad CRC of the member
    assert _messages(path, engine).startswith(prefix(ERR_COMPRESSED, file=path, compression="zip"))


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("suffix", list(COMPRESS))
def test_a_compressed_file_named_csv_is_named_so(suffix, engine, tmp_path):
    compression, compress = COMPRESS[suffix]
    path = tmp_path / "labels.csv"
    path.write_bytes(compress(TEXT.encode()))
    assert _messages(path, engine) == ERR_COMPRESSED_NAME.format(
        file=path, compression=compression, suffix=suffix, example=f"labels.csv{suffix}"
    )


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("suffix", list(COMPRESS))
def test_a_plain_file_named_compressed_is_named_so(suffix, engine, tmp_path):
    compression = COMPRESS[suffix][0]
    path = tmp_path / f"labels.csv{suffix}"
    path.write_text(TEXT)
    assert _messages(path, engine) == ERR_NOT_COMPRESSED.format(
        file=path, suffix=suffix, compression=compression, start=b"g,t,"
    )


@pytest.mark.parametrize("engine", ENGINES)
def test_text_that_is_not_utf8_is_named_so(engine, tmp_path):
    path = tmp_path / "latin.csv"
    path.write_bytes(TEXT.replace("m,", "m\xe9,", 1).encode("latin-1"))
    assert _messages(path, engine).startswith(prefix(ERR_NOT_UTF8, file=path))
    path = tmp_path / "utf16.csv"
    path.write_bytes(TEXT.encode("utf-16"))
    assert _messages(path, engine) == ERR_NOT_UTF8.format(file=path, detail="it is UTF-16 text")


@pytest.mark.parametrize("engine", ["numpy", "duckdb"])
def test_invalid_utf8_in_an_unused_column_is_counted(engine, tmp_path):
    """DuckDB refuses the whole file; the row reader converts only the used columns: the
    table is the plain file's, on both engines."""
    plain = tmp_path / "plain.csv"
    plain.write_text(TEXT)
    lines = TEXT.splitlines(keepends=True)
    dirty = tmp_path / "dirty.csv"
    dirty.write_bytes(
        b"".join(
            (line.rstrip("\n") + ("," + ("junk" if i == 0 else "\xff")) + "\n").encode("latin-1")
            for i, line in enumerate(lines)
        )
    )
    expected = counts_from_files(str(plain), **ROLES)
    got = counts_from_files(str(dirty), **ROLES, engine=engine)
    assert got.joint[("groups", "tasks_pred")].tolist() == (
        expected.joint[("groups", "tasks_pred")].tolist()
    )


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("suffix", [".bz2", ".xz", ".zip"])
def test_duckdb_counts_compressions_it_cannot_read_through_numpy(suffix, engine, tmp_path):
    path = tmp_path / f"labels.csv{suffix}"
    path.write_bytes(COMPRESS[suffix][1](TEXT.encode()))
    table = counts_from_files(str(path), **ROLES, engine=engine)
    assert table.n_rows == ROWS
    # rows 0..39: g alternates m, w; t = i % 3 % 2; pred_t = i % 5 % 2
    pred = [[sum(1 for i in range(g, ROWS, 2) if i % 5 % 2)] for g in (0, 1)]  # m, w
    assert table.joint[("groups", "tasks_pred")].tolist() == pred == [[8.0], [8.0]]
    patterns = pattern_counts_from_files(str(path), groups="g", tasks=["t"], engine=engine)
    assert patterns.n_rows == ROWS


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("fmt", ["csv", "csv.gz"])
def test_an_empty_label_field_is_missing_not_a_group(fmt, engine, tmp_path):
    """The numpy engine counted an empty label cell as a group named ''; every engine now
    names the file, column and row, as the command line does."""
    text = TEXT.replace("\nw,", "\n,", 2)  # data rows 2 and 4 have no group
    path = tmp_path / f"labels.{fmt}"
    path.write_bytes(gzip.compress(text.encode()) if fmt.endswith("gz") else text.encode())
    message = _messages(path, engine)
    assert message == ERR_MISSING_VALUES.format(file=path, column="g", count=2, row=2)
    with pytest.raises(InputError, match="missing value"):
        pattern_counts_from_files(str(path), groups="g", tasks=["t"], engine=engine)


def test_an_empty_label_field_names_its_row_in_a_later_chunk(tmp_path):
    lines = TEXT.splitlines(keepends=True)
    lines[31] = "," + lines[31].split(",", 1)[1]  # data row 31
    path = tmp_path / "labels.csv"
    path.write_text("".join(lines))
    with pytest.raises(InputError) as info:
        counts_from_files(str(path), **ROLES, chunk_size=8)
    assert str(info.value).startswith(f"{path}, column 'g': 1 missing value(s)")
    assert str(info.value).endswith("the first in data row 31.")


def _huge_field_file(tmp_path, size: int, row: int = 3):
    header = "g,t,pred_t,note\n"
    body = "".join(
        f"{'mw'[i % 2]},{i % 3 % 2},{i % 5 % 2},{'x' * (size if i == row else 1)}\n"
        for i in range(ROWS)
    )
    path = tmp_path / "huge.csv"
    path.write_text(header + body)
    return path


@pytest.mark.parametrize("engine", ENGINES)
def test_a_field_larger_than_the_block_is_read(engine, tmp_path):
    """A 5 MB field in an unused column: the reader grows its block (1 MiB at first)."""
    path = _huge_field_file(tmp_path, 5_000_000)
    expected = counts_from_files(str(_plain(tmp_path)), **ROLES)
    table = counts_from_files(str(path), **ROLES, engine=engine, chunk_size=7)
    assert table.n_rows == ROWS
    assert table.joint[("groups", "tasks_pred")].tolist() == (
        expected.joint[("groups", "tasks_pred")].tolist()
    )


def _plain(tmp_path):
    path = tmp_path / "plain.csv"
    path.write_text(TEXT)
    return path


def test_the_validating_reader_reads_a_huge_field_and_hashes_the_file_once(tmp_path):
    path = _huge_field_file(tmp_path, 3_000_000, row=30)
    blocks = [ColumnBlock("groups", "label", ("g",), "--group")]
    arrays, info = read_blocks(path, blocks, role="data", chunk_rows=5)
    assert arrays["groups"].tolist() == ["mw"[i % 2] for i in range(ROWS)]
    assert info.sha256 == hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_row_beyond_the_largest_block_names_the_file_row_and_limit(tmp_path, monkeypatch):
    from biasamp.engines import _file_formats

    monkeypatch.setattr(_file_formats, "MAX_BLOCK_BYTES", 1 << 21)  # 2 MiB instead of 256
    path = _huge_field_file(tmp_path, 6_000_000, row=20)
    with pytest.raises(InputError) as info:
        list(iter_file_batches(str(path), ["g"], chunk_size=1000, file_format="csv"))
    assert str(info.value) == ERR_ROW_TOO_LARGE.format(file=path, row=20, limit=1 << 21)


def test_grown_block_size_stops_at_the_limit():
    straddling = pa.ArrowInvalid("straddling object straddles two block boundaries")
    assert grown_block_size(straddling, 1 << 20) == 1 << 22
    assert grown_block_size(straddling, MAX_BLOCK_BYTES // 2) == MAX_BLOCK_BYTES
    assert grown_block_size(straddling, MAX_BLOCK_BYTES) is None
    assert grown_block_size(pa.ArrowInvalid("CSV parse error"), 1 << 20) is None


def test_forward_once_hashes_each_byte_once_over_retried_reads():
    data = bytes(range(256)) * 40
    digest = hashlib.sha256()
    forward = ForwardOnce(digest)
    for stop in (1000, 4000, len(data)):  # three reads from the start, each further
        forward.restart()
        for start in range(0, stop, 700):
            forward.update(data[start : min(start + 700, stop)])
    assert digest.hexdigest() == hashlib.sha256(data).hexdigest()


@pytest.mark.parametrize("engine", ENGINES)
def test_a_damaged_parquet_file_names_the_file(engine, tmp_path):
    """It raised pyarrow's ArrowInvalid or OSError ("Couldn't deserialize thrift"), no file."""
    import pandas as pd

    from biasamp.engines._file_formats import ERR_PARQUET

    sink = io.BytesIO()
    pd.read_csv(io.StringIO(TEXT)).to_parquet(sink, index=False)
    data = sink.getvalue()
    for name, damaged in (
        ("truncated.parquet", data[: len(data) // 2]),
        ("damaged.parquet", data[:200] + b"\x00" * 300 + data[500:]),
        ("text.parquet", TEXT.encode()),
    ):
        path = tmp_path / name
        path.write_bytes(damaged)
        assert _messages(path, engine).startswith(prefix(ERR_PARQUET, file=path))
