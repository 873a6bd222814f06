"""Group shares across model generations, and the bound of data feedback loops.

Wang et al. ("Bias Amplification: Large Language Models as Increasingly Biased
Media", IJCNLP-AACL 2025) fine-tune GPT-2 on its own outputs for ten generations
and share each generation's articles out by political lean (the argmax of a
classifier's three scores). :func:`share_trajectory` gives those shares per step
with bootstrap intervals, each group's change from the first step, and a trend:
the slope of the first step's majority group's share over the steps.

Taori & Hashimoto ("Data Feedback Loops", ICML 2023), Theorem 1, bound the bias
after ``t`` rounds in which ``k`` model-labelled and ``m`` human-labelled samples
join ``n0`` initial ones; :func:`feedback_bound` evaluates it.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from biasamp._memory import check_allocation
from biasamp.counts._poisson import checked_generator
from biasamp.generated._results import ShareTrajectoryResult
from biasamp.generated._tables import (
    BLOCK_CELLS,
    boot_count,
    checked_labels,
    crosstab_codes,
)
from biasamp.inputs._label_matrix import check_same_length
from biasamp.results._intervals import check_ci, interval_from_replicates

__all__ = ["feedback_bound", "share_trajectory"]

ERR_ONE_STEP = "steps: a trajectory needs at least 2 steps, got {n} ({steps})."
ERR_GROUP_NAMES = "group_names: the group(s) {missing} of groups are not listed."
ERR_GROUP_NAMES_TYPE = "group_names: expected a list of distinct group names, got {got!r}."
ERR_ROUNDS = "rounds: expected an integer >= 0, got {got!r}."
ERR_BOUND_ARG = "{arg}: expected a finite number {rule}, got {got!r}."


def _step_values(names: tuple[Any, ...]) -> tuple[np.ndarray, bool]:
    numeric = all(
        isinstance(s, (int, float, np.integer, np.floating)) and not isinstance(s, (bool, np.bool_))
        for s in names
    )
    if numeric:
        return np.asarray(names, dtype=np.float64), True
    return np.arange(len(names), dtype=np.float64), False


def _slopes(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Least-squares slope of ``y`` (..., S) on ``x`` (S,)."""
    xc = x - x.mean()
    return (y - y.mean(axis=-1, keepdims=True)) @ xc / float(xc @ xc)


def share_trajectory(
    groups: Any = None,
    steps: Any = None,
    *,
    group_names: Any = None,
    n_boot: int | None = None,
    ci: float = 0.95,
    random_state: Any = None,
) -> ShareTrajectoryResult:
    """Each group's share of the outputs per step (model generation, checkpoint), with a trend.

    Parameters
    ----------
    groups : array-like of shape (n_outputs,)
        The group of each output (the article's political lean, the image's gender).
    steps : array-like of shape (n_outputs,)
        The step each output comes from (generation 0, 1, ...). Steps are sorted;
        numbers are the x of the slope, other labels are placed at 0, 1, 2, ...
    group_names : sequence, optional
        The groups, in the order of the columns (default: sorted); a group listed
        here with no output has share 0.
    n_boot : int, optional
        Bootstrap replicates: outputs resampled within each step. Gives the share
        intervals (``shares_low``, ``shares_high``) and the slope's interval.
    ci : float, default 0.95
        Confidence level.
    random_state : int, Generator or None
        Seed of the bootstrap.

    Returns
    -------
    ShareTrajectoryResult
        ``shares`` (steps x groups, rows sum to 1), ``counts``, ``change`` (from the
        first step), ``majority_group`` (largest share at the first step; the first
        in column order on a tie), ``value`` (the slope of its share per step) and
        its interval; ``plot()`` draws the trajectory.

    Examples
    --------
    >>> from biasamp import share_trajectory
    >>> steps = [0] * 4 + [1] * 4 + [2] * 4
    >>> lean = ["right", "right", "left", "left",
    ...         "right", "right", "right", "left",
    ...         "right", "right", "right", "right"]
    >>> result = share_trajectory(groups=lean, steps=steps)
    >>> result.shares["right"].tolist()
    [0.5, 0.75, 1.0]
    >>> result.majority_group, result.value          # the first in column order on a tie
    ('left', -0.25)
    """
    n_boot = boot_count(n_boot)
    level = check_ci(ci)
    lean = checked_labels(groups, arg="groups")
    step = checked_labels(steps, arg="steps")
    check_same_length(groups=lean.codes, steps=step.codes)
    if len(step.names) < 2:
        raise ValueError(ERR_ONE_STEP.format(n=len(step.names), steps=list(step.names)))
    names = list(lean.names)
    codes = lean.codes
    if group_names is not None:
        from biasamp.inputs._keys import key_names

        if isinstance(group_names, (str, bytes)) or not hasattr(group_names, "__iter__"):
            raise TypeError(ERR_GROUP_NAMES_TYPE.format(got=group_names))
        listed = list(group_names)
        keys = key_names(listed, arg="group_names")
        missing = [k for k in lean.keys if k not in keys]
        if missing:
            raise ValueError(ERR_GROUP_NAMES.format(missing=missing))
        codes = np.array([keys.index(k) for k in lean.keys], dtype=np.intp)[codes]
        names = listed
    k, s = len(names), len(step.names)
    counts = crosstab_codes(step.codes, codes, s, k)
    n_step = counts.sum(axis=1)
    shares = counts / n_step[:, None]
    x, numeric = _step_values(step.names)
    majority = int(np.argmax(shares[0]))
    slope = float(_slopes(x, shares[:, majority]))
    index = pd.Index(list(step.names), name="step")
    columns = pd.Index(names, name="group")
    share_frame = pd.DataFrame(shares, index=index, columns=columns)
    interval = se = replicates = None
    low_frame = high_frame = None
    if n_boot:
        check_allocation(
            float(n_boot) * s * k * 8.0 * 2 + BLOCK_CELLS * 8.0 * 4,
            what=f"n_boot={n_boot} bootstrap replicates of {s} steps x {k} groups",
            advice="use fewer replicates (n_boot)",
        )
        rng = checked_generator(random_state)
        drawn = np.empty((n_boot, s, k))
        block = max(1, min(n_boot, BLOCK_CELLS // max(1, s * k)))
        for start in range(0, n_boot, block):
            b = min(block, n_boot - start)
            drawn[start : start + b] = (
                rng.multinomial(n_step, shares, size=(b, s)) / n_step[:, None]
            )
        replicates = _slopes(x, drawn[:, :, majority])
        low, high, se_value = interval_from_replicates(replicates, ci=level)
        interval, se = (float(low), float(high)), float(se_value)
        s_low, s_high, _ = interval_from_replicates(drawn, ci=level)
        low_frame = pd.DataFrame(np.asarray(s_low), index=index, columns=columns)
        high_frame = pd.DataFrame(np.asarray(s_high), index=index, columns=columns)
    params: dict[str, Any] = {"n_boot": int(n_boot), "numeric_steps": bool(numeric)}
    if isinstance(random_state, (int, np.integer)) and not isinstance(random_state, bool):
        params["random_state"] = int(random_state)
    return ShareTrajectoryResult(
        metric="share_trajectory",
        value=slope,
        shares=share_frame,
        counts=pd.DataFrame(counts, index=index, columns=columns),
        change=share_frame - share_frame.iloc[0],
        majority_group=names[majority],
        step_values=x,
        n=int(n_step.sum()),
        shares_low=low_frame,
        shares_high=high_frame,
        ci=interval,
        ci_level=level if n_boot else None,
        se=se,
        replicates=replicates,
        params=params,
    )


def _number(value: Any, *, arg: str, rule: str, positive: bool) -> float:
    ok = isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(
        value, (bool, np.bool_)
    )
    if ok:
        number = float(value)
        ok = np.isfinite(number) and (number > 0 if positive else number >= 0)
    if not ok:
        raise ValueError(ERR_BOUND_ARG.format(arg=arg, rule=rule, got=value))
    return float(value)


def feedback_bound(rounds: int, *, n0: float, m: float, k: float, delta: float) -> np.ndarray:
    """Theorem 1 of Taori & Hashimoto (ICML 2023): the bias bound after t = 0 .. rounds.

    With ``n(s) = n0 + s (m + k)`` samples after ``s`` rounds, of which each round
    adds ``k`` labelled by the model and ``m`` by people,

    ``bound_t = (1 + sum_{i=1..t} k / n(i) prod_{j=i+1..t} (n(j) - m) / n(j)) * delta``

    where ``delta`` is the initial model's calibration error (how far its outputs'
    bias is from its training data's). ``bound_0 = delta``; with ``m = 0`` the bound
    grows without limit (harmonically when ``n0 = k``), and human samples
    (``m > 0``) keep it finite.

    Parameters
    ----------
    rounds : int
        The last round ``T`` (>= 0).
    n0 : float
        Initial training-set size (> 0).
    m : float
        Human-labelled samples added per round (>= 0).
    k : float
        Model-labelled samples added per round (>= 0).
    delta : float
        Calibration error of the initial model (>= 0).

    Returns
    -------
    numpy.ndarray of shape (rounds + 1,)
        The bound for t = 0 .. rounds.

    Notes
    -----
    The sum is evaluated in closed form, without a loop over rounds: with
    ``P(t) = prod_{j=1..t} (n(j) - m) / n(j)``, the sum is
    ``P(t) * cumsum(k / (n(i) P(i)))``, with ``log P`` accumulated for stability.

    Examples
    --------
    >>> from biasamp import feedback_bound
    >>> feedback_bound(2, n0=100, m=0, k=100, delta=0.1).round(4)   # 1, 1 + 1/2, 1 + 1/2 + 1/3
    array([0.1   , 0.15  , 0.1833])
    """
    if (
        isinstance(rounds, (bool, np.bool_))
        or not isinstance(rounds, (int, np.integer))
        or rounds < 0
    ):
        raise ValueError(ERR_ROUNDS.format(got=rounds))
    n0_ = _number(n0, arg="n0", rule="> 0", positive=True)
    m_ = _number(m, arg="m", rule=">= 0", positive=False)
    k_ = _number(k, arg="k", rule=">= 0", positive=False)
    delta_ = _number(delta, arg="delta", rule=">= 0", positive=False)
    t = int(rounds)
    check_allocation(
        float(t + 1) * 8.0 * 6,
        what=f"rounds={t}: the bound for {t + 1} rounds",
        advice="ask for fewer rounds",
    )
    s = np.arange(1, t + 1, dtype=np.float64)
    n = n0_ + s * (m_ + k_)
    log_ratio = np.log1p(-m_ / n)  # (n(j) - m) / n(j) > 0 since n(j) - m >= n0 + k j > 0
    log_p = np.cumsum(log_ratio)
    # sum_i k/n(i) * exp(log_p[t] - log_p[i]), via a running sum scaled to avoid overflow
    terms = (k_ / n) * np.exp(-(log_p - log_p[-1])) if t else np.zeros(0)
    sums = np.cumsum(terms) * np.exp(log_p - (log_p[-1] if t else 0.0))
    return np.concatenate([[delta_], (1.0 + sums) * delta_])
