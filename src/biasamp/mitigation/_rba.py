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
    lambda(t) = max(0, lambda(t-1) + eta_t * A sum_i y^i(t))

and stops when no constraint is violated or after ``max_iter`` inferences.
The output structures and their exact inference live in
:mod:`biasamp.mitigation._rba_inference`; this module holds the constraints and
the Lagrangian solver: the step-size schedule ``eta_t`` and which iterate is
returned.

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
* Step sizes (``schedule``): ``"adaptive"`` (default) halves a constraint's step
  each time its subgradient changes sign while its multiplier is positive (the
  multiplier overshot) and grows it by 1.2, up to the base step, while the
  constraint stays violated; ``"decay"`` uses ``eta / sqrt(t)``; ``"constant"`` is
  the paper's fixed ``eta``.
* The returned iterate (``select``): ``"best"`` (default) is the iterate with the
  fewest violated constraints, ties broken by the highest original score
  ``sum_i f(y^i)`` (then the earliest); ``"last"`` is the paper's last iterate.
  The first iterate is the input decoding, so ``"best"`` never has more violated
  constraints than the input. A run that ends with violated constraints warns
  (:class:`RBAConvergenceWarning`) with the numbers, and ``select="last"``
  warns when the last iterate is worse than the input on both violations and
  accuracy.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Generator, Sequence
from typing import Any, cast

import numpy as np
import pandas as pd

from biasamp._progress import progress_iter
from biasamp.counts._count_table import CountTable
from biasamp.inputs._group_sizes import FragilePairWarning, MissingGroupWarning
from biasamp.inputs._label_matrix import as_label_matrix
from biasamp.metrics._mals import mals_arrays, mals_from_counts
from biasamp.metrics._splits import count_training_split
from biasamp.mitigation._rba_inference import (
    STRUCTURES,
    build_problem,
    multi_task_output,
    output_labels,
)
from biasamp.mitigation._rba_result import RBAResult, performance

__all__ = ["RBAConvergenceWarning", "adapt_steps", "rba", "rba_constraints"]

PENALTIES = ("lagrangian", "reference")
SELECTIONS = ("best", "last")
SCALES = ("share", "count")
SCHEDULES = ("adaptive", "decay", "constant")

ERR_STRUCTURE = "structure: expected one of {choices}, got {got!r}."
ERR_PENALTY = "penalty: expected one of {choices}, got {got!r}."
ERR_SCALE = "scale: expected one of {choices}, got {got!r}."
ERR_SELECT = "select: expected one of {choices}, got {got!r}."
ERR_SCHEDULE = "schedule: expected one of {choices}, got {got!r}."
ERR_RBA_TRAIN = "rba needs the training side: groups_train and tasks_train, or counts_train."
ERR_ETA = "eta: expected a positive finite number, got {got!r}."
ERR_MAX_ITER = "max_iter: expected a positive integer, got {got!r}."
ERR_MARGIN_RBA = "margin: expected a number in [0, 1], got {got!r}."
ERR_CONSTRAINED = "constrained_tasks: {count} name(s) not in the task names: {examples}."
ERR_TRUTH_LENGTH = "{arg}: has {got} rows but scores describe {expected} instances."
WARN_NOT_CONVERGED = (
    "rba: {violated} of {total} constraints are still violated after {n_iter} iterations "
    "(max_iter={max_iter}); the input decoding violated {violated_input}. Returned "
    "iteration {selected} (select={select!r}). Try more iterations, a smaller eta or "
    "another schedule."
)
WARN_WORSE = (
    "rba: the returned decoding (iteration {selected}, select='last') is worse than the "
    "input on both counts: {violated} violated constraints against {violated_input}, "
    "{what} {after:.4f} against {before:.4f}. select='best' returns the best iterate."
)

_HALVE = 0.5  # adaptive schedule: a constraint's step after its multiplier overshot
_GROW = 1.2  # ... and after it stayed violated, up to the base step (never above)


class RBAConvergenceWarning(UserWarning):
    """RBA stopped with violated constraints, or returned a decoding worse than its input."""


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
    select: str = "best",
    schedule: str = "adaptive",
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
    select : {"best", "last"}, default "best"
        ``"best"``: the iterate with the fewest violated constraints, ties broken
        by the highest original score ``sum_i f(y^i)`` (``history["primal"]``),
        then by the earliest; never more violated constraints than the input
        (the first iterate). ``"last"``: the last iterate, as the paper and the
        reference do.
    schedule : {"adaptive", "decay", "constant"}, default "adaptive"
        Step sizes of the multiplier updates. ``"constant"``: the base step
        every iteration (the paper). ``"decay"``: base step ``/ sqrt(t)`` at
        iteration ``t``, the classic diminishing subgradient step.
        ``"adaptive"``: each constraint's step is halved whenever its value
        ``(A c)`` changes sign while its multiplier is positive, i.e. when the
        multiplier overshot and the predictions flipped past the bound, and
        grown by 1.2 (never above the base step) while the constraint stays
        violated; this stops the oscillation a constant step shows on confident
        scores without stalling short of the bound.
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

    Warns
    -----
    RBAConvergenceWarning
        When the returned decoding still violates constraints (with the counts
        and the input's), and with ``select="last"`` when the returned decoding
        is worse than the input on both violated constraints and accuracy (task
        accuracy / macro-F1 when ``tasks`` is given, else group accuracy, else
        the original score ``sum_i f(y^i)``).

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
    if schedule not in SCHEDULES:
        raise ValueError(ERR_SCHEDULE.format(choices=SCHEDULES, got=schedule))
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
    problem = build_problem(scores, structure, n_groups, n_tasks)

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
    multi = multi_task_output(problem)

    lam = np.zeros((2, groups_c, n_tasks))
    full_step = np.broadcast_to(step, lam.shape).copy()  # per constraint
    base_step = full_step.copy()
    previous: np.ndarray | None = None
    chosen: Any = None
    records: list[dict[str, float]] = []
    outputs: list[tuple[Any, Any, np.ndarray]] = []  # (out_a, out_b, counts) per iteration
    start = time.perf_counter()
    # progress_iter is a generator function (annotated as returning an Iterator)
    iterations = cast(
        "Generator[int, None, None]",
        progress_iter(range(1, max_iter + 1), description="RBA", enabled=progress),
    )
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
                "step": float(base_step.max()) / (np.sqrt(it) if schedule == "decay" else 1.0),
            }
        )
        outputs.append((out_a, out_b, counts))
        if n_violated == 0:
            break
        if schedule == "adaptive" and previous is not None:
            base_step = adapt_steps(base_step, full_step, values, previous, lam)
        rate = base_step / np.sqrt(it) if schedule == "decay" else base_step
        lam = np.maximum(0.0, lam + rate * values)
        previous = values
        chosen = problem.state(out_a, out_b)
    iterations.close()  # ends the progress bar when the loop stopped early
    elapsed = time.perf_counter() - start

    history = pd.DataFrame.from_records(records)
    final = _select(history, select)
    first, last = outputs[0], outputs[final]
    g_before, t_before = output_labels(problem, structure, first[0], first[1])
    g_after, t_after = output_labels(problem, structure, last[0], last[1])
    with warnings.catch_warnings():  # the outputs RBA starts from: what it corrects
        warnings.simplefilter("ignore", MissingGroupWarning)
        warnings.simplefilter("ignore", FragilePairWarning)
        mals_before = mals_from_counts(
            train, _prediction_table(g_names, t_names, first[2], problem.n), margin=margin
        )
    mals_after = mals_from_counts(
        train, _prediction_table(g_names, t_names, last[2], problem.n), margin=margin
    )
    perf_before = performance(multi, g_before, t_before, truth_g, truth_t)
    perf_after = performance(multi, g_after, t_after, truth_g, truth_t)
    _warn(history, final, select, max_iter, lam.size, perf_before, perf_after)

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
        selected_iteration=final + 1,
        params={
            "structure": structure,
            "penalty": penalty,
            "margin": margin,
            "eta": eta,
            "max_iter": int(max_iter),
            "select": select,
            "schedule": schedule,
            "scale": scale,
            "seconds": elapsed,
            "n_constrained_tasks": int(constrained.sum()),
        },
    )


def adapt_steps(
    steps: np.ndarray,
    full: np.ndarray,
    values: np.ndarray,
    previous: np.ndarray,
    lam: np.ndarray,
) -> np.ndarray:
    """The adaptive schedule's next per-constraint steps.

    A constraint whose value ``(A c)`` changed sign while its multiplier is positive
    overshot: its step is halved. One still violated (positive now and before)
    grows by 1.2, never above its base step ``full``. Others keep their step.

    Examples
    --------
    >>> import numpy as np
    >>> steps, full = np.array([1.0, 1.0, 0.5, 0.2]), np.ones(4)
    >>> adapt_steps(steps, full, values=np.array([-1.0, 2.0, 3.0, -1.0]),
    ...             previous=np.array([1.0, 1.0, 1.0, -2.0]),
    ...             lam=np.array([0.3, 0.3, 0.3, 0.0])).tolist()
    [0.5, 1.0, 0.6, 0.2]
    """
    out = steps.copy()
    overshot = (values * previous < 0) & (lam > 0)
    out[overshot] *= _HALVE
    stuck = (values > 0) & (previous > 0)
    out[stuck] = np.minimum(out[stuck] * _GROW, full[stuck])
    return out


def _select(history: pd.DataFrame, select: str) -> int:
    """Row of the returned iterate: the last, or the fewest violated constraints, then
    the highest original score, then the earliest."""
    if select == "last":
        return len(history) - 1
    order = np.lexsort(
        (
            np.arange(len(history)),
            -history["primal"].to_numpy(),
            history["violated_constraints"].to_numpy(),
        )
    )
    return int(order[0])


def _accuracy(perf: dict[str, float] | None) -> tuple[str, float] | None:
    """The accuracy number RBA must not lose: task performance, else group accuracy."""
    if not perf:
        return None
    for key in ("task accuracy", "task macro-F1", "group accuracy"):
        if key in perf:
            return key, perf[key]
    return None


def _warn(
    history: pd.DataFrame,
    final: int,
    select: str,
    max_iter: int,
    n_constraints: int,
    perf_before: dict[str, float] | None,
    perf_after: dict[str, float] | None,
) -> None:
    """Warn when the returned iterate violates constraints or is worse than the input."""
    violated = int(history["violated_constraints"].iloc[final])
    violated_input = int(history["violated_constraints"].iloc[0])
    if violated:
        warnings.warn(
            WARN_NOT_CONVERGED.format(
                violated=violated,
                total=n_constraints,
                n_iter=len(history),
                max_iter=max_iter,
                violated_input=violated_input,
                selected=final + 1,
                select=select,
            ),
            RBAConvergenceWarning,
            stacklevel=3,
        )
    before, after = _accuracy(perf_before), _accuracy(perf_after)
    if before is not None and after is not None:
        what, acc_before, acc_after = before[0], before[1], after[1]
    else:
        what = "original score sum_i f(y^i)"
        acc_before = float(history["primal"].iloc[0])
        acc_after = float(history["primal"].iloc[final])
    if violated > violated_input and acc_after < acc_before:
        warnings.warn(
            WARN_WORSE.format(
                selected=final + 1,
                violated=violated,
                violated_input=violated_input,
                what=what,
                after=acc_after,
                before=acc_before,
            ),
            RBAConvergenceWarning,
            stacklevel=3,
        )


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
