"""torchmetrics class for the multi-attribute metrics (Multi_MALS and Multi->).

Their state is a :class:`biasamp.PatternCountTable` of the evaluation rows: one
count per *distinct task set seen* (per group and role), a set of keys that
grows with the data and differs between processes. It is kept in torchmetrics
*list* states reduced by concatenation (``dist_reduce_fx="cat"``): per batch,
each task role's distinct patterns as ``int32`` words (32 tasks per word), their
counts and their group-by-pattern counts, all in float64; the group totals, the
weight total and the row count are plain ``"sum"`` states. ``compute()``
concatenates the lists (of every process, after a sync), adds the counts of
equal patterns, rebuilds the table and calls
:func:`biasamp.multi_directional_from_counts` or
:func:`biasamp.multi_mals_from_counts` with the training table built at
construction. Counts of 0/1 labels are integers, so the value equals the
one-shot functional value on the same rows, whatever the batches and processes.
When a list holds ``_COMPACT_EVERY`` entries the lists are merged in place, so
memory follows the distinct patterns seen, not the batches.

With ``n_boot`` the same arrays of the B online-bootstrap replicates (prefixed
``rep_``: per pattern entry a row of B, or of |G| x B, values) are kept alongside,
with Poisson(1) weights keyed by each row's global position in the evaluation
stream, exactly as :meth:`biasamp.PatternCountTable.empty` streams them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import torch
from torchmetrics.utilities import dim_zero_cat

from biasamp.counts._combinations import unique_keys
from biasamp.counts._pattern_counts import PatternCountTable
from biasamp.inputs._group_sizes import DEFAULT_MIN_GROUP_SIZE, check_min_group_size
from biasamp.metrics._combination_space import _DEFAULT_MAX_COMBINATIONS
from biasamp.metrics._directional import normalize_direction
from biasamp.metrics._multi_attribute import (
    multi_directional_from_counts,
    multi_mals_from_counts,
)
from biasamp.metrics._splits import select_training_rows
from biasamp.registry import card_for, find_card
from biasamp.results._multi_attribute import MultiAttributeResult
from biasamp.torchmetrics._metrics import _as_numpy, _StreamingMetric, training_labels

__all__ = ["MultiAttributeBiasAmplification"]

ERR_METRIC = (
    "metric: expected 'multi-a2t', 'multi-t2a' or 'multi-mals' (biasamp.registry's names; "
    "'A->T', 'T->A', 'multi_mals' and every other spelling of them work too), got {got!r}."
)
ERR_NO_ROWS = "{metric}.compute: no rows were counted on any process; call update before compute."

#: The evaluation roles each metric counts.
_ROLES = {
    "A->T": ("groups", "tasks", "tasks_pred"),
    "T->A": ("groups", "tasks", "groups_pred"),
    "multi_mals": ("tasks", "groups_pred", "tasks_pred"),
}
#: Batches between two in-place merges of the list states.
_COMPACT_EVERY = 32


def _metric_key(metric: Any) -> str:
    card = find_card(metric)
    if card is not None and card.family == "multi_mals":
        return "multi_mals"
    if card is not None and card.family == "multi_directional":
        return str(card.direction)
    try:
        return normalize_direction(metric)
    except (ValueError, TypeError):
        raise ValueError(ERR_METRIC.format(got=metric)) from None


class MultiAttributeBiasAmplification(_StreamingMetric):
    """Multi-> (either direction) or Multi_MALS (Zhao et al. 2023) as a torchmetrics metric.

    The training split is given at construction; ``update`` counts batches of
    the evaluation split; ``compute`` builds the combination set M from both
    and returns the value. The result equals :func:`biasamp.multi_directional` /
    :func:`biasamp.multi_mals` on the same rows (tested, also across
    ``torch.distributed`` processes).

    Parameters
    ----------
    metric : {"multi-a2t", "multi-t2a", "multi-mals"}
        Multi-> in that direction, or Multi_MALS, by the registry's names; every
        spelling :mod:`biasamp.registry` accepts for them works too, and so does a
        direction alone (``"A->T"``, ``"G->M"``) and ``"multi_mals"``.
    num_groups, num_tasks : int
        Number of group and task columns.
    groups_train : array-like or Tensor of shape (n_train,) or (n_train, num_groups)
        Training groups: class indices, multi-hot, or label names.
    tasks_train : array-like or Tensor of shape (n_train, num_tasks)
        Training tasks, multi-hot.
    sample_weight_train : array-like of shape (n_train,), optional
        Training row weights.
    group_names, task_names : sequence, optional
        Label names of the columns (default ``0 .. k-1``).
    combinations, min_size, max_size, min_count, max_combinations
        How M is built (see :func:`biasamp.multi_mals`).
    absolute : bool, default True
        Average absolute differences (the paper's Multi_MALS and Multi->).
    tie_rule, empty, baseline
        As in :func:`biasamp.multi_directional` (Multi-> only).
    train_rows : {"labelled", "with_task", "all"}, default "labelled"
        Which training rows count (see :func:`biasamp.multi_directional`).
    threshold : float or array of shape (num_tasks,), default 0.5
        Applied to 2-D float predictions (scores); 0/1 and bool pass as they are.
    n_boot : int, optional
        Keep B online-bootstrap replicates of the evaluation counts;
        ``compute_result()`` then has the ``ci``-level percentile interval (M and
        the training side stay fixed, as in
        :func:`biasamp.multi_directional_from_counts`).
    ci : float, default 0.95
        Confidence level of the interval.
    random_state : None, int, Generator, RandomState or SeedSequence
        Seed of the replicate weights (give every process the same integer).
    min_group_size : float or None, default 30
        ``compute_result()`` carries ``group_sizes`` and warns
        (:class:`SmallGroupWarning`) about smaller groups, as
        :func:`biasamp.multi_mals` does; ``None`` checks nothing.
    **kwargs
        Passed to ``torchmetrics.Metric`` (``compute_on_cpu``, ``sync_on_compute``,
        ``process_group``, ...).

    Notes
    -----
    Every process must call ``update`` at least once before ``compute`` under
    ``torch.distributed`` (the list states are gathered). With ``n_boot`` under
    ``torch.distributed``, pass each row's global position (``row_index=`` or
    ``row_offset=``), as for the other classes.

    Examples
    --------
    >>> import torch
    >>> from biasamp.torchmetrics import MultiAttributeBiasAmplification
    >>> tasks = torch.tensor([[1, 1, 0], [1, 1, 0], [1, 0, 1], [0, 1, 1]])
    >>> groups = torch.tensor([0, 0, 1, 1])
    >>> metric = MultiAttributeBiasAmplification(
    ...     "A->T", num_groups=2, num_tasks=3, groups_train=groups, tasks_train=tasks)
    >>> metric.update(groups=groups, tasks=tasks, tasks_pred=tasks)
    >>> float(metric.compute())
    0.0
    """

    def __init__(
        self,
        metric: str,
        num_groups: int,
        num_tasks: int,
        *,
        groups_train: Any,
        tasks_train: Any,
        sample_weight_train: Any = None,
        group_names: Sequence[Any] | None = None,
        task_names: Sequence[Any] | None = None,
        combinations: str = "observed",
        min_size: int = 1,
        max_size: int | None = None,
        min_count: float = 1,
        max_combinations: int = _DEFAULT_MAX_COMBINATIONS,
        absolute: bool = True,
        tie_rule: str = "zero",
        empty: str = "exclude",
        baseline: str = "evaluation",
        train_rows: str = "labelled",
        threshold: Any = 0.5,
        n_boot: int | None = None,
        ci: float = 0.95,
        random_state: Any = None,
        min_group_size: float | None = DEFAULT_MIN_GROUP_SIZE,
        **kwargs: Any,
    ) -> None:
        limit = check_min_group_size(min_group_size)
        super().__init__(**kwargs)
        self._key = _metric_key(metric)
        #: the metric's canonical name (``"multi-mals"``, ``"multi-a2t"``, ``"multi-t2a"``)
        self.metric = (
            card_for("multi_mals")
            if self._key == "multi_mals"
            else card_for("multi_directional", self._key)
        ).name
        self._set_counter(
            table_type=PatternCountTable,
            roles=_ROLES[self._key],
            num_groups=num_groups,
            num_tasks=num_tasks,
            group_names=group_names,
            task_names=task_names,
            soft=False,
            threshold=threshold,
            n_boot=n_boot,
            ci=ci,
            random_state=random_state,
        )
        self._options: dict[str, Any] = dict(
            combinations=combinations,
            min_size=min_size,
            max_size=max_size,
            min_count=min_count,
            max_combinations=max_combinations,
            absolute=absolute,
            ci=self.ci,
            min_group_size=limit,
        )
        if self._key != "multi_mals":
            self._options.update(tie_rule=tie_rule, empty=empty, baseline=baseline)
        g_train, t_train, w_train = select_training_rows(
            groups_train=training_labels(groups_train, self.group_names),
            tasks_train=training_labels(tasks_train, self.task_names),
            sample_weight_train=_as_numpy(sample_weight_train),
            group_names=self.group_names,
            task_names=self.task_names,
            train_rows=train_rows,
        )
        self._train = PatternCountTable.from_arrays(
            groups=g_train,
            tasks=t_train,
            sample_weight=w_train,
            group_names=self.group_names,
            task_names=self.task_names,
            names_source="group_names/task_names",
        )
        self._group_roles = [r for r in self._roles if r.startswith("groups")]
        self._task_roles = [r for r in self._roles if r.startswith("tasks")]
        self._n_words = max(1, -(-self.num_tasks // 32))
        self.add_state("n_rows", torch.zeros((), dtype=torch.int64), dist_reduce_fx="sum")
        for t in self._task_roles:
            self.add_state(f"keys_{t}", [], dist_reduce_fx="cat")
        for prefix in self._prefixes():
            batch = () if prefix == "" else (int(self.n_boot or 0),)
            self.add_state(
                prefix + "n", torch.zeros(batch, dtype=torch.float64), dist_reduce_fx="sum"
            )
            for g in self._group_roles:
                self.add_state(
                    f"{prefix}group_totals_{g}",
                    torch.zeros(batch + (self.num_groups,), dtype=torch.float64),
                    dist_reduce_fx="sum",
                )
            for t in self._task_roles:
                self.add_state(f"{prefix}totals_{t}", [], dist_reduce_fx="cat")
            for g, t in self._joint_keys:
                self.add_state(f"{prefix}joint_{g}__{t}", [], dist_reduce_fx="cat")

    def _batch(self, prefix: str) -> list[int]:
        return [] if prefix == "" else [int(self.n_boot or 0)]

    # ------------------------------------------------------------------ update
    def update(
        self,
        *args: Any,
        groups: Any = None,
        tasks: Any = None,
        groups_pred: Any = None,
        tasks_pred: Any = None,
        sample_weight: Any = None,
        row_offset: int | None = None,
        row_index: Any = None,
    ) -> None:
        """Count one batch of evaluation rows (keyword arguments only).

        Parameters
        ----------
        groups, groups_pred : Tensor of shape (n,) or (n, num_groups)
            Class indices or multi-hot 0/1. Roles the metric does not use are
            ignored (A->T uses ``groups``, ``tasks``, ``tasks_pred``; T->A
            ``groups``, ``tasks``, ``groups_pred``; Multi_MALS ``tasks``,
            ``groups_pred``, ``tasks_pred``).
        tasks, tasks_pred : Tensor of shape (n, num_tasks)
            Multi-hot 0/1, or (predictions) scores thresholded at ``threshold``.
        sample_weight : Tensor of shape (n,), optional
            Non-negative row weights.
        row_offset : int, optional
            Global position of the batch's first row in the evaluation set
            (online bootstrap only; by default the rows follow those seen).
        row_index : Tensor of int of shape (n,), optional
            Global position of every row (for example the dataset indices of
            a shuffled or distributed sampler).
        """
        self._positional(args)
        given = {
            "groups": groups,
            "tasks": tasks,
            "groups_pred": groups_pred,
            "tasks_pred": tasks_pred,
        }
        chunk = self._count_batch(
            given, sample_weight=sample_weight, row_offset=row_offset, row_index=row_index
        )
        device = self._tensor("n_rows").device

        def tensor(values: np.ndarray, dtype: torch.dtype) -> torch.Tensor:
            array = np.ascontiguousarray(values).reshape(np.shape(values))  # keeps 0-d as 0-d
            return torch.as_tensor(array, dtype=dtype, device=device)

        self._tensor("n_rows").add_(int(chunk.n_rows))
        for t in self._task_roles:
            words = np.ascontiguousarray(chunk.patterns[t]).view(np.int32)
            self._list(f"keys_{t}").append(tensor(words.reshape(-1, self._n_words), torch.int32))
        for prefix in self._prefixes():
            # the replicates count the same rows: the same patterns, in the same order
            table = chunk if prefix == "" else chunk.replicates
            assert table is not None
            self._tensor(prefix + "n").add_(tensor(np.asarray(table.n), torch.float64))
            for g in self._group_roles:
                self._tensor(f"{prefix}group_totals_{g}").add_(
                    tensor(table.group_totals[g], torch.float64)
                )
            for t in self._task_roles:
                totals = np.asarray(table.pattern_totals[t])  # batch + (P,)
                rows = totals.reshape(-1, totals.shape[-1]).T  # (P, B or 1)
                self._list(f"{prefix}totals_{t}").append(tensor(rows, torch.float64))
            for g, t in self._joint_keys:
                joint = np.asarray(table.joint[(g, t)])  # batch + (|G|, P)
                rows = np.moveaxis(joint, -1, 0).reshape(joint.shape[-1], -1)
                self._list(f"{prefix}joint_{g}__{t}").append(tensor(rows, torch.float64))
        if len(self._list(f"keys_{self._task_roles[0]}")) >= _COMPACT_EVERY:
            self._compact()

    def _list(self, name: str) -> list[torch.Tensor]:
        value = getattr(self, name)
        assert isinstance(value, list)
        return value

    def _cat(self, name: str, width: int) -> np.ndarray:
        """A list state as one (entries, width) array (this process's, or all after a sync)."""
        value = getattr(self, name)
        if isinstance(value, list) and not value:
            return np.zeros((0, width))
        return np.asarray(dim_zero_cat(value).detach().cpu().numpy()).reshape(-1, width)

    def _role_arrays(
        self, t: str
    ) -> tuple[np.ndarray, dict[str, np.ndarray], dict[tuple[str, str], np.ndarray]]:
        """One task role's sorted patterns and, per state prefix, its pattern counts
        (batch + (P,)) and per group role its group x pattern counts (batch + (|G|, P)),
        the counts of equal patterns added."""
        words = np.ascontiguousarray(self._cat(f"keys_{t}", self._n_words).astype(np.int32))
        keys = words.view(np.dtype((np.void, 4 * self._n_words))).ravel()
        patterns, inverse = unique_keys(keys)
        size = len(patterns)

        def merged(name: str, width: int) -> np.ndarray:
            rows = self._cat(name, width)  # one row of `width` values per pattern entry
            return np.stack(
                [np.bincount(inverse, weights=rows[:, j], minlength=size) for j in range(width)],
                axis=1,
            ).reshape(size, width)

        totals, joint = {}, {}
        for prefix in self._prefixes():
            batch = self._batch(prefix)
            width = int(np.prod(batch, dtype=np.int64))
            totals[prefix] = np.moveaxis(merged(f"{prefix}totals_{t}", width), 0, -1).reshape(
                *batch, size
            )
            for g, role in self._joint_keys:
                if role == t:
                    rows = merged(f"{prefix}joint_{g}__{t}", self.num_groups * width)
                    joint[(prefix, g)] = np.moveaxis(
                        rows.reshape(size, *batch, self.num_groups), 0, -1
                    )
        return patterns, totals, joint

    def _compact(self) -> None:
        """Merge this process's list states into one entry per role (same counts)."""
        device = self._tensor("n_rows").device

        def state(values: np.ndarray) -> list[torch.Tensor]:
            return [torch.as_tensor(np.ascontiguousarray(values), device=device)]

        for t in self._task_roles:
            patterns, totals, joint = self._role_arrays(t)
            size = len(patterns)
            words = np.ascontiguousarray(patterns).view(np.int32).reshape(size, self._n_words)
            setattr(self, f"keys_{t}", state(words))
            for prefix, values in totals.items():
                setattr(self, f"{prefix}totals_{t}", state(values.reshape(-1, size).T))
            for (prefix, g), values in joint.items():
                rows = np.moveaxis(values, -1, 0).reshape(size, -1)
                setattr(self, f"{prefix}joint_{g}__{t}", state(rows))

    # ----------------------------------------------------------------- compute
    def evaluation_table(self) -> PatternCountTable:
        """The counts of the evaluation rows seen so far (this process, or all processes
        inside ``compute``) as a :class:`~biasamp.PatternCountTable` with the metric's
        label names (and, with ``n_boot``, its replicates); save it with
        :func:`biasamp.save_counts` and merge with ``+``."""
        patterns: dict[str, np.ndarray] = {}
        pattern_totals: dict[str, dict[str, np.ndarray]] = {p: {} for p in self._prefixes()}
        joint: dict[str, dict[tuple[str, str], np.ndarray]] = {p: {} for p in self._prefixes()}
        for t in self._task_roles:
            patterns[t], totals, per_group = self._role_arrays(t)
            for prefix, values in totals.items():
                pattern_totals[prefix][t] = values
            for (prefix, g), values in per_group.items():
                joint[prefix][(g, t)] = values

        def numpy(name: str) -> np.ndarray:
            return np.asarray(self._tensor(name).detach().cpu().numpy(), dtype=np.float64)

        def table(prefix: str) -> PatternCountTable:
            return PatternCountTable(
                group_names=self.group_names,
                task_names=self.task_names,
                n=numpy(prefix + "n"),
                patterns=dict(patterns),
                group_totals={g: numpy(f"{prefix}group_totals_{g}") for g in self._group_roles},
                pattern_totals=pattern_totals[prefix],
                joint=joint[prefix],
                n_rows=int(self._tensor("n_rows").item()),
            )

        result = table("")
        if self.n_boot is not None:
            result.bootstrap = self._template.bootstrap
            result.replicates = table("rep_")
            result.next_row = self._next_row
        return result

    def _result(self) -> MultiAttributeResult:
        if int(self._tensor("n_rows").item()) == 0:
            raise ValueError(ERR_NO_ROWS.format(metric=type(self).__name__))
        evaluation = self.evaluation_table()
        if self._key == "multi_mals":
            return multi_mals_from_counts(self._train, evaluation, **self._options)
        return multi_directional_from_counts(
            self._train, evaluation, direction=self._key, **self._options
        )

    def compute_result(self) -> MultiAttributeResult:
        """The full biasamp result over every row seen: ``value``, ``by_combination``,
        ``by_size``, ``top()``, and with ``n_boot`` the interval (``ci``, ``se``,
        ``replicates``). Under ``torch.distributed`` the states are synchronised first,
        like ``compute()``, so every process must call it."""
        result: MultiAttributeResult = super().compute_result()
        return result
