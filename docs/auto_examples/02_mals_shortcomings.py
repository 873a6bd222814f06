"""Wang & Russakovsky (2021), section 3.2: three shortcomings of BiasAmp_MALS
==========================================================================

Each scenario is a small count table fed to biasamp as weighted rows; the
training split is the dataset itself and the attribute is predicted perfectly
unless stated. One binary task ``T`` is a single indicator column (|T| = 1).

1. *Only positive correlations* (three groups). A1: 10 x T=0, 40 x T=1;
   A2: 40 / 10; A3: 10 / 20. The model is right on A1, predicts T=0 on all
   of A2 and T=1 on all of A3. BiasAmp_MALS = 0 (only A1 counts, and it is
   not amplified); BiasAmp A->T = .1778 (section 4.1). With only A1 and A2,
   two models that intuitively amplify equally get BiasAmp_MALS .2 and .033;
   A->T gives both .1.
2. *The wrong group when groups are imbalanced.* A1: 60 / 30; A2: 10 / 20.
   b*(T, A1) = 30/50 > 1/2, so MALS looks at A1 although T is correlated with
   A2. The model predicts T=0 on A1 and T=1 on A2: MALS = -0.6 (reduction),
   A->T = .3333 (amplification), T->A = 0. The same thing on the real COCO
   labels: objects whose man share is above 1/2 while men are in fact
   negatively correlated with them (P(man, o) < P(man) P(o)), such as oven.
3. *Directions entangled.* On the painting data (30 women / 10 men paint,
   10 / 30 do not), model X is always right on gender and predicts painting
   for every woman (an A->T error); model Y is always right on the task and
   predicts "man" for the 10 women who do not paint (a T->A error). MALS is
   positive for both (.15 and .125) and cannot say which; A->T and T->A can
   (X: A->T = .125, T->A = 0; Y: A->T = 0, T->A = .125). Painting and not
   painting are two tasks here, as in example 01.

Run ``python examples/02_mals_shortcomings.py``; it writes
``docs/gallery/02_mals_shortcomings.md`` and ``.png``.
"""

from __future__ import annotations

from pathlib import Path

import _gallery
import numpy as np
import pandas as pd

import biasamp
from biasamp.datasets import load_coco_gender

# (group, true task, predicted group, predicted task) -> count
Scenario = dict[tuple[str, object, str, object], int]


def scenario_rows(cells: Scenario) -> dict[str, np.ndarray]:
    """Weighted rows of a scenario: one row per distinct cell."""
    keys = list(cells)

    def task_column(values: list[object]) -> np.ndarray:
        # Integer tasks are one indicator column (|T| = 1); string tasks are labels,
        # one task per label (|T| = number of labels).
        if isinstance(values[0], str):
            return np.array(values, dtype=object)
        return np.array(values).reshape(-1, 1)

    return {
        "groups": np.array([k[0] for k in keys], dtype=object),
        "tasks": task_column([k[1] for k in keys]),
        "groups_pred": np.array([k[2] for k in keys], dtype=object),
        "tasks_pred": task_column([k[3] for k in keys]),
        "weight": np.array([cells[k] for k in keys], dtype=float),
    }


def score(cells: Scenario) -> dict[str, float]:
    """BiasAmp_MALS, A->T and T->A of a scenario (training split = the data)."""
    r = scenario_rows(cells)
    common = {
        "groups_train": r["groups"],
        "tasks_train": r["tasks"],
        "sample_weight_train": r["weight"],
    }
    mals = biasamp.mals(
        groups_pred=r["groups_pred"],
        tasks_pred=r["tasks_pred"],
        sample_weight=r["weight"],
        **common,
    )
    a_to_t = biasamp.directional(
        direction="A->T",
        groups=r["groups"],
        tasks=r["tasks"],
        tasks_pred=r["tasks_pred"],
        sample_weight=r["weight"],
        **common,
    )
    t_to_a = biasamp.directional(
        direction="T->A",
        groups=r["groups"],
        tasks=r["tasks"],
        groups_pred=r["groups_pred"],
        sample_weight=r["weight"],
        **common,
    )
    return {"mals": mals.value, "a_to_t": a_to_t.value, "t_to_a": t_to_a.value}


def _task_model(counts: dict[str, tuple[int, int]], rule: dict[str, str]) -> Scenario:
    """Group -> (n T=0, n T=1); rule per group: 'correct', 'all0' or 'all1' task predictions."""
    cells: Scenario = {}
    for group, (n0, n1) in counts.items():
        for t, n in ((0, n0), (1, n1)):
            pred = {"correct": t, "all0": 0, "all1": 1}[rule[group]]
            if n:
                cells[(group, t, group, pred)] = cells.get((group, t, group, pred), 0) + n
    return cells


SHORTCOMING_1 = {"A1": (10, 40), "A2": (40, 10), "A3": (10, 20)}
SHORTCOMING_2 = {"A1": (60, 30), "A2": (10, 20)}


def scenarios() -> dict[str, Scenario]:
    two = {k: SHORTCOMING_1[k] for k in ("A1", "A2")}
    paint, other = "painting", "not painting"  # two tasks, as in example 01
    painting = {("woman", paint): 30, ("woman", other): 10, ("man", paint): 10, ("man", other): 30}
    model_x = {(g, t, g, paint if g == "woman" else t): n for (g, t), n in painting.items()}
    model_y = {
        (g, t, "man" if (g, t) == ("woman", other) else g, t): n for (g, t), n in painting.items()
    }
    return {
        "1: three groups, A2 under- and A3 over-predicted": _task_model(
            SHORTCOMING_1, {"A1": "correct", "A2": "all0", "A3": "all1"}
        ),
        "1b: two groups, T=0 predicted on all of A2": _task_model(
            two, {"A1": "correct", "A2": "all0"}
        ),
        "1c: two groups, T=1 predicted on all of A1": _task_model(
            two, {"A1": "all1", "A2": "correct"}
        ),
        "2: imbalanced groups, T=0 on A1 and T=1 on A2": _task_model(
            SHORTCOMING_2, {"A1": "all0", "A2": "all1"}
        ),
        "3X: painting, every woman predicted painting (A->T error)": model_x,
        "3Y: painting, non-painting women predicted man (T->A error)": model_y,
    }


PAPER = {  # values printed in Wang & Russakovsky, sections 3.2 and 4.1
    "1: three groups, A2 under- and A3 over-predicted": {
        "mals": 0.0,
        "a_to_t": 0.1778,
        "t_to_a": 0.0,
    },
    "1b: two groups, T=0 predicted on all of A2": {"mals": 0.2},
    "1c: two groups, T=1 predicted on all of A1": {"mals": 0.033},
    "2: imbalanced groups, T=0 on A1 and T=1 on A2": {
        "mals": -0.6,
        "a_to_t": 0.3333,
        "t_to_a": 0.0,
    },
}


def coco_wrong_group() -> pd.DataFrame:
    """COCO objects whose man share exceeds 1/2 while men are negatively correlated with them."""
    frame = pd.concat([load_coco_gender("val"), load_coco_gender("test")], ignore_index=True)
    objects = [c for c in frame.columns if c not in ("image_id", "gender")]
    man = (frame["gender"] == "man").to_numpy(dtype=float)
    tasks = frame[objects].to_numpy(dtype=float)
    p_man, p_obj = man.mean(), tasks.mean(axis=0)
    p_joint = (man[:, None] * tasks).mean(axis=0)
    share = biasamp.bias_scores(frame["gender"], tasks=frame[objects])["man"].reindex(objects)
    table = pd.DataFrame(
        {
            "object": objects,
            "b_man": share.to_numpy(),
            "p_man_and_object": p_joint,
            "p_man_times_p_object": p_man * p_obj,
        }
    )
    wrong = table[
        (table["b_man"] > 0.5) & (table["p_man_and_object"] < table["p_man_times_p_object"])
    ]
    return wrong.sort_values("b_man").reset_index(drop=True)


def plot(results: pd.DataFrame, path: Path) -> None:
    plt = _gallery.pyplot()
    fig, ax = plt.subplots(figsize=(9, 4.2))
    y = np.arange(len(results))
    width = 0.27
    for i, (column, label, color) in enumerate(
        [
            ("mals", "BiasAmp$_{MALS}$", "C1"),
            ("a_to_t", "BiasAmp$_{A\\to T}$", "C0"),
            ("t_to_a", "BiasAmp$_{T\\to A}$", "C2"),
        ]
    ):
        ax.barh(y + (i - 1) * width, results[column], height=width, label=label, color=color)
    ax.set_yticks(y, [s.split(":")[0] for s in results["scenario"]])
    ax.invert_yaxis()
    ax.axvline(0, color="0.3", lw=0.8)
    ax.set_xlabel("bias amplification")
    ax.set_ylabel("scenario (Wang & Russakovsky, section 3.2)")
    ax.legend(loc="lower right", fontsize=9)
    ax.set_title(
        "Shortcomings of BiasAmp$_{MALS}$: 1 (1b = 1c intuitively), 2 (sign flips), 3 (X vs Y)",
        fontsize=10,
    )
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(output_dir: Path | str | None = None) -> dict[str, object]:
    out = _gallery.output_dir(output_dir)
    rows = []
    for name, cells in scenarios().items():
        values = score(cells)
        paper = PAPER.get(name, {})
        rows.append({"scenario": name, **values, **{f"paper_{k}": v for k, v in paper.items()}})
    results = pd.DataFrame(rows)
    wrong = coco_wrong_group()
    lines = [
        "# BiasAmp_MALS shortcomings (Wang & Russakovsky 2021, section 3.2)",
        "",
        _gallery.markdown_table(results),
        "",
        "## Shortcoming 2 on the real COCO labels (both bundled halves)",
        "",
        f"{len(wrong)} objects have b(o, man) > 1/2, so BiasAmp_MALS treats them as "
        "men's objects, while P(man, o) < P(man) P(o): men are negatively correlated "
        "with them.",
        "",
        _gallery.markdown_table(wrong),
        "",
    ]
    (out / "02_mals_shortcomings.md").write_text("\n".join(lines))
    plot(results, out / "02_mals_shortcomings.png")
    key: dict[str, object] = {
        f"{name.split(':')[0]}_{metric}": float(results.loc[i, metric])
        for i, name in enumerate(results["scenario"])
        for metric in ("mals", "a_to_t", "t_to_a")
    }
    key["coco_wrong_group_objects"] = list(wrong["object"])
    return key


if __name__ == "__main__":
    for name, value in main().items():
        print(f"{name:30s} {value if isinstance(value, list) else round(value, 4)}")
