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
import importlib
import inspect
import json
import math
import os
import sys
import types
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TypeVar, Union, cast, get_args, get_origin

import numpy as np
import pandas as pd

from biasamp._version import __version__
from biasamp.output._atomic import atomic_output
from biasamp.output._targets import check_written_output, input_files_of

__all__ = [
    "ENVELOPE_KEYS",
    "SAVED_SCHEMA",
    "SAVED_SCHEMA_VERSION",
    "SavableResult",
    "build_result",
    "check_version",
    "decode_value",
    "encode_value",
    "envelope",
    "metrics_of",
    "register_result",
    "registered_results",
    "save_result",
    "saved_document",
    "typed_result",
]

SAVED_SCHEMA = "biasamp-saved-result"
#: 2: the envelope every document shares (``metrics``, ``settings``); 1: without it.
SAVED_SCHEMA_VERSION = 2
#: The keys every JSON document of biasamp opens with, in this order: ``result.save()``,
#: ``AuditResult.save()``, ``biasamp measure/report --json``, ``biasamp captions --json``
#: and ``biasamp compare --json`` (a saved result) write them with :func:`envelope`.
ENVELOPE_KEYS = ("schema", "schema_version", "biasamp_version", "metrics", "settings")
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

#: The module that defines each result type. Public names are imported on first use, so a
#: file can be loaded before its type's module was ever imported: the registry imports the
#: defining modules by name when it is read (``tests/results/test_persist.py`` checks that
#: this table names every registered type and its module).
RESULT_MODULES: dict[str, str] = {
    "pairwise": "biasamp.results._base",
    "differential_fairness": "biasamp.results._differential_fairness",
    "multi_attribute": "biasamp.results._multi_attribute",
    "predictability": "biasamp.results._predictability",
    "retrieval_bias": "biasamp.results._retrieval",
    "runs_summary": "biasamp.uncertainty._runs",
    "threshold_calibration": "biasamp.uncertainty._calibration",
    "threshold_sweep": "biasamp.uncertainty._sweep",
    "lic": "biasamp.text._lic",
    "caption_bias": "biasamp.text._caption_bias",
    "dbac": "biasamp.text._dbac",
    "output_amplification": "biasamp.generated._results",
    "bias_transfer": "biasamp.generated._results",
    "share_trajectory": "biasamp.generated._results",
    "model_comparison": "biasamp.comparison._compare",
    "oversampling": "biasamp.mitigation._oversampling",
    "mitigation_comparison": "biasamp.mitigation._compare",
    "rba": "biasamp.mitigation._rba_result",
    "audit": "biasamp.auditing._result",
}


def _registry() -> dict[str, _Entry]:
    """Every result type, its defining module imported first (by name: see RESULT_MODULES)."""
    for module in RESULT_MODULES.values():
        importlib.import_module(module)
    return _REGISTRY


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
        if not issubclass(cls, pd.DataFrame):  # a table keeps pandas' elementwise ==
            cls.__eq__ = _result_eq  # type: ignore[method-assign]
            cls.__hash__ = None  # type: ignore[assignment]
        _REGISTRY[kind] = entry
        _BY_CLASS[cls] = entry
        return cls

    return decorate


def same_value(a: Any, b: Any) -> bool:
    """Whether two stored values are equal: tables and arrays by dtype, shape, index and
    values (NaN equal to NaN, in the same places), floats with NaN equal to NaN, containers
    item by item, results by :func:`_result_eq`."""
    if isinstance(a, (pd.DataFrame, pd.Series, pd.Index)):
        if type(a) is not type(b):
            return False
        try:
            if isinstance(a, pd.DataFrame) and isinstance(b, pd.DataFrame):
                pd.testing.assert_frame_equal(a, b, check_exact=True)
            elif isinstance(a, pd.Series) and isinstance(b, pd.Series):
                pd.testing.assert_series_equal(a, b, check_exact=True)
            elif isinstance(a, pd.Index) and isinstance(b, pd.Index):
                pd.testing.assert_index_equal(a, b, exact=True, check_exact=True)
        except (AssertionError, TypeError, ValueError):
            return False
        return all(
            same_value(getattr(a, n, None), getattr(b, n, None))
            for n in getattr(type(a), "_metadata", [])
        )
    if isinstance(a, np.ndarray):
        if not isinstance(b, np.ndarray) or a.dtype != b.dtype or a.shape != b.shape:
            return False
        if a.dtype.kind in "fc":
            return bool(np.array_equal(a, b, equal_nan=True))
        if a.dtype.kind == "O":
            return all(same_value(x, y) for x, y in zip(a.reshape(-1), b.reshape(-1), strict=True))
        return bool(np.array_equal(a, b))
    if isinstance(a, (float, np.floating)) and isinstance(b, (float, np.floating)):
        return bool(a == b or (math.isnan(a) and math.isnan(b)))
    if isinstance(a, (list, tuple)):
        return (
            type(a) is type(b)
            and len(a) == len(b)
            and all(same_value(x, y) for x, y in zip(a, b, strict=True))
        )
    if isinstance(a, Mapping):
        return (
            isinstance(b, Mapping) and list(a) == list(b) and all(same_value(a[k], b[k]) for k in a)
        )
    if type(a) in _BY_CLASS or type(b) in _BY_CLASS:
        return type(a) is type(b) and _result_eq(a, b) is True
    try:
        return bool(a == b)
    except (TypeError, ValueError):
        return False


def _result_eq(self: Any, other: Any) -> Any:
    """``==`` of the result types: the same class and every field equal (:func:`same_value`)."""
    if type(other) is not type(self):
        return NotImplemented
    return all(
        same_value(getattr(self, f.name), getattr(other, f.name))
        for f in dataclasses.fields(self)
        if f.init
    )


def registered_results() -> dict[str, type]:
    """The savable result types: ``{kind: class}``."""
    return {kind: entry.cls for kind, entry in _registry().items()}


class SavableResult:
    """Mixin of every result type: ``save(path)``, ``input_files``."""

    @property
    def input_files(self) -> tuple[tuple[str, str], ...]:
        """The files the result was computed from, as ``(argument, path)`` pairs, where
        known (a result of :func:`biasamp.audit` knows its files; one computed from
        arrays has none). :meth:`save` refuses to write over any of them."""
        return tuple(vars(self).get("_biasamp_input_files", ()))

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

        Raises
        ------
        ValueError
            When ``path`` is one of the files the result was computed from
            (:attr:`input_files`), through any path or link: the message names
            ``path`` and the input; nothing is written.

        Examples
        --------
        >>> import os, tempfile
        >>> import biasamp
        >>> result = biasamp.mals(groups_train=["m", "w", "m"], tasks_train=["a", "a", "b"],
        ...                       groups_pred=["m", "w", "m"], tasks_pred=["a", "a", "b"])
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
    if getattr(type(value), "saved_as_record", False):  # a small record: its JSON object
        return encode_value(value.to_dict(), where)
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


def typed_result(result: Any) -> dict[str, Any]:
    """``{"type": kind, "class": name, "result": fields}``: a result stored with every field
    typed, as in a saved file, for documents that embed results (``biasamp captions
    --json``); :func:`build_result` rebuilds it."""
    entry = _BY_CLASS.get(type(result))
    if entry is None:
        raise TypeError(ERR_SAVE_TYPE.format(kind=type(result).__name__, known=sorted(_REGISTRY)))
    return {"type": entry.kind, "class": type(result).__name__, "result": _fields(result, entry)}


# ---------------------------------------------------------------- decoding
#: Deepest nesting of JSON values a saved result may hold (a result nests a few levels).
MAX_DEPTH = 64
#: Rows of a table whose length no column confirms (a frame without columns).
MAX_UNCHECKED_ROWS = 1_000_000
#: numpy dtype kinds a stored array may have: bool, integers, floats, objects, strings.
_ARRAY_KINDS = "biufOU"

ERR_LOAD_INVALID = "{file}: {path}: {problem}"
#: JSON value types a column of each dtype kind may hold as they are (null is NaN in floats).
_PLAIN_TYPES: dict[str, set[type]] = {
    "f": {float, int, type(None)},
    "i": {int},
    "b": {bool},
    "U": {str},
    "O": {str, int, float, bool, type(None)},
}


class InvalidDocument(ValueError):
    """A saved result that does not follow the format: the file, the JSON path, the problem."""

    def __init__(self, file: str, path: str, problem: str) -> None:
        super().__init__(ERR_LOAD_INVALID.format(file=file, path=path, problem=problem))
        self.file, self.path, self.problem = file, path, problem


def _describe(value: Any) -> str:
    text = repr(value)
    if len(text) > 60:
        text = text[:57] + "..."
    return f"{type(value).__name__} {text}"


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _objects(values: list[Any]) -> np.ndarray:
    """A 1-D object array of ``values`` (tuples stay elements, never a second axis)."""
    return np.fromiter(values, dtype=object, count=len(values))


class _Decoder:
    """The inverse of :func:`encode_value`, checking every value against the format.

    Every problem raises :class:`InvalidDocument` with the file and the JSON path
    (``$.result.by_pair.data[2][0]``) of the first value that does not fit.
    """

    def __init__(self, file: str) -> None:
        self.file = file

    def fail(self, path: str, problem: str) -> InvalidDocument:
        return InvalidDocument(self.file, path, problem)

    def keys(self, obj: Mapping[str, Any], path: str, required: tuple[str, ...]) -> None:
        missing = [k for k in required if k not in obj]
        if missing:
            raise self.fail(path, f"missing key {missing[0]!r}")
        extra = [k for k in obj if k not in required and k != "__type__"]
        if extra:
            raise self.fail(f"{path}.{extra[0]}", "unexpected key")

    def list_of(self, obj: Mapping[str, Any], key: str, path: str) -> list[Any]:
        value = obj[key]
        if not isinstance(value, list):
            raise self.fail(f"{path}.{key}", f"expected a list, got {_describe(value)}")
        return value

    def value(self, obj: Any, path: str, depth: int = 0) -> Any:
        if depth > MAX_DEPTH:
            raise self.fail(path, f"nested deeper than {MAX_DEPTH} levels")
        if isinstance(obj, list):
            return [self.value(v, f"{path}[{i}]", depth + 1) for i, v in enumerate(obj)]
        if not isinstance(obj, dict):
            return obj
        tag = obj.get("__type__")
        if tag is None:
            return {k: self.value(v, f"{path}.{k}", depth + 1) for k, v in obj.items()}
        if not isinstance(tag, str):
            raise self.fail(f"{path}.__type__", f"expected a type name, got {_describe(tag)}")
        method = getattr(self, f"tag_{tag}", None)
        if method is None:
            raise self.fail(f"{path}.__type__", ERR_LOAD_TAG.format(file=self.file, got=tag))
        return method(obj, path, depth)

    # -- the tagged values
    def tag_float(self, obj: Mapping[str, Any], path: str, depth: int) -> float:
        self.keys(obj, path, ("value",))
        if obj["value"] not in ("nan", "inf", "-inf"):
            raise self.fail(
                f"{path}.value", f"expected 'nan', 'inf' or '-inf', got {_describe(obj['value'])}"
            )
        return float(obj["value"])

    def tag_tuple(self, obj: Mapping[str, Any], path: str, depth: int) -> tuple[Any, ...]:
        self.keys(obj, path, ("items",))
        items = self.list_of(obj, "items", path)
        return tuple(self.value(v, f"{path}.items[{i}]", depth + 1) for i, v in enumerate(items))

    def tag_dict(self, obj: Mapping[str, Any], path: str, depth: int) -> dict[Any, Any]:
        self.keys(obj, path, ("items",))
        out: dict[Any, Any] = {}
        for i, pair in enumerate(self.list_of(obj, "items", path)):
            where = f"{path}.items[{i}]"
            if not isinstance(pair, list) or len(pair) != 2:
                raise self.fail(where, f"expected a [key, value] pair, got {_describe(pair)}")
            key = self.value(pair[0], f"{where}[0]", depth + 1)
            try:
                hash(key)
            except TypeError:
                raise self.fail(
                    f"{where}[0]", f"a key must be hashable, got {_describe(key)}"
                ) from None
            out[key] = self.value(pair[1], f"{where}[1]", depth + 1)
        return out

    def _elements(self, data: list[Any], kind: str, path: str, depth: int) -> list[Any]:
        """The values of an array or column of dtype kind ``kind``, each checked."""
        types = set(map(type, data))  # one C-level pass: the common case needs no other
        if types <= _PLAIN_TYPES.get(kind, set()):
            return data
        if kind == "O":
            if all(not isinstance(v, (dict, list)) for v in data):
                return data
            return [self.value(v, f"{path}[{i}]", depth + 1) for i, v in enumerate(data)]
        if kind == "f":
            out = []
            for i, v in enumerate(data):
                if isinstance(v, dict):
                    v = self.value(v, f"{path}[{i}]", depth + 1)
                if v is None:
                    v = math.nan  # null stands for NaN in a float column
                if not _is_number(v):
                    raise self.fail(f"{path}[{i}]", f"expected a number, got {_describe(v)}")
                out.append(v)
            return out
        check, what = {
            "b": (lambda v: isinstance(v, bool), "a boolean"),
            "i": (_is_int, "an integer"),
            "u": (lambda v: _is_int(v) and v >= 0, "a non-negative integer"),
            "U": (lambda v: isinstance(v, str), "a string"),
        }[kind]
        for i, v in enumerate(data):
            if not check(v):
                raise self.fail(f"{path}[{i}]", f"expected {what}, got {_describe(v)}")
        return data

    def tag_ndarray(self, obj: Mapping[str, Any], path: str, depth: int) -> np.ndarray:
        self.keys(obj, path, ("dtype", "shape", "data"))
        dtype = self.numpy_dtype(obj["dtype"], f"{path}.dtype")
        shape = self.list_of(obj, "shape", path)
        if len(shape) > 32 or not all(_is_int(s) and s >= 0 for s in shape):
            raise self.fail(
                f"{path}.shape", f"expected at most 32 non-negative sizes, got {shape!r}"
            )
        data = self.list_of(obj, "data", path)
        if math.prod(shape) != len(data):
            raise self.fail(
                f"{path}.shape",
                f"shape {shape} holds {math.prod(shape)} values, but data has {len(data)}",
            )
        values = self._elements(data, dtype.kind, f"{path}.data", depth)
        if dtype.kind == "U" and dtype.itemsize > 4 * max([len(v) for v in values] + [1]):
            raise self.fail(f"{path}.dtype", f"{dtype.str} is wider than the strings stored")
        out = _objects(values) if dtype.kind == "O" else self.convert(values, dtype, path)
        return out.reshape(shape)

    def convert(self, values: list[Any], dtype: Any, path: str) -> Any:
        try:
            return np.array(values, dtype=dtype)
        except (OverflowError, ValueError, TypeError) as exc:
            raise self.fail(f"{path}.data", f"does not fit dtype {dtype}: {exc}") from None

    def numpy_dtype(self, text: Any, path: str) -> np.dtype[Any]:
        try:
            if not isinstance(text, str):
                raise TypeError
            dtype = np.dtype(text)
        except (TypeError, ValueError):
            raise self.fail(path, f"expected a numpy dtype, got {_describe(text)}") from None
        if dtype.kind not in _ARRAY_KINDS or dtype.shape or dtype.names:
            raise self.fail(path, f"arrays of dtype {text!r} are not stored")
        return dtype

    def column(self, data: Any, dtype_text: Any, path: str, depth: int) -> Any:
        """A column (of a frame, series or index) of the pandas dtype ``dtype_text``."""
        if not isinstance(data, list):
            raise self.fail(path, f"expected a list, got {_describe(data)}")
        if not isinstance(dtype_text, str):
            raise self.fail(path, f"expected a dtype name, got {_describe(dtype_text)}")
        try:
            dtype = pd.api.types.pandas_dtype(dtype_text)
        except (TypeError, ValueError):
            raise self.fail(path, f"unknown dtype {dtype_text!r}") from None
        if isinstance(dtype, np.dtype) and dtype.kind in "biufO":
            values = self._elements(data, dtype.kind, path, depth)
            return _objects(values) if dtype.kind == "O" else self.convert(values, dtype, path)
        values = self._elements(data, "O", path, depth)
        if isinstance(dtype, pd.StringDtype):  # "str", "string": text or missing, never a number
            for i, v in enumerate(values):
                if not (
                    v is None or isinstance(v, str) or (isinstance(v, float) and math.isnan(v))
                ):
                    raise self.fail(f"{path}[{i}]", f"expected a string, got {_describe(v)}")
        try:
            return pd.array(values, dtype=cast(Any, dtype))
        except (OverflowError, ValueError, TypeError) as exc:
            raise self.fail(path, f"does not fit dtype {dtype_text}: {exc}") from None

    def index(self, obj: Any, path: str, depth: int, length: int | None) -> pd.Index:
        """An index of ``length`` entries (``None``: any length up to MAX_UNCHECKED_ROWS)."""
        if not isinstance(obj, dict) or obj.get("__type__") not in ("index", "range_index"):
            raise self.fail(path, f"expected an index, got {_describe(obj)}")
        if obj["__type__"] == "range_index":
            self.keys(obj, path, ("start", "stop", "step", "name"))
            bounds = [obj["start"], obj["stop"], obj["step"]]
            if not all(_is_int(v) and abs(v) < 2**63 for v in bounds) or bounds[2] == 0:
                raise self.fail(
                    path, f"expected 64-bit integer start, stop and nonzero step, got {bounds}"
                )
            start, stop, step = bounds
            size = max(0, -((start - stop) // step))  # len(range(...)) without a C size
            if length is not None and size != length:
                raise self.fail(
                    f"{path}.stop", f"the index declares {size} rows, but the data has {length}"
                )
            if length is None and size > MAX_UNCHECKED_ROWS:
                raise self.fail(
                    f"{path}.stop",
                    f"the index declares {size} rows that no data confirms "
                    f"(at most {MAX_UNCHECKED_ROWS})",
                )
            name = self.label(obj["name"], f"{path}.name", depth)
            return pd.RangeIndex(start, stop, step, name=name)
        self.keys(obj, path, ("dtype", "name", "data"))
        data = self.list_of(obj, "data", path)
        if length is not None and len(data) != length:
            raise self.fail(
                f"{path}.data", f"the index has {len(data)} entries, but the data has {length}"
            )
        values = self.column(data, obj["dtype"], f"{path}.data", depth)
        name = self.label(obj["name"], f"{path}.name", depth)
        try:
            return pd.Index(values, name=name)
        except (TypeError, ValueError) as exc:
            raise self.fail(path, f"not an index: {exc}") from None

    def label(self, obj: Any, path: str, depth: int) -> Any:
        value = self.value(obj, path, depth + 1)
        try:
            hash(value)
        except TypeError:
            raise self.fail(path, f"a name must be hashable, got {_describe(value)}") from None
        return value

    def tag_index(self, obj: Mapping[str, Any], path: str, depth: int) -> pd.Index:
        return self.index(obj, path, depth, None)

    tag_range_index = tag_index

    def tag_series(self, obj: Mapping[str, Any], path: str, depth: int) -> pd.Series:
        self.keys(obj, path, ("name", "dtype", "index", "data"))
        data = self.list_of(obj, "data", path)
        index = self.index(obj["index"], f"{path}.index", depth + 1, len(data))
        values = self.column(data, obj["dtype"], f"{path}.data", depth)
        return pd.Series(values, index=index, name=self.label(obj["name"], f"{path}.name", depth))

    def tag_frame(self, obj: Mapping[str, Any], path: str, depth: int) -> pd.DataFrame:
        self.keys(obj, path, ("index", "columns", "dtypes", "data"))
        data = self.list_of(obj, "data", path)
        dtypes = self.list_of(obj, "dtypes", path)
        if len(dtypes) != len(data):
            raise self.fail(
                f"{path}.dtypes", f"{len(dtypes)} dtypes for {len(data)} columns of data"
            )
        columns = self.index(obj["columns"], f"{path}.columns", depth + 1, len(data))
        if not columns.is_unique:
            twice = columns[columns.duplicated()][0]
            raise self.fail(f"{path}.columns", f"the column {twice!r} appears twice")
        rows = None
        for j, col in enumerate(data):
            if not isinstance(col, list):
                raise self.fail(f"{path}.data[{j}]", f"expected a list, got {_describe(col)}")
            if rows is not None and len(col) != rows:
                raise self.fail(
                    f"{path}.data[{j}]", f"the column has {len(col)} rows, the first has {rows}"
                )
            rows = len(col)
        index = self.index(obj["index"], f"{path}.index", depth + 1, rows)
        series = {
            j: pd.Series(self.column(col, dtypes[j], f"{path}.data[{j}]", depth + 1), index=index)
            for j, col in enumerate(data)
        }
        frame = pd.DataFrame(series, index=index)
        frame.columns = columns
        return frame

    def tag_result(self, obj: Mapping[str, Any], path: str, depth: int) -> Any:
        self.keys(obj, path, ("kind", "fields"))
        return self.result(obj["kind"], obj["fields"], path, depth + 1)

    # -- results
    def result(self, kind: Any, fields: Any, path: str, depth: int = 0) -> Any:
        entry = _registry().get(kind) if isinstance(kind, str) else None
        if entry is None:
            raise ValueError(
                ERR_LOAD_KIND.format(file=self.file, got=kind, known=sorted(_REGISTRY))
            )
        if not isinstance(fields, dict):
            raise self.fail(path, f"expected an object of fields, got {_describe(fields)}")
        hints = _field_types(entry.cls)
        if issubclass(entry.cls, pd.DataFrame):
            allowed = ["table", *getattr(entry.cls, "_metadata", [])]
            required = ["table"]
        else:
            init = [f for f in dataclasses.fields(cast(Any, entry.cls)) if f.init]
            allowed = [f.name for f in init]
            required = [
                f.name
                for f in init
                if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
            ]
        for name in fields:
            if name not in allowed:
                raise self.fail(f"{path}.{name}", f"{entry.cls.__name__} has no field {name!r}")
        for name in required:
            if name not in fields:
                raise self.fail(path, f"missing field {name!r} of {entry.cls.__name__}")
        values = {}
        for name, v in fields.items():
            where = f"{path}.{name}"
            value = self.value(v, where, depth + 1)
            expected = hints.get(name, pd.DataFrame if name == "table" else Any)
            record = _record_type(expected)
            if record is not None and isinstance(value, dict):
                try:
                    value = record.from_dict(value)
                except (TypeError, ValueError, KeyError) as exc:
                    raise self.fail(where, f"not a {record.__name__}: {exc}") from None
            if not _conforms(value, expected):
                raise self.fail(where, f"expected {_type_name(expected)}, got {_describe(value)}")
            values[name] = value
        try:
            if issubclass(entry.cls, pd.DataFrame):
                out = entry.cls(values.pop("table"))
                for name, v in values.items():
                    setattr(out, name, v)
            else:
                out = entry.cls(**values)
            repr(out)  # the loaded object must print and convert, or the file is refused
            if hasattr(out, "to_dict") and not isinstance(out, pd.DataFrame):
                out.to_dict()
        except MemoryError:
            raise
        except Exception as exc:  # any other failure names the file (a rebuilt object is code)
            raise self.fail(
                path, f"the fields do not make a {entry.cls.__name__} ({type(exc).__name__}: {exc})"
            ) from None
        return out


def _field_types(cls: type) -> dict[str, Any]:
    """The resolved annotations of a result class's fields (an annotation that does not
    resolve is left out, so its field is not checked)."""
    hints: dict[str, Any] = {}
    for klass in reversed(cls.__mro__):
        if klass.__module__.startswith(("pandas", "builtins")):
            continue
        namespace = vars(sys.modules[klass.__module__])
        for name, annotation in inspect.get_annotations(klass).items():
            try:
                hints[name] = (
                    eval(annotation, namespace)  # noqa: S307 - the class's own annotation
                    if isinstance(annotation, str)
                    else annotation
                )
            except Exception:  # pragma: no cover - a name only imported for type checking
                hints.pop(name, None)
    return hints


def _record_type(hint: Any) -> Any:
    """The record class (a small dataclass stored as its ``to_dict()`` and rebuilt with
    ``from_dict``, such as :class:`~biasamp.results.NullDistribution`) a field's annotation
    names, alone or in a union with ``None``; ``None`` otherwise."""
    candidates = get_args(hint) if get_origin(hint) in (Union, types.UnionType) else (hint,)
    for candidate in candidates:
        if isinstance(candidate, type) and getattr(candidate, "saved_as_record", False):
            return candidate
    return None


def _type_name(hint: Any) -> str:
    if hint is int:
        return "a 64-bit int"
    return getattr(hint, "__name__", None) or str(hint).replace("typing.", "")


def _conforms(value: Any, hint: Any) -> bool:
    """Whether a decoded value fits a field's annotation (the types :func:`decode_value` gives)."""
    if hint is Any:
        return True
    origin = get_origin(hint)
    args = get_args(hint)
    if origin is Union or origin is types.UnionType:
        return any(_conforms(value, a) for a in args)
    if hint is type(None):
        return value is None
    if hint is float:
        if not _is_number(value):
            return False
        try:
            float(value)
        except OverflowError:
            return False
        return True
    if hint is int:
        return _is_int(value) and -(2**63) <= value < 2**63  # sizes and counts fit int64
    if hint is bool:
        return isinstance(value, bool)
    if origin is dict:
        return isinstance(value, dict) and all(
            _conforms(k, args[0]) and _conforms(v, args[1]) for k, v in value.items()
        )
    if origin is list:
        return isinstance(value, list) and all(_conforms(v, args[0]) for v in value)
    if origin is tuple:
        if not isinstance(value, tuple):
            return False
        if len(args) == 2 and args[1] is Ellipsis:
            return all(_conforms(v, args[0]) for v in value)
        return len(value) == len(args) and all(
            _conforms(v, a) for v, a in zip(value, args, strict=True)
        )
    if isinstance(hint, type):
        if hasattr(hint, "__set_name__") and hasattr(hint, "__get__"):
            return isinstance(value, pd.DataFrame)  # a descriptor field holding a frame
        return isinstance(value, hint)
    return True  # pragma: no cover - an annotation form the results do not use


def decode_value(obj: Any, file: str = "the file", path: str = "$") -> Any:
    """The inverse of :func:`encode_value`; :class:`InvalidDocument` names the file and the
    JSON path of the first value that does not follow the format."""
    return _Decoder(file).value(obj, path)


def build_result(kind: str, fields: Mapping[str, Any], file: str, path: str = "$.result") -> Any:
    """The result of type ``kind`` from its stored ``fields`` (checked against its annotations)."""
    return _Decoder(file).result(kind, fields, path)


# ---------------------------------------------------------------- the envelope
def _plain(value: Any) -> Any:
    """A plain JSON value for readers without biasamp (non-finite floats become null)."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return float(value) if math.isfinite(value) else None
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, np.ndarray)):
        return [_plain(v) for v in value]
    return str(value)


def envelope(
    schema: str, version: int, *, metrics: Any = (), settings: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """The keys every biasamp JSON document opens with (:data:`ENVELOPE_KEYS`).

    ``metrics`` are the canonical names of the metrics the document holds;
    ``settings`` always carry ``random_state`` (``None`` when the computation drew
    nothing at random or did not record it); a ``seed`` key, the spelling of
    earlier documents, is read as ``random_state``.

    Examples
    --------
    >>> from biasamp.results._persist import envelope
    >>> doc = envelope("biasamp-saved-result", 2, metrics=["mals"], settings={"seed": 0})
    >>> list(doc), doc["settings"]
    (['schema', 'schema_version', 'biasamp_version', 'metrics', 'settings'], {'random_state': 0})
    """
    plain = _plain(dict(settings or {}))
    if "seed" in plain:
        seed = plain.pop("seed")
        plain.setdefault("random_state", seed)
    plain.setdefault("random_state", None)
    return {
        "schema": schema,
        "schema_version": version,
        "biasamp_version": __version__,
        "metrics": [str(m) for m in metrics],
        "settings": plain,
    }


def metrics_of(result: Any) -> list[str]:
    """The canonical names of the metrics a result holds: its ``metric``, the keys of its
    ``results`` (an audit, the captions of one model), or a table's ``metric`` column."""
    if isinstance(result, pd.DataFrame):
        if "metric" in result.columns:
            return [str(m) for m in pd.unique(result["metric"].astype(str))]
        return []
    metric = getattr(result, "metric", None)
    if isinstance(metric, str):
        return [metric]
    results = getattr(result, "results", None)
    if isinstance(results, Mapping):
        return [str(k) for k in results]
    return []


def _settings_of(result: Any) -> dict[str, Any]:
    """The settings a result records: an audit's ``settings``, else its ``params``."""
    if isinstance(result, pd.DataFrame):
        return {}
    settings = getattr(result, "settings", None)
    if isinstance(settings, Mapping):
        return dict(settings)
    params = getattr(result, "params", None)
    return dict(params) if isinstance(params, Mapping) else {}


# ---------------------------------------------------------------- files
def saved_document(result: Any) -> dict[str, Any]:
    """The JSON document :func:`save_result` writes (a command writes it with ``--json``)."""
    entry = _BY_CLASS.get(type(result))
    if entry is None:
        raise TypeError(ERR_SAVE_TYPE.format(kind=type(result).__name__, known=sorted(_REGISTRY)))
    return {
        **envelope(
            SAVED_SCHEMA,
            SAVED_SCHEMA_VERSION,
            metrics=metrics_of(result),
            settings=_settings_of(result),
        ),
        "type": entry.kind,
        "class": type(result).__name__,
        "inputs": encode_value(entry.shapes(result), "inputs"),
        "value": _headline(result),
        "result": _fields(result, entry),
    }


def save_result(result: Any, path: str | os.PathLike[str], *, format: str = "json") -> Path:
    """Save a result to ``path`` as JSON (atomically); see :meth:`SavableResult.save`."""
    if format not in FORMATS:
        raise ValueError(ERR_SAVE_FORMAT.format(choices=FORMATS, got=format))
    document = saved_document(result)
    target = check_written_output(path, argument="path", inputs=input_files_of(result))
    text = json.dumps(document, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    with atomic_output(target, "w", encoding="utf-8") as handle:
        handle.write(text + "\n")
    return Path(path)


ERR_LOAD_CLASS = "{file}: $.class: the type {kind!r} is the class {expected!r}, not {got!r}."
ERR_LOAD_MISMATCH = (
    "{file}: {path}: the file says {declared!r}, but its result has {actual!r} (an edited file?)."
)


def result_from_document(document: Mapping[str, Any], schema: Mapping[str, Any], file: str) -> Any:
    """The result a saved document holds, after checking the document against ``schema``
    (the envelope), every field against its type, and the declared ``value`` and
    ``inputs`` against the rebuilt result."""
    from biasamp.results._json_schema import first_schema_error

    found = first_schema_error(document, schema)
    if found is not None:
        raise InvalidDocument(file, *found)
    check_version(document, SAVED_SCHEMA_VERSION, file)
    kind = document["type"]
    entry = _registry().get(kind)
    if entry is None:
        raise ValueError(ERR_LOAD_KIND.format(file=file, got=kind, known=sorted(_REGISTRY)))
    if document["class"] != entry.cls.__name__:
        raise ValueError(
            ERR_LOAD_CLASS.format(
                file=file, kind=kind, expected=entry.cls.__name__, got=document["class"]
            )
        )
    decoder = _Decoder(file)
    inputs = decoder.value(document["inputs"], "$.inputs")
    result = decoder.result(kind, document["result"], "$.result")
    value = decoder.value(document["value"], "$.value")
    headline = decode_value(_headline(result), file)
    if not same_value(value, headline) and not (_is_number(value) and value == headline):
        raise ValueError(
            ERR_LOAD_MISMATCH.format(file=file, path="$.value", declared=value, actual=headline)
        )
    actual = decoder.value(encode_value(entry.shapes(result), "inputs"), "$.inputs")
    for key, declared in inputs.items():
        if key in actual and not same_value(declared, actual[key]) and declared != actual[key]:
            raise ValueError(
                ERR_LOAD_MISMATCH.format(
                    file=file, path=f"$.inputs.{key}", declared=declared, actual=actual[key]
                )
            )
    return result


def _headline(result: Any) -> Any:
    for name in ("value", "mean"):
        value = getattr(result, name, None)
        if isinstance(value, (int, float, np.number)) and not isinstance(value, bool):
            return _float(float(value))
    return None


ERR_LOAD_VERSION_VALUE = "{file}: $.schema_version: expected a positive integer, got {got!r}."


def check_version(document: Mapping[str, Any], supported: int, file: str) -> None:
    """Refuse a ``schema_version`` that is not a positive integer, or newer than ``supported``."""
    version = document.get("schema_version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise ValueError(ERR_LOAD_VERSION_VALUE.format(file=file, got=version))
    if version > supported:
        raise ValueError(
            ERR_LOAD_VERSION.format(
                file=file, got=version, version=__version__, supported=supported
            )
        )
