"""``AuditResult``: a mapping of canonical metric names to results, saved and read back.

Values are checked by hand on a file small enough to count: 4 men (3 with a cup)
and 4 women (1 with a cup); the model predicts ``cup`` for every man and no woman.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import biasamp
from biasamp.auditing._result import ERR_RESULT_KEYS, AuditResult
from biasamp.auditing._run import ERR_DATA_PATH


@pytest.fixture
def path(tmp_path):
    frame = pd.DataFrame(
        {
            "gender": ["m"] * 4 + ["w"] * 4,
            "cup": [1, 1, 1, 0, 1, 0, 0, 0],
            "pred_cup": [1, 1, 1, 1, 0, 0, 0, 0],
            "pred_gender": ["m"] * 4 + ["w"] * 4,
        }
    )
    out = tmp_path / "test.csv"
    frame.to_csv(out, index=False)
    return out


def _audit(path, **kwargs):
    return biasamp.audit(
        path, group="gender", task_cols="cup", pred_prefix="pred_", min_group_size=None, **kwargs
    )


def test_values_by_hand(path):
    result = _audit(path)
    assert list(result) == ["directional-a2t", "directional-t2a"]
    assert result.skipped == {
        "mals": "needs training ground truth: train=",
    }
    # A->T (no training file: the evaluation split gives the signs): P(m, cup) = 3/8 >
    # P(m) P(cup) = 1/4, so y(m) = +1 and y(w) = -1; P(cup | m) goes 3/4 -> 1 (+1/4),
    # P(cup | w) goes 1/4 -> 0 (-1/4); the value is (1/4 + 1/4) / (2 groups x 1 task)
    a2t = result["directional-a2t"]
    by_pair = a2t.by_pair.set_index("group")
    assert by_pair.loc["m", "delta"] == pytest.approx(0.25)
    assert by_pair.loc["w", "delta"] == pytest.approx(-0.25)
    assert float(a2t.value) == pytest.approx(0.25)
    # T->A: the predicted groups equal the true ones: no change
    assert float(result["directional-t2a"].value) == 0.0
    # any spelling of the registry reaches the same result
    assert result["A->T"] is result["BiasAmp A->T"] is a2t
    with pytest.raises(KeyError):
        result["mals"]


def test_the_library_computes_what_the_metric_functions_compute(path):
    frame = pd.read_csv(path)
    result = _audit(path, stream="off")
    direct = biasamp.directional(
        direction="A->T",
        groups=frame["gender"],
        tasks=frame[["cup"]],
        tasks_pred=frame[["pred_cup"]].rename(columns={"pred_cup": "cup"}),
        min_group_size=None,
    )
    assert float(result["directional-a2t"].value) == pytest.approx(float(direct.value))
    streamed = _audit(path, stream="on")
    assert streamed.settings["streamed"] is True and result.settings["streamed"] is False
    assert float(streamed["directional-a2t"].value) == pytest.approx(float(direct.value))


def test_save_and_load_give_an_equal_result(path, tmp_path):
    result = _audit(path, n_boot=10, random_state=1)
    saved = biasamp.load_result(result.save(tmp_path / "audit.json"))
    assert isinstance(saved, AuditResult) and saved == result
    # the typed save keeps the replicates; the document (to_dict) does not hold them
    assert np.array_equal(saved["directional-a2t"].replicates, result["directional-a2t"].replicates)
    (tmp_path / "doc.json").write_text(json.dumps(result.to_dict()), encoding="utf-8")
    from_document = biasamp.load_result(tmp_path / "doc.json")
    assert from_document == result
    assert from_document["directional-a2t"].replicates is None
    assert biasamp.load_result(tmp_path / "doc.json", metric="T->A").value == 0.0
    with pytest.raises(ValueError, match="not 'mals'"):
        biasamp.load_result(tmp_path / "doc.json", metric="mals")


def test_equality_compares_the_audit(path, tmp_path):
    result = _audit(path)
    assert result == _audit(path)
    assert result.with_command("measure") == result  # the command that wrote it is not compared
    assert (
        result.with_command(
            "measure",
            gates=[{"metric": "directional-a2t", "bound": 0.0, "value": 0.5, "passed": False}],
        )
        != result
    )
    assert _audit(path, metrics="directional-a2t") != result
    assert (result == 3) is False


def test_str_lists_every_metric(path):
    text = str(_audit(path, n_boot=5))
    assert text.splitlines()[0].startswith("AuditResult: 2 metric(s)")
    assert "directional-a2t" in text and "directional-t2a" in text and "[" in text
    assert "skipped mals: needs training ground truth: train=" in text


def test_refused_inputs_name_the_keyword(path):
    with pytest.raises(TypeError) as caught:
        biasamp.audit(pd.read_csv(path).to_dict(), group="gender", task_cols="cup")
    assert str(caught.value) == ERR_DATA_PATH.format(got="dict")
    with pytest.raises(ValueError, match="stream: expected one of 'auto', 'on', 'off'"):
        _audit(path, stream="yes")
    with pytest.raises(ValueError, match="missing: expected one of 'error', 'category'"):
        _audit(path, missing="drop")
    with pytest.raises(ValueError, match="n_boot=: expected a non-negative integer"):
        _audit(path, n_boot=-1)
    with pytest.raises(ValueError, match="n_iter=: expected a positive integer, got 0"):
        _audit(path, n_iter=0)
    with pytest.raises(ValueError, match="metrics: unknown metric 'bogus'"):
        _audit(path, metrics=["bogus"])


def test_a_document_and_results_that_disagree_are_refused(path):
    result = _audit(path)
    with pytest.raises(ValueError) as caught:
        AuditResult(results={"mals": result["directional-a2t"]}, document=result.to_dict())
    assert str(caught.value) == ERR_RESULT_KEYS.format(
        got=["mals"], expected=["directional-a2t", "directional-t2a"]
    )
    document = result.to_dict()
    document["results"]["directional-a2t"]["n_pairs"] = -1
    with pytest.raises(ValueError, match=r"document: \$\.results\.directional-a2t\.n_pairs"):
        AuditResult(results=result.results, document=document)


def test_compare_takes_an_audit_one_row_per_metric(path):
    result = _audit(path)
    table = biasamp.compare({"model": result})
    assert list(table["metric"]) == ["directional-a2t", "directional-t2a"]
    assert table["value"].tolist() == pytest.approx(
        [float(result[k].value) for k in ("directional-a2t", "directional-t2a")]
    )


def test_plot_draws_one_bar_per_metric(path):
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    ax = _audit(path, n_boot=5).plot()
    assert [t.get_text() for t in ax.get_yticklabels()] == ["directional-a2t", "directional-t2a"]
    assert len(ax.patches) == 2
    import matplotlib.pyplot as plt

    plt.close("all")
