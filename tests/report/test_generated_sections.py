"""The report renders the generated-output results: the registry's meaning, the
statistics, the figure, the per-concept (or per-step) table and what was left out."""

from __future__ import annotations

import html

import pandas as pd
import pytest

import biasamp
from biasamp.registry import metric_card
from biasamp.report import render_report

pytest.importorskip("matplotlib")

REFERENCE = pd.DataFrame(
    {"man": [75, 40, 50, 30], "woman": [25, 60, 50, 70]},
    index=["engineer", "nurse", "teacher", "<b>chef</b>"],
)


def test_every_generated_result_renders_with_its_card_and_tables():
    concepts = ["engineer"] * 10 + ["nurse"] * 10 + ["<b>chef</b>"] * 4
    groups = ["man"] * 9 + ["woman"] + ["man"] * 2 + ["woman"] * 8 + ["woman"] * 4
    outputs = pd.DataFrame({"man": [9, 2, 1, 0], "woman": [1, 8, 1, 4]}, index=REFERENCE.index)
    results = {
        "output-amplification": biasamp.output_amplification(
            concepts=concepts, groups=groups, reference=REFERENCE, n_boot=30, random_state=0
        ),
        "bias-transfer": biasamp.bias_transfer(
            reference=REFERENCE, outputs=outputs, group="woman", min_count=0
        ),
        "share-trajectory": biasamp.share_trajectory(
            groups=groups, steps=[i % 3 for i in range(len(groups))], n_boot=30, random_state=0
        ),
    }
    page = render_report(results)
    for name, result in results.items():
        card = metric_card(name)
        assert html.escape(card.meaning.split(",")[0]) in page
        assert html.escape(f"{name}: {result.name}") in page
    assert "no strict majority" in page and "Left out" in page  # teacher ties
    assert "&lt;b&gt;chef&lt;/b&gt;" in page and "<b>chef</b>" not in page  # labels escaped
    assert page.count("<img") >= 3
