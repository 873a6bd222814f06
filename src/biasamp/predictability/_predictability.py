"""Predictability-based bias amplification: DPA and leakage amplification.

DPA (Tokas, Nair & Kerner, "DPA: A one-stop metric to measure bias
amplification in classification datasets"):

.. math::

    \\Psi^D = Q(f(X), Y'), \\quad \\Psi^M = Q(f(X), \\hat Y), \\quad
    \\mathrm{DPA} = \\frac{\\Psi^M - \\Psi^D}{\\Psi^M + \\Psi^D} \\in [-1, 1]

``A->T``: the attacker's input ``X`` is the true group ``A``; it predicts
the tasks, ``Y' = T'`` (the ground truth perturbed to the model's accuracy)
and ``Y^ = T^`` (the model's task outputs). ``T->A``: ``X`` is the true task
``T``; it predicts ``A'`` and ``A^``. The input is the same fixed prior on
both sides (Wang & Russakovsky's notion of direction).

Leakage amplification (Wang et al., ICCV 2019, "Balanced Datasets Are Not
Enough"): the attacker predicts the group from the tasks,

.. math::

    \\lambda^D = Q(f(T'), A), \\quad \\lambda^M = Q(f(\\hat T), A), \\quad
    LA = \\lambda^M - \\lambda^D.

Both average over ``n_iter`` iterations; each iteration draws a fresh
perturbation, a fresh train/test split (shared by the data and model sides),
and fresh attackers (the same seed on both sides, so identical targets give
identical fits and perfect predictions give DPA = 0 exactly). See
``docs/metrics/dpa.md`` and ``docs/metrics/leakage.md`` for every choice.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import scipy.sparse as sp

from biasamp._deprecation import UNSET, renamed_keyword
from biasamp._memory import check_allocation
from biasamp.counts._poisson import checked_generator
from biasamp.counts._swaps import check_n_perm
from biasamp.inputs._alignment import align_pandas_indexes
from biasamp.inputs._group_sizes import DEFAULT_MIN_GROUP_SIZE, check_min_group_size
from biasamp.inputs._label_matrix import LabelMatrix, as_label_matrix, check_same_length
from biasamp.inputs._prefixed import prediction_columns
from biasamp.metrics._directional import ERR_NEEDS_PRED, normalize_direction
from biasamp.metrics._group_sizes import attach_group_sizes, matrix_group_sizes
from biasamp.metrics._significance import check_swappable, refit_swap_test
from biasamp.predictability._attackers import ExactAttacker, resolve_attacker
from biasamp.predictability._perturbation import (
    ERR_PERTURB_CONTINUOUS,
    ERR_PERTURBATION,
    PERTURBATIONS,
    match_accuracy,
    model_accuracy,
)
from biasamp.predictability._quality import resolve_quality
from biasamp.predictability._targets import (
    Target,
    continuous_matrix,
    label_target,
    prediction_target,
)
from biasamp.results._predictability import PredictabilityResult

__all__ = ["PredictabilityResult", "dpa", "leakage_amplification"]

ERR_FOLD = "fold: expected True or False, got {got!r}."
ERR_FOLD_QUALITY = (
    "fold=True folds attacker accuracy around chance (0.5 + |acc - 0.5|); it needs "
    "quality='accuracy', got quality={got!r}."
)
ERR_FOLD_GROUPS = (
    "fold=True folds around 0.5, the chance accuracy of two groups; groups has {k} labels."
)
ERR_N_ITER = "n_iter: expected an integer >= 1, got {got!r}."
ERR_TEST_SIZE = (
    "test_size: expected a float in (0, 1) or an integer number of rows in [1, n - 1] "
    "that leaves both parts non-empty (n = {n}), got {got!r}."
)
ERR_CI_LEVEL = "ci: expected a float in (0, 1), got {got!r}."
ERR_CV = (
    "cv: expected None, an integer >= 2, a cross-validation splitter (with split()), or an "
    "iterable of (train, test) index arrays, got {got!r}."
)
ERR_CV_FOLD = (
    "cv: fold {fold} is not a pair of non-empty index arrays into the {n} rows "
    "(train {n_train} rows, test {n_test} rows)."
)
ERR_CV_AND_ITER = "Give cv= or n_iter= (random splits), not both: cv={cv!r} fixes the splits."
#: Seed of the one perturbation "auto" inspects in leakage_amplification (fixed, so the
#: choice is deterministic and the iterations' random stream is untouched).
_AUTO_PROBE_SEED = 0
ERR_ZERO_QUALITY = (
    "Psi_M + Psi_D = 0 in iteration {it}: both attackers have the worst possible quality, "
    "so DPA is undefined. Use another quality function (for example 'inverse_ce')."
)


#: Bytes kept per iteration (the per-iteration values and their bookkeeping), an estimate
#: checked against the memory available before the arrays are made.
BYTES_PER_ITERATION = 256


def _check_n_iter(n_iter: Any) -> int:
    if isinstance(n_iter, bool) or not isinstance(n_iter, (int, np.integer)) or n_iter < 1:
        raise ValueError(ERR_N_ITER.format(got=n_iter))
    check_allocation(
        float(n_iter) * BYTES_PER_ITERATION,
        what=f"n_iter={n_iter} iterations",
        advice="use fewer iterations (n_iter).",
    )
    return int(n_iter)


def _n_test(test_size: Any, n: int) -> int:
    if isinstance(test_size, (float, np.floating)) and 0 < test_size < 1:
        n_test = int(np.ceil(test_size * n))
    elif isinstance(test_size, (int, np.integer)) and not isinstance(test_size, bool):
        n_test = int(test_size)
    else:
        raise ValueError(ERR_TEST_SIZE.format(n=n, got=test_size))
    if not 1 <= n_test <= n - 1:
        raise ValueError(ERR_TEST_SIZE.format(n=n, got=test_size))
    return n_test


def _seed_record(random_state: Any) -> int | None:
    """The seed recorded in ``params`` (an integer seed only)."""
    return int(random_state) if isinstance(random_state, (int, np.integer)) else None


def _check_ci_level(ci_level: Any) -> float:
    if not isinstance(ci_level, (float, np.floating)) or not 0 < ci_level < 1:
        raise ValueError(ERR_CI_LEVEL.format(got=ci_level))
    return float(ci_level)


def _interval(values: np.ndarray, level: float) -> tuple[tuple[float, float] | None, float]:
    if values.size < 2:
        return None, 0.0
    from scipy import stats  # lazy: keeps `import biasamp` fast

    std = float(np.std(values, ddof=1))
    half = float(stats.t.ppf(0.5 + level / 2, values.size - 1)) * std / np.sqrt(values.size)
    mean = float(np.mean(values))
    return (float(mean - half), float(mean + half)), std


def _labels(x: Any, arg: str) -> tuple[LabelMatrix, Target]:
    one_d = (np.ndim(x) == 1) if not sp.issparse(x) and not hasattr(x, "columns") else False
    matrix = as_label_matrix(x, arg=arg)
    return matrix, label_target(matrix, one_d=one_d)


def _as_input(t: Target) -> np.ndarray | sp.csr_matrix:
    """A target used as attacker input: one-hot CSR for multiclass codes, else dense."""
    if t.kind == "multiclass" and not t.soft:
        n = t.n
        return sp.csr_matrix((np.ones(n), t.values, np.arange(n + 1)), shape=(n, t.k))
    return np.asarray(t.values, dtype=np.float64)


def _iterations(n_iter: int, progress: bool, description: str) -> Any:
    if not progress:
        return range(n_iter)
    from rich.progress import track

    return track(range(n_iter), description=description, total=n_iter)


def _split(rng: np.random.Generator, n: int, n_test: int) -> tuple[np.ndarray, np.ndarray]:
    perm = rng.permutation(n)
    return np.sort(perm[n_test:]), np.sort(perm[:n_test])


def _rows(X: Any, idx: np.ndarray) -> Any:
    return X[idx]


def _cv_folds(
    cv: Any, n: int, rng: np.random.Generator, y: np.ndarray | None
) -> list[tuple[np.ndarray, np.ndarray]]:
    """The (train, test) row indices of ``cv``, as scikit-learn reads it.

    An int ``k`` gives ``KFold(k, shuffle=True)`` seeded from ``random_state``; an
    object with ``split`` is called as ``cv.split(X, y)`` (``y`` the attacker's
    class codes when its target is one label per row); any other iterable gives
    its pairs as they are.
    """
    if isinstance(cv, (bool, np.bool_)):
        raise ValueError(ERR_CV.format(got=cv))
    if isinstance(cv, (int, np.integer)):
        if cv < 2 or cv > n:
            raise ValueError(ERR_CV.format(got=cv))
        from sklearn.model_selection import KFold  # lazy: keeps `import biasamp` fast

        splitter: Any = KFold(int(cv), shuffle=True, random_state=int(rng.integers(2**31 - 1)))
        pairs = splitter.split(np.zeros((n, 1)))
    elif hasattr(cv, "split"):
        pairs = cv.split(np.zeros((n, 1)), y)
    elif hasattr(cv, "__iter__") and not isinstance(cv, (str, bytes)):
        pairs = cv
    else:
        raise ValueError(ERR_CV.format(got=cv))
    folds = []
    for i, pair in enumerate(pairs):
        try:
            train, test = (np.asarray(part) for part in pair)
        except (TypeError, ValueError) as exc:
            raise ValueError(ERR_CV.format(got=cv)) from exc
        if train.dtype == bool and train.shape == (n,):
            train = np.flatnonzero(train)
        if test.dtype == bool and test.shape == (n,):
            test = np.flatnonzero(test)
        ok = (
            train.ndim == test.ndim == 1
            and train.size > 0
            and test.size > 0
            and train.dtype.kind in "iu"
            and test.dtype.kind in "iu"
            and train.min() >= 0
            and test.min() >= 0
            and max(train.max(), test.max()) < n
        )
        if not ok:
            raise ValueError(ERR_CV_FOLD.format(fold=i, n=n, n_train=train.size, n_test=test.size))
        folds.append((train.astype(np.int64), test.astype(np.int64)))
    if not folds:
        raise ValueError(ERR_CV.format(got=cv))
    return folds


def _ci_value(function: str, ci: Any, ci_level: Any) -> Any:
    value = renamed_keyword(function, old="ci_level", old_value=ci_level, new="ci", new_value=ci)
    return 0.95 if value is UNSET else value


def _check_iterations(n_iter: Any, cv: Any) -> None:
    if cv is not None and n_iter is not None:
        raise ValueError(ERR_CV_AND_ITER.format(cv=cv))
    if n_iter is not None:
        _check_n_iter(n_iter)


def _iteration_splits(
    cv: Any, n_iter: int | None, test_size: Any, n: int, rng: np.random.Generator, target: Target
) -> tuple[list[tuple[np.ndarray, np.ndarray]] | None, int, int]:
    """``(folds or None, number of iterations, test rows per iteration)``."""
    if cv is None:
        return None, 10 if n_iter is None else int(n_iter), _n_test(test_size, n)
    y = target.values if target.kind == "multiclass" and not target.soft else None
    folds = _cv_folds(cv, n, rng, y)
    return folds, len(folds), int(round(np.mean([test.size for _, test in folds])))


def _cv_record(cv: Any) -> Any:
    """How ``cv`` is recorded in ``params`` (JSON-safe)."""
    if cv is None or isinstance(cv, (int, np.integer)):
        return None if cv is None else int(cv)
    return type(cv).__name__


def _check_perturbation(perturbation: str, continuous: bool) -> str:
    if perturbation not in PERTURBATIONS:
        raise ValueError(ERR_PERTURBATION.format(choices=PERTURBATIONS, got=perturbation))
    if continuous and perturbation != "none":
        raise ValueError(ERR_PERTURB_CONTINUOUS.format(got=perturbation))
    return perturbation


# --- DPA ------------------------------------------------------------------------------------------


def _aligned(groups: Any, tasks: Any, groups_pred: Any, tasks_pred: Any) -> tuple[Any, ...]:
    """The four roles, pandas ones matched by index label (:mod:`biasamp.inputs._alignment`)."""
    out = align_pandas_indexes(
        groups=groups, tasks=tasks, groups_pred=groups_pred, tasks_pred=tasks_pred
    )
    return out["groups"], out["tasks"], out["groups_pred"], out["tasks_pred"]


def dpa(
    *,
    direction: str,
    groups: Any,
    tasks: Any,
    groups_pred: Any = None,
    tasks_pred: Any = None,
    pred_prefix: str | None = None,
    attacker: Any = "auto",
    quality: str | Callable[..., float] = "inverse_ce",
    n_iter: int | None = None,
    test_size: float | int = 0.2,
    cv: Any = None,
    perturbation: str = "paper",
    use_scores: bool = False,
    continuous: bool = False,
    positive_group: Any = None,
    positive_label: Any = None,
    ci: Any = UNSET,
    random_state: int | np.random.Generator | None = None,
    progress: bool = False,
    ci_level: Any = UNSET,
    min_group_size: float | None = DEFAULT_MIN_GROUP_SIZE,
    n_perm: int = 0,
) -> PredictabilityResult:
    """Directional Predictability Amplification (Tokas et al.).

    Parameters
    ----------
    direction : {"A->T", "T->A"}
        ``"A->T"``: how well the true group predicts the model's task outputs,
        relative to the (perturbed) true tasks. Needs ``tasks_pred``.
        ``"T->A"``: how well the true tasks predict the model's group outputs.
        Needs ``groups_pred``.
    groups : array-like of shape (n,) or (n, |A|)
        True groups: labels or 0/1 indicators (DataFrame, scipy.sparse).
    tasks : array-like of shape (n,) or (n, |T|)
        True tasks: labels (multiclass) or a 0/1 indicator matrix (multilabel).
    groups_pred, tasks_pred : array-like, optional
        The model's outputs on the same rows: labels, 0/1 indicators,
        probabilities or scores/logits of shape (n, k) (or (n,) for two labels).
    attacker : "auto", "exact", "logistic", "mlp", attacker object or scikit-learn classifier
        See :class:`biasamp.ExactAttacker` and :class:`biasamp.MLPAttacker`. "auto" picks "exact" for discrete
        inputs with few distinct patterns, else "logistic".
    quality : str or callable, default "inverse_ce"
        "inverse_ce" (the paper's, appendix I), "accuracy", "f1",
        "one_minus_ce", "inverse_rmse", or ``f(y_true, y_pred) -> float``
        with 0 = no predictability and higher = more.
    n_iter : int, default 10
        Iterations (fresh perturbation, split and attackers each).
    test_size : float or int, default 0.2
        Held-out share (or number) of rows on which the attackers are scored.
    cv : int, cross-validation splitter or iterable of (train, test), optional
        Fixed splits instead of ``n_iter`` random ones, as scikit-learn's
        ``cv``: an int ``k`` gives ``KFold(k, shuffle=True)`` seeded by
        ``random_state``; a splitter is called as ``cv.split(X, y)`` (``y`` the
        attacker's class codes); an iterable gives its (train, test) index
        pairs. One iteration per split (``test_size`` is not used).
    perturbation : {"paper", "per_entry", "confusion", "none"}, default "paper"
        How the ground truth is perturbed to the model's accuracy.
    use_scores : bool, default False
        Train the model-side attacker on the model's scores instead of its
        hard labels (the default keeps both sides hard, see the docs).
    continuous : bool, default False
        Groups, tasks and predictions are real values (regression targets,
        appendix D.1); implies ``perturbation="none"`` and needs
        ``quality="inverse_rmse"`` or a callable.
    positive_group, positive_label : label, optional
        The group (``groups_pred``) or task (``tasks_pred``) a 1-D score is
        the probability of; by default the second label in sorted order
        (scikit-learn's ``classes_[1]``).
    ci : float, default 0.95
        Level of the Student-t interval over iterations.
    random_state : int, Generator or None
    progress : bool, default False
        Show a progress bar over iterations.
    ci_level : float
        Deprecated spelling of ``ci``.
    min_group_size : float or None, default 30
        Warn (:class:`SmallGroupWarning`) about the true groups with fewer
        rows than this; ``None`` checks nothing (continuous groups have no
        sizes).
    pred_prefix : str, optional
        Read the predictions as the file audit does (:func:`biasamp.audit`'s
        ``pred_prefix``): a frame passed as ``groups_pred`` or ``tasks_pred``
        gives, for each column ``C`` of the ground truth's frame, its column
        ``pred_prefix + C``, read as ``C`` (``pred_cup`` predicts ``cup``); its
        other columns are left out, so the evaluation frame itself may be passed.
    n_perm : int, default 0
        Swapped data sets of the paired swap test against chance (0: no test):
        each row's label (``tasks`` for A->T, ``groups`` for T->A) and the
        model's output swap with probability 1/2, and the attackers are fitted
        again on each (``n_perm`` times the cost; the same attacker seed every
        time). Needs outputs of the labels' shape (not scores). The result then
        has ``p_value`` (one-sided: larger is amplification) and ``null``.

    Returns
    -------
    PredictabilityResult
        ``group_sizes`` (rows per true group, column ``"evaluation"``),
        ``small_groups``; ``value`` (mean DPA), ``ci``, ``values``, ``psi_d`` / ``psi_m`` and
        their per-iteration arrays, the attacker used.

    Examples
    --------
    A model that predicts the majority task of each group (A->T), on a
    dataset where group "a" does task "x" 60% of the time:

    >>> import numpy as np
    >>> from biasamp import dpa
    >>> groups = np.repeat(["a", "b"], 500)
    >>> tasks = np.array((["x"] * 300 + ["y"] * 200) + (["x"] * 200 + ["y"] * 300))
    >>> tasks_pred = np.repeat(["x", "y"], 500)
    >>> result = dpa(direction="A->T", groups=groups, tasks=tasks, tasks_pred=tasks_pred,
    ...              random_state=0)
    >>> result.attacker, result.value > 0.9
    ('exact', True)
    """
    groups_pred = prediction_columns(groups_pred, pred_prefix, arg="groups_pred", truth=(groups,))
    tasks_pred = prediction_columns(tasks_pred, pred_prefix, arg="tasks_pred", truth=(tasks,))
    direction = normalize_direction(direction)
    n_perm = check_n_perm(n_perm)
    limit = check_min_group_size(min_group_size)
    original_groups = groups
    groups, tasks, groups_pred, tasks_pred = _aligned(groups, tasks, groups_pred, tasks_pred)
    ci_level = _check_ci_level(_ci_value("dpa", ci, ci_level))
    _check_iterations(n_iter, cv)
    if continuous and perturbation == "paper":
        perturbation = "none"
    perturbation = _check_perturbation(perturbation, continuous)
    pred = tasks_pred if direction == "A->T" else groups_pred
    if pred is None:
        arg = "tasks_pred" if direction == "A->T" else "groups_pred"
        raise ValueError(ERR_NEEDS_PRED.format(direction=direction, arg=arg))
    pred_arg = "tasks_pred" if direction == "A->T" else "groups_pred"
    if n_perm:
        check_swappable(
            tasks if direction == "A->T" else groups, pred,
            label_arg="tasks" if direction == "A->T" else "groups", output_arg=pred_arg,
            n_perm=n_perm,
        )  # fmt: skip
    inputs: Any  # dense values, or a sparse indicator matrix
    input_matrix: LabelMatrix | None = None  # the label matrix the inputs come from
    sizes = None
    if continuous:
        g = continuous_matrix(groups, arg="groups")
        t = continuous_matrix(tasks, arg="tasks")
        p = continuous_matrix(pred, arg=pred_arg)
        check_same_length(groups=g, tasks=t, **{pred_arg: p})
        inputs, truth_values = (g, t) if direction == "A->T" else (t, g)
        names = tuple(range(truth_values.shape[1]))
        truth = Target("continuous", truth_values, names)
        if p.shape[1] != truth_values.shape[1]:
            raise ValueError(
                f"{pred_arg}: expected {truth_values.shape[1]} columns, got {p.shape[1]}."
            )
        model_target = Target("continuous", p, names)
        acc = None
    else:
        g_matrix, g_target = _labels(groups, "groups")
        t_matrix, t_target = _labels(tasks, "tasks")
        check_same_length(groups=g_matrix, tasks=t_matrix)
        sizes = matrix_group_sizes(g_matrix)
        input_matrix, truth = (g_matrix, t_target) if direction == "A->T" else (t_matrix, g_target)
        # checked 0/1 indicators as they are held (the exact attacker codes them as they are)
        inputs = input_matrix.counting_values()
        source = "tasks" if direction == "A->T" else "groups"
        model_target = prediction_target(
            pred,
            truth,
            arg=pred_arg,
            source=source,
            positive=positive_label if direction == "A->T" else positive_group,
            positive_param="positive_label" if direction == "A->T" else "positive_group",
        )
        check_same_length(**{source: truth.values, pred_arg: model_target.values})
        acc = model_accuracy(truth, model_target)
        if not use_scores:
            model_target = model_target.hard()
        if direction == "T->A":  # the groups the model predicts (summed scores when soft)
            predicted = model_target.dense().sum(axis=0)
            sizes = sizes.assign(predicted=np.asarray(predicted, dtype=np.float64))
    n = truth.n
    q = resolve_quality(quality, truth.kind)
    if not q.builtin:
        q.check_orientation(truth)
    chosen, reason = resolve_attacker(attacker, [inputs], truth.kind)
    if input_matrix is not None and not isinstance(chosen, ExactAttacker):
        inputs = input_matrix.values  # the float64 matrix the learned attackers read
    prepared = chosen.prepare(inputs, arg="groups" if direction == "A->T" else "tasks")
    rng = checked_generator(random_state)
    folds, n_iter, n_test = _iteration_splits(cv, n_iter, test_size, n, rng, truth)
    d_vals, m_vals, vals = np.empty(n_iter), np.empty(n_iter), np.empty(n_iter)
    for it in _iterations(n_iter, progress, f"DPA {direction}"):
        seed = int(rng.integers(2**31 - 1))
        it_rng = np.random.default_rng(seed)
        perturbed = match_accuracy(
            truth, model_target, scheme=perturbation, rng=it_rng, accuracy=acc
        )
        train, test = _split(it_rng, n, n_test) if folds is None else folds[it]
        x_tr, x_te = _rows(prepared, train), _rows(prepared, test)
        p_d = chosen.fit_predict(x_tr, perturbed.take(train), x_te, seed)
        p_m = chosen.fit_predict(x_tr, model_target.take(train), x_te, seed)
        d_vals[it] = q(perturbed.take(test), p_d, side="data")
        m_vals[it] = q(model_target.take(test), p_m, side="model")
        total = d_vals[it] + m_vals[it]
        if total <= 0:
            raise ValueError(ERR_ZERO_QUALITY.format(it=it))
        vals[it] = (m_vals[it] - d_vals[it]) / total
    ci, std = _interval(vals, ci_level)
    result = PredictabilityResult(
        metric="dpa",
        value=float(np.mean(vals)),
        values=vals,
        data_quality=d_vals,
        model_quality=m_vals,
        direction=direction,
        ci=ci,
        ci_level=ci_level,
        std=std,
        attacker=chosen.name,
        attacker_reason=reason,
        quality=q.name,
        perturbation=perturbation,
        model_accuracy=acc,
        n=n,
        n_iter=n_iter,
        test_size=n_test / n,
        params={
            "cv": _cv_record(cv),
            "use_scores": use_scores,
            "continuous": continuous,
            "target_kind": truth.kind,
            "random_state": _seed_record(random_state),
        },
    )
    if sizes is not None:
        result = attach_group_sizes(result, sizes, min_group_size=limit, groups=(original_groups,))
    label, label_arg = (tasks, "tasks") if direction == "A->T" else (groups, "groups")

    def run(label: Any, output: Any, seed: int) -> float:
        swapped = {"tasks": label} if direction == "A->T" else {"groups": label}
        return dpa(
            direction=direction,
            **{"groups": groups, "tasks": tasks, **swapped, pred_arg: output},
            attacker=attacker, quality=quality, n_iter=None if cv is not None else n_iter,
            test_size=test_size, cv=cv, perturbation=perturbation, use_scores=use_scores,
            continuous=continuous, positive_group=positive_group,
            positive_label=positive_label, ci=ci_level, random_state=seed,
            min_group_size=None,
        ).value  # fmt: skip

    return refit_swap_test(
        result, run=run, label=label, output=pred, label_arg=label_arg, output_arg=pred_arg,
        n_perm=n_perm, random_state=random_state, progress=progress,
    )  # fmt: skip


# --- leakage amplification --------------------------------------------------------------------------


def leakage_amplification(
    *,
    groups: Any,
    tasks: Any,
    tasks_pred: Any,
    pred_prefix: str | None = None,
    attacker: Any = "auto",
    quality: str | Callable[..., float] = "accuracy",
    n_iter: int | None = None,
    test_size: float | int = 0.2,
    cv: Any = None,
    perturbation: str = "per_entry",
    use_scores: bool = False,
    positive_label: Any = None,
    fold: bool = False,
    ci: Any = UNSET,
    random_state: int | np.random.Generator | None = None,
    progress: bool = False,
    ci_level: Any = UNSET,
    min_group_size: float | None = DEFAULT_MIN_GROUP_SIZE,
    n_perm: int = 0,
) -> PredictabilityResult:
    """Leakage amplification, LA = lambda_M - lambda_D (Wang et al., ICCV 2019).

    The attacker predicts the true group from the true tasks perturbed to the
    model's accuracy (lambda_D) and from the model's task outputs (lambda_M).

    Parameters
    ----------
    groups : array-like of shape (n,) or (n, |A|)
        True groups, the attacker's target.
    tasks : array-like of shape (n,) or (n, |T|)
        True tasks (labels or 0/1 indicators).
    tasks_pred : array-like of shape (n,) or (n, |T|)
        The model's task outputs: labels, indicators, probabilities or logits.
    attacker : see :func:`dpa`
        "auto" picks "exact" only when both inputs (perturbed truth and model
        outputs) are discrete with few patterns.
    quality : str or callable, default "accuracy"
        Wang et al. score the attacker by accuracy.
    n_iter, test_size, cv, ci, random_state, progress : see :func:`dpa`
        (``ci_level`` is the deprecated spelling of ``ci``).
    perturbation : {"per_entry", "paper", "confusion", "none"}, default "per_entry"
        Wang et al. flip every entry independently.
    use_scores : bool, default False
        Feed the model's scores (not its hard labels) to the model-side attacker.
    positive_label : label, optional
        The task a 1-D ``tasks_pred`` score is the probability of (default:
        the second task in sorted order, scikit-learn's ``classes_[1]``).
    fold : bool, default False
        Report each attacker accuracy folded around chance, ``0.5 + |acc - 0.5|``,
        as the leakage paper's released code does (its published numbers are
        folded). Only with ``quality="accuracy"`` and two groups. The default
        reports raw accuracy: an attacker below chance shows as such.
    min_group_size : float or None, default 30
        Warn (:class:`SmallGroupWarning`) about the groups with fewer rows
        than this; ``None`` checks nothing.
    pred_prefix : str, optional
        Read the predictions as the file audit does (:func:`biasamp.audit`'s
        ``pred_prefix``): a frame passed as ``tasks_pred`` gives, for each column
        ``C`` of the ground truth's frame, its column ``pred_prefix + C``, read as
        ``C`` (``pred_cup`` predicts ``cup``); its other columns are left out, so
        the evaluation frame itself may be passed.
    n_perm : int, default 0
        The paired swap test against chance (see :func:`dpa`): each row's
        ``tasks`` and ``tasks_pred`` swap with probability 1/2; the attackers
        are fitted again on each swapped data set.

    Returns
    -------
    PredictabilityResult
        ``group_sizes`` (rows per group, column ``"evaluation"``),
        ``small_groups``; ``value`` (mean LA), ``ci``, ``lambda_d`` / ``lambda_m`` and their
        per-iteration arrays, the attacker used.

    Examples
    --------
    >>> import numpy as np
    >>> from biasamp import leakage_amplification
    >>> groups = np.repeat(["a", "b"], 500)
    >>> tasks = np.array((["x"] * 300 + ["y"] * 200) + (["x"] * 200 + ["y"] * 300))
    >>> result = leakage_amplification(groups=groups, tasks=tasks,
    ...                                tasks_pred=np.repeat(["x", "y"], 500), random_state=0)
    >>> round(result.lambda_m, 2), result.value > 0.3
    (1.0, True)
    """
    n_perm = check_n_perm(n_perm)
    tasks_pred = prediction_columns(tasks_pred, pred_prefix, arg="tasks_pred", truth=(tasks,))
    limit = check_min_group_size(min_group_size)
    original_groups = groups
    groups, tasks, _, tasks_pred = _aligned(groups, tasks, None, tasks_pred)
    ci_level = _check_ci_level(_ci_value("leakage_amplification", ci, ci_level))
    _check_iterations(n_iter, cv)
    perturbation = _check_perturbation(perturbation, False)
    if not isinstance(fold, (bool, np.bool_)):
        raise TypeError(ERR_FOLD.format(got=fold))
    if tasks_pred is None:
        raise ValueError(ERR_NEEDS_PRED.format(direction="leakage", arg="tasks_pred"))
    if n_perm:
        check_swappable(
            tasks, tasks_pred, label_arg="tasks", output_arg="tasks_pred", n_perm=n_perm
        )
    g_matrix, g_target = _labels(groups, "groups")
    t_matrix, t_target = _labels(tasks, "tasks")
    check_same_length(groups=g_matrix, tasks=t_matrix)
    pred = prediction_target(
        tasks_pred, t_target, arg="tasks_pred", source="tasks", positive=positive_label
    )
    check_same_length(tasks=t_target.values, tasks_pred=pred.values)
    acc = model_accuracy(t_target, pred)
    model_inputs = _as_input(pred if use_scores else pred.hard())
    n = g_target.n
    q = resolve_quality(quality, g_target.kind)
    if fold and q.name != "accuracy":
        raise ValueError(ERR_FOLD_QUALITY.format(got=quality))
    if fold and g_target.k != 2:
        raise ValueError(ERR_FOLD_GROUPS.format(k=g_target.k))
    if not q.builtin:
        q.check_orientation(g_target)
    auto_inputs = [t_matrix.values, model_inputs]
    if isinstance(attacker, str) and attacker.strip().lower() == "auto":
        # the data side sees the *perturbed* truth, whose random flips can create many
        # more patterns than the truth has: "auto" must judge that input too
        probe = match_accuracy(
            t_target,
            pred,
            scheme=perturbation,
            rng=np.random.default_rng(_AUTO_PROBE_SEED),
            accuracy=acc,
        )
        auto_inputs.insert(1, _as_input(probe))
    chosen, reason = resolve_attacker(attacker, auto_inputs, g_target.kind)
    prepared_m = chosen.prepare(model_inputs, arg="tasks_pred")
    rng = checked_generator(random_state)
    folds, n_iter, n_test = _iteration_splits(cv, n_iter, test_size, n, rng, g_target)
    d_vals, m_vals = np.empty(n_iter), np.empty(n_iter)
    for it in _iterations(n_iter, progress, "Leakage"):
        seed = int(rng.integers(2**31 - 1))
        it_rng = np.random.default_rng(seed)
        perturbed = match_accuracy(t_target, pred, scheme=perturbation, rng=it_rng, accuracy=acc)
        prepared_d = chosen.prepare(_as_input(perturbed), arg="tasks")
        train, test = _split(it_rng, n, n_test) if folds is None else folds[it]
        y_tr, y_te = g_target.take(train), g_target.take(test)
        p_d = chosen.fit_predict(_rows(prepared_d, train), y_tr, _rows(prepared_d, test), seed)
        p_m = chosen.fit_predict(_rows(prepared_m, train), y_tr, _rows(prepared_m, test), seed)
        d_vals[it] = q(y_te, p_d, side="data")
        m_vals[it] = q(y_te, p_m, side="model")
    if fold:
        d_vals, m_vals = 0.5 + np.abs(d_vals - 0.5), 0.5 + np.abs(m_vals - 0.5)
    vals = m_vals - d_vals
    ci, std = _interval(vals, ci_level)
    result = PredictabilityResult(
        metric="leakage_amplification",
        value=float(np.mean(vals)),
        values=vals,
        data_quality=d_vals,
        model_quality=m_vals,
        direction=None,
        ci=ci,
        ci_level=ci_level,
        std=std,
        attacker=chosen.name,
        attacker_reason=reason,
        quality=q.name,
        perturbation=perturbation,
        model_accuracy=acc,
        n=n,
        n_iter=n_iter,
        test_size=n_test / n,
        params={
            "cv": _cv_record(cv),
            "use_scores": use_scores,
            "fold": bool(fold),
            "target_kind": g_target.kind,
            "random_state": _seed_record(random_state),
        },
    )
    result = attach_group_sizes(
        result,
        matrix_group_sizes(g_matrix),
        min_group_size=limit,
        groups=(original_groups,),
    )

    def run(label: Any, output: Any, seed: int) -> float:
        return leakage_amplification(
            groups=groups, tasks=label, tasks_pred=output, attacker=attacker, quality=quality,
            n_iter=None if cv is not None else n_iter, test_size=test_size, cv=cv,
            perturbation=perturbation, use_scores=use_scores, positive_label=positive_label,
            fold=fold, ci=ci_level, random_state=seed, min_group_size=None,
        ).value  # fmt: skip

    return refit_swap_test(
        result, run=run, label=tasks, output=tasks_pred, label_arg="tasks",
        output_arg="tasks_pred", n_perm=n_perm, random_state=random_state, progress=progress,
    )  # fmt: skip
