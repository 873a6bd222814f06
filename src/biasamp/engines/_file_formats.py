"""File formats the engines read: Parquet and CSV, through pyarrow.

Shared by the streaming reader (:mod:`biasamp.engines._files`) and the DuckDB
engine (:mod:`biasamp.engines._duckdb`), so neither imports the other's internals.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

__all__ = ["ERR_FILE_FORMAT", "ERR_FORMAT_ARG", "ERR_PYARROW", "file_format_of", "file_schema"]

ERR_FILE_FORMAT = (
    "{path}: cannot tell the file format from its name; pass file_format='parquet' or 'csv'."
)
ERR_FORMAT_ARG = "file_format: expected 'parquet' or 'csv', got {got!r}."
ERR_PYARROW = "Reading files needs pyarrow: pip install 'biasamp[parquet]'."


def _pyarrow() -> Any:
    try:
        import pyarrow  # noqa: F401
        import pyarrow.compute  # noqa: F401
    except ImportError as exc:  # pragma: no cover - pyarrow is a test dependency
        raise ImportError(ERR_PYARROW) from exc
    return pyarrow


def file_format_of(path: str | os.PathLike[str], file_format: str | None = None) -> str:
    """``"parquet"`` or ``"csv"``, from ``file_format`` or the file name."""
    if file_format is not None:
        if file_format not in ("parquet", "csv"):
            raise ValueError(ERR_FORMAT_ARG.format(got=file_format))
        return file_format
    name = Path(path).name.lower()
    if name.endswith((".parquet", ".pq", ".parq")):
        return "parquet"
    if any(name.endswith(ext) for ext in (".csv", ".csv.gz", ".csv.bz2", ".csv.zst", ".tsv")):
        return "csv"
    raise ValueError(ERR_FILE_FORMAT.format(path=path))


def _schema(path: str, fmt: str) -> Any:
    pa = _pyarrow()
    if fmt == "parquet":
        import pyarrow.parquet as pq

        return pq.read_schema(path)
    import pyarrow.csv as pcsv

    with pcsv.open_csv(path) as reader:
        schema = reader.schema
    return pa.schema(schema)


def file_schema(path: str, file_format: str | None = None) -> Any:
    """The pyarrow schema of a Parquet file, or the inferred one of a CSV file."""
    return _schema(path, file_format_of(path, file_format))
