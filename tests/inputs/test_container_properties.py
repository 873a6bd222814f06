"""Property: every public metric gives the numpy value in any container, or a clear error.

For random label data (hypothesis), each public metric (``bias_scores``,
``mals``, ``directional`` in both directions, ``multi_mals``,
``multi_directional``, and ``dpa`` / ``leakage_amplification`` with the exact
attacker) is called once on numpy arrays and once with every label argument
in another container: list, tuple, pandas Series / Categorical / one-column
DataFrame, polars Series / Categorical / Enum / one-column DataFrame, pyarrow
arrays (plain, chunked, dictionary), torch tensors, Hugging Face columns, and
pandas objects whose indexes are shuffled. The value must be the numpy value
(to 1e-12). Inputs that cannot be read right (NaN in a list, mixed label types,
misaligned pandas indexes) must raise ``ValueError`` / ``TypeError`` naming the
argument.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import biasamp

pl = pytest.importorskip("polars")
torch = pytest.importorskip("torch")

LABEL_ROLES = ("groups_train", "tasks_train", "groups", "tasks", "groups_pred", "tasks_pred")
MULTI_ROLES = ("tasks_train", "tasks", "tasks_pred")  # 2-D 0/1 tasks in the multi metrics


# ------------------------------------------------------------------ containers (1-D)
def _hugging_face(values: np.ndarray) -> Any:
    datasets = pytest.importorskip("datasets")
    return datasets.Dataset.from_dict({"labels": values.tolist()})["labels"]


def _hugging_face_selection(values: np.ndarray) -> Any:
    datasets = pytest.importorskip("datasets")
    dataset = datasets.Dataset.from_dict({"ids": values.tolist(), "other": values.tolist()})
    return dataset.select_columns(["ids"])


def _polars_enum(values: np.ndarray) -> Any:
    categories = sorted({str(v) for v in values})
    return pl.Series(values.astype(str).tolist(), dtype=pl.Enum(categories))


def _order(n: int) -> np.ndarray:
    return np.random.default_rng(n).permutation(n)


def _shuffled_series(values: np.ndarray) -> pd.Series:
    """A Series whose index is a fixed permutation: the same rows in another order (the
    order of the call's first pandas argument, which the others are aligned to)."""
    series = pd.Series(values, index=np.arange(len(values)) + 100)
    return series.iloc[_order(len(values))]


def _reference(
    metric: Callable[[dict[str, Any]], Any], data: dict[str, Any], shuffled: bool
) -> Any:
    """The numpy value; with shuffled pandas indexes, of the rows in the shuffled order
    (the count metrics do not depend on it, DPA's random split of rows does)."""
    if shuffled:
        data = {role: values[_order(len(values))] for role, values in data.items()}
    return metric(data)


#: name -> (converter, works for string labels, works for int labels)
CONTAINERS_1D: dict[str, tuple[Callable[[np.ndarray], Any], bool, bool]] = {
    "list": (lambda v: v.tolist(), True, True),
    "tuple": (lambda v: tuple(v.tolist()), True, True),
    "numpy_object": (lambda v: v.astype(object), True, True),
    "pandas": (lambda v: pd.Series(v), True, True),
    "pandas_string": (lambda v: pd.Series(v, dtype="string"), True, False),
    "pandas_categorical": (lambda v: pd.Series(v, dtype="category"), True, True),
    "pandas_categorical_extra": (
        lambda v: pd.Categorical(v, categories=sorted(set(v.tolist())) + ["unused"]),
        True,
        False,
    ),
    "pandas_one_column": (lambda v: pd.DataFrame({"ids": v}), True, True),
    "pandas_shuffled_index": (_shuffled_series, True, True),
    "polars": (lambda v: pl.Series(v.tolist()), True, True),
    "polars_categorical": (lambda v: pl.Series(v.tolist(), dtype=pl.Categorical), True, False),
    "polars_enum": (_polars_enum, True, False),
    "polars_one_column": (lambda v: pl.DataFrame({"ids": v.tolist()}), True, True),
    "pyarrow": (lambda v: pa.array(v.tolist()), True, True),
    "pyarrow_chunked": (
        lambda v: pa.chunked_array([v[: len(v) // 2].tolist(), v[len(v) // 2 :].tolist()]),
        True,
        True,
    ),
    "pyarrow_dictionary": (lambda v: pa.array(v.tolist()).dictionary_encode(), True, True),
    "torch": (lambda v: torch.as_tensor(v), False, True),
    "hugging_face_column": (_hugging_face, True, True),
    "hugging_face_one_column": (_hugging_face_selection, True, True),
}

#: one-column frames: group ids are read as their column; for a task role a column of
#: numbers other than 0/1 is refused (it would be one indicator column), see docs/counts.md
ONE_COLUMN = {"pandas_one_column", "polars_one_column", "hugging_face_one_column"}

#: 2-D 0/1 task matrices
CONTAINERS_2D: dict[str, Callable[[np.ndarray], Any]] = {
    "list": lambda m: m.tolist(),
    "pandas": lambda m: pd.DataFrame(m, columns=["a", "b", "c"]),
    "pandas_bool": lambda m: pd.DataFrame(m.astype(bool), columns=["a", "b", "c"]),
    "polars": lambda m: pl.DataFrame(m, schema=["a", "b", "c"]),
    "pyarrow": lambda m: pa.table({"a": m[:, 0], "b": m[:, 1], "c": m[:, 2]}),
    "torch": lambda m: torch.as_tensor(m),
}


# ------------------------------------------------------------------ metrics
def _value(result: Any) -> Any:
    if isinstance(result, pd.DataFrame):
        return result.to_numpy()
    return result.value


def _pick(arrays: dict[str, Any], *roles: str) -> dict[str, Any]:
    """The keyword arguments ``roles`` of a metric call, read from ``arrays``."""
    return {role: arrays[role] for role in roles}


TRAIN_AND_PRED = ("groups_train", "tasks_train", "groups_pred", "tasks_pred")
EXACT = {"attacker": "exact", "n_iter": 2, "random_state": 0}

METRICS_1D: dict[str, Callable[[dict[str, Any]], Any]] = {
    "bias_scores": lambda a: biasamp.bias_scores(a["groups"], tasks=a["tasks"]),
    "mals": lambda a: biasamp.mals(**_pick(a, *TRAIN_AND_PRED)),
    "directional_A->T": lambda a: biasamp.directional(
        direction="A->T",
        **_pick(a, "groups", "tasks", "tasks_pred", "groups_train", "tasks_train"),
    ),
    "directional_T->A": lambda a: biasamp.directional(
        direction="T->A", **_pick(a, "groups", "tasks", "groups_pred")
    ),
    "dpa": lambda a: biasamp.dpa(
        direction="A->T", **_pick(a, "groups", "tasks", "tasks_pred"), **EXACT
    ),
    "leakage": lambda a: biasamp.leakage_amplification(
        **_pick(a, "groups", "tasks", "tasks_pred"), **EXACT
    ),
}

METRICS_MULTI: dict[str, Callable[[dict[str, Any]], Any]] = {
    "multi_mals": lambda a: biasamp.multi_mals(**_pick(a, *TRAIN_AND_PRED, "tasks")),
    "multi_directional": lambda a: biasamp.multi_directional(
        direction="A->T",
        **_pick(a, "groups_train", "tasks_train", "groups", "tasks", "tasks_pred"),
    ),
}


# ------------------------------------------------------------------ data
@st.composite
def label_data(draw: st.DrawFn, *, multi: bool = False) -> dict[str, np.ndarray]:
    n = draw(st.integers(8, 30))
    kind = draw(st.sampled_from(["str", "int"]))
    group_values = ["m", "w"] if kind == "str" else [3, 7]
    task_values = ["cook", "ski", "read"] if kind == "str" else [0, 1, 2]
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    data: dict[str, np.ndarray] = {}
    for role in LABEL_ROLES:
        values = group_values if role.startswith("group") else task_values
        column = rng.choice(values, size=n)
        column[: len(values)] = values  # every label occurs in every split
        data[role] = column
    if multi:
        for role in MULTI_ROLES:
            matrix = (rng.random((n, 3)) < 0.5).astype(np.int64)
            matrix[0] = 1
            data[role] = matrix
    return data


def _same(got: Any, expected: Any) -> None:
    np.testing.assert_allclose(
        np.asarray(_value(got), dtype=float), np.asarray(_value(expected), dtype=float), atol=1e-12
    )


def _same_or_refused(
    call: Callable[[], Any], expected: Any, containers: dict[str, str], data: dict[str, Any]
) -> None:
    """The call gives the numpy value, unless a task role holds integer ids in a one-column
    frame: then it raises the one-column error naming that role."""
    refused = [
        role
        for role, name in containers.items()
        if name in ONE_COLUMN and role.startswith("task") and data[role].dtype.kind in "iu"
    ]
    if not refused:
        _same(call(), expected)
        return
    with pytest.raises(ValueError, match="a one-column DataFrame") as info:
        call()
    assert str(info.value).split(":")[0] in refused


def _usable(name: str, sample: np.ndarray) -> bool:
    _, strings, ints = CONTAINERS_1D[name]
    return strings if sample.dtype.kind in "UO" else ints


# ------------------------------------------------------------------ properties
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=label_data(),
    metric=st.sampled_from(sorted(METRICS_1D)),
    container=st.sampled_from(sorted(CONTAINERS_1D)),
)
def test_every_1d_container_gives_the_numpy_value(
    data: dict[str, np.ndarray], metric: str, container: str
) -> None:
    if not _usable(container, data["groups"]):
        return
    convert = CONTAINERS_1D[container][0]
    expected = _reference(METRICS_1D[metric], data, container == "pandas_shuffled_index")
    converted = {role: convert(values) for role, values in data.items()}
    names = dict.fromkeys(_roles_read(METRICS_1D[metric]), container)
    _same_or_refused(lambda: METRICS_1D[metric](converted), expected, names, data)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=label_data(),
    metric=st.sampled_from(["bias_scores", "mals", "directional_A->T", "directional_T->A"]),
    containers=st.lists(st.sampled_from(sorted(CONTAINERS_1D)), min_size=6, max_size=6),
)
def test_a_different_container_per_argument_gives_the_numpy_value(
    data: dict[str, np.ndarray], metric: str, containers: list[str]
) -> None:
    """Mixing containers in one call; a shuffled pandas index is aligned only with the
    other pandas arguments, so it is used here for every argument of a split or none."""
    if any(not _usable(name, data["groups"]) for name in containers):
        return
    shuffled = [name == "pandas_shuffled_index" for name in containers]
    if any(shuffled) and not all(shuffled):
        containers = ["pandas" if s else name for s, name in zip(shuffled, containers, strict=True)]
    expected = _reference(METRICS_1D[metric], data, all(shuffled))
    names = dict(zip(LABEL_ROLES, containers, strict=True))
    converted = {role: CONTAINERS_1D[name][0](data[role]) for role, name in names.items()}
    read = _roles_read(METRICS_1D[metric])
    names = {role: name for role, name in names.items() if role in read}
    _same_or_refused(lambda: METRICS_1D[metric](converted), expected, names, data)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=label_data(multi=True),
    metric=st.sampled_from(sorted(METRICS_MULTI)),
    groups=st.sampled_from(sorted(CONTAINERS_1D)),
    tasks=st.sampled_from(sorted(CONTAINERS_2D)),
)
def test_multi_attribute_metrics_in_any_container(
    data: dict[str, np.ndarray], metric: str, groups: str, tasks: str
) -> None:
    if not _usable(groups, data["groups"]) or groups == "pandas_shuffled_index":
        return
    expected = METRICS_MULTI[metric](data)
    converted = {
        role: (CONTAINERS_2D[tasks] if role in MULTI_ROLES else CONTAINERS_1D[groups][0])(v)
        for role, v in data.items()
    }
    _same(METRICS_MULTI[metric](converted), expected)


# ------------------------------------------------------------------ clear errors
BAD_LISTS: dict[str, Callable[[list[Any]], list[Any]]] = {
    "nan": lambda v: [*v[:1], float("nan"), *v[2:]],
    "none": lambda v: [*v[:1], None, *v[2:]],
    "mixed": lambda v: [*v[:1], str(v[0]) if not isinstance(v[0], str) else 1, *v[2:]],
}


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=label_data(),
    metric=st.sampled_from(sorted(METRICS_1D)),
    role=st.sampled_from(LABEL_ROLES),
    bad=st.sampled_from(sorted(BAD_LISTS)),
)
def test_nan_none_and_mixed_types_in_a_list_raise_naming_the_argument(
    data: dict[str, np.ndarray], metric: str, role: str, bad: str
) -> None:
    args = {r: v.tolist() for r, v in data.items()}
    args[role] = BAD_LISTS[bad](args[role])
    try:
        METRICS_1D[metric](args)
    except (ValueError, TypeError) as error:
        assert str(error).startswith(f"{role}:"), str(error)
        return
    assert role not in _roles_read(METRICS_1D[metric]), f"{metric} read the bad {role} in silence"


def _roles_read(metric: Callable[[dict[str, Any]], Any]) -> set[str]:
    """The roles a metric call reads, found by asking for each one."""
    seen: set[str] = set()

    class Recorder(dict):  # type: ignore[type-arg]
        def __getitem__(self, key: str) -> Any:
            seen.add(key)
            return super().__getitem__(key)

    clean = Recorder({r: ["a", "b"] for r in LABEL_ROLES})
    try:
        metric(clean)
    except Exception:  # noqa: BLE001 - only the keys read matter here
        pass
    return seen


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=label_data(), metric=st.sampled_from(sorted(METRICS_1D)))
def test_pandas_arguments_with_other_index_labels_are_refused(
    data: dict[str, np.ndarray], metric: str
) -> None:
    args: dict[str, Any] = {r: pd.Series(v) for r, v in data.items()}
    shifted = {r: v.set_axis(v.index + 1) for r, v in args.items()}
    for role in ("groups", "tasks_pred"):
        case = dict(args)
        case[role] = shifted[role]
        try:
            METRICS_1D[metric](case)
        except ValueError as error:
            assert role in str(error) and "different indexes" in str(error), str(error)
            continue
        assert role not in _roles_read(METRICS_1D[metric]), f"{metric} paired {role} by position"
