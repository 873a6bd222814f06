"""The paired swap test of the co-occurrence metrics: swapped count tables in, a p-value out.

``swap_test_pairwise`` is the one path the pairwise metrics (``mals``,
``directional``, the caption metrics that call them) take for ``n_perm``: the
evaluation split is counted once more with a leading axis of ``n_perm`` swapped
data sets (:func:`biasamp.counts._swaps.swap_count_table`: each row's labels and
outputs swap with probability 1/2), the metric core runs once on arrays of shape
``(n_perm, |G|, |T|)``, and :func:`~biasamp.results._significance.with_significance`
turns the null values into ``p_value`` and ``null``.

The training split (which fixes the signs of BiasAmp-> and the training bias of
BiasAmp_MALS) is not swapped: it is not a model's output. Without a training side,
BiasAmp-> takes its signs from the evaluation labels, so each swapped data set
takes them from its own swapped labels, as the observed value does from the labels.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping
from typing import Any, cast

import numpy as np
import pandas as pd
import scipy.sparse as sp

from biasamp._memory import check_allocation
from biasamp._progress import progress_iter
from biasamp.counts._count_table import CountTable
from biasamp.counts._poisson import BLOCK_ROWS, seed_entropy
from biasamp.counts._swaps import SwapReplicates, check_n_perm, swap_count_table
from biasamp.results._significance import with_significance

__all__ = [
    "ERR_SWAP_DASK",
    "ERR_SWAP_NEEDS",
    "ERR_SWAP_SHAPES",
    "check_refit_memory",
    "check_swap_memory",
    "check_swappable",
    "refit_swap_test",
    "swapped_pair",
    "swap_null_values",
    "swap_test_pairwise",
]

ERR_SWAP_DASK = (
    "n_perm: the swap test counts the evaluation rows again under each swap; Dask inputs "
    "are not supported (compute them to memory, or use n_perm=0)."
)
ERR_SWAP_NEEDS = (
    "n_perm: the swap test of {metric} swaps each row's labels with the model's outputs, "
    "so it needs {needs} (the evaluation labels on the prediction rows)."
)


def check_swap_memory(n_perm: int, table: CountTable) -> None:
    """Refuse (``ValueError`` naming ``n_perm``, with the estimate) a swap test whose
    ``n_perm`` tables would not fit in memory: two replicate tables (rows kept and rows
    swapped) and their accumulator, the metric core's intermediates, a block of draws."""
    pairs = len(table.group_names) * len(table.task_names)
    cells = int(np.size(table.n))
    cells += sum(int(np.size(v)) for v in table.totals.values())
    cells += sum(int(np.size(v)) for v in table.joint.values())
    nbytes = 8.0 * float(n_perm) * (3 * 2 * cells + 10 * pairs + 2 * BLOCK_ROWS)
    check_allocation(
        nbytes,
        what=(
            f"n_perm={n_perm} swapped tables of {cells} counts "
            f"({len(table.group_names)} groups x {len(table.task_names)} tasks)"
        ),
        advice="use fewer permutations (n_perm=999 resolves p-values to 0.001).",
    )


def swap_null_values(
    matrices: Mapping[str, Any],
    *,
    compute: Callable[[CountTable], np.ndarray],
    n_perm: int,
    random_state: Any,
    sample_weight: Any = None,
    progress: bool = False,
) -> np.ndarray:
    """The metric's ``n_perm`` values under the paired swap null: ``compute`` (the
    batched core, a table with a leading axis -> values) on the swapped tables."""
    swaps = SwapReplicates(n_perm, random_state=random_state)
    table = swap_count_table(matrices, swaps=swaps, sample_weight=sample_weight, progress=progress)
    return np.asarray(compute(table), dtype=np.float64).reshape(n_perm)


def swap_test_pairwise(
    result: Any,
    *,
    split: Any,
    compute: Callable[[CountTable], np.ndarray],
    n_perm: Any,
    random_state: Any,
    sample_weight: Any = None,
    alternative: str = "greater",
    progress: bool = False,
) -> Any:
    """Add ``p_value`` and ``null`` of the paired swap test to a pairwise result.

    ``split`` is the metric call's :class:`~biasamp.metrics._splits.EvaluationSplit`
    and ``compute(swapped_evaluation)`` the metric's batched core returning the
    values, shape ``(n_perm,)``. ``n_perm=0`` returns ``result`` unchanged.
    """
    n_perm = check_n_perm(n_perm)
    if n_perm == 0:
        return result
    if split.matrices is None:
        raise ValueError(ERR_SWAP_DASK)
    check_swap_memory(n_perm, split.table)
    values = swap_null_values(
        split.matrices,
        compute=compute,
        n_perm=n_perm,
        random_state=random_state,
        sample_weight=sample_weight,
        progress=progress,
    )
    out = with_significance(result, values, method="paired-swap", alternative=alternative)
    out.params = {
        **result.params,
        "significance": {"null": "paired-swap", "n_perm": n_perm, "alternative": alternative},
    }
    return out


# ------------------------------------------------ metrics that refit an attacker
ERR_SWAP_SHAPES = (
    "n_perm: the swap test exchanges {label_arg} and {output_arg} row by row, so they need "
    "the same shape (labels on both sides); got {label_shape} and {output_shape}."
)


def _values(x: Any) -> np.ndarray:
    if sp.issparse(x):
        return np.asarray(cast(Any, x).toarray())
    if isinstance(x, (pd.Series, pd.DataFrame)):
        return x.to_numpy()
    if isinstance(x, (list, tuple)) and any(isinstance(v, (list, tuple)) for v in x[:1]):
        return np.asarray(x, dtype=object)
    array = np.asarray(x)
    return array.astype(object) if array.dtype.kind in "US" else array


def _like(template: Any, values: np.ndarray) -> Any:
    """``values`` in the container of ``template`` (a pandas object keeps its index, name
    and columns; anything else becomes an array)."""
    if isinstance(template, pd.Series):
        return pd.Series(values, index=template.index, name=template.name)
    if isinstance(template, pd.DataFrame):
        return pd.DataFrame(values, index=template.index, columns=template.columns)
    return values


def check_refit_memory(n_perm: int, n: int) -> None:
    """Refuse (``ValueError`` naming ``n_perm``) a swap test of a refitted metric whose
    indicators (a byte per row and permutation, and a block of draws) would not fit;
    called before any work."""
    check_allocation(
        float(n_perm) * n + 9.0 * BLOCK_ROWS * float(n_perm),
        what=f"n_perm={n_perm} swap indicators of {n} rows",
        advice="use fewer permutations (each one fits the attackers again).",
    )


def check_swappable(
    label: Any, output: Any, *, label_arg: str, output_arg: str, n_perm: int = 0
) -> None:
    """Refuse (``ERR_SWAP_SHAPES``) a label and an output that cannot swap row by row,
    and an ``n_perm`` whose indicators would not fit, before any work."""
    a, b = np.shape(_values(label)), np.shape(_values(output))
    if a != b:
        raise ValueError(
            ERR_SWAP_SHAPES.format(
                label_arg=label_arg, output_arg=output_arg, label_shape=a, output_shape=b
            )
        )
    if n_perm and a:
        check_refit_memory(n_perm, a[0])


def swapped_pair(
    label: Any, output: Any, swap: np.ndarray, *, label_arg: str, output_arg: str
) -> tuple[Any, Any]:
    """``label`` and ``output`` with the rows where ``swap`` is true exchanged."""
    a, b = _values(label), _values(output)
    if a.shape != b.shape:
        raise ValueError(
            ERR_SWAP_SHAPES.format(
                label_arg=label_arg,
                output_arg=output_arg,
                label_shape=a.shape,
                output_shape=b.shape,
            )
        )
    mask = swap.reshape((-1,) + (1,) * (a.ndim - 1))
    if a.dtype != b.dtype:
        a, b = a.astype(object), b.astype(object)
    return _like(label, np.where(mask, b, a)), _like(output, np.where(mask, a, b))


def refit_swap_test(
    result: Any,
    *,
    run: Callable[[Any, Any, int], float],
    label: Any,
    output: Any,
    label_arg: str,
    output_arg: str,
    n_perm: Any,
    random_state: Any,
    alternative: str = "greater",
    progress: bool = False,
) -> Any:
    """The paired swap test of a metric that fits attackers (DPA, leakage, LIC, DBAC).

    Each of the ``n_perm`` swapped data sets exchanges ``label`` and ``output`` on
    the rows its indicators pick (:class:`~biasamp.counts._swaps.SwapReplicates`, by
    row position); ``run(label, output, seed)`` recomputes the metric on it with the
    same attacker seed every time, so the null values differ by the swaps alone. The
    loop is over permutations (each fits the attackers again), never over rows.
    """
    n_perm = check_n_perm(n_perm)
    if n_perm == 0:
        return result
    n = len(_values(label))
    check_refit_memory(n_perm, n)
    swaps = SwapReplicates(n_perm, random_state=random_state)
    indicators = swaps.rows(0, n) == 1.0  # (n, n_perm)
    if isinstance(random_state, (int, np.integer)) and not isinstance(random_state, bool):
        seed = int(random_state)
    else:
        seed = seed_entropy(random_state) % 2**32
    values = np.empty(n_perm)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the observed call already warned about the data
        for p in progress_iter(range(n_perm), description="swap test", enabled=progress):
            a, b = swapped_pair(
                label, output, indicators[:, p], label_arg=label_arg, output_arg=output_arg
            )
            try:
                values[p] = float(run(a, b, seed))
            except ValueError:  # the metric is undefined on this swapped data set
                values[p] = np.nan
    out = with_significance(result, values, method="paired-swap", alternative=alternative)
    out.params = {
        **result.params,
        "significance": {"null": "paired-swap", "n_perm": n_perm, "alternative": alternative},
    }
    return out
