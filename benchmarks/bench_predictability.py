"""Speed of DPA and leakage amplification, against the peer package.

Run: ``python benchmarks/bench_predictability.py [--peer-epochs 5] [--no-peer]``

Data
----
* imSitu train (24,301 images, 211 verbs as a multiclass task, binary gender),
  with a synthetic model that pushes verbs towards their majority gender
  (T->A) and mislabels 20% of verbs (A->T).
* Synthetic multilabel: 50,000 rows x 80 labels (base rates 1-10%, shifted by
  the group), a model that flips 3% of the entries, more often towards the
  group-typical value, and a group classifier that is right 85% of the time.

biasamp runs both directions with 10 iterations and ``attacker="auto"``.
The peer (``pip install bias-amplification==0.2.1``, needs torch) runs where it
can: only T->A, because it takes N x 1 targets (the A->T target is the
211-class verb or the 80 labels). It is slow (a torch MLP trained for 100
epochs, twice per trial), so it runs one trial for ``--peer-epochs`` epochs
and the time is extrapolated linearly to 10 trials x 100 epochs; the table
says so.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import time

import numpy as np

import biasamp
from biasamp.datasets import load_imsitu_gender


def imsitu_data(seed: int = 0) -> dict[str, np.ndarray]:
    frame = load_imsitu_gender("train")
    g = frame["gender"].to_numpy()
    v = frame["verb"].to_numpy()
    rng = np.random.default_rng(seed)
    share = frame.assign(man=g == "man").groupby("verb")["man"].mean()
    majority = np.where(share.reindex(v).to_numpy() >= 0.5, "man", "woman")
    g_pred = g.copy()
    flip = (g != majority) & (rng.random(g.size) < 0.4)
    g_pred[flip] = majority[flip]
    v_pred = v.copy()
    wrong = rng.random(v.size) < 0.2
    v_pred[wrong] = rng.permutation(v)[wrong]
    return {"groups": g, "tasks": v, "groups_pred": g_pred, "tasks_pred": v_pred}


def multilabel_data(n: int = 50_000, k: int = 80, seed: int = 0) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    groups = (rng.random(n) < 0.4).astype(np.int64)
    base = rng.uniform(0.01, 0.10, size=k)
    tilt = rng.uniform(0.5, 2.0, size=k) ** np.where(rng.random(k) < 0.5, 1, -1)
    rate = np.where(groups[:, None] == 1, np.minimum(base * tilt, 0.9), base)
    tasks = (rng.random((n, k)) < rate).astype(np.float64)
    typical = (tilt > 1).astype(np.float64)[None, :] * groups[:, None] + (tilt <= 1).astype(
        np.float64
    )[None, :] * (1 - groups[:, None])
    flip = rng.random((n, k)) < 0.03
    towards = flip & (rng.random((n, k)) < 0.7)
    tasks_pred = np.where(towards, typical, np.where(flip, 1.0 - tasks, tasks))
    groups_pred = np.where(rng.random(n) < 0.85, groups, 1 - groups)
    return {"groups": groups, "tasks": tasks, "groups_pred": groups_pred, "tasks_pred": tasks_pred}


def time_biasamp(data: dict[str, np.ndarray]) -> tuple[dict[str, float], dict[str, object]]:
    seconds, out = {}, {}
    for direction in ("A->T", "T->A"):
        start = time.perf_counter()
        out[direction] = biasamp.dpa(
            direction=direction,
            groups=data["groups"],
            tasks=data["tasks"],
            groups_pred=data["groups_pred"],
            tasks_pred=data["tasks_pred"],
            n_iter=10,
            random_state=0,
        )
        seconds[direction] = time.perf_counter() - start
    return seconds, out


def time_leakage(data: dict[str, np.ndarray]) -> tuple[float, object]:
    start = time.perf_counter()
    result = biasamp.leakage_amplification(
        groups=data["groups"],
        tasks=data["tasks"],
        tasks_pred=data["tasks_pred"],
        n_iter=10,
        random_state=0,
    )
    return time.perf_counter() - start, result


def one_hot(values: np.ndarray) -> np.ndarray:
    _, codes = np.unique(values, return_inverse=True)
    out = np.zeros((values.size, codes.max() + 1), dtype=np.float32)
    out[np.arange(values.size), codes] = 1
    return out


def time_peer(data: dict[str, np.ndarray], epochs: int) -> tuple[float, float] | None:
    """Seconds of one peer T->A trial at ``epochs`` epochs, and its value."""
    try:
        import torch
        from bias_amplification import DPA
        from bias_amplification.attacker_models.ANN import simpleDenseModel
    except ImportError:
        return None
    torch.manual_seed(0)
    torch.set_num_threads(1)  # batch-64 steps of a tiny MLP: threads only add overhead
    tasks = data["tasks"]
    x = torch.tensor(one_hot(tasks) if tasks.ndim == 1 else tasks, dtype=torch.float32)
    a = torch.tensor((data["groups"] == data["groups"][0]).astype(np.float32)).reshape(-1, 1)
    a_hat = torch.tensor((data["groups_pred"] == data["groups"][0]).astype(np.float32)).reshape(
        -1, 1
    )
    attacker = simpleDenseModel(
        x.shape[1], 1, num_layers=3, numFirst=4, activations=["sigmoid", "sigmoid", "sigmoid"]
    )
    metric = DPA(
        attacker_AtoT=attacker,
        attacker_TtoA=attacker,
        train_params={
            "learning_rate": 0.005,
            "loss_function": "bce",
            "epochs": epochs,
            "batch_size": 64,
        },
        eval_metric="accuracy",
    )
    with contextlib.redirect_stdout(io.StringIO()):  # warm-up (torch start-up), not timed
        metric.computeBiasAmp(x[:256], a[:256], a_hat[:256], mode="TtoA", num_trials=1)
    start = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()):
        value = metric.computeBiasAmp(x, a, a_hat, mode="TtoA", num_trials=1)
    return time.perf_counter() - start, value


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--peer-epochs", type=int, default=5)
    parser.add_argument("--no-peer", action="store_true")
    args = parser.parse_args()
    rows = []
    for name, data in (
        ("imSitu train 24,301 x 211 verbs", imsitu_data()),
        ("synthetic 50,000 x 80 multilabel", multilabel_data()),
    ):
        seconds, results = time_biasamp(data)
        la_seconds, la = time_leakage(data)
        picked = ", ".join(f"{d}: {r.attacker} {r.value:+.4f}" for d, r in results.items())
        peer = None if args.no_peer else time_peer(data, args.peer_epochs)
        if peer is None:
            peer_cell, ratio = "not run", "-"
        else:
            extrapolated = peer[0] * 10 * (100 / args.peer_epochs)
            peer_cell = (
                f"{extrapolated:.0f} s (T->A only; 1 trial x {args.peer_epochs} "
                f"epochs = {peer[0]:.1f} s, x10 trials x{100 // args.peer_epochs})"
            )
            ratio = f"{extrapolated / seconds['T->A']:.0f}x (T->A vs T->A)"
        total = sum(seconds.values())
        rows.append(
            f"| {name} | {total:.2f} s (T->A {seconds['T->A']:.2f} s; {picked}) "
            f"| {la_seconds:.2f} s "
            f"(LA {la.value:+.4f}, {la.attacker}) | {peer_cell} | {ratio} |"
        )
    print(
        "| data | biasamp DPA, both directions, 10 iter | biasamp LA, 10 iter "
        "| peer 0.2.1 DPA, 10 trials | peer / biasamp |"
    )
    print("|---|---|---|---|---|")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
