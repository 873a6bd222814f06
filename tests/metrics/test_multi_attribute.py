"""Multi-attribute bias amplification (Zhao, Andrews & Xiang 2023) against brute force and the paper."""

from __future__ import annotations

import itertools
import re

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import biasamp
from biasamp import (
    PatternCountTable,
    directional,
    mals,
    multi_directional,
    multi_directional_from_counts,
    multi_mals,
    multi_mals_from_counts,
)
from biasamp.counts._combinations import (
    ERR_EMPTY_OBSERVED_EVAL,
    ERR_EMPTY_OBSERVED_TRAIN,
    ERR_MIN_COUNT,
    ERR_MIN_SIZE,
    ERR_MODE,
    ERR_SIZE_ORDER,
)
from biasamp.inputs._label_matrix import ERR_NON_BINARY, ERR_UNKNOWN_LABELS
from biasamp.metrics._directional import ERR_NEEDS_PRED
from biasamp.metrics._multi_attribute import ERR_ABSOLUTE, ERR_BASELINE

# ----------------------------------------------------------------------------- brute force


def _contains(rows: np.ndarray, combo: tuple[int, ...]) -> np.ndarray:
    return rows[:, list(combo)].all(axis=1) if combo else np.ones(len(rows), dtype=bool)


def brute_m(mode, tasks_train, w_train, tasks, w_eval, min_size, max_size, min_count):
    """M straight from the definitions (itertools over all combinations, dict of exact sets)."""
    n_tasks = tasks_train.shape[1]
    top = n_tasks if max_size is None else max_size
    if mode == "observed":
        exact: dict[tuple[int, ...], float] = {}
        for row, w in zip(tasks_train, w_train, strict=True):
            key = tuple(int(i) for i in np.nonzero(row)[0])
            exact[key] = exact.get(key, 0.0) + w
        return sorted(
            (
                c
                for c, cnt in exact.items()
                if cnt >= min_count
                and min_size <= len(c) <= top
                and w_eval[_contains(tasks, c)].sum() >= min_count
            ),
            key=lambda c: (len(c), c),
        )
    out = []
    for size in range(min_size, top + 1):
        for c in itertools.combinations(range(n_tasks), size):
            if (
                w_train[_contains(tasks_train, c)].sum() >= min_count
                and w_eval[_contains(tasks, c)].sum() >= min_count
            ):
                out.append(c)
    return out


def brute_multi_mals(combos, g_train, t_train, w_train, g_pred, t_pred, w_eval, n_groups, absolute):
    terms, deltas = [], []
    for c in combos:
        in_tr, in_pr = _contains(t_train, c), _contains(t_pred, c)
        co_tr = np.array([w_train[in_tr & (g_train == g)].sum() for g in range(n_groups)])
        co_pr = np.array([w_eval[in_pr & (g_pred == g)].sum() for g in range(n_groups)])
        for g in range(n_groups):
            b_train = co_tr[g] / co_tr.sum()
            biased = b_train > 1 / n_groups
            if not biased:
                deltas.append(0.0)
                continue
            if co_pr.sum() == 0:  # never predicted: contributes 0, left out of the variance
                continue
            d = co_pr[g] / co_pr.sum() - b_train
            deltas.append(d)
            terms.append(abs(d) if absolute else d)
    return sum(terms) / len(combos), float(np.var(deltas)) if deltas else np.nan


def brute_multi_directional(
    direction,
    combos,
    g_train,
    t_train,
    w_train,
    g,
    t,
    w,
    pred,
    n_groups,
    absolute,
    baseline="evaluation",
):
    n_train = w_train.sum()
    terms, deltas = [], []
    for c in combos:
        in_tr, in_ev = _contains(t_train, c), _contains(t, c)
        for a in range(n_groups):
            c_am = w_train[in_tr & (g_train == a)].sum()
            c_a, c_m = w_train[g_train == a].sum(), w_train[in_tr].sum()
            y = np.sign(n_train * c_am - c_a * c_m)
            if direction == "A->T":
                cond = g == a
                if w[cond].sum() == 0:
                    continue
                p_pred = w[cond & _contains(pred, c)].sum() / w[cond].sum()
                if baseline == "train":
                    if c_a == 0:
                        continue
                    p_true = c_am / c_a
                else:
                    p_true = w[cond & in_ev].sum() / w[cond].sum()
            else:
                cond = in_ev
                if w[cond].sum() == 0:
                    continue
                p_pred = w[cond & (pred == a)].sum() / w[cond].sum()
                if baseline == "train":
                    if c_m == 0:
                        continue
                    p_true = c_am / c_m
                else:
                    p_true = w[cond & (g == a)].sum() / w[cond].sum()
            d = p_pred - p_true
            deltas.append(d)
            terms.append(abs(d) if absolute else y * d)
    if not terms:
        return None, None
    return float(np.mean(terms)), float(np.var(deltas))


# ----------------------------------------------------------------------------- strategies
@st.composite
def splits(draw, min_rows=1):
    n_tasks = draw(st.integers(1, 4))
    n_groups = draw(st.integers(2, 3))
    n_train = draw(st.integers(min_rows, 18))
    n_eval = draw(st.integers(min_rows, 18))

    def _tasks(n):
        return np.array(
            draw(
                st.lists(
                    st.lists(st.integers(0, 1), min_size=n_tasks, max_size=n_tasks),
                    min_size=n,
                    max_size=n,
                )
            )
        )

    def _groups(n):
        return np.array(draw(st.lists(st.integers(0, n_groups - 1), min_size=n, max_size=n)))

    def _weights(n):
        return np.array(draw(st.lists(st.integers(0, 3), min_size=n, max_size=n)), dtype=float)

    return {
        "n_groups": n_groups,
        "n_tasks": n_tasks,
        "g_train": _groups(n_train),
        "t_train": _tasks(n_train),
        "w_train": _weights(n_train),
        "g": _groups(n_eval),
        "t": _tasks(n_eval),
        "w": _weights(n_eval),
        "g_pred": _groups(n_eval),
        "t_pred": _tasks(n_eval),
    }


def _kwargs(d):
    names = list(range(d["n_groups"]))
    return dict(
        groups_train=d["g_train"],
        tasks_train=d["t_train"],
        sample_weight_train=d["w_train"],
        groups=d["g"],
        tasks=d["t"],
        sample_weight=d["w"],
        group_names=names,
    )


def _names(combos):
    return [tuple(c) for c in combos]


# ----------------------------------------------------------------------------- brute force
@settings(max_examples=40, deadline=None)
@given(
    d=splits(),
    mode=st.sampled_from(["observed", "subsets"]),
    absolute=st.booleans(),
    min_size=st.integers(1, 2),
    max_size=st.sampled_from([None, 2, 3]),
    min_count=st.sampled_from([1, 2]),
)
def test_multi_mals_matches_brute_force(d, mode, absolute, min_size, max_size, min_count):
    if max_size is not None and max_size < min_size:
        return
    if d["w_train"].sum() == 0 or d["w"].sum() == 0:
        return
    combos = brute_m(
        mode, d["t_train"], d["w_train"], d["t"], d["w"], min_size, max_size, min_count
    )
    kw = _kwargs(d)
    call = dict(
        kw,
        groups_pred=d["g_pred"],
        tasks_pred=d["t_pred"],
        combinations=mode,
        min_size=min_size,
        max_size=max_size,
        min_count=min_count,
        absolute=absolute,
    )
    if not combos:
        with pytest.raises(ValueError, match="combination set M is empty"):
            multi_mals(**call)
        return
    result = multi_mals(**call)
    assert _names(result.by_combination["combination"].unique()) == combos
    value, variance = brute_multi_mals(
        combos,
        d["g_train"],
        d["t_train"],
        d["w_train"],
        d["g_pred"],
        d["t_pred"],
        d["w"],
        d["n_groups"],
        absolute,
    )
    assert result.value == pytest.approx(value, abs=1e-12)
    assert result.by_combination["contribution"].sum() == pytest.approx(value, abs=1e-12)
    if np.isnan(variance):
        assert np.isnan(result.variance)
    else:
        assert result.variance == pytest.approx(variance, abs=1e-12)


@settings(max_examples=50, deadline=None)
@given(
    d=splits(),
    mode=st.sampled_from(["observed", "subsets"]),
    absolute=st.booleans(),
    direction=st.sampled_from(["A->T", "T->A"]),
    min_size=st.integers(1, 2),
    baseline=st.sampled_from(["evaluation", "train"]),
)
def test_multi_directional_matches_brute_force(d, mode, absolute, direction, min_size, baseline):
    if d["w_train"].sum() == 0 or d["w"].sum() == 0:
        return
    combos = brute_m(mode, d["t_train"], d["w_train"], d["t"], d["w"], min_size, None, 1)
    pred = d["t_pred"] if direction == "A->T" else d["g_pred"]
    call = dict(
        _kwargs(d),
        direction=direction,
        groups_pred=d["g_pred"],
        tasks_pred=d["t_pred"],
        combinations=mode,
        min_size=min_size,
        absolute=absolute,
        baseline=baseline,
    )
    if not combos:
        with pytest.raises(ValueError, match="combination set M is empty"):
            multi_directional(**call)
        return
    value, variance = brute_multi_directional(
        direction,
        combos,
        d["g_train"],
        d["t_train"],
        d["w_train"],
        d["g"],
        d["t"],
        d["w"],
        pred,
        d["n_groups"],
        absolute,
        baseline,
    )
    if value is None:
        with pytest.raises(ValueError, match="empty conditioning set"):
            multi_directional(**call)
        return
    result = multi_directional(**call)
    assert _names(result.by_combination["combination"].unique()) == combos
    assert result.value == pytest.approx(value, abs=1e-12)
    assert result.variance == pytest.approx(variance, abs=1e-12)
    assert result.by_combination["contribution"].sum() == pytest.approx(value, abs=1e-12)


# ----------------------------------------------------------------------------- reduction
def _cover_every_task(d):
    """Append one unit-weight row holding every task to both splits (so M = T for sizes 1..1)."""
    full = np.ones((1, d["n_tasks"]), dtype=int)
    d = dict(d)
    for t, g, w in (("t_train", "g_train", "w_train"), ("t", "g", "w")):
        d[t] = np.vstack([d[t], full])
        d[g] = np.append(d[g], 0)
        d[w] = np.append(d[w], 1.0)
    d["t_pred"] = np.vstack([d["t_pred"], full])
    d["g_pred"] = np.append(d["g_pred"], 1)
    return d


@settings(max_examples=30, deadline=None)
@given(
    d=splits(),
    direction=st.sampled_from(["A->T", "T->A"]),
    tie_rule=st.sampled_from(["zero", "paper"]),
)
def test_reduces_to_single_attribute_directional(d, direction, tie_rule):
    d = _cover_every_task(d)
    kw = _kwargs(d)
    single = directional(
        direction=direction,
        groups_pred=d["g_pred"],
        tasks_pred=d["t_pred"],
        tie_rule=tie_rule,
        **kw,
    )
    multi = multi_directional(
        direction=direction,
        groups_pred=d["g_pred"],
        tasks_pred=d["t_pred"],
        combinations="subsets",
        min_size=1,
        max_size=1,
        absolute=False,
        tie_rule=tie_rule,
        **kw,
    )
    # identical value (same pairs, same mean); identical per-pair deltas
    assert multi.value == pytest.approx(single.value, abs=1e-12)
    assert multi.n_pairs == single.n_pairs
    by_pair = single.by_pair.set_index(["group", "task"])["delta"]
    by_comb = multi.by_combination.assign(task=[c[0] for c in multi.by_combination["combination"]])
    merged = by_comb.set_index(["group", "task"])["delta"].reindex(by_pair.index)
    np.testing.assert_allclose(merged.to_numpy(), by_pair.to_numpy(), atol=1e-12)


@settings(max_examples=30, deadline=None)
@given(d=splits())
def test_reduces_to_single_attribute_mals(d):
    d = _cover_every_task(d)
    kw = _kwargs(d)
    single = mals(
        groups_train=kw["groups_train"],
        tasks_train=kw["tasks_train"],
        sample_weight_train=kw["sample_weight_train"],
        groups_pred=d["g_pred"],
        tasks_pred=d["t_pred"],
        sample_weight=kw["sample_weight"],
        group_names=kw["group_names"],
    )
    multi = multi_mals(
        groups_pred=d["g_pred"],
        tasks_pred=d["t_pred"],
        combinations="subsets",
        min_size=1,
        max_size=1,
        absolute=False,
        **kw,
    )
    # both divide by |T| = |M| here and use the strict threshold 1/|G|
    assert multi.n_combinations == d["n_tasks"]
    assert multi.value == pytest.approx(single.value, abs=1e-12)


def test_observed_mode_reduction_differs_by_normalisation():
    """In "observed" mode with sizes 1..1, M holds only the tasks some training row has alone.
    The per-pair deltas are those of BiasAmp_MALS; the value divides by |M| instead of |T|."""
    tasks_train = np.array([[1, 0], [1, 0], [1, 1], [1, 1], [1, 1]])
    groups_train = ["g", "g", "h", "h", "h"]
    tasks_pred = np.array([[1, 0], [1, 1], [1, 1], [1, 1], [0, 1]])
    groups_pred = ["g", "g", "g", "h", "h"]
    single = mals(
        groups_train=groups_train,
        tasks_train=tasks_train,
        groups_pred=groups_pred,
        tasks_pred=tasks_pred,
    )
    multi = multi_mals(
        groups_train=groups_train,
        tasks_train=tasks_train,
        tasks=tasks_train,
        groups_pred=groups_pred,
        tasks_pred=tasks_pred,
        combinations="observed",
        max_size=1,
        absolute=False,
    )
    assert list(multi.by_combination["combination"].unique()) == [(0,)]  # task 1 never alone
    in_m = single.by_pair[single.by_pair["task"] == 0]
    # task 0: b_train(g) = 2/5 (not biased), b_train(h) = 3/5; predicted b(h) = 1/4
    assert in_m["contribution"].sum() * 2 == pytest.approx(1 / 4 - 3 / 5)
    assert multi.value == pytest.approx(1 / 4 - 3 / 5)
    assert multi.value != pytest.approx(single.value)
    subsets = multi_mals(
        groups_train=groups_train,
        tasks_train=tasks_train,
        tasks=tasks_train,
        groups_pred=groups_pred,
        tasks_pred=tasks_pred,
        combinations="subsets",
        max_size=1,
        absolute=False,
    )
    assert subsets.value == pytest.approx(single.value)


# ----------------------------------------------------------------------------- paper examples
def _rows(cells):
    """Weighted rows from {(group, task set, pred group, pred task set): weight}, 3 tasks."""
    g, t, gp, tp, w = [], [], [], [], []
    for (gi, ti, gpi, tpi), wi in cells.items():
        g.append(gi)
        gp.append(gpi)
        t.append([int(k in ti) for k in (1, 2, 3)])
        tp.append([int(k in tpi) for k in (1, 2, 3)])
        w.append(wi)
    cols = ["a1", "a2", "a3"]
    return (
        np.array(g),
        pd.DataFrame(t, columns=cols),
        np.array(gp),
        pd.DataFrame(tp, columns=cols),
        np.array(w, dtype=float),
    )


# Section 4, advantage 1: every single attribute balanced (bias 0.5), {a1, a2} skewed 0.8 to g1.
MNIST_TRAIN = {
    (1, (1, 2)): 8,
    (0, (1, 2)): 2,
    (0, (1,)): 6,
    (0, (2,)): 6,
    (0, (3,)): 5,
    (1, (3,)): 5,
}


def _mnist(groups_pred_change=None, tasks_pred_change=None):
    cells = {}
    for (g, ts), w in MNIST_TRAIN.items():
        cells[(g, ts, g, ts)] = w
    for change in (groups_pred_change or {}, tasks_pred_change or {}):
        for key, (new_key, w) in change.items():
            cells[key] -= w
            cells[new_key] = cells.get(new_key, 0) + w
    return _rows(cells)


def _mnist_train():
    g, t, _, _, w = _mnist()
    return dict(groups_train=g, tasks_train=t, sample_weight_train=w)


def test_mnist_bias_scores_as_in_the_paper():
    g, t, _, _, w = _mnist()
    table = multi_mals(
        **_mnist_train(),
        tasks=t,
        groups_pred=g,
        tasks_pred=t,
        sample_weight=w,
        combinations="subsets",
    ).by_combination
    b = table[table["group"] == 1].set_index("combination")["b_train"]
    assert b[("a1",)] == b[("a2",)] == b[("a3",)] == 0.5
    assert b[("a1", "a2")] == pytest.approx(0.8)
    assert ("a1", "a3") not in b.index  # never co-occur


def test_mnist_single_attribute_zero_multi_not_m_to_g():
    # 2 of the g1 {a1, a2} rows are predicted g0; 2 g0 {a1} and 2 g0 {a2} rows predicted g1:
    # P(g1^ | a_i) stays 8/16 but P(g1^ | {a1, a2}) drops from 0.8 to 0.6.
    g, t, gp, tp, w = _mnist(
        groups_pred_change={
            (1, (1, 2), 1, (1, 2)): ((1, (1, 2), 0, (1, 2)), 2),
            (0, (1,), 0, (1,)): ((0, (1,), 1, (1,)), 2),
            (0, (2,), 0, (2,)): ((0, (2,), 1, (2,)), 2),
        }
    )
    ev = dict(groups=g, tasks=t, sample_weight=w)
    single = directional(
        direction="T->A", groups_pred=gp, **ev, **{k: v for k, v in _mnist_train().items()}
    )
    assert single.value == pytest.approx(0.0, abs=1e-15)
    assert (
        mals(
            groups_train=_mnist_train()["groups_train"],
            tasks_train=_mnist_train()["tasks_train"],
            sample_weight_train=_mnist_train()["sample_weight_train"],
            groups_pred=gp,
            tasks_pred=tp,
            sample_weight=w,
        ).value
        == 0.0
    )
    multi = multi_directional(
        direction="M->G", groups_pred=gp, combinations="subsets", **ev, **_mnist_train()
    )
    # M = {a1}, {a2}, {a3}, {a1, a2}; only {a1, a2} moves, by 0.2 for both groups: 0.4 / 8
    assert multi.n_combinations == 4
    assert multi.value == pytest.approx(0.4 / 8)
    assert multi.direction == "M->G"  # as passed
    top = multi.top(2)
    assert set(top["combination"]) == {("a1", "a2")}
    assert multi.by_size.set_index("size").loc[2, "value"] == pytest.approx(0.2)
    assert multi.by_size.set_index("size").loc[1, "value"] == pytest.approx(0.0, abs=1e-15)
    mm = multi_mals(
        groups_pred=gp,
        tasks_pred=tp,
        tasks=t,
        sample_weight=w,
        combinations="subsets",
        **_mnist_train(),
    )
    # b_pred(g1, {a1, a2}) = 0.6 against 0.8: |Delta| = 0.2 over |M| = 4
    assert mm.value == pytest.approx(0.05)
    raw = multi_mals(
        groups_pred=gp,
        tasks_pred=tp,
        tasks=t,
        sample_weight=w,
        combinations="subsets",
        absolute=False,
        **_mnist_train(),
    )
    assert raw.value == pytest.approx(-0.05)
    # variance of the raw signed Delta over all 8 pairs: one -0.2, seven 0
    assert mm.variance == pytest.approx(np.var([-0.2] + [0.0] * 7))


def test_mnist_single_attribute_zero_multi_not_g_to_m():
    # in g0 one {a1} row is predicted {a1, a2} and one {a2} row predicted {}:
    # P(a_i^ | g) unchanged, P({a1, a2}^ | g0) = 3/19 against 2/19
    g, t, gp, tp, w = _mnist(
        tasks_pred_change={
            (0, (1,), 0, (1,)): ((0, (1,), 0, (1, 2)), 1),
            (0, (2,), 0, (2,)): ((0, (2,), 0, ()), 1),
        }
    )
    ev = dict(groups=g, tasks=t, sample_weight=w)
    single = directional(direction="A->T", tasks_pred=tp, **ev, **_mnist_train())
    assert single.value == pytest.approx(0.0, abs=1e-15)
    multi = multi_directional(
        direction="G->M", tasks_pred=tp, combinations="subsets", **ev, **_mnist_train()
    )
    assert multi.value == pytest.approx((1 / 19) / 8)
    row = multi.top(1).iloc[0]
    assert row["combination"] == ("a1", "a2") and row["group"] == 0
    assert row["p_true"] == pytest.approx(2 / 19) and row["p_pred"] == pytest.approx(3 / 19)


def test_advantage_2_raw_cancels_absolute_does_not():
    # three groups (threshold 1/3); a1: train 35/33/32 -> predicted 96/2/2 (Delta_g +0.61);
    # a2: train 60/20/20 -> predicted 0/50/50 (Delta_g -0.60).
    groups_train, tasks_train, w_train = [], [], []
    for task, counts in (("a1", (35, 33, 32)), ("a2", (60, 20, 20))):
        for grp, c in zip("ghk", counts, strict=True):
            groups_train.append(grp)
            tasks_train.append(task)
            w_train.append(c)
    groups_pred, tasks_pred, w_pred = [], [], []
    for task, counts in (("a1", (96, 2, 2)), ("a2", (0, 50, 50))):
        for grp, c in zip("ghk", counts, strict=True):
            groups_pred.append(grp)
            tasks_pred.append(task)
            w_pred.append(c)
    tasks_train = pd.get_dummies(pd.Series(tasks_train)).astype(int)
    tasks_pred = pd.get_dummies(pd.Series(tasks_pred)).astype(int)
    common = dict(
        groups_train=groups_train,
        tasks_train=tasks_train,
        sample_weight_train=w_train,
        tasks=tasks_pred,
        groups_pred=groups_pred,
        tasks_pred=tasks_pred,
        sample_weight=w_pred,
        combinations="subsets",
    )
    raw = multi_mals(absolute=False, **common)
    absolute = multi_mals(**common)
    deltas = raw.by_combination.query("biased")["delta"].tolist()
    assert deltas == pytest.approx([0.61, -0.60])
    assert raw.value == pytest.approx(0.005)  # (0.61 - 0.60) / 2: looks like no amplification
    assert absolute.value == pytest.approx(0.605)
    single = mals(
        groups_train=groups_train,
        tasks_train=tasks_train,
        sample_weight_train=w_train,
        groups_pred=groups_pred,
        tasks_pred=tasks_pred,
        sample_weight=w_pred,
    )
    assert single.value == pytest.approx(raw.value)


def _three_groups(pred_groups):
    """{a} is 50/25/25 over g/h/k in training; the predictions move rows between h and k."""
    g = np.array(["g", "h", "k"])
    t = np.ones((3, 1), dtype=int)
    return dict(
        groups_train=g,
        tasks_train=t,
        sample_weight_train=[50, 25, 25],
        groups=np.repeat(g, 1),
        tasks=t,
        sample_weight=[50, 25, 25],
        groups_pred=pred_groups,
        tasks_pred=t,
    )


def test_appendix_b_mals_only_sees_positive_correlations():
    data = _three_groups(["g", "k", "k"])  # h's rows predicted k: h 25 -> 0, k 25 -> 50
    mm = multi_mals(combinations="subsets", **{k: v for k, v in data.items() if k != "groups"})
    assert mm.value == 0.0  # only (g, {a}) is biased and it does not move
    m2g = multi_directional(direction="M->G", combinations="subsets", **data)
    assert m2g.value == pytest.approx((0 + 0.25 + 0.25) / 3)


def test_appendix_b_directions_capture_different_things():
    # perfect group predictions, amplified task predictions: M->G = 0, G->M > 0
    g = np.array([0, 0, 1, 1])
    t = np.array([[1, 1], [1, 0], [1, 1], [1, 0]])
    w_train = [4, 1, 1, 4]
    amplified = np.array([[1, 1], [1, 1], [1, 0], [1, 0]])
    base = dict(
        groups_train=g,
        tasks_train=t,
        sample_weight_train=w_train,
        groups=g,
        tasks=t,
        sample_weight=w_train,
        combinations="subsets",
    )
    m2g = multi_directional(direction="M->G", groups_pred=g, **base)
    g2m = multi_directional(direction="G->M", tasks_pred=amplified, **base)
    assert m2g.value == 0.0
    assert g2m.value > 0.05
    # perfect task predictions, group predictions driven by {a, b}: G->M = 0, M->G > 0
    g_from_tasks = np.array([0, 1, 0, 1])
    g2m_perfect = multi_directional(direction="G->M", tasks_pred=t, **base)
    m2g_driven = multi_directional(direction="M->G", groups_pred=g_from_tasks, **base)
    assert g2m_perfect.value == 0.0
    assert m2g_driven.value > 0.05


def test_binary_groups_threshold_is_one_over_g():
    # the reference's 1/(|G|-1) = 1 would make this 0; the paper's 1/|G| does not
    data = dict(
        groups_train=["g", "h"],
        tasks_train=[[1, 1], [1, 1]],
        sample_weight_train=[8, 2],
        tasks=[[1, 1]],
        groups_pred=["g"],
        tasks_pred=[[1, 1]],
        combinations="subsets",
        min_size=2,
    )
    result = multi_mals(**{k: np.asarray(v) if isinstance(v, list) else v for k, v in data.items()})
    assert result.params["threshold"] == 0.5
    assert result.value == pytest.approx(0.2)


# ----------------------------------------------------------------------------- properties
@settings(max_examples=25, deadline=None)
@given(d=splits(min_rows=2), cut=st.integers(1, 17), seed=st.integers(0, 1000))
def test_chunked_equals_one_shot_and_row_order(d, cut, seed):
    if d["w_train"].sum() == 0 or d["w"].sum() == 0:
        return
    n = len(d["g"])
    cut = min(cut, n - 1)
    names = dict(group_names=list(range(d["n_groups"])), task_names=list(range(d["n_tasks"])))
    one = PatternCountTable.from_arrays(
        groups=d["g"], tasks=d["t"], tasks_pred=d["t_pred"], sample_weight=d["w"], **names
    )
    perm = np.random.default_rng(seed).permutation(n)
    a, b = perm[:cut], perm[cut:]
    part = PatternCountTable.from_arrays(
        groups=d["g"][a],
        tasks=d["t"][a],
        tasks_pred=d["t_pred"][a],
        sample_weight=d["w"][a],
        **names,
    )
    merged = part + PatternCountTable.from_arrays(
        groups=d["g"][b],
        tasks=d["t"][b],
        tasks_pred=d["t_pred"][b],
        sample_weight=d["w"][b],
        **names,
    )
    for role in one.patterns:
        assert np.array_equal(one.patterns[role], merged.patterns[role])
        np.testing.assert_allclose(one.pattern_totals[role], merged.pattern_totals[role])
    for key in one.joint:
        np.testing.assert_allclose(one.joint[key], merged.joint[key])
    train = PatternCountTable.from_arrays(
        groups=d["g_train"], tasks=d["t_train"], sample_weight=d["w_train"], **names
    )
    try:
        r1 = multi_directional_from_counts(train, one, direction="A->T", combinations="subsets")
    except ValueError:
        return
    r2 = multi_directional_from_counts(train, merged, direction="A->T", combinations="subsets")
    assert r1.value == pytest.approx(r2.value, abs=1e-12)


def test_sparse_equals_dense_and_dataframe():
    rng = np.random.default_rng(0)
    t_train = (rng.random((300, 6)) < 0.4).astype(int)
    t = (rng.random((200, 6)) < 0.4).astype(int)
    t_pred = (rng.random((200, 6)) < 0.4).astype(int)
    g_train, g = rng.integers(0, 3, 300), rng.integers(0, 3, 200)
    dense = multi_directional(
        direction="A->T",
        groups_train=g_train,
        tasks_train=t_train,
        groups=g,
        tasks=t,
        tasks_pred=t_pred,
        combinations="subsets",
        max_size=3,
    )
    sparse = multi_directional(
        direction="A->T",
        groups_train=g_train,
        tasks_train=sp.csr_matrix(t_train),
        groups=g,
        tasks=sp.csc_matrix(t),
        tasks_pred=sp.csr_matrix(t_pred),
        combinations="subsets",
        max_size=3,
    )
    assert dense.value == sparse.value
    assert dense.n_combinations == sparse.n_combinations > 20


def test_perfect_predictions_are_zero():
    rng = np.random.default_rng(1)
    t = (rng.random((400, 5)) < 0.5).astype(int)
    g = rng.integers(0, 2, 400)
    for direction in ("A->T", "T->A"):
        r = multi_directional(
            direction=direction,
            groups_train=g,
            tasks_train=t,
            groups=g,
            tasks=t,
            groups_pred=g,
            tasks_pred=t,
        )
        assert r.value == 0.0 and r.variance == 0.0
    r = multi_mals(groups_train=g, tasks_train=t, tasks=t, groups_pred=g, tasks_pred=t)
    assert r.value == 0.0


def test_bootstrap_fills_interval_and_is_reproducible():
    rng = np.random.default_rng(2)
    t = (rng.random((600, 4)) < 0.5).astype(int)
    g = rng.integers(0, 2, 600)
    t_pred = np.where(rng.random((600, 4)) < 0.9, t, 1 - t)
    kw = dict(
        direction="A->T",
        groups_train=g,
        tasks_train=t,
        groups=g,
        tasks=t,
        tasks_pred=t_pred,
        combinations="subsets",
        n_boot=30,
        random_state=7,
    )
    a, b = multi_directional(**kw), multi_directional(**kw)
    assert a.replicates.shape == (30,)
    np.testing.assert_array_equal(a.replicates, b.replicates)
    assert a.ci[0] <= a.value <= a.ci[1] and a.se > 0
    # replicate 0 is the metric on the rows reweighted by replicate 0 (M stays fixed here)
    from biasamp.counts._replicates import replicate_weights

    w0 = replicate_weights(600, 30, random_state=7)[0]
    direct = multi_directional(
        **{k: v for k, v in kw.items() if k not in ("n_boot", "random_state")}, sample_weight=w0
    )
    assert direct.n_combinations == a.n_combinations
    assert a.replicates[0] == pytest.approx(direct.value, abs=1e-12)
    m = multi_mals(
        groups_train=g,
        tasks_train=t,
        tasks=t,
        groups_pred=g,
        tasks_pred=t_pred,
        n_boot=10,
        random_state=0,
    )
    assert m.replicates.shape == (10,) and m.to_dict()["n_boot"] == 10


# ----------------------------------------------------------------------------- result API
def test_result_api():
    g, t, gp, tp, w = _mnist(
        groups_pred_change={(1, (1, 2), 1, (1, 2)): ((1, (1, 2), 0, (1, 2)), 4)}
    )
    r = multi_directional(
        direction="T->A",
        groups_train=g,
        tasks_train=t,
        sample_weight_train=w,
        groups=g,
        tasks=t,
        sample_weight=w,
        groups_pred=gp,
        combinations="subsets",
    )
    assert float(r) == r.value
    cols = {
        "combination",
        "size",
        "group",
        "support_train",
        "support_eval",
        "count_train",
        "delta",
        "contribution",
        "p_true",
        "p_pred",
        "y",
    }
    assert cols <= set(r.by_combination.columns)
    assert list(r.by_size["size"]) == [1, 2]
    assert list(r.by_size["n_combinations"]) == [3, 1]
    d = r.to_dict()
    assert d["by_combination"][0]["combination"] == ["a1"]
    assert d["n_combinations"] == 4
    import json

    json.dumps(d)
    assert "Multi T->A (M->G)" in repr(r)
    assert r.by_pair is r.by_combination
    assert len(r.top(3)) == 3


# ----------------------------------------------------------------------------- bad input
def _simple():
    t = np.array([[1, 1], [1, 0], [0, 1]])
    return dict(
        groups_train=["g", "h", "g"],
        tasks_train=t,
        tasks=t,
        groups_pred=["g", "h", "g"],
        tasks_pred=t,
    )


@pytest.mark.parametrize(
    ("kw", "message"),
    [
        ({"min_size": 3, "max_size": 2}, ERR_SIZE_ORDER.format(min_size=3, max_size=2)),
        ({"min_size": 0}, ERR_MIN_SIZE.format(got=0)),
        ({"min_count": 0}, ERR_MIN_COUNT.format(got=0)),
        ({"combinations": "all"}, ERR_MODE.format(got="all")),
    ],
)
def test_bad_options(kw, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        multi_mals(**_simple(), **kw)


def test_bad_flags():
    with pytest.raises(TypeError, match=re.escape(ERR_ABSOLUTE.format(got="yes"))):
        multi_mals(**_simple(), absolute="yes")
    with pytest.raises(ValueError, match=re.escape(ERR_BASELINE.format(got="test"))):
        multi_directional(direction="A->T", groups=["g", "h", "g"], baseline="test", **_simple())
    with pytest.raises(
        ValueError, match=re.escape(ERR_NEEDS_PRED.format(direction="T->A", arg="groups_pred"))
    ):
        s = _simple()
        s.pop("groups_pred")
        multi_directional(direction="M->G", groups=["g", "h", "g"], **s)


def test_empty_m_says_why():
    s = _simple()
    with pytest.raises(
        ValueError,
        match=re.escape(ERR_EMPTY_OBSERVED_TRAIN.format(min_count="1", min_size=3, max_size=None)),
    ):
        multi_mals(**s, min_size=3)
    s["tasks"] = np.array([[0, 0], [0, 0], [0, 0]])
    with pytest.raises(
        ValueError, match=re.escape(ERR_EMPTY_OBSERVED_EVAL.format(count=3, min_count="1"))
    ):
        multi_mals(**s)
    with pytest.raises(ValueError, match="no combination of 1 to None tasks"):
        multi_mals(**s, combinations="subsets")


def test_combination_limit():
    rng = np.random.default_rng(3)
    t = (rng.random((300, 30)) < 0.6).astype(int)
    g = rng.integers(0, 2, 300)
    with pytest.raises(ValueError, match=r"more than max_combinations=10,000\. Raise min_count"):
        multi_mals(
            groups_train=g,
            tasks_train=t,
            tasks=t,
            groups_pred=g,
            tasks_pred=t,
            combinations="subsets",
            max_combinations=10_000,
        )
    with pytest.raises(ValueError, match=r"the training split has 300 combinations"):
        multi_mals(
            groups_train=g,
            tasks_train=t,
            tasks=t,
            groups_pred=g,
            tasks_pred=t,
            max_combinations=100,
        )


def test_label_errors_name_the_argument():
    s = _simple()
    s["groups_pred"] = ["g", "x", "g"]
    with pytest.raises(ValueError, match=r"groups_pred: 1 label\(s\) not in the canonical"):
        multi_mals(**s)
    s = _simple()
    s["tasks_pred"] = np.array([[1, 0.5], [1, 0], [0, 1]])
    with pytest.raises(ValueError, match="tasks_pred: indicator values must be 0 or 1"):
        multi_mals(**s)
    s = _simple()
    s["groups_train"] = ["g", "h"]
    with pytest.raises(ValueError, match="Mismatched lengths"):
        multi_mals(**s)
    assert ERR_UNKNOWN_LABELS and ERR_NON_BINARY  # messages come from the foundation


def test_exports():
    for name in (
        "multi_mals",
        "multi_directional",
        "MultiAttributeResult",
        "PatternCountTable",
        "multi_mals_from_counts",
        "multi_directional_from_counts",
    ):
        assert name in biasamp.__all__
    assert multi_mals_from_counts is biasamp.multi_mals_from_counts


def test_bootstrap_does_not_hold_float64_weights_of_every_replicate():
    # The (B, n) replicate weights were materialised as float64 (8 bytes each) before
    # the 16-replicate passes; they are now drawn in row chunks and kept as uint8.
    import tracemalloc

    rng = np.random.default_rng(0)
    n, n_boot = 50_000, 400
    groups = rng.choice(["m", "w"], n)
    tasks = (rng.random((n, 3)) < 0.3).astype(np.int8)
    kwargs = dict(
        groups_train=groups,
        tasks_train=tasks,
        tasks=tasks,
        groups_pred=rng.choice(["m", "w"], n),
        tasks_pred=(rng.random((n, 3)) < 0.3).astype(np.int8),
    )
    multi_mals(**kwargs)  # warm up (imports, caches)
    tracemalloc.start()
    try:
        result = multi_mals(**kwargs, n_boot=n_boot, random_state=0)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 8 * n * n_boot  # float64 weights alone would take 160 MB
    assert result.replicates.shape == (n_boot,)


def test_multi_directional_reports_the_direction_as_passed():
    tasks = np.array([[1, 1], [1, 0]] * 2)
    kw = {
        "groups_train": ["g", "g", "h", "h"],
        "tasks_train": tasks,
        "groups": ["g", "g", "h", "h"],
        "tasks": tasks,
        "tasks_pred": np.array([[1, 1], [1, 1], [1, 0], [1, 0]]),
        "groups_pred": ["g", "h", "h", "h"],
    }
    for passed, reported in (
        ("G->M", "G->M"),
        ("A->T", "A->T"),
        ("M->G", "M->G"),
        ("T->A", "T->A"),
    ):
        assert multi_directional(direction=passed, **kw).direction == reported
    assert (
        multi_directional(direction="G->M", **kw).value
        == multi_directional(direction="A->T", **kw).value
    )


def test_multi_directional_train_rows():
    # 2-D groups: training rows 3 (no group, no task) and 4 (group h, no task)
    groups_train = np.array([[1, 0], [0, 1], [1, 0], [0, 0], [0, 1], [1, 0], [0, 1]])
    tasks_train = np.array([[1, 1], [1, 0], [0, 1], [0, 0], [0, 0], [1, 1], [1, 1]])
    ev = {
        "groups": np.array([[1, 0], [1, 0], [0, 1], [0, 1]]),
        "tasks": np.array([[1, 1], [1, 0], [1, 0], [0, 1]]),
        "tasks_pred": np.array([[0, 1], [1, 1], [1, 1], [0, 0]]),
        "combinations": "subsets",
        "absolute": False,
    }
    values = {}
    for rule, keep in (
        ("labelled", [0, 1, 2, 4, 5, 6]),
        ("with_task", [0, 1, 2, 5, 6]),
        ("all", [0, 1, 2, 3, 4, 5, 6]),
    ):
        got = multi_directional(
            direction="G->M",
            groups_train=groups_train,
            tasks_train=tasks_train,
            train_rows=rule,
            **ev,
        )
        filtered = multi_directional(
            direction="G->M",
            groups_train=groups_train[keep],
            tasks_train=tasks_train[keep],
            train_rows="all",
            **ev,
        )
        assert got.value == pytest.approx(filtered.value, abs=1e-12)
        assert got.params["train_rows"] == rule
        values[rule] = got.value
    # the rule changes the signs here: 0, 1/12 and -1/12
    assert values == pytest.approx({"labelled": 0.0, "with_task": 1 / 12, "all": -1 / 12})
