"""Zhao et al. (2017), table 2 and figure 3: RBA before and after
==============================================================

RBA (Reducing Bias Amplification) re-decodes a structured predictor's scores on
the whole evaluation corpus under the constraint that each task's predicted
man share stays within 0.05 of its training share. The paper's CRF scores are
not public, so this example simulates CRF-like scores on the real bundled
labels, with the two biases the paper's models showed:

* **imSitu-like** (single (group, verb) output per image; training = bundled
  imSitu train, evaluation = imSitu val, 7,730 images, 211 verbs). The score of
  the output (g, v) for image i is ``1.3 log P_train(g, v)`` (the CRF's pair
  potential, over-weighted, which amplifies the training correlations) plus
  image evidence ``2 [g = g_i] + 4 [v = v_i]`` plus Gumbel noise.
* **COCO-like** (one group and a set of objects per image; training = bundled
  COCO val half, evaluation = the test half, 5,473 images; the 60 objects seen
  at least 50 times in training, as the paper keeps objects with enough
  training co-occurrences). Group potential ``2 log P_train(g)`` (over-weighting
  the majority group: Zhao et al.'s model predicted "man" for 75.6% of images
  against 71.2% in the data, Wang et al. section 3.3) plus evidence
  ``+-1`` plus logistic noise; object potentials are the naive-Bayes terms
  ``log P_train(t | g)`` / ``log(1 - P_train(t | g))`` plus shared image
  evidence ``+-3`` and logistic noise.

RBA settings: margin 0.05 and 100 iterations as in section 5.3, and biasamp's
defaults otherwise: the textbook Lagrangian penalty with steps scaled by each
task's training share (``scale="share"``, ``eta=1``; see docs/mitigation.md for
why the paper's per-count step of 0.1 is not the default). Paper, table 2 (test set): vSRL 149 -> 102 violations, 0.042 ->
0.025; MLC 38 -> 16, 0.040 -> 0.021; performance nearly unchanged.

Run ``python examples/08_rba_before_after.py``; it writes
``docs/gallery/08_rba.png`` and ``08_rba.md``.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import _gallery
import numpy as np
import pandas as pd

import biasamp
from biasamp.datasets import load_coco_gender, load_imsitu_gender

PAPER_TABLE_2 = pd.DataFrame(
    [
        {
            "setting": "paper vSRL test",
            "Viol. before": 149,
            "Viol. after": 102,
            "Amp. bias before": 0.042,
            "Amp. bias after": 0.025,
        },
        {
            "setting": "paper MLC test",
            "Viol. before": 38,
            "Viol. after": 16,
            "Amp. bias before": 0.040,
            "Amp. bias after": 0.021,
        },
    ]
)


def imsitu_like(random_state: int = 0) -> dict[str, object]:
    """Simulated CRF scores (n, |G|, |T|) on imSitu val, and the labels RBA needs."""
    train, evaluation = load_imsitu_gender("train"), load_imsitu_gender("val")
    groups = sorted(train["gender"].unique())
    verbs = sorted(train["verb"].unique())
    joint = (
        pd.crosstab(train["gender"], train["verb"])
        .reindex(index=groups, columns=verbs, fill_value=0)
        .to_numpy()
        + 0.5
    )
    log_pair = np.log(joint / joint.sum())
    g_true = evaluation["gender"].map({g: i for i, g in enumerate(groups)}).to_numpy()
    v_true = evaluation["verb"].map({v: i for i, v in enumerate(verbs)}).to_numpy()
    n = len(evaluation)
    rng = np.random.default_rng(random_state)
    scores = (
        1.3 * log_pair[None]
        + 2.0 * (np.arange(len(groups))[None, :, None] == g_true[:, None, None])
        + 4.0 * (np.arange(len(verbs))[None, None, :] == v_true[:, None, None])
        + rng.gumbel(size=(n, len(groups), len(verbs)))
    )
    return {
        "scores": scores,
        "structure": "single",
        "groups_train": train["gender"],
        "tasks_train": train["verb"],
        "groups": evaluation["gender"],
        "tasks": evaluation["verb"],
    }


def coco_like(random_state: int = 0, min_count: int = 50) -> dict[str, object]:
    """Simulated CRF potentials ((n, |G|), (n, |G|, |T|, 2)) on the COCO test half."""
    train, evaluation = load_coco_gender("val"), load_coco_gender("test")
    objects = [
        c for c in train.columns if c not in ("image_id", "gender") and train[c].sum() >= min_count
    ]
    groups = sorted(train["gender"].unique())
    y_train = train[objects].to_numpy(dtype=float)
    g_train = train["gender"].map({g: i for i, g in enumerate(groups)}).to_numpy()
    p_group = np.bincount(g_train, minlength=len(groups)) / len(g_train)
    p_task = np.stack(
        [
            (y_train[g_train == k].sum(axis=0) + 0.5) / ((g_train == k).sum() + 1.0)
            for k in range(len(groups))
        ]
    )  # P(t | g), (|G|, |T|)
    y = evaluation[objects].to_numpy(dtype=float)
    g_true = evaluation["gender"].map({g: i for i, g in enumerate(groups)}).to_numpy()
    n = len(evaluation)
    rng = np.random.default_rng(random_state)
    sign = 2.0 * (np.arange(len(groups))[None] == g_true[:, None]) - 1.0
    group_scores = 2.0 * np.log(p_group)[None] + sign + rng.logistic(size=(n, len(groups)))
    evidence = 3.0 * (2.0 * y[:, None, :] - 1.0) + rng.logistic(size=(n, 1, len(objects)))
    task_scores = np.empty((n, len(groups), len(objects), 2))
    task_scores[..., 0] = np.log(p_task)[None] + evidence
    task_scores[..., 1] = np.log1p(-p_task)[None]
    return {
        "scores": (group_scores, task_scores),
        "structure": "multilabel",
        "groups_train": train["gender"],
        "tasks_train": train[objects],
        "groups": evaluation["gender"],
        "tasks": evaluation[objects],
    }


def run(setting: dict[str, object]) -> biasamp.RBAResult:
    setting = dict(setting)
    scores = setting.pop("scores")
    with warnings.catch_warnings():  # a run that keeps violated constraints: the tables say so
        warnings.simplefilter("ignore", biasamp.RBAConvergenceWarning)
        return biasamp.rba(scores, margin=0.05, max_iter=100, **setting)


def per_task(result: biasamp.RBAResult, group: str = "man") -> pd.DataFrame:
    """Training and predicted bias toward ``group`` per task, before and after RBA."""
    columns = ["task", "b_train", "b_pred", "violation"]
    before = result.mals_before.by_pair.query("group == @group")[columns]
    after = result.mals_after.by_pair.query("group == @group")[columns]
    return before.merge(after, on=["task", "b_train"], suffixes=("_before", "_after"))


def amplification_by_training_bias(frame: pd.DataFrame, stage: str) -> pd.DataFrame:
    """Mean amplification (toward the training majority) per bin of training bias (fig. 3e-f)."""
    b, p = frame["b_train"], frame[f"b_pred_{stage}"]
    amp = np.where(b > 0.5, p - b, b - p)
    bins = pd.cut(b, np.linspace(0, 1, 11))
    return (
        pd.DataFrame({"bin": bins, "amp": amp})
        .groupby("bin", observed=True)["amp"]
        .mean()
        .reset_index()
    )


def plot(frames: dict[str, pd.DataFrame], path: Path) -> None:
    plt = _gallery.pyplot()
    fig, axes = plt.subplots(len(frames), 3, figsize=(13, 4.1 * len(frames)))
    for row, (name, frame) in zip(axes, frames.items(), strict=True):
        frame = frame.dropna(subset=["b_pred_before", "b_pred_after"])
        for ax, stage in zip(row[:2], ("before", "after"), strict=True):
            bad = frame[f"violation_{stage}"].astype(bool)
            ax.scatter(
                frame["b_train"][~bad],
                frame[f"b_pred_{stage}"][~bad],
                s=10,
                color="C2",
                label="within margin",
            )
            ax.scatter(
                frame["b_train"][bad],
                frame[f"b_pred_{stage}"][bad],
                s=10,
                color="C3",
                label=f"violation ({int(bad.sum())})",
            )
            line = np.array([0.0, 1.0])
            ax.plot(line, line, color="0.3", lw=0.8)
            for shift in (-0.05, 0.05):
                ax.plot(line, line + shift, color="C0", ls=":", lw=1)
            ax.set_xlim(0, 1)
            ax.set_ylim(0, 1)
            ax.set_xlabel("training bias toward men")
            ax.set_ylabel("predicted bias toward men")
            ax.set_title(f"{name}: {stage} RBA", fontsize=10)
            ax.legend(fontsize=8, loc="upper left")
        ax = row[2]
        for stage, color in (("before", "C3"), ("after", "C0")):
            curve = amplification_by_training_bias(frame, stage)
            centres = [interval.mid for interval in curve["bin"]]
            ax.plot(centres, curve["amp"], marker="o", color=color, label=f"{stage} RBA")
        ax.axhline(0, color="0.5", lw=0.8)
        ax.set_xlabel("training bias toward men (bins of 0.1)")
        ax.set_ylabel("mean amplification")
        ax.set_title(f"{name}: amplification vs training bias", fontsize=10)
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def main(output_dir: Path | str | None = None) -> dict[str, float]:
    out = _gallery.output_dir(output_dir)
    results = {"imSitu-like": run(imsitu_like()), "COCO-like": run(coco_like())}
    rows, key = [], {}
    for name, result in results.items():
        table = result.table()
        perf = [c for c in table.columns if c not in ("Viol.", "Amp. bias (MALS)")]
        row = {
            "setting": name,
            "Viol. before": int(table.loc["before", "Viol."]),
            "Viol. after": int(table.loc["after", "Viol."]),
            "Amp. bias before": float(table.loc["before", "Amp. bias (MALS)"]),
            "Amp. bias after": float(table.loc["after", "Amp. bias (MALS)"]),
        }
        for column in perf:
            row[f"{column} before"] = float(table.loc["before", column])
            row[f"{column} after"] = float(table.loc["after", column])
        rows.append(row)
        tag = name.split("-")[0].lower()
        for column, value in row.items():
            if column != "setting":
                key[f"{tag}: {column}"] = value
    table = pd.concat([pd.DataFrame(rows), PAPER_TABLE_2], ignore_index=True)
    for column in ("Viol. before", "Viol. after"):
        table[column] = table[column].astype(int).astype(str)
    frames = {name: per_task(result) for name, result in results.items()}
    lines = [
        "# RBA before and after (Zhao et al. 2017, table 2 and figure 3)",
        "",
        "Simulated CRF-like scores on the real bundled labels (see the example's "
        "docstring); the paper's rows are its table 2, test set. Performance: top-1 "
        "(group, verb) accuracy for imSitu-like, object macro-F1 for COCO-like, and "
        "group accuracy.",
        "",
        _gallery.markdown_table(table, floatfmt=".4f"),
        "",
    ]
    (out / "08_rba.md").write_text("\n".join(lines))
    plot(frames, out / "08_rba.png")
    return key


if __name__ == "__main__":
    for name, value in main().items():
        print(f"{name:40s} {value:.4f}")
