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
Every ``_COMPACT_EVERY`` batches the lists are merged in place, so memory follows
the distinct patterns seen, not the batches.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import torch
from torchmetrics import Metric
from torchmetrics.utilities import dim_zero_cat

from biasamp.counts._combinations import unique_keys
from biasamp.counts._count_table import JOINT_KEYS
from biasamp.counts._pattern_counts import PatternCountTable
from biasamp.metrics._combination_space import _DEFAULT_MAX_COMBINATIONS
from biasamp.metrics._directional import normalize_direction
from biasamp.metrics._multi_attribute import (
    multi_directional_from_counts,
    multi_mals_from_counts,
)
from biasamp.metrics._splits import select_training_rows
from biasamp.results._multi_attribute import MultiAttributeResult
from biasamp.torchmetrics._metrics import (
    ERR_NEEDS_INPUT,
    _as_numpy,
    _check_num,
    _names,
    training_labels,
)
from biasamp.torchmetrics._tensors import check_threshold, to_numpy_labels

__all__ = ["MultiAttributeBiasAmplification"]

ERR_METRIC = "metric: expected 'A->T', 'T->A' or 'multi_mals', got {got!r}."
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
    if metric == "multi_mals":
        return "multi_mals"
    try:
        return normalize_direction(metric)
    except (ValueError, TypeError):
        raise ValueError(ERR_METRIC.format(got=metric)) from None


class MultiAttributeBiasAmplification(Metric):
    """Multi-> (either direction) or Multi_MALS (Zhao et al. 2023) as a torchmetrics metric.

    The training split is given at construction; ``update`` counts batches of
    the evaluation split; ``compute`` builds the combination set M from both
    and returns the value. The result equals :func:`biasamp.multi_directional` /
    :func:`biasamp.multi_mals` on the same rows (tested, also across
    ``torch.distributed`` processes).

    Parameters
    ----------
    metric : {"A->T", "T->A", "multi_mals"}
        Multi-> in that direction (``"G->M"`` / ``"M->G"`` are accepted too), or
        Multi_MALS.
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
    **kwargs
        Passed to ``torchmetrics.Metric`` (``compute_on_cpu``, ``sync_on_compute``,
        ``process_group``, ...).

    Notes
    -----
    Every process must call ``update`` at least once before ``compute`` under
    ``torch.distributed`` (the list states are gathered). There is no online
    bootstrap here; for an interval stream a :class:`biasamp.PatternCountTable`
    with ``n_boot`` instead (``docs/training_loop.md``).

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

    is_differentiable = False
    higher_is_better: bool | None = None
    full_state_update = False

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
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.metric = _metric_key(metric)
        self.num_groups = _check_num(num_groups, "num_groups")
        self.num_tasks = _check_num(num_tasks, "num_tasks")
        self.group_names = _names(group_names, self.num_groups, "group_names", "num_groups")
        self.task_names = _names(task_names, self.num_tasks, "task_names", "num_tasks")
        self.threshold = check_threshold(threshold, False)
        self._options: dict[str, Any] = dict(
            combinations=combinations,
            min_size=min_size,
            max_size=max_size,
            min_count=min_count,
            max_combinations=max_combinations,
            absolute=absolute,
        )
        if self.metric != "multi_mals":
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
        self._roles = _ROLES[self.metric]
        self._group_roles = [r for r in self._roles if r.startswith("groups")]
        self._task_roles = [r for r in self._roles if r.startswith("tasks")]
        self._joint_keys = [(g, t) for g, t in JOINT_KEYS if g in self._roles and t in self._roles]
        self._n_words = max(1, -(-self.num_tasks // 32))
        self._batches = 0
        self.add_state("n", torch.zeros((), dtype=torch.float64), dist_reduce_fx="sum")
        self.add_state("n_rows", torch.zeros((), dtype=torch.int64), dist_reduce_fx="sum")
        for g in self._group_roles:
            self.add_state(
                f"group_totals_{g}",
                torch.zeros(self.num_groups, dtype=torch.float64),
                dist_reduce_fx="sum",
            )
        for t in self._task_roles:
            self.add_state(f"keys_{t}", [], dist_reduce_fx="cat")
            self.add_state(f"totals_{t}", [], dist_reduce_fx="cat")
        for g, t in self._joint_keys:
            self.add_state(f"joint_{g}__{t}", [], dist_reduce_fx="cat")

    # ------------------------------------------------------------------ update
    def update(
        self,
        *,
        groups: Any = None,
        tasks: Any = None,
        groups_pred: Any = None,
        tasks_pred: Any = None,
        sample_weight: Any = None,
    ) -> None:
        """Count one batch of evaluation rows.

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
        """
        given = {
            "groups": groups,
            "tasks": tasks,
            "groups_pred": groups_pred,
            "tasks_pred": tasks_pred,
        }
        arrays: dict[str, Any] = {}
        for role in self._roles:
            if given[role] is None:
                raise ValueError(ERR_NEEDS_INPUT.format(metric=type(self).__name__, role=role))
            arrays[role] = to_numpy_labels(
                given[role],
                arg=role,
                k=self.num_groups if role.startswith("groups") else self.num_tasks,
                prediction=role.endswith("_pred"),
                threshold=self.threshold,
            )
        chunk = PatternCountTable.from_arrays(
            **arrays,
            sample_weight=None if sample_weight is None else _as_numpy(sample_weight),
            group_names=range(self.num_groups),
            task_names=range(self.num_tasks),
        )
        device = self._tensor("n").device

        def tensor(values: np.ndarray, dtype: torch.dtype) -> torch.Tensor:
            return torch.as_tensor(np.ascontiguousarray(values), dtype=dtype, device=device)

        self._tensor("n").add_(float(chunk.n))
        self._tensor("n_rows").add_(int(chunk.n_rows))
        for g in self._group_roles:
            self._tensor(f"group_totals_{g}").add_(tensor(chunk.group_totals[g], torch.float64))
        for t in self._task_roles:
            words = np.ascontiguousarray(chunk.patterns[t]).view(np.int32)
            self._list(f"keys_{t}").append(tensor(words.reshape(-1, self._n_words), torch.int32))
            self._list(f"totals_{t}").append(tensor(chunk.pattern_totals[t], torch.float64))
        for g, t in self._joint_keys:
            self._list(f"joint_{g}__{t}").append(tensor(chunk.joint[(g, t)].T, torch.float64))
        self._batches += 1
        if self._batches % _COMPACT_EVERY == 0:
            self._compact()

    def _tensor(self, name: str) -> torch.Tensor:
        value = getattr(self, name)
        assert isinstance(value, torch.Tensor)
        return value

    def _list(self, name: str) -> list[torch.Tensor]:
        value = getattr(self, name)
        assert isinstance(value, list)
        return value

    def _role_arrays(self, t: str) -> tuple[np.ndarray, np.ndarray, dict[str, np.ndarray]]:
        """One task role's (patterns, counts, group x pattern counts), equal patterns added."""

        def cat(name: str, width: int | None, dtype: type) -> np.ndarray:
            value = getattr(self, name)
            if isinstance(value, list) and not value:
                shape = (0,) if width is None else (0, width)
                return np.zeros(shape, dtype=dtype)
            return np.asarray(dim_zero_cat(value).detach().cpu().numpy(), dtype=dtype)

        words = np.ascontiguousarray(cat(f"keys_{t}", self._n_words, np.int32))
        keys = words.view(np.dtype((np.void, 4 * self._n_words))).ravel()
        patterns, inverse = unique_keys(keys)
        size = len(patterns)
        totals = np.bincount(inverse, weights=cat(f"totals_{t}", None, np.float64), minlength=size)
        joint = {}
        for g, role in self._joint_keys:
            if role != t:
                continue
            rows = cat(f"joint_{g}__{t}", self.num_groups, np.float64)
            joint[g] = np.stack(
                [
                    np.bincount(inverse, weights=rows[:, j], minlength=size)
                    for j in range(rows.shape[1])
                ]
            )
        return patterns, totals, joint

    def _compact(self) -> None:
        """Merge this process's list states into one entry per role (same counts)."""
        device = self._tensor("n").device
        for t in self._task_roles:
            patterns, totals, joint = self._role_arrays(t)
            words = np.ascontiguousarray(patterns).view(np.int32).reshape(-1, self._n_words)
            setattr(self, f"keys_{t}", [torch.as_tensor(words, device=device)])
            setattr(self, f"totals_{t}", [torch.as_tensor(totals, device=device)])
            for g, values in joint.items():
                setattr(
                    self,
                    f"joint_{g}__{t}",
                    [torch.as_tensor(np.ascontiguousarray(values.T), device=device)],
                )

    # ----------------------------------------------------------------- compute
    def evaluation_table(self) -> PatternCountTable:
        """The counts of the evaluation rows seen so far (this process, or all processes
        inside ``compute``) as a :class:`~biasamp.PatternCountTable` with the metric's
        label names; save it with :func:`biasamp.save_counts` and merge with ``+``."""
        patterns, pattern_totals, joint = {}, {}, {}
        for t in self._task_roles:
            patterns[t], pattern_totals[t], per_group = self._role_arrays(t)
            for g, values in per_group.items():
                joint[(g, t)] = values
        return PatternCountTable(
            group_names=self.group_names,
            task_names=self.task_names,
            n=np.asarray(float(self._tensor("n").item())),
            patterns=patterns,
            group_totals={
                g: np.asarray(self._tensor(f"group_totals_{g}").detach().cpu().numpy())
                for g in self._group_roles
            },
            pattern_totals=pattern_totals,
            joint=joint,
            n_rows=int(self._tensor("n_rows").item()),
        )

    def _result(self) -> MultiAttributeResult:
        if int(self._tensor("n_rows").item()) == 0:
            raise ValueError(ERR_NO_ROWS.format(metric=type(self).__name__))
        evaluation = self.evaluation_table()
        if self.metric == "multi_mals":
            return multi_mals_from_counts(self._train, evaluation, **self._options)
        return multi_directional_from_counts(
            self._train, evaluation, direction=self.metric, **self._options
        )

    def compute(self) -> torch.Tensor:
        """The metric value over every row seen (all processes) as a 0-d float64 tensor."""
        device = self._tensor("n").device
        return torch.tensor(self._result().value, dtype=torch.float64, device=device)

    def compute_result(self) -> MultiAttributeResult:
        """The full biasamp result over every row seen: ``value``, ``by_combination``,
        ``by_size``, ``top()``. Under ``torch.distributed`` the states are synchronised
        first, like ``compute()``, so every process must call it."""
        with self.sync_context(
            dist_sync_fn=self.dist_sync_fn,
            should_sync=self._to_sync,
            should_unsync=self._should_unsync,
        ):
            return self._result()

    def reset(self) -> None:
        """Forget every evaluation row seen (the training table stays)."""
        super().reset()
        self._batches = 0
