"""RBA's output structures and their exact inference under per-pair penalties.

An RBA *structure* says what one output of a structured predictor is and which
(group, task) pairs it contains; its inference returns, for every instance at
once, ``argmax_y f(y, i) - sum_{(g, t) in y} W(g, t)`` for penalties ``W`` of
shape (|G|, |T|) (see :mod:`biasamp.mitigation._rba` for the solver that
chooses ``W``):

* ``"multilabel"`` (:class:`MultilabelProblem`): one group and a set of tasks
  (the COCO CRF of Zhao et al. 2017, section 5.2);
* ``"single"`` (:class:`SingleProblem`): one (group, task) pair;
* ``"candidates"`` (:class:`CandidateProblem`): any finite list of candidate
  outputs per instance (:class:`CandidateOutputs`).

Every inference is exact and vectorised over instances; ties go to the first
group / pair / candidate and to "absent" for a task whose present and absent
scores tie.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp

__all__ = [
    "STRUCTURES",
    "CandidateOutputs",
    "CandidateProblem",
    "MultilabelProblem",
    "Problem",
    "SingleProblem",
    "build_problem",
    "output_labels",
    "multi_task_output",
]

STRUCTURES = ("multilabel", "single", "candidates")
#: Instances per block of the multilabel inference (a block of 2 x 2048 x 66 float64
#: is 2 MB: it stays in cache between the maximum, the row sum and the comparison).
BLOCK_ROWS = 2048

ERR_MULTILABEL_SCORES = (
    "scores: structure='multilabel' expects a pair (group_scores, task_scores) of shapes "
    "(n, |G|) and (n, |G|, |T|, 2); got {got}."
)
ERR_SINGLE_SCORES = "scores: structure='single' expects an array of shape (n, |G|, |T|); got {got}."
ERR_CANDIDATE_SCORES = "scores: structure='candidates' expects a CandidateOutputs; got {got}."
ERR_SCORE_SHAPE = (
    "scores: {what} has {got} {axis} but the label space has {expected} ({names_source})."
)
ERR_SCORE_FINITE = "scores: {what} contains {count} NaN or infinite values."
ERR_CANDIDATE_LENGTH = (
    "CandidateOutputs: {what} has {got} rows, expected {expected} (one per candidate)."
)
ERR_CANDIDATE_GROUP = "CandidateOutputs: group indices must lie in [0, {n_groups}); found {bad}."
ERR_CANDIDATE_INSTANCE = "CandidateOutputs: instance indices must be non-negative integers."
ERR_CANDIDATE_MISSING = (
    "CandidateOutputs: instances {examples} have no candidate; every instance in "
    "0..n_instances-1 needs at least one."
)
ERR_CANDIDATE_TASKS = "CandidateOutputs: tasks must be a 0/1 matrix of shape (m, |T|)."


# --------------------------------------------------------------------------- inputs
@dataclass(frozen=True)
class CandidateOutputs:
    """Candidate outputs of a structured predictor, for ``structure="candidates"``.

    Each candidate belongs to one instance, has one score ``f(y, i)``, one group
    and a set of tasks; it contains the (group, task) pairs ``{group} x tasks``.

    Parameters
    ----------
    scores : array of shape (m,)
        Score of each candidate.
    instance : int array of shape (m,)
        The instance (0 .. n-1) each candidate belongs to; every instance needs
        at least one candidate. Candidates need not be sorted.
    group : int array of shape (m,)
        The group index of each candidate (in the canonical group order).
    tasks : array or scipy.sparse matrix of shape (m, |T|)
        0/1 indicators of the tasks each candidate contains.
    n_instances : int, optional
        Number of instances (default ``instance.max() + 1``).
    """

    scores: Any
    instance: Any
    group: Any
    tasks: Any
    n_instances: int | None = None


def _check_finite(values: np.ndarray, what: str) -> None:
    bad = ~np.isfinite(values)
    if bad.any():
        raise ValueError(ERR_SCORE_FINITE.format(what=what, count=int(bad.sum())))


class Problem:
    """Exact per-instance inference under per-pair penalties, for one structure.

    ``infer(W, mask)`` returns the chosen outputs for penalties ``W`` of shape
    (|G|, |T|) applied to every pair (``mask is None``) or only to the pairs of
    ``mask`` (the reference behaviour: the pairs of the previous output).
    """

    n: int
    n_groups: int
    n_tasks: int

    def infer(
        self, W: np.ndarray, chosen: Any = None
    ) -> tuple[np.ndarray, np.ndarray, float, np.ndarray]:  # pragma: no cover - abstract
        """``(out_a, out_b, primal, counts)``: the outputs, ``sum_i f(y^i)``, pair counts."""
        raise NotImplementedError

    def state(self, out_a: np.ndarray, out_b: Any) -> Any:  # pragma: no cover - abstract
        """What ``infer(W, chosen)`` needs to penalise only the previous outputs' pairs."""
        raise NotImplementedError


class MultilabelProblem(Problem):
    """One group and a set of tasks per instance; the best set decomposes per task.

    ``f(g, S) = group_score[g] + sum_t absent[g, t] + sum_{t in S} delta[g, t]`` with
    ``delta = present - absent``; under penalties ``W`` the best set of group ``g``
    holds the tasks with ``delta > W`` and gains ``sum_t max(delta, W) - sum_t W``.
    The arrays are laid out (|G|, n, |T|) so that each group's block is contiguous.
    The textbook penalty runs over blocks of :data:`BLOCK_ROWS` instances: ``maximum``,
    row sum and the ``delta > W`` comparison of a block while it is in cache, so
    ``delta`` is read from memory once per iteration; a gather of the chosen group's
    boolean rows follows.
    """

    def __init__(self, group_scores: np.ndarray, task_scores: np.ndarray) -> None:
        self.n, self.n_groups, self.n_tasks = task_scores.shape[:3]
        delta = task_scores[..., 0] - task_scores[..., 1]  # (n, |G|, |T|)
        self.delta = np.ascontiguousarray(delta.transpose(1, 0, 2))  # (|G|, n, |T|)
        self.base = np.ascontiguousarray((group_scores + task_scores[..., 1].sum(axis=-1)).T)
        self._buffer = np.empty_like(self.delta)
        self._above = np.empty(self.delta.shape, dtype=bool)
        self._rows = np.arange(self.n)
        self._block = np.empty((self.n_groups, min(BLOCK_ROWS, self.n), self.n_tasks))

    def _chosen_rows(self, values: np.ndarray, g: np.ndarray, W: np.ndarray | None) -> np.ndarray:
        """``values[g_i, i] > W[g_i]`` (or ``> 0``) per instance: the chosen group's tasks.

        One comparison over (|G|, n, |T|) into a reused boolean buffer, then a gather of
        one boolean row per instance (cheaper than gathering float rows).
        """
        np.greater(values, 0.0 if W is None else W[:, None, :], out=self._above)
        return self._gather_rows(g)

    def _gather_rows(self, g: np.ndarray) -> np.ndarray:
        """Row ``i`` of ``self._above[g_i]`` per instance."""
        flat = self._above.reshape(self.n_groups * self.n, self.n_tasks)
        return np.take(flat, g * self.n + self._rows, axis=0)

    def infer(
        self, W: np.ndarray, chosen: Any = None
    ) -> tuple[np.ndarray, np.ndarray, float, np.ndarray]:
        buf = self._buffer
        if chosen is None:
            # sum_t max(delta - W, 0) = sum_t max(delta, W) - sum_t W, block by block
            # (a loop over blocks of instances, each block vectorised)
            gain = np.empty((self.n_groups, self.n))
            cut = W[:, None, :]
            for start in range(0, self.n, BLOCK_ROWS):
                rows = slice(start, min(start + BLOCK_ROWS, self.n))
                part = self.delta[:, rows]
                block = self._block[:, : part.shape[1]]
                np.maximum(part, cut, out=block)
                # einsum, not BLAS: its threads spin on busy machines
                np.einsum("gnt->gn", block, out=gain[:, rows])
                np.greater(part, cut, out=self._above[:, rows])
            gain -= W.sum(axis=1)[:, None]
        else:
            g_prev, present_prev = chosen
            np.copyto(buf, self.delta)
            # penalise only the pairs of the previous output: (i, g_prev[i], t in S_prev[i])
            for k in range(self.n_groups):
                paid = present_prev & (g_prev == k)[:, None]
                np.subtract(buf[k], W[k], out=buf[k], where=paid)
            np.maximum(buf, 0.0, out=buf)
            gain = np.einsum("gnt->gn", buf)
        value = self.base + gain  # (|G|, n)
        g = value.argmax(axis=0)
        if chosen is None:
            present = self._gather_rows(g)  # self._above holds delta > W already
        else:
            present = self._chosen_rows(buf, g, None)
        counts = self.counts(g, present)
        # sum_i f(y^i): the penalised value plus the penalties the outputs paid
        primal = float(value[g, self._rows].sum())
        if chosen is None:
            primal += float((W * counts).sum())
        else:
            g_prev, present_prev = chosen
            paid = self.counts(g, present_prev & present & (g_prev == g)[:, None])
            primal += float((W * paid).sum())
        return g, present, primal, counts

    def state(self, g: np.ndarray, present: np.ndarray) -> Any:
        return g, present

    def counts(self, g: np.ndarray, present: np.ndarray) -> np.ndarray:
        out = np.zeros((self.n_groups, self.n_tasks))
        for k in range(self.n_groups):  # a loop over groups (few), never over instances
            out[k] = present[g == k].sum(axis=0, dtype=np.int32)  # int32: no int64 cast pass
        return out


class SingleProblem(Problem):
    def __init__(self, scores: np.ndarray) -> None:
        self.n, self.n_groups, self.n_tasks = scores.shape
        self.flat = np.ascontiguousarray(scores.reshape(self.n, -1))
        self._buffer = np.empty_like(self.flat)
        self._rows = np.arange(self.n)

    def infer(
        self, W: np.ndarray, chosen: Any = None
    ) -> tuple[np.ndarray, np.ndarray, float, np.ndarray]:
        buf = self._buffer
        if chosen is None:
            np.subtract(self.flat, W.reshape(1, -1), out=buf)
        else:
            np.copyto(buf, self.flat)
            buf[self._rows, chosen] -= W.reshape(-1)[chosen]
        pair = buf.argmax(axis=1)
        primal = float(self.flat[self._rows, pair].sum())
        g, t = pair // self.n_tasks, pair % self.n_tasks
        return g, t, primal, self.counts(g, t)

    def state(self, g: np.ndarray, t: np.ndarray) -> Any:
        return g * self.n_tasks + t

    def counts(self, g: np.ndarray, t: np.ndarray) -> np.ndarray:
        return (
            np.bincount(g * self.n_tasks + t, minlength=self.n_groups * self.n_tasks)
            .reshape(self.n_groups, self.n_tasks)
            .astype(np.float64)
        )


class CandidateProblem(Problem):
    def __init__(self, cands: CandidateOutputs, n_groups: int, n_tasks: int) -> None:
        scores = np.asarray(cands.scores, dtype=np.float64).reshape(-1)
        m = scores.shape[0]
        _check_finite(scores, "CandidateOutputs.scores")
        instance = np.asarray(cands.instance).reshape(-1)
        group = np.asarray(cands.group).reshape(-1)
        for what, arr in (("instance", instance), ("group", group)):
            if arr.shape[0] != m:
                raise ValueError(
                    ERR_CANDIDATE_LENGTH.format(what=what, got=arr.shape[0], expected=m)
                )
        if instance.dtype.kind not in "iu" or (instance < 0).any():
            raise ValueError(ERR_CANDIDATE_INSTANCE)
        if group.dtype.kind not in "iu" or ((group < 0) | (group >= n_groups)).any():
            bad = (
                group[(group < 0) | (group >= n_groups)][:5]
                if group.dtype.kind in "iu"
                else group[:5]
            )
            raise ValueError(ERR_CANDIDATE_GROUP.format(n_groups=n_groups, bad=list(bad)))
        tasks = sp.csr_matrix(cands.tasks, dtype=np.float64)
        if tasks.shape != (m, n_tasks) or (tasks.data != 1).any():
            raise ValueError(ERR_CANDIDATE_TASKS)
        n = int(cands.n_instances) if cands.n_instances is not None else int(instance.max()) + 1
        present = np.bincount(instance, minlength=n)
        if present.shape[0] > n or (present == 0).any():
            missing = np.nonzero(present == 0)[0][:5].tolist() if present.shape[0] == n else ["> n"]
            raise ValueError(ERR_CANDIDATE_MISSING.format(examples=missing))
        order = np.argsort(instance, kind="stable")
        self.scores = scores[order]
        self.instance = instance[order]
        self.group = group[order]
        self.tasks = tasks[order]
        self.starts = np.searchsorted(self.instance, np.arange(n))
        self.order = order
        rows = np.repeat(np.arange(m), np.diff(self.tasks.indptr))
        cols = self.group[rows] * n_tasks + self.tasks.indices
        self.pairs = sp.csr_matrix(
            (np.ones_like(cols, dtype=np.float64), (rows, cols)), shape=(m, n_groups * n_tasks)
        )
        self.n, self.n_groups, self.n_tasks, self.m = n, n_groups, n_tasks, m
        self._idx = np.arange(m)

    def infer(
        self, W: np.ndarray, chosen: Any = None
    ) -> tuple[np.ndarray, np.ndarray, float, np.ndarray]:
        w = W.reshape(-1)
        if chosen is None:
            adjusted = self.scores - self.pairs @ w
        else:
            prev_pairs = self.pairs[chosen][self.instance]  # (m, |G||T|): own instance's output
            adjusted = self.scores - self.pairs.multiply(prev_pairs).tocsr() @ w
        seg_max = np.maximum.reduceat(adjusted, self.starts)
        is_max = adjusted >= seg_max[self.instance]
        best = np.minimum.reduceat(np.where(is_max, self._idx, self.m), self.starts)
        primal = float(self.scores[best].sum())
        return best, best, primal, self.counts(best)

    def state(self, best: np.ndarray, _: Any = None) -> Any:
        return best

    def counts(self, best: np.ndarray, _: Any = None) -> np.ndarray:
        return np.asarray(self.pairs[best].sum(axis=0)).reshape(self.n_groups, self.n_tasks)


def build_problem(scores: Any, structure: str, n_groups: int, n_tasks: int) -> Problem:
    if structure == "multilabel":
        if not isinstance(scores, (tuple, list)) or len(scores) != 2:
            raise TypeError(ERR_MULTILABEL_SCORES.format(got=type(scores).__name__))
        gs = np.asarray(scores[0], dtype=np.float64)
        ts = np.asarray(scores[1], dtype=np.float64)
        if gs.ndim != 2 or ts.ndim != 4 or ts.shape[-1] != 2 or ts.shape[:2] != gs.shape:
            raise ValueError(ERR_MULTILABEL_SCORES.format(got=(gs.shape, ts.shape)))
        _check_finite(gs, "group_scores")
        _check_finite(ts, "task_scores")
        _check_axes(gs.shape[1], ts.shape[2], n_groups, n_tasks)
        return MultilabelProblem(gs, ts)
    if structure == "single":
        s = np.asarray(scores, dtype=np.float64)
        if s.ndim != 3:
            raise ValueError(ERR_SINGLE_SCORES.format(got=s.shape))
        _check_finite(s, "scores")
        _check_axes(s.shape[1], s.shape[2], n_groups, n_tasks)
        return SingleProblem(s)
    if not isinstance(scores, CandidateOutputs):
        raise TypeError(ERR_CANDIDATE_SCORES.format(got=type(scores).__name__))
    return CandidateProblem(scores, n_groups, n_tasks)


def _check_axes(got_g: int, got_t: int, n_groups: int, n_tasks: int) -> None:
    if got_g != n_groups:
        raise ValueError(
            ERR_SCORE_SHAPE.format(
                what="the group axis",
                got=got_g,
                axis="groups",
                expected=n_groups,
                names_source="training split",
            )
        )
    if got_t != n_tasks:
        raise ValueError(
            ERR_SCORE_SHAPE.format(
                what="the task axis",
                got=got_t,
                axis="tasks",
                expected=n_tasks,
                names_source="training split",
            )
        )


def multi_task_output(problem: Problem) -> bool:
    if isinstance(problem, MultilabelProblem):
        return True
    if isinstance(problem, CandidateProblem):
        return not bool((np.diff(problem.tasks.indptr) == 1).all())
    return False


def output_labels(
    problem: Problem, structure: str, out_a: Any, out_b: Any
) -> tuple[np.ndarray, Any]:
    """(group index per instance, task indices (n,) or indicators (n, |T|))."""
    if structure in ("multilabel", "single"):
        return out_a, out_b
    assert isinstance(problem, CandidateProblem)
    g = problem.group[out_a]
    tasks = problem.tasks[out_a]
    if multi_task_output(problem):
        return g, np.asarray(tasks.toarray(), dtype=np.int64)
    return g, tasks.indices.copy()
