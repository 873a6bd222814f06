"""biasamp against the strongest straightforward baselines, in one process.

Run: ``python benchmarks/bench_baselines.py [--rows 1000000] [--repeat 3]``. Prints
markdown tables (min of ``--repeat`` runs; the machine is shared, so ratios
measured in the same process are what to read).

Workloads
---------
1. Single-attribute: ``mals`` + ``directional`` A->T and T->A from raw arrays,
   1,000,000 rows x 1,000 sparse tasks (3 per row, CSR), 2 groups as strings,
   training split of the same size. Baselines:

   * **vectorised numpy** (what an expert writes in an afternoon): groups encoded
     with ``np.unique(return_inverse=True)``, every (group, task) count with one
     ``np.bincount`` over the CSR nonzeros, the metrics from the count arrays;
   * **per-pair loop with masks from column indices** (the reference code's shape,
     without ``toarray``): for each task, the rows holding it from the CSC
     indices, then one group mask per (group, task) pair; timed on 50 tasks and
     extrapolated;
   * **memory-bandwidth floor**: one pass reading the inputs as passed (the three
     ``<U5`` group arrays, 20 bytes a row, and the three CSR matrices' ``indices``
     and ``indptr``; not their ``data``, which a count need not read) at this
     machine's bandwidth, measured with a numpy copy of 512 MB (read and write
     counted) in the same repeat. A second floor counts one byte of group codes
     a row instead of the strings (what a pass over encoded input reads).

   biasamp is timed two ways: the three calls from raw arrays (each validates,
   encodes and counts its own inputs, the training split three times), and
   **counted once**: ``CountTable.from_arrays`` for the training and the
   evaluation split, then ``mals_from_counts`` and ``directional_from_counts``
   (three group encodings, five joint count tables).

   Every repeat runs the floor and each implementation once, interleaved; the
   tables give medians of process CPU time (the machine is shared, and CPU time
   of these single-threaded calls moves less with the load than wall time).

2. Bootstrap: 1,000 Poisson replicates of ``directional`` in both directions on
   COCO test (5,473 x 79, real labels, training side = the bundled val split).
   Baseline: **resample-and-matmul**, the same replicate weights ``W`` (B, n) as
   one matrix, each replicate's counts as ``W @ (one-hot group x tasks)`` (BLAS),
   the metric vectorised over replicates. Replicate values are asserted equal.

The peer package ``bias-amplification`` (kerner-lab) has no BiasAmp_MALS or
BiasAmp-> on count data of this size (its metrics train attackers or take dense
tensors), so it is compared in ``bench_predictability.py`` and
``bench_multi_attribute.py`` where it computes the same quantity.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import scipy.sparse as sp

import biasamp
from biasamp.counts._digit_counts import digit_joint_counts, digit_plan
from biasamp.datasets import load_coco_gender
from biasamp.inputs._encoding import sorted_short_string_codes


def best_of(fn: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    best, out = np.inf, None
    for _ in range(repeat):
        start = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - start)
    return best, out


# ----------------------------------------------------------------------------- workload 1
def single_workload(n: int, n_tasks: int = 1000, per_row: int = 3, seed: int = 0) -> dict:
    rng = np.random.default_rng(seed)

    def tasks() -> sp.csr_matrix:
        cols = rng.integers(0, n_tasks, n * per_row)
        m = sp.csr_matrix(
            (np.ones(n * per_row, np.int8), (np.repeat(np.arange(n), per_row), cols)),
            shape=(n, n_tasks),
        )
        m.data[:] = 1
        return m

    g = np.where(rng.random(n) < 0.5, "man", "woman")
    return dict(
        groups_train=np.where(rng.random(n) < 0.5, "man", "woman"),
        tasks_train=tasks(),
        groups=g,
        tasks=tasks(),
        groups_pred=np.where(rng.random(n) < 0.9, g, np.where(g == "man", "woman", "man")),
        tasks_pred=tasks(),
    )


def ours_single(d: dict) -> tuple[float, float, float]:
    m = biasamp.mals(
        groups_train=d["groups_train"],
        tasks_train=d["tasks_train"],
        groups_pred=d["groups_pred"],
        tasks_pred=d["tasks_pred"],
    )
    common = dict(groups_train=d["groups_train"], tasks_train=d["tasks_train"])
    a2t = biasamp.directional(
        direction="A->T", groups=d["groups"], tasks=d["tasks"], tasks_pred=d["tasks_pred"], **common
    )
    t2a = biasamp.directional(
        direction="T->A",
        groups=d["groups"],
        tasks=d["tasks"],
        groups_pred=d["groups_pred"],
        **common,
    )
    return m.value, a2t.value, t2a.value


def ours_counted_once(d: dict) -> tuple[float, float, float]:
    """The same three values from two count tables: each split encoded and counted once."""
    train = biasamp.CountTable.from_arrays(groups=d["groups_train"], tasks=d["tasks_train"])
    evaluation = biasamp.CountTable.from_arrays(
        groups=d["groups"],
        tasks=d["tasks"],
        groups_pred=d["groups_pred"],
        tasks_pred=d["tasks_pred"],
        group_names=train.group_names,
        task_names=train.task_names,
    )
    m = biasamp.mals_from_counts(train, evaluation)
    a2t = biasamp.directional_from_counts(evaluation, direction="A->T", train=train)
    t2a = biasamp.directional_from_counts(evaluation, direction="T->A", train=train)
    return m.value, a2t.value, t2a.value


def primitive_times(d: dict) -> dict[str, float]:
    """CPU seconds of the steps the counting cannot skip, each timed alone on this workload:
    the exact factorisation of each group array (``sorted_short_string_codes``) and one
    digit-count pass over each task matrix (``digit_joint_counts``: one int64 product in
    chunks of rows, every digit of the split at once)."""
    out: dict[str, float] = {}
    codes = {}
    for role in ("groups_train", "groups", "groups_pred"):
        out[f"factorise {role}"], found = cpu_time(lambda r=role: sorted_short_string_codes(d[r]))
        codes[role] = found[0]
    sizes = {"groups": 2}
    for role, groups in (("tasks_train", "groups_train"), ("tasks", "groups"),
                         ("tasks_pred", "groups_pred")):  # fmt: skip
        plan = digit_plan(d[role].shape[0], sizes)
        out[f"count {role}"] = cpu_time(
            lambda r=role, g=groups, p=plan: digit_joint_counts(
                {"tasks": d[r]}, {"groups": codes[g]}, sizes, p
            )
        )[0]
    return out


def primitives_floor(times: dict[str, float]) -> tuple[float, float]:
    """The primitives of the three calls and of counting once, summed.

    Three calls: the training groups three times, the evaluation groups twice
    (A->T, T->A), the predicted groups twice (mals, T->A); the training tasks three
    times, the evaluation tasks twice (A->T, T->A: groups and predicted groups in
    one pass), the predicted tasks twice (mals, A->T). Counted once: each once.
    """
    f = {k.split()[-1]: v for k, v in times.items() if k.startswith("factorise")}
    c = {k.split()[-1]: v for k, v in times.items() if k.startswith("count")}
    three = 3 * f["groups_train"] + 2 * f["groups"] + 2 * f["groups_pred"]
    three += 3 * c["tasks_train"] + 2 * c["tasks"] + 2 * c["tasks_pred"]
    return three, sum(f.values()) + sum(c.values())


def cpu_time(fn: Callable[[], Any]) -> tuple[float, Any]:
    start = time.process_time()
    out = fn()
    return time.process_time() - start, out


def copy_bandwidth(src: np.ndarray, dst: np.ndarray) -> float:
    """Bytes per CPU second of a numpy copy, best of 3 (read + write counted)."""
    best = min(cpu_time(lambda: np.copyto(dst, src))[0] for _ in range(3))
    return 2 * src.nbytes / best


def _joint(codes: np.ndarray, tasks: sp.csr_matrix, n_groups: int) -> np.ndarray:
    """(|G|, |T|) counts with one bincount over the CSR nonzeros."""
    rows = np.repeat(codes, np.diff(tasks.indptr))
    return np.bincount(
        rows * tasks.shape[1] + tasks.indices, minlength=n_groups * tasks.shape[1]
    ).reshape(n_groups, tasks.shape[1])


def _metrics_from_counts(
    n_tr: int,
    g_tr: np.ndarray,
    t_tr: np.ndarray,
    j_tr: np.ndarray,
    n_ev: int,
    g_ev: np.ndarray,
    t_ev: np.ndarray,
    j_ev: np.ndarray,
    g_pred: np.ndarray,
    t_pred: np.ndarray,
    j_pred_tasks: np.ndarray,
    j_pred_groups: np.ndarray,
    j_mals: np.ndarray,
) -> tuple[float, float, float]:
    n_groups = len(g_tr)
    # MALS: b_train(t, g) > 1/|G| selects the pairs; mean over tasks of sum over groups
    b_train = j_tr / t_tr[None, :]
    b_pred = j_mals / j_mals.sum(axis=0)[None, :]
    mals = float(np.where(b_train > 1 / n_groups, b_pred - b_train, 0.0).sum() / j_tr.shape[1])
    # directional: y from the training split, delta from the evaluation split
    y = np.sign(n_tr * j_tr - g_tr[:, None] * t_tr[None, :])
    a2t = y * (j_pred_tasks / g_ev[:, None] - j_ev / g_ev[:, None])
    t2a = y * (j_pred_groups / t_ev[None, :] - j_ev / t_ev[None, :])
    return mals, float(a2t.mean()), float(t2a.mean())


def numpy_single(d: dict) -> tuple[float, float, float]:
    names, g_tr = np.unique(d["groups_train"], return_inverse=True)
    index = {v: i for i, v in enumerate(names.tolist())}
    lookup = np.vectorize(index.__getitem__)
    uniq, inv = np.unique(d["groups"], return_inverse=True)
    g_ev = lookup(uniq)[inv]
    uniq, inv = np.unique(d["groups_pred"], return_inverse=True)
    g_pr = lookup(uniq)[inv]
    k = len(names)
    t_tr, t_ev, t_pr = d["tasks_train"], d["tasks"], d["tasks_pred"]
    j_tr = _joint(g_tr, t_tr, k)
    j_ev = _joint(g_ev, t_ev, k)
    return _metrics_from_counts(
        t_tr.shape[0], np.bincount(g_tr, minlength=k), j_tr.sum(0), j_tr,
        t_ev.shape[0], np.bincount(g_ev, minlength=k), j_ev.sum(0), j_ev,
        None, None, _joint(g_ev, t_pr, k), _joint(g_pr, t_ev, k), _joint(g_pr, t_pr, k),
    )  # fmt: skip


def loop_single(d: dict, n_tasks_timed: int) -> float:
    """Seconds of the per-pair loop on the first ``n_tasks_timed`` tasks (masks from indices)."""
    start = time.perf_counter()
    names = np.unique(d["groups_train"])
    cols = {k: d[k].tocsc() for k in ("tasks_train", "tasks", "tasks_pred")}
    for t in range(n_tasks_timed):
        rows = {k: m.indices[m.indptr[t] : m.indptr[t + 1]] for k, m in cols.items()}
        for g in names:
            # one mask per (group, task) pair and split, as the reference code loops
            int((d["groups_train"][rows["tasks_train"]] == g).sum())
            int((d["groups"][rows["tasks"]] == g).sum())
            int((d["groups"][rows["tasks_pred"]] == g).sum())
            int((d["groups_pred"][rows["tasks"]] == g).sum())
            int((d["groups_pred"][rows["tasks_pred"]] == g).sum())
    return time.perf_counter() - start


def input_bytes(d: dict, *, code_bytes: int | None = None) -> int:
    """The CSR ``indices`` and ``indptr`` plus the group arrays as passed, or
    ``code_bytes`` bytes a row for each group array."""
    total = 0
    for v in d.values():
        if sp.issparse(v):
            total += v.indices.nbytes + v.indptr.nbytes
        else:
            total += v.nbytes if code_bytes is None else code_bytes * v.shape[0]
    return total


# ----------------------------------------------------------------------------- workload 2
def coco(seed: int = 0) -> dict:
    train, test = load_coco_gender("val"), load_coco_gender("test")
    objects = [c for c in train.columns if c not in ("image_id", "gender")]
    rng = np.random.default_rng(seed)
    gender = test["gender"].to_numpy()
    flip = rng.random(len(gender)) < 0.2
    tasks = test[objects].to_numpy()
    return dict(
        groups=gender,
        tasks=tasks,
        groups_pred=np.where(flip, np.where(gender == "man", "woman", "man"), gender),
        tasks_pred=np.where(rng.random(tasks.shape) < 0.02, 1 - tasks, tasks),
        groups_train=train["gender"].to_numpy(),
        tasks_train=train[objects].to_numpy(),
    )


def ours_boot(d: dict, n_boot: int) -> tuple[np.ndarray, np.ndarray]:
    out = []
    for direction in ("A->T", "T->A"):
        r = biasamp.directional(direction=direction, n_boot=n_boot, random_state=0, **d)
        out.append(r.replicates)
    return out[0], out[1]


def numpy_boot(d: dict, n_boot: int) -> tuple[np.ndarray, np.ndarray]:
    """Resample-and-matmul: replicate counts as W @ (one-hot group x tasks)."""
    names = np.unique(d["groups_train"])
    onehot_tr = (d["groups_train"][:, None] == names[None, :]).astype(float)
    t_tr = d["tasks_train"].astype(float)
    n_tr = len(t_tr)
    j_tr = onehot_tr.T @ t_tr
    y = np.sign(n_tr * j_tr - onehot_tr.sum(0)[:, None] * t_tr.sum(0)[None, :])
    g = (d["groups"][:, None] == names[None, :]).astype(float)
    gp = (d["groups_pred"][:, None] == names[None, :]).astype(float)
    t = d["tasks"].astype(float)
    tp = d["tasks_pred"].astype(float)
    w = biasamp.replicate_weights(len(t), n_boot, random_state=0)  # (B, n)
    k = len(names)
    # (B, |G|, |T|) counts: one product per group column
    joint = np.stack([(w * g[:, j]) @ t for j in range(k)], axis=1)
    pred_tasks = np.stack([(w * g[:, j]) @ tp for j in range(k)], axis=1)
    pred_groups = np.stack([(w * gp[:, j]) @ t for j in range(k)], axis=1)
    n_g = w @ g  # (B, |G|)
    n_t = w @ t  # (B, |T|)
    with np.errstate(invalid="ignore", divide="ignore"):
        a2t = y * (pred_tasks - joint) / n_g[:, :, None]
        t2a = y * (pred_groups - joint) / n_t[:, None, :]
    return np.nanmean(a2t, axis=(1, 2)), np.nanmean(t2a, axis=(1, 2))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--loop-tasks", type=int, default=50)
    parser.add_argument("--n-boot", type=int, default=1000)
    args = parser.parse_args(argv)

    import os

    d = single_workload(args.rows)
    src = np.ones((1 << 29) // 8)
    dst = np.empty_like(src)
    np.copyto(dst, src)
    v_three, v_once, v_np = ours_single(d), ours_counted_once(d), numpy_single(d)  # warm up
    np.testing.assert_allclose(v_three, v_np, rtol=1e-9, atol=1e-12)
    assert v_once == v_three, (v_once, v_three)
    runs, primitives = [], []
    for _ in range(args.repeat):  # interleaved: every repeat sees the same load
        bw = copy_bandwidth(src, dst)
        runs.append(
            (
                input_bytes(d) / bw,
                input_bytes(d, code_bytes=1) / bw,
                cpu_time(lambda: ours_single(d))[0],
                cpu_time(lambda: ours_counted_once(d))[0],
                cpu_time(lambda: numpy_single(d))[0],
                bw,
            )
        )
        primitives.append(primitive_times(d))
    floor, floor_codes, t_ours, t_once, t_np, bw = np.median(np.array(runs), axis=0)
    step = {k: float(np.median([p[k] for p in primitives])) for k in primitives[0]}
    prim_three, prim_once = primitives_floor(step)
    del src, dst
    t_loop = loop_single(d, args.loop_tasks) * (d["tasks"].shape[1] / args.loop_tasks)
    print(
        f"## Single-attribute: mals + directional A->T + T->A, {args.rows:,} rows x 1,000 "
        f"sparse tasks (3 per row), 2 string groups\n"
    )
    print(
        f"load average {os.getloadavg()[0]:.1f}; median of {args.repeat} interleaved repeats, "
        f"process CPU time; copy bandwidth {bw / 1e9:.1f} GB/s; inputs "
        f"{input_bytes(d) / 1e6:.0f} MB as passed, {input_bytes(d, code_bytes=1) / 1e6:.0f} MB "
        "with one-byte group codes\n"
    )
    print("| implementation | CPU s (median) | vs floor | vs biasamp, three calls |")
    print("|---|---|---|---|")
    rows = [
        ("biasamp, three calls from raw arrays (validation + encoding + counting)", t_ours),
        ("biasamp, counted once (two `CountTable.from_arrays` + `*_from_counts`)", t_once),
        ("vectorised numpy (unique + bincount over CSR nonzeros)", t_np),
        (f"per-pair loop, masks from column indices ({args.loop_tasks} tasks timed, "
         "extrapolated; wall)", t_loop),
        ("floor: one pass over the inputs as passed (strings, CSR indices + indptr)", floor),
        ("floor: the same with one-byte group codes instead of strings", floor_codes),
    ]  # fmt: skip
    for name, t in rows:
        print(f"| {name} | {t:.4f} | {t / floor:.1f}x | {t / t_ours:.2f}x |")
    print(
        f"\nbiasamp: three calls {t_ours / floor:.1f}x, counted once {t_once / floor:.1f}x the "
        f"floor ({t_once / floor_codes:.1f}x the floor over codes); values equal to the numpy "
        "baseline (asserted).\n"
    )
    print("| primitive (each timed alone, median) | CPU ms |")
    print("|---|---|")
    for name, t in step.items():
        print(f"| {name} | {1e3 * t:.2f} |")
    print(
        f"\nprimitives floor: three calls {1e3 * prim_three:.1f} ms ({prim_three / floor:.1f}x the "
        f"floor; 7 factorisations + 7 passes), counted once {1e3 * prim_once:.1f} ms "
        f"({prim_once / floor:.1f}x; 3 + 3).\n"
    )

    c = coco()
    t_ob, (oa, ot) = best_of(lambda: ours_boot(c, args.n_boot), args.repeat)
    t_nb, (na, nt) = best_of(lambda: numpy_boot(c, args.n_boot), args.repeat)
    np.testing.assert_allclose(oa, na, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(ot, nt, rtol=1e-9, atol=1e-12)
    print(
        f"## Bootstrap: {args.n_boot:,} Poisson replicates of directional A->T and T->A, "
        "COCO test (5,473 x 79)\n"
    )
    print(f"| implementation | time (s, min of {args.repeat}) | vs biasamp |")
    print("|---|---|---|")
    print(f"| biasamp `directional(n_boot=...)`, both directions | {t_ob:.3f} | 1 |")
    print(f"| resample-and-matmul (same weights, BLAS) | {t_nb:.3f} | {t_nb / t_ob:.2f}x |")
    print("\nreplicate values equal (asserted).")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
