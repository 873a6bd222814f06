"""The bootstrap of the pairwise metrics: replicate count tables in, intervals out.

``bootstrap_pairwise`` is the one path every co-occurrence metric
(``mals``, ``directional``, and the CLI's streaming audit) takes for
``n_boot``: the evaluation split (and, with ``resample_train=True``, the training
split) is counted once more with a leading replicate axis
(:mod:`biasamp.counts` makes the replicate weights), the metric core runs once
on arrays of shape ``(B, |G|, |T|)``, and
:func:`~biasamp.results.interval_from_replicates` summarises the replicates.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from biasamp._memory import check_allocation
from biasamp.counts._count_table import CountTable
from biasamp.counts._poisson import BLOCK_ROWS, PoissonReplicates, check_n_boot, seed_entropy
from biasamp.counts._replicates import ERR_METHOD, make_replicates, replicate_count_table
from biasamp.inputs._label_matrix import LabelMatrix, check_same_length
from biasamp.metrics._splits import split_label_matrices
from biasamp.results._intervals import check_ci, interval_from_replicates

__all__ = [
    "bootstrap_pairwise",
    "check_bootstrap_args",
    "check_bootstrap_memory",
    "evaluation_replicates",
    "interval_from_streamed_tables",
    "interval_from_tables",
    "replicate_splits",
    "with_interval",
]


# ------------------------------------------------ glue for the metric functions
ERR_RESAMPLE_TRAIN_COUNTS = (
    "resample_train=True needs the training rows (groups_train and tasks_train); "
    "a training side given as counts_train cannot be resampled."
)
ERR_RESAMPLE_TRAIN_MISSING = (
    "resample_train=True needs a training split (groups_train and tasks_train); "
    "without one there is nothing to resample beyond the evaluation rows."
)
ERR_BOOT_FLAG = "{arg}: expected True or False, got {got!r}."


def check_bootstrap_args(
    *, n_boot: Any, ci: Any, bootstrap: Any, resample_train: Any, progress: Any
) -> None:
    """Validate the bootstrap keywords shared by every metric (``n_boot`` not None)."""
    check_n_boot(n_boot)
    check_ci(ci)
    if bootstrap not in ("poisson", "multinomial"):
        raise ValueError(ERR_METHOD.format(got=bootstrap))
    for arg, value in (("resample_train", resample_train), ("progress", progress)):
        if not isinstance(value, (bool, np.bool_)):
            raise TypeError(ERR_BOOT_FLAG.format(arg=arg, got=value))


def _table_cells(table: CountTable) -> int:
    """The number of counts a plain table holds (``n``, the totals and the joints)."""
    cells = int(np.size(table.n))
    cells += sum(int(np.size(v)) for v in table.totals.values())
    return cells + sum(int(np.size(v)) for v in table.joint.values())


def check_bootstrap_memory(n_boot: int, table: CountTable, *, tables: int = 1) -> None:
    """Refuse (``ValueError`` with the estimate) a bootstrap whose replicate tables would
    not fit in memory: ``n_boot`` copies of ``table`` (``tables`` of them, 2 with
    ``resample_train``), the accumulator they are summed in, the metric core's
    ``(n_boot, |G|, |T|)`` intermediates (about eight of them), and one block of
    Poisson draws (``BLOCK_ROWS`` rows of ``n_boot`` words and values)."""
    pairs = len(table.group_names) * len(table.task_names)
    cells = _table_cells(table)
    nbytes = 8.0 * float(n_boot) * (2 * tables * cells + 8 * pairs + 2 * BLOCK_ROWS)
    check_allocation(
        nbytes,
        what=(
            f"n_boot={n_boot} replicates of a table of {cells} counts "
            f"({len(table.group_names)} groups x {len(table.task_names)} tasks)"
        ),
        advice="use fewer replicates (n_boot=1000 gives a stable 95% interval).",
    )


def replicate_splits(
    *,
    evaluation: Mapping[str, LabelMatrix],
    n_boot: int,
    random_state: Any = None,
    bootstrap: str = "poisson",
    sample_weight: Any = None,
    train: CountTable | None = None,
    groups_train: Any = None,
    tasks_train: Any = None,
    sample_weight_train: Any = None,
    resample_train: bool = False,
    progress: bool = False,
    chunk_rows: int | None = None,
    metric: str = "bootstrap",
) -> tuple[CountTable, CountTable | None]:
    """Replicate tables of the evaluation split and (resampled or fixed) training split.

    The evaluation rows use stream 0 and the training rows stream 1 of one
    seed, so the two resamples are independent and reproducible. Returns
    ``(evaluation_table, train_table)`` where ``train_table`` is ``train``
    itself unless ``resample_train``.
    """
    entropy = seed_entropy(random_state)
    n_eval = check_same_length(**evaluation)
    reps = make_replicates(n_eval, n_boot, random_state=entropy, method=bootstrap, stream=0)
    rep_eval = replicate_count_table(
        evaluation,
        replicates=reps,
        sample_weight=sample_weight,
        chunk_rows=chunk_rows,
        progress=progress,
        description=f"{metric}: {n_boot} replicates",
    )
    if not resample_train:
        return rep_eval, train
    if train is None:
        raise ValueError(ERR_RESAMPLE_TRAIN_MISSING)
    if groups_train is None or tasks_train is None:
        raise ValueError(ERR_RESAMPLE_TRAIN_COUNTS)
    matrices = split_label_matrices(
        groups=groups_train,
        tasks=tasks_train,
        group_names=train.group_names,
        task_names=train.task_names,
        suffix="_train",
        names_source="the training split",
    )
    n_train = check_same_length(**matrices)
    reps_train = make_replicates(n_train, n_boot, random_state=entropy, method=bootstrap, stream=1)
    rep_train = replicate_count_table(
        matrices,
        replicates=reps_train,
        sample_weight=sample_weight_train,
        chunk_rows=chunk_rows,
        progress=progress,
        description=f"{metric}: {n_boot} training replicates",
    )
    return rep_eval, rep_train


def with_interval(
    result: Any,
    values: np.ndarray,
    pair_values: np.ndarray,
    *,
    ci: float,
    n_boot: int,
    bootstrap: str,
    resample_train: bool,
    pair_column: str,
) -> Any:
    """A copy of a :class:`PairwiseResult` carrying the bootstrap interval.

    ``values`` (B,) are the replicate metric values; ``pair_values``
    (B, |G|, |T|) the replicate values of ``by_pair[pair_column]``, whose
    percentile interval becomes the ``ci_low`` / ``ci_high`` columns.
    """
    from dataclasses import replace

    overall = interval_from_replicates(values, ci=ci)
    pairs = interval_from_replicates(pair_values, ci=ci)
    by_pair = result.by_pair.copy()
    by_pair["ci_low"] = np.asarray(pairs.low).reshape(-1)
    by_pair["ci_high"] = np.asarray(pairs.high).reshape(-1)
    params = dict(result.params)
    params["bootstrap"] = {
        "method": bootstrap,
        "n_boot": int(n_boot),
        "resample_train": bool(resample_train),
        "interval": "percentile",
        "n_valid": int(np.isfinite(values).sum()),
        "pair_interval_of": pair_column,
    }
    return replace(
        result,
        by_pair=by_pair,
        params=params,
        ci=(overall.low, overall.high),
        ci_level=float(ci),
        se=overall.se,
        replicates=np.asarray(values, dtype=np.float64),
    )


def bootstrap_pairwise(
    result: Any,
    *,
    split: Any,
    compute: Callable[[CountTable, CountTable | None], dict[str, np.ndarray]],
    metric: str,
    n_boot: int,
    ci: float,
    random_state: Any,
    bootstrap: str,
    resample_train: bool,
    progress: bool,
    sample_weight: Any = None,
    train: CountTable | None = None,
    groups_train: Any = None,
    tasks_train: Any = None,
    sample_weight_train: Any = None,
) -> Any:
    """Add a bootstrap interval to a pairwise result.

    ``split`` is the metric call's :class:`~biasamp.metrics._splits.EvaluationSplit`;
    ``compute(replicate_evaluation, replicate_train)`` is the metric's batched
    core (``directional_arrays`` or ``mals_arrays``) returning ``value`` (B,)
    and ``delta`` (B, |G|, |T|). Dask inputs are recounted per partition with
    Poisson weights drawn by global row index, so they give exactly the
    in-memory replicates.
    """
    check_bootstrap_memory(n_boot, split.table, tables=2 if resample_train else 1)
    if split.matrices is None:
        from biasamp.engines._dask import ERR_DASK_BOOTSTRAP, counts_from_dask

        if bootstrap != "poisson" or resample_train:
            raise ValueError(ERR_DASK_BOOTSTRAP)
        reps = evaluation_replicates(n_boot, random_state=random_state)
        rep_eval, rep_train = counts_from_dask(**split.dask_arrays, replicates=reps), train
    else:
        rep_eval, rep_train = replicate_splits(
            evaluation=split.matrices,
            n_boot=n_boot,
            random_state=random_state,
            bootstrap=bootstrap,
            sample_weight=sample_weight,
            train=train,
            groups_train=groups_train,
            tasks_train=tasks_train,
            sample_weight_train=sample_weight_train,
            resample_train=resample_train,
            progress=progress,
            metric=metric,
        )
    return interval_from_tables(
        result,
        rep_eval,
        rep_train,
        compute=compute,
        n_boot=n_boot,
        ci=ci,
        bootstrap=bootstrap,
        resample_train=resample_train,
    )


def evaluation_replicates(n_boot: int, *, random_state: Any) -> PoissonReplicates:
    """The Poisson weights the in-memory bootstrap gives the evaluation rows (stream 0).

    Rows counted elsewhere (Dask partitions, file chunks by
    :func:`biasamp.counts_from_files`) with these weights, by global row
    index, give exactly the replicate tables of :func:`bootstrap_pairwise`
    on the same rows in memory.
    """
    return PoissonReplicates(n_boot, random_state=seed_entropy(random_state), stream=0)


def interval_from_tables(
    result: Any,
    rep_eval: CountTable,
    rep_train: CountTable | None,
    *,
    compute: Callable[[CountTable, CountTable | None], dict[str, np.ndarray]],
    n_boot: int,
    ci: float,
    bootstrap: str = "poisson",
    resample_train: bool = False,
) -> Any:
    """Add the interval of replicate count tables to a pairwise result.

    ``compute(rep_eval, rep_train)`` is the metric's batched core
    (``directional_arrays`` or ``mals_arrays``) returning ``value`` (B,) and
    ``delta`` (B, |G|, |T|); the replicate tables may come from memory
    (:func:`replicate_splits`), Dask partitions or file chunks.
    """
    arrays = compute(rep_eval, rep_train)
    return with_interval(
        result,
        arrays["value"],
        arrays["delta"],
        ci=ci,
        n_boot=n_boot,
        bootstrap=bootstrap,
        resample_train=resample_train,
        pair_column="delta",
    )


def interval_from_streamed_tables(
    result: Any,
    evaluation: CountTable,
    train: CountTable | None,
    *,
    compute: Callable[[CountTable, CountTable | None], dict[str, np.ndarray]],
    ci: float,
) -> Any:
    """The interval of an online bootstrap, when ``evaluation`` carries one.

    ``evaluation.replicates`` (from :meth:`CountTable.empty` with ``n_boot``)
    are the replicate evaluation tables; a ``train`` table with replicates of
    its own is resampled alongside. Returns ``result`` unchanged otherwise.
    """
    if evaluation.replicates is None or evaluation.bootstrap is None:
        return result
    check_ci(ci)
    resample_train = train is not None and train.replicates is not None
    rep_train = train.replicates if resample_train and train is not None else train
    return interval_from_tables(
        result,
        evaluation.replicates,
        rep_train,
        compute=compute,
        n_boot=evaluation.bootstrap.n_boot,
        ci=ci,
        bootstrap="poisson",
        resample_train=resample_train,
    )
