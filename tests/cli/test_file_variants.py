"""Every file variant through every reader path: the in-memory value, or one clear error.

The variants of a delimited file a user may hand over (delimiters, quoting, a
BOM, CRLF and CR line ends, invalid UTF-8, latin-1, UTF-16, NUL bytes, every
compression intact, truncated, corrupt or unnamed, many columns, duplicate and
twin names, huge fields, empty cells) run through the five reader paths:

* the library's numpy engine (``counts_from_files(engine="numpy")``),
* the library's DuckDB engine (``engine="duckdb"``),
* the command line in memory (``biasamp measure --stream off``),
* the command line streamed on the numpy engine and on DuckDB.

Each path gives the value of the variant's logical table counted in memory
(``directional`` A->T on the command line, the count table in the library), or
an :class:`~biasamp.engines._file_formats.InputError` (exit code 2 on the
command line) whose message starts with the variant's file and problem. The
DuckDB engine, asked for by name, refuses another delimiter than ``,`` with
the reason (the library's ``ERR_DELIMITER_ENGINE``; the command line's names
the file); files DuckDB cannot read otherwise are counted by the numpy engine.
"""

from __future__ import annotations

import bz2
import gzip
import io
import json
import lzma
import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from biasamp import CountTable, counts_from_files, directional
from biasamp.cli.main import main
from biasamp.engines._file_formats import (
    ERR_COMPRESSED,
    ERR_COMPRESSED_NAME,
    ERR_MISSING_VALUES,
    ERR_NOT_COMPRESSED,
    ERR_NOT_UTF8,
    ERR_PARQUET,
    InputError,
)
from biasamp.engines._file_reader import ERR_DUPLICATE_COLUMNS
from biasamp.engines._files import ERR_DELIMITER_ENGINE

pa = pytest.importorskip("pyarrow")
pytest.importorskip("duckdb")

ROWS = 40
PATHS = ["numpy", "duckdb", "cli-memory", "cli-numpy", "cli-duckdb"]
#: The refusal of ``--engine duckdb`` for a file DuckDB does not read (it names the file).
DUCKDB_REFUSAL = "the DuckDB engine reads"


def base_frame(groups=("m", "w"), rows: int = ROWS) -> pd.DataFrame:
    i = np.arange(rows)
    return pd.DataFrame(
        {
            "g": np.asarray(groups, dtype=object)[i % len(groups)],
            "t": i % 3 % 2,
            "pred_t": i % 5 % 2,
        }
    )


def csv_text(frame: pd.DataFrame, *, sep: str = ",", newline: str = "\n", quote: bool = False):
    lines = [sep.join(frame.columns)]
    for row in frame.itertuples(index=False):
        cells = [str(v) for v in row]
        if quote:
            cells = ['"' + c.replace('"', '""') + '"' for c in cells]
        lines.append(sep.join(cells))
    return newline.join(lines) + newline


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


COMPRESSIONS = {
    ".gz": ("gzip", gzip.compress),
    ".bz2": ("bz2", bz2.compress),
    ".xz": ("xz", lzma.compress),
    ".zst": ("zstd", zstd),
    ".zip": ("zip", zipped),
}


@dataclass(frozen=True)
class Variant:
    """A file: its name and bytes; the logical table it holds (None: it must be refused)
    and the refusal's message up to its detail (``{file}`` is the file's path)."""

    name: str
    data: bytes
    frame: pd.DataFrame | None = None
    error: str | None = None
    delimiter: str | None = None


def _prefix(template: str, **values: object) -> str:
    return template.split("(")[0].format(file="{file}", **values)


def _with_columns(text: str, name: str, value) -> str:
    """``text`` with one more column ``name`` (data row ``i``: ``value(i)``)."""
    lines = text.splitlines()
    rows = [f"{lines[0]},{name}"] + [f"{line},{value(i)}" for i, line in enumerate(lines[1:])]
    return "\n".join(rows) + "\n"


def _variants() -> list[Variant]:
    frame = base_frame()
    text = csv_text(frame)
    raw = text.encode()
    out = [
        Variant("comma.csv", raw, frame),
        Variant("semicolon.csv", csv_text(frame, sep=";").encode(), frame, delimiter=";"),
        Variant("tab.tsv", csv_text(frame, sep="\t").encode(), frame),
        Variant("pipe.csv", csv_text(frame, sep="|").encode(), frame, delimiter="|"),
        Variant("quoted.csv", csv_text(frame, quote=True).encode(), frame),
        Variant(
            "quoted_delimiters.csv",
            csv_text(base_frame(("m, jr", 'w "x"\nz')), quote=True).encode(),
            base_frame(("m, jr", 'w "x"\nz')),
        ),
        Variant("bom.csv", b"\xef\xbb\xbf" + raw, frame),
        Variant("crlf.csv", csv_text(frame, newline="\r\n").encode(), frame),
        Variant("cr.csv", csv_text(frame, newline="\r").encode(), frame),
        Variant(
            "invalid_utf8.csv",
            text.replace("\nm,", "\nm\xff,", 1).encode("latin-1"),
            error=_prefix(ERR_NOT_UTF8),
        ),
        Variant(
            "latin1.csv",
            csv_text(base_frame(("m\xe9", "w"))).encode("latin-1"),
            error=_prefix(ERR_NOT_UTF8),
        ),
        Variant("utf16.csv", text.encode("utf-16"), error=_prefix(ERR_NOT_UTF8)),
        Variant(
            "nul.csv", csv_text(base_frame(("m\x00x", "w"))).encode(), base_frame(("m\x00x", "w"))
        ),
        Variant(
            "empty_label.csv",
            text.replace("\nw,", "\n,", 1).encode(),
            error=ERR_MISSING_VALUES.format(file="{file}", column="g", count=1, row=2),
        ),
        Variant(
            "duplicate_used.csv",
            _with_columns(text, "g", lambda i: "mw"[(i + 1) % 2]).encode(),
            error=_prefix(ERR_DUPLICATE_COLUMNS),
        ),
        Variant(
            "duplicate_unused.csv",
            _with_columns(_with_columns(text, "x", str), "x", str).encode(),
            error=_prefix(ERR_DUPLICATE_COLUMNS),
        ),
        Variant(
            "twin_escaped.csv",  # '=x is the spreadsheet-safe form of =x: one name twice
            _with_columns(_with_columns(text, "=x", str), "'=x", str).encode(),
            error=_prefix(ERR_DUPLICATE_COLUMNS),
        ),
        Variant(
            "twin_case.csv",
            csv_text(frame.assign(G=frame["g"].map({"m": "w", "w": "m"}))).encode(),
            frame,
        ),
        Variant(
            "huge_field.csv",
            csv_text(
                frame.assign(note=["x" * (5_000_000 if i == 3 else 1) for i in range(ROWS)])
            ).encode(),
            frame,
        ),
    ]
    for suffix, (compression, compress) in COMPRESSIONS.items():
        packed = compress(raw)
        out += [
            Variant(f"ok.csv{suffix}", packed, frame),
            Variant(
                f"truncated.csv{suffix}",
                packed[:-25],
                error=_prefix(ERR_COMPRESSED, compression=compression),
            ),
            Variant(
                f"unnamed_{compression}.csv",
                packed,
                error=_prefix(
                    ERR_COMPRESSED_NAME,
                    compression=compression,
                    suffix=suffix,
                    example=f"unnamed_{compression}.csv{suffix}",
                ),
            ),
            Variant(
                f"plain.csv{suffix}",
                raw,
                error=_prefix(
                    ERR_NOT_COMPRESSED, suffix=suffix, compression=compression, start=b"g,t,"
                ),
            ),
        ]
    sink = io.BytesIO()
    frame.to_parquet(sink, index=False)
    parquet = sink.getvalue()
    out += [
        Variant("ok.parquet", parquet, frame),
        Variant("truncated.parquet", parquet[: len(parquet) // 2], error=_prefix(ERR_PARQUET)),
        Variant(
            "damaged.parquet",
            parquet[:200] + b"\x00" * 300 + parquet[500:],
            error=_prefix(ERR_PARQUET),
        ),
        Variant("text.parquet", raw, error=_prefix(ERR_PARQUET)),
    ]
    packed = gzip.compress(raw)
    out.append(
        Variant(
            "corrupt.csv.gz",
            packed[:12] + b"\xff" * 30 + packed[42:],
            error=_prefix(ERR_COMPRESSED, compression="gzip"),
        )
    )
    archive = zipped(raw)
    out.append(
        Variant(
            "corrupt.csv.zip",
            archive[:40] + b"\x00" * 20 + archive[60:],
            error=_prefix(ERR_COMPRESSED, compression="zip"),
        )
    )
    return out


VARIANTS = _variants()


def _wide(n_columns: int, rows: int = ROWS) -> Variant:
    frame = base_frame(rows=rows)
    extra = pd.DataFrame(
        np.zeros((rows, n_columns), dtype=np.int8), columns=[f"c{j}" for j in range(n_columns)]
    )
    wide = pd.concat([frame, extra], axis=1)
    return Variant(f"wide{n_columns}.csv", wide.to_csv(index=False).encode(), frame)


def _expected_table(frame: pd.DataFrame) -> CountTable:
    return CountTable.from_arrays(
        groups=frame["g"].to_numpy(dtype=object),
        tasks=frame[["t"]],
        tasks_pred=frame[["pred_t"]].set_axis(["t"], axis=1),
    )


def _expected_value(frame: pd.DataFrame) -> float:
    return directional(
        groups=frame["g"].to_numpy(dtype=object),
        tasks=frame[["t"]],
        tasks_pred=frame[["pred_t"]].set_axis(["t"], axis=1),
        direction="A->T",
    ).value


def _run(path_kind: str, path: Path, variant: Variant, tmp_path: Path, capsys):
    """The path's value (a count table or the metric's value), or its error message."""
    if path_kind in ("numpy", "duckdb"):
        try:
            return counts_from_files(
                str(path),
                groups="g",
                tasks=["t"],
                tasks_pred={"pred_t": "t"},
                engine=path_kind,
                delimiter=variant.delimiter,
            )
        except InputError as exc:
            return str(exc)
        except ValueError as exc:  # a documented refusal of the engine, not a file error
            return f"ValueError: {exc}"
    out = tmp_path / f"{path.name}.json"
    stream = {
        "cli-memory": ["--stream", "off"],
        "cli-numpy": ["--stream", "on", "--engine", "numpy"],
    }
    argv = [
        "measure",
        str(path),
        "--group",
        "g",
        "--task-cols",
        "t",
        "--pred-prefix",
        "pred_",
        "--metric",
        "directional-a2t",
        "--no-progress",
        "--json",
        str(out),
        *stream.get(path_kind, ["--stream", "on", "--engine", "duckdb"]),
        *(["--delimiter", variant.delimiter] if variant.delimiter else []),
    ]
    capsys.readouterr()
    code = main(argv)
    err = capsys.readouterr().err
    if code != 0:
        assert code == 2, err
        assert err.startswith("error: "), err
        return " ".join(err[len("error: ") :].split("\n"))
    return json.loads(out.read_text(encoding="utf-8"))["results"]["directional-a2t"]["value"]


def _check(path_kind: str, variant: Variant, tmp_path: Path, capsys) -> None:
    path = tmp_path / variant.name
    path.write_bytes(variant.data)
    got = _run(path_kind, path, variant, tmp_path, capsys)
    if variant.error is not None:
        assert isinstance(got, str), (path_kind, got)
        assert got.startswith(variant.error.format(file=path)), (path_kind, got)
        return
    if isinstance(got, str):  # DuckDB may refuse another delimiter than ',' with the reason
        assert variant.delimiter is not None or path.suffix == ".tsv", (path_kind, got)
        if path_kind == "duckdb":
            assert got == "ValueError: " + ERR_DELIMITER_ENGINE.format(
                got=variant.delimiter or "\t"
            )
        else:
            assert path_kind == "cli-duckdb" and f"{path}: {DUCKDB_REFUSAL}" in got, got
        return
    assert variant.frame is not None
    if path_kind in ("numpy", "duckdb"):
        expected = _expected_table(variant.frame)
        assert got.n_rows == len(variant.frame)
        assert got.group_names == expected.group_names
        for key in (("groups", "tasks"), ("groups", "tasks_pred")):
            np.testing.assert_array_equal(got.joint[key], expected.joint[key])
    else:
        assert got == pytest.approx(_expected_value(variant.frame), abs=1e-12)


@pytest.mark.parametrize("path_kind", PATHS)
@pytest.mark.parametrize("variant", VARIANTS, ids=[v.name for v in VARIANTS])
def test_every_variant_on_every_path(variant, path_kind, tmp_path, capsys):
    _check(path_kind, variant, tmp_path, capsys)


@pytest.mark.parametrize("path_kind", PATHS)
def test_a_wide_file_on_every_path(path_kind, tmp_path, capsys):
    _check(path_kind, _wide(2_000), tmp_path, capsys)


@pytest.mark.slow
@pytest.mark.parametrize("path_kind", ["numpy", "duckdb", "cli-memory"])
def test_a_file_of_100000_columns(path_kind, tmp_path, capsys):
    """DuckDB named its positional columns c0, c1, ...: a file whose own columns are named
    so raised ``BinderException: duplicate column name "c0"``."""
    _check(path_kind, _wide(100_000, rows=4), tmp_path, capsys)
