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

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from biasamp._memory import check_allocation
from biasamp.counts._count_table import CountTable
from biasamp.counts._poisson import BLOCK_ROWS
from biasamp.counts._swaps import SwapReplicates, check_n_perm, swap_count_table
from biasamp.results._significance import with_significance

__all__ = [
    "ERR_SWAP_DASK",
    "ERR_SWAP_NEEDS",
    "check_swap_memory",
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
