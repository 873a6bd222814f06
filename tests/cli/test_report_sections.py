"""One report: ``render_report(biasamp.audit(...))`` and ``biasamp report`` on the same files
have the same sections, in the same order (one code path renders both).

The files: 200 test rows (cooking: 66 women / 34 men, skiing: 20 women / 80 men; every
woman cooking and 18 of the 34 men cooking predicted women, 10 of the 20 women skiing
predicted men), the same training split, and prediction scores with a 0.5 threshold so
the threshold sweep is drawn too. A third group ("child", 5 cooking rows, predicted as
itself) is below ``min_group_size`` and gives the warnings section. BiasAmp_MALS =
((84 - 66) / 105 + (0.90 - 0.80)) / 2 = 0.1357 on both pages.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import biasamp
from biasamp.cli.main import main
from biasamp.report import render_report

pytest.importorskip("matplotlib")

HEADING = re.compile(r"<(h[1-3])(?:\s[^>]*)?>(.*?)</\1>", re.S)
ELEMENT_ID = re.compile(r'\sid="([^"]+)"')


def sections(page: str) -> list[tuple[str, str]]:
    """Every heading of a page, in order: (level, text)."""
    return [
        (level, html.unescape(re.sub("<[^>]+>", "", text))) for level, text in HEADING.findall(page)
    ]


def element_ids(page: str) -> list[str]:
    return ELEMENT_ID.findall(page)


def _split(with_child: bool) -> pd.DataFrame:
    gender = ["woman"] * 66 + ["man"] * 34 + ["woman"] * 20 + ["man"] * 80
    activity = ["cooking"] * 100 + ["skiing"] * 100
    predicted = ["woman"] * 84 + ["man"] * 16 + ["man"] * 10 + ["woman"] * 10 + ["man"] * 80
    frame = pd.DataFrame({"gender": gender, "activity": activity})
    # the predicted group as a score for "woman" (> 0.5: woman), child rows as themselves
    frame["cook"] = (frame["activity"] == "cooking").astype(int)
    frame["ski"] = 1 - frame["cook"]
    frame["man"] = (frame["gender"] == "man").astype(int)
    frame["woman"] = (frame["gender"] == "woman").astype(int)
    frame["pred_man"] = np.where(np.array(predicted) == "man", 0.8, 0.1)
    frame["pred_woman"] = np.where(np.array(predicted) == "woman", 0.9, 0.2)
    frame["pred_cook"] = frame["cook"] * 0.7 + 0.1
    frame["pred_ski"] = frame["ski"] * 0.7 + 0.1
    if with_child:
        child = frame.iloc[:5].copy()
        child[["man", "woman"]] = 0
        child[["pred_man", "pred_woman"]] = 0.1
        child["child"] = 1
        frame = pd.concat([frame.assign(child=0), child], ignore_index=True)
        frame["pred_child"] = frame["child"] * 0.9
    return frame.drop(columns=["gender", "activity"])


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("sections")
    paths = {"test": root / "test.csv", "train": root / "train.csv"}
    _split(True).to_csv(paths["test"], index=False)
    _split(True).drop(columns=[c for c in _split(True) if c.startswith("pred_")]).to_csv(
        paths["train"], index=False
    )
    return paths


def test_render_report_of_an_audit_has_the_sections_of_biasamp_report(files, tmp_path) -> None:
    page_cli = tmp_path / "report.html"
    code = main(
        [
            "report", str(files["test"]), "--group-cols", "man,woman,child",
            "--task-cols", "cook,ski", "--pred-prefix", "pred_", "--threshold", "0.5",
            "--train", str(files["train"]), "--html", str(page_cli),
        ]
    )  # fmt: skip
    assert code == 0
    result = biasamp.audit(
        files["test"], group_cols=["man", "woman", "child"], task_cols=["cook", "ski"],
        pred_prefix="pred_", threshold=0.5, train=files["train"], sweeps=True,
    )  # fmt: skip
    # cooking: 66 of 105 training rows women, 84 of 105 predicted; skiing: 80 / 90 of 100 men
    assert float(result["mals"]) == pytest.approx((18 / 105 + 0.1) / 2)
    cli = page_cli.read_text(encoding="utf-8")
    library = render_report(result)
    assert sections(library) == sections(cli)
    assert element_ids(library) == element_ids(cli)
    titles = [text for _, text in sections(cli)]
    # the sections the library's page lacked before it read the audit's own report parts
    for title in ("Warnings", "Training vs predicted bias", "Inputs and settings",
                  "Threshold sweep"):  # fmt: skip
        assert any(t.startswith(title) for t in titles), title
    assert "mals: BiasAmp_MALS = +0.1357" in titles
    # the same warnings, the command line's in its flags' words
    for page in (library, cli):
        listed = page.split("<h3>Warnings</h3>", 1)[1].split("</ul>", 1)[0]
        assert listed.count('<li class="warn">') == len(result.warnings) == 4
    # the inputs: both files with their SHA-256s
    for record in result.inputs:
        assert record["sha256"] in library and record["sha256"] in cli


def test_an_audit_of_scores_without_its_sweeps_says_how_to_get_them(files, tmp_path) -> None:
    keywords = {
        "group_cols": ["man", "woman", "child"], "task_cols": ["cook", "ski"],
        "pred_prefix": "pred_", "threshold": 0.5, "train": files["train"],
    }  # fmt: skip
    result = biasamp.audit(files["test"], **keywords)
    assert result.sweeps is None
    page = render_report(result)
    swept = render_report(biasamp.audit(files["test"], **keywords, sweeps=True))
    # the same sections as the command's page: the sweep's says how to compute it
    assert sections(page) == sections(swept)
    part = page.split("<h2>Threshold sweep</h2>", 1)[1].split("<h2>", 1)[0]
    assert "sweeps=True" in part and "<img" not in part
    assert "<img" in swept.split("<h2>Threshold sweep</h2>", 1)[1].split("<h2>", 1)[0]
    # 0/1 predictions have no sweep and no such section
    frame = pd.read_csv(files["test"])
    scored = [c for c in frame.columns if c.startswith("pred_")]
    frame[scored] = (frame[scored] > 0.5).astype(int)
    binary = render_report(biasamp.audit(frame, **{**keywords, "threshold": None}))
    assert "Threshold sweep" not in binary


def test_keywords_given_replace_what_the_audit_holds(files) -> None:
    result = biasamp.audit(
        files["test"], group_cols=["man", "woman", "child"], task_cols=["cook", "ski"],
        pred_prefix="pred_", threshold=0.5, train=files["train"],
    )  # fmt: skip
    page = render_report(result, warnings=[], comparison=pd.DataFrame(), inputs=[])
    titles = [text for _, text in sections(page)]
    assert "Warnings" not in titles and "Training vs predicted bias" not in titles
    assert result.inputs[0]["sha256"] not in page
    # the mapping of its results alone: only the summary, the metrics and the settings table
    bare = [text for _, text in sections(render_report(results=dict(result.results)))]
    assert "Warnings" not in bare and "Training vs predicted bias" not in bare
