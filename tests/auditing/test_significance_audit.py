"""The swap test in the file audit: ``biasamp.audit(..., n_perm=)``, ``biasamp measure
--n-perm``, the JSON document and the report say the p-value in words."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import biasamp
from biasamp.results import NullDistribution


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    root = tmp_path_factory.mktemp("significance")
    rng = np.random.default_rng(0)
    n = 400
    gender = rng.choice(["m", "w"], n)
    cup = (rng.random(n) < np.where(gender == "m", 0.3, 0.6)).astype(int)
    pred_cup = cup.copy()
    push = rng.random(n) < 0.4
    pred_cup[push] = (gender[push] == "w").astype(int)  # amplifies A->T
    pred_gender = np.where(rng.random(n) < 0.9, gender, np.where(gender == "m", "w", "m"))
    frame = pd.DataFrame(
        {"gender": gender, "cup": cup, "ski": 1 - cup, "pred_cup": pred_cup,
         "pred_ski": 1 - pred_cup, "pred_gender": pred_gender}
    )  # fmt: skip
    frame.to_csv(root / "test.csv", index=False)
    frame[["gender", "cup", "ski"]].to_csv(root / "train.csv", index=False)
    return root, frame


LAYOUT = {"group": "gender", "task_cols": "cup,ski", "pred_prefix": "pred_"}


def test_audit_p_values_equal_the_metric_functions(files):
    root, frame = files
    result = biasamp.audit(
        root / "test.csv", train=root / "train.csv", n_perm=99, min_group_size=None, **LAYOUT
    )
    assert result.settings["n_perm"] == 99
    tasks = frame[["cup", "ski"]]
    pred = frame[["pred_cup", "pred_ski"]].set_axis(["cup", "ski"], axis=1)
    direct = biasamp.directional(
        direction="A->T", groups=frame["gender"], tasks=tasks, tasks_pred=pred,
        groups_train=frame["gender"], tasks_train=tasks, n_perm=99, random_state=0,
        min_group_size=None,
    )  # fmt: skip
    assert result["directional-a2t"].p_value == direct.p_value == pytest.approx(0.01)
    assert result["directional-a2t"].null == direct.null
    mals = biasamp.mals(
        groups_train=frame["gender"], tasks_train=tasks, groups_pred=frame["pred_gender"],
        tasks_pred=pred, groups=frame["gender"], tasks=tasks, n_perm=99, random_state=0,
        min_group_size=None,
    )  # fmt: skip
    assert result["mals"].p_value == mals.p_value
    assert all(r.p_value is not None for r in result.results.values())


def test_audit_without_n_perm_has_no_test(files):
    root, _ = files
    result = biasamp.audit(
        root / "test.csv", train=root / "train.csv", min_group_size=None, **LAYOUT
    )
    assert all(r.p_value is None for r in result.results.values())
    document = result.to_dict()
    assert all("p_value" not in record for record in document["results"].values())


@pytest.mark.parametrize("chunk_size", [None, 37])
@pytest.mark.parametrize("train", [True, False])
def test_streamed_swap_test_equals_the_rows_in_memory(files, chunk_size, train):
    """The swap indicators are drawn by global row position: counted chunk by chunk from
    the file, the null values equal the in-memory test's exactly."""
    root, _ = files
    common = dict(
        n_perm=99, min_group_size=None, chunk_size=chunk_size,
        train=root / "train.csv" if train else None, **LAYOUT,
    )  # fmt: skip
    streamed = biasamp.audit(root / "test.csv", stream="on", **common)
    rows = biasamp.audit(root / "test.csv", stream="off", **common)
    assert streamed.settings["streamed"] is True and not rows.settings.get("streamed")
    assert list(streamed.results) == list(rows.results)
    for key in rows.results:
        assert streamed[key].p_value == rows[key].p_value, key
        assert streamed[key].null.mean == pytest.approx(rows[key].null.mean, abs=1e-12), key
        assert streamed[key].null.quantiles == pytest.approx(rows[key].null.quantiles), key


def test_stream_on_says_why_a_swap_test_reads_rows(files):
    root, _ = files
    with pytest.raises(ValueError, match=r"swap test against chance \(n_perm=\) of multi-a2t"):
        biasamp.audit(
            root / "test.csv", train=root / "train.csv", metrics=["multi-a2t"], n_perm=9,
            stream="on", min_group_size=None, **LAYOUT,
        )  # fmt: skip


def test_n_perm_is_checked_naming_it(files):
    root, _ = files
    with pytest.raises(ValueError, match="n_perm="):
        biasamp.audit(root / "test.csv", n_perm=-1, **LAYOUT)


def test_document_report_and_reload_say_it_in_words(files, tmp_path):
    root, _ = files
    result = biasamp.audit(
        root / "test.csv", train=root / "train.csv", n_perm=99, min_group_size=None, **LAYOUT
    )
    document = result.to_dict()
    record = document["results"]["directional-a2t"]
    assert record["p_value"] == pytest.approx(0.01)
    assert record["chance"] == "distinguishable from chance: p = 0.01"
    assert record["null"]["method"] == "paired-swap" and record["null"]["n_perm"] == 99
    path = tmp_path / "audit.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    loaded = biasamp.load_result(path)
    assert loaded["directional-a2t"].p_value == record["p_value"]
    assert isinstance(loaded["directional-a2t"].null, NullDistribution)
    assert "directional-a2t" in repr(result)
    assert "(distinguishable from chance: p = 0.01)" in repr(result)
    html = biasamp.render_report(result)
    assert "distinguishable from chance: p = 0.01" in html
    assert "not distinguishable from chance" in html  # T->A: the model only adds noise
