"""torchmetrics classes for BiasAmp-> and BiasAmp_MALS.

Each metric's state is the arrays of a :class:`biasamp.CountTable` (``n``,
per-role ``totals_*``, group x task ``joint_*``; with ``n_boot`` the same
arrays of the B online-bootstrap replicates, prefixed ``rep_``), registered
with ``add_state(..., dist_reduce_fx="sum")`` in float64 (``n_rows`` in
int64). Counts of 0/1 labels are integers, so sums across batches and
processes are exact and ``compute()`` equals the one-shot
:func:`biasamp.directional` / :func:`biasamp.mals` value on the same rows.

``update`` counts a batch on the CPU with the same code as the functional API
(tensors on any device are copied to the CPU), then adds the counts to the
states on the metric's device. Replicate weights are Poisson(1) draws keyed by
each row's global position in the evaluation stream (see
:meth:`biasamp.CountTable.empty`): positions follow the rows this metric has
seen, or come from ``row_offset=`` / ``row_index=`` (required under
``torch.distributed`` with ``n_boot``, so each process's rows get their own
weights).

The multi-attribute metrics (whose state is a pattern table of variable
length) are in :mod:`biasamp.torchmetrics._multi_attribute`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
import torch
from torchmetrics import Metric

from biasamp._memory import check_allocation
from biasamp.counts._count_table import JOINT_KEYS, CountTable, RowRecord
from biasamp.counts._poisson import seed_entropy
from biasamp.counts._swaps import SwapReplicates, check_n_perm, swapped_roles
from biasamp.inputs._group_sizes import (
    DEFAULT_MIN_CELL,
    DEFAULT_MIN_GROUP_SIZE,
    check_min_cell,
    check_min_group_size,
)
from biasamp.metrics._directional import (
    _check_rules,
    directional_arrays,
    directional_from_counts,
    normalize_direction,
)
from biasamp.metrics._mals import ERR_MALS_TRAIN, ERR_MARGIN, mals_from_counts
from biasamp.metrics._splits import count_training_split
from biasamp.results._base import PairwiseResult
from biasamp.results._intervals import check_ci
from biasamp.results._significance import with_significance
from biasamp.torchmetrics._tensors import check_threshold, names_to_indices, to_numpy_labels

__all__ = ["DirectionalBiasAmplification", "MALSBiasAmplification"]

ERR_NUM = "{arg}: expected a positive integer, got {got!r}."
ERR_NAMES_LENGTH = "{arg}: expected {k} distinct names ({count_arg}={k}), got {got!r}."
ERR_NEEDS_INPUT = "{metric}.update needs {role}."
ERR_SOFT = "soft: expected True or False, got {got!r}."
ERR_SWAP_SOFT = (
    "n_perm: the swap test exchanges each row's label and prediction, so it needs hard "
    "predictions (class indices, multi-hot, or scores with threshold=), not soft=True."
)
ERR_DISTRIBUTED_POSITIONS = (
    "{metric}: with n_boot under torch.distributed, pass each row's global position in the "
    "evaluation set: row_index= (for example the dataset indices of the batch) or row_offset= "
    "(the position of the batch's first row). Otherwise rows of different processes would "
    "share bootstrap weights."
)

ERR_POSITIONAL = (
    "{metric}.update takes keyword arguments only, for example "
    "update({example}); got {count} positional argument(s)."
)
ERR_NO_ROWS_COUNTED = (
    "{metric}.compute: no rows were counted (on any process); call update(...) with a batch "
    "before compute()."
)
ERR_MERGE_SETTINGS = (
    "{metric}.merge_state: the metrics differ in {what} ({a!r} here, {b!r} incoming); only "
    "metrics with the same {what} can be merged."
)
ERR_MERGE_LABELS = (
    "{metric}.merge_state: the {kind} names differ ({a!r} here, {b!r} incoming){why}; merge "
    "metrics over the same labels."
)
ERR_MERGE_SHAPE = (
    "{metric}.merge_state: the incoming state {name!r} has shape {got}, expected {expected}."
)
ERR_SYNC_SETTINGS = (
    "{metric}: the processes differ in {what} ({values}); give every process the same {what}."
)
ERR_SYNC_ROWS = (
    "{metric}: rank {first} and rank {second} both counted stream positions {rows}; every "
    "row is counted by one process. Give each process its own rows (row_offset= / "
    "row_index= of its shard, for example the indices a DistributedSampler hands it)."
)
ERR_SYNC_LABELS = (
    "{metric}: the processes' {kind} names differ ({values}){why}; give every process the "
    "same label names."
)
#: Why label names that differ could not be matched (appended to the messages above).
WHY_NOT_PERMUTATION = " and are not the same names in another order"
WHY_NOT_REORDERED = " (this metric's list states cannot be reordered by name)"


def _check_num(value: Any, arg: str) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(ERR_NUM.format(arg=arg, got=value))
    return int(value)


def _names(names: Sequence[Any] | None, k: int, arg: str, count_arg: str) -> tuple[Any, ...]:
    if names is None:
        return tuple(range(k))
    if isinstance(names, (str, bytes)):
        raise ValueError(ERR_NAMES_LENGTH.format(arg=arg, k=k, count_arg=count_arg, got=names))
    values = tuple(v.item() if isinstance(v, np.generic) else v for v in names)
    if len(values) != k or len(set(values)) != k:
        raise ValueError(ERR_NAMES_LENGTH.format(arg=arg, k=k, count_arg=count_arg, got=names))
    return values


def _world_size() -> int:
    if torch.distributed.is_available() and torch.distributed.is_initialized():
        return int(torch.distributed.get_world_size())
    return 1


def _as_numpy(x: Any) -> Any:
    detach = getattr(x, "detach", None)
    return np.asarray(detach().cpu().numpy()) if detach is not None else x


def training_labels(values: Any, names: tuple[Any, ...]) -> Any:
    """Training labels given as class indices (tensor or integer array) become names;
    other forms pass as they are."""
    if values is None:
        return None
    array = _as_numpy(values)
    if np.ndim(array) == 1 and np.asarray(array).dtype.kind in "iu":
        index = np.asarray(array, dtype=np.int64)
        if index.size and (index.min() < 0 or index.max() >= len(names)):
            return array  # the adapter layer names the bad labels
        return np.asarray(names, dtype=object)[index]
    return array


class _StreamingMetric(Metric):
    """What every biasamp torchmetrics class shares: the label names, a per-batch
    counter (a declared-empty count table of any kind, with the online bootstrap), the
    roles a batch must carry, the rows' global positions, and the torchmetrics
    ``compute`` / ``compute_result`` / ``forward`` / ``reset`` contract. Subclasses
    register their states, call :meth:`_count_batch` in ``update`` and define
    ``_result``."""

    is_differentiable = False
    higher_is_better: bool | None = None
    full_state_update = False

    def _set_counter(
        self,
        *,
        table_type: Any,
        roles: tuple[str, ...],
        num_groups: int,
        num_tasks: int,
        group_names: Sequence[Any] | None,
        task_names: Sequence[Any] | None,
        soft: bool,
        threshold: Any,
        n_boot: int | None,
        ci: float,
        random_state: Any,
    ) -> None:
        """Validate the shared options and make the per-batch counter."""
        self.num_groups = _check_num(num_groups, "num_groups")
        self.num_tasks = _check_num(num_tasks, "num_tasks")
        replicas = n_boot if isinstance(n_boot, (int, np.integer)) and n_boot > 0 else 0
        check_allocation(  # the count states: four group x task matrices at most
            8.0 * 4 * self.num_groups * self.num_tasks * (1 + int(replicas)),
            what=f"num_groups={self.num_groups} x num_tasks={self.num_tasks} count states"
            + (f" with n_boot={n_boot}" if n_boot else ""),
            advice="use fewer groups or tasks (or fewer replicates).",
        )
        self.group_names = _names(group_names, self.num_groups, "group_names", "num_groups")
        self.task_names = _names(task_names, self.num_tasks, "task_names", "num_tasks")
        # names given at construction: update() maps label names in a batch to indices
        self._group_names_given = None if group_names is None else self.group_names
        self._task_names_given = None if task_names is None else self.task_names
        if not isinstance(soft, (bool, np.bool_)):
            raise ValueError(ERR_SOFT.format(got=soft))
        self.soft = bool(soft)
        self.threshold = check_threshold(threshold, self.soft)
        self.ci = float(check_ci(ci))
        self._roles = roles
        self._joint_keys = [(g, t) for g, t in JOINT_KEYS if g in roles and t in roles]
        entropy = None if n_boot is None else seed_entropy(random_state)
        # the per-batch counter: label names 0..k-1 (tensors carry class indices)
        self._template = table_type.empty(
            group_names=range(self.num_groups),
            task_names=range(self.num_tasks),
            n_boot=n_boot,
            random_state=entropy,
        )
        self.n_boot = self._template.n_boot
        self._entropy = entropy
        self._next_row = 0
        # this process's stream positions, once they matter (see RowRecord)
        self._rows: RowRecord | None = None
        self._in_forward = False

    def _prefixes(self) -> list[str]:
        """The state prefixes: ``""`` for the counts, ``"rep_"`` for their replicates."""
        return [""] if self.n_boot is None else ["", "rep_"]

    def _count_batch(
        self,
        given: dict[str, Any],
        *,
        sample_weight: Any,
        row_offset: int | None,
        row_index: Any,
    ) -> Any:
        """The count table of one batch (with its replicates), from the metric's roles."""
        arrays = self._label_arrays(given)
        index = None if row_index is None else np.asarray(_as_numpy(row_index))
        if self.n_boot is not None and row_offset is None and index is None:
            if _world_size() > 1:
                raise ValueError(ERR_DISTRIBUTED_POSITIONS.format(metric=type(self).__name__))
            row_offset = self._next_row
        if self.soft:
            arrays["soft"] = True
        chunk = self._template.update(
            **arrays,
            sample_weight=None if sample_weight is None else _as_numpy(sample_weight),
            row_offset=row_offset,
            row_index=index,
        )
        if index is not None or row_offset is not None or self._rows is not None:
            # each position once, across this process's batches (and, at sync, processes)
            if self._rows is None:  # the batches before had the positions 0 .. next_row - 1
                self._rows = RowRecord.prefix(self._next_row)
            if index is not None:
                self._rows.add(index.astype(np.int64, copy=False), arg="row_index")
            else:
                start = self._next_row if row_offset is None else int(row_offset)
                self._rows.add_range(start, start + chunk.n_rows, arg="row_offset")
        self._next_row = max(self._next_row, int(chunk.next_row))
        return chunk

    def _label_arrays(self, given: dict[str, Any]) -> dict[str, Any]:
        """The metric's roles of one batch as label arrays on the positions 0 .. k - 1."""
        arrays: dict[str, Any] = {}
        for role in self._roles:
            if given[role] is None:
                raise ValueError(ERR_NEEDS_INPUT.format(metric=type(self).__name__, role=role))
            kind = "group" if role.startswith("groups") else "task"
            labels = names_to_indices(
                given[role],
                arg=role,
                names=getattr(self, f"_{kind}_names_given"),
                kind=kind,
            )
            arrays[role] = to_numpy_labels(
                labels,
                arg=role,
                k=self.num_groups if kind == "group" else self.num_tasks,
                prediction=role.endswith("_pred"),
                threshold=self.threshold,
                soft=self.soft,
            )
        return arrays

    # -------------------------------------------------- merging and syncing by name
    #: Whether the states can be reordered to another order of the label names.
    _reorderable = False

    def _positional(self, args: tuple[Any, ...]) -> None:
        if args:
            example = ", ".join(f"{role}=..." for role in self._roles)
            raise TypeError(
                ERR_POSITIONAL.format(metric=type(self).__name__, example=example, count=len(args))
            )

    def _settings(self) -> dict[str, Any]:
        """What two metrics (or processes) must share to add their states."""
        return {
            "class": type(self).__name__,
            "roles": tuple(self._roles),
            "num_groups": self.num_groups,
            "num_tasks": self.num_tasks,
            "n_boot": self.n_boot,
            "random_state": self._entropy,
        }

    def _label_names(self) -> dict[str, tuple[Any, ...]]:
        return {"group": tuple(self.group_names), "task": tuple(self.task_names)}

    def _reorder(
        self,
        states: dict[str, Any],
        source: dict[str, tuple[Any, ...]],
        target: dict[str, tuple[Any, ...]],
    ) -> dict[str, Any]:  # pragma: no cover - overridden where _reorderable
        raise NotImplementedError

    def _matching(self, theirs: dict[str, tuple[Any, ...]]) -> tuple[str, str] | None:
        """``None`` when ``theirs`` are this metric's names, or in another order it can
        reorder; else ``(kind, why)`` of the first kind of names that cannot be matched."""
        for kind, names in self._label_names().items():
            if theirs[kind] == names:
                continue
            if sorted(map(repr, theirs[kind])) != sorted(map(repr, names)) or len(
                set(theirs[kind])
            ) != len(names):
                return kind, WHY_NOT_PERMUTATION
            if not self._reorderable:
                return kind, WHY_NOT_REORDERED
        return None

    def merge_state(self, incoming_state: Any) -> None:
        """Add another metric's states (or a dict of states) to this one's.

        A metric must have the same class, roles, ``num_groups``, ``num_tasks``,
        ``n_boot`` and ``random_state``; its label names may come in another order
        (the counts are matched by name), but must be the same names. A dict of
        states must have this metric's state names and shapes (in this metric's
        label order).
        """
        metric = type(self).__name__
        if isinstance(incoming_state, _StreamingMetric):
            mine, theirs = self._settings(), incoming_state._settings()
            for what in mine:
                if mine[what] != theirs[what]:
                    raise ValueError(
                        ERR_MERGE_SETTINGS.format(
                            metric=metric, what=what, a=mine[what], b=theirs[what]
                        )
                    )
            names = incoming_state._label_names()
            problem = self._matching(names)
            if problem is not None:
                kind, why = problem
                raise ValueError(
                    ERR_MERGE_LABELS.format(
                        metric=metric,
                        kind=kind,
                        a=list(self._label_names()[kind]),
                        b=list(names[kind]),
                        why=why,
                    )
                )
            if self._rows is not None and incoming_state._rows is not None:
                self._rows = self._rows.union(incoming_state._rows)  # refuses shared rows
            state = dict(incoming_state.metric_state)
            if names != self._label_names():
                state = self._reorder(state, names, self._label_names())
            super().merge_state(state)
            return
        if isinstance(incoming_state, dict):
            for name, value in incoming_state.items():
                own = self._defaults.get(name)
                if isinstance(own, torch.Tensor) and isinstance(value, torch.Tensor):
                    if tuple(value.shape) != tuple(own.shape):
                        raise ValueError(
                            ERR_MERGE_SHAPE.format(
                                metric=metric,
                                name=name,
                                got=tuple(value.shape),
                                expected=tuple(own.shape),
                            )
                        )
        super().merge_state(incoming_state)

    def _sync_dist(self, dist_sync_fn: Any = None, process_group: Any = None) -> None:
        """Check that every process has the same settings and label names (reordering
        this process's states to the first process's label order when they come in another
        order), then sum the states as torchmetrics does."""
        kwargs: dict[str, Any] = {"process_group": process_group}
        if dist_sync_fn is not None:
            kwargs["dist_sync_fn"] = dist_sync_fn
        if not (torch.distributed.is_available() and torch.distributed.is_initialized()):
            super()._sync_dist(**kwargs)
            return
        group = process_group or self.process_group
        mine = (self._settings(), self._label_names(), self._rows)
        gathered: list[Any] = [None] * torch.distributed.get_world_size(group)
        torch.distributed.all_gather_object(gathered, mine, group=group)
        metric = type(self).__name__
        for what in mine[0]:  # every process sees the same list, so all raise together
            values = [settings[what] for settings, _, _ in gathered]
            if any(v != values[0] for v in values):
                shown = ", ".join(f"rank {r}: {v!r}" for r, v in enumerate(values))
                raise ValueError(ERR_SYNC_SETTINGS.format(metric=metric, what=what, values=shown))
        shared = RowRecord.shared([rows for _, _, rows in gathered])
        if shared is not None:  # stated positions counted by two processes
            first, second, rows = shared
            raise ValueError(
                ERR_SYNC_ROWS.format(metric=metric, first=first, second=second, rows=rows)
            )
        reference = gathered[0][1]
        for _, names, _ in gathered:  # each process compares every process's names with its own
            problem = self._matching(names)
            if problem is not None:
                kind, why = problem
                shown = ", ".join(
                    f"rank {r}: {list(n[kind])!r}" for r, (_, n, _) in enumerate(gathered)
                )
                raise ValueError(
                    ERR_SYNC_LABELS.format(metric=metric, kind=kind, values=shown, why=why)
                )
        own = self._label_names()
        if own == reference:
            super()._sync_dist(**kwargs)
            return
        states = {name: getattr(self, name) for name in self._defaults}
        for name, value in self._reorder(states, own, reference).items():
            setattr(self, name, value)
        super()._sync_dist(**kwargs)  # the sums, in the first process's label order
        states = {name: getattr(self, name) for name in self._defaults}
        for name, value in self._reorder(states, reference, own).items():
            setattr(self, name, value)

    def _tensor(self, name: str) -> torch.Tensor:
        """The state tensor ``name``."""
        value = getattr(self, name)
        assert isinstance(value, torch.Tensor)
        return value

    def _result(self) -> Any:  # pragma: no cover - overridden
        raise NotImplementedError

    def compute(self) -> torch.Tensor:
        """The metric value over every row seen (all processes) as a 0-d float64 tensor."""
        device = self._tensor("n_rows").device
        return torch.tensor(self._result().value, dtype=torch.float64, device=device)

    def compute_result(self) -> Any:
        """The full biasamp result over every row seen, with ``n_boot`` its interval.

        Under ``torch.distributed`` the states are synchronised first, like
        ``compute()``, so every process must call it.
        """
        with self.sync_context(
            dist_sync_fn=self.dist_sync_fn,
            should_sync=self._to_sync,
            should_unsync=self._should_unsync,
        ):
            return self._result()

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        """Update with a batch and return the metric on that batch alone (torchmetrics rule)."""
        self._in_forward = True
        try:
            return super().forward(*args, **kwargs)
        finally:
            self._in_forward = False

    def reset(self) -> None:
        """Forget every row seen (and restart the bootstrap's row positions at 0)."""
        super().reset()
        if not getattr(self, "_in_forward", False):  # forward resets to count one batch
            self._next_row = 0
            self._rows = None


class _CountTableMetric(_StreamingMetric):
    """A torchmetrics ``Metric`` whose state is a :class:`~biasamp.CountTable`."""

    _metric_name = "count table metric"
    _reorderable = True

    def _reorder(
        self,
        states: dict[str, Any],
        source: dict[str, tuple[Any, ...]],
        target: dict[str, tuple[Any, ...]],
    ) -> dict[str, Any]:
        """``states`` whose label axes follow ``source`` names, reordered to ``target``."""
        order = {
            kind: torch.as_tensor([source[kind].index(n) for n in target[kind]], dtype=torch.long)
            for kind in ("group", "task")
        }
        out = {}
        for name, value in states.items():
            base = name.removeprefix("rep_").removeprefix("swp_")
            if base.startswith("totals_groups"):
                value = value.index_select(-1, order["group"].to(value.device))
            elif base.startswith("totals_tasks"):
                value = value.index_select(-1, order["task"].to(value.device))
            elif base.startswith("joint_"):
                value = value.index_select(-2, order["group"].to(value.device))
                value = value.index_select(-1, order["task"].to(value.device))
            out[name] = value
        return out

    def __init__(
        self,
        *,
        roles: tuple[str, ...],
        num_groups: int,
        num_tasks: int,
        group_names: Sequence[Any] | None,
        task_names: Sequence[Any] | None,
        groups_train: Any,
        tasks_train: Any,
        counts_train: CountTable | pd.DataFrame | None,
        sample_weight_train: Any,
        soft: bool,
        threshold: Any,
        n_boot: int | None,
        ci: float,
        random_state: Any,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self._set_counter(
            table_type=CountTable,
            roles=roles,
            num_groups=num_groups,
            num_tasks=num_tasks,
            group_names=group_names,
            task_names=task_names,
            soft=soft,
            threshold=threshold,
            n_boot=n_boot,
            ci=ci,
            random_state=random_state,
        )
        self._train = self._training_table(
            groups_train, tasks_train, counts_train, sample_weight_train
        )
        for prefix in self._prefixes():
            self._add_count_states(prefix, () if prefix == "" else (int(self.n_boot),))
        self.add_state("n_rows", torch.zeros((), dtype=torch.int64), dist_reduce_fx="sum")

    def _add_count_states(self, prefix: str, batch: tuple[int, ...]) -> None:
        """The summed states of one count table (``n``, a total per role, a joint per
        pair of roles), named with ``prefix`` and a leading ``batch`` shape (replicates)."""
        self.add_state(prefix + "n", torch.zeros(batch, dtype=torch.float64), dist_reduce_fx="sum")
        for role in self._roles:
            k = self.num_groups if role.startswith("groups") else self.num_tasks
            self.add_state(
                f"{prefix}totals_{role}",
                torch.zeros(batch + (k,), dtype=torch.float64),
                dist_reduce_fx="sum",
            )
        for g, t in self._joint_keys:
            self.add_state(
                f"{prefix}joint_{g}__{t}",
                torch.zeros(batch + (self.num_groups, self.num_tasks), dtype=torch.float64),
                dist_reduce_fx="sum",
            )

    # ------------------------------------------------------------ training side
    def _training_table(
        self, groups_train: Any, tasks_train: Any, counts_train: Any, sample_weight_train: Any
    ) -> CountTable | None:
        table = count_training_split(
            groups_train=training_labels(groups_train, self.group_names),
            tasks_train=training_labels(tasks_train, self.task_names),
            counts_train=counts_train,
            sample_weight_train=_as_numpy(sample_weight_train),
            group_names=self.group_names,
            task_names=self.task_names,
        )
        return table

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
        """Count one batch of rows (keyword arguments only).

        Parameters
        ----------
        groups, groups_pred : Tensor of shape (n,) or (n, num_groups)
            Class indices, multi-hot 0/1, or (predictions) scores with
            ``threshold`` / probabilities with ``soft``; with ``group_names``
            also a 1-D list or array of those names. Roles the metric does
            not use are ignored (so one ``MetricCollection`` call can feed
            several metrics).
        tasks, tasks_pred : Tensor of shape (n,) or (n, num_tasks)
            As for the groups.
        sample_weight : Tensor of shape (n,), optional
            Non-negative row weights.
        row_offset : int, optional
            Global position of the batch's first row in the evaluation set
            (online bootstrap only; by default the rows follow those seen).
        row_index : Tensor of int of shape (n,), optional
            Global position of every row (for example the dataset indices of
            a shuffled or distributed sampler).

        Raises
        ------
        TypeError
            For positional arguments (roles are keywords).
        ValueError
            For a position this metric counted before (an overlapping
            ``row_offset``, a repeated ``row_index``), a label name not in
            ``group_names`` / ``task_names``, or scores without ``threshold=``
            or ``soft=True``.
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
        self._add_counts(chunk, "")
        if chunk.replicates is not None:
            self._add_counts(chunk.replicates, "rep_")
        self._tensor("n_rows").add_(int(chunk.n_rows))

    def _add_counts(self, table: CountTable, prefix: str) -> None:
        device = self._tensor("n_rows").device

        def add(name: str, values: np.ndarray) -> None:
            self._tensor(prefix + name).add_(
                torch.as_tensor(np.asarray(values), dtype=torch.float64, device=device)
            )

        add("n", table.n)
        for role in self._roles:
            add(f"totals_{role}", table.totals[role])
        for g, t in self._joint_keys:
            add(f"joint_{g}__{t}", table.joint[(g, t)])

    # ----------------------------------------------------------------- compute
    def _state_table(self, prefix: str) -> CountTable:
        def get(name: str) -> np.ndarray:
            value = self._tensor(prefix + name)
            return np.asarray(value.detach().cpu().numpy(), dtype=np.float64)

        return CountTable(
            group_names=self.group_names,
            task_names=self.task_names,
            n=get("n"),
            totals={role: get(f"totals_{role}") for role in self._roles},
            joint={(g, t): get(f"joint_{g}__{t}") for g, t in self._joint_keys},
            n_rows=int(self._tensor("n_rows").item()),
        )

    def _check_rows(self) -> None:
        if int(self._tensor("n_rows").item()) == 0:
            raise ValueError(ERR_NO_ROWS_COUNTED.format(metric=type(self).__name__))

    def count_table(self) -> CountTable:
        """The counts of this process's rows so far as a :class:`~biasamp.CountTable`.

        Label names are ``group_names`` / ``task_names``; with ``n_boot`` the
        table carries its replicates, so it can be saved with
        :func:`biasamp.save_counts` and merged with ``+`` outside torch.
        """
        table = self._state_table("")
        if self.n_boot is not None:
            table.bootstrap = self._template.bootstrap
            table.replicates = self._state_table("rep_")
            table.next_row = self._next_row
        return table

    def compute_result(self) -> PairwiseResult:
        """The full biasamp result over every row seen: ``value``, ``by_pair``, ``top()``,
        and with ``n_boot`` the interval (``ci``, ``se``, ``replicates``).

        Under ``torch.distributed`` the states are synchronised first, like
        ``compute()``, so every process must call it.
        """
        result: PairwiseResult = super().compute_result()
        return result

    def plot(self, val: Any = None, ax: Any = None) -> Any:
        """Plot the value (or a sequence of values, for example one per epoch) the
        torchmetrics way; returns ``(figure, axes)``. For the per-pair picture use
        ``compute_result().plot()``."""
        return self._plot(val, ax)


class DirectionalBiasAmplification(_CountTableMetric):
    """Directional bias amplification BiasAmp-> (Wang & Russakovsky 2021) as a torchmetrics metric.

    Parameters
    ----------
    direction : {"A->T", "T->A"}
        ``"A->T"`` needs ``groups``, ``tasks`` and ``tasks_pred`` in
        ``update``; ``"T->A"`` needs ``groups``, ``tasks`` and ``groups_pred``.
    num_groups, num_tasks : int
        Number of groups |A| and tasks |T| (columns of a multi-hot tensor,
        range of class indices).
    groups_train, tasks_train : Tensor or array-like, optional
        Training ground truth (class indices, multi-hot, or label names from
        ``group_names`` / ``task_names``); fixes the signs ``y_at``. Without a
        training side the evaluation ground truth fixes them.
    counts_train : CountTable or DataFrame, optional
        The training side as counts (tasks x groups), instead of labels.
    sample_weight_train : array-like of shape (n_train,), optional
        Weights of the training rows.
    group_names, task_names : sequence, optional
        Names of the columns / class indices, used in ``compute_result()``
        (default ``0 .. num - 1``).
    soft : bool, default False
        Predictions are probabilities, counted as expected counts.
    threshold : float or sequence of float, optional
        Predictions are scores; positive when ``score > threshold`` (one
        threshold, or one per column).
    tie_rule, empty : str
        As in :func:`biasamp.directional`.
    n_boot : int, optional
        Keep B online-bootstrap replicates; ``compute_result()`` then has a
        percentile interval (equal to ``biasamp.directional(..., n_boot=B,
        random_state=...)`` on the same rows in the same order).
    ci : float, default 0.95
        Level of the interval.
    random_state : None or int, optional
        Seed of the replicate weights; give every process the same integer.
    min_group_size : float or None, default 30
        ``compute_result()`` carries ``group_sizes`` (the summed counts of
        every process) and warns (:class:`SmallGroupWarning`) about smaller
        groups, as :func:`biasamp.directional` does; ``None`` checks nothing.
        A group of the training split absent from the updates warns
        (:class:`MissingGroupWarning`) at ``compute``.
    min_cell : float or None, default 5
        Pairs resting on fewer rows are flagged ``fragile`` in
        ``compute_result().by_pair``, as :func:`biasamp.directional` does.
    n_perm : int, default 0
        Keep the counts of ``n_perm`` swapped data sets (each row's label and
        prediction swapped with probability 1/2, by the row's global position);
        ``compute_result()`` then has ``p_value`` and ``null``, equal to
        ``biasamp.directional(..., n_perm=n_perm, random_state=...)`` on the
        same rows (``docs/uncertainty.md``). Hard predictions only.
    **kwargs
        torchmetrics options (``dist_sync_on_step``, ``sync_on_compute``,
        ``compute_on_cpu``, ...).

    Examples
    --------
    >>> import torch
    >>> from biasamp.torchmetrics import DirectionalBiasAmplification
    >>> metric = DirectionalBiasAmplification(direction="A->T", num_groups=2, num_tasks=1)
    >>> groups = torch.tensor([0, 0, 1, 1])                     # class indices
    >>> tasks = torch.tensor([[0], [1], [0], [1]])              # multi-hot
    >>> weights = torch.tensor([60.0, 30.0, 10.0, 20.0])
    >>> metric.update(groups=groups, tasks=tasks, tasks_pred=torch.tensor([[0], [0], [1], [1]]),
    ...               sample_weight=weights)
    >>> metric.compute()
    tensor(0.3333, dtype=torch.float64)
    >>> metric.compute_result().by_pair[["group", "task", "delta"]]
      group task     delta
    0     0    0 -0.333333
    1     1    0  0.333333
    """

    _metric_name = "directional"
    plot_lower_bound = -1.0
    plot_upper_bound = 1.0

    def __init__(
        self,
        direction: str,
        num_groups: int,
        num_tasks: int,
        *,
        groups_train: Any = None,
        tasks_train: Any = None,
        counts_train: CountTable | pd.DataFrame | None = None,
        sample_weight_train: Any = None,
        group_names: Sequence[Any] | None = None,
        task_names: Sequence[Any] | None = None,
        soft: bool = False,
        threshold: float | Sequence[float] | None = None,
        tie_rule: str = "zero",
        empty: str = "exclude",
        n_boot: int | None = None,
        ci: float = 0.95,
        random_state: Any = None,
        min_group_size: float | None = DEFAULT_MIN_GROUP_SIZE,
        min_cell: float | None = DEFAULT_MIN_CELL,
        n_perm: int = 0,
        **kwargs: Any,
    ) -> None:
        direction = normalize_direction(direction)
        _check_rules(tie_rule, empty)
        n_perm = check_n_perm(n_perm)
        if n_perm and soft:
            raise ValueError(ERR_SWAP_SOFT)
        limit = check_min_group_size(min_group_size)
        pred_role = "tasks_pred" if direction == "A->T" else "groups_pred"
        super().__init__(
            roles=("groups", "tasks", pred_role),
            num_groups=num_groups,
            num_tasks=num_tasks,
            group_names=group_names,
            task_names=task_names,
            groups_train=groups_train,
            tasks_train=tasks_train,
            counts_train=counts_train,
            sample_weight_train=sample_weight_train,
            soft=soft,
            threshold=threshold,
            n_boot=n_boot,
            ci=ci,
            random_state=random_state,
            **kwargs,
        )
        self.direction = direction
        self.tie_rule = tie_rule
        self.empty = empty
        self.min_group_size = limit
        self.min_cell = check_min_cell(min_cell)
        self.n_perm = n_perm
        self._swaps: SwapReplicates | None = None
        self._swap_next_row = 0
        if n_perm:
            check_allocation(  # the swapped count states
                8.0 * 4 * self.num_groups * self.num_tasks * n_perm,
                what=f"num_groups={self.num_groups} x num_tasks={self.num_tasks} count states "
                f"with n_perm={n_perm}",
                advice="use fewer permutations (n_perm).",
            )
            self._swaps = SwapReplicates(n_perm, random_state=seed_entropy(random_state))
            self._add_count_states("swp_", (n_perm,))

    def _settings(self) -> dict[str, Any]:
        return {**super()._settings(), "n_perm": self.n_perm}

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
        """Count one batch of rows (see :meth:`_CountTableMetric.update`); with ``n_perm``
        also its swapped tables, each row's swap indicators drawn by its global position
        (``row_index``, ``row_offset``, or the rows in the order seen)."""
        start = self._swap_next_row if row_offset is None else int(row_offset)
        if self._swaps is not None and row_offset is None and row_index is None:
            if _world_size() > 1:
                raise ValueError(ERR_DISTRIBUTED_POSITIONS.format(metric=type(self).__name__))
        super().update(
            *args, groups=groups, tasks=tasks, groups_pred=groups_pred, tasks_pred=tasks_pred,
            sample_weight=sample_weight, row_offset=row_offset, row_index=row_index,
        )  # fmt: skip
        if self._swaps is None:
            return
        given = {"groups": groups, "tasks": tasks, "groups_pred": groups_pred}
        arrays = self._label_arrays({**given, "tasks_pred": tasks_pred})
        n = int(np.shape(next(iter(arrays.values())))[0])
        if row_index is not None:
            weights = self._swaps.at(np.asarray(_as_numpy(row_index))).T
        else:
            weights = self._swaps.weights(start, start + n)
        names: dict[str, Any] = {
            "group_names": range(self.num_groups),
            "task_names": range(self.num_tasks),
        }
        weight = None if sample_weight is None else _as_numpy(sample_weight)
        exchange = swapped_roles(self._roles)
        kept = CountTable.from_arrays(
            **arrays, **names, sample_weight=weight, replicate_weights=1.0 - weights
        )
        moved = CountTable.from_arrays(
            **{exchange[r]: v for r, v in arrays.items()}, **names, sample_weight=weight,
            replicate_weights=weights,
        )  # fmt: skip
        self._add_counts(kept, "swp_")
        self._add_counts(moved, "swp_")
        if row_index is None:  # the next batch's rows follow these
            self._swap_next_row = max(self._swap_next_row, start + n)

    def reset(self) -> None:
        """Forget every row seen (and restart the swap test's row positions at 0)."""
        super().reset()
        if not getattr(self, "_in_forward", False):
            self._swap_next_row = 0

    def _result(self) -> PairwiseResult:
        self._check_rows()
        result = directional_from_counts(
            self.count_table(),
            direction=self.direction,
            train=self._train,
            tie_rule=self.tie_rule,
            empty=self.empty,
            ci=self.ci,
            min_group_size=self.min_group_size,
            min_cell=self.min_cell,
        )
        if not self.n_perm:
            return result
        swapped = self._state_table("swp_")
        values = directional_arrays(
            swapped, direction=self.direction, train=self._train, tie_rule=self.tie_rule
        )["value"]
        tested = with_significance(result, values, method="paired-swap", alternative="greater")
        tested.params = {
            **result.params,
            "significance": {
                "null": "paired-swap",
                "n_perm": self.n_perm,
                "alternative": "greater",
            },
        }
        return tested


class MALSBiasAmplification(_CountTableMetric):
    """BiasAmp_MALS (Zhao et al. 2017) as a torchmetrics metric.

    ``update`` needs only the predictions, ``groups_pred`` and ``tasks_pred``;
    the training side (``groups_train`` and ``tasks_train``, or
    ``counts_train``) is required and fixes ``b*`` and the biased pairs.

    Parameters
    ----------
    num_groups, num_tasks : int
        Number of groups and tasks.
    groups_train, tasks_train : Tensor or array-like
        Training ground truth (class indices, multi-hot, or label names).
    counts_train : CountTable or DataFrame, optional
        The training side as counts instead.
    margin : float, default 0.05
        Tolerance of ``violations`` (in ``compute_result().extras``).
    sample_weight_train, group_names, task_names, soft, threshold, n_boot, ci, random_state
        As for :class:`DirectionalBiasAmplification`.
    min_group_size : float or None, default 30
        As for :class:`DirectionalBiasAmplification` (the training and the
        predicted groups are checked, as :func:`biasamp.mals` does).
    min_cell : float or None, default 5
        As for :class:`DirectionalBiasAmplification` (:func:`biasamp.mals`'s rule).
    **kwargs
        As for :class:`DirectionalBiasAmplification`.

    Examples
    --------
    Zhao et al.'s example: cooking is 66% women in training, 84% in predictions.

    >>> import torch
    >>> from biasamp.torchmetrics import MALSBiasAmplification
    >>> metric = MALSBiasAmplification(
    ...     num_groups=2, num_tasks=1, group_names=["w", "m"], task_names=["cook"],
    ...     groups_train=torch.tensor([0, 1]), tasks_train=torch.tensor([0, 0]),
    ...     sample_weight_train=[66, 34])
    >>> metric.update(groups_pred=torch.tensor([0, 1]), tasks_pred=torch.tensor([0, 0]),
    ...               sample_weight=torch.tensor([84.0, 16.0]))
    >>> round(float(metric.compute()), 2), metric.compute_result().violations
    (0.18, 1)
    """

    _metric_name = "mals"
    plot_lower_bound = -1.0
    plot_upper_bound = 1.0

    def __init__(
        self,
        num_groups: int,
        num_tasks: int,
        *,
        groups_train: Any = None,
        tasks_train: Any = None,
        counts_train: CountTable | pd.DataFrame | None = None,
        sample_weight_train: Any = None,
        margin: float = 0.05,
        group_names: Sequence[Any] | None = None,
        task_names: Sequence[Any] | None = None,
        soft: bool = False,
        threshold: float | Sequence[float] | None = None,
        n_boot: int | None = None,
        ci: float = 0.95,
        random_state: Any = None,
        min_group_size: float | None = DEFAULT_MIN_GROUP_SIZE,
        min_cell: float | None = DEFAULT_MIN_CELL,
        **kwargs: Any,
    ) -> None:
        if not isinstance(margin, (int, float, np.number)) or not 0 <= float(margin) <= 1:
            raise ValueError(ERR_MARGIN.format(got=margin))
        limit = check_min_group_size(min_group_size)
        super().__init__(
            roles=("groups_pred", "tasks_pred"),
            num_groups=num_groups,
            num_tasks=num_tasks,
            group_names=group_names,
            task_names=task_names,
            groups_train=groups_train,
            tasks_train=tasks_train,
            counts_train=counts_train,
            sample_weight_train=sample_weight_train,
            soft=soft,
            threshold=threshold,
            n_boot=n_boot,
            ci=ci,
            random_state=random_state,
            **kwargs,
        )
        if self._train is None:
            raise ValueError(ERR_MALS_TRAIN)
        self.margin = float(margin)
        self.min_group_size = limit
        self.min_cell = check_min_cell(min_cell)

    def _result(self) -> PairwiseResult:
        assert self._train is not None
        self._check_rows()
        return mals_from_counts(
            self._train,
            self.count_table(),
            margin=self.margin,
            ci=self.ci,
            min_group_size=self.min_group_size,
            min_cell=self.min_cell,
        )
