"""Save and load count tables: ``.npz`` files written atomically, loaded without pickle.

A saved table is the state of a long count (a partition, a day of logs, a
training split): merge it later with other tables of the same label space.
The file is written to a temporary file and renamed (:func:`atomic_output`),
so an interrupted run never leaves a truncated table behind. Label names are
stored as JSON (strings, integers, floats, booleans); ``numpy.load`` runs with
``allow_pickle=False``.

A table with an online bootstrap (:meth:`CountTable.empty` with ``n_boot``)
keeps its replicate counts, its seed and its next row position (format 2, as
are :class:`PatternCountTable` files, whose pattern keys are stored as uint32
words), so tables saved by separate workers load and merge into exactly the
table one process would have counted: any job system can reduce them, no
pickle involved.
"""

from __future__ import annotations

import json
import os
import zipfile
from typing import Any

import numpy as np

from biasamp.counts._count_table import CountTable
from biasamp.counts._pattern_counts import PatternCountTable
from biasamp.counts._poisson import PoissonReplicates
from biasamp.inputs._paths import checked_path
from biasamp.output._atomic import atomic_output
from biasamp.output._targets import check_written_output, input_files_of

__all__ = ["save_counts", "load_counts"]

FORMAT_VERSION = 2  # 2: online bootstrap (replicates, seed, next row), pattern tables
ERR_SAVE_TYPE = "table: expected a CountTable or PatternCountTable, got {type_name}."
ERR_NAMES_JSON = (
    "table: label names must be strings, integers, floats or booleans to be saved; got {examples}."
)
ERR_NOT_COUNTS = "{path}: not a biasamp count table file (missing {missing})."
ERR_NOT_NPZ = "{path}: not a biasamp count table file (not an .npz archive from save_counts)."
ERR_VERSION = "{path}: count table format {got} is newer than this biasamp reads ({supported})."


def _plain(value: Any) -> Any:
    if isinstance(value, np.generic):
        value = value.item()
    if not isinstance(value, (str, int, float, bool)):
        raise TypeError(ERR_NAMES_JSON.format(examples=repr(value)))
    return value


def _json_array(obj: Any) -> np.ndarray:
    return np.frombuffer(json.dumps(obj).encode("utf-8"), dtype=np.uint8)


def _table_arrays(table: CountTable | PatternCountTable, prefix: str) -> dict[str, np.ndarray]:
    arrays: dict[str, np.ndarray] = {f"{prefix}n": np.asarray(table.n, dtype=np.float64)}
    if isinstance(table, PatternCountTable):
        arrays.update(
            {f"{prefix}group_totals__{r}": np.asarray(v) for r, v in table.group_totals.items()}
        )
        arrays.update(
            {f"{prefix}pattern_totals__{r}": np.asarray(v) for r, v in table.pattern_totals.items()}
        )
        for role, keys in table.patterns.items():  # fixed-width keys as uint32 words
            words = np.ascontiguousarray(keys).view(np.uint32).reshape(len(keys), -1)
            arrays[f"{prefix}patterns__{role}"] = words
    else:
        arrays.update({f"{prefix}totals__{r}": np.asarray(v) for r, v in table.totals.items()})
    arrays.update({f"{prefix}joint__{g}__{t}": np.asarray(v) for (g, t), v in table.joint.items()})
    return arrays


def save_counts(table: CountTable | PatternCountTable, path: str | os.PathLike[str]) -> None:
    """Write ``table`` to ``path`` (``.npz``) atomically.

    Parameters
    ----------
    table : CountTable or PatternCountTable
        A table, with or without a replicate axis or an online bootstrap.
    path : str or path-like
        Output file; replaced only once the new file is complete. It may not be one
        of the files the table was counted from (``counts_from_files`` and the other
        file counters record them): that is a ``ValueError`` naming ``path`` and the
        input, before anything is written.

    Examples
    --------
    >>> import os, tempfile
    >>> from biasamp import CountTable, load_counts, save_counts
    >>> table = CountTable.from_arrays(groups=["m", "w"], tasks=["ski", "cook"])
    >>> path = os.path.join(tempfile.mkdtemp(), "train.npz")
    >>> save_counts(table, path)
    >>> load_counts(path).joint_frame().loc["ski", "m"]
    np.float64(1.0)
    """
    if not isinstance(table, (CountTable, PatternCountTable)):
        raise TypeError(ERR_SAVE_TYPE.format(type_name=type(table).__name__))
    target = check_written_output(path, argument="path", inputs=input_files_of(table))
    patterns = isinstance(table, PatternCountTable)
    meta: dict[str, Any] = {
        "format": 1 if table.bootstrap is None and not patterns else FORMAT_VERSION,
        "group_names": [_plain(v) for v in table.group_names],
        "task_names": [_plain(v) for v in table.task_names],
        "joint": [list(k) for k in table.joint],
        "n_rows": int(table.n_rows),
    }
    if isinstance(table, PatternCountTable):
        meta["kind"] = "patterns"
        meta["group_totals"] = sorted(table.group_totals)
        meta["pattern_totals"] = sorted(table.pattern_totals)
    else:
        meta["totals"] = sorted(table.totals)
    arrays = _table_arrays(table, "")
    if table.bootstrap is not None:
        meta["next_row"] = int(table.next_row)
        meta["bootstrap"] = {
            "n_boot": int(table.bootstrap.n_boot),
            "entropy": str(table.bootstrap.entropy),  # may exceed 64 bits
            "stream": int(table.bootstrap.stream),
        }
        meta["has_replicates"] = table.replicates is not None
        if table.replicates is not None:
            arrays.update(_table_arrays(table.replicates, "replicates__"))
    arrays["meta"] = _json_array(meta)
    with atomic_output(target, "wb") as handle:
        np.savez(handle, **arrays)  # type: ignore[arg-type]  # numpy stubs: allow_pickle


ERR_NOT_READABLE = "{path}: not a readable biasamp count table file ({detail})."


def load_counts(path: str | os.PathLike[str]) -> Any:
    """Read a table written by :func:`save_counts` (no pickle).

    Returns a :class:`CountTable`, or a :class:`PatternCountTable` when one was saved.
    """
    path = checked_path(path)
    with open(path, "rb") as handle:
        if handle.read(4) != b"PK\x03\x04":  # np.load would suggest unpickling it
            raise ValueError(ERR_NOT_NPZ.format(path=path))
    try:
        return _load_counts(path)
    except (zipfile.BadZipFile, KeyError, EOFError, OSError, TypeError, ValueError) as exc:
        if isinstance(exc, ValueError) and str(exc).startswith(str(path)):
            raise  # already names the file
        if isinstance(exc, FileNotFoundError):
            raise
        raise ValueError(
            ERR_NOT_READABLE.format(path=path, detail=f"{type(exc).__name__}: {exc}")
        ) from None


def _load_counts(path: str | os.PathLike[str]) -> Any:
    with open(path, "rb") as handle, np.load(handle, allow_pickle=False) as data:
        if "meta" not in data.files or "n" not in data.files:
            raise ValueError(ERR_NOT_COUNTS.format(path=path, missing="meta/n"))
        meta = json.loads(data["meta"].tobytes().decode("utf-8"))
        if meta.get("format", 0) > FORMAT_VERSION:
            raise ValueError(
                ERR_VERSION.format(path=path, got=meta["format"], supported=FORMAT_VERSION)
            )

        def _table(prefix: str) -> CountTable | PatternCountTable:
            names: dict[str, Any] = {
                "group_names": tuple(meta["group_names"]),
                "task_names": tuple(meta["task_names"]),
                "n": np.asarray(data[f"{prefix}n"]),
                "joint": {(g, t): data[f"{prefix}joint__{g}__{t}"] for g, t in meta["joint"]},
                "n_rows": int(meta["n_rows"]),
            }
            if meta.get("kind") != "patterns":
                totals = {r: data[f"{prefix}totals__{r}"] for r in meta["totals"]}
                return CountTable(totals=totals, **names)
            keys = {}
            for role in meta["pattern_totals"]:
                words = np.ascontiguousarray(data[f"{prefix}patterns__{role}"], dtype=np.uint32)
                keys[role] = words.view(np.dtype((np.void, 4 * words.shape[1]))).ravel()
            return PatternCountTable(
                patterns=keys,
                group_totals={r: data[f"{prefix}group_totals__{r}"] for r in meta["group_totals"]},
                pattern_totals={
                    r: data[f"{prefix}pattern_totals__{r}"] for r in meta["pattern_totals"]
                },
                **names,
            )

        table = _table("")
        if "bootstrap" in meta:
            spec = meta["bootstrap"]
            bootstrap = PoissonReplicates(
                int(spec["n_boot"]), random_state=int(spec["entropy"]), stream=int(spec["stream"])
            )
            table.bootstrap = bootstrap
            table.next_row = int(meta["next_row"])
            if meta.get("has_replicates"):
                table.replicates = _table("replicates__")
        return table
