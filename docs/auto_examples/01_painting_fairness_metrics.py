"""Wang & Russakovsky (2021), figure 2: the painting example
=========================================================

Forty women and forty men; 30 women and 10 men paint, 10 women and 30 men do
not. A painting classifier is always right on men; on women it predicts
painting for ``k`` of the 40 (k = 0..40) with as few errors as possible (it
first labels the true painters, then the non-painters). The x axis is the share
of women predicted to be painting, ``k / 40``; the ground truth is 0.75.

Four standard fairness metrics (FPR difference, TPR difference, accuracy
difference and mean per-class accuracy, each computed from the instance-level
predictions) cannot tell under-prediction (x < 0.75) from over-prediction
(x > 0.75): the first two see only one side, the last two are symmetric.
BiasAmp_MALS and BiasAmp A->T are negative on one side, zero at 0.75 and
positive on the other.

As in the reference code (princetonvisualai/directional-bias-amp,
``paint_ex``), "painting" and "not painting" are both tasks (|T| = 2), the
training split is the dataset itself, the attribute is predicted perfectly
(BiasAmp_MALS needs attribute predictions), and the differences are men minus
women.

Run ``python examples/01_painting_fairness_metrics.py``; it writes
``docs/gallery/01_painting.png`` and ``docs/gallery/01_painting.csv``.
"""

from __future__ import annotations

from pathlib import Path

import _gallery
import numpy as np
import pandas as pd

import biasamp

COUNTS = {
    ("woman", "painting"): 30,
    ("woman", "not painting"): 10,
    ("man", "painting"): 10,
    ("man", "not painting"): 30,
}


def painting_dataset() -> pd.DataFrame:
    """The 80 instances of figure 1, one row each (women first, painters first)."""
    rows = [(g, t) for (g, t), count in COUNTS.items() for _ in range(count)]
    return pd.DataFrame(rows, columns=["gender", "task"])


def predictions_for(data: pd.DataFrame, k: int) -> np.ndarray:
    """Task predictions: men correct; ``k`` women predicted painting, true painters first."""
    pred = data["task"].to_numpy(dtype=object).copy()
    women = np.flatnonzero(data["gender"].to_numpy() == "woman")
    order = women[np.argsort(data["task"].to_numpy()[women] != "painting", kind="stable")]
    pred[order[:k]] = "painting"
    pred[order[k:]] = "not painting"
    return pred


def _rates(truth: np.ndarray, pred: np.ndarray) -> tuple[float, float, float, float]:
    """TPR, FPR, accuracy and mean per-class accuracy of one group (painting positive)."""
    pos, hit = truth == "painting", pred == "painting"
    tpr = float(hit[pos].mean())
    fpr = float(hit[~pos].mean())
    accuracy = float((hit == pos).mean())
    return tpr, fpr, accuracy, (tpr + 1.0 - fpr) / 2.0


def curve(data: pd.DataFrame | None = None) -> pd.DataFrame:
    """Every metric for k = 0..40 women predicted painting."""
    data = painting_dataset() if data is None else data
    gender, task = data["gender"].to_numpy(), data["task"].to_numpy()
    n_women = int((gender == "woman").sum())
    rows = []
    for k in range(n_women + 1):
        pred = predictions_for(data, k)
        per_group = {g: _rates(task[gender == g], pred[gender == g]) for g in ("woman", "man")}
        (tpr_w, fpr_w, acc_w, mpc_w), (tpr_m, fpr_m, acc_m, mpc_m) = (
            per_group["woman"],
            per_group["man"],
        )
        mals = biasamp.mals(
            groups_train=gender, tasks_train=task, groups_pred=gender, tasks_pred=pred
        )
        a_to_t = biasamp.directional(
            direction="A->T",
            groups=gender,
            tasks=task,
            tasks_pred=pred,
            groups_train=gender,
            tasks_train=task,
        )
        rows.append(
            {
                "k_women_predicted_painting": k,
                "share_women_predicted_painting": k / n_women,
                "fpr_difference": fpr_m - fpr_w,
                "tpr_difference": tpr_m - tpr_w,
                "accuracy_difference": acc_m - acc_w,
                "mean_per_class_accuracy": (mpc_w + mpc_m) / 2.0,
                "biasamp_mals": mals.value,
                "biasamp_a_to_t": a_to_t.value,
            }
        )
    return pd.DataFrame(rows)


PANELS = [
    ("fpr_difference", "FPR difference", "C0"),
    ("tpr_difference", "TPR difference", "C0"),
    ("accuracy_difference", "Accuracy difference", "C0"),
    ("mean_per_class_accuracy", "Mean per-class accuracy", "C0"),
    ("biasamp_mals", "BiasAmp$_{MALS}$", "C1"),
    ("biasamp_a_to_t", "BiasAmp$_{A\\to T}$", "C1"),
]


def plot(table: pd.DataFrame, path: Path) -> None:
    plt = _gallery.pyplot()
    fig, axes = plt.subplots(2, 3, figsize=(11, 6.4), sharex=True)
    x = table["share_women_predicted_painting"]
    for ax, (column, title, color) in zip(axes.T.reshape(-1), PANELS, strict=True):
        ax.plot(x, table[column], color=color, lw=2)
        ax.axvline(0.75, color="0.5", ls="--", lw=1)
        ax.axhline(0.0, color="0.8", lw=0.8)
        ax.set_title(title)
        ax.set_xticks([0, 0.25, 0.5, 0.75, 1.0])
    for ax in axes[-1]:
        ax.set_xlabel("share of women predicted painting")
    fig.suptitle(
        "Painting example (Wang & Russakovsky 2021, fig. 2): truth = 0.75 (dashed); "
        "blue: standard fairness metrics, orange: bias amplification",
        fontsize=10,
    )
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(output_dir: Path | str | None = None) -> dict[str, float]:
    """Compute the curves, write the figure and the table, return the key numbers."""
    out = _gallery.output_dir(output_dir)
    table = curve()
    table.to_csv(out / "01_painting.csv", index=False, float_format="%.6f")
    plot(table, out / "01_painting.png")
    first, truth, last = table.iloc[0], table.iloc[30], table.iloc[-1]
    key = {}
    for column, _, _ in PANELS:
        key[f"{column}@0"] = float(first[column])
        key[f"{column}@0.75"] = float(truth[column])
        key[f"{column}@1"] = float(last[column])
    return key


if __name__ == "__main__":
    numbers = main()
    print("metric                      x=0      x=0.75   x=1")
    for column, _title, _color in PANELS:
        print(
            f"{column:26s} {numbers[column + '@0']:8.4f} {numbers[column + '@0.75']:8.4f} "
            f"{numbers[column + '@1']:8.4f}"
        )
