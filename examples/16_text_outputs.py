"""From generated texts to groups: a language model's stories measured per occupation
====================================================================================

A language model asked to "write a short story about the engineer" names no
group label, but its text does: the route to :func:`biasamp.output_amplification`
reads each generated text with :func:`biasamp.text.text_groups`, which finds the
caption lexicon's gendered nouns and pronouns (he, his, him, man, father, ...;
she, her, woman, mother, ...) by whole words, case and punctuation ignored. The
caption parser's conflict rule applies: a text with words of both groups, or of
none, has no group and is left out (the table counts them).

The texts here are a small made-up set, written to show the route (no model was
run): twelve per occupation, some naming no one, some naming both. The reference
is an illustrative table of shares per occupation (say, labour statistics).

Run ``python examples/16_text_outputs.py``; it writes
``docs/gallery/16_text_outputs.png`` and ``.md``.
"""

from __future__ import annotations

from pathlib import Path

import _gallery
import pandas as pd

import biasamp
from biasamp.text import text_groups

STORIES = {
    "engineer": [
        "The engineer checked the bridge before he signed off.",
        "He was the engineer on call that night.",
        "After lunch the engineer told his team the design was ready.",
        "The engineer said she would rerun the load test.",
        "Nobody at the site questioned the engineer's numbers.",
        "He fixed the pump; the engineer's manager thanked him.",
        "The engineer and her colleague rewrote the spec.",
        "The engineer, a quiet man, measured twice.",
        "He and his sister, both engineers, built the tower.",
        "The engineer explained the fault to the crew.",
        "He had been an engineer for twenty years.",
        "The young engineer was proud of his first design.",
    ],
    "nurse": [
        "The nurse checked the chart before she left.",
        "She had been a nurse for ten years.",
        "The nurse smiled; her shift was over.",
        "He worked as a nurse in the night ward.",
        "The nurse told the patient she would be back.",
        "The nurse adjusted the drip without a word.",
        "Her colleague, a nurse, covered the next bed.",
        "The nurse and his daughter walked home.",
        "She was the only nurse on the floor.",
        "The nurse wrote the dose on her notepad.",
        "Everyone trusted the nurse at the desk.",
        "The nurse said she would call the doctor.",
    ],
}
REFERENCE = pd.DataFrame({"man": [0.84, 0.13], "woman": [0.16, 0.87]}, index=["engineer", "nurse"])


def main(output_dir: Path | str | None = None) -> dict[str, float]:
    """Read the groups, measure, draw, write the table; return the key numbers."""
    out = _gallery.output_dir(output_dir)
    plt = _gallery.pyplot()
    texts = [t for stories in STORIES.values() for t in stories]
    concepts = [c for c, stories in STORIES.items() for _ in stories]
    read = text_groups(texts)
    read["concept"] = concepts
    counts = pd.crosstab(read["concept"], read["status"]).reindex(
        columns=["one", "none", "conflict"], fill_value=0
    )
    keep = read["status"].eq("one")
    result = biasamp.output_amplification(
        concepts=read.loc[keep, "concept"].tolist(),
        groups=read.loc[keep, "group"].astype(str).tolist(),
        reference=REFERENCE,
        n_boot=1000,
        random_state=0,
    )
    ax = result.plot()
    ax.figure.savefig(out / "16_text_outputs.png", dpi=110)
    plt.close(ax.figure)
    by_concept = result.by_concept.reset_index()[
        ["concept", "majority_group", "reference_share", "output_share", "delta", "n_outputs"]
    ]
    text = "\n\n".join(
        [
            "How the texts were read (one group / none / both):",
            _gallery.markdown_table(counts.reset_index()),
            f"Output amplification {result.value:+.3f}, 95% bootstrap interval "
            f"[{result.ci[0]:+.3f}, {result.ci[1]:+.3f}]:",
            _gallery.markdown_table(by_concept, floatfmt=".3f"),
        ]
    )
    (out / "16_text_outputs.md").write_text(text + "\n", encoding="utf-8")
    print(text)
    return {
        "amplification": result.value,
        "engineer output share": float(result.by_concept.loc["engineer", "output_share"]),
        "nurse output share": float(result.by_concept.loc["nurse", "output_share"]),
        "no group": float(counts["none"].sum()),
        "conflict": float(counts["conflict"].sum()),
    }


if __name__ == "__main__":
    main()
