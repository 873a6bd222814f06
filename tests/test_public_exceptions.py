"""Every public function raises only the documented exceptions on wrong input.

The public functions are enumerated from ``biasamp.__all__`` and the ``__all__`` of
every public room (``biasamp.text``, ``biasamp.counts``, ...), with the public
classmethods of the public classes and the constructors of the classes a user
builds (those that check their fields), so a new public function is fuzzed
without being listed here. Each call gets hypothesis-drawn wrong values (wrong
types, empty, NaN, huge or negative integers, mismatched lengths, nested lists,
dicts, arrays of other shapes), either for every required argument or for one
argument of an otherwise valid call. Accepted: a result, a ``ValueError`` or a
``TypeError`` (or a subclass, such as ``FileNotFoundError``'s cousins that
biasamp defines as ``ValueError``), and warnings. Anything else (``AttributeError``,
``KeyError``, ``IndexError``, ``OSError``, ``MemoryError``, an engine's own
exception) is a defect.
"""

from __future__ import annotations

import importlib
import inspect
import os
import pkgutil
import signal
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import biasamp

#: Per call: a wrong input must be refused (or computed) quickly.
CALL_SECONDS = 30

#: Functions that start a service or a cluster whatever their input: their wrong inputs
#: are tested in their own files (``tests/engines``), where the service is set up once.
NEEDS_A_SERVICE = {"counts_from_spark", "pattern_counts_from_spark", "counts_from_dask"}


def _rooms() -> list[Any]:
    modules = [biasamp]
    for info in pkgutil.iter_modules(biasamp.__path__):
        if info.name.startswith("_") or info.name in ("cli",):
            continue
        try:
            modules.append(importlib.import_module(f"biasamp.{info.name}"))
        except ImportError:  # an optional dependency (torch, ...) is missing
            continue
    return modules


def _user_built(cls: type) -> bool:
    """A class a user may construct (not a warning, a table subclass or a result, which
    the library builds)."""
    from biasamp.results._persist import SavableResult

    return not issubclass(cls, (Warning, pd.DataFrame, SavableResult))


def public_callables() -> dict[str, Callable[..., Any]]:
    """``name -> callable`` of every public function, classmethod and constructor."""
    found: dict[str, Callable[..., Any]] = {}
    seen: set[int] = set()
    for module in _rooms():
        for name in getattr(module, "__all__", ()):
            obj = getattr(module, name)
            if id(obj) in seen:
                continue
            seen.add(id(obj))
            if inspect.isfunction(obj) and name not in NEEDS_A_SERVICE:
                found[name] = obj
            elif inspect.isclass(obj):
                if _user_built(obj):
                    found[name] = obj
                for attr in dir(obj):
                    if attr.startswith("_"):
                        continue
                    method = inspect.getattr_static(obj, attr)
                    if isinstance(method, classmethod) and method.__func__.__module__.startswith(
                        "biasamp."
                    ):  # biasamp's own (not pandas' DataFrame.from_dict)
                        found[f"{name}.{attr}"] = getattr(obj, attr)
    return found


PUBLIC = public_callables()

# ------------------------------------------------------------------ values
N = 8
GROUPS = ["m", "w"] * 4
TASKS = ["a", "a", "b", "b", "a", "b", "a", "b"]
PRED = ["a", "b", "b", "b", "a", "a", "a", "b"]
MULTI = pd.DataFrame({"x": [1, 0, 1, 1, 0, 0, 1, 0], "y": [0, 1, 1, 0, 1, 0, 0, 1]})
MULTI_PRED = pd.DataFrame({"x": [1, 1, 1, 0, 0, 0, 1, 0], "y": [0, 1, 0, 0, 1, 1, 0, 1]})

#: A valid value per parameter name (where one value suits every function using it).
VALID: dict[str, Any] = {
    "groups": GROUPS,
    "tasks": TASKS,
    "groups_pred": GROUPS[::-1],
    "tasks_pred": PRED,
    "groups_train": GROUPS,
    "tasks_train": TASKS,
    "labels": TASKS,
    "labels_pred": PRED,
    "captions": ["a man on skis", "a woman", "a man", "a girl", "a boy", "a lady", "men", "x"],
    "captions_human": ["a man here"] * 4 + ["a woman here"] * 4,
    "captions_model": ["a man there"] * 4 + ["a woman there"] * 4,
    "y_true": [1, 0, 1, 1, 0, 0, 1, 0],
    "y_prob": [0.9, 0.2, 0.6, 0.8, 0.1, 0.3, 0.7, 0.4],
    "direction": "A->T",
    "n_iter": 2,
    "random_state": 0,
    "min_group_size": None,
    "attacker": "exact",
}

huge_ints = st.sampled_from([2**63, -(2**63), 10**30, -1, 2**62, 0])
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.sampled_from([float("nan"), float("inf"), -float("inf"), -0.5, 1e300]),
    huge_ints,
    st.integers(-3, 3),
    st.text(max_size=4),
    st.binary(max_size=3),
    st.just(object()),
)
label_lists = st.lists(st.sampled_from(["m", "w", "a", 1, 2.5, None]), max_size=12)
arrays = st.one_of(
    st.just(np.array(3.0)),
    st.just(np.zeros((0,))),
    st.just(np.zeros((0, 2))),
    st.just(np.full((N, 2), np.nan)),
    st.just(np.ones((N, 2, 2))),
    st.just(np.array([[1, 0], [0]], dtype=object)),
    st.integers(0, 12).map(lambda n: np.arange(n) % 3),
    st.integers(0, 12).map(lambda n: np.linspace(-1, 2, n)),
)
frames = st.one_of(
    st.just(pd.DataFrame()),
    st.just(MULTI.iloc[:3]),
    st.just(pd.DataFrame({"x": ["a", None] * 4})),
    st.just(pd.Series(GROUPS[:5])),
    st.just(pd.DataFrame({1: [1] * N, "1": [0] * N})),
)
WRONG = st.one_of(
    scalars,
    label_lists,
    st.lists(st.lists(st.integers(-1, 2), max_size=3), max_size=4),  # nested, ragged
    st.dictionaries(st.one_of(st.text(max_size=2), st.integers(0, 2)), label_lists, max_size=3),
    arrays,
    frames,
    st.sampled_from([MULTI, MULTI_PRED, GROUPS, TASKS[:5]]),
)


def _parameters(function: Callable[..., Any]) -> list[inspect.Parameter]:
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):  # pragma: no cover - a builtin without a signature
        return []
    return [
        p
        for p in signature.parameters.values()
        if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD) and p.name != "self"
    ]


def _call(function: Callable[..., Any], args: dict[str, Any], params) -> Any:
    positional = [args[p.name] for p in params if p.kind == p.POSITIONAL_ONLY]
    keywords = {p.name: args[p.name] for p in params if p.kind != p.POSITIONAL_ONLY}
    return function(*positional, **keywords)


class _TooSlow(BaseException):
    """A call that ran past CALL_SECONDS (a BaseException: no library code catches it)."""


def _alarm(signum: int, frame: Any) -> None:
    raise _TooSlow


@pytest.fixture(autouse=True, scope="module")
def _in_a_scratch_folder(tmp_path_factory) -> Iterator[None]:
    """Functions that write (write_report, save_counts) write here, never in the checkout."""
    here = os.getcwd()
    os.chdir(tmp_path_factory.mktemp("public_exceptions"))
    try:
        yield
    finally:
        os.chdir(here)


def _check_one_call(name: str, data: st.DataObject) -> None:
    function = PUBLIC[name]
    params = _parameters(function)
    required = [p for p in params if p.default is inspect.Parameter.empty]
    args: dict[str, Any] = {}
    if data.draw(st.booleans(), label="all wrong"):
        for p in params:  # every required argument wrong, the options at their defaults
            if p.default is inspect.Parameter.empty:
                args[p.name] = data.draw(WRONG, label=p.name)
    else:  # a valid call but for one argument
        for p in params:
            if p.name in VALID:
                args[p.name] = VALID[p.name]
            elif p.default is inspect.Parameter.empty:
                args[p.name] = data.draw(WRONG, label=p.name)
        if params:
            target = data.draw(st.sampled_from(params), label="wrong argument")
            args[target.name] = data.draw(WRONG, label=target.name)
    used = [p for p in params if p.name in args or p in required]
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(CALL_SECONDS)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _call(function, args, used)
    except (ValueError, TypeError):
        pass
    except _TooSlow:
        pytest.fail(f"{name}({args!r}) ran for more than {CALL_SECONDS} s")
    except Exception as error:  # noqa: BLE001 - the point of the test
        raise AssertionError(f"{name}({args!r}) raised {type(error).__name__}: {error}") from error
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def test_every_public_function_is_enumerated() -> None:
    """The enumeration finds the functions of every room (a new one cannot be left out)."""
    for name in ("directional", "caption_labels", "compare", "render_report", "intersect",
                 "calibration_error", "CountTable.from_arrays", "CountTable.empty",
                 "ColumnRoles", "PoissonReplicates", "as_label_matrix"):  # fmt: skip
        assert name in PUBLIC, name
    assert len(PUBLIC) >= 70


@pytest.mark.parametrize("name", sorted(PUBLIC))
@settings(
    max_examples=6,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
    derandomize=True,
)
@given(data=st.data())
def test_wrong_input_raises_only_documented_exceptions(name: str, data: st.DataObject) -> None:
    _check_one_call(name, data)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(PUBLIC))
@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
    derandomize=True,  # the same examples on every run: CI cannot fail by chance
)
@given(data=st.data())
def test_wrong_input_raises_only_documented_exceptions_many(name: str, data: st.DataObject) -> None:
    _check_one_call(name, data)


# ---------------------------------------------- the defects the fuzzing found, one by one
def _found_cases() -> list[tuple[str, Callable[[], Any], type, str]]:
    from biasamp import CountTable, MultinomialReplicates, PatternCountTable
    from biasamp.counts import replicate_count_table
    from biasamp.counts._count_table import ERR_MATRICES
    from biasamp.engines._group_sums import ERR_FRAME_TYPE, ERR_ROLES_TYPE, ERR_SOURCE_TYPE
    from biasamp.inputs import counter_for, register_counter
    from biasamp.inputs._collections import ERR_COUNTER, ERR_KIND, ERR_NO_ENGINE
    from biasamp.inputs._label_matrix import ERR_DUPLICATE_NAMES
    from biasamp.inputs._paths import ERR_NO_SUCH_FILE, ERR_PATH_TYPE
    from biasamp.metrics._combination_space import ERR_NO_EVALUATION
    from biasamp.metrics._differential_fairness import ERR_INFINITE_EPSILON, ERR_REQUIRED
    from biasamp.report._compare_html import ERR_TABLE_TYPE
    from biasamp.report._html import ERR_GATE, ERR_RESULT_VALUE

    roles = biasamp.ColumnRoles(groups="g", tasks=["t"])
    matrices = "groups, groups_pred, tasks, tasks_pred"
    result = biasamp.mals(groups_train=GROUPS, tasks_train=TASKS, groups_pred=GROUPS[::-1],
                          tasks_pred=PRED, min_group_size=None)  # fmt: skip
    return [
        ("group_sums_sql roles", lambda: biasamp.group_sums_sql("t", None), TypeError,
         ERR_ROLES_TYPE.format(type_name="NoneType")),
        ("group_sums_sql source", lambda: biasamp.group_sums_sql(None, roles), TypeError,
         ERR_SOURCE_TYPE.format(type_name="NoneType")),
        ("counts_from_group_sums frame", lambda: biasamp.counts_from_group_sums(None, roles),
         TypeError, ERR_FRAME_TYPE.format(type_name="NoneType")),
        ("counter_for", lambda: counter_for(None), ValueError,  # the registered ones vary
         ERR_NO_ENGINE.split(" (registered")[0].format(kind=None)),
        ("register_counter", lambda: register_counter(None, print), TypeError,  # was stored
         ERR_KIND.format(got=None)),
        ("register_counter counter", lambda: register_counter("dask", None), TypeError,
         ERR_COUNTER.format(type_name="NoneType")),
        ("from_label_matrices", lambda: CountTable.from_label_matrices(None), TypeError,
         ERR_MATRICES.format(roles=matrices, got="NoneType")),
        ("pattern from_label_matrices", lambda: PatternCountTable.from_label_matrices({"x": 1}),
         TypeError, ERR_MATRICES.format(roles=matrices, got="'x' -> int")),
        ("replicate_count_table", lambda: replicate_count_table({}, replicates=None),
         TypeError, "replicates: expected PoissonReplicates or MultinomialReplicates (an "
         "object with n_boot and rows(start, stop)), got NoneType."),
        ("differential_fairness groups", lambda: biasamp.differential_fairness(
            groups=None, labels=TASKS), TypeError, ERR_REQUIRED.format(arg="groups")),
        ("differential_fairness_amplification labels_pred",  # was the plain epsilon, silently
         lambda: biasamp.differential_fairness_amplification(
             groups=GROUPS, labels=TASKS, labels_pred=None), TypeError,
         ERR_REQUIRED.format(arg="labels_pred")),
        ("render_comparison", lambda: biasamp.render_comparison(None), TypeError,
         ERR_TABLE_TYPE.format(type_name="NoneType")),
        ("render_report result", lambda: biasamp.render_report(results={"x": []}), TypeError,
         ERR_RESULT_VALUE.format(key="x", got="list")),
        ("render_report gates", lambda: biasamp.render_report(results={"x": result},
                                                              gates=[np.zeros(2)]),
         TypeError, ERR_GATE.format(got="ndarray")),
        ("load_counts descriptor", lambda: biasamp.load_counts(2), TypeError,  # was open(2)
         ERR_PATH_TYPE.format(arg="path", type_name="int")),
        ("load_result descriptor", lambda: biasamp.load_result(False), TypeError,
         ERR_PATH_TYPE.format(arg="path", type_name="bool")),
        ("load_result missing", lambda: biasamp.load_result("missing.json"), ValueError,
         ERR_NO_SUCH_FILE.format(path="missing.json")),
        ("load_counts missing", lambda: biasamp.load_counts("missing.npz"), FileNotFoundError,
         ERR_NO_SUCH_FILE.format(path="missing.npz")),
        ("counts_from_files missing", lambda: biasamp.counts_from_files(
            "missing.csv", groups="g", tasks=["t"]), ValueError,
         ERR_NO_SUCH_FILE.format(path="missing.csv")),
        ("duplicate task_names", lambda: biasamp.directional(  # was "missing none, ..."
            direction="A->T", groups=GROUPS, tasks=MULTI, tasks_pred=MULTI_PRED,
            task_names=["x", "y", "x"]), ValueError,
         ERR_DUPLICATE_NAMES.format(arg="tasks (from task_names)", examples="'x'")),
        ("differential fairness inf - inf", lambda: biasamp.differential_fairness_amplification(
            groups=GROUPS, labels=["a", "b"] * 4, labels_pred=["b", "a"] * 4, concentration=0),
         ValueError, ERR_INFINITE_EPSILON.format(concentration=0)),  # was NaN, silently
        ("CombinationSpace without evaluation", lambda: biasamp.CombinationSpace.from_arrays(
            groups_train=MULTI, tasks_train=MULTI, tasks=None), ValueError, ERR_NO_EVALUATION),
        ("MultinomialReplicates", lambda: MultinomialReplicates(2**63, 2**40), ValueError,
         "n_rows=9223372036854775808, n_boot=1099511627776 multinomial replicates"),
    ]  # fmt: skip


@pytest.mark.parametrize("case", range(len(_found_cases())))
def test_each_defect_found_is_a_clear_error(case: int) -> None:
    name, call, error, message = _found_cases()[case]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(error) as info:
            call()
    assert str(info.value).startswith(message), name
    assert isinstance(info.value, (ValueError, TypeError)), name


def test_column_roles_built_as_the_docstring_shows_give_the_sql() -> None:
    roles = biasamp.ColumnRoles(groups="g", tasks=["t"])  # was AttributeError in the SQL
    assert roles == biasamp.ColumnRoles.resolve(groups="g", tasks=["t"])
    assert biasamp.group_sums_sql("labels", roles) == (
        "SELECT `g` AS k_groups, COUNT(*) AS n, COUNT(*) AS n_rows,\n"
        "  SUM(CAST(`t` AS DOUBLE)) AS s_tasks_0\nFROM labels\nGROUP BY `g`"
    )
