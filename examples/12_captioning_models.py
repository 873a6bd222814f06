"""Real captions: six captioning models measured on what they write
=================================================================

The bundled captions of six COCO captioning models (Hendricks, Burns et al.,
ECCV 2018, "Women also Snowboard": ``baseline_ft``, ``equalizer``,
``confident``, ``upweight``, ``balanced``, ``confusion``) for the 5,473 images
of the COCO test half, read into a predicted gender (gendered words) and
predicted objects (object mentions) by :func:`biasamp.text.caption_labels`,
then measured against the images' own labels
(:func:`biasamp.text.caption_bias_table`): directional T->A and A->T and
BiasAmp_MALS with 95% bootstrap intervals (signs and training bias from the val
half). Captions that name no gender are left out of T->A and MALS (the tables
say how many).

**With human captions.** 628 of the test images have their five COCO human
captions bundled (:func:`biasamp.datasets.load_coco_human_captions`). On them,
beside the co-occurrence metrics, the first table gives the paper's LIC
(:func:`biasamp.lic`: the data side is the five human captions, one attacker
per caption position) and DBAC in both directions (:func:`biasamp.dbac`), each
over 10 random splits with Student-t intervals.

**Every test image.** The second table covers all 5,473 images; with no human
captions for most of them, LIC's data side there is the *baseline model's*
captions: ``LIC_M`` is how well the gender can be read from each model's masked
captions, and ``LIC vs baseline`` is that minus the same for the baseline (not
the paper's LIC).

What the data show
------------------
* **Gender words.** The Equalizer names a gender in far fewer captions than the
  baseline (3,594 against 4,354 of 5,473), and is right more often when it does
  (89.3% against 83.8%): it trades coverage for precision.
* **T->A.** Over the whole test half, the Equalizer's T->A is *not* lower than
  the baseline's: the baseline is about -0.025 (interval below 0) and the
  Equalizer about +0.013 (interval across 0). The directional paper's remark
  (Figure 3) that the Equalizer "decreases T->A" is about illustrative
  captions; aggregated over every image and pair, these captions do not show
  it. Most intervals overlap, so the six models are hard to separate on T->A.
* **A->T.** All six models sit near -0.005 with tight, overlapping intervals:
  captions mention the objects of men's and women's images at about the rates
  the images have them. The paper's "increases A->T for certain tasks" holds
  pair by pair (``pairs where T->A falls and A->T rises`` counts the group x
  object pairs where the Equalizer lowers T->A and raises A->T to a positive
  value, as the reference script lists them: 17, or 15 with the reference's rule
  that captions without a gender leave A->T too), not for the mean.
* **MALS** ranks the models differently again (the Equalizer lowest): one
  number per metric hides which direction moved.
* **Leakage.** The masked captions of every model still reveal the gender well
  above chance (``LIC_M`` about 0.47-0.51; an attacker with no signal scores
  about 0.25). The Equalizer's masked captions leak the most (about +0.03 over
  the baseline's), the same direction as Hirota et al.'s finding that the
  Equalizer amplifies LIC, but with three splits the intervals overlap.

* **Human captions, LIC.** On the 628 images, every model's masked captions
  leak the gender more than the human captions do: LIC_D is about 0.36 for
  every model (the same human captions, aligned to each model's vocabulary),
  LIC_M 0.42-0.46, LIC +0.06 to +0.11 with intervals above 0 (about +-0.03:
  only 181 women, so a balanced test split holds 18 images per gender). The
  ``confident`` model leaks the most, ``upweight`` the least; the Equalizer is
  in the middle and the intervals of all six overlap.
* **Human captions, DBAC.** DBAC T->A is small and positive for every model
  (+0.02 to +0.035, intervals about +-0.005, all above 0): the context of the
  model captions predicts the gender a little better than the human captions'
  context. DBAC A->T is strongly negative (-0.25 to -0.32). Its Bayes step
  weights each caption by how common its set of objects is on its side, and 23%
  of the human captions mention no COCO object against 8-11% of the model
  captions, so the human side's object sets are more concentrated: on this data
  A->T reads the models' more varied object mentions, not the gender.
* **Interval size at this size.** With 628 images the bootstrap intervals of
  T->A are about 0.11 wide and MALS's about 0.06, so no two models are
  separated by T->A or MALS; LIC's intervals are about 0.06 wide, DBAC T->A's
  about 0.01 and DBAC A->T's about 0.04 (the md file lists the widths).

Run ``python examples/12_captioning_models.py``; it writes
``docs/gallery/12_captioning_models.png``, ``12_captioning_models_human.png``
and ``.md``.
"""

from __future__ import annotations

from pathlib import Path

import _gallery
import numpy as np
import pandas as pd

import biasamp
from biasamp.datasets import load_coco_captions, load_coco_gender, load_coco_human_captions
from biasamp.text import caption_bias_table

MODELS = ("baseline_ft", "equalizer", "confident", "upweight", "balanced", "confusion")
METRICS = ("directional-t2a", "directional-a2t", "mals")  # the registry's names


def measure(*, n_boot: int = 300, n_iter: int = 3) -> tuple[pd.DataFrame, dict[str, object]]:
    captions, truth, train = (
        load_coco_captions("test"), load_coco_gender("test"), load_coco_gender("val")
    )  # fmt: skip
    objects = [c for c in truth.columns if c not in ("image_id", "gender")]
    table, results = caption_bias_table(
        captions[list(MODELS)], groups=truth["gender"], tasks=truth[objects],
        groups_train=train["gender"], tasks_train=train[objects], n_boot=n_boot, random_state=0,
    )  # fmt: skip
    for name in MODELS:
        leak = biasamp.lic(
            captions_human=captions["baseline_ft"], captions_model=captions[name],
            groups=truth["gender"], n_iter=n_iter, random_state=0,
        )  # fmt: skip
        row = table["model"] == name
        table.loc[row, "LIC_M"] = leak.lic_m
        table.loc[row, "LIC vs baseline"] = leak.value
        if leak.ci is not None:
            table.loc[row, "LIC_M ci_low"], table.loc[row, "LIC_M ci_high"] = _t(leak.model_quality)
    # The reference script's row rule: captions without a gender leave A->T too.
    _, reference_rows = caption_bias_table(
        captions[["baseline_ft", "equalizer"]], groups=truth["gender"], tasks=truth[objects],
        groups_train=train["gender"], tasks_train=train[objects], metrics=["directional-t2a", "directional-a2t"],
        exclude_no_group="all",
    )  # fmt: skip
    return table, {**results, "reference rows": reference_rows}


def measure_human(*, n_boot: int = 300, n_iter: int = 10) -> pd.DataFrame:
    """The 628 test images with five human captions: co-occurrence metrics, LIC and DBAC."""
    data = load_coco_human_captions("test").merge(load_coco_gender("test"), on="image_id")
    data = data.merge(load_coco_captions("test"), on="image_id")
    train = load_coco_gender("val")
    objects = [c for c in train.columns if c not in ("image_id", "gender")]
    human = data[[f"human_{i}" for i in range(1, 6)]].to_numpy().tolist()
    table, _ = caption_bias_table(
        data[list(MODELS)], groups=data["gender"], tasks=data[objects],
        groups_train=train["gender"], tasks_train=train[objects], n_boot=n_boot,
        random_state=0, metrics=[*METRICS, "dbac-a2t", "dbac-t2a"], captions_human=human,
        dbac_params={"n_iter": n_iter},
    )  # fmt: skip
    for name in MODELS:
        leak = biasamp.lic(
            captions_human=human, captions_model=data[name], groups=data["gender"],
            n_iter=n_iter, random_state=0,
        )  # fmt: skip
        row = table["model"] == name
        table.loc[row, "LIC_D"], table.loc[row, "LIC_M"] = leak.lic_d, leak.lic_m
        table.loc[row, "LIC"] = leak.value
        assert leak.ci is not None
        table.loc[row, "LIC ci_low"], table.loc[row, "LIC ci_high"] = leak.ci
    return table


def plot_human(table: pd.DataFrame, path: Path) -> None:
    plt = _gallery.pyplot()
    metrics = ("directional-t2a", "directional-a2t", "LIC", "dbac-t2a", "dbac-a2t")
    order = table.sort_values("dbac-t2a")
    fig, axes = plt.subplots(1, len(metrics), figsize=(16, 3.6), sharey=True)
    y = np.arange(len(order))
    for ax, metric in zip(axes, metrics, strict=True):
        value = order[metric].to_numpy(float)
        low, high = order[f"{metric} ci_low"].to_numpy(float), order[f"{metric} ci_high"]
        err = np.vstack([value - low, high.to_numpy(float) - value])
        ax.errorbar(value, y, xerr=np.clip(err, 0, None), fmt="o", capsize=3, color="C1")
        ax.axvline(0, color="black", linewidth=0.8)
        ax.set_title(metric)
    axes[0].set_yticks(y, order["model"])
    axes[0].set_ylabel("model (sorted by dbac-t2a)")
    fig.suptitle("628 COCO test images with human captions: mean and 95% interval", fontsize=11)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _t(values: np.ndarray) -> tuple[float, float]:
    from scipy import stats

    half = stats.t.ppf(0.975, len(values) - 1) * values.std(ddof=1) / np.sqrt(len(values))
    return float(values.mean() - half), float(values.mean() + half)


def pairs_t_falls_a_rises(results: dict) -> int:
    """Group x object pairs where the Equalizer lowers T->A and raises A->T above 0."""
    base, eq = results["baseline_ft"], results["equalizer"]
    keys = ["group", "task"]
    frames = [
        r[m].by_pair.set_index(keys)["contribution"].rename(f"{n} {m}")
        for n, r in (("base", base), ("eq", eq))
        for m in ("directional-t2a", "directional-a2t")
    ]  # fmt: skip
    both = pd.concat(frames, axis=1).dropna()
    chosen = (
        (both["base directional-t2a"] > both["eq directional-t2a"])
        & (both["base directional-a2t"] < both["eq directional-a2t"])
        & (both["eq directional-a2t"] > 0)
    )
    return int(chosen.sum())


def plot(table: pd.DataFrame, path: Path) -> None:
    plt = _gallery.pyplot()
    order = table.sort_values("directional-t2a")
    fig, axes = plt.subplots(1, 4, figsize=(14, 3.6), sharey=True)
    y = np.arange(len(order))
    for ax, metric in zip(axes, [*METRICS, "LIC_M"], strict=True):
        value = order[metric].to_numpy(float)
        low, high = order[f"{metric} ci_low"].to_numpy(float), order[f"{metric} ci_high"]
        err = np.vstack([value - low, high.to_numpy(float) - value])
        ax.errorbar(value, y, xerr=np.clip(err, 0, None), fmt="o", capsize=3, color="C0")
        if metric != "LIC_M":
            ax.axvline(0, color="black", linewidth=0.8)
        ax.set_title(metric if metric != "LIC_M" else "LIC_M (masked-caption leakage)")
    axes[0].set_yticks(y, order["model"])
    axes[0].set_ylabel("model (sorted by directional-t2a)")
    fig.suptitle("Six captioning models on COCO test: mean and 95% interval", fontsize=11)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(
    output_dir: Path | str | None = None, *, n_boot: int = 300, n_iter: int = 3,
    n_iter_human: int = 10,
) -> dict:  # fmt: skip
    out = _gallery.output_dir(output_dir)
    table, results = measure(n_boot=n_boot, n_iter=n_iter)
    plot(table, out / "12_captioning_models.png")
    human = measure_human(n_boot=n_boot, n_iter=n_iter_human)
    plot_human(human, out / "12_captioning_models_human.png")
    shown = human.copy()
    for metric in ("LIC", "dbac-t2a", "dbac-a2t"):
        shown[f"{metric} 95% CI"] = [
            f"[{low:+.3f}, {high:+.3f}]"
            for low, high in zip(human[f"{metric} ci_low"], human[f"{metric} ci_high"], strict=True)
        ]
    human_columns = ["model", "one_group", "group_accuracy", *METRICS, "LIC_D", "LIC_M", "LIC",
                     "LIC 95% CI", "dbac-t2a", "dbac-t2a 95% CI", "dbac-a2t",
                     "dbac-a2t 95% CI"]  # fmt: skip
    widths = {
        metric: float((human[f"{metric} ci_high"] - human[f"{metric} ci_low"]).mean())
        for metric in (*METRICS, "LIC", "dbac-t2a", "dbac-a2t")
    }
    columns = ["model", "one_group", "no_group", "conflict", "group_accuracy", *METRICS,
               "LIC_M", "LIC vs baseline"]  # fmt: skip
    n_pairs = pairs_t_falls_a_rises(results)
    n_reference = pairs_t_falls_a_rises(results["reference rows"])
    (out / "12_captioning_models.md").write_text(
        "# Six captioning models, measured on their captions\n\n"
        "## The 628 test images with human captions\n\n"
        f"LIC (data side: the five human captions) and DBAC over {n_iter_human} splits, "
        f"co-occurrence metrics with {n_boot} bootstrap replicates. Mean width of the 95% "
        "intervals over the six models: "
        + ", ".join(f"{m} {w:.3f}" for m, w in widths.items())
        + ".\n\n"
        + _gallery.markdown_table(shown[human_columns])
        + "\n\n## Every test image (5,473), the baseline's captions as LIC's data side\n\n"
        f"Bootstrap intervals from {n_boot} replicates, "
        f"leakage over {n_iter} splits. Intervals in the figure.\n\n"
        + _gallery.markdown_table(table[columns])
        + f"\n\nGroup x object pairs where the Equalizer lowers T->A and raises A->T above 0: "
        f"{n_pairs} ({n_reference} when captions without a gender are left out of A->T too, "
        "as the reference script does).\n",
        encoding="utf-8",
    )
    key: dict[str, float] = {
        "pairs where T->A falls and A->T rises": n_pairs,
        "pairs where T->A falls and A->T rises (reference rows)": n_reference,
    }
    for row in table.to_dict(orient="records"):
        for column, value in row.items():
            if column != "model":
                key[f"{row['model']}: {column}"] = value
    for row in human.to_dict(orient="records"):
        for column, value in row.items():
            if column != "model":
                key[f"human subset {row['model']}: {column}"] = value
    for metric, width in widths.items():
        key[f"human subset: mean interval width {metric}"] = width
    return key


if __name__ == "__main__":
    for name, value in main().items():
        print(f"{name}: {value}")
