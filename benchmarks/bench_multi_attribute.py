"""Benchmark: multi-attribute bias amplification at CelebA and COCO scale.

Run ``python benchmarks/bench_multi_attribute.py [--rows 200000] [--naive-combos 150]
[--scaling [ROWS ...]] [--repeat N]
[--mdba-rows 2000]``. Prints markdown tables:

1. CelebA-like synthetic data (n train = n eval rows, 3 groups, 40 binary
   attributes from a 6-factor latent model, about 10 active per row):
   ``multi_directional`` in both directions and ``multi_mals``, "observed" mode,
   against a per-combination scan written as the reference code computes it
   (for each combination, a scan of every row of every split). The scan is timed
   on a random subset of M and extrapolated linearly to |M| (its cost is the
   same for every combination of a given size, and the subset is drawn uniformly).
2. The real COCO 2014 labels (bundled), "subsets" mode up to size 3.
3. The peer package ``bias-amplification`` 0.2.1 (MDBA, optional) on a capped
   subset of the same CelebA-like data, if it is installed.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

import biasamp
from biasamp.datasets import load_coco_gender


def celeba_like(n_rows: int, *, seed: int = 0):
    """Correlated binary attributes, a 3-level group and amplified predictions."""
    rng = np.random.default_rng(seed)
    n_attr, n_fac = 40, 6
    loadings = rng.normal(0, 1.2, (n_attr, n_fac)) * (rng.random((n_attr, n_fac)) < 0.4)
    # per-attribute base rates from 3% to 80% (CelebA's range), about 10 active per row
    base = np.quantile(rng.beta(0.8, 2.2, 10_000), np.linspace(0.02, 0.98, n_attr))
    offset = np.log(base / (1 - base))

    def draw(n, effect):
        z = rng.normal(size=(n, n_fac))
        group_logits = np.stack([z[:, 0], 0.5 * z[:, 1], -z[:, 0] + 0.3], axis=1)
        group = np.argmax(group_logits + rng.gumbel(size=(n, 3)), axis=1)
        logits = offset + z @ loadings.T + effect[group]
        return group, (rng.random((n, n_attr)) < 1 / (1 + np.exp(-logits))).astype(np.int8)

    def draw_chunked(n):  # one group effect per split; chunks bound the float64 temporaries
        effect = np.zeros((3, n_attr))
        effect[:, :12] = rng.normal(0, 0.6, (3, 12))
        parts = [draw(min(100_000, n - start), effect) for start in range(0, n, 100_000)]
        return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])

    g_train, t_train = draw_chunked(n_rows)
    g, t = draw_chunked(n_rows)
    # predictions: 5% label noise, group-driven over-prediction of 6 attributes,
    # and group predictions leaning on two attributes
    flip = rng.random(t.shape, dtype=np.float32) < 0.05
    t_pred = np.where(flip, 1 - t, t)
    push = (g[:, None] == 0) & (rng.random((n_rows, 6)) < 0.15)
    t_pred[:, :6] = np.maximum(t_pred[:, :6], push)
    g_pred = np.where(rng.random(n_rows) < 0.12, rng.integers(0, 3, n_rows), g)
    g_pred = np.where((t[:, 1] == 1) & (rng.random(n_rows) < 0.1), 2, g_pred)
    names = [f"attr{i:02d}" for i in range(n_attr)]
    return dict(
        groups_train=g_train,
        tasks_train=t_train,
        groups=g,
        tasks=t,
        groups_pred=g_pred,
        tasks_pred=t_pred.astype(np.int8),
    ), names


# ----------------------------------------------------------------------------- naive scan
def naive_per_combination(data, combos, n_groups=3):
    """The reference code's approach: for each combination, scan every row of every split.

    Computes the three metrics' per-combination statistics (y_gm, P(m|g) and
    P(m^|g), P(g|m) and P(g^|m), b_train and b_pred) for the given combinations.
    """
    tr, gtr = data["tasks_train"].astype(bool), data["groups_train"]
    ev, gev = data["tasks"].astype(bool), data["groups"]
    pr, gpr = data["tasks_pred"].astype(bool), data["groups_pred"]
    n_train = len(gtr)
    out = []
    for combo in combos:
        idx = list(combo)
        in_tr = tr[:, idx].all(axis=1)
        in_ev = ev[:, idx].all(axis=1)
        in_pr = pr[:, idx].all(axis=1)
        stats = []
        for a in range(n_groups):
            c_am = np.sum(in_tr & (gtr == a))
            y = np.sign(n_train * c_am - np.sum(gtr == a) * in_tr.sum())
            cond = gev == a
            g2m = np.mean(in_pr[cond]) - np.mean(in_ev[cond])
            m2g = np.mean(gpr[in_ev] == a) - np.mean(gev[in_ev] == a)
            b_train = c_am / in_tr.sum()
            b_pred = np.sum(in_pr & (gpr == a)) / max(in_pr.sum(), 1)
            stats.append((y, g2m, m2g, b_train, b_pred))
        out.append(stats)
    return out


def time_ours(data, names, **kw):
    """All three metrics from one shared CombinationSpace (``biasamp.multi_attribute``)."""
    start = time.perf_counter()
    together = biasamp.multi_attribute(**data, task_names=names, **kw)
    results = {"G->M": together["A->T"], "M->G": together["T->A"], "MALS": together["multi_mals"]}
    return time.perf_counter() - start, results


SCALE_RUN = """
import resource, sys, time
sys.path.insert(0, {bench!r})
from bench_multi_attribute import celeba_like, time_ours
data, names = celeba_like({rows})
cpu = time.process_time()
elapsed, results = time_ours(data, names, combinations="observed")
print(elapsed, results["MALS"].n_combinations,
      resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, time.process_time() - cpu)
"""


def scaling(sizes, repeat):
    """Time and peak RSS of the three metrics per size, each run in a fresh process.

    The sizes are interleaved (every round runs each size once, so that a change in
    the machine's load reaches all of them) and the table gives medians over rounds:
    wall time, and process CPU time, which moves less with the load of a shared
    machine (with ``BIASAMP_NUM_THREADS=1`` it is the single-threaded cost).
    """
    import os
    import subprocess
    from pathlib import Path

    bench = str(Path(__file__).resolve().parent)
    runs = {rows: [] for rows in sizes}
    for _ in range(repeat):
        for rows in sizes:
            out = subprocess.run(
                [sys.executable, "-c", SCALE_RUN.format(bench=bench, rows=rows)],
                capture_output=True,
                text=True,
                check=True,
            ).stdout.split()
            runs[rows].append((float(out[0]), int(out[1]), int(out[2]) / 1024, float(out[3])))
    threads = os.environ.get("BIASAMP_NUM_THREADS", "default")
    print("## Scaling, CelebA-like data, all three metrics from one CombinationSpace\n")
    print(
        f"median of {repeat} interleaved rounds; load average {os.getloadavg()[0]:.1f}; "
        f"BIASAMP_NUM_THREADS={threads}\n"
    )
    print(
        "| rows (train = evaluation) | combinations in M | wall (s) | CPU (s) | peak RSS (MB) "
        "| wall / first | CPU / first | combinations / first |"
    )
    print("|---|---|---|---|---|---|---|---|")
    first = None
    for rows in sizes:
        wall = float(np.median([r[0] for r in runs[rows]]))
        cpu = float(np.median([r[3] for r in runs[rows]]))
        n_comb = runs[rows][0][1]
        first = first or (wall, cpu, n_comb)
        print(
            f"| {rows:,} | {n_comb:,} | {wall:.1f} | {cpu:.1f} | "
            f"{max(r[2] for r in runs[rows]):.0f} | {wall / first[0]:.2f} | "
            f"{cpu / first[1]:.2f} | {n_comb / first[2]:.2f} |"
        )
    print()


def _mdba(data, n_rows, max_size):
    """The peer package on the first ``n_rows`` rows (None when it is not installed)."""
    try:
        import torch
        from bias_amplification.metrics import MDBA  # type: ignore[import-not-found]
    except ImportError:
        return None
    g = data["groups"][:n_rows]
    t = data["tasks"][:n_rows]
    tp = data["tasks_pred"][:n_rows]
    attrs = torch.nn.functional.one_hot(torch.as_tensor(g), 3).float()
    metric = MDBA(min_attr_size=1, max_attr_size=max_size)
    start = time.perf_counter()
    mean, _ = metric.computeBiasAmp(attrs, torch.as_tensor(t).float(), torch.as_tensor(tp).float())
    return time.perf_counter() - start, float(mean)


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--naive-combos", type=int, default=150)
    parser.add_argument("--mdba-rows", type=int, default=2_000)
    parser.add_argument(
        "--scaling",
        type=int,
        nargs="*",
        default=None,
        metavar="ROWS",
        help="only the scaling table for these sizes (default 200000 400000 800000)",
    )
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args(argv)
    if args.scaling is not None:
        scaling(args.scaling or [200_000, 400_000, 800_000], args.repeat)
        return 0

    data, names = celeba_like(args.rows)
    active = data["tasks"].sum(axis=1).mean()
    elapsed, results = time_ours(data, names, combinations="observed")
    m = results["MALS"].n_combinations
    combos = results["MALS"].by_combination["combination"].unique()
    rng = np.random.default_rng(1)
    sample = [
        tuple(names.index(x) for x in combos[i])
        for i in rng.choice(len(combos), size=min(args.naive_combos, len(combos)), replace=False)
    ]
    start = time.perf_counter()
    naive = naive_per_combination(data, sample)
    naive_per_combo = (time.perf_counter() - start) / len(sample)
    naive_total = naive_per_combo * m
    # cross-check: the scan's G->M deltas equal ours on the sampled combinations
    frame = results["G->M"].by_combination.set_index(["combination", "group"])["delta"]
    check = max(
        abs(stat[a][1] - frame[(tuple(names[i] for i in combo), a)])
        for combo, stat in zip(sample, naive, strict=True)
        for a in range(3)
    )
    print(
        f"## CelebA-like, {args.rows:,} train + {args.rows:,} evaluation rows, 3 groups, "
        f"40 attributes, {active:.1f} active per row, 'observed' mode\n"
    )
    print("| metric | value | variance | |M| |")
    print("|---|---|---|---|")
    for r in results.values():
        print(f"| {r.name} | {r.value:.4f} | {r.variance:.4f} | {r.n_combinations:,} |")
    print("\n| implementation | time (s) | ratio |")
    print("|---|---|---|")
    print(f"| biasamp, all three metrics | {elapsed:.2f} | 1 |")
    print(
        f"| per-combination scan ({len(sample)} of {m:,} combinations timed, "
        f"{naive_per_combo * 1e3:.1f} ms each, extrapolated) | {naive_total:.0f} | "
        f"{naive_total / elapsed:.0f}x slower |"
    )
    print(f"\nmax |delta difference| on the timed combinations: {check:.1e}\n")

    train, test = load_coco_gender("val"), load_coco_gender("test")
    objects = [c for c in train.columns if c not in ("image_id", "gender")]
    rng = np.random.default_rng(2)
    pred = test[objects].to_numpy()
    pred = np.where(rng.random(pred.shape) < 0.02, 1 - pred, pred)
    coco = dict(
        groups_train=train["gender"],
        tasks_train=train[objects],
        groups=test["gender"],
        tasks=test[objects],
        tasks_pred=pred,
        groups_pred=np.where(
            rng.random(len(test)) < 0.1,
            np.where(test["gender"] == "man", "woman", "man"),
            test["gender"],
        ),
    )
    print(
        f"## COCO 2014 labels ({len(train):,} + {len(test):,} images, {len(objects)} objects), "
        "'subsets' mode, min_count=1\n"
    )
    print("| max_size | |M| | time, all three metrics (s) | Multi_MALS | Multi G->M | Multi M->G |")
    print("|---|---|---|---|---|---|")
    for max_size in (1, 2, 3):
        start = time.perf_counter()
        rs = [
            biasamp.multi_directional(
                direction=d, combinations="subsets", max_size=max_size, **coco
            )
            for d in ("G->M", "M->G")
        ]
        rs.append(
            biasamp.multi_mals(
                combinations="subsets",
                max_size=max_size,
                **{k: v for k, v in coco.items() if k != "groups"},
            )
        )
        took = time.perf_counter() - start
        print(
            f"| {max_size} | {rs[0].n_combinations:,} | {took:.2f} | {rs[2].value:.4f} | "
            f"{rs[0].value:.4f} | {rs[1].value:.4f} |"
        )

    peer = _mdba(data, args.mdba_rows, 3) if args.mdba_rows else None
    if peer is not None:
        small = {k: v[: args.mdba_rows] for k, v in data.items()}
        # MDBA has no training split: its signs come from the evaluation ground truth
        small["groups_train"], small["tasks_train"] = small["groups"], small["tasks"]
        start = time.perf_counter()
        ours = biasamp.multi_directional(
            direction="G->M", combinations="subsets", max_size=3, task_names=names, **small
        )
        ours_time = time.perf_counter() - start
        print(
            f"\n## Peer package MDBA (bias-amplification 0.2.1), first {args.mdba_rows:,} "
            "evaluation rows of the CelebA-like data, G->M, combinations of size 1..3, "
            "signs from the evaluation ground truth (MDBA has no training split)\n"
        )
        print("| implementation | time (s) | value |")
        print("|---|---|---|")
        print(f"| MDBA computeBiasAmp | {peer[0]:.2f} | {float(peer[1]):.4f} |")
        print(
            f"| biasamp multi_directional G->M, subsets 1..3 ({ours.n_combinations:,} "
            f"combinations) | {ours_time:.2f} | {ours.value:.4f} |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
