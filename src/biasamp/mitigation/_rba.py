"""RBA: Reducing Bias Amplification with corpus-level constraints (Zhao et al., EMNLP 2017).

RBA calibrates the outputs of a structured predictor on a whole evaluation corpus
so that, for every constrained task ``t``, the predicted share of each group
stays within ``margin`` of its training share ``b*(t, g)`` (eq. 2):

.. math::

    b^*(t, g) - \\gamma \\le \\frac{c(t, g)}{\\sum_{g'} c(t, g')} \\le b^*(t, g) + \\gamma

where ``c(t, g) = sum_i y^i_{(g, t)}`` counts the outputs that contain the pair
(group g, task t). Multiplied out, each side is linear in the counts, so the
constraints read ``A sum_i y^i <= 0`` (eq. 3). RBA relaxes them with one
multiplier per constraint and runs projected subgradient steps on the
multipliers (eqs. 4 and 5)::

    y^i(t)   = argmax_y  f(y, i) - lambda(t-1)^T A y      (exact, per instance)
    lambda(t) = max(0, lambda(t-1) + eta * A sum_i y^i(t))

and stops when no constraint is violated or after ``max_iter`` inferences.

Choices (see ``docs/mitigation.md``):

* ``penalty="lagrangian"`` (default) subtracts ``(lambda^T A)_{(g,t)}`` from every
  score of the pair (g, t) in every instance: the textbook Lagrangian, whose
  per-iteration value is the dual function, an upper bound on the constrained
  optimum. ``penalty="reference"`` reproduces uclanlp/reducingbias: it starts
  from the original scores in every iteration and penalises, in each instance,
  only the pair scores chosen by that instance's current top-1 output.
* More than two groups: two constraints (lower and upper bound on the share)
  per task and group. With two groups the second group's constraints repeat the
  first group's, so only the first group's two are kept, exactly the
  reference's two linear forms per task.
* Constrained tasks: every task that occurs in training, or ``constrained_tasks``.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
import scipy.sparse as sp

from biasamp._progress import progress_iter
from biasamp.counts._count_table import CountTable
from biasamp.inputs._label_matrix import as_label_matrix
from biasamp.metrics._mals import mals_arrays, mals_from_counts
from biasamp.metrics._splits import count_training_split
from biasamp.results._base import PairwiseResult

__all__ = ["rba", "RBAResult", "CandidateOutputs", "rba_constraints"]

STRUCTURES = ("multilabel", "single", "candidates")
PENALTIES = ("lagrangian", "reference")
SELECTIONS = ("last", "best")
SCALES = ("share", "count")

ERR_STRUCTURE = "structure: expected one of {choices}, got {got!r}."
ERR_PENALTY = "penalty: expected one of {choices}, got {got!r}."
ERR_SCALE = "scale: expected one of {choices}, got {got!r}."
ERR_SELECT = "select: expected one of {choices}, got {got!r}."
ERR_RBA_TRAIN = "rba needs the training side: groups_train and tasks_train, or counts_train."
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
ERR_ETA = "eta: expected a positive finite number, got {got!r}."
ERR_MAX_ITER = "max_iter: expected a positive integer, got {got!r}."
ERR_MARGIN_RBA = "margin: expected a number in [0, 1], got {got!r}."
ERR_CONSTRAINED = "constrained_tasks: {count} name(s) not in the task names: {examples}."
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
ERR_TRUTH_LENGTH = "{arg}: has {got} rows but scores describe {expected} instances."


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


class _Problem:
    """Exact per-instance inference under per-pair penalties, for one structure.

    ``infer(W, mask)`` returns the chosen outputs for penalties ``W`` of shape
    (|G|, |T|) applied to every pair (``mask is None``) or only to the pairs of
    ``mask`` (the reference behaviour: the pairs of the previous output).
    """

    n: int
    n_groups: int
    n_tasks: int


class _MultilabelProblem(_Problem):
    def __init__(self, group_scores: np.ndarray, task_scores: np.ndarray) -> None:
        self.n, self.n_groups, self.n_tasks = task_scores.shape[:3]
        # f(g, S) = group_score[g] + sum_t absent[g, t] + sum_{t in S} (present - absent)[g, t]
        self.delta = np.ascontiguousarray(task_scores[..., 0] - task_scores[..., 1])
        self.base = group_scores + task_scores[..., 1].sum(axis=-1)
        self._buffer = np.empty_like(self.delta)
        self._gain = np.empty_like(self.delta)
        self._rows = np.arange(self.n)

    def infer(
        self, W: np.ndarray, chosen: Any = None
    ) -> tuple[np.ndarray, np.ndarray, float, np.ndarray]:
        buf, n, n_g, n_t = self._buffer, self.n, self.n_groups, self.n_tasks
        if chosen is None:
            np.subtract(self.delta, W, out=buf)
        else:
            g_prev, present_prev = chosen
            np.copyto(buf, self.delta)
            # penalise only the pairs of the previous output: (i, g_prev[i], t in S_prev[i])
            buf[self._rows, g_prev] -= present_prev * W[g_prev]
        np.maximum(buf, 0.0, out=self._gain)
        value = self.base + np.einsum("igt->ig", self._gain)  # no BLAS: it spins on busy machines
        g = value.argmax(axis=1)
        # present tasks of the chosen group: one row per instance of the (n |G|, |T|) view
        present = np.take(buf.reshape(n * n_g, n_t), self._rows * n_g + g, axis=0) > 0.0
        counts = self.counts(g, present)
        # sum_i f(y^i): the penalised value plus the penalties the outputs paid
        primal = float(value[self._rows, g].sum())
        if chosen is None:
            primal += float((W * counts).sum())
        else:
            g_prev, present_prev = chosen
            primal += float(((present_prev & present & (g_prev == g)[:, None]) * W[g]).sum())
        return g, present, primal, counts

    def state(self, g: np.ndarray, present: np.ndarray) -> Any:
        return g, present

    def counts(self, g: np.ndarray, present: np.ndarray) -> np.ndarray:
        out = np.zeros((self.n_groups, self.n_tasks))
        for k in range(self.n_groups):  # loop over groups (few), never over instances
            out[k] = present[g == k].sum(axis=0)
        return out


class _SingleProblem(_Problem):
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


class _CandidateProblem(_Problem):
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


# ------------------------------------------------------------------- constraints
def rba_constraints(
    b_train: np.ndarray, margin: float, constrained: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The linear forms of eq. 2 as coefficient arrays over (group, task) pair counts.

    Parameters
    ----------
    b_train : array of shape (|G|, |T|)
        Training bias scores ``b*(t, g)``.
    margin : float
    constrained : bool array of shape (|T|,)

    Returns
    -------
    lower, upper : arrays of shape (|G_c|, |G|, |T|)
        For each constrained group ``g`` (the first group only when |G| = 2,
        every group otherwise) and task ``t``, the coefficients ``a`` on the
        counts ``c(g', t)`` such that the lower bound of eq. 2 holds iff
        ``sum_g' lower[g, g', t] c(g', t) <= 0`` and the upper bound iff
        ``sum_g' upper[g, g', t] c(g', t) <= 0``. Unconstrained tasks have
        zero rows.

    Examples
    --------
    Training ratio 0.7 for man, margin 0.05: the reference's two forms
    ``(b - 1 - margin, b - margin)`` and ``(1 - margin - b, -(margin + b))``.

    >>> import numpy as np
    >>> lower, upper = rba_constraints(np.array([[0.7], [0.3]]), 0.05, np.array([True]))
    >>> lower[0, :, 0].round(2).tolist(), upper[0, :, 0].round(2).tolist()
    ([-0.35, 0.65], [0.25, -0.75])
    """
    n_groups, n_tasks = b_train.shape
    groups_c = 1 if n_groups == 2 else n_groups
    eye = np.eye(n_groups)[:groups_c, :, None]  # (|G_c|, |G|, 1)
    b = np.nan_to_num(b_train[:groups_c, None, :])  # (|G_c|, 1, |T|)
    lower = (b - margin) - eye
    upper = eye - (b + margin)
    keep = constrained[None, None, :]
    return np.where(keep, lower, 0.0), np.where(keep, upper, 0.0)


def _pair_weights(lam: np.ndarray, lower: np.ndarray, upper: np.ndarray) -> np.ndarray:
    """``(lambda^T A)`` per pair (|G|, |T|): lam has shape (2, |G_c|, |T|)."""
    return (lam[0][:, None, :] * lower + lam[1][:, None, :] * upper).sum(axis=0)


def _constraint_values(counts: np.ndarray, lower: np.ndarray, upper: np.ndarray) -> np.ndarray:
    """``A c`` as an array of shape (2, |G_c|, |T|)."""
    return np.stack([(lower * counts[None]).sum(axis=1), (upper * counts[None]).sum(axis=1)])


# --------------------------------------------------------------------- result
@dataclass
class RBAResult:
    """Calibrated predictions of :func:`rba`, with the history of the iterations.

    Attributes
    ----------
    groups_pred, tasks_pred
        The calibrated predictions: groups as a 1-D array of group names; tasks
        as a 1-D array of task names (``"single"``, or ``"candidates"`` with one
        task per candidate) or a 0/1 DataFrame with task names as columns.
        Ready for :func:`biasamp.mals`, :func:`biasamp.directional`, ...
    groups_pred_before, tasks_pred_before
        The uncalibrated predictions (the first inference, all multipliers 0).
    history : DataFrame
        One row per inference: ``iteration``, ``violated_constraints`` (rows of
        ``A c > 0``), ``violated_tasks`` (tasks with a violated constraint),
        ``violations`` and ``mals`` (BiasAmp_MALS of that iteration's output, via
        :func:`biasamp.mals_from_counts`), ``multiplier_norm`` (L2 norm of the
        multipliers used for the inference), ``lagrangian`` (``L(lambda, y)`` of
        eq. 4 at the output; for ``penalty="lagrangian"`` this is the dual
        function, an upper bound on the constrained optimum), ``primal`` (the
        original score ``sum_i f(y^i)`` of the output).
    multipliers : DataFrame
        Final multipliers, one row per constrained task and group, columns
        ``lambda_lower`` and ``lambda_upper``.
    mals_before, mals_after : PairwiseResult
    performance_before, performance_after : dict or None
        Performance against the evaluation ground truth (``groups`` / ``tasks``),
        when it was given.
    converged : bool
        All constraints satisfied by the returned output.
    n_iter : int
        Number of inferences run.
    """

    groups_pred: np.ndarray
    tasks_pred: np.ndarray | pd.DataFrame
    groups_pred_before: np.ndarray
    tasks_pred_before: np.ndarray | pd.DataFrame
    history: pd.DataFrame
    multipliers: pd.DataFrame
    mals_before: PairwiseResult
    mals_after: PairwiseResult
    performance_before: dict[str, float] | None
    performance_after: dict[str, float] | None
    converged: bool
    n_iter: int
    params: dict[str, Any] = field(default_factory=dict)

    def table(self) -> pd.DataFrame:
        """The paper's table 2 rows: Viol., Amp. bias (MALS) and performance, before and after."""
        rows = {}
        for label, mals_res, perf in (
            ("before", self.mals_before, self.performance_before),
            ("after", self.mals_after, self.performance_after),
        ):
            row: dict[str, Any] = {
                "Viol.": int(mals_res.extras["violations"]),
                "Amp. bias (MALS)": float(mals_res.value),
            }
            if perf:
                row.update(perf)
            rows[label] = row
        return pd.DataFrame.from_dict(rows, orient="index")

    def __str__(self) -> str:
        status = "converged" if self.converged else "stopped at max_iter"
        head = (
            f"RBA ({self.params.get('structure')}, penalty={self.params.get('penalty')}, "
            f"margin={self.params.get('margin')}, eta={self.params.get('eta')}): "
            f"{self.n_iter} iterations, {status}"
        )
        return head + "\n" + self.table().to_string(float_format=lambda v: f"{v:.4f}")

    __repr__ = __str__


# ------------------------------------------------------------------ performance
def _macro_f1(truth: np.ndarray, pred: np.ndarray) -> float:
    """Macro-F1 over the tasks that occur in the truth or the predictions."""
    tp = (truth * pred).sum(axis=0)
    fp = ((1 - truth) * pred).sum(axis=0)
    fn = (truth * (1 - pred)).sum(axis=0)
    denom = 2 * tp + fp + fn
    used = denom > 0
    if not used.any():
        return 0.0
    return float((2 * tp[used] / denom[used]).mean())


def _performance(
    structure_multi: bool,
    g: np.ndarray,
    tasks: np.ndarray,
    groups_true: np.ndarray | None,
    tasks_true: np.ndarray | None,
) -> dict[str, float] | None:
    if groups_true is None and tasks_true is None:
        return None
    out: dict[str, float] = {}
    if tasks_true is not None:
        if structure_multi:
            out["task macro-F1"] = _macro_f1(tasks_true, tasks)
        else:
            out["task accuracy"] = float((tasks_true[np.arange(len(g)), tasks] == 1).mean())
    if groups_true is not None:
        out["group accuracy"] = float((groups_true[np.arange(len(g)), g] == 1).mean())
    return out


# ------------------------------------------------------------------------ rba
def _build_problem(scores: Any, structure: str, n_groups: int, n_tasks: int) -> _Problem:
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
        return _MultilabelProblem(gs, ts)
    if structure == "single":
        s = np.asarray(scores, dtype=np.float64)
        if s.ndim != 3:
            raise ValueError(ERR_SINGLE_SCORES.format(got=s.shape))
        _check_finite(s, "scores")
        _check_axes(s.shape[1], s.shape[2], n_groups, n_tasks)
        return _SingleProblem(s)
    if not isinstance(scores, CandidateOutputs):
        raise TypeError(ERR_CANDIDATE_SCORES.format(got=type(scores).__name__))
    return _CandidateProblem(scores, n_groups, n_tasks)


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


def rba(
    scores: Any,
    *,
    structure: str,
    groups_train: Any = None,
    tasks_train: Any = None,
    counts_train: CountTable | pd.DataFrame | None = None,
    margin: float = 0.05,
    eta: float = 1.0,
    max_iter: int = 100,
    penalty: str = "lagrangian",
    scale: str = "share",
    select: str = "last",
    constrained_tasks: Sequence[Any] | None = None,
    groups: Any = None,
    tasks: Any = None,
    sample_weight_train: Any = None,
    random_state: Any = None,
    progress: bool = False,
    group_names: Sequence[Any] | None = None,
    task_names: Sequence[Any] | None = None,
) -> RBAResult:
    """Reducing Bias Amplification: calibrate structured outputs with corpus-level constraints.

    Parameters
    ----------
    scores
        The structured predictor's scores on the evaluation corpus (log-potentials),
        with axes in the canonical label order (the training split's names, or
        ``group_names`` / ``task_names``):

        * ``structure="multilabel"``: a pair ``(group_scores, task_scores)`` of
          shapes (n, |G|) and (n, |G|, |T|, 2). An output is one group ``g`` and a
          set ``S`` of tasks, scored ``group_scores[g] + sum_{t in S}
          task_scores[g, t, 0] + sum_{t not in S} task_scores[g, t, 1]`` (the
          COCO CRF of section 5.2). It contains the pairs ``{g} x S``.
        * ``structure="single"``: an array (n, |G|, |T|); an output is one
          (group, task) pair.
        * ``structure="candidates"``: a :class:`CandidateOutputs`.
    structure : {"multilabel", "single", "candidates"}
    groups_train, tasks_train : array-like
        Training ground truth; fixes ``b*`` and the label names.
    counts_train : CountTable or DataFrame, optional
        The training side as counts instead.
    margin : float, default 0.05
        ``gamma`` of eq. 2.
    eta : float, default 1.0
        Step size of the multiplier update (eq. 5). With ``scale="share"`` the
        step of task t's multipliers is ``eta / (n P_train(t))``, so ``eta`` is
        in score units per unit of group share and one value fits corpora of
        any size. With ``scale="count"`` it is ``eta`` per count, as in the
        paper (section 5.3 uses 0.1; the reference notebook 0.05 on COCO).
    scale : {"share", "count"}, default "share"
        Per-constraint step sizes (see ``eta``). Both run projected subgradient
        steps on the same Lagrangian; ``"share"`` only preconditions them.
    max_iter : int, default 100
        Maximum number of inferences.
    penalty : {"lagrangian", "reference"}, default "lagrangian"
        ``"lagrangian"`` penalises every score of a constrained pair (eqs. 4-5).
        ``"reference"`` penalises only the pair scores of each instance's
        current output, as uclanlp/reducingbias does.
    select : {"last", "best"}, default "last"
        Return the last iterate (as the paper and reference do) or the one with
        the fewest violated constraints (ties: the later one).
    constrained_tasks : sequence of task names, optional
        Tasks to constrain (default: every task that occurs in training).
    groups, tasks : array-like, optional
        Evaluation ground truth, for the performance columns (top-1 task
        accuracy for single-task outputs, task macro-F1 for multilabel ones,
        and group accuracy).
    sample_weight_train : array-like, optional
    random_state : None, int or Generator
        Accepted for a uniform API; RBA is deterministic (ties go to the first
        group / pair / candidate, and a task whose present and absent scores tie
        is absent), so it is not used.
    progress : bool, default False
        Show a progress bar (rich).
    group_names, task_names : sequence, optional
        Canonical label names.

    Returns
    -------
    RBAResult

    Examples
    --------
    Two groups, one task ("cook", 60% women in training); the model predicts
    women for 9 of 10 cooks, five of them by a small margin.

    >>> import numpy as np
    >>> from biasamp import rba
    >>> margins = np.array([3, 3, 3, 3, 0.02, 0.04, 0.06, 0.08, 0.1, -3])
    >>> scores = np.stack([np.zeros(10), margins], axis=1)[:, :, None]  # (n, |G|, |T|)
    >>> result = rba(scores, structure="single", groups_train=["m"] * 4 + ["w"] * 6,
    ...              tasks_train=["cook"] * 10, eta=0.1)
    >>> result.converged, int((result.groups_pred == "w").sum())
    (True, 6)
    """
    if structure not in STRUCTURES:
        raise ValueError(ERR_STRUCTURE.format(choices=STRUCTURES, got=structure))
    if penalty not in PENALTIES:
        raise ValueError(ERR_PENALTY.format(choices=PENALTIES, got=penalty))
    if scale not in SCALES:
        raise ValueError(ERR_SCALE.format(choices=SCALES, got=scale))
    if select not in SELECTIONS:
        raise ValueError(ERR_SELECT.format(choices=SELECTIONS, got=select))
    if (
        isinstance(eta, bool)
        or not isinstance(eta, (int, float, np.number))
        or not np.isfinite(eta)
        or eta <= 0
    ):
        raise ValueError(ERR_ETA.format(got=eta))
    if isinstance(max_iter, bool) or not isinstance(max_iter, (int, np.integer)) or max_iter < 1:
        raise ValueError(ERR_MAX_ITER.format(got=max_iter))
    if (
        isinstance(margin, bool)
        or not isinstance(margin, (int, float, np.number))
        or not 0 <= float(margin) <= 1
    ):
        raise ValueError(ERR_MARGIN_RBA.format(got=margin))
    margin, eta = float(margin), float(eta)
    train = count_training_split(
        groups_train=groups_train,
        tasks_train=tasks_train,
        counts_train=counts_train,
        sample_weight_train=sample_weight_train,
        group_names=group_names,
        task_names=task_names,
    )
    if train is None:
        raise ValueError(ERR_RBA_TRAIN)
    g_names, t_names = train.group_names, train.task_names
    n_groups, n_tasks = len(g_names), len(t_names)
    problem = _build_problem(scores, structure, n_groups, n_tasks)

    joint_train = train.joint[("groups", "tasks")]
    task_total = joint_train.sum(axis=0)
    b_train = np.where(task_total > 0, joint_train / np.where(task_total > 0, task_total, 1), 0.0)
    constrained = task_total > 0
    if constrained_tasks is not None:
        wanted = list(constrained_tasks)
        unknown = [t for t in wanted if t not in t_names]
        if unknown:
            raise ValueError(ERR_CONSTRAINED.format(count=len(unknown), examples=unknown[:5]))
        constrained &= np.isin(np.arange(n_tasks), [t_names.index(t) for t in wanted])
    lower, upper = rba_constraints(b_train, margin, constrained)
    groups_c = lower.shape[0]
    if scale == "share":
        # per-constraint step eta / E[count of t] with E = n * P_train(t): the update is
        # in share units, so one eta fits tasks and corpora of any size
        n_train = float(train.n)
        expected = problem.n * np.maximum(train.totals["tasks"], 1e-12) / n_train
        step = eta * np.where(constrained, 1.0 / expected, 0.0)
    else:
        step = np.full(n_tasks, eta)

    truth_g, truth_t = _truth(groups, tasks, g_names, t_names, problem.n)
    multi = _multi_task_output(problem)

    lam = np.zeros((2, groups_c, n_tasks))
    chosen: Any = None
    records: list[dict[str, float]] = []
    outputs: list[tuple[Any, Any, np.ndarray]] = []  # (out_a, out_b, counts) per iteration
    best_index, best_viol = 0, None
    start = time.perf_counter()
    iterations = progress_iter(range(1, max_iter + 1), description="RBA", enabled=progress)
    for it in iterations:
        W = _pair_weights(lam, lower, upper)
        out_a, out_b, primal, counts = problem.infer(W, chosen if penalty == "reference" else None)
        values = _constraint_values(counts, lower, upper)
        violated = values > 1e-9 * np.maximum(1.0, counts.sum(axis=0))[None, None, :]
        n_violated = int(violated.sum())
        pred_table = _prediction_table(g_names, t_names, counts, problem.n)
        mals_now = mals_arrays(train, pred_table, margin=margin)
        records.append(
            {
                "iteration": it,
                "violated_constraints": n_violated,
                "violated_tasks": int(violated.any(axis=(0, 1)).sum()),
                "violations": int(mals_now["violations"]),
                "mals": float(mals_now["value"]),
                "multiplier_norm": float(np.sqrt((lam**2).sum())),
                "lagrangian": float(primal - (lam * values).sum()),
                "primal": primal,
            }
        )
        outputs.append((out_a, out_b, counts))
        if best_viol is None or n_violated <= best_viol:
            best_index, best_viol = it - 1, n_violated
        if n_violated == 0:
            break
        lam = np.maximum(0.0, lam + step * values)
        chosen = problem.state(out_a, out_b)
    iterations.close()  # ends the progress bar when the loop stopped early
    elapsed = time.perf_counter() - start

    final = len(outputs) - 1 if select == "last" else best_index
    history = pd.DataFrame.from_records(records)
    first, last = outputs[0], outputs[final]
    g_before, t_before = _labels(problem, structure, first[0], first[1])
    g_after, t_after = _labels(problem, structure, last[0], last[1])
    mals_before = mals_from_counts(
        train, _prediction_table(g_names, t_names, first[2], problem.n), margin=margin
    )
    mals_after = mals_from_counts(
        train, _prediction_table(g_names, t_names, last[2], problem.n), margin=margin
    )
    perf_before = _performance(multi, g_before, t_before, truth_g, truth_t)
    perf_after = _performance(multi, g_after, t_after, truth_g, truth_t)

    c_groups = [g_names[k] for k in range(groups_c)]
    mult = pd.DataFrame(
        {
            "group": np.repeat(np.asarray(c_groups, dtype=object), n_tasks),
            "task": np.tile(np.asarray(t_names, dtype=object), groups_c),
            "b_train": b_train[:groups_c].reshape(-1),
            "lambda_lower": lam[0].reshape(-1),
            "lambda_upper": lam[1].reshape(-1),
        }
    )
    mult = mult[np.tile(constrained, groups_c)].reset_index(drop=True)
    return RBAResult(
        groups_pred=np.asarray(g_names, dtype=object)[g_after],
        tasks_pred=_task_labels(t_after, t_names, multi),
        groups_pred_before=np.asarray(g_names, dtype=object)[g_before],
        tasks_pred_before=_task_labels(t_before, t_names, multi),
        history=history,
        multipliers=mult,
        mals_before=mals_before,
        mals_after=mals_after,
        performance_before=perf_before,
        performance_after=perf_after,
        converged=bool(records[final]["violated_constraints"] == 0),
        n_iter=len(records),
        params={
            "structure": structure,
            "penalty": penalty,
            "margin": margin,
            "eta": eta,
            "max_iter": int(max_iter),
            "select": select,
            "scale": scale,
            "seconds": elapsed,
            "n_constrained_tasks": int(constrained.sum()),
        },
    )


def _multi_task_output(problem: _Problem) -> bool:
    if isinstance(problem, _MultilabelProblem):
        return True
    if isinstance(problem, _CandidateProblem):
        return not bool((np.diff(problem.tasks.indptr) == 1).all())
    return False


def _labels(problem: _Problem, structure: str, out_a: Any, out_b: Any) -> tuple[np.ndarray, Any]:
    """(group index per instance, task indices (n,) or indicators (n, |T|))."""
    if structure in ("multilabel", "single"):
        return out_a, out_b
    assert isinstance(problem, _CandidateProblem)
    g = problem.group[out_a]
    tasks = problem.tasks[out_a]
    if _multi_task_output(problem):
        return g, np.asarray(tasks.toarray(), dtype=np.int64)
    return g, tasks.indices.copy()


def _task_labels(t: np.ndarray, t_names: tuple[Any, ...], multi: bool) -> Any:
    if multi:
        return pd.DataFrame(np.asarray(t, dtype=np.int64), columns=list(t_names))
    return np.asarray(t_names, dtype=object)[t]


def _prediction_table(
    g_names: tuple[Any, ...], t_names: tuple[Any, ...], counts: np.ndarray, n: int
) -> CountTable:
    return CountTable(
        group_names=g_names,
        task_names=t_names,
        n=np.asarray(float(n)),
        totals={"groups_pred": counts.sum(axis=1), "tasks_pred": counts.sum(axis=0)},
        joint={("groups_pred", "tasks_pred"): counts},
        n_rows=n,
    )


def _truth(
    groups: Any, tasks: Any, g_names: tuple[Any, ...], t_names: tuple[Any, ...], n: int
) -> tuple[np.ndarray | None, np.ndarray | None]:
    out: list[np.ndarray | None] = []
    for arg, x, names in (("groups", groups, g_names), ("tasks", tasks, t_names)):
        if x is None:
            out.append(None)
            continue
        m = as_label_matrix(x, arg=arg, names=names, source="the training split")
        if m.n_rows != n:
            raise ValueError(ERR_TRUTH_LENGTH.format(arg=arg, got=m.n_rows, expected=n))
        out.append(m.dense())
    return out[0], out[1]
