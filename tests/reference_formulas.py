"""Plain, loop-based implementations written straight from the papers' formulas.

They are slow on purpose: the tests check the vectorised metrics against them.
"""

from __future__ import annotations

import numpy as np


def brute_directional(
    direction,
    groups,
    tasks,
    preds,
    weights,
    groups_train=None,
    tasks_train=None,
    weights_train=None,
    tie_rule="zero",
    train_rows="all",
):
    """BiasAmp-> of Wang & Russakovsky (eq. 2); pairs with an empty conditioning set are
    left out of the mean; returns None when every pair is empty. ``train_rows``:
    which rows of the sign split count ("all", "labelled": a group or a task,
    "with_task": a task)."""
    if groups_train is None:
        groups_train, tasks_train, weights_train = groups, tasks, weights
    if train_rows != "all":
        keep = tasks_train.sum(axis=1) > 0
        if train_rows == "labelled":
            keep = keep | (groups_train.sum(axis=1) > 0)
        groups_train, tasks_train = groups_train[keep], tasks_train[keep]
        weights_train = weights_train[keep]
    n_train = weights_train.sum()
    terms = []
    for a in range(groups.shape[1]):
        for t in range(tasks.shape[1]):
            p_at = (weights_train * groups_train[:, a] * tasks_train[:, t]).sum() / n_train
            p_a = (weights_train * groups_train[:, a]).sum() / n_train
            p_t = (weights_train * tasks_train[:, t]).sum() / n_train
            if np.isclose(p_at, p_a * p_t, rtol=0, atol=1e-12):
                y = 0
            else:
                y = 1 if p_at > p_a * p_t else -1
            if direction == "A->T":
                cond = weights * groups[:, a]
                if cond.sum() == 0:
                    continue
                delta = (cond * preds[:, t]).sum() / cond.sum() - (
                    cond * tasks[:, t]
                ).sum() / cond.sum()
            else:
                cond = weights * tasks[:, t]
                if cond.sum() == 0:
                    continue
                delta = (cond * preds[:, a]).sum() / cond.sum() - (
                    cond * groups[:, a]
                ).sum() / cond.sum()
            if tie_rule == "paper":
                terms.append(delta if y == 1 else -delta)
            else:
                terms.append(y * delta)
    return float(np.mean(terms)) if terms else None


def brute_mals(
    groups_train, tasks_train, weights_train, groups_pred, tasks_pred, weights, margin=0.05
):
    """BiasAmp_MALS of Zhao et al. (2017) and the number of tasks violating the margin."""
    n_groups, n_tasks = groups_train.shape[1], tasks_train.shape[1]
    total, violations = 0.0, 0
    for t in range(n_tasks):
        c_train = np.array(
            [
                (weights_train * groups_train[:, g] * tasks_train[:, t]).sum()
                for g in range(n_groups)
            ]
        )
        c_pred = np.array(
            [(weights * groups_pred[:, g] * tasks_pred[:, t]).sum() for g in range(n_groups)]
        )
        violated = False
        for g in range(n_groups):
            if c_train.sum() == 0:
                continue
            b_train = c_train[g] / c_train.sum()
            if c_pred.sum() == 0:
                continue
            b_pred = c_pred[g] / c_pred.sum()
            if abs(b_pred - b_train) > margin:
                violated = True
            if b_train > 1 / n_groups:
                total += b_pred - b_train
        violations += violated
    return total / n_tasks, violations
