"""``biasamp outputs``: files in, the library's value out (terminal, JSON, gate, report)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import biasamp
from biasamp.cli.main import main

CONCEPTS = ["engineer"] * 10 + ["nurse"] * 10
GROUPS = ["man"] * 9 + ["woman"] + ["man"] * 2 + ["woman"] * 8
TABLE = pd.DataFrame(
    {"occupation": ["engineer", "nurse", "pilot"], "man": [75, 40, 5], "woman": [25, 60, 5]}
)


@pytest.fixture
def files(tmp_path):
    outputs = tmp_path / "outputs.csv"
    pd.DataFrame({"occupation": CONCEPTS, "gender": GROUPS}).to_csv(outputs, index=False)
    table = tmp_path / "reference.csv"
    TABLE.to_csv(table, index=False)
    rows = tmp_path / "captions.parquet"
    long = TABLE.melt(id_vars="occupation", var_name="gender", value_name="n")
    pd.DataFrame(
        {
            "occupation": np.repeat(long["occupation"], long["n"]),
            "gender": np.repeat(long["gender"], long["n"]),
        }
    ).to_parquet(rows, index=False)
    confusion = tmp_path / "confusion.csv"
    pd.DataFrame({"true": ["man", "woman"], "man": [90, 20], "woman": [10, 80]}).to_csv(
        confusion, index=False
    )
    return {"outputs": outputs, "table": table, "rows": rows, "confusion": confusion}


def _library(**kwargs):
    reference = TABLE.set_index("occupation")
    return biasamp.output_amplification(
        concepts=CONCEPTS, groups=GROUPS, reference=reference, **kwargs
    )


def test_json_equals_the_library_and_loads_back(files, tmp_path, capsys):
    out = tmp_path / "out.json"
    code = main([
        "outputs", str(files["outputs"]), "--concept", "occupation", "--group", "gender",
        "--reference", str(files["table"]), "--n-boot", "50", "--seed", "0", "--json", str(out),
    ])  # fmt: skip
    assert code == 0
    assert "Output amplification = +0.1750" in capsys.readouterr().out
    loaded = biasamp.load_result(out)
    expected = _library(n_boot=50, random_state=0)
    assert loaded.value == pytest.approx(expected.value)
    assert loaded.ci == expected.ci
    pd.testing.assert_frame_equal(loaded.by_concept, expected.by_concept)
    assert [f["role"] for f in loaded.params["files"]] == ["OUTPUTS", "--reference"]
    assert json.loads(out.read_text())["schema"] == "biasamp-saved-result"


def test_reference_as_rows_and_confusion(files, tmp_path):
    out = tmp_path / "out.json"
    code = main([
        "outputs", str(files["outputs"]), "--concept", "occupation", "--group", "gender",
        "--reference", str(files["rows"]), "--reference-concept", "occupation",
        "--reference-group", "gender", "--confusion", str(files["confusion"]), "--json", str(out),
    ])  # fmt: skip
    assert code == 0
    confusion = pd.DataFrame([[90, 10], [20, 80]], index=["man", "woman"], columns=["man", "woman"])
    expected = _library(attribute_confusion=confusion)
    loaded = biasamp.load_result(out)
    assert loaded.value == pytest.approx(expected.value) and loaded.corrected
    assert loaded.params["reference"] == "rows"


def test_fail_above_exits_1_and_records_the_gate(files, tmp_path, capsys):
    out = tmp_path / "out.json"
    args = ["outputs", str(files["outputs"]), "--concept", "occupation", "--group", "gender",
            "--reference", str(files["table"]), "--json", str(out)]  # fmt: skip
    assert main([*args, "--fail-above", "output-amplification=0.1"]) == 1
    assert "FAILED" in capsys.readouterr().out
    gates = biasamp.load_result(out).params["gates"]
    assert gates == [
        {
            "metric": "output-amplification",
            "bound": 0.1,
            "value": pytest.approx(0.175),
            "passed": False,
        }
    ]
    assert main([*args, "--fail-above", "output_amplification=0.2"]) == 0


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (["--group", "sex"], "column 'sex' (--group) not found"),
        (["--reference", "missing.csv"], "missing.csv"),
        (
            ["--reference-concept", "occupation"],
            "--reference-concept and --reference-group: give both",
        ),
    ],
)
def test_bad_files_and_options_exit_2_with_one_line(
    files, capsys, change, message, monkeypatch, tmp_path
):
    monkeypatch.chdir(tmp_path)
    args = {"--concept": "occupation", "--group": "gender", "--reference": str(files["table"])}
    extra = []
    if change[0] in args:
        args[change[0]] = change[1]
    else:
        extra = change
    argv = ["outputs", str(files["outputs"])] + [x for kv in args.items() for x in kv] + extra
    assert main(argv) == 2
    assert message in capsys.readouterr().err


def test_a_gate_on_another_metric_is_a_usage_error(files, capsys):
    with pytest.raises(SystemExit) as exited:
        main(["outputs", str(files["outputs"]), "--concept", "occupation", "--group", "gender",
              "--reference", str(files["table"]), "--fail-above", "mals=0.1"])  # fmt: skip
    assert exited.value.code == 2
    assert "unknown metric 'mals'; choose from output-amplification" in capsys.readouterr().err


def test_missing_value_in_a_file_is_named(files, tmp_path, capsys):
    bad = tmp_path / "bad.csv"
    pd.DataFrame({"occupation": ["engineer", ""], "gender": ["man", "woman"]}).to_csv(
        bad, index=False
    )
    code = main(["outputs", str(bad), "--concept", "occupation", "--group", "gender",
                 "--reference", str(files["table"])])  # fmt: skip
    assert code == 2
    err = capsys.readouterr().err
    assert "bad.csv" in err and "occupation" in err


def test_html_report(files, tmp_path):
    pytest.importorskip("matplotlib")
    page = tmp_path / "r.html"
    code = main(["outputs", str(files["outputs"]), "--concept", "occupation", "--group", "gender",
                 "--reference", str(files["table"]), "--html", str(page)])  # fmt: skip
    assert code == 0
    text = page.read_text(encoding="utf-8")
    assert "Output amplification" in text and "no strict majority" in text
