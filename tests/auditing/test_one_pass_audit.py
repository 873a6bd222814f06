"""A streamed audit of label columns on the numpy engine reads each file once: the labels
are found while counting, and the results, names, provenance and label errors are those of
the in-memory path."""

from __future__ import annotations

import hashlib

import numpy as np
import pandas as pd
import pytest

import biasamp
from biasamp.auditing import _streaming
from biasamp.auditing._inputs import ERR_UNKNOWN_EVAL_LABELS, ERR_UNKNOWN_PRED_LABELS, Layout
from biasamp.auditing._streaming import load_streamed, plan_streaming
from biasamp.engines._file_formats import InputError

pytest.importorskip("pyarrow")


def _frame(n: int, groups: list[str], seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    g = rng.choice(groups, n)
    out = {"g": g, "t": rng.choice(["cook", "ski", "surf"], n)}
    out["p_g"] = np.where(rng.random(n) < 0.8, g, rng.choice(groups, n))
    out["p_t"] = np.where(rng.random(n) < 0.7, out["t"], "ski")
    return pd.DataFrame(out)


@pytest.mark.parametrize("chunk_size", [9, None])
def test_one_pass_equals_the_rows(tmp_path, chunk_size):
    """Training labels the data lacks (``x``) count zero; chunks meet the labels late."""
    data, train = tmp_path / "data.csv", tmp_path / "train.csv"
    _frame(80, ["m", "w"], 0).to_csv(data, index=False)
    _frame(50, ["m", "w", "x"], 1).to_csv(train, index=False)
    options = dict(group="g", task="t", pred_prefix="p_", train=train, chunk_size=chunk_size,
                   metrics=["mals", "directional-a2t", "directional-t2a"])  # fmt: skip
    streamed = biasamp.audit(data, engine="numpy", **options)
    rows = biasamp.audit(data, stream="off", **options)
    assert streamed.document["settings"]["streamed"] is True
    for key, result in rows.results.items():
        assert streamed.results[key].value == pytest.approx(result.value, abs=1e-12)
    assert streamed.document["labels"] == rows.document["labels"]
    assert streamed.document["labels"]["groups"] == ["m", "w", "x"]
    shas = {f["role"]: f["sha256"] for f in streamed.document["inputs"]}
    assert shas == {f["role"]: f["sha256"] for f in rows.document["inputs"]}
    assert shas["data"] == hashlib.sha256(data.read_bytes()).hexdigest()


def test_the_files_are_counted_without_a_label_pass(tmp_path, monkeypatch):
    data = tmp_path / "data.csv"
    _frame(30, ["m", "w"], 2).to_csv(data, index=False)
    monkeypatch.setattr(_streaming, "_label_sets", lambda *a, **k: pytest.fail("a label pass"))
    plan, _ = plan_streaming(Layout(group="g", task="t", pred_prefix="p_"), data=data,
                             engine="numpy")  # fmt: skip
    tables = load_streamed(plan)
    assert tables.group_names == ("m", "w") and tables.task_names == ("cook", "ski", "surf")
    assert tables.evaluation.n_rows == 30


def test_label_errors_are_the_in_memory_ones(tmp_path):
    layout = dict(group="g", task="t", pred_prefix="p_", engine="numpy", stream="on")
    train = tmp_path / "train.csv"
    train.write_text("g,t\nm,cook\nw,ski\nw,cook\n")
    extra = tmp_path / "d1.csv"
    extra.write_text("g,t,p_g,p_t\nm,cook,m,cook\nx,ski,w,ski\n")
    with pytest.raises(InputError) as info:
        biasamp.audit(extra, train=train, **layout)
    assert str(info.value) == ERR_UNKNOWN_EVAL_LABELS.format(
        file=extra, column="g", examples="'x'", train=train
    )
    pred = tmp_path / "d2.csv"
    pred.write_text("g,t,p_g,p_t\nm,cook,m,golf\nw,ski,w,ski\n")
    with pytest.raises(InputError) as info:
        biasamp.audit(pred, train=train, **layout)
    assert str(info.value) == ERR_UNKNOWN_PRED_LABELS.format(
        file=pred, column="p_t", examples="'golf'", sources=f"the training file {train}"
    )
