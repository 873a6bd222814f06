"""Saving results to JSON and loading them back: ``result.save(path)``, :func:`load_result`.

A saved result is one JSON document (UTF-8, standard JSON: no NaN or Infinity
literals), written atomically with :func:`biasamp.atomic_output`::

    {"schema": "biasamp-saved-result", "schema_version": 1,
     "biasamp_version": "...", "type": "pairwise", "class": "PairwiseResult",
     "inputs": {"n": 5367.0, "groups": 2, "tasks": 79, ...},
     "value": 0.0123,
     "result": {...every field of the result, typed...}}

Every field of the result is stored with its type, so that loading gives back an
object of the same class that compares equal: the same ``to_dict()``, the same
headline value, tables with the same columns, dtypes, index and values (NaN and
infinities included), arrays with the same dtype and shape (bootstrap
``replicates`` included), tuples as tuples. Nothing is pickled and loading never
runs code from the file: only the types in the table below are rebuilt.

======================  =========================================================
JSON object             Python value
======================  =========================================================
number, string, ...     the same (integers stay integers)
``{"__type__": "float", "value": "nan"}``  NaN, ``"inf"``, ``"-inf"``
``{"__type__": "tuple"}``    tuple
``{"__type__": "dict"}``     dict with keys that are not all strings
``{"__type__": "ndarray"}``  numpy array (dtype, shape, flat values)
``{"__type__": "series"}``   pandas Series (dtype, index, name)
``{"__type__": "frame"}``    pandas DataFrame (columns, dtypes, index)
``{"__type__": "index"}``    pandas Index (``"range_index"`` for a RangeIndex)
``{"__type__": "result"}``   a nested result (for example ``RBAResult.mals_after``)
======================  =========================================================

Result types register themselves with :func:`register_result` (the registry
lives here, below every module that defines a result, so the layering holds).
:func:`biasamp.load_result` (in ``_load.py``) also reads the JSON written by ``biasamp measure --json`` /
``biasamp report --json`` (schema ``biasamp-result``), giving one result per
metric.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TypeVar, cast

import numpy as np
import pandas as pd

from biasamp._version import __version__
from biasamp.output._atomic import atomic_output

__all__ = [
    "SAVED_SCHEMA",
    "SAVED_SCHEMA_VERSION",
    "SavableResult",
    "build_result",
    "check_version",
    "decode_value",
    "encode_value",
    "register_result",
    "registered_results",
    "save_result",
]

SAVED_SCHEMA = "biasamp-saved-result"
SAVED_SCHEMA_VERSION = 1
CLI_SCHEMA = "biasamp-result"
FORMATS = ("json",)

ERR_SAVE_FORMAT = "format: expected one of {choices}, got {got!r}."
ERR_SAVE_TYPE = "save: {kind} is not a result type biasamp can save (registered: {known})."
ERR_ENCODE = "save: cannot store a value of type {type_name} (in {where})."
ERR_LOAD_VERSION = (
    "{file}: schema_version {got!r} was written by a newer biasamp than {version} "
    "(which reads up to {supported}); upgrade biasamp."
)
ERR_LOAD_KIND = "{file}: unknown result type {got!r} (known: {known})."
ERR_LOAD_TAG = "{file}: unknown stored type {got!r}."

T = TypeVar("T")


@dataclasses.dataclass(frozen=True)
class _Entry:
    kind: str
    cls: type
    shapes: Callable[[Any], dict[str, Any]]


_REGISTRY: dict[str, _Entry] = {}
_BY_CLASS: dict[type, _Entry] = {}


def _no_shapes(_: Any) -> dict[str, Any]:
    return {}


def register_result(
    kind: str, *, shapes: Callable[[Any], dict[str, Any]] | None = None
) -> Callable[[type[T]], type[T]]:
    """Class decorator: make a result type savable and loadable under the name ``kind``.

    Parameters
    ----------
    kind : str
        The ``type`` written in the file.
    shapes : callable, optional
        ``shapes(result) -> dict``: the sizes of the inputs that produced the
        result (rows, groups, tasks, ...), written as ``inputs``.

    The class must be a dataclass (every init field is stored and passed back to
    the constructor) or a :class:`pandas.DataFrame` subclass whose extra
    attributes are listed in ``_metadata``.
    """

    def decorate(cls: type[T]) -> type[T]:
        entry = _Entry(kind, cls, shapes or _no_shapes)
        _REGISTRY[kind] = entry
        _BY_CLASS[cls] = entry
        return cls

    return decorate


def registered_results() -> dict[str, type]:
    """The savable result types: ``{kind: class}``."""
    return {kind: entry.cls for kind, entry in _REGISTRY.items()}


class SavableResult:
    """Mixin of every result type: ``save(path)``."""

    def save(self, path: str | os.PathLike[str], *, format: str = "json") -> Path:
        """Save the result to ``path`` (JSON); :func:`biasamp.load_result` reads it back.

        Parameters
        ----------
        path : str or path-like
            The file to write (atomically: an interrupted save leaves no partial file).
        format : {"json"}, default "json"
            The file format.

        Returns
        -------
        pathlib.Path
            The path written.

        Examples
        --------
        >>> import os, tempfile
        >>> import biasamp
        >>> result = biasamp.mals(groups_train=["m", "w", "m"], tasks_train=["a", "a", "b"],
        ...                       groups_pred=["m", "m", "m"], tasks_pred=["a", "a", "b"])
        >>> path = result.save(os.path.join(tempfile.mkdtemp(), "mals.json"))
        >>> again = biasamp.load_result(path)
        >>> type(again).__name__, again.to_dict() == result.to_dict()
        ('PairwiseResult', True)
        """
        return save_result(self, path, format=format)


# ---------------------------------------------------------------- encoding
def _float(value: float) -> Any:
    if math.isfinite(value):
        return value
    return {"__type__": "float", "value": "nan" if math.isnan(value) else str(value)}


def _scalar(value: Any, where: str) -> Any:
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return _float(float(value))
    return encode_value(value, where)


def _index(index: pd.Index, where: str) -> dict[str, Any]:
    name = _scalar(index.name, where)
    if isinstance(index, pd.RangeIndex):
        return {
            "__type__": "range_index",
            "start": index.start,
            "stop": index.stop,
            "step": index.step,
            "name": name,
        }
    return {
        "__type__": "index",
        "dtype": str(index.dtype),
        "name": name,
        "data": [_scalar(v, where) for v in index.tolist()],
    }


def _column(values: pd.Series, where: str) -> list[Any]:
    return [_scalar(v, where) for v in values.tolist()]


def encode_value(value: Any, where: str = "the result") -> Any:
    """A JSON-ready, typed encoding of ``value`` (see the module docs for the types)."""
    if value is None or isinstance(value, (bool, str, int, float, np.generic)):
        return _scalar(value, where)
    if isinstance(value, tuple):
        return {"__type__": "tuple", "items": [encode_value(v, where) for v in value]}
    if isinstance(value, list):
        return [encode_value(v, where) for v in value]
    if isinstance(value, Mapping):
        if all(isinstance(k, str) for k in value) and "__type__" not in value:
            return {k: encode_value(v, f"{where}[{k!r}]") for k, v in value.items()}
        return {
            "__type__": "dict",
            "items": [[encode_value(k, where), encode_value(v, where)] for k, v in value.items()],
        }
    if isinstance(value, np.ndarray):
        flat = value.reshape(-1)
        if value.dtype.kind in "biu" or (value.dtype.kind == "f" and np.isfinite(flat).all()):
            data = flat.tolist()  # numbers JSON stores exactly, without a per-item pass
        else:
            data = [_scalar(v, where) for v in flat.tolist()]
        return {
            "__type__": "ndarray",
            "dtype": value.dtype.str if value.dtype.kind in "biuf" else str(value.dtype),
            "shape": list(value.shape),
            "data": data,
        }
    if isinstance(value, pd.DataFrame):
        return {
            "__type__": "frame",
            "index": _index(value.index, where),
            "columns": _index(value.columns, where),
            "dtypes": [str(d) for d in value.dtypes],
            "data": [_column(value.iloc[:, j], where) for j in range(value.shape[1])],
        }
    if isinstance(value, pd.Series):
        return {
            "__type__": "series",
            "name": _scalar(value.name, where),
            "dtype": str(value.dtype),
            "index": _index(value.index, where),
            "data": _column(value, where),
        }
    if isinstance(value, pd.Index):
        return _index(value, where)
    entry = _BY_CLASS.get(type(value))
    if entry is not None:
        return {"__type__": "result", "kind": entry.kind, "fields": _fields(value, entry)}
    raise TypeError(ERR_ENCODE.format(type_name=type(value).__name__, where=where))


def _fields(result: Any, entry: _Entry) -> dict[str, Any]:
    if isinstance(result, pd.DataFrame):
        out = {"table": encode_value(pd.DataFrame(result), entry.kind)}
        for name in getattr(type(result), "_metadata", []):
            out[name] = encode_value(getattr(result, name, None), f"{entry.kind}.{name}")
        return out
    return {
        f.name: encode_value(getattr(result, f.name), f"{entry.kind}.{f.name}")
        for f in dataclasses.fields(result)
        if f.init
    }


# ---------------------------------------------------------------- decoding
def _objects(values: list[Any]) -> np.ndarray:
    """A 1-D object array of ``values`` (tuples stay elements, never a second axis)."""
    return np.fromiter(values, dtype=object, count=len(values))


def _decode_list(data: list[Any], file: str) -> list[Any]:
    if all(not isinstance(v, (dict, list)) for v in data):
        return data  # plain JSON scalars: nothing to rebuild
    return [decode_value(v, file) for v in data]


def _series_values(data: list[Any], dtype: str, file: str) -> Any:
    values = _decode_list(data, file)
    if dtype == "object":
        return _objects(values)
    if dtype.startswith(("float", "int", "uint", "bool")):
        return np.array([np.nan if v is None else v for v in values], dtype=dtype)
    return pd.array(values, dtype=cast(Any, dtype))


def _decode_index(obj: Mapping[str, Any], file: str) -> pd.Index:
    name = decode_value(obj.get("name"), file)
    if obj["__type__"] == "range_index":
        return pd.RangeIndex(obj["start"], obj["stop"], obj["step"], name=name)
    return pd.Index(_series_values(obj["data"], obj["dtype"], file), name=name)


def decode_value(obj: Any, file: str = "the file") -> Any:
    """The inverse of :func:`encode_value`."""
    if isinstance(obj, list):
        return [decode_value(v, file) for v in obj]
    if not isinstance(obj, dict):
        return obj
    tag = obj.get("__type__")
    if tag is None:
        return {k: decode_value(v, file) for k, v in obj.items()}
    if tag == "float":
        return float(obj["value"])
    if tag == "tuple":
        return tuple(decode_value(v, file) for v in obj["items"])
    if tag == "dict":
        return {decode_value(k, file): decode_value(v, file) for k, v in obj["items"]}
    if tag == "ndarray":
        values = _decode_list(obj["data"], file)
        dtype = np.dtype(obj["dtype"])
        out = _objects(values) if dtype.kind == "O" else np.array(values, dtype=dtype)
        return out.reshape(obj["shape"])
    if tag in ("index", "range_index"):
        return _decode_index(obj, file)
    if tag == "series":
        return pd.Series(
            _series_values(obj["data"], obj["dtype"], file),
            index=_decode_index(obj["index"], file),
            name=decode_value(obj.get("name"), file),
        )
    if tag == "frame":
        index = _decode_index(obj["index"], file)
        columns = _decode_index(obj["columns"], file)
        data = {
            j: pd.Series(_series_values(col, dtype, file), index=index)
            for j, (col, dtype) in enumerate(zip(obj["data"], obj["dtypes"], strict=True))
        }
        frame = pd.DataFrame(data, index=index)
        frame.columns = columns
        return frame
    if tag == "result":
        return build_result(obj["kind"], obj["fields"], file)
    raise ValueError(ERR_LOAD_TAG.format(file=file, got=tag))


def build_result(kind: str, fields: Mapping[str, Any], file: str) -> Any:
    entry = _REGISTRY.get(kind)
    if entry is None:
        raise ValueError(ERR_LOAD_KIND.format(file=file, got=kind, known=sorted(_REGISTRY)))
    values = {name: decode_value(v, file) for name, v in fields.items()}
    if issubclass(entry.cls, pd.DataFrame):
        table = values.pop("table")
        out = entry.cls(table)
        for name, v in values.items():
            setattr(out, name, v)
        return out
    return entry.cls(**values)


# ---------------------------------------------------------------- files
def save_result(result: Any, path: str | os.PathLike[str], *, format: str = "json") -> Path:
    """Save a result to ``path`` as JSON (atomically); see :meth:`SavableResult.save`."""
    if format not in FORMATS:
        raise ValueError(ERR_SAVE_FORMAT.format(choices=FORMATS, got=format))
    entry = _BY_CLASS.get(type(result))
    if entry is None:
        raise TypeError(ERR_SAVE_TYPE.format(kind=type(result).__name__, known=sorted(_REGISTRY)))
    document = {
        "schema": SAVED_SCHEMA,
        "schema_version": SAVED_SCHEMA_VERSION,
        "biasamp_version": __version__,
        "type": entry.kind,
        "class": type(result).__name__,
        "inputs": encode_value(entry.shapes(result), "inputs"),
        "value": _headline(result),
        "result": _fields(result, entry),
    }
    text = json.dumps(document, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    target = Path(path)
    with atomic_output(target, "w", encoding="utf-8") as handle:
        handle.write(text + "\n")
    return target


def _headline(result: Any) -> Any:
    for name in ("value", "mean"):
        value = getattr(result, name, None)
        if isinstance(value, (int, float, np.number)) and not isinstance(value, bool):
            return _float(float(value))
    return None


def check_version(document: Mapping[str, Any], supported: int, file: str) -> None:
    version = document.get("schema_version")
    if not isinstance(version, int) or isinstance(version, bool) or version > supported:
        raise ValueError(
            ERR_LOAD_VERSION.format(
                file=file, got=version, version=__version__, supported=supported
            )
        )
