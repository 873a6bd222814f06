"""Zhao et al. (2017), figure 2 and section 6: how gender-biased are imSitu and COCO?
==================================================================================

The bias score of a verb or object toward men is ``b(o, man) = c(o, man) /
(c(o, man) + c(o, woman))`` (:func:`biasamp.bias_scores`). The paper reports:

* imSitu (training set, 212 verbs): "over 45%" of verbs biased beyond 2:1
  (abstract); 64.6% of verbs favour men, by an average bias of 0.707; 46.95%
  favour a gender with a bias of at least 0.7 (section 6.1).
* COCO (training set, 66 objects): "37%" of objects beyond 2:1 (abstract);
  86.6% of objects favour men, with an average magnitude of 0.65; 37.9% favour
  men with a bias of at least 0.7 (section 6.2).

The abstract's "2:1" figures match the section-6 figures at a threshold of 0.7
(46.95% and 37.9%), which is 2.33:1, so both thresholds are reported here:
"beyond 2:1" means ``max(b, 1 - b) > 2/3``. On the paper's own 66 COCO
ratios, 24 objects (36.4%) reach 0.7 toward men and 57 (86.4%) favour men;
the text's 37.9% and 86.6% are one object and a rounding away.

The data differ from the paper's, which explains the differences:

* imSitu: the paper uses the full imSitu training set filtered to 212
  human-oriented verbs; the bundled train split is the DPA paper's
  "unbalanced sub-dataset" (24,301 images, 211 verbs), a constrained sample.
* COCO: the paper uses COCO 2014 *train* with genders from captions and keeps
  the 66 objects that co-occur with a gender at least 100 times; the bundled
  labels are the two halves of COCO 2014 *val* (10,840 images, 79 objects,
  genders of Wang et al. 2019). Rows are shown for all 79 objects and for the
  paper's 66 (65 of them are object columns; "person" is not).
* The paper's own per-object COCO training ratios are bundled
  (``load_mals_coco_results``), so its COCO numbers are recomputed exactly, and
  panel (c) redraws figure 2(b) from the published predictions: BiasAmp_MALS
  of those predictions is 0.0317 (table 2: 0.032).

Run ``python examples/03_dataset_bias_analysis.py``; it writes
``docs/gallery/03_dataset_bias.png`` and ``.md``.
"""

from __future__ import annotations

from pathlib import Path

import _gallery
import numpy as np
import pandas as pd

import biasamp
from biasamp.datasets import load_coco_gender, load_imsitu_gender, load_mals_coco_results

PAPER = {
    "imSitu verbs": {
        "beyond_2_to_1": 0.45,
        "at_least_0.7": 0.4695,
        "favour_men": 0.646,
        "mean_b_man_where_men_favoured": 0.707,
    },
    "COCO objects": {
        "beyond_2_to_1": 0.37,
        "men_at_least_0.7": 0.379,
        "favour_men": 0.866,
        "mean_b_man": 0.65,
    },
}


def summarize(b_man: pd.Series) -> dict[str, float]:
    """Shares and means of one corpus's bias scores toward men."""
    b = b_man.to_numpy(dtype=float)
    strength = np.maximum(b, 1.0 - b)
    men = b > 0.5
    return {
        "n": len(b),
        "beyond_2_to_1": float((strength > 2.0 / 3.0).mean()),
        "at_least_0.7": float((strength >= 0.7).mean()),
        "favour_men": float(men.mean()),
        "men_at_least_0.7": float((b >= 0.7).mean()),
        "mean_b_man": float(b.mean()),
        "mean_b_man_where_men_favoured": float(b[men].mean()),
    }


def corpora() -> dict[str, pd.Series]:
    """b(o, man) per verb / object for each corpus compared."""
    imsitu = load_imsitu_gender("train")
    coco = pd.concat([load_coco_gender("val"), load_coco_gender("test")], ignore_index=True)
    objects = [c for c in coco.columns if c not in ("image_id", "gender")]
    coco_b = biasamp.bias_scores(coco["gender"], tasks=coco[objects])["man"]
    published = load_mals_coco_results().set_index("object")
    paper_objects = [o for o in published.index if o in coco_b.index]
    return {
        "imSitu verbs, bundled train (24,301 images)": biasamp.bias_scores(
            imsitu["gender"], tasks=imsitu["verb"]
        )["man"],
        "COCO objects, bundled val+test, all 79": coco_b,
        "COCO objects, bundled val+test, the paper's 66 (65 present)": coco_b[paper_objects],
        "COCO objects, the paper's published training ratios (66)": published["training_ratio"],
    }


def published_mals() -> float:
    """BiasAmp_MALS of Zhao et al.'s published COCO dev predictions (per-object ratios)."""
    published = load_mals_coco_results()
    train = pd.DataFrame(
        {
            "man": published["training_ratio"].to_numpy(),
            "woman": 1.0 - published["training_ratio"].to_numpy(),
        },
        index=published["object"],
    )
    ratio = published["gender_ratio_before_RBA"].to_numpy()
    objects = published["object"].to_numpy(dtype=object)
    result = biasamp.mals(
        counts_train=train,
        groups_pred=np.repeat(np.array(["man", "woman"], dtype=object), len(objects)),
        tasks_pred=np.concatenate([objects, objects]),
        sample_weight=np.concatenate([ratio, 1.0 - ratio]),
    )
    return result.value


def plot(scores: dict[str, pd.Series], path: Path) -> None:
    plt = _gallery.pyplot()
    fig, axes = plt.subplots(1, 3, figsize=(13, 4.2))
    bins = np.linspace(0, 1, 21)
    names = list(scores)
    for ax, name, color in ((axes[0], names[0], "C0"), (axes[1], names[1], "C1")):
        ax.hist(scores[name], bins=bins, color=color, edgecolor="white")
        for x in (1 / 3, 2 / 3):
            ax.axvline(x, color="0.3", ls="--", lw=1)
        ax.axvline(0.5, color="0.6", lw=0.8)
        ax.set_xlabel("bias toward men, b(o, man)")
        ax.set_ylabel("count")
        ax.set_title(name.split(",")[0] + " (bundled labels)\ndashed: 2:1 either way", fontsize=10)
    published = load_mals_coco_results()
    ax = axes[2]
    x, y = published["training_ratio"], published["gender_ratio_before_RBA"]
    amplified = np.where(x > 0.5, y > x, y < x)
    ax.scatter(x[amplified], y[amplified], s=14, color="C3", label="amplified")
    ax.scatter(x[~amplified], y[~amplified], s=14, color="C2", label="not amplified")
    ax.plot([0, 1], [0, 1], color="0.3", lw=1)
    ax.set_xlim(0.2, 1.0)
    ax.set_ylim(0.2, 1.0)
    ax.set_xlabel("training bias toward men")
    ax.set_ylabel("bias toward men in the CRF's dev predictions")
    ax.set_title("Zhao et al. fig. 2(b), from their published ratios", fontsize=10)
    ax.legend(fontsize=8, loc="upper left")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(output_dir: Path | str | None = None) -> dict[str, object]:
    out = _gallery.output_dir(output_dir)
    scores = corpora()
    table = pd.DataFrame([{"corpus": name, **summarize(b)} for name, b in scores.items()])
    paper_rows = pd.DataFrame(
        [{"corpus": f"paper text: {name}", **values} for name, values in PAPER.items()]
    )
    both = pd.concat([table, paper_rows], ignore_index=True)
    both["n"] = [str(int(v)) if pd.notna(v) else "" for v in both["n"]]
    mals_value = published_mals()
    text = [
        "# Dataset gender bias (Zhao et al. 2017, figure 2 and section 6)",
        "",
        "Shares are of the verbs / objects of each corpus; b = b(o, man); "
        "'beyond 2:1' is max(b, 1 - b) > 2/3.",
        "",
        _gallery.markdown_table(both, floatfmt=".3f"),
        "",
        f"BiasAmp_MALS of the paper's published COCO dev predictions: {mals_value:.4f} "
        "(table 2 prints 0.032).",
        "",
    ]
    (out / "03_dataset_bias.md").write_text("\n".join(text))
    plot(scores, out / "03_dataset_bias.png")
    key: dict[str, object] = {"published_coco_dev_mals": mals_value}
    short = ["imsitu", "coco79", "coco66", "coco_published"]
    for tag, row in zip(short, table.to_dict(orient="records"), strict=True):
        for metric, value in row.items():
            if metric != "corpus":
                key[f"{tag}_{metric}"] = value
    return key


if __name__ == "__main__":
    for name, value in main().items():
        print(f"{name:45s} {value:.4f}" if isinstance(value, float) else f"{name:45s} {value}")
