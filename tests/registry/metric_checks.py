"""The common checks of every registered metric, generated from its card (a catalogue).

After scikit-learn's ``utils/estimator_checks.py``: a card declares its public
function's data arguments by kind (``inputs``) and its knobs (``knobs``); from those
alone this module builds a valid call, then

* the hostile catalogue, per declared argument (:data:`HOSTILE`, each class by kind)
  and per knob (:data:`KNOB_VALUES`): each must raise a ``ValueError`` or ``TypeError``
  that names the argument (and, for a missing value, its row; in a concept x group
  table, its concept and group), within :data:`TIME_LIMIT` seconds;
* the invariances that apply (:data:`INVARIANCES`): row order, every container equal
  to numpy, chunked tables merged in any order equal to one table, sparse equal to
  dense; for concept x group tables, the order of their concept rows and of their
  group columns, and polars, pyarrow and mapping tables equal to the pandas one.

A ``count_table`` argument is a concept x group table (:func:`valid_table` builds
one, seeded, whose concepts are those of the card's ``concepts`` labels and whose
groups those of its ``groups``), except ``counts_*`` arguments, the count-table form
of a metric's rows (a :class:`biasamp.CountTable`), which the chunk-merge checks
cover. A table argument with a row form (``reference`` and ``reference_concepts`` /
``reference_groups``) is checked in each form: the valid call gives one or the other
(:func:`valid_call`, ``form``).

Checks a card lists in ``xfail_checks`` are expected to fail, with its reason. A
metric is covered the moment its card is registered: nothing here names a metric,
except the count-table forms (:data:`COUNT_FORMS`, how to count a metric's rows in
chunks), which are optional.

Each check is a plain function that raises ``AssertionError`` on failure, so a test
can run the battery on a toy metric and see it fail (``tests/registry/test_common.py``).
"""

from __future__ import annotations

import re
import time
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import scipy.sparse as sp

import biasamp
from biasamp.registry import MetricCard

#: Seconds a hostile call may take before it is refused (a limit, not a measurement).
TIME_LIMIT = 5.0
#: Rows of the valid inputs (both splits).
N = 40
#: The row a missing value is put in (every message must name it).
BAD_ROW = 3
N_TASKS = 3
N_QUERIES = 6
#: Knob values of the valid call that keep it quick.
QUICK_KNOBS = {"n_iter": 2, "k": 3}
#: Keywords of the valid call, when the function takes them (quiet and quick).
QUIET = {"min_group_size": None, "progress": False}

#: Concepts of the valid labels and tables (a ``concepts`` argument draws from the first 4).
CONCEPTS = ("nurse", "pilot", "chef", "judge", "baker", "clerk")
#: Table arguments whose rows are groups, not concepts (a confusion table: true x assigned).
GROUP_ROWS = ("attribute_confusion", "confusion")
#: A plain argument a function may need beside its declared inputs, from the groups.
GROUP_ARGUMENT = "group"

#: The kinds whose rows line up with the other arguments' rows (``scores`` line up by
#: their columns: rows x items, and a ``labels`` argument beside scores labels the items).
ROW_AXIS = {"scores": 1}


#: Valid values of arguments whose kind alone does not say their form (a binary truth
#: of 0/1 and the positive class's probability, ``calibration_error``'s), by argument.
VALID_BY_ARGUMENT: dict[str, Callable[[int, np.random.Generator], Any]] = {
    "y_true": lambda n, rng: rng.permutation(np.arange(n) % 2),
    "y_prob": lambda n, rng: rng.random(n),
}


# ------------------------------------------------------------------ valid inputs
def _rng() -> np.random.Generator:
    return np.random.default_rng(20261128)


def valid_value(kind: str, arg: str, *, n: int = N, seed: int = 0) -> Any:
    """A valid numpy value of ``kind`` with ``n`` rows (deterministic)."""
    rng = np.random.default_rng(seed)
    if arg in VALID_BY_ARGUMENT:
        return VALID_BY_ARGUMENT[arg](n, rng)
    if kind == "labels" and "concept" in arg:
        return rng.permutation(np.array([CONCEPTS[i % 4] for i in range(n)], dtype=object))
    if kind == "labels":
        values = np.array(["m", "w"] * (n // 2) + ["m"] * (n % 2), dtype=object)
        return rng.permutation(values)
    if kind == "label_matrix":
        matrix = (rng.random((n, N_TASKS)) < 0.5).astype(np.int64)
        matrix[0], matrix[1] = 1, 0  # every column holds both values
        return matrix
    if kind == "scores":
        return rng.random((N_QUERIES, n))
    if kind == "posteriors":
        raw = rng.random((n, N_TASKS, 2))
        return raw / raw.sum(axis=(1, 2), keepdims=True)
    if kind == "captions":
        places = np.array(["kitchen", "park", "street", "beach"])
        return [f"a person in the {p} with a {q}" for p, q in rng.choice(places, (n, 2))]
    if kind == "weights":
        return rng.uniform(0.5, 2.0, n)
    raise KeyError(kind)


def signature_of(card: MetricCard) -> Any:
    import inspect

    return inspect.signature(function_of(card))


def function_of(card: MetricCard) -> Callable[..., Any]:
    return getattr(biasamp, card.function)


def is_table(card: MetricCard, arg: str) -> bool:
    """Whether ``arg`` is a concept x group table (not a ``counts_*`` CountTable)."""
    return card.inputs.get(arg) == "count_table" and not arg.startswith("counts_")


def row_form(card: MetricCard, table: str) -> tuple[str, ...]:
    """The labels arguments that give table ``table`` as rows (``reference_concepts``)."""
    return tuple(
        arg for arg, kind in card.inputs.items() if kind == "labels" and arg.startswith(f"{table}_")
    )


def forms(card: MetricCard) -> tuple[str, ...]:
    """The forms of a valid call: ``"table"``, and ``"rows"`` when a table has a row form."""
    has_rows = any(row_form(card, arg) for arg in card.inputs if is_table(card, arg))
    return ("table", "rows") if has_rows else ("table",)


def form_of(card: MetricCard, arg: str) -> str:
    """The form of the valid call that holds ``arg``."""
    tables = [t for t in card.inputs if is_table(card, t)]
    return "rows" if any(arg in row_form(card, t) for t in tables) else "table"


def _names(values: Any) -> list[Any]:
    return sorted(set(np.asarray(values).tolist()))


def valid_table(card: MetricCard, arg: str, kwargs: dict[str, Any], *, seed: int) -> pd.DataFrame:
    """A valid concept x group table (seeded): concepts (rows) those of the call's
    ``concepts`` labels (else :data:`CONCEPTS`), groups (columns) those of its ``groups``
    (else ``m``, ``w``); each concept has one strict majority group and at least 200
    counts. A confusion table (:data:`GROUP_ROWS`) is groups x groups, its diagonal
    largest."""
    rng = np.random.default_rng(1000 + seed)
    groups = _names(kwargs["groups"]) if "groups" in kwargs else ["m", "w"]
    if arg in GROUP_ROWS:
        k = len(groups)
        values = rng.integers(0, 15, (k, k)) + np.diag(rng.integers(60, 100, k))
        return pd.DataFrame(values, index=groups, columns=groups)
    concepts = _names(kwargs["concepts"]) if "concepts" in kwargs else list(CONCEPTS)
    values = 2 * rng.integers(50, 300, (len(concepts), len(groups)))
    values[:, 0] += 1  # odd beside even: no two groups tie
    return pd.DataFrame(values, index=concepts, columns=groups)


def valid_call(card: MetricCard, *, form: str = "table") -> dict[str, Any]:
    """The keywords of a valid call: every declared argument (``counts_*`` tables aside;
    a table with a row form as a table or as rows, by ``form``), the direction, quick
    knob values and the quiet keywords the function takes."""
    parameters = signature_of(card).parameters
    tables = [arg for arg in card.inputs if is_table(card, arg)]
    as_rows = {a for t in tables for a in row_form(card, t)}
    kwargs: dict[str, Any] = {}
    for seed, (arg, kind) in enumerate(card.inputs.items()):
        if kind in ("count_table", "row_offsets") or (arg in as_rows and form != "rows"):
            continue
        kwargs[arg] = valid_value(kind, arg, seed=seed)
    for seed, arg in enumerate(tables):
        if form == "rows" and row_form(card, arg):
            continue
        kwargs[arg] = valid_table(card, arg, kwargs, seed=seed)
    if tables and GROUP_ARGUMENT in parameters and GROUP_ARGUMENT not in card.inputs:
        kwargs[GROUP_ARGUMENT] = "m"
    if card.direction is not None:
        kwargs["direction"] = card.direction
    for knob in card.knobs:
        if knob in QUICK_KNOBS:
            kwargs[knob] = QUICK_KNOBS[knob]
    if "random_state" in card.knobs:
        kwargs["random_state"] = 0
    for key, value in QUIET.items():
        if key in parameters:
            kwargs[key] = value
    return kwargs


def call(card: MetricCard, kwargs: dict[str, Any]) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return function_of(card)(**kwargs)


def value_of(result: Any) -> float:
    """A result's ``value`` (or the number a function returns)."""
    return float(getattr(result, "value", result))


# ------------------------------------------------------------------ hostile values
def _with_missing(value: np.ndarray, kind: str, missing: Any) -> np.ndarray:
    out = np.array(value, dtype=object)
    if out.ndim == 1:
        out[BAD_ROW] = missing
    elif kind == "scores":
        out[BAD_ROW, BAD_ROW] = missing  # query BAD_ROW, item BAD_ROW
    else:
        out[(BAD_ROW,) + (1,) * (out.ndim - 1)] = missing
    return out


def _frame(value: np.ndarray) -> pd.DataFrame | pd.Series:
    value = np.asarray(value)
    if value.ndim == 1:
        return pd.Series(value)
    return pd.DataFrame(
        value.reshape(value.shape[0], -1), columns=[f"c{j}" for j in range(value.shape[1])]
    )


def _pandas_na(value: Any, kind: str) -> Any:
    base = np.asarray(value)
    if base.dtype.kind == "O" or base.dtype.kind == "U":
        return _frame(_with_missing(base, kind, pd.NA))
    dtype = "Float64" if base.dtype.kind == "f" else "Int64"
    frame = _frame(base).astype(dtype)
    if isinstance(frame, pd.Series):
        frame.iloc[BAD_ROW] = pd.NA
    elif kind == "scores":
        frame.iloc[BAD_ROW, BAD_ROW] = pd.NA
    else:
        frame.iloc[BAD_ROW, 1] = pd.NA
    return frame


def _polars_null(value: Any, kind: str) -> Any:
    base = np.asarray(value)
    if base.ndim == 1:
        data = base.tolist()
        data[BAD_ROW] = None
        return pl.Series("x", data)
    if base.ndim != 2:
        return None  # no polars form
    rows = base.tolist()
    if kind == "scores":
        rows[BAD_ROW][BAD_ROW] = None
    else:
        rows[BAD_ROW][1] = None
    return pl.DataFrame(rows, schema=[f"c{j}" for j in range(base.shape[1])], orient="row")


def _pyarrow_null(value: Any, kind: str) -> Any:
    base = np.asarray(value)
    if base.ndim == 1:
        data = base.tolist()
        data[BAD_ROW] = None
        return pa.array(data)
    if base.ndim != 2:
        return None
    columns = [base[:, j].tolist() for j in range(base.shape[1])]
    if kind == "scores":
        columns[BAD_ROW][BAD_ROW] = None
    else:
        columns[1][BAD_ROW] = None
    return pa.table({f"c{j}": column for j, column in enumerate(columns)})


def _nan_numpy(value: Any, kind: str) -> Any:
    base = np.asarray(value)
    if base.dtype.kind in "OU":
        return _with_missing(base, kind, np.nan)
    out = base.astype(np.float64)
    if out.ndim == 1:
        out[BAD_ROW] = np.nan
    elif kind == "scores":
        out[BAD_ROW, BAD_ROW] = np.nan
    else:
        out[(BAD_ROW,) + (1,) * (out.ndim - 1)] = np.nan
    return out


def _none_list(value: Any, kind: str) -> Any:
    return _with_missing(np.asarray(value), kind, None).tolist()


def _nat(value: Any, kind: str) -> Any:
    if kind in ("labels",):  # a datetime column with a NaT
        stamps = pd.Series(pd.to_datetime(["2020-01-01", "2021-01-01"] * (N // 2)))
        stamps.iloc[BAD_ROW] = pd.NaT
        return stamps
    return _with_missing(np.asarray(value), kind, pd.NaT)


def _mixed(first: Any, second: Any) -> Callable[[Any, str], Any]:
    def make(value: Any, kind: str) -> Any:
        labels = np.array([first, second] * (N // 2), dtype=object)
        return labels.tolist()

    return make


def _empty(value: Any, kind: str) -> Any:
    base = np.asarray(value)
    if kind == "captions":
        return []
    if kind == "scores":
        return base[:0]  # no queries
    return base[:0]


def _short(value: Any, kind: str) -> Any:
    if kind == "captions":
        return list(value)[:-1]
    base = np.asarray(value)
    if kind == "scores":
        return base[:, :-1]
    return base[:-1]


def _extra_axis(value: Any, kind: str) -> Any:
    base = np.asarray(value)
    if kind == "captions":
        return np.array([[c, c] for c in value], dtype=object)
    if kind in ("labels", "label_matrix"):
        return np.zeros((base.shape[0], 2, 2))
    return np.stack([base, base], axis=-1)


def _inf(value: Any, kind: str) -> Any:
    out = np.asarray(value, dtype=np.float64).copy()
    if kind == "scores":
        out[BAD_ROW, BAD_ROW] = np.inf
    else:
        out[(BAD_ROW,) + (0,) * (out.ndim - 1)] = np.inf
    return out


def _negative(value: Any, kind: str) -> Any:
    out = np.asarray(value, dtype=np.float64).copy()
    out[BAD_ROW] = -1.0
    return out


def _duplicate_columns(value: Any, kind: str) -> Any:
    base = np.asarray(value)
    if base.ndim != 2:
        return None
    names = [f"c{j}" for j in range(base.shape[1])]
    names[-1] = names[0]
    return pd.DataFrame(base, columns=names)


# ------------------------------------------------------------------ hostile tables
def bad_cell(table: pd.DataFrame) -> tuple[int, int]:
    """The (row, column) position a table's bad value is put in."""
    return min(BAD_ROW, table.shape[0] - 1), 1


def _table_with(missing: Any, dtype: str | None = None) -> Callable[[pd.DataFrame], Any]:
    def make(table: pd.DataFrame) -> Any:
        out = table.astype(dtype or object)
        out.iloc[bad_cell(table)] = missing
        return out

    return make


def _table_none_mapping(table: pd.DataFrame) -> Any:
    mapping = {c: row.to_dict() for c, row in table.iterrows()}
    i, j = bad_cell(table)
    mapping[table.index[i]][table.columns[j]] = None
    return mapping


def _table_frame(table: pd.DataFrame, library: str) -> Any:
    """The table as a polars or pyarrow frame, its concepts in a first column."""
    data = {"concept": [str(c) for c in table.index]}
    data.update({str(c): table[c].tolist() for c in table.columns})
    return pl.DataFrame(data) if library == "polars" else pa.table(data)


def _table_null(library: str) -> Callable[[pd.DataFrame], Any]:
    def make(table: pd.DataFrame) -> Any:
        data = {str(c): table[c].tolist() for c in table.columns}
        i, j = bad_cell(table)
        data[str(table.columns[j])][i] = None
        data = {"concept": [str(c) for c in table.index], **data}
        return pl.DataFrame(data) if library == "polars" else pa.table(data)

    return make


def _table_keys_alike(first: Any, second: Any) -> Callable[[pd.DataFrame], Any]:
    def make(table: pd.DataFrame) -> Any:
        return table.set_axis([first, second, *table.columns[2:]], axis=1)

    return make


def _table_duplicate_columns(table: pd.DataFrame) -> Any:
    return table.set_axis([table.columns[0], *table.columns[:-1]], axis=1)


def _table_duplicate_rows(table: pd.DataFrame) -> Any:
    return table.set_axis([table.index[-1], *table.index[1:]], axis=0)


def _table_set(value: Any) -> Callable[[pd.DataFrame], Any]:
    def make(table: pd.DataFrame) -> Any:
        out = table.astype(np.float64) if isinstance(value, float) else table.astype(object)
        out.iloc[bad_cell(table)] = value
        return out

    return make


def _table_text_column(table: pd.DataFrame) -> Any:
    out = table.copy()
    column = out.columns[1]
    out[column] = out[column].astype(str)
    return out


@dataclass(frozen=True)
class Hostile:
    """One class of the hostile catalogue: the kinds it applies to and how to make it
    (``table``: how to make it from a valid concept x group table, when it applies to
    tables)."""

    check: str
    kinds: tuple[str, ...]
    make: Callable[[Any, str], Any]
    names_row: bool = False
    table: Callable[[pd.DataFrame], Any] | None = None


def _rows_only(value: Any, kind: str) -> Any:  # pragma: no cover - a class of tables only
    return None


_ROWS = ("labels", "label_matrix", "scores", "posteriors", "captions", "weights")

#: The hostile catalogue, every class of bad input by kind (one check name each).
HOSTILE: tuple[Hostile, ...] = (
    Hostile("missing_none_list", _ROWS, _none_list, names_row=True, table=_table_none_mapping),
    Hostile(
        "missing_nan_numpy", _ROWS, _nan_numpy, names_row=True, table=_table_with(np.nan, "float64")
    ),
    Hostile(
        "missing_pd_na",
        ("labels", "label_matrix", "scores", "captions", "weights"),
        _pandas_na,
        names_row=True,
        table=_table_with(pd.NA, "Int64"),
    ),
    Hostile("missing_nat", _ROWS, _nat, names_row=True, table=_table_with(pd.NaT)),
    Hostile(
        "missing_polars_null",
        ("labels", "label_matrix", "scores", "captions", "weights"),
        _polars_null,
        names_row=True,
        table=_table_null("polars"),
    ),
    Hostile(
        "missing_pyarrow_null",
        ("labels", "label_matrix", "scores", "captions", "weights"),
        _pyarrow_null,
        names_row=True,
        table=_table_null("pyarrow"),
    ),
    Hostile(
        "mixed_int_str", ("labels", "label_matrix"), _mixed(1, "1"), table=_table_keys_alike(1, "1")
    ),
    Hostile("mixed_bool_int", ("labels", "label_matrix"), _mixed(True, 1)),
    Hostile(
        "duplicate_columns",
        ("label_matrix", "scores"),
        _duplicate_columns,
        table=_table_duplicate_columns,
    ),
    Hostile("duplicate_rows", (), _rows_only, table=_table_duplicate_rows),
    Hostile("empty", _ROWS, _empty, table=lambda table: table.iloc[:0]),
    Hostile("wrong_type", (), _rows_only, table=lambda table: "counts.csv"),
    Hostile("wrong_length", _ROWS, _short),
    Hostile("wrong_ndim", _ROWS, _extra_axis),
    Hostile("inf_in_scores", ("scores", "posteriors", "weights"), _inf, table=_table_set(np.inf)),
    Hostile("negative_weights", ("weights",), _negative),
    Hostile("negative_count", (), _rows_only, names_row=True, table=_table_set(-1.0)),
    Hostile("non_numeric_count", (), _rows_only, table=_table_text_column),
)

#: The names argument that goes with a labels argument (``groups_pred`` -> ``group_names``).
NAMES_OF = {"group": "group_names", "task": "task_names", "label": "label_names"}


def names_argument(card: MetricCard, arg: str) -> str | None:
    stem = arg.split("_")[0].rstrip("s")
    name = NAMES_OF.get(stem)
    return name if name is not None and name in signature_of(card).parameters else None


#: Knob values of each class, by knob (``None``: the class does not apply to the knob).
KNOB_VALUES: dict[str, dict[str, Any]] = {
    "absurd_knob": {
        "n_boot": 10**9,
        "n_iter": 10**9,
        "n_perm": 10**9,
        "k": 10**9,
        "n_bins": 10**18,
        "min_count": 10**9,
    },  # fmt: skip
    # n_perm=0 is no significance test (the default), not a mistake
    "zero_knob": {"n_boot": 0, "n_iter": 0, "k": 0, "n_bins": 0, "ci": 0.0},
    "negative_knob": {
        "n_boot": -1,
        "n_iter": -1,
        "n_perm": -1,
        "k": -1,
        "n_bins": -1,
        "ci": -0.5,
        "random_state": -1,
        "min_count": -1,
    },  # fmt: skip
    "non_integer_knob": {
        "n_boot": 2.5,
        "n_iter": 2.5,
        "n_perm": 2.5,
        "k": 2.5,
        "n_bins": 2.5,
        "ci": "high",
        "random_state": "seed",
        "min_count": "many",
    },  # fmt: skip
}


# ------------------------------------------------------------------ the checks
def _refused(
    card: MetricCard,
    kwargs: dict[str, Any],
    names: tuple[str, ...],
    row: bool,
    cell: tuple[str, ...] = (),
) -> None:
    """Assert that the call raises a ValueError or TypeError naming one of ``names`` (and
    the bad row when ``row``; every name of ``cell``, a table's concept and group, when
    given), within the time limit."""
    start = time.perf_counter()
    try:
        call(card, kwargs)
    except (ValueError, TypeError) as exc:
        message = str(exc)
        elapsed = time.perf_counter() - start
        assert elapsed < TIME_LIMIT, f"{card.name}: refused after {elapsed:.1f} s: {message}"
        assert any(re.search(rf"\b{re.escape(n)}\b", message) for n in names), (
            f"{card.name}: the error does not name {' or '.join(names)}: {message}"
        )
        if row and not cell:
            assert re.search(rf"\b{BAD_ROW}\b", message), (
                f"{card.name}: the error does not name row {BAD_ROW}: {message}"
            )
        for name in cell:
            assert re.search(rf"\b{re.escape(name)}\b", message), (
                f"{card.name}: the error does not name the table's row or column {name!r}: "
                f"{message}"
            )
        return
    except Exception as exc:  # noqa: BLE001 - any other exception is the failure reported
        raise AssertionError(
            f"{card.name}: {type(exc).__name__} instead of a ValueError/TypeError naming "
            f"{names[0]}: {exc}"
        ) from exc
    raise AssertionError(f"{card.name}: accepted {names[0]} (no error)")


def check_hostile(card: MetricCard, check: str, arg: str) -> None:
    """Run one hostile class on one declared argument of ``card``."""
    kind = card.inputs[arg]
    kwargs = valid_call(card, form=form_of(card, arg))
    if is_table(card, arg):
        hostile = next(h for h in HOSTILE if h.check == check)
        assert hostile.table is not None, f"{check} has no form for tables"
        table = kwargs[arg]
        i, j = bad_cell(table)
        kwargs[arg] = hostile.table(table)
        cell = (str(table.index[i]), str(table.columns[j])) if hostile.names_row else ()
        _refused(card, kwargs, (arg,), row=hostile.names_row, cell=cell)
        return
    if check == "duplicate_names":
        names = names_argument(card, arg)
        assert names is not None
        kwargs[names] = ["m", "w", "m"] if kind == "labels" else [0, 1, 0]
        _refused(card, kwargs, (names,), row=False)
        return
    hostile = next(h for h in HOSTILE if h.check == check)
    bad = hostile.make(kwargs[arg], kind)
    assert bad is not None, f"{check} has no form for {kind}"
    kwargs[arg] = bad
    _refused(card, kwargs, (arg,), row=hostile.names_row)


#: Knobs that are read only with another one (the interval level and the seed of a
#: bootstrap): the other is set too, when the card declares it.
COMPANIONS = {"ci": {"n_boot": 20}, "random_state": {"n_boot": 20}}


def check_knob(card: MetricCard, check: str, knob: str) -> None:
    """Run one knob class on one declared knob of ``card``."""
    kwargs = valid_call(card)
    for other, value in COMPANIONS.get(knob, {}).items():
        if other in card.knobs:
            kwargs[other] = value
    kwargs[knob] = KNOB_VALUES[check][knob]
    _refused(card, kwargs, (knob,), row=False)


def hostile_cases(card: MetricCard) -> Iterator[tuple[str, str]]:
    """The (check, argument or knob) pairs that apply to ``card``."""
    for arg, kind in card.inputs.items():
        for hostile in HOSTILE:
            applies = hostile.table is not None if is_table(card, arg) else kind in hostile.kinds
            if applies:
                yield hostile.check, arg
        if kind == "labels" and names_argument(card, arg) is not None:
            yield "duplicate_names", arg
    for check, values in KNOB_VALUES.items():
        for knob in card.knobs:
            if knob in values:
                yield check, knob


# ------------------------------------------------------------------ invariances
def _rows(value: Any, kind: str, order: np.ndarray) -> Any:
    if kind == "captions":
        return [value[i] for i in order]
    return np.asarray(value)[order]


def _same(a: float, b: float, what: str) -> None:
    assert (np.isnan(a) and np.isnan(b)) or a == b or abs(a - b) <= 1e-9 * max(1.0, abs(a)), (
        f"{what}: {a!r} != {b!r}"
    )


def check_row_order(card: MetricCard) -> None:
    """Permuting the rows (every row-aligned argument together, and the concept rows of
    every table) gives the same value, in every form of the call."""
    for form in forms(card):
        kwargs = valid_call(card, form=form)
        expected = value_of(call(card, kwargs))
        order = np.random.default_rng(1).permutation(N_QUERIES if _has_scores(card) else N)
        moved = dict(kwargs)
        for arg, kind in card.inputs.items():
            if arg not in kwargs:
                continue
            if is_table(card, arg):
                table = kwargs[arg]
                moved[arg] = table.iloc[np.random.default_rng(2).permutation(table.shape[0])]
                continue
            if _has_scores(card):
                if kind == "scores":  # the queries; the items (and their labels) stay
                    moved[arg] = np.asarray(kwargs[arg])[order]
                continue
            moved[arg] = _rows(kwargs[arg], kind, order)
        _same(value_of(call(card, moved)), expected, f"{card.name} row order ({form})")


def check_column_order(card: MetricCard) -> None:
    """Reversing the group columns of every table gives the same value."""
    for form in forms(card):
        kwargs = valid_call(card, form=form)
        expected = value_of(call(card, kwargs))
        moved = dict(kwargs)
        for arg in card.inputs:
            if arg in kwargs and is_table(card, arg):
                moved[arg] = kwargs[arg].iloc[:, ::-1]
        _same(value_of(call(card, moved)), expected, f"{card.name} column order ({form})")


def _has_tables(card: MetricCard) -> bool:
    return any(is_table(card, arg) for arg in card.inputs)


def _has_scores(card: MetricCard) -> bool:
    return "scores" in card.inputs.values()


def _to_container(value: Any, kind: str, container: str) -> Any:
    base = value if kind == "captions" else np.asarray(value)
    if container == "list":
        return list(base) if kind == "captions" else base.tolist()
    if kind == "posteriors":
        return base  # 3-D: numpy (or a list) only
    if kind == "captions" or base.ndim == 1:
        data = list(base) if kind == "captions" else base.tolist()
        return {"pandas": pd.Series, "polars": pl.Series, "pyarrow": pa.array}[container](data)
    columns = [f"c{j}" for j in range(base.shape[1])]
    if container == "pandas":
        return pd.DataFrame(base, columns=columns)
    if container == "polars":
        return pl.DataFrame({c: base[:, j] for j, c in enumerate(columns)})
    return pa.table({c: base[:, j] for j, c in enumerate(columns)})


def _table_to_container(table: pd.DataFrame, container: str) -> Any:
    """A concept x group table as a pandas frame (as built), a polars or pyarrow table
    (concepts in a first column), or a mapping ``{concept: {group: count}}`` (``list``)."""
    if container == "pandas":
        return table
    if container == "list":
        return {c: {g: int(v) for g, v in row.items()} for c, row in table.iterrows()}
    return _table_frame(table, container)


def check_container(card: MetricCard, container: str) -> None:
    """Every declared argument in ``container`` gives the value of numpy (of pandas, for
    a table; ``list`` is a mapping for a table), in every form of the call."""
    for form in forms(card):
        kwargs = valid_call(card, form=form)
        expected = value_of(call(card, kwargs))
        moved = dict(kwargs)
        for arg, kind in card.inputs.items():
            if arg not in kwargs:
                continue
            if is_table(card, arg):
                moved[arg] = _table_to_container(kwargs[arg], container)
                continue
            moved[arg] = _to_container(kwargs[arg], kind, container)
            if container == "pandas" and kind == "labels" and _has_scores(card):
                moved[arg].index = [f"c{j}" for j in range(len(moved[arg]))]  # the items
        _same(value_of(call(card, moved)), expected, f"{card.name} {container} ({form})")


def check_sparse(card: MetricCard) -> None:
    """Every label matrix as a scipy.sparse CSR matrix gives the value of dense."""
    kwargs = valid_call(card)
    expected = value_of(call(card, kwargs))
    moved = dict(kwargs)
    for arg, kind in card.inputs.items():
        if kind == "label_matrix" and arg in kwargs:
            moved[arg] = sp.csr_matrix(np.asarray(kwargs[arg]))
    _same(value_of(call(card, moved)), expected, f"{card.name} sparse")


#: The count-table roles of a function's arguments (the differential-fairness metrics
#: count ``labels`` as tasks).
ROLES = {"labels": "tasks", "labels_pred": "tasks_pred"}


def _label_tables(
    card: MetricCard, kwargs: dict[str, Any], chunks: list[np.ndarray]
) -> tuple[Any, list[Any]]:
    """The training table (``None`` without a training split) and one evaluation table per
    chunk of rows (each with its ``row_offset``), of the table type the family counts."""
    table_type = (
        biasamp.PatternCountTable if card.family.startswith("multi") else biasamp.CountTable
    )
    evaluation = [a for a in ("groups", "tasks", "groups_pred", "tasks_pred", "labels",
                              "labels_pred") if a in kwargs]  # fmt: skip
    labels = "labels" if "labels" in kwargs else "tasks_train"
    names = {
        "group_names": tuple(
            sorted(
                set(np.asarray(kwargs["groups" if "groups" in kwargs else "groups_train"]).tolist())
            )
        ),
        "task_names": tuple(sorted(set(np.asarray(kwargs[labels]).tolist())))
        if labels == "labels"
        else tuple(range(N_TASKS)),
    }
    train = None
    if "groups_train" in kwargs:
        train = table_type.from_arrays(
            groups=kwargs["groups_train"], tasks=kwargs["tasks_train"],
            sample_weight=kwargs.get("sample_weight_train"), **names,
        )  # fmt: skip
    tables = [
        table_type.empty(**names).update(
            **{ROLES.get(a, a): np.asarray(kwargs[a])[rows] for a in evaluation},
            sample_weight=np.asarray(kwargs["sample_weight"])[rows],
            row_offset=int(rows[0]),
        )
        for rows in chunks
    ]
    return train, tables


def _from_label_tables(card: MetricCard, kwargs: dict[str, Any], order: list[int]) -> float:
    """The metric's ``*_from_counts`` value from chunk tables summed in ``order``."""
    train, tables = _label_tables(card, kwargs, np.array_split(np.arange(N), len(order)))
    table = sum((tables[i] for i in order[1:]), tables[order[0]])
    quiet = {"min_group_size": None}
    direction = {"direction": card.direction} if card.direction else {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if card.family == "mals":
            return biasamp.mals_from_counts(train, table, **quiet).value
        if card.family == "directional":
            return biasamp.directional_from_counts(table, train=train, **direction, **quiet).value
        if card.family == "multi_mals":
            return biasamp.multi_mals_from_counts(train, table, **quiet).value
        if card.family == "multi_directional":
            return biasamp.multi_directional_from_counts(train, table, **direction, **quiet).value
        from_counts = getattr(biasamp, f"{card.function}_from_counts")
        return from_counts(table, **quiet).value


def _posterior_tables(card: MetricCard, kwargs: dict[str, Any], order: list[int]) -> float:
    train = biasamp.CountTable.from_arrays(
        groups=kwargs["groups_train"], tasks=kwargs["tasks_train"],
        sample_weight=kwargs.get("sample_weight_train"),
    )  # fmt: skip
    edges = np.array_split(np.arange(N), len(order))
    chunks = [
        biasamp.distribution_counts(
            np.asarray(kwargs["joint_proba"])[rows],
            task_names=train.task_names,
            group_names=train.group_names,
            sample_weight=np.asarray(kwargs["sample_weight"])[rows],
            row_offset=int(rows[0]),
        )
        for rows in edges
    ]
    table = sum((chunks[i] for i in order[1:]), chunks[order[0]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return biasamp.distribution_mals_from_counts(train, table, min_group_size=None).value


#: A metric family's count-table form: its value from chunk tables summed in an order.
COUNT_FORMS: dict[str, Callable[[MetricCard, dict[str, Any], list[int]], float]] = {
    "mals": _from_label_tables,
    "directional": _from_label_tables,
    "multi_mals": _from_label_tables,
    "multi_directional": _from_label_tables,
    "differential_fairness": _from_label_tables,
    "differential_fairness_amplification": _from_label_tables,
    "distribution_mals": _posterior_tables,
}


def check_chunk_merge(card: MetricCard) -> None:
    """Tables of chunks merged in any order give the one-shot value."""
    kwargs = valid_call(card)
    expected = value_of(call(card, kwargs))
    form = COUNT_FORMS[card.family]
    for order in ([0, 1, 2], [2, 0, 1], [1, 2, 0]):
        _same(form(card, kwargs, order), expected, f"{card.name} chunks in order {order}")


def check_overlapping_row_ranges(card: MetricCard) -> None:
    """Two chunk tables whose row ranges overlap are refused when they are merged."""
    kwargs = valid_call(card)
    try:
        if COUNT_FORMS[card.family] is _posterior_tables:
            names = {"task_names": tuple(range(N_TASKS)), "group_names": ("m", "w")}
            proba = np.asarray(kwargs["joint_proba"])
            whole = biasamp.distribution_counts(proba, **names)
            _ = whole + biasamp.distribution_counts(proba[: N // 2], row_offset=N // 4, **names)
        else:
            rows = np.arange(N)
            _, (first, second) = _label_tables(card, kwargs, [rows, rows[N // 4 : N // 2]])
            _ = first + second
    except ValueError as exc:
        assert "counted twice" in str(exc), str(exc)
        return
    raise AssertionError(f"{card.name}: overlapping row ranges were summed")


#: The invariances, by check name, and the cards they apply to.
INVARIANCES: dict[str, tuple[Callable[[MetricCard], bool], Callable[[MetricCard], None]]] = {
    "row_order": (lambda card: True, check_row_order),
    "column_order": (_has_tables, check_column_order),
    "container_pandas": (lambda card: True, lambda card: check_container(card, "pandas")),
    "container_polars": (lambda card: True, lambda card: check_container(card, "polars")),
    "container_pyarrow": (lambda card: True, lambda card: check_container(card, "pyarrow")),
    "container_list": (lambda card: True, lambda card: check_container(card, "list")),
    "sparse_dense": (lambda card: "label_matrix" in card.inputs.values(), check_sparse),
    "chunk_merge": (lambda card: card.family in COUNT_FORMS, check_chunk_merge),
    "overlapping_row_ranges": (
        lambda card: card.family in COUNT_FORMS,
        check_overlapping_row_ranges,
    ),
}

#: Every check name of the catalogue (what a card's ``xfail_checks`` may name).
CHECKS = (
    *dict.fromkeys(h.check for h in HOSTILE),
    "duplicate_names",
    *KNOB_VALUES,
    *INVARIANCES,
)


def run_battery(card: MetricCard) -> dict[str, str]:
    """Every check that applies to ``card``: ``{check id: failure}`` of those that failed
    (a check the card lists in ``xfail_checks`` is reported too; the caller decides)."""
    failures: dict[str, str] = {}
    for check, target in hostile_cases(card):
        run = check_knob if check in KNOB_VALUES else check_hostile
        try:
            run(card, check, target)
        except AssertionError as exc:
            failures[f"{check}[{target}]"] = str(exc)
    for check, (applies, run_check) in INVARIANCES.items():
        if not applies(card):
            continue
        try:
            run_check(card)
        except Exception as exc:  # noqa: BLE001 - the failure is what is reported
            failures[check] = f"{type(exc).__name__}: {exc}"
    return failures
