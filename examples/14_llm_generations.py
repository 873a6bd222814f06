"""Ten generations of a language model trained on its own articles (Wang et al. 2025)
====================================================================================

GPT-2 is fine-tuned on its own generated news articles, generation after
generation, and a political-lean classifier scores every article (Wang et al.,
IJCNLP-AACL 2025, "Bias Amplification: Large Language Models as Increasingly
Biased Media"). The bundled copy (:func:`biasamp.datasets.load_llm_generations`)
holds each article's lean, the argmax of the classifier's three scores (the
paper's rule), for the paper's four set-ups: no mitigation, and the
preservation, accumulation and overfitting mitigations, 1,518 articles per
generation.

* **Shares per generation** (:func:`biasamp.share_trajectory`): the table
  reproduces the paper's numbers by the argmax rule; without mitigation the
  right-leaning share goes 54.4% -> 67.5% (generation 6) -> 59.2% (generation 10).
* **Trend**: the slope of the first generation's majority group (right) per
  generation, with a 95% bootstrap interval (articles resampled within each
  generation).
* **The feedback bound** (:func:`biasamp.feedback_bound`, Taori & Hashimoto,
  ICML 2023, Theorem 1) is drawn beside the accumulation run, whose data grow by
  ``k = 1,518`` model articles a generation from ``n0 = 1,518`` with no human
  articles (``m = 0``); ``delta`` is taken as the first generation's change of
  the right share, an estimate of the initial model's calibration error (an
  illustration of the bound, not a quantity the paper reports).

Run ``python examples/14_llm_generations.py``; it writes
``docs/gallery/14_llm_generations.png`` and ``.md``.
"""

from __future__ import annotations

from pathlib import Path

import _gallery
import numpy as np
import pandas as pd

import biasamp
from biasamp.datasets import load_llm_generations

SETUPS = ("none", "preservation", "accumulation", "overfitting")
N_BOOT = 500
SHOWN = (0, 6, 10)


def trajectories() -> dict[str, biasamp.ShareTrajectoryResult]:
    """One share trajectory per set-up."""
    frame = load_llm_generations(None)
    return {
        setup: biasamp.share_trajectory(
            groups=part["lean"], steps=part["generation"], n_boot=N_BOOT, random_state=0
        )
        for setup, part in frame.groupby("setup", sort=False)
    }


def main(output_dir: Path | str | None = None) -> dict[str, float]:
    """Measure, draw, write the table; return the key numbers."""
    out = _gallery.output_dir(output_dir)
    plt = _gallery.pyplot()
    results = trajectories()
    rows = []
    for setup in SETUPS:
        result = results[setup]
        shares = result.shares * 100
        row = {"set-up": setup}
        for generation in SHOWN:
            row[f"right % (gen {generation})"] = f"{shares.loc[generation, 'right']:.1f}"
        row["slope per gen"] = f"{result.value:+.4f}"
        row["95% interval"] = f"[{result.ci[0]:+.4f}, {result.ci[1]:+.4f}]"
        rows.append(row)
    table = pd.DataFrame(rows)
    accumulation = results["accumulation"]
    right = accumulation.shares["right"]
    delta = abs(float(right.loc[1] - right.loc[0]))
    bound = biasamp.feedback_bound(10, n0=1518, m=0, k=1518, delta=delta)
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.2), layout="constrained")
    results["none"].plot(ax=axes[0])
    axes[0].set_title("no mitigation: share of each lean per generation")
    accumulation.plot(ax=axes[1], bound=bound)
    axes[1].set_title("accumulation, with the feedback bound around generation 0")
    fig.savefig(out / "14_llm_generations.png", dpi=110)
    plt.close(fig)
    drift = float(np.abs(right - right.loc[0]).max())
    text = "\n\n".join(
        [
            "Right-leaning share by the argmax rule (percent) and the trend of the right "
            f"share per generation ({N_BOOT} bootstrap replicates):",
            _gallery.markdown_table(table, floatfmt="+.4f"),
            f"Accumulation: the right share drifts at most {drift:.3f} from generation 0; "
            f"the bound with delta = {delta:.4f} (the first generation's change) is "
            f"{bound[-1]:.3f} at generation 10.",
        ]
    )
    (out / "14_llm_generations.md").write_text(text + "\n", encoding="utf-8")
    print(text)
    none = results["none"].shares["right"]
    return {
        "none right gen 0": float(none.loc[0]),
        "none right gen 6": float(none.loc[6]),
        "none right gen 10": float(none.loc[10]),
        "none slope": results["none"].value,
        "accumulation drift": drift,
        "accumulation bound 10": float(bound[-1]),
        **{f"{s} right gen 10": float(results[s].shares.loc[10, "right"]) for s in SETUPS},
    }


if __name__ == "__main__":
    main()
