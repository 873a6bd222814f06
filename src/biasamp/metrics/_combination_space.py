"""The combination space M of the multi-attribute metrics, and the arrays that fill it.

Building M (the task combinations the metrics average over) and counting, for
every combination, the rows that contain it is most of the work of
:func:`~biasamp.multi_mals` and :func:`~biasamp.multi_directional`.
:class:`CombinationSpace` does it once and is shared by both metrics, their
bootstraps and :func:`~biasamp.multi_attribute`. This module also validates the
label arrays of a split and counts them into :class:`~biasamp.PatternCountTable`
objects (in memory or, for Dask inputs, per partition).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp

from biasamp.counts._combinations import (
    Combinations,
    PatternSet,
    check_combination_options,
    containment_counts,
    frequent_combinations,
    key_positions,
    keys_to_indicator,
    observed_combinations,
    union_keys,
)
from biasamp.counts._count_table import CountTable
from biasamp.counts._pattern_counts import PatternCountTable
from biasamp.inputs._collections import any_dask_collection, counter_for
from biasamp.inputs._label_matrix import (
    ERR_EMPTY_SPLIT,
    LabelMatrix,
    as_label_matrix,
    check_same_length,
)
from biasamp.inputs._readers import read_weights
from biasamp.metrics._splits import (
    EVALUATION_ARGS,
    align_splits,
    select_training_rows,
    warn_single_group,
)

__all__ = ["CombinationSpace", "build_combination_space"]

ERR_TABLE_TYPE = "{arg}: expected a PatternCountTable, got {type_name}."


ERR_TABLE_NAMES = "{arg}: its {kind} names differ from the training table's ({a} vs {b})."


ERR_TABLE_BATCH = "{arg}: the table has a replicate axis; M is chosen on a plain table."


ERR_NO_EVALUATION = (
    "groups, tasks: the evaluation split needs its labels (groups or groups_pred, and "
    "tasks or tasks_pred); none were given."
)
ERR_SPACE_TYPE = "space: expected a CombinationSpace, got {type_name}."


ERR_SPACE_TABLES = (
    "space: it was built from other count tables than the ones passed; pass the tables it was "
    "built from, or only the space."
)


ERR_SPACE_OPTIONS = (
    "{name}={got!r} disagrees with the space ({name}={have!r}); M comes from the space, "
    "so leave the combination options out or build a new CombinationSpace."
)


ERR_SPACE_WITH_ARRAYS = (
    "{arg}: pass either the arrays or space=, not both (the space already holds its rows)."
)


ERR_MISSING_ARRAY = "{arg}: required unless space= is given."


_DEFAULT_MAX_COMBINATIONS = 1_000_000


_OPTION_DEFAULTS: dict[str, Any] = {
    "combinations": "observed",
    "min_size": 1,
    "max_size": None,
    "min_count": 1,
    "max_combinations": _DEFAULT_MAX_COMBINATIONS,
    "progress": False,
}


@dataclass(frozen=True)
class _Containment:
    """M and the way to turn pattern counts into combination counts.

    ``observed`` mode keeps the patterns (as keys, :class:`PatternSet`) and counts
    containment on the fly (:func:`containment_counts`); ``subsets`` mode keeps the
    sparse containment matrix the Apriori search built (and the pattern indicator).
    """

    combos: Combinations
    names: list[tuple[Any, ...]]
    vocabulary: np.ndarray
    indicator: np.ndarray | PatternSet
    matrix: sp.csc_matrix | None

    def counts(self, weights: np.ndarray, *, progress: bool = False) -> np.ndarray:
        """``C^T @ weights`` for weights laid out on the vocabulary: (K, k)."""
        if self.matrix is not None:
            return np.asarray(self.matrix.T @ weights, dtype=np.float64)
        return containment_counts(self.indicator, self.combos, weights, progress=progress)

    def table(self, counts: PatternCountTable) -> CountTable:
        """The :class:`CountTable` of ``counts`` whose tasks are the combinations."""
        weights, spec = _layout(counts, self.vocabulary)
        return _combination_table(counts, self.names, self.counts(weights), spec)


def _layout(table: PatternCountTable, vocabulary: np.ndarray) -> tuple[np.ndarray, list]:
    """Every per-pattern array of a table as columns of one (V, k) matrix, and how to undo it."""
    weights, specs = _layout_tables([table], vocabulary)
    return weights, specs[0]


def _layout_tables(
    tables: Sequence[PatternCountTable], vocabulary: np.ndarray
) -> tuple[np.ndarray, list[list]]:
    """The per-pattern arrays of several tables side by side in one (V, k) matrix,
    allocated once (no stacking copies), and per table how to undo it (column ranges
    relative to the table's first column). The columns of one task role are adjacent,
    so each role's patterns are looked up in the vocabulary and scattered once.

    The matrix is float32 when every value is a nonnegative integer and every column
    sums to less than 2**24 (plain and bootstrap counts of up to 16.7 million rows):
    every partial sum of the counting pass is then an integer below 2**24, exact in
    float32, and the pass moves half the bytes. Otherwise it is float64."""
    plans, width = [], 0
    for table in tables:
        spec, blocks, start = [], [], 0
        for role, keys in table.patterns.items():
            items: list[tuple[str, Any, np.ndarray]] = []
            if role in table.pattern_totals:
                items.append(("totals", role, table.pattern_totals[role]))
            items += [("joint", key, v) for key, v in table.joint.items() if key[1] == role]
            first = start
            for kind, key, values in items:
                k = int(np.prod(values.shape[:-1], dtype=np.int64))
                spec.append((kind, key, values.shape[:-1], start, start + k))
                start += k
            blocks.append((keys, [values for _, _, values in items], first, start))
        plans.append((blocks, width, spec))
        width += start
    sources = [v for blocks, _, _ in plans for _, arrays, _, _ in blocks for v in arrays]
    dtype = np.float32 if all(_exact_in_float32(v) for v in sources) else np.float64
    out = np.zeros((len(vocabulary), width), dtype=dtype)
    specs = []
    for blocks, base, spec in plans:
        for keys, arrays, a, _ in blocks:
            rows = key_positions(vocabulary, keys)
            column = base + a
            for values in arrays:  # one strided column at a time: 3x faster than a 2-d block
                for row in values.reshape(-1, values.shape[-1]):
                    out[rows, column] = row
                    column += 1
        specs.append(spec)
    return out, specs


#: Integers up to 2**24 are exact in float32 (24-bit significand).
_FLOAT32_EXACT = float(1 << 24)


def _exact_in_float32(values: np.ndarray) -> bool:
    """Whether every sum of values of one row (a weights column) is exact in float32:
    nonnegative integers whose row totals stay below 2**24."""
    rows = values.reshape(-1, values.shape[-1])
    if rows.size == 0:
        return True
    return bool(
        rows.min() >= 0
        and rows.sum(axis=1, dtype=np.float64).max() < _FLOAT32_EXACT
        and np.array_equal(rows, np.floor(rows))
    )


def _combination_table(
    table: PatternCountTable, names: list[tuple[Any, ...]], counts: np.ndarray, spec: list
) -> CountTable:
    totals: dict[str, np.ndarray] = dict(table.group_totals)
    joint: dict[tuple[str, str], np.ndarray] = {}
    for kind, key, shape, a, b in spec:
        # one copy per block: transposed, float64 (the counts may be exact float32 sums)
        values = counts[:, a:b].T.astype(np.float64, order="C").reshape(shape + (len(counts),))
        if kind == "totals":
            totals[key] = values
        else:
            joint[key] = values
    return CountTable(
        group_names=table.group_names,
        task_names=tuple(names),
        n=table.n,
        totals=totals,
        joint=joint,
        n_rows=table.n_rows,
    )


def _totals_column(spec: list, role: str) -> int:
    """The weights column of a table's per-pattern totals of ``role`` (see :func:`_layout_tables`)."""
    return next(a for kind, key, _, a, _ in spec if kind == "totals" and key == role)


def build_combination_space(
    train: PatternCountTable,
    evaluation: PatternCountTable,
    *,
    combinations: str,
    min_size: int,
    max_size: int | None,
    min_count: float,
    max_combinations: int,
    progress: bool = False,
) -> tuple[_Containment, CountTable, CountTable]:
    """Choose M from plain (no replicate axis) tables; return it with both combination tables."""
    keys = [table.patterns[r] for table in (train, evaluation) for r in table.patterns]
    vocabulary = union_keys(*keys)
    # "observed" mode reads the patterns as keys (no (P, T) boolean matrix)
    indicator: np.ndarray | PatternSet = (
        PatternSet(vocabulary, len(train.task_names))
        if combinations == "observed"
        else keys_to_indicator(vocabulary, len(train.task_names))
    )
    options: dict[str, Any] = {
        "min_size": min_size,
        "max_size": max_size,
        # min_count is in the weights' unit; 1e-12 relative absorbs the rounding of their sums
        "min_count": min_count * (1.0 - 1e-12),
        "max_combinations": max_combinations,
    }
    weights, (spec_train, spec_eval) = _layout_tables([train, evaluation], vocabulary)
    split = spec_train[-1][4]
    # both splits' ground-truth totals per pattern are columns of the weights (views, no copies)
    train_column = _totals_column(spec_train, "tasks")
    eval_column = split + _totals_column(spec_eval, "tasks")
    support_train, support_eval = weights[:, train_column], weights[:, eval_column]
    if combinations == "observed":
        combos, counts = observed_combinations(
            indicator,
            support_train,
            support_eval,
            train.task_names,
            weights,
            eval_column=eval_column,
            progress=progress,
            **options,
        )
        matrix = None
    else:
        assert isinstance(indicator, np.ndarray)
        combos, matrix = frequent_combinations(
            indicator, support_train, support_eval, train.task_names, **options
        )
        counts = np.asarray(matrix.T @ weights, dtype=np.float64)
    del weights, support_train, support_eval  # (V, k): free it before the names are made
    names = combos.names()
    space = _Containment(combos, names, vocabulary, indicator, matrix)
    return (
        space,
        _combination_table(train, names, counts[:, :split], spec_train),
        _combination_table(evaluation, names, counts[:, split:], spec_eval),
    )


def _check_tables(train: Any, evaluation: Any) -> None:
    for arg, table in (("train", train), ("evaluation", evaluation)):
        if not isinstance(table, PatternCountTable):
            raise TypeError(ERR_TABLE_TYPE.format(arg=arg, type_name=type(table).__name__))
        if table.batch_shape:
            raise ValueError(ERR_TABLE_BATCH.format(arg=arg))
    for kind in ("group", "task"):
        a, b = getattr(train, f"{kind}_names"), getattr(evaluation, f"{kind}_names")
        if tuple(a) != tuple(b):
            raise ValueError(
                ERR_TABLE_NAMES.format(arg="evaluation", kind=kind, a=list(a), b=list(b))
            )
    train.require("groups", "tasks", metric="multi-attribute metrics (training side)")
    evaluation.require("tasks", metric="multi-attribute metrics (evaluation ground truth)")
    for arg, table in (("groups_train", train), ("groups", evaluation)):
        if float(table.n) <= 0:
            raise ValueError(ERR_EMPTY_SPLIT.format(arg=arg))


class CombinationSpace:
    """The combination set M of the multi-attribute metrics, built once and shared.

    Building M and counting, for every combination, the rows that contain it
    is most of the work of :func:`multi_mals` and :func:`multi_directional`.
    A ``CombinationSpace`` does it once; pass it as ``space=`` to both metrics
    (both directions), to their ``*_from_counts`` forms and to their
    bootstraps, or call :func:`multi_attribute` for all three at once.

    Parameters
    ----------
    train, evaluation : PatternCountTable
        Plain (no replicate axis) pattern count tables of the training split
        (``groups``, ``tasks``) and of the evaluation split (``tasks`` and the
        roles the metrics need: ``groups``, ``groups_pred``, ``tasks_pred``).
    combinations, min_size, max_size, min_count, max_combinations
        How M is built (see :func:`multi_mals`).
    progress : bool, default False
        Show a progress bar while the combinations are counted.

    Attributes
    ----------
    train, evaluation : PatternCountTable
        The tables M was built from.
    train_counts, eval_counts : CountTable
        Their counts per combination (the combinations are the "tasks").
    combinations : str
        ``"observed"`` or ``"subsets"``.
    min_size, max_size, min_count : int, int or None, float
        The options M was built with.

    Examples
    --------
    >>> import numpy as np
    >>> import biasamp
    >>> tasks = np.array([[1, 1], [1, 1], [1, 0], [0, 1]])
    >>> space = biasamp.CombinationSpace.from_arrays(
    ...     groups_train=["g", "h", "g", "h"], tasks_train=tasks, sample_weight_train=[8, 2, 1, 1],
    ...     groups=["g", "h", "g", "h"], tasks=tasks, groups_pred=["g", "g", "h", "g"],
    ...     tasks_pred=tasks, combinations="subsets", min_size=2)
    >>> len(space), space.names
    (1, [(0, 1)])
    >>> round(biasamp.multi_mals(space=space).value, 2)
    0.2
    """

    def __init__(
        self,
        train: PatternCountTable,
        evaluation: PatternCountTable,
        *,
        combinations: str = "observed",
        min_size: int = 1,
        max_size: int | None = None,
        min_count: float = 1,
        max_combinations: int = _DEFAULT_MAX_COMBINATIONS,
        progress: bool = False,
    ) -> None:
        opts = check_combination_options(
            combinations, min_size, max_size, min_count, max_combinations
        )
        _check_tables(train, evaluation)
        self.train = train
        self.evaluation = evaluation
        self.combinations = combinations
        self.min_size, self.max_size, self.min_count = opts[0], opts[1], opts[2]
        #: The training-row rule the space was counted under (``from_arrays`` sets it;
        #: tables passed in are taken as counted under the metrics' default).
        self.train_rows: str = "labelled"
        self._containment, self.train_counts, self.eval_counts = build_combination_space(
            train,
            evaluation,
            combinations=combinations,
            min_size=opts[0],
            max_size=opts[1],
            min_count=opts[2],
            max_combinations=opts[3],
            progress=progress,
        )
        # the evaluation rows, kept by from_arrays for the bootstrap
        self._eval_matrices: dict[str, LabelMatrix] | _DaskEvaluation | None = None
        self._eval_weights: np.ndarray | None = None

    @classmethod
    def from_arrays(
        cls,
        *,
        groups_train: Any,
        tasks_train: Any,
        tasks: Any,
        groups: Any = None,
        groups_pred: Any = None,
        tasks_pred: Any = None,
        combinations: str = "observed",
        min_size: int = 1,
        max_size: int | None = None,
        min_count: float = 1,
        max_combinations: int = _DEFAULT_MAX_COMBINATIONS,
        sample_weight: Any = None,
        sample_weight_train: Any = None,
        group_names: Sequence[Any] | None = None,
        task_names: Sequence[Any] | None = None,
        train_rows: str = "labelled",
        progress: bool = False,
    ) -> CombinationSpace:
        """Validate and count the arrays once, then build M (arguments as in :func:`multi_mals`).

        The space keeps the evaluation label matrices, so the metrics called
        with it can bootstrap (``n_boot``). ``train_rows`` selects the training
        rows as in :func:`multi_directional`; the metrics called with the space
        use the same rows.
        """
        check_combination_options(combinations, min_size, max_size, min_count, max_combinations)
        aligned = align_splits(
            {
                "groups": groups,
                "tasks": tasks,
                "groups_pred": groups_pred,
                "tasks_pred": tasks_pred,
                "sample_weight": sample_weight,
            }
        )
        groups, tasks, groups_pred, tasks_pred, sample_weight = (
            aligned[arg] for arg in EVALUATION_ARGS
        )
        groups_train, tasks_train, sample_weight_train = select_training_rows(
            groups_train=groups_train,
            tasks_train=tasks_train,
            sample_weight_train=sample_weight_train,
            group_names=group_names,
            task_names=task_names,
            train_rows=train_rows,
            compact=True,
        )
        train, evaluation, eval_m, weights = _tables(
            groups_train=groups_train,
            tasks_train=tasks_train,
            sample_weight_train=sample_weight_train,
            groups=groups,
            tasks=tasks,
            groups_pred=groups_pred,
            tasks_pred=tasks_pred,
            sample_weight=sample_weight,
            group_names=group_names,
            task_names=task_names,
        )
        space = cls(
            train,
            evaluation,
            combinations=combinations,
            min_size=min_size,
            max_size=max_size,
            min_count=min_count,
            max_combinations=max_combinations,
            progress=progress,
        )
        space._eval_matrices, space._eval_weights = eval_m, weights
        space.train_rows = train_rows
        return space

    def __len__(self) -> int:
        return len(self._containment.names)

    @property
    def names(self) -> list[tuple[Any, ...]]:
        """Each combination of M as a tuple of task names."""
        return self._containment.names

    @property
    def sizes(self) -> np.ndarray:
        """Number of tasks of each combination: (|M|,)."""
        return self._containment.combos.sizes

    def counts(self, table: PatternCountTable, *, progress: bool = False) -> CountTable:
        """Counts of ``table`` (any roles, replicate axis allowed) per combination of M.

        The result is a :class:`CountTable` whose "tasks" are the combinations.
        """
        if tuple(table.task_names) != tuple(self.train.task_names):
            raise ValueError(
                ERR_TABLE_NAMES.format(
                    arg="table",
                    kind="task",
                    a=list(self.train.task_names),
                    b=list(table.task_names),
                )
            )
        weights, spec = _layout(table, self._containment.vocabulary)
        return _combination_table(
            table, self.names, self._containment.counts(weights, progress=progress), spec
        )

    def __repr__(self) -> str:
        return (
            f"CombinationSpace({len(self):,} combinations, combinations={self.combinations!r}, "
            f"min_size={self.min_size}, max_size={self.max_size}, min_count={self.min_count:g})"
        )


def _space_for(
    space: Any,
    train: PatternCountTable | None,
    evaluation: PatternCountTable | None,
    options: dict[str, Any],
) -> CombinationSpace:
    """The given space (checked against the tables and options) or a new one."""
    if space is None:
        return CombinationSpace(train, evaluation, **options)  # type: ignore[arg-type]
    if not isinstance(space, CombinationSpace):
        raise TypeError(ERR_SPACE_TYPE.format(type_name=type(space).__name__))
    if (train is not None and train is not space.train) or (
        evaluation is not None and evaluation is not space.evaluation
    ):
        raise ValueError(ERR_SPACE_TABLES)
    _check_space_options(space, options)
    return space


def _check_space_options(space: CombinationSpace, options: dict[str, Any]) -> None:
    """Combination options that differ from the defaults must agree with the space's."""
    have = {
        "combinations": space.combinations,
        "min_size": space.min_size,
        "max_size": space.max_size,
        "min_count": space.min_count,
    }
    for name, value in options.items():
        if name not in have or value == _OPTION_DEFAULTS[name]:
            continue
        if value != have[name]:
            raise ValueError(ERR_SPACE_OPTIONS.format(name=name, got=value, have=have[name]))


_TRAIN_SOURCE = "the training split"


def _validate(
    arrays: dict[str, tuple[Any, str]],
    *,
    group_names: Sequence[Any] | None,
    task_names: Sequence[Any] | None,
    source: str | None,
) -> dict[str, LabelMatrix]:
    """LabelMatrix per role; ``arrays`` maps role -> (value, argument name)."""
    out: dict[str, LabelMatrix] = {}
    for kind, roles, names in (
        ("group", ("groups", "groups_pred"), group_names),
        ("task", ("tasks", "tasks_pred"), task_names),
    ):
        src = (source or f"{kind}_names") if names is not None else None
        for role in roles:
            if role not in arrays or arrays[role][0] is None:
                continue
            value, arg = arrays[role]
            # validated 0/1 dense labels as uint8: one byte per cell, no float64 copy
            out[role] = as_label_matrix(value, arg=arg, names=names, source=src, compact=True)
            if names is None:
                names, src = out[role].names, arg
    return out


@dataclass(frozen=True)
class _DaskEvaluation:
    """The evaluation split's Dask collections, recounted per partition by the bootstrap."""

    arrays: dict[str, Any]


def _count_dask_split(
    arrays: dict[str, Any],
    *,
    group_names: Sequence[Any] | None,
    task_names: Sequence[Any] | None,
    source: str | None,
    replicates: Any = None,
) -> PatternCountTable:
    """A split of Dask collections counted per partition (the registered Dask engine)."""
    given = {role: value for role, value in arrays.items() if value is not None}
    table = counter_for("dask")(
        **given,
        group_names=group_names,
        task_names=task_names,
        names_source=source,
        replicates=replicates,
        table_type=PatternCountTable,
    )
    assert isinstance(table, PatternCountTable)
    return table


def _tables(
    *,
    groups_train: Any,
    tasks_train: Any,
    sample_weight_train: Any,
    groups: Any,
    tasks: Any,
    groups_pred: Any,
    tasks_pred: Any,
    sample_weight: Any,
    group_names: Sequence[Any] | None,
    task_names: Sequence[Any] | None,
) -> tuple[
    PatternCountTable, PatternCountTable, dict[str, LabelMatrix] | _DaskEvaluation, np.ndarray
]:
    # each split is counted on its own: Dask collections by partition, arrays in memory
    if any_dask_collection(groups_train, tasks_train, sample_weight_train):
        train = _count_dask_split(
            {"groups": groups_train, "tasks": tasks_train, "sample_weight": sample_weight_train},
            group_names=group_names,
            task_names=task_names,
            source=None,
        )
    else:
        train_m = _validate(
            {"groups": (groups_train, "groups_train"), "tasks": (tasks_train, "tasks_train")},
            group_names=group_names,
            task_names=task_names,
            source=None,
        )
        # the train split's own argument names in the messages (lengths, weights)
        n_train = check_same_length(**{f"{role}_train": m for role, m in train_m.items()})
        train = PatternCountTable.from_label_matrices(
            train_m,
            sample_weight=read_weights(sample_weight_train, n_train, arg="sample_weight_train"),
        )
    if float(train.n) <= 0:
        raise ValueError(ERR_EMPTY_SPLIT.format(arg="groups_train"))
    warn_single_group(train, "groups_train")
    empty_arg = "groups" if groups is not None else "tasks"
    if any_dask_collection(groups, tasks, groups_pred, tasks_pred, sample_weight):
        arrays = {
            "groups": groups,
            "tasks": tasks,
            "groups_pred": groups_pred,
            "tasks_pred": tasks_pred,
            "sample_weight": sample_weight,
        }
        evaluation = _count_dask_split(
            arrays,
            group_names=train.group_names,
            task_names=train.task_names,
            source=_TRAIN_SOURCE,
        )
        if float(evaluation.n) <= 0:
            raise ValueError(ERR_EMPTY_SPLIT.format(arg=empty_arg))
        dask_eval = _DaskEvaluation(
            {**arrays, "group_names": train.group_names, "task_names": train.task_names}
        )
        return train, evaluation, dask_eval, np.ones(0)
    eval_m = _validate(
        {
            "groups": (groups, "groups"),
            "tasks": (tasks, "tasks"),
            "groups_pred": (groups_pred, "groups_pred"),
            "tasks_pred": (tasks_pred, "tasks_pred"),
        },
        group_names=train.group_names,
        task_names=train.task_names,
        source=_TRAIN_SOURCE,
    )
    if not eval_m:
        raise ValueError(ERR_NO_EVALUATION)
    n_eval = check_same_length(**eval_m)
    weights = read_weights(sample_weight, n_eval, arg="sample_weight")
    evaluation = PatternCountTable.from_label_matrices(eval_m, sample_weight=weights)
    if float(evaluation.n) <= 0:
        raise ValueError(ERR_EMPTY_SPLIT.format(arg=empty_arg))
    return train, evaluation, eval_m, weights


def _arrays_or_space(
    space: Any, arrays: dict[str, Any], required: Sequence[str], build: dict[str, Any]
) -> CombinationSpace:
    """The space passed (no arrays allowed with it) or one built from the arrays."""
    if space is not None:
        for arg, value in arrays.items():
            if value is not None:
                raise ValueError(ERR_SPACE_WITH_ARRAYS.format(arg=arg))
        if not isinstance(space, CombinationSpace):
            raise TypeError(ERR_SPACE_TYPE.format(type_name=type(space).__name__))
        _check_space_options(space, build)
        return space
    for arg in required:
        if arrays.get(arg) is None:
            raise ValueError(ERR_MISSING_ARRAY.format(arg=arg))
    # the callers have already selected the training rows (train_rows), so keep them all
    return CombinationSpace.from_arrays(**arrays, **build, train_rows="all")
