"""Frames in memory where the audit takes files: pandas, polars and pyarrow tables.

Every keyword of :func:`biasamp.audit` that names a file (``data``, ``pred``,
``train``, ``tasks_long``, ``pred_tasks_long``, ``train_tasks_long``,
``calibrate_on``, ``calibrate_pred``) also takes a frame: a pandas or polars
``DataFrame`` or a pyarrow ``Table``. The frame is written, as Arrow holds it,
to a Parquet file in a private temporary directory and read back by the
audit's one validating reader (:mod:`biasamp.engines._file_reader`), so the
layout, the checks, the values and the messages are those of the same data in
a file; the directory is removed when the audit returns. In the result and in
every message the temporary path reads ``<pandas.DataFrame data=>`` (the kind
of frame and its keyword); the record of the input keeps the rows and the
SHA-256 of the Parquet bytes it was read from.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

__all__ = [
    "ERR_FRAME_CONVERT",
    "ERR_FRAME_TYPE",
    "FRAME_ARGUMENTS",
    "frame_kind",
    "frames_as_files",
    "shown_frames",
]

#: The keywords of :func:`biasamp.audit` that take a file or a frame.
FRAME_ARGUMENTS = (
    "data",
    "pred",
    "train",
    "tasks_long",
    "pred_tasks_long",
    "train_tasks_long",
    "calibrate_on",
    "calibrate_pred",
)

ERR_FRAME_TYPE = (
    "{argument}=: expected the path of a CSV or Parquet file, or a pandas or polars "
    "DataFrame or a pyarrow Table, got {got}."
)

ERR_FRAME_CONVERT = (
    "{argument}=: the {kind} cannot be read as a table of typed columns ({detail}); give "
    "each column one type (labels as text, 0/1 indicators and scores as numbers)."
)

_FRAME_TYPES = {
    ("pandas", "DataFrame"): "pandas.DataFrame",
    ("polars", "DataFrame"): "polars.DataFrame",
    ("pyarrow", "Table"): "pyarrow.Table",
}


def frame_kind(value: Any) -> str | None:
    """``"pandas.DataFrame"``, ``"polars.DataFrame"``, ``"pyarrow.Table"`` or ``None``
    (read from the type's module, so no frame library is imported here)."""
    for cls in type(value).__mro__:
        root = (cls.__module__ or "").split(".", 1)[0]
        kind = _FRAME_TYPES.get((root, cls.__name__))
        if kind is not None:
            return kind
    return None


def _arrow_table(value: Any, kind: str, argument: str) -> Any:
    """The frame as a pyarrow Table (a pandas index is not a column); a column of mixed
    types is refused naming the keyword and the column."""
    import pyarrow as pa

    if kind == "pyarrow.Table":
        return value
    try:
        if kind == "polars.DataFrame":
            return value.to_arrow()
        frame = value.copy(deep=False)
        frame.columns = [str(c) for c in frame.columns]
        return pa.Table.from_pandas(frame, preserve_index=False)
    except (pa.ArrowException, TypeError, ValueError) as exc:
        detail = "; ".join(str(a) for a in exc.args) if exc.args else type(exc).__name__
        raise ValueError(
            ERR_FRAME_CONVERT.format(argument=argument, kind=kind, detail=detail)
        ) from None


def shown_frames(text: str, shown: Mapping[str, str]) -> str:
    """``text`` with each temporary path replaced by how its frame is shown."""
    for path, label in shown.items():
        text = text.replace(path, label)
    return text


@contextmanager
def frames_as_files(values: Mapping[str, Any]) -> Iterator[tuple[dict[str, str], dict[str, str]]]:
    """Write the frames among ``values`` (keyword -> value) to Parquet files.

    Yields
    ------
    paths : dict
        keyword -> the temporary file of its frame (only the frames).
    shown : dict
        temporary path -> ``"<pandas.DataFrame data=>"``, how messages show it.
    """
    import pyarrow.parquet as pq

    frames = {k: (v, frame_kind(v)) for k, v in values.items()}
    frames = {k: (v, kind) for k, (v, kind) in frames.items() if kind is not None}
    with tempfile.TemporaryDirectory(prefix="biasamp-frames-") as root:
        paths: dict[str, str] = {}
        shown: dict[str, str] = {}
        for argument, (value, kind) in frames.items():
            path = os.path.join(root, f"{argument}.parquet")
            assert kind is not None
            pq.write_table(_arrow_table(value, kind, argument), path)
            paths[argument] = path
            shown[path] = f"<{kind} {argument}=>"
        yield paths, shown
