"""Tests of RBA (Zhao et al. 2017, section 4): exact inference, constraint algebra, convergence,
and the Lagrangian theory the history must obey."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import biasamp
from biasamp import CandidateOutputs, rba
from biasamp.mitigation._rba import (
    ERR_ETA,
    ERR_PENALTY,
    ERR_STRUCTURE,
    _constraint_values,
    _pair_weights,
    rba_constraints,
)
from biasamp.mitigation._rba_inference import (
    ERR_CANDIDATE_MISSING,
    ERR_MULTILABEL_SCORES,
    ERR_SCORE_SHAPE,
)
from biasamp.mitigation._rba_inference import CandidateProblem as _CandidateProblem
from biasamp.mitigation._rba_inference import MultilabelProblem as _MultilabelProblem
from biasamp.mitigation._rba_inference import SingleProblem as _SingleProblem

# ----------------------------------------------------------------- brute force


def brute_multilabel(gs, ts, W, mask=None):
    """Enumerate every (group, task set) of every instance; penalty W[g, t] per pair in the
    output (only where mask[i, g, t] when a mask is given). Ties: first group, then absent."""
    n, n_g, n_t, _ = ts.shape
    out_g, out_s = [], []
    for i in range(n):
        best, arg = -np.inf, None
        for g in range(n_g):
            for bits in itertools.product([0, 1], repeat=n_t):
                score = gs[i, g]
                for t, b in enumerate(bits):
                    score += ts[i, g, t, 0] if b else ts[i, g, t, 1]
                    if b and (mask is None or mask[i, g, t]):
                        score -= W[g, t]
                if score > best + 1e-12:
                    best, arg = score, (g, bits)
        out_g.append(arg[0])
        out_s.append(arg[1])
    return np.array(out_g), np.array(out_s, dtype=bool)


def brute_single(s, W, chosen=None):
    n, n_g, n_t = s.shape
    out = []
    for i in range(n):
        best, arg = -np.inf, None
        for g in range(n_g):
            for t in range(n_t):
                pen = W[g, t] if chosen is None or chosen[i] == (g, t) else 0.0
                if s[i, g, t] - pen > best + 1e-12:
                    best, arg = s[i, g, t] - pen, (g, t)
        out.append(arg)
    return out


def brute_candidates(scores, instance, group, tasks, W, chosen_pairs=None):
    """Per instance, the best candidate under penalties on its (group, task) pairs."""
    out = {}
    for c in range(len(scores)):
        i = instance[c]
        pairs = [(group[c], t) for t in np.nonzero(tasks[c])[0]]
        pen = sum(W[p] for p in pairs if chosen_pairs is None or p in chosen_pairs[i])
        value = scores[c] - pen
        if i not in out or value > out[i][0] + 1e-12:
            out[i] = (value, c)
    return np.array([out[i][1] for i in sorted(out)])


seeds = st.integers(min_value=0, max_value=2**31 - 1)


@settings(max_examples=30, deadline=None)
@given(seed=seeds, n_g=st.integers(2, 3), n_t=st.integers(1, 4))
def test_multilabel_inference_matches_brute_force(seed, n_g, n_t):
    rng = np.random.default_rng(seed)
    n = 5
    gs, ts = rng.normal(size=(n, n_g)), rng.normal(size=(n, n_g, n_t, 2))
    W = rng.normal(size=(n_g, n_t))
    problem = _MultilabelProblem(gs, ts)
    g, present, primal, counts = problem.infer(W)
    bg, bs = brute_multilabel(gs, ts, W)
    np.testing.assert_array_equal(g, bg)
    np.testing.assert_array_equal(present, bs)
    # primal is the original (unpenalised) score of the chosen outputs
    expected = sum(
        gs[i, g[i]] + np.where(present[i], ts[i, g[i], :, 0], ts[i, g[i], :, 1]).sum()
        for i in range(n)
    )
    assert primal == pytest.approx(expected)
    np.testing.assert_array_equal(
        counts, [[present[g == k, t].sum() for t in range(n_t)] for k in range(n_g)]
    )
    # reference behaviour: only the pairs of a previous output are penalised
    g_prev = rng.integers(0, n_g, n)
    s_prev = rng.random((n, n_t)) < 0.5
    mask = np.zeros((n, n_g, n_t), dtype=bool)
    mask[np.arange(n), g_prev] = s_prev
    g2, present2, primal2, _ = problem.infer(W, (g_prev, s_prev))
    bg2, bs2 = brute_multilabel(gs, ts, W, mask)
    np.testing.assert_array_equal(g2, bg2)
    np.testing.assert_array_equal(present2, bs2)
    expected2 = sum(
        gs[i, g2[i]] + np.where(present2[i], ts[i, g2[i], :, 0], ts[i, g2[i], :, 1]).sum()
        for i in range(n)
    )
    assert primal2 == pytest.approx(expected2)


def test_blocked_multilabel_inference_equals_one_block(monkeypatch):
    """The inference runs over blocks of instances; any block size gives the same outputs."""
    import biasamp.mitigation._rba_inference as inference

    rng = np.random.default_rng(8)
    gs, ts = rng.normal(size=(103, 3)), rng.normal(size=(103, 3, 5, 2))
    W = rng.normal(size=(3, 5))
    whole = _MultilabelProblem(gs, ts).infer(W)
    monkeypatch.setattr(inference, "BLOCK_ROWS", 7)
    blocked = _MultilabelProblem(gs, ts).infer(W)
    for a, b in zip(whole, blocked, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-12)
    bg, bs = brute_multilabel(gs[:20], ts[:20], W)
    np.testing.assert_array_equal(blocked[0][:20], bg)
    np.testing.assert_array_equal(blocked[1][:20], bs)


@settings(max_examples=30, deadline=None)
@given(seed=seeds, n_g=st.integers(2, 3), n_t=st.integers(1, 4))
def test_single_inference_matches_brute_force(seed, n_g, n_t):
    rng = np.random.default_rng(seed)
    s, W = rng.normal(size=(6, n_g, n_t)), rng.normal(size=(n_g, n_t))
    problem = _SingleProblem(s)
    g, t, _, _ = problem.infer(W)
    assert list(zip(g.tolist(), t.tolist(), strict=True)) == brute_single(s, W)
    prev_g, prev_t = rng.integers(0, n_g, 6), rng.integers(0, n_t, 6)
    g2, t2, _, _ = problem.infer(W, problem.state(prev_g, prev_t))
    chosen = list(zip(prev_g.tolist(), prev_t.tolist(), strict=True))
    assert list(zip(g2.tolist(), t2.tolist(), strict=True)) == brute_single(s, W, chosen)


@settings(max_examples=30, deadline=None)
@given(seed=seeds)
def test_candidate_inference_matches_brute_force(seed):
    rng = np.random.default_rng(seed)
    n, n_g, n_t = 5, 2, 3
    per = rng.integers(1, 5, n)
    instance = rng.permutation(np.repeat(np.arange(n), per))  # unsorted on purpose
    m = instance.size
    group = rng.integers(0, n_g, m)
    tasks = (rng.random((m, n_t)) < 0.5).astype(float)
    scores = rng.normal(size=m)
    W = rng.normal(size=(n_g, n_t))
    problem = _CandidateProblem(
        CandidateOutputs(scores, instance, group, sp.csr_matrix(tasks)), n_g, n_t
    )
    best, _, primal, counts = problem.infer(W)
    original = problem.order[best]  # candidate ids in the caller's order
    np.testing.assert_array_equal(original, brute_candidates(scores, instance, group, tasks, W))
    assert primal == pytest.approx(scores[original].sum())
    expected_counts = np.zeros((n_g, n_t))
    for c in original:
        expected_counts[group[c]] += tasks[c]
    np.testing.assert_array_equal(counts, expected_counts)
    # reference: penalise only the pairs of the instance's previous output
    prev = np.array([problem.starts[i] + (problem.instance == i).sum() - 1 for i in range(n)])
    chosen_pairs = {
        i: {(group[problem.order[c]], t) for t in np.nonzero(tasks[problem.order[c]])[0]}
        for i, c in enumerate(prev)
    }
    best2, _, _, _ = problem.infer(W, prev)
    np.testing.assert_array_equal(
        problem.order[best2], brute_candidates(scores, instance, group, tasks, W, chosen_pairs)
    )


@pytest.mark.filterwarnings("ignore::biasamp.RBAConvergenceWarning")
def test_candidates_equal_single_structure():
    """A 'single' problem written as candidates (one per pair) gives the same RBA run."""
    rng = np.random.default_rng(3)
    n, n_g, n_t = 60, 2, 3
    s = rng.normal(size=(n, n_g, n_t)) + np.array([[0.0], [0.6]])[None]
    g_train = np.repeat(["a", "b"], [50, 50])
    t_train = np.tile(["x", "y", "z", "x"], 25)
    instance = np.repeat(np.arange(n), n_g * n_t)
    group = np.tile(np.repeat(np.arange(n_g), n_t), n)
    tasks = np.tile(np.eye(n_t), (n * n_g, 1))
    cands = CandidateOutputs(s.reshape(-1), instance, group, tasks)
    for penalty in ("lagrangian", "reference"):
        a = rba(
            s,
            structure="single",
            groups_train=g_train,
            tasks_train=t_train,
            penalty=penalty,
            max_iter=30,
        )
        b = rba(
            cands,
            structure="candidates",
            groups_train=g_train,
            tasks_train=t_train,
            penalty=penalty,
            max_iter=30,
        )
        np.testing.assert_array_equal(a.groups_pred, b.groups_pred)
        np.testing.assert_array_equal(a.tasks_pred, b.tasks_pred)
        pd.testing.assert_frame_equal(a.history, b.history)


# ----------------------------------------------------------- constraint algebra


@settings(max_examples=60, deadline=None)
@given(
    b=st.floats(0.0, 1.0), margin=st.floats(0.0, 0.3), m=st.integers(0, 200), f=st.integers(0, 200)
)
def test_constraints_match_reference_forms_and_eq2(b, margin, m, f):
    lower, upper = rba_constraints(np.array([[b], [1 - b]]), margin, np.array([True]))
    assert lower.shape == upper.shape == (1, 2, 1)  # two groups: only the first group's rows
    # the reference's forms (inference_debias.get_constraints), coefficients on (man, woman)
    np.testing.assert_allclose(lower[0, :, 0], [b - 1 - margin, b - margin], atol=1e-12)
    np.testing.assert_allclose(upper[0, :, 0], [1 - margin - b, -(margin + b)], atol=1e-12)
    counts = np.array([[m], [f]], dtype=float)
    values = _constraint_values(counts, lower, upper)[:, 0, 0]
    if m + f > 0:
        share = m / (m + f)
        # eq. 2 on the ratio, away from the boundary where rounding decides
        if abs(share - (b - margin)) > 1e-9:
            assert (values[0] <= 0) == (share >= b - margin)
        if abs(share - (b + margin)) > 1e-9:
            assert (values[1] <= 0) == (share <= b + margin)
    else:
        np.testing.assert_array_equal(values, [0.0, 0.0])  # no prediction: satisfied


@settings(max_examples=40, deadline=None)
@given(seed=seeds, margin=st.floats(0.0, 0.2))
def test_constraints_three_groups_bound_each_share(seed, margin):
    rng = np.random.default_rng(seed)
    b = rng.dirichlet(np.ones(3), size=4).T  # (|G|, |T|)
    counts = rng.integers(0, 30, size=(3, 4)).astype(float)
    lower, upper = rba_constraints(b, margin, np.ones(4, dtype=bool))
    assert lower.shape == (3, 3, 4)
    values = _constraint_values(counts, lower, upper)  # (2, |G|, |T|)
    total = counts.sum(axis=0)
    for g in range(3):
        for t in range(4):
            if total[t] == 0:
                continue
            share = counts[g, t] / total[t]
            if abs(share - (b[g, t] - margin)) > 1e-9:
                assert (values[0, g, t] <= 0) == (share >= b[g, t] - margin)
            if abs(share - (b[g, t] + margin)) > 1e-9:
                assert (values[1, g, t] <= 0) == (share <= b[g, t] + margin)


def test_pair_weights_are_lambda_transpose_a():
    rng = np.random.default_rng(0)
    b = rng.dirichlet(np.ones(3), size=2).T
    lower, upper = rba_constraints(b, 0.05, np.ones(2, dtype=bool))
    lam = rng.random((2, 3, 2))
    W = _pair_weights(lam, lower, upper)
    counts = rng.random((3, 2))
    # lambda^T (A c) == sum over pairs of W * c, for any counts c
    assert (lam * _constraint_values(counts, lower, upper)).sum() == pytest.approx(
        (W * counts).sum()
    )


# -------------------------------------------------------------- the algorithm


def satisfiable_single(seed: int = 0, n: int = 400):
    """Two groups, three tasks; the scores favour group 1 everywhere by distinct margins,
    so flipping the least confident instances satisfies every constraint."""
    rng = np.random.default_rng(seed)
    tasks = rng.integers(0, 3, n)
    s = np.full((n, 2, 3), -5.0)
    s[np.arange(n), 0, tasks] = 0.0
    s[np.arange(n), 1, tasks] = rng.uniform(0.01, 2.0, n)
    g_train = np.where(rng.random(1000) < 0.5, "m", "w")
    t_train = rng.choice(["a", "b", "c"], 1000)
    return s, g_train, t_train, tasks


@pytest.mark.parametrize("penalty", ["lagrangian", "reference"])
@pytest.mark.parametrize("scale,eta", [("share", 1.0), ("count", 0.02)])
def test_satisfiable_problem_ends_satisfied(penalty, scale, eta):
    s, g_train, t_train, _ = satisfiable_single(n=150)
    result = rba(
        s,
        structure="single",
        groups_train=g_train,
        tasks_train=t_train,
        penalty=penalty,
        scale=scale,
        eta=eta,
        max_iter=200,
    )
    assert result.converged
    assert result.history["violated_constraints"].iloc[-1] == 0
    assert result.history["violated_constraints"].iloc[0] == 3  # all tasks predicted 'w' only
    after = biasamp.mals(
        groups_train=g_train,
        tasks_train=t_train,
        groups_pred=result.groups_pred,
        tasks_pred=result.tasks_pred,
    )
    assert after.violations == 0
    b = biasamp.bias_scores(g_train, tasks=t_train)
    pred = biasamp.bias_scores(result.groups_pred, tasks=result.tasks_pred)
    assert (np.abs(pred - b).to_numpy() <= 0.05 + 1e-12).all()
    # the tasks never change in this problem: only groups are recalibrated
    np.testing.assert_array_equal(result.tasks_pred, result.tasks_pred_before)


def test_three_groups_end_satisfied():
    rng = np.random.default_rng(1)
    n = 600
    tasks = rng.integers(0, 2, n)
    s = np.full((n, 3, 2), -9.0)
    for g, shift in enumerate([0.0, 0.5, 1.0]):
        s[np.arange(n), g, tasks] = shift + rng.uniform(0, 1, n)
    g_train = rng.choice(["a", "b", "c"], 3000)
    t_train = rng.choice(["x", "y"], 3000)
    result = rba(
        s, structure="single", groups_train=g_train, tasks_train=t_train, eta=0.5, max_iter=400
    )
    assert result.converged
    assert len(result.multipliers) == 6  # every group's share is bounded when |G| > 2
    pred = biasamp.bias_scores(result.groups_pred, tasks=result.tasks_pred)
    b = biasamp.bias_scores(g_train, tasks=t_train)
    assert (np.abs(pred - b).to_numpy() <= 0.05 + 1e-12).all()


def tiny_problem():
    rng = np.random.default_rng(7)
    s = rng.normal(size=(6, 2, 2))
    s[:, 1] += 0.8  # favour group 1
    return s, ["m", "w", "m", "w"], ["a", "a", "b", "b"]


def constrained_optimum(s, margin=0.05):
    """Brute force over every joint assignment of the corpus (4^6 here)."""
    n, n_g, n_t = s.shape
    b = 0.5
    best = -np.inf
    for combo in itertools.product(range(n_g * n_t), repeat=n):
        counts = np.zeros((n_g, n_t))
        total = 0.0
        for i, k in enumerate(combo):
            counts[k // n_t, k % n_t] += 1
            total += s[i, k // n_t, k % n_t]
        ok = True
        for t in range(n_t):
            c = counts[:, t].sum()
            if c and not (b - margin <= counts[0, t] / c <= b + margin):
                ok = False
        if ok:
            best = max(best, total)
    return best


def test_dual_values_bound_the_constrained_optimum():
    """Weak duality: for any lambda >= 0, L(lambda) = max_y sum_i f - lambda^T A sum_i y is
    >= the constrained optimum (eq. 3). With penalty='lagrangian' each iteration's output
    maximises L(lambda_{t-1}, .), so the recorded 'lagrangian' is the dual value and must
    never fall below the brute-force optimum; the first row (lambda = 0) is the unconstrained
    optimum, where lagrangian == primal."""
    s, g_train, t_train = tiny_problem()
    opt = constrained_optimum(s)
    assert np.isfinite(opt)
    for scale, eta in (("share", 0.5), ("count", 0.3)):
        result = rba(
            s,
            structure="single",
            groups_train=g_train,
            tasks_train=t_train,
            scale=scale,
            eta=eta,
            max_iter=60,
        )
        h = result.history
        assert (h["lagrangian"] >= opt - 1e-9).all()
        assert h["lagrangian"].iloc[0] == pytest.approx(h["primal"].iloc[0])
        assert h["primal"].iloc[0] >= opt
        assert h["multiplier_norm"].iloc[0] == 0.0
        # a feasible iterate can never beat the optimum
        feasible = h["violated_constraints"] == 0
        assert (h.loc[feasible, "primal"] <= opt + 1e-9).all()


def test_constraint_value_is_monotone_in_its_multiplier():
    """Per instance, argmax_y f(y) - lam * a(y) has a(y) non-increasing in lam (compare the
    two optimality inequalities). So with one constraint the corpus value A sum_i y^i is
    non-increasing along an increasing multiplier, for every structure."""
    rng = np.random.default_rng(5)
    b = np.array([[0.7, 0.4], [0.3, 0.6]])
    lower, upper = rba_constraints(b, 0.05, np.array([True, False]))
    problems = [
        _SingleProblem(rng.normal(size=(300, 2, 2))),
        _MultilabelProblem(rng.normal(size=(300, 2)), rng.normal(size=(300, 2, 2, 2))),
    ]
    for problem in problems:
        previous = np.inf
        for lam_u in np.linspace(0, 3, 40):
            lam = np.zeros((2, 1, 2))
            lam[1, 0, 0] = lam_u
            _, _, _, counts = problem.infer(_pair_weights(lam, lower, upper))
            value = _constraint_values(counts, lower, upper)[1, 0, 0]
            assert value <= previous + 1e-9
            previous = value


@pytest.mark.filterwarnings("ignore::biasamp.RBAConvergenceWarning")
def test_multiplier_update_is_projected_subgradient():
    """lambda_t = max(0, lambda_{t-1} + eta * A c_t) with scale='count': with one violated
    upper constraint the norm grows by exactly eta * (A c) each step until it is satisfied."""
    s, g_train, t_train, tasks = satisfiable_single(n=200)
    result = rba(
        s,
        structure="single",
        groups_train=g_train,
        tasks_train=t_train,
        scale="count",
        eta=1e-4,
        max_iter=3,
        schedule="constant",
        constrained_tasks=["a"],
    )
    h = result.history
    assert list(h["violated_constraints"]) == [1, 1, 1]
    b = biasamp.bias_scores(g_train, tasks=t_train).loc["a", "m"]
    n_a = (tasks == 0).sum()
    # group 'm' share is 0 < b - margin: lower constraint value = (b - margin) * n_a
    expected_step = 1e-4 * (b - 0.05) * n_a
    np.testing.assert_allclose(h["multiplier_norm"], [0, expected_step, 2 * expected_step])


# ------------------------------------------------------------------- results


def test_multilabel_result_feeds_the_metrics():
    rng = np.random.default_rng(11)
    n, names = 300, ["x", "y", "z"]
    g_train = rng.choice(["m", "w"], 800, p=[0.6, 0.4])
    t_train = pd.DataFrame((rng.random((800, 3)) < 0.3).astype(int), columns=names)
    gs = rng.normal(size=(n, 2)) + np.array([1.0, 0.0])
    ts = rng.normal(size=(n, 2, 3, 2))
    truth_g = rng.choice(["m", "w"], n)
    truth_t = pd.DataFrame((rng.random((n, 3)) < 0.3).astype(int), columns=names)
    result = rba(
        (gs, ts),
        structure="multilabel",
        groups_train=g_train,
        tasks_train=t_train,
        groups=truth_g,
        tasks=truth_t,
        max_iter=20,
    )
    assert isinstance(result.tasks_pred, pd.DataFrame)
    assert list(result.tasks_pred.columns) == names
    again = biasamp.mals(
        groups_train=g_train,
        tasks_train=t_train,
        groups_pred=result.groups_pred,
        tasks_pred=result.tasks_pred,
    )
    assert again.value == pytest.approx(result.mals_after.value)
    assert again.violations == result.mals_after.violations
    before = biasamp.mals(
        groups_train=g_train,
        tasks_train=t_train,
        groups_pred=result.groups_pred_before,
        tasks_pred=result.tasks_pred_before,
    )
    assert before.value == pytest.approx(result.history["mals"].iloc[0])
    table = result.table()
    assert list(table.index) == ["before", "after"]
    assert list(table.columns) == ["Viol.", "Amp. bias (MALS)", "task macro-F1", "group accuracy"]
    acc = (result.groups_pred == truth_g).mean()
    assert table.loc["after", "group accuracy"] == pytest.approx(acc)
    assert "Amp. bias (MALS)" in str(result)
    # macro-F1 by hand against sklearn
    from sklearn.metrics import f1_score

    f1 = f1_score(
        truth_t.to_numpy(), result.tasks_pred.to_numpy(), average="macro", zero_division=0
    )
    assert table.loc["after", "task macro-F1"] == pytest.approx(f1)


def test_select_best_returns_fewest_violations_then_highest_score():
    s, g_train, t_train, _ = satisfiable_single(n=60)
    kw = {"groups_train": g_train, "tasks_train": t_train, "eta": 2.0, "max_iter": 20}
    with pytest.warns(biasamp.RBAConvergenceWarning, match="still violated"):
        # too large a constant step: it oscillates and ends on a violated iterate
        last = rba(s, structure="single", schedule="constant", select="last", **kw)
    with pytest.warns(biasamp.RBAConvergenceWarning, match="still violated"):
        best = rba(s, structure="single", schedule="constant", select="best", **kw)
    h = best.history
    pd.testing.assert_frame_equal(h, last.history)
    fewest = h["violated_constraints"].to_numpy()
    assert fewest[-1] > fewest.min()  # the two selections differ here
    # by hand: among the rows with the fewest violated constraints, the highest primal
    tied = np.nonzero(fewest == fewest.min())[0]
    row = tied[np.argmax(h["primal"].to_numpy()[tied])]
    assert best.selected_iteration == row + 1
    assert last.selected_iteration == len(h)
    assert best.mals_after.value == pytest.approx(h["mals"].iloc[row])
    assert best.mals_after.extras["violations"] == h["violations"].iloc[row]
    assert last.mals_after.value == pytest.approx(h["mals"].iloc[-1])


def test_select_best_breaks_ties_on_the_original_score():
    from biasamp.mitigation._rba import _select

    h = pd.DataFrame({"violated_constraints": [3, 1, 2, 1, 1], "primal": [9.0, 4.0, 8.0, 6.0, 6.0]})
    assert _select(h, "best") == 3  # fewest (1), then highest primal (6), then earliest
    assert _select(h, "last") == 4


def test_schedules_follow_their_rules():
    """constant: the base step every iteration; decay: base / sqrt(t); adaptive: a
    constraint's step halves when its value changes sign with a positive multiplier and
    grows back (never above the base step) while it stays violated."""
    s, g_train, t_train, _ = satisfiable_single(n=60)
    kw = {"groups_train": g_train, "tasks_train": t_train, "eta": 2.0, "max_iter": 20}
    with pytest.warns(biasamp.RBAConvergenceWarning):
        constant = rba(s, structure="single", schedule="constant", **kw)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", biasamp.RBAConvergenceWarning)
        decay = rba(s, structure="single", schedule="decay", **kw)
    adaptive = rba(s, structure="single", schedule="adaptive", **kw)
    step0 = constant.history["step"].iloc[0]
    assert (constant.history["step"] == step0).all()
    t = decay.history["iteration"].to_numpy()
    np.testing.assert_allclose(decay.history["step"], step0 / np.sqrt(t))
    assert (adaptive.history["step"] <= step0).all()
    # the oscillating constant step never satisfies every constraint; the adaptive one does
    assert not constant.converged and adaptive.converged
    assert adaptive.history["violated_constraints"].iloc[-1] == 0


def test_adaptive_step_rule_by_hand():
    from biasamp.mitigation._rba import adapt_steps

    full = np.full(5, 0.8)
    steps = np.array([0.8, 0.4, 0.4, 0.8, 0.1])
    values = np.array([-2.0, 3.0, 1.0, 0.5, -0.1])
    previous = np.array([1.0, 2.0, -1.0, 4.0, 0.2])
    lam = np.array([0.5, 0.5, 0.5, 0.5, 0.0])
    # 0: overshot (sign flip, positive multiplier) -> halved; 1: still violated -> x1.2;
    # 2: flipped from satisfied to violated -> halved; 3: violated, x1.2 capped at 0.8;
    # 4: sign flip but multiplier 0 (projected) -> unchanged
    np.testing.assert_allclose(
        adapt_steps(steps, full, values, previous, lam), [0.4, 0.48, 0.2, 0.8, 0.1]
    )


def test_bad_schedule_and_select():
    from biasamp.mitigation._rba import ERR_SCHEDULE, ERR_SELECT

    s, g_train, t_train, _ = satisfiable_single(n=20)
    kw = {"groups_train": g_train, "tasks_train": t_train}
    with pytest.raises(ValueError, match="schedule: expected one of"):
        rba(s, structure="single", schedule="fast", **kw)
    with pytest.raises(ValueError, match="select: expected one of"):
        rba(s, structure="single", select="first", **kw)
    assert "{got" in ERR_SCHEDULE and "{got" in ERR_SELECT


def test_non_convergence_warns_with_the_numbers():
    s, g_train, t_train, _ = satisfiable_single(n=60)
    with pytest.warns(biasamp.RBAConvergenceWarning) as record:
        result = rba(s, structure="single", groups_train=g_train, tasks_train=t_train, max_iter=2)
    h = result.history
    message = str(next(w.message for w in record if w.category is biasamp.RBAConvergenceWarning))
    violated = int(h["violated_constraints"].iloc[result.selected_iteration - 1])
    assert f"{violated} of 6 constraints are still violated after 2 iterations" in message
    assert f"input decoding violated {int(h['violated_constraints'].iloc[0])}" in message
    assert not result.converged


def test_select_last_warns_when_worse_than_the_input_on_both_counts():
    """A run whose last iterate has more violated constraints and a lower accuracy than
    the input is reported; select='best' returns an iterate no worse on violations."""
    rng = np.random.default_rng(3)
    n, names = 300, list("abcd")
    truth_g, truth_t = rng.choice(["m", "w"], n), rng.choice(names, n)
    s = rng.normal(size=(n, 2, 4))
    s[np.arange(n), (truth_g == "w").astype(int), np.searchsorted(names, truth_t)] += 2.0
    kw = {
        "groups_train": truth_g,
        "tasks_train": truth_t,
        "groups": truth_g,
        "tasks": truth_t,
        "eta": 20.0,  # far too large: each step throws instances past the bounds
        "max_iter": 4,
        "schedule": "constant",
    }
    with pytest.warns(biasamp.RBAConvergenceWarning) as record:
        last = rba(s, structure="single", select="last", **kw)
    h = last.history
    assert h["violated_constraints"].iloc[-1] > h["violated_constraints"].iloc[0]
    before, after = last.performance_before, last.performance_after
    assert after["task accuracy"] < before["task accuracy"]
    assert any("worse than the input on both counts" in str(w.message) for w in record)
    with pytest.warns(biasamp.RBAConvergenceWarning) as record:
        best = rba(s, structure="single", select="best", **kw)
    assert not any("worse than the input" in str(w.message) for w in record)
    chosen = best.history["violated_constraints"].iloc[best.selected_iteration - 1]
    assert chosen <= best.history["violated_constraints"].iloc[0]


def test_bad_inputs():
    s, g_train, t_train, _ = satisfiable_single(n=20)
    kw = {"groups_train": g_train, "tasks_train": t_train}
    with pytest.raises(ValueError, match="structure"):
        rba(s, structure="tree", **kw)
    with pytest.raises(ValueError, match="penalty"):
        rba(s, structure="single", penalty="x", **kw)
    with pytest.raises(ValueError, match="eta"):
        rba(s, structure="single", eta=0, **kw)
    with pytest.raises(ValueError, match="max_iter"):
        rba(s, structure="single", max_iter=0, **kw)
    with pytest.raises(ValueError, match="needs the training side"):
        rba(s, structure="single")
    with pytest.raises(ValueError, match="task axis"):
        rba(s[:, :, :2], structure="single", **kw)
    with pytest.raises(TypeError, match="pair"):
        rba(s, structure="multilabel", **kw)
    with pytest.raises(ValueError, match="NaN"):
        bad = s.copy()
        bad[0, 0, 0] = np.nan
        rba(bad, structure="single", **kw)
    with pytest.raises(ValueError, match="no candidate"):
        rba(
            CandidateOutputs([0.0, 1.0], [0, 2], [0, 1], np.eye(3)[:2]),
            structure="candidates",
            **kw,
        )
    with pytest.raises(ValueError, match="constrained_tasks"):
        rba(s, structure="single", constrained_tasks=["nope"], **kw)
    assert "{got" in ERR_STRUCTURE and "{got" in ERR_PENALTY and "{got" in ERR_ETA
    assert "pair" in ERR_MULTILABEL_SCORES and "label space" in ERR_SCORE_SHAPE
    assert "no candidate" in ERR_CANDIDATE_MISSING


def test_progress_bar_runs_and_stops(capsys):
    s, g_train, t_train, _ = satisfiable_single(n=150)
    quiet = rba(s, structure="single", groups_train=g_train, tasks_train=t_train, max_iter=50)
    shown = rba(
        s, structure="single", groups_train=g_train, tasks_train=t_train, max_iter=50, progress=True
    )
    pd.testing.assert_frame_equal(quiet.history, shown.history)
    assert capsys.readouterr().out == ""  # the bar goes to stderr; stdout stays clean
