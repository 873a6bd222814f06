"""The engineer of Seshadri et al.: outputs against their reference, step by step
===============================================================================

Seshadri, Singh & Elazar (2023, "The Bias Amplification Paradox in Text-to-Image
Generation") compare the share of women in Stable Diffusion's images of an
occupation with the share in LAION's training captions that mention it. For
"engineer": 25% of the training captions, 10% of the generated images.
:func:`biasamp.output_amplification` signs that comparison by the reference's
majority group: men are 75% of the captions and 90% of the images, so the
outputs push the concept 0.15 further toward the group its reference favours.

The example works through three steps with these two published numbers and 100
images (the image count is illustrative):

* **The arithmetic**: delta = 0.90 - 0.75 = +0.15, with a bootstrap interval over
  the images.
* **The baseline matters**: the paper's point is that captions name a gender
  while prompts do not, and that much of the gap goes away when the training
  baseline is matched to the prompts (captions without gender words). The table
  shows the same 10% of generated images against matched baselines with fewer
  women (the matched shares are illustrative, not the paper's): the value falls
  to 0 as the baseline reaches the outputs' share.
* **The group classifier**: the 10% is itself read by a classifier. With
  per-class accuracies 0.90 (women) and 0.98 (men), an assumed classifier,
  :func:`biasamp.corrected_shares` gives the true share, equal to CLEAM's closed
  form ``(p_hat + a1 - 1) / (a0 + a1 - 1)`` (Teo et al., NeurIPS 2023).

Run ``python examples/15_engineer_arithmetic.py``; it writes
``docs/gallery/15_engineer_arithmetic.png`` and ``.md``.
"""

from __future__ import annotations

from pathlib import Path

import _gallery
import numpy as np
import pandas as pd

import biasamp

N_IMAGES = 100
ACCURACY_WOMEN, ACCURACY_MEN = 0.90, 0.98
MATCHED_WOMEN = (0.25, 0.20, 0.15, 0.12, 0.10)


def main(output_dir: Path | str | None = None) -> dict[str, float]:
    """Work the numbers, draw, write the table; return the key numbers."""
    out = _gallery.output_dir(output_dir)
    plt = _gallery.pyplot()
    concepts = ["engineer"] * N_IMAGES
    groups = ["woman"] * round(0.10 * N_IMAGES) + ["man"] * round(0.90 * N_IMAGES)
    captions = pd.DataFrame({"woman": [25], "man": [75]}, index=["engineer"])
    result = biasamp.output_amplification(
        concepts=concepts, groups=groups, reference=captions, n_boot=2000, random_state=0
    )
    matched = pd.DataFrame(
        {
            "matched baseline, % women": [f"{100 * w:.0f}" for w in MATCHED_WOMEN],
            "output amplification": [
                biasamp.output_amplification(
                    concepts=concepts,
                    groups=groups,
                    reference=pd.DataFrame({"woman": [w], "man": [1 - w]}, index=["engineer"]),
                ).value
                for w in MATCHED_WOMEN
            ],
        }
    )
    confusion = pd.DataFrame(
        [[ACCURACY_WOMEN, 1 - ACCURACY_WOMEN], [1 - ACCURACY_MEN, ACCURACY_MEN]],
        index=["woman", "man"],
        columns=["woman", "man"],
    )
    corrected = biasamp.corrected_shares(pd.Series({"woman": 0.10, "man": 0.90}), confusion)
    cleam = (0.10 + ACCURACY_MEN - 1) / (ACCURACY_WOMEN + ACCURACY_MEN - 1)
    adjusted = biasamp.output_amplification(
        concepts=concepts, groups=groups, reference=captions, attribute_confusion=confusion
    )
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.8), layout="constrained")
    bars = pd.Series(
        {
            "training captions": 25.0,
            "generated (classifier)": 10.0,
            "generated (corrected)": 100 * float(corrected["woman"]),
        }
    )
    axes[0].bar(bars.index, bars.to_numpy(), color=["#888888", "#b2182b", "#2166ac"])
    axes[0].set_ylabel("% women, engineer")
    axes[0].tick_params(axis="x", labelsize=8)
    axes[0].set_title("the reference and the outputs")
    axes[1].plot(100 * np.array(MATCHED_WOMEN), matched["output amplification"], marker="o")
    axes[1].axhline(0, color="grey", linewidth=0.8)
    axes[1].invert_xaxis()
    axes[1].set_xlabel("% women in the (matched) training baseline")
    axes[1].set_ylabel("output amplification")
    axes[1].set_title("the value depends on the baseline")
    fig.savefig(out / "15_engineer_arithmetic.png", dpi=110)
    plt.close(fig)
    text = "\n\n".join(
        [
            f"Against the training captions: output amplification {result.value:+.3f} "
            f"(men 75% -> 90%), 95% bootstrap interval [{result.ci[0]:+.3f}, "
            f"{result.ci[1]:+.3f}] over {N_IMAGES} images.",
            _gallery.markdown_table(matched, floatfmt="+.3f"),
            f"With a group classifier of accuracies {ACCURACY_WOMEN} (women) and "
            f"{ACCURACY_MEN} (men), the observed 10% women corrects to "
            f"{100 * float(corrected['woman']):.2f}% (CLEAM's closed form: {100 * cleam:.2f}%), "
            f"and the output amplification to {adjusted.value:+.4f}.",
        ]
    )
    (out / "15_engineer_arithmetic.md").write_text(text + "\n", encoding="utf-8")
    print(text)
    return {
        "amplification": result.value,
        "ci low": result.ci[0],
        "ci high": result.ci[1],
        **{
            f"matched {w}": v
            for w, v in zip(MATCHED_WOMEN, matched["output amplification"], strict=True)
        },
        "corrected women": float(corrected["woman"]),
        "cleam women": cleam,
        "corrected amplification": adjusted.value,
    }


if __name__ == "__main__":
    main()
