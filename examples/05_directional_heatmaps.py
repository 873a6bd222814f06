"""DPA paper (Tokas et al.), appendix J: BA->, DPA and Multi-> over dataset x model bias
=====================================================================================

A binary attribute A and a binary task T. Each (A, T) cell has probability
0.25; the dataset bias ``alpha_d`` is added to (A=0, T=0) and taken from
(A=1, T=1), and the model bias ``alpha_m`` does the same to the model's
predictions. Here alpha_d and alpha_m run over 21 values in [-0.24, 0.24]
(the paper: 100 values in [-0.25, 0.25]).

Each (alpha_d, alpha_m) cell is a weighted population of N = 1,000 rows
``(a, t, t_hat)`` whose (A, T) counts follow the dataset and whose
``P(T_hat | A)`` follows the model, and A->T is measured three ways on it
(training split = the dataset):

* BA-> (:func:`biasamp.directional`), Wang & Russakovsky;
* DPA (:func:`biasamp.dpa`, exact attacker, quality 1/cross-entropy, no
  label perturbation because the simulated "model" has no per-row accuracy to
  match, 3 iterations);
* Multi-> (:func:`biasamp.multi_directional`, tasks as two indicator columns).

In this design the A-T covariance is ``-alpha**2`` for either sign of alpha,
so the model amplifies the data's correlation when ``|alpha_m| > |alpha_d|``
and weakens it when ``|alpha_m| < |alpha_d|``; the dotted lines
``alpha_m = +-alpha_d`` are "model = data". The paper's findings, reproduced:
BA-> and DPA behave alike (blue where the model weakens the correlation, red
where it strengthens it; their signs agree in 94% of the cells off balanced
data) except on balanced data (alpha_d = 0), where BA-> reads 0 by
construction whatever the model does; Multi-> is never negative.

Run ``python examples/05_directional_heatmaps.py``; it writes
``docs/gallery/05_directional_heatmaps.png`` and ``.csv``.
"""

from __future__ import annotations

from pathlib import Path

import _gallery
import numpy as np
import pandas as pd

import biasamp

ALPHAS = np.round(np.linspace(-0.24, 0.24, 21), 3)
N_ROWS = 1000


def joint(alpha: float) -> np.ndarray:
    """P(A, T) as a 2x2 array: 0.25 everywhere, +alpha at (0, 0), -alpha at (1, 1)."""
    return np.array([[0.25 + alpha, 0.25], [0.25, 0.25 - alpha]])


def population(alpha_d: float, alpha_m: float, n: int = N_ROWS) -> dict[str, np.ndarray]:
    """Rows (a, t, t_hat) with counts n P_d(a, t) P_m(t_hat | a), rounded; zero cells dropped."""
    p_data, p_model = joint(alpha_d), joint(alpha_m)
    p_pred_given_a = p_model / p_model.sum(axis=1, keepdims=True)
    cells = [
        (a, t, th, int(round(n * p_data[a, t] * p_pred_given_a[a, th])))
        for a in range(2)
        for t in range(2)
        for th in range(2)
    ]
    a, t, th, count = (np.array(v) for v in zip(*cells, strict=True))
    keep = count > 0
    return {
        "a": np.repeat(a[keep], count[keep]),
        "t": np.repeat(t[keep], count[keep]),
        "t_hat": np.repeat(th[keep], count[keep]),
    }


def metrics(alpha_d: float, alpha_m: float, random_state: int = 0) -> dict[str, float]:
    rows = population(alpha_d, alpha_m)
    groups = np.where(rows["a"] == 0, "A=0", "A=1")
    tasks = np.where(rows["t"] == 0, "T=0", "T=1")
    tasks_pred = np.where(rows["t_hat"] == 0, "T=0", "T=1")
    two_columns = ["T=0", "T=1"]
    onehot = pd.DataFrame(np.eye(2, dtype=int)[rows["t"]], columns=two_columns)
    onehot_pred = pd.DataFrame(np.eye(2, dtype=int)[rows["t_hat"]], columns=two_columns)
    ba = biasamp.directional(
        direction="A->T",
        groups=groups,
        tasks=tasks,
        tasks_pred=tasks_pred,
        groups_train=groups,
        tasks_train=tasks,
    )
    multi = biasamp.multi_directional(
        direction="A->T",
        groups=groups,
        tasks=onehot,
        tasks_pred=onehot_pred,
        groups_train=groups,
        tasks_train=onehot,
    )
    dpa = biasamp.dpa(
        direction="A->T",
        groups=groups,
        tasks=tasks,
        tasks_pred=tasks_pred,
        attacker="exact",
        perturbation="none",
        n_iter=3,
        random_state=random_state,
    )
    return {"BA->": ba.value, "DPA": dpa.value, "Multi->": multi.value}


def grid() -> pd.DataFrame:
    rows = [{"alpha_d": ad, "alpha_m": am, **metrics(ad, am)} for ad in ALPHAS for am in ALPHAS]
    return pd.DataFrame(rows)


def plot(table: pd.DataFrame, path: Path) -> None:
    plt = _gallery.pyplot()
    fig, axes = plt.subplots(1, 3, figsize=(14, 4.4))
    extent = [ALPHAS[0], ALPHAS[-1], ALPHAS[0], ALPHAS[-1]]
    for ax, name in zip(axes, ["BA->", "DPA", "Multi->"], strict=True):
        image = table.pivot(index="alpha_m", columns="alpha_d", values=name).to_numpy()
        limit = float(np.nanmax(np.abs(image))) or 1.0
        shown = ax.imshow(
            image,
            origin="lower",
            extent=extent,
            cmap="RdBu_r",
            vmin=-limit,
            vmax=limit,
            aspect="auto",
        )
        ax.plot(extent[:2], extent[2:], color="0.2", lw=0.6, ls=":")
        ax.plot(extent[:2], extent[2:][::-1], color="0.2", lw=0.6, ls=":")
        ax.set_xlabel(r"dataset bias $\alpha_d$")
        ax.set_ylabel(r"model bias $\alpha_m$")
        ax.set_title(f"{name} (A->T)", fontsize=11)
        fig.colorbar(shown, ax=ax, shrink=0.85)
    fig.suptitle(
        "DPA paper, appendix J: red = amplification, blue = reduction; "
        "dotted: |model bias| = |data bias|",
        fontsize=10,
    )
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def main(output_dir: Path | str | None = None) -> dict[str, float]:
    out = _gallery.output_dir(output_dir)
    table = grid()
    table.to_csv(out / "05_directional_heatmaps.csv", index=False, float_format="%.6f")
    plot(table, out / "05_directional_heatmaps.png")
    balanced = table[table["alpha_d"] == 0]
    off = table[(table["alpha_d"] != 0) & (table["alpha_m"] != table["alpha_d"])]
    agree = np.sign(off["BA->"]) == np.sign(off["DPA"])
    diagonal = table[table["alpha_m"] == table["alpha_d"]]
    return {
        "BA-> max |value| on balanced data": float(balanced["BA->"].abs().max()),
        "DPA max |value| on balanced data": float(balanced["DPA"].abs().max()),
        "Multi-> min": float(table["Multi->"].min()),
        "BA-> min": float(table["BA->"].min()),
        "DPA min": float(table["DPA"].min()),
        "sign agreement BA-> vs DPA off balanced data": float(agree.mean()),
        "BA-> max |value| on the diagonal": float(diagonal["BA->"].abs().max()),
        "Multi-> max on the diagonal": float(diagonal["Multi->"].max()),
    }


if __name__ == "__main__":
    for name, value in main().items():
        print(f"{name:48s} {value:8.4f}")
