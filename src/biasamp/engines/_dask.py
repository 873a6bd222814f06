"""Count tables from Dask collections: one table per partition, merged by a tree reduction.

Every co-occurrence metric accepts Dask collections in place of arrays, for
example ``groups=ddf["gender"]``, ``tasks=ddf[task_columns]``,
``tasks_pred=ddf[pred_columns]``. :meth:`CountTable.from_arrays` sends them
here (:func:`counts_from_dask`): each partition is counted into a
:class:`CountTable` by the foundation's in-memory code, the tables are merged
``split_every`` at a time up a tree, and only the final table (a few
``|G| x |T|`` arrays) comes back to the client. The work runs on whatever Dask
scheduler is active: the default local threads, or a ``dask.distributed``
cluster once a ``Client`` is created::

    from dask.distributed import Client
    client = Client("tcp://scheduler-host:8786")   # every dask.compute now runs there
    biasamp.directional(direction="T->A", groups=ddf["gender"], ...)

Rules
-----
* All label arguments of one split are Dask collections (mixing Dask and
  in-memory arrays raises ``TypeError``). Dask DataFrames and Series are
  first joined into **one** DataFrame by a single blockwise step, so every
  role column of a split is read by one projection and partitioned alike
  (counting each column on its own let dask's optimizer give
  ``ddf["gender"]`` fewer partitions than ``ddf[tasks]``). Columns of one
  DataFrame always line up. Columns of different collections line up by
  their known divisions (Dask aligns them); with unknown divisions they must
  have the same number of partitions, and each partition's rows must match
  (same length and index), otherwise a ``ValueError`` says how to fix it.
  The training and evaluation splits are separate collections and are
  counted separately, so their partitionings never need to agree.
* **Label names of a Dask Series** (1-D labels) must be known before the
  partitions are counted, so every partition uses one label space. They are,
  in order: ``group_names`` / ``task_names`` (or the training split's);
  otherwise biasamp computes the
  distinct values once (one extra pass over that column) and sorts them, the
  same rule as in memory (categories that no row uses are not labels). Pass
  ``group_names`` / ``task_names`` to skip that pass. A 2-D DataFrame's
  columns name its labels.
* Empty partitions count as zero. An error inside a partition (unknown label,
  non-0/1 value, mismatched lengths) is re-raised with ``partition <i>:``.
* Bootstrap: pass a :class:`biasamp.PoissonReplicates` as
  ``replicates``; partition ``i`` draws the weights of its global rows
  ``offset_i : offset_i + len_i``, so the merged replicate table equals the
  in-memory one exactly.

Dask is never imported unless it is already loaded: an input can only be a
Dask collection if the user's code imported dask.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from biasamp.counts._count_table import CountTable, empty_count_table
from biasamp.inputs._collections import is_dask_collection
from biasamp.inputs._roles import GROUP_ROLES, TASK_ROLES

__all__ = ["counts_from_dask"]

ERR_DASK_MIXED = (
    "{arg}: is not a Dask collection while {others} are; give every label argument of a split "
    "as Dask collections with the same partitions (or none)."
)
ERR_DASK_PARTITIONS = (
    "Dask inputs of one split have different numbers of partitions ({details}) and "
    "unknown divisions, so their rows cannot be lined up. Take every column of the split "
    'from one DataFrame (ddf["gender"], ddf[task_columns]), or give the collections a '
    "sorted index so Dask knows their divisions (ddf.set_index(...), "
    "dd.read_parquet(..., index=..., calculate_divisions=True))."
)
ERR_DASK_ROWS = (
    "Dask inputs of one split do not line up row by row: a partition has {details}. "
    "Take every column of the split from one DataFrame, or give the collections a sorted "
    "index with known divisions so Dask can align them."
)
ERR_DASK_TYPE = (
    "{arg}: unsupported Dask collection {type_name}; pass a dask DataFrame, Series or Array."
)
ERR_DASK_BOOTSTRAP = (
    "n_boot with Dask inputs supports bootstrap='poisson' with resample_train=False (Poisson "
    "weights are drawn per partition by global row index); for anything else count the "
    "replicates with counts_from_dask(..., replicates=...) and compute the metric from them."
)
ERR_DASK_NO_NAMES = (
    "{arg}: the Dask collection has no rows, so its label names are unknown; pass {kind}_names."
)
ERR_PARTITION = "partition {index}: {message}"
ERR_DASK_ALL_EMPTY = "Every Dask partition is empty; there is nothing to count."
ERR_SPLIT_EVERY = "split_every: expected an integer >= 2, got {got!r}."

_ARGS = ("groups", "tasks", "groups_pred", "tasks_pred", "sample_weight")


def _partitions(x: Any, arg: str) -> list[Any]:
    """The partitions of a Dask collection as delayed objects (row blocks)."""
    import dask.array as da
    import dask.dataframe as dd

    if isinstance(x, (dd.DataFrame, dd.Series)):
        return list(x.to_delayed())
    if isinstance(x, da.Array):
        if x.ndim == 2:
            x = x.rechunk({1: -1})
        return list(x.to_delayed().ravel())
    raise TypeError(ERR_DASK_TYPE.format(arg=arg, type_name=type(x).__name__))


def _is_frame_like(x: Any) -> bool:
    import dask.dataframe as dd

    return isinstance(x, (dd.DataFrame, dd.Series))


def _bundle_partition(*frames: Any, args: tuple[str, ...]) -> pd.DataFrame:
    """One partition of every role, side by side, with positional column names (on a worker)."""
    lengths = {arg: len(f) for arg, f in zip(args, frames, strict=True)}
    first = frames[0]
    if len(set(lengths.values())) > 1 or any(not f.index.equals(first.index) for f in frames):
        details = ", ".join(f"{arg} {n} rows" for arg, n in lengths.items())
        if len(set(lengths.values())) == 1:
            details += " with different row indexes"
        raise ValueError(ERR_DASK_ROWS.format(details=details))
    pieces = []
    for arg, f in zip(args, frames, strict=True):
        frame = f.to_frame() if isinstance(f, pd.Series) else f
        pieces.append(frame.set_axis([f"{arg}\x00{j}" for j in range(frame.shape[1])], axis=1))
    return pd.concat(pieces, axis=1)


def _unbundle(frame: pd.DataFrame, layout: dict[str, tuple[Any, ...] | None]) -> dict[str, Any]:
    """The role arrays of a bundled partition (``None`` columns mark a Series)."""
    parts: dict[str, Any] = {}
    for arg, columns in layout.items():
        own = [c for c in frame.columns if c.startswith(f"{arg}\x00")]
        if columns is None:
            parts[arg] = frame[own[0]]
        else:
            parts[arg] = frame[own].set_axis(pd.Index(list(columns), dtype=object), axis=1)
    return parts


def _one_frame(given: dict[str, Any]) -> tuple[Any, dict[str, tuple[Any, ...] | None]]:
    """Every role of a split joined into one Dask DataFrame by one blockwise step.

    Returns the DataFrame and the layout (role -> its column labels, ``None``
    for a Series). Raises ``ValueError`` when the collections cannot be lined up.
    """
    import dask.dataframe as dd

    args = tuple(given)
    values = [given[a] for a in args]
    known = all(v.known_divisions for v in values)
    counts = {a: v.npartitions for a, v in given.items()}
    if not known and len(set(counts.values())) > 1:
        raise ValueError(
            ERR_DASK_PARTITIONS.format(details=", ".join(f"{a} has {c}" for a, c in counts.items()))
        )
    layout = {a: None if isinstance(v, dd.Series) else tuple(v.columns) for a, v in given.items()}
    if known and len({v.divisions for v in values}) > 1:
        # line the collections up by index: every one split at the union of the divisions
        union = sorted(set().union(*(v.divisions for v in values)))
        values = [v.repartition(divisions=union) for v in values]
    meta = _bundle_partition(*[v._meta for v in values], args=args)
    combined = dd.map_partitions(
        _bundle_partition,
        *values,
        args=args,
        meta=meta,
        align_dataframes=False,
        enforce_metadata=False,
        transform_divisions=False,
    )
    return combined, layout


def _sorted_unique(values: np.ndarray) -> tuple[Any, ...]:
    values = np.asarray(values, dtype=object)
    values = values[~np.asarray(pd.isna(values), dtype=bool)]
    names = tuple(pd.unique(values))
    try:
        return tuple(sorted(names))
    except TypeError:
        return names


def _names_task(x: Any, arg: str) -> Any:
    """A delayed/dask object computing the label names of one role, or a tuple if known now."""
    import dask.array as da
    import dask.dataframe as dd

    if isinstance(x, dd.DataFrame):
        return tuple(x.columns)
    if isinstance(x, da.Array) and x.ndim == 2:
        return None  # positional indicator columns: names come from the other role or 0..k-1
    if isinstance(x, dd.Series):
        # categoricals too: a declared category that no row uses is not a label
        # (docs/counts.md), so the labels are the distinct values either way
        return x.drop_duplicates()
    if isinstance(x, da.Array):
        return da.unique(x)
    raise TypeError(ERR_DASK_TYPE.format(arg=arg, type_name=type(x).__name__))


def _count_partition(index: int, offset: int | None, parts: Any, options: dict[str, Any]) -> Any:
    """One partition's table, or ``None`` for an empty partition (runs on a worker).

    ``parts`` maps role -> the partition's block, or is one bundled pandas
    DataFrame (see :func:`_bundle_partition`) when ``options["layout"]`` is set.
    """
    if options.get("layout") is not None:
        try:
            parts = _unbundle(parts, options["layout"])
        except (ValueError, TypeError) as exc:
            raise type(exc)(ERR_PARTITION.format(index=index, message=exc)) from exc
    n_rows = {arg: len(p) for arg, p in parts.items()}
    if all(n == 0 for n in n_rows.values()):
        return None
    replicates = options["replicates"]
    table_type = options["table_type"]
    try:
        extra = {"soft": options["soft"]} if table_type is CountTable else {}
        if replicates is not None:
            n = next(iter(n_rows.values()))
            start = int(offset or 0)  # offsets are computed whenever replicates are given
            extra["replicate_weights"] = replicates.weights(start, start + n)
        return table_type.from_arrays(
            **parts,
            group_names=options["group_names"],
            task_names=options["task_names"],
            names_source=options["names_source"],
            **extra,
        )
    except (ValueError, TypeError) as exc:
        raise type(exc)(ERR_PARTITION.format(index=index, message=exc)) from exc


def _merge_all(*tables: Any) -> Any:
    """Merge the non-empty tables (``None`` marks an empty partition)."""
    total = None
    for table in tables:
        if table is not None:
            total = table if total is None else total + table
    return total


def _tree_merge(tables: list[Any], split_every: int) -> Any:
    """Merge delayed tables ``split_every`` at a time until one is left (depth log_k P)."""
    from dask import delayed

    while len(tables) > 1:
        tables = [
            delayed(_merge_all)(*tables[i : i + split_every])
            for i in range(0, len(tables), split_every)
        ]
    return tables[0]


def counts_from_dask(
    *,
    groups: Any = None,
    tasks: Any = None,
    groups_pred: Any = None,
    tasks_pred: Any = None,
    sample_weight: Any = None,
    group_names: Sequence[Any] | None = None,
    task_names: Sequence[Any] | None = None,
    soft: bool = False,
    names_source: str | None = None,
    replicates: Any = None,
    split_every: int = 8,
    compute: bool = True,
    table_type: type = CountTable,
) -> CountTable | Any:
    """The :class:`CountTable` of Dask collections, counted per partition and tree-merged.

    Parameters
    ----------
    groups, tasks, groups_pred, tasks_pred : dask Series, DataFrame or Array
        The labels by role (1-D labels or 2-D 0/1 indicators), row-aligned.
    sample_weight : dask Series or Array, optional
        Row weights.
    group_names, task_names : sequence, optional
        Canonical label names (see the module notes for the default).
    soft : bool, default False
        Accept probabilities for the predicted roles.
    names_source : str, optional
        Where the names came from, for error messages.
    replicates : PoissonReplicates, optional
        Bootstrap weights by global row index (see :class:`biasamp.PoissonReplicates`).
    split_every : int, default 8
        Tables merged per node of the reduction tree.
    compute : bool, default True
        ``False`` returns the ``dask.delayed`` final table instead.
    table_type : type, default CountTable
        The mergeable table to build per partition; ``PatternCountTable`` gives
        the task-pattern counts of the multi-attribute metrics.

    Returns
    -------
    CountTable
        Equal to :meth:`CountTable.from_arrays` on the computed arrays.

    Examples
    --------
    >>> import pandas as pd
    >>> import dask.dataframe as dd
    >>> from biasamp import CountTable
    >>> frame = pd.DataFrame({"g": ["m", "w", "w", "m"], "ski": [1, 0, 1, 1]})
    >>> ddf = dd.from_pandas(frame, npartitions=2)
    >>> CountTable.from_arrays(groups=ddf["g"], tasks=ddf[["ski"]]).joint[("groups", "tasks")]
    array([[2.],
           [1.]])
    """
    import dask

    if isinstance(split_every, bool) or not isinstance(split_every, int) or split_every < 2:
        raise ValueError(ERR_SPLIT_EVERY.format(got=split_every))
    given = {
        "groups": groups,
        "tasks": tasks,
        "groups_pred": groups_pred,
        "tasks_pred": tasks_pred,
        "sample_weight": sample_weight,
    }
    given = {arg: v for arg, v in given.items() if v is not None}
    dask_args = [arg for arg, v in given.items() if is_dask_collection(v)]
    for arg, value in given.items():
        if not is_dask_collection(value):
            raise TypeError(ERR_DASK_MIXED.format(arg=arg, others=", ".join(dask_args)))
    layout: dict[str, tuple[Any, ...] | None] | None = None
    if all(_is_frame_like(v) for v in given.values()):
        # one projection for every role column: one partitioning for the split
        combined, layout = _one_frame(given)
        blocks = list(combined.to_delayed())
        parts = {"_bundle": blocks}
    else:
        parts = {arg: _partitions(v, arg) for arg, v in given.items()}
        counts = {arg: len(p) for arg, p in parts.items()}
        if len(set(counts.values())) > 1:
            raise ValueError(
                ERR_DASK_PARTITIONS.format(
                    details=", ".join(f"{a} has {c}" for a, c in counts.items())
                )
            )

    # label names: given, known from columns/categories, or one distinct-values pass
    names = {
        "group": None if group_names is None else tuple(group_names),
        "task": None if task_names is None else tuple(task_names),
    }
    pending: dict[str, tuple[str, Any]] = {}
    for kind, roles in (("group", GROUP_ROLES), ("task", TASK_ROLES)):
        if names[kind] is not None:
            continue
        for role in roles:
            if role in given:
                found = _names_task(given[role], role)
                if found is None:
                    continue
                if isinstance(found, tuple):
                    names[kind] = found
                else:
                    pending[kind] = (role, found)
                break
    if pending:
        computed = dask.compute(*[task for _, task in pending.values()])
        for (kind, (role, _)), values in zip(pending.items(), computed, strict=True):
            found = _sorted_unique(np.asarray(values))
            if not found:
                raise ValueError(ERR_DASK_NO_NAMES.format(arg=role, kind=kind))
            names[kind] = found
    if names["group"] is None or names["task"] is None:
        # only positional 2-D dask arrays: take the width as names 0..k-1, like in memory
        for kind, roles in (("group", GROUP_ROLES), ("task", TASK_ROLES)):
            if names[kind] is None:
                width = next(given[r].shape[1] for r in roles if r in given)
                names[kind] = tuple(range(int(width)))

    n_parts = len(next(iter(parts.values())))
    if replicates is not None:
        first = next(iter(parts.values()))
        lengths = dask.compute(*[dask.delayed(len)(p) for p in first])
        offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(int).tolist()
    else:
        offsets = [None] * n_parts
    options = {
        "group_names": names["group"],
        "task_names": names["task"],
        "soft": soft,
        "names_source": names_source
        if (group_names is not None or task_names is not None)
        else None,
        "replicates": replicates,
        "table_type": table_type,
        "layout": layout,
    }
    tables = [
        dask.delayed(_count_partition)(
            i,
            offsets[i],
            parts["_bundle"][i] if layout is not None else {arg: parts[arg][i] for arg in given},
            options,
        )
        for i in range(n_parts)
    ]
    total = _tree_merge(tables, split_every)
    if not compute:
        return total
    (result,) = dask.compute(total)
    if result is None:  # every partition is empty
        if table_type is not CountTable or replicates is not None:
            raise ValueError(ERR_DASK_ALL_EMPTY)

        label_roles = [arg for arg in given if arg != "sample_weight"]
        return empty_count_table(label_roles, names["group"] or (), names["task"] or ())
    return result
