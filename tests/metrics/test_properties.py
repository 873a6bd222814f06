"""Property tests (hypothesis) for the single-attribute metrics and the count table."""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from biasamp import CountTable, directional, directional_from_counts, mals
from tests.reference_formulas import brute_directional, brute_mals

SETTINGS = settings(max_examples=50, deadline=None)


@st.composite
def problems(draw, min_rows=2, max_rows=25):
    """A random evaluation split: groups (one-hot, some rows with no group), multi-hot
    tasks, predictions and integer weights, plus a training split."""
    n = draw(st.integers(min_rows, max_rows))
    n_groups = draw(st.integers(2, 3))
    n_tasks = draw(st.integers(1, 4))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)

    def groups_of(m):
        codes = rng.integers(0, n_groups + 1, size=m)  # code n_groups = no group
        return np.eye(n_groups + 1)[codes][:, :n_groups]

    def tasks_of(m):
        return (rng.random((m, n_tasks)) < rng.uniform(0.2, 0.7)).astype(float)

    n_train = draw(st.integers(2, max_rows))
    return {
        "groups": groups_of(n),
        "tasks": tasks_of(n),
        "groups_pred": groups_of(n),
        "tasks_pred": tasks_of(n),
        "weights": rng.integers(0, 4, size=n).astype(float),
        "groups_train": groups_of(n_train),
        "tasks_train": tasks_of(n_train),
        "weights_train": rng.integers(1, 4, size=n_train).astype(float),
    }


def _run_directional(p, direction, **kw):
    pred = (
        {"tasks_pred": p["tasks_pred"]}
        if direction == "A->T"
        else {"groups_pred": p["groups_pred"]}
    )
    return directional(
        direction=direction,
        groups=p["groups"],
        tasks=p["tasks"],
        groups_train=p["groups_train"],
        tasks_train=p["tasks_train"],
        sample_weight=p["weights"],
        sample_weight_train=p["weights_train"],
        **pred,
        **kw,
    )


@SETTINGS
@given(
    problems(),
    st.sampled_from(["A->T", "T->A"]),
    st.sampled_from(["zero", "paper"]),
    st.sampled_from(["labelled", "with_task", "all"]),
)
def test_directional_matches_brute_force(p, direction, tie_rule, train_rows):
    assume(p["weights"].sum() > 0)
    keep = np.asarray(p["tasks_train"]).sum(axis=1) > 0
    if train_rows == "labelled":
        keep = keep | (np.asarray(p["groups_train"]).sum(axis=1) > 0)
    if train_rows != "all":
        assume(keep.any() and p["weights_train"][keep].sum() > 0)
    preds = p["tasks_pred"] if direction == "A->T" else p["groups_pred"]
    expected = brute_directional(
        direction,
        p["groups"],
        p["tasks"],
        preds,
        p["weights"],
        p["groups_train"],
        p["tasks_train"],
        p["weights_train"],
        tie_rule=tie_rule,
        train_rows=train_rows,
    )
    if expected is None:
        with pytest.raises(ValueError, match="Every .group, task. pair has an empty"):
            _run_directional(p, direction, tie_rule=tie_rule, train_rows=train_rows)
        return
    result = _run_directional(p, direction, tie_rule=tie_rule, train_rows=train_rows)
    assert result.value == pytest.approx(expected, abs=1e-12)
    assert result.by_pair["contribution"].sum() == pytest.approx(result.value, abs=1e-12)


@SETTINGS
@given(problems())
def test_mals_matches_brute_force(p):
    assume(p["weights"].sum() > 0)
    expected, violations = brute_mals(
        p["groups_train"],
        p["tasks_train"],
        p["weights_train"],
        p["groups_pred"],
        p["tasks_pred"],
        p["weights"],
    )
    result = mals(
        groups_train=p["groups_train"],
        tasks_train=p["tasks_train"],
        sample_weight_train=p["weights_train"],
        groups_pred=p["groups_pred"],
        tasks_pred=p["tasks_pred"],
        sample_weight=p["weights"],
    )
    assert result.value == pytest.approx(expected, abs=1e-12)
    assert result.violations == violations


@SETTINGS
@given(problems(), st.sampled_from(["A->T", "T->A"]), st.integers(0, 2**32 - 1))
def test_row_order_does_not_matter(p, direction, seed):
    assume(p["weights"].sum() > 0)
    try:
        before = _run_directional(p, direction).value
    except ValueError:
        return
    perm = np.random.default_rng(seed).permutation(len(p["weights"]))
    shuffled = {
        k: (v[perm] if k in ("groups", "tasks", "groups_pred", "tasks_pred", "weights") else v)
        for k, v in p.items()
    }
    assert _run_directional(shuffled, direction).value == pytest.approx(before, abs=1e-12)


@SETTINGS
@given(problems())
def test_perfect_predictions_give_exactly_zero(p):
    assume(p["weights"].sum() > 0)
    for direction, pred in (
        ("A->T", {"tasks_pred": p["tasks"]}),
        ("T->A", {"groups_pred": p["groups"]}),
    ):
        try:
            result = directional(
                direction=direction,
                groups=p["groups"],
                tasks=p["tasks"],
                sample_weight=p["weights"],
                groups_train=p["groups_train"],
                tasks_train=p["tasks_train"],
                **pred,
            )
        except ValueError:
            continue
        assert result.value == 0.0
    same = mals(
        groups_train=p["groups_train"],
        tasks_train=p["tasks_train"],
        groups_pred=p["groups_train"],
        tasks_pred=p["tasks_train"],
    )
    assert same.value == 0.0 and same.violations == 0


@SETTINGS
@given(problems(min_rows=3), st.data())
def test_chunked_equals_one_shot(p, data):
    n = len(p["weights"])
    cut = data.draw(st.integers(1, n - 1))
    kw = {
        "groups": p["groups"],
        "tasks": p["tasks"],
        "tasks_pred": p["tasks_pred"],
        "groups_pred": p["groups_pred"],
    }
    whole = CountTable.from_arrays(**kw, sample_weight=p["weights"])
    first = CountTable.from_arrays(
        **{k: v[:cut] for k, v in kw.items()}, sample_weight=p["weights"][:cut]
    )
    merged = first.update(**{k: v[cut:] for k, v in kw.items()}, sample_weight=p["weights"][cut:])
    assert merged.n == whole.n
    for key in whole.joint:
        assert np.array_equal(merged.joint[key], whole.joint[key])  # integer counts: exact
    assume(whole.n > 0)
    for direction in ("A->T", "T->A"):
        try:
            expected = directional_from_counts(whole, direction=direction).value
        except ValueError:
            continue
        assert directional_from_counts(merged, direction=direction).value == expected


@SETTINGS
@given(problems())
def test_sparse_equals_dense(p):
    assume(p["weights"].sum() > 0)
    sparse_p = dict(
        p,
        tasks=sp.csr_matrix(p["tasks"]),
        tasks_pred=sp.csc_matrix(p["tasks_pred"]),
        tasks_train=sp.coo_matrix(p["tasks_train"]),
    )
    for direction in ("A->T", "T->A"):
        try:
            dense = _run_directional(p, direction).value
        except ValueError:
            continue
        assert _run_directional(sparse_p, direction).value == pytest.approx(dense, abs=1e-12)
    m_dense = mals(
        groups_train=p["groups_train"],
        tasks_train=p["tasks_train"],
        groups_pred=p["groups_pred"],
        tasks_pred=p["tasks_pred"],
    )
    m_sparse = mals(
        groups_train=p["groups_train"],
        tasks_train=sparse_p["tasks_train"],
        groups_pred=p["groups_pred"],
        tasks_pred=sparse_p["tasks_pred"],
    )
    assert m_sparse.value == pytest.approx(m_dense.value, abs=1e-12)


@SETTINGS
@given(problems())
def test_weights_equal_repeated_rows(p):
    assume(p["weights"].sum() > 0)
    reps = p["weights"].astype(int)
    repeated = {
        k: (
            np.repeat(v, reps, axis=0)
            if k in ("groups", "tasks", "groups_pred", "tasks_pred")
            else v
        )
        for k, v in p.items()
    }
    repeated["weights"] = np.ones(int(reps.sum()))
    for direction in ("A->T", "T->A"):
        try:
            weighted = _run_directional(p, direction).value
        except ValueError:
            continue
        assert _run_directional(repeated, direction).value == pytest.approx(weighted, abs=1e-12)


@SETTINGS
@given(problems(), st.integers(0, 2**32 - 1))
def test_relabelling_groups_permutes_the_output(p, seed):
    assume(p["weights"].sum() > 0)
    try:
        before = _run_directional(p, "T->A")
    except ValueError:
        return
    n_groups = p["groups"].shape[1]
    perm = np.random.default_rng(seed).permutation(n_groups)
    relabelled = {
        k: (v[:, perm] if k in ("groups", "groups_pred", "groups_train") else v)
        for k, v in p.items()
    }
    after = _run_directional(relabelled, "T->A")
    assert after.value == pytest.approx(before.value, abs=1e-12)
    n_tasks = p["tasks"].shape[1]
    before_deltas = before.by_pair["delta"].to_numpy().reshape(n_groups, n_tasks)
    after_deltas = after.by_pair["delta"].to_numpy().reshape(n_groups, n_tasks)
    np.testing.assert_allclose(after_deltas, before_deltas[perm], atol=1e-12)
